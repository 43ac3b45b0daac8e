/* The one table of config keys (fio's options.c idea): each row gives the
 * name, type, field, default, limits, allowed values and help, and drives
 * parsing, defaults, validation, --help, --list-keys and the README table.
 * A row names its value's type (struct mmp_key_type): config's own are in
 * config_types.c and config_numbers.c, the others beside what they parse.
 */
#include "config/config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

const char *const mmp_fill_names[] = { "random", "zero", NULL };
const char *const mmp_kernel_names[] = { "zeros", "histogram", NULL };
const char *const mmp_refcount_names[] = { "shared", "once", "private", NULL };
const char *const mmp_tally_names[] = { "atomic", "packed", "padded", "local", "plain",
					"plain-padded", NULL };
const char *const mmp_cache_names[] = { "warm", "drop", "drop-all", NULL };
const char *const mmp_table_names[] = { "runs", "sizes", "both", NULL };
const char *const mmp_order_names[] = { "interleaved", "sequential", NULL };
const char *const mmp_data_names[] = { "pagecache", "anon", NULL };
const char *const mmp_transfer_names[] = { "cas", "store", NULL };
const char *const mmp_jitnames_names[] = { "auto", "yes", "no", NULL };
static const char *const bind_names[] = { "strict", "best-effort", NULL };
const char *const mmp_advice_names[] = { "normal", "sequential", "random", "willneed",
					 "hugepage", NULL };

#define FIELD(f) offsetof(struct mmp_params, f), sizeof(((struct mmp_params *)0)->f)
/* Roles most keys have (config.h says each): a condition a ratio holds
 * fixed, or a part of the access path the jobs of a ratio differ in. */
#define CONDITION_KEY (MMP_ROLE_RUN | MMP_ROLE_COMPARE | MMP_ROLE_CONDITION | MMP_ROLE_LABEL)
#define PATH_KEY (MMP_ROLE_RUN | MMP_ROLE_COMPARE | MMP_ROLE_LABEL)
#define KIB UINT64_C(1024)
#define TIB (KIB * KIB * KIB * KIB)

const struct mmp_key mmp_keys[MMP_KEY_COUNT] = {
	[MMP_KEY_FILE] = {
		.name = "file", .id = MMP_KEY_FILE, .type = &mmp_key_path, FIELD(file),
		.roles = MMP_ROLE_RUN | MMP_ROLE_CONDITION | MMP_ROLE_LABEL | MMP_ROLE_HIDDEN,
		.group = "data",
		.help = "data file; created from size/fill/seed if missing, never "
			"overwritten if mmprof did not create it",
		.default_help = "generated in $MMPROF_DATA or ./data",
	},
	[MMP_KEY_SIZE] = {
		.name = "size", .id = MMP_KEY_SIZE, .type = &mmp_key_size, FIELD(size),
		.min = 1, .max = TIB, .roles = MMP_ROLE_RUN | MMP_ROLE_CONDITION | MMP_ROLE_LABEL,
		.group = "data",
		.help = "bytes of data (512, 4K, 100M, 1G: binary suffixes)",
		.default_help = "size of an existing file",
	},
	[MMP_KEY_FILL] = {
		.name = "fill", .id = MMP_KEY_FILL, .type = &mmp_key_enum, FIELD(fill),
		.def = "random", .values = mmp_fill_names, .roles = CONDITION_KEY,
		.group = "data",
		.help = "content of generated data: random bytes, or all zeros",
	},
	[MMP_KEY_SEED] = {
		.name = "seed", .id = MMP_KEY_SEED, .type = &mmp_key_uint, FIELD(seed),
		.def = "1", .min = 0, .max = UINT64_MAX, .roles = CONDITION_KEY,
		.group = "data",
		.help = "seed of the random fill: same seed, same bytes",
	},
	[MMP_KEY_PROBE] = {
		.name = "probe", .id = MMP_KEY_PROBE, .type = &mmp_key_probe, FIELD(probe),
		.roles = MMP_ROLE_RUN | MMP_ROLE_COMPARE,
		.group = "what runs", .help = "access path to run (see --list-probes)",
		.default_help = "required",
	},
	[MMP_KEY_KERNEL] = {
		.name = "kernel", .id = MMP_KEY_KERNEL, .type = &mmp_key_enum, FIELD(kernel),
		.def = "zeros", .values = mmp_kernel_names, .roles = CONDITION_KEY,
		.group = "what runs",
		.help = "what the probe computes: count zero bytes, or a 256-bin histogram",
	},
	[MMP_KEY_ACCESS] = {
		.name = "access", .id = MMP_KEY_ACCESS, .type = &mmp_key_size, FIELD(access),
		.min = 1, .max = KIB * KIB * KIB,
		.roles = MMP_ROLE_RUN | MMP_ROLE_COMPARE | MMP_ROLE_CONDITION,
		.group = "what runs",
		.help = "bytes per call of the block probes (the last call of a slice is shorter)",
		.default_help = "4K for block probes; byte probes read 1",
	},
	[MMP_KEY_BUFFER] = {
		.name = "buffer", .id = MMP_KEY_BUFFER, .type = &mmp_key_size, FIELD(buffer),
		.def = "4KiB", .min = 1, .max = KIB * KIB * KIB, .roles = PATH_KEY,
		.group = "what runs",
		.help = "bytes each read() asks for, or stdio's buffer (file probes)",
	},
	[MMP_KEY_REFCOUNT] = {
		.name = "refcount", .id = MMP_KEY_REFCOUNT, .type = &mmp_key_enum,
		FIELD(refcount), .def = "shared", .values = mmp_refcount_names,
		.roles = PATH_KEY,
		.group = "what runs",
		.help = "accessor probes: one shared reference count taken per call, taken "
			"once per thread, or a count per thread (private)",
	},
	[MMP_KEY_TALLY] = {
		.name = "tally", .id = MMP_KEY_TALLY, .type = &mmp_key_enum, FIELD(tally),
		.def = "local", .values = mmp_tally_names, .roles = PATH_KEY,
		.group = "what runs",
		.help = "where hits are counted: one shared atomic; per-thread slots packed "
			"or padded to 128 bytes, an atomic add per hit; plain or plain-padded: the "
			"same slots with c[t]++ (a load and a store, no atomic); or a local register",
	},
	[MMP_KEY_OPS] = {
		.name = "ops", .id = MMP_KEY_OPS, .type = &mmp_key_uint, FIELD(ops),
		.min = 2, .max = UINT64_C(1) << 40, .roles = CONDITION_KEY,
		.group = "what runs",
		.help = "operations per repetition of the probes that count them: pingpong's "
			"one-way transfers, chase's loads (each thread's)",
		.default_help = "pingpong 200000, chase 1048576",
	},
	[MMP_KEY_TRANSFER] = {
		.name = "transfer", .id = MMP_KEY_TRANSFER, .type = &mmp_key_enum, FIELD(transfer),
		.def = "cas", .values = mmp_transfer_names, .roles = PATH_KEY,
		.group = "what runs",
		.help = "pingpong: one line compare-and-swapped in turn (cas), or two lines, "
			"each thread storing to its own and reading the other's (store)",
	},
	[MMP_KEY_THREADS] = {
		.name = "threads", .id = MMP_KEY_THREADS, .type = &mmp_key_uint, FIELD(threads),
		.def = "1", .min = 1, .max = 1024,
		.roles = MMP_ROLE_RUN | MMP_ROLE_COMPARE | MMP_ROLE_CONDITION,
		.group = "what runs",
		.help = "threads, each over its own slice (size/threads, the last takes the rest)",
	},
	[MMP_KEY_PLACEMENT] = {
		.name = "placement", .id = MMP_KEY_PLACEMENT, .type = &mmp_key_placement,
		FIELD(placement), .def = "compact", .roles = CONDITION_KEY,
		.group = "where",
		.help = "where threads run (pus:0-3,8 names PUs; numa:* is a job point per NUMA "
			"node; see docs/numa.md)",
	},
	[MMP_KEY_MEMBIND] = {
		.name = "membind", .id = MMP_KEY_MEMBIND, .type = &mmp_key_membind, FIELD(membind),
		.def = "firsttouch", .roles = CONDITION_KEY,
		.group = "where",
		.help = "where the run's memory lives: its shared state, its buffers and (data "
			"= anon) its data: firsttouch (no binding call: where the thread that "
			"touches it first runs), local (each thread's node), node:N (node:* a job "
			"point per node), interleave, interleave:LIST",
	},
	[MMP_KEY_BIND] = {
		.name = "bind", .id = MMP_KEY_BIND, .type = &mmp_key_enum, FIELD(bind),
		.def = "strict", .values = bind_names, .roles = CONDITION_KEY,
		.group = "where",
		.help = "membind that cannot be had (or binding refused, as in containers "
			"without CAP_SYS_NICE): an error at the start (strict), or the kernel's "
			"preference and a note (best-effort)",
	},
	[MMP_KEY_DATA] = {
		.name = "data", .id = MMP_KEY_DATA, .type = &mmp_key_enum, FIELD(data),
		.def = "pagecache", .values = mmp_data_names, .roles = CONDITION_KEY,
		.group = "where",
		.help = "mapping probes read the file's page-cache pages (where the kernel put "
			"them), or a copy in anonymous memory bound as membind says",
	},
	[MMP_KEY_HUGEPAGES] = {
		.name = "hugepages", .id = MMP_KEY_HUGEPAGES, .type = &mmp_key_bool,
		FIELD(hugepages), .def = "no", .roles = CONDITION_KEY,
		.group = "where",
		.help = "data = anon: back the copy with huge pages (reserved ones if there are "
			"enough, else transparent ones; the CSV says how much it got); exec: "
			"MADV_HUGEPAGE on the program's large mappings and malloc'd blocks (the "
			"preload library)",
	},
	[MMP_KEY_PREFAULT] = {
		.name = "prefault", .id = MMP_KEY_PREFAULT, .type = &mmp_key_bool,
		FIELD(prefault), .def = "no", .roles = CONDITION_KEY,
		.group = "how",
		.help = "map the pages in before timing (MAP_POPULATE); exec: on the program's "
			"mappings and malloc'd blocks of 1 MiB and more, through the preload library",
	},
	[MMP_KEY_TOUCH] = {
		.name = "touch", .id = MMP_KEY_TOUCH, .type = &mmp_key_bool,
		FIELD(touch), .def = "no", .roles = CONDITION_KEY,
		.group = "how",
		.help = "map the pages in and read one byte of each before timing: the first "
			"touch of a fresh mapping, which a hypervisor's page tables charge and no "
			"counter of the guest sees, is paid outside the loop; exec: on the "
			"program's mappings and malloc'd blocks, through the preload library",
	},
	[MMP_KEY_ADVICE] = {
		.name = "advice", .id = MMP_KEY_ADVICE, .type = &mmp_key_enum, FIELD(advice),
		.def = "normal", .values = mmp_advice_names, .roles = CONDITION_KEY,
		.group = "how",
		.help = "madvise() on the mapping before timing",
	},
	[MMP_KEY_CACHE] = {
		.name = "cache", .id = MMP_KEY_CACHE, .type = &mmp_key_enum, FIELD(cache),
		.def = "warm", .values = mmp_cache_names, .roles = CONDITION_KEY,
		.group = "how",
		.help = "page cache before each repetition: warm, drop (evict the file's pages), "
			"drop-all (also /proc/sys/vm/drop_caches, root)",
	},
	[MMP_KEY_REPEAT] = {
		.name = "repeat", .id = MMP_KEY_REPEAT, .type = &mmp_key_repeat, FIELD(repeat),
		.def = "5", .min = 1, .max = MMP_MAX_ROUNDS, .flags = MMP_KEY_NO_SWEEP,
		.group = "how",
		.help = "recorded rounds of each run, or auto: rounds are added until every "
			"answer its comparison set asks is decided (at least 5, at most "
			"max_repeat, within max_time)",
	},
	[MMP_KEY_MAX_REPEAT] = {
		.name = "max_repeat", .id = MMP_KEY_MAX_REPEAT, .type = &mmp_key_uint,
		FIELD(max_repeat), .def = "40", .min = 5, .max = MMP_MAX_ROUNDS,
		.flags = MMP_KEY_NO_SWEEP, .group = "how",
		.help = "repeat = auto: the most rounds a comparison set runs",
	},
	[MMP_KEY_MAX_TIME] = {
		.name = "max_time", .id = MMP_KEY_MAX_TIME, .type = &mmp_key_seconds,
		FIELD(max_time), .def = "60s", .min = 1, .max = 7 * 24 * 3600,
		.flags = MMP_KEY_NO_SWEEP, .group = "how",
		.help = "repeat = auto: the time one comparison set may take before its "
			"undecided answers are reported inconclusive",
	},
	[MMP_KEY_WARMUP] = {
		.name = "warmup", .id = MMP_KEY_WARMUP, .type = &mmp_key_uint, FIELD(warmup),
		.def = "1", .min = 0, .max = 1000, .flags = MMP_KEY_NO_SWEEP,
		.group = "how", .help = "repetitions run first and not recorded",
	},
	[MMP_KEY_EVENTS] = {
		.name = "events", .id = MMP_KEY_EVENTS, .type = &mmp_key_events, FIELD(events),
		.def = "basic,faults,sched,syscalls,contention",
		.flags = MMP_KEY_NO_SWEEP | MMP_KEY_LIST_VALUE, .group = "how",
		.help = "what to count (perf names, PMU names, tracepoints, presets) or none",
	},
	[MMP_KEY_CONTROLS] = {
		.name = "controls", .id = MMP_KEY_CONTROLS, .type = &mmp_key_controls,
		FIELD(controls), .def = "none",
		.flags = MMP_KEY_NO_SWEEP | MMP_KEY_LIST_VALUE, .group = "how",
		.help = "variants run beside each job, in the same rounds, to attribute its "
			"time to causes (mmprof --help lists them)",
	},
	[MMP_KEY_COMMAND] = {
		.name = "command", .id = MMP_KEY_COMMAND, .type = &mmp_key_command,
		FIELD(command), .flags = MMP_KEY_NO_SWEEP | MMP_KEY_LIST_VALUE, .group = "exec",
		.help = "probe = exec: the program and its arguments, split like a shell word "
			"list (no shell), {file} {size} {threads} {access} {pus} ... filled in",
		.default_help = "required for exec",
	},
	[MMP_KEY_TIME] = {
		.name = "time", .id = MMP_KEY_TIME, .type = &mmp_key_time, FIELD(time),
		.def = "wall", .flags = MMP_KEY_NO_SWEEP | MMP_KEY_LIST_VALUE, .group = "exec",
		.help = "probe = exec: wall (its exec to its exit), or output:REGEX (the time it "
			"prints: 00:00:01.25, 12.5 ms; start-up and JIT left out)",
	},
	[MMP_KEY_RESULT] = {
		.name = "result", .id = MMP_KEY_RESULT, .type = &mmp_key_capture, FIELD(result),
		.flags = MMP_KEY_NO_SWEEP | MMP_KEY_LIST_VALUE, .group = "exec",
		.help = "probe = exec: output:REGEX, the count it prints, checked against the "
			"data file's reference like a probe's result",
		.default_help = "not checked",
	},
	[MMP_KEY_TIMEOUT] = {
		.name = "timeout", .id = MMP_KEY_TIMEOUT, .type = &mmp_key_seconds, FIELD(timeout),
		.def = "600s", .min = 1, .max = 7 * 24 * 3600, .flags = MMP_KEY_NO_SWEEP,
		.group = "exec",
		.help = "probe = exec: a process still running after this is stopped (SIGTERM, "
			"then SIGKILL) and its run fails",
	},
	[MMP_KEY_PROFILE] = {
		.name = "profile", .id = MMP_KEY_PROFILE, .type = &mmp_key_rate, FIELD(profile),
		.def = "1000", .min = 10, .max = 20000, .flags = MMP_KEY_NO_SWEEP,
		.group = "exec",
		.help = "probe = exec: samples per second of the program's CPU time (call "
			"chains; page faults too with profile_faults), or off (docs/profile.md)",
	},
	[MMP_KEY_PROFILE_FAULTS] = {
		.name = "profile_faults", .id = MMP_KEY_PROFILE_FAULTS, .type = &mmp_key_bool,
		FIELD(profile_faults), .def = "no", .flags = MMP_KEY_NO_SWEEP,
		.group = "exec",
		.help = "probe = exec, profiled: sample one page fault in 64 as well, with the "
			"address it touched (the profile's faults by mapping); off by default, as "
			"the kernel's hook on every fault costs a fault-bound program 5-10% of its "
			"CPU time (make bench; docs/profile.md)",
	},
	[MMP_KEY_LOG_MAX] = {
		.name = "log_max", .id = MMP_KEY_LOG_MAX, .type = &mmp_key_size, FIELD(log_max),
		.def = "1MiB", .min = 4 * KIB, .max = KIB * KIB * KIB, .flags = MMP_KEY_NO_SWEEP,
		.group = "exec",
		.help = "probe = exec: the most of each process's output its log keeps, its "
			"first and last halves, with the bytes left out between them said there "
			"(the result and time are read from all of it)",
	},
	[MMP_KEY_JITNAMES] = {
		.name = "jitnames", .id = MMP_KEY_JITNAMES, .type = &mmp_key_enum, FIELD(jitnames),
		.def = "auto", .values = mmp_jitnames_names, .roles = PATH_KEY,
		.group = "exec",
		.help = "probe = exec: set what runtimes need for the profile to name their JIT "
			"code (.NET: DOTNET_PerfMapEnabled=1; Java: a perf map at exit, or a "
			"perf-map agent when installed); auto: yes when profile is on (the CSV has "
			"what it was; docs/profile.md)",
	},
	[MMP_KEY_ENV] = {
		.name = "env", .id = MMP_KEY_ENV, .type = &mmp_key_env, FIELD(env),
		.flags = MMP_KEY_NO_SWEEP | MMP_KEY_LIST_VALUE, .roles = PATH_KEY,
		.group = "exec",
		.help = "probe = exec: VAR=VALUE, ... set in the program's environment (a comma "
			"in a value as \\,); a job with another env is another run",
		.default_help = "mmprof's own",
	},
	[MMP_KEY_ZIP] = {
		.name = "zip", .id = MMP_KEY_ZIP, .type = &mmp_key_keylist, FIELD(zip),
		.flags = MMP_KEY_NO_SWEEP | MMP_KEY_LIST_VALUE, .group = "job",
		.help = "keys whose lists advance together (probe, access: 1st with 1st) "
			"instead of their product",
		.default_help = "none",
	},
	[MMP_KEY_BASELINE] = {
		.name = "baseline", .id = MMP_KEY_BASELINE, .type = &mmp_key_jobs,
		FIELD(baseline), .flags = MMP_KEY_NO_SWEEP | MMP_KEY_LIST_VALUE, .group = "job",
		.help = "other jobs; prints this job's time as a ratio to each, run by run",
		.default_help = "none",
	},
	[MMP_KEY_FIXES] = {
		.name = "fixes", .id = MMP_KEY_FIXES, .type = &mmp_key_jobs, FIELD(fixes),
		.flags = MMP_KEY_NO_SWEEP, .group = "job",
		.help = "the job this one fixes: answers whether it closes that job's gap "
			"without slowing its multi-byte reads",
		.default_help = "none",
	},
	[MMP_KEY_TOLERANCE] = {
		.name = "tolerance", .id = MMP_KEY_TOLERANCE, .type = &mmp_key_percent,
		FIELD(tolerance), .def = "5%", .min = 0, .max = 100, .flags = MMP_KEY_NO_SWEEP,
		.group = "job",
		.help = "ratios within 1 +- this are the same: no regression, a tie",
	},
	[MMP_KEY_MODEL] = {
		.name = "model", .id = MMP_KEY_MODEL, .type = &mmp_key_jobs, FIELD(model),
		.flags = MMP_KEY_NO_SWEEP | MMP_KEY_LIST_VALUE, .group = "job",
		.help = "jobs that model this one (a C model of a real program): run in the "
			"same rounds, and its ratios to its baselines shown beside theirs",
		.default_help = "none",
	},
	[MMP_KEY_TABLE] = {
		.name = "table", .id = MMP_KEY_TABLE, .type = &mmp_key_enum, FIELD(table),
		.def = "runs", .values = mmp_table_names,
		.flags = MMP_KEY_GLOBAL_ONLY | MMP_KEY_NO_SWEEP, .roles = MMP_ROLE_HIDDEN,
		.group = "config",
		.help = "terminal table: one row per run, or per file size a column per method "
			"(the read/mmap/fread seed's shape), or both",
	},
	[MMP_KEY_CSV] = {
		.name = "csv", .id = MMP_KEY_CSV, .type = &mmp_key_path, FIELD(csv),
		.flags = MMP_KEY_GLOBAL_ONLY | MMP_KEY_NO_SWEEP, .roles = MMP_ROLE_HIDDEN,
		.group = "config",
		.help = "CSV output path, {host} replaced by the host name (--csv overrides)",
		.default_help = "results/CONFIG.csv",
	},
	[MMP_KEY_ORDER] = {
		.name = "order", .id = MMP_KEY_ORDER, .type = &mmp_key_enum, FIELD(order),
		.def = "interleaved", .values = mmp_order_names,
		.flags = MMP_KEY_GLOBAL_ONLY | MMP_KEY_NO_SWEEP, .roles = MMP_ROLE_HIDDEN,
		.group = "config",
		.help = "runs that are compared: in rounds of one repetition each, shuffled "
			"every round (interleaved), or every repetition of one run after another",
	},
	[MMP_KEY_ORDER_SEED] = {
		.name = "order_seed", .id = MMP_KEY_ORDER_SEED, .type = &mmp_key_uint,
		FIELD(order_seed), .min = 1, .max = UINT64_MAX,
		.flags = MMP_KEY_GLOBAL_ONLY | MMP_KEY_NO_SWEEP, .roles = MMP_ROLE_HIDDEN,
		.group = "config",
		.help = "seed of the rounds' shuffled order (recorded in the CSV; set it to "
			"repeat an order)",
		.default_help = "drawn at start",
	},
};

const char *const mmp_key_role_names[MMP_ROLE_COUNT] = {
	"run", "compare", "condition", "label", "hidden",
};

uint64_t mmp_keys_with(unsigned roles)
{
	uint64_t mask = 0;
	for (size_t i = 0; i < MMP_KEY_COUNT; i++)
		if ((mmp_keys[i].roles & roles) == roles)
			mask |= MMP_KEY_BIT(i);
	return mask;
}

const struct mmp_key *mmp_key_find(const char *name)
{
	for (size_t i = 0; i < MMP_KEY_COUNT; i++)
		if (strcmp(mmp_keys[i].name, name) == 0)
			return &mmp_keys[i];
	return NULL;
}

/* key TAB roles: what analysis/keys.tsv holds (scripts/update-docs.sh). */
static void print_roles(FILE *out)
{
	fprintf(out, "key\troles\n");
	for (size_t i = 0; i < MMP_KEY_COUNT; i++) {
		fprintf(out, "%s\t", mmp_keys[i].name);
		int n = 0;
		for (size_t r = 0; r < MMP_ROLE_COUNT; r++)
			if (mmp_keys[i].roles & (1u << r))
				fprintf(out, "%s%s", n++ ? "," : "", mmp_key_role_names[r]);
		fprintf(out, "%s\n", n ? "" : "-");
	}
}

void mmp_keys_print(FILE *out, enum mmp_list_format format)
{
	char limits[160];
	int markdown = format == MMP_LIST_MARKDOWN;

	if (format == MMP_LIST_ROLES) {
		print_roles(out);
		return;
	}

	if (markdown) {
		fprintf(out, "| key | default | values | sweeps | what it sets |\n");
		fprintf(out, "|---|---|---|---|---|\n");
	}
	const char *group = NULL;
	for (size_t i = 0; i < MMP_KEY_COUNT; i++) {
		const struct mmp_key *k = &mmp_keys[i];
		const char *def = k->def ? k->def : k->default_help;
		const char *sweep = (k->flags & MMP_KEY_NO_SWEEP) ? "no" : "yes";
		limits[0] = '\0';
		k->type->limits(k, limits, sizeof(limits));
		if (markdown) {
			fprintf(out, "| `%s` | %s | %s | %s | %s%s |\n", k->name, def, limits,
				sweep, k->help,
				(k->flags & MMP_KEY_GLOBAL_ONLY) ? " ([global] only)" : "");
			continue;
		}
		if (!group || strcmp(group, k->group) != 0) {
			group = k->group;
			fprintf(out, "  %s:\n", group);
		}
		fprintf(out, "    %-10s %s%s\n", k->name, k->help,
			(k->flags & MMP_KEY_GLOBAL_ONLY) ? " ([global] only)" : "");
		fprintf(out, "    %-10s default: %s; values: %s%s\n", "", def, limits,
			(k->flags & MMP_KEY_NO_SWEEP) ? "; no sweep" : "");
	}
}
