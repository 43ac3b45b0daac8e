/* mmprof: parse the command line, then config -> plan -> placement ->
 * session.  Exit status: 0 done, 1 a run failed, 2 bad usage or config
 * (nothing run), 130 interrupted. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/config.h"
#include "mmprof/csv.h"
#include "mmprof/listing.h"
#include "mmprof/meta.h"
#include "mmprof/probe.h"
#include "mmprof/session.h"
#include "mmprof/topology.h"
#include "mmprof/units.h"

enum exit_status { EXIT_DONE = 0, EXIT_RUN_FAILED = 1, EXIT_USAGE = 2, EXIT_INTERRUPTED = 130 };

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
	OPT_LIST_EVENTS,
	OPT_PER_THREAD,
};

/* The one table of command-line options: getopt_long's list and --help
 * are both made from it. */
static const struct cli_option {
	const char *name;
	int has_arg;
	int id;
	const char *arg;
	const char *help;
} cli_options[] = {
	{ "config", required_argument, OPT_CONFIG, "FILE", "run every job in FILE (INI)" },
	{ "csv", required_argument, OPT_CSV, "PATH",
	  "write rows to PATH (default: csv key, else results/CONFIG.csv)" },
	{ "repeat", required_argument, OPT_REPEAT, "N", "override every job's repeat" },
	{ "dry-run", no_argument, OPT_DRY_RUN, NULL,
	  "check the config and print the expanded plan; run nothing" },
	{ "topology", no_argument, OPT_TOPOLOGY, NULL,
	  "print the machine and each run's planned PUs; run nothing" },
	{ "per-thread", no_argument, OPT_PER_THREAD, NULL,
	  "also write each thread's time and counts to NAME.threads.csv" },
	{ "list-probes", no_argument, OPT_LIST_PROBES, NULL, "list the probes" },
	{ "list-events", no_argument, OPT_LIST_EVENTS, NULL,
	  "list presets, and the events this machine can and cannot count" },
	{ "list-keys", optional_argument, OPT_LIST_KEYS, "markdown",
	  "list the config keys (as a Markdown table with =markdown)" },
	{ "list-columns", optional_argument, OPT_LIST_COLUMNS, "markdown",
	  "list the CSV columns (as a Markdown table with =markdown)" },
	{ "quiet", no_argument, OPT_QUIET, NULL, "no progress, notes or warnings on stderr" },
	{ "version", no_argument, OPT_VERSION, NULL, "print the version" },
	{ "help", no_argument, OPT_HELP, NULL, "this help" },
};
#define NOPTIONS (sizeof(cli_options) / sizeof(cli_options[0]))

struct cli {
	const char *config;
	const char *csv;
	unsigned long repeat; /* 0: as configured */
	int dry_run, topology, quiet, per_thread;
};

static volatile sig_atomic_t stop_requested;

static void on_sigint(int sig)
{
	static const char msg[] = "\nmmprof: stopping after the current repetition "
				  "(Ctrl-C again to abandon it)\n";
	(void)sig;
	if (stop_requested)
		_exit(EXIT_INTERRUPTED); /* rows already written are flushed */
	stop_requested = 1;
	ssize_t ignored = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)ignored;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: mmprof --config FILE [options]\n\n"
		     "Runs memory and file access patterns (probes) on pinned threads and\n"
		     "reports how fast each was, checked against a reference result.\n\n"
		     "options:\n");
	for (size_t i = 0; i < NOPTIONS; i++) {
		char left[64];
		const struct cli_option *o = &cli_options[i];
		int shrt = o->id < 256;
		if (o->has_arg == optional_argument)
			snprintf(left, sizeof(left), "--%s[=%s]", o->name, o->arg);
		else if (o->arg)
			snprintf(left, sizeof(left), "%s%c%s--%s %s", shrt ? "-" : "",
				 shrt ? o->id : ' ', shrt ? ", " : "", o->name, o->arg);
		else
			snprintf(left, sizeof(left), "%s%c%s--%s", shrt ? "-" : "",
				 shrt ? o->id : ' ', shrt ? ", " : "", o->name);
		fprintf(out, "  %-26s %s\n", left[0] == ' ' ? left + 1 : left, o->help);
	}
	fprintf(out, "\nconfig keys ([global] sets defaults for every job section; a comma list\n"
		     "runs once per value, several lists run their product):\n");
	mmp_keys_print(out, 0);
	fprintf(out, "\nexit status: 0 done, 1 a run failed or a result was wrong, 2 bad usage\n"
		     "or config (nothing run), 130 interrupted (measured rows are kept).\n"
		     "environment: MMPROF_DATA sets the data directory (default ./data).\n");
}

static void list_probes(void)
{
	size_t n;
	const struct mmp_probe *const *all = mmp_probe_all(&n);
	for (size_t i = 0; i < n; i++)
		printf("%-16s %s\n", all[i]->name, all[i]->summary);
}

/* Returns -1 to go on, or the exit status. */
static int parse_cli(int argc, char **argv, struct cli *cli)
{
	struct option longopts[NOPTIONS + 1];
	char shortopts[2 * NOPTIONS + 1];
	size_t ns = 0;

	memset(longopts, 0, sizeof(longopts));
	for (size_t i = 0; i < NOPTIONS; i++) {
		longopts[i] = (struct option){ cli_options[i].name, cli_options[i].has_arg, NULL,
					       cli_options[i].id };
		if (cli_options[i].id < 256) {
			shortopts[ns++] = (char)cli_options[i].id;
			if (cli_options[i].has_arg == required_argument)
				shortopts[ns++] = ':';
		}
	}
	shortopts[ns] = '\0';

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
		case OPT_QUIET:
			cli->quiet = 1;
			break;
		case OPT_PER_THREAD:
			cli->per_thread = 1;
			break;
		case OPT_LIST_PROBES:
			list_probes();
			return EXIT_DONE;
		case OPT_LIST_EVENTS:
			return mmp_list_events(stdout) ? EXIT_RUN_FAILED : EXIT_DONE;
		case OPT_LIST_KEYS:
		case OPT_LIST_COLUMNS: {
			int md = optarg && strcmp(optarg, "markdown") == 0;
			if (optarg && !md) {
				fprintf(stderr, "mmprof: --%s takes =markdown or nothing\n",
					c == OPT_LIST_KEYS ? "list-keys" : "list-columns");
				return EXIT_USAGE;
			}
			if (c == OPT_LIST_KEYS)
				mmp_keys_print(stdout, md);
			else
				mmp_csv_print_columns(stdout, md);
			return EXIT_DONE;
		}
		case OPT_VERSION:
			printf("mmprof %s\n", MMPROF_VERSION);
			return EXIT_DONE;
		case OPT_HELP:
			usage(stdout);
			return EXIT_DONE;
		default:
			if (optopt && optopt < 256)
				fprintf(stderr, "mmprof: option -%c %s\n", optopt,
					strchr(shortopts, optopt) ? "needs a value" : "is unknown");
			else
				fprintf(stderr, "mmprof: %s: unknown option or missing value\n",
					argv[optind - 1]);
			fprintf(stderr, "try 'mmprof --help'\n");
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "mmprof: unexpected argument '%s' (the config goes after --config)\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	if (!cli->config) {
		fprintf(stderr, "mmprof: no config: mmprof --config FILE (try 'mmprof --help')\n");
		return EXIT_USAGE;
	}
	return -1;
}

static int print_diags(const struct mmp_config *cfg)
{
	for (size_t i = 0; i < cfg->ndiags; i++)
		fprintf(stderr, "%s\n", cfg->diags[i]);
	fprintf(stderr, "mmprof: %zu error(s) in %s; nothing was run\n", cfg->ndiags, cfg->path);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	struct cli cli;
	struct mmp_config cfg;
	struct mmp_plan plan = { 0 };
	struct mmp_topology *topo = NULL;
	struct mmp_error err = { 0 };
	char csv_path[4096];
	int status = parse_cli(argc, argv, &cli);

	if (status >= 0)
		return status;

	int rc = mmp_config_load(cli.config, &cfg);
	if (rc == -EINVAL) {
		status = print_diags(&cfg);
		goto out;
	}
	if (rc) {
		fprintf(stderr, "mmprof: cannot read %s: %s\n", cli.config, strerror(-rc));
		status = EXIT_USAGE;
		goto out;
	}
	rc = mmp_config_expand(&cfg, &plan);
	if (rc) {
		status = rc == -EINVAL ? print_diags(&cfg) : EXIT_RUN_FAILED;
		goto out;
	}
	for (size_t i = 0; cli.repeat && i < plan.nruns; i++)
		plan.runs[i].p.repeat = (uint32_t)cli.repeat;

	if (mmp_topology_load(&topo, NULL, &err)) {
		fprintf(stderr, "mmprof: %s\n", err.msg);
		status = EXIT_RUN_FAILED;
		goto out;
	}
	if (cli.csv)
		snprintf(csv_path, sizeof(csv_path), "%s", cli.csv);
	else if (plan.nruns && plan.runs[0].p.csv)
		snprintf(csv_path, sizeof(csv_path), "%s", plan.runs[0].p.csv);
	else
		mmp_default_csv_path(cli.config, csv_path, sizeof(csv_path));

	struct mmp_session s = {
		.cfg = &cfg,
		.plan = &plan,
		.topo = topo,
		.csv_path = csv_path,
		.quiet = cli.quiet,
		.per_thread = cli.per_thread,
		.progress = !cli.quiet && isatty(STDERR_FILENO),
		.stop = &stop_requested,
	};
	rc = mmp_session_place(&s);
	if (rc) {
		status = rc == -EINVAL ? print_diags(&cfg) : EXIT_RUN_FAILED;
		goto out_session;
	}
	if (cli.topology || cli.dry_run) {
		if (cli.topology)
			mmp_session_print_topology(&s, stdout);
		if (cli.dry_run)
			mmp_session_print_plan(&s, stdout);
		status = EXIT_DONE;
		goto out_session;
	}

	struct sigaction sa = { .sa_handler = on_sigint };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	status = mmp_session_run(&s);

out_session:
	mmp_session_free(&s);
out:
	mmp_plan_free(&plan);
	mmp_topology_free(topo);
	mmp_config_free(&cfg);
	return status;
}
