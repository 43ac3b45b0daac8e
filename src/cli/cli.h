/* The command line's shared pieces, for mmprof (main.c) and its
 * subcommand mmprof compare (main_compare.c): the exit statuses, and
 * option tables that make both getopt_long's lists and --help.  Part of
 * the binary, not the library: only these files print final messages and
 * choose exit statuses. */
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

/* mmprof compare A.csv B.csv [options]: argv[0] is "compare".  Returns the
 * exit status. */
int mmp_cli_compare(int argc, char **argv);

#endif
