/* The CSV writer (see csv.h). */
#include "mmprof/csv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mmprof/paths.h"
#include "mmprof/probe.h"

struct row {
	const struct mmp_run_info *info;
	const struct mmp_rep *rep;
	const struct mmp_meta *meta;
	const struct mmp_planned *planned;
	const struct mmp_plan *plan;
	unsigned thread; /* per-thread file */
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
KEY_COLUMN(col_cache, MMP_KEY_CACHE)

static void col_schema(const struct row *r, char *buf, size_t len)
{
	(void)r;
	snprintf(buf, len, "%d", MMP_CSV_SCHEMA_VERSION);
}

static void col_job(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->info->run->job->name);
}

static void col_buffer(const struct row *r, char *buf, size_t len)
{
	if (r->info->run->applies & MMP_KEY_BIT(MMP_KEY_BUFFER))
		snprintf(buf, len, "%" PRIu64, r->info->run->p.buffer);
	else
		buf[0] = '\0';
}

static void col_access(const struct row *r, char *buf, size_t len)
{
	if (r->info->access)
		snprintf(buf, len, "%" PRIu64, r->info->access);
	else
		buf[0] = '\0';
}

static void col_control(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->info->run->control_name);
}

static void col_rep(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%u", r->rep->index);
}

static void col_run(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%zu", r->planned->run.index + 1);
}

static void col_parent(const struct row *r, char *buf, size_t len)
{
	size_t parent = r->planned->copy_of >= 0 ? (size_t)r->planned->copy_of : r->planned->point;
	snprintf(buf, len, "%zu", parent + 1);
}

static void col_set(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%zu", r->planned->set + 1);
}

static void col_round(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%u", r->rep->round);
}

static void col_position(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%u", r->rep->position);
}

static void col_disturbed(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->rep->dist.disturbed ? "true" : "false");
}

static void col_disturbed_why(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->rep->dist.why);
}

static void col_overlap(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%.4f", r->rep->dist.overlap);
}

static void col_wait(const struct row *r, char *buf, size_t len)
{
	if (r->rep->dist.wait_max >= 0)
		snprintf(buf, len, "%.4f", r->rep->dist.wait_max);
}

static void col_busy(const struct row *r, char *buf, size_t len)
{
	if (r->rep->dist.busy >= 0)
		snprintf(buf, len, "%.4f", r->rep->dist.busy);
}

static void col_pressure(const struct row *r, char *buf, size_t len)
{
	if (r->rep->dist.pressure >= 0)
		snprintf(buf, len, "%.4f", r->rep->dist.pressure);
}

static void col_nivcsw(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64, r->rep->dist.nivcsw);
}

static void col_order_seed(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64, r->plan->seed);
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

static void col_thread(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%u", r->thread);
}

static void col_thread_pu_planned(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%d", r->info->places[r->thread].pu_planned);
}

static void col_thread_pu_seen(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%d", r->info->places[r->thread].pu_seen);
}

static void col_thread_allowed(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->info->places[r->thread].allowed);
}

static void col_thread_ns(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64, r->rep->thread_ns[r->thread]);
}

struct column {
	const char *name;
	column_fn fn;
	const char *help;
};

/* The main file.  Counter columns go right after result_ok. */
static const struct column columns[] = {
	{ "schema_version", col_schema, "version of this column layout" },
	{ "job", col_job, "the config section" },
	{ "probe", col_probe, "access path" },
	{ "kernel", col_kernel, "zeros or histogram" },
	{ "threads", col_threads, "threads of the run" },
	{ "access", col_access, "bytes per call (1 for byte probes, empty for whole-slice scans)" },
	{ "buffer", col_buffer, "read()/stdio buffer bytes (empty: the probe has none)" },
	{ "refcount", col_refcount, "accessor probes: shared or once" },
	{ "tally", col_tally, "atomic, packed, padded or local (empty: probe has none)" },
	{ "placement", col_placement, "placement policy as written" },
	{ "control", col_control, "controls applied, as prefault+private (empty: the job itself)" },
	{ "run", col_run, "the run's number in the plan (--dry-run shows it)" },
	{ "parent", col_parent, "the job point a control rung belongs to; the limit run a copy repeats (in another comparison set); its own run for a job point" },
	{ "set", col_set, "the comparison set: runs measured side by side, in rounds" },
	{ "rep", col_rep, "recorded repetition, from 0" },
	{ "round", col_round, "the set's round, warmup rounds counted (rep + warmup)" },
	{ "position", col_position, "the run's place in its round, from 0 (the order is shuffled every round)" },
	{ "bytes", col_bytes, "bytes read" },
	{ "elapsed_ns", col_elapsed, "first thread's start to last thread's end" },
	{ "ns_per_byte", col_ns_per_byte, "elapsed_ns / bytes" },
	{ "result", col_result, "zero count, or for histograms the sum of all bytes" },
	{ "result_ok", col_result_ok, "result equal to the reference scan, bin for bin" },
	{ "oversubscribed", col_oversubscribed, "more threads than PUs in the placement" },
	{ "disturbed", col_disturbed, "the threads did not run together undisturbed (see disturbed_why)" },
	{ "disturbed_why", col_disturbed_why, "why: threads overlapped N% of the time, a thread waited N% of its time for a CPU, or the PUs were N% busy with its threads" },
	{ "overlap", col_overlap, "share of the shortest thread's time during which every thread was inside its slice" },
	{ "wait_max", col_wait, "largest share of a thread's time spent runnable but waiting for a CPU (schedstat); empty: unknown" },
	{ "busy", col_busy, "oversubscribed runs: threads' CPU time / (PUs x elapsed); empty otherwise" },
	{ "cpu_pressure", col_pressure, "/proc/pressure/cpu some: share of the repetition some task on the machine waited for a CPU; empty: no PSI" },
	{ "nivcsw", col_nivcsw, "involuntary context switches of the run's threads" },
	{ "run_id", col_run_id, "random id of this mmprof invocation" },
	{ "host", col_host, "host name" },
	{ "cpu_model", col_cpu_model, "from /proc/cpuinfo" },
	{ "kernel_release", col_kernel_release,
	  "uname -r (the contract's `kernel`; renamed: `kernel` is the probe kernel)" },
	{ "mmprof_version", col_version, "mmprof version" },
	{ "started_at", col_started_at, "invocation start, ISO 8601 UTC" },
	{ "order_seed", col_order_seed, "seed of the rounds' shuffled order (order_seed = this repeats it)" },
	{ "file", col_file, "data file read" },
	{ "fill", col_fill, "fill of generated data" },
	{ "seed", col_seed, "seed of generated data" },
	{ "prefault", col_prefault, "pages mapped before timing" },
	{ "advice", col_advice, "madvise()/posix_fadvise() advice" },
	{ "cache", col_cache, "page cache before each repetition: warm, drop, drop-all" },
	{ "npus", col_npus, "distinct PUs the placement offers" },
	{ "pus_planned", col_pus_planned, "planned PU of each thread" },
	{ "pus_seen", col_pus_seen, "PU each thread found itself on after binding" },
	{ "thread_ns_min", col_thread_min, "fastest thread's own time" },
	{ "thread_ns_max", col_thread_max, "slowest thread's own time" },
};

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))
#define EVENTS_AFTER "result_ok"

/* NAME.threads.csv (--per-thread): one row per thread of every row above. */
static const struct column thread_columns[] = {
	{ "schema_version", col_schema, NULL }, { "run_id", col_run_id, NULL },
	{ "job", col_job, NULL },		{ "probe", col_probe, NULL },
	{ "kernel", col_kernel, NULL },		{ "threads", col_threads, NULL },
	{ "access", col_access, NULL },		{ "buffer", col_buffer, NULL },
	{ "refcount", col_refcount, NULL },	{ "tally", col_tally, NULL },
	{ "placement", col_placement, NULL },	{ "control", col_control, NULL },
	{ "run", col_run, NULL },		{ "rep", col_rep, NULL },
	{ "thread", col_thread, NULL },
	{ "pu_planned", col_thread_pu_planned, NULL },
	{ "pu_seen", col_thread_pu_seen, NULL },
	{ "allowed", col_thread_allowed, NULL },
	{ "thread_ns", col_thread_ns, NULL },
};
#define NTHREAD_COLUMNS (sizeof(thread_columns) / sizeof(thread_columns[0]))

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

static void event_headers(const struct mmp_csv *csv, FILE *f, int last)
{
	char name[MMP_EVENT_NAME_MAX + 16];
	for (size_t e = 0; e < csv->nevents; e++) {
		mmp_csv_field(f, csv->events[e], 0);
		snprintf(name, sizeof(name), "%s_run_ratio", csv->events[e]);
		mmp_csv_field(f, name, last && e + 1 == csv->nevents);
	}
}

/* One event's two cells from a count: empty unless it was counted. */
static void event_cells(const struct mmp_csv *csv, FILE *f, const struct mmp_run_info *info,
			const struct mmp_count *counts, int last)
{
	char v[64], q[32];
	for (size_t e = 0; e < csv->nevents; e++) {
		const struct mmp_count *c = NULL;
		for (size_t i = 0; info->events && i < info->events->n; i++)
			if (strcmp(info->events->ev[i].name, csv->events[e]) == 0)
				c = &counts[i];
		v[0] = q[0] = '\0';
		if (c && mmp_count_valid(c)) {
			if (c->state == MMP_COUNT_SCALED)
				snprintf(v, sizeof(v), "%.0f", c->value);
			else
				snprintf(v, sizeof(v), "%" PRIu64, c->raw);
			snprintf(q, sizeof(q), "%.4f", mmp_count_ratio(c));
		}
		mmp_csv_field(f, v, 0);
		mmp_csv_field(f, q, last && e + 1 == csv->nevents);
	}
}

int mmp_csv_open(struct mmp_csv *csv, struct mmp_outset *set, const struct mmp_meta *meta,
		 const struct mmp_plan *plan, const char *const *events, size_t nevents,
		 int per_thread, struct mmp_error *err)
{
	int rc;

	memset(csv, 0, sizeof(*csv));
	csv->meta = meta;
	csv->plan = plan;
	csv->events = events;
	csv->nevents = nevents;
	rc = mmp_outfile_open(set, MMP_OUT_CSV, &csv->out, err);
	if (rc)
		return rc;
	csv->f = csv->out.f;
	if (per_thread && mmp_outset_has_companions(set)) {
		rc = mmp_outfile_open(set, MMP_OUT_THREADS, &csv->threads, err);
		if (rc) {
			mmp_outfile_abandon(&csv->out);
			return rc;
		}
		csv->tf = csv->threads.f;
	}
	for (size_t i = 0; i < NCOLUMNS; i++) {
		mmp_csv_field(csv->f, columns[i].name, i + 1 == NCOLUMNS);
		if (strcmp(columns[i].name, EVENTS_AFTER) == 0)
			event_headers(csv, csv->f, 0);
	}
	for (size_t i = 0; csv->tf && i < NTHREAD_COLUMNS; i++)
		mmp_csv_field(csv->tf, thread_columns[i].name,
			      i + 1 == NTHREAD_COLUMNS && nevents == 0);
	if (csv->tf)
		event_headers(csv, csv->tf, 1);
	rc = mmp_outfile_flush(&csv->out, err);
	if (!rc && csv->tf)
		rc = mmp_outfile_flush(&csv->threads, err);
	return rc;
}

int mmp_csv_row(struct mmp_csv *csv, const struct mmp_run_info *info,
		const struct mmp_rep *rep, struct mmp_error *err)
{
	struct row r = { info, rep, csv->meta, &csv->plan->runs[info->run->index], csv->plan, 0 };
	char buf[4096];

	for (size_t i = 0; i < NCOLUMNS; i++) {
		buf[0] = '\0';
		columns[i].fn(&r, buf, sizeof(buf));
		mmp_csv_field(csv->f, buf, i + 1 == NCOLUMNS);
		if (strcmp(columns[i].name, EVENTS_AFTER) == 0)
			event_cells(csv, csv->f, info, rep->counts, 0);
	}
	int rc = mmp_outfile_flush(&csv->out, err);
	if (rc)
		return rc;
	csv->rows++;
	if (!csv->tf)
		return 0;
	size_t nev = info->events ? info->events->n : 0;
	for (r.thread = 0; r.thread < info->plan->nthreads; r.thread++) {
		for (size_t i = 0; i < NTHREAD_COLUMNS; i++) {
			buf[0] = '\0';
			thread_columns[i].fn(&r, buf, sizeof(buf));
			mmp_csv_field(csv->tf, buf, i + 1 == NTHREAD_COLUMNS && csv->nevents == 0);
		}
		event_cells(csv, csv->tf, info, rep->thread_counts + r.thread * nev, 1);
	}
	return mmp_outfile_flush(&csv->threads, err);
}

int mmp_csv_commit(struct mmp_csv *csv, struct mmp_error *err)
{
	int rc = 0;
	if (!csv->rows) {
		/* Nothing measured: the previous files stay as they were. */
		if (csv->tf)
			mmp_outfile_abandon(&csv->threads);
		mmp_outfile_abandon(&csv->out);
	} else {
		if (csv->tf)
			rc = mmp_outfile_commit(&csv->threads, err);
		int r = mmp_outfile_commit(&csv->out, rc ? NULL : err);
		rc = rc ? rc : r;
	}
	csv->f = csv->tf = NULL;
	return rc;
}

void mmp_csv_print_columns(FILE *out, int markdown)
{
	static const struct column events[] = {
		{ "EVENT", NULL, "one per counted event: the sum over threads (scaled when "
				 "multiplexed); empty when not counted, never 0" },
		{ "EVENT_run_ratio", NULL, "time on a counter / time enabled, summed over "
					   "threads; empty when not counted" },
	};
	if (markdown)
		fprintf(out, "| column | meaning |\n|---|---|\n");
	for (size_t i = 0; i < NCOLUMNS; i++) {
		for (int e = 0; e < (strcmp(columns[i].name, EVENTS_AFTER) == 0 ? 3 : 1); e++) {
			const struct column *c = e ? &events[e - 1] : &columns[i];
			if (markdown)
				fprintf(out, "| `%s` | %s |\n", c->name, c->help);
			else
				fprintf(out, "%-16s %s\n", c->name, c->help);
		}
	}
}
