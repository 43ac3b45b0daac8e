/* Attribution by the ladder of controls (see attribution.h). */
#include "mmprof/attribution.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "mmprof/controls.h"
#include "mmprof/events.h"
#include "mmprof/probe.h"

const char *mmp_cause_name(enum mmp_cause_kind kind)
{
	switch (kind) {
	case MMP_CAUSE_OVERSUBSCRIPTION:
		return "oversubscription";
	case MMP_CAUSE_FAULTS:
		return "page faults";
	case MMP_CAUSE_FALSE_SHARING:
		return "false sharing";
	case MMP_CAUSE_TRUE_SHARING:
		return "true sharing";
	case MMP_CAUSE_PER_CALL:
		return "per-call";
	case MMP_CAUSE_SCALING:
		return "scaling";
	case MMP_CAUSE_UNEXPLAINED:
		return "unexplained";
	}
	return "?";
}

const char *mmp_cause_fix(const struct mmp_cause *c)
{
	switch (c->kind) {
	case MMP_CAUSE_OVERSUBSCRIPTION:
		return "use at most as many threads as the placement has PUs";
	case MMP_CAUSE_FAULTS:
		return "map the pages in before the loop (MAP_POPULATE, prefault) or read "
		       "them with read()";
	case MMP_CAUSE_FALSE_SHARING:
		return "pad per-thread counters onto lines of their own (128 bytes apart)";
	case MMP_CAUSE_TRUE_SHARING:
		return strstr(c->detail, "refcount")
			       ? "take the reference once per thread or per view, not per call"
			       : "count per thread and add up at the end";
	case MMP_CAUSE_PER_CALL:
		return "read in bulk: fewer, larger calls";
	case MMP_CAUSE_SCALING:
		return "fewer threads, or data local to each thread's memory";
	case MMP_CAUSE_UNEXPLAINED:
		return "no control explains it: read the counters";
	}
	return "";
}

static enum mmp_cause_kind kind_of(unsigned bit)
{
	switch (bit) {
	case MMP_CONTROL_FIT:
		return MMP_CAUSE_OVERSUBSCRIPTION;
	case MMP_CONTROL_PREFAULT:
		return MMP_CAUSE_FAULTS;
	case MMP_CONTROL_PADDED:
		return MMP_CAUSE_FALSE_SHARING;
	case MMP_CONTROL_PRIVATE:
		return MMP_CAUSE_TRUE_SHARING;
	case MMP_CONTROL_BULK:
		return MMP_CAUSE_PER_CALL;
	default:
		return MMP_CAUSE_SCALING;
	}
}

/* One piece of evidence a cause may have: a metric from the counters. */
struct candidate {
	const char *metric;
	int role, per_role; /* per_role: a ratio of two roles (cycles/instruction) */
	double per_bytes;   /* 1: per byte, 1024: per KiB, 2^20: per MiB, 0: per run */
	const char *events; /* what to count for it */
};

static int metric(const struct mmp_run_result *r, const struct candidate *c, double *out)
{
	double v, d;
	if (!mmp_result_metric(r, c->role, &v))
		return 0;
	if (c->per_role) {
		if (!mmp_result_metric(r, c->per_role, &d) || d <= 0)
			return 0;
		*out = v / d;
		return 1;
	}
	*out = c->per_bytes > 0 ? v / ((double)r->bytes / c->per_bytes) : v;
	return 1;
}

static void find_evidence(struct mmp_cause *cause)
{
	static const struct candidate over[] = {
		{ "context switches/run", MMP_ROLE_CONTEXT_SWITCHES, 0, 0, "context-switches" },
	};
	static const struct candidate faults[] = {
		{ "faults/MiB", MMP_ROLE_PAGE_FAULTS, 0, 1 << 20, "page-faults" },
		{ "minor faults/MiB", MMP_ROLE_MINOR_FAULTS, 0, 1 << 20, "minor-faults" },
	};
	static const struct candidate sharing[] = {
		{ "contention/KiB", MMP_ROLE_CONTENTION, 0, 1024, "the contention preset (HITM)" },
		{ "cycles/instruction", MMP_ROLE_CYCLES, MMP_ROLE_INSTRUCTIONS, 0,
		  "cycles, instructions" },
	};
	static const struct candidate per_call[] = {
		{ "instructions/byte", MMP_ROLE_INSTRUCTIONS, 0, 1, "instructions" },
		{ "syscalls/MiB", MMP_ROLE_SYSCALLS, 0, 1 << 20, "raw_syscalls:sys_enter" },
	};
	static const struct candidate scaling[] = {
		{ "migrations/run", MMP_ROLE_MIGRATIONS, 0, 0, "cpu-migrations" },
	};
	const struct candidate *list = NULL;
	size_t n = 0;

	switch (cause->kind) {
	case MMP_CAUSE_OVERSUBSCRIPTION:
		list = over, n = 1;
		break;
	case MMP_CAUSE_FAULTS:
		list = faults, n = 2;
		break;
	case MMP_CAUSE_FALSE_SHARING:
	case MMP_CAUSE_TRUE_SHARING:
		list = sharing, n = 2;
		break;
	case MMP_CAUSE_PER_CALL:
		list = per_call, n = 2;
		break;
	case MMP_CAUSE_SCALING:
		list = scaling, n = 1;
		break;
	case MMP_CAUSE_UNEXPLAINED:
		return;
	}
	struct mmp_evidence *e = &cause->evidence;
	size_t used = 0;
	e->metric = list[0].metric;
	for (size_t i = 0; i < n; i++) {
		if (metric(cause->before, &list[i], &e->before) &&
		    metric(cause->after, &list[i], &e->after)) {
			e->metric = list[i].metric;
			e->counted = 1;
			return;
		}
		used += (size_t)snprintf(e->missing + used,
					 used < sizeof(e->missing) ? sizeof(e->missing) - used : 0,
					 "%s%s", used ? "; " : "", list[i].events);
	}
}

/* Which shared state the private control made per-thread. */
static void private_detail(const struct mmp_run *run, char *buf, size_t len)
{
	int refcount = (run->applies & MMP_KEY_BIT(MMP_KEY_REFCOUNT)) &&
		       run->p.refcount == MMP_REFCOUNT_SHARED;
	int tally = (run->applies & MMP_KEY_BIT(MMP_KEY_TALLY)) && run->p.tally == MMP_TALLY_ATOMIC;
	snprintf(buf, len, "%s%s%s", refcount ? "refcount" : "", refcount && tally ? ", " : "",
		 tally ? "atomic tally" : "");
}

/* Every rung's time is per byte of the job's file: solo reads one thread's
 * share, in the time the whole job would take if it scaled perfectly. */
static double per_job_byte(const struct mmp_run_result *job, double ns)
{
	return ns / (double)job->bytes;
}

int mmp_attribute(const struct mmp_run_result *job, struct mmp_attribution *out)
{
	memset(out, 0, sizeof(*out));
	if (!job->ladder || !job->ncontrols || !job->n)
		return -ENODATA;
	for (size_t k = 0; k < job->ncontrols; k++)
		if (!job->controls[k].n)
			return -ENODATA;
	out->job = job;
	out->total = per_job_byte(job, job->st.median);

	const struct mmp_run_result *below = job;
	for (size_t k = 1; k <= job->ncontrols; k++) {
		const struct mmp_run_result *rung = &job->controls[k - 1];
		struct mmp_cause *c = &out->cause[out->n++];
		c->kind = kind_of(job->ladder->rung[k].added);
		c->before = below;
		c->after = rung;
		c->ns_per_byte = per_job_byte(job, below->st.median - rung->st.median);
		c->noise = per_job_byte(job, below->st.stddev + rung->st.stddev);
		c->significant = fabs(c->ns_per_byte) > c->noise;
		c->cv_before = below->st.cv;
		c->cv_after = rung->st.cv;
		if (c->kind == MMP_CAUSE_FALSE_SHARING)
			snprintf(c->detail, sizeof(c->detail), "packed tally");
		if (c->kind == MMP_CAUSE_TRUE_SHARING)
			private_detail(below->run, c->detail, sizeof(c->detail));
		find_evidence(c);
		below = rung;
	}
	struct mmp_cause *u = &out->cause[out->n++];
	u->kind = MMP_CAUSE_UNEXPLAINED;
	u->before = below;
	u->ns_per_byte = per_job_byte(job, below->st.median);
	u->noise = per_job_byte(job, below->st.stddev);
	u->significant = fabs(u->ns_per_byte) > u->noise;
	u->cv_before = below->st.cv;
	for (size_t i = 0; i < out->n; i++)
		out->cause[i].share = out->total > 0 ? out->cause[i].ns_per_byte / out->total : 0;
	return 0;
}

const struct mmp_cause *mmp_attribution_top(const struct mmp_attribution *a)
{
	const struct mmp_cause *top = NULL;
	for (size_t i = 0; i < a->n; i++) {
		const struct mmp_cause *c = &a->cause[i];
		if (c->kind != MMP_CAUSE_UNEXPLAINED && c->significant && c->ns_per_byte > 0 &&
		    (!top || c->ns_per_byte > top->ns_per_byte))
			top = c;
	}
	return top;
}
