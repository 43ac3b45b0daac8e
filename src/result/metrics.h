/* Derived metrics: what the counters mean per byte, per MiB or per run
 * (perf stat's shadow metrics, LIKWID's group formulas).  One table
 * (src/result/metrics.c) gives each metric's CSV column, table heading, unit and
 * formula from event roles (events.h); the CSV, the terminal tables and
 * the JSON all read it.  A metric whose events were not all counted has no
 * value -- an empty cell, never 0. */
#ifndef MMPROF_METRICS_H
#define MMPROF_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "platform/counters.h"
#include "platform/events.h"

struct mmp_metric {
	const char *column; /* CSV column: "faults_per_mib" */
	const char *head;   /* terminal heading: "faults/MiB" */
	const char *help;
	int role;           /* enum mmp_event_role of the numerator */
	int per_role;       /* of the denominator (a ratio of counts); 0: none */
	double per_bytes;   /* 1 per byte, 1024 per KiB, 2^20 per MiB; 0 per run */
	const char *format; /* printf format of a value in tables */
	double scale;       /* tables show value x scale (0: 1): ns as ms */
	int share;          /* role / (role + per_role): a share of both counts */
	const char *run_head; /* per byte, KiB or MiB: the heading of its count per run */
};

const struct mmp_metric *mmp_metrics(size_t *count);
/* By CSV column name; NULL when there is none. */
const struct mmp_metric *mmp_metric_find(const char *column);

/* A metric per byte, KiB or MiB as a count per run ("faults/run"), for a
 * run that read no bytes (a program without a data file: its counts are
 * counted all the same) or less than a MiB; 0 (out untouched) for a
 * metric that is not per byte. */
int mmp_metric_per_run(const struct mmp_metric *m, struct mmp_metric *out);

/* The sum over a set's events of one role in one repetition's counts; 0
 * (no value) when none has the role or one of them was not counted. */
int mmp_role_sum(const struct mmp_event_set *set, const struct mmp_count *counts, int role,
		 double *out);

/* A metric of one repetition (counts summed over threads, bytes read). */
int mmp_metric_of_rep(const struct mmp_metric *m, const struct mmp_event_set *set,
		      const struct mmp_count *counts, uint64_t bytes, double *out);

/* A metric from values already summed by role (role_value(role, &v, arg)
 * says whether a role has one). */
int mmp_metric_eval(const struct mmp_metric *m, int (*role_value)(int role, double *v, void *arg),
		    void *arg, uint64_t bytes, double *out);

#endif
