/* The listings: mmprof --list-probes, --list-events, --list-configs,
 * --list-keys, --list-columns, --list-controls.  Each prints one of the
 * tables the rest of mmprof reads (the docs' generated sections, the man
 * page and the completion are made from these). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "report/companions.h"
#include "config/config.h"
#include "plan/controls.h"
#include "report/csv.h"
#include "report/listing.h"
#include "mmprof/probe.h"

static int list_probes(const char *arg)
{
	size_t n;
	const struct mmp_probe *const *all = mmp_probe_all(&n);
	(void)arg;
	for (size_t i = 0; i < n; i++)
		printf("%-16s %s\n", all[i]->name, all[i]->summary);
	return EXIT_DONE;
}

static int list_events(const char *arg)
{
	struct mmp_error err = { 0 };
	(void)arg;
	if (!mmp_list_events(stdout, &err))
		return EXIT_DONE;
	fprintf(stderr, "mmprof: %s\n", err.msg);
	return EXIT_RUN_FAILED;
}

static void print_config(const char *name, const char *path, void *arg)
{
	(void)arg;
	printf("  %-20s %s\n", name, path);
}

/* The search path, then the configs it offers by name. */
static int list_configs(const char *arg)
{
	struct mmp_config_search sp;
	(void)arg;
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

/* =markdown, or nothing: the words that say so. */
static int markdown_only(const char *option, const char *arg, int *md)
{
	*md = arg != NULL;
	if (arg && strcmp(arg, "markdown") != 0) {
		fprintf(stderr, "mmprof: --%s takes =markdown or nothing\n", option);
		return EXIT_USAGE;
	}
	return -1;
}

static int list_keys(const char *arg)
{
	int md = arg && strcmp(arg, "markdown") == 0;
	int roles = arg && strcmp(arg, "roles") == 0;
	if (arg && !md && !roles) {
		fprintf(stderr, "mmprof: --list-keys takes =markdown, =roles or nothing\n");
		return EXIT_USAGE;
	}
	mmp_keys_print(stdout, roles ? MMP_LIST_ROLES : md ? MMP_LIST_MARKDOWN : MMP_LIST_TEXT);
	return EXIT_DONE;
}

static int list_columns(const char *arg)
{
	int md;
	int status = markdown_only("list-columns", arg, &md);
	if (status >= 0)
		return status;
	mmp_csv_print_columns(stdout, md);
	mmp_companions_print_columns(stdout, md);
	return EXIT_DONE;
}

static int list_controls(const char *arg)
{
	int md;
	int status = markdown_only("list-controls", arg, &md);
	if (status >= 0)
		return status;
	mmp_controls_print(stdout, md);
	return EXIT_DONE;
}

/* One row per listing option: its id in the option tables, what it prints. */
static const struct {
	int id;
	int (*fn)(const char *arg);
} listings[] = {
	{ OPT_LIST_PROBES, list_probes },   { OPT_LIST_EVENTS, list_events },
	{ OPT_LIST_CONFIGS, list_configs }, { OPT_LIST_KEYS, list_keys },
	{ OPT_LIST_COLUMNS, list_columns }, { OPT_LIST_CONTROLS, list_controls },
};

int mmp_cli_listing(int id, const char *arg)
{
	for (size_t i = 0; i < sizeof(listings) / sizeof(listings[0]); i++)
		if (listings[i].id == id)
			return listings[i].fn(arg);
	return -1;
}
