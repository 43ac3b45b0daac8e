/* mmprof compare A.csv B.csv: parse, compare (compare.h), print, and the
 * exit status: 0 compared, 2 bad usage or a file that cannot be compared
 * (nothing printed on stdout), 3 a run is slower in B and
 * --fail-on-regression was given, 1 the --csv file could not be written.
 * Three files or more are a fleet (fleet.h): each host against the median
 * host, 3 when a host is slower than it. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "compare/compare.h"
#include "config/config.h"
#include "compare/fleet.h"
#include "util/outfile.h"

enum compare_opt {
	CMP_HELP = 'h',
	CMP_TOLERANCE = 256,
	CMP_CSV,
	CMP_FAIL_ON_REGRESSION,
	CMP_VARY,
	CMP_JSON,
};

static const struct cli_option compare_options[] = {
	{ "tolerance", required_argument, CMP_TOLERANCE, "PCT",
	  "ratios within 1/(1+t) .. 1+t are the same (5% or 0.05; default 5%)" },
	{ "csv", required_argument, CMP_CSV, "PATH",
	  "also write the comparison to PATH as CSV, one row per matched run" },
	{ "json", required_argument, CMP_JSON, "PATH",
	  "three files or more: also write the fleet report to PATH as JSON" },
	{ "vary", required_argument, CMP_VARY, "KEY[,KEY]",
	  "keys a run of A and its match in B may differ in (--vary buffer: 64K in A "
	  "against 4K in B); size for bytes" },
	{ "fail-on-regression", no_argument, CMP_FAIL_ON_REGRESSION, NULL,
	  "exit 3 when a run is slower in B (for CI); exit 2 when nothing was compared" },
	{ "help", no_argument, CMP_HELP, NULL, "this help" },
};
#define NCOMPARE_OPTIONS (sizeof(compare_options) / sizeof(compare_options[0]))

struct compare_cli {
	const char *a, *b, *csv, *json;
	const char *const *files; /* every file given (argv's) */
	size_t nfiles;
	double tolerance;
	uint32_t vary;
	int fail_on_regression;
};

static void compare_usage(FILE *out)
{
	fprintf(out, "usage: mmprof compare A.csv B.csv [options]\n"
		     "       mmprof compare HOST1.csv HOST2.csv HOST3.csv ... [options]\n\n"
		     "Compares two runs of one config (two commits, two machines, before and\n"
		     "after a fix) run by run: B / A of elapsed time, with a 95%% interval.\n"
		     "Runs are matched by their parameters (");
	for (size_t k = 0; k < mmp_compare_nkeys(); k++)
		fprintf(out, "%s%s", k ? ", " : "", mmp_compare_key_name(k));
	fprintf(out, "),\n"
		     "not by run number; runs in one file only are listed (--vary KEY lets a\n"
		     "key differ).  A and B were not measured side by side, so rounds are not\n"
		     "paired: the interval is Welch's on the difference of mean log times.\n"
		     "Each pair is slower, faster, same (interval within the tolerance band) or\n"
		     "inconclusive (always, when a side had fewer than 3 clean repetitions:\n"
		     "disturbed ones decide nothing).  The limit runs are the ceiling: their B/A is the machine's\n"
		     "drift, and a run that carries a ceiling in both files is judged on its\n"
		     "time over the ceiling's in the same rounds.  docs/compare.md says more.\n\n"
		     "Three files or more are a fleet (one per host, docs/fleet.md): at each\n"
		     "job point, each host against the median host of those that ran it, as\n"
		     "B against A; the hosts slower or faster than it are its outliers; and\n"
		     "the answers (NAME.answers.csv beside each) that differ between hosts.\n\n"
		     "options:\n");
	mmp_cli_print_options(out, compare_options, NCOMPARE_OPTIONS);
	fprintf(out, "\n--csv columns:\n");
	mmp_compare_print_columns(out, 0);
	fprintf(out, "\n--csv columns of a fleet (three files or more):\n");
	mmp_fleet_print_columns(out, 0);
	fprintf(out, "\nexit status: 0 compared, 2 bad usage or a file that is not an mmprof CSV\n"
		     "of this schema (or nothing matched, with --fail-on-regression), 3 a run\n"
		     "is slower in B and --fail-on-regression was given, 1 the --csv file\n"
		     "could not be written; for a fleet, 3 a host is slower than a job point's\n"
		     "median host with --fail-on-regression.\n");
}

/* Returns -1 to go on, or the exit status. */
static int parse_compare(int argc, char **argv, struct compare_cli *cc)
{
	struct option longopts[NCOMPARE_OPTIONS + 1];
	char shortopts[2 * NCOMPARE_OPTIONS + 1];
	size_t nfiles = 0;

	mmp_cli_getopt_lists(compare_options, NCOMPARE_OPTIONS, longopts, shortopts);
	memset(cc, 0, sizeof(*cc));
	cc->tolerance = 0.05;
	opterr = 0;
	for (;;) {
		int c = getopt_long(argc, argv, shortopts, longopts, NULL);
		if (c == -1)
			break;
		switch (c) {
		case CMP_TOLERANCE: {
			char why[256];
			if (mmp_key_parse(mmp_key_find("tolerance"), optarg, &cc->tolerance, why,
					  sizeof(why))) {
				fprintf(stderr, "mmprof compare: --tolerance: %s\n", why);
				return EXIT_USAGE;
			}
			break;
		}
		case CMP_CSV:
			cc->csv = optarg;
			break;
		case CMP_JSON:
			cc->json = optarg;
			break;
		case CMP_VARY: {
			struct mmp_error why = { 0 };
			if (mmp_compare_vary_parse(optarg, &cc->vary, &why)) {
				fprintf(stderr, "mmprof compare: %s\n", why.msg);
				return EXIT_USAGE;
			}
			break;
		}
		case CMP_FAIL_ON_REGRESSION:
			cc->fail_on_regression = 1;
			break;
		case CMP_HELP:
			compare_usage(stdout);
			return EXIT_DONE;
		default:
			return mmp_cli_bad_option("mmprof compare", argv, shortopts);
		}
	}
	nfiles = (size_t)(argc - optind);
	if (nfiles < 2) {
		fprintf(stderr, "mmprof compare: needs two CSVs: mmprof compare A.csv B.csv (try "
				"'mmprof compare --help')\n");
		return EXIT_USAGE;
	}
	if (cc->json && nfiles < 3) {
		fprintf(stderr, "mmprof compare: --json is the fleet report's (three files or "
				"more); two files: --csv\n");
		return EXIT_USAGE;
	}
	cc->files = (const char *const *)argv + optind;
	cc->nfiles = nfiles;
	cc->a = cc->files[0];
	cc->b = cc->files[1];
	return -1;
}

/* Three files or more: the fleet report. */
static int compare_fleet(const struct compare_cli *cc)
{
	struct mmp_fleet f;
	struct mmp_error err = { 0 };
	const char *outputs[2][2] = { { "--csv", cc->csv }, { "--json", cc->json } };
	for (int o = 0; o < 2; o++) {
		int rc = outputs[o][1] ? mmp_outfile_check_alone(outputs[o][1], cc->files,
								 cc->nfiles, &err)
				       : 0;
		if (rc) {
			fprintf(stderr, "mmprof compare: %s %s: %s\n", outputs[o][0], outputs[o][1],
				rc == -EEXIST ? "is one of the files compared: write the "
						"comparison elsewhere"
					      : err.msg);
			return EXIT_USAGE;
		}
	}
	if (mmp_fleet_run(&f, cc->files, cc->nfiles, cc->tolerance, cc->vary, &err)) {
		fprintf(stderr, "mmprof compare: %s\n", err.msg);
		mmp_fleet_free(&f);
		return EXIT_USAGE;
	}
	mmp_fleet_print(stdout, &f);
	int status = EXIT_DONE;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "mmprof compare: error: writing to stdout: %s\n", strerror(errno));
		status = EXIT_RUN_FAILED;
	}
	if (cc->csv && mmp_fleet_csv(&f, cc->csv, &err)) {
		fprintf(stderr, "mmprof compare: error: %s\n", err.msg);
		status = EXIT_RUN_FAILED;
	}
	if (cc->json && mmp_fleet_json(&f, cc->json, &err)) {
		fprintf(stderr, "mmprof compare: error: %s\n", err.msg);
		status = EXIT_RUN_FAILED;
	}
	if (status == EXIT_DONE && cc->fail_on_regression && f.npoints == f.nsingle) {
		fprintf(stderr, "mmprof compare: no job point was run by two hosts: "
				"--fail-on-regression has nothing to judge: exit 2\n");
		status = EXIT_USAGE;
	} else if (status == EXIT_DONE && cc->fail_on_regression && f.nslower) {
		fprintf(stderr, "mmprof compare: %zu host(s) at a job point slower than its median "
				"host (--fail-on-regression): exit 3\n",
			f.nslower);
		status = EXIT_REGRESSED;
	}
	mmp_fleet_free(&f);
	return status;
}

/* B's runs with a wrong result, matched in A or not. */
static size_t wrong_in_b(const struct mmp_comparison *c)
{
	size_t n = 0;
	for (size_t i = 0; i < c->b.nruns; i++)
		n += (size_t)(c->b.run[i].wrong != 0);
	return n;
}

int mmp_cli_cmd_compare(int argc, char **argv)
{
	struct compare_cli cc;
	struct mmp_comparison c;
	struct mmp_error err = { 0 };
	int status = parse_compare(argc, argv, &cc);
	if (status >= 0)
		return status;
	if (cc.nfiles > 2)
		return compare_fleet(&cc);

	const char *inputs[2] = { cc.a, cc.b };
	int rc = cc.csv ? mmp_outfile_check_alone(cc.csv, inputs, 2, &err) : 0;
	if (rc == -EEXIST) {
		fprintf(stderr, "mmprof compare: --csv %s is one of the files compared: write the "
				"comparison elsewhere\n",
			cc.csv);
		return EXIT_USAGE;
	}
	if (rc) {
		fprintf(stderr, "mmprof compare: --csv: %s\n", err.msg);
		return EXIT_USAGE;
	}
	if (mmp_compare_run(&c, cc.a, cc.b, cc.tolerance, cc.vary, &err)) {
		fprintf(stderr, "mmprof compare: %s\n", err.msg);
		mmp_compare_free(&c);
		return EXIT_USAGE;
	}
	mmp_compare_print(stdout, &c);
	status = EXIT_DONE;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "mmprof compare: error: writing to stdout: %s\n", strerror(errno));
		status = EXIT_RUN_FAILED;
	}
	if (cc.csv && mmp_compare_csv(&c, cc.csv, &err)) {
		fprintf(stderr, "mmprof compare: error: %s\n", err.msg);
		status = EXIT_RUN_FAILED;
	}
	/* A gate that compared nothing passed nothing. */
	size_t judged = c.npairs - c.nceilings;
	if (status == EXIT_DONE && cc.fail_on_regression && !judged) {
		fprintf(stderr, "mmprof compare: no run of A matched one of B (only in A: %zu, "
				"only in B: %zu): --fail-on-regression has nothing to judge; if "
				"the runs differ in a key on purpose, say so with --vary KEY: "
				"exit 2\n",
			c.nonly_a, c.nonly_b);
		status = EXIT_USAGE;
	} else if (status == EXIT_DONE && cc.fail_on_regression && wrong_in_b(&c)) {
		/* A wrong result is a regression whatever its time: a probe
		 * that skipped the data is fast. */
		fprintf(stderr, "mmprof compare: %zu run(s) of B have a result that differs from "
				"the reference (result_ok = false; --fail-on-regression): exit 3\n",
			wrong_in_b(&c));
		status = EXIT_REGRESSED;
	} else if (status == EXIT_DONE && cc.fail_on_regression && c.count[MMP_COMPARE_SLOWER]) {
		fprintf(stderr, "mmprof compare: %zu run(s) slower in B (--fail-on-regression): "
				"exit 3\n",
			c.count[MMP_COMPARE_SLOWER]);
		status = EXIT_REGRESSED;
	}
	mmp_compare_free(&c);
	return status;
}
