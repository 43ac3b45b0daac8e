/* A whole config run (see pipeline.h). */
#include "session/pipeline.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "data/datafile.h"
#include "platform/meta.h"
#include "util/paths.h"
#include "data/sweep_data.h"

static void tell(const struct mmp_observer *obs, const struct mmp_told *t)
{
	mmp_observer_tell(obs, t);
}

/* Every diagnostic of the config, sorted, and their summary. */
static void tell_diags(struct mmp_config *cfg, const struct mmp_observer *obs)
{
	char line[1400];
	mmp_config_sort_diags(cfg);
	tell(obs, &(struct mmp_told){ .what = MMP_TELL_CONFIG_WRONG,
				      .diags = { .lines = cfg->diags, .n = cfg->ndiags },
				      .text = mmp_config_summary(cfg, line, sizeof(line)) });
}

/* The config: read, or the one built in memory.  *bad: it has errors
 * (said later, with the stages' own).  Returns 0 to go on. */
static int read_config(struct mmp_pipeline *p, const struct mmp_pipeline_opts *o,
		       const struct mmp_observer *obs, int *bad)
{
	struct mmp_config *cfg = p->cfg;
	int rc = o->cfg ? (cfg->ndiags ? -EINVAL : 0) : mmp_config_load(o->config, cfg);
	*bad = rc == -EINVAL;
	if (*bad)
		return 0;
	if (rc && cfg->ndiags) /* not a config: a directory, a device, too big */
		tell(obs, &(struct mmp_told){ .what = MMP_TELL_NOT_A_CONFIG, .text = cfg->diags[0] });
	else if (rc)
		tell(obs, &(struct mmp_told){ .what = MMP_TELL_CONFIG_UNREADABLE, .text = o->config,
					      .err = -rc });
	p->refused = rc != 0;
	return rc;
}

/* The job points, their data checked, the machine and the plan.  Every
 * error in one pass: a config with errors still goes through the stages
 * (each leaves out what was wrong before it), so that a bad value in one
 * job does not hide a bad plan in another.  Returns 0 to go on. */
static int plan_points(struct mmp_pipeline *p, const struct mmp_pipeline_opts *o,
		       const struct mmp_observer *obs, int bad)
{
	struct mmp_error err = { 0 };
	int rc = mmp_config_expand(p->cfg, &p->sweep);
	bad |= rc == -EINVAL;
	if (rc == 0 || rc == -EINVAL) {
		rc = mmp_sweep_check_data(p->cfg, &p->sweep, mmp_data_dir());
		bad |= rc == -EINVAL;
	}
	if (rc && rc != -EINVAL)
		return rc;
	for (size_t i = 0; o->repeat && i < p->sweep.nruns; i++)
		p->sweep.runs[i].p.repeat = (uint32_t)o->repeat;

	rc = mmp_topology_load(&p->topo, o->topology_from, &err);
	if (rc) {
		if (bad)
			tell_diags(p->cfg, obs);
		tell(obs, &(struct mmp_told){ .what = MMP_TELL_NO_MACHINE, .text = err.msg });
		/* A machine described wrong is the user's; this one's, not. */
		p->refused = o->topology_from || bad;
		return rc;
	}
	rc = mmp_plan_build(p->cfg, &p->sweep, p->topo, &p->plan);
	bad |= rc == -EINVAL;
	if (bad) {
		tell_diags(p->cfg, obs);
		p->refused = 1;
		return -EINVAL;
	}
	return rc;
}

/* NAME.csv's path (and --json's) with {host} filled in: --csv's, the csv
 * key's, or results/NAME.csv (NAME: the config's, or exec-JOB).  A bad
 * placeholder is the user's, said with the file and line of a csv key.
 * Returns 0 to go on. */
static int result_paths(struct mmp_pipeline *p, const struct mmp_pipeline_opts *o,
			const struct mmp_observer *obs)
{
	struct mmp_config *cfg = p->cfg;
	struct mmp_error err = { 0 };
	char host[256], exec_name[96];
	const char *key = p->sweep.nruns ? p->sweep.runs[0].p.csv : NULL;

	snprintf(exec_name, sizeof(exec_name), "exec-%s", cfg->njobs ? cfg->jobs[0].name : "");
	mmp_meta_short_host(host, sizeof(host));
	p->refused = 1;
	if (!o->csv && !key) {
		mmp_default_csv_path(o->exec ? exec_name : o->config, p->csv_path,
				     sizeof(p->csv_path));
	} else if (mmp_path_fill(o->csv ? o->csv : key, host, p->csv_path, sizeof(p->csv_path),
				 &err)) {
		if (o->csv) {
			tell(obs, &(struct mmp_told){ .what = MMP_TELL_BAD_PATH, .text = err.msg,
						      .bad_path = { "--csv", o->csv } });
			return -EINVAL;
		}
		mmp_config_diag(cfg, cfg->global.set[MMP_KEY_CSV].line, "global", "csv: %s",
				err.msg);
		tell_diags(cfg, obs);
		return -EINVAL;
	}
	if (o->json && mmp_path_fill(o->json, host, p->json_path, sizeof(p->json_path), &err)) {
		tell(obs, &(struct mmp_told){ .what = MMP_TELL_BAD_PATH, .text = err.msg,
					      .bad_path = { "--json", o->json } });
		return -EINVAL;
	}
	p->json = o->json ? p->json_path : NULL;
	p->refused = 0;
	return 0;
}

int mmp_pipeline_plan(struct mmp_pipeline *p, const struct mmp_pipeline_opts *o,
		      const struct mmp_observer *obs)
{
	int bad;
	memset(p, 0, sizeof(*p));
	p->cfg = o->cfg ? o->cfg : &p->own;
	int rc = read_config(p, o, obs, &bad);
	if (!rc)
		rc = plan_points(p, o, obs, bad);
	if (!rc)
		rc = result_paths(p, o, obs);
	return rc;
}

/* --json: NAME.json joins the set; any other file of the set is not
 * JSON's to replace, and a path elsewhere is checked as NAME.csv was and
 * locked as it is (two runs with one --json both exited 0, and the file
 * held one of them).  Returns 0 or a negative errno (err says). */
static int json_path_ok(struct mmp_pipeline *p, char **inputs, size_t ninputs,
			struct mmp_error *err)
{
	int kind = p->json ? mmp_outset_kind_of(&p->files, p->json) : -1;
	if (kind >= 0 && kind != MMP_OUT_JSON)
		return mmp_error_set(err, -EEXIST, "--json %s is this run's %s: name another file",
				     p->json, kind == MMP_OUT_CSV ? "CSV" : mmp_out_suffix(kind) + 1);
	if (!p->json || kind >= 0)
		return 0;
	int rc = mmp_outfile_check_alone(p->json, (const char *const *)inputs, ninputs, err);
	return rc ? rc : mmp_outset_lock_other(&p->files, p->json, err);
}

/* The result files: never over an input, one mmprof at a time.  Returns
 * 0 (p->files open), or a negative errno (said). */
static int open_files(struct mmp_pipeline *p, const struct mmp_pipeline_opts *o,
		      const struct mmp_observer *obs)
{
	struct mmp_error err = { 0 };
	char **inputs = NULL;
	size_t ninputs = 0;
	if (mmp_sweep_inputs(p->cfg, &p->sweep, mmp_data_dir(), &inputs, &ninputs)) {
		tell(obs, &(struct mmp_told){ .what = MMP_TELL_OUT_OF_MEMORY });
		return -ENOMEM;
	}
	int rc = mmp_outset_open(&p->files, p->csv_path, (const char *const *)inputs, ninputs,
				 &err);
	if (!rc) {
		rc = json_path_ok(p, inputs, ninputs, &err);
		if (rc)
			mmp_outset_close(&p->files);
	}
	mmp_sweep_inputs_free(inputs, ninputs);
	if (rc) {
		tell(obs, &(struct mmp_told){ .what = MMP_TELL_NOTHING_RUN, .text = err.msg });
		p->refused = 1;
		return rc;
	}
	if (p->files.note[0])
		tell(obs, &(struct mmp_told){ .what = MMP_TELL_FILES_NOTE, .text = p->files.note });
	p->files.note[0] = '\0'; /* said: the note after the run is what committing adds */
	if (o->exec && !o->csv)
		(void)mmp_outset_keep_previous(&p->files); /* not a link's target: replaced then */
	return 0;
}

int mmp_pipeline_run(struct mmp_pipeline *p, const struct mmp_pipeline_opts *o,
		     const struct mmp_observer *obs)
{
	/* A described machine's PU numbers are not this machine's: binding
	 * threads to them would measure something else and call it that. */
	if (mmp_topology_is_described(p->topo)) {
		tell(obs, &(struct mmp_told){ .what = MMP_TELL_DESCRIBED,
					      .text = mmp_topology_source(p->topo) });
		p->refused = 1;
		return -EINVAL;
	}
	int rc = open_files(p, o, obs);
	if (rc)
		return rc;
	p->session = (struct mmp_session){
		.cfg = p->cfg,
		.plan = &p->plan,
		.topo = p->topo,
		.files = &p->files,
		.obs = obs,
		.per_thread = o->per_thread,
		.json = p->json,
		.stop = o->stop,
	};
	if (o->running)
		o->running(o->ctx, &p->out);
	rc = mmp_session_run(&p->session, &p->out);
	p->ran = 1;
	if (o->running)
		o->running(o->ctx, NULL);
	if (p->files.note[0]) /* what committing NAME.csv removed */
		tell(obs, &(struct mmp_told){ .what = MMP_TELL_FILES_NOTE, .text = p->files.note });
	mmp_outset_close(&p->files);
	return rc;
}

void mmp_pipeline_free(struct mmp_pipeline *p)
{
	if (p->ran)
		mmp_session_out_free(&p->out);
	mmp_plan_free(&p->plan);
	mmp_sweep_free(&p->sweep);
	mmp_topology_free(p->topo);
	mmp_config_free(p->cfg);
}
