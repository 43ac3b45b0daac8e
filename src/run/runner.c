/* The runner (see runner.h): what every kind of run needs, around the
 * engine of its kind (engine.h). */
#include "run/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/engine.h"

/* One run of a set: its engine and what the runner keeps for it. */
struct item_state {
	const struct mmp_runner_item *item;
	const struct mmp_engine *engine;
	void *state; /* the engine's */
	struct mmp_rep rep;
	struct mmp_thread_place *places;
	int *open_error;
	struct mmp_run_info info;
};

static void item_free(struct item_state *st)
{
	if (st->state)
		st->engine->close(st->state);
	free(st->rep.thread_ns);
	free(st->rep.counts);
	free(st->rep.thread_counts);
	free(st->places);
	free(st->open_error);
}

static int item_init(struct item_state *st, const struct mmp_runner_item *item,
		     size_t index, const struct mmp_topology *topo, struct mmp_error *err)
{
	const unsigned n = item->plan->nthreads;
	const size_t nev = item->events ? item->events->n : 0;

	memset(st, 0, sizeof(*st));
	st->item = item;
	st->engine = mmp_engine_of(mmp_run_kind(item->run));
	st->rep.thread_ns = calloc(n, sizeof(uint64_t));
	st->rep.counts = calloc(nev ? nev : 1, sizeof(struct mmp_count));
	st->rep.thread_counts = calloc(nev ? nev * n : 1, sizeof(struct mmp_count));
	st->places = calloc(n, sizeof(*st->places));
	st->open_error = calloc(nev ? nev : 1, sizeof(int));
	if (!st->rep.thread_ns || !st->rep.counts || !st->rep.thread_counts || !st->places ||
	    !st->open_error)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	struct mmp_engine_setup setup = { .item = item, .topo = topo, .places = st->places,
					  .open_error = st->open_error };
	int rc = st->engine->open(&st->state, &setup, err);
	if (rc)
		return rc;
	st->info = (struct mmp_run_info){
		.item = index,
		.run = item->run,
		.data = item->data,
		.plan = item->plan,
		.places = st->places,
		.access = mmp_params_access(&item->run->p),
		.events = item->events,
		.open_error = st->open_error,
		.groups_split = setup.groups_split,
	};
	return 0;
}

/* cache = drop: the file's pages out of the page cache before the
 * repetition, so its reads (or faults) go to the disk.  Dirty pages cannot
 * be dropped: write them back first. */
static int drop_cache(const struct mmp_run *run, const struct mmp_datafile *df,
		      struct mmp_error *err)
{
	if (run->p.cache == MMP_CACHE_WARM || !df)
		return 0;
	if (fdatasync(df->fd) && errno != EINVAL)
		return mmp_error_errno(err, -errno, "fdatasync %s", df->path);
	int rc = posix_fadvise(df->fd, 0, 0, POSIX_FADV_DONTNEED);
	if (rc)
		return mmp_error_errno(err, -rc, "posix_fadvise(DONTNEED) on %s", df->path);
	if (run->p.cache == MMP_CACHE_DROPALL) {
		FILE *f = fopen("/proc/sys/vm/drop_caches", "w");
		if (!f || fputs("1\n", f) == EOF || fclose(f) == EOF) {
			rc = -errno;
			return mmp_error_errno(err, rc ? rc : -EACCES,
					       "cache = drop-all: /proc/sys/vm/drop_caches "
					       "(needs root)");
		}
	}
	return 0;
}

static int one_rep(struct item_state *st, struct mmp_error *err)
{
	const struct mmp_datafile *df = st->item->data;
	/* Results measured on other bytes than the reference's are not
	 * results: a file changed (or shrank) since it was opened ends here. */
	int rc = df ? mmp_datafile_recheck(df, err) : 0;

	if (!rc)
		rc = drop_cache(st->item->run, df, err);
	if (!rc)
		rc = st->engine->rep(st->state, &st->rep, err);
	/* A load past a shrunk mapping (-EFAULT from a thread), or a program
	 * that read a file changing under it: say what changed. */
	if (!rc && df)
		rc = mmp_datafile_recheck(df, err);
	return rc;
}

struct mmp_runner {
	struct item_state *items;
	size_t n;
};

int mmp_runner_open(struct mmp_runner **out, const struct mmp_runner_item *items, size_t n,
		    const struct mmp_topology *topo, struct mmp_error *err)
{
	struct mmp_runner *r = calloc(1, sizeof(*r));
	if (!r || !(r->items = calloc(n ? n : 1, sizeof(*r->items)))) {
		free(r);
		return mmp_error_set(err, -ENOMEM, "out of memory");
	}
	for (; r->n < n; r->n++) {
		int rc = item_init(&r->items[r->n], &items[r->n], r->n, topo, err);
		if (rc) {
			r->n++; /* free what it got */
			mmp_runner_close(r);
			return rc;
		}
	}
	*out = r;
	return 0;
}

void mmp_runner_survey(struct mmp_runner *r, size_t k, int on)
{
	r->items[k].rep.survey = on;
}

int mmp_runner_rep(struct mmp_runner *r, size_t k, struct mmp_rep **rep,
		   const struct mmp_run_info **info, struct mmp_error *err)
{
	int rc = one_rep(&r->items[k], err);
	*rep = &r->items[k].rep;
	*info = &r->items[k].info;
	return rc;
}

void mmp_runner_close(struct mmp_runner *r)
{
	if (!r)
		return;
	for (size_t k = 0; k < r->n; k++)
		item_free(&r->items[k]);
	free(r->items);
	free(r);
}
