/* Profiles as evidence (see evidence.h). */
#include "analysis/evidence.h"

#include <stdio.h>
#include <string.h>

#include "analysis/attribution.h"
#include "plan/controls.h"
#include "plan/plan.h"

/* Whether two job points differ in nothing but threads. */
static int only_threads_differ(const struct mmp_planned *a, const struct mmp_planned *b)
{
	char x[256], y[256];
	if (a->run.job != b->run.job || a->run.p.threads == b->run.p.threads)
		return 0;
	for (int k = 0; k < MMP_KEY_COUNT; k++) {
		if (k == MMP_KEY_THREADS)
			continue;
		mmp_planned_format(a, (enum mmp_key_id)k, x, sizeof(x));
		mmp_planned_format(b, (enum mmp_key_id)k, y, sizeof(y));
		if (strcmp(x, y) != 0)
			return 0;
	}
	return 1;
}

const struct mmp_run_result *mmp_evidence_control(const struct mmp_results *res,
						  const struct mmp_run_result *r, char *from,
						  size_t len)
{
	const struct mmp_planned *p = r->planned;
	const struct mmp_run_result *best = NULL;
	size_t me = (size_t)(p - res->plan->runs);

	from[0] = '\0';
	if (!r->profile || !mmp_planned_is_point(p))
		return NULL;
	/* The rung a control's row puts first (onepu's: the growth from one
	 * PU to the job's is the threads' sharing, the question a program's
	 * profile answers; from prefault, the first rung, the seed's loop
	 * showed no growth), then the lowest with a profile. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 1; k <= p->nrungs && me + k < res->plan->nruns; k++) {
			const struct mmp_run_result *x = &res->run[me + k];
			/* (a rung skipped after its first round has one round's) */
			if ((pass || mmp_control_by_bit(x->planned->added)->profile_first) && x->profile &&
			    !x->skipped && mmp_profile_rounds(x->profile)) {
				snprintf(from, len, "%s", x->run->control_name);
				return x;
			}
		}
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_run_result *x = &res->run[i];
		if (x == r || !x->profile || !mmp_profile_rounds(x->profile) ||
		    !mmp_planned_is_point(x->planned) || x->run->p.threads >= r->run->p.threads ||
		    !only_threads_differ(x->planned, p))
			continue;
		if (!best || x->run->p.threads < best->run->p.threads)
			best = x;
	}
	if (best)
		snprintf(from, len, "threads=%u", best->run->p.threads);
	return best;
}

double mmp_evidence_units(const struct mmp_run_result *r)
{
	return r->bytes ? (double)r->bytes : 1;
}

size_t mmp_evidence_growth(const struct mmp_run_result *a, const struct mmp_run_result *b,
			   enum mmp_prof_kind kind, struct mmp_growth *out, size_t cap,
			   struct mmp_interval *total)
{
	memset(total, 0, sizeof(*total));
	if (!a || !b || !a->profile || !b->profile)
		return 0;
	return mmp_profile_growth(a->profile, mmp_evidence_units(a), b->profile,
				  mmp_evidence_units(b), kind, out, cap, total);
}

size_t mmp_evidence_where(const struct mmp_run_result *a, const struct mmp_run_result *b,
			  struct mmp_growth *out, size_t cap, struct mmp_interval *total)
{
	struct mmp_growth f[1];
	size_t n = mmp_evidence_growth(a, b, MMP_PROF_FUNCTION, f, 1, total);
	if (!n)
		return 0;
	n = mmp_evidence_growth(a, b, MMP_PROF_LINE, out, cap, total);
	if (n && out[0].growth.estimate >= 0.5 * f[0].growth.estimate)
		return n;
	return mmp_evidence_growth(a, b, MMP_PROF_FUNCTION, out, cap, total);
}

int mmp_evidence_grew(const struct mmp_interval *total)
{
	return total->valid && total->low > 0;
}

const char *mmp_evidence_text(const struct mmp_growth *top, const struct mmp_interval *total,
			      const char *from, const char *to, char *buf, size_t len)
{
	char name[320];
	if (!mmp_evidence_grew(total) || !top || !top->share.valid) {
		/* The figures are the growth line's, just above: said once. */
		snprintf(buf, len,
			 "no growth of the CPU time from %s to %s to attribute: its interval is "
			 "not above 0",
			 from, to);
		return buf;
	}
	snprintf(buf, len, "%.0f%% [%.0f, %.0f] of the growth from %s to %s is at %s",
		 100 * top->share.estimate, 100 * top->share.low, 100 * top->share.high, from, to,
		 mmp_prof_row_name(top->row, name, sizeof(name)));
	return buf;
}

/* At most this many rows in a where: line. */
#define WHERE_ROWS 3

int mmp_evidence_cause(const struct mmp_cause *c, char *buf, size_t len)
{
	struct mmp_growth g[WHERE_ROWS];
	struct mmp_interval total;
	char name[320];

	buf[0] = '\0';
	if (!c->control || !c->after || !c->before)
		return 0;
	/* The growth from the rung with the control to the one without. */
	size_t n = mmp_evidence_where(c->after, c->before, g, WHERE_ROWS, &total);
	if (!n || !mmp_evidence_grew(&total) || !g[0].share.valid)
		return 0;
	/* Rows until half of it is named (the seed's reference count: 39%
	 * in DangerousAddRef, 36% in InternalRelease, both said). */
	size_t used = 0;
	double named = 0;
	for (size_t i = 0; i < n && used < len && (i == 0 || named < 0.5); i++) {
		if (i && (!g[i].share.valid || g[i].share.estimate <= 0))
			break;
		char share[64];
		snprintf(share, sizeof(share), "%.0f%% [%.0f, %.0f]", 100 * g[i].share.estimate,
			 100 * (g[i].share.low < 0 ? 0 : g[i].share.low),
			 100 * (g[i].share.high > 1 ? 1 : g[i].share.high));
		mmp_prof_row_name(g[i].row, name, sizeof(name));
		named += g[i].share.estimate;
		if (i == 0)
			used += (size_t)snprintf(buf, len, "%s of the CPU time %s takes away is at %s",
						 share, c->control->name, name);
		else
			used += (size_t)snprintf(buf + used, len - used, "; %s at %s", share, name);
	}
	return 1;
}
