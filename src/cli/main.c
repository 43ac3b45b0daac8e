/* mmprof: parse the command line, then config -> job points -> plan ->
 * session -> report.  Exit status: 0 done, 1 a run failed, 2 bad usage or
 * config (nothing run), 3 an answer says regressed and --fail-on-regression
 * was given, 130 interrupted.  mmprof compare is main_compare.c's. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "say.h"
#include "mmprof/hypervisor.h"
#include "mmprof/capture.h"
#include "mmprof/command.h"
#include "mmprof/companions.h"
#include "mmprof/config.h"
#include "mmprof/controls.h"
#include "mmprof/csv.h"
#include "mmprof/exec_child.h"
#include "mmprof/listing.h"
#include "mmprof/meta.h"
#include "mmprof/paths.h"
#include "mmprof/plan.h"
#include "mmprof/plan_report.h"
#include "mmprof/probe.h"
#include "mmprof/report.h"
#include "mmprof/session.h"
#include "mmprof/sweep_data.h"
#include "mmprof/topology.h"
#include "mmprof/units.h"

enum opt_id {
	OPT_CONFIG = 'c',
	OPT_CSV = 'o',
	OPT_REPEAT = 'r',
	OPT_DRY_RUN = 'n',
	OPT_QUIET = 'q',
	OPT_HELP = 'h',
	OPT_VERSION = 'V',
	OPT_TOPOLOGY = 256,
	OPT_LIST_PROBES,
	OPT_LIST_KEYS,
	OPT_LIST_COLUMNS,
	OPT_LIST_CONTROLS,
	OPT_LIST_EVENTS,
	OPT_LIST_CONFIGS,
	OPT_PER_THREAD,
	OPT_FAIL_ON_REGRESSION,
	OPT_TOPOLOGY_FROM,
	OPT_JSON,
	OPT_BRIEF,
	OPT_EXPLAIN,
	/* mmprof exec */
	OPT_X_WARMUP = 300,
	OPT_X_THREADS,
	OPT_X_PLACEMENT,
	OPT_X_ACCESS,
	OPT_X_FILE,
	OPT_X_KERNEL,
	OPT_X_RESULT,
	OPT_X_TIME,
	OPT_X_EVENTS,
	OPT_X_TIMEOUT,
	OPT_X_CONTROLS,
	OPT_X_MEMBIND,
	OPT_X_PROFILE,
	OPT_X_PROFILE_FAULTS,
	OPT_X_LOG_MAX,
	OPT_X_JITNAMES,
	OPT_X_ENV,
	OPT_X_JOB,
};

/* The one table of mmprof's options: getopt_long's list and --help are
 * both made from it. */
static const struct cli_option cli_options[] = {
	{ "config", required_argument, OPT_CONFIG, "FILE",
	  "run every job in FILE (INI); a name without '/' is searched for, as NAME or "
	  "NAME.ini (--list-configs)" },
	{ "csv", required_argument, OPT_CSV, "PATH",
	  "write rows to PATH, {host} replaced by the host name (default: csv key, else "
	  "results/CONFIG.csv)" },
	{ "repeat", required_argument, OPT_REPEAT, "N", "override every job's repeat" },
	{ "dry-run", no_argument, OPT_DRY_RUN, NULL,
	  "check the config and print the expanded plan; run nothing" },
	{ "topology", no_argument, OPT_TOPOLOGY, NULL,
	  "print the machine and each run's planned PUs (no --config: the machine); run nothing" },
	{ "topology-from", required_argument, OPT_TOPOLOGY_FROM, "DESC",
	  "plan for a described machine: synthetic:\"pack:2 core:8 pu:2\" or xml:FILE "
	  "(with --dry-run or --topology; it runs nothing)" },
	{ "per-thread", no_argument, OPT_PER_THREAD, NULL,
	  "also write each thread's time and counts to NAME.threads.csv" },
	{ "json", required_argument, OPT_JSON, "PATH",
	  "also write the whole run as one JSON document to PATH ({host} as in --csv; "
	  "docs/json.md)" },
	{ "brief", no_argument, OPT_BRIEF, NULL,
	  "print only the answers and one line per job point (its largest cause, the fix)" },
	{ "explain", required_argument, OPT_EXPLAIN, "JOB",
	  "print only JOB's causes with every control's step and every figure; "
	  "\"JOB threads=8\" picks among its points (docs/attribution.md)" },
	{ "fail-on-regression", no_argument, OPT_FAIL_ON_REGRESSION, NULL,
	  "exit 3 when an answer says a fix regressed (for CI)" },
	{ "list-probes", no_argument, OPT_LIST_PROBES, NULL, "list the probes" },
	{ "list-events", no_argument, OPT_LIST_EVENTS, NULL,
	  "list presets, and the events this machine can and cannot count" },
	{ "list-configs", no_argument, OPT_LIST_CONFIGS, NULL,
	  "list the configs --config finds by name, and where it looks" },
	{ "list-keys", optional_argument, OPT_LIST_KEYS, "markdown|roles",
	  "list the config keys (as a Markdown table with =markdown; =roles: what "
	  "identifies a run, key by key)" },
	{ "list-columns", optional_argument, OPT_LIST_COLUMNS, "markdown",
	  "list the CSV columns (as a Markdown table with =markdown)" },
	{ "list-controls", optional_argument, OPT_LIST_CONTROLS, "markdown",
	  "list the controls, in ladder order (as a Markdown table with =markdown)" },
	{ "quiet", no_argument, OPT_QUIET, NULL, "no progress, notes or warnings on stderr" },
	{ "version", no_argument, OPT_VERSION, NULL, "print the version" },
	{ "help", no_argument, OPT_HELP, NULL, "this help" },
};
#define NOPTIONS (sizeof(cli_options) / sizeof(cli_options[0]))

/* mmprof exec's options: most set the config key of the one job it runs,
 * so they are checked, defaulted and documented as that key is. */
static const struct exec_option {
	struct cli_option o;
	const char *key; /* the config key it sets; NULL: the option's own */
} exec_options[] = {
	{ { "file", required_argument, OPT_X_FILE, "F",
	  "the data file it reads: {file}, and the reference --result is checked against "
	  "(without it: no {file}, no --result, figures per run)" }, "file" },
	{ { "repeat", required_argument, 'r', "N",
	  "recorded runs of the program (default 5; auto: until decided)" }, "repeat" },
	{ { "warmup", required_argument, OPT_X_WARMUP, "N",
	  "runs first, not recorded (default 1)" }, "warmup" },
	{ { "threads", required_argument, OPT_X_THREADS, "N",
	  "{threads}, and the threads the placement plans PUs for (default 1)" }, "threads" },
	{ { "placement", required_argument, OPT_X_PLACEMENT, "P",
	  "the PUs it is bound to (compact, scatter, pus:0-3, ...; default compact)" }, "placement" },
	{ { "access", required_argument, OPT_X_ACCESS, "N", "{access}: bytes per call" }, "access" },
	{ { "kernel", required_argument, OPT_X_KERNEL, "K",
	  "zeros (default) or histogram: the reference --result is compared with" }, "kernel" },
	{ { "result", required_argument, OPT_X_RESULT, "REGEX",
	  "the count it prints: a POSIX ERE on each line (\\d allowed), its first group" }, "result" },
	{ { "time", required_argument, OPT_X_TIME, "T",
	  "wall (default: exec to exit) or output:REGEX (the time it prints)" }, "time" },
	{ { "events", required_argument, OPT_X_EVENTS, "E",
	  "what to count in it and every thread it starts (see --list-events)" }, "events" },
	{ { "timeout", required_argument, OPT_X_TIMEOUT, "D",
	  "stop a run after D (default 600s): SIGTERM, then SIGKILL" }, "timeout" },
	{ { "controls", required_argument, OPT_X_CONTROLS, "LIST",
	  "auto or a list (onepu, prefault, huge, ...): rungs that each take one cause away "
	  "from outside the program, in the same rounds, and a verdict" }, "controls" },
	{ { "membind", required_argument, OPT_X_MEMBIND, "M",
	  "its memory policy: firsttouch (default), local, node:N, interleave" }, "membind" },
	{ { "profile", required_argument, OPT_X_PROFILE, "HZ",
	  "samples per second of its CPU time (default 1000), or off: where its time "
	  "goes" }, "profile" },
	{ { "profile-faults", required_argument, OPT_X_PROFILE_FAULTS, "yes|no",
	  "sample one page fault in 64 too, with its address: where its faults land (costs a "
	  "fault-bound program 5-10%)" }, "profile_faults" },
	{ { "jitnames", required_argument, OPT_X_JITNAMES, "auto|yes|no",
	  "set what .NET and Java need for the profile to name their JIT code (auto: yes "
	  "when profiled; docs/profile.md)" }, "jitnames" },
	{ { "env", required_argument, OPT_X_ENV, "VAR=VALUE",
	  "set VAR in its environment (again for more; a run of its own)" }, "env" },
	{ { "log-max", required_argument, OPT_X_LOG_MAX, "SIZE",
	  "the most of each run's output its log keeps, first and last halves (default 1MiB)" }, "log_max" },
	{ { "job", required_argument, OPT_X_JOB, "NAME",
	  "its name in the table and the CSV (default: the program's)" }, NULL },
	{ { "csv", required_argument, OPT_CSV, "PATH",
	  "write rows to PATH (default results/exec-JOB.csv, the previous one kept as "
	  "results/exec-JOB.old.csv; logs in results/exec-JOB.logs/)" }, NULL },
	/* What exec's own output recommends (the verdict's "--explain JOB",
	 * the PMU note's "--list-events") works on the command that printed
	 * it: exec's, not only mmprof --config's. */
	{ { "explain", required_argument, OPT_EXPLAIN, "JOB",
	  "print only JOB's causes (JOB: the --job name, else the program's) with every "
	  "control's step and every figure" }, NULL },
	{ { "brief", no_argument, OPT_BRIEF, NULL,
	  "print only one line per job point: its largest cause, the fix" }, NULL },
	{ { "list-events", no_argument, OPT_LIST_EVENTS, NULL,
	  "list presets, and the events this machine can and cannot count" }, NULL },
	{ { "dry-run", no_argument, OPT_DRY_RUN, NULL, "print the plan; run nothing" }, NULL },
	{ { "quiet", no_argument, OPT_QUIET, NULL, "no progress, notes or warnings on stderr" }, NULL },
	{ { "help", no_argument, OPT_HELP, NULL, "this help" }, NULL },
};
#define NEXEC_OPTIONS (sizeof(exec_options) / sizeof(exec_options[0]))

/* The exec options as the command line's option table has them. */
static void exec_option_table(struct cli_option *table)
{
	for (size_t i = 0; i < NEXEC_OPTIONS; i++)
		table[i] = exec_options[i].o;
}

struct cli {
	const char *config;
	const char *csv;
	const char *topology_from;
	const char *json;
	const char *explain; /* --explain JOB: only its causes, in full */
	unsigned long repeat; /* 0: as configured */
	int dry_run, topology, quiet, per_thread, fail_on_regression, brief;
};

static volatile sig_atomic_t stop_requested;
/* The run's CSV while it is being written: a second Ctrl-C renames its
 * temporary into place before leaving, so the rows measured stay. */
static struct mmp_session_out *volatile running;

static void on_sigint(int sig)
{
	static const char msg[] = "\nmmprof: stopping after the current repetition "
				  "(Ctrl-C again to abandon it)\n";
	(void)sig;
	if (stop_requested) {
		static char said[4 * 4096 + 512];
		struct mmp_session_out *so = running;
		/* A program of the exec probe must not outlive us. */
		mmp_exec_child_kill_running();
		/* One run's set, said: the CSV with its events and threads
		 * (rows already written are flushed), and none of an earlier
		 * run's companions beside it. */
		if (so && so->csv.f) {
			const struct mmp_outfile *open[] = { &so->csv.out, &so->csv.events,
							     &so->csv.threads };
			mmp_outset_rescue(so->csv.out.set, open, 3, so->csv.rows, said,
					  sizeof(said));
			ssize_t w = write(STDERR_FILENO, said, strlen(said));
			(void)w;
		}
		_exit(EXIT_INTERRUPTED);
	}
	stop_requested = 1;
	ssize_t ignored = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)ignored;
}

/* What mmprof exec takes: in --help and in mmprof exec --help. */
static void exec_help(FILE *out)
{
	fprintf(out, "Runs CMD once per repetition, bound to the placement's PUs, counting it and\n"
		     "every thread it starts, and reports it as a config's job (probe = exec).\n"
		     "In CMD, these placeholders are filled in ({{ and }} are literal braces):\n");
	mmp_command_print_placeholders(out);
	fprintf(out, "\nexec options:\n");
	struct cli_option table[NEXEC_OPTIONS];
	exec_option_table(table);
	mmp_cli_print_options(out, table, NEXEC_OPTIONS);
	fprintf(out, "\nexample: mmprof exec -r 5 --placement compact --result 'Found (\\d+) zero' "
		     "\\\n           --file data/X.bin -- dotnet build/repro/dotnet/MMapTest.dll "
		     "{file} 1 1\n"
		     "(docs/exec.md: keys, timing, counters, logs, failures)\n");
}

static void exec_usage(FILE *out)
{
	fprintf(out, "usage: mmprof exec [options] -- CMD ARGS...\n\n");
	exec_help(out);
}

static void usage(FILE *out)
{
	fprintf(out, "usage: mmprof --config FILE [options]\n"
		     "       mmprof compare A.csv B.csv [options]   (mmprof compare --help)\n"
		     "       mmprof exec [options] -- CMD ARGS...\n\n"
		     "Runs memory and file access patterns (probes) on pinned threads and\n"
		     "reports how fast each was, checked against a reference result.\n\n"
		     "options:\n");
	mmp_cli_print_options(out, cli_options, NOPTIONS);
	fprintf(out, "\nmmprof exec [options] -- CMD ARGS...: a real program as one job.\n");
	exec_help(out);
	fprintf(out, "\nconfig keys ([global] sets defaults for every job section; a comma list\n"
		     "runs once per value, several lists run their product):\n");
	mmp_keys_print(out, MMP_LIST_TEXT);
	fprintf(out, "\ncontrols (controls = auto runs every one that applies, in this order;\n"
		     "each rung adds its control to the ones above it):\n");
	mmp_controls_print(out, 0);
	fprintf(out, "\nexit status: 0 done, 1 a run failed or a result was wrong, 2 bad usage\n"
		     "or config (nothing run), 3 an answer says regressed and\n"
		     "--fail-on-regression was given, 130 interrupted (measured rows are kept).\n"
		     "environment: MMPROF_DATA sets the data directory (default ./data).\n");
}

static void list_probes(void)
{
	size_t n;
	const struct mmp_probe *const *all = mmp_probe_all(&n);
	for (size_t i = 0; i < n; i++)
		printf("%-16s %s\n", all[i]->name, all[i]->summary);
}

static void print_config(const char *name, const char *path, void *arg)
{
	(void)arg;
	printf("  %-20s %s\n", name, path);
}

/* The search path, then the configs it offers by name. */
static int list_configs(void)
{
	struct mmp_config_search sp;
	if (mmp_config_search_path(&sp)) {
		fprintf(stderr, "mmprof: error: out of memory\n");
		return EXIT_RUN_FAILED;
	}
	printf("search path (--config NAME: NAME, then NAME.ini, in each):\n");
	for (size_t i = 0; i < sp.n; i++) {
		struct stat st;
		int there = stat(sp.dir[i], &st) == 0 && S_ISDIR(st.st_mode);
		printf("  %-40s %s%s\n", sp.dir[i], sp.why[i], there ? "" : " (not there)");
	}
	printf("\nconfigs by name:\n");
	int rc = mmp_config_list(&sp, print_config, NULL);
	mmp_config_search_free(&sp);
	if (rc) {
		fprintf(stderr, "mmprof: error: out of memory\n");
		return EXIT_RUN_FAILED;
	}
	return EXIT_DONE;
}

/* --config NAME on the search path (a path as written): cli->config
 * becomes the file to read, in buf.  Returns -1 to go on, or the exit
 * status. */
static int find_config(struct cli *cli, char *buf, size_t len)
{
	struct mmp_config_search sp;
	struct mmp_error err = { 0 };
	int rc = mmp_config_search_path(&sp);
	if (rc) {
		fprintf(stderr, "mmprof: error: out of memory\n");
		return EXIT_RUN_FAILED;
	}
	rc = mmp_config_find(&sp, cli->config, buf, len, &err);
	mmp_config_search_free(&sp);
	if (rc) {
		fprintf(stderr, "mmprof: %s\n", err.msg);
		return EXIT_USAGE;
	}
	cli->config = buf;
	return -1;
}

/* --topology without a config: the machine alone (or the one described). */
/* Which platform this is, where the machine is this one: a described
 * machine has no hypervisor of its own to name. */
static void print_platform(const struct mmp_topology *topo, const char *then)
{
	struct mmp_platform p;
	if (mmp_topology_is_described(topo))
		return;
	mmp_platform_identify(&p);
	printf("platform: %s%s\n", p.name, then);
}

static int machine_only(const char *desc)
{
	struct mmp_topology *topo;
	struct mmp_error err = { 0 };
	if (mmp_topology_load(&topo, desc, &err)) {
		fprintf(stderr, "mmprof: %s\n", err.msg);
		return desc ? EXIT_USAGE : EXIT_RUN_FAILED;
	}
	mmp_topology_print(topo, stdout);
	print_platform(topo, "");
	mmp_topology_free(topo);
	return EXIT_DONE;
}

/* Returns -1 to go on, or the exit status. */
static int parse_cli(int argc, char **argv, struct cli *cli)
{
	struct option longopts[NOPTIONS + 1];
	char shortopts[2 * NOPTIONS + 1];

	mmp_cli_getopt_lists(cli_options, NOPTIONS, longopts, shortopts);

	memset(cli, 0, sizeof(*cli));
	opterr = 0;
	for (;;) {
		int c = getopt_long(argc, argv, shortopts, longopts, NULL);
		if (c == -1)
			break;
		switch (c) {
		case OPT_CONFIG:
			cli->config = optarg;
			break;
		case OPT_CSV:
			cli->csv = optarg;
			break;
		case OPT_REPEAT: {
			uint64_t v;
			if (mmp_parse_u64(optarg, &v) || v < 1 || v > 100000) {
				fprintf(stderr, "mmprof: --repeat takes a count from 1 to 100000, "
						"not '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			cli->repeat = (unsigned long)v;
			break;
		}
		case OPT_DRY_RUN:
			cli->dry_run = 1;
			break;
		case OPT_TOPOLOGY:
			cli->topology = 1;
			break;
		case OPT_TOPOLOGY_FROM:
			cli->topology_from = optarg;
			break;
		case OPT_QUIET:
			cli->quiet = 1;
			break;
		case OPT_PER_THREAD:
			cli->per_thread = 1;
			break;
		case OPT_FAIL_ON_REGRESSION:
			cli->fail_on_regression = 1;
			break;
		case OPT_LIST_PROBES:
			list_probes();
			return EXIT_DONE;
		case OPT_LIST_EVENTS: {
			struct mmp_error err = { 0 };
			if (!mmp_list_events(stdout, &err))
				return EXIT_DONE;
			fprintf(stderr, "mmprof: %s\n", err.msg);
			return EXIT_RUN_FAILED;
		}
		case OPT_LIST_CONFIGS:
			return list_configs();
		case OPT_LIST_KEYS:
		case OPT_LIST_COLUMNS:
		case OPT_LIST_CONTROLS: {
			int md = optarg && strcmp(optarg, "markdown") == 0;
			int roles = c == OPT_LIST_KEYS && optarg && strcmp(optarg, "roles") == 0;
			if (optarg && !md && !roles) {
				fprintf(stderr, "mmprof: --%s takes =markdown%s or nothing\n",
					c == OPT_LIST_KEYS	  ? "list-keys"
					: c == OPT_LIST_COLUMNS ? "list-columns"
								: "list-controls",
					c == OPT_LIST_KEYS ? ", =roles" : "");
				return EXIT_USAGE;
			}
			if (c == OPT_LIST_KEYS) {
				mmp_keys_print(stdout, roles ? MMP_LIST_ROLES
						       : md  ? MMP_LIST_MARKDOWN
							     : MMP_LIST_TEXT);
			} else if (c == OPT_LIST_CONTROLS) {
				mmp_controls_print(stdout, md);
			} else {
				mmp_csv_print_columns(stdout, md);
				mmp_companions_print_columns(stdout, md);
			}
			return EXIT_DONE;
		}
		case OPT_VERSION:
			printf("mmprof %s\n", MMPROF_VERSION);
			return EXIT_DONE;
		case OPT_HELP:
			usage(stdout);
			return EXIT_DONE;
		case OPT_JSON:
			cli->json = optarg;
			break;
		case OPT_BRIEF:
			cli->brief = 1;
			break;
		case OPT_EXPLAIN:
			cli->explain = optarg;
			break;
		default:
			return mmp_cli_bad_option("mmprof", argv, shortopts);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "mmprof: unexpected argument '%s' (the config goes after --config)\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	if (!cli->config && cli->topology)
		return machine_only(cli->topology_from);
	if (!cli->config) {
		fprintf(stderr, "mmprof: no config: mmprof --config FILE (try 'mmprof --help')\n");
		return EXIT_USAGE;
	}
	return -1;
}

/* The job's name from the program's: letters, digits, _ - . as a job
 * name must be. */
static void job_name(const char *program, char *buf, size_t len)
{
	const char *base = strrchr(program, '/');
	size_t n = 0;
	for (const char *p = base ? base + 1 : program; *p && n + 1 < len; p++)
		buf[n++] = isalnum((unsigned char)*p) || strchr("_-.", *p) ? *p : '_';
	buf[n] = '\0';
	if (!n)
		snprintf(buf, len, "exec");
}

/* mmprof exec [options] -- CMD ARGS...: the one-job config it stands for,
 * built in memory; each key's diagnostics name the argument's position
 * ("mmprof exec:3: [dotnet] ...").  Returns -1 to go on (cfg filled), or
 * the exit status. */
static int parse_exec_cli(int argc, char **argv, struct cli *cli, struct mmp_config *cfg)
{
	struct option longopts[NEXEC_OPTIONS + 1];
	char shortopts[2 * NEXEC_OPTIONS + 2] = "+"; /* stop at CMD: its options are its own */
	struct cli_option table[NEXEC_OPTIONS];
	const char *value[NEXEC_OPTIONS] = { NULL };
	int where[NEXEC_OPTIONS] = { 0 };
	const char *job = NULL;
	char name[64], command[8192], result[4096], env[8192] = "";
	size_t envlen = 0;

	exec_option_table(table);
	mmp_cli_getopt_lists(table, NEXEC_OPTIONS, longopts, shortopts + 1);
	memset(cli, 0, sizeof(*cli));
	opterr = 0;
	optind = 1;
	for (;;) {
		int c = getopt_long(argc, argv, shortopts, longopts, NULL);
		size_t i = 0;
		if (c == -1)
			break;
		while (i < NEXEC_OPTIONS && exec_options[i].o.id != c)
			i++;
		if (c == '?' || c == ':' || i == NEXEC_OPTIONS) {
			fprintf(stderr, "mmprof exec: %s: unknown option or missing value\n",
				argv[optind - 1]);
			fprintf(stderr, "try 'mmprof exec --help'\n");
			return EXIT_USAGE;
		}
		if (c == OPT_X_ENV) {
			/* --env A=1 --env B=2 is env = A=1, B=2: a comma of a
			 * value stays one (\\,). */
			if (envlen)
				envlen += (size_t)snprintf(env + envlen, envlen < sizeof(env) ?
						sizeof(env) - envlen : 0, ", ");
			for (const char *s = optarg; *s && envlen + 2 < sizeof(env); s++) {
				if (*s == ',')
					env[envlen++] = '\\';
				env[envlen++] = *s;
			}
			if (envlen + 2 >= sizeof(env)) {
				fprintf(stderr, "mmprof exec: --env: more than %zu bytes\n",
					sizeof(env) - 2);
				return EXIT_USAGE;
			}
			env[envlen] = '\0';
			if (!value[i])
				where[i] = optind - 1 + 1;
			value[i] = env;
			continue;
		}
		if (exec_options[i].key) {
			value[i] = optarg;
			where[i] = optind - 1 + 1; /* the option's place on mmprof's line */
			continue;
		}
		switch (c) {
		case OPT_X_JOB:
			job = optarg;
			break;
		case OPT_CSV:
			cli->csv = optarg;
			break;
		case OPT_DRY_RUN:
			cli->dry_run = 1;
			break;
		case OPT_QUIET:
			cli->quiet = 1;
			break;
		case OPT_EXPLAIN:
			cli->explain = optarg;
			break;
		case OPT_BRIEF:
			cli->brief = 1;
			break;
		case OPT_LIST_EVENTS: {
			struct mmp_error err = { 0 };
			if (!mmp_list_events(stdout, &err))
				return EXIT_DONE;
			fprintf(stderr, "mmprof: %s\n", err.msg);
			return EXIT_RUN_FAILED;
		}
		case OPT_HELP:
			exec_usage(stdout);
			return EXIT_DONE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "mmprof exec: no command: mmprof exec [options] -- CMD ARGS... "
				"(try 'mmprof exec --help')\n");
		return EXIT_USAGE;
	}
	if (mmp_command_quote(argv + optind, (size_t)(argc - optind), command, sizeof(command))) {
		fprintf(stderr, "mmprof exec: the command is longer than %zu bytes\n",
			sizeof(command));
		return EXIT_USAGE;
	}
	/* Checked here, with the option's name: as a section of the config
	 * built below, '' made errors about that config's own lines. */
	if (job && (!mmp_config_job_name_ok(job) || strlen(job) >= sizeof(name))) {
		fprintf(stderr, "mmprof exec: --job '%s': a job name is 1 to %zu letters, digits, "
				"'_', '-' or '.'\n",
			job, sizeof(name) - 1);
		return EXIT_USAGE;
	}
	if (job)
		snprintf(name, sizeof(name), "%s", job);
	else
		job_name(argv[optind], name, sizeof(name));

	int rc = mmp_config_init(cfg, "mmprof exec");
	if (!rc)
		rc = mmp_config_set(cfg, name, "probe", "exec", 1);
	if (!rc)
		rc = mmp_config_set(cfg, name, "command", command, optind + 1);
	for (size_t i = 0; !rc && i < NEXEC_OPTIONS; i++) {
		const char *v = value[i];
		if (!v)
			continue;
		/* --result 'Found (\d+) zero': the key's output: is implied. */
		if (exec_options[i].o.id == OPT_X_RESULT &&
		    strncmp(v, MMP_CAPTURE_PREFIX, strlen(MMP_CAPTURE_PREFIX)) != 0) {
			snprintf(result, sizeof(result), "%s%s", MMP_CAPTURE_PREFIX, v);
			v = result;
		}
		rc = mmp_config_set(cfg, name, exec_options[i].key, v, where[i]);
	}
	if (rc) {
		fprintf(stderr, "mmprof: error: out of memory\n");
		mmp_config_free(cfg);
		return EXIT_RUN_FAILED;
	}
	return -1;
}

static int print_diags(struct mmp_config *cfg)
{
	char line[1400];
	mmp_config_sort_diags(cfg);
	for (size_t i = 0; i < cfg->ndiags; i++)
		fprintf(stderr, "%s\n", cfg->diags[i]);
	fprintf(stderr, "mmprof: %s\n", mmp_config_summary(cfg, line, sizeof(line)));
	return EXIT_USAGE;
}

/* What the plan left out of what the config asks for, with the line that
 * asks (plan.h), before anything runs: a control that applies to none of
 * a job's points (for one reason or several), so that naming it changed
 * nothing.  One that applies at some points only (one thread of a sweep
 * over threads) is --dry-run's to list, beside each point's rungs. */
static void tell_plan_notes(const struct mmp_plan *plan, const struct mmp_config *cfg,
			    const struct mmp_observer *obs)
{
	char where[600];
	for (size_t i = 0; i < plan->nnotes; i++) {
		const struct mmp_plan_note *n = &plan->notes[i];
		if (!n->nowhere)
			continue;
		mmp_observer_tell(obs, &(struct mmp_told){
			.what = MMP_TELL_CONTROL_UNAPPLIED,
			.unapplied = { .where = mmp_config_where(cfg, n->line, n->section, where,
								 sizeof(where)),
				       .control = n->control, .job = n->job, .why = n->why,
				       .points = n->points, .of = n->of } });
	}
}

static void print_topology(const struct mmp_topology *topo, const struct mmp_plan *plan)
{
	char where[4096], label[320], place[MMP_PLACEMENT_SPEC_MAX];
	mmp_topology_print(topo, stdout);
	print_platform(topo, "");
	printf("\nplacements (each run's threads: PU, NUMA node, L3 domain):\n");
	for (size_t i = 0; i < plan->nruns; i++) {
		const struct mmp_planned *r = &plan->runs[i];
		printf("run %zu %s placement=%s%s\n    %s\n", i + 1,
		       mmp_planned_label(r, label, sizeof(label)),
		       mmp_planned_format(r, MMP_KEY_PLACEMENT, place, sizeof(place)),
		       r->pins.oversubscribed ? " (oversubscribed)" : "",
		       mmp_topology_format_placement(topo, &r->pins, where, sizeof(where)));
	}
}

/* NAME.csv's path (and --json's) with {host} filled in: --csv's, the csv
 * key's, or results/NAME.csv (name: the config, or "exec").  Returns -1 to
 * go on, or the exit status:
 * a bad placeholder is a usage error, said with the file and line of a
 * csv key. */
static int result_paths(struct cli *cli, struct mmp_config *cfg, const struct mmp_sweep *sweep,
			const char *name, char csv_path[4096], char json_path[4096])
{
	struct mmp_error err = { 0 };
	char host[256];
	const char *key = sweep->nruns ? sweep->runs[0].p.csv : NULL;

	mmp_meta_short_host(host, sizeof(host));
	if (!cli->csv && !key) {
		mmp_default_csv_path(name, csv_path, 4096);
	} else if (mmp_path_fill(cli->csv ? cli->csv : key, host, csv_path, 4096, &err)) {
		if (!cli->csv) {
			mmp_config_diag(cfg, cfg->global.set[MMP_KEY_CSV].line, "global", "csv: %s",
					err.msg);
			return print_diags(cfg);
		}
		fprintf(stderr, "mmprof: --csv %s: %s\n", cli->csv, err.msg);
		return EXIT_USAGE;
	}
	if (cli->json) {
		if (mmp_path_fill(cli->json, host, json_path, 4096, &err)) {
			fprintf(stderr, "mmprof: --json %s: %s\n", cli->json, err.msg);
			return EXIT_USAGE;
		}
		cli->json = json_path;
	}
	return -1;
}

/* --explain JOB names a job of the config (mmprof exec's one job): said
 * before anything runs. */
static int check_explain(const struct cli *cli, const struct mmp_config *cfg, int exec)
{
	char job[160];
	size_t n = strcspn(cli->explain, " ");
	snprintf(job, sizeof(job), "%.*s", (int)n, cli->explain);
	for (size_t i = 0; i < cfg->njobs; i++)
		if (strcmp(cfg->jobs[i].name, job) == 0)
			return -1;
	if (exec && cfg->njobs == 1) {
		fprintf(stderr, "mmprof exec: --explain %s: the job is [%s] (the program's name, "
				"or --job's)\n",
			cli->explain, cfg->jobs[0].name);
		return EXIT_USAGE;
	}
	fprintf(stderr, "mmprof: --explain %s: %s has no job [%s]; its jobs:", cli->explain,
		cfg->path, job);
	for (size_t i = 0; i < cfg->njobs; i++)
		fprintf(stderr, " %s", cfg->jobs[i].name);
	fprintf(stderr, "\n");
	return EXIT_USAGE;
}

/* The report, from the results the session computed: --explain's job
 * points alone, --brief's lines and answers, or everything. */
static void report(const struct cli *cli, const struct mmp_session_out *so,
		   enum mmp_table table, const struct mmp_topology *topo)
{
	const struct mmp_results *res = &so->res;
	const struct mmp_analysis *an = &so->an;
	if (cli->explain) {
		if (!mmp_report_explain(stdout, an, cli->explain))
			fprintf(stderr, "mmprof: --explain %s: no job point of it was split into "
					"causes (it needs controls and every step measured)\n",
				cli->explain);
		return;
	}
	if (cli->brief) {
		mmp_report_brief(stdout, an);
		return;
	}
	mmp_report_machine(stdout, &so->meta);
	if (table != MMP_TABLE_SIZES)
		mmp_report_table(stdout, res);
	if (table != MMP_TABLE_SIZES)
		mmp_report_pus(stdout, res);
	if (table != MMP_TABLE_RUNS)
		mmp_report_sizes(stdout, an);
	mmp_report_matrices(stdout, res, topo);
	mmp_report_ratios(stdout, an);
	mmp_report_models(stdout, an);
	mmp_report_metrics(stdout, res);
	mmp_report_profiles(stdout, res);
	mmp_report_verdicts(stdout, an);
}

/* NAME.csv was not written by this run: say what is there instead. */
static void not_written(const struct mmp_session *s, const struct mmp_session_out *so,
			const char *lead)
{
	struct stat st;
	int earlier = stat(s->files->target, &st) == 0 && S_ISREG(st.st_mode);
	const char *there = s->files->special ? "nothing went to it"
			    : earlier	      ? "an earlier run's file stays there as it was"
					      : "there is no such file";
	if (so->rows)
		fprintf(stderr, "mmprof: %s the %lu row(s) measured could not be kept: %s was "
				"not written (%s)\n",
			lead, so->rows, s->files->path, there);
	else
		fprintf(stderr, "mmprof: %s no row was measured: %s was not written (%s)\n", lead,
			s->files->path, there);
	/* The logs go with the rows (logdir.h): an earlier run's stay with
	 * its file; this run's are where its messages said. */
	if (so->logs_path[0] && !s->files->special)
		fprintf(stderr, "mmprof: this run's program logs are in %s%s\n", so->logs_path,
			earlier ? " (the earlier file's rows name its own, which stay)" : "");
}

static void summary(const struct mmp_session *s, const struct mmp_session_out *so, int quiet)
{
	const struct mmp_answers *a = &so->an.answers;
	size_t yes = 0, no = 0, open = 0;
	for (size_t i = 0; i < a->n; i++) {
		yes += a->a[i].outcome == MMP_OUTCOME_YES;
		no += a->a[i].outcome == MMP_OUTCOME_NO;
		open += a->a[i].outcome == MMP_OUTCOME_INCONCLUSIVE;
	}
	if (so->interrupted || so->changed) {
		const char *lead = so->interrupted ? "interrupted:" : "stopped: a data file changed;";
		if (so->wrote_csv)
			fprintf(stderr, "mmprof: %s the %lu row(s) measured %s are in %s%s%s\n", lead,
				so->rows, so->interrupted ? "so far" : "before", s->files->path,
				so->wrote_json ? " and " : "", so->wrote_json ? so->json_path : "");
		else
			not_written(s, so, lead);
		return;
	}
	if (quiet)
		return;
	if (!so->wrote_csv) {
		char lead[64];
		snprintf(lead, sizeof(lead), "%zu run(s) in %.1f s,", s->plan->nruns, so->seconds);
		not_written(s, so, lead);
		return;
	}
	/* One line, wrapped at MMP_LINE_MAX: the files' paths alone can be
	 * longer. */
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);
	if (!f)
		f = stderr;
	fprintf(f, "mmprof: %zu run(s), %lu row(s) in %s", s->plan->nruns, so->rows,
		s->files->path);
	if (so->wrote_attribution)
		fprintf(f, ", %s", so->attribution_path);
	if (so->wrote_answers)
		fprintf(f, ", %s", so->answers_path);
	if (so->wrote_profile)
		fprintf(f, ", %s", so->profile_path);
	if (so->wrote_folded)
		fprintf(f, ", %s", so->folded_path);
	if (s->per_thread)
		fprintf(f, ", %s", so->threads_path);
	if (so->wrote_json)
		fprintf(f, ", %s", so->json_path);
	fprintf(f, "; %.1f s", so->seconds);
	/* Every question's answer, the ratio tables' rows among them: more
	 * than the answers block shows, so said as the CSV's. */
	if (a->n)
		fprintf(f, "; %zu answer(s)%s%s: %zu yes, %zu no, %zu inconclusive", a->n,
			so->wrote_answers ? " in " : "", so->wrote_answers ? so->answers_path : "",
			yes, no, open);
	fprintf(f, "\n");
	if (f != stderr && fclose(f) == 0 && line)
		mmp_fprintf_wrapped(stderr, "%s", line);
	free(line);
}

/* A supervisor may start mmprof with stdin, stdout or stderr closed
 * (`<&- 2>&-`). The next open() would then return 0, 1 or 2: the CSV's
 * temporary would be descriptor 2 and every note on stderr would land in
 * the CSV, the report in the events file. /dev/null takes each closed
 * one, lowest first, so that open() returns it. */
static int std_fds_safe(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		int got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (got < 0)
			return -errno;
		if (got != fd) { /* cannot happen: the lower ones are open */
			close(got);
			return -EBADF;
		}
	}
	return 0;
}

static int mmprof_main(int argc, char **argv)
{
	struct cli cli;
	struct mmp_config cfg = { 0 };
	struct mmp_sweep sweep = { 0 };
	struct mmp_plan plan = { 0 };
	struct mmp_topology *topo = NULL;
	struct mmp_error err = { 0 };
	char csv_path[4096], json_path[4096], config_path[4096];

	/* Before anything opens a file; nothing can be said if it fails. */
	if (std_fds_safe() != 0)
		return EXIT_RUN_FAILED;
	/* Past `ulimit -f` a write raises SIGXFSZ, whose default ends the
	 * process at once: every measured row lost, nothing said.  Ignored,
	 * the write fails with EFBIG, an error like a full disk.  (A program
	 * run by probe = exec gets the default back.) */
	signal(SIGXFSZ, SIG_IGN);
	/* A subcommand first: its options are its own. */
	if (argc > 1 && strcmp(argv[1], "compare") == 0)
		return mmp_cli_compare(argc - 1, argv + 1);
	int exec = argc > 1 && strcmp(argv[1], "exec") == 0;
	int status = exec ? parse_exec_cli(argc - 1, argv + 1, &cli, &cfg)
			  : parse_cli(argc, argv, &cli);

	if (status >= 0)
		return status;

	if (!exec) { /* mmprof exec builds its config in memory */
		status = find_config(&cli, config_path, sizeof(config_path));
		if (status >= 0)
			goto out;
	}
	int rc = exec ? (cfg.ndiags ? -EINVAL : 0) : mmp_config_load(cli.config, &cfg);
	/* Every error in one pass: a config with errors still goes through
	 * the stages below (each leaves out what was wrong before it), so
	 * that a bad value in one job does not hide a bad plan in another. */
	int bad = rc == -EINVAL;
	if (bad)
		rc = 0;
	if (rc && cfg.ndiags) { /* not a config: a directory, a device, too big */
		fprintf(stderr, "mmprof: %s\n", cfg.diags[0]);
		status = EXIT_USAGE;
		goto out;
	}
	if (rc) {
		fprintf(stderr, "mmprof: cannot read %s: %s\n", cli.config, strerror(-rc));
		status = EXIT_USAGE;
		goto out;
	}
	rc = mmp_config_expand(&cfg, &sweep);
	bad |= rc == -EINVAL;
	if (rc == 0 || rc == -EINVAL) {
		rc = mmp_sweep_check_data(&cfg, &sweep, mmp_data_dir());
		bad |= rc == -EINVAL;
	}
	if (rc && rc != -EINVAL) {
		status = EXIT_RUN_FAILED;
		goto out;
	}
	for (size_t i = 0; cli.repeat && i < sweep.nruns; i++)
		sweep.runs[i].p.repeat = (uint32_t)cli.repeat;

	if (mmp_topology_load(&topo, cli.topology_from, &err)) {
		if (bad)
			print_diags(&cfg);
		fprintf(stderr, "mmprof: %s\n", err.msg);
		status = cli.topology_from || bad ? EXIT_USAGE : EXIT_RUN_FAILED;
		goto out;
	}
	rc = mmp_plan_build(&cfg, &sweep, topo, &plan);
	bad |= rc == -EINVAL;
	if (bad) {
		status = print_diags(&cfg);
		goto out;
	}
	if (rc) {
		status = EXIT_RUN_FAILED;
		goto out;
	}
	/* mmprof exec's default is named from its job (the program's name,
	 * or --job's): one program's results do not replace another's, and
	 * a rerun keeps the previous set as NAME.old.csv. */
	char exec_name[96];
	snprintf(exec_name, sizeof(exec_name), "exec-%s", cfg.njobs ? cfg.jobs[0].name : "");
	int keep_previous = exec && !cli.csv;
	status = result_paths(&cli, &cfg, &sweep, exec ? exec_name : cli.config, csv_path,
			      json_path);
	if (status >= 0)
		goto out;
	status = cli.explain ? check_explain(&cli, &cfg, exec) : -1;
	if (status >= 0)
		goto out;

	struct mmp_say say = { .out = stderr, .quiet = cli.quiet,
			       .progress = !cli.quiet && isatty(STDERR_FILENO) };
	struct mmp_observer obs;
	mmp_say_observer(&say, &obs);
	if (!cli.dry_run) /* the dry run lists them all */
		tell_plan_notes(&plan, &cfg, &obs);

	if (cli.topology || cli.dry_run) {
		if (cli.topology)
			print_topology(topo, &plan);
		if (cli.dry_run) {
			mmp_report_plan(&plan, &cfg, stdout);
			print_platform(topo, " (a run measures its first-touch cost and scan speed "
					     "before the first round)");
			printf("\nCSV: %s\n", csv_path);
			if (cli.json)
				printf("JSON: %s\n", cli.json);
		}
		status = EXIT_DONE;
		goto out;
	}

	/* A described machine's PU numbers are not this machine's: binding
	 * threads to them would measure something else and call it that. */
	if (mmp_topology_is_described(topo)) {
		fprintf(stderr,
			"mmprof: the machine is described (%s): it plans (--dry-run, --topology) "
			"but runs no probe; unset HWLOC_SYNTHETIC / HWLOC_XMLFILE or drop "
			"--topology-from to measure this one\n",
			mmp_topology_source(topo));
		status = EXIT_USAGE;
		goto out;
	}

	/* The result files: never over an input, one mmprof at a time. */
	char **inputs = NULL;
	size_t ninputs = 0;
	struct mmp_outset files;
	if (mmp_sweep_inputs(&cfg, &sweep, mmp_data_dir(), &inputs, &ninputs)) {
		fprintf(stderr, "mmprof: error: out of memory\n");
		status = EXIT_RUN_FAILED;
		goto out;
	}
	rc = mmp_outset_open(&files, csv_path, (const char *const *)inputs, ninputs, &err);
	if (rc) {
		mmp_sweep_inputs_free(inputs, ninputs);
		fprintf(stderr, "mmprof: error: %s; nothing was run\n", err.msg);
		status = EXIT_USAGE;
		goto out;
	}
	/* --json: NAME.json joins the set; any other file of the set is not
	 * JSON's to replace, and a path elsewhere is checked as NAME.csv was. */
	int kind = cli.json ? mmp_outset_kind_of(&files, cli.json) : -1;
	if (kind >= 0 && kind != MMP_OUT_JSON)
		rc = mmp_error_set(&err, -EEXIST, "--json %s is this run's %s: name another file",
				   cli.json, kind == MMP_OUT_CSV ? "CSV" : mmp_out_suffix(kind) + 1);
	else if (cli.json && kind < 0)
		rc = mmp_outfile_check_alone(cli.json, (const char *const *)inputs, ninputs, &err);
	/* Elsewhere, it is locked as NAME.csv is: two runs with one --json
	 * both exited 0, and the file held one of them. */
	if (!rc && cli.json && kind < 0)
		rc = mmp_outset_lock_other(&files, cli.json, &err);
	mmp_sweep_inputs_free(inputs, ninputs);
	if (rc) {
		mmp_outset_close(&files);
		fprintf(stderr, "mmprof: error: %s; nothing was run\n", err.msg);
		status = EXIT_USAGE;
		goto out;
	}
	if (files.note[0] && !cli.quiet)
		mmp_fprintf_wrapped(stderr, "mmprof: note: %s\n", files.note);
	files.note[0] = '\0'; /* said: the note after the run is what committing adds */
	if (keep_previous)
		(void)mmp_outset_keep_previous(&files); /* not a link's target: replaced then */

	struct mmp_session s = {
		.cfg = &cfg,
		.plan = &plan,
		.topo = topo,
		.files = &files,
		.obs = &obs,
		.per_thread = cli.per_thread,
		.json = cli.json,
		.stop = &stop_requested,
	};
	struct mmp_session_out so;
	struct sigaction sa = { .sa_handler = on_sigint };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	running = &so;
	rc = mmp_session_run(&s, &so);
	running = NULL;
	mmp_say_end_progress(&say);
	if (files.note[0] && !cli.quiet) /* what committing NAME.csv removed */
		mmp_fprintf_wrapped(stderr, "mmprof: note: %s\n", files.note);
	mmp_outset_close(&files);
	if (rc) {
		status = EXIT_RUN_FAILED;
	} else {
		report(&cli, &so, plan.table, topo); /* interrupted: what ran, marked partial */
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "mmprof: error: writing the report to stdout: %s\n",
				strerror(errno));
			so.failed = 1;
		}
		summary(&s, &so, cli.quiet);
		if (so.wrong)
			fprintf(stderr, "mmprof: error: some results differ from the reference "
					"(result_ok = false in the CSV)\n");
		status = so.interrupted		  ? EXIT_INTERRUPTED
			 : so.failed || so.wrong ? EXIT_RUN_FAILED
			 : cli.fail_on_regression && mmp_answers_regressed(&so.an.answers)
				 ? EXIT_REGRESSED
				 : EXIT_DONE;
		if (status == EXIT_REGRESSED)
			fprintf(stderr, "mmprof: an answer says a fix regressed "
					"(--fail-on-regression): exit 3\n");
	}
	mmp_session_out_free(&so);
out:
	mmp_plan_free(&plan);
	mmp_sweep_free(&sweep);
	mmp_topology_free(topo);
	mmp_config_free(&cfg);
	return status;
}

int main(int argc, char **argv)
{
	int status = mmprof_main(argc, argv);
	/* The listings, --help, --dry-run and --topology print and return
	 * EXIT_DONE; what did not reach stdout (a full disk, >/dev/full) is
	 * not done.  A run's report was checked already (a failed one is not
	 * EXIT_DONE). */
	if (status == EXIT_DONE) {
		int flushed = fflush(stdout), e = errno;
		if (flushed || ferror(stdout)) {
			fprintf(stderr, "mmprof: error: writing to stdout: %s\n",
				flushed ? strerror(e) : "a write failed");
			status = EXIT_RUN_FAILED;
		}
	}
	return status;
}
