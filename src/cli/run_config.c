/* What mmprof --config and mmprof exec share once their options are
 * parsed: the config run by the pipeline (src/session/pipeline.c), with
 * what the options ask between its plan and its run (--explain checked,
 * --dry-run and --topology printed), then its results turned into the
 * report, the summary and the exit status; Ctrl-C while it runs. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "say.h"
#include "config/config.h"
#include "run/exec_child.h"
#include "platform/hypervisor.h"
#include "session/pipeline.h"
#include "plan/plan.h"
#include "report/plan_report.h"
#include "report/report.h"
#include "platform/topology.h"
#include "util/units.h"

static volatile sig_atomic_t stop_requested;
/* The run's CSV while it is being written: a second Ctrl-C renames its
 * temporary into place before leaving, so the rows measured stay. */
static struct mmp_session_out *volatile running;

static void on_sigint(int sig)
{
	static const char msg[] = "\nmmprof: stopping after the current repetition "
				  "(Ctrl-C again to abandon it)\n";
	(void)sig;
	if (stop_requested) {
		static char said[4 * 4096 + 512];
		struct mmp_session_out *so = running;
		/* A program of the exec probe must not outlive us. */
		mmp_exec_child_kill_running();
		/* One run's set, said: the CSV with its events and threads
		 * (rows already written are flushed), and none of an earlier
		 * run's companions beside it. */
		if (so && so->csv.f) {
			const struct mmp_outfile *open[] = { &so->csv.out, &so->csv.events,
							     &so->csv.threads };
			mmp_outset_rescue(so->csv.out.set, open, 3, so->csv.rows, said,
					  sizeof(said));
			ssize_t w = write(STDERR_FILENO, said, strlen(said));
			(void)w;
		}
		_exit(EXIT_INTERRUPTED);
	}
	stop_requested = 1;
	ssize_t ignored = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)ignored;
}

/* Which platform this is, where the machine is this one: a described
 * machine has no hypervisor of its own to name. */
void mmp_cli_print_platform(const struct mmp_topology *topo, const char *then)
{
	struct mmp_platform p;
	if (mmp_topology_is_described(topo))
		return;
	mmp_platform_identify(&p);
	printf("platform: %s%s\n", p.name, then);
}

/* What the plan left out of what the config asks for, with the line that
 * asks (plan.h), before anything runs: a control that applies to none of
 * a job's points (for one reason or several), so that naming it changed
 * nothing.  One that applies at some points only (one thread of a sweep
 * over threads) is --dry-run's to list, beside each point's rungs. */
static void tell_plan_notes(const struct mmp_plan *plan, const struct mmp_config *cfg,
			    const struct mmp_observer *obs)
{
	char where[600];
	for (size_t i = 0; i < plan->nnotes; i++) {
		const struct mmp_plan_note *n = &plan->notes[i];
		if (!n->nowhere)
			continue;
		mmp_observer_tell(obs, &(struct mmp_told){
			.what = MMP_TELL_CONTROL_UNAPPLIED,
			.unapplied = { .where = mmp_config_where(cfg, n->line, n->section, where,
								 sizeof(where)),
				       .control = n->control, .job = n->job, .why = n->why,
				       .points = n->points, .of = n->of } });
	}
}

static void print_topology(const struct mmp_topology *topo, const struct mmp_plan *plan)
{
	char where[4096], label[320], place[MMP_PLACEMENT_SPEC_MAX];
	mmp_topology_print(topo, stdout);
	mmp_cli_print_platform(topo, "");
	printf("\nplacements (each run's threads: PU, NUMA node, L3 domain):\n");
	for (size_t i = 0; i < plan->nruns; i++) {
		const struct mmp_planned *r = &plan->runs[i];
		printf("run %zu %s placement=%s%s\n    %s\n", i + 1,
		       mmp_planned_label(r, label, sizeof(label)),
		       mmp_planned_format(r, MMP_KEY_PLACEMENT, place, sizeof(place)),
		       r->pins.oversubscribed ? " (oversubscribed)" : "",
		       mmp_topology_format_placement(topo, &r->pins, where, sizeof(where)));
	}
}

/* --explain JOB names a job of the config (mmprof exec's one job): said
 * before anything runs. */
static int check_explain(const struct cli *cli, const struct mmp_config *cfg, int exec)
{
	char job[160];
	size_t n = strcspn(cli->explain, " ");
	snprintf(job, sizeof(job), "%.*s", (int)n, cli->explain);
	for (size_t i = 0; i < cfg->njobs; i++)
		if (strcmp(cfg->jobs[i].name, job) == 0)
			return -1;
	if (exec && cfg->njobs == 1) {
		fprintf(stderr, "mmprof exec: --explain %s: the job is [%s] (the program's name, "
				"or --job's)\n",
			cli->explain, cfg->jobs[0].name);
		return EXIT_USAGE;
	}
	fprintf(stderr, "mmprof: --explain %s: %s has no job [%s]; its jobs:", cli->explain,
		cfg->path, job);
	for (size_t i = 0; i < cfg->njobs; i++)
		fprintf(stderr, " %s", cfg->jobs[i].name);
	fprintf(stderr, "\n");
	return EXIT_USAGE;
}

/* The report, from the results the session computed: --explain's job
 * points alone, --brief's lines and answers, or everything. */
static void report(const struct cli *cli, const struct mmp_session_out *so,
		   enum mmp_table table, const struct mmp_topology *topo)
{
	const struct mmp_results *res = &so->res;
	const struct mmp_analysis *an = &so->an;
	if (cli->explain) {
		if (!mmp_report_explain(stdout, an, cli->explain))
			fprintf(stderr, "mmprof: --explain %s: no job point of it was split into "
					"causes (it needs controls and every step measured)\n",
				cli->explain);
		return;
	}
	if (cli->brief) {
		mmp_report_brief(stdout, an);
		return;
	}
	mmp_report_machine(stdout, &so->meta);
	if (table != MMP_TABLE_SIZES)
		mmp_report_table(stdout, res);
	if (table != MMP_TABLE_SIZES)
		mmp_report_pus(stdout, res);
	if (table != MMP_TABLE_RUNS)
		mmp_report_sizes(stdout, an);
	mmp_report_matrices(stdout, res, topo);
	mmp_report_ratios(stdout, an);
	mmp_report_models(stdout, an);
	mmp_report_metrics(stdout, res);
	mmp_report_profiles(stdout, res);
	mmp_report_verdicts(stdout, an);
}

/* NAME.csv was not written by this run: say what is there instead. */
static void not_written(const struct mmp_session *s, const struct mmp_session_out *so,
			const char *lead)
{
	struct stat st;
	int earlier = stat(s->files->target, &st) == 0 && S_ISREG(st.st_mode);
	const char *there = s->files->special ? "nothing went to it"
			    : earlier	      ? "an earlier run's file stays there as it was"
					      : "there is no such file";
	if (so->rows)
		fprintf(stderr, "mmprof: %s the %lu row(s) measured could not be kept: %s was "
				"not written (%s)\n",
			lead, so->rows, s->files->path, there);
	else
		fprintf(stderr, "mmprof: %s no row was measured: %s was not written (%s)\n", lead,
			s->files->path, there);
	/* The logs go with the rows (logdir.h): an earlier run's stay with
	 * its file; this run's are where its messages said. */
	if (so->logs_path[0] && !s->files->special)
		fprintf(stderr, "mmprof: this run's program logs are in %s%s\n", so->logs_path,
			earlier ? " (the earlier file's rows name its own, which stay)" : "");
}

static void summary(const struct mmp_session *s, const struct mmp_session_out *so, int quiet)
{
	const struct mmp_answers *a = &so->an.answers;
	size_t yes = 0, no = 0, open = 0;
	for (size_t i = 0; i < a->n; i++) {
		yes += a->a[i].outcome == MMP_OUTCOME_YES;
		no += a->a[i].outcome == MMP_OUTCOME_NO;
		open += a->a[i].outcome == MMP_OUTCOME_INCONCLUSIVE;
	}
	if (so->interrupted || so->changed) {
		const char *lead = so->interrupted ? "interrupted:" : "stopped: a data file changed;";
		if (so->wrote_csv)
			fprintf(stderr, "mmprof: %s the %lu row(s) measured %s are in %s%s%s\n", lead,
				so->rows, so->interrupted ? "so far" : "before", s->files->path,
				so->wrote_json ? " and " : "", so->wrote_json ? so->json_path : "");
		else
			not_written(s, so, lead);
		return;
	}
	if (quiet)
		return;
	if (!so->wrote_csv) {
		char lead[64];
		snprintf(lead, sizeof(lead), "%zu run(s) in %.1f s,", s->plan->nruns, so->seconds);
		not_written(s, so, lead);
		return;
	}
	/* One line, wrapped at MMP_LINE_MAX: the files' paths alone can be
	 * longer. */
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);
	if (!f)
		f = stderr;
	fprintf(f, "mmprof: %zu run(s), %lu row(s) in %s", s->plan->nruns, so->rows,
		s->files->path);
	if (so->wrote_attribution)
		fprintf(f, ", %s", so->attribution_path);
	if (so->wrote_answers)
		fprintf(f, ", %s", so->answers_path);
	if (so->wrote_profile)
		fprintf(f, ", %s", so->profile_path);
	if (so->wrote_folded)
		fprintf(f, ", %s", so->folded_path);
	if (s->per_thread)
		fprintf(f, ", %s", so->threads_path);
	if (so->wrote_json)
		fprintf(f, ", %s", so->json_path);
	fprintf(f, "; %.1f s", so->seconds);
	/* Every question's answer, the ratio tables' rows among them: more
	 * than the answers block shows, so said as the CSV's. */
	if (a->n)
		fprintf(f, "; %zu answer(s)%s%s: %zu yes, %zu no, %zu inconclusive", a->n,
			so->wrote_answers ? " in " : "", so->wrote_answers ? so->answers_path : "",
			yes, no, open);
	fprintf(f, "\n");
	if (f != stderr && fclose(f) == 0 && line)
		mmp_fprintf_wrapped(stderr, "%s", line);
	free(line);
}

/* The run's end, said: the report (interrupted: what ran, marked
 * partial), the summary, and the exit status. */
static int outcome(const struct cli *cli, struct mmp_pipeline *p)
{
	struct mmp_session_out *so = &p->out;
	report(cli, so, p->plan.table, p->topo);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "mmprof: error: writing the report to stdout: %s\n",
			strerror(errno));
		so->failed = 1;
	}
	summary(&p->session, so, cli->quiet);
	if (so->wrong)
		fprintf(stderr, "mmprof: error: some results differ from the reference "
				"(result_ok = false in the CSV)\n");
	int status = so->interrupted		  ? EXIT_INTERRUPTED
		     : so->failed || so->wrong ? EXIT_RUN_FAILED
		     : cli->fail_on_regression && mmp_answers_regressed(&so->an.answers)
			     ? EXIT_REGRESSED
			     : EXIT_DONE;
	if (status == EXIT_REGRESSED)
		fprintf(stderr, "mmprof: an answer says a fix regressed "
				"(--fail-on-regression): exit 3\n");
	return status;
}

/* Ctrl-C stops the session after the current repetition from the moment
 * it starts (before, nothing is measured that could be kept). */
static void on_running(void *ctx, struct mmp_session_out *so)
{
	(void)ctx;
	if (so) {
		struct sigaction sa = { .sa_handler = on_sigint };
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
	}
	running = so;
}

/* What was planned, checked against --explain and printed for --dry-run
 * and --topology.  Returns -1 to go on and run it, or the exit status. */
static int planned(const struct cli *cli, const struct mmp_pipeline *p,
		   const struct mmp_observer *obs, int exec)
{
	int status = cli->explain ? check_explain(cli, p->cfg, exec) : -1;
	if (status >= 0)
		return status;
	if (!cli->dry_run) /* the dry run lists them all */
		tell_plan_notes(&p->plan, p->cfg, obs);
	if (!cli->topology && !cli->dry_run)
		return -1;
	if (cli->topology)
		print_topology(p->topo, &p->plan);
	if (cli->dry_run) {
		mmp_report_plan(&p->plan, p->cfg, stdout);
		mmp_cli_print_platform(p->topo, " (a run measures its first-touch cost and scan "
						"speed before the first round)");
		printf("\nCSV: %s\n", p->csv_path);
		if (p->json)
			printf("JSON: %s\n", p->json);
	}
	return EXIT_DONE;
}

int mmp_cli_run_config(const struct cli *cli, struct mmp_config *cfg, int exec)
{
	struct mmp_pipeline p;
	struct mmp_say say = { .out = stderr, .quiet = cli->quiet,
			       .progress = !cli->quiet && isatty(STDERR_FILENO) };
	struct mmp_observer obs;
	const struct mmp_pipeline_opts o = {
		.config = cli->config, .cfg = cfg, .csv = cli->csv, .json = cli->json,
		.topology_from = cli->topology_from, .repeat = cli->repeat,
		.per_thread = cli->per_thread, .exec = exec, .stop = &stop_requested,
		.running = on_running,
	};
	mmp_say_observer(&say, &obs);
	int rc = mmp_pipeline_plan(&p, &o, &obs);
	int status = rc ? -1 : planned(cli, &p, &obs, exec);
	if (!rc && status < 0) {
		rc = mmp_pipeline_run(&p, &o, &obs);
		mmp_say_end_progress(&say);
	}
	if (rc)
		status = p.refused ? EXIT_USAGE : EXIT_RUN_FAILED;
	else if (status < 0)
		status = outcome(cli, &p);
	mmp_pipeline_free(&p);
	return status;
}
