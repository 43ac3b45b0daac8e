/* The derived metrics (see metrics.h). */
#include "result/metrics.h"

#include <string.h>

static const struct mmp_metric table[] = {
	{ "cpu_ns", "CPU ms", "CPU time of the run's threads (task-clock), ns",
	  MMP_ROLE_TASK_CLOCK, 0, 0, "%.2f", 1e-6, 0, NULL },
	{ "cycles_per_byte", "cycles/B", "CPU cycles per byte read", MMP_ROLE_CYCLES, 0, 1,
	  "%.2f", 0, 0, "cycles/run" },
	{ "instructions_per_byte", "instr/B", "instructions per byte read",
	  MMP_ROLE_INSTRUCTIONS, 0, 1, "%.2f", 0, 0, "instr/run" },
	{ "ipc", "IPC", "instructions per cycle", MMP_ROLE_INSTRUCTIONS, MMP_ROLE_CYCLES, 0,
	  "%.2f", 0, 0, NULL },
	{ "faults_per_mib", "faults/MiB", "page faults per MiB read", MMP_ROLE_PAGE_FAULTS, 0,
	  1 << 20, "%.1f", 0, 0, "faults/run" },
	{ "major_faults", "major faults", "major page faults (from the disk) per run",
	  MMP_ROLE_MAJOR_FAULTS, 0, 0, "%.0f", 0, 0, NULL },
	{ "syscalls_per_mib", "syscalls/MiB", "system calls per MiB read (raw_syscalls)",
	  MMP_ROLE_SYSCALLS, 0, 1 << 20, "%.1f", 0, 0, "syscalls/run" },
	{ "reads_per_mib", "reads/MiB", "read() calls per MiB read", MMP_ROLE_READ_SYSCALLS, 0,
	  1 << 20, "%.1f", 0, 0, "reads/run" },
	{ "context_switches", "ctx-sw", "context switches of the run's threads per run",
	  MMP_ROLE_CONTEXT_SWITCHES, 0, 0, "%.0f", 0, 0, NULL },
	{ "migrations", "migrations", "moves of the run's threads between PUs per run",
	  MMP_ROLE_MIGRATIONS, 0, 0, "%.0f", 0, 0, NULL },
	{ "contention_per_kib", "contention/KiB",
	  "loads of lines another core modified (HITM and kin) per KiB read",
	  MMP_ROLE_CONTENTION, 0, 1024, "%.3f", 0, 0, "contention/run" },
	/* Where lines came from when they were not this node's: the remote
	 * and near causes' evidence, from the contention preset. */
	{ "remote_hitm_per_kib", "remote HITM/KiB",
	  "loads served by a line in another NUMA node's cache (Intel: modified lines, "
	  "remote HITM; AMD: any line) per KiB read",
	  MMP_ROLE_REMOTE_HITM, 0, 1024, "%.3f", 0, 0, "remote HITM/run" },
	{ "remote_fwd_per_kib", "remote fwd/KiB",
	  "loads served by a clean line forwarded from another NUMA node's cache (Intel) per KiB "
	  "read",
	  MMP_ROLE_REMOTE_FWD, 0, 1024, "%.3f", 0, 0, "remote fwd/run" },
	{ "remote_dram_share", "remote DRAM share",
	  "remote / (local + remote): the share of the loads served by DRAM that came from "
	  "another NUMA node's DRAM (empty, not 0, when none reached DRAM)",
	  MMP_ROLE_REMOTE_DRAM, MMP_ROLE_LOCAL_DRAM, 0, "%.2f", 0, 1, NULL },
	{ "cross_ccx_per_kib", "cross-CCX/KiB",
	  "loads served by another L3 domain's cache on the same node (AMD: another CCX) per "
	  "KiB read",
	  MMP_ROLE_CROSS_CCX, 0, 1024, "%.3f", 0, 0, "cross-CCX/run" },
	{ "dtlb_misses_per_kib", "dTLB-miss/KiB",
	  "data TLB load misses (page walks) per KiB read (chase: of the memory chased)",
	  MMP_ROLE_DTLB_MISSES, 0, 1024, "%.3f", 0, 0, "dTLB-miss/run" },
};

const struct mmp_metric *mmp_metrics(size_t *count)
{
	*count = sizeof(table) / sizeof(table[0]);
	return table;
}

const struct mmp_metric *mmp_metric_find(const char *column)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(table[i].column, column) == 0)
			return &table[i];
	return NULL;
}

int mmp_role_sum(const struct mmp_event_set *set, const struct mmp_count *counts, int role,
		 double *out)
{
	int found = 0;
	*out = 0;
	for (size_t i = 0; set && i < set->n; i++) {
		if ((int)set->ev[i].role != role)
			continue;
		if (!mmp_count_valid(&counts[i]))
			return 0; /* one of them was not counted: no sum */
		*out += counts[i].value;
		found = 1;
	}
	return found;
}

int mmp_metric_per_run(const struct mmp_metric *m, struct mmp_metric *out)
{
	if (!(m->per_bytes > 0) || !m->run_head)
		return 0;
	*out = *m;
	out->per_bytes = 0;
	out->head = m->run_head;
	out->format = "%.0f";
	return 1;
}

int mmp_metric_eval(const struct mmp_metric *m, int (*role_value)(int role, double *v, void *arg),
		    void *arg, uint64_t bytes, double *out)
{
	double v, d;
	if (!role_value(m->role, &v, arg))
		return 0;
	if (m->per_role) {
		if (!role_value(m->per_role, &d, arg))
			return 0;
		if (m->share)
			d += v;
		if (d <= 0)
			return 0;
		*out = v / d;
		return 1;
	}
	if (m->per_bytes > 0) {
		if (!bytes)
			return 0;
		*out = v / ((double)bytes / m->per_bytes);
		return 1;
	}
	*out = v;
	return 1;
}

struct rep_roles {
	const struct mmp_event_set *set;
	const struct mmp_count *counts;
};

static int rep_role(int role, double *v, void *arg)
{
	const struct rep_roles *r = arg;
	return mmp_role_sum(r->set, r->counts, role, v);
}

int mmp_metric_of_rep(const struct mmp_metric *m, const struct mmp_event_set *set,
		      const struct mmp_count *counts, uint64_t bytes, double *out)
{
	struct rep_roles r = { set, counts };
	return mmp_metric_eval(m, rep_role, &r, bytes, out);
}
