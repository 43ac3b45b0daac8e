/* The words of what a session tells (observer.h): one row per kind of
 * message, and the observer main passes to the session.  Everything the
 * session says on stderr is worded here; --quiet drops notes and warnings
 * here, and the progress line is cleared here before any other line. */
#include "say.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "report/report.h"
#include "util/units.h"

static const char *phase(const struct mmp_told *t)
{
	return t->rep.warmup ? "warmup" : "rep";
}

static void w_note(FILE *f, const struct mmp_told *t)
{
	fprintf(f, "mmprof: note: %s\n", t->text);
}

/* Wrapped: a result file's path can be longer than a line. */
static void w_files_note(FILE *f, const struct mmp_told *t)
{
	mmp_fprintf_wrapped(f, "mmprof: note: %s\n", t->text);
}

static void w_created(FILE *f, const struct mmp_told *t)
{
	char size[32];
	fprintf(f, "mmprof: created %s (%s, %s) at %.0f MB/s\n", t->created.path,
		mmp_format_size(t->created.size, size, sizeof(size)), t->created.fill,
		t->created.bytes_per_s / 1e6);
}

static void w_unapplied(FILE *f, const struct mmp_told *t)
{
	fprintf(f, "mmprof: note: %s controls: %s does not apply to ", t->unapplied.where,
		t->unapplied.control);
	if (t->unapplied.points < t->unapplied.of) /* other points, other reasons */
		fprintf(f, "%zu of [%s]'s %zu points", t->unapplied.points, t->unapplied.job,
			t->unapplied.of);
	else
		fprintf(f, "[%s]", t->unapplied.job);
	fprintf(f, ": %s; it gets no rung\n", t->unapplied.why);
}

static void w_groups(FILE *f, const struct mmp_told *t)
{
	fprintf(f,
		"mmprof: note: events = %s has %zu hardware events; %s has %u counters, so "
		"they are measured as %zu groups that take turns (values scaled, see the "
		"*_run_ratio columns)\n",
		t->groups.spec, t->groups.events, t->groups.pmu, t->groups.counters,
		t->groups.groups);
}

static void w_groups_split(FILE *f, const struct mmp_told *t)
{
	fprintf(f,
		"mmprof: note: events = %s: the PMU would not take one group of them at once "
		"(another tool holds counters, or it has fewer than the %u libpfm4 counts for %s), "
		"so mmprof split it %zu time(s) into smaller groups that take turns (values "
		"scaled, see the *_run_ratio columns)\n",
		t->groups.spec, t->groups.counters, t->groups.pmu, t->groups.groups);
}

static void w_no_data(FILE *f, const struct mmp_told *t)
{
	fprintf(f,
		"mmprof: note: [%s] reads no data file (neither file nor size): its result is "
		"not checked, and its figures are per run, not per byte\n",
		t->run);
}

static void w_oversubscribed(FILE *f, const struct mmp_told *t)
{
	fprintf(f,
		"mmprof: warning: %u threads on %u PU(s) (placement %s) is oversubscribed: "
		"threads take turns, and their time includes waiting for the scheduler%s%s\n",
		t->oversub.threads, t->oversub.pus, t->oversub.placement,
		t->oversub.restricted && *t->oversub.restricted ? "; the PUs were restricted by " : "",
		t->oversub.restricted ? t->oversub.restricted : "");
}

static void w_not_opened(FILE *f, const struct mmp_told *t)
{
	fprintf(f, "mmprof: %s: %s; its CSV cells stay empty\n", t->event.name, t->text);
}

static void w_no_pmu(FILE *f, const struct mmp_told *t)
{
	mmp_fprintf_wrapped(f,
		"mmprof: no hardware PMU here: %zu hardware event%s not counted (%s); software "
		"counters only (their CSV cells stay empty; --list-events and NAME.events.csv "
		"say why for each)\n",
		t->nopmu.n, t->nopmu.n == 1 ? "" : "s", t->nopmu.names);
}

static void w_no_perf_events(FILE *f, const struct mmp_told *t)
{
	fprintf(f,
		"mmprof: no perf_event_open here (%s: a kernel without perf events, or an "
		"emulator such as qemu-user): %zu event%s not counted (%s); their CSV cells stay "
		"empty\n",
		strerror(ENOSYS), t->nopmu.n, t->nopmu.n == 1 ? "" : "s", t->nopmu.names);
}

static void w_not_counted(FILE *f, const struct mmp_told *t)
{
	fprintf(f,
		"mmprof: %s: %s in [%s] (opened, but never on a counter while a thread ran: "
		"too many events for the PMU, or another tool holds it); those cells stay "
		"empty\n",
		t->event.name, t->event.state, t->event.job);
}

static void w_escaped(FILE *f, const struct mmp_told *t)
{
	fprintf(f,
		"mmprof: warning: %s %s %u: %s; its repetitions that do are marked disturbed (the "
		"CSV's escaped, pus_ran and disturbed_why; said once per run)\n",
		t->run, phase(t), t->rep.index, t->text);
}

static void w_run_failed(FILE *f, const struct mmp_told *t)
{
	fprintf(f, "mmprof: error: %s: %s\n", t->run, t->text);
}

static void w_probe_failed(FILE *f, const struct mmp_told *t)
{
	fprintf(f, "mmprof: error: %s %s %u: the probe failed: %s\n", t->run, phase(t),
		t->rep.index, strerror(t->err));
}

static void w_output_wrong(FILE *f, const struct mmp_told *t)
{
	fprintf(f, "mmprof: error: %s %s %u: the program printed %s: WRONG (log: %s)\n", t->run,
		phase(t), t->rep.index, t->text, t->rep.log);
}

static void w_output_differs(FILE *f, const struct mmp_told *t)
{
	fprintf(f,
		"mmprof: error: %s %s %u: the program printed %" PRIu64 ", which differs from "
		"the reference (%s of %s) (log: %s)\n",
		t->run, phase(t), t->rep.index, t->rep.got, t->rep.kernel, t->rep.path,
		t->rep.log);
}

static void w_count_wrong(FILE *f, const struct mmp_told *t)
{
	fprintf(f,
		"mmprof: error: %s %s %u: %" PRIu64 " %ss right, of %" PRIu64
		": the probe did not do what it should\n",
		t->run, phase(t), t->rep.index, t->rep.got, t->rep.unit, t->rep.expected);
}

static void w_result_differs(FILE *f, const struct mmp_told *t)
{
	fprintf(f,
		"mmprof: error: %s %s %u: result %" PRIu64 " differs from the reference (%s of "
		"%s): the probe did not read what it should\n",
		t->run, phase(t), t->rep.index, t->rep.got, t->rep.kernel, t->rep.path);
}

static void w_failed(FILE *f, const struct mmp_told *t)
{
	fprintf(f, "mmprof: error: %s\n", t->text);
}

static void w_logs_failed(FILE *f, const struct mmp_told *t)
{
	fprintf(f, "mmprof: error: the programs' logs: %s\n", t->text);
}

static void w_out_of_memory(FILE *f, const struct mmp_told *t)
{
	(void)t;
	fprintf(f, "mmprof: error: out of memory\n");
}

static void w_errno(FILE *f, const struct mmp_told *t)
{
	fprintf(f, "mmprof: error: %s\n", strerror(t->err));
}

static void w_plain(FILE *f, const struct mmp_told *t)
{
	fprintf(f, "mmprof: %s\n", t->text);
}

static void w_config_unreadable(FILE *f, const struct mmp_told *t)
{
	fprintf(f, "mmprof: cannot read %s: %s\n", t->text, strerror(t->err));
}

static void w_config_wrong(FILE *f, const struct mmp_told *t)
{
	for (size_t i = 0; i < t->diags.n; i++)
		fprintf(f, "%s\n", t->diags.lines[i]);
	fprintf(f, "mmprof: %s\n", t->text);
}

static void w_bad_path(FILE *f, const struct mmp_told *t)
{
	fprintf(f, "mmprof: %s %s: %s\n", t->bad_path.option, t->bad_path.path, t->text);
}

static void w_described(FILE *f, const struct mmp_told *t)
{
	fprintf(f,
		"mmprof: the machine is described (%s): it plans (--dry-run, --topology) "
		"but runs no probe; unset HWLOC_SYNTHETIC / HWLOC_XMLFILE or drop "
		"--topology-from to measure this one\n",
		t->text);
}

static void w_nothing_run(FILE *f, const struct mmp_told *t)
{
	fprintf(f, "mmprof: error: %s; nothing was run\n", t->text);
}

/* The words of each kind, by its enum value. */
static void (*const words[])(FILE *, const struct mmp_told *) = {
	[MMP_TELL_NOTE] = w_note,
	[MMP_TELL_FILES_NOTE] = w_files_note,
	[MMP_TELL_DATA_CREATED] = w_created,
	[MMP_TELL_CONTROL_UNAPPLIED] = w_unapplied,
	[MMP_TELL_EVENT_GROUPS] = w_groups,
	[MMP_TELL_EVENT_GROUPS_SPLIT] = w_groups_split,
	[MMP_TELL_NO_DATA] = w_no_data,
	[MMP_TELL_OVERSUBSCRIBED] = w_oversubscribed,
	[MMP_TELL_EVENT_NOT_OPENED] = w_not_opened,
	[MMP_TELL_NO_PMU] = w_no_pmu,
	[MMP_TELL_NO_PERF_EVENTS] = w_no_perf_events,
	[MMP_TELL_EVENT_NOT_COUNTED] = w_not_counted,
	[MMP_TELL_ESCAPED] = w_escaped,
	[MMP_TELL_RUN_FAILED] = w_run_failed,
	[MMP_TELL_PROBE_FAILED] = w_probe_failed,
	[MMP_TELL_OUTPUT_WRONG] = w_output_wrong,
	[MMP_TELL_OUTPUT_DIFFERS] = w_output_differs,
	[MMP_TELL_COUNT_WRONG] = w_count_wrong,
	[MMP_TELL_RESULT_DIFFERS] = w_result_differs,
	[MMP_TELL_FAILED] = w_failed,
	[MMP_TELL_LOGS_FAILED] = w_logs_failed,
	[MMP_TELL_OUT_OF_MEMORY] = w_out_of_memory,
	[MMP_TELL_ERRNO] = w_errno,
	[MMP_TELL_NOT_A_CONFIG] = w_plain,
	[MMP_TELL_CONFIG_UNREADABLE] = w_config_unreadable,
	[MMP_TELL_CONFIG_WRONG] = w_config_wrong,
	[MMP_TELL_NO_MACHINE] = w_plain,
	[MMP_TELL_BAD_PATH] = w_bad_path,
	[MMP_TELL_DESCRIBED] = w_described,
	[MMP_TELL_NOTHING_RUN] = w_nothing_run,
};

void mmp_say_told(FILE *f, const struct mmp_told *t)
{
	if ((size_t)t->what < sizeof(words) / sizeof(words[0]) && words[t->what])
		words[t->what](f, t);
	else
		fprintf(f, "mmprof: message %d has no words (src/cli/say.c)\n", (int)t->what);
}

void mmp_say_end_progress(struct mmp_say *say)
{
	if (say->shown) {
		fprintf(say->out, "\r\033[K");
		fflush(say->out);
		say->shown = 0;
	}
}

static void say_line(struct mmp_say *say, const struct mmp_told *t)
{
	mmp_say_end_progress(say);
	mmp_say_told(say->out, t);
}

static void on_note(void *ctx, const struct mmp_told *t)
{
	struct mmp_say *say = ctx;
	if (!say->quiet)
		say_line(say, t);
}

static void on_error(void *ctx, const struct mmp_told *t)
{
	say_line(ctx, t);
}

static void on_progress(void *ctx, const struct mmp_progress *p)
{
	struct mmp_say *say = ctx;
	fprintf(say->out, "\r\033[K[set %zu/%zu round %u/%u%s%s] %s", p->set + 1, p->nsets,
		p->round + 1, p->total, p->more ? "+" : "", p->warmup ? " warmup" : "", p->run);
	if (p->eta_s > 1)
		fprintf(say->out, "  set ETA %.0fs", p->eta_s);
	fflush(say->out);
	say->shown = 1;
}

void mmp_say_observer(struct mmp_say *say, struct mmp_observer *obs)
{
	*obs = (struct mmp_observer){
		.ctx = say,
		.note = on_note,
		.warn = on_note, /* --quiet drops warnings as it drops notes */
		.error = on_error,
		.progress = say->progress ? on_progress : NULL,
	};
}
