/* The data files of a plan (see sweep_data.h).
 *
 * A sweep over seeds can name a different data file in every run (up to
 * MMP_CONFIG_MAX_RUNS of them), so distinct files are found by sorting
 * the runs by data file, not by comparing each run with every other.
 */
#include "data/sweep_data.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "mmprof/probe.h"

/* One run's data file: its path and what was asked of it. */
struct use {
	char *path;
	struct mmp_data_spec spec;
	const struct mmp_run *run;
};

static int by_path_then_spec(const void *a, const void *b)
{
	const struct use *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	if (c)
		return c;
	if (x->spec.size != y->spec.size)
		return x->spec.size < y->spec.size ? -1 : 1;
	if (x->spec.fill != y->spec.fill)
		return x->spec.fill < y->spec.fill ? -1 : 1;
	if (x->spec.seed != y->spec.seed)
		return x->spec.seed < y->spec.seed ? -1 : 1;
	/* Plan order last: the first run asking is the one reported. */
	return x->run < y->run ? -1 : x->run > y->run;
}

static void free_uses(struct use *uses, size_t n)
{
	for (size_t i = 0; uses && i < n; i++)
		free(uses[i].path);
	free(uses);
}

/* Every data file a run reads (pingpong and chase read none), sorted so
 * that equal files are neighbours; *n of them. */
static int collect(const struct mmp_sweep *plan, const char *dir, struct use **out, size_t *n)
{
	char path[4096];
	struct use *uses = calloc(plan->nruns ? plan->nruns : 1, sizeof(*uses));
	size_t i = 0;
	if (!uses)
		return -ENOMEM;
	for (size_t r = 0; r < plan->nruns; r++) {
		const struct mmp_run *run = &plan->runs[r];
		if (run->p.probe && !mmp_run_reads_file(&run->p))
			continue;
		uses[i].run = run;
		uses[i].spec = (struct mmp_data_spec){ .file = run->p.file, .size = run->p.size,
						       .fill = run->p.fill, .seed = run->p.seed };
		if (mmp_datafile_path(&uses[i].spec, dir, path, sizeof(path)))
			path[0] = '\0'; /* too long: the check says so */
		uses[i].path = strdup(path);
		if (!uses[i].path) {
			free_uses(uses, i);
			return -ENOMEM;
		}
		i++;
	}
	qsort(uses, i, sizeof(*uses), by_path_then_spec);
	*out = uses;
	*n = i;
	return 0;
}

/* The line that asked for a run's data: its file key, else its size. */
static void diag_at_data(struct mmp_config *cfg, const struct mmp_run *run, const char *msg)
{
	enum mmp_key_id k = run->line[MMP_KEY_FILE] ? MMP_KEY_FILE : MMP_KEY_SIZE;
	if (run->line[k])
		mmp_config_diag(cfg, run->line[k], run->from[k], "%s", msg);
	else
		mmp_config_diag(cfg, run->job->line, run->job->name, "%s", msg);
}

static int same_spec(const struct mmp_data_spec *a, const struct mmp_data_spec *b)
{
	return a->size == b->size && a->fill == b->fill && a->seed == b->seed;
}

/* A problem found, kept until all are found so they can be told in the
 * order of the config rather than of the paths. */
struct finding {
	const struct mmp_run *run;
	char *msg;
};

static int by_run(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	return x->run < y->run ? -1 : x->run > y->run;
}

int mmp_sweep_check_data(struct mmp_config *cfg, const struct mmp_sweep *plan, const char *dir)
{
	struct use *uses;
	struct finding *found;
	size_t nfound = 0;
	char msg[MMP_ERROR_MSG_MAX + 64];
	int rc = 0;
	size_t nuses;

	if (collect(plan, dir, &uses, &nuses))
		return -ENOMEM;
	found = calloc(nuses ? nuses : 1, sizeof(*found));
	if (!found) {
		free_uses(uses, nuses);
		return -ENOMEM;
	}
	/* One group of neighbours per file: one spec, checked once, or two,
	 * which mmp_datafiles_get would refuse half way through the run. */
	for (size_t g = 0, end; g < nuses && !rc; g = end) {
		const struct use *first = &uses[g], *other = NULL;
		for (end = g + 1; end < nuses && strcmp(uses[end].path, uses[g].path) == 0;
		     end++)
			if (uses[end].run < first->run)
				first = &uses[end];
		for (size_t i = g; i < end; i++)
			if (!same_spec(&uses[i].spec, &first->spec) &&
			    (!other || uses[i].run < other->run))
				other = &uses[i];
		struct mmp_error err = { 0 };
		const struct mmp_run *at = NULL;
		if (other) {
			snprintf(msg, sizeof(msg),
				 "%s is asked for with two different sizes, fills or seeds in one "
				 "config",
				 other->path);
			at = other->run;
		} else if (mmp_datafile_check(&first->spec, dir, &err)) {
			snprintf(msg, sizeof(msg), "%s", err.msg);
			at = first->run;
		}
		if (at) {
			found[nfound].run = at;
			found[nfound].msg = strdup(msg);
			rc = found[nfound++].msg ? 0 : -ENOMEM;
		}
	}
	qsort(found, nfound, sizeof(*found), by_run);
	for (size_t i = 0; i < nfound; i++) {
		if (found[i].msg)
			diag_at_data(cfg, found[i].run, found[i].msg);
		free(found[i].msg);
	}
	free(found);
	free_uses(uses, nuses);
	return rc ? rc : nfound ? -EINVAL : 0;
}

static int add_path(char ***paths, size_t *n, const char *a, const char *b)
{
	size_t len = strlen(a) + strlen(b) + 1;
	char *s = malloc(len);
	char **grown = realloc(*paths, (*n + 1) * sizeof(*grown));
	if (!s || !grown) {
		free(s);
		if (grown)
			*paths = grown;
		return -ENOMEM;
	}
	snprintf(s, len, "%s%s", a, b);
	*paths = grown;
	(*paths)[(*n)++] = s;
	return 0;
}

int mmp_sweep_inputs(const struct mmp_config *cfg, const struct mmp_sweep *plan, const char *dir,
		    char ***paths, size_t *n)
{
	struct use *uses;
	size_t nuses;
	*paths = NULL;
	*n = 0;
	if (collect(plan, dir, &uses, &nuses))
		return -ENOMEM;
	int rc = cfg->path ? add_path(paths, n, cfg->path, "") : 0;
	for (size_t i = 0; !rc && i < nuses; i++) {
		if (!uses[i].path[0] || (i > 0 && strcmp(uses[i].path, uses[i - 1].path) == 0))
			continue;
		rc = add_path(paths, n, uses[i].path, "");
		if (!rc)
			rc = add_path(paths, n, uses[i].path, ".mmprof");
	}
	free_uses(uses, nuses);
	if (rc) {
		mmp_sweep_inputs_free(*paths, *n);
		*paths = NULL;
		*n = 0;
	}
	return rc;
}

void mmp_sweep_inputs_free(char **paths, size_t n)
{
	for (size_t i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}
