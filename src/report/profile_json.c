/* runs[].profile of the --json document (docs/json.md): the sampling
 * profile's top rows and the growth from the control (evidence.h). */
#include "report/result_json.h"

#include "analysis/evidence.h"
#include "report/json.h"

#define TOP 10


static void row(struct mmp_json *j, const struct mmp_prof_row *r)
{
	char name[400];
	mmp_json_put_string(j, "kind", mmp_prof_kind_names[r->kind]);
	mmp_json_put_string(j, "name", mmp_prof_row_name(r, name, sizeof(name)));
	mmp_json_put_string(j, "module", r->module);
	mmp_json_put_string(j, "function", r->function);
	mmp_json_put_string(j, "file", r->file);
	if (r->line)
		mmp_json_put_uint(j, "line", r->line);
	else
		mmp_json_put_null(j, "line");
	mmp_json_put_bool(j, "kernel", r->kernel);
	mmp_json_put_string(j, "why", r->kind != MMP_PROF_FAULTS && r->why != MMP_NAMED
					      ? mmp_unnamed_why(r->why)
					      : NULL);
	mmp_json_put_number(j, "samples", r->total);
}

static void growth(struct mmp_json *j, const struct mmp_results *res,
		   const struct mmp_run_result *r)
{
	char from[96];
	const struct mmp_run_result *c = mmp_evidence_control(res, r, from, sizeof(from));
	struct mmp_growth g[TOP];
	struct mmp_interval total;
	if (!c) {
		mmp_json_put_null(j, "growth");
		return;
	}
	size_t n = mmp_evidence_growth(c, r, MMP_PROF_LINE, g, TOP, &total);
	mmp_json_open_object(j, "growth");
	mmp_json_put_uint(j, "from_run", c->run->index + 1);
	mmp_json_put_string(j, "from", from);
	mmp_json_put_string(j, "unit", r->bytes ? "byte" : "run");
	mmp_json_put_interval(j, "total_ns", &total, 1);
	mmp_json_put_bool(j, "grew", mmp_evidence_grew(&total));
	mmp_json_open_array(j, "lines");
	for (size_t i = 0; i < n; i++) {
		mmp_json_open_object(j, NULL);
		row(j, g[i].row);
		mmp_json_put_interval(j, "share", &g[i].share, 1);
		mmp_json_put_interval(j, "growth_ns", &g[i].growth, 1);
		mmp_json_close_object(j);
	}
	mmp_json_close_array(j);
	mmp_json_close_object(j);
}

void mmp_profile_json(struct mmp_json *j, const struct mmp_results *res,
		      const struct mmp_run_result *r)
{
	const struct mmp_profile *p = r->profile;
	if (!p) {
		mmp_json_put_null(j, "profile");
		return;
	}
	mmp_json_open_object(j, "profile");
	mmp_json_put_uint(j, "rounds", mmp_profile_rounds(p));
	mmp_json_put_string(j, "refused", p->refused[0] ? p->refused : NULL);
	mmp_json_put_number(j, "cpu_samples", mmp_profile_samples(p, 0));
	mmp_json_put_number(j, "fault_samples", mmp_profile_samples(p, 1));
	mmp_json_put_uint(j, "sample_ns", p->period_ns);
	mmp_json_put_uint(j, "fault_period", p->fault_period);
	mmp_json_put_uint(j, "lost", p->lost);
	mmp_json_put_bool(j, "user_only", p->user_only);
	mmp_json_open_array(j, "top");
	for (int k = 0; k < MMP_PROF_KIND_COUNT; k++) {
		const struct mmp_prof_row *t[TOP];
		size_t n = mmp_profile_top(p, (enum mmp_prof_kind)k, t, TOP);
		for (size_t i = 0; i < n; i++) {
			struct mmp_interval iv;
			mmp_profile_share(p, t[i], &iv);
			mmp_json_open_object(j, NULL);
			row(j, t[i]);
			mmp_json_put_interval(j, "share", &iv, 1);
			mmp_json_close_object(j);
		}
	}
	mmp_json_close_array(j);
	growth(j, res, r);
	mmp_json_close_object(j);
}
