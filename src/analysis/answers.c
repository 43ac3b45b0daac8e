/* The questions a config asks, answered yes, no or inconclusive (see
 * answers.h). */
#include "analysis/answers.h"

#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/lists.h"
#include "mmprof/probe.h"
#include "result/result.h"
#include "util/units.h"

/* The band a ratio is held against, from the question's tolerance t. */
enum band {
	BAND_NONE,    /* decided otherwise (see the row) */
	BAND_SAME,    /* 1/(1+t) .. 1+t: faster, the same, slower */
	BAND_AT_MOST, /* 0 .. 1+t: at most t slower, or more */
	BAND_FASTER,  /* 1/(1+t) .. infinity: faster by more than t, or not */
};

/* The questions, one row each: its kind (NAME.answers.csv's `kind`),
 * its text with the words of the runs it asks about filled in ({job},
 * {other}, {model}, {model_other}, {reads}, {threads}, {size}, {tol}: the
 * tolerance in percent), and how it is decided: the band its interval is
 * held against, the region that says yes, and the verdict in each region
 * (below, within, above the band). */
enum form { ASK_RATIO, ASK_GAP, ASK_GAP_CLOSES, ASK_CAUSE, ASK_FIX, ASK_REGRESSION, ASK_MATCH,
	    ASK_FASTEST, ASK_MODEL, NFORMS };

static const struct question {
	enum mmp_question kind;
	const char *name;
	const char *text;
	enum band band;
	enum mmp_band yes_when;
	const char *word[3];
} questions[NFORMS] = {
	/* `baseline = B` (and `model` jobs): is this run slower than B's? */
	[ASK_RATIO] = { MMP_Q_RATIO, "ratio", "Is {job} slower than {other}, {reads} at {threads}?",
			BAND_SAME, MMP_BAND_ABOVE, { "faster", "the same", "slower" } },
	/* `fixes = T`, on T against its first baseline B: at 1 byte... */
	[ASK_GAP] = { MMP_Q_GAP, "gap", "Is {job}'s gap to {other} reproduced, {reads} at {threads}?",
		      BAND_AT_MOST, MMP_BAND_ABOVE, { "", "not reproduced", "reproduced" } },
	/* ... and at more bytes per call. */
	[ASK_GAP_CLOSES] = { MMP_Q_GAP, "gap",
			     "Does the gap go away for {reads} at {threads} ({job} at most {tol}% "
			     "slower than {other})?",
			     BAND_AT_MOST, MMP_BAND_WITHIN, { "", "goes away", "remains" } },
	/* T's attribution at 1 byte: yes when its top cause is decided
	 * (attribution.h); the figure is the cause's share. */
	[ASK_CAUSE] = { MMP_Q_CAUSE, "cause", "What causes {job}'s time, 1-byte reads at {threads}?",
			BAND_NONE, MMP_BAND_WITHIN, { "" } },
	/* The fixing job against T, at 1 byte and at more bytes per call,
	 * and against B at 1 byte. */
	[ASK_FIX] = { MMP_Q_FIX, "fix", "Is {job} faster than {other}, {reads} at {threads}?",
		      BAND_FASTER, MMP_BAND_BELOW, { "faster", "not faster", "" } },
	[ASK_REGRESSION] = { MMP_Q_REGRESSION, "regression",
			     "Does {job} slow {reads} by more than {tol}% at {threads}?",
			     BAND_AT_MOST, MMP_BAND_ABOVE, { "", "no regression", "REGRESSED" } },
	[ASK_MATCH] = { MMP_Q_MATCH, "match",
			"Does {job} match {other} (at most {tol}% slower), {reads} at {threads}?",
			BAND_AT_MOST, MMP_BAND_WITHIN, { "", "matches", "still slower" } },
	/* table = sizes: each method against the fastest, in the 0 .. 1+t
	 * band (ask_fastest): one, a tie, or undecided. */
	[ASK_FASTEST] = { MMP_Q_FASTEST, "fastest", "Is one method the fastest for {size}?",
			  BAND_NONE, MMP_BAND_WITHIN, { "" } },
	/* `model = M` on A with `baseline = B` whose model is MB. */
	[ASK_MODEL] = { MMP_Q_MODEL, "model",
			"Does the model {model}/{model_other} match {job}/{other} (within {tol}%), "
			"{reads} at {threads}?",
			BAND_SAME, MMP_BAND_WITHIN, { "understates", "agrees", "overstates" } },
};

const char *mmp_question_name(enum mmp_question q)
{
	for (size_t i = 0; i < NFORMS; i++)
		if (questions[i].kind == q)
			return questions[i].name;
	return NULL;
}

/* The words a question's text is filled in with. */
struct words {
	const char *job, *other, *model, *model_other;
	const char *reads, *threads, *size;
	double tol; /* a fraction; {tol} is it in percent */
};

/* Questions and verdicts are cut at their buffer's length, as any line of
 * text here: job names are short in practice. */
__attribute__((format(printf, 3, 4))) static void say(char *buf, size_t len, const char *fmt,
						      ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static const char *word(const struct words *w, const char *name, size_t n, char *tol,
			size_t tlen)
{
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
		{ "job", offsetof(struct words, job) },
		{ "other", offsetof(struct words, other) },
		{ "model", offsetof(struct words, model) },
		{ "model_other", offsetof(struct words, model_other) },
		{ "reads", offsetof(struct words, reads) },
		{ "threads", offsetof(struct words, threads) },
		{ "size", offsetof(struct words, size) },
	};
	if (n == 3 && strncmp(name, "tol", 3) == 0) {
		snprintf(tol, tlen, "%g", w->tol * 100);
		return tol;
	}
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (strlen(fields[i].name) == n && strncmp(fields[i].name, name, n) == 0) {
			const char *v = *(const char *const *)((const char *)w + fields[i].off);
			return v ? v : "";
		}
	return NULL;
}

/* ans->question: the row's text with its words filled in. */
static void ask(struct mmp_answer *ans, enum form f, const struct words *w)
{
	char *out = ans->question, tol[32];
	size_t len = sizeof(ans->question), used = 0;
	for (const char *p = questions[f].text; *p && used + 1 < len;) {
		const char *end = *p == '{' ? strchr(p, '}') : NULL;
		const char *v = end ? word(w, p + 1, (size_t)(end - p - 1), tol, sizeof(tol)) : NULL;
		if (v) {
			used += (size_t)snprintf(out + used, len - used, "%s", v);
			p = end + 1;
		} else {
			out[used++] = *p++;
		}
	}
	out[used < len ? used : len - 1] = '\0';
}

static struct mmp_answer *add(struct mmp_answers *out, enum mmp_question kind)
{
	struct mmp_answer *grown = realloc(out->a, (out->n + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	out->a = grown;
	memset(&out->a[out->n], 0, sizeof(out->a[0]));
	out->a[out->n].kind = kind;
	return &out->a[out->n++];
}

static const char *threads_text(const struct mmp_run_result *r, char *buf, size_t len)
{
	snprintf(buf, len, "%u thread%s", r->run->p.threads, r->run->p.threads == 1 ? "" : "s");
	return buf;
}

static const char *reads_text(const struct mmp_run_result *r, char *buf, size_t len)
{
	if (r->access == 1)
		snprintf(buf, len, "1-byte reads");
	else if (r->access)
		snprintf(buf, len, "%llu-byte reads", (unsigned long long)r->access);
	else
		snprintf(buf, len, "whole-slice scans");
	return buf;
}

/* a / b, paired by round, with what it took. */
static void compare(struct mmp_answer *ans, const struct mmp_run_result *a,
		    const struct mmp_run_result *b, double tolerance)
{
	ans->a = a;
	ans->b = b;
	ans->tolerance = tolerance;
	ans->set = a->planned->set;
	mmp_results_ratio(a, b, &ans->ratio, &ans->used_disturbed);
	ans->rounds = ans->ratio.n;
	ans->disturbed = a->ndisturbed + b->ndisturbed;
}

/* The answer from where the interval lies against the row's band: yes
 * when it lies in the region the row says, no in another region,
 * inconclusive across a boundary; the verdict is the row's word for the
 * region. */
static void decide(struct mmp_answer *ans, enum form f)
{
	const struct question *q = &questions[f];
	double t = ans->tolerance;
	double lo = q->band == BAND_AT_MOST ? 0 : 1 / (1 + t);
	double hi = q->band == BAND_FASTER ? INFINITY : 1 + t;
	enum mmp_band band = mmp_interval_band(&ans->ratio, lo, hi);
	const char *word = band == MMP_BAND_BELOW    ? q->word[0]
			   : band == MMP_BAND_WITHIN ? q->word[1]
			   : band == MMP_BAND_ABOVE  ? q->word[2]
						     : "inconclusive";
	if (band == MMP_BAND_UNDECIDED) {
		ans->outcome = MMP_OUTCOME_INCONCLUSIVE;
		ans->more = mmp_interval_more(&ans->ratio, lo, hi, 1);
	} else {
		ans->outcome = band == q->yes_when ? MMP_OUTCOME_YES : MMP_OUTCOME_NO;
	}
	say(ans->verdict, sizeof(ans->verdict), "%s", word);
}

/* The matching job point of another job in the same set: the same bytes
 * read the same way, the access path aside. */
static const struct mmp_run_result *match(const struct mmp_results *res,
					  const struct mmp_run_result *r, const char *job)
{
	const struct mmp_cset *set = &res->plan->sets[r->planned->set];
	for (size_t k = 0; k < set->n; k++) {
		const struct mmp_run_result *o = &res->run[set->runs[k]];
		if (!mmp_planned_is_point(o->planned) || strcmp(o->run->job->name, job) != 0 ||
		    !mmp_result_has_data(o))
			continue;
		if (mmp_planned_comparable(o->planned, r->planned))
			return o;
	}
	return NULL;
}

/* `baseline` jobs, then `model` jobs: a real program against its model
 * is a time ratio like any other (how much slower the runtime is than the
 * C path said to model it). */
static int ask_ratios(const struct mmp_results *res, struct mmp_answers *out)
{
	char name[256], t[32], rd[64];
	for (size_t i = 0; i < 2 * res->plan->nruns; i++) {
		const struct mmp_run_result *r = &res->run[i % res->plan->nruns];
		const char *list = i < res->plan->nruns ? r->run->p.baseline : r->run->p.model;
		if (!mmp_planned_is_point(r->planned) || !mmp_result_has_data(r) || !list)
			continue;
		for (const char *p = list; mmp_list_next(&p, name, sizeof(name));) {
			const struct mmp_run_result *b = match(res, r, name);
			if (!b)
				continue;
			struct mmp_answer *ans = add(out, MMP_Q_RATIO);
			if (!ans)
				return -ENOMEM;
			compare(ans, r, b, r->run->p.tolerance);
			ask(ans, ASK_RATIO,
			    &(struct words){ .job = r->run->job->name, .other = name,
					     .reads = reads_text(r, rd, sizeof(rd)),
					     .threads = threads_text(r, t, sizeof(t)) });
			decide(ans, ASK_RATIO);
		}
	}
	return 0;
}

/* The first job point (in plan order) of a job. */
static const char *first_baseline(const struct mmp_results *res, const char *job)
{
	static _Thread_local char name[256];
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_run *run = &res->plan->runs[i].run;
		const char *p = run->p.baseline;
		if (mmp_planned_is_point(&res->plan->runs[i]) && strcmp(run->job->name, job) == 0 && p &&
		    mmp_list_next(&p, name, sizeof(name)))
			return name;
	}
	return NULL;
}

static int ask_cause(const struct mmp_results *res, const struct mmp_attribution *a, size_t i,
		     struct mmp_answers *out)
{
	const struct mmp_run_result *r = &res->run[i];
	char t[32];
	if (!a->job)
		return 0;
	struct mmp_answer *ans = add(out, MMP_Q_CAUSE);
	if (!ans)
		return -ENOMEM;
	ans->a = r;
	ans->set = r->planned->set;
	ans->rounds = a->rounds;
	ans->used_disturbed = a->disturbed;
	for (size_t k = 0; k <= r->planned->nrungs; k++) {
		const struct mmp_run_result *x = &res->run[i + k];
		ans->disturbed += x->ndisturbed;
		if (a->disturbed && x->ndisturbed && !ans->disturbed_why)
			ans->disturbed_why = x->disturbed_why; /* the job's, or a rung's */
	}
	ask(ans, ASK_CAUSE,
	    &(struct words){ .job = r->run->job->name, .threads = threads_text(r, t, sizeof(t)) });
	const struct mmp_cause *top = a->top;
	if (top) {
		ans->ratio = (struct mmp_interval){ .estimate = top->share,
						    .low = top->share_low,
						    .high = top->share_high,
						    .n = a->rounds,
						    .valid = top->cost.valid,
						    .df = top->cost.df };
		say(ans->verdict, sizeof(ans->verdict), "%s%s%s%s", top->name,
			 top->detail[0] ? " (" : "", top->detail, top->detail[0] ? ")" : "");
	} else {
		say(ans->verdict, sizeof(ans->verdict), "no cause stands above the noise");
	}
	if (top && a->top_decided) {
		ans->outcome = MMP_OUTCOME_YES;
	} else {
		ans->outcome = MMP_OUTCOME_INCONCLUSIVE;
		ans->more = a->more;
		say(ans->evidence, sizeof(ans->evidence), "%s%s%s%s", a->doubt,
		    ans->disturbed_why ? " (" : "", ans->disturbed_why ? ans->disturbed_why : "",
		    ans->disturbed_why ? ")" : "");
	}
	return 0;
}

/* `fixes = T`: the seed's three questions. */
static int ask_fix(const struct mmp_results *res, const struct mmp_attribution *attr,
		   const char *fix_job, const char *target, struct mmp_answers *out)
{
	const char *base = first_baseline(res, target);
	char t[32], rd[64];
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_run_result *r = &res->run[i];
		if (!mmp_planned_is_point(r->planned) || !mmp_result_has_data(r))
			continue;
		int byte = r->access == 1;
		threads_text(r, t, sizeof(t));
		reads_text(r, rd, sizeof(rd));
		if (strcmp(r->run->job->name, target) == 0) {
			const struct mmp_run_result *b = base ? match(res, r, base) : NULL;
			if (b) {
				struct mmp_answer *ans = add(out, MMP_Q_GAP);
				if (!ans)
					return -ENOMEM;
				compare(ans, r, b, r->run->p.tolerance);
				enum form f = byte ? ASK_GAP : ASK_GAP_CLOSES;
				ask(ans, f,
				    &(struct words){ .job = target, .other = base, .reads = rd,
						     .threads = t, .tol = ans->tolerance });
				decide(ans, f);
			}
			if (byte && ask_cause(res, &attr[i], i, out))
				return -ENOMEM;
			continue;
		}
		if (strcmp(r->run->job->name, fix_job) != 0)
			continue;
		const struct mmp_run_result *like = match(res, r, target);
		if (like) {
			struct mmp_answer *ans = add(out, byte ? MMP_Q_FIX : MMP_Q_REGRESSION);
			if (!ans)
				return -ENOMEM;
			compare(ans, r, like, r->run->p.tolerance);
			enum form f = byte ? ASK_FIX : ASK_REGRESSION;
			ask(ans, f,
			    &(struct words){ .job = fix_job, .other = target, .reads = rd, .threads = t,
					     .tol = ans->tolerance });
			decide(ans, f);
		}
		const struct mmp_run_result *b = byte && base ? match(res, r, base) : NULL;
		if (b) {
			struct mmp_answer *ans = add(out, MMP_Q_MATCH);
			if (!ans)
				return -ENOMEM;
			compare(ans, r, b, r->run->p.tolerance);
			ask(ans, ASK_MATCH,
			    &(struct words){ .job = fix_job, .other = base, .reads = rd, .threads = t,
					     .tol = ans->tolerance });
			decide(ans, ASK_MATCH);
		}
	}
	return 0;
}

static const char *method(const struct mmp_run_result *r, char *buf, size_t len)
{
	char m[64];
	mmp_params_label(&r->run->p, m, sizeof(m));
	if (r->run->p.threads > 1)
		snprintf(buf, len, "%s t=%u", m, r->run->p.threads);
	else
		snprintf(buf, len, "%s", m);
	return buf;
}

/* The set's fastest job point: the lowest geometric mean time over its
 * rounds, of the points whose results were right.  NULL when none ran. */
static const struct mmp_run_result *fastest_point(const struct mmp_results *res,
						  const struct mmp_cset *set)
{
	const struct mmp_run_result *best = NULL;
	double best_log = 0;
	for (size_t k = 0; k < set->n; k++) {
		const struct mmp_run_result *r = &res->run[set->runs[k]];
		if (!mmp_planned_is_point(r->planned) || !mmp_result_has_data(r) || !r->results_ok)
			continue;
		double lg = 0;
		for (size_t j = 0; j < r->n; j++)
			lg += log(r->elapsed_ns[j]);
		lg /= (double)r->n;
		if (!best || lg < best_log) {
			best = r;
			best_log = lg;
		}
	}
	return best;
}

/* The other methods against the fastest, as the verdict names them. */
struct rivals {
	char ties[200], open[200], all[200]; /* the fastest first */
	size_t more;
	int undecided, tied;
	struct mmp_interval closest;
};

/* One other method r against the fastest: slower (decided), tied within
 * the tolerance (decided), or undecided. */
static void weigh(struct mmp_answer *ans, const struct mmp_run_result *r, struct rivals *f)
{
	const struct mmp_run_result *best = ans->a;
	struct mmp_interval iv;
	char name[96];
	int dist;
	mmp_results_ratio(r, best, &iv, &dist);
	ans->used_disturbed |= dist;
	if (dist && !ans->disturbed_why)
		ans->disturbed_why = r->ndisturbed ? r->disturbed_why : best->disturbed_why;
	ans->disturbed += r->ndisturbed;
	if (!ans->b || iv.estimate < f->closest.estimate) {
		ans->b = r;
		f->closest = iv;
		ans->rounds = iv.n;
	}
	enum mmp_band band = mmp_interval_band(&iv, 0, 1 + ans->tolerance);
	method(r, name, sizeof(name));
	mmp_list_addf(f->all, sizeof(f->all), ", ", "%s", name);
	if (band == MMP_BAND_ABOVE)
		return;
	/* Undecided, the candidates are every method that may still be
	 * the fastest or tied with it: the tied ones too. */
	mmp_list_addf(f->open, sizeof(f->open), ", ", "%s", name);
	if (band == MMP_BAND_WITHIN) {
		f->tied = 1;
		mmp_list_addf(f->ties, sizeof(f->ties), ", ", "%s", name);
		return;
	}
	f->undecided = 1;
	size_t m = mmp_interval_more(&iv, 0, 1 + ans->tolerance, 1);
	f->more = m > f->more ? m : f->more;
}

static void fastest_verdict(struct mmp_answer *ans, const struct rivals *f)
{
	if (ans->used_disturbed) {
		/* From disturbed rounds any of them may be the fastest
		 * (answers.h): the measured order, fastest first. */
		say(ans->verdict, sizeof(ans->verdict), "inconclusive between %s", f->all);
	} else if (f->undecided) {
		ans->outcome = MMP_OUTCOME_INCONCLUSIVE;
		ans->more = f->more;
		say(ans->verdict, sizeof(ans->verdict), "inconclusive between %s", f->open);
	} else if (f->tied) {
		ans->outcome = MMP_OUTCOME_NO;
		say(ans->verdict, sizeof(ans->verdict), "tie: %s", f->ties);
	} else {
		ans->outcome = MMP_OUTCOME_YES;
		say(ans->verdict, sizeof(ans->verdict), "%s", f->ties);
	}
}

/* table = sizes: per file, is one method the fastest?  The best is the one
 * with the lowest geometric mean time over the set's rounds; each other
 * method is then slower (decided), tied within the tolerance (decided), or
 * undecided. */
static int ask_fastest(const struct mmp_results *res, size_t set_index, struct mmp_answers *out)
{
	const struct mmp_cset *set = &res->plan->sets[set_index];
	const struct mmp_run_result *best = fastest_point(res, set);
	char size[32], name[96];
	struct rivals f = { .more = 0 };

	if (!best)
		return 0;
	struct mmp_answer *ans = add(out, MMP_Q_FASTEST);
	if (!ans)
		return -ENOMEM;
	ans->a = best;
	ans->set = set_index;
	ans->tolerance = best->run->p.tolerance;
	ask(ans, ASK_FASTEST,
	    &(struct words){ .size = mmp_format_size(best->bytes, size, sizeof(size)) });
	method(best, name, sizeof(name));
	mmp_list_addf(f.ties, sizeof(f.ties), ", ", "%s", name);
	mmp_list_addf(f.open, sizeof(f.open), ", ", "%s", name);
	mmp_list_addf(f.all, sizeof(f.all), ", ", "%s", name);
	for (size_t k = 0; k < set->n; k++) {
		const struct mmp_run_result *r = &res->run[set->runs[k]];
		if (r != best && mmp_planned_is_point(r->planned) && mmp_result_has_data(r) &&
		    r->results_ok)
			weigh(ans, r, &f);
	}
	ans->ratio = f.closest;
	ans->disturbed += best->ndisturbed;
	fastest_verdict(ans, &f);
	return 0;
}

/* The model's ratio against the real one: a/b (real), ma/mb (their
 * models), and (ma/mb)/(a/b), all over the rounds the four share. */
static void compare_models(struct mmp_answer *ans)
{
	const struct mmp_run_result *four[4] = { ans->a, ans->b, ans->ma, ans->mb };
	size_t m;
	unsigned *rounds = mmp_results_rounds_all(four, 4, &m, &ans->used_disturbed);
	double *a = malloc((m ? m : 1) * sizeof(*a)), *b = malloc((m ? m : 1) * sizeof(*b)),
	       *x = malloc((m ? m : 1) * sizeof(*x)), *y = malloc((m ? m : 1) * sizeof(*y));
	if (!rounds || !a || !b || !x || !y)
		m = 0; /* out of memory: intervals of nothing, not valid */
	for (size_t i = 0; i < m; i++) {
		unsigned k = rounds[i];
		a[i] = ans->a->elapsed_ns[k];
		b[i] = ans->b->elapsed_ns[k];
		x[i] = ans->ma->elapsed_ns[k] * ans->b->elapsed_ns[k];
		y[i] = ans->mb->elapsed_ns[k] * ans->a->elapsed_ns[k];
	}
	mmp_interval_ratio(a, b, m, &ans->real);
	for (size_t i = 0; i < m; i++) {
		a[i] = ans->ma->elapsed_ns[rounds[i]];
		b[i] = ans->mb->elapsed_ns[rounds[i]];
	}
	mmp_interval_ratio(a, b, m, &ans->model);
	mmp_interval_ratio(x, y, m, &ans->ratio);
	free(rounds);
	free(a);
	free(b);
	free(x);
	free(y);
	ans->rounds = m;
	for (size_t k = 0; k < 4; k++)
		ans->disturbed += four[k]->ndisturbed;
}

/* `model = M` on a real job A: for each baseline B of A whose job names a
 * model MB, does M/MB say what A/B says? */
static int ask_models(const struct mmp_results *res, struct mmp_answers *out)
{
	char bname[256], mname[256], mbname[256], t[32], rd[64];
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_run_result *r = &res->run[i];
		if (!mmp_planned_is_point(r->planned) || !mmp_result_has_data(r) ||
		    !r->run->p.model || !r->run->p.baseline)
			continue;
		for (const char *p = r->run->p.baseline; mmp_list_next(&p, bname, sizeof(bname));) {
			const struct mmp_run_result *b = match(res, r, bname);
			if (!b || !b->run->p.model)
				continue;
			for (const char *q = r->run->p.model; mmp_list_next(&q, mname, sizeof(mname));) {
				const struct mmp_run_result *m = match(res, r, mname);
				for (const char *u = b->run->p.model;
				     m && mmp_list_next(&u, mbname, sizeof(mbname));) {
					const struct mmp_run_result *mb = match(res, r, mbname);
					if (!mb || mb == m)
						continue;
					struct mmp_answer *ans = add(out, MMP_Q_MODEL);
					if (!ans)
						return -ENOMEM;
					*ans = (struct mmp_answer){
						.kind = MMP_Q_MODEL, .a = r, .b = b, .ma = m, .mb = mb,
						.tolerance = r->run->p.tolerance, .set = r->planned->set,
					};
					compare_models(ans);
					ask(ans, ASK_MODEL,
					    &(struct words){ .job = r->run->job->name, .other = bname,
							     .model = mname, .model_other = mbname,
							     .reads = reads_text(r, rd, sizeof(rd)),
							     .threads = threads_text(r, t, sizeof(t)),
							     .tol = ans->tolerance });
					decide(ans, ASK_MODEL);
					say(ans->evidence, sizeof(ans->evidence),
					    "real %s/%s %.3gx, model %s/%s %.3gx", r->run->job->name,
					    bname, ans->real.estimate, mname, mbname,
					    ans->model.estimate);
				}
			}
		}
	}
	return 0;
}

/* The first disturbed run's reason, of the runs an answer compares. */
static const char *first_disturbed(const struct mmp_answer *ans)
{
	const struct mmp_run_result *runs[4] = { ans->a, ans->b, ans->ma, ans->mb };
	for (size_t k = 0; k < 4; k++)
		if (runs[k] && runs[k]->ndisturbed)
			return runs[k]->disturbed_why;
	return "";
}

/* A figure from disturbed rounds decides nothing (answers.h): whatever
 * its interval said, the answer is inconclusive, and it says why. */
static void undecided_when_disturbed(struct mmp_answer *ans)
{
	if (!ans->used_disturbed)
		return;
	if (!ans->disturbed_why)
		ans->disturbed_why = first_disturbed(ans);
	ans->outcome = MMP_OUTCOME_INCONCLUSIVE;
	ans->more = SIZE_MAX;
	/* A cause's answer names the cause its figure is about, undecided
	 * (the attribution said why), and fastest the methods it is
	 * between; the others' band word would read as an answer. */
	if (ans->kind != MMP_Q_CAUSE && ans->kind != MMP_Q_FASTEST)
		say(ans->verdict, sizeof(ans->verdict), "inconclusive");
	if (ans->kind == MMP_Q_CAUSE)
		return;
	size_t used = strlen(ans->evidence);
	snprintf(ans->evidence + used, sizeof(ans->evidence) - used,
		 "%sits rounds were disturbed (%s)", used ? "; " : "", ans->disturbed_why);
}

static int ask_all(const struct mmp_results *res, const struct mmp_attribution *attr,
		   struct mmp_answers *out)
{
	memset(out, 0, sizeof(*out));
	if (ask_ratios(res, out))
		return -ENOMEM;
	/* Each job that fixes another asks once. */
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_run *run = &res->plan->runs[i].run;
		int first = 1;
		for (size_t j = 0; j < i && first; j++)
			first = res->plan->runs[j].run.job != run->job;
		if (mmp_planned_is_point(&res->plan->runs[i]) && run->p.fixes && first &&
		    ask_fix(res, attr, run->job->name, run->p.fixes, out))
			return -ENOMEM;
	}
	for (size_t s = 0; res->plan->table != MMP_TABLE_RUNS && s < res->plan->nsets; s++)
		if (ask_fastest(res, s, out))
			return -ENOMEM;
	return ask_models(res, out);
}

int mmp_answers_build(const struct mmp_results *res, const struct mmp_attribution *attr,
		      struct mmp_answers *out)
{
	int rc = ask_all(res, attr, out);
	for (size_t i = 0; !rc && i < out->n; i++)
		undecided_when_disturbed(&out->a[i]);
	return rc;
}

void mmp_answers_free(struct mmp_answers *a)
{
	free(a->a);
	memset(a, 0, sizeof(*a));
}

size_t mmp_answers_undecided(const struct mmp_answers *a, size_t set)
{
	size_t n = 0;
	for (size_t i = 0; i < a->n; i++)
		n += a->a[i].set == set && a->a[i].outcome == MMP_OUTCOME_INCONCLUSIVE;
	return n;
}

int mmp_answers_regressed(const struct mmp_answers *a)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->a[i].kind == MMP_Q_REGRESSION && a->a[i].outcome == MMP_OUTCOME_YES)
			return 1;
	return 0;
}
