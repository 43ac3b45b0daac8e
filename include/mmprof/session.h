/* One invocation over a plan: placements checked against the machine,
 * then every run in order with its data file, CSV rows, progress and
 * warnings, then the report.  main() only parses the command line and
 * calls these. */
#ifndef MMPROF_SESSION_H
#define MMPROF_SESSION_H

#include <signal.h>
#include <stdio.h>

#include "mmprof/config.h"
#include "mmprof/topology.h"

struct mmp_session {
	struct mmp_config *cfg;
	struct mmp_plan *plan;
	struct mmp_topology *topo;
	struct mmp_pin_plan *pins; /* [plan->nruns] */
	const char *csv_path;
	int quiet;    /* no warnings or notes on stderr (errors stay) */
	int progress; /* a progress line on stderr (a TTY) */
	int per_thread; /* also write NAME.threads.csv */
	const volatile sig_atomic_t *stop;
};

/* Plan every run's placement; problems become config diagnostics with the
 * placement's FILE:LINE.  -EINVAL when there are any. */
int mmp_session_place(struct mmp_session *s);

/* --dry-run: the expanded plan; --topology: the machine and placements. */
void mmp_session_print_plan(const struct mmp_session *s, FILE *out);
void mmp_session_print_topology(const struct mmp_session *s, FILE *out);

/* Run everything.  Returns 0 when every run ran and every result matched,
 * 1 when some run failed or some result was wrong, 130 when interrupted. */
int mmp_session_run(struct mmp_session *s);

void mmp_session_free(struct mmp_session *s);

/* results/NAME.csv for configs/NAME.ini. */
void mmp_default_csv_path(const char *config_path, char *buf, size_t len);

#endif
