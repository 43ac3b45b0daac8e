/* One invocation over a plan (see session.h). */
#include "platform/memory.h"
#include "session/session.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "analysis/attribution.h"
#include "report/companions.h"
#include "report/csv.h"
#include "platform/firsttouch.h"
#include "plan/eventplan.h"
#include "util/logdir.h"
#include "util/observer.h"
#include "mmprof/probe.h"
#include "run/process_run.h"
#include "report/result_json.h"
#include "run/runner.h"
#include "session/rung_skip.h"
#include "plan/schedule.h"
#include "util/units.h"

void mmp_default_csv_path(const char *config_path, char *buf, size_t len)
{
	const char *base = strrchr(config_path, '/');
	base = base ? base + 1 : config_path;
	size_t n = strlen(base);
	if (n > 4 && strcmp(base + n - 4, ".ini") == 0)
		n -= 4;
	snprintf(buf, len, "results/%.*s.csv", (int)n, base);
}

/* What one set's loop needs. */
struct set_ctx {
	const struct mmp_session *s;
	struct mmp_session_out *out;
	struct mmp_csv *csv;
	struct mmp_eventplan *ep;
	size_t set;
	const struct mmp_cset *cs;
	struct mmp_runner_item *items;
	uint64_t (*refs)[256]; /* references of runs that read part of the file */
	int *dead;             /* [n]: the run failed, skip it */
	int *escaped;          /* [n]: its program left its PUs, said once */
	uint64_t t0;
	unsigned rounds_done;  /* recorded rounds */
	unsigned planned;      /* rounds to run, as known now */
};

static void tell(const struct mmp_session *s, const struct mmp_told *t)
{
	mmp_observer_tell(s->obs, t);
}

/* An error said where it happened (err.msg, a library's words). */
static void tell_failed(const struct mmp_session *s, const char *msg)
{
	tell(s, &(struct mmp_told){ .what = MMP_TELL_FAILED, .text = msg });
}

/* Where binding is refused, a best-effort binding is not applied: said
 * once, before anything runs (a strict one stopped the plan already). */
static void note_refused_binding(const struct mmp_session *s)
{
	char why[600], text[900];
	int e = mmp_memory_bind_refused(s->topo);
	if (!e)
		return;
	for (size_t i = 0; i < s->plan->nruns; i++) {
		const struct mmp_membind *m = &s->plan->runs[i].run.p.membind;
		if (m->kind == MMP_MEMBIND_FIRSTTOUCH)
			continue;
		snprintf(text, sizeof(text),
			 "membind %s and the like, bind = best-effort: not applied, this process "
			 "may not bind memory: %s; pages stay where first touch puts them",
			 m->spec, mmp_memory_refusal_text(e, "mbind", why, sizeof(why)));
		tell(s, &(struct mmp_told){ .what = MMP_TELL_NOTE, .text = text });
		return;
	}
}

static void progress(const struct set_ctx *c, const struct mmp_step *step,
		     const struct mmp_run_result *r)
{
	char label[320];
	unsigned total = c->cs->warmup + c->planned;
	double spent = (double)(mmp_now_ns() - c->t0) / 1e9;
	if (!c->s->obs || !c->s->obs->progress)
		return;
	c->s->obs->progress(c->s->obs->ctx,
			    &(struct mmp_progress){
				    .set = c->set, .nsets = c->s->plan->nsets,
				    .round = step->round, .total = total,
				    .more = c->cs->auto_rounds,
				    .warmup = step->round < c->cs->warmup,
				    .run = mmp_result_label(&c->out->res, r, label, sizeof(label)),
				    .eta_s = step->round ? spent / step->round *
								   (total - step->round)
							 : 0,
			    });
}

/* Once per distinct (threads, placement). */
static void warn_oversubscribed(const struct mmp_session *s, size_t i)
{
	const struct mmp_planned *r = &s->plan->runs[i];
	for (size_t j = 0; j < i; j++) {
		const struct mmp_planned *o = &s->plan->runs[j];
		if (o->pins.oversubscribed && o->run.p.threads == r->run.p.threads &&
		    strcmp(o->run.p.placement.spec, r->run.p.placement.spec) == 0)
			return;
	}
	tell(s, &(struct mmp_told){ .what = MMP_TELL_OVERSUBSCRIBED,
				    .oversub = { .threads = r->run.p.threads,
						 .pus = r->pins.npus,
						 .placement = r->run.p.placement.spec,
						 .restricted = mmp_topology_allowed_why(s->topo) } });
}

/* Once per job: a program given no data file is measured, not checked. */
static void note_no_data(const struct mmp_session *s, size_t i)
{
	const struct mmp_planned *r = &s->plan->runs[i];
	for (size_t j = 0; j < i; j++)
		if (s->plan->runs[j].run.job == r->run.job)
			return;
	tell(s, &(struct mmp_told){ .what = MMP_TELL_NO_DATA, .run = r->run.job->name });
}

static void fail_run(struct set_ctx *c, size_t k, const char *msg)
{
	struct mmp_results *res = &c->out->res;
	size_t i = c->cs->runs[k];
	char label[320];
	c->dead[k] = 1;
	c->out->failed = 1;
	mmp_results_finish(res, i, MMP_RUN_FAILED, msg);
	tell(c->s, &(struct mmp_told){ .what = MMP_TELL_RUN_FAILED,
				       .run = mmp_result_label(res, &res->run[i], label,
							       sizeof(label)),
				       .text = msg });
}

/* Data files, references and runner items of every run of the set. */
static int prepare(struct set_ctx *c)
{
	const struct mmp_session *s = c->s;
	struct mmp_session_out *out = c->out;
	for (size_t k = 0; k < c->cs->n; k++) {
		size_t i = c->cs->runs[k];
		const struct mmp_planned *p = &s->plan->runs[i];
		struct mmp_datafile *df = NULL;
		struct mmp_error err = { 0 };
		int rc = mmp_run_reads_file(&p->run.p)
				 ? mmp_datafiles_get(&out->files, &p->data, &df, &err)
				 : 0;
		if (rc == -EINTR)
			return rc;
		if (rc) {
			fail_run(c, k, err.msg);
			continue;
		}
		if (df && df->note[0])
			tell(s, &(struct mmp_told){ .what = MMP_TELL_NOTE, .text = df->note });
		if (df)
			df->note[0] = '\0'; /* said once */
		if (df && df->created) {
			tell(s, &(struct mmp_told){
					.what = MMP_TELL_DATA_CREATED,
					.created = { .path = df->path,
						     .fill = mmp_fill_names[p->run.p.fill],
						     .size = df->size,
						     .bytes_per_s = df->create_bytes_per_s } });
			df->created = 0; /* said once */
		}
		if (p->end && df) { /* chase's solo rung: its own memory, no reference */
			rc = mmp_reference_scan_stop(df->fd, p->end, c->refs[k], s->stop, &err);
			if (rc == -EINTR)
				return rc;
			if (rc) {
				fail_run(c, k, err.msg);
				continue;
			}
		}
		if (p->pins.oversubscribed && !p->rung)
			warn_oversubscribed(s, i);
		if (!df && mmp_run_kind(&p->run) == MMP_RUN_KIND_PROCESS)
			note_no_data(s, i);
		const struct mmp_event_set *events = mmp_eventplan_set(c->ep, p->run.p.events);
		mmp_results_start(&out->res, i, df, events);
		c->items[k] = (struct mmp_runner_item){
			.run = &p->run, .data = df, .plan = &p->pins, .events = events,
			.end = p->end, .reference = p->end && df ? c->refs[k] : NULL,
			.logs = out->logs_path, .stop = s->stop,
		};
	}
	return 0;
}

/* Bytes of a mapping the calibration measures: enough pages that one
 * page's noise is lost in them, few enough that five fresh mappings and
 * three faulting ones take well under a second at 15 us a page (anonymous
 * memory on a paravirtualised host, the slowest seen). */
#define CALIB_FILE_BYTES (UINT64_C(16) << 20)
#define CALIB_ANON_BYTES (UINT64_C(8) << 20)
#define CALIB_MIN_FILE (UINT64_C(1) << 20)
#define CALIB_SAMPLES 5

/* The data the calibration maps: a file the user named (the first; its
 * size is its own), else the largest generated one any run reads.  NULL:
 * no run reads a file. */
static const struct mmp_data_spec *calibration_data(const struct mmp_plan *plan)
{
	const struct mmp_data_spec *best = NULL;
	for (size_t i = 0; i < plan->nruns; i++) {
		const struct mmp_planned *r = &plan->runs[i];
		if (!mmp_run_reads_file(&r->run.p))
			continue;
		if (r->data.file)
			return &r->data;
		if (!best || r->data.size > best->size)
			best = &r->data;
	}
	return best;
}

/* Before the first round: this machine's first-touch cost and scan speed
 * (firsttouch.h), on the plan's data (made now if it is to be made: the
 * set that reads it finds it there) when it has a MiB or more, else on
 * anonymous memory.  Once a session; a described machine is not this
 * one, and nothing is measured for it. */
static void calibrate(struct set_ctx *c)
{
	struct mmp_calibration *cal = &c->out->meta.calibration;
	const struct mmp_data_spec *spec = calibration_data(c->s->plan);
	struct mmp_datafile *df = NULL;
	struct mmp_error err = { 0 };
	const char *path = NULL;
	if (c->out->calibrated || mmp_topology_is_described(c->s->topo))
		return;
	c->out->calibrated = 1;
	/* A file that cannot be had here is its set's failure to say. */
	if (spec && mmp_datafiles_get(&c->out->files, spec, &df, &err) == 0 && df &&
	    df->size >= CALIB_MIN_FILE)
		path = df->path;
	if (mmp_calibrate(path, path ? CALIB_FILE_BYTES : CALIB_ANON_BYTES, CALIB_SAMPLES, cal)) {
		char msg[600];
		snprintf(msg, sizeof(msg), "calibration not measured: %s", cal->error);
		tell(c->s, &(struct mmp_told){ .what = MMP_TELL_NOTE, .text = msg });
	}
}

/* What to change when a probe ran out of something: a limit of the
 * process or the system, not a wrong result. */
static const char *resource_advice(int rc)
{
	static char emfile[160];
	struct rlimit lim;
	switch (-rc) {
	case EMFILE:
		if (getrlimit(RLIMIT_NOFILE, &lim) == 0)
			snprintf(emfile, sizeof(emfile),
				 "too many open files for this process (ulimit -n is %llu): raise "
				 "it or use fewer threads",
				 (unsigned long long)lim.rlim_cur);
		else
			snprintf(emfile, sizeof(emfile), "too many open files for this process: "
							 "raise ulimit -n or use fewer threads");
		return emfile;
	case ENFILE:
		return "the system's file table is full (fs.file-max): close files elsewhere or "
		       "use fewer threads";
	case ENOMEM:
		return "out of memory: use fewer threads or a smaller buffer";
	case EAGAIN:
		return "a resource limit was reached (processes, locked memory: ulimit -u, -l)";
	}
	return NULL;
}

/* A repetition whose probe failed or whose result is wrong, said as
 * what went wrong: a probe's error, a program's output, a count. */
static void tell_wrong(struct set_ctx *c, size_t k, const struct mmp_rep *rep,
		       const struct mmp_run_info *info)
{
	struct mmp_results *res = &c->out->res;
	const struct mmp_rep_process *x = rep->process; /* a program's (process_run.h) */
	char label[320];
	struct mmp_told t = {
		.run = mmp_result_label(res, &res->run[c->cs->runs[k]], label, sizeof(label)),
		.err = -rep->probe_rc,
		.rep = { .warmup = rep->warmup, .index = rep->index, .got = rep->result,
			 .kernel = mmp_kernel_names[info->run->p.kernel],
			 .path = info->data ? info->data->path : NULL, .log = x ? x->log : NULL },
	};
	if (rep->probe_rc) {
		t.what = MMP_TELL_PROBE_FAILED;
	} else if (x && x->result_text[0]) {
		t.what = MMP_TELL_OUTPUT_WRONG;
		t.text = x->result_text;
	} else if (x) {
		t.what = MMP_TELL_OUTPUT_DIFFERS;
	} else if (!info->data) {
		t.what = MMP_TELL_COUNT_WRONG;
		t.rep.unit = info->run->p.probe->unit;
		t.rep.expected = info->run->p.probe->expected(&info->run->p, info->plan->nthreads);
	} else {
		t.what = MMP_TELL_RESULT_DIFFERS;
	}
	tell(c->s, &t);
	c->out->wrong = 1;
}

/* A repetition's result, checked, shown and recorded. */
static int record(struct set_ctx *c, size_t k, const struct mmp_step *step, struct mmp_rep *rep,
		  const struct mmp_run_info *info)
{
	const struct mmp_session *s = c->s;
	struct mmp_results *res = &c->out->res;
	size_t i = c->cs->runs[k];
	struct mmp_error err = { 0 };
	char label[320];
	const struct mmp_rep_process *x = rep->process; /* a program's (process_run.h) */

	rep->warmup = step->round < c->cs->warmup;
	rep->index = rep->warmup ? step->round : step->round - c->cs->warmup;
	rep->round = step->round;
	rep->position = step->position;
	const char *advice = resource_advice(rep->probe_rc);
	if (advice) {
		char msg[MMP_ERROR_MSG_MAX];
		snprintf(msg, sizeof(msg), "the probe failed (%s): %s", strerror(-rep->probe_rc),
			 advice);
		fail_run(c, k, msg);
		return 0;
	}
	if (rep->probe_rc || !rep->result_ok)
		tell_wrong(c, k, rep, info);
	if (x && x->escaped && !c->escaped[k]++)
		tell(s, &(struct mmp_told){
				.what = MMP_TELL_ESCAPED,
				.run = mmp_result_label(res, &res->run[i], label, sizeof(label)),
				.text = rep->dist.why,
				.rep = { .warmup = rep->warmup, .index = rep->index } });
	mmp_eventplan_explain(c->ep, info->events, info->open_error, rep->counts,
			      info->run->job->name, s->obs);
	mmp_eventplan_split(c->ep, info->run->p.events, info->groups_split, s->obs);
	progress(c, step, &res->run[i]);
	if (x && x->note[0])
		tell(s, &(struct mmp_told){ .what = MMP_TELL_NOTE, .text = x->note });
	if (rep->warmup)
		return 0;
	int rc = mmp_results_record(res, i, rep, &err);
	if (rc) {
		/* Every later comparison would pair this run's rounds wrongly or
		 * miss one: stop measuring; the rows written before are kept. */
		char msg[MMP_ERROR_MSG_MAX + 512];
		snprintf(msg, sizeof(msg), "%s rep %u: cannot record it: %s; measuring stopped there",
			 mmp_result_label(res, &res->run[i], label, sizeof(label)), rep->index,
			 err.msg);
		tell_failed(s, msg);
		c->out->record_failed = 1;
		return rc;
	}
	rc = mmp_csv_row(c->csv, info, rep, &err);
	c->out->rows = c->csv->rows; /* its main row may be written, a companion's not */
	if (rc) {
		/* Nowhere to write (a full disk, the file size limit): stop
		 * measuring; the rows written whole are kept (mmp_csv_commit). */
		char msg[MMP_ERROR_MSG_MAX + 4096 + 128];
		snprintf(msg, sizeof(msg),
			 "%s; measuring stopped there: the %lu row(s) written before are kept in %s",
			 err.msg, c->out->rows, s->files->target);
		tell_failed(s, msg);
		c->out->write_failed = 1;
		return rc;
	}
	return 0;
}

/* controls = auto on a program with a warmup: its job's warmup runs
 * first in each warmup round, with the preload library surveying, and
 * rung_skip.h decides from it which rungs run no rounds at all. */
static int surveyed(const struct set_ctx *c, const struct mmp_planned *p)
{
	const struct mmp_planned *point = &c->s->plan->runs[p->point];
	return c->cs->warmup && point->nrungs && mmp_planned_is_point(point) &&
	       mmp_run_kind(&point->run) == MMP_RUN_KIND_PROCESS &&
	       mmp_controls_auto(&point->run.p);
}

/* Whether a run has warmups of its own.  A surveyed ladder's rungs do
 * not: what a warmup warms -- the page cache of the program's files, its
 * binary and libraries, the preload library -- every rung shares with the
 * job's.  Except huge: its first run pays the kernel's compaction for its
 * huge pages (malloc_touch touch 512 with them: 1.16 s, then 0.05-0.23 s
 * here), which a run after it finds done. */
static int warms_up(const struct set_ctx *c, const struct mmp_planned *p)
{
	return !p->rung || !surveyed(c, p) || p->added == MMP_CONTROL_HUGE;
}

/* In each warmup round, the surveyed job points first, so that a rung
 * skipped from the survey runs no warmup either (warmups are not
 * recorded: their order compares nothing). */
static void survey_first(const struct set_ctx *c, struct mmp_step *steps, size_t n)
{
	size_t at = 0;
	while (at < n && steps[at].round < c->cs->warmup) {
		size_t end = at;
		while (end < n && steps[end].round == steps[at].round)
			end++;
		for (size_t j = at, put = at; j < end; j++) {
			const struct mmp_planned *p = c->out->res.run[c->cs->runs[steps[j].item]].planned;
			if (mmp_planned_is_point(p) && surveyed(c, p)) {
				struct mmp_step s = steps[j];
				memmove(&steps[put + 1], &steps[put], (j - put) * sizeof(*steps));
				steps[put++] = s;
			}
		}
		at = end;
	}
}

/* The page faults a repetition counted; < 0: not counted. */
static double faults_of(const struct mmp_rep *rep, const struct mmp_run_info *info)
{
	for (size_t e = 0; info->events && e < info->events->n; e++)
		if (strcmp(info->events->ev[e].name, "page-faults") == 0)
			return mmp_count_valid(&rep->counts[e]) ? rep->counts[e].value : -1;
	return -1;
}

/* After the job's last warmup: its rungs with nothing to take, skipped
 * before they run; the survey ends. */
static void skip_from_survey(struct set_ctx *c, struct mmp_runner *runner, size_t k,
			     const struct mmp_step *step, const struct mmp_rep *rep,
			     const struct mmp_run_info *info)
{
	size_t i = c->cs->runs[k];
	const struct mmp_planned *p = &c->s->plan->runs[i];
	const struct mmp_rep_process *x = rep->process;
	if (!mmp_planned_is_point(p) || !surveyed(c, p) || step->round != c->cs->warmup - 1 || !x)
		return;
	enum mmp_thp_mode thp = mmp_memory_thp_mode();
	char thp_why[96];
	snprintf(thp_why, sizeof(thp_why), "/sys/kernel/mm/transparent_hugepage/enabled: %s",
		 mmp_thp_mode_name(thp));
	struct mmp_rung_evidence e = {
		.survey = x->surveyed ? &x->preload : NULL,
		.survey_why = x->survey_why ? x->survey_why : x->preload_note,
		.threads_seen = x->threads_seen,
		.faults = faults_of(rep, info),
		.wall_ns = x->wall_ns,
		.cal = &c->out->meta.calibration,
		.thp_off = thp == MMP_THP_NEVER || thp == MMP_THP_UNAVAILABLE,
		.thp_why = thp_why,
	};
	for (unsigned r = 1; r <= p->nrungs; r++) {
		struct mmp_run_result *rung = &c->out->res.run[i + r];
		if (mmp_rung_skip(&e, c->s->plan->runs[i + r].added, rung->skipped_why,
				  sizeof(rung->skipped_why)))
			rung->skipped = 1;
	}
	mmp_runner_survey(runner, k, 0);
}

/* controls = auto on a program: a rung whose warmup (its first round
 * when there is none, or when its job's warmup surveyed for it) the
 * preload library says reached nothing (no block
 * or mapping changed, no small read served) runs no more rounds.  Its
 * rounds would only add noise about the rung below's, which attribution
 * holds it to anyway (attribution.h), and they cost a run of the program
 * each.  A control the job names runs every round: the user asked for
 * its figures. */
static void skip_if_idle(struct set_ctx *c, size_t k, const struct mmp_step *step,
			 const struct mmp_rep *rep, const struct mmp_run_info *info)
{
	struct mmp_run_result *r = &c->out->res.run[c->cs->runs[k]];
	const struct mmp_params *p = &info->run->p;
	const struct mmp_rep_process *x = rep->process; /* NULL: not a program's */
	const int first = !c->cs->warmup || !warms_up(c, r->planned);
	const char *when = first ? "its first round" : "its warmup";
	char why[384];
	if (step->round != (first ? c->cs->warmup : c->cs->warmup - 1) || !r->planned->added ||
	    !x || !mmp_controls_auto(p))
		return;
	if (mmp_attribution_unchanged(&x->preload, x->preload_asked, x->preload_note,
				      r->planned->added, why, sizeof(why))) {
		r->skipped = 1;
		snprintf(r->skipped_why, sizeof(r->skipped_why), "%s reached nothing (%s)", when,
			 why);
	}
	/* One thread shares no line with another: on one PU it loses nothing
	 * and gains nothing. */
	if (mmp_controls_on_cpu(r->planned->added) && x->threads_seen == 1) {
		r->skipped = 1;
		snprintf(r->skipped_why, sizeof(r->skipped_why),
			 "%s saw one thread of the program (one PU takes nothing from a single "
			 "thread)", when);
	}
}

/* A rung's round that does not run: it is skipped, or it is a warmup its
 * job's surveyed warmup stands for. */
static int not_run(const struct set_ctx *c, size_t k, const struct mmp_step *step)
{
	const struct mmp_run_result *r = &c->out->res.run[c->cs->runs[k]];
	return c->dead[k] || r->skipped || (step->round < c->cs->warmup && !warms_up(c, r->planned));
}

static int run_rounds(struct set_ctx *c, struct mmp_runner *runner, unsigned first,
		      unsigned count)
{
	struct mmp_step *steps = malloc((size_t)count * c->cs->n * sizeof(*steps));
	int rc = 0;
	if (!steps)
		return -ENOMEM;
	mmp_schedule_batch(c->s->plan->order, c->s->plan->seed, c->set, c->cs->n, first, count,
			   steps);
	survey_first(c, steps, (size_t)count * c->cs->n);
	for (size_t j = 0; j < (size_t)count * c->cs->n && !rc; j++) {
		size_t k = steps[j].item;
		struct mmp_rep *rep;
		const struct mmp_run_info *info;
		struct mmp_error err = { 0 };
		if (*c->s->stop) {
			rc = -EINTR;
			break;
		}
		if (not_run(c, k, &steps[j]))
			continue;
		if (steps[j].round >= c->cs->warmup) /* (its last warmup may have failed) */
			mmp_runner_survey(runner, k, 0);
		int e = mmp_runner_rep(runner, k, &rep, &info, &err);
		if (e == -ESTALE) {
			/* The data changed under the run: nothing after this would
			 * measure what the reference says it reads.  What was
			 * measured before stays, as after a Ctrl-C. */
			char label[320];
			c->out->changed = c->out->failed = 1;
			tell(c->s, &(struct mmp_told){
					   .what = MMP_TELL_RUN_FAILED,
					   .run = mmp_result_label(&c->out->res,
								   &c->out->res.run[c->cs->runs[k]],
								   label, sizeof(label)),
					   .text = err.msg });
			rc = e;
			break;
		}
		if (e == -EINTR) {
			/* A program stopped by Ctrl-C (its process group is gone):
			 * like a stop between repetitions, what ran stays. */
			rc = e;
			break;
		}
		if (e) {
			fail_run(c, k, err.msg);
			continue;
		}
		rc = record(c, k, &steps[j], rep, info);
		if (!rc) {
			skip_if_idle(c, k, &steps[j], rep, info);
			skip_from_survey(c, runner, k, &steps[j], rep, info);
		}
	}
	free(steps);
	return rc;
}

/* Rounds in which no run of the set was disturbed. */
static unsigned clean_rounds(const struct set_ctx *c)
{
	const struct mmp_results *res = &c->out->res;
	unsigned clean = 0;
	for (unsigned r = 0; r < c->rounds_done; r++) {
		int bad = 0;
		for (size_t k = 0; k < c->cs->n && !bad; k++) {
			const struct mmp_run_result *x = &res->run[c->cs->runs[k]];
			bad = r < x->n && x->disturbed[r];
		}
		clean += !bad;
	}
	return clean;
}

/* repeat = auto: one more round while an answer of the set is undecided,
 * or too few rounds ran undisturbed, and the ceiling and the budget allow. */
static int want_more(struct set_ctx *c)
{
	if (!c->cs->auto_rounds || c->rounds_done >= c->cs->max_rounds)
		return 0;
	if ((double)(mmp_now_ns() - c->t0) / 1e9 >= c->cs->max_time)
		return 0;
	if (mmp_results_compute(&c->out->res) || mmp_analysis_compute(&c->out->an))
		return 0;
	return clean_rounds(c) < c->cs->rounds ||
	       mmp_answers_undecided(&c->out->an.answers, c->set) > 0;
}

/* The fewest clean rounds a ladder's answer is taken from when it stops
 * early: fewer give no interval worth deciding on. */
#define MMP_EARLY_ROUNDS 3

/* controls = auto on programs, a fixed repeat: each round is a run of the
 * program per rung, so the rounds stop once every ladder of the set has
 * decided its largest cause (at least MMP_EARLY_ROUNDS clean rounds in);
 * repeat is the most.  A set of probes, or of controls the job names,
 * runs every round asked for. */
static int stops_early(const struct set_ctx *c)
{
	int ladders = 0;
	if (c->cs->auto_rounds || c->cs->rounds <= MMP_EARLY_ROUNDS)
		return 0;
	for (size_t k = 0; k < c->cs->n; k++) {
		const struct mmp_planned *p = &c->s->plan->runs[c->cs->runs[k]];
		if (!mmp_planned_is_point(p) || !p->nrungs)
			continue;
		if (mmp_run_kind(&p->run) != MMP_RUN_KIND_PROCESS || !mmp_controls_auto(&p->run.p))
			return 0;
		ladders++;
	}
	return ladders > 0;
}

/* Every rung of job point i was skipped: no cause is left to decide, and
 * the job's own time needs only the clean rounds. */
static int all_skipped(const struct set_ctx *c, size_t i)
{
	const struct mmp_planned *p = &c->s->plan->runs[i];
	for (size_t r = 1; r <= p->nrungs; r++)
		if (!c->out->res.run[i + r].skipped)
			return 0;
	return 1;
}

/* Every ladder of the set has its largest cause decided (or nothing left
 * to decide), and every answer. */
static int decided(struct set_ctx *c)
{
	if (clean_rounds(c) < MMP_EARLY_ROUNDS || mmp_results_compute(&c->out->res) ||
	    mmp_analysis_compute(&c->out->an))
		return 0;
	for (size_t k = 0; k < c->cs->n; k++) {
		size_t i = c->cs->runs[k];
		const struct mmp_planned *p = &c->s->plan->runs[i];
		if (mmp_planned_is_point(p) && p->nrungs && !c->out->an.attr[i].top_decided &&
		    !all_skipped(c, i))
			return 0;
	}
	return mmp_answers_undecided(&c->out->an.answers, c->set) == 0;
}

static int run_set(struct set_ctx *c)
{
	struct mmp_runner *runner = NULL;
	struct mmp_error err = { 0 };
	size_t n = c->cs->n;
	int rc;

	c->items = calloc(n, sizeof(*c->items));
	c->refs = calloc(n, sizeof(*c->refs));
	c->dead = calloc(n, sizeof(*c->dead));
	c->escaped = calloc(n, sizeof(*c->escaped));
	if (!c->items || !c->refs || !c->dead || !c->escaped) {
		rc = -ENOMEM;
		goto out;
	}
	c->t0 = mmp_now_ns();
	rc = prepare(c);
	if (rc)
		goto out;
	calibrate(c);
	/* Runs compared with each other run together or not at all. */
	for (size_t k = 0; k < n; k++)
		if (c->dead[k]) {
			for (size_t j = 0; j < n; j++)
				if (!c->dead[j])
					fail_run(c, j, "another run of its comparison set failed");
			goto out;
		}
	rc = mmp_runner_open(&runner, c->items, n, c->s->topo, &err);
	if (rc) {
		for (size_t k = 0; k < n; k++)
			fail_run(c, k, err.msg);
		rc = 0;
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		const struct mmp_planned *p = &c->s->plan->runs[c->cs->runs[k]];
		if (mmp_planned_is_point(p) && surveyed(c, p))
			mmp_runner_survey(runner, k, 1);
	}
	c->planned = c->cs->rounds;
	c->rounds_done = stops_early(c) ? MMP_EARLY_ROUNDS : c->cs->rounds;
	rc = run_rounds(c, runner, 0, c->cs->warmup + c->rounds_done);
	while (!rc && c->rounds_done < c->cs->rounds && !decided(c)) {
		rc = run_rounds(c, runner, c->cs->warmup + c->rounds_done, 1);
		c->rounds_done++;
	}
	for (size_t k = 0; !rc && c->rounds_done < c->cs->rounds && k < n; k++)
		c->out->res.run[c->cs->runs[k]].stopped_of = c->cs->rounds; /* said by the report */
	while (!rc && want_more(c)) {
		c->planned++;
		rc = run_rounds(c, runner, c->cs->warmup + c->rounds_done, 1);
		c->rounds_done++;
	}
out:
	for (size_t k = 0; k < n; k++)
		if (!c->dead || !c->dead[k])
			mmp_results_finish(&c->out->res, c->cs->runs[k],
					   rc == -EINTR || rc == -ESTALE ? MMP_RUN_INTERRUPTED
									 : MMP_RUN_DONE,
					   NULL);
	mmp_runner_close(runner);
	free(c->items);
	free(c->refs);
	free(c->dead);
	free(c->escaped);
	return rc;
}

/* The companions of NAME.csv and the --json document, from the results
 * computed once, then NAME.csv itself: renamed into place last, so that
 * it replaces an earlier run's set only once this run's is complete (and
 * its commit keeps a NAME.json this run wrote). */
static void write_results(const struct mmp_session *s, struct mmp_session_out *out)
{
	struct mmp_error err = { 0 };
	int wrote = 0;
	if (out->rows &&
	    mmp_attribution_csv(s->files, &out->an, &out->meta, &wrote, &err)) {
		tell_failed(s, err.msg);
		out->failed = 1;
	}
	out->wrote_attribution = wrote;
	wrote = 0;
	if (out->rows && mmp_answers_csv(s->files, &out->an, &out->meta, &wrote, &err)) {
		tell_failed(s, err.msg);
		out->failed = 1;
	}
	out->wrote_answers = wrote;
	wrote = 0;
	if (out->rows && mmp_profile_csv(s->files, &out->res, &out->meta, &wrote, &err)) {
		tell_failed(s, err.msg);
		out->failed = 1;
	}
	out->wrote_profile = wrote;
	wrote = 0;
	if (out->rows && mmp_profile_folded(s->files, &out->res, &wrote, &err)) {
		tell_failed(s, err.msg);
		out->failed = 1;
	}
	out->wrote_folded = wrote;
	if (out->rows && s->json) {
		struct mmp_result_json in = {
			.an = &out->an, .meta = &out->meta, .topo = s->topo,
			.config = s->cfg->path, .csv = s->files->path,
			.interrupted = out->interrupted, .failed = out->failed,
			.changed = out->changed, .wrong = out->wrong,
			.seconds = (double)(mmp_now_ns() - out->t0) / 1e9,
		};
		if (mmp_result_json_save(s->files, s->json, &in, out->json_path,
					 sizeof(out->json_path), &err)) {
			tell_failed(s, err.msg);
			out->failed = 1;
		} else {
			out->wrote_json = 1;
		}
	}
	unsigned long kept = out->csv.rows;
	if (mmp_csv_commit(&out->csv, &err)) {
		tell_failed(s, err.msg);
		out->failed = 1;
	} else {
		out->wrote_csv = kept > 0; /* none: the previous file stays */
	}
	/* The logs go with the rows that name them: an earlier invocation's
	 * leave with its rows, and stay while they do. */
	if (out->wrote_csv)
		mmp_logdir_keep_only(s->files, out->meta.run_id);
}

/* Where the programs' logs go (logdir.h), made now when a run needs it. */
static int logs_dir(const struct mmp_session *s, struct mmp_session_out *out,
		    struct mmp_error *err)
{
	int any = 0;
	for (size_t i = 0; i < s->plan->nruns && !any; i++)
		any = mmp_run_kind(&s->plan->runs[i].run) == MMP_RUN_KIND_PROCESS;
	if (!any)
		return 0;
	return mmp_logdir_make(s->files, out->meta.run_id, out->logs_path, sizeof(out->logs_path),
			       err);
}

int mmp_session_run(const struct mmp_session *s, struct mmp_session_out *out)
{
	struct mmp_error err = { 0 };
	struct mmp_eventplan *ep = &out->ep;
	char msg[512];
	int rc;

	memset(out, 0, sizeof(*out));
	out->t0 = mmp_now_ns();
	out->files = (struct mmp_datafiles){ .dir = mmp_data_dir(), .stop = s->stop };
	mmp_meta_collect(&out->meta);
	mmp_outset_path(s->files, MMP_OUT_THREADS, out->threads_path, sizeof(out->threads_path));
	mmp_outset_path(s->files, MMP_OUT_ATTRIBUTION, out->attribution_path,
			sizeof(out->attribution_path));
	mmp_outset_path(s->files, MMP_OUT_ANSWERS, out->answers_path, sizeof(out->answers_path));
	mmp_outset_path(s->files, MMP_OUT_PROFILE, out->profile_path, sizeof(out->profile_path));
	mmp_outset_path(s->files, MMP_OUT_FOLDED, out->folded_path, sizeof(out->folded_path));
	if (mmp_results_init(&out->res, s->plan) || mmp_analysis_init(&out->an, &out->res)) {
		tell(s, &(struct mmp_told){ .what = MMP_TELL_OUT_OF_MEMORY });
		return -ENOMEM;
	}
	rc = logs_dir(s, out, &err);
	if (rc) {
		tell(s, &(struct mmp_told){ .what = MMP_TELL_LOGS_FAILED, .text = err.msg });
		return rc;
	}
	rc = mmp_eventplan_build(ep, s->plan, msg, sizeof(msg));
	if (rc) {
		tell_failed(s, msg);
		return rc;
	}
	mmp_eventplan_notes(ep, s->obs);
	note_refused_binding(s);
	rc = mmp_csv_open(&out->csv, s->files, &out->meta, s->plan, ep->nnames > 0, s->per_thread,
			  &err);
	if (rc) {
		tell_failed(s, err.msg);
		return rc;
	}
	for (size_t set = 0; set < s->plan->nsets; set++) {
		struct set_ctx c = { .s = s, .out = out, .csv = &out->csv, .ep = ep, .set = set,
				     .cs = &s->plan->sets[set] };
		if (*s->stop) {
			rc = -EINTR;
			break;
		}
		rc = run_set(&c);
		if (rc)
			break;
	}
	out->interrupted = rc == -EINTR;
	if (rc && rc != -EINTR && rc != -ESTALE && !out->write_failed && !out->record_failed)
		tell(s, &(struct mmp_told){ .what = MMP_TELL_ERRNO, .err = -rc });
	if (rc && rc != -EINTR && rc != -ESTALE)
		out->failed = 1;
	if (mmp_results_compute(&out->res) || mmp_analysis_compute(&out->an)) {
		tell(s, &(struct mmp_told){ .what = MMP_TELL_OUT_OF_MEMORY });
		out->failed = 1;
	}
	write_results(s, out);
	mmp_logdir_drop_empty(s->files, out->logs_path);
	out->seconds = (double)(mmp_now_ns() - out->t0) / 1e9;
	return 0;
}

void mmp_session_out_free(struct mmp_session_out *out)
{
	mmp_analysis_free(&out->an);
	mmp_results_free(&out->res);
	mmp_datafiles_free(&out->files);
	mmp_eventplan_free(&out->ep);
}
