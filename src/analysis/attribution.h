/* Attribution: a job point's time split into causes by its ladder of
 * controls (controls.h), from the rounds in which the job and every rung
 * ran side by side.
 *
 * A cause's cost is the drop in mean time per byte of the job from the rung
 * below its control to its own rung, paired by round, with a 95% interval
 * (intervals.h); what the last rung still takes is `limit` (the memory
 * system, when the last rung is the limit scan) or `remaining`.  The costs
 * and the remainder add up to the job's mean exactly, so the shares sum to
 * 100%.  When a control makes the job significantly slower given the ones
 * below it (the interval of its cost is wholly below zero), its rung is
 * merged with the next one and the two causes are reported together as
 * interacting, instead of one share above 100% and one below 0.
 *
 * A program's one-PU rung (controls.h, onepu) loses the program's
 * parallelism along with its cross-core traffic, so its wall time is not
 * the job's less a cost.  Its time in the ladder is the rung below's wall
 * time less the share of CPU time one PU took away (per round: below x
 * cpu(onepu) / cpu(below)), and its cause stands only when the CPU time
 * grows by more than the PUs it is spread over (a fixed amount of work
 * cannot cost more CPU on P PUs than P times its time on one through
 * shared bandwidth, SMT or clock alone): below that it is "not shown".
 * Below it, and in rounds where the program's threads did not run at the
 * same time (the rung below's overlap, disturbance.h) or were not seen
 * to, it "cannot tell" -- lines move between cores only while threads run
 * together -- and while it cannot, or while its cost is not shown to be
 * below another cause's, that other cause is not named the largest: a
 * cost taken for the program's own loop may be sharing that the rounds
 * hid.
 * A preload rung (prefault, touch, huge, bulk) that changed nothing in
 * any repetition is left out (unused), its time taken as the rung
 * below's.
 */
#ifndef MMPROF_ATTRIBUTION_H
#define MMPROF_ATTRIBUTION_H

#include <stddef.h>

#include "plan/controls.h"
#include "result/intervals.h"
#include "result/result.h"

/* Counter evidence beside a cause: one metric on both sides of its
 * control. */
struct mmp_evidence {
	const char *metric; /* "faults/MiB", NULL: none applies */
	int counted;        /* both sides have a value */
	double before, after;
	char missing[160];  /* events that would have told, not counted here */
};

#define MMP_MAX_CAUSES (MMP_CONTROLS_MAX + 2) /* every control, and the remainder */

struct mmp_cause {
	const struct mmp_control_info *control; /* the (first) control; NULL: the remainder */
	char name[96];     /* "true sharing", "true sharing + per-call", "limit" */
	char detail[160];  /* "refcount, atomic tally" */
	int interacting;   /* merged rungs */
	int ceiling;       /* the remainder is the ceiling's own time (the last rung is its scan) */
	unsigned first, last; /* rungs it spans: the cost of rung first-1 -> last */
	struct mmp_interval cost; /* ns per byte of the job */
	double share, share_low, share_high; /* of the job's mean */
	int significant;  /* the cost's interval excludes 0 */
	int understated;  /* a sharing cause measured on disturbed runs */
	const struct mmp_run_result *before, *after; /* after NULL: the remainder */
	struct mmp_evidence evidence;
	double *per_round; /* cost in each round used (for comparing causes) */
	/* onepu: CPU time of the rung below over the one-PU rung's, paired by
	 * round (geometric mean), and the PUs the rung below ran on */
	struct mmp_interval cpu_ratio;
	unsigned pus;
	/* Why the cause, though its cost is above zero, is not shown to be
	 * this cause (something else explains the figure as well); "": none */
	char not_shown[256];
	/* The rounds could not show it at all (not_shown says why: a
	 * program's threads that did not run at the same time); and until
	 * they can, no other cause is named the largest. */
	enum { MMP_CANNOT_TELL_NO, MMP_CANNOT_TELL_APART, MMP_CANNOT_TELL_UNSEEN } cannot_tell;
	/* huge, named page faults: the share of the CPU time it took away
	 * that the profiles put in the kernel (0: not renamed) */
	double kernel_part;
	/* touch: what the first touch cost each page of the mapping, in ns
	 * (the job's time a page, times its threads, which touch theirs side
	 * by side), and whether no fault was counted with or without it --
	 * paid below the kernel (firsttouch.h) */
	struct mmp_interval per_page;
	int below_kernel;
};

/* Above this share of the huge control's CPU time in the kernel (the
 * rungs' profiles), what huge pages took away is the kernel's work per
 * 4 KiB page -- faults, or mmap populating them -- not TLB reach. */
#define MMP_HUGE_KERNEL 0.67

/* Below this many faults a MiB on both sides of touch, no fault was
 * counted for the first touch (a populated mapping's run shows a stray
 * few, not one a page: 256 a MiB). */
#define MMP_TOUCH_NO_FAULTS 1.0

/* A rung left out: its control changed nothing in the program (the
 * preload library not loaded, or no mapping it could change, no small
 * read it could serve); or, in reached, a preload rung used and what it
 * reached in the program's malloc'd blocks. */
struct mmp_unused {
	const struct mmp_control_info *control;
	const struct mmp_run_result *rung;
	int skipped; /* controls = auto ran no more of its rounds (why says from which) */
	char why[480];
};

/* How an unused rung is said before its why: "skipped", or "changed
 * nothing" (its rounds ran). */
const char *mmp_unused_verb(const struct mmp_unused *u);

/* A program's preload rung (prefault, touch, huge, bulk: added) that
 * changed nothing, from the library's report p (asked: the library was
 * asked for; note: why it was not loaded, or NULL): why, in buf; NULL
 * when it changed something or is no preload rung. */
const char *mmp_attribution_unchanged(const struct mmp_preload_report *p, int asked,
				      const char *note, unsigned added, char *buf, size_t len);

struct mmp_attribution {
	const struct mmp_run_result *job; /* NULL: no attribution */
	double total;      /* the job's mean ns per byte over the rounds used */
	double rung_mean[MMP_MAX_CAUSES]; /* rung k's mean over the same rounds (0: the job) */
	size_t rounds;     /* rounds used */
	int disturbed;     /* disturbed rounds had to be used */
	struct mmp_cause cause[MMP_MAX_CAUSES];
	size_t n;
	const struct mmp_cause *top; /* largest significant cost (remainder aside) */
	int top_decided;   /* top's cost is above zero and above the next cause's,
			      in clean rounds (never decided from disturbed ones) */
	char doubt[512];   /* why top is not decided, when it is not */
	int undecided_disturbed; /* the doubt is the disturbed rounds' (answers.h) */
	size_t more;       /* undecided: about how many more rounds would decide; SIZE_MAX: none would */
	char order[160];   /* the ladder's order: "prefault, tally, bulk, limit" */
	struct mmp_unused unused[MMP_CONTROLS_MAX]; /* every rung may be one */
	size_t nunused;
	struct mmp_unused reached[4];
	size_t nreached;
};

/* Attribute job point i of results (its rungs follow it).  -ENODATA when
 * it has no rungs or not every rung has data; -ENOMEM. */
int mmp_attribute(const struct mmp_results *res, size_t i, struct mmp_attribution *out);

/* The controls of the rungs cause c of a spans, into buf: "tally+bulk"
 * when merged, "" for what no control removed.  -ENOSPC when they do not
 * fit (mmp_list_addf marks the cut). */
int mmp_cause_controls(const struct mmp_results *res, const struct mmp_attribution *a,
		       const struct mmp_cause *c, char *buf, size_t len);

void mmp_attribution_free(struct mmp_attribution *a);

#endif
