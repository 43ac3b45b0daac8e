/* Attribution by the ladder of controls (see attribution.h). */
#include "analysis/attribution.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/disturbance.h"
#include "util/lists.h"
#include "analysis/evidence.h"
#include "platform/firsttouch.h"
#include "result/metrics.h"
#include "mmprof/probe.h"
#include "result/result.h"


/* One evidence metric's medians on both sides of a control, in the units
 * its heading says (CPU ms, not ns); 0 when either has none.  A program
 * without a data file read no bytes: its faults and calls were counted
 * all the same, per run. */
static int evidence_pair(const struct mmp_evidence_def *d, const struct mmp_run_result *before,
			 const struct mmp_run_result *after, struct mmp_evidence *e)
{
	const struct mmp_metric *m = mmp_metric_find(d->metric);
	struct mmp_metric per_run;
	double b, a;
	if ((!before->bytes || !after->bytes) && mmp_metric_per_run(m, &per_run))
		m = &per_run;
	if (!mmp_result_metric_median(before, m, &b) || !mmp_result_metric_median(after, m, &a))
		return 0;
	e->before = b * (m->scale ? m->scale : 1);
	e->after = a * (m->scale ? m->scale : 1);
	e->metric = m->head;
	e->counted = 1;
	return 1;
}

static void find_evidence(struct mmp_cause *c)
{
	struct mmp_evidence *e = &c->evidence;
	size_t used = 0;
	if (!c->control || c->interacting || !c->control->nevidence)
		return;
	e->metric = mmp_metric_find(c->control->evidence[0].metric)->head;
	for (size_t i = 0; i < c->control->nevidence; i++) {
		const struct mmp_evidence_def *d = &c->control->evidence[i];
		if (evidence_pair(d, c->before, c->after, e))
			return;
		used += (size_t)snprintf(e->missing + used,
					 used < sizeof(e->missing) ? sizeof(e->missing) - used : 0,
					 "%s%s", used ? "; " : "", d->events);
	}
}

/* A program's rung whose control cannot tell its cause from another
 * without its evidence counters, none of which ran: the cause is named
 * as either (controls.h). */
static const struct mmp_cause_either *either_of(const struct mmp_control_info *ci,
						const struct mmp_run_result *before,
						const struct mmp_run_result *after)
{
	struct mmp_evidence e;
	if (!ci->either || mmp_run_kind(before->run) != MMP_RUN_KIND_PROCESS)
		return NULL;
	for (size_t i = 0; i < ci->nevidence; i++)
		if (evidence_pair(&ci->evidence[i], before, after, &e))
			return NULL;
	return ci->either;
}

/* The share of the CPU time a cause's control took away that the rungs'
 * profiles put in the kernel; -1: no profiles, or no growth to share. */
static double kernel_part(const struct mmp_cause *c)
{
	const struct mmp_run_result *a = c->after, *b = c->before;
	if (!a || !b || !a->profile || !b->profile || !b->profile->nrows)
		return -1;
	struct mmp_growth *g = malloc(b->profile->nrows * sizeof(*g));
	struct mmp_interval total;
	double part = 0;
	size_t n = g ? mmp_evidence_growth(a, b, MMP_PROF_FUNCTION, g, b->profile->nrows, &total)
		     : 0;
	for (size_t i = 0; i < n; i++)
		if (g[i].row->kernel && g[i].growth.estimate > 0)
			part += g[i].share.estimate;
	free(g);
	return n && mmp_evidence_grew(&total) ? part : -1;
}

/* Huge pages take away TLB misses in the program's own code, and the
 * kernel's work of setting up 4 KiB pages one by one (512 at a time
 * instead).  When the profiles put the time they took away in the kernel,
 * the cause is that work, page setup in the kernel, not TLB reach (a program touching
 * each page of fresh memory once: huge took 68% away, 96% of it in the
 * kernel). */
static void huge_check(struct mmp_cause *c)
{
	if (!c->control || c->control->bit != MMP_CONTROL_HUGE || c->interacting ||
	    !c->significant || c->cost.low <= 0)
		return;
	double k = kernel_part(c);
	if (k <= MMP_HUGE_KERNEL)
		return;
	c->kernel_part = k > 1 ? 1 : k;
	/* Not "page faults": prefault's cause, often in the same ladder,
	 * is named so, and two rows of one name read as one cause twice. */
	snprintf(c->name, sizeof(c->name), "page setup (in the kernel)");
	snprintf(c->detail, sizeof(c->detail),
		 "the kernel's work per 4 KiB page, which huge pages do 512 at a time");
	memset(&c->evidence, 0, sizeof(c->evidence)); /* not TLB misses: the profile's */
}

/* The first touch in the unit it is paid in: a page of the mapping.  The
 * cost is ns per byte of the job's time; its threads touch their slices'
 * pages side by side, so one page costs each of them threads times that.
 * No fault counted on either side of the control: the guest kernel never
 * ran for it, the cost is below it (a hypervisor's page tables). */
static void touch_check(struct mmp_cause *c)
{
	if (!c->control || c->control->bit != MMP_CONTROL_TOUCH || c->interacting ||
	    !c->significant || c->cost.low <= 0 || !c->before)
		return;
	/* A program's mappings are its own: bytes of its file are not pages
	 * it touched. */
	if (mmp_run_kind(c->before->run) == MMP_RUN_KIND_PROCESS)
		return;
	double k = (double)mmp_page_size() * c->before->run->p.threads;
	c->per_page = c->cost;
	c->per_page.estimate *= k;
	c->per_page.low *= k;
	c->per_page.high *= k;
	c->below_kernel = c->evidence.counted && c->evidence.before < MMP_TOUCH_NO_FAULTS &&
			  c->evidence.after < MMP_TOUCH_NO_FAULTS;
}

/* The times of a ladder's runs, per byte of the job, in the rounds used. */
struct ladder_times {
	size_t k, m;  /* runs (job and rungs), rounds */
	double *t;    /* [k][m] */
};

static double *times_of(const struct ladder_times *lt, size_t rung)
{
	return lt->t + rung * lt->m;
}

static int seg_cost(const struct ladder_times *lt, struct mmp_cause *c)
{
	double *from = times_of(lt, c->first - 1), *to = times_of(lt, c->last);
	free(c->per_round);
	c->per_round = malloc((lt->m ? lt->m : 1) * sizeof(double));
	if (!c->per_round)
		return -ENOMEM;
	for (size_t r = 0; r < lt->m; r++)
		c->per_round[r] = from[r] - to[r];
	mmp_interval_diff(from, to, lt->m, &c->cost);
	return 0;
}

/* A control that made the job slower, by more than the noise and by more
 * than 2% of the job: one that costs nothing here (a first touch that
 * was not there, 0.3% slower in tight rounds) stays a cause of its own,
 * "made it 0.3% slower", rather than merging the next one into "first
 * touch + true sharing". */
#define MMP_MERGE_MATERIAL 0.02

static int significantly_negative(const struct mmp_cause *c, double total)
{
	return c->cost.valid && c->cost.high < 0 && c->cost.high < -MMP_MERGE_MATERIAL * total;
}

/* A slower rung is merged with the next when the next one's saving may
 * be largely the undoing of its harm (a prefault that put every page on
 * one node, then the placement that moved them).  When its harm is under
 * a tenth of what the next rung saves on its own, the next cause's figure
 * is its own whatever the harm was (more likely the noise of a contended
 * job than an interaction): the rung stays a line of its own, "made it
 * 7% slower", and the next keeps its name.  Measured: false sharing's
 * 9.1 ns/B next to a first touch's -0.9 [-1.5, -0.3] in a job whose rounds
 * vary by 4% was named "first touch + false sharing". */
#define MMP_MERGE_PART 0.1

static int harm_matters(const struct ladder_times *lt, const struct mmp_cause *c)
{
	if (c->last + 1 >= lt->k)
		return 1;
	struct mmp_interval next;
	mmp_interval_diff(times_of(lt, c->last), times_of(lt, c->last + 1), lt->m, &next);
	return !next.valid || next.estimate <= 0 ||
	       -c->cost.estimate > MMP_MERGE_PART * next.estimate;
}

static void name_cause(const struct mmp_results *res, size_t job, struct mmp_cause *c)
{
	size_t nused = 0, dused = 0;
	c->name[0] = c->detail[0] = '\0';
	c->interacting = c->last > c->first;
	for (unsigned k = c->first; k <= c->last; k++) {
		const struct mmp_control_info *ci = mmp_control_by_bit(res->plan->runs[job + k].added);
		const struct mmp_cause_either *either =
			either_of(ci, &res->run[job + k - 1], &res->run[job + k]);
		char d[160] = "";
		if (either)
			snprintf(d, sizeof(d), "%s", either->detail);
		else if (ci->detail)
			ci->detail(&res->plan->runs[job + k - 1].run, d, sizeof(d));
		nused += (size_t)snprintf(c->name + nused, sizeof(c->name) - nused, "%s%s",
					  nused ? " + " : "", either ? either->name : ci->cause);
		if (d[0])
			dused += (size_t)snprintf(c->detail + dused, sizeof(c->detail) - dused, "%s%s",
						  dused ? "; " : "", d);
		if (nused >= sizeof(c->name) || dused >= sizeof(c->detail))
			break;
	}
}

void mmp_attribution_free(struct mmp_attribution *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->cause[i].per_round);
	memset(a, 0, sizeof(*a));
}

/* The doubt's words for a cause the rounds could not show (its figures
 * are on the cause's own line). */
static const char *cannot_tell(const struct mmp_cause *c)
{
	return c->cannot_tell == MMP_CANNOT_TELL_APART
		       ? "its threads did not run at the same time: cannot tell"
		       : "whether its threads ran at the same time was not seen: cannot tell";
}

static void disturbed_doubt(struct mmp_attribution *a)
{
	a->more = SIZE_MAX; /* rounds like these decide nothing: quieter ones would */
	a->undecided_disturbed = 1;
	snprintf(a->doubt, sizeof(a->doubt), "its rounds were disturbed");
}

/* The largest and second largest controls' costs above zero. */
static void two_largest(const struct mmp_attribution *a, const struct mmp_cause **top,
			const struct mmp_cause **second)
{
	*top = *second = NULL;
	for (size_t i = 0; i < a->n; i++) {
		const struct mmp_cause *c = &a->cause[i];
		if (!c->control || c->cost.estimate <= 0)
			continue;
		if (!*top || c->cost.estimate > (*top)->cost.estimate) {
			*second = *top;
			*top = c;
		} else if (!*second || c->cost.estimate > (*second)->cost.estimate) {
			*second = c;
		}
	}
}

/* A cause measured on CPU time (controls.h): a program's cross-core
 * sharing that these rounds could not show, or whose cost is not yet below
 * the top's, may be what a cause taken for the program's own work really
 * is. */
static const struct mmp_cause *cpu_gate(const struct mmp_attribution *a)
{
	const struct mmp_cause *gate = NULL;
	for (size_t i = 0; i < a->n; i++)
		if (a->cause[i].control && a->cause[i].control->measure == MMP_MEASURE_CPU)
			gate = &a->cause[i];
	return gate;
}

/* Causes a control measured (the rest is what no control removed). */
static size_t measured_causes(const struct mmp_attribution *a)
{
	size_t n = 0;
	for (size_t i = 0; i < a->n; i++)
		n += a->cause[i].control != NULL;
	return n;
}

/* No cause off zero: why, and how many rounds more might show one. */
static void no_top(struct mmp_attribution *a, const struct mmp_cause *top,
		   const struct mmp_cause *gate)
{
	a->top = top && top->significant ? top : NULL;
	if (gate && gate->cannot_tell) {
		snprintf(a->doubt, sizeof(a->doubt), "%s: %s", gate->name, cannot_tell(gate));
		return;
	}
	/* Every rung left out: no cause was measured, and more rounds of the
	 * job alone cannot measure one. */
	if (a->nunused && !measured_causes(a)) {
		snprintf(a->doubt, sizeof(a->doubt),
			 "no control changed anything in it, so no cause was measured; its profile "
			 "says where its time goes");
		return;
	}
	snprintf(a->doubt, sizeof(a->doubt), "no cause stands above the noise");
	/* More rounds narrow the largest cost's interval off zero, if it is
	 * off zero at all. */
	if (top)
		a->more = mmp_interval_more(&top->cost, 0, 0, 0);
}

/* The top against another cause, round by round: 0 when it is not yet
 * above it (the doubt says so). */
static int above(struct mmp_attribution *a, const struct mmp_cause *top,
		 const struct mmp_cause *other, size_t m)
{
	struct mmp_interval d;
	mmp_interval_diff(top->per_round, other->per_round, m, &d);
	if (d.valid && d.low > 0)
		return 1;
	a->more = mmp_interval_more(&d, 0, 0, 0);
	snprintf(a->doubt, sizeof(a->doubt), "%s is not yet above %s", top->name, other->name);
	return 0;
}

/* The largest significant cost, and whether it is decided: above zero, and
 * above the next largest cause round by round. */
static void find_top(struct mmp_attribution *a, size_t m)
{
	const struct mmp_cause *top, *second, *gate = cpu_gate(a);
	two_largest(a, &top, &second);
	a->more = SIZE_MAX;
	/* A cost from disturbed rounds is the job's time less its control's,
	 * each holding what the other task (or the stop) took from it: an
	 * amount with no bound that is not the same in the two runs of a
	 * round (answers.h).  The costs are shown, marked; the largest is
	 * not decided from them and no fix is named.  A program whose
	 * threads did not run at once (its rounds disturbed for that) is the
	 * CPU-measured cause's to say, below. */
	if (a->disturbed && !(gate && gate->cannot_tell)) {
		a->top = top && top->significant ? top : NULL;
		disturbed_doubt(a);
		return;
	}
	if (!top || !top->significant || top->cost.low <= 0) {
		no_top(a, top, gate);
		return;
	}
	a->top = top;
	a->top_decided = 1;
	if (top->not_shown[0]) {
		a->top_decided = 0;
		snprintf(a->doubt, sizeof(a->doubt), "%s: %s", top->name,
			 top->cannot_tell ? cannot_tell(top) : top->not_shown);
		return;
	}
	if (second)
		a->top_decided = above(a, top, second, m);
	if (a->top_decided && gate && gate != top) {
		if (gate->cannot_tell) {
			a->top_decided = 0;
			a->more = SIZE_MAX;
			snprintf(a->doubt, sizeof(a->doubt), "%s: %s", gate->name, cannot_tell(gate));
			return;
		}
		if (!above(a, top, gate, m)) {
			a->top_decided = 0;
			return;
		}
	}
	/* Never decided from disturbed rounds, whatever decided it above. */
	if (a->top_decided && a->disturbed) {
		a->top_decided = 0;
		disturbed_doubt(a);
	}
}

/* The bulk rung that served no read from the library's buffer: why. */
static void unserved(const struct mmp_preload_report *p, char *buf, size_t len)
{
	char asides[96];
	mmp_preload_asides(p, asides, sizeof(asides));
	if (!p->calls)
		snprintf(buf, len, "no read() under 16 KiB of a regular file opened read-only "
				   "reached its buffer (larger reads, a mapping or libc's fread need "
				   "none)%s%.96s",
			 asides[0] ? "; stepped aside: " : "", asides);
	else
		snprintf(buf, len, "none of its %llu small reads was served without a system "
				   "call%s%.96s",
			 (unsigned long long)p->calls, asides[0] ? "; stepped aside: " : "", asides);
}

static int preload_control(int asked, unsigned added)
{
	return asked && (added == MMP_CONTROL_PREFAULT || added == MMP_CONTROL_HUGE ||
			 added == MMP_CONTROL_TOUCH);
}

static int preload_rung(const struct mmp_run_result *r, unsigned added)
{
	return preload_control(r->preload_asked, added);
}

/* Why the library reached no malloc'd block, when it says: "" else. */
static const char *allocator_note(const struct mmp_preload_report *p, char *buf, size_t len)
{
	if (p->refused)
		snprintf(buf, len, "; the kernel refused to populate its %llu malloc'd block%s "
				   "(MADV_POPULATE_WRITE: %s; Linux 5.14 and later have it)",
			 (unsigned long long)p->refused, p->refused == 1 ? "" : "s",
			 strerror(p->refused_errno));
	else if (p->noalloc)
		snprintf(buf, len, "; its allocator is not reached (%s)",
			 strcmp(p->noalloc_why, "own") == 0
				 ? "the program brings its own malloc"
				 : "a C library other than glibc");
	else
		snprintf(buf, len, "%s", "");
	return buf;
}

/* "2 mappings, 1 block changed" */
static const char *changed(const struct mmp_preload_report *p, char *buf, size_t len)
{
	snprintf(buf, len, "%llu mapping%s, %llu block%s changed", (unsigned long long)p->mappings,
		 p->mappings == 1 ? "" : "s", (unsigned long long)p->blocks,
		 p->blocks == 1 ? "" : "s");
	return buf;
}

const char *mmp_attribution_unchanged(const struct mmp_preload_report *p, int asked,
				      const char *why_not, unsigned added, char *buf, size_t len)
{
	char note[200], counts[64];
	/* bulk too, which reaches no mapping or block (reached() is not its) */
	if (!preload_control(asked, added) && !(asked && added == MMP_CONTROL_BULK))
		return NULL;
	if (!p->loaded)
		snprintf(buf, len, "the preload library was not loaded into the program (%s)",
			 why_not && why_not[0] ? why_not
					       : "a static or setuid program started by it?");
	else if (added == MMP_CONTROL_PREFAULT && !p->present)
		snprintf(buf, len,
			 "no mapping or malloc'd block of the program's was populated (%s%s)",
			 changed(p, counts, sizeof(counts)), allocator_note(p, note, sizeof(note)));
	else if (added == MMP_CONTROL_TOUCH && !p->touched)
		snprintf(buf, len, "no mapping or malloc'd block of the program's was populated "
				   "and readable to touch (%s%s)",
			 changed(p, counts, sizeof(counts)), allocator_note(p, note, sizeof(note)));
	else if (added == MMP_CONTROL_BULK && !p->served)
		unserved(p, buf, len);
	else if (added == MMP_CONTROL_HUGE && !p->advised)
		snprintf(buf, len, "no mapping or malloc'd block of the program's was large "
				   "enough to advise MADV_HUGEPAGE (%s%s)",
			 changed(p, counts, sizeof(counts)), allocator_note(p, note, sizeof(note)));
	else if (added == MMP_CONTROL_HUGE && !p->huge)
		snprintf(buf, len, "the kernel backed none of the %.1f MiB it advised "
				   "MADV_HUGEPAGE with huge pages%s",
			 p->advised / 1048576.0,
			 p->advised && p->exited < p->loaded ? " (or the program left before "
							       "they were read)" : "");
	else
		return NULL;
	return buf;
}

/* A preload rung (prefault, touch, huge, bulk) that changed nothing in
 * any repetition: why, or NULL when it changed something. */
static const char *unchanged(const struct mmp_run_result *r, unsigned added, char *buf,
			     size_t len)
{
	return mmp_attribution_unchanged(&r->preload, r->preload_asked, r->preload_note, added,
					 buf, len);
}

static const char *mib(uint64_t bytes, char *buf, size_t len)
{
	double m = (double)bytes / 1048576.0;
	snprintf(buf, len, m >= 10 || m == floor(m) ? "%.0f MiB" : "%.1f MiB", m);
	return buf;
}

/* What a used preload rung reached in the program's malloc'd blocks
 * ("256 MiB in 1 malloc'd block populated"), with its mappings beside,
 * or why it reached none when the library said (a populate refused, an
 * allocator not reached); NULL when it reached no block and said nothing
 * (its mappings are the CSV's). */
static const char *reached(const struct mmp_run_result *r, unsigned added, char *buf,
			   size_t len)
{
	const struct mmp_preload_report *p = &r->preload;
	char a[32], b[32], note[200];
	int hugely = added == MMP_CONTROL_HUGE;
	uint64_t in_blocks = hugely ? p->block_advised : p->block_present;
	uint64_t in_maps = (hugely ? p->advised : p->present) - in_blocks;
	if (!preload_rung(r, added))
		return NULL;
	if (!in_blocks && (p->noalloc || (p->refused && !hugely))) {
		snprintf(buf, len, "no malloc'd block%s", allocator_note(p, note, sizeof(note)));
		return buf;
	}
	if (!p->blocks || !in_blocks)
		return NULL;
	snprintf(buf, len, "%s in %llu malloc'd block%s %s%s%s%s", mib(in_blocks, a, sizeof(a)),
		 (unsigned long long)p->blocks, p->blocks == 1 ? "" : "s",
		 hugely ? "advised MADV_HUGEPAGE" :
		 added == MMP_CONTROL_TOUCH ? "populated and read once a page" : "populated",
		 in_maps ? ", " : "", in_maps ? mib(in_maps, b, sizeof(b)) : "",
		 in_maps ? " in its mappings" : "");
	if (hugely)
		snprintf(buf + strlen(buf), len - strlen(buf), "; %s on huge pages",
			 mib(p->huge, a, sizeof(a)));
	return buf;
}

const char *mmp_unused_verb(const struct mmp_unused *u)
{
	return u->skipped ? "skipped" : "changed nothing";
}

static void note_rung(struct mmp_unused *list, size_t *n, size_t max, unsigned added,
		      const struct mmp_run_result *rung, const char *why)
{
	if (*n >= max)
		return;
	struct mmp_unused *u = &list[(*n)++];
	u->control = mmp_control_by_bit(added);
	u->rung = rung;
	u->skipped = rung->skipped;
	snprintf(u->why, sizeof(u->why), "%s", why);
}

/* The ladder's times where a rung's wall time is not its time in the
 * ladder: a rung measured on CPU time (the rung below less the CPU time
 * its control took away) and rungs that changed nothing (the rung
 * below's). */
static void adjust_rungs(const struct mmp_results *res, size_t i,
			 const struct mmp_run_result *const *runs, const unsigned *rounds,
			 struct ladder_times *lt, struct mmp_attribution *out)
{
	size_t base = 0; /* the highest rung used so far: what the next one is held against */
	for (size_t r = 1; r < lt->k; r++) {
		unsigned added = res->plan->runs[i + r].added;
		double *t = times_of(lt, r), *below = times_of(lt, r - 1);
		char why[384] = "";
		if (runs[r]->skipped || unchanged(runs[r], added, why, sizeof(why))) {
			/* Its own times are noise about the rung below's (or, skipped,
			 * it has none): the rung below's stand in for them. */
			memcpy(t, below, lt->m * sizeof(double));
			note_rung(out->unused, &out->nunused,
				  sizeof(out->unused) / sizeof(out->unused[0]), added, runs[r],
				  runs[r]->skipped ? runs[r]->skipped_why : why);
			continue;
		}
		if (reached(runs[r], added, why, sizeof(why)))
			note_rung(out->reached, &out->nreached,
				  sizeof(out->reached) / sizeof(out->reached[0]), added, runs[r], why);
		size_t from = base;
		base = r;
		if (mmp_control_by_bit(added)->measure != MMP_MEASURE_CPU)
			continue;
		for (size_t j = 0; j < lt->m; j++) {
			double on = runs[r]->cpu_ns[rounds[j]], off = runs[from]->cpu_ns[rounds[j]];
			/* Without CPU times the wall time stands (and is said so). */
			if (on > 0 && off > 0)
				t[j] = below[j] * on / off;
		}
	}
}

static int is_unused(const struct mmp_attribution *a, const struct mmp_run_result *r)
{
	for (size_t u = 0; u < a->nunused; u++)
		if (a->unused[u].rung == r)
			return 1;
	return 0;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* A one-PU cause not shown: could the rounds have shown it?  Not when the
 * program's threads, in the rung below it, did not run at the same time
 * in some of them (a disturbed round with a low overlap: the comparison
 * had to use it), or were not seen to (no switch records). */
static void overlap_check(const unsigned *rounds, size_t m, struct mmp_cause *c)
{
	const struct mmp_run_result *below = c->before;
	double *seen = malloc((m ? m : 1) * sizeof(*seen));
	size_t apart = 0, unknown = 0, n = 0;
	for (size_t j = 0; seen && j < m; j++) {
		double o = below->overlap[rounds[j]];
		if (o < 0) {
			unknown++;
			continue;
		}
		/* The rounds apart first: their overlap is what is said (the
		 * median over all, 95% with two rounds apart, read as the
		 * threads running together after all). */
		if (below->disturbed[rounds[j]] && o < MMP_DISTURB_MIN_OVERLAP) {
			memmove(seen + apart + 1, seen + apart, (n - apart) * sizeof(*seen));
			seen[apart++] = o;
			n++;
		} else {
			seen[n++] = o;
		}
	}
	if (seen && apart)
		qsort(seen, apart, sizeof(*seen), by_value);
	if (!seen) {
		c->cannot_tell = MMP_CANNOT_TELL_UNSEEN;
		snprintf(c->not_shown, sizeof(c->not_shown), "out of memory: cannot tell");
	} else if (apart) {
		c->cannot_tell = MMP_CANNOT_TELL_APART;
		snprintf(c->not_shown, sizeof(c->not_shown),
			 "its threads did not run at the same time (in %zu of the %zu rounds used; "
			 "in those, two that were ready ran at once %.0f%% of the time, the "
			 "median): cannot tell",
			 apart, m, 100 * seen[apart / 2]);
	} else if (unknown) {
		c->cannot_tell = MMP_CANNOT_TELL_UNSEEN;
		snprintf(c->not_shown, sizeof(c->not_shown),
			 "whether its threads ran at the same time was not seen in %zu of the %zu "
			 "rounds used (the kernel gave no context-switch records): cannot tell",
			 unknown, m);
	}
	free(seen);
}

/* The one-PU cause: its CPU ratio, and whether it is more than the PUs
 * below it could explain without any line moving between cores. */
static void onepu_check(const unsigned *rounds, size_t m, unsigned pus, struct mmp_cause *c)
{
	double *off = malloc((m ? m : 1) * sizeof(*off)), *on = malloc((m ? m : 1) * sizeof(*on));
	size_t n = 0;
	if (!off || !on)
		m = 0; /* out of memory: nothing measured, said below */
	for (size_t j = 0; j < m; j++) {
		double a = c->before->cpu_ns[rounds[j]], b = c->after->cpu_ns[rounds[j]];
		if (a > 0 && b > 0) {
			off[n] = a;
			on[n++] = b;
		}
	}
	c->pus = pus;
	mmp_interval_ratio(off, on, n, &c->cpu_ratio);
	free(off);
	free(on);
	if (!m || n < m)
		snprintf(c->not_shown, sizeof(c->not_shown),
			 "the program's CPU time was not measured in every round");
	else if (!c->cpu_ratio.valid || c->cpu_ratio.low <= pus)
		snprintf(c->not_shown, sizeof(c->not_shown),
			 "CPU time %.2fx [%.2f, %.2f] on %u PUs of its time on one, not shown to be "
			 "more than %u PUs sharing memory bandwidth, a core's SMT siblings or a "
			 "lower clock could cost",
			 c->cpu_ratio.estimate, c->cpu_ratio.low, c->cpu_ratio.high, pus, pus);
	if (c->not_shown[0])
		overlap_check(rounds, m, c);
}

static const struct mmp_control_info *rung_control(const struct mmp_results *res, size_t job,
						   size_t k)
{
	return mmp_control_by_bit(res->plan->runs[job + k].added);
}

int mmp_cause_controls(const struct mmp_results *res, const struct mmp_attribution *a,
		       const struct mmp_cause *c, char *buf, size_t len)
{
	int rc = 0;
	if (len)
		buf[0] = '\0';
	for (unsigned k = c->first; c->control && k <= c->last && !rc; k++)
		rc = mmp_list_addf(buf, len, "+", "%s", rung_control(res, a->job->run->index, k)->name);
	return rc;
}

/* The ladder's runs, the rounds they all have, and their times per byte
 * of the job (or per operation: pingpong, chase). */
static int load_ladder(const struct mmp_results *res, size_t i, size_t k,
		       const struct mmp_run_result **runs, unsigned **rounds,
		       struct ladder_times *lt, struct mmp_attribution *out)
{
	const struct mmp_run_result *paired[MMP_MAX_CAUSES + 1];
	size_t m, np = 0;
	for (size_t r = 0; r < k; r++) {
		runs[r] = &res->run[i + r];
		if (runs[r]->skipped)
			continue;
		if (!mmp_result_has_data(runs[r]))
			return -ENODATA;
		paired[np++] = runs[r];
	}
	/* A skipped rung has no round (one without a warmup): the rounds are
	 * the others'. */
	*rounds = mmp_results_rounds_all(paired, np, &m, &out->disturbed);
	if (m == 0)
		return *rounds ? -ENODATA : -ENOMEM;
	*lt = (struct ladder_times){ k, m, malloc(k * m * sizeof(double)) };
	if (!lt->t)
		return -ENOMEM;
	const double per = mmp_result_per(runs[0]);
	for (size_t r = 0; r < k; r++)
		for (size_t j = 0; j < m; j++) /* a skipped rung's: adjust_rungs' */
			times_of(lt, r)[j] = runs[r]->skipped ? 0 : runs[r]->elapsed_ns[(*rounds)[j]] / per;
	return 0;
}

/* A rung whose cause is never merged with a neighbour (compared on
 * another measure), nor the rung below it with it. */
static int kept_apart(const struct mmp_results *res, size_t i, size_t k, unsigned s)
{
	return rung_control(res, i, s)->merge == MMP_MERGE_NEVER ||
	       (s + 1 < k && rung_control(res, i, s + 1)->merge == MMP_MERGE_NEVER);
}

/* The segment from rung s: the rung, or the rungs merged with it when it
 * made the job significantly slower.  Returns the next rung, 0 on failure. */
static unsigned segment(const struct mmp_results *res, size_t i, const struct ladder_times *lt,
			const struct mmp_run_result *const *runs, unsigned s,
			struct mmp_attribution *out)
{
	const size_t k = lt->k;
	struct mmp_cause *c = &out->cause[out->n];
	int apart = kept_apart(res, i, k, s);
	c->first = c->last = s;
	if (seg_cost(lt, c))
		return 0;
	/* (never into a rung compared on CPU time, however far it reaches) */
	while (!apart && significantly_negative(c, out->total) && c->last + 1 < k &&
	       rung_control(res, i, c->last + 1)->merge != MMP_MERGE_NEVER && harm_matters(lt, c)) {
		c->last++;
		if (seg_cost(lt, c))
			return 0;
	}
	/* A slower last rung: merged with the cause below it instead. */
	if (!apart && significantly_negative(c, out->total) && c->last + 1 >= k && out->n > 0 &&
	    out->cause[out->n - 1].control &&
	    out->cause[out->n - 1].control->merge != MMP_MERGE_NEVER) {
		struct mmp_cause *prev = &out->cause[out->n - 1];
		prev->last = c->last;
		free(c->per_round);
		c->per_round = NULL;
		return seg_cost(lt, prev) ? 0 : prev->last + 1;
	}
	c->control = rung_control(res, i, c->first);
	/* Below an unused rung, the rung it stood in for: evidence and CPU
	 * times are held against what ran with effect. */
	unsigned below = c->first - 1;
	while (below > 0 && is_unused(out, runs[below]))
		below--;
	c->before = runs[below];
	c->after = runs[c->last];
	out->n++;
	return c->last + 1;
}

/* What the last rung still takes: the ceiling's, when its control is one. */
static int rest_of(const struct mmp_results *res, size_t i, const struct ladder_times *lt,
		   const struct mmp_run_result *const *runs, struct mmp_attribution *out)
{
	const size_t k = lt->k, m = lt->m;
	const struct mmp_control_info *last = rung_control(res, i, k - 1);
	struct mmp_cause *rest = &out->cause[out->n++];
	rest->first = rest->last = (unsigned)k;
	rest->before = runs[k - 1];
	rest->per_round = malloc(m * sizeof(double));
	if (!rest->per_round)
		return -ENOMEM;
	memcpy(rest->per_round, times_of(lt, k - 1), m * sizeof(double));
	mmp_interval_mean(rest->per_round, m, &rest->cost);
	rest->ceiling = last->ceiling != NULL;
	snprintf(rest->name, sizeof(rest->name), "%s", last->ceiling ? last->name : "remaining");
	snprintf(rest->detail, sizeof(rest->detail), "%s",
		 last->ceiling ? last->ceiling : "what no control removed");
	return 0;
}

/* Names, shares, evidence and checks of the causes found. */
static void describe(const struct mmp_results *res, size_t i, const unsigned *rounds,
		     const struct ladder_times *lt, struct mmp_attribution *out)
{
	size_t used = 0;
	for (size_t c = 0; c < out->n; c++) {
		struct mmp_cause *cause = &out->cause[c];
		if (cause->control)
			name_cause(res, i, cause);
		cause->significant = cause->cost.valid &&
				     (cause->cost.low > 0 || cause->cost.high < 0);
		cause->share = out->total > 0 ? cause->cost.estimate / out->total : 0;
		cause->share_low = out->total > 0 ? cause->cost.low / out->total : 0;
		cause->share_high = out->total > 0 ? cause->cost.high / out->total : 0;
		cause->understated = out->disturbed && cause->control && cause->control->sharing;
		find_evidence(cause);
		huge_check(cause);
		touch_check(cause);
	}
	for (size_t c = 0; c < out->n; c++) {
		struct mmp_cause *cause = &out->cause[c];
		if (cause->control && cause->control->measure == MMP_MEASURE_CPU)
			onepu_check(rounds, lt->m,
				    mmp_pin_plan_used(&res->plan->runs[i + cause->first - 1].pins),
				    cause);
	}
	for (size_t r = 1; r < lt->k && used < sizeof(out->order); r++)
		used += (size_t)snprintf(out->order + used, sizeof(out->order) - used, "%s%s",
					 r > 1 ? ", " : "", rung_control(res, i, r)->name);
}

int mmp_attribute(const struct mmp_results *res, size_t i, struct mmp_attribution *out)
{
	const struct mmp_run_result *runs[MMP_MAX_CAUSES + 1];
	unsigned *rounds = NULL;
	size_t k = (size_t)res->plan->runs[i].nrungs + 1;
	struct ladder_times lt = { 0, 0, NULL };

	memset(out, 0, sizeof(*out));
	if (k < 2 || k > MMP_MAX_CAUSES)
		return -ENODATA;
	int rc = load_ladder(res, i, k, runs, &rounds, &lt, out);
	if (rc)
		goto out;
	rc = -ENOMEM;
	adjust_rungs(res, i, runs, rounds, &lt, out);
	out->job = runs[0];
	out->rounds = lt.m;
	struct mmp_interval total;
	mmp_interval_mean(times_of(&lt, 0), lt.m, &total);
	out->total = total.estimate;
	for (size_t r = 0; r < k && r < MMP_MAX_CAUSES; r++) {
		struct mmp_interval mean;
		mmp_interval_mean(times_of(&lt, r), lt.m, &mean);
		out->rung_mean[r] = mean.estimate;
	}
	/* Segments of the ladder; a control that makes things significantly
	 * slower given the ones below it is merged with the next rung. */
	for (unsigned s = 1; s < k;) {
		if (is_unused(out, runs[s]))
			s++;
		else if (!(s = segment(res, i, &lt, runs, s, out)))
			goto out;
	}
	if (rest_of(res, i, &lt, runs, out))
		goto out;
	describe(res, i, rounds, &lt, out);
	find_top(out, lt.m);
	rc = 0;
out:
	free(lt.t);
	free(rounds);
	if (rc)
		mmp_attribution_free(out);
	return rc;
}
