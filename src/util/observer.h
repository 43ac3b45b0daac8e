/* What a session tells while it runs, as facts: which thing happened and
 * its values.  The words are the command line's (src/cli/say.c), the one
 * place that turns them into lines on stderr; the library only reports.
 * Adding a message: a row in enum mmp_tell here, its facts in struct
 * mmp_told, its words in say.c's table. */
#ifndef MMPROF_OBSERVER_H
#define MMPROF_OBSERVER_H

#include <stddef.h>
#include <stdint.h>

enum mmp_tell {
	/* notes: what the reader may want to know */
	MMP_TELL_NOTE,         /* text: a note made where it was found (a data file's) */
	MMP_TELL_FILES_NOTE,   /* text: what opening or committing the result files did */
	MMP_TELL_DATA_CREATED, /* created */
	MMP_TELL_CONTROL_UNAPPLIED, /* unapplied: a control a job names applies to none of its points */
	MMP_TELL_EVENT_GROUPS, /* groups: more hardware events than counters */
	MMP_TELL_EVENT_GROUPS_SPLIT, /* groups: a group the PMU did not take, split */
	MMP_TELL_NO_DATA,      /* run (the job's name): a program that reads no data file */
	/* warnings: a measurement is not what it seems */
	MMP_TELL_OVERSUBSCRIBED,   /* oversub */
	MMP_TELL_EVENT_NOT_OPENED, /* event (why in text): its cells stay empty */
	MMP_TELL_NO_PMU,           /* nopmu: hardware events no PMU here counts */
	MMP_TELL_NO_PERF_EVENTS,   /* nopmu: events of any kind, perf_event_open ENOSYS */
	MMP_TELL_EVENT_NOT_COUNTED, /* event: opened, never on a counter */
	MMP_TELL_ESCAPED,          /* run, rep, text: a program ran outside its PUs */
	/* errors */
	MMP_TELL_RUN_FAILED,     /* run, text: the run is given up */
	MMP_TELL_PROBE_FAILED,   /* run, rep: the probe returned an error */
	MMP_TELL_OUTPUT_WRONG,   /* run, rep, text: a program printed no count (its text) */
	MMP_TELL_OUTPUT_DIFFERS, /* run, rep: a program printed a wrong count */
	MMP_TELL_COUNT_WRONG,    /* run, rep: an operation probe's count is wrong */
	MMP_TELL_RESULT_DIFFERS, /* run, rep: a reading probe's result is wrong */
	MMP_TELL_FAILED,         /* text: an error said where it happened */
	MMP_TELL_LOGS_FAILED,    /* text: the programs' log directory */
	MMP_TELL_OUT_OF_MEMORY,
	MMP_TELL_ERRNO, /* err */
	/* errors before anything runs: the config or an option is wrong */
	MMP_TELL_NOT_A_CONFIG,     /* text: why the file is none (a directory, too big) */
	MMP_TELL_CONFIG_UNREADABLE, /* text: its path, err */
	MMP_TELL_CONFIG_WRONG,     /* diags, text: the config's diagnostics and their summary */
	MMP_TELL_NO_MACHINE,       /* text: the topology could not be loaded */
	MMP_TELL_BAD_PATH,         /* bad_path, text: --csv's or --json's PATH */
	MMP_TELL_DESCRIBED,        /* text: the described machine's source; it runs nothing */
	MMP_TELL_NOTHING_RUN,      /* text: a result file refused */
};

/* One message's facts; which fields are set depends on what. */
struct mmp_told {
	enum mmp_tell what;
	const char *run;  /* the run's label (mmp_result_label) */
	const char *text; /* words made by the module that knew (an error's message) */
	int err;          /* a positive errno */
	union {
		struct {
			const char *path, *fill;
			uint64_t size;
			double bytes_per_s;
		} created;
		struct {
			const char *spec, *pmu;
			size_t events, groups;
			unsigned counters;
		} groups;
		struct {
			unsigned threads, pus;
			const char *placement;
			const char *restricted; /* who restricted the PUs; "" nobody */
		} oversub;
		struct {
			const char *name, *state, *job;
		} event;
		struct {
			size_t n;           /* events not opened for want of a PMU (or of perf) */
			const char *names;  /* their names, comma separated */
		} nopmu;
		struct {
			const char *where;   /* "FILE:LINE: [section]" of the controls key */
			const char *control, *job, *why;
			size_t points, of;   /* the job's points it gives why for, of all */
		} unapplied;
		struct {
			char *const *lines; /* "FILE:LINE: [section] message", sorted */
			size_t n;
		} diags;
		struct {
			const char *option, *path;
		} bad_path;
		struct {
			int warmup;
			unsigned index;
			uint64_t got, expected; /* the result; a count probe's expected count */
			const char *kernel, *path, *log, *unit;
		} rep;
	};
};

/* Where one repetition is, for a progress line. */
struct mmp_progress {
	size_t set, nsets;    /* from 0 */
	unsigned round, total; /* round from 0, warmup included */
	int more;             /* repeat = auto: total may grow */
	int warmup;
	const char *run;      /* the run's label */
	double eta_s;         /* seconds left in the set, 0: not known yet */
};

/* A NULL callback drops its kind (a test's session may pass none). */
struct mmp_observer {
	void *ctx;
	void (*note)(void *ctx, const struct mmp_told *t);
	void (*warn)(void *ctx, const struct mmp_told *t);
	void (*error)(void *ctx, const struct mmp_told *t);
	void (*progress)(void *ctx, const struct mmp_progress *p);
};

/* Calls the callback of t's kind (by the enum's groups), if any. */
void mmp_observer_tell(const struct mmp_observer *obs, const struct mmp_told *t);

#endif
