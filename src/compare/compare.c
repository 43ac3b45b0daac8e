/* Two mmprof CSVs, run by run: reading them, matching runs by their
 * parameters, and the Welch ratio of each pair (see compare.h). */
#include "compare/compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/csv.h"
#include "util/lists.h"
#include "result/result.h"
#include "result/stats.h"
#include "util/suggest.h"
#include "util/vec.h"

/* The key's columns, derived once from the key table's roles. */
static const char *key_names[MMP_COMPARE_MAXKEYS];
static size_t nkeys;

static void init_keys(void)
{
	if (nkeys)
		return;
	uint64_t compare = mmp_keys_with(MMP_ROLE_COMPARE);
	key_names[nkeys++] = "job";
	key_names[nkeys++] = "probe";
	key_names[nkeys++] = "control";
	for (size_t k = 0; k < MMP_KEY_COUNT; k++)
		if ((compare & MMP_KEY_BIT(k)) && k != MMP_KEY_PROBE)
			key_names[nkeys++] = mmp_keys[k].name;
	key_names[nkeys++] = "bytes";
}

/* Columns that set a run apart but are not in the key: named when two
 * runs of one file share a key, so the message says what to change. */
static const char *const other_params[] = { "file", "npus", "pus_planned" };

size_t mmp_compare_nkeys(void)
{
	init_keys();
	return nkeys;
}

const char *mmp_compare_key_name(size_t k)
{
	init_keys();
	return k < nkeys ? key_names[k] : "";
}

int mmp_compare_vary_parse(const char *text, uint32_t *vary, struct mmp_error *err)
{
	char name[64];
	init_keys();
	*vary = 0;
	for (const char *p = text; mmp_list_next(&p, name, sizeof(name));) {
		const char *col = strcmp(name, "size") == 0 ? "bytes" : name;
		size_t k = 0;
		while (k < nkeys && strcmp(key_names[k], col) != 0)
			k++;
		if (k == nkeys || k == MMP_COMPARE_KEY_CONTROL) {
			const char *hint = mmp_suggest(name, key_names, nkeys);
			return mmp_error_set(err, -EINVAL,
					     "--vary %s: not a key compare matches runs by%s%s%s "
					     "(mmprof compare --help lists them)",
					     name, hint ? " (did you mean '" : "", hint ? hint : "",
					     hint ? "'?)" : "");
		}
		*vary |= UINT32_C(1) << k;
	}
	if (!*vary)
		return mmp_error_set(err, -EINVAL, "--vary: no key named (e.g. --vary buffer)");
	return 0;
}

const char *mmp_compare_outcome_name(enum mmp_compare_outcome o)
{
	static const char *const names[] = { "slower", "faster", "same", "inconclusive" };
	return o < MMP_COMPARE_NOUTCOMES ? names[o] : "";
}

/* Column indexes of one file. */
struct cols {
	int schema, run, parent, rep, elapsed, disturbed, result_ok, run_id;
	int limit_run, pus_planned; /* optional: -1 */
	int key[MMP_COMPARE_MAXKEYS];
};

static int need(const struct mmp_cmp_file *f, const char *name, int *col, struct mmp_error *err)
{
	*col = mmp_csvread_column(&f->csv, name);
	if (*col < 0)
		return mmp_error_set(err, -EINVAL,
				     "%s has a schema_version column but no '%s' column: not a CSV "
				     "mmprof wrote, or one edited",
				     f->path, name);
	return 0;
}

/* The first columns of the header, for "not an mmprof CSV" messages. */
static const char *header_start(const struct mmp_csvread *t, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < t->ncols && i < 6 && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "", t->cell[i]);
	if (t->ncols > 6 && used < len)
		snprintf(buf + used, len - used, ",...");
	return buf;
}

/* Keys added to the CSV after schema 2 was first written: a CSV from
 * before has no column for them, read as empty (what a probe's row or a
 * program run without them has): the runs match where the new CSV's are
 * empty too, and otherwise differ by that key (--vary lets them). */
static int late_key(const char *name)
{
	static const char *const late[] = { "jitnames", "env", "touch" };
	for (size_t i = 0; i < sizeof(late) / sizeof(late[0]); i++)
		if (strcmp(name, late[i]) == 0)
			return 1;
	return 0;
}

/* A CSV from before touch: its runs with a prefault cell (the mapping
 * probes, a program) did not touch their pages first, which is what
 * touch = no says now; the others have no cell for either. */
static int absent_touch(const struct mmp_cmp_file *f, const struct cols *c, size_t row, size_t k)
{
	if (c->key[k] >= 0 || strcmp(key_names[k], "touch") != 0)
		return 0;
	for (size_t p = 0; p < mmp_compare_nkeys(); p++)
		if (strcmp(key_names[p], "prefault") == 0)
			return c->key[p] >= 0 && mmp_csvread_get(&f->csv, row, c->key[p])[0];
	return 0;
}

static int check_schema(struct mmp_cmp_file *f, struct cols *c, struct mmp_error *err)
{
	char head[200], want[16];
	c->schema = mmp_csvread_column(&f->csv, "schema_version");
	if (c->schema < 0)
		return mmp_error_set(err, -EINVAL,
				     "%s is not an mmprof CSV: its header has no schema_version "
				     "column (it starts: %s)",
				     f->path, header_start(&f->csv, head, sizeof(head)));
	if (!f->csv.nrows)
		return mmp_error_set(err, -EINVAL, "%s has a header but no rows: nothing to compare",
				     f->path);
	snprintf(want, sizeof(want), "%d", MMP_CSV_SCHEMA_VERSION);
	const char *first = mmp_csvread_get(&f->csv, 0, c->schema);
	for (size_t r = 0; r < f->csv.nrows; r++) {
		const char *v = mmp_csvread_get(&f->csv, r, c->schema);
		if (strcmp(v, first) != 0)
			return mmp_error_set(err, -EINVAL,
					     "%s:%zu: schema version %s, but the first row's is %s: "
					     "CSVs of two mmprof versions joined into one file",
					     f->path, mmp_csvread_line(&f->csv, r), v, first);
	}
	if (strcmp(first, want) != 0)
		return mmp_error_set(err, -EPROTO,
				     "%s has CSV schema version %s; this mmprof (%s) reads version "
				     "%d: compare CSVs written with schema %d, or use the mmprof "
				     "that wrote it",
				     f->path, first, MMPROF_VERSION, MMP_CSV_SCHEMA_VERSION,
				     MMP_CSV_SCHEMA_VERSION);
	int rc = need(f, "run", &c->run, err);
	if (!rc)
		rc = need(f, "parent", &c->parent, err);
	if (!rc)
		rc = need(f, "rep", &c->rep, err);
	if (!rc)
		rc = need(f, "elapsed_ns", &c->elapsed, err);
	if (!rc)
		rc = need(f, "disturbed", &c->disturbed, err);
	if (!rc)
		rc = need(f, "result_ok", &c->result_ok, err);
	if (!rc)
		rc = need(f, "run_id", &c->run_id, err);
	for (size_t k = 0; k < mmp_compare_nkeys() && !rc; k++) {
		c->key[k] = mmp_csvread_column(&f->csv, key_names[k]);
		if (c->key[k] < 0 && !late_key(key_names[k]))
			rc = need(f, key_names[k], &c->key[k], err);
	}
	/* Older CSVs have no limit_run: no ceiling, compared as before. */
	c->limit_run = mmp_csvread_column(&f->csv, "limit_run");
	c->pus_planned = mmp_csvread_column(&f->csv, "pus_planned");
	return rc;
}

static int bad_cell(const struct mmp_cmp_file *f, size_t row, const char *col, const char *v,
		    const char *want, struct mmp_error *err)
{
	return mmp_error_set(err, -EINVAL, "%s:%zu: %s is '%s', not %s", f->path,
			     mmp_csvread_line(&f->csv, row), col, v, want);
}

static int parse_count(const char *s, long min, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_long(const char *s, long *out)
{
	return parse_count(s, 1, out);
}

static int parse_bool(const char *s, int *out)
{
	if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0) {
		*out = s[0] == 't';
		return 0;
	}
	return -EINVAL;
}

static int add_rep(struct mmp_cmp_run *r, long rep, double elapsed, int disturbed)
{
	if (r->n == r->cap) {
		size_t cap = mmp_vec_grown(r->cap, r->n + 1);
		if (MMP_VEC_RESIZE(r->elapsed, cap) || MMP_VEC_RESIZE(r->disturbed, cap) ||
		    MMP_VEC_RESIZE(r->rep, cap))
			return -ENOMEM;
		r->cap = cap;
	}
	r->rep[r->n] = rep;
	r->elapsed[r->n] = elapsed;
	r->disturbed[r->n++] = (unsigned char)disturbed;
	r->ndisturbed += (size_t)disturbed;
	return 0;
}

static int by_long(const void *x, const void *y)
{
	long a = *(const long *)x, b = *(const long *)y;
	return (a > b) - (a < b);
}

static int repeated_rep(const struct mmp_cmp_file *f, const struct mmp_cmp_run *r,
			struct mmp_error *err)
{
	long *reps = malloc((r->n + 1) * sizeof(*reps));
	int rc = 0;
	if (!reps)
		return mmp_error_set(err, -ENOMEM, "%s: out of memory", f->path);
	memcpy(reps, r->rep, r->n * sizeof(*reps));
	qsort(reps, r->n, sizeof(*reps), by_long);
	for (size_t i = 1; i < r->n && !rc; i++)
		if (reps[i] == reps[i - 1])
			rc = mmp_error_set(err, -EINVAL,
					   "%s: run %ld (first at line %zu) has repetition %ld more "
					   "than once: rows copied? compare counts each repetition "
					   "once; keep one row of each",
					   f->path, r->number, r->line, reps[i]);
	free(reps);
	return rc;
}

static int by_number(const void *x, const void *y)
{
	const struct mmp_cmp_run *a = x, *b = y;
	return (a->number > b->number) - (a->number < b->number);
}

/* Runs are numbered 1..N in a plan; an index by number finds a row's run. */
#define MAX_RUN_NUMBER 10000000L

/* Pairs runs are told apart by their PUs: "pairs:3,7" as the report and
 * the JSON label say it. */
static int pairs_placement(const struct mmp_cmp_file *f, const struct cols *c, size_t row,
			   struct mmp_cmp_run *r)
{
	size_t k = 0;
	while (k < mmp_compare_nkeys() && strcmp(key_names[k], "placement") != 0)
		k++;
	if (k == mmp_compare_nkeys() || strcmp(r->value[k], "pairs") != 0 || c->pus_planned < 0)
		return 0;
	const char *pus = mmp_csvread_get(&f->csv, row, c->pus_planned);
	if (!(r->pairs = malloc(strlen(pus) + 8)))
		return -ENOMEM;
	sprintf(r->pairs, "pairs:%s", pus);
	for (char *p = r->pairs; *p; p++)
		if (*p == ' ')
			*p = ','; /* pus_planned says "0 1" */
	r->value[k] = r->pairs;
	return 0;
}

/* The largest run number of the file, every row's checked. */
static int max_run_number(const struct mmp_cmp_file *f, const struct cols *c, long *max,
			  struct mmp_error *err)
{
	*max = 0;
	for (size_t row = 0; row < f->csv.nrows; row++) {
		const char *v = mmp_csvread_get(&f->csv, row, c->run);
		long num;
		if (parse_long(v, &num) || num > MAX_RUN_NUMBER)
			return bad_cell(f, row, "run", v, "a run number", err);
		*max = num > *max ? num : *max;
	}
	return 0;
}

/* What one row says of its run and its repetition. */
struct row_cells {
	long num, parent, rep, limit;
	int disturbed, ok;
	double elapsed;
};

static int parse_row(const struct mmp_cmp_file *f, const struct cols *c, size_t row,
		     struct row_cells *x, struct mmp_error *err)
{
	const char *cell;
	x->limit = 0;
	parse_long(mmp_csvread_get(&f->csv, row, c->run), &x->num);
	if (parse_long(cell = mmp_csvread_get(&f->csv, row, c->parent), &x->parent))
		return bad_cell(f, row, "parent", cell, "a run number", err);
	if (parse_count(cell = mmp_csvread_get(&f->csv, row, c->rep), 0, &x->rep))
		return bad_cell(f, row, "rep", cell, "a repetition number", err);
	cell = c->limit_run >= 0 ? mmp_csvread_get(&f->csv, row, c->limit_run) : "";
	if (*cell && parse_long(cell, &x->limit))
		return bad_cell(f, row, "limit_run", cell, "a run number or empty", err);
	if (parse_bool(cell = mmp_csvread_get(&f->csv, row, c->disturbed), &x->disturbed))
		return bad_cell(f, row, "disturbed", cell, "true or false", err);
	if (parse_bool(cell = mmp_csvread_get(&f->csv, row, c->result_ok), &x->ok))
		return bad_cell(f, row, "result_ok", cell, "true or false", err);
	cell = mmp_csvread_get(&f->csv, row, c->elapsed);
	char *end;
	x->elapsed = strtod(cell, &end);
	if (!*cell || *end || !(x->elapsed > 0) || !isfinite(x->elapsed))
		return bad_cell(f, row, "elapsed_ns", cell, "a time in ns", err);
	return 0;
}

/* The first row of a run: its parameters. */
static int new_run(struct mmp_cmp_file *f, const struct cols *c, size_t row,
		   const struct row_cells *x, struct mmp_cmp_run *r, struct mmp_error *err)
{
	r->number = x->num;
	r->parent = x->parent;
	r->row = row;
	r->line = mmp_csvread_line(&f->csv, row);
	r->limit_run = x->limit;
	for (size_t k = 0; k < mmp_compare_nkeys(); k++)
		r->value[k] = absent_touch(f, c, row, k) ? "no"
							 : mmp_csvread_get(&f->csv, row, c->key[k]);
	r->control = r->value[MMP_COMPARE_KEY_CONTROL];
	if (pairs_placement(f, c, row, r))
		return mmp_error_set(err, -ENOMEM, "%s: out of memory", f->path);
	return 0;
}

/* Every row of a run says the same parameters. */
static int same_run(const struct mmp_cmp_file *f, const struct cols *c, size_t row,
		    const struct mmp_cmp_run *r, struct mmp_error *err)
{
	for (size_t k = 0; k < mmp_compare_nkeys(); k++) {
		const char *cell = mmp_csvread_get(&f->csv, row, c->key[k]);
		const char *first = mmp_csvread_get(&f->csv, r->row, c->key[k]);
		if (strcmp(cell, first) != 0)
			return mmp_error_set(err, -EINVAL,
					     "%s:%zu: run %ld has %s '%s' here but '%s' at line %zu: "
					     "rows of two runs share one number (files concatenated?)",
					     f->path, mmp_csvread_line(&f->csv, row), r->number,
					     key_names[k], cell, first, r->line);
	}
	return 0;
}

/* Each row into its run (index: run number -> 1 + its place in f->run). */
static int read_rows(struct mmp_cmp_file *f, const struct cols *c, size_t *index,
		     struct mmp_error *err)
{
	int rc = 0;
	for (size_t row = 0; row < f->csv.nrows && !rc; row++) {
		struct row_cells x;
		struct mmp_cmp_run *r;
		if ((rc = parse_row(f, c, row, &x, err)))
			break;
		if (!index[x.num]) {
			r = &f->run[f->nruns++];
			index[x.num] = f->nruns;
			rc = new_run(f, c, row, &x, r, err);
		} else {
			r = &f->run[index[x.num] - 1];
			rc = same_run(f, c, row, r, err);
		}
		if (rc)
			break;
		r->wrong |= !x.ok;
		if (add_rep(r, x.rep, x.elapsed, x.disturbed))
			rc = mmp_error_set(err, -ENOMEM, "%s: out of memory", f->path);
	}
	return rc;
}

/* A rung is its job point's, whose values are its key; a copy repeats
 * its original. */
static void link_parents(struct mmp_cmp_file *f, const size_t *index, long max)
{
	for (size_t i = 0; i < f->nruns; i++) {
		struct mmp_cmp_run *r = &f->run[i];
		const struct mmp_cmp_run *p =
			r->parent <= max && index[r->parent] ? &f->run[index[r->parent] - 1] : NULL;
		r->copy = !r->control[0] && r->parent != r->number;
		f->ncopies += (size_t)r->copy;
		for (size_t k = 0; k < mmp_compare_nkeys(); k++)
			r->key[k] = r->control[0] && p && k != MMP_COMPARE_KEY_CONTROL ? p->value[k] : r->value[k];
		/* A rung ran in its job point's rounds: over that ceiling too. */
		if (r->control[0] && p)
			r->limit_run = p->limit_run;
		if (r->limit_run > max || !index[r->limit_run] || r->limit_run == r->number)
			r->limit_run = 0;
	}
}

/* Each run's ceiling, once the runs are in plan order. */
static void link_ceilings(struct mmp_cmp_file *f)
{
	for (size_t i = 0; i < f->nruns; i++) {
		struct mmp_cmp_run key = { .number = f->run[i].limit_run };
		struct mmp_cmp_run *l = key.number ? bsearch(&key, f->run, f->nruns, sizeof(*f->run),
							     by_number)
						   : NULL;
		f->run[i].ceiling = l;
		if (l)
			l->is_ceiling = 1;
	}
}

static int group_rows(struct mmp_cmp_file *f, const struct cols *c, struct mmp_error *err)
{
	long max;
	int rc = max_run_number(f, c, &max, err);
	if (rc)
		return rc;
	size_t *index = calloc((size_t)max + 1, sizeof(*index));
	f->run = calloc(f->csv.nrows < (size_t)max ? f->csv.nrows : (size_t)max, sizeof(*f->run));
	if (!index || !f->run) {
		free(index);
		return mmp_error_set(err, -ENOMEM, "%s: out of memory", f->path);
	}
	rc = read_rows(f, c, index, err);
	/* A repetition twice (rows copied, a file appended to itself) would
	 * count as more rounds: a narrower interval, an outcome decided that
	 * is not.  One file is one invocation (run_id), so (run, rep) is a
	 * row's identity. */
	for (size_t i = 0; i < f->nruns && !rc; i++)
		rc = repeated_rep(f, &f->run[i], err);
	if (!rc)
		link_parents(f, index, max);
	free(index);
	if (rc)
		return rc;
	/* Plan order: the order --dry-run and the run table show. */
	qsort(f->run, f->nruns, sizeof(*f->run), by_number);
	link_ceilings(f);
	return 0;
}

static int join_keys(struct mmp_cmp_file *f, struct mmp_error *err)
{
	for (size_t i = 0; i < f->nruns; i++) {
		struct mmp_cmp_run *r = &f->run[i];
		size_t len = 1;
		for (size_t k = 0; k < mmp_compare_nkeys(); k++)
			len += strlen(r->key[k]) + 1;
		if (!(r->joined = malloc(len)))
			return mmp_error_set(err, -ENOMEM, "%s: out of memory", f->path);
		size_t used = 0;
		r->joined[0] = '\0';
		/* A key that may differ (--vary) is no part of what matches. */
		for (size_t k = 0; k < mmp_compare_nkeys(); k++)
			used += (size_t)snprintf(r->joined + used, len - used, "%s\x1f",
						 f->vary & (UINT32_C(1) << k) ? "" : r->key[k]);
	}
	return 0;
}

static int by_key(const void *x, const void *y)
{
	const struct mmp_cmp_run *a = *(const struct mmp_cmp_run *const *)x,
				 *b = *(const struct mmp_cmp_run *const *)y;
	return strcmp(a->joined, b->joined);
}

/* The runs that are matched (copies aside), sorted by key. */
static const struct mmp_cmp_run **sorted_runs(const struct mmp_cmp_file *f, size_t *n)
{
	const struct mmp_cmp_run **v = calloc(f->nruns + 1, sizeof(*v));
	*n = 0;
	for (size_t i = 0; v && i < f->nruns; i++)
		if (!f->run[i].copy)
			v[(*n)++] = &f->run[i];
	if (v)
		qsort(v, *n, sizeof(*v), by_key);
	return v;
}

/* Two runs with one key: say which and where they differ. */
static int duplicate(const struct mmp_cmp_file *f, const struct mmp_cmp_run *x,
		     const struct mmp_cmp_run *y, struct mmp_error *err)
{
	char label[320], diff[200] = "";
	size_t used = 0;
	for (size_t k = 0; k < mmp_compare_nkeys(); k++)
		if ((f->vary & (UINT32_C(1) << k)) && strcmp(x->key[k], y->key[k]) != 0 &&
		    used < sizeof(diff))
			used += (size_t)snprintf(diff + used, sizeof(diff) - used, "%s%s (--vary)",
						 used ? ", " : "", key_names[k]);
	for (size_t k = 0; k < sizeof(other_params) / sizeof(other_params[0]); k++) {
		int col = mmp_csvread_column(&f->csv, other_params[k]);
		if (col >= 0 && strcmp(mmp_csvread_get(&f->csv, x->row, col),
				       mmp_csvread_get(&f->csv, y->row, col)) != 0 && used < sizeof(diff))
			used += (size_t)snprintf(diff + used, sizeof(diff) - used, "%s%s",
						 used ? ", " : "", other_params[k]);
	}
	return mmp_error_set(err, -EINVAL,
			     "%s: runs %ld (line %zu) and %ld (line %zu) have the same parameters "
			     "(%s): compare could not tell which to match; %s%s",
			     f->path, x->number, x->line, y->number, y->line,
			     mmp_compare_label(x, label, sizeof(label)),
			     used ? "they differ in " : "they differ in no column compare knows",
			     diff);
}

static int check_unique(const struct mmp_cmp_file *f, struct mmp_error *err)
{
	size_t n;
	const struct mmp_cmp_run **v = sorted_runs(f, &n);
	int rc = 0;
	if (!v)
		return mmp_error_set(err, -ENOMEM, "%s: out of memory", f->path);
	for (size_t i = 1; i < n && !rc; i++)
		if (by_key(&v[i - 1], &v[i]) == 0)
			rc = duplicate(f, v[i - 1]->number < v[i]->number ? v[i - 1] : v[i],
				       v[i - 1]->number < v[i]->number ? v[i] : v[i - 1], err);
	free(v);
	return rc;
}

static int check_one_invocation(struct mmp_cmp_file *f, const struct cols *c,
				struct mmp_error *err)
{
	f->run_id = mmp_csvread_get(&f->csv, 0, c->run_id);
	for (size_t r = 1; r < f->csv.nrows; r++) {
		const char *id = mmp_csvread_get(&f->csv, r, c->run_id);
		if (strcmp(id, f->run_id) != 0)
			return mmp_error_set(err, -EINVAL,
					     "%s holds rows of more than one mmprof invocation "
					     "(run_id %s at line %zu, %s at line %zu): compare takes "
					     "one invocation per file; split it by run_id",
					     f->path, f->run_id, mmp_csvread_line(&f->csv, 0), id,
					     mmp_csvread_line(&f->csv, r));
	}
	return 0;
}

int mmp_compare_load(struct mmp_cmp_file *f, const char *path, uint32_t vary,
		     struct mmp_error *err)
{
	struct cols c;
	memset(&c, 0, sizeof(c));
	memset(f, 0, sizeof(*f));
	f->path = path;
	f->vary = vary;
	int rc = mmp_csvread_load(&f->csv, path, err);
	if (!rc)
		rc = check_schema(f, &c, err);
	if (!rc)
		rc = check_one_invocation(f, &c, err);
	if (!rc)
		rc = group_rows(f, &c, err);
	if (!rc)
		rc = join_keys(f, err);
	if (!rc)
		rc = check_unique(f, err);
	if (rc) {
		mmp_compare_file_free(f);
		f->path = path;
		return rc;
	}
	f->host = mmp_csvread_get(&f->csv, 0, mmp_csvread_column(&f->csv, "host"));
	f->cpu_model = mmp_csvread_get(&f->csv, 0, mmp_csvread_column(&f->csv, "cpu_model"));
	f->mmprof_version =
		mmp_csvread_get(&f->csv, 0, mmp_csvread_column(&f->csv, "mmprof_version"));
	f->kernel_release =
		mmp_csvread_get(&f->csv, 0, mmp_csvread_column(&f->csv, "kernel_release"));
	f->started_at = mmp_csvread_get(&f->csv, 0, mmp_csvread_column(&f->csv, "started_at"));
	return 0;
}

void mmp_compare_file_free(struct mmp_cmp_file *f)
{
	for (size_t i = 0; f->run && i < f->nruns; i++) {
		free(f->run[i].elapsed);
		free(f->run[i].disturbed);
		free(f->run[i].rep);
		free(f->run[i].pairs);
		free(f->run[i].joined);
	}
	free(f->run);
	mmp_csvread_free(&f->csv);
	memset(f, 0, sizeof(*f));
}

/* The repetitions one side's figures come from: the clean ones when
 * MMP_MIN_CLEAN_ROUNDS remain, else all of them (and said so). */
static size_t usable(const struct mmp_cmp_run *r, double *out, struct mmp_cmp_side *side)
{
	size_t clean = r->n - r->ndisturbed, m = 0;
	side->run = r;
	side->used_disturbed = r->ndisturbed && clean < MMP_MIN_CLEAN_ROUNDS;
	for (size_t i = 0; i < r->n; i++)
		if (side->used_disturbed || !r->disturbed[i])
			out[m++] = r->elapsed[i];
	struct mmp_stats st;
	side->used = m;
	side->median = mmp_stats_compute(out, m, &st) == 0 ? st.median : 0;
	return m;
}

static enum mmp_compare_outcome judge(const struct mmp_interval *iv, double tolerance)
{
	switch (mmp_interval_band(iv, 1 / (1 + tolerance), 1 + tolerance)) {
	case MMP_BAND_ABOVE:
		return MMP_COMPARE_SLOWER;
	case MMP_BAND_BELOW:
		return MMP_COMPARE_FASTER;
	case MMP_BAND_WITHIN:
		return MMP_COMPARE_SAME;
	case MMP_BAND_UNDECIDED:
		break;
	}
	return MMP_COMPARE_INCONCLUSIVE;
}

/* Each repetition's time over its ceiling's in the same round (the same
 * rep of the same set): the clean ones when MMP_MIN_CLEAN_ROUNDS remain,
 * else all, as usable() does (*used_disturbed: a disturbed one was used). */
static size_t over_ceiling(const struct mmp_cmp_run *r, double *out, int *used_disturbed)
{
	const struct mmp_cmp_run *l = r->ceiling;
	size_t m = 0, clean = 0;
	*used_disturbed = 0;
	for (int pass = 0; pass < 2; pass++) {
		int all = pass == 1 && clean < MMP_MIN_CLEAN_ROUNDS;
		if (pass == 1 && !all)
			break;
		m = 0;
		for (size_t i = 0; i < r->n; i++)
			for (size_t j = 0; j < l->n; j++) {
				if (l->rep[j] != r->rep[i])
					continue;
				int quiet = !r->disturbed[i] && !l->disturbed[j];
				clean += pass == 0 && quiet;
				if (quiet || all)
					out[m++] = r->elapsed[i] / l->elapsed[j];
				*used_disturbed |= all && !quiet;
				break;
			}
	}
	return m;
}

int mmp_compare_pair(struct mmp_cmp_pair *p, const struct mmp_cmp_run *a,
		     const struct mmp_cmp_run *b, double tolerance)
{
	double *x = malloc((a->n + 1) * sizeof(*x)), *y = malloc((b->n + 1) * sizeof(*y));
	if (!x || !y) {
		free(x);
		free(y);
		return -ENOMEM;
	}
	size_t na = usable(a, x, &p->a), nb = usable(b, y, &p->b);
	mmp_interval_welch_ratio(y, nb, x, na, &p->ratio);
	p->outcome = judge(&p->ratio, tolerance);
	p->disturbed = p->a.used_disturbed || p->b.used_disturbed;
	p->ceiling = a->is_ceiling && b->is_ceiling;
	/* The drift between A and B cancels in a ratio to the ceiling that
	 * ran in the same rounds. */
	if (!p->ceiling && a->ceiling && b->ceiling) {
		int da, db;
		na = over_ceiling(a, x, &da);
		nb = over_ceiling(b, y, &db);
		if (na && nb) {
			mmp_interval_welch_ratio(y, nb, x, na, &p->to_ceiling);
			p->on_ceiling = 1;
			p->outcome = judge(&p->to_ceiling, tolerance);
			p->disturbed = da || db;
		}
	}
	/* As mmprof's own answers (answers.h): a disturbed repetition's time
	 * holds what another task or a stop took, which has no bound and is
	 * not the same in A and B, so no gap is too large for it to have made
	 * nor a tie too close for it to have hidden.  A figure that had to use
	 * such repetitions decides nothing: --fail-on-regression must not fail
	 * a commit on a neighbour's load. */
	if (p->disturbed)
		p->outcome = MMP_COMPARE_INCONCLUSIVE;
	/* A result that differs from the reference is not the time of a probe
	 * that read the data: it is no faster or slower than anything, and
	 * must not pass a gate as "faster" (mmprof compare fails it). */
	if (a->wrong || b->wrong)
		p->outcome = MMP_COMPARE_INCONCLUSIVE;
	free(x);
	free(y);
	return 0;
}

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* The ceilings' B / A: how much the machine itself moved. */
static int drift(struct mmp_comparison *c)
{
	double *v = malloc((c->npairs + 1) * sizeof(*v));
	size_t n = 0;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < c->npairs; i++)
		if (c->pair[i].ceiling)
			v[n++] = c->pair[i].ratio.estimate;
		else
			c->non_ceiling += (size_t)c->pair[i].on_ceiling;
	c->nceilings = n;
	if (n) {
		qsort(v, n, sizeof(*v), by_value);
		c->drift = n % 2 ? v[n / 2] : sqrt(v[n / 2 - 1] * v[n / 2]);
		c->drift_min = v[0];
		c->drift_max = v[n - 1];
	}
	free(v);
	return 0;
}

static unsigned differences(const struct mmp_cmp_file *a, const struct mmp_cmp_file *b)
{
	return (strcmp(a->host, b->host) ? MMP_COMPARE_DIFF_HOST : 0) |
	       (strcmp(a->cpu_model, b->cpu_model) ? MMP_COMPARE_DIFF_CPU : 0) |
	       (strcmp(a->mmprof_version, b->mmprof_version) ? MMP_COMPARE_DIFF_VERSION : 0) |
	       (strcmp(a->kernel_release, b->kernel_release) ? MMP_COMPARE_DIFF_KERNEL : 0);
}

int mmp_compare_match(struct mmp_comparison *c, double tolerance, uint32_t vary,
		      struct mmp_error *err)
{
	size_t nb;
	const struct mmp_cmp_run **bs = sorted_runs(&c->b, &nb);
	unsigned char *matched = calloc(c->b.nruns + 1, 1); /* by B's run index */
	int rc = 0;

	c->tolerance = tolerance;
	c->vary = vary;
	c->differs = differences(&c->a, &c->b);
	c->pair = calloc(c->a.nruns + 1, sizeof(*c->pair));
	c->only_a = calloc(c->a.nruns + 1, sizeof(*c->only_a));
	c->only_b = calloc(nb + 1, sizeof(*c->only_b));
	if (!bs || !matched || !c->pair || !c->only_a || !c->only_b) {
		rc = mmp_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < c->a.nruns; i++) {
		const struct mmp_cmp_run *a = &c->a.run[i], *key = a;
		if (a->copy)
			continue;
		const struct mmp_cmp_run **hit = bsearch(&key, bs, nb, sizeof(*bs), by_key);
		if (!hit) {
			c->only_a[c->nonly_a++] = a;
			continue;
		}
		matched[*hit - c->b.run] = 1;
		struct mmp_cmp_pair *p = &c->pair[c->npairs++];
		if (mmp_compare_pair(p, a, *hit, tolerance)) {
			rc = mmp_error_set(err, -ENOMEM, "out of memory");
			goto out;
		}
		if (!p->ceiling) {
			c->count[p->outcome]++;
			c->ndisturbed += (size_t)p->disturbed;
		}
	}
	if (drift(c))
		rc = mmp_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < c->b.nruns; i++) /* in B's order */
		if (!c->b.run[i].copy && !matched[i])
			c->only_b[c->nonly_b++] = &c->b.run[i];
out:
	free(bs);
	free(matched);
	return rc;
}

int mmp_compare_run(struct mmp_comparison *c, const char *a_path, const char *b_path,
		    double tolerance, uint32_t vary, struct mmp_error *err)
{
	memset(c, 0, sizeof(*c));
	int rc = mmp_compare_load(&c->a, a_path, vary, err);
	if (!rc && (rc = mmp_compare_load(&c->b, b_path, vary, err)) == -EPROTO && err) {
		/* A was of this binary's schema, so the two differ: say both. */
		size_t used = strlen(err->msg);
		snprintf(err->msg + used, sizeof(err->msg) - used, " (%s has version %d)", a_path,
			 MMP_CSV_SCHEMA_VERSION);
	}
	if (!rc)
		rc = mmp_compare_match(c, tolerance, vary, err);
	return rc;
}

void mmp_compare_free(struct mmp_comparison *c)
{
	mmp_compare_file_free(&c->a);
	mmp_compare_file_free(&c->b);
	free(c->pair);
	free(c->only_a);
	free(c->only_b);
	memset(c, 0, sizeof(*c));
}
