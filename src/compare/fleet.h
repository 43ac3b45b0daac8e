/* mmprof compare with three or more CSVs: a fleet, one file per host
 * (docs/fleet.md), read together.
 *
 * Job points.  Runs are matched across the files as two are (compare.h:
 * by their parameters, --vary, copies left out).  Ceilings (limit runs
 * that are other runs' ceilings) are not job points: they are what makes
 * the figures drift-aware.
 *
 * The fleet's median.  At each job point the hosts that ran it are
 * ordered by their run's level (median time of the repetitions used, over
 * its ceiling's median where it carries one), and the middle one (the
 * lower of the two middle ones for an even count) is the median host.
 * Every other host is compared with it as compare compares B with A: B /
 * median with Welch's 95% interval, judged over the ceiling where both
 * carry one (so a host that ran in a slower period is not an outlier for
 * it), inconclusive whatever the interval when disturbed repetitions had
 * to be used.  A host slower or faster than the median host is an outlier
 * at that job point.  Measuring against a host that was itself measured,
 * not against a pooled median, keeps each interval the honest one of two
 * invocations.
 *
 * Answers.  Each host's NAME.answers.csv (beside its NAME.csv; a host
 * without one has none) is read; each question is matched by its kind and
 * its words across the hosts, and the report says whether every host
 * decided it the same way, or which hosts did not ("yes on 14 of 16
 * hosts; n07, n11 inconclusive (disturbed)").
 */
#ifndef MMPROF_FLEET_H
#define MMPROF_FLEET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compare/compare.h"
#include "compare/csvread.h"
#include "util/error.h"
#include "util/outfile.h"

/* The columns of the fleet CSV (mmprof compare A B C --csv). */
#define MMP_FLEET_SCHEMA_VERSION 1

/* One host at one job point: compared with the median host. */
struct mmp_fleet_cell {
	size_t file;              /* the host's file (index) */
	const struct mmp_cmp_run *run;
	struct mmp_cmp_pair pair; /* median host (A) against this one (B); unset for the median */
	int is_median;
};

struct mmp_fleet_point {
	const struct mmp_cmp_run *run; /* the first file's run of it, for its key and label */
	size_t median;                 /* the median host's file */
	struct mmp_fleet_cell *cell;   /* every host that ran it, in file order */
	size_t ncells;
	size_t count[MMP_COMPARE_NOUTCOMES]; /* the other hosts' outcomes */
};

enum { MMP_FLEET_YES, MMP_FLEET_NO, MMP_FLEET_INCONCLUSIVE, MMP_FLEET_OTHER, MMP_FLEET_ABSENT };

struct mmp_fleet_answer {
	const char *kind, *question; /* as the first host that asked it wrote them */
	int *outcome;                /* per file: MMP_FLEET_YES ... MMP_FLEET_ABSENT */
	unsigned char *disturbed;    /* per file: its figure used disturbed rounds */
	size_t count[MMP_FLEET_ABSENT + 1];
	int agree;                   /* every host asked it and decided it alike */
};

struct mmp_fleet {
	struct mmp_cmp_file *file;
	const char **name;            /* each file's host as the report says it */
	struct mmp_csvread *answers;  /* each file's NAME.answers.csv (no rows: none) */
	unsigned char *has_answers;
	size_t nfiles;
	double tolerance;
	uint32_t vary;
	struct mmp_fleet_point *point;
	size_t npoints;
	size_t nsingle;    /* job points only one host ran (not compared) */
	size_t nslower, nfaster, ninconclusive, nsame; /* over every cell but the medians */
	struct mmp_fleet_answer *answer;
	size_t nanswers, nagree;
};

/* Load every file (mmp_compare_load; at least three), match the job
 * points, choose each one's median host, compare the others with it, and
 * read the answers beside each file.  0 or a negative errno with the
 * message naming the file: what mmp_compare_load refuses, -EINVAL for one
 * invocation given twice or a bad answers file. */
int mmp_fleet_run(struct mmp_fleet *f, const char *const *paths, size_t n, double tolerance,
		  uint32_t vary, struct mmp_error *err);
void mmp_fleet_free(struct mmp_fleet *f);

/* The terminal report: the hosts, one block per job point (its median
 * host, each other host's ratio, interval and outcome), the outliers per
 * host, the answers that differ between hosts, and a summary line. */
void mmp_fleet_print(FILE *out, const struct mmp_fleet *f);
/* One row per job point and host, through a temporary (outfile.h), never
 * over an input.  0 or a negative errno. */
int mmp_fleet_csv(const struct mmp_fleet *f, const char *path, struct mmp_error *err);
/* An output of the report (its CSV, its JSON) at path, which may be none
 * of the files compared (outfile.h); commit or abandon it. */
int mmp_fleet_open_output(const struct mmp_fleet *f, const char *path, struct mmp_outfile *out,
			  struct mmp_error *err);
void mmp_fleet_print_columns(FILE *out, int markdown);
/* The same as one JSON document (fleet_json.c): schema_version,
 * tolerance, hosts, job_points (each with its key, median host and every
 * host's ratio, over_ceiling, outcome), answers (each host's outcome) and
 * a summary.  0 or a negative errno. */
int mmp_fleet_json(const struct mmp_fleet *f, const char *path, struct mmp_error *err);

#endif
