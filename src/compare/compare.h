/* mmprof compare A.csv B.csv: two invocations of the same config (two
 * commits, two machines, before and after a fix), run by run, B / A.
 *
 * Matching.  Runs are matched by their parameters, never by run number
 * (a config edited between the two runs renumbers them).  The key is the
 * CSV columns job, probe, control, every config key that identifies a run
 * across machines (MMP_ROLE_COMPARE: kernel, threads, access, buffer,
 * membind, data, ops, transfer, ...; a pairs placement with its PUs) and
 * bytes; --vary KEY leaves keys out, so runs that differ in them match
 * (buffer 64K in A against 4K in B).  A control
 * rung is keyed by its job point's values (its `parent` run) and its own
 * control: two job points of one job can have rungs with equal parameters
 * (a tally control makes every tally `local`), and the rung belongs to its
 * job point.  A copy (a `limit` run repeated in another comparison set:
 * no control, parent != run) repeats its original and is left out.  A run
 * present in one file only is listed, never guessed at; two runs with one
 * key in one file are an error that says which runs and where they differ.
 *
 * Figures.  The two files were not measured side by side, so no round of
 * A pairs with a round of B: the ratio is the ratio of geometric means of
 * each run's elapsed_ns, with Welch's 95% interval on the difference of
 * mean log times (intervals.h).  Disturbed repetitions are left out when
 * MMP_MIN_CLEAN_ROUNDS clean ones remain, as within a run (result.h).
 * Outcome: slower or faster when the interval lies wholly beyond the
 * tolerance band 1/(1+t) .. 1+t, same when wholly inside it, inconclusive
 * otherwise -- and inconclusive whatever the interval when the figure had
 * to use disturbed repetitions (fewer than MMP_MIN_CLEAN_ROUNDS clean on
 * a side), as mmprof's own answers are (answers.h).
 *
 * The ceiling.  A run's `limit_run` is the limit run that read the same
 * bytes in the same rounds.  The machine can drift between A and B (a busy
 * neighbour, a clock); the ceilings' own B / A says how much (reported as
 * the drift, and not counted as slower or faster).  A pair whose runs
 * both carry a ceiling is judged on each repetition's time over its
 * ceiling's in the same round, so the drift cancels; the plain B / A is
 * shown beside it.
 *
 * Files.  Each must be an mmprof CSV (a schema_version column) of this
 * binary's MMP_CSV_SCHEMA_VERSION, from one invocation (one run_id).
 * Every refusal is a message naming the file, and the line where there is
 * one.
 */
#ifndef MMPROF_COMPARE_H
#define MMPROF_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "compare/csvread.h"
#include "util/error.h"
#include "result/intervals.h"

/* The columns of the comparison CSV (mmprof compare --csv). */
#define MMP_COMPARE_SCHEMA_VERSION 2

/* The key: job, probe, control, the config keys with MMP_ROLE_COMPARE
 * (config.h; their CSV columns have their names), then bytes (what the
 * size key is per run).  mmp_compare_key_name says them in order. */
#define MMP_COMPARE_MAXKEYS (MMP_KEY_COUNT + 3)
size_t mmp_compare_nkeys(void);
const char *mmp_compare_key_name(size_t k);
enum { MMP_COMPARE_KEY_JOB = 0, MMP_COMPARE_KEY_PROBE = 1, MMP_COMPARE_KEY_CONTROL = 2 };

/* --vary KEY[,KEY]: key columns (size for bytes) a run of A and its match
 * in B may differ in, as MMP_COMPARE bits of their indexes.  0, or
 * -EINVAL with the message (an unknown name, with a suggestion). */
int mmp_compare_vary_parse(const char *text, uint32_t *vary, struct mmp_error *err);

/* One run of one file: its rows' times, in file order. */
struct mmp_cmp_run {
	long number, parent;
	const char *control;                    /* "" for a job point */
	const char *value[MMP_COMPARE_MAXKEYS]; /* its own row's values */
	const char *key[MMP_COMPARE_MAXKEYS];   /* what it is matched by (a rung: its parent's) */
	char *pairs;                            /* placement = pairs: "pairs:PU,PU" (owned) */
	char *joined;                           /* key[] joined, for sorting and matching */
	double *elapsed;
	unsigned char *disturbed;
	long *rep;                              /* each row's rep */
	size_t n, cap;
	size_t ndisturbed;
	long limit_run;                         /* its ceiling's number (limit_run); 0: none */
	const struct mmp_cmp_run *ceiling;      /* that run, in the same file */
	int is_ceiling;                         /* another run's ceiling */
	int wrong;   /* a repetition's result_ok is false */
	int copy;    /* a copy of a limit run: left out */
	size_t row, line; /* its first row, and that row's line */
};

struct mmp_cmp_file {
	struct mmp_csvread csv;
	const char *path;
	const char *run_id, *host, *cpu_model, *mmprof_version, *kernel_release, *started_at;
	uint32_t vary;           /* key bits left out of matching (--vary) */
	struct mmp_cmp_run *run; /* in run order */
	size_t nruns;
	size_t ncopies;
};

enum mmp_compare_outcome {
	MMP_COMPARE_SLOWER,
	MMP_COMPARE_FASTER,
	MMP_COMPARE_SAME,
	MMP_COMPARE_INCONCLUSIVE,
	MMP_COMPARE_NOUTCOMES
};
const char *mmp_compare_outcome_name(enum mmp_compare_outcome o);

/* One side of a pair: the repetitions used. */
struct mmp_cmp_side {
	const struct mmp_cmp_run *run;
	size_t used;        /* repetitions the figures come from */
	int used_disturbed; /* fewer than MMP_MIN_CLEAN_ROUNDS were clean: all used */
	double median;      /* of elapsed_ns over those */
};

struct mmp_cmp_pair {
	struct mmp_cmp_side a, b;
	struct mmp_interval ratio; /* B / A, Welch */
	/* Both runs carry a ceiling: B / A of each repetition's time over its
	 * ceiling's in the same round, Welch; the outcome is judged on it. */
	struct mmp_interval to_ceiling;
	int on_ceiling;
	int ceiling; /* both runs are ceilings: the machine-drift reference */
	/* The figure the outcome is judged on (ratio, or to_ceiling when
	 * on_ceiling) had to use disturbed repetitions: outcome inconclusive. */
	int disturbed;
	enum mmp_compare_outcome outcome;
};

struct mmp_comparison {
	struct mmp_cmp_file a, b;
	double tolerance;
	struct mmp_cmp_pair *pair; /* in A's order */
	size_t npairs;
	const struct mmp_cmp_run **only_a, **only_b;
	size_t nonly_a, nonly_b;
	size_t count[MMP_COMPARE_NOUTCOMES]; /* of the pairs that are not ceilings */
	size_t ndisturbed;                   /* of those, inconclusive as disturbed */
	uint32_t vary;                       /* key bits that may differ (--vary) */
	size_t nceilings;                    /* pairs of ceilings */
	double drift, drift_min, drift_max;  /* their B / A: median, range */
	size_t non_ceiling;                  /* pairs judged on their ratio to the ceiling */
	unsigned differs; /* MMP_COMPARE_DIFF_* bits: A and B come from different ... */
};

#define MMP_COMPARE_DIFF_HOST (1u << 0)
#define MMP_COMPARE_DIFF_CPU (1u << 1)
#define MMP_COMPARE_DIFF_VERSION (1u << 2)
#define MMP_COMPARE_DIFF_KERNEL (1u << 3)

/* Read one mmprof CSV.  0, or a negative errno with a message naming the
 * file: what csvread refuses, -EINVAL (not an mmprof CSV, a bad cell, two
 * invocations, two runs with one key), -EPROTO (another schema version). */
int mmp_compare_load(struct mmp_cmp_file *f, const char *path, uint32_t vary,
		     struct mmp_error *err);
void mmp_compare_file_free(struct mmp_cmp_file *f);

/* One pair's figures and outcome: b against a (B / A), runs of two loaded
 * files (each judged over its own file's ceiling where both carry one).
 * 0 or -ENOMEM. */
int mmp_compare_pair(struct mmp_cmp_pair *p, const struct mmp_cmp_run *a,
		     const struct mmp_cmp_run *b, double tolerance);

/* Load both files, match their runs and compute every pair.  tolerance:
 * 0.05 for 5%.  0 or a negative errno with the message (-EPROTO: the two
 * files' schema versions differ). */
int mmp_compare_run(struct mmp_comparison *c, const char *a_path, const char *b_path,
		    double tolerance, uint32_t vary, struct mmp_error *err);
/* Match and compute, for two files already loaded (taken over by c). */
int mmp_compare_match(struct mmp_comparison *c, double tolerance, uint32_t vary,
		      struct mmp_error *err);
void mmp_compare_free(struct mmp_comparison *c);

/* The terminal report: the files (and what differs between their
 * machines), the table, the method, the runs in one file only, and the
 * summary line "N slower, N faster, N same, N inconclusive; only in A: N;
 * only in B: N". */
void mmp_compare_print(FILE *out, const struct mmp_comparison *c);
/* "[job] probe threads=2 tally=atomic +prefault": a run's key for messages. */
const char *mmp_compare_label(const struct mmp_cmp_run *r, char *buf, size_t len);

/* The comparison as CSV, one row per pair, written to path through a
 * temporary (outfile.h); never over A or B.  0 or a negative errno. */
int mmp_compare_csv(const struct mmp_comparison *c, const char *path, struct mmp_error *err);
/* Its columns, for --help and docs. */
void mmp_compare_print_columns(FILE *out, int markdown);

/* A column of a comparison's CSV after its keys: its name and meaning. */
struct mmp_cmp_column {
	const char *name, *help;
};
/* The columns of a comparison's CSV, as a text list or a Markdown table
 * (docs): schema_version, the keys (each said as key_help, the control's
 * as control_help when not NULL), then cols. */
/* A comparison CSV's header line: schema_version, the keys, then cols. */
void mmp_compare_csv_header(FILE *f, const struct mmp_cmp_column *cols, size_t n);
void mmp_compare_columns_table(FILE *out, int markdown, int schema, const char *key_help,
			       const char *control_help, const struct mmp_cmp_column *cols,
			       size_t n);

#endif
