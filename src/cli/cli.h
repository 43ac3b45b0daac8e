/* The command line's shared pieces: the table of commands (main.c), one
 * file per command's entry (cmd_run.c: mmprof --config, cmd_exec.c,
 * cmd_compare.c; the listings are cmd_list.c's), the exit statuses, and
 * option tables that make both getopt_long's lists and --help.  Part of
 * the binary, not the library: only these files print final messages and
 * choose exit statuses.  A new command is one file src/cli/cmd_NAME.c and
 * one row of main.c's table. */
#ifndef MMPROF_CLI_H
#define MMPROF_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

enum exit_status {
	EXIT_DONE = 0,
	EXIT_RUN_FAILED = 1,
	EXIT_USAGE = 2,
	EXIT_REGRESSED = 3,
	EXIT_INTERRUPTED = 130,
};

/* One option: getopt_long's entry and its --help line.  An id below 256
 * is also the short option. */
struct cli_option {
	const char *name;
	int has_arg;
	int id;
	const char *arg;
	const char *help;
};

/* getopt_long's lists from a table (longopts: n + 1 entries, shortopts:
 * 2n + 1 characters). */
void mmp_cli_getopt_lists(const struct cli_option *table, size_t n, struct option *longopts,
			  char *shortopts);
/* "-r, --repeat N", "--topology", "--list-keys[=markdown]": an option as
 * --help shows it. */
void mmp_cli_option_left(char *left, size_t len, const char *name, int id, int has_arg,
			 const char *arg);
/* The options' --help lines. */
void mmp_cli_print_options(FILE *out, const struct cli_option *table, size_t n);
/* An option getopt_long refused, said as "unknown" or "needs a value";
 * returns EXIT_USAGE. */
int mmp_cli_bad_option(const char *cmd, char **argv, const char *shortopts);

/* One command: `mmprof NAME ...` runs fn with argv[0] = NAME; the row
 * without a name is mmprof's own (`mmprof --config ...`, argv[0] the
 * program).  fn returns the exit status. */
struct mmp_cli_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *synopsis; /* its usage line, after "mmprof " */
};

/* The usage lines of every command, as --help opens. */
void mmp_cli_print_usage(FILE *out);

/* The commands' entries. */
int mmp_cli_cmd_run(int argc, char **argv);     /* cmd_run.c */
int mmp_cli_cmd_exec(int argc, char **argv);    /* cmd_exec.c */
int mmp_cli_cmd_compare(int argc, char **argv); /* cmd_compare.c */

/* The options mmprof and mmprof exec share, by id (an id below 256 is
 * also the short option). */
enum mmp_cli_opt {
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
	OPT_COMMAND_FIRST = 300, /* a command's own options from here */
};

/* A listing option (--list-probes, --list-keys[=ARG], ...: cmd_list.c)
 * carried out, arg its value or NULL.  Returns its exit status, or -1
 * when id is not a listing. */
int mmp_cli_listing(int id, const char *arg);

struct mmp_config;

/* What mmprof and mmprof exec were asked for, parsed. */
struct cli {
	const char *config;
	const char *csv;
	const char *topology_from;
	const char *json;
	const char *explain; /* --explain JOB: only its causes, in full */
	unsigned long repeat; /* 0: as configured */
	int dry_run, topology, quiet, per_thread, fail_on_regression, brief;
};

/* An option of what a config run writes and prints (--csv, --json,
 * --dry-run, --quiet, --explain, --brief), the same for mmprof and mmprof
 * exec: set in cli.  1 when id is one of them, else 0. */
int mmp_cli_output_option(int id, const char *arg, struct cli *cli);

/* A config run as cli asks (run_config.c): cli->config's file, or
 * mmprof exec's config built in memory (exec set, cfg filled; it is freed
 * here either way).  Returns the exit status. */
int mmp_cli_run_config(const struct cli *cli, struct mmp_config *cfg, int exec);

struct mmp_topology;
/* "platform: NAME" and then, where the machine is this one. */
void mmp_cli_print_platform(const struct mmp_topology *topo, const char *then);

/* What mmprof exec takes, as its --help and mmprof --help say it. */
void mmp_cli_exec_help(FILE *out);

#endif
