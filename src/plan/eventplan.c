/* The events of a plan (see eventplan.h). */
#include "plan/eventplan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/counters.h"

const struct mmp_event_set *mmp_eventplan_set(const struct mmp_eventplan *ep,
					      const char *spec)
{
	for (size_t i = 0; spec && i < ep->nsets; i++)
		if (strcmp(ep->sets[i].spec, spec) == 0)
			return &ep->sets[i].set;
	return NULL;
}

static int add_name(struct mmp_eventplan *ep, const char *name)
{
	for (size_t i = 0; i < ep->nnames; i++)
		if (strcmp(ep->names[i], name) == 0)
			return 0;
	const char **grown = realloc(ep->names, (ep->nnames + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	ep->names = grown;
	ep->names[ep->nnames++] = name;
	return 0;
}

int mmp_eventplan_build(struct mmp_eventplan *ep, const struct mmp_plan *plan, char *err,
			size_t errlen)
{
	memset(ep, 0, sizeof(*ep));
	for (size_t r = 0; r < plan->nruns; r++) {
		const char *spec = plan->runs[r].run.p.events;
		if (!spec || mmp_eventplan_set(ep, spec))
			continue;
		struct mmp_eventplan_set *grown = realloc(ep->sets, (ep->nsets + 1) * sizeof(*grown));
		if (!grown)
			goto nomem;
		ep->sets = grown;
		struct mmp_eventplan_set *s = &ep->sets[ep->nsets];
		s->spec = spec;
		int rc = mmp_events_resolve(spec, &s->set, err, errlen);
		if (rc)
			return rc;
		ep->nsets++;
	}
	/* Names point into the sets, which no longer move. */
	for (size_t i = 0; i < ep->nsets; i++)
		for (size_t e = 0; e < ep->sets[i].set.n; e++)
			if (add_name(ep, ep->sets[i].set.ev[e].name))
				goto nomem;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

void mmp_eventplan_notes(const struct mmp_eventplan *ep, const struct mmp_observer *obs)
{
	unsigned max = mmp_events_pmu_counters();
	/* Without a PMU the kernel opens none of them: how they would share
	 * counters is moot, and the one no-PMU line (mmp_eventplan_explain)
	 * says what is true. */
	if (!mmp_counters_have_pmu())
		return;
	for (size_t i = 0; i < ep->nsets; i++) {
		const struct mmp_event_set *set = &ep->sets[i].set;
		int *group_of = calloc(set->n ? set->n : 1, sizeof(int));
		size_t hw = 0;
		if (!group_of)
			return;
		mmp_counters_plan_groups(set, max, group_of);
		for (size_t e = 0; e < set->n; e++)
			hw += set->ev[e].kind == MMP_EV_HARDWARE;
		if (hw > max)
			mmp_observer_tell(obs, &(struct mmp_told){
						       .what = MMP_TELL_EVENT_GROUPS,
						       .groups = { .spec = ep->sets[i].spec,
								   .pmu = mmp_events_pmu_name(),
								   .events = hw,
								   .groups = (hw + max - 1) / max,
								   .counters = max } });
		free(group_of);
	}
}

/* 1 the first time (event, reason) is seen. */
static int first_time(struct mmp_eventplan *ep, const char *name, const char *reason)
{
	char key[MMP_EVENT_NAME_MAX + 32];
	snprintf(key, sizeof(key), "%s\t%s", name, reason);
	for (size_t i = 0; i < ep->ntold; i++)
		if (strcmp(ep->told[i], key) == 0)
			return 0;
	char **grown = realloc(ep->told, (ep->ntold + 1) * sizeof(*grown));
	if (!grown)
		return 1;
	ep->told = grown;
	ep->told[ep->ntold] = strdup(key);
	if (ep->told[ep->ntold])
		ep->ntold++;
	return 1;
}

/* A hardware event the kernel refused for want of a PMU (a VM, a container):
 * the same errors mmp_counters_explain reads as "no hardware PMU". */
static int no_pmu(const struct mmp_event *ev, int error)
{
	return !ev->unavailable && ev->kind == MMP_EV_HARDWARE &&
	       (error == ENOENT || error == ENODEV || error == EOPNOTSUPP);
}

/* Events said together in one line: "cycles, instructions". */
struct said_together {
	char names[400];
	size_t n;
};

static void say_with(struct said_together *s, const char *name)
{
	size_t used = strlen(s->names);
	snprintf(s->names + used, sizeof(s->names) - used, "%s%s", s->n ? ", " : "", name);
	s->n++;
}

void mmp_eventplan_explain(struct mmp_eventplan *ep, const struct mmp_event_set *events,
			   const int *open_error, const struct mmp_count *counts,
			   const char *job, const struct mmp_observer *obs)
{
	char why[400];
	struct said_together nopmu = { "", 0 }, nosys = { "", 0 };
	int pmu = mmp_counters_have_pmu();
	for (size_t i = 0; !pmu && events && i < events->n; i++)
		pmu = events->ev[i].kind == MMP_EV_HARDWARE && !open_error[i];
	for (size_t i = 0; events && i < events->n; i++) {
		const struct mmp_event *ev = &events->ev[i];
		const struct mmp_count *c = &counts[i];
		int error = open_error[i];
		if (error) {
			if (!first_time(ep, ev->name, "open"))
				continue;
			/* Said once for all of them: a VM without a PMU, or a
			 * kernel (an emulator) without perf_event_open, would
			 * otherwise open every run with a line per event. */
			if (error == ENOSYS && !ev->unavailable) {
				say_with(&nosys, ev->name);
				continue;
			}
			if (!pmu && no_pmu(ev, error)) {
				say_with(&nopmu, ev->name);
				continue;
			}
			mmp_counters_explain(ev, error, why, sizeof(why));
			mmp_observer_tell(obs, &(struct mmp_told){ .what = MMP_TELL_EVENT_NOT_OPENED,
								   .text = why,
								   .event = { .name = ev->name } });
		} else if (!mmp_count_valid(c)) {
			if (!first_time(ep, ev->name, mmp_count_state_name(c->state)))
				continue;
			mmp_observer_tell(obs, &(struct mmp_told){
						       .what = MMP_TELL_EVENT_NOT_COUNTED,
						       .event = { .name = ev->name,
								  .state = mmp_count_state_name(c->state),
								  .job = job } });
		}
	}
	if (nosys.n)
		mmp_observer_tell(obs, &(struct mmp_told){ .what = MMP_TELL_NO_PERF_EVENTS,
							   .nopmu = { .n = nosys.n, .names = nosys.names } });
	if (nopmu.n)
		mmp_observer_tell(obs, &(struct mmp_told){ .what = MMP_TELL_NO_PMU,
							   .nopmu = { .n = nopmu.n, .names = nopmu.names } });
}

void mmp_eventplan_split(struct mmp_eventplan *ep, const char *spec, size_t splits,
			 const struct mmp_observer *obs)
{
	if (!splits || !spec || !first_time(ep, spec, "split"))
		return;
	mmp_observer_tell(obs, &(struct mmp_told){ .what = MMP_TELL_EVENT_GROUPS_SPLIT,
						   .groups = { .spec = spec,
							       .pmu = mmp_events_pmu_name(),
							       .groups = splits,
							       .counters = mmp_events_pmu_counters() } });
}

void mmp_eventplan_free(struct mmp_eventplan *ep)
{
	for (size_t i = 0; i < ep->nsets; i++)
		mmp_event_set_free(&ep->sets[i].set);
	free(ep->sets);
	free(ep->names);
	for (size_t i = 0; i < ep->ntold; i++)
		free(ep->told[i]);
	free(ep->told);
	memset(ep, 0, sizeof(*ep));
}
