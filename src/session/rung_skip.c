/* Rungs skipped from the job's warmup (see rung_skip.h). */
#include "session/rung_skip.h"

#include <stdio.h>

#include "plan/controls.h"
#include "util/units.h"

#define PAGE 4096.0

static const char *duration(uint64_t ns, char *buf, size_t len)
{
	return mmp_format_ns((double)ns, buf, len);
}

/* "; its malloc'd blocks are not reached (own)" when the library says. */
static const char *allocator(const struct mmp_preload_report *p)
{
	if (!p->noalloc)
		return "";
	return p->noalloc_why[0] == 'o' ? "; its allocator is not reached: the program brings its own"
					: "; its allocator is not reached: not glibc's";
}

/* Nothing the survey saw for this control to reach: why, or NULL. */
static const char *nothing(const struct mmp_rung_evidence *e, unsigned added, char *buf,
			   size_t len)
{
	const struct mmp_preload_seen *s = &e->survey->seen;
	if (added == MMP_CONTROL_PREFAULT && !s->populate)
		snprintf(buf, len, "nothing in its job's warmup for it to reach (no mapping or "
				   "malloc'd block of the program's to populate%s)",
			 allocator(e->survey));
	else if (added == MMP_CONTROL_TOUCH && !s->touch)
		snprintf(buf, len, "nothing in its job's warmup for it to reach (no readable "
				   "mapping or malloc'd block of the program's to touch%s)",
			 allocator(e->survey));
	else if (added == MMP_CONTROL_HUGE && !s->advise)
		snprintf(buf, len, "nothing in its job's warmup for it to reach (no private "
				   "anonymous mapping or malloc'd block of 4 MiB or more: a file's "
				   "mappings get no huge page at their first touch%s)",
			 allocator(e->survey));
	else if (added == MMP_CONTROL_BULK && !s->reads)
		snprintf(buf, len, "nothing in its job's warmup for it to reach (no read() under "
				   "16 KiB of a regular file opened read-only: larger reads, a mapping "
				   "or libc's fread need none)");
	else
		return NULL;
	return buf;
}

/* The most the rung could take, as a share of the warmup's time, from
 * what the warmup counted and this machine's calibration; < 0: not
 * known.  prefault: its faults at the calibrated cost of one -- a
 * faulting pass's cost a page over the faults it counted a page, since
 * one fault of a file's mapping maps many pages (fault-around, a large
 * folio: 0.0076 faults a page of a 16 MiB file here, 33 ns a page, 4.4 us
 * a fault; anonymous memory, one a page); no faults counted there, no
 * cost known.  touch: the pages it would read at the calibrated cost of
 * a first touch, the interval's high end. */
static double most(const struct mmp_rung_evidence *e, unsigned added, double *per)
{
	const struct mmp_calibration *c = e->cal;
	if (!c || !c->done || !e->wall_ns)
		return -1;
	if (added == MMP_CONTROL_PREFAULT && e->faults >= 0 && c->fault_ns.valid &&
	    c->faults_per_page > 0) {
		*per = c->fault_ns.high / c->faults_per_page;
		return e->faults * *per / (double)e->wall_ns;
	}
	if (added == MMP_CONTROL_TOUCH && c->cost_ns.valid) {
		*per = c->cost_ns.high > 0 ? c->cost_ns.high : 0;
		return (double)e->survey->seen.touch / PAGE * *per / (double)e->wall_ns;
	}
	return -1;
}

static int too_little(const struct mmp_rung_evidence *e, unsigned added, char *buf, size_t len)
{
	char a[32], b[32];
	double per = 0, share = most(e, added, &per);
	if (share < 0 || share >= MMP_RUNG_SKIP_SHARE)
		return 0;
	if (added == MMP_CONTROL_PREFAULT)
		snprintf(buf, len,
			 "its job's warmup took %.0f page faults: at most %s each as calibrated here, "
			 "%.2g%% of its %s, too little to measure",
			 e->faults, mmp_format_ns(per, a, sizeof(a)), share * 100,
			 duration(e->wall_ns, b, sizeof(b)));
	else
		snprintf(buf, len,
			 "its job's warmup would touch %.0f pages: at most %s a first touch as "
			 "calibrated here, %.2g%% of its %s, too little to measure",
			 (double)e->survey->seen.touch / PAGE, mmp_format_ns(per, a, sizeof(a)),
			 share * 100, duration(e->wall_ns, b, sizeof(b)));
	return 1;
}

int mmp_rung_skip(const struct mmp_rung_evidence *e, unsigned added, char *buf, size_t len)
{
	if (mmp_controls_on_cpu(added))
		return e->threads_seen == 1 &&
		       snprintf(buf, len, "its job's warmup saw one thread of the program (one PU "
					  "takes nothing from a single thread)") > 0;
	if (added != MMP_CONTROL_PREFAULT && added != MMP_CONTROL_TOUCH &&
	    added != MMP_CONTROL_HUGE && added != MMP_CONTROL_BULK)
		return 0;
	if (!e->survey)
		return 0; /* not surveyed: its own first round tells */
	if (!e->survey->loaded)
		return snprintf(buf, len, "the preload library was not loaded into the program (%s)",
				e->survey_why && e->survey_why[0]
					? e->survey_why
					: "a static or setuid program started by it?") > 0;
	if (added == MMP_CONTROL_HUGE && e->thp_off)
		return snprintf(buf, len, "transparent huge pages are off here (%s)",
				e->thp_why ? e->thp_why : "") > 0;
	if (nothing(e, added, buf, len))
		return 1;
	return too_little(e, added, buf, len);
}
