/* The command line's shared pieces (see cli.h). */
#include "cli.h"

#include <string.h>

void mmp_cli_getopt_lists(const struct cli_option *table, size_t n, struct option *longopts,
			  char *shortopts)
{
	size_t ns = 0;
	memset(longopts, 0, (n + 1) * sizeof(*longopts));
	for (size_t i = 0; i < n; i++) {
		longopts[i] = (struct option){ table[i].name, table[i].has_arg, NULL, table[i].id };
		if (table[i].id < 256) {
			shortopts[ns++] = (char)table[i].id;
			if (table[i].has_arg == required_argument)
				shortopts[ns++] = ':';
		}
	}
	shortopts[ns] = '\0';
}

void mmp_cli_option_left(char *left, size_t len, const char *name, int id, int has_arg,
			 const char *arg)
{
	char shrt[8] = ""; /* "-r, " for an option with a short form */
	if (id < 256)
		snprintf(shrt, sizeof(shrt), "-%c, ", id);
	if (has_arg == optional_argument)
		snprintf(left, len, "--%s[=%s]", name, arg);
	else if (arg)
		snprintf(left, len, "%s--%s %s", shrt, name, arg);
	else
		snprintf(left, len, "%s--%s", shrt, name);
}

void mmp_cli_print_options(FILE *out, const struct cli_option *table, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char left[64];
		const struct cli_option *o = &table[i];
		mmp_cli_option_left(left, sizeof(left), o->name, o->id, o->has_arg, o->arg);
		fprintf(out, "  %-26s %s\n", left, o->help);
	}
}

int mmp_cli_output_option(int id, const char *arg, struct cli *cli)
{
	switch (id) {
	case OPT_CSV:
		cli->csv = arg;
		return 1;
	case OPT_JSON:
		cli->json = arg;
		return 1;
	case OPT_DRY_RUN:
		cli->dry_run = 1;
		return 1;
	case OPT_QUIET:
		cli->quiet = 1;
		return 1;
	case OPT_EXPLAIN:
		cli->explain = arg;
		return 1;
	case OPT_BRIEF:
		cli->brief = 1;
		return 1;
	default:
		return 0;
	}
}

int mmp_cli_bad_option(const char *cmd, char **argv, const char *shortopts)
{
	if (optopt && optopt < 256)
		fprintf(stderr, "%s: option -%c %s\n", cmd, optopt,
			strchr(shortopts, optopt) ? "needs a value" : "is unknown");
	else
		fprintf(stderr, "%s: %s: unknown option or missing value\n", cmd, argv[optind - 1]);
	fprintf(stderr, "try '%s --help'\n", cmd);
	return EXIT_USAGE;
}
