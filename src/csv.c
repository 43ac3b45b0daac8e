/* The CSV writer (see csv.h). */
#include "mmprof/csv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mmprof/probe.h"

struct row {
	const struct mmp_run_info *info;
	const struct mmp_rep *rep;
	const struct mmp_meta *meta;
};

typedef void (*column_fn)(const struct row *r, char *buf, size_t len);

static void key_value(const struct row *r, enum mmp_key_id k, char *buf, size_t len)
{
	mmp_run_format(r->info->run, k, buf, len);
}

#define KEY_COLUMN(fn, key)                                                    \
	static void fn(const struct row *r, char *buf, size_t len)             \
	{                                                                      \
		key_value(r, key, buf, len);                                   \
	}
KEY_COLUMN(col_probe, MMP_KEY_PROBE)
KEY_COLUMN(col_kernel, MMP_KEY_KERNEL)
KEY_COLUMN(col_threads, MMP_KEY_THREADS)
KEY_COLUMN(col_refcount, MMP_KEY_REFCOUNT)
KEY_COLUMN(col_tally, MMP_KEY_TALLY)
KEY_COLUMN(col_placement, MMP_KEY_PLACEMENT)
KEY_COLUMN(col_fill, MMP_KEY_FILL)
KEY_COLUMN(col_seed, MMP_KEY_SEED)
KEY_COLUMN(col_prefault, MMP_KEY_PREFAULT)
KEY_COLUMN(col_advice, MMP_KEY_ADVICE)

static void col_schema(const struct row *r, char *buf, size_t len)
{
	(void)r;
	snprintf(buf, len, "%d", MMP_CSV_SCHEMA_VERSION);
}

static void col_job(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->info->run->job->name);
}

static void col_access(const struct row *r, char *buf, size_t len)
{
	if (r->info->access)
		snprintf(buf, len, "%" PRIu64, r->info->access);
	else
		buf[0] = '\0';
}

static void col_empty(const struct row *r, char *buf, size_t len)
{
	(void)r;
	(void)len;
	buf[0] = '\0';
}

static void col_rep(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%u", r->rep->index);
}

static void col_bytes(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64, r->rep->bytes);
}

static void col_elapsed(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64, r->rep->elapsed_ns);
}

static void col_ns_per_byte(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%.6g", (double)r->rep->elapsed_ns / (double)r->rep->bytes);
}

static void col_result(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64, r->rep->result);
}

static void col_result_ok(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->rep->result_ok && !r->rep->probe_rc ? "true" : "false");
}

static void col_oversubscribed(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->info->plan->oversubscribed ? "true" : "false");
}

static void col_run_id(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->meta->run_id);
}

static void col_host(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->meta->host);
}

static void col_cpu_model(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->meta->cpu_model);
}

static void col_kernel_release(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->meta->kernel_release);
}

static void col_version(const struct row *r, char *buf, size_t len)
{
	(void)r;
	snprintf(buf, len, "%s", MMPROF_VERSION);
}

static void col_started_at(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->meta->started_at);
}

static void col_file(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->info->data->path);
}

static void col_pus_planned(const struct row *r, char *buf, size_t len)
{
	mmp_pin_plan_format(r->info->plan, buf, len);
}

static void col_pus_seen(const struct row *r, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (unsigned t = 0; t < r->info->plan->nthreads && used < len; t++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d", t ? " " : "",
					 r->info->places[t].pu_seen);
}

static void col_npus(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%u", r->info->plan->npus);
}

static void col_thread_min(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64, r->rep->thread_min_ns);
}

static void col_thread_max(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64, r->rep->thread_max_ns);
}

static const struct column {
	const char *name;
	column_fn fn;
	const char *help;
} columns[] = {
	{ "schema_version", col_schema, "version of this column layout" },
	{ "job", col_job, "the config section" },
	{ "probe", col_probe, "access path" },
	{ "kernel", col_kernel, "zeros or histogram" },
	{ "threads", col_threads, "threads of the run" },
	{ "access", col_access, "bytes per call (1 for byte probes, empty for whole-slice scans)" },
	{ "buffer", col_empty, "read/fread buffer bytes (empty: no probe reads it yet)" },
	{ "refcount", col_refcount, "accessor probes: shared or once" },
	{ "tally", col_tally, "atomic, packed, padded or local (empty: probe has none)" },
	{ "placement", col_placement, "placement policy as written" },
	{ "control", col_empty, "control variant (empty: the job itself)" },
	{ "rep", col_rep, "recorded repetition, from 0" },
	{ "bytes", col_bytes, "bytes read" },
	{ "elapsed_ns", col_elapsed, "first thread's start to last thread's end" },
	{ "ns_per_byte", col_ns_per_byte, "elapsed_ns / bytes" },
	{ "result", col_result, "zero count, or for histograms the sum of all bytes" },
	{ "result_ok", col_result_ok, "result equal to the reference scan, bin for bin" },
	{ "oversubscribed", col_oversubscribed, "more threads than PUs in the placement" },
	{ "run_id", col_run_id, "random id of this mmprof invocation" },
	{ "host", col_host, "host name" },
	{ "cpu_model", col_cpu_model, "from /proc/cpuinfo" },
	{ "kernel_release", col_kernel_release,
	  "uname -r (the contract's `kernel`; renamed: `kernel` is the probe kernel)" },
	{ "mmprof_version", col_version, "mmprof version" },
	{ "started_at", col_started_at, "invocation start, ISO 8601 UTC" },
	{ "file", col_file, "data file read" },
	{ "fill", col_fill, "fill of generated data" },
	{ "seed", col_seed, "seed of generated data" },
	{ "prefault", col_prefault, "pages mapped before timing" },
	{ "advice", col_advice, "madvise() advice" },
	{ "npus", col_npus, "distinct PUs the placement offers" },
	{ "pus_planned", col_pus_planned, "planned PU of each thread" },
	{ "pus_seen", col_pus_seen, "PU each thread found itself on after binding" },
	{ "thread_ns_min", col_thread_min, "fastest thread's own time" },
	{ "thread_ns_max", col_thread_max, "slowest thread's own time" },
};

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

void mmp_csv_field(FILE *f, const char *value, int last)
{
	if (strpbrk(value, ",\"\n\r")) {
		fputc('"', f);
		for (const char *p = value; *p; p++) {
			if (*p == '"')
				fputc('"', f);
			fputc(*p, f);
		}
		fputc('"', f);
	} else {
		fputs(value, f);
	}
	fputc(last ? '\n' : ',', f);
}

static int make_parent(const char *path)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int mmp_csv_open(struct mmp_csv *csv, const char *path, const struct mmp_meta *meta,
		 struct mmp_error *err)
{
	memset(csv, 0, sizeof(*csv));
	int rc = make_parent(path);
	if (rc)
		return mmp_error_errno(err, rc, "cannot create the directory of %s", path);
	csv->path = strdup(path);
	csv->f = fopen(path, "w");
	if (!csv->f || !csv->path) {
		rc = mmp_error_errno(err, csv->f ? -ENOMEM : -errno, "cannot write %s", path);
		if (csv->f)
			fclose(csv->f);
		free(csv->path);
		csv->f = NULL;
		csv->path = NULL;
		return rc;
	}
	csv->meta = meta;
	for (size_t i = 0; i < NCOLUMNS; i++)
		mmp_csv_field(csv->f, columns[i].name, i + 1 == NCOLUMNS);
	if (fflush(csv->f))
		return mmp_error_errno(err, -errno, "write %s", path);
	return 0;
}

int mmp_csv_row(struct mmp_csv *csv, const struct mmp_run_info *info,
		const struct mmp_rep *rep, struct mmp_error *err)
{
	struct row r = { info, rep, csv->meta };
	char buf[4096];

	for (size_t i = 0; i < NCOLUMNS; i++) {
		buf[0] = '\0';
		columns[i].fn(&r, buf, sizeof(buf));
		mmp_csv_field(csv->f, buf, i + 1 == NCOLUMNS);
	}
	if (fflush(csv->f) || ferror(csv->f))
		return mmp_error_errno(err, -EIO, "write %s", csv->path);
	csv->rows++;
	return 0;
}

int mmp_csv_close(struct mmp_csv *csv, struct mmp_error *err)
{
	int rc = 0;
	if (csv->f && fclose(csv->f))
		rc = mmp_error_errno(err, -errno, "close %s", csv->path);
	free(csv->path);
	memset(csv, 0, sizeof(*csv));
	return rc;
}

void mmp_csv_print_columns(FILE *out, int markdown)
{
	if (markdown)
		fprintf(out, "| column | meaning |\n|---|---|\n");
	for (size_t i = 0; i < NCOLUMNS; i++) {
		if (markdown)
			fprintf(out, "| `%s` | %s |\n", columns[i].name, columns[i].help);
		else
			fprintf(out, "%-16s %s\n", columns[i].name, columns[i].help);
	}
}
