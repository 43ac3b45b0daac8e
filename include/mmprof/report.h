/* The terminal report: one aligned table of every run, then ratios of
 * each job to its baseline, computed from the rows above them. */
#ifndef MMPROF_REPORT_H
#define MMPROF_REPORT_H

#include <stdio.h>

#include "mmprof/config.h"
#include "mmprof/controls.h"
#include "mmprof/datafile.h"
#include "mmprof/error.h"
#include "mmprof/events.h"
#include "mmprof/stats.h"

enum mmp_run_state {
	MMP_RUN_PENDING,     /* not reached (interrupted before it) */
	MMP_RUN_DONE,        /* every repetition ran */
	MMP_RUN_FAILED,      /* could not be carried out: see error */
	MMP_RUN_INTERRUPTED, /* some repetitions ran */
};

struct mmp_run_result {
	const struct mmp_run *run;
	const struct mmp_datafile *data;
	enum mmp_run_state state;
	char error[MMP_ERROR_MSG_MAX];
	uint64_t access;    /* bytes per call, 0: whole slice */
	uint64_t bytes;
	double *elapsed_ns; /* recorded repetitions */
	size_t n;
	struct mmp_stats st; /* of elapsed_ns */
	int results_ok;      /* every recorded repetition matched the reference */
	int oversubscribed;
	unsigned npus;
	/* Counters: per event, its value in each recorded repetition, and
	 * whether every one of them was counted (else no value is shown). */
	const struct mmp_event_set *events;
	double *ev_values; /* [events][repeat] */
	int *ev_ok;        /* [events] */
	/* Controls (controls.h): the job's ladder, and a result per rung
	 * above the job itself (controls[k - 1] for ladder->rung[k]). */
	struct mmp_ladder *ladder;
	struct mmp_run_result *controls;
	size_t ncontrols;
	/* A job that `fixes` another: that job's matching run, measured again
	 * beside this one (A B A B), so the fix is judged side by side. */
	struct mmp_run twin_run;
	struct mmp_run_result *twin;
};

/* Median of one event role over a run's repetitions (summing events that
 * share the role); 0 and no value when none was counted. */
int mmp_result_metric(const struct mmp_run_result *r, int role, double *out);

/* Has recorded repetitions to report (done, or interrupted after some). */
int mmp_result_has_data(const struct mmp_run_result *r);
/* Bytes per call as text: "1024", or "whole" for whole-slice scans. */
const char *mmp_result_access(const struct mmp_run_result *r, char *buf, size_t len);

/* The run's key values as "threads=8 access=1" for messages. */
const char *mmp_result_label(const struct mmp_run_result *r, char *buf, size_t len);

void mmp_report_table(FILE *out, const struct mmp_run_result *results, size_t n);
void mmp_report_ratios(FILE *out, const struct mmp_config *cfg,
		       const struct mmp_run_result *results, size_t n);
/* The read/mmap/fread seed's table: per file size, a column per method. */
void mmp_report_sizes(FILE *out, const struct mmp_run_result *results, size_t n);

/* Derived metrics from the counters, one row per run, columns only for
 * what was counted somewhere. */
void mmp_report_metrics(FILE *out, const struct mmp_run_result *results, size_t n);

/* The row a run is compared with: same data, kernel, threads, bytes per
 * call and placement, in another job; NULL when there is none. */
const struct mmp_run_result *mmp_report_match(const struct mmp_run_result *results,
					      size_t n, const struct mmp_run_result *r,
					      size_t job_index);
/* The limit row for r: the `limit` probe over the same data and kernel
 * with the same threads and placement. */
const struct mmp_run_result *mmp_report_limit(const struct mmp_run_result *results,
					      size_t n, const struct mmp_run_result *r);

#endif
