/* Building the plan: job points, their ladders, comparison sets (see
 * plan.h). */
#include "plan/plan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "plan/controls.h"
#include "util/lists.h"
#include "platform/memory.h"
#include "mmprof/probe.h"
#include "util/units.h"
#include "util/vec.h"

static int push(struct mmp_plan *plan, size_t *cap, const struct mmp_planned *r)
{
	if (plan->nruns >= MMP_PLAN_MAX_RUNS)
		return -E2BIG;
	if (MMP_VEC_RESERVE(plan->runs, *cap, plan->nruns + 1))
		return -ENOMEM;
	plan->runs[plan->nruns] = *r;
	plan->runs[plan->nruns].run.index = plan->nruns;
	plan->nruns++;
	return 0;
}

static const char *diag_section(const struct mmp_run *run, enum mmp_key_id key)
{
	return run->from[key] ? run->from[key] : run->job->name;
}

/* A plan problem at the key that caused it, said once: the same placement
 * or binding swept over other keys fails the same way at every point. */
static void diag_once(struct mmp_config *cfg, const struct mmp_run *run, enum mmp_key_id key,
		      const char *msg, char *last, size_t lastlen)
{
	if (strcmp(msg, last) != 0)
		mmp_config_diag(cfg, run->line[key], diag_section(run, key), "%s", msg);
	snprintf(last, lastlen, "%s", msg);
}

/* `file =` without `size`: the file's own size is the run's, so every
 * figure per byte (and the solo control's slice) is known before running.
 * A file that is not there yet is the data check's to report. */
static void resolve_size(struct mmp_run *run)
{
	struct stat st;
	if (!run->p.size && run->p.file && stat(run->p.file, &st) == 0 && S_ISREG(st.st_mode))
		run->p.size = (uint64_t)st.st_size;
}

/* A control the point names that does not apply to it: a note, or one
 * more point of the note its job already has for that reason. */
static int add_note(struct mmp_plan *plan, const struct mmp_run *run, const struct mmp_unapplied *u)
{
	const char *section = diag_section(run, MMP_KEY_CONTROLS);
	for (size_t i = 0; i < plan->nnotes; i++) {
		struct mmp_plan_note *n = &plan->notes[i];
		if (n->line == run->line[MMP_KEY_CONTROLS] && strcmp(n->section, section) == 0 &&
		    strcmp(n->job, run->job->name) == 0 && strcmp(n->control, u->control->name) == 0 &&
		    strcmp(n->why, u->why) == 0) {
			n->points++;
			return 0;
		}
	}
	struct mmp_plan_note *grown = realloc(plan->notes, (plan->nnotes + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	plan->notes = grown;
	struct mmp_plan_note *n = &plan->notes[plan->nnotes++];
	*n = (struct mmp_plan_note){ .line = run->line[MMP_KEY_CONTROLS], .section = section,
				     .job = run->job->name, .control = u->control->name,
				     .points = 1 };
	snprintf(n->why, sizeof(n->why), "%s", u->why);
	return 0;
}

/* A planned job point (its pins now the plan's) and its rungs. */
static int add_with_ladder(struct mmp_plan *plan, size_t *cap, struct mmp_config *cfg,
			   struct mmp_planned p, const struct mmp_topology *topo)
{
	struct mmp_error err = { 0 };
	struct mmp_ladder ladder = { 0 };
	int rc = mmp_ladder_build(&p.run, &p.pins, topo, &ladder, &err);
	if (rc) {
		mmp_pin_plan_free(&p.pins);
		if (rc == -ENOMEM)
			return rc;
		mmp_config_diag(cfg, p.run.line[MMP_KEY_CONTROLS],
				diag_section(&p.run, MMP_KEY_CONTROLS), "controls: %s", err.msg);
		return 0;
	}
	size_t self = plan->nruns;
	p.point = self;
	p.nrungs = ladder.n ? (unsigned)ladder.n - 1 : 0;
	for (size_t k = 0; k < ladder.nunapplied; k++)
		p.unapplied |= ladder.unapplied[k].control->bit;
	rc = push(plan, cap, &p);
	for (size_t k = 0; !rc && k < ladder.nunapplied; k++)
		rc = add_note(plan, &p.run, &ladder.unapplied[k]);
	for (size_t k = 1; !rc && k < ladder.n; k++) {
		struct mmp_rung *g = &ladder.rung[k];
		struct mmp_planned r = {
			.run = g->run, .pins = g->pins, .data = p.data, .end = g->end,
			.point = self, .rung = (unsigned)k, .added = g->added, .copy_of = -1,
		};
		rc = push(plan, cap, &r);
		if (!rc)
			memset(&g->pins, 0, sizeof(g->pins)); /* the plan owns them now */
	}
	if (rc && plan->nruns == self)
		mmp_pin_plan_free(&p.pins);
	mmp_ladder_free(&ladder);
	return rc;
}

/* placement = pairs: the job point once per PU pair of the sweep
 * (mmp_topology_pairs), each pinned to its pair. */
static int add_pairs(struct mmp_plan *plan, size_t *cap, struct mmp_config *cfg,
		     struct mmp_planned *p, const struct mmp_topology *topo)
{
	struct mmp_error err = { 0 };
	struct mmp_pu_pair *pairs = NULL;
	size_t n = 0;
	int rc = mmp_topology_pairs(topo, MMP_PAIRS_MAX, &pairs, &n, &err);

	mmp_pin_plan_free(&p->pins);
	if (rc) {
		if (rc == -ENOMEM)
			return rc;
		mmp_config_diag(cfg, p->run.line[MMP_KEY_PLACEMENT],
				diag_section(&p->run, MMP_KEY_PLACEMENT), "%s", err.msg);
		return 0;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		struct mmp_planned q = *p;
		q.pins = (struct mmp_pin_plan){ .nthreads = 2, .npus = 2 };
		q.pins.pu = malloc(2 * sizeof(int));
		if (!q.pins.pu) {
			rc = -ENOMEM;
			break;
		}
		q.pins.pu[0] = pairs[i].pu[0];
		q.pins.pu[1] = pairs[i].pu[1];
		rc = add_with_ladder(plan, cap, cfg, q, topo);
	}
	free(pairs);
	return rc;
}

/* One job point and its rungs (one per PU pair with placement = pairs);
 * problems become diagnostics. */
static int add_point(struct mmp_plan *plan, size_t *cap, struct mmp_config *cfg,
		     const struct mmp_run *point, const struct mmp_topology *topo, char *last,
		     size_t lastlen)
{
	struct mmp_planned p = { .run = *point, .copy_of = -1 };
	struct mmp_error err = { 0 };

	if (mmp_run_reads_file(&p.run.p)) {
		/* The data spec keeps the size the config asked for: a file's
		 * own size found here is not a request to (re)create it at
		 * that size (mmprof exec --file asks for none: its file is
		 * read as it is, never written). */
		p.data = (struct mmp_data_spec){ p.run.p.file, p.run.p.size, p.run.p.fill,
						 p.run.p.seed };
		resolve_size(&p.run);
	}
	if (mmp_topology_plan(topo, &p.run.p.placement, p.run.p.threads, &p.pins, &err)) {
		diag_once(cfg, &p.run, MMP_KEY_PLACEMENT, err.msg, last, lastlen);
		return 0;
	}
	if (mmp_membind_check(&p.run.p.membind, topo, &err) ||
	    mmp_membind_allowed(&p.run.p.membind, p.run.p.bind, topo, &err)) {
		diag_once(cfg, &p.run, MMP_KEY_MEMBIND, err.msg, last, lastlen);
		mmp_pin_plan_free(&p.pins);
		return 0;
	}
	if (p.run.p.placement.kind == MMP_PLACE_PAIRS)
		return add_pairs(plan, cap, cfg, &p, topo);
	return add_with_ladder(plan, cap, cfg, p, topo);
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int same_pins(const struct mmp_pin_plan *a, const struct mmp_pin_plan *b)
{
	return a->nthreads == b->nthreads &&
	       memcmp(a->pu, b->pu, a->nthreads * sizeof(*a->pu)) == 0;
}

static int same_data(const struct mmp_planned *a, const struct mmp_planned *b)
{
	return same_str(a->data.file, b->data.file) && a->data.size == b->data.size &&
	       a->data.fill == b->data.fill && a->data.seed == b->data.seed;
}

#define MMP_COMPARED_KEYS MMP_KEY_COUNT

/* One condition key of two job points, as the runs will have it: the
 * data as resolved, access as the probe resolves it, a pairs placement by
 * its PUs; the rest as set (a key a probe ignores keeps its default, so
 * it never tells two probes apart). */
static int same_condition(const struct mmp_planned *a, const struct mmp_planned *b,
			  enum mmp_key_id k)
{
	const struct mmp_params *x = &a->run.p, *y = &b->run.p;
	char u[256], v[256];
	switch (k) {
	case MMP_KEY_FILE:
		return same_str(a->data.file, b->data.file);
	case MMP_KEY_SIZE:
		return a->data.size == b->data.size;
	case MMP_KEY_FILL:
		return a->data.fill == b->data.fill;
	case MMP_KEY_SEED:
		return a->data.seed == b->data.seed;
	case MMP_KEY_ACCESS:
		return mmp_params_access(x) == mmp_params_access(y);
	case MMP_KEY_PLACEMENT:
		return strcmp(x->placement.spec, y->placement.spec) == 0 &&
		       (x->placement.kind != MMP_PLACE_PAIRS || same_pins(&a->pins, &b->pins));
	default:
		mmp_key_format(&mmp_keys[k], (const char *)x + mmp_keys[k].offset, u, sizeof(u));
		mmp_key_format(&mmp_keys[k], (const char *)y + mmp_keys[k].offset, v, sizeof(v));
		return strcmp(u, v) == 0;
	}
}

/* The keys in which two job points differ so that a ratio between their
 * times would not mean "this access path against that one": the keys with
 * MMP_ROLE_CONDITION (config.h), the same bytes read in the same
 * conditions.  Puts them in diff (MMP_COMPARED_KEYS at most) and returns
 * how many: 0 is comparable. */
static size_t incomparable_keys(const struct mmp_planned *a, const struct mmp_planned *b,
				enum mmp_key_id diff[MMP_COMPARED_KEYS])
{
	uint64_t keys = mmp_keys_with(MMP_ROLE_CONDITION);
	size_t n = 0;
	for (size_t k = 0; k < MMP_KEY_COUNT; k++)
		if ((keys & MMP_KEY_BIT(k)) && !same_condition(a, b, (enum mmp_key_id)k))
			diff[n++] = (enum mmp_key_id)k;
	return n;
}

int mmp_planned_comparable(const struct mmp_planned *a, const struct mmp_planned *b)
{
	enum mmp_key_id diff[MMP_COMPARED_KEYS];
	return incomparable_keys(a, b, diff) == 0;
}

/* A key's value in a job point as a message shows it: access is the
 * bytes per call the probe really makes (1 for byte probes). */
static const char *compared_value(const struct mmp_planned *r, enum mmp_key_id key, char *buf,
				  size_t len)
{
	if (key == MMP_KEY_ACCESS) {
		uint64_t a = mmp_params_access(&r->run.p);
		if (a)
			return mmp_format_size(a, buf, len);
		snprintf(buf, len, "whole slice");
		return buf;
	}
	if (key == MMP_KEY_FILE && !r->data.file) {
		snprintf(buf, len, "generated");
		return buf;
	}
	mmp_planned_format(r, key, buf, len);
	if (!buf[0])
		snprintf(buf, len, "-");
	return buf;
}

/* baseline, fixes and model name jobs whose ratios are shown beside this
 * one's: a named job none of whose points is comparable with a point
 * naming it would give no block and no answer, silently.  An error at the
 * naming key's line, once per job, key and named job, with the keys that
 * differ from the named job's closest point. */
static void check_named(struct mmp_config *cfg, const struct mmp_plan *plan)
{
	static const enum mmp_key_id naming[] = { MMP_KEY_BASELINE, MMP_KEY_FIXES, MMP_KEY_MODEL };
	char said[MMP_ERROR_MSG_MAX] = "", what[320], msg[MMP_ERROR_MSG_MAX];

	for (size_t i = 0; i < plan->nruns; i++) {
		const struct mmp_planned *a = &plan->runs[i];
		if (a->rung)
			continue;
		for (size_t k = 0; k < sizeof(naming) / sizeof(naming[0]); k++) {
			const char *list = naming[k] == MMP_KEY_BASELINE ? a->run.p.baseline
					   : naming[k] == MMP_KEY_FIXES	  ? a->run.p.fixes
									  : a->run.p.model;
			char name[256];
			for (const char *p = list ? list : ""; mmp_list_next(&p, name, sizeof(name));) {
				const struct mmp_planned *closest = NULL;
				enum mmp_key_id diff[MMP_COMPARED_KEYS], best[MMP_COMPARED_KEYS];
				size_t nbest = MMP_COMPARED_KEYS + 1;
				for (size_t j = 0; j < plan->nruns && nbest; j++) {
					const struct mmp_planned *b = &plan->runs[j];
					if (b->rung || b == a || strcmp(b->run.job->name, name) != 0)
						continue;
					size_t n = incomparable_keys(a, b, diff);
					if (n < nbest) {
						nbest = n;
						closest = b;
						memcpy(best, diff, n * sizeof(*diff));
					}
				}
				if (!closest || !nbest)
					continue;
				snprintf(what, sizeof(what), "%s %s %s", a->run.job->name,
					 mmp_keys[naming[k]].name, name);
				if (strcmp(what, said) == 0)
					continue; /* the next points of a sweep: said once */
				snprintf(said, sizeof(said), "%s", what);
				size_t used = (size_t)snprintf(
					msg, sizeof(msg),
					"%s = %s: no run of [%s] is comparable with this one (the "
					"same data read in the same conditions), so no ratio to it is "
					"shown; they differ in",
					mmp_keys[naming[k]].name, name, name);
				for (size_t d = 0; d < nbest && used < sizeof(msg); d++) {
					char here[128], there[128];
					used += (size_t)snprintf(
						msg + used, sizeof(msg) - used, "%s %s (%s here, %s in [%s])",
						d ? "," : "", mmp_keys[best[d]].name,
						compared_value(a, best[d], here, sizeof(here)),
						compared_value(closest, best[d], there, sizeof(there)), name);
				}
				mmp_config_diag(cfg, a->run.line[naming[k]], diag_section(&a->run, naming[k]),
						"%s", msg);
			}
		}
	}
}

/* Union-find over job points. */
static size_t find(size_t *parent, size_t i)
{
	while (parent[i] != i)
		i = parent[i] = parent[parent[i]];
	return i;
}

static void unite(size_t *parent, size_t a, size_t b)
{
	a = find(parent, a);
	b = find(parent, b);
	if (a != b)
		parent[a > b ? a : b] = a < b ? a : b;
}

static int is_limit(const struct mmp_planned *r)
{
	return r->run.p.probe->role == MMP_PROBE_CEILING;
}

static const struct mmp_plan *sort_plan; /* qsort has no context argument */

static int by_data(const void *x, const void *y)
{
	const struct mmp_data_spec *a = &sort_plan->runs[*(const size_t *)x].data;
	const struct mmp_data_spec *b = &sort_plan->runs[*(const size_t *)y].data;
	int c = strcmp(a->file ? a->file : "", b->file ? b->file : "");
	if (c)
		return c;
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	if (a->fill != b->fill)
		return a->fill < b->fill ? -1 : 1;
	if (a->seed != b->seed)
		return a->seed < b->seed ? -1 : 1;
	return (*(const size_t *)x > *(const size_t *)y) - (*(const size_t *)x < *(const size_t *)y);
}

/* Job points compared with each other share a set.  Linear in the points
 * but for the jobs that name others (baseline, fixes), so a long sweep of
 * one job plans at once. */
static int link_points(const struct mmp_plan *plan, size_t *parent)
{
	size_t *points = malloc((plan->npoints + 1) * sizeof(*points));
	size_t np = 0;

	if (!points)
		return -ENOMEM;
	for (size_t i = 0; i < plan->nruns; i++)
		if (!plan->runs[i].rung)
			points[np++] = i;
	for (size_t x = 0; x < np; x++) {
		const struct mmp_planned *a = &plan->runs[points[x]];
		for (size_t y = 0; (a->run.p.baseline || a->run.p.fixes || a->run.p.model) && y < np;
		     y++) {
			const struct mmp_planned *b = &plan->runs[points[y]];
			const char *bjob = b->run.job->name;
			if ((mmp_list_has(a->run.p.baseline, bjob) || same_str(a->run.p.fixes, bjob) ||
			     mmp_list_has(a->run.p.model, bjob)) &&
			    a != b && mmp_planned_comparable(a, b))
				unite(parent, points[x], points[y]);
		}
	}
	/* table = sizes: the methods of one file are one table column set. */
	if (plan->table != MMP_TABLE_RUNS) {
		sort_plan = plan;
		qsort(points, np, sizeof(*points), by_data);
		for (size_t x = 1; x < np; x++)
			if (same_data(&plan->runs[points[x - 1]], &plan->runs[points[x]]))
				unite(parent, points[x - 1], points[x]);
	}
	free(points);
	return 0;
}

/* A limit job point measures the ceiling of the job points it serves:
 * the same bytes, kernel, threads and PUs (placement = pairs: the same
 * pair; before, every pair's limit served every pair, so N pairs planned
 * N^2 copies of limit and "x limit" came from other PUs). */
static int ceiling_of(const struct mmp_planned *lim, const struct mmp_planned *a)
{
	return same_data(a, lim) && a->run.p.kernel == lim->run.p.kernel &&
	       a->run.p.threads == lim->run.p.threads &&
	       strcmp(a->run.p.placement.spec, lim->run.p.placement.spec) == 0 &&
	       (a->run.p.placement.kind != MMP_PLACE_PAIRS || same_pins(&a->pins, &lim->pins));
}

static int limit_serves(const struct mmp_planned *lim, const struct mmp_planned *a)
{
	return !a->rung && !is_limit(a) && ceiling_of(lim, a);
}

long mmp_plan_ceiling(const struct mmp_plan *plan, size_t i)
{
	const struct mmp_planned *a = &plan->runs[i];
	const struct mmp_cset *set = &plan->sets[a->set];
	for (size_t k = 0; k < set->n; k++) {
		const struct mmp_planned *b = &plan->runs[set->runs[k]];
		if (!b->rung && is_limit(b) && b != a && ceiling_of(b, a))
			return (long)set->runs[k];
	}
	return -1;
}

/* Each limit job point joins the first set it serves, and a copy of it
 * joins every other one, so that every "x limit" is measured side by side
 * without merging sets that compare nothing else.  A plan that grows past
 * MMP_PLAN_MAX_RUNS: -E2BIG, *at the limit point whose copies took it
 * there. */
static int place_limits(struct mmp_plan *plan, size_t **parent, size_t *cap, size_t *at)
{
	size_t n = plan->nruns;
	/* served[root] == l + 1: limit point l is in that set already (itself
	 * or a copy).  Roots stay below n: a copy joins a set's root, and a
	 * union keeps the smaller index. */
	size_t *served = calloc(n ? n : 1, sizeof(*served));
	int rc = 0;

	if (!served)
		return -ENOMEM;
	for (size_t l = 0; l < n && !rc; l++) {
		if (plan->runs[l].rung || !is_limit(&plan->runs[l]))
			continue;
		int joined = 0;
		for (size_t i = 0; i < n && !rc; i++) {
			if (!limit_serves(&plan->runs[l], &plan->runs[i]))
				continue;
			size_t root = find(*parent, i);
			if (!joined) {
				unite(*parent, l, root);
				served[find(*parent, l)] = l + 1;
				joined = 1;
				continue;
			}
			if (served[root] == l + 1)
				continue;
			struct mmp_planned copy = plan->runs[l];
			copy.nrungs = 0;
			copy.copy_of = (long)l;
			copy.pins.pu = malloc(sizeof(int) * (copy.pins.nthreads ? copy.pins.nthreads : 1));
			if (!copy.pins.pu) {
				rc = -ENOMEM;
				break;
			}
			memcpy(copy.pins.pu, plan->runs[l].pins.pu, sizeof(int) * copy.pins.nthreads);
			rc = push(plan, cap, &copy);
			if (rc) {
				free(copy.pins.pu);
				*at = l;
				break;
			}
			size_t *grown = realloc(*parent, (plan->nruns + 1) * sizeof(size_t));
			if (!grown) {
				rc = -ENOMEM;
				break;
			}
			*parent = grown;
			size_t c = plan->nruns - 1;
			plan->runs[c].point = c;
			(*parent)[c] = c;
			unite(*parent, c, root);
			served[root] = l + 1;
		}
	}
	free(served);
	return rc;
}

static void describe_set(const struct mmp_plan *plan, struct mmp_cset *set)
{
	size_t used = 0;
	used += (size_t)snprintf(set->why, sizeof(set->why), "jobs ");
	for (size_t k = 0; k < set->n && used < sizeof(set->why); k++) {
		const struct mmp_planned *r = &plan->runs[set->runs[k]];
		int seen = 0;
		for (size_t j = 0; j < k && !seen; j++)
			seen = plan->runs[set->runs[j]].run.job == r->run.job;
		if (!seen)
			used += (size_t)snprintf(set->why + used, sizeof(set->why) - used, "%s%s",
						 used > 5 ? ", " : "", r->run.job->name);
	}
}

static int build_sets(struct mmp_plan *plan, size_t *cap, size_t *at)
{
	size_t *parent = malloc((plan->nruns + 1) * sizeof(*parent));
	size_t *set_of_root = NULL;
	int rc = -ENOMEM;

	if (!parent)
		goto out;
	for (size_t i = 0; i < plan->nruns; i++)
		parent[i] = plan->runs[i].point; /* rungs join their point */
	if (link_points(plan, parent))
		goto out;
	rc = place_limits(plan, &parent, cap, at);
	if (rc)
		goto out;
	rc = -ENOMEM;
	set_of_root = malloc((plan->nruns + 1) * sizeof(*set_of_root));
	if (!set_of_root)
		goto out;
	for (size_t i = 0; i < plan->nruns; i++)
		set_of_root[i] = SIZE_MAX;
	for (size_t i = 0; i < plan->nruns; i++) {
		size_t root = find(parent, i);
		if (set_of_root[root] == SIZE_MAX) {
			struct mmp_cset *grown = realloc(plan->sets, (plan->nsets + 1) * sizeof(*grown));
			if (!grown)
				goto out;
			plan->sets = grown;
			memset(&plan->sets[plan->nsets], 0, sizeof(plan->sets[0]));
			set_of_root[root] = plan->nsets++;
		}
		plan->runs[i].set = set_of_root[root];
	}
	for (size_t i = 0; i < plan->nruns; i++)
		plan->sets[plan->runs[i].set].n++;
	for (size_t s = 0; s < plan->nsets; s++) {
		plan->sets[s].runs = malloc(plan->sets[s].n * sizeof(size_t));
		if (!plan->sets[s].runs)
			goto out;
		plan->sets[s].n = 0;
	}
	for (size_t i = 0; i < plan->nruns; i++) {
		struct mmp_cset *set = &plan->sets[plan->runs[i].set];
		set->runs[set->n++] = i;
	}
	for (size_t s = 0; s < plan->nsets; s++) {
		struct mmp_cset *set = &plan->sets[s];
		for (size_t k = 0; k < set->n; k++) {
			const struct mmp_params *p = &plan->runs[set->runs[k]].run.p;
			/* Runs compared side by side run the same rounds: the most
			 * any of them asks for. */
			if (p->warmup > set->warmup)
				set->warmup = p->warmup;
			if (p->repeat == 0)
				set->auto_rounds = 1;
			else if (p->repeat > set->rounds)
				set->rounds = p->repeat;
			if (p->max_repeat > set->max_rounds)
				set->max_rounds = p->max_repeat;
			if (p->max_time > set->max_time)
				set->max_time = p->max_time;
		}
		if (set->auto_rounds) {
			unsigned floor = MMP_AUTO_MIN_ROUNDS;
			if (set->rounds > floor)
				floor = set->rounds; /* a fixed repeat in the set is a floor too */
			set->rounds = floor < set->max_rounds ? floor : set->max_rounds;
		} else {
			set->max_rounds = set->rounds;
		}
		describe_set(plan, set);
	}
	rc = 0;
out:
	free(parent);
	free(set_of_root);
	return rc;
}

static uint64_t draw_seed(void)
{
	uint64_t seed = 0;
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed))
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	return seed ? seed : 1;
}

/* numa:* and node:*: the job point once per NUMA node of this machine (the
 * product when both), so one config gives the node-to-node matrix on any
 * machine. */
static int add_each_node(struct mmp_plan *plan, size_t *cap, struct mmp_config *cfg,
			 const struct mmp_run *point, const struct mmp_topology *topo, char *last,
			 size_t lastlen)
{
	unsigned nodes[256];
	unsigned n = mmp_topology_node_indexes(topo, nodes, 256);
	const int cpu_each = point->p.placement.each, mem_each = point->p.membind.each;
	char text[32], msg[MMP_ERROR_MSG_MAX];
	int rc = 0;

	if (n > 256)
		n = 256;
	for (unsigned a = 0; a < (cpu_each ? n : 1) && !rc; a++)
		for (unsigned b = 0; b < (mem_each ? n : 1) && !rc; b++) {
			struct mmp_run r = *point;
			if (cpu_each) {
				snprintf(text, sizeof(text), "numa:%u", nodes[a]);
				if (mmp_placement_parse(text, &r.p.placement, msg, sizeof(msg)))
					return -EINVAL; /* a node number always parses */
			}
			if (mem_each) {
				snprintf(text, sizeof(text), "node:%u", nodes[b]);
				if (mmp_membind_parse(text, &r.p.membind, msg, sizeof(msg)))
					return -EINVAL;
			}
			rc = add_point(plan, cap, cfg, &r, topo, last, lastlen);
		}
	return rc;
}

/* A plan past MMP_PLAN_MAX_RUNS: a diagnostic at the job that took it
 * there (line 0: the config as a whole, the copies of limit). */
static int too_big(struct mmp_config *cfg, int line, const char *section)
{
	mmp_config_diag(cfg, line, section,
			"the plan grows past %d runs (MMP_PLAN_MAX_RUNS: job points, their "
			"control rungs, a point per PU pair or NUMA node, copies of limit); split "
			"the sweep into several configs",
			MMP_PLAN_MAX_RUNS);
	return -EINVAL;
}

int mmp_plan_build(struct mmp_config *cfg, const struct mmp_sweep *sweep,
		   const struct mmp_topology *topo, struct mmp_plan *out)
{
	size_t before = cfg->ndiags, cap = 0;
	char last[MMP_ERROR_MSG_MAX] = "";
	int rc;

	memset(out, 0, sizeof(*out));
	if (sweep->nruns) {
		const struct mmp_params *g = &sweep->runs[0].p; /* [global]-only keys */
		out->order = g->order;
		out->seed = g->order_seed ? g->order_seed : draw_seed();
		out->table = g->table;
	}
	for (size_t i = 0; i < sweep->nruns; i++) {
		const struct mmp_run *r = &sweep->runs[i];
		rc = r->p.placement.each || r->p.membind.each
			     ? add_each_node(out, &cap, cfg, r, topo, last, sizeof(last))
			     : add_point(out, &cap, cfg, r, topo, last, sizeof(last));
		if (rc == -E2BIG)
			return too_big(cfg, r->job->line, r->job->name);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < out->nruns; i++)
		out->npoints += out->runs[i].rung == 0; /* copies come later, not points */
	for (size_t n = 0; n < out->nnotes; n++) {
		struct mmp_plan_note *note = &out->notes[n];
		size_t missing = 0;
		for (size_t i = 0; i < out->nruns; i++)
			note->of += !out->runs[i].rung &&
				    strcmp(out->runs[i].run.job->name, note->job) == 0;
		for (size_t m = 0; m < out->nnotes; m++)
			if (strcmp(out->notes[m].job, note->job) == 0 &&
			    strcmp(out->notes[m].control, note->control) == 0)
				missing += out->notes[m].points;
		note->nowhere = missing == note->of;
	}
	check_named(cfg, out);
	if (cfg->ndiags != before)
		return -EINVAL;
	size_t at = 0;
	rc = build_sets(out, &cap, &at);
	if (rc == -E2BIG)
		return too_big(cfg, out->runs[at].run.job->line, out->runs[at].run.job->name);
	return rc;
}

void mmp_plan_free(struct mmp_plan *plan)
{
	for (size_t i = 0; i < plan->nruns; i++)
		mmp_pin_plan_free(&plan->runs[i].pins);
	free(plan->runs);
	for (size_t s = 0; s < plan->nsets; s++)
		free(plan->sets[s].runs);
	free(plan->sets);
	free(plan->notes);
	memset(plan, 0, sizeof(*plan));
}

unsigned long mmp_plan_repetitions(const struct mmp_plan *plan)
{
	unsigned long reps = 0;
	for (size_t s = 0; s < plan->nsets; s++)
		reps += (unsigned long)plan->sets[s].n * plan->sets[s].rounds;
	return reps;
}

const char *mmp_planned_label(const struct mmp_planned *r, char *buf, size_t len)
{
	char acc[40] = "";
	uint64_t a = mmp_params_access(&r->run.p);
	/* Bytes per call where there are calls; whole-slice scans and the
	 * probes that count operations have none to name. */
	if (a)
		snprintf(acc, sizeof(acc), " access=%llu", (unsigned long long)a);
	else if (!r->run.p.probe->unit && mmp_run_reads_file(&r->run.p))
		snprintf(acc, sizeof(acc), " access=whole");
	snprintf(buf, len, "[%s] %s threads=%u%s%s%s", r->run.job->name, r->run.p.probe->name,
		 r->run.p.threads, acc, r->run.control_name[0] ? " +" : "", r->run.control_name);
	return buf;
}

const char *mmp_planned_format(const struct mmp_planned *r, enum mmp_key_id key, char *buf,
			       size_t len)
{
	mmp_run_format(&r->run, key, buf, len);
	if (key == MMP_KEY_PLACEMENT && r->run.p.placement.kind == MMP_PLACE_PAIRS &&
	    r->pins.nthreads == 2)
		snprintf(buf, len, "pairs:%d,%d", r->pins.pu[0], r->pins.pu[1]);
	return buf;
}
