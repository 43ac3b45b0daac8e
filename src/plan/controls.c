/* The control table and the ladder built from it (see controls.h). */
#include "plan/controls.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/lists.h"
#include "mmprof/probe.h"
#include "util/suggest.h"

static int uses(const struct mmp_run *run, enum mmp_key_id key)
{
	return (run->applies & MMP_KEY_BIT(key)) != 0;
}

/* Keys a probe reads decide what a rung may change. */
static void set_applies(struct mmp_run *run)
{
	run->applies = ~UINT64_C(0);
	for (size_t k = 0; k < MMP_KEY_COUNT; k++)
		if (!mmp_probe_uses(run->p.probe, (enum mmp_key_id)k))
			run->applies &= ~MMP_KEY_BIT(k);
}

/* A rung reading with another probe: the keys it does not read go back to
 * their defaults, as the config would have them. */
static void swap_probe(struct mmp_run *run, const struct mmp_probe *probe)
{
	run->p.probe = probe;
	run->p.access = 0; /* the probe's own default */
	set_applies(run);
	if (!uses(run, MMP_KEY_TALLY))
		run->p.tally = MMP_TALLY_LOCAL;
}

/* It does not apply, and why: a note when the job named the control
 * (plan.h), so that a list of controls never shrinks silently. */
__attribute__((format(printf, 2, 3))) static int not_here(struct mmp_control_ctx *c,
							  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	return 0;
}

static const char *probe_name(const struct mmp_rung *r)
{
	return r->run.p.probe->name;
}

/* A program's state is its own code's: mmprof can change none of it,
 * only where its threads run. */
static int program(const struct mmp_rung *r)
{
	return mmp_run_kind(&r->run) == MMP_RUN_KIND_PROCESS;
}

static int not_in_program(struct mmp_control_ctx *c)
{
	return not_here(c, "a program's state is its own code's (onepu takes its sharing away "
			   "from outside)");
}

static int replan(struct mmp_rung *r, unsigned threads, struct mmp_control_ctx *c)
{
	r->run.p.threads = threads;
	mmp_pin_plan_free(&r->pins);
	return mmp_topology_plan(c->topo, &r->run.p.placement, threads, &r->pins, c->err) ? -EINVAL
											 : 1;
}

static int apply_fit(struct mmp_rung *r, struct mmp_control_ctx *c)
{
	if (!r->pins.oversubscribed)
		return not_here(c, "%u thread%s on %u PU%s is not oversubscribed", r->pins.nthreads,
				r->pins.nthreads == 1 ? "" : "s", r->pins.npus,
				r->pins.npus == 1 ? "" : "s");
	return replan(r, r->pins.npus, c);
}

/* A probe that maps the file itself, inside the timed region, as the
 * seed's mmap path does: its faults and first touch are what it measures. */
static int maps_itself(struct mmp_rung *r, struct mmp_control_ctx *c)
{
	return not_here(c, "%s maps the file itself in its timed loop: mapping it in and "
			   "touching it are what it measures",
			probe_name(r));
}

static int apply_prefault(struct mmp_rung *r, struct mmp_control_ctx *c)
{
	if (r->run.p.probe->maps)
		return maps_itself(r, c);
	if (!uses(&r->run, MMP_KEY_PREFAULT))
		return not_here(c, "%s maps no data: it takes no page faults in its loop",
				probe_name(r));
	if (r->run.p.prefault)
		return not_here(c, "prefault = yes maps the pages in before timing already");
	if (r->run.p.data == MMP_DATA_ANON && uses(&r->run, MMP_KEY_DATA))
		return not_here(c, "data = anon is a copy filled before timing: no faults to take "
				   "away"); /* the copy is filled before timing */
	r->run.p.prefault = true;
	return 1;
}

/* The first touch of each page of a fresh mapping: every page read once
 * after it is mapped in, before timing.  Below prefault in the ladder, so
 * that what it takes away is what mapping the pages in left behind: on a
 * guest whose hypervisor fills its page tables lazily, ~2 us a page that
 * no counter of the guest sees. */
static int apply_touch(struct mmp_rung *r, struct mmp_control_ctx *c)
{
	struct mmp_params *p = &r->run.p;
	if (p->probe->maps)
		return maps_itself(r, c);
	if (!uses(&r->run, MMP_KEY_TOUCH))
		return not_here(c, "%s maps no data: no page is touched first in its loop",
				probe_name(r));
	if (p->touch)
		return not_here(c, "touch = yes reads every page before timing already");
	if (p->data == MMP_DATA_ANON && uses(&r->run, MMP_KEY_DATA))
		return not_here(c, "data = anon is a copy written before timing: its pages are "
				   "touched already");
	p->touch = true;
	return 1;
}

/* TLB reach: the memory the job reads (a copy, data = anon, or its own)
 * on huge pages, so a page walk covers 2 MiB instead of 4 KiB. */
static int apply_huge(struct mmp_rung *r, struct mmp_control_ctx *c)
{
	struct mmp_params *p = &r->run.p;
	if (!uses(&r->run, MMP_KEY_HUGEPAGES))
		return not_here(c, "%s reads no memory that huge pages could back", probe_name(r));
	if (p->hugepages)
		return not_here(c, "hugepages = yes backs the data with huge pages already");
	/* Page-cache pages are small pages: nothing to back.  A program's own
	 * mappings are advised through the preload library, which reports
	 * what the kernel really gave. */
	if (!(p->probe->needs & MMP_NEEDS_WORK) && !program(r) && p->data != MMP_DATA_ANON)
		return not_here(c, "%s reads the page cache, whose pages are small pages (data = "
				   "anon reads a copy that huge pages can back)",
				probe_name(r));
	p->hugepages = true;
	return 1;
}

/* Memory the run binds: its own (chase), a copy of the data, or shared
 * state its threads write (the reference count, a tally in memory,
 * pingpong's lines).  Page-cache pages stay where the kernel put them. */
static int has_bindable_memory(const struct mmp_run *run)
{
	const struct mmp_params *p = &run->p;
	return (p->probe->needs & MMP_NEEDS_WORK) ||
	       (uses(run, MMP_KEY_DATA) && p->data == MMP_DATA_ANON) || p->probe->setup ||
	       (uses(run, MMP_KEY_TALLY) && p->tally != MMP_TALLY_LOCAL);
}

/* Remote memory: data and shared state bound to the node of the thread
 * that uses it (membind = local) instead of node:N or interleaved, on a
 * machine with more than one node.  firsttouch needs no control: each
 * thread writes its own slice first, and shared state goes to thread 0's
 * node either way. */
static int apply_remote(struct mmp_rung *r, struct mmp_control_ctx *c)
{
	struct mmp_params *p = &r->run.p;
	if (mmp_topology_numa_nodes(c->topo) < 2)
		return not_here(c, "this machine has one NUMA node: no memory is remote");
	if (p->membind.kind != MMP_MEMBIND_NODE && p->membind.kind != MMP_MEMBIND_INTERLEAVE)
		return not_here(c, "membind = %s puts no memory away from its threads (remote "
				   "applies to node:N and interleave)",
				p->membind.spec);
	if (!has_bindable_memory(&r->run))
		return not_here(c, "%s reads the page cache and shares no state: nothing that "
				   "membind places",
				probe_name(r));
	memset(&p->membind, 0, sizeof(p->membind));
	p->membind.kind = MMP_MEMBIND_LOCAL;
	snprintf(p->membind.spec, sizeof(p->membind.spec), "local");
	return 1;
}

/* State the threads write and read from each other: what a cache line
 * carries between them. */
static int shares_lines(const struct mmp_run *run)
{
	const struct mmp_params *p = &run->p;
	return (uses(run, MMP_KEY_REFCOUNT) && p->refcount == MMP_REFCOUNT_SHARED) ||
	       (uses(run, MMP_KEY_TALLY) && p->tally != MMP_TALLY_LOCAL) ||
	       (p->probe->unit && p->probe->threads > 1);
}

/* The keys that decide whether the threads share state, as set: "
 * (refcount = once, tally = local)", or "" when the probe reads none. */
static const char *shared_keys(const struct mmp_run *run, char *buf, size_t len)
{
	int refcount = uses(run, MMP_KEY_REFCOUNT), tally = uses(run, MMP_KEY_TALLY);
	snprintf(buf, len, "%s%s%s%s%s%s%s", refcount || tally ? " (" : "",
		 refcount ? "refcount = " : "", refcount ? mmp_refcount_names[run->p.refcount] : "",
		 refcount && tally ? ", " : "", tally ? "tally = " : "",
		 tally ? mmp_tally_names[run->p.tally] : "", refcount || tally ? ")" : "");
	return buf;
}

/* Cross-domain sharing: the threads packed into the first thread's L3
 * domain (its CCX on AMD), when they span several and fit in one. */
static int apply_near(struct mmp_rung *r, struct mmp_control_ctx *c)
{
	struct mmp_params *p = &r->run.p;
	char spec[32], msg[MMP_ERROR_MSG_MAX], keys[96];
	int l3 = mmp_topology_pu_l3(c->topo, r->pins.pu[0]), spans = 0;

	if (r->pins.nthreads < 2)
		return not_here(c, "one thread shares no cache line");
	if (program(r))
		return not_in_program(c);
	if (!shares_lines(&r->run))
		return not_here(c, "%s%s shares no cache line between its threads", probe_name(r),
				shared_keys(&r->run, keys, sizeof(keys)));
	if (p->placement.kind == MMP_PLACE_PAIRS)
		return not_here(c, "placement = pairs: the pair of PUs is what is measured");
	if (l3 < 0)
		return not_here(c, "this machine names no L3 domain to pack the threads into");
	for (unsigned t = 1; t < r->pins.nthreads; t++)
		spans |= mmp_topology_pu_l3(c->topo, r->pins.pu[t]) != l3;
	if (!spans)
		return not_here(c, "the threads share one L3 domain already");
	struct mmp_placement near;
	struct mmp_pin_plan pins;
	snprintf(spec, sizeof(spec), "l3:%d", l3);
	if (mmp_placement_parse(spec, &near, msg, sizeof(msg)))
		return mmp_error_set(c->err, -EINVAL, "near: %s", msg);
	if (mmp_topology_plan(c->topo, &near, r->pins.nthreads, &pins, c->err))
		return -EINVAL;
	if (pins.oversubscribed) { /* packing would add a cost, not remove one */
		mmp_pin_plan_free(&pins);
		return not_here(c, "%u threads do not fit in one L3 domain without sharing PUs",
				r->pins.nthreads);
	}
	p->placement = near;
	mmp_pin_plan_free(&r->pins);
	r->pins = pins;
	return 1;
}

static int apply_padded(struct mmp_rung *r, struct mmp_control_ctx *c)
{
	if (r->run.p.threads < 2)
		return not_here(c, "one thread has no counters beside another's");
	if (program(r))
		return not_in_program(c);
	if (!uses(&r->run, MMP_KEY_TALLY))
		return not_here(c, "%s keeps no tally", probe_name(r));
	if (r->run.p.tally != MMP_TALLY_PACKED && r->run.p.tally != MMP_TALLY_PLAIN)
		return not_here(c, "%s with tally = %s keeps no per-thread counters side by side "
				   "(padded applies to tally = packed and plain)",
				probe_name(r), mmp_tally_names[r->run.p.tally]);
	r->run.p.tally = r->run.p.tally == MMP_TALLY_PLAIN ? MMP_TALLY_PLAIN_PADDED : MMP_TALLY_PADDED;
	return 1;
}

static int apply_private(struct mmp_rung *r, struct mmp_control_ctx *c)
{
	struct mmp_params *p = &r->run.p;
	int changed = 0;
	char keys[96];
	if (p->threads < 2)
		return not_here(c, "one thread shares nothing");
	if (program(r))
		return not_in_program(c);
	if (uses(&r->run, MMP_KEY_TALLY) && p->tally == MMP_TALLY_ATOMIC) {
		p->tally = MMP_TALLY_PADDED;
		changed = 1;
	}
	if (uses(&r->run, MMP_KEY_REFCOUNT) && p->refcount == MMP_REFCOUNT_SHARED) {
		p->refcount = MMP_REFCOUNT_PRIVATE;
		changed = 1;
	}
	if (!changed)
		return not_here(c, "%s%s has no shared state to make private", probe_name(r),
				shared_keys(&r->run, keys, sizeof(keys)));
	return 1;
}

static int apply_tally(struct mmp_rung *r, struct mmp_control_ctx *c)
{
	if (program(r))
		return not_in_program(c);
	if (!uses(&r->run, MMP_KEY_TALLY))
		return not_here(c, "%s keeps no tally", probe_name(r));
	if (r->run.p.tally == MMP_TALLY_LOCAL)
		return not_here(c, "tally = local counts in a register already");
	r->run.p.tally = MMP_TALLY_LOCAL;
	return 1;
}

/* A program's small reads of regular files served from a buffer of the
 * preload library's, one read() of 128 KiB for thousands of calls: what
 * its calls cost beyond the bytes, since the same bytes reach it at the
 * same offsets.  Below onepu in its ladder: per-call overhead is a
 * thread's own, and onepu compares CPU times better without it. */
static int apply_bulk(struct mmp_rung *r, struct mmp_control_ctx *c)
{
	if (program(r)) {
		if (r->run.p.bulkreads)
			return not_here(c, "its reads are served in bulk already");
		r->run.p.bulkreads = true;
		return 1;
	}
	const char *name = r->run.p.probe->bulk;
	const struct mmp_probe *bulk = name ? mmp_probe_find(name) : NULL;
	if (!bulk)
		return not_here(c, "%s has no bulk path", probe_name(r));
	swap_probe(&r->run, bulk);
	return 1;
}

static int apply_solo(struct mmp_rung *r, struct mmp_control_ctx *c)
{
	unsigned threads = r->run.p.threads;
	int pu = r->pins.pu[0];
	if (threads < 2)
		return not_here(c, "it runs one thread already");
	if (r->run.p.probe->threads) /* pingpong is two threads or nothing */
		return not_here(c, "%s runs %u threads or none", probe_name(r),
				r->run.p.probe->threads);
	/* A program reads what it reads: one thread of it is not the first
	 * thread's slice. */
	if (program(r))
		return not_here(c, "a program's threads are its own: one of them is not a slice "
				   "of the job");
	/* One thread over the first thread's slice, where that thread ran. */
	r->end = (r->end ? r->end : r->run.p.size) / threads;
	r->run.p.threads = 1;
	mmp_pin_plan_free(&r->pins);
	r->pins.pu = malloc(sizeof(int));
	if (!r->pins.pu)
		return mmp_error_set(c->err, -ENOMEM, "out of memory");
	r->pins.pu[0] = pu;
	r->pins.nthreads = r->pins.npus = 1;
	r->pins.oversubscribed = 0;
	return 1;
}

static int apply_limit(struct mmp_rung *r, struct mmp_control_ctx *c)
{
	if (r->run.p.probe->role == MMP_PROBE_CEILING && r->run.p.prefault)
		return not_here(c, "%s is the ceiling itself", probe_name(r));
	/* limit scans the data file: nothing to compare an operation, or a
	 * program that reads none, with */
	if (!mmp_run_reads_file(&r->run.p))
		return not_here(c, "%s reads no data file: nothing for limit's scan to read",
				probe_name(r));
	swap_probe(&r->run, mmp_probe_ceiling());
	/* The ceiling never pays for faults: its pages are mapped in first. */
	r->run.p.prefault = true;
	/* Above one PU, the ladder's times are the job's wall times less the
	 * CPU time one PU removed (attribution.h): the ceiling to hold them
	 * against reads on the job's own PUs. */
	if (mmp_controls_on_cpu(r->run.control))
		return replan(r, r->run.p.threads, c);
	return 1;
}

/* Cross-core sharing in a program: every thread it starts on the first PU
 * of its placement.  Lines its threads write and read then never leave
 * one core's caches; what the program loses on one PU is its parallelism,
 * which is why this rung's evidence is CPU time, not wall time. */
static int apply_onepu(struct mmp_rung *r, struct mmp_control_ctx *c)
{
	if (!program(r))
		return not_here(c, "%s is not a program (onepu is for probe = exec)",
				probe_name(r));
	if (mmp_pin_plan_used(&r->pins) < 2)
		return not_here(c, "the program runs on one PU already");
	for (unsigned t = 1; t < r->pins.nthreads; t++)
		r->pins.pu[t] = r->pins.pu[0];
	r->pins.npus = 1;
	r->pins.oversubscribed = r->pins.nthreads > 1;
	return 1;
}

static void onepu_detail(const struct mmp_run *run, char *buf, size_t len)
{
	(void)run;
	snprintf(buf, len, "true or false; a PMU and perf c2c would tell them apart");
}

static const char *fix_onepu(const char *d)
{
	(void)d;
	return "give what each thread writes cache lines of its own (pad per-thread counters "
	       "128 bytes apart), and take shared counters, locks and reference counts once "
	       "per thread, not per operation";
}

/* Which shared state the private control makes per-thread. */
static void private_detail(const struct mmp_run *run, char *buf, size_t len)
{
	int refcount = uses(run, MMP_KEY_REFCOUNT) && run->p.refcount == MMP_REFCOUNT_SHARED;
	int tally = uses(run, MMP_KEY_TALLY) && run->p.tally == MMP_TALLY_ATOMIC;
	snprintf(buf, len, "%s%s%s", refcount ? "refcount" : "", refcount && tally ? ", " : "",
		 tally ? "atomic tally" : "");
}

/* Which increment a tally in memory makes, in words a reader of the
 * verdict can hold against their code. */
static const char *increment(enum mmp_tally t)
{
	return t == MMP_TALLY_PLAIN || t == MMP_TALLY_PLAIN_PADDED
		       ? "a plain load and store per hit, c[t]++, no atomic"
		       : "an atomic add per hit";
}

static void tally_detail(const struct mmp_run *run, char *buf, size_t len)
{
	snprintf(buf, len, "%s tally, %s", mmp_tally_names[run->p.tally], increment(run->p.tally));
}

static void padded_detail(const struct mmp_run *run, char *buf, size_t len)
{
	snprintf(buf, len, "%s tally, per-thread counters side by side, %s",
		 mmp_tally_names[run->p.tally], increment(run->p.tally));
}

static void near_detail(const struct mmp_run *run, char *buf, size_t len)
{
	snprintf(buf, len, "threads across L3 domains (placement %s)", run->p.placement.spec);
}

static void remote_detail(const struct mmp_run *run, char *buf, size_t len)
{
	snprintf(buf, len, "membind %s", run->p.membind.spec);
}

/* limit's detail on a program, which its fix recognises. */
#define PROGRAM_OWN_WORK "the program's own work"

static void limit_detail(const struct mmp_run *run, char *buf, size_t len)
{
	if (mmp_run_kind(run) == MMP_RUN_KIND_PROCESS)
		snprintf(buf, len, PROGRAM_OWN_WORK ", beyond limit's scan of its bytes");
	else
		snprintf(buf, len, "%s", run->p.probe->loop ? run->p.probe->loop : run->p.probe->name);
}

static const char *fix_fit(const char *d)
{
	(void)d;
	return "use at most as many threads as the placement has PUs";
}

static const char *fix_prefault(const char *d)
{
	(void)d;
	/* A program's faults are as often in its malloc'd buffers (lz4 -d:
	 * 19% of its time, in two 4 MiB blocks) as in its mappings. */
	return "map the pages in before the loop (MAP_POPULATE, prefault; a malloc'd buffer: "
	       "MADV_POPULATE_WRITE, or reuse it) or read them with read()";
}

/* Without prefault below it, touching the pages maps them in too. */
static void touch_detail(const struct mmp_run *below, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!below->p.prefault)
		snprintf(buf, len, "and its page faults: prefault is not below it");
}

static const char *fix_touch(const char *d)
{
	(void)d;
	return "map the data once and reuse the mapping (a first touch is paid once a page a "
	       "mapping), or fewer, larger mappings; huge pages where the platform backs them "
	       "(one first touch a 2 MiB page)";
}

static const char *fix_huge(const char *d)
{
	(void)d;
	return "back the data with huge pages (madvise MADV_HUGEPAGE, or MAP_HUGETLB from "
	       "reserved pages)";
}

static const char *fix_remote(const char *d)
{
	(void)d;
	return "bind each thread's data to its own node (first touch by the thread that reads "
	       "it, or numactl/mbind), or run the threads where the data is";
}

static const char *fix_near(const char *d)
{
	(void)d;
	return "run the threads that share lines inside one L3 domain (one CCX or socket), or "
	       "stop sharing the lines";
}

static const char *fix_padded(const char *d)
{
	(void)d;
	return "pad per-thread counters onto lines of their own (128 bytes apart)";
}

static const char *fix_private(const char *d)
{
	if (strstr(d, "refcount"))
		return "take the reference once per thread or per view, not per call";
	if (strstr(d, "tally"))
		return "count per thread and add up at the end";
	return "a shared reference count: take it once per thread; a shared counter: count "
	       "per thread and add up at the end";
}

static const char *fix_tally(const char *d)
{
	(void)d;
	return "count in a local variable and publish the sum once";
}

static const char *fix_bulk(const char *d)
{
	(void)d;
	return "read in bulk: fewer, larger calls";
}

static const char *fix_solo(const char *d)
{
	(void)d;
	return "use fewer threads: these slow each other down on shared caches and memory "
	       "bandwidth";
}

static const char *fix_limit(const char *d)
{
	/* A program's loop is not mmprof's to rewrite: say where to look. */
	if (d && strncmp(d, PROGRAM_OWN_WORK, strlen(PROGRAM_OWN_WORK)) == 0)
		return "make the program's own work cheaper where its profile puts the CPU time "
		       "(fewer, larger reads; a loop the compiler can vectorise)";
	return "scan the bytes in bulk with a loop the compiler can vectorise";
}

static const struct mmp_evidence_def ev_switches[] = {
	{ "context_switches", "context-switches" },
};
static const struct mmp_evidence_def ev_faults[] = {
	{ "faults_per_mib", "page-faults" },
};
static const struct mmp_evidence_def ev_tlb[] = {
	{ "dtlb_misses_per_kib", "dTLB-load-misses" },
};
static const struct mmp_evidence_def ev_remote[] = {
	{ "remote_dram_share", "remote and local DRAM loads (the contention preset)" },
	{ "remote_hitm_per_kib", "remote HITM (the contention preset)" },
};
static const struct mmp_evidence_def ev_near[] = {
	{ "cross_ccx_per_kib", "cross-CCX fills (the contention preset, AMD)" },
	{ "remote_hitm_per_kib", "remote HITM (the contention preset)" },
	{ "contention_per_kib", "the contention preset (HITM)" },
};
static const struct mmp_evidence_def ev_sharing[] = {
	{ "contention_per_kib", "the contention preset (HITM)" },
	{ "ipc", "cycles, instructions" },
};
static const struct mmp_evidence_def ev_per_call[] = {
	{ "instructions_per_byte", "instructions" },
	{ "syscalls_per_mib", "raw_syscalls:sys_enter" },
};
/* An atomic add per hit: more instructions per byte (and locked ones,
 * which the contention preset counts on Intel); no system call. */
static const struct mmp_evidence_def ev_tally[] = {
	{ "instructions_per_byte", "instructions" },
};
static const struct mmp_evidence_def ev_scaling[] = {
	{ "migrations", "cpu-migrations" },
};
/* The CPU time of every thread of the program: what one PU takes away. */
static const struct mmp_evidence_def ev_cpu[] = {
	{ "cpu_ns", "task-clock" },
};
static const struct mmp_evidence_def ev_loop[] = {
	{ "instructions_per_byte", "instructions" },
};
#define NEV(a) (sizeof(a) / sizeof(a[0]))

/* A program pays for setting its pages up while it is timed (probes map
 * and touch theirs before): huge pages make that 512 times fewer, larger
 * steps, in the kernel's faults or below it in a hypervisor's tables, as
 * well as widening the TLB's reach.  Without dTLB misses counted, the
 * time the rung takes away cannot be given to either. */
static const struct mmp_cause_either huge_either = {
	"page setup (faults or TLB)",
	"fewer, larger page set-ups (faults, or below the kernel) or TLB reach: no dTLB "
	"counter to tell",
};

static const struct mmp_control_info table[] = {
	{
		.bit = MMP_CONTROL_FIT,
		.name = "fit",
		.cause = "oversubscription",
		.changes = "threads = the placement's PUs",
		.applies = "more threads than PUs",
		.apply = apply_fit,
		.fix = fix_fit,
		.evidence = ev_switches,
		.nevidence = NEV(ev_switches),
	},
	{
		.bit = MMP_CONTROL_PREFAULT,
		.name = "prefault",
		.cause = "page faults",
		.changes = "pages mapped in before timing (MAP_POPULATE)",
		.applies = "a mapping probe reading the page cache (not data = anon) without "
			"prefault; a program (exec: MAP_POPULATE on its mappings, "
			"MADV_POPULATE_WRITE on its malloc'd blocks, the preload library)",
		.apply = apply_prefault,
		.fix = fix_prefault,
		.evidence = ev_faults,
		.nevidence = NEV(ev_faults),
	},
	{
		.bit = MMP_CONTROL_TOUCH,
		.name = "touch",
		.cause = "first touch",
		.changes = "every page of the mapping read once after it is mapped in, before "
			"timing (one load a page; exec: after MAP_POPULATE, through the preload "
			"library)",
		.applies = "a mapping probe reading the page cache (not data = anon) without "
			"touch; a program (exec)",
		.apply = apply_touch,
		.detail = touch_detail,
		.fix = fix_touch,
		.evidence = ev_faults,
		.nevidence = NEV(ev_faults),
	},
	{
		.bit = MMP_CONTROL_HUGE,
		.name = "huge",
		.cause = "TLB reach",
		.changes = "the data on huge pages (hugepages = yes)",
		.applies = "data = anon, or chase, without hugepages; a program (exec: "
			"MADV_HUGEPAGE on its large mappings and malloc'd blocks, the preload "
			"library)",
		.apply = apply_huge,
		.fix = fix_huge,
		.evidence = ev_tlb,
		.nevidence = NEV(ev_tlb),
		.either = &huge_either,
	},
	{
		.bit = MMP_CONTROL_REMOTE,
		.name = "remote",
		.cause = "remote memory",
		.changes = "data and shared state bound to each thread's node (membind = local)",
		.applies = "membind = node:N or interleave on 2+ NUMA nodes, memory the run "
			"binds (data = anon, chase, shared state)",
		.apply = apply_remote,
		.detail = remote_detail,
		.fix = fix_remote,
		.evidence = ev_remote,
		.nevidence = NEV(ev_remote),
	},
	{
		.bit = MMP_CONTROL_NEAR,
		.name = "near",
		.cause = "cross-domain sharing",
		.changes = "the threads packed into the first thread's L3 domain (placement = "
			"l3:N)",
		.applies = "threads sharing lines across L3 domains that fit in one",
		.apply = apply_near,
		.detail = near_detail,
		.fix = fix_near,
		.evidence = ev_near,
		.nevidence = NEV(ev_near),
		.sharing = 1,
	},
	{
		.bit = MMP_CONTROL_ONEPU,
		.name = "onepu",
		.cause = "cross-core sharing",
		.changes = "every thread of the program on the first PU of its placement; its "
			"CPU time (task-clock, all threads) is what is compared",
		.applies = "a program (exec) bound to 2+ PUs",
		.apply = apply_onepu,
		.detail = onepu_detail,
		.fix = fix_onepu,
		.evidence = ev_cpu,
		.nevidence = NEV(ev_cpu),
		.sharing = 1,
		.measure = MMP_MEASURE_CPU,
		.merge = MMP_MERGE_NEVER,
		.profile_first = 1,
	},
	{
		.bit = MMP_CONTROL_PADDED,
		.name = "padded",
		.cause = "false sharing",
		.changes = "a packed per-thread tally padded 128 bytes apart (packed -> padded, "
			"plain -> plain-padded)",
		.applies = "tally = packed or plain, 2+ threads",
		.apply = apply_padded,
		.detail = padded_detail,
		.fix = fix_padded,
		.evidence = ev_sharing,
		.nevidence = NEV(ev_sharing),
		.sharing = 1,
	},
	{
		.bit = MMP_CONTROL_PRIVATE,
		.name = "private",
		.cause = "true sharing",
		.changes = "shared state per thread and padded (the refcount word, an atomic "
			"tally)",
		.applies = "refcount = shared or tally = atomic, 2+ threads",
		.apply = apply_private,
		.detail = private_detail,
		.fix = fix_private,
		.evidence = ev_sharing,
		.nevidence = NEV(ev_sharing),
		.sharing = 1,
	},
	{
		.bit = MMP_CONTROL_TALLY,
		.name = "tally",
		.cause = "tally in memory",
		.changes = "hits counted in a register instead of in memory per hit (an atomic "
			"add: Interlocked.Increment; or plain: c[t]++)",
		.applies = "tally = atomic, packed, padded, plain or plain-padded",
		.apply = apply_tally,
		.detail = tally_detail,
		.fix = fix_tally,
		.evidence = ev_tally,
		.nevidence = NEV(ev_tally),
	},
	{
		.bit = MMP_CONTROL_BULK,
		.name = "bulk",
		.cause = "per-call",
		.changes = "the same bytes through the probe's bulk path (4 KiB calls); exec: "
			"its read()s and pread()s under 16 KiB of regular files opened read-only "
			"served from a 128 KiB buffer (the preload library)",
		.applies = "mmap_byte, accessor_byte; a program (exec: below onepu in its ladder)",
		.apply = apply_bulk,
		.fix = fix_bulk,
		.evidence = ev_per_call,
		.nevidence = NEV(ev_per_call),
		.program_below = MMP_CONTROL_ONEPU,
	},
	{
		.bit = MMP_CONTROL_SOLO,
		.name = "solo",
		.cause = "scaling",
		.changes = "one thread over the first thread's slice",
		.applies = "2+ threads (not a program)",
		.apply = apply_solo,
		.fix = fix_solo,
		.evidence = ev_scaling,
		.nevidence = NEV(ev_scaling),
	},
	{
		.bit = MMP_CONTROL_LIMIT,
		.name = "limit",
		.cause = "loop",
		.changes = "the same bytes through limit's vectorised scan, pages mapped in and "
			"touched: what is left is the memory system's",
		.applies = "every job reading the data file but limit itself",
		.apply = apply_limit,
		.detail = limit_detail,
		.fix = fix_limit,
		.evidence = ev_loop,
		.nevidence = NEV(ev_loop),
		.ceiling = "the memory system: limit's vectorised scan of the same bytes",
	},
};
#define NCONTROLS (sizeof(table) / sizeof(table[0]))
_Static_assert(NCONTROLS <= MMP_CONTROLS_MAX, "MMP_CONTROLS_ALL has a bit per control");

const struct mmp_control_info *mmp_controls(size_t *count)
{
	*count = NCONTROLS;
	return table;
}

int mmp_controls_on_cpu(unsigned mask)
{
	for (size_t i = 0; i < NCONTROLS; i++)
		if ((mask & table[i].bit) && table[i].measure == MMP_MEASURE_CPU)
			return 1;
	return 0;
}

int mmp_controls_auto(const struct mmp_params *p)
{
	return p->controls && mmp_list_has(p->controls, "auto");
}

const struct mmp_control_info *mmp_control_by_bit(unsigned bit)
{
	for (size_t i = 0; i < NCONTROLS; i++)
		if (table[i].bit == bit)
			return &table[i];
	return NULL;
}

void mmp_controls_print(FILE *out, int markdown)
{
	if (markdown)
		fprintf(out, "| control | the cause it isolates | what its rung changes | applies when "
			     "| fix, when it is the largest |\n|---|---|---|---|---|\n");
	for (size_t i = 0; i < NCONTROLS; i++) {
		const struct mmp_control_info *c = &table[i];
		if (markdown)
			fprintf(out, "| `%s` | %s | %s | %s | %s |\n", c->name, c->cause, c->changes,
				c->applies, c->fix ? c->fix("") : "-");
		else
			fprintf(out, "    %-10s %s: %s (when: %s)\n", c->name, c->cause, c->changes,
				c->applies);
	}
}

int mmp_controls_names(char *buf, size_t len)
{
	int rc = 0;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < NCONTROLS && !rc; i++)
		rc = mmp_list_addf(buf, len, ", ", "%s", table[i].name);
	return rc;
}

int mmp_controls_parse(const char *text, unsigned *mask, char *err, size_t errlen)
{
	const char *all[NCONTROLS + 2] = { "auto", "none" };
	char name[64];
	int words = 0, alone = 0;

	for (size_t i = 0; i < NCONTROLS; i++)
		all[i + 2] = table[i].name;
	*mask = 0;
	for (const char *p = text; mmp_list_next(&p, name, sizeof(name)); words++) {
		unsigned bit = 0;
		if (strcmp(name, "auto") == 0 || strcmp(name, "none") == 0) {
			alone = 1;
			bit = name[0] == 'a' ? MMP_CONTROLS_ALL : 0;
		} else {
			for (size_t i = 0; i < NCONTROLS; i++)
				if (strcmp(name, table[i].name) == 0)
					bit = table[i].bit;
			if (!bit) {
				const char *hint = mmp_suggest(name, all, NCONTROLS + 2);
				char names[MMP_CONTROLS_NAMES_LEN];
				mmp_controls_names(names, sizeof(names));
				snprintf(err, errlen, "unknown control '%s'%s%s%s (auto, none, or %s)",
					 name, hint ? " (did you mean '" : "", hint ? hint : "",
					 hint ? "'?)" : "", names);
				return -EINVAL;
			}
		}
		*mask |= bit;
	}
	if (!words) {
		snprintf(err, errlen, "controls needs auto, none, or control names");
		return -EINVAL;
	}
	if (alone && words > 1) {
		snprintf(err, errlen, "auto and none stand alone, not in a list of controls");
		return -EINVAL;
	}
	return 0;
}

static int copy_pins(struct mmp_pin_plan *dst, const struct mmp_pin_plan *src)
{
	*dst = *src;
	dst->pu = malloc(sizeof(int) * (src->nthreads ? src->nthreads : 1));
	if (!dst->pu)
		return -ENOMEM;
	memcpy(dst->pu, src->pu, sizeof(int) * src->nthreads);
	return 0;
}

/* The rows in ladder order: the table's, with a program's rows that say
 * program_below moved just below that row. */
static void ladder_order(int is_program, size_t *order)
{
	size_t n = 0;
	for (size_t i = 0; i < NCONTROLS; i++) {
		if (is_program && table[i].program_below)
			continue;
		for (size_t k = 0; is_program && k < NCONTROLS; k++)
			if (table[k].program_below == table[i].bit)
				order[n++] = k;
		order[n++] = i;
	}
}

int mmp_ladder_build(const struct mmp_run *job, const struct mmp_pin_plan *job_pins,
		     const struct mmp_topology *topo, struct mmp_ladder *out,
		     struct mmp_error *err)
{
	unsigned wanted = 0;
	char msg[256];
	struct mmp_control_ctx ctx = { .topo = topo, .err = err };

	memset(out, 0, sizeof(*out));
	if (job->p.controls && mmp_controls_parse(job->p.controls, &wanted, msg, sizeof(msg)))
		return mmp_error_set(err, -EINVAL, "%s", msg);
	/* auto takes the controls that apply; a name is asked for by itself. */
	int named = wanted && !mmp_controls_auto(&job->p);
	out->rung = calloc(NCONTROLS + 1, sizeof(*out->rung));
	if (!out->rung)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	out->rung[0].run = *job;
	if (copy_pins(&out->rung[0].pins, job_pins))
		goto nomem;
	out->n = 1;
	size_t order[NCONTROLS];
	ladder_order(program(&out->rung[0]), order);
	for (size_t o = 0; o < NCONTROLS && wanted; o++) {
		size_t i = order[o];
		if (!(wanted & table[i].bit))
			continue;
		struct mmp_rung *below = &out->rung[out->n - 1], *r = &out->rung[out->n];
		*r = *below;
		if (copy_pins(&r->pins, &below->pins))
			goto nomem;
		r->added = table[i].bit;
		ctx.why[0] = '\0';
		int applied = table[i].apply(r, &ctx);
		if (applied < 0) {
			mmp_pin_plan_free(&r->pins);
			mmp_ladder_free(out);
			return applied;
		}
		if (!applied) {
			mmp_pin_plan_free(&r->pins);
			if (named) {
				struct mmp_unapplied *u = &out->unapplied[out->nunapplied++];
				u->control = &table[i];
				snprintf(u->why, sizeof(u->why), "%s", ctx.why);
			}
			continue;
		}
		r->run.control = below->run.control | table[i].bit;
		size_t len = strlen(r->run.control_name); /* copied from below */
		snprintf(r->run.control_name + len, sizeof(r->run.control_name) - len, "%s%s",
			 len ? "+" : "", table[i].name);
		out->n++;
	}
	/* A ladder of the job alone is no ladder. */
	if (out->n == 1) {
		mmp_pin_plan_free(&out->rung[0].pins);
		out->n = 0;
	}
	return 0;
nomem:
	mmp_ladder_free(out);
	return mmp_error_set(err, -ENOMEM, "out of memory");
}

void mmp_ladder_free(struct mmp_ladder *ladder)
{
	for (size_t i = 0; ladder->rung && i < ladder->n; i++)
		mmp_pin_plan_free(&ladder->rung[i].pins);
	free(ladder->rung);
	memset(ladder, 0, sizeof(*ladder));
}
