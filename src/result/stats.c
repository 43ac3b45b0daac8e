#include "result/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int mmp_stats_compute(const double *values, size_t n, struct mmp_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (n == 0)
		return -EINVAL;
	double *sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, values, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);

	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += sorted[i];
	out->n = n;
	out->mean = sum / (double)n;
	out->min = sorted[0];
	out->max = sorted[n - 1];
	out->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	if (n > 1) {
		double ss = 0;
		for (size_t i = 0; i < n; i++)
			ss += (sorted[i] - out->mean) * (sorted[i] - out->mean);
		out->stddev = sqrt(ss / (double)(n - 1)); /* sample standard deviation */
		out->cv = out->mean > 0 ? out->stddev / out->mean : 0;
	}
	free(sorted);
	return 0;
}
