/* mmprof --config FILE [options]: every job of a config, run (or with
 * --dry-run or --topology, planned and printed); --help, --version and
 * the listings are options of it too.  Exit status: 0 done, 1 a run
 * failed, 2 bad usage or config (nothing run), 3 an answer says regressed
 * and --fail-on-regression was given, 130 interrupted. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "config/config.h"
#include "plan/controls.h"
#include "platform/meta.h"
#include "platform/topology.h"
#include "util/units.h"

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

static void usage(FILE *out)
{
	mmp_cli_print_usage(out);
	fprintf(out, "\nRuns memory and file access patterns (probes) on pinned threads and\n"
		     "reports how fast each was, checked against a reference result.\n\n"
		     "options:\n");
	mmp_cli_print_options(out, cli_options, NOPTIONS);
	fprintf(out, "\nmmprof exec [options] -- CMD ARGS...: a real program as one job.\n");
	mmp_cli_exec_help(out);
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
static int machine_only(const char *desc)
{
	struct mmp_topology *topo;
	struct mmp_error err = { 0 };
	if (mmp_topology_load(&topo, desc, &err)) {
		fprintf(stderr, "mmprof: %s\n", err.msg);
		return desc ? EXIT_USAGE : EXIT_RUN_FAILED;
	}
	mmp_topology_print(topo, stdout);
	mmp_cli_print_platform(topo, "");
	mmp_topology_free(topo);
	return EXIT_DONE;
}

/* One option (a listing's aside).  Returns -1 to go on, -2 when c is no
 * option of mmprof's, or the exit status. */
static int set_option(int c, const char *arg, struct cli *cli)
{
	uint64_t v;
	switch (c) {
	case OPT_CONFIG:
		cli->config = arg;
		break;
	case OPT_REPEAT:
		if (mmp_parse_u64(arg, &v) || v < 1 || v > 100000) {
			fprintf(stderr, "mmprof: --repeat takes a count from 1 to 100000, not '%s'\n",
				arg);
			return EXIT_USAGE;
		}
		cli->repeat = (unsigned long)v;
		break;
	case OPT_TOPOLOGY:
		cli->topology = 1;
		break;
	case OPT_TOPOLOGY_FROM:
		cli->topology_from = arg;
		break;
	case OPT_PER_THREAD:
		cli->per_thread = 1;
		break;
	case OPT_FAIL_ON_REGRESSION:
		cli->fail_on_regression = 1;
		break;
	case OPT_VERSION:
		printf("mmprof %s\n", MMPROF_VERSION);
		return EXIT_DONE;
	case OPT_HELP:
		usage(stdout);
		return EXIT_DONE;
	default: {
		if (mmp_cli_output_option(c, arg, cli))
			break;
		int status = mmp_cli_listing(c, arg);
		return status >= 0 ? status : -2;
	}
	}
	return -1;
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
		int status = set_option(c, optarg, cli);
		if (status == -2)
			return mmp_cli_bad_option("mmprof", argv, shortopts);
		if (status >= 0)
			return status;
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

/* argv[0] is the program. */
int mmp_cli_cmd_run(int argc, char **argv)
{
	struct cli cli;
	char config_path[4096];
	int status = parse_cli(argc, argv, &cli);
	if (status < 0)
		status = find_config(&cli, config_path, sizeof(config_path));
	if (status >= 0)
		return status;
	return mmp_cli_run_config(&cli, NULL, 0);
}
