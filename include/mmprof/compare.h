/* mmprof compare A.csv B.csv: two invocations of the same config (two
 * commits, two machines, before and after a fix), run by run, B / A.
 *
 * Matching.  Runs are matched by their parameters, never by run number
 * (a config edited between the two runs renumbers them).  The key is the
 * CSV columns job, probe, kernel, threads, access, buffer, refcount,
 * tally, placement, control, bytes, prefault, advice and cache.  A control
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
 * otherwise.
 *
 * Files.  Each must be an mmprof CSV (a schema_version column) of this
 * binary's MMP_CSV_SCHEMA_VERSION, from one invocation (one run_id).
 * Every refusal is a message naming the file, and the line where there is
 * one.
 */
#ifndef MMPROF_COMPARE_H
#define MMPROF_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "mmprof/csvread.h"
#include "mmprof/error.h"
#include "mmprof/intervals.h"

/* The columns of the comparison CSV (mmprof compare --csv). */
#define MMP_COMPARE_SCHEMA_VERSION 1

/* The key: these CSV columns, in this order. */
#define MMP_COMPARE_NKEYS 14
const char *mmp_compare_key_name(size_t k);
/* The key columns with a part of their own (mmp_compare_key_name says
 * their names; test_compare checks they agree). */
enum { MMP_COMPARE_KEY_JOB = 0, MMP_COMPARE_KEY_PROBE = 1, MMP_COMPARE_KEY_CONTROL = 9 };

/* One run of one file: its rows' times, in file order. */
struct mmp_cmp_run {
	long number, parent;
	const char *control;                  /* "" for a job point */
	const char *value[MMP_COMPARE_NKEYS]; /* its own row's values */
	const char *key[MMP_COMPARE_NKEYS];   /* what it is matched by (a rung: its parent's) */
	char *joined;                         /* key[] joined, for sorting and matching */
	double *elapsed;
	unsigned char *disturbed;
	size_t n, cap;
	size_t ndisturbed;
	int wrong;   /* a repetition's result_ok is false */
	int copy;    /* a copy of a limit run: left out */
	size_t row, line; /* its first row, and that row's line */
};

struct mmp_cmp_file {
	struct mmp_csvread csv;
	const char *path;
	const char *run_id, *host, *cpu_model, *mmprof_version, *kernel_release, *started_at;
	struct mmp_cmp_run *run; /* by first appearance */
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
	enum mmp_compare_outcome outcome;
};

struct mmp_comparison {
	struct mmp_cmp_file a, b;
	double tolerance;
	struct mmp_cmp_pair *pair; /* in A's order */
	size_t npairs;
	const struct mmp_cmp_run **only_a, **only_b;
	size_t nonly_a, nonly_b;
	size_t count[MMP_COMPARE_NOUTCOMES];
	unsigned differs; /* MMP_COMPARE_DIFF_* bits: A and B come from different ... */
};

#define MMP_COMPARE_DIFF_HOST (1u << 0)
#define MMP_COMPARE_DIFF_CPU (1u << 1)
#define MMP_COMPARE_DIFF_VERSION (1u << 2)
#define MMP_COMPARE_DIFF_KERNEL (1u << 3)

/* Read one mmprof CSV.  0, or a negative errno with a message naming the
 * file: what csvread refuses, -EINVAL (not an mmprof CSV, a bad cell, two
 * invocations, two runs with one key), -EPROTO (another schema version). */
int mmp_compare_load(struct mmp_cmp_file *f, const char *path, struct mmp_error *err);
void mmp_compare_file_free(struct mmp_cmp_file *f);

/* Load both files, match their runs and compute every pair.  tolerance:
 * 0.05 for 5%.  0 or a negative errno with the message (-EPROTO: the two
 * files' schema versions differ). */
int mmp_compare_run(struct mmp_comparison *c, const char *a_path, const char *b_path,
		    double tolerance, struct mmp_error *err);
/* Match and compute, for two files already loaded (taken over by c). */
int mmp_compare_match(struct mmp_comparison *c, double tolerance, struct mmp_error *err);
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

#endif
