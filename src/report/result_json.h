/* --json PATH: one JSON document per invocation, from the results computed
 * once -- the machine, the plan, every run with its statistics, counters
 * and derived metrics, the attribution of every job point with controls,
 * and the answers.  docs/json.md documents every field;
 * tests/integration/json.sh checks the file against it.
 *
 * MMP_JSON_SCHEMA_VERSION is the document's own version, apart from the
 * CSV's: it goes up when a field is renamed, removed or changes type or
 * meaning; adding a field does not change it (readers ignore fields they
 * do not know).
 *
 * The file is written with the other result files, before NAME.csv is
 * committed: through the result set when PATH is NAME.json (so NAME.csv's
 * commit keeps it), else alone at PATH with the same temporary + rename
 * (outfile.h).  Absent values are null, never 0.
 */
#ifndef MMPROF_RESULT_JSON_H
#define MMPROF_RESULT_JSON_H

#include <stdio.h>

#include "analysis/analysis.h"
#include "util/error.h"
#include "platform/meta.h"
#include "util/outfile.h"
#include "result/result.h"
#include "platform/topology.h"

#define MMP_JSON_SCHEMA_VERSION 1

struct mmp_result_json {
	const struct mmp_analysis *an; /* and its results */
	const struct mmp_meta *meta;
	const struct mmp_topology *topo; /* NULL: machine counts are null */
	const char *config;              /* the config's path */
	const char *csv;                 /* NAME.csv */
	int interrupted, failed, changed, wrong; /* as struct mmp_session_out says */
	double seconds;
};

/* runs[].profile: a program's sampling profile, null when none
 * (src/report/profile_json.c). */
struct mmp_json;
void mmp_profile_json(struct mmp_json *j, const struct mmp_results *res,
		      const struct mmp_run_result *r);

/* runs[].beside and runs[].preload: what ran on a program's PUs beside
 * it and what the preload library changed in it, over the rounds; null
 * for probes (src/report/program_json.c). */
void mmp_program_json(struct mmp_json *j, const struct mmp_run_result *r);

/* The document to f.  0, or -EINVAL when the writer was misused (a bug:
 * the text is not valid JSON). */
int mmp_result_json_write(FILE *f, const struct mmp_result_json *in);

/* Write the document to path (see above); written gets where it went.
 * 0 or a negative errno with a message naming the file. */
int mmp_result_json_save(struct mmp_outset *set, const char *path,
			 const struct mmp_result_json *in, char *written, size_t len,
			 struct mmp_error *err);

#endif
