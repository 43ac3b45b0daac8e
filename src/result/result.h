/* Results: what each run of the plan measured, round by round, and its
 * statistics -- median, intervals, "x limit" -- computed once, after (or
 * between) rounds.  What they mean (attribution, answers) is the next
 * stage's (analysis.h).
 *
 * Runs of one comparison set are compared round by round: a pair of
 * samples is the two runs' times in the same round.  Rounds in which a run
 * was disturbed (disturbance.h) are left out of a comparison when at least
 * MMP_MIN_CLEAN_ROUNDS others remain; otherwise the comparison uses every
 * round and says it was measured on disturbed runs.
 */
#ifndef MMPROF_RESULT_H
#define MMPROF_RESULT_H

#include <sched.h>
#include <stdint.h>

#include "data/datafile.h"
#include "platform/events.h"
#include "result/intervals.h"
#include "plan/plan.h"
#include "run/preload.h"
#include "result/profile.h"
#include "run/runner.h"
#include "result/stats.h"

#define MMP_MIN_CLEAN_ROUNDS 3

enum mmp_run_state {
	MMP_RUN_PENDING,     /* not reached (interrupted before it) */
	MMP_RUN_RUNNING,     /* its set is running: rounds so far (repeat = auto looks) */
	MMP_RUN_DONE,        /* every round ran */
	MMP_RUN_FAILED,      /* could not be carried out: see error */
	MMP_RUN_INTERRUPTED, /* some rounds ran */
};

/* "pending", "running", "done", "failed", "interrupted". */
const char *mmp_run_state_name(enum mmp_run_state s);

struct mmp_run_result {
	const struct mmp_planned *planned;
	const struct mmp_run *run; /* &planned->run */
	const struct mmp_datafile *data; /* NULL: a probe without a file */
	enum mmp_run_state state;
	char error[MMP_ERROR_MSG_MAX];
	uint64_t access; /* bytes per call, 0: whole slice */
	uint64_t bytes;  /* read (chase: chased; pingpong: 0) */
	uint64_t ops;    /* operations one after another (pingpong, chase); 0: a byte probe */
	/* Recorded rounds, by round: elapsed time, and whether it was
	 * disturbed (with the first reason seen). */
	double *elapsed_ns;
	unsigned char *disturbed;
	double *cpu_ns; /* the program's CPU time (exec: task-clock or rusage); 0: unknown */
	double *overlap; /* the threads' overlap (disturbance.h); < 0: not measured */
	size_t n, cap;
	unsigned ndisturbed;
	char disturbed_why[192];
	struct mmp_stats st; /* of every recorded round */
	int results_ok;      /* every recorded repetition matched the reference */
	int unchecked;       /* a program without `result`: nothing was compared */
	/* A program (its repetitions have a log): the repetitions in which it
	 * ran outside its planned PUs (pu_watch.h), and the PUs its threads
	 * were found on in any repetition (pus_ran_seen: one was sampled). */
	int program;
	unsigned nescaped;
	cpu_set_t pus_ran;
	int pus_ran_seen;
	/* prefault, touch, huge, bulk on a program: the most the preload
	 * library changed in any recorded repetition, and why it could not,
	 * when known. */
	int preload_asked;
	struct mmp_preload_report preload;
	char preload_note[256];
	/* A rung of controls = auto whose warmup (its first round without
	 * one) reached nothing (the preload library's report): no more of
	 * its rounds were run (session.c), so it has no recorded round (one,
	 * without a warmup, not paired with the others'). */
	int skipped;
	char skipped_why[480]; /* why, from the repetition it was decided on */
	/* controls = auto on programs stopped the set's rounds once decided
	 * (session.c): the rounds asked for (repeat); 0 when every round ran. */
	unsigned stopped_of;
	/* Counters: per round, each event's value, and whether every round
	 * counted it (else no value is shown). */
	const struct mmp_event_set *events;
	double *ev_values; /* [round][events] */
	int *ev_ok;        /* [events] */
	int *ev_state;     /* [events]: the worst state (enum mmp_count_state) of any round */
	/* A program sampled (profile = HZ): its profile over the rounds
	 * (profile.h); NULL when nothing was sampled or asked for. */
	struct mmp_profile *profile;
	/* A program: what else ran on its PUs over the recorded rounds
	 * (disturbance.h) -- the kernel's work and the unexplained other
	 * tasks, each share's mean and range, with the names of the round
	 * where it was largest -- or why the tasks were not told apart; and
	 * mmprof's own threads' share (self: no names), which --json gives
	 * beside them. */
	struct mmp_pu_share {
		unsigned n;
		double sum, lo, hi, top;
		char tasks[160];
	} kernel, unexplained, self;
	char seen_why[200];
	/* Computed by mmp_results_compute. */
	const struct mmp_run_result *limit; /* the limit run over the same bytes */
	struct mmp_interval x_limit;        /* this run's time / limit's, paired */
};

struct mmp_results {
	const struct mmp_plan *plan;
	struct mmp_run_result *run;     /* [plan->nruns] */
	uint64_t varying; /* MMP_KEY_BIT of keys whose values differ between job points */
	struct mmp_symbols *symbols; /* names the profiles' samples (symbols.h) */
};

int mmp_results_init(struct mmp_results *res, const struct mmp_plan *plan);
void mmp_results_free(struct mmp_results *res);

/* The run starts: its data and what it counts. */
void mmp_results_start(struct mmp_results *res, size_t run, const struct mmp_datafile *data,
		       const struct mmp_event_set *events);
/* One recorded repetition (its rep->index is its round).  -EINVAL when
 * its round is not the next one, -ENOMEM; err says which. */
int mmp_results_record(struct mmp_results *res, size_t run, const struct mmp_rep *rep,
		       struct mmp_error *err);
void mmp_results_finish(struct mmp_results *res, size_t run, enum mmp_run_state state,
			const char *error);

/* Statistics and x limit from what is recorded. */
int mmp_results_compute(struct mmp_results *res);

/* Rounds usable to compare runs: recorded by all of them, without the
 * rounds any was disturbed in when MMP_MIN_CLEAN_ROUNDS remain.  Returns
 * their number (rounds[] gets them, at most cap); *disturbed is set when
 * disturbed rounds had to be used. */
size_t mmp_results_rounds(const struct mmp_run_result *const *runs, size_t n, unsigned *rounds,
			  size_t cap, int *disturbed);
/* The same rounds, all of them, in an array it allocates (free() it):
 * NULL when out of memory or none (*m = 0).  Before, callers kept 4096
 * and compared the first 4096 rounds of a longer run without a word. */
unsigned *mmp_results_rounds_all(const struct mmp_run_result *const *runs, size_t n, size_t *m,
				 int *disturbed);
/* a / b over their shared rounds. */
void mmp_results_ratio(const struct mmp_run_result *a, const struct mmp_run_result *b,
		       struct mmp_interval *out, int *disturbed);

/* Has recorded repetitions to report (running, done, or interrupted after
 * some). */
int mmp_result_has_data(const struct mmp_run_result *r);
/* Median over a run's rounds of a derived metric (metrics.h); 0 and no
 * value when its events were not all counted in every round. */
struct mmp_metric;
int mmp_result_metric_median(const struct mmp_run_result *r, const struct mmp_metric *m,
			     double *out);
/* What a run's time is divided by: its operations (pingpong, chase), else
 * the bytes it read; and the name of one ("byte", "transfer", "load"). */
double mmp_result_per(const struct mmp_run_result *r);
const char *mmp_result_unit(const struct mmp_run_result *r);
/* Bytes per call as text: "1024", or "whole" for whole-slice scans. */
const char *mmp_result_access(const struct mmp_run_result *r, char *buf, size_t len);
/* "[job] probe threads=8 access=1 tally=atomic +prefault" for messages:
 * the keys that vary between the plan's job points, so no two differ
 * only in what is hidden. */
const char *mmp_result_label(const struct mmp_results *res, const struct mmp_run_result *r,
			     char *buf, size_t len);

#endif
