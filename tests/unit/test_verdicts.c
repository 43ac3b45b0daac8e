/* The "why" and "answers" blocks a person reads, rendered from a recorded
 * result (tests/recorded/byte_8t/: the companion CSVs of a real run of
 * configs/byte_8t.ini, see its README) so their layout cannot drift:
 * exactly the recorded rendering (verdicts.txt), and the rules it keeps --
 * causes largest first, columns aligned, the causes that cannot be told
 * from zero on one line, the fix on its own line, no word the block does
 * not define, no blank at a line's end -- and README's example answers
 * are this run's.  MMPROF_UPDATE_RECORDED=1 rewrites verdicts.txt after a
 * deliberate change (then read it). */
#include "helpers.h"

#include <ctype.h>

#include "analysis/answers.h"
#include "analysis/attribution.h"
#include "plan/controls.h"
#include "compare/csvread.h"
#include "mmprof/probe.h"
#include "report/report.h"

#define DIR "tests/recorded/byte_8t/"
#define MAXPOINTS 32

struct point {
	char label[320];
	char unit[32];
	int limit_job;
	struct mmp_attribution a;
};

static const struct mmp_control_info *control_named(const char *names)
{
	size_t n, len = strcspn(names, "+");
	const struct mmp_control_info *all = mmp_controls(&n);
	for (size_t i = 0; len && i < n; i++)
		if (strlen(all[i].name) == len && strncmp(all[i].name, names, len) == 0)
			return &all[i];
	return NULL;
}

static double num(const struct mmp_csvread *t, size_t row, const char *col)
{
	return atof(mmp_csvread_get(t, row, mmp_csvread_column(t, col)));
}

static const char *cell(const struct mmp_csvread *t, size_t row, const char *col)
{
	return mmp_csvread_get(t, row, mmp_csvread_column(t, col));
}

static int yes(const struct mmp_csvread *t, size_t row, const char *col)
{
	return strcmp(cell(t, row, col), "true") == 0;
}

/* NAME.attribution.csv back into attributions: a row per cause, the
 * points in the order of their runs.  What the CSV does not keep is
 * derived as attribution.c decides it when the rounds are clean: the top
 * is the largest significant cost, decided when its interval is wholly
 * above every other cause's.  That is stricter than the run's own
 * round-by-round comparison (the CSV keeps no rounds), so a point the run
 * decided may render undecided here; the disturbed rounds of the few
 * points that had them render as clean, so that the layout of a decided
 * cause and its fix stays pinned. */
static size_t load_points(struct point *p, struct mmp_csvread *t)
{
	struct mmp_error err = { 0 };
	size_t n = 0;
	const char *run = NULL;
	assert_int_equal(mmp_csvread_load(t, DIR "byte_8t.attribution.csv", &err), 0);
	for (size_t r = 0; r < t->nrows; r++) {
		if (!run || strcmp(run, cell(t, r, "run")) != 0) {
			assert_true(n < MAXPOINTS);
			struct point *q = &p[n++];
			memset(q, 0, sizeof(*q));
			run = cell(t, r, "run");
			snprintf(q->label, sizeof(q->label), "[%s] %s threads=%s access=%s%s%s",
				 cell(t, r, "job"), cell(t, r, "probe"), cell(t, r, "threads"),
				 *cell(t, r, "access") ? cell(t, r, "access") : "whole",
				 *cell(t, r, "refcount") ? " refcount=" : "", cell(t, r, "refcount"));
			snprintf(q->unit, sizeof(q->unit), "%s",
				 strcmp(cell(t, r, "unit"), "byte") == 0 ? "B" : cell(t, r, "unit"));
			const struct mmp_probe *probe = mmp_probe_find(cell(t, r, "probe"));
			q->limit_job = probe && probe->role == MMP_PROBE_CEILING;
			q->a.rounds = (size_t)num(t, r, "rounds");
			q->a.disturbed = 0; /* as clean rounds: see above */
		}
		struct mmp_attribution *a = &p[n - 1].a;
		assert_true(a->n < MMP_MAX_CAUSES);
		struct mmp_cause *c = &a->cause[a->n++];
		snprintf(c->name, sizeof(c->name), "%s", cell(t, r, "cause"));
		snprintf(c->detail, sizeof(c->detail), "%s", cell(t, r, "detail"));
		c->control = control_named(cell(t, r, "controls"));
		c->interacting = yes(t, r, "interacting");
		/* the remainder after the limit rung: its name is the CSV's word for it */
		c->ceiling = !c->control && strcmp(c->name, "limit") == 0;
		c->cost.estimate = num(t, r, "ns_per_byte");
		c->cost.valid = *cell(t, r, "ci_low") != '\0';
		c->cost.low = num(t, r, "ci_low");
		c->cost.high = num(t, r, "ci_high");
		c->share = num(t, r, "share");
		c->share_low = num(t, r, "share_low");
		c->share_high = num(t, r, "share_high");
		c->significant = yes(t, r, "significant");
		c->understated = yes(t, r, "understated");
		c->evidence.metric = *cell(t, r, "evidence") ? cell(t, r, "evidence") : NULL;
		c->evidence.counted = *cell(t, r, "evidence_before") != '\0';
		c->evidence.before = num(t, r, "evidence_before");
		c->evidence.after = num(t, r, "evidence_after");
		snprintf(c->evidence.missing, sizeof(c->evidence.missing), "%s",
			 cell(t, r, "evidence_missing"));
		a->total += c->cost.estimate;
	}
	for (size_t i = 0; i < n; i++) {
		struct mmp_attribution *a = &p[i].a;
		for (size_t c = 0; c < a->n; c++)
			if (a->cause[c].control && a->cause[c].significant &&
			    (!a->top || a->cause[c].cost.estimate > a->top->cost.estimate))
				a->top = &a->cause[c];
		a->top_decided = a->top != NULL;
		for (size_t c = 0; a->top && c < a->n; c++)
			if (&a->cause[c] != a->top && a->cause[c].control &&
			    a->cause[c].cost.high >= a->top->cost.low)
				a->top_decided = 0;
		snprintf(a->doubt, sizeof(a->doubt), "%s",
			 a->top ? "the largest is not yet above the next" : "no cause stands above "
									   "the noise");
	}
	return n;
}

static enum mmp_question kind_named(const char *name)
{
	for (int k = 0; k <= MMP_Q_MODEL; k++)
		if (mmp_question_name((enum mmp_question)k) &&
		    strcmp(mmp_question_name((enum mmp_question)k), name) == 0)
			return (enum mmp_question)k;
	fail_msg("question kind %s", name);
	return MMP_Q_RATIO;
}

static enum mmp_outcome outcome_named(const char *name)
{
	for (int o = 0; o < 3; o++)
		if (strcmp(mmp_outcome_name((enum mmp_outcome)o), name) == 0)
			return (enum mmp_outcome)o;
	fail_msg("outcome %s", name);
	return MMP_OUTCOME_INCONCLUSIVE;
}

/* NAME.answers.csv back into answers. */
static size_t load_answers(struct mmp_answer *ans, size_t max, struct mmp_csvread *t)
{
	struct mmp_error err = { 0 };
	assert_int_equal(mmp_csvread_load(t, DIR "byte_8t.answers.csv", &err), 0);
	assert_true(t->nrows <= max);
	for (size_t r = 0; r < t->nrows; r++) {
		struct mmp_answer *a = &ans[r];
		memset(a, 0, sizeof(*a));
		a->kind = kind_named(cell(t, r, "kind"));
		snprintf(a->question, sizeof(a->question), "%s", cell(t, r, "question"));
		a->ratio.n = *cell(t, r, "ratio") ? 1 : 0;
		a->ratio.estimate = num(t, r, "ratio");
		a->ratio.valid = *cell(t, r, "ci_low") != '\0';
		a->ratio.low = num(t, r, "ci_low");
		a->ratio.high = num(t, r, "ci_high");
		a->outcome = outcome_named(cell(t, r, "outcome"));
		snprintf(a->verdict, sizeof(a->verdict), "%s", cell(t, r, "verdict"));
		a->rounds = (size_t)num(t, r, "rounds");
		a->used_disturbed = yes(t, r, "used_disturbed");
		a->more = *cell(t, r, "more_rounds") ? (size_t)num(t, r, "more_rounds") : SIZE_MAX;
		snprintf(a->evidence, sizeof(a->evidence), "%s", cell(t, r, "evidence"));
	}
	return t->nrows;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 20);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The recorded run's tables, as the report prints them. */
static char *render(struct point *p, size_t n, int brief)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	for (size_t i = 0; i < n; i++) {
		struct mmp_verdict_in v = { .label = p[i].label, .unit = p[i].unit, .a = &p[i].a,
					    .limit_job = p[i].limit_job };
		if (brief)
			mmp_report_verdict_line(f, &v);
		else
			mmp_report_cause_table(f, &v);
	}
	fclose(f);
	return text;
}

static void test_recorded_rendering(void **state)
{
	static struct point p[MAXPOINTS];
	struct mmp_csvread t;
	(void)state;
	size_t n = load_points(p, &t);
	assert_true(n >= 8);
	char *tables = render(p, n, 0), *lines = render(p, n, 1);
	char *both = malloc(strlen(tables) + strlen(lines) + 2);
	sprintf(both, "%s\n%s", tables, lines);
	if (getenv("MMPROF_UPDATE_RECORDED")) {
		FILE *f = fopen(DIR "verdicts.txt", "w");
		assert_non_null(f);
		fputs(both, f);
		fclose(f);
	}
	char *want = slurp(DIR "verdicts.txt");
	assert_non_null(want);
	if (strcmp(want, both) != 0)
		print_message("# rendered:\n%s\n# recorded (" DIR "verdicts.txt):\n%s\n", both, want);
	assert_string_equal(want, both);
	free(want);
	free(both);
	free(tables);
	free(lines);
	mmp_csvread_free(&t);
}

/* Where a column starts in a table's heading. */
static size_t column_at(const char *heading, const char *name)
{
	const char *p = strstr(heading, name);
	assert_non_null(p);
	return (size_t)(p - heading);
}

static double leading_share(const char *s)
{
	while (*s && !isdigit((unsigned char)*s) && *s != '-')
		s++;
	return atof(s);
}

static void test_layout_rules(void **state)
{
	static struct point p[MAXPOINTS];
	struct mmp_csvread t;
	(void)state;
	size_t n = load_points(p, &t);
	for (size_t i = 0; i < n; i++) {
		char *text = render(&p[i], 1, 0);
		int has_fix = strstr(text, "\n  fix: ") != NULL;
		char *save = NULL, *line = strtok_r(text, "\n", &save);
		size_t share_at = 0, evidence_at = 0, rows = 0, unmeasured = 0;
		double last = 1e9;
		assert_non_null(line);
		/* The point and its time, then the table's heading. */
		assert_non_null(strstr(line, " ns per "));
		line = strtok_r(NULL, "\n", &save);
		assert_true(strncmp(line, "  cause  ", 9) == 0);
		share_at = column_at(line, "share");
		evidence_at = strstr(line, "evidence") ? column_at(line, "evidence") : 0;
		int fix = 0, done = 0;
		while ((line = strtok_r(NULL, "\n", &save))) {
			size_t len = strlen(line);
			assert_true(len == 0 || line[len - 1] != ' '); /* no trailing blank */
			if (strncmp(line, "  the shares add to ", 20) == 0) {
				assert_true(len <= 160);
				done = 1;
				continue;
			}
			if (strncmp(line, "  not measurable here: ", 23) == 0) {
				unmeasured++;
				done = 1;
				continue;
			}
			if (strncmp(line, "  fix: ", 7) == 0 ||
			    strncmp(line, "  largest cause: inconclusive (", 31) == 0) {
				fix++;
				done = 1;
				continue;
			}
			assert_false(done); /* rows come first, then those lines */
			/* A row: its share where the heading says, largest first. */
			assert_true(len > share_at);
			assert_true(line[share_at - 1] == ' ' && line[share_at] != ' ');
			if (evidence_at && len > evidence_at)
				assert_true(line[evidence_at - 1] == ' ');
			double share = leading_share(line + share_at);
			if (strncmp(line + share_at, "none: with ", 11) != 0) {
				assert_true(share <= last + 1e-9);
				last = share;
			}
			rows++;
		}
		assert_true(rows >= 1);
		assert_true(fix <= 1);
		assert_true(unmeasured <= 1);
		/* The fix only for a decided largest cause. */
		if (!p[i].a.top_decided)
			assert_false(has_fix);
		free(text);
	}
	/* No word the block does not define: the old verdicts' jargon is gone,
	 * and what the heading defines is the only vocabulary. */
	char *all = render(p, n, 0);
	const char *undefined[] = { "rung", "ladder", "n.s.", "understated", "[interacting]",
				    "x limit", " · " };
	for (size_t w = 0; w < sizeof(undefined) / sizeof(undefined[0]); w++)
		if (strstr(all, undefined[w]))
			fail_msg("'%s' in the causes tables", undefined[w]);
	free(all);
	mmp_csvread_free(&t);
}

/* A control that made the job slower, and a share past the whole time,
 * read as what they mean. */
static void test_slower_and_past_all(void **state)
{
	static struct point p[MAXPOINTS];
	struct mmp_csvread t;
	(void)state;
	load_points(p, &t);
	struct point q = p[0];
	struct mmp_cause *c = &q.a.cause[0];
	c->control = control_named("prefault");
	c->significant = 1;
	c->cost.valid = 1;
	c->share = -0.14;
	c->share_low = -0.20;
	c->share_high = -0.08;
	char *text = render(&q, 1, 0);
	/* not "prefault made it slower": taking faults away did */
	assert_non_null(strstr(text, "none: with prefault it was 14% [8, 20] slower"));
	assert_null(strstr(text, "made it 14%"));
	free(text);
	c->share = 1.04;
	c->share_low = 0.94;
	c->share_high = 1.14;
	text = render(&q, 1, 0);
	assert_non_null(strstr(text, "all of it, 104% [94, 114]"));
	free(text);
	c->share = 0.70;
	c->share_low = 0.11;
	c->share_high = 1.30;
	text = render(&q, 1, 0);
	assert_non_null(strstr(text, "70% (11% to all of it)"));
	free(text);
	/* Evidence longer than a cell: cut after a whole word, said by
	 * "...", never mid-word ("at least this (disturbe"). */
	c->evidence = (struct mmp_evidence){ .metric = "faults/MiB", .counted = 1, .before = 6.76 };
	c->kernel_part = 0.5;
	c->cpu_ratio = (struct mmp_interval){ .valid = 1, .estimate = 1.23 };
	c->pus = 2;
	c->interacting = 1;
	c->understated = 1;
	snprintf(c->not_shown, sizeof(c->not_shown), "not shown");
	text = render(&q, 1, 0);
	/* the row: its last line ending in "..." */
	const char *row = NULL;
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n"))
		if (strlen(l) > 3 && strcmp(l + strlen(l) - 3, "...") == 0)
			row = l;
	assert_non_null(row);
	print_message("# %s\n", row);
	size_t end = strlen(row) - 3;
	assert_true(isalnum((unsigned char)row[end - 1]) || row[end - 1] == ')');
	free(text);
	mmp_csvread_free(&t);
}

/* README's example is the recorded run's answers block, line for line. */
static void test_readme_answers_are_recorded(void **state)
{
	static struct mmp_answer ans[64];
	struct mmp_csvread t;
	(void)state;
	size_t n = load_answers(ans, 64, &t);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	mmp_report_answer_list(f, ans, n);
	fclose(f);
	char *readme = slurp("README.md");
	assert_non_null(readme);
	const char *block = strstr(readme, "\nanswers (");
	assert_non_null(block);
	const char *end = strstr(block, "\n```");
	assert_non_null(end);
	size_t blen = (size_t)(end - block) + 1; /* through the last line's newline */
	if (strlen(text) != blen || strncmp(text, block, blen) != 0)
		print_message("# rendered from " DIR "byte_8t.answers.csv:\n%s\n# README:\n%.*s\n",
			      text, (int)blen, block);
	assert_int_equal(strlen(text), blen);
	assert_memory_equal(text, block, blen);
	free(readme);
	free(text);
	mmp_csvread_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorded_rendering),
		cmocka_unit_test(test_layout_rules),
		cmocka_unit_test(test_slower_and_past_all),
		cmocka_unit_test(test_readme_answers_are_recorded),
	};
	return cmocka_run_group_tests_name("verdicts", tests, NULL, NULL);
}
