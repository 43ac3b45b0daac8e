/* Controls: variants of a job that each remove one cause of slowness, run
 * beside it (in the same rounds) so that the difference in time is that
 * cause's cost.  One row per control in one table (src/plan/controls.c): its
 * name, the cause it isolates, what it changes, when it applies, the advice
 * when its cause is the largest, the counter evidence to show beside it,
 * and the function that changes a run.  Names, --help, parsing, the plan
 * and attribution all derive from that table.
 *
 * The controls form a ladder: each rung is the job with every control up
 * to it applied, in the table's order (a program's moves a row whose
 * program_below says so), skipping the ones that do not apply,
 * so the costs add up to the job's time.  The last rung, `limit`, reads the
 * same bytes with the fastest honest scan: what is left after it is what
 * the memory system itself costs.
 */
#ifndef MMPROF_CONTROLS_H
#define MMPROF_CONTROLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "util/error.h"
#include "platform/events.h"
#include "platform/topology.h"

enum mmp_control {
	MMP_CONTROL_FIT = 1 << 0,
	MMP_CONTROL_PREFAULT = 1 << 1,
	MMP_CONTROL_HUGE = 1 << 2,
	MMP_CONTROL_REMOTE = 1 << 3,
	MMP_CONTROL_NEAR = 1 << 4,
	MMP_CONTROL_PADDED = 1 << 5,
	MMP_CONTROL_PRIVATE = 1 << 6,
	MMP_CONTROL_TALLY = 1 << 7,
	MMP_CONTROL_BULK = 1 << 8,
	MMP_CONTROL_SOLO = 1 << 9,
	MMP_CONTROL_LIMIT = 1 << 10,
	MMP_CONTROL_ONEPU = 1 << 11,
	MMP_CONTROL_TOUCH = 1 << 12,
};

/* A rung: the job with some controls applied. */
struct mmp_rung {
	struct mmp_run run;       /* parameters; run.control is the mask applied */
	struct mmp_pin_plan pins; /* threads change with fit and solo */
	uint64_t end;             /* bytes [0, end) are read; 0: the whole file */
	unsigned added;           /* the control this rung adds: 0 for the job */
};

/* One piece of counter evidence a cause may have: a derived metric
 * (metrics.h) on both sides of its control. */
struct mmp_evidence_def {
	const char *metric;  /* its CSV column: "faults_per_mib" */
	const char *events;  /* what to count to have it */
};

/* What a control's apply() works with besides the rung. */
struct mmp_control_ctx {
	const struct mmp_topology *topo;
	struct mmp_error *err;
	char why[200]; /* it does not apply: why not ("mmap_block keeps no tally") */
};

/* What a program's cause is called while none of its evidence counters
 * ran, where its rung takes away another cost too that only those
 * counters would tell from it (huge: TLB reach, or fewer and larger page
 * set-ups). */
struct mmp_cause_either {
	const char *name;   /* "page setup (faults or TLB)" */
	const char *detail; /* the two it cannot tell apart, and why */
};

/* What a rung's time in the ladder is. */
enum mmp_control_measure {
	MMP_MEASURE_WALL = 0, /* its wall time, as the job's */
	/* The rung below's wall time scaled by the CPU time (all threads) the
	 * control took away: a rung that takes a program's parallelism away
	 * (onepu) would otherwise be charged for it.  Its cause is shown only
	 * when the CPU ratio is more than the PUs below it could explain, and
	 * until then no other cause is decided the largest. */
	MMP_MEASURE_CPU,
};

/* Whether a rung that made the job slower is merged with the next one
 * (attribution.c says when). */
enum mmp_control_merge {
	MMP_MERGE_SLOWER = 0, /* merged: its harm may be what the next one undoes */
	MMP_MERGE_NEVER,      /* a cause of its own, compared on another measure */
};

/* One row of the control table: a new control is one of these and a bit. */
struct mmp_control_info {
	unsigned bit;
	const char *name;    /* in configs: controls = prefault, bulk */
	const char *cause;   /* the cause its cost is: "page faults" */
	const char *changes; /* what the rung changes */
	const char *applies; /* when it applies */
	/* Apply to a copy of the rung below: 1 applied, 0 does not apply to
	 * this job (ctx->why says why not), negative errno on failure
	 * (ctx->err). */
	int (*apply)(struct mmp_rung *r, struct mmp_control_ctx *ctx);
	/* Which state or path the cause is about ("refcount, atomic tally");
	 * NULL: nothing to add. */
	void (*detail)(const struct mmp_run *below, char *buf, size_t len);
	/* Advice when this cause is the largest; NULL: none this machine could
	 * act on.  detail is what detail() wrote. */
	const char *(*fix)(const char *detail);
	const struct mmp_evidence_def *evidence; /* candidates, first counted wins */
	size_t nevidence;
	int sharing; /* a cause threads running together create: understated
			when they did not (a disturbed run) */
	const struct mmp_cause_either *either; /* a program's, uncounted; NULL: cause */
	/* Where its rung sits in the ladder: at its row, or, in a program's
	 * ladder, just below the rung of the control whose bit this is (0: at
	 * its row). */
	unsigned program_below;
	enum mmp_control_measure measure;
	enum mmp_control_merge merge;
	/* Non-NULL: the control is the ceiling.  As the last rung, what is left
	 * after it is not "remaining" but this (its detail). */
	const char *ceiling;
	/* A program's profile is held against this rung's first (evidence.h):
	 * the growth from it to the job is the question profiles answer. */
	int profile_first;
};

/* The table, in ladder order. */
const struct mmp_control_info *mmp_controls(size_t *count);
const struct mmp_control_info *mmp_control_by_bit(unsigned bit);
/* Room for 32 controls (an unsigned mask): a new one is a row and a bit. */
#define MMP_CONTROLS_ALL 0xffffffffu
#define MMP_CONTROLS_MAX 32 /* bits of MMP_CONTROLS_ALL: rows of the table at most */
/* Whether a mask of controls holds one whose rung is measured on CPU time. */
int mmp_controls_on_cpu(unsigned mask);
/* Whether a job's controls are auto's choice (controls = auto): the ones
 * that apply, which mmprof may skip or stop early, not ones it names. */
int mmp_controls_auto(const struct mmp_params *p);

/* "auto" (all that apply), "none", or names.  -EINVAL with a message (and a
 * did-you-mean) for anything else. */
int mmp_controls_parse(const char *text, unsigned *mask, char *err, size_t errlen);
/* The table, a line per control (--help) or as a Markdown table
 * (--list-controls=markdown, the docs). */
void mmp_controls_print(FILE *out, int markdown);
/* "fit, prefault, ..., limit": every control's name, for help texts,
 * into buf of len bytes: 0, or -ENOSPC with "..." where the list was cut.
 * MMP_CONTROLS_NAMES_LEN holds them all (test_attribution checks). */
#define MMP_CONTROLS_NAMES_LEN 256
int mmp_controls_names(char *buf, size_t len);

/* A control the job names (controls = a list, not auto) that does not
 * apply to it, and why. */
struct mmp_unapplied {
	const struct mmp_control_info *control;
	char why[200];
};

/* The rungs of a job for the controls it asks for (run->p.controls): rung
 * 0 is the job itself.  job_pins is where the job's own threads go.  The
 * controls it names that do not apply are kept with their reasons: a list
 * that shrinks is said, never silent (auto takes those that apply). */
struct mmp_ladder {
	struct mmp_rung *rung;
	size_t n;
	struct mmp_unapplied unapplied[MMP_CONTROLS_MAX]; /* each control once at most */
	size_t nunapplied;
};
int mmp_ladder_build(const struct mmp_run *job, const struct mmp_pin_plan *job_pins,
		     const struct mmp_topology *topo, struct mmp_ladder *out,
		     struct mmp_error *err);
void mmp_ladder_free(struct mmp_ladder *ladder);

#endif
