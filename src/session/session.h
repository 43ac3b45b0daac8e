/* One invocation over a plan: each comparison set in rounds (schedule.h),
 * every repetition recorded (CSV rows as they finish, results), repetition
 * by repetition told to the observer (progress, a wrong result, an event
 * that cannot be counted: observer.h), then the results computed once and
 * the companion files (and the --json document) written.  The words, the
 * report and the exit status are main()'s.
 */
#ifndef MMPROF_SESSION_H
#define MMPROF_SESSION_H

#include <signal.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "config/config.h"
#include "report/csv.h"
#include "data/datafile.h"
#include "plan/eventplan.h"
#include "platform/meta.h"
#include "util/observer.h"
#include "util/outfile.h"
#include "plan/plan.h"
#include "result/result.h"
#include "platform/topology.h"

struct mmp_session {
	struct mmp_config *cfg;
	const struct mmp_plan *plan;
	struct mmp_topology *topo;
	struct mmp_outset *files; /* NAME.csv and its companions, opened and locked */
	const struct mmp_observer *obs; /* told what happens (NULL: nobody) */
	int per_thread; /* also write NAME.threads.csv */
	const char *json; /* --json PATH (checked by the caller), NULL: none */
	const volatile sig_atomic_t *stop;
};

struct mmp_session_out {
	struct mmp_meta meta;
	struct mmp_csv csv; /* open while the run lasts (csv.f set): main's rescue */
	struct mmp_results res;
	struct mmp_analysis an; /* of res */
	struct mmp_datafiles files;
	struct mmp_eventplan ep; /* the results' event sets point into it */
	unsigned long rows;
	int interrupted; /* stopped by a signal: rows measured so far are kept */
	int failed;      /* a run could not be carried out, or a file not written */
	int changed;     /* a data file changed under the run: it stopped there */
	int wrong;       /* a result differed from the reference */
	int write_failed; /* a CSV row could not be written: it stopped there */
	int record_failed; /* a repetition could not be recorded: it stopped there */
	double seconds;
	uint64_t t0; /* when the session started (mmp_now_ns) */
	char threads_path[4096];
	char attribution_path[4096];
	char answers_path[4096];
	char folded_path[4096];
	char profile_path[4096];
	char json_path[4096]; /* where the JSON went */
	int calibrated; /* the calibration was tried (meta.calibration says how it went) */
	int wrote_csv; /* NAME.csv is this run's (rows were measured and kept) */
	int wrote_attribution, wrote_answers, wrote_json, wrote_profile, wrote_folded;
	/* This invocation's programs' logs (probe = exec, logdir.h):
	 * NAME.logs/RUNID/ beside NAME.csv, or a directory under $TMPDIR when
	 * NAME.csv is a device; "" when the plan runs no program. */
	char logs_path[4096];
};

/* Run everything.  0, or a negative errno when nothing could start (the
 * observer was told why).  out is filled either way; free it. */
int mmp_session_run(const struct mmp_session *s, struct mmp_session_out *out);
void mmp_session_out_free(struct mmp_session_out *out);

/* results/NAME.csv for configs/NAME.ini. */
void mmp_default_csv_path(const char *config_path, char *buf, size_t len);

#endif
