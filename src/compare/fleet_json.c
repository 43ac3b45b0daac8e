/* The fleet report as JSON (mmprof compare A B C --json PATH): the same
 * figures as the terminal's and the CSV's (see fleet.h), for a notebook
 * or a dashboard that wants the job points with their hosts nested. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compare/fleet.h"
#include "report/json.h"
#include "util/outfile.h"

static const char *const answer_names[] = { "yes", "no", "inconclusive", "other", "not asked" };

static void put_hosts(struct mmp_json *j, const struct mmp_fleet *f)
{
	mmp_json_open_array(j, "hosts");
	for (size_t i = 0; i < f->nfiles; i++) {
		mmp_json_open_object(j, NULL);
		mmp_json_put_string(j, "name", f->name[i]);
		mmp_json_put_string(j, "host", f->file[i].host);
		mmp_json_put_string(j, "file", f->file[i].path);
		mmp_json_put_string(j, "run_id", f->file[i].run_id);
		mmp_json_put_string(j, "cpu_model", f->file[i].cpu_model);
		mmp_json_put_string(j, "mmprof_version", f->file[i].mmprof_version);
		mmp_json_put_bool(j, "answers", f->has_answers[i]);
		mmp_json_close_object(j);
	}
	mmp_json_close_array(j);
}

static void put_cell(struct mmp_json *j, const struct mmp_fleet *f,
		     const struct mmp_fleet_cell *x)
{
	const struct mmp_cmp_pair *p = &x->pair;
	mmp_json_open_object(j, NULL);
	mmp_json_put_string(j, "host", f->name[x->file]);
	mmp_json_put_uint(j, "run", (uint64_t)x->run->number);
	mmp_json_put_bool(j, "median", x->is_median);
	if (x->is_median) {
		mmp_json_put_null(j, "ratio");
		mmp_json_put_null(j, "over_ceiling");
		mmp_json_put_string(j, "outcome", "median");
		mmp_json_put_bool(j, "disturbed", 0);
	} else {
		mmp_json_put_interval(j, "ratio", &p->ratio, 0);
		if (p->on_ceiling)
			mmp_json_put_interval(j, "over_ceiling", &p->to_ceiling, 0);
		else
			mmp_json_put_null(j, "over_ceiling");
		mmp_json_put_string(j, "outcome", mmp_compare_outcome_name(p->outcome));
		mmp_json_put_bool(j, "disturbed", p->disturbed);
	}
	mmp_json_close_object(j);
}

static void put_points(struct mmp_json *j, const struct mmp_fleet *f)
{
	char label[400];
	mmp_json_open_array(j, "job_points");
	for (size_t p = 0; p < f->npoints; p++) {
		const struct mmp_fleet_point *pt = &f->point[p];
		mmp_json_open_object(j, NULL);
		mmp_json_put_string(j, "label", mmp_compare_label(pt->run, label, sizeof(label)));
		mmp_json_open_object(j, "key");
		for (size_t k = 0; k < mmp_compare_nkeys(); k++) {
			const char *v = k == MMP_COMPARE_KEY_CONTROL ? pt->run->control : pt->run->key[k];
			if (v[0])
				mmp_json_put_string(j, mmp_compare_key_name(k), v);
		}
		mmp_json_close_object(j);
		mmp_json_put_string(j, "median_host", f->name[pt->median]);
		mmp_json_open_array(j, "hosts");
		for (size_t c = 0; c < pt->ncells; c++)
			put_cell(j, f, &pt->cell[c]);
		mmp_json_close_array(j);
		mmp_json_close_object(j);
	}
	mmp_json_close_array(j);
}

static void put_answers(struct mmp_json *j, const struct mmp_fleet *f)
{
	mmp_json_open_array(j, "answers");
	for (size_t a = 0; a < f->nanswers; a++) {
		const struct mmp_fleet_answer *x = &f->answer[a];
		mmp_json_open_object(j, NULL);
		mmp_json_put_string(j, "kind", x->kind);
		mmp_json_put_string(j, "question", x->question);
		mmp_json_put_bool(j, "agree", x->agree);
		mmp_json_open_array(j, "hosts");
		for (size_t i = 0; i < f->nfiles; i++) {
			if (!f->has_answers[i])
				continue;
			mmp_json_open_object(j, NULL);
			mmp_json_put_string(j, "host", f->name[i]);
			mmp_json_put_string(j, "outcome", answer_names[x->outcome[i]]);
			mmp_json_put_bool(j, "disturbed", x->disturbed[i]);
			mmp_json_close_object(j);
		}
		mmp_json_close_array(j);
		mmp_json_close_object(j);
	}
	mmp_json_close_array(j);
}

int mmp_fleet_json(const struct mmp_fleet *f, const char *path, struct mmp_error *err)
{
	struct mmp_outfile out;
	struct mmp_json j;
	int rc = mmp_fleet_open_output(f, path, &out, err);
	if (rc)
		return rc;
	mmp_json_init(&j, out.f);
	mmp_json_open_object(&j, NULL);
	mmp_json_put_uint(&j, "schema_version", MMP_FLEET_SCHEMA_VERSION);
	mmp_json_put_number(&j, "tolerance", f->tolerance);
	put_hosts(&j, f);
	put_points(&j, f);
	put_answers(&j, f);
	mmp_json_open_object(&j, "summary");
	mmp_json_put_uint(&j, "job_points", f->npoints);
	mmp_json_put_uint(&j, "slower", f->nslower);
	mmp_json_put_uint(&j, "faster", f->nfaster);
	mmp_json_put_uint(&j, "same", f->nsame);
	mmp_json_put_uint(&j, "inconclusive", f->ninconclusive);
	mmp_json_put_uint(&j, "only_one_host", f->nsingle);
	mmp_json_put_uint(&j, "answers_agree", f->nagree);
	mmp_json_put_uint(&j, "answers_differ", f->nanswers - f->nagree);
	mmp_json_close_object(&j);
	mmp_json_close_object(&j);
	if (mmp_json_finish(&j))
		return mmp_error_set(err, -EINVAL, "%s: the JSON writer was misused (a bug)", path);
	return mmp_outfile_commit(&out, err);
}
