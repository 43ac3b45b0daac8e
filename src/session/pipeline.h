/* A whole config run, as mmprof --config and mmprof exec run one: the
 * config read (or built in memory), its job points expanded and their
 * data checked, the machine loaded, the plan built, the result files'
 * paths made (mmp_pipeline_plan: what --dry-run and --topology print);
 * then the result files opened and locked, the session run and its
 * results computed and written (mmp_pipeline_run).  Every message goes
 * to the observer as facts (observer.h); the words, the report and the
 * exit status are the command line's.
 */
#ifndef MMPROF_PIPELINE_H
#define MMPROF_PIPELINE_H

#include <signal.h>

#include "config/config.h"
#include "util/observer.h"
#include "util/outfile.h"
#include "plan/plan.h"
#include "session/session.h"
#include "platform/topology.h"

struct mmp_pipeline_opts {
	const char *config;        /* the config file to read */
	struct mmp_config *cfg;    /* or a config built in memory (mmprof exec); NULL: read */
	const char *csv;           /* --csv PATH ({host} filled in); NULL: the csv key's, else
				    * results/NAME.csv */
	const char *json;          /* --json PATH ({host} filled in); NULL: none */
	const char *topology_from; /* a described machine (plans only); NULL: this one */
	unsigned long repeat;      /* every job's repeat; 0: as configured */
	int per_thread;            /* also NAME.threads.csv */
	/* mmprof exec: the results are named exec-JOB (one program's do
	 * not replace another's), the previous set kept as exec-JOB.old.csv. */
	int exec;
	const volatile sig_atomic_t *stop; /* set: stop after the current repetition */
	/* Called with the session's output just before it runs and with NULL
	 * when it is done: what a signal handler rescues (NULL: nobody). */
	void (*running)(void *ctx, struct mmp_session_out *so);
	void *ctx;
};

struct mmp_pipeline {
	struct mmp_config *cfg; /* opts->cfg, or own */
	struct mmp_config own;
	struct mmp_sweep sweep;
	struct mmp_plan plan;
	struct mmp_topology *topo;
	char csv_path[4096];
	char json_path[4096];
	const char *json; /* json_path, NULL: no --json */
	struct mmp_outset files;
	struct mmp_session session; /* what ran (after mmp_pipeline_run) */
	struct mmp_session_out out; /* its results (ran set) */
	int ran;
	/* The config or an option is wrong (said to the observer): nothing
	 * was run.  Unset with an error: something could not be done. */
	int refused;
};

/* Up to the plan and the result files' paths.  0, or a negative errno
 * (said; refused tells whose fault).  Free p either way. */
int mmp_pipeline_plan(struct mmp_pipeline *p, const struct mmp_pipeline_opts *o,
		      const struct mmp_observer *obs);
/* The planned runs, measured on this machine, their results in p->out.
 * 0 (p->out says how it went), or a negative errno when nothing could
 * start (said; refused tells whose fault). */
int mmp_pipeline_run(struct mmp_pipeline *p, const struct mmp_pipeline_opts *o,
		     const struct mmp_observer *obs);
/* Everything p holds, the config given in opts->cfg too. */
void mmp_pipeline_free(struct mmp_pipeline *p);

#endif
