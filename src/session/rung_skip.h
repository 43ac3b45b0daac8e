/* Which rungs of a program's ladder run no rounds under controls = auto,
 * decided from its job's warmup before any rung runs.
 *
 * Each round is a run of the program per rung, so a rung that can take
 * nothing from the program costs a run a round for noise about the rung
 * below's.  The job's warmup runs with the preload library surveying
 * (preload.h: what prefault, touch, huge and bulk would reach, nothing
 * changed), its switches counted (how many threads ran) and its page
 * faults counted; with this machine's calibration (firsttouch.h) that
 * tells, before the rungs run, which of them have nothing to reach, and
 * which reach too little to measure:
 *
 *   onepu      the warmup saw one thread
 *   prefault   nothing to populate; or its faults, at the calibrated
 *              cost of a fault, under MMP_RUNG_SKIP_SHARE of its time
 *   touch      nothing to touch; or its pages at the calibrated cost of
 *              a first touch (the interval's high end) under that share
 *   huge       transparent huge pages off; or no private anonymous
 *              mapping or malloc'd block of 4 MiB to advise
 *   bulk       no small read of a regular file it would serve
 *
 * A rung the survey keeps still says, in its first round, what it really
 * reached (session.c): one that reached nothing is skipped then. */
#ifndef MMPROF_RUNG_SKIP_H
#define MMPROF_RUNG_SKIP_H

#include <stddef.h>
#include <stdint.h>

#include "platform/firsttouch.h"
#include "run/preload.h"

/* Below this share of the program's time, a cost is not one rounds of a
 * noisy machine can take apart from nothing. */
#define MMP_RUNG_SKIP_SHARE 0.01

/* What the job's warmup showed. */
struct mmp_rung_evidence {
	const struct mmp_preload_report *survey; /* NULL: the survey did not run */
	const char *survey_why;  /* why not, or why the library cannot load ("" or NULL) */
	unsigned threads_seen;   /* 0: not known */
	double faults;           /* page faults counted in it; < 0: not counted */
	uint64_t wall_ns;        /* its time */
	const struct mmp_calibration *cal; /* NULL, or not done: no calibration */
	int thp_off;             /* transparent huge pages are off (or absent) here */
	const char *thp_why;     /* what says so */
};

/* Whether the rung that adds control `added` (controls.h) is skipped:
 * 1 with why in buf, for the verdict's "not used: ... skipped: WHY";
 * 0 when the warmup gives no reason to. */
int mmp_rung_skip(const struct mmp_rung_evidence *e, unsigned added, char *buf, size_t len);

#endif
