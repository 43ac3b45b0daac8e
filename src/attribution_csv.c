/* NAME.attribution.csv: one row per job run and cause. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mmprof/attribution.h"
#include "mmprof/csv.h"
#include "mmprof/probe.h"

/* The job run (the same values as its rows in the main CSV), then the
 * cause. */
static const char *const header[] = {
	"schema_version", "run_id",	 "job",	      "probe",		 "kernel",
	"threads",	  "access",	 "buffer",    "refcount",	 "tally",
	"placement",	  "cache",	 "bytes",     "cause",		 "detail",
	"ns_per_byte",	  "share",	 "significant", "noise_ns_per_byte", "cv_before",
	"cv_after",	  "control",	 "evidence",  "evidence_before", "evidence_after",
	"evidence_missing",
};
#define NHEADER (sizeof(header) / sizeof(header[0]))

static void row(FILE *f, const char *run_id, const struct mmp_attribution *a,
		const struct mmp_cause *c)
{
	const struct mmp_run_result *job = a->job;
	char v[NHEADER][192];
	size_t i = 0;

	memset(v, 0, sizeof(v));
	snprintf(v[i++], sizeof(v[0]), "%d", MMP_CSV_SCHEMA_VERSION);
	snprintf(v[i++], sizeof(v[0]), "%s", run_id);
	snprintf(v[i++], sizeof(v[0]), "%s", job->run->job->name);
	snprintf(v[i++], sizeof(v[0]), "%s", job->run->p.probe->name);
	mmp_run_format(job->run, MMP_KEY_KERNEL, v[i++], sizeof(v[0]));
	snprintf(v[i++], sizeof(v[0]), "%u", job->run->p.threads);
	if (job->access)
		snprintf(v[i], sizeof(v[0]), "%" PRIu64, job->access);
	i++;
	if (job->run->applies & MMP_KEY_BIT(MMP_KEY_BUFFER))
		snprintf(v[i], sizeof(v[0]), "%" PRIu64, job->run->p.buffer);
	i++;
	mmp_run_format(job->run, MMP_KEY_REFCOUNT, v[i++], sizeof(v[0]));
	mmp_run_format(job->run, MMP_KEY_TALLY, v[i++], sizeof(v[0]));
	mmp_run_format(job->run, MMP_KEY_PLACEMENT, v[i++], sizeof(v[0]));
	mmp_run_format(job->run, MMP_KEY_CACHE, v[i++], sizeof(v[0]));
	snprintf(v[i++], sizeof(v[0]), "%" PRIu64, job->bytes);
	snprintf(v[i++], sizeof(v[0]), "%s", mmp_cause_name(c->kind));
	snprintf(v[i++], sizeof(v[0]), "%s", c->detail);
	snprintf(v[i++], sizeof(v[0]), "%.6g", c->ns_per_byte);
	snprintf(v[i++], sizeof(v[0]), "%.4f", c->share);
	snprintf(v[i++], sizeof(v[0]), "%s", c->significant ? "true" : "false");
	snprintf(v[i++], sizeof(v[0]), "%.6g", c->noise);
	snprintf(v[i++], sizeof(v[0]), "%.4f", c->cv_before);
	if (c->after)
		snprintf(v[i], sizeof(v[0]), "%.4f", c->cv_after);
	i++;
	snprintf(v[i++], sizeof(v[0]), "%s", c->after ? c->after->run->control_name : "");
	snprintf(v[i++], sizeof(v[0]), "%s", c->evidence.metric ? c->evidence.metric : "");
	if (c->evidence.counted) {
		snprintf(v[i], sizeof(v[0]), "%.6g", c->evidence.before);
		snprintf(v[i + 1], sizeof(v[0]), "%.6g", c->evidence.after);
	}
	i += 2;
	snprintf(v[i++], sizeof(v[0]), "%s", c->evidence.counted ? "" : c->evidence.missing);
	for (size_t k = 0; k < NHEADER; k++)
		mmp_csv_field(f, v[k], k + 1 == NHEADER);
}

int mmp_attribution_csv(const char *path, const struct mmp_run_result *results, size_t n,
			const char *run_id, struct mmp_error *err)
{
	FILE *f = NULL;
	for (size_t i = 0; i < n; i++) {
		struct mmp_attribution a;
		if (mmp_attribute(&results[i], &a))
			continue;
		if (!f) {
			f = fopen(path, "w");
			if (!f)
				return mmp_error_errno(err, -errno, "cannot write %s", path);
			for (size_t k = 0; k < NHEADER; k++)
				mmp_csv_field(f, header[k], k + 1 == NHEADER);
		}
		for (size_t c = 0; c < a.n; c++)
			row(f, run_id, &a, &a.cause[c]);
	}
	if (f && fclose(f))
		return mmp_error_errno(err, -errno, "write %s", path);
	return 0;
}
