/* Summary statistics of repeated measurements (Google Benchmark's set). */
#ifndef MMPROF_STATS_H
#define MMPROF_STATS_H

#include <stddef.h>

struct mmp_stats {
	size_t n;
	double median, mean, stddev, min, max;
	double cv; /* stddev / mean; 0 when n < 2 */
};

/* values is not modified. Returns -EINVAL for n == 0. */
int mmp_stats_compute(const double *values, size_t n, struct mmp_stats *out);

#endif
