/* The questions a config asks, answered yes, no or inconclusive (see
 * answers.h). */
#include "mmprof/answers.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/lists.h"
#include "mmprof/probe.h"
#include "mmprof/result.h"
#include "mmprof/units.h"

const char *mmp_question_name(enum mmp_question q)
{
	static const char *const names[] = {
		[MMP_Q_RATIO] = "ratio", [MMP_Q_GAP] = "gap",	  [MMP_Q_CAUSE] = "cause",
		[MMP_Q_FIX] = "fix",	 [MMP_Q_MATCH] = "match", [MMP_Q_REGRESSION] = "regression",
		[MMP_Q_FASTEST] = "fastest", [MMP_Q_MODEL] = "model",
	};
	return names[q];
}

/* Questions and verdicts are cut at their buffer's length, as any line of
 * text here: job names are short in practice. */
__attribute__((format(printf, 3, 4))) static void say(char *buf, size_t len, const char *fmt,
						      ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static struct mmp_answer *add(struct mmp_answers *out, enum mmp_question kind)
{
	struct mmp_answer *grown = realloc(out->a, (out->n + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	out->a = grown;
	memset(&out->a[out->n], 0, sizeof(out->a[0]));
	out->a[out->n].kind = kind;
	return &out->a[out->n++];
}

static const char *threads_text(const struct mmp_run_result *r, char *buf, size_t len)
{
	snprintf(buf, len, "%u thread%s", r->run->p.threads, r->run->p.threads == 1 ? "" : "s");
	return buf;
}

static const char *reads_text(const struct mmp_run_result *r, char *buf, size_t len)
{
	if (r->access == 1)
		snprintf(buf, len, "1-byte reads");
	else if (r->access)
		snprintf(buf, len, "%llu-byte reads", (unsigned long long)r->access);
	else
		snprintf(buf, len, "whole-slice scans");
	return buf;
}

/* a / b, paired by round, with what it took. */
static void compare(struct mmp_answer *ans, const struct mmp_run_result *a,
		    const struct mmp_run_result *b, double tolerance)
{
	ans->a = a;
	ans->b = b;
	ans->tolerance = tolerance;
	ans->set = a->planned->set;
	mmp_results_ratio(a, b, &ans->ratio, &ans->used_disturbed);
	ans->rounds = ans->ratio.n;
	ans->disturbed = a->ndisturbed + b->ndisturbed;
}

/* The answer from where the interval lies against the band [lo, hi]:
 * yes when it lies in yes_when, no in another region, inconclusive across
 * a boundary.  words: what each region means for this question (below,
 * within, above). */
static void decide(struct mmp_answer *ans, double lo, double hi, enum mmp_band yes_when,
		   const char *below, const char *within, const char *above)
{
	enum mmp_band band = mmp_interval_band(&ans->ratio, lo, hi);
	const char *word = band == MMP_BAND_BELOW    ? below
			   : band == MMP_BAND_WITHIN ? within
			   : band == MMP_BAND_ABOVE  ? above
						     : "inconclusive";
	if (band == MMP_BAND_UNDECIDED) {
		ans->outcome = MMP_OUTCOME_INCONCLUSIVE;
		ans->more = mmp_interval_more(&ans->ratio, lo, hi, 1);
	} else {
		ans->outcome = band == yes_when ? MMP_OUTCOME_YES : MMP_OUTCOME_NO;
	}
	say(ans->verdict, sizeof(ans->verdict), "%s", word);
}

/* Is a slower than b?  Three regions: faster, the same, slower. */
static void ask_slower(struct mmp_answer *ans, double tol)
{
	decide(ans, 1 / (1 + tol), 1 + tol, MMP_BAND_ABOVE, "faster", "the same", "slower");
}

/* The matching job point of another job in the same set: the same bytes
 * read the same way, the access path aside. */
static const struct mmp_run_result *match(const struct mmp_results *res,
					  const struct mmp_run_result *r, const char *job)
{
	const struct mmp_cset *set = &res->plan->sets[r->planned->set];
	for (size_t k = 0; k < set->n; k++) {
		const struct mmp_run_result *o = &res->run[set->runs[k]];
		if (!mmp_planned_is_point(o->planned) || strcmp(o->run->job->name, job) != 0 ||
		    !mmp_result_has_data(o))
			continue;
		if (mmp_planned_comparable(o->planned, r->planned))
			return o;
	}
	return NULL;
}

/* `baseline` jobs, then `model` jobs: a real program against its model
 * is a time ratio like any other (how much slower the runtime is than the
 * C path said to model it). */
static int ask_ratios(const struct mmp_results *res, struct mmp_answers *out)
{
	char name[256], t[32], rd[64];
	for (size_t i = 0; i < 2 * res->plan->nruns; i++) {
		const struct mmp_run_result *r = &res->run[i % res->plan->nruns];
		const char *list = i < res->plan->nruns ? r->run->p.baseline : r->run->p.model;
		if (!mmp_planned_is_point(r->planned) || !mmp_result_has_data(r) || !list)
			continue;
		for (const char *p = list; mmp_list_next(&p, name, sizeof(name));) {
			const struct mmp_run_result *b = match(res, r, name);
			if (!b)
				continue;
			struct mmp_answer *ans = add(out, MMP_Q_RATIO);
			if (!ans)
				return -ENOMEM;
			compare(ans, r, b, r->run->p.tolerance);
			say(ans->question, sizeof(ans->question),
				 "Is %s slower than %s, %s at %s?", r->run->job->name, name,
				 reads_text(r, rd, sizeof(rd)), threads_text(r, t, sizeof(t)));
			ask_slower(ans, ans->tolerance);
		}
	}
	return 0;
}

/* The first job point (in plan order) of a job. */
static const char *first_baseline(const struct mmp_results *res, const char *job)
{
	static _Thread_local char name[256];
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_run *run = &res->plan->runs[i].run;
		const char *p = run->p.baseline;
		if (mmp_planned_is_point(&res->plan->runs[i]) && strcmp(run->job->name, job) == 0 && p &&
		    mmp_list_next(&p, name, sizeof(name)))
			return name;
	}
	return NULL;
}

static int ask_cause(const struct mmp_results *res, const struct mmp_attribution *a, size_t i,
		     struct mmp_answers *out)
{
	const struct mmp_run_result *r = &res->run[i];
	char t[32];
	if (!a->job)
		return 0;
	struct mmp_answer *ans = add(out, MMP_Q_CAUSE);
	if (!ans)
		return -ENOMEM;
	ans->a = r;
	ans->set = r->planned->set;
	ans->rounds = a->rounds;
	ans->used_disturbed = a->disturbed;
	for (size_t k = 0; k <= r->planned->nrungs; k++)
		ans->disturbed += res->run[i + k].ndisturbed;
	say(ans->question, sizeof(ans->question), "What causes %s's time, 1-byte reads at %s?",
		 r->run->job->name, threads_text(r, t, sizeof(t)));
	const struct mmp_cause *top = a->top;
	if (top) {
		ans->ratio = (struct mmp_interval){ .estimate = top->share,
						    .low = top->share_low,
						    .high = top->share_high,
						    .n = a->rounds,
						    .valid = top->cost.valid,
						    .df = top->cost.df };
		say(ans->verdict, sizeof(ans->verdict), "%s%s%s%s", top->name,
			 top->detail[0] ? " (" : "", top->detail, top->detail[0] ? ")" : "");
	} else {
		say(ans->verdict, sizeof(ans->verdict), "no cause stands above the noise");
	}
	if (top && a->top_decided) {
		ans->outcome = MMP_OUTCOME_YES;
	} else {
		ans->outcome = MMP_OUTCOME_INCONCLUSIVE;
		ans->more = a->more;
		say(ans->evidence, sizeof(ans->evidence), "%s%s%s", a->doubt,
		    a->disturbed ? ": " : "", a->disturbed ? r->disturbed_why : "");
	}
	return 0;
}

/* `fixes = T`: the seed's three questions. */
static int ask_fix(const struct mmp_results *res, const struct mmp_attribution *attr,
		   const char *fix_job, const char *target, struct mmp_answers *out)
{
	const char *base = first_baseline(res, target);
	char t[32], rd[64];
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_run_result *r = &res->run[i];
		if (!mmp_planned_is_point(r->planned) || !mmp_result_has_data(r))
			continue;
		int byte = r->access == 1;
		threads_text(r, t, sizeof(t));
		reads_text(r, rd, sizeof(rd));
		if (strcmp(r->run->job->name, target) == 0) {
			const struct mmp_run_result *b = base ? match(res, r, base) : NULL;
			if (b) {
				struct mmp_answer *ans = add(out, MMP_Q_GAP);
				if (!ans)
					return -ENOMEM;
				compare(ans, r, b, r->run->p.tolerance);
				double tol = ans->tolerance;
				if (byte) {
					say(ans->question, sizeof(ans->question),
						 "Is %s's gap to %s reproduced, %s at %s?", target, base,
						 rd, t);
					decide(ans, 0, 1 + tol, MMP_BAND_ABOVE, "", "not reproduced",
					       "reproduced");
				} else {
					say(ans->question, sizeof(ans->question),
						 "Does the gap go away for %s at %s (%s at most %g%% "
						 "slower than %s)?",
						 rd, t, target, tol * 100, base);
					decide(ans, 0, 1 + tol, MMP_BAND_WITHIN, "", "goes away",
					       "remains");
				}
			}
			if (byte && ask_cause(res, &attr[i], i, out))
				return -ENOMEM;
			continue;
		}
		if (strcmp(r->run->job->name, fix_job) != 0)
			continue;
		const struct mmp_run_result *like = match(res, r, target);
		if (like) {
			struct mmp_answer *ans = add(out, byte ? MMP_Q_FIX : MMP_Q_REGRESSION);
			if (!ans)
				return -ENOMEM;
			compare(ans, r, like, r->run->p.tolerance);
			double tol = ans->tolerance;
			if (byte) {
				say(ans->question, sizeof(ans->question),
					 "Is %s faster than %s, %s at %s?", fix_job, target, rd, t);
				decide(ans, 1 / (1 + tol), INFINITY, MMP_BAND_BELOW, "faster",
				       "not faster", "");
			} else {
				say(ans->question, sizeof(ans->question),
					 "Does %s slow %s by more than %g%% at %s?", fix_job, rd,
					 tol * 100, t);
				decide(ans, 0, 1 + tol, MMP_BAND_ABOVE, "", "no regression",
				       "REGRESSED");
			}
		}
		const struct mmp_run_result *b = byte && base ? match(res, r, base) : NULL;
		if (b) {
			struct mmp_answer *ans = add(out, MMP_Q_MATCH);
			if (!ans)
				return -ENOMEM;
			compare(ans, r, b, r->run->p.tolerance);
			say(ans->question, sizeof(ans->question),
				 "Does %s match %s (at most %g%% slower), %s at %s?", fix_job, base,
				 ans->tolerance * 100, rd, t);
			decide(ans, 0, 1 + ans->tolerance, MMP_BAND_WITHIN, "", "matches",
			       "still slower");
		}
	}
	return 0;
}

static const char *method(const struct mmp_run_result *r, char *buf, size_t len)
{
	char m[64];
	mmp_params_label(&r->run->p, m, sizeof(m));
	if (r->run->p.threads > 1)
		snprintf(buf, len, "%s t=%u", m, r->run->p.threads);
	else
		snprintf(buf, len, "%s", m);
	return buf;
}

/* table = sizes: per file, is one method the fastest?  The best is the one
 * with the lowest geometric mean time over the set's rounds; each other
 * method is then slower (decided), tied within the tolerance (decided), or
 * undecided. */
static int ask_fastest(const struct mmp_results *res, size_t set_index, struct mmp_answers *out)
{
	const struct mmp_cset *set = &res->plan->sets[set_index];
	const struct mmp_run_result *best = NULL;
	double best_log = 0;
	char size[32], name[96];

	for (size_t k = 0; k < set->n; k++) {
		const struct mmp_run_result *r = &res->run[set->runs[k]];
		if (!mmp_planned_is_point(r->planned) || !mmp_result_has_data(r) || !r->results_ok)
			continue;
		double lg = 0;
		for (size_t j = 0; j < r->n; j++)
			lg += log(r->elapsed_ns[j]);
		lg /= (double)r->n;
		if (!best || lg < best_log) {
			best = r;
			best_log = lg;
		}
	}
	if (!best)
		return 0;
	struct mmp_answer *ans = add(out, MMP_Q_FASTEST);
	if (!ans)
		return -ENOMEM;
	ans->a = best;
	ans->set = set_index;
	ans->tolerance = best->run->p.tolerance;
	say(ans->question, sizeof(ans->question), "Is one method the fastest for %s?",
		 mmp_format_size(best->bytes, size, sizeof(size)));
	char ties[200] = "", open[200] = "";
	size_t tu = 0, ou = 0;
	size_t more = 0;
	int undecided = 0, tied = 0;
	struct mmp_interval closest = { 0 };
	tu += (size_t)snprintf(ties, sizeof(ties), "%s", method(best, name, sizeof(name)));
	ou += (size_t)snprintf(open, sizeof(open), "%s", name);
	for (size_t k = 0; k < set->n; k++) {
		const struct mmp_run_result *r = &res->run[set->runs[k]];
		if (r == best || !mmp_planned_is_point(r->planned) || !mmp_result_has_data(r) || !r->results_ok)
			continue;
		struct mmp_interval iv;
		int dist;
		mmp_results_ratio(r, best, &iv, &dist);
		ans->used_disturbed |= dist;
		ans->disturbed += r->ndisturbed;
		if (!ans->b || iv.estimate < closest.estimate) {
			ans->b = r;
			closest = iv;
			ans->rounds = iv.n;
		}
		enum mmp_band band = mmp_interval_band(&iv, 0, 1 + ans->tolerance);
		method(r, name, sizeof(name));
		if (band == MMP_BAND_ABOVE)
			continue;
		/* Undecided, the candidates are every method that may still be
		 * the fastest or tied with it: the tied ones too. */
		if (ou < sizeof(open))
			ou += (size_t)snprintf(open + ou, sizeof(open) - ou, ", %s", name);
		if (band == MMP_BAND_WITHIN) {
			tied = 1;
			if (tu < sizeof(ties))
				tu += (size_t)snprintf(ties + tu, sizeof(ties) - tu, ", %s", name);
			continue;
		}
		undecided = 1;
		size_t m = mmp_interval_more(&iv, 0, 1 + ans->tolerance, 1);
		more = m > more ? m : more;
	}
	ans->ratio = closest;
	ans->disturbed += best->ndisturbed;
	if (undecided) {
		ans->outcome = MMP_OUTCOME_INCONCLUSIVE;
		ans->more = more;
		say(ans->verdict, sizeof(ans->verdict), "inconclusive between %s", open);
	} else if (tied) {
		ans->outcome = MMP_OUTCOME_NO;
		say(ans->verdict, sizeof(ans->verdict), "tie: %s", ties);
	} else {
		ans->outcome = MMP_OUTCOME_YES;
		say(ans->verdict, sizeof(ans->verdict), "%s", ties);
	}
	return 0;
}

/* The model's ratio against the real one: a/b (real), ma/mb (their
 * models), and (ma/mb)/(a/b), all over the rounds the four share. */
static void compare_models(struct mmp_answer *ans)
{
	const struct mmp_run_result *four[4] = { ans->a, ans->b, ans->ma, ans->mb };
	size_t m;
	unsigned *rounds = mmp_results_rounds_all(four, 4, &m, &ans->used_disturbed);
	double *a = malloc((m ? m : 1) * sizeof(*a)), *b = malloc((m ? m : 1) * sizeof(*b)),
	       *x = malloc((m ? m : 1) * sizeof(*x)), *y = malloc((m ? m : 1) * sizeof(*y));
	if (!rounds || !a || !b || !x || !y)
		m = 0; /* out of memory: intervals of nothing, not valid */
	for (size_t i = 0; i < m; i++) {
		unsigned k = rounds[i];
		a[i] = ans->a->elapsed_ns[k];
		b[i] = ans->b->elapsed_ns[k];
		x[i] = ans->ma->elapsed_ns[k] * ans->b->elapsed_ns[k];
		y[i] = ans->mb->elapsed_ns[k] * ans->a->elapsed_ns[k];
	}
	mmp_interval_ratio(a, b, m, &ans->real);
	for (size_t i = 0; i < m; i++) {
		a[i] = ans->ma->elapsed_ns[rounds[i]];
		b[i] = ans->mb->elapsed_ns[rounds[i]];
	}
	mmp_interval_ratio(a, b, m, &ans->model);
	mmp_interval_ratio(x, y, m, &ans->ratio);
	free(rounds);
	free(a);
	free(b);
	free(x);
	free(y);
	ans->rounds = m;
	for (size_t k = 0; k < 4; k++)
		ans->disturbed += four[k]->ndisturbed;
}

/* `model = M` on a real job A: for each baseline B of A whose job names a
 * model MB, does M/MB say what A/B says? */
static int ask_models(const struct mmp_results *res, struct mmp_answers *out)
{
	char bname[256], mname[256], mbname[256], t[32], rd[64];
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_run_result *r = &res->run[i];
		if (!mmp_planned_is_point(r->planned) || !mmp_result_has_data(r) ||
		    !r->run->p.model || !r->run->p.baseline)
			continue;
		for (const char *p = r->run->p.baseline; mmp_list_next(&p, bname, sizeof(bname));) {
			const struct mmp_run_result *b = match(res, r, bname);
			if (!b || !b->run->p.model)
				continue;
			for (const char *q = r->run->p.model; mmp_list_next(&q, mname, sizeof(mname));) {
				const struct mmp_run_result *m = match(res, r, mname);
				for (const char *u = b->run->p.model;
				     m && mmp_list_next(&u, mbname, sizeof(mbname));) {
					const struct mmp_run_result *mb = match(res, r, mbname);
					if (!mb || mb == m)
						continue;
					struct mmp_answer *ans = add(out, MMP_Q_MODEL);
					if (!ans)
						return -ENOMEM;
					*ans = (struct mmp_answer){
						.kind = MMP_Q_MODEL, .a = r, .b = b, .ma = m, .mb = mb,
						.tolerance = r->run->p.tolerance, .set = r->planned->set,
					};
					compare_models(ans);
					say(ans->question, sizeof(ans->question),
					    "Does the model %s/%s match %s/%s (within %g%%), %s at %s?",
					    mname, mbname, r->run->job->name, bname,
					    ans->tolerance * 100, reads_text(r, rd, sizeof(rd)),
					    threads_text(r, t, sizeof(t)));
					double tol = ans->tolerance;
					decide(ans, 1 / (1 + tol), 1 + tol, MMP_BAND_WITHIN,
					       "understates", "agrees", "overstates");
					say(ans->evidence, sizeof(ans->evidence),
					    "real %s/%s %.3gx, model %s/%s %.3gx", r->run->job->name,
					    bname, ans->real.estimate, mname, mbname,
					    ans->model.estimate);
				}
			}
		}
	}
	return 0;
}

int mmp_answers_build(const struct mmp_results *res, const struct mmp_attribution *attr,
		      struct mmp_answers *out)
{
	memset(out, 0, sizeof(*out));
	if (ask_ratios(res, out))
		return -ENOMEM;
	/* Each job that fixes another asks once. */
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_run *run = &res->plan->runs[i].run;
		int first = 1;
		for (size_t j = 0; j < i && first; j++)
			first = res->plan->runs[j].run.job != run->job;
		if (mmp_planned_is_point(&res->plan->runs[i]) && run->p.fixes && first &&
		    ask_fix(res, attr, run->job->name, run->p.fixes, out))
			return -ENOMEM;
	}
	for (size_t s = 0; res->plan->table != MMP_TABLE_RUNS && s < res->plan->nsets; s++)
		if (ask_fastest(res, s, out))
			return -ENOMEM;
	return ask_models(res, out);
}

void mmp_answers_free(struct mmp_answers *a)
{
	free(a->a);
	memset(a, 0, sizeof(*a));
}

size_t mmp_answers_undecided(const struct mmp_answers *a, size_t set)
{
	size_t n = 0;
	for (size_t i = 0; i < a->n; i++)
		n += a->a[i].set == set && a->a[i].outcome == MMP_OUTCOME_INCONCLUSIVE;
	return n;
}

int mmp_answers_regressed(const struct mmp_answers *a)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->a[i].kind == MMP_Q_REGRESSION && a->a[i].outcome == MMP_OUTCOME_YES)
			return 1;
	return 0;
}
