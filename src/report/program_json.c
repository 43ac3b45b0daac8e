/* runs[].beside and runs[].preload: what NAME.csv has per repetition of a
 * program (what ran on its PUs beside it; what the preload library
 * changed in it), as the run's result holds it over the recorded rounds
 * (result.h), so a reader of the document need not rebuild it from the
 * CSV.  Null for probes, as escaped is: mmprof runs their threads itself
 * and nothing of this exists for them. */
#include <stdint.h>

#include "report/json.h"
#include "report/result_json.h"

/* A share of the PUs' time over the rounds that told it: its mean and
 * range (a round that could not tell is not a 0). */
static void share(struct mmp_json *j, const char *key, const struct mmp_pu_share *s)
{
	if (!s->n) {
		mmp_json_put_null(j, key);
		return;
	}
	mmp_json_open_object(j, key);
	mmp_json_put_number(j, "mean", s->sum / s->n);
	mmp_json_put_number(j, "min", s->lo);
	mmp_json_put_number(j, "max", s->hi);
	mmp_json_put_uint(j, "rounds", s->n);
	mmp_json_close_object(j);
}

static void beside(struct mmp_json *j, const struct mmp_run_result *r)
{
	if (!r->program) {
		mmp_json_put_null(j, "beside");
		return;
	}
	mmp_json_open_object(j, "beside");
	share(j, "kernel_busy", &r->kernel);
	/* The names are the round's where the share was largest: the other
	 * rounds' are NAME.csv's. */
	mmp_json_put_text(j, "kernel_tasks", r->kernel.n ? r->kernel.tasks : NULL);
	share(j, "unexplained_busy", &r->unexplained);
	mmp_json_put_text(j, "other_tasks", r->unexplained.n ? r->unexplained.tasks : NULL);
	share(j, "mmprof_busy", &r->self);
	mmp_json_put_text(j, "not_told_apart", r->seen_why);
	mmp_json_close_object(j);
}

/* A count the preload library reports, when the rung's control is one
 * that makes it (as NAME.csv leaves the cell empty otherwise). */
static void count(struct mmp_json *j, const char *key, int applies, uint64_t v)
{
	if (applies)
		mmp_json_put_uint(j, key, v);
	else
		mmp_json_put_null(j, key);
}

static void preload(struct mmp_json *j, const struct mmp_run_result *r)
{
	const struct mmp_params *p = &r->run->p;
	const struct mmp_preload_report *x = &r->preload;
	char asides[160];
	if (!r->program || !r->preload_asked) {
		mmp_json_put_null(j, "preload");
		return;
	}
	mmp_json_open_object(j, "preload");
	mmp_json_put_uint(j, "loaded", x->loaded);
	mmp_json_put_uint(j, "mappings", x->mappings);
	mmp_json_put_uint(j, "blocks", x->blocks);
	count(j, "prefaulted_bytes", p->prefault || p->touch, x->present);
	count(j, "touched_bytes", p->touch, x->touched);
	count(j, "huge_bytes", p->hugepages, x->huge);
	count(j, "bulk_calls", p->bulkreads, x->calls);
	count(j, "bulk_served", p->bulkreads, x->served);
	count(j, "bulk_syscalls", p->bulkreads, x->syscalls);
	mmp_preload_asides(x, asides, sizeof(asides));
	mmp_json_put_text(j, "bulk_aside", p->bulkreads ? asides : NULL);
	mmp_json_put_text(j, "note", r->preload_note);
	mmp_json_close_object(j);
}

void mmp_program_json(struct mmp_json *j, const struct mmp_run_result *r)
{
	beside(j, r);
	preload(j, r);
}
