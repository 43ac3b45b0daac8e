/* mmprof exec [options] -- CMD ARGS...: a real program as the one job of
 * a config built in memory (probe = exec), then run as mmprof --config
 * runs a file's (run_config.c). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "run/capture.h"
#include "run/command.h"
#include "config/config.h"

enum exec_opt {
	OPT_X_WARMUP = OPT_COMMAND_FIRST,
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
	{ { "json", required_argument, OPT_JSON, "PATH",
	  "also write the run as one JSON document to PATH, {host} replaced by the host name, "
	  "as mmprof --config --json does (docs/json.md)" }, NULL },
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

void mmp_cli_exec_help(FILE *out)
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
	mmp_cli_exec_help(out);
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

/* What the options said, before the config is built from it. */
struct exec_args {
	const char *value[NEXEC_OPTIONS]; /* each key option's value */
	int where[NEXEC_OPTIONS]; /* its place on mmprof's line, for diagnostics */
	const char *job;
	char env[8192];
	size_t envlen;
};

/* --env A=1 --env B=2 is env = A=1, B=2: a comma of a value stays one
 * (\\,).  Returns -1 to go on, or the exit status. */
static int add_env(struct exec_args *a, size_t i, const char *arg)
{
	char *env = a->env;
	size_t len = a->envlen;
	if (len)
		len += (size_t)snprintf(env + len, len < sizeof(a->env) ? sizeof(a->env) - len : 0,
					", ");
	for (const char *s = arg; *s && len + 2 < sizeof(a->env); s++) {
		if (*s == ',')
			env[len++] = '\\';
		env[len++] = *s;
	}
	if (len + 2 >= sizeof(a->env)) {
		fprintf(stderr, "mmprof exec: --env: more than %zu bytes\n", sizeof(a->env) - 2);
		return EXIT_USAGE;
	}
	env[len] = '\0';
	a->envlen = len;
	if (!a->value[i])
		a->where[i] = optind - 1 + 1;
	a->value[i] = env;
	return -1;
}

/* An option of exec's own (not a config key's).  Returns -1 to go on, or
 * the exit status. */
static int own_option(int c, const char *arg, struct cli *cli, struct exec_args *a)
{
	switch (c) {
	case OPT_X_JOB:
		a->job = arg;
		break;
	case OPT_HELP:
		exec_usage(stdout);
		return EXIT_DONE;
	default:
		return mmp_cli_output_option(c, arg, cli) ? -1 : mmp_cli_listing(c, arg);
	}
	return -1;
}

/* The options up to CMD.  Returns -1 to go on, or the exit status. */
static int parse_options(int argc, char **argv, struct cli *cli, struct exec_args *a)
{
	struct option longopts[NEXEC_OPTIONS + 1];
	char shortopts[2 * NEXEC_OPTIONS + 2] = "+"; /* stop at CMD: its options are its own */
	struct cli_option table[NEXEC_OPTIONS];

	exec_option_table(table);
	mmp_cli_getopt_lists(table, NEXEC_OPTIONS, longopts, shortopts + 1);
	memset(cli, 0, sizeof(*cli));
	opterr = 0;
	optind = 1;
	for (;;) {
		int c = getopt_long(argc, argv, shortopts, longopts, NULL), status = -1;
		size_t i = 0;
		if (c == -1)
			return -1;
		while (i < NEXEC_OPTIONS && exec_options[i].o.id != c)
			i++;
		if (c == '?' || c == ':' || i == NEXEC_OPTIONS) {
			fprintf(stderr, "mmprof exec: %s: unknown option or missing value\n",
				argv[optind - 1]);
			fprintf(stderr, "try 'mmprof exec --help'\n");
			return EXIT_USAGE;
		}
		if (c == OPT_X_ENV) {
			status = add_env(a, i, optarg);
		} else if (exec_options[i].key) {
			a->value[i] = optarg;
			a->where[i] = optind - 1 + 1; /* the option's place on mmprof's line */
		} else {
			status = own_option(c, optarg, cli, a);
		}
		if (status >= 0)
			return status;
	}
}

/* The one job's keys, set as a config file's lines would set them.
 * Returns 0 or a negative errno. */
static int set_keys(struct mmp_config *cfg, const char *name, const char *command, int at,
		    const struct exec_args *a)
{
	char result[4096];
	int rc = mmp_config_init(cfg, "mmprof exec");
	if (!rc)
		rc = mmp_config_set(cfg, name, "probe", "exec", 1);
	if (!rc)
		rc = mmp_config_set(cfg, name, "command", command, at);
	for (size_t i = 0; !rc && i < NEXEC_OPTIONS; i++) {
		const char *v = a->value[i];
		if (!v)
			continue;
		/* --result 'Found (\d+) zero': the key's output: is implied. */
		if (exec_options[i].o.id == OPT_X_RESULT &&
		    strncmp(v, MMP_CAPTURE_PREFIX, strlen(MMP_CAPTURE_PREFIX)) != 0) {
			snprintf(result, sizeof(result), "%s%s", MMP_CAPTURE_PREFIX, v);
			v = result;
		}
		rc = mmp_config_set(cfg, name, exec_options[i].key, v, a->where[i]);
	}
	return rc;
}

/* mmprof exec [options] -- CMD ARGS...: the one-job config it stands for,
 * built in memory; each key's diagnostics name the argument's position
 * ("mmprof exec:3: [dotnet] ...").  Returns -1 to go on (cfg filled), or
 * the exit status. */
static int parse_exec_cli(int argc, char **argv, struct cli *cli, struct mmp_config *cfg)
{
	struct exec_args a = { .job = NULL };
	char name[64], command[8192];
	int status = parse_options(argc, argv, cli, &a);
	if (status >= 0)
		return status;
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
	if (a.job && (!mmp_config_job_name_ok(a.job) || strlen(a.job) >= sizeof(name))) {
		fprintf(stderr, "mmprof exec: --job '%s': a job name is 1 to %zu letters, digits, "
				"'_', '-' or '.'\n",
			a.job, sizeof(name) - 1);
		return EXIT_USAGE;
	}
	if (a.job)
		snprintf(name, sizeof(name), "%s", a.job);
	else
		job_name(argv[optind], name, sizeof(name));
	if (set_keys(cfg, name, command, optind + 1, &a)) {
		fprintf(stderr, "mmprof: error: out of memory\n");
		mmp_config_free(cfg);
		return EXIT_RUN_FAILED;
	}
	return -1;
}

/* argv[0] is "exec". */
int mmp_cli_cmd_exec(int argc, char **argv)
{
	struct cli cli;
	struct mmp_config cfg = { 0 };
	int status = parse_exec_cli(argc, argv, &cli, &cfg);
	if (status >= 0)
		return status;
	return mmp_cli_run_config(&cli, &cfg, 1);
}
