/* The run as one JSON document (see result_json.h and docs/json.md). */
#include "report/result_json.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "report/json.h"
#include "result/metrics.h"
#include "plan/plan.h"
#include "mmprof/probe.h"


static void calib_value(struct mmp_json *j, const char *key, const struct mmp_calib_value *v)
{
	mmp_json_open_object(j, key);
	mmp_json_put_number(j, "median", v->median);
	mmp_json_put_number(j, "low", v->low);
	mmp_json_put_number(j, "high", v->high);
	mmp_json_close_object(j);
}

/* What the calibration measured (firsttouch.h); null when it did not. */
static void calibration(struct mmp_json *j, const struct mmp_calibration *c)
{
	if (!c->done) {
		mmp_json_put_null(j, "calibration");
		return;
	}
	mmp_json_open_object(j, "calibration");
	mmp_json_put_string(j, "mapped", c->what);
	mmp_json_put_uint(j, "bytes", c->bytes);
	mmp_json_put_uint(j, "mappings", c->samples);
	calib_value(j, "first_touch_ns", &c->cost_ns);
	calib_value(j, "first_load_ns", &c->first_ns);
	calib_value(j, "touched_load_ns", &c->touched_ns);
	calib_value(j, "faulting_ns", &c->fault_ns);
	mmp_json_put_number(j, "faults_per_page", c->faults_per_page);
	mmp_json_put_number(j, "faults_in_first_touch", c->first_faults);
	mmp_json_put_bool(j, "below_kernel", c->below_kernel);
	calib_value(j, "scan_gbs", &c->scan_gbs);
	mmp_json_close_object(j);
}

static void machine(struct mmp_json *j, const struct mmp_result_json *in)
{
	const struct mmp_topology *t = in->topo;
	mmp_json_open_object(j, "machine");
	mmp_json_put_string(j, "host", in->meta->host);
	mmp_json_put_string(j, "cpu_model", in->meta->cpu_model);
	mmp_json_put_text(j, "kernel_release", in->meta->kernel_release);
	mmp_json_put_string(j, "platform", in->meta->platform.name);
	calibration(j, &in->meta->calibration);
	if (t) {
		mmp_json_put_uint(j, "pus", mmp_topology_pus(t));
		mmp_json_put_uint(j, "allowed_pus", mmp_topology_allowed_pus(t));
		mmp_json_put_uint(j, "cores", mmp_topology_cores(t));
		mmp_json_put_uint(j, "packages", mmp_topology_packages(t));
		mmp_json_put_uint(j, "numa_nodes", mmp_topology_numa_nodes(t));
		mmp_json_put_uint(j, "l3_domains", mmp_topology_l3_domains(t));
	} else {
		static const char *const counts[] = { "pus",	    "allowed_pus", "cores",
						      "packages", "numa_nodes",  "l3_domains" };
		for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
			mmp_json_put_null(j, counts[i]);
	}
	mmp_json_close_object(j);
}

static void plan(struct mmp_json *j, const struct mmp_plan *p)
{
	mmp_json_open_object(j, "plan");
	mmp_json_put_uint(j, "runs", p->nruns);
	mmp_json_put_uint(j, "job_points", p->npoints);
	mmp_json_put_string(j, "order", mmp_order_names[p->order]);
	/* An exact integer: beyond 2^53 a double (JavaScript) rounds it. */
	mmp_json_put_uint(j, "seed", p->seed);
	mmp_json_put_string(j, "table", mmp_table_names[p->table]);
	mmp_json_open_array(j, "sets");
	for (size_t s = 0; s < p->nsets; s++) {
		const struct mmp_cset *cs = &p->sets[s];
		mmp_json_open_object(j, NULL);
		mmp_json_put_uint(j, "set", s + 1);
		mmp_json_open_line(j, "runs");
		for (size_t k = 0; k < cs->n; k++)
			mmp_json_put_uint(j, NULL, cs->runs[k] + 1);
		mmp_json_close_array(j);
		mmp_json_put_uint(j, "warmup", cs->warmup);
		mmp_json_put_uint(j, "rounds", cs->rounds);
		mmp_json_put_uint(j, "max_rounds", cs->max_rounds);
		mmp_json_put_bool(j, "auto", cs->auto_rounds);
		mmp_json_put_text(j, "why", cs->why);
		mmp_json_close_object(j);
	}
	mmp_json_close_array(j);
	/* The controls a job names that get no rung at some of its points,
	 * and why: what --dry-run lists at its end. */
	mmp_json_open_array(j, "notes");
	for (size_t i = 0; i < p->nnotes; i++) {
		const struct mmp_plan_note *n = &p->notes[i];
		mmp_json_open_object(j, NULL);
		mmp_json_put_string(j, "job", n->job);
		mmp_json_put_string(j, "control", n->control);
		mmp_json_put_text(j, "section", n->section);
		if (n->line > 0)
			mmp_json_put_uint(j, "line", (uint64_t)n->line);
		else
			mmp_json_put_null(j, "line");
		mmp_json_put_uint(j, "points", n->points);
		mmp_json_put_uint(j, "of", n->of);
		mmp_json_put_bool(j, "nowhere", n->nowhere);
		mmp_json_put_string(j, "why", n->why);
		mmp_json_close_object(j);
	}
	mmp_json_close_array(j);
	mmp_json_close_object(j);
}

static const char *kind_of(const struct mmp_planned *p)
{
	return p->copy_of >= 0 ? "copy" : p->rung ? "rung" : "point";
}

static const char *event_kind(enum mmp_event_kind k)
{
	return k == MMP_EV_HARDWARE ? "hardware" : k == MMP_EV_SOFTWARE ? "software" : "tracepoint";
}

/* Each event of the run: its state over the rounds, and its median when
 * every round counted it. */
static void counters(struct mmp_json *j, const struct mmp_run_result *r)
{
	size_t nev = r->events ? r->events->n : 0;
	double *v = malloc((r->n ? r->n : 1) * sizeof(*v));
	mmp_json_open_array(j, "counters");
	for (size_t i = 0; i < nev; i++) {
		int data = r->n && r->ev_state;
		struct mmp_stats st;
		mmp_json_open_object(j, NULL);
		mmp_json_put_string(j, "event", r->events->ev[i].name);
		mmp_json_put_string(j, "kind", event_kind(r->events->ev[i].kind));
		mmp_json_put_string(j, "state", data ? mmp_count_state_name(r->ev_state[i]) : NULL);
		for (size_t k = 0; v && data && k < r->n; k++)
			v[k] = r->ev_values[k * nev + i];
		if (v && data && r->ev_ok[i] && mmp_stats_compute(v, r->n, &st) == 0)
			mmp_json_put_number(j, "median", st.median);
		else
			mmp_json_put_null(j, "median");
		mmp_json_close_object(j);
	}
	mmp_json_close_array(j);
	free(v);
}

static void metrics(struct mmp_json *j, const struct mmp_run_result *r)
{
	size_t nm;
	const struct mmp_metric *m = mmp_metrics(&nm);
	mmp_json_open_object(j, "metrics");
	for (size_t k = 0; k < nm; k++) {
		double v;
		if (mmp_result_has_data(r) && mmp_result_metric_median(r, &m[k], &v))
			mmp_json_put_number(j, m[k].column, v);
		else
			mmp_json_put_null(j, m[k].column);
	}
	mmp_json_close_object(j);
}

/* Keys that belong to the whole config ([global] only): they are in
 * "plan". */
static int config_key(size_t k)
{
	return (mmp_keys[k].flags & MMP_KEY_GLOBAL_ONLY) != 0;
}

static void statistics(struct mmp_json *j, const struct mmp_run_result *r)
{
	if (!mmp_result_has_data(r)) {
		mmp_json_put_null(j, "elapsed_ns");
		mmp_json_put_null(j, "ns_per_byte");
		mmp_json_put_null(j, "ns_per_op");
		return;
	}
	mmp_json_open_object(j, "elapsed_ns");
	mmp_json_put_number(j, "median", r->st.median);
	mmp_json_put_number(j, "mean", r->st.mean);
	mmp_json_put_number(j, "min", r->st.min);
	mmp_json_put_number(j, "max", r->st.max);
	mmp_json_put_number(j, "stddev", r->st.stddev);
	mmp_json_put_number(j, "cv", r->st.cv);
	mmp_json_close_object(j);
	/* Operation-counting probes (pingpong, chase) are timed per operation. */
	mmp_json_put_number(j, "ns_per_byte",
			    r->bytes && !r->ops ? r->st.median / (double)r->bytes : NAN);
	mmp_json_put_number(j, "ns_per_op", r->ops ? r->st.median / (double)r->ops : NAN);
}

static void run(struct mmp_json *j, const struct mmp_results *res, const struct mmp_run_result *r)
{
	const struct mmp_planned *p = r->planned;
	char buf[512];
	int data = mmp_result_has_data(r);

	mmp_json_open_object(j, NULL);
	mmp_json_put_uint(j, "run", r->run->index + 1);
	mmp_json_put_string(j, "kind", kind_of(p));
	mmp_json_put_uint(j, "parent", (p->copy_of >= 0 ? (size_t)p->copy_of : p->point) + 1);
	mmp_json_put_uint(j, "set", p->set + 1);
	mmp_json_put_string(j, "job", r->run->job->name);
	mmp_json_put_text(j, "control", r->run->control_name);
	mmp_json_put_string(j, "label", mmp_result_label(res, r, buf, sizeof(buf)));
	mmp_json_open_object(j, "parameters");
	for (size_t k = 0; k < MMP_KEY_COUNT; k++)
		if (!config_key(k))
			mmp_json_put_text(j, mmp_keys[k].name,
				     mmp_run_format(r->run, (enum mmp_key_id)k, buf, sizeof(buf)));
	mmp_json_close_object(j);
	mmp_json_put_text(j, "file", r->data ? r->data->path : NULL);
	if (r->bytes)
		mmp_json_put_uint(j, "bytes", r->bytes);
	else
		mmp_json_put_null(j, "bytes");
	if (r->access)
		mmp_json_put_uint(j, "access", r->access);
	else
		mmp_json_put_null(j, "access");
	mmp_json_put_text(j, "unit", r->ops ? r->run->p.probe->unit : NULL);
	if (r->ops)
		mmp_json_put_uint(j, "ops", r->ops);
	else
		mmp_json_put_null(j, "ops");
	mmp_json_open_line(j, "pus");
	for (unsigned t = 0; t < p->pins.nthreads; t++)
		mmp_json_put_uint(j, NULL, (uint64_t)p->pins.pu[t]);
	mmp_json_close_array(j);
	mmp_json_put_bool(j, "oversubscribed", p->pins.oversubscribed);
	/* A program's escapes from its PUs (the CSV's escaped, pus_ran);
	 * null for probes, whose threads mmprof binds itself. */
	if (r->program)
		mmp_json_put_uint(j, "escaped", r->nescaped);
	else
		mmp_json_put_null(j, "escaped");
	if (r->pus_ran_seen) {
		mmp_json_open_line(j, "pus_ran");
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &r->pus_ran))
				mmp_json_put_uint(j, NULL, (uint64_t)c);
		mmp_json_close_array(j);
	} else {
		mmp_json_put_null(j, "pus_ran");
	}
	mmp_program_json(j, r);
	/* (a rung controls = auto ran no more of: why is the attribution's) */
	mmp_json_put_string(j, "state", r->skipped ? "skipped" : mmp_run_state_name(r->state));
	mmp_json_put_text(j, "error", r->error);
	mmp_json_put_uint(j, "rounds", r->n);
	statistics(j, r);
	if (r->limit && r->x_limit.n) {
		mmp_json_put_interval(j, "x_limit", &r->x_limit, 1);
		mmp_json_put_uint(j, "limit_run", r->limit->run->index + 1);
	} else {
		mmp_json_put_null(j, "x_limit");
		mmp_json_put_null(j, "limit_run");
	}
	mmp_json_put_uint(j, "disturbed", r->ndisturbed);
	mmp_json_put_text(j, "disturbed_why", r->disturbed_why);
	if (data)
		mmp_json_put_bool(j, "result_ok", r->results_ok);
	else
		mmp_json_put_null(j, "result_ok");
	counters(j, r);
	metrics(j, r);
	mmp_profile_json(j, res, r);
	mmp_json_close_object(j);
}

static void cause(struct mmp_json *j, const struct mmp_results *res,
		  const struct mmp_attribution *a, const struct mmp_cause *c)
{
	char controls[256];
	mmp_cause_controls(res, a, c, controls, sizeof(controls));
	mmp_json_open_object(j, NULL);
	mmp_json_put_string(j, "name", c->name);
	mmp_json_put_text(j, "detail", c->detail);
	mmp_json_put_text(j, "controls", controls);
	mmp_json_put_bool(j, "interacting", c->interacting);
	mmp_json_put_interval(j, "cost_ns_per_byte", &c->cost, 0);
	mmp_json_put_number(j, "share", c->share);
	mmp_json_put_number(j, "share_low", c->cost.valid ? c->share_low : NAN);
	mmp_json_put_number(j, "share_high", c->cost.valid ? c->share_high : NAN);
	mmp_json_put_bool(j, "significant", c->significant);
	mmp_json_put_bool(j, "understated", c->understated);
	mmp_json_put_uint(j, "before_run", c->before->run->index + 1);
	if (c->after)
		mmp_json_put_uint(j, "after_run", c->after->run->index + 1);
	else
		mmp_json_put_null(j, "after_run");
	mmp_json_open_object(j, "evidence");
	mmp_json_put_string(j, "metric", c->evidence.metric);
	mmp_json_put_bool(j, "counted", c->evidence.counted);
	mmp_json_put_number(j, "before", c->evidence.counted ? c->evidence.before : NAN);
	mmp_json_put_number(j, "after", c->evidence.counted ? c->evidence.after : NAN);
	mmp_json_put_text(j, "missing", c->evidence.counted ? NULL : c->evidence.missing);
	mmp_json_close_object(j);
	mmp_json_close_object(j);
}

/* The rungs left out of the ladder, each with why (NAME.attribution.csv's
 * rows with used false): beside causes[], not in it, so that every cause
 * keeps a cost and the shares still sum to 1. */
static void unused(struct mmp_json *j, const struct mmp_attribution *a)
{
	mmp_json_open_array(j, "unused");
	for (size_t u = 0; u < a->nunused; u++) {
		const struct mmp_unused *x = &a->unused[u];
		mmp_json_open_object(j, NULL);
		mmp_json_put_string(j, "name", x->control->cause);
		mmp_json_put_string(j, "controls", x->control->name);
		mmp_json_put_uint(j, "run", x->rung->run->index + 1);
		mmp_json_put_string(j, "why", x->why);
		mmp_json_close_object(j);
	}
	mmp_json_close_array(j);
}

static void attribution(struct mmp_json *j, const struct mmp_analysis *an)
{
	const struct mmp_results *res = an->res;
	char buf[512];
	mmp_json_open_array(j, "attribution");
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_attribution *a = &an->attr[i];
		if (!a->job)
			continue;
		mmp_json_open_object(j, NULL);
		mmp_json_put_uint(j, "run", a->job->run->index + 1);
		mmp_json_put_string(j, "job", a->job->run->job->name);
		mmp_json_put_string(j, "label", mmp_result_label(res, a->job, buf, sizeof(buf)));
		mmp_json_put_number(j, "total_ns_per_byte", a->total);
		mmp_json_put_string(j, "unit", mmp_result_unit(a->job));
		mmp_json_put_uint(j, "rounds", a->rounds);
		mmp_json_put_bool(j, "disturbed", a->disturbed);
		mmp_json_put_string(j, "order", a->order);
		mmp_json_put_string(j, "top", a->top ? a->top->name : NULL);
		mmp_json_put_bool(j, "top_decided", a->top_decided);
		mmp_json_put_text(j, "doubt", a->top_decided ? NULL : a->doubt);
		mmp_json_open_array(j, "causes");
		for (size_t c = 0; c < a->n; c++)
			cause(j, res, a, &a->cause[c]);
		mmp_json_close_array(j);
		unused(j, a);
		mmp_json_close_object(j);
	}
	mmp_json_close_array(j);
}

static void answer(struct mmp_json *j, const struct mmp_answer *ans)
{
	mmp_json_open_object(j, NULL);
	mmp_json_put_string(j, "kind", mmp_question_name(ans->kind));
	mmp_json_put_string(j, "question", ans->question);
	mmp_json_put_uint(j, "set", ans->set + 1);
	if (ans->a) {
		mmp_json_put_uint(j, "run", ans->a->run->index + 1);
		mmp_json_put_string(j, "job", ans->a->run->job->name);
	} else {
		mmp_json_put_null(j, "run");
		mmp_json_put_null(j, "job");
	}
	if (ans->b) {
		mmp_json_put_uint(j, "other_run", ans->b->run->index + 1);
		mmp_json_put_string(j, "other", ans->b->run->job->name);
	} else {
		mmp_json_put_null(j, "other_run");
		mmp_json_put_null(j, "other");
	}
	mmp_json_put_string(j, "outcome", mmp_outcome_name(ans->outcome));
	mmp_json_put_string(j, "verdict", ans->verdict);
	if (ans->ratio.n)
		mmp_json_put_interval(j, "ratio", &ans->ratio, 0);
	else
		mmp_json_put_null(j, "ratio");
	mmp_json_put_number(j, "tolerance", ans->kind == MMP_Q_CAUSE ? NAN : ans->tolerance);
	mmp_json_put_uint(j, "rounds", ans->rounds);
	mmp_json_put_uint(j, "disturbed_repetitions", ans->disturbed);
	mmp_json_put_bool(j, "used_disturbed", ans->used_disturbed);
	if (ans->outcome == MMP_OUTCOME_INCONCLUSIVE && ans->more != SIZE_MAX)
		mmp_json_put_uint(j, "more_rounds", ans->more);
	else
		mmp_json_put_null(j, "more_rounds");
	mmp_json_put_text(j, "evidence", ans->evidence);
	mmp_json_close_object(j);
}

int mmp_result_json_write(FILE *f, const struct mmp_result_json *in)
{
	const struct mmp_results *res = in->an->res;
	struct mmp_json j;

	mmp_json_init(&j, f);
	mmp_json_open_object(&j, NULL);
	mmp_json_put_uint(&j, "schema_version", MMP_JSON_SCHEMA_VERSION);
	mmp_json_put_string(&j, "mmprof_version", MMPROF_VERSION);
	mmp_json_put_string(&j, "run_id", in->meta->run_id);
	mmp_json_put_string(&j, "started_at", in->meta->started_at);
	mmp_json_put_string(&j, "config", in->config);
	mmp_json_put_string(&j, "csv", in->csv);
	mmp_json_open_object(&j, "status");
	mmp_json_put_bool(&j, "complete", !in->interrupted && !in->failed && !in->changed);
	mmp_json_put_bool(&j, "interrupted", in->interrupted);
	mmp_json_put_bool(&j, "failed", in->failed);
	mmp_json_put_bool(&j, "data_changed", in->changed);
	mmp_json_put_bool(&j, "wrong_results", in->wrong);
	mmp_json_put_number(&j, "seconds", in->seconds);
	mmp_json_close_object(&j);
	machine(&j, in);
	plan(&j, res->plan);
	mmp_json_open_array(&j, "runs");
	for (size_t i = 0; i < res->plan->nruns; i++)
		run(&j, res, &res->run[i]);
	mmp_json_close_array(&j);
	attribution(&j, in->an);
	mmp_json_open_array(&j, "answers");
	for (size_t i = 0; i < in->an->answers.n; i++)
		answer(&j, &in->an->answers.a[i]);
	mmp_json_close_array(&j);
	mmp_json_close_object(&j);
	return mmp_json_finish(&j);
}

int mmp_result_json_save(struct mmp_outset *set, const char *path,
			 const struct mmp_result_json *in, char *written, size_t len,
			 struct mmp_error *err)
{
	struct mmp_outfile out;
	/* NAME.json is the set's: NAME.csv's commit then keeps it. */
	int in_set = mmp_outset_has_companions(set) && mmp_outset_kind_of(set, path) == MMP_OUT_JSON;
	int rc = in_set ? mmp_outfile_open(set, MMP_OUT_JSON, &out, err)
			: mmp_outfile_open_alone(path, NULL, 0, &out, err);
	if (rc)
		return rc;
	snprintf(written, len, "%s", out.path);
	if (mmp_result_json_write(out.f, in)) {
		mmp_outfile_abandon(&out);
		return mmp_error_set(err, -EINVAL, "%s: the JSON writer was misused (a bug); not "
						   "written",
				     path);
	}
	return mmp_outfile_commit(&out, err);
}
