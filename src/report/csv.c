/* The CSV writer (see csv.h). */
#include "report/csv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "result/metrics.h"
#include "util/paths.h"
#include "mmprof/probe.h"
#include "run/process_run.h"
#include "csv_impl.h"

struct row {
	const struct mmp_run_info *info;
	const struct mmp_rep *rep;
	const struct mmp_meta *meta;
	const struct mmp_planned *planned;
	const struct mmp_plan *plan;
	unsigned thread; /* per-thread file */
};

static void key_value(const struct row *r, enum mmp_key_id k, char *buf, size_t len)
{
	mmp_run_format(r->info->run, k, buf, len);
}

#define KEY_COLUMN(fn, key)                                                    \
	static void fn(const void *row, char *buf, size_t len)                 \
	{                                                                      \
		key_value(row, key, buf, len);                                 \
	}
KEY_COLUMN(col_probe, MMP_KEY_PROBE)
KEY_COLUMN(col_kernel, MMP_KEY_KERNEL)
KEY_COLUMN(col_threads, MMP_KEY_THREADS)
KEY_COLUMN(col_refcount, MMP_KEY_REFCOUNT)
KEY_COLUMN(col_tally, MMP_KEY_TALLY)
KEY_COLUMN(col_transfer, MMP_KEY_TRANSFER)
KEY_COLUMN(col_placement, MMP_KEY_PLACEMENT)
KEY_COLUMN(col_fill, MMP_KEY_FILL)
KEY_COLUMN(col_seed, MMP_KEY_SEED)
KEY_COLUMN(col_prefault, MMP_KEY_PREFAULT)
KEY_COLUMN(col_touch, MMP_KEY_TOUCH)
KEY_COLUMN(col_advice, MMP_KEY_ADVICE)
KEY_COLUMN(col_cache, MMP_KEY_CACHE)
KEY_COLUMN(col_membind, MMP_KEY_MEMBIND)
KEY_COLUMN(col_bind, MMP_KEY_BIND)
KEY_COLUMN(col_data, MMP_KEY_DATA)
KEY_COLUMN(col_hugepages, MMP_KEY_HUGEPAGES)
KEY_COLUMN(col_jitnames, MMP_KEY_JITNAMES)
KEY_COLUMN(col_env, MMP_KEY_ENV)

/* "0:4096 1:0": pages of the data found on each node (of those examined). */
static void col_data_nodes(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_census_record *c = r->rep->census;
	size_t used = 0;
	buf[0] = '\0';
	if (c && c->done && c->data.unknown) {
		snprintf(buf, len, "unknown"); /* move_pages refused: no guess */
		return;
	}
	for (unsigned i = 0; c && c->done && i < c->data.nnodes && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u:%llu", i ? " " : "",
					 c->data.node[i].node,
					 (unsigned long long)c->data.node[i].pages);
}

static void col_data_examined(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_census_record *c = r->rep->census;
	if (c && c->done && c->data.pages_total && !c->data.unknown)
		snprintf(buf, len, "%llu", (unsigned long long)c->data.pages_examined);
}

static void col_data_pages(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_census_record *c = r->rep->census;
	if (c && c->done && c->data.pages_total)
		snprintf(buf, len, "%llu", (unsigned long long)c->data.pages_total);
}

static void col_data_absent(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_census_record *c = r->rep->census;
	if (c && c->done && c->data.pages_total && !c->data.unknown)
		snprintf(buf, len, "%llu", (unsigned long long)c->data.not_present);
}

static void col_state_node(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_census_record *c = r->rep->census;
	if (c && c->done && c->state_node >= 0)
		snprintf(buf, len, "%d", c->state_node);
}

/* What the preload library changed in a program (prefault, huge). */
static void col_preload_loaded(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_rep_process *x = r->rep->process;
	if (x && x->preload_asked)
		snprintf(buf, len, "%u", x->preload.loaded);
}

static void col_preload_mappings(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_rep_process *x = r->rep->process;
	if (x && x->preload_asked)
		snprintf(buf, len, "%llu", (unsigned long long)x->preload.mappings);
}

static void col_prefaulted(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_rep_process *x = r->rep->process;
	if (x && x->preload_asked && (r->info->run->p.prefault || r->info->run->p.touch))
		snprintf(buf, len, "%llu", (unsigned long long)x->preload.present);
}

static void col_preload_blocks(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_rep_process *x = r->rep->process;
	if (x && x->preload_asked)
		snprintf(buf, len, "%llu", (unsigned long long)x->preload.blocks);
}

static void col_touched(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_rep_process *x = r->rep->process;
	if (x && x->preload_asked && r->info->run->p.touch)
		snprintf(buf, len, "%llu", (unsigned long long)x->preload.touched);
}

/* What the bulk rung's library answered in a program (p.bulkreads). */
static void col_bulk_calls(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_rep_process *x = r->rep->process;
	if (x && x->preload_asked && r->info->run->p.bulkreads)
		snprintf(buf, len, "%llu", (unsigned long long)x->preload.calls);
}

static void col_bulk_served(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_rep_process *x = r->rep->process;
	if (x && x->preload_asked && r->info->run->p.bulkreads)
		snprintf(buf, len, "%llu", (unsigned long long)x->preload.served);
}

static void col_bulk_syscalls(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_rep_process *x = r->rep->process;
	if (x && x->preload_asked && r->info->run->p.bulkreads)
		snprintf(buf, len, "%llu", (unsigned long long)x->preload.syscalls);
}

static void col_bulk_aside(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_rep_process *x = r->rep->process;
	if (x && x->preload_asked && r->info->run->p.bulkreads)
		mmp_preload_asides(&x->preload, buf, len);
}

static void col_huge_bytes(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_rep_process *x = r->rep->process;
	const struct mmp_census_record *c = r->rep->census;
	if (x && x->preload_asked) {
		if (r->info->run->p.hugepages)
			snprintf(buf, len, "%llu", (unsigned long long)x->preload.huge);
		return;
	}
	if (c && c->done && r->info->run->p.hugepages)
		snprintf(buf, len, "%llu", (unsigned long long)c->huge_bytes);
}

static void col_thread_node(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_census_record *c = r->rep->census;
	if (c && c->done && r->thread < c->nthreads && c->pu_node[r->thread] >= 0)
		snprintf(buf, len, "%d", c->pu_node[r->thread]);
}

static void col_thread_remote(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_census_record *c = r->rep->census;
	if (c && c->done && r->thread < c->nthreads && c->remote_share[r->thread] >= 0)
		snprintf(buf, len, "%.4f", c->remote_share[r->thread]);
}

static void col_schema(const void *row, char *buf, size_t len)
{
	(void)row;
	snprintf(buf, len, "%d", MMP_CSV_SCHEMA_VERSION);
}

static void col_job(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%s", r->info->run->job->name);
}

static void col_buffer(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	if (r->info->run->applies & MMP_KEY_BIT(MMP_KEY_BUFFER))
		snprintf(buf, len, "%" PRIu64, r->info->run->p.buffer);
	else
		buf[0] = '\0';
}

static void col_access(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	if (r->info->access)
		snprintf(buf, len, "%" PRIu64, r->info->access);
	else
		buf[0] = '\0';
}

static void col_control(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%s", r->info->run->control_name);
}

static void col_limit_run(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	long k = mmp_planned_is_point(r->planned)
			 ? mmp_plan_ceiling(r->plan, r->planned->run.index)
			 : -1;
	if (k >= 0)
		snprintf(buf, len, "%zu", r->plan->runs[k].run.index + 1);
}

static void col_rep(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%u", r->rep->index);
}

static void col_run(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%zu", r->planned->run.index + 1);
}

static void col_parent(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	size_t parent = r->planned->copy_of >= 0 ? (size_t)r->planned->copy_of : r->planned->point;
	snprintf(buf, len, "%zu", parent + 1);
}

static void col_set(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%zu", r->planned->set + 1);
}

static void col_round(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%u", r->rep->round);
}

static void col_position(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%u", r->rep->position);
}

static void col_disturbed(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%s", r->rep->dist.disturbed ? "true" : "false");
}

static void col_disturbed_why(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%s", r->rep->dist.why);
}

static void col_overlap(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	if (r->rep->dist.overlap >= 0)
		snprintf(buf, len, "%.4f", r->rep->dist.overlap);
}

static void col_wait(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	if (r->rep->dist.wait_max >= 0)
		snprintf(buf, len, "%.4f", r->rep->dist.wait_max);
}

static void col_busy(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	if (r->rep->dist.busy >= 0)
		snprintf(buf, len, "%.4f", r->rep->dist.busy);
}

static void col_pressure(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	if (r->rep->dist.pressure >= 0)
		snprintf(buf, len, "%.4f", r->rep->dist.pressure);
}

static void col_nivcsw(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%" PRIu64, r->rep->dist.nivcsw);
}

static void col_order_seed(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%" PRIu64, r->plan->seed);
}

static void col_bytes(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%" PRIu64, r->rep->bytes);
}

static void col_elapsed(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%" PRIu64, r->rep->elapsed_ns);
}

static void col_ns_per_byte(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	/* An operation-counting probe's time is per operation, not per byte. */
	if (r->rep->bytes && !r->rep->ops)
		snprintf(buf, len, "%.6g", (double)r->rep->elapsed_ns / (double)r->rep->bytes);
}

static void col_unit(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const char *unit = r->info->run->p.probe->unit;
	snprintf(buf, len, "%s", unit ? unit : "");
}

static void col_ops(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	if (r->rep->ops)
		snprintf(buf, len, "%" PRIu64, r->rep->ops);
}

static void col_ns_per_op(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	if (r->rep->ops)
		snprintf(buf, len, "%.6g", (double)r->rep->elapsed_ns / (double)r->rep->ops);
}

static void col_result(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_rep_process *x = r->rep->process;
	/* A program without `result`: nothing read; one that printed no
	 * count: nothing that is one. */
	if (!x || (!x->result_unchecked && !x->result_text[0]))
		snprintf(buf, len, "%" PRIu64, r->rep->result);
}

static void col_result_ok(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_rep_process *x = r->rep->process;
	if (!x || !x->result_unchecked)
		snprintf(buf, len, "%s", r->rep->result_ok && !r->rep->probe_rc ? "true" : "false");
}

static void col_log(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_rep_process *x = r->rep->process;
	if (x)
		snprintf(buf, len, "%s", x->log);
}

static void col_wall(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_rep_process *x = r->rep->process;
	if (x)
		snprintf(buf, len, "%" PRIu64, x->wall_ns);
}

static void col_others(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	if (r->rep->dist.others >= 0)
		snprintf(buf, len, "%.4f", r->rep->dist.others);
}

static void col_unexplained(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	if (r->rep->dist.unexplained >= 0)
		snprintf(buf, len, "%.4f", r->rep->dist.unexplained);
}

static void col_kernel_busy(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	if (r->rep->dist.kernel >= 0)
		snprintf(buf, len, "%.4f", r->rep->dist.kernel);
}

static void col_mmprof_busy(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	if (r->rep->dist.self >= 0)
		snprintf(buf, len, "%.4f", r->rep->dist.self);
}

static void col_kernel_tasks(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%s", r->rep->dist.kernel_tasks);
}

static void col_other_tasks(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%s", r->rep->dist.other_tasks);
}

static void col_escaped(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_rep_process *x = r->rep->process;
	if (x) /* a program's row */
		snprintf(buf, len, "%s", x->escaped ? "true" : "false");
}

static void col_pus_ran(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_rep_process *x = r->rep->process;
	if (x)
		snprintf(buf, len, "%s", x->pus_ran);
}

static void col_oversubscribed(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%s", r->info->plan->oversubscribed ? "true" : "false");
}

static void col_run_id(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%s", r->meta->run_id);
}

static void col_platform(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%s", r->meta->platform.name);
}

/* The calibration's figures; empty when it did not run. */
static void calib_value(const struct row *r, const struct mmp_calib_value *v, double pick,
			char *buf, size_t len)
{
	if (r->meta->calibration.done && v->valid)
		snprintf(buf, len, "%.4g", pick);
}

static void col_first_touch(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_calib_value *v = &r->meta->calibration.cost_ns;
	calib_value(r, v, v->median, buf, len);
}

static void col_first_touch_low(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_calib_value *v = &r->meta->calibration.cost_ns;
	calib_value(r, v, v->low, buf, len);
}

static void col_first_touch_high(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_calib_value *v = &r->meta->calibration.cost_ns;
	calib_value(r, v, v->high, buf, len);
}

static void col_scan_gbs(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	const struct mmp_calib_value *v = &r->meta->calibration.scan_gbs;
	calib_value(r, v, v->median, buf, len);
}

static void col_host(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%s", r->meta->host);
}

static void col_cpu_model(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%s", r->meta->cpu_model);
}

static void col_kernel_release(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%s", r->meta->kernel_release);
}

static void col_version(const void *row, char *buf, size_t len)
{
	(void)row;
	snprintf(buf, len, "%s", MMPROF_VERSION);
}

static void col_started_at(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%s", r->meta->started_at);
}

static void col_file(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	if (r->info->data)
		snprintf(buf, len, "%s", r->info->data->path);
}

static void col_pus_planned(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	mmp_pin_plan_format(r->info->plan, buf, len);
}

static void col_pus_seen(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	size_t used = 0;
	buf[0] = '\0';
	for (unsigned t = 0; t < r->info->plan->nthreads && used < len; t++)
		if (r->info->places[t].pu_seen >= 0) /* -1: a program's threads are its own */
			used += (size_t)snprintf(buf + used, len - used, "%s%d", t ? " " : "",
						 r->info->places[t].pu_seen);
}

static void col_npus(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%u", r->info->plan->npus);
}

static void col_thread_min(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%" PRIu64, r->rep->thread_min_ns);
}

static void col_thread_max(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%" PRIu64, r->rep->thread_max_ns);
}

static void col_thread(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%u", r->thread);
}

static void col_thread_pu_planned(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%d", r->info->places[r->thread].pu_planned);
}

static void col_thread_pu_seen(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	if (r->info->places[r->thread].pu_seen >= 0) /* -1: a program's thread */
		snprintf(buf, len, "%d", r->info->places[r->thread].pu_seen);
}

static void col_thread_allowed(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%s", r->info->places[r->thread].allowed);
}

static void col_thread_ns(const void *row, char *buf, size_t len)
{
	const struct row *r = row;
	snprintf(buf, len, "%" PRIu64, r->rep->thread_ns[r->thread]);
}

/* The main file.  Counter columns go right after result_ok. */
static const struct mmp_csv_column columns[] = {
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
	{ "bytes", col_bytes, "bytes read (chase: bytes chased through; pingpong: 0)" },
	{ "elapsed_ns", col_elapsed, "first thread's start to last thread's end" },
	{ "ns_per_byte", col_ns_per_byte, "elapsed_ns / bytes (empty for the probes that count operations)" },
	{ "result", col_result, "zero count, or for histograms the sum of all bytes (exec: what the program printed; empty without `result`; pingpong, chase: operations that landed right)" },
	{ "result_ok", col_result_ok, "result equal to the reference scan, bin for bin (exec: to its count or byte sum, empty when not checked; pingpong, chase: to the operations asked for)" },
	{ "oversubscribed", col_oversubscribed, "more threads than PUs in the placement" },
	{ "disturbed", col_disturbed, "the threads did not run together undisturbed (see disturbed_why)" },
	{ "disturbed_why", col_disturbed_why, "why: threads overlapped N% of the time, a thread waited N% of its time for a CPU, the PUs were N% busy with its threads, a thread was off-CPU, mmprof was stopped (exec: other tasks took N% of its PUs, its threads ran at once N% of the time two were ready, its threads left its PUs)" },
	{ "overlap", col_overlap, "share of the shortest thread's time during which every thread was inside its slice (exec: of the time two of its threads were ready to run, the share two ran at once; empty: not measured)" },
	{ "wait_max", col_wait, "largest share of a thread's time spent runnable but waiting for a CPU (schedstat); empty: unknown" },
	{ "busy", col_busy, "oversubscribed runs: threads' CPU time / (PUs x elapsed); empty otherwise" },
	{ "cpu_pressure", col_pressure, "/proc/pressure/cpu some: share of the repetition some task on the machine waited for a CPU; empty: no PSI" },
	{ "nivcsw", col_nivcsw, "involuntary context switches of the run's threads (exec: of the process, from wait4)" },
	{ "others_busy", col_others, "exec: CPU time other tasks took on the process's PUs while it ran, as a share of those PUs' time; empty for probes" },
	{ "escaped", col_escaped, "exec: the program ran outside its planned PUs (a thread of it found on or allowed another PU, or CPU time above PUs x wall): it widened its own CPU affinity, and the repetition is disturbed; empty for probes" },
	{ "unexplained_busy", col_unexplained, "exec: others_busy less the kernel's work (kernel_busy) and mmprof's own (mmprof_busy): other tasks in the way, what is judged (disturbed above 10%); empty for probes" },
	{ "kernel_busy", col_kernel_busy, "exec: the kernel's work on the process's PUs while it ran, a share of their time: its threads (journaling, I/O completion: kernel_tasks) and interrupts and softirqs; not judged; empty for probes and where it cannot be told (interrupt time unknown)" },
	{ "kernel_tasks", col_kernel_tasks, "exec: the kernel threads that ran on its PUs, largest first, each with its share (jbd2/vda-8 6%, kworker/u4:2 3%); empty when none ran or other tasks could not be told apart (a user: perf_event_paranoid)" },
	{ "other_tasks", col_other_tasks, "exec: the user-space tasks other than it and mmprof that ran on its PUs, largest first, each with its share" },
	{ "mmprof_busy", col_mmprof_busy, "exec: mmprof's own threads' share of the process's PUs while it ran (its watch and drain); empty where not told apart" },
	{ "run_id", col_run_id, "random id of this mmprof invocation" },
	{ "host", col_host, "host name" },
	{ "cpu_model", col_cpu_model, "from /proc/cpuinfo" },
	{ "kernel_release", col_kernel_release,
	  "uname -r (the contract's `kernel`; renamed: `kernel` is the probe kernel)" },
	{ "mmprof_version", col_version, "mmprof version" },
	{ "started_at", col_started_at, "invocation start, ISO 8601 UTC" },
	{ "order_seed", col_order_seed, "seed of the rounds' shuffled order (order_seed = this repeats it)" },
	{ "file", col_file, "data file read" },
	{ "log", col_log, "exec: the process's stdout and stderr, log_max of it (NAME.logs/RUNID/run<N>-<job>.<k>.log); empty for probes" },
	{ "wall_ns", col_wall, "exec: its exec to its exit (elapsed_ns is its own printed time with time = output:...); empty for probes" },
	{ "fill", col_fill, "fill of generated data" },
	{ "seed", col_seed, "seed of generated data" },
	{ "prefault", col_prefault, "pages mapped before timing" },
	{ "advice", col_advice, "madvise()/posix_fadvise() advice" },
	{ "cache", col_cache, "page cache before each repetition: warm, drop, drop-all" },
	{ "membind", col_membind, "where the run's memory was bound: firsttouch, local, node:N, interleave[:LIST]" },
	{ "bind", col_bind, "strict or best-effort" },
	{ "data", col_data, "mapping probes: pagecache (the file's pages) or anon (a bound copy)" },
	{ "hugepages", col_hugepages, "data = anon: a copy backed by huge pages asked for" },
	{ "huge_bytes", col_huge_bytes, "of the copy, bytes the kernel really backed with huge pages (exec: of the program's advised mappings, as the preload library read them)" },
	{ "preload_loaded", col_preload_loaded, "exec with prefault or hugepages: processes the preload library was loaded in (0: none, a static or setuid program)" },
	{ "preload_mappings", col_preload_mappings, "exec with prefault or hugepages: the program's mappings the preload library changed" },
	{ "prefaulted_bytes", col_prefaulted, "exec with prefault: bytes of its mappings present right after MAP_POPULATE, and of its malloc'd blocks after MADV_POPULATE_WRITE (pagemap)" },
	{ "data_nodes", col_data_nodes, "pages of the data found on each NUMA node, as node:pages, of those examined (after the run's first repetition); unknown where the process may not read page locations (move_pages refused)" },
	{ "data_pages", col_data_pages, "pages the data covers" },
	{ "data_examined", col_data_examined, "pages examined (an even sample of at most 4096)" },
	{ "data_absent", col_data_absent, "examined pages not in memory" },
	{ "state_node", col_state_node, "NUMA node of the run's shared state (tally, reference count)" },
	{ "npus", col_npus, "distinct PUs the placement offers" },
	{ "pus_planned", col_pus_planned, "planned PU of each thread" },
	{ "pus_seen", col_pus_seen, "PU each thread found itself on after binding" },
	{ "pus_ran", col_pus_ran, "exec: the PUs the program's threads were found on while it ran (sampled every 20 ms; empty when it ended before a sample, and for probes)" },
	{ "thread_ns_min", col_thread_min, "fastest thread's own time" },
	{ "thread_ns_max", col_thread_max, "slowest thread's own time" },
	{ "unit", col_unit, "the operation of the probes that count them: transfer (pingpong), load (chase); empty: byte probes" },
	{ "ops", col_ops, "operations one after another in the repetition (pingpong: one-way transfers; chase: each thread's loads)" },
	{ "ns_per_op", col_ns_per_op, "elapsed_ns / ops: ns per one-way transfer, ns per load" },
	{ "transfer", col_transfer, "pingpong: cas (one line compare-and-swapped) or store (two lines); empty for other probes" },
	{ "limit_run", col_limit_run, "the limit run (the ceiling) over the same bytes in the same rounds, as x_limit in the report and mmprof compare's machine-drift reference use it; empty: none" },
	{ "jitnames", col_jitnames, "exec: yes when the program ran with what its runtime needs to name its JIT code in the profile (.NET's and Java's perf maps; jitnames = auto is yes when profiled); empty for probes" },
	{ "env", col_env, "exec: the job's env = VAR=VALUE, ... as written; empty: none (or a probe)" },
	{ "touch", col_touch, "every page of the mapping read once before timing (the ceiling: always yes); empty: the probe maps none" },
	{ "platform", col_platform, "bare metal, or the hypervisor (CPUID leaf 0x40000000, and the kernel's \"Hypervisor detected\" when it says another); unknown where neither tells" },
	{ "first_touch_ns", col_first_touch, "calibration before the first round: ns the first load from a page of a fresh, populated mapping costs over a touched page's (median of its fresh mappings); empty: not measured" },
	{ "first_touch_low_ns", col_first_touch_low, "the calibration's lowest first-touch cost" },
	{ "first_touch_high_ns", col_first_touch_high, "the calibration's highest first-touch cost" },
	{ "scan_gbs", col_scan_gbs, "calibration: GB/s of limit's scan of the touched mapping, one thread (median)" },
	{ "touched_bytes", col_touched, "exec with touch: bytes of its populated, readable mappings (and malloc'd blocks) whose pages the preload library read once" },
	{ "preload_blocks", col_preload_blocks, "exec with prefault, touch or hugepages: the program's malloc'd blocks of 1 MiB and more the preload library changed (glibc's allocator; their bytes are in prefaulted_bytes, touched_bytes)" },
	{ "bulk_calls", col_bulk_calls, "exec with bulk: the program's read() and pread() calls under 16 KiB of regular files opened read-only that the preload library answered" },
	{ "bulk_served", col_bulk_served, "exec with bulk: of them, answered from its 128 KiB buffer without a system call" },
	{ "bulk_syscalls", col_bulk_syscalls, "exec with bulk: the system calls (read, pread, lseek) the library made for them" },
	{ "bulk_aside", col_bulk_aside, "exec with bulk: descriptors the library stepped aside for, by why (\"fork 1, dup 2\"; docs/exec.md); empty: none" },
};

static const struct mmp_csv_table main_table = MMP_CSV_TABLE(NULL, columns, MMP_CSV_CELL_MAX);
/* The derived metrics (metrics.h) come right after this column. */
#define METRICS_AFTER "result_ok"

/* NAME.threads.csv (--per-thread): one row per thread of every row above. */
static const struct mmp_csv_column thread_columns[] = {
	{ "schema_version", col_schema, "version of this column layout" },
	{ "run_id", col_run_id, "the mmprof invocation (as in NAME.csv)" },
	{ "job", col_job, "the config section" },
	{ "probe", col_probe, "access path" },
	{ "threads", col_threads, "threads of the run" },
	{ "control", col_control, "controls applied (empty: the job point itself)" },
	{ "run", col_run, "the run (NAME.csv's run)" },
	{ "rep", col_rep, "recorded repetition (NAME.csv's rep)" },
	{ "thread", col_thread, "the thread, from 0" },
	{ "pu_planned", col_thread_pu_planned, "the PU it was planned on" },
	{ "pu_seen", col_thread_pu_seen, "the PU it found itself on after binding" },
	{ "allowed", col_thread_allowed, "the PUs it was allowed on (sched_getaffinity)" },
	{ "pu_node", col_thread_node, "the NUMA node of its PU" },
	{ "remote_share", col_thread_remote, "share of its slice's pages on another node than its PU's" },
	{ "thread_ns", col_thread_ns, "its own time, start of its slice to its end" },
	{ "host", col_host, "the host that ran it (as NAME.csv's host): rows of several hosts stay apart" },
};
static const struct mmp_csv_table thread_table =
	MMP_CSV_TABLE("NAME.threads.csv", thread_columns, MMP_CSV_CELL_MAX);



/* Where the metrics go: after METRICS_AFTER. */
static size_t metrics_at(void)
{
	for (size_t i = 0; i < main_table.n; i++)
		if (strcmp(columns[i].name, METRICS_AFTER) == 0)
			return i + 1;
	return main_table.n;
}

/* The main header: the columns, the metrics after result_ok. */
static void main_header(FILE *f)
{
	size_t nm, at = metrics_at();
	const struct mmp_metric *m = mmp_metrics(&nm);
	mmp_csv_header_part(f, &main_table, 0, at, 0);
	for (size_t k = 0; k < nm; k++)
		mmp_csv_field(f, m[k].column, 0);
	mmp_csv_header_part(f, &main_table, at, main_table.n, 1);
}

static void metric_cells(FILE *f, const struct mmp_run_info *info, const struct mmp_rep *rep)
{
	size_t nm;
	const struct mmp_metric *m = mmp_metrics(&nm);
	char v[64];
	for (size_t k = 0; k < nm; k++) {
		double x;
		v[0] = '\0';
		if (mmp_metric_of_rep(&m[k], info->events, rep->counts, rep->bytes, &x))
			snprintf(v, sizeof(v), "%.6g", x);
		mmp_csv_field(f, v, 0);
	}
}

int mmp_csv_open(struct mmp_csv *csv, struct mmp_outset *set, const struct mmp_meta *meta,
		 const struct mmp_plan *plan, int counts, int per_thread, struct mmp_error *err)
{
	int rc;

	memset(csv, 0, sizeof(*csv));
	csv->meta = meta;
	csv->plan = plan;
	rc = mmp_outfile_open(set, MMP_OUT_CSV, &csv->out, err);
	if (rc)
		return rc;
	csv->f = csv->out.f;
	if (per_thread && mmp_outset_has_companions(set)) {
		rc = mmp_outfile_open(set, MMP_OUT_THREADS, &csv->threads, err);
		if (rc)
			goto fail;
		csv->tf = csv->threads.f;
		mmp_csv_header(csv->tf, &thread_table);
	}
	csv->per_thread_events = per_thread;
	if (counts && mmp_outset_has_companions(set)) {
		rc = mmp_outfile_open(set, MMP_OUT_EVENTS, &csv->events, err);
		if (rc)
			goto fail;
		csv->ef = csv->events.f;
		mmp_csv_header(csv->ef, &mmp_csv_event_table);
	}
	main_header(csv->f);
	/* A full file system at the start: the headers cannot be written,
	 * and no temporary of this run may stay on it. */
	rc = mmp_outfile_flush(&csv->out, err);
	if (!rc && csv->tf)
		rc = mmp_outfile_flush(&csv->threads, err);
	if (!rc && csv->ef)
		rc = mmp_outfile_flush(&csv->events, err);
	if (!rc)
		return 0;
fail:
	if (csv->ef)
		mmp_outfile_abandon(&csv->events);
	if (csv->tf)
		mmp_outfile_abandon(&csv->threads);
	mmp_outfile_abandon(&csv->out);
	return rc;
}

int mmp_csv_row(struct mmp_csv *csv, const struct mmp_run_info *info,
		const struct mmp_rep *rep, struct mmp_error *err)
{
	struct row r = { info, rep, csv->meta, &csv->plan->runs[info->run->index], csv->plan, 0 };
	size_t at = metrics_at();
	int rc;

	mmp_csv_row_part(csv->f, &main_table, 0, at, &r, 0);
	metric_cells(csv->f, info, rep);
	mmp_csv_row_part(csv->f, &main_table, at, main_table.n, &r, 1);
	rc = mmp_outfile_flush(&csv->out, err);
	if (rc)
		return rc;
	csv->rows++;
	for (r.thread = 0; csv->tf && r.thread < info->plan->nthreads; r.thread++)
		mmp_csv_row_of(csv->tf, &thread_table, &r);
	if (csv->tf && (rc = mmp_outfile_flush(&csv->threads, err)))
		return rc;
	if (!csv->ef || !info->events || !info->events->n)
		return 0;
	mmp_csv_event_rows(csv, info, rep, rep->counts, -1);
	for (unsigned t = 0; csv->per_thread_events && t < info->plan->nthreads; t++)
		mmp_csv_event_rows(csv, info, rep, rep->thread_counts + (size_t)t * info->events->n, t);
	return mmp_outfile_flush(&csv->events, err);
}

int mmp_csv_commit(struct mmp_csv *csv, struct mmp_error *err)
{
	int rc = 0;
	if (!csv->rows) {
		/* Nothing measured: the previous files stay as they were. */
		if (csv->tf)
			mmp_outfile_abandon(&csv->threads);
		if (csv->ef)
			mmp_outfile_abandon(&csv->events);
		mmp_outfile_abandon(&csv->out);
	} else {
		/* Rows written whole before a write error (a full disk, the
		 * file size limit) are kept: they were measured. */
		if (csv->tf)
			rc = mmp_outfile_commit_written(&csv->threads, err);
		if (csv->ef) {
			int r = mmp_outfile_commit_written(&csv->events, rc ? NULL : err);
			rc = rc ? rc : r;
		}
		int r = mmp_outfile_commit_written(&csv->out, rc ? NULL : err);
		rc = rc ? rc : r;
	}
	csv->f = csv->tf = csv->ef = NULL;
	return rc;
}

void mmp_csv_print_columns(FILE *out, int markdown)
{
	size_t nm, at = metrics_at();
	const struct mmp_metric *m = mmp_metrics(&nm);
	mmp_csv_print_heading(out, &main_table, markdown);
	mmp_csv_print_rows(out, &main_table, 0, at, markdown);
	for (size_t k = 0; k < nm; k++) {
		if (markdown)
			fprintf(out, "| `%s` | %s; empty when not counted |\n", m[k].column, m[k].help);
		else
			fprintf(out, "%-18s %s; empty when not counted\n", m[k].column, m[k].help);
	}
	mmp_csv_print_rows(out, &main_table, at, main_table.n, markdown);
	mmp_csv_print_table(out, &mmp_csv_event_table, markdown);
	mmp_csv_print_table(out, &thread_table, markdown);
}
