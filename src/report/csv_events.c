/* NAME.events.csv: one row per event of every repetition (see csv.h). */
#include <inttypes.h>
#include <stdio.h>

#include "report/csv.h"
#include "csv_impl.h"

/* A row of NAME.events.csv: event i of a repetition, summed over the
 * run's threads (thread < 0) or one thread's. */
struct event_row {
	const struct mmp_meta *meta;
	const struct mmp_run_info *info;
	const struct mmp_rep *rep;
	const struct mmp_count *c;
	size_t i;
	long thread;
};

static void ev_schema(const void *row, char *buf, size_t len)
{
	(void)row;
	snprintf(buf, len, "%d", MMP_CSV_SCHEMA_VERSION);
}

static void ev_run_id(const void *row, char *buf, size_t len)
{
	const struct event_row *e = row;
	snprintf(buf, len, "%s", e->meta->run_id);
}

static void ev_host(const void *row, char *buf, size_t len)
{
	const struct event_row *e = row;
	snprintf(buf, len, "%s", e->meta->host);
}

static void ev_run(const void *row, char *buf, size_t len)
{
	const struct event_row *e = row;
	snprintf(buf, len, "%zu", e->info->run->index + 1);
}

static void ev_rep(const void *row, char *buf, size_t len)
{
	const struct event_row *e = row;
	snprintf(buf, len, "%u", e->rep->index);
}

static void ev_thread(const void *row, char *buf, size_t len)
{
	const struct event_row *e = row;
	if (e->thread >= 0)
		snprintf(buf, len, "%ld", e->thread);
}

static void ev_event(const void *row, char *buf, size_t len)
{
	const struct event_row *e = row;
	snprintf(buf, len, "%s", e->info->events->ev[e->i].name);
}

/* The figures of a count that is not valid stay empty: never 0. */
static void ev_value(const void *row, char *buf, size_t len)
{
	const struct event_row *e = row;
	if (mmp_count_valid(e->c))
		snprintf(buf, len, "%.0f", e->c->value);
}

static void ev_raw(const void *row, char *buf, size_t len)
{
	const struct event_row *e = row;
	if (mmp_count_valid(e->c))
		snprintf(buf, len, "%" PRIu64, e->c->raw);
}

static void ev_enabled(const void *row, char *buf, size_t len)
{
	const struct event_row *e = row;
	if (mmp_count_valid(e->c))
		snprintf(buf, len, "%" PRIu64, e->c->enabled);
}

static void ev_running(const void *row, char *buf, size_t len)
{
	const struct event_row *e = row;
	if (mmp_count_valid(e->c))
		snprintf(buf, len, "%" PRIu64, e->c->running);
}

static void ev_state(const void *row, char *buf, size_t len)
{
	const struct event_row *e = row;
	snprintf(buf, len, "%s", mmp_count_state_name(e->c->state));
}

/* NAME.events.csv: every count of every repetition, long format, so that
 * NAME.csv has the same columns whatever a config counts and any event a
 * PMU offers fits. */
static const struct mmp_csv_column event_columns[] = {
	{ "schema_version", ev_schema, "version of this column layout" },
	{ "run_id", ev_run_id, "the mmprof invocation (as in NAME.csv)" },
	{ "run", ev_run, "the run (NAME.csv's run)" },
	{ "rep", ev_rep, "recorded repetition (NAME.csv's rep)" },
	{ "thread", ev_thread, "empty: the sum over the run's threads; else the thread (--per-thread)" },
	{ "event", ev_event, "the event as the config names it" },
	{ "value", ev_value, "the count, scaled by enabled/running when multiplexed; empty unless counted" },
	{ "raw", ev_raw, "the count as read" },
	{ "enabled_ns", ev_enabled, "time the event was enabled" },
	{ "running_ns", ev_running, "time it was on a counter" },
	{ "state", ev_state, "counted, scaled, not counted, not supported or denied" },
	{ "host", ev_host, "the host that ran it (as NAME.csv's host): rows of several hosts stay apart" },
};
const struct mmp_csv_table mmp_csv_event_table =
	MMP_CSV_TABLE("NAME.events.csv", event_columns, MMP_EVENT_NAME_MAX + 8);

void mmp_csv_event_rows(struct mmp_csv *csv, const struct mmp_run_info *info,
		       const struct mmp_rep *rep, const struct mmp_count *counts, long thread)
{
	for (size_t i = 0; i < info->events->n; i++) {
		struct event_row e = { csv->meta, info, rep, &counts[i], i, thread };
		mmp_csv_row_of(csv->ef, &mmp_csv_event_table, &e);
	}
}
