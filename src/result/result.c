/* Results of the plan's runs, and what is computed from them once (see
 * result.h). */
#include "result/result.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "result/metrics.h"
#include "mmprof/probe.h"
#include "run/process_run.h"
#include "util/vec.h"

/* Keys whose value differs between job points, of those shown in labels
 * and tables when they do (MMP_ROLE_LABEL).  A key that means nothing to
 * a point (pingpong has no file) is not a difference. */
static uint64_t varying_keys(const struct mmp_plan *plan)
{
	uint64_t mask = 0, label = mmp_keys_with(MMP_ROLE_LABEL);
	char v[256];
	for (size_t k = 0; k < MMP_KEY_COUNT; k++) {
		const struct mmp_planned *first = NULL; /* the first with a value */
		char seen[256] = "";
		if (!(label & MMP_KEY_BIT(k)))
			continue;
		for (size_t i = 0; i < plan->nruns && !(mask & MMP_KEY_BIT(k)); i++) {
			const struct mmp_planned *r = &plan->runs[i];
			if (!mmp_planned_is_point(r) ||
			    (r->run.p.probe->role == MMP_PROBE_CEILING &&
			     (MMP_CEILING_FIXED_KEYS & MMP_KEY_BIT(k))) ||
			    !*mmp_planned_format(r, (enum mmp_key_id)k, v, sizeof(v)))
				continue;
			if (!first) {
				first = r;
				snprintf(seen, sizeof(seen), "%s", v);
			} else if (strcmp(v, seen) != 0) {
				mask |= MMP_KEY_BIT(k);
			}
		}
	}
	return mask;
}

double mmp_result_per(const struct mmp_run_result *r)
{
	if (r->ops)
		return (double)r->ops;
	return r->bytes ? (double)r->bytes : 1;
}

const char *mmp_result_unit(const struct mmp_run_result *r)
{
	return r->ops ? r->run->p.probe->unit : r->bytes ? "byte" : "run";
}

const char *mmp_run_state_name(enum mmp_run_state s)
{
	static const char *const names[] = {
		[MMP_RUN_PENDING] = "pending", [MMP_RUN_RUNNING] = "running",
		[MMP_RUN_DONE] = "done",       [MMP_RUN_FAILED] = "failed",
		[MMP_RUN_INTERRUPTED] = "interrupted",
	};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

int mmp_results_init(struct mmp_results *res, const struct mmp_plan *plan)
{
	memset(res, 0, sizeof(*res));
	res->plan = plan;
	res->run = calloc(plan->nruns ? plan->nruns : 1, sizeof(*res->run));
	if (!res->run)
		return -ENOMEM;
	for (size_t i = 0; i < plan->nruns; i++) {
		struct mmp_run_result *r = &res->run[i];
		r->planned = &plan->runs[i];
		r->run = &plan->runs[i].run;
		r->access = mmp_params_access(&r->run->p);
		r->results_ok = 1;
	}
	res->varying = varying_keys(plan);
	return 0;
}

void mmp_results_free(struct mmp_results *res)
{
	for (size_t i = 0; res->run && i < res->plan->nruns; i++) {
		free(res->run[i].elapsed_ns);
		free(res->run[i].disturbed);
		free(res->run[i].cpu_ns);
		free(res->run[i].overlap);
		free(res->run[i].ev_values);
		free(res->run[i].ev_ok);
		free(res->run[i].ev_state);
		if (res->run[i].profile)
			mmp_profile_free(res->run[i].profile);
		free(res->run[i].profile);
	}
	mmp_symbols_free(res->symbols);
	free(res->run);
	memset(res, 0, sizeof(*res));
}

void mmp_results_start(struct mmp_results *res, size_t run, const struct mmp_datafile *data,
		       const struct mmp_event_set *events)
{
	struct mmp_run_result *r = &res->run[run];
	r->data = data;
	r->events = events;
	const struct mmp_probe *probe = r->run->p.probe;
	if (data)
		r->bytes = r->planned->end ? r->planned->end : data->size;
	else /* chase: the memory it chases; pingpong: none */
		r->bytes = !(probe->needs & MMP_NEEDS_WORK) ? 0
			   : r->planned->end                ? r->planned->end
							    : r->run->p.size;
	r->ops = probe->ops ? probe->ops(&r->run->p) : 0;
	r->state = MMP_RUN_RUNNING;
}

static int grow(struct mmp_run_result *r, size_t need)
{
	size_t nev = r->events ? r->events->n : 0;
	if (need <= r->cap)
		return 0;
	/* One row of event values per round. */
	size_t cap = mmp_vec_grown(r->cap, need), row = (nev ? nev : 1) * sizeof(*r->ev_values);
	if (MMP_VEC_RESIZE(r->elapsed_ns, cap) || MMP_VEC_RESIZE(r->disturbed, cap) ||
	    MMP_VEC_RESIZE(r->cpu_ns, cap) || MMP_VEC_RESIZE(r->overlap, cap) ||
	    mmp_vec_resize(&r->ev_values, cap, row))
		return -ENOMEM;
	if (!r->ev_ok && (r->ev_ok = malloc((nev ? nev : 1) * sizeof(int))) != NULL)
		for (size_t i = 0; i < nev; i++)
			r->ev_ok[i] = 1;
	if (!r->ev_state)
		r->ev_state = calloc(nev ? nev : 1, sizeof(int)); /* MMP_COUNT_COUNTED */
	if (!r->ev_ok || !r->ev_state)
		return -ENOMEM;
	r->cap = cap;
	return 0;
}

/* A program's preload library over the rounds: the most any round saw. */
static void add_preload(struct mmp_run_result *r, const struct mmp_rep_process *x)
{
	struct mmp_preload_report *p = &r->preload;
	const struct mmp_preload_report *q = &x->preload;
#define MAX_OF(field) p->field = q->field > p->field ? q->field : p->field
	r->preload_asked = 1;
	MAX_OF(loaded);
	MAX_OF(exited);
	MAX_OF(mappings);
	MAX_OF(present);
	MAX_OF(advised);
	MAX_OF(huge);
	MAX_OF(touched);
	MAX_OF(blocks);
	MAX_OF(block_present);
	MAX_OF(block_advised);
	if (q->refused > p->refused) {
		p->refused = q->refused;
		p->refused_errno = q->refused_errno;
	}
	if (q->noalloc > p->noalloc) {
		p->noalloc = q->noalloc;
		memcpy(p->noalloc_why, q->noalloc_why, sizeof(p->noalloc_why));
	}
	MAX_OF(calls);
	MAX_OF(served);
	MAX_OF(syscalls);
#undef MAX_OF
	for (size_t k = 0; k < MMP_ASIDE_N; k++)
		if (q->aside[k] > p->aside[k])
			p->aside[k] = q->aside[k];
	if (x->preload_note && !r->preload_note[0])
		snprintf(r->preload_note, sizeof(r->preload_note), "%s", x->preload_note);
}

/* Add a list of PUs as mmp_cpulist_format writes it ("0-3,8") to set;
 * whether it named any. */
static int add_cpulist(cpu_set_t *set, const char *list)
{
	int any = 0;
	for (const char *p = list; *p;) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;
		if (end == p)
			break;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		for (unsigned long c = a; c <= b && c < CPU_SETSIZE; c++, any = 1)
			CPU_SET(c, set);
		p = *end == ',' ? end + 1 : end;
		if (*end != ',')
			break;
	}
	return any;
}

/* One round's share into a run's (mmp_run_result.kernel, unexplained, self). */
static void add_share(struct mmp_pu_share *s, double share, const char *tasks)
{
	if (share < 0)
		return;
	s->lo = !s->n || share < s->lo ? share : s->lo;
	s->hi = !s->n || share > s->hi ? share : s->hi;
	s->sum += share;
	if (!s->n++ || share > s->top) {
		s->top = share;
		snprintf(s->tasks, sizeof(s->tasks), "%s", tasks);
	}
}

static void add_counts(struct mmp_run_result *r, const struct mmp_rep *rep, size_t round)
{
	size_t nev = r->events ? r->events->n : 0;
	for (size_t i = 0; i < nev; i++) {
		r->ev_values[round * nev + i] = rep->counts[i].value;
		r->ev_ok[i] &= mmp_count_valid(&rep->counts[i]);
		/* The states are ordered from counted to denied: the report says
		 * the least complete one seen ("scaled" if one round was). */
		if ((int)rep->counts[i].state > r->ev_state[i])
			r->ev_state[i] = (int)rep->counts[i].state;
	}
}

static int add_profile(struct mmp_results *res, struct mmp_run_result *r,
		       const struct mmp_rep_process *x, size_t round, struct mmp_error *err)
{
	if (!x) /* a probe's threads are not sampled */
		return 0;
	if ((x->samples || x->samples_why) && !r->profile) {
		r->profile = malloc(sizeof(*r->profile));
		if (!r->profile)
			return mmp_error_set(err, -ENOMEM, "out of memory");
		mmp_profile_init(r->profile);
	}
	if (x->samples_why)
		mmp_profile_refused(r->profile, x->samples_why);
	if (x->samples) {
		int rc = res->symbols ? 0 : mmp_symbols_new(&res->symbols);
		if (!rc)
			rc = mmp_profile_add(r->profile, res->symbols, x->samples, round);
		if (rc)
			return mmp_error_errno(err, rc, "round %zu's profile", round + 1);
	}
	return 0;
}

int mmp_results_record(struct mmp_results *res, size_t run, const struct mmp_rep *rep,
		       struct mmp_error *err)
{
	struct mmp_run_result *r = &res->run[run];
	size_t round = rep->index;
	const struct mmp_rep_process *x = rep->process; /* a program's (process_run.h) */

	/* Rounds arrive in order; a run that missed one (it failed) has no
	 * more rounds after it, so index == n.  Any other index would pair
	 * this time with another round's times in every comparison. */
	if (round != r->n)
		return mmp_error_set(err, -EINVAL,
				     "round %zu arrived when %zu round(s) were recorded: rounds are "
				     "recorded in order, once each",
				     round + 1, r->n);
	if (grow(r, round + 1))
		return mmp_error_set(err, -ENOMEM, "out of memory");
	r->elapsed_ns[round] = (double)rep->elapsed_ns;
	r->disturbed[round] = (unsigned char)rep->dist.disturbed;
	r->cpu_ns[round] = x ? (double)x->cpu_ns : 0;
	r->overlap[round] = rep->dist.overlap;
	if (x && x->preload_asked)
		add_preload(r, x);
	add_share(&r->kernel, rep->dist.kernel, rep->dist.kernel_tasks);
	add_share(&r->unexplained, rep->dist.unexplained, rep->dist.other_tasks);
	add_share(&r->self, rep->dist.self, "");
	if (rep->dist.seen_why[0] && !r->seen_why[0])
		snprintf(r->seen_why, sizeof(r->seen_why), "%s", rep->dist.seen_why);
	if (rep->dist.disturbed && !r->ndisturbed++)
		snprintf(r->disturbed_why, sizeof(r->disturbed_why), "%s", rep->dist.why);
	add_counts(r, rep, round);
	int rc = add_profile(res, r, x, round, err);
	if (rc)
		return rc;
	r->results_ok &= rep->result_ok && !rep->probe_rc;
	r->unchecked |= x && x->result_unchecked;
	if (x) { /* a program's repetition */
		r->program = 1;
		r->nescaped += (unsigned)!!x->escaped;
		r->pus_ran_seen |= add_cpulist(&r->pus_ran, x->pus_ran);
	}
	r->n++;
	return 0;
}

void mmp_results_finish(struct mmp_results *res, size_t run, enum mmp_run_state state,
			const char *error)
{
	struct mmp_run_result *r = &res->run[run];
	r->state = state == MMP_RUN_INTERRUPTED && !r->n ? MMP_RUN_PENDING : state;
	if (error)
		snprintf(r->error, sizeof(r->error), "%s", error);
}

int mmp_result_has_data(const struct mmp_run_result *r)
{
	return r->n > 0 && (r->state == MMP_RUN_RUNNING || r->state == MMP_RUN_DONE ||
			    r->state == MMP_RUN_INTERRUPTED);
}

size_t mmp_results_rounds(const struct mmp_run_result *const *runs, size_t n, unsigned *rounds,
			  size_t cap, int *disturbed)
{
	size_t common = SIZE_MAX, clean = 0, m = 0;
	for (size_t k = 0; k < n; k++) {
		size_t nk = mmp_result_has_data(runs[k]) ? runs[k]->n : 0;
		common = nk < common ? nk : common;
	}
	if (common == SIZE_MAX)
		common = 0;
	for (size_t r = 0; r < common; r++) {
		int bad = 0;
		for (size_t k = 0; k < n && !bad; k++)
			bad = runs[k]->disturbed[r];
		clean += !bad;
	}
	*disturbed = clean < MMP_MIN_CLEAN_ROUNDS && clean < common;
	for (size_t r = 0; r < common && m < cap; r++) {
		int bad = 0;
		for (size_t k = 0; k < n && !bad && !*disturbed; k++)
			bad = runs[k]->disturbed[r];
		if (!bad)
			rounds[m++] = (unsigned)r;
	}
	return m;
}

unsigned *mmp_results_rounds_all(const struct mmp_run_result *const *runs, size_t n, size_t *m,
				 int *disturbed)
{
	size_t cap = SIZE_MAX;
	for (size_t k = 0; k < n; k++)
		if (runs[k]->n < cap)
			cap = runs[k]->n;
	*m = 0;
	*disturbed = 0;
	unsigned *rounds = cap && cap != SIZE_MAX ? malloc(cap * sizeof(*rounds)) : NULL;
	if (!rounds)
		return NULL;
	*m = mmp_results_rounds(runs, n, rounds, cap, disturbed);
	return rounds;
}

void mmp_results_ratio(const struct mmp_run_result *a, const struct mmp_run_result *b,
		       struct mmp_interval *out, int *disturbed)
{
	const struct mmp_run_result *both[2] = { a, b };
	size_t m;
	unsigned *rounds = mmp_results_rounds_all(both, 2, &m, disturbed);
	double *x = malloc((m ? m : 1) * sizeof(*x)), *y = malloc((m ? m : 1) * sizeof(*y));
	if (!rounds || !x || !y)
		m = 0; /* no rounds (or no memory): an interval of nothing, not valid */
	for (size_t i = 0; i < m; i++) {
		x[i] = a->elapsed_ns[rounds[i]];
		y[i] = b->elapsed_ns[rounds[i]];
	}
	mmp_interval_ratio(x, y, m, out);
	free(rounds);
	free(x);
	free(y);
}

/* One round's sum of a role's events, for mmp_metric_eval. */
struct round_roles {
	const struct mmp_run_result *r;
	size_t round;
};

static int round_role(int role, double *v, void *arg)
{
	const struct round_roles *rr = arg;
	const struct mmp_run_result *r = rr->r;
	size_t nev = r->events ? r->events->n : 0;
	int found = 0;
	*v = 0;
	for (size_t i = 0; i < nev; i++) {
		if ((int)r->events->ev[i].role != role)
			continue;
		if (!r->ev_ok[i])
			return 0;
		*v += r->ev_values[rr->round * nev + i];
		found = 1;
	}
	return found;
}

int mmp_result_metric_median(const struct mmp_run_result *r, const struct mmp_metric *m,
			     double *out)
{
	double *v = malloc((r->n ? r->n : 1) * sizeof(*v));
	size_t n = 0;
	struct mmp_stats st;
	*out = 0;
	if (!v)
		return 0;
	for (size_t k = 0; k < r->n; k++) {
		struct round_roles rr = { r, k };
		if (mmp_metric_eval(m, round_role, &rr, r->bytes, &v[n]))
			n++;
	}
	int ok = n == r->n && n && mmp_stats_compute(v, n, &st) == 0;
	if (ok)
		*out = st.median;
	free(v);
	return ok;
}

const char *mmp_result_access(const struct mmp_run_result *r, char *buf, size_t len)
{
	if (r->access)
		snprintf(buf, len, "%" PRIu64, r->access);
	else if (r->run->p.probe->access_mode == MMP_ACCESS_DECLARED)
		snprintf(buf, len, "-"); /* a program whose job did not say */
	else
		snprintf(buf, len, "whole");
	return buf;
}

const char *mmp_result_label(const struct mmp_results *res, const struct mmp_run_result *r,
			     char *buf, size_t len)
{
	char access[48] = "", v[256];
	/* Bytes per call, where the probe reads the file in calls or a scan
	 * of it; pingpong and chase count operations, not bytes. */
	if (!r->run->p.probe->unit) {
		char a[32];
		snprintf(access, sizeof(access), " access=%s", mmp_result_access(r, a, sizeof(a)));
	}
	size_t used = (size_t)snprintf(buf, len, "[%s] %s threads=%u%s", r->run->job->name,
				       r->run->p.probe->name, r->run->p.threads, access);
	for (size_t k = 0; k < MMP_KEY_COUNT && used < len; k++)
		if ((res->varying & MMP_KEY_BIT(k)) &&
		    *mmp_planned_format(r->planned, (enum mmp_key_id)k, v, sizeof(v)))
			used += (size_t)snprintf(buf + used, len - used, " %s=%s",
						 mmp_keys[k].name, v);
	if (used < len && r->run->control_name[0])
		snprintf(buf + used, len - used, " +%s", r->run->control_name);
	return buf;
}

/* The ceiling of run i, which ran in the same rounds (plan.h). */
static const struct mmp_run_result *limit_of(const struct mmp_results *res, size_t i)
{
	long k = mmp_plan_ceiling(res->plan, i);
	return k >= 0 ? &res->run[k] : NULL;
}

int mmp_results_compute(struct mmp_results *res)
{
	const struct mmp_plan *plan = res->plan;
	int disturbed;

	for (size_t i = 0; i < plan->nruns; i++) {
		struct mmp_run_result *r = &res->run[i];
		memset(&r->st, 0, sizeof(r->st));
		if (r->n)
			mmp_stats_compute(r->elapsed_ns, r->n, &r->st);
		r->limit = mmp_planned_is_point(r->planned) ? limit_of(res, i) : NULL;
		memset(&r->x_limit, 0, sizeof(r->x_limit));
		if (r->limit && mmp_result_has_data(r) && mmp_result_has_data(r->limit))
			mmp_results_ratio(r, r->limit, &r->x_limit, &disturbed);
	}
	return 0;
}
