/* The events of a whole plan: each distinct `events =` value resolved
 * once, the union of their names (the CSV's counter columns), notes on how
 * they are grouped, and each event's missing values explained once per
 * config rather than once per thread or run. */
#ifndef MMPROF_EVENTPLAN_H
#define MMPROF_EVENTPLAN_H

#include <stdio.h>

#include "config/config.h"
#include "platform/counters.h"
#include "platform/events.h"
#include "util/observer.h"
#include "plan/plan.h"

struct mmp_eventplan {
	struct mmp_eventplan_set {
		const char *spec; /* the config's text */
		struct mmp_event_set set;
	} *sets;
	size_t nsets;
	const char **names; /* union of event names, first appearance first */
	size_t nnames;
	char **told; /* "name\tstate" already explained */
	size_t ntold;
};

int mmp_eventplan_build(struct mmp_eventplan *ep, const struct mmp_plan *plan, char *err,
			size_t errlen);
const struct mmp_event_set *mmp_eventplan_set(const struct mmp_eventplan *ep,
					      const char *spec);
/* Hardware events that need more than one group: tell obs, once. */
void mmp_eventplan_notes(const struct mmp_eventplan *ep, const struct mmp_observer *obs);
/* After a repetition of a run of `job` counting `events`: why an event has
 * no value (its open failed with open_error[i], or counts[i] never was on
 * a counter), once per event and reason. */
void mmp_eventplan_explain(struct mmp_eventplan *ep, const struct mmp_event_set *events,
			   const int *open_error, const struct mmp_count *counts,
			   const char *job, const struct mmp_observer *obs);
/* A run's counters split hardware groups the PMU did not take (splits,
 * counters.h): tell obs, once per events spec. */
void mmp_eventplan_split(struct mmp_eventplan *ep, const char *spec, size_t splits,
			 const struct mmp_observer *obs);
void mmp_eventplan_free(struct mmp_eventplan *ep);

#endif
