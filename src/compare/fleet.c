/* mmprof compare with three or more CSVs: every host at every job point
 * against that job point's median host, and the answers across the hosts
 * (see fleet.h). */
#include "compare/fleet.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "result/result.h"
#include "result/stats.h"

/* The repetitions a run's figures use: the clean ones when
 * MMP_MIN_CLEAN_ROUNDS remain, else all (as compare's). */
static double run_median(const struct mmp_cmp_run *r)
{
	double *v = malloc((r->n + 1) * sizeof(*v));
	size_t m = 0, clean = r->n - r->ndisturbed;
	struct mmp_stats st;
	if (!v)
		return 0;
	for (size_t i = 0; i < r->n; i++)
		if (clean < MMP_MIN_CLEAN_ROUNDS || !r->disturbed[i])
			v[m++] = r->elapsed[i];
	double median = mmp_stats_compute(v, m, &st) == 0 ? st.median : 0;
	free(v);
	return median;
}

/* What orders the hosts at a job point: the run's median time, over its
 * ceiling's where it carries one, so that a host measured while the
 * machine ran slow is not taken for a slow host. */
static double level(const struct mmp_cmp_run *r)
{
	double t = run_median(r), c = r->ceiling ? run_median(r->ceiling) : 0;
	return c > 0 ? t / c : t;
}

static const struct mmp_cmp_run *find(const struct mmp_cmp_file *f, const char *joined)
{
	for (size_t i = 0; i < f->nruns; i++)
		if (!f->run[i].copy && !f->run[i].is_ceiling && strcmp(f->run[i].joined, joined) == 0)
			return &f->run[i];
	return NULL;
}

struct ranked {
	double level;
	size_t cell;
};

static int by_level(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;
	if (a->level != b->level)
		return (a->level > b->level) - (a->level < b->level);
	return (a->cell > b->cell) - (a->cell < b->cell);
}

static int add_point(struct mmp_fleet *f, const struct mmp_cmp_run *run)
{
	struct mmp_fleet_point *p = &f->point[f->npoints];
	struct ranked *rank = calloc(f->nfiles, sizeof(*rank));
	p->cell = calloc(f->nfiles, sizeof(*p->cell));
	if (!rank || !p->cell) {
		free(rank);
		return -ENOMEM;
	}
	f->npoints++;
	p->run = run;
	for (size_t i = 0; i < f->nfiles; i++) {
		const struct mmp_cmp_run *r = find(&f->file[i], run->joined);
		if (!r)
			continue;
		rank[p->ncells] = (struct ranked){ level(r), p->ncells };
		p->cell[p->ncells++] = (struct mmp_fleet_cell){ .file = i, .run = r };
	}
	qsort(rank, p->ncells, sizeof(*rank), by_level);
	struct mmp_fleet_cell *median = &p->cell[rank[(p->ncells - 1) / 2].cell];
	free(rank);
	median->is_median = 1;
	p->median = median->file;
	if (p->ncells < 2) {
		f->nsingle++;
		return 0;
	}
	for (size_t c = 0; c < p->ncells; c++) {
		struct mmp_fleet_cell *x = &p->cell[c];
		if (x->is_median)
			continue;
		if (mmp_compare_pair(&x->pair, median->run, x->run, f->tolerance))
			return -ENOMEM;
		p->count[x->pair.outcome]++;
		switch (x->pair.outcome) {
		case MMP_COMPARE_SLOWER: f->nslower++; break;
		case MMP_COMPARE_FASTER: f->nfaster++; break;
		case MMP_COMPARE_SAME: f->nsame++; break;
		default: f->ninconclusive++; break;
		}
	}
	return 0;
}

/* Job points in the order the files first list them. */
static int match_points(struct mmp_fleet *f)
{
	size_t cap = 0;
	for (size_t i = 0; i < f->nfiles; i++)
		cap += f->file[i].nruns;
	f->point = calloc(cap + 1, sizeof(*f->point));
	if (!f->point)
		return -ENOMEM;
	for (size_t i = 0; i < f->nfiles; i++)
		for (size_t r = 0; r < f->file[i].nruns; r++) {
			const struct mmp_cmp_run *run = &f->file[i].run[r];
			int seen = run->copy || run->is_ceiling;
			for (size_t j = 0; j < i && !seen; j++)
				seen = find(&f->file[j], run->joined) != NULL;
			if (!seen && add_point(f, run))
				return -ENOMEM;
		}
	return 0;
}

/* Host names as the report says them: the host column, or the file where
 * two files come from one host. */
static void name_hosts(struct mmp_fleet *f)
{
	for (size_t i = 0; i < f->nfiles; i++) {
		f->name[i] = f->file[i].host[0] ? f->file[i].host : f->file[i].path;
		for (size_t j = 0; j < f->nfiles; j++)
			if (j != i && strcmp(f->file[i].host, f->file[j].host) == 0)
				f->name[i] = f->file[i].path;
	}
}

static int outcome_of(const char *s)
{
	return !strcmp(s, "yes")	    ? MMP_FLEET_YES
	       : !strcmp(s, "no")	    ? MMP_FLEET_NO
	       : !strcmp(s, "inconclusive") ? MMP_FLEET_INCONCLUSIVE
					    : MMP_FLEET_OTHER;
}

static int load_answers(struct mmp_fleet *f, size_t i, struct mmp_error *err)
{
	const char *path = f->file[i].path;
	size_t n = strlen(path);
	char *companion = malloc(n + 16);
	if (!companion)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	snprintf(companion, n + 16, "%.*s.answers.csv",
		 (int)(n > 4 && !strcmp(path + n - 4, ".csv") ? n - 4 : n), path);
	int rc = 0;
	if (access(companion, F_OK) == 0) {
		rc = mmp_csvread_load(&f->answers[i], companion, err);
		if (!rc && (mmp_csvread_column(&f->answers[i], "question") < 0 ||
			    mmp_csvread_column(&f->answers[i], "outcome") < 0))
			rc = mmp_error_set(err, -EINVAL,
					   "%s: not an mmprof NAME.answers.csv (no question or "
					   "outcome column)",
					   companion);
		f->has_answers[i] = !rc;
	}
	free(companion);
	return rc;
}

static struct mmp_fleet_answer *answer_of(struct mmp_fleet *f, const char *kind,
					  const char *question)
{
	for (size_t a = 0; a < f->nanswers; a++)
		if (!strcmp(f->answer[a].kind, kind) && !strcmp(f->answer[a].question, question))
			return &f->answer[a];
	struct mmp_fleet_answer *x = &f->answer[f->nanswers];
	x->outcome = malloc(f->nfiles * sizeof(*x->outcome));
	x->disturbed = calloc(f->nfiles, 1);
	if (!x->outcome || !x->disturbed) {
		free(x->outcome);
		free(x->disturbed);
		return NULL;
	}
	for (size_t i = 0; i < f->nfiles; i++)
		x->outcome[i] = MMP_FLEET_ABSENT;
	x->kind = kind;
	x->question = question;
	f->nanswers++;
	return x;
}

static int match_answers(struct mmp_fleet *f)
{
	size_t cap = 0;
	for (size_t i = 0; i < f->nfiles; i++)
		cap += f->answers[i].nrows;
	f->answer = calloc(cap + 1, sizeof(*f->answer));
	if (!f->answer)
		return -ENOMEM;
	for (size_t i = 0; i < f->nfiles; i++) {
		const struct mmp_csvread *t = &f->answers[i];
		int kind = mmp_csvread_column(t, "kind"), q = mmp_csvread_column(t, "question");
		int out = mmp_csvread_column(t, "outcome");
		int dist = mmp_csvread_column(t, "used_disturbed");
		for (size_t r = 0; r < t->nrows; r++) {
			struct mmp_fleet_answer *a =
				answer_of(f, mmp_csvread_get(t, r, kind), mmp_csvread_get(t, r, q));
			if (!a)
				return -ENOMEM;
			a->outcome[i] = outcome_of(mmp_csvread_get(t, r, out));
			a->disturbed[i] = !strcmp(mmp_csvread_get(t, r, dist), "true");
		}
	}
	for (size_t a = 0; a < f->nanswers; a++) {
		struct mmp_fleet_answer *x = &f->answer[a];
		for (size_t i = 0; i < f->nfiles; i++)
			x->count[x->outcome[i]]++;
		/* Hosts without an answers file asked nothing: they do not
		 * disagree. */
		size_t asked = 0;
		for (size_t i = 0; i < f->nfiles; i++)
			asked += f->has_answers[i];
		x->agree = 0;
		for (int o = MMP_FLEET_YES; o < MMP_FLEET_ABSENT; o++)
			x->agree |= x->count[o] == asked;
		f->nagree += (size_t)x->agree;
	}
	return 0;
}

int mmp_fleet_run(struct mmp_fleet *f, const char *const *paths, size_t n, double tolerance,
		  uint32_t vary, struct mmp_error *err)
{
	int rc = 0;
	memset(f, 0, sizeof(*f));
	f->tolerance = tolerance;
	f->vary = vary;
	f->file = calloc(n, sizeof(*f->file));
	f->name = calloc(n, sizeof(*f->name));
	f->answers = calloc(n, sizeof(*f->answers));
	f->has_answers = calloc(n, 1);
	if (!f->file || !f->name || !f->answers || !f->has_answers)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n && !rc; i++) {
		rc = mmp_compare_load(&f->file[i], paths[i], vary, err);
		f->nfiles = i + 1;
		for (size_t j = 0; j < i && !rc; j++)
			if (strcmp(f->file[i].run_id, f->file[j].run_id) == 0)
				rc = mmp_error_set(err, -EINVAL,
						   "%s and %s hold the same invocation (run_id %s): "
						   "one host's file given twice?",
						   paths[j], paths[i], f->file[i].run_id);
		if (!rc)
			rc = load_answers(f, i, err);
	}
	if (rc)
		return rc;
	name_hosts(f);
	if (match_points(f) || match_answers(f))
		return mmp_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

void mmp_fleet_free(struct mmp_fleet *f)
{
	for (size_t p = 0; f->point && p < f->npoints; p++)
		free(f->point[p].cell);
	for (size_t a = 0; f->answer && a < f->nanswers; a++) {
		free(f->answer[a].outcome);
		free(f->answer[a].disturbed);
	}
	for (size_t i = 0; i < f->nfiles; i++) {
		mmp_compare_file_free(&f->file[i]);
		mmp_csvread_free(&f->answers[i]);
	}
	free(f->point);
	free(f->answer);
	free(f->file);
	free(f->name);
	free(f->answers);
	free(f->has_answers);
	memset(f, 0, sizeof(*f));
}
