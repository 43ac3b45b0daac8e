/* One invocation over a plan (see session.h). */
#include "mmprof/session.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/attribution.h"
#include "mmprof/csv.h"
#include "mmprof/datafile.h"
#include "mmprof/eventplan.h"
#include "mmprof/meta.h"
#include "mmprof/paths.h"
#include "mmprof/probe.h"
#include "mmprof/report.h"
#include "mmprof/runner.h"
#include "mmprof/units.h"

void mmp_default_csv_path(const char *config_path, char *buf, size_t len)
{
	const char *base = strrchr(config_path, '/');
	base = base ? base + 1 : config_path;
	size_t n = strlen(base);
	if (n > 4 && strcmp(base + n - 4, ".ini") == 0)
		n -= 4;
	snprintf(buf, len, "results/%.*s.csv", (int)n, base);
}

int mmp_session_place(struct mmp_session *s)
{
	size_t before = s->cfg->ndiags;
	char last[MMP_ERROR_MSG_MAX] = "";

	s->pins = calloc(s->plan->nruns ? s->plan->nruns : 1, sizeof(*s->pins));
	if (!s->pins)
		return -ENOMEM;
	for (size_t i = 0; i < s->plan->nruns; i++) {
		const struct mmp_run *run = &s->plan->runs[i];
		struct mmp_error err = { 0 };
		if (mmp_topology_plan(s->topo, &run->p.placement, run->p.threads, &s->pins[i],
				      &err) == 0)
			continue;
		if (strcmp(err.msg, last) == 0)
			continue; /* the same placement, swept over threads */
		snprintf(last, sizeof(last), "%s", err.msg);
		mmp_config_diag(s->cfg, run->line[MMP_KEY_PLACEMENT],
				run->from[MMP_KEY_PLACEMENT] ? run->from[MMP_KEY_PLACEMENT]
							     : run->job->name,
				"%s", err.msg);
	}
	return s->cfg->ndiags == before ? 0 : -EINVAL;
}

static struct mmp_data_spec data_spec(const struct mmp_run *run)
{
	return (struct mmp_data_spec){
		.file = run->p.file, .size = run->p.size, .fill = run->p.fill, .seed = run->p.seed,
	};
}

static void print_run(const struct mmp_session *s, size_t i, FILE *out)
{
	const struct mmp_run *run = &s->plan->runs[i];
	char v[256], pus[512], path[4096];
	struct mmp_data_spec spec = data_spec(run);

	fprintf(out, "run %zu: [%s]", i + 1, run->job->name);
	for (size_t k = 0; k < MMP_KEY_COUNT; k++) {
		if (k == MMP_KEY_FILE || k == MMP_KEY_CSV)
			continue;
		if (*mmp_run_format(run, (enum mmp_key_id)k, v, sizeof(v)))
			fprintf(out, " %s=%s", mmp_keys[k].name, v);
	}
	if (mmp_datafile_path(&spec, mmp_data_dir(), path, sizeof(path)) == 0)
		fprintf(out, "\n    data %s", path);
	if (s->pins && s->pins[i].pu)
		fprintf(out, "\n    PUs %s (%u distinct)%s",
			mmp_pin_plan_format(&s->pins[i], pus, sizeof(pus)), s->pins[i].npus,
			s->pins[i].oversubscribed ? ", oversubscribed" : "");
	fputc('\n', out);
}

void mmp_session_print_plan(const struct mmp_session *s, FILE *out)
{
	unsigned long reps = 0;
	for (size_t i = 0; i < s->plan->nruns; i++)
		reps += s->plan->runs[i].p.repeat;
	fprintf(out, "%s: %zu job(s), %zu run(s), %lu recorded repetition(s); CSV %s\n",
		s->cfg->path, s->cfg->njobs, s->plan->nruns, reps, s->csv_path);
	for (size_t i = 0; i < s->plan->nruns; i++)
		print_run(s, i, out);
}

void mmp_session_print_topology(const struct mmp_session *s, FILE *out)
{
	char pus[512];
	mmp_topology_print(s->topo, out);
	for (size_t i = 0; i < s->plan->nruns; i++) {
		const struct mmp_run *run = &s->plan->runs[i];
		fprintf(out, "[%s] %s threads=%u placement=%s: PUs %s%s\n", run->job->name,
			run->p.probe->name, run->p.threads, run->p.placement.spec,
			mmp_pin_plan_format(&s->pins[i], pus, sizeof(pus)),
			s->pins[i].oversubscribed ? " (oversubscribed)" : "");
	}
}

struct run_ctx {
	struct mmp_session *s;
	struct mmp_csv *csv;
	struct mmp_eventplan *ep;
	struct mmp_run_result *r;
	size_t index;
	int wrong;
};

static void progress(const struct run_ctx *c, const struct mmp_run_info *info,
		     const struct mmp_rep *rep)
{
	char label[256];
	const struct mmp_run *run = c->r->run;
	fprintf(stderr, "\r\033[K[%zu/%zu] %s%s%s: %s %u/%u", c->index + 1, c->s->plan->nruns,
		mmp_result_label(c->r, label, sizeof(label)), info->item ? " control " : "",
		info->run->control_name, rep->warmup ? "warmup" : "rep", rep->index + 1,
		rep->warmup ? run->p.warmup : run->p.repeat);
	fflush(stderr);
}

static void clear_progress(const struct mmp_session *s)
{
	if (s->progress) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
}

/* The result a repetition belongs to: the job's, or one of its controls'. */
static struct mmp_run_result *result_of(struct run_ctx *c, const struct mmp_run_info *info)
{
	if (info->item == 0)
		return c->r;
	if (info->item <= c->r->ncontrols)
		return &c->r->controls[info->item - 1];
	return c->r->twin;
}

static int on_rep(const struct mmp_run_info *info, const struct mmp_rep *rep, void *arg)
{
	struct run_ctx *c = arg;
	struct mmp_run_result *r = result_of(c, info);
	struct mmp_error err = { 0 };
	char label[256];

	if (rep->probe_rc || !rep->result_ok) {
		clear_progress(c->s);
		mmp_result_label(r, label, sizeof(label));
		if (rep->probe_rc)
			fprintf(stderr, "mmprof: error: %s %s %u: the probe failed: %s\n", label,
				rep->warmup ? "warmup" : "rep", rep->index, strerror(-rep->probe_rc));
		else
			fprintf(stderr,
				"mmprof: error: %s %s %u: result %" PRIu64 " differs from the "
				"reference (%s of %s): the probe did not read what it should\n",
				label, rep->warmup ? "warmup" : "rep", rep->index, rep->result,
				mmp_kernel_names[info->run->p.kernel], info->data->path);
		c->wrong = 1;
	}
	if (!c->s->quiet) {
		clear_progress(c->s);
		mmp_eventplan_explain(c->ep, info, rep, stderr);
	}
	if (c->s->progress)
		progress(c, info, rep);
	if (rep->warmup)
		return 0;
	for (size_t i = 0; r->events && i < r->events->n; i++) {
		r->ev_values[i * info->run->p.repeat + r->n] = rep->counts[i].value;
		r->ev_ok[i] &= mmp_count_valid(&rep->counts[i]);
	}
	r->elapsed_ns[r->n++] = (double)rep->elapsed_ns;
	r->results_ok &= rep->result_ok && !rep->probe_rc;
	if (mmp_csv_row(c->csv, info, rep, &err)) {
		clear_progress(c->s);
		fprintf(stderr, "mmprof: error: %s\n", err.msg);
		return err.code;
	}
	return 0;
}

static void warn_oversubscribed(const struct mmp_session *s, size_t i)
{
	const struct mmp_run *run = &s->plan->runs[i];
	const struct mmp_pin_plan *pin = &s->pins[i];
	/* Once per distinct (threads, placement). */
	for (size_t j = 0; j < i; j++)
		if (s->pins[j].oversubscribed && s->plan->runs[j].p.threads == run->p.threads &&
		    strcmp(s->plan->runs[j].p.placement.spec, run->p.placement.spec) == 0)
			return;
	fprintf(stderr,
		"mmprof: warning: %u threads on %u PU(s) (placement %s) is oversubscribed: "
		"threads take turns, and their time includes waiting for the scheduler\n",
		run->p.threads, pin->npus, run->p.placement.spec);
}

/* A result ready to receive one run's repetitions. */
static int result_init(struct mmp_run_result *r, const struct mmp_run *run,
		       const struct mmp_pin_plan *pin, const struct mmp_datafile *df,
		       const struct mmp_event_set *events, uint64_t bytes)
{
	size_t nev = events ? events->n : 0;
	r->run = run;
	r->data = df;
	r->bytes = bytes;
	r->results_ok = 1;
	r->oversubscribed = pin->oversubscribed;
	r->npus = pin->npus;
	r->access = mmp_params_access(&run->p);
	r->events = events;
	r->elapsed_ns = calloc(run->p.repeat, sizeof(double));
	r->ev_values = calloc(nev * run->p.repeat + 1, sizeof(double));
	r->ev_ok = calloc(nev + 1, sizeof(int));
	if (!r->elapsed_ns || !r->ev_values || !r->ev_ok)
		return -ENOMEM;
	for (size_t i = 0; i < nev; i++)
		r->ev_ok[i] = 1;
	return 0;
}

static void result_finish(struct mmp_run_result *r, enum mmp_run_state state)
{
	if (r->n)
		mmp_stats_compute(r->elapsed_ns, r->n, &r->st);
	r->state = state == MMP_RUN_INTERRUPTED && !r->n ? MMP_RUN_PENDING : state;
	for (size_t k = 0; k < r->ncontrols; k++)
		result_finish(&r->controls[k], state);
	if (r->twin)
		result_finish(r->twin, state);
}

static void result_free(struct mmp_run_result *r)
{
	free(r->elapsed_ns);
	free(r->ev_values);
	free(r->ev_ok);
	for (size_t k = 0; k < r->ncontrols; k++)
		result_free(&r->controls[k]);
	free(r->controls);
	if (r->twin)
		result_free(r->twin);
	free(r->twin);
	if (r->ladder)
		mmp_ladder_free(r->ladder);
	free(r->ladder);
}

/* The job's controls as runner items: one per rung above the job, with
 * solo reading the first thread's slice and checked against that slice's
 * own reference. */
static int add_controls(struct run_ctx *c, const struct mmp_datafile *df,
			struct mmp_runner_item *items, uint64_t (*refs)[256],
			struct mmp_error *err)
{
	struct mmp_session *s = c->s;
	struct mmp_run_result *r = c->r;
	const struct mmp_run *run = r->run;

	r->ladder = calloc(1, sizeof(*r->ladder));
	if (!r->ladder)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	int rc = mmp_ladder_build(run, &s->pins[c->index], s->topo, r->ladder, err);
	if (rc)
		return rc;
	r->ncontrols = r->ladder->n - 1;
	r->controls = calloc(r->ncontrols + 1, sizeof(*r->controls));
	if (!r->controls)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	for (size_t k = 1; k < r->ladder->n; k++) {
		const struct mmp_rung *rung = &r->ladder->rung[k];
		uint64_t end = rung->solo_of ? df->size / rung->solo_of : 0;
		if (end) {
			rc = mmp_reference_scan(df->fd, end, refs[k], err);
			if (rc)
				return rc;
		}
		items[k] = (struct mmp_runner_item){
			.run = &rung->run, .data = df, .plan = &rung->plan, .events = r->events,
			.end = end, .reference = end ? refs[k] : NULL,
		};
		if (result_init(&r->controls[k - 1], &rung->run, &rung->plan, df, r->events,
				end ? end : df->size))
			return mmp_error_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The run of the job this one fixes that reads the same bytes the same way
 * (same data, kernel, threads, bytes per call, placement, tally, mapping),
 * differing only in the access path itself.  -1 when there is none. */
static long find_twin(const struct mmp_session *s, const struct mmp_run *run)
{
	for (size_t i = 0; run->p.fixes && i < s->plan->nruns; i++) {
		const struct mmp_run *o = &s->plan->runs[i];
		if (strcmp(o->job->name, run->p.fixes) != 0)
			continue;
		int tally = !((run->applies & o->applies) & MMP_KEY_BIT(MMP_KEY_TALLY)) ||
			    run->p.tally == o->p.tally;
		if (same_str(o->p.file, run->p.file) && o->p.size == run->p.size &&
		    o->p.fill == run->p.fill && o->p.seed == run->p.seed &&
		    o->p.kernel == run->p.kernel && o->p.threads == run->p.threads &&
		    strcmp(o->p.placement.spec, run->p.placement.spec) == 0 && tally &&
		    o->p.prefault == run->p.prefault && o->p.advice == run->p.advice &&
		    o->p.cache == run->p.cache &&
		    mmp_params_access(&o->p) ==
			    mmp_params_access(&run->p))
			return (long)i;
	}
	return -1;
}

/* The twin as one more item of the group. */
static int add_twin(struct run_ctx *c, const struct mmp_datafile *df,
		    struct mmp_runner_item *item)
{
	struct mmp_run_result *r = c->r;
	long t = find_twin(c->s, r->run);
	if (t < 0)
		return 0;
	r->twin_run = c->s->plan->runs[t];
	/* It runs in this job's repetition loop, so it has this job's. */
	r->twin_run.p.warmup = r->run->p.warmup;
	r->twin_run.p.repeat = r->run->p.repeat;
	snprintf(r->twin_run.control_name, sizeof(r->twin_run.control_name), "twin of %s",
		 r->run->job->name);
	r->twin = calloc(1, sizeof(*r->twin));
	if (!r->twin || result_init(r->twin, &r->twin_run, &c->s->pins[t], df, r->events, df->size))
		return -ENOMEM;
	*item = (struct mmp_runner_item){
		.run = &r->twin_run, .data = df, .plan = &c->s->pins[t], .events = r->events,
	};
	return 1;
}

static int run_one(struct run_ctx *c, struct mmp_datafiles *files)
{
	struct mmp_session *s = c->s;
	const struct mmp_run *run = &s->plan->runs[c->index];
	struct mmp_run_result *r = c->r;
	struct mmp_error err = { 0 };
	struct mmp_datafile *df;
	struct mmp_data_spec spec = data_spec(run);
	struct mmp_runner_item items[MMP_CONTROL_COUNT + 2]; /* job, rungs, twin */
	uint64_t refs[MMP_CONTROL_COUNT + 1][256];
	char size[32], label[256];

	r->run = run;
	r->oversubscribed = s->pins[c->index].oversubscribed;
	r->npus = s->pins[c->index].npus;
	r->access = mmp_params_access(&run->p);
	int rc = mmp_datafiles_get(files, &spec, &df, &err);
	if (rc)
		goto failed;
	if (df->created && !s->quiet) {
		clear_progress(s);
		fprintf(stderr, "mmprof: created %s (%s, %s) at %.0f MB/s\n", df->path,
			mmp_format_size(df->size, size, sizeof(size)), mmp_fill_names[run->p.fill],
			df->create_bytes_per_s / 1e6);
		df->created = 0; /* said once */
	}
	if (r->oversubscribed && !s->quiet) {
		clear_progress(s);
		warn_oversubscribed(s, c->index);
	}
	if (result_init(r, run, &s->pins[c->index], df, mmp_eventplan_set(c->ep, run->p.events),
			df->size))
		return -ENOMEM;
	items[0] = (struct mmp_runner_item){
		.run = run, .data = df, .plan = &s->pins[c->index], .events = r->events,
	};
	rc = add_controls(c, df, items, refs, &err);
	if (rc)
		goto failed;
	size_t nitems = 1 + r->ncontrols;
	rc = add_twin(c, df, &items[nitems]);
	if (rc < 0)
		return rc;
	nitems += (size_t)rc;

	struct mmp_runner_opts opts = {
		.topo = s->topo, .stop = s->stop, .on_rep = on_rep, .arg = c,
	};
	rc = mmp_runner_run_group(items, nitems, &opts, &err);
	if (rc == -EINTR) {
		result_finish(r, MMP_RUN_INTERRUPTED);
		return rc;
	}
	if (rc)
		goto failed;
	result_finish(r, MMP_RUN_DONE);
	return 0;
failed:
	result_finish(r, MMP_RUN_FAILED);
	snprintf(r->error, sizeof(r->error), "%s", err.msg[0] ? err.msg : strerror(-rc));
	clear_progress(s);
	fprintf(stderr, "mmprof: error: %s: %s\n", mmp_result_label(r, label, sizeof(label)),
		r->error);
	return rc == -EINTR ? rc : 0;
}

int mmp_session_run(struct mmp_session *s)
{
	struct mmp_meta meta;
	struct mmp_csv csv;
	struct mmp_error err = { 0 };
	struct mmp_datafiles files = { .dir = mmp_data_dir(), .stop = s->stop };
	size_t n = s->plan->nruns;
	int status = 0, interrupted = 0, failed = 0, wrong = 0;
	uint64_t t0 = mmp_now_ns();

	struct mmp_eventplan ep;
	char msg[512], threads_path[4096];

	mmp_meta_collect(&meta);
	if (mmp_eventplan_build(&ep, s->plan, msg, sizeof(msg))) {
		fprintf(stderr, "mmprof: error: %s\n", msg);
		mmp_eventplan_free(&ep);
		return 1;
	}
	if (!s->quiet)
		mmp_eventplan_notes(&ep, stderr);
	mmp_sibling_path(s->csv_path, ".threads.csv", threads_path, sizeof(threads_path));
	if (mmp_csv_open(&csv, s->csv_path, &meta, ep.names, ep.nnames,
			 s->per_thread ? threads_path : NULL, &err)) {
		fprintf(stderr, "mmprof: error: %s\n", err.msg);
		mmp_eventplan_free(&ep);
		return 1;
	}
	struct mmp_run_result *results = calloc(n ? n : 1, sizeof(*results));
	if (!results) {
		mmp_csv_close(&csv, &err);
		fprintf(stderr, "mmprof: error: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		results[i].run = &s->plan->runs[i];

	for (size_t i = 0; i < n; i++) {
		struct run_ctx c = { .s = s, .csv = &csv, .ep = &ep, .r = &results[i], .index = i };
		if (*s->stop) {
			interrupted = 1;
			break;
		}
		int rc = run_one(&c, &files);
		wrong |= c.wrong;
		failed |= results[i].state == MMP_RUN_FAILED;
		if (rc == -EINTR) {
			interrupted = 1;
			break;
		}
		if (rc) {
			fprintf(stderr, "mmprof: error: %s\n", strerror(-rc));
			failed = 1;
			break;
		}
	}
	clear_progress(s);

	enum mmp_table table = n ? s->plan->runs[0].p.table : MMP_TABLE_RUNS;
	if (table != MMP_TABLE_SIZES)
		mmp_report_table(stdout, results, n);
	if (table != MMP_TABLE_RUNS)
		mmp_report_sizes(stdout, results, n);
	mmp_report_ratios(stdout, s->cfg, results, n);
	mmp_report_metrics(stdout, results, n);
	mmp_report_verdicts(stdout, s->cfg, results, n);
	fflush(stdout);
	char attribution_path[4096];
	mmp_sibling_path(s->csv_path, ".attribution.csv", attribution_path,
			 sizeof(attribution_path));
	if (mmp_attribution_csv(attribution_path, results, n, meta.run_id, &err)) {
		fprintf(stderr, "mmprof: error: %s\n", err.msg);
		failed = 1;
	}

	double secs = (double)(mmp_now_ns() - t0) / 1e9;
	if (interrupted)
		fprintf(stderr, "mmprof: interrupted: the %lu row(s) measured so far are in %s\n",
			csv.rows, s->csv_path);
	else if (!s->quiet)
		fprintf(stderr, "mmprof: %zu run(s), %lu row(s) in %s%s%s, %.1f s\n", n, csv.rows,
			s->csv_path, s->per_thread ? " and " : "", s->per_thread ? threads_path : "",
			secs);
	if (mmp_csv_close(&csv, &err)) {
		fprintf(stderr, "mmprof: error: %s\n", err.msg);
		failed = 1;
	}
	if (wrong)
		fprintf(stderr, "mmprof: error: some results differ from the reference "
				"(result_ok = false in the CSV)\n");
	for (size_t i = 0; i < n; i++)
		result_free(&results[i]);
	free(results);
	mmp_datafiles_free(&files);
	mmp_eventplan_free(&ep);
	if (interrupted)
		status = 130;
	else if (failed || wrong)
		status = 1;
	return status;
}

void mmp_session_free(struct mmp_session *s)
{
	if (s->pins && s->plan)
		for (size_t i = 0; i < s->plan->nruns; i++)
			mmp_pin_plan_free(&s->pins[i]);
	free(s->pins);
	s->pins = NULL;
}
