/* The threads engine (engine.h): a probe's loop on a pool of pinned
 * threads of mmprof's, each over its slice of the data, released through
 * a barrier and timed from the first thread's start to the last one's end. */
#include "run/engine.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "platform/firsttouch.h"
#include "platform/hypervisor.h"
#include "mmprof/probe.h"
#include "run/runmem.h"

#define PAD_WORDS (MMP_PAD / sizeof(uint64_t))

/* One run of a set, with everything its repetitions reuse. */
struct threads_run {
	const struct mmp_runner_item *item;
	struct mmp_thread_pool pool;
	int pool_ok;
	uint64_t access;
	uint64_t end; /* bytes [0, end) */
	const uint64_t *reference;
	void *priv; /* the probe's own state (its setup hook) */
	struct mmp_runmem mem; /* where shared state, buffers and the data copy live */
	int mem_ok;
	struct mmp_census_record census; /* where they were found (first repetition) */
	/* The tally in memory, on lines of its own. */
	_Atomic uint64_t *tally;
	size_t tally_words;
	int pressure_fd; /* /proc/pressure/cpu, -1 without PSI */
	struct mmp_thread_sample *samples;
	struct mmp_thread_place *places; /* the runner's (engine.h) */
};

/* Where thread t counts: see struct mmp_sink.  atomic: one shared word
 * (or one shared histogram); packed and plain: per-thread words side by
 * side (bin b of all threads adjacent); padded and plain-padded: each
 * thread's counts on lines of its own, 128 bytes from the next thread's.
 * plain ones are written with a load and a store, the others atomically. */
static void tally_place(const struct threads_run *st, unsigned t, struct mmp_sink *sink)
{
	const struct mmp_run *run = st->item->run;
	const size_t bins = run->p.kernel == MMP_KERNEL_HISTOGRAM ? 256 : 1;

	sink->slot = NULL;
	sink->stride = 1;
	sink->plain = run->p.tally == MMP_TALLY_PLAIN || run->p.tally == MMP_TALLY_PLAIN_PADDED;
	if (!mmp_probe_uses(run->p.probe, MMP_KEY_TALLY))
		return;
	switch (run->p.tally) {
	case MMP_TALLY_LOCAL:
		return;
	case MMP_TALLY_ATOMIC:
		sink->slot = st->tally;
		return;
	case MMP_TALLY_PACKED:
	case MMP_TALLY_PLAIN:
		sink->slot = st->tally + t;
		sink->stride = st->pool.n;
		return;
	case MMP_TALLY_PADDED:
	case MMP_TALLY_PLAIN_PADDED:
		sink->slot = st->tally + (size_t)t * (bins + PAD_WORDS);
		return;
	}
}

/* A thread that is not where it was planned measures another machine: a
 * described topology's PU numbers, or a binding the kernel did not honour. */
static int check_places(const struct threads_run *st, struct mmp_error *err)
{
	for (unsigned t = 0; t < st->pool.n; t++) {
		const struct mmp_thread_place *pl = &st->places[t];
		if (pl->pu_seen != pl->pu_planned)
			return mmp_error_set(err, -EXDEV,
					     "thread %u was planned on PU %d but runs on PU %d "
					     "(allowed: %s): the binding did not hold",
					     t, pl->pu_planned, pl->pu_seen, pl->allowed);
	}
	return 0;
}

/* The probe's shared state, where the run binds shared state. */
static void *shared_alloc(void *ctx, size_t len)
{
	struct threads_run *st = ctx;
	struct mmp_error err = { 0 };
	return mmp_runmem_alloc(&st->mem, len, &err);
}

struct fill_job {
	struct threads_run *st;
	_Atomic int rc;
};

/* Each thread copies its own slice: first touch places it on its node. */
static void fill_slice(struct mmp_worker *w, void *arg)
{
	struct fill_job *job = arg;
	struct threads_run *st = job->st;
	uint64_t begin, end;
	mmp_slice_bounds(st->end, st->pool.n, w->index, &begin, &end);
	int rc = mmp_runmem_fill(&st->mem, st->item->data->fd, begin, end);
	if (rc)
		atomic_store(&job->rc, rc);
}

/* MMP_NEEDS_WORK: each thread writes its own slice of the run's memory. */
static void prepare_slice(struct mmp_worker *w, void *arg)
{
	struct fill_job *job = arg;
	struct threads_run *st = job->st;
	struct mmp_slice s = { .work = st->mem.data, .params = &st->item->run->p,
			       .thread = w->index, .nthreads = st->pool.n, .priv = st->priv };
	mmp_slice_bounds(st->end, st->pool.n, w->index, &s.begin, &s.end);
	int rc = st->item->run->p.probe->prepare(&s);
	if (rc)
		atomic_store(&job->rc, rc);
}

/* The run's memory (a copy of its data, or chase's own), allocated as
 * membind says and written by its threads, each its own slice (fill_slice
 * or prepare_slice): first touch places each slice on its thread's node.
 * Returns 0, or the first thread's negative errno (the caller says what
 * failed). */
static int thread_filled_memory(struct threads_run *st, void (*fill)(struct mmp_worker *, void *),
				struct mmp_error *err)
{
	struct fill_job job = { .st = st };
	int rc = mmp_runmem_data(&st->mem, st->end, err);
	if (rc)
		return rc;
	mmp_pool_task(&st->pool, fill, &job);
	return atomic_load(&job.rc);
}

static int prepare_work(struct threads_run *st, struct mmp_error *err)
{
	int rc = thread_filled_memory(st, prepare_slice, err);
	if (rc && !err->code)
		return mmp_error_errno(err, rc, "%s: preparing %llu bytes of memory",
				       st->item->run->p.probe->name,
				       (unsigned long long)st->end);
	return rc;
}

/* data = anon: the bytes the run reads, copied once into memory bound as
 * membind says. */
static int copy_data(struct threads_run *st, struct mmp_error *err)
{
	int rc = thread_filled_memory(st, fill_slice, err);
	if (rc && !err->code)
		return mmp_error_errno(err, rc, "copying %s into anonymous memory",
				       st->item->data->path);
	return rc;
}

static int map_file(const struct mmp_run *run, const struct mmp_datafile *df,
		    const uint8_t **out, struct mmp_error *err)
{
	static const int advice[] = {
		[MMP_ADVICE_NORMAL] = MADV_NORMAL,	   [MMP_ADVICE_SEQUENTIAL] = MADV_SEQUENTIAL,
		[MMP_ADVICE_RANDOM] = MADV_RANDOM,	   [MMP_ADVICE_WILLNEED] = MADV_WILLNEED,
		[MMP_ADVICE_HUGEPAGE] = MADV_HUGEPAGE,
	};
	/* touch maps the pages in first: what it leaves to the loop is
	 * neither a fault nor a first touch. */
	int flags = MAP_SHARED | (run->p.prefault || run->p.touch ? MAP_POPULATE : 0);
	void *map = mmap(NULL, df->size, PROT_READ, flags, df->fd, 0);

	if (map == MAP_FAILED)
		return mmp_error_errno(err, -errno, "mmap %s (%llu bytes)", df->path,
				       (unsigned long long)df->size);
	if (run->p.advice != MMP_ADVICE_NORMAL &&
	    madvise(map, df->size, advice[run->p.advice])) {
		int rc = mmp_error_errno(err, -errno, "madvise(%s) on %s",
					 mmp_advice_names[run->p.advice], df->path);
		munmap(map, df->size);
		return rc;
	}
	/* A load from every page, outside the timed region: the first touch
	 * a hypervisor charges below the kernel (firsttouch.h) is paid here,
	 * in every repetition's fresh mapping, not in the loop. */
	if (run->p.touch)
		mmp_touch_pages(map, df->size);
	*out = map;
	return 0;
}

/* Sum what the threads counted, locally and in the tally, and compare it
 * with the reference bin for bin. */
static void collect(const struct threads_run *st, struct mmp_rep *rep)
{
	const struct mmp_run *run = st->item->run;
	const struct mmp_thread_pool *pool = &st->pool;
	uint64_t bins[256] = { 0 };

	if (run->p.probe->expected) {
		/* An operation-counting probe: its threads' parts add up to
		 * what a right repetition gives. */
		rep->result = 0;
		for (unsigned t = 0; t < pool->n; t++)
			rep->result += pool->w[t].sink.zeros;
		rep->result_ok = rep->result == run->p.probe->expected(&run->p, pool->n);
		return;
	}
	for (unsigned t = 0; t < pool->n; t++) {
		const struct mmp_sink *s = &pool->w[t].sink;
		bins[0] += s->zeros;
		for (int b = 0; b < 256; b++)
			bins[b] += s->hist[b];
	}
	if (mmp_probe_uses(run->p.probe, MMP_KEY_TALLY) && run->p.tally != MMP_TALLY_LOCAL) {
		const size_t nbins = run->p.kernel == MMP_KERNEL_HISTOGRAM ? 256 : 1;
		/* atomic: every thread's slot is the one shared tally. */
		unsigned owners = run->p.tally == MMP_TALLY_ATOMIC ? 1 : pool->n;
		for (unsigned t = 0; t < owners; t++) {
			const struct mmp_sink *s = &pool->w[t].sink;
			for (size_t b = 0; b < nbins; b++)
				bins[b] += atomic_load(&s->slot[b * s->stride]);
		}
	}
	if (run->p.kernel == MMP_KERNEL_ZEROS) {
		rep->result = bins[0];
		rep->result_ok = bins[0] == st->reference[0];
		return;
	}
	rep->result = 0;
	rep->result_ok = 1;
	for (int b = 0; b < 256; b++) {
		rep->result += (uint64_t)b * bins[b];
		rep->result_ok &= bins[b] == st->reference[b];
	}
}

static void times_and_counts(struct threads_run *st, struct mmp_rep *rep)
{
	const struct mmp_thread_pool *pool = &st->pool;
	const size_t nev = st->item->events ? st->item->events->n : 0;
	uint64_t first = UINT64_MAX, last = 0;

	rep->thread_min_ns = UINT64_MAX;
	rep->thread_max_ns = 0;
	rep->probe_rc = 0;
	for (unsigned t = 0; t < pool->n; t++) {
		const struct mmp_worker *w = &pool->w[t];
		uint64_t own = w->t_end - w->t_start;
		first = w->t_start < first ? w->t_start : first;
		last = w->t_end > last ? w->t_end : last;
		rep->thread_ns[t] = own;
		rep->thread_min_ns = own < rep->thread_min_ns ? own : rep->thread_min_ns;
		rep->thread_max_ns = own > rep->thread_max_ns ? own : rep->thread_max_ns;
		if (w->rc && !rep->probe_rc)
			rep->probe_rc = w->rc;
	}
	rep->elapsed_ns = last - first;
	rep->bytes = st->end;
	rep->ops = st->item->run->p.probe->ops ? st->item->run->p.probe->ops(&st->item->run->p) : 0;
	/* Counts: per thread as read, and summed over threads. */
	for (size_t i = 0; i < nev; i++)
		for (unsigned t = 0; t < pool->n; t++) {
			rep->thread_counts[t * nev + i] = pool->w[t].counts[i];
			mmp_count_add(&rep->counts[i], &pool->w[t].counts[i], t == 0);
		}
}

/* Whether thread t's PU is planned for another thread of the run too
 * (oversubscribed, or a placement naming a PU twice). */
static int shares_pu(const struct mmp_pin_plan *plan, unsigned t)
{
	for (unsigned u = 0; u < plan->nthreads; u++)
		if (u != t && plan->pu[u] == plan->pu[t])
			return 1;
	return 0;
}

static void threads_close(void *state)
{
	struct threads_run *st = state;
	if (!st)
		return;
	if (st->pool_ok)
		mmp_pool_destroy(&st->pool);
	if (st->priv && st->item->run->p.probe->teardown)
		st->item->run->p.probe->teardown(st->priv);
	if (st->mem_ok)
		mmp_runmem_release(&st->mem); /* the tally, the probe's state, the copy */
	mmp_census_record_free(&st->census);
	free(st->samples);
	if (st->pressure_fd >= 0)
		close(st->pressure_fd);
	free(st);
}

/* The bytes the run reads, and its memory, bound as membind says: the
 * tally's lines first. */
static int bounds_and_memory(struct threads_run *st, const struct mmp_topology *topo,
			     struct mmp_error *err)
{
	const struct mmp_runner_item *item = st->item;
	const struct mmp_run *run = item->run;
	const unsigned n = item->plan->nthreads;
	int rc;

	st->access = mmp_params_access(&run->p);
	if (!item->data) {
		/* No file: the run's own memory (chase), or none (pingpong). */
		st->end = !(run->p.probe->needs & MMP_NEEDS_WORK) ? 0
			  : item->end                              ? item->end
								   : run->p.size;
	} else {
		st->end = item->end ? item->end : item->data->size;
		st->reference = item->reference ? item->reference : item->data->hist;
	}
	if (item->data && (st->end > item->data->size || st->end < n))
		return mmp_error_set(err, -EINVAL,
				     "%s: %llu bytes to read, %u threads: each needs at least one",
				     item->data->path, (unsigned long long)st->end, n);
	rc = mmp_runmem_init(&st->mem, topo, &run->p, item->plan, err);
	if (rc)
		return rc;
	st->mem_ok = 1;
	/* The largest layout is padded histograms. */
	st->tally_words = (size_t)n * (256 + PAD_WORDS) + PAD_WORDS;
	st->tally = mmp_runmem_alloc(&st->mem, st->tally_words * 8, err);
	if (!st->tally)
		return err->code;
	st->samples = calloc(n, sizeof(*st->samples));
	if (!st->samples)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

/* The probe's own state, then its threads, each one's buffer where the
 * run binds memory, and the data copied (data = anon) or the run's own
 * memory prepared by them. */
static int probe_and_pool(struct threads_run *st, const struct mmp_topology *topo,
			  struct mmp_error *err)
{
	const struct mmp_runner_item *item = st->item;
	const struct mmp_run *run = item->run;
	const unsigned n = item->plan->nthreads;
	int rc;

	if (run->p.probe->setup) {
		struct mmp_probe_env env = { .params = &run->p, .nthreads = n,
					     .alloc = shared_alloc, .alloc_ctx = st };
		rc = run->p.probe->setup(&env, &st->priv);
		if (rc)
			return err->code ? err->code
					 : mmp_error_errno(err, rc, "%s: setting up the probe's state",
							   run->p.probe->name);
	}
	rc = mmp_pool_create(&st->pool, run->p.probe, item->plan, topo, item->events,
			     mmp_probe_buffer_bytes(run->p.probe, &run->p), err);
	if (rc)
		return rc;
	st->pool_ok = 1;
	for (unsigned t = 0; t < n && !rc; t++)
		if (st->pool.w[t].buffer)
			rc = mmp_runmem_place_buffer(&st->mem, st->pool.w[t].buffer,
						     st->pool.buffer_bytes, err);
	if (!rc && run->p.data == MMP_DATA_ANON && (run->p.probe->needs & MMP_NEEDS_MAP))
		rc = copy_data(st, err);
	if (!rc && (run->p.probe->needs & MMP_NEEDS_WORK))
		rc = prepare_work(st, err);
	return rc;
}

/* What each thread's own setup found: its error, where it runs, the
 * counters it could not open. */
static int workers_setup(struct threads_run *st, struct mmp_engine_setup *setup,
			 struct mmp_error *err)
{
	const unsigned n = st->item->plan->nthreads;
	const size_t nev = st->item->events ? st->item->events->n : 0;

	for (unsigned t = 0; t < n; t++) {
		const struct mmp_worker *w = &st->pool.w[t];
		if (w->setup_rc) {
			*err = w->setup_err;
			return w->setup_rc;
		}
		setup->places[t] = w->place;
		if (w->counters.split > setup->groups_split)
			setup->groups_split = w->counters.split;
		for (size_t i = 0; i < nev; i++)
			if (!setup->open_error[i])
				setup->open_error[i] = w->counters.error[i];
	}
	for (size_t i = 0; i < nev; i++)
		if (setup->open_error[i] == EMFILE || setup->open_error[i] == ENFILE)
			return mmp_error_errno(err, -setup->open_error[i],
					       "opening the counters of %u thread(s) (%zu events "
					       "each): raise the open-file limit (ulimit -n) or count "
					       "fewer events",
					       n, nev);
	return check_places(st, err);
}

static int threads_open(void **state, struct mmp_engine_setup *setup, struct mmp_error *err)
{
	struct threads_run *st = calloc(1, sizeof(*st));
	int rc;

	*state = NULL;
	if (!st)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	st->item = setup->item;
	st->places = setup->places;
	st->pressure_fd = -1;
	rc = bounds_and_memory(st, setup->topo, err);
	if (!rc)
		rc = probe_and_pool(st, setup->topo, err);
	if (!rc)
		rc = workers_setup(st, setup, err);
	if (rc) {
		threads_close(st);
		return rc;
	}
	st->pressure_fd = mmp_pressure_open();
	*state = st;
	return 0;
}

/* Each thread's slice of this repetition over map, its sink emptied. */
static void arm_slices(struct threads_run *st, const uint8_t *map)
{
	const struct mmp_run *run = st->item->run;
	const struct mmp_datafile *df = st->item->data;
	struct mmp_thread_pool *pool = &st->pool;

	for (unsigned t = 0; t < pool->n; t++) {
		struct mmp_worker *w = &pool->w[t];
		memset(&w->sink, 0, sizeof(w->sink));
		tally_place(st, t, &w->sink);
		w->slice = (struct mmp_slice){
			.map = map,
			.work = run->p.probe->needs & MMP_NEEDS_WORK ? st->mem.data : NULL,
			.fd = df ? df->fd : -1,
			.path = df ? df->path : NULL,
			.file_size = df ? df->size : 0,
			.access = st->access,
			.buffer_size = run->p.buffer,
			.advice = run->p.advice,
			.kernel = run->p.kernel,
			.params = &run->p,
			.thread = t,
			.nthreads = pool->n,
			.shares_pu = shares_pu(st->item->plan, t),
			.priv = st->priv,
			.buffer = w->buffer,
			.sink = &w->sink,
		};
		mmp_slice_bounds(st->end, pool->n, t, &w->slice.begin, &w->slice.end);
		w->rc = 0;
	}
}

/* The threads released together, then what they did: times, counts, the
 * result checked, and whether anything was in their way. */
static void go_and_judge(struct threads_run *st, struct mmp_rep *rep)
{
	const struct mmp_run *run = st->item->run;
	const struct mmp_pin_plan *pins = st->item->plan;
	struct mmp_thread_pool *pool = &st->pool;

	int64_t psi0 = mmp_pressure_read(st->pressure_fd);
	unsigned stops = mmp_disturbance_stops();
	int64_t steal0 = mmp_steal_ns(pins->pu, pins->nthreads);
	mmp_pool_go(pool);
	int64_t steal1 = mmp_steal_ns(pins->pu, pins->nthreads);
	int64_t psi1 = mmp_pressure_read(st->pressure_fd);

	times_and_counts(st, rep);
	collect(st, rep);
	if (st->priv && run->p.probe->check && !rep->probe_rc)
		rep->probe_rc = run->p.probe->check(st->priv);
	for (unsigned t = 0; t < pool->n; t++)
		st->samples[t] = pool->w[t].sample;
	double pressure = psi0 >= 0 && psi1 >= psi0 && rep->elapsed_ns
				  ? (double)(psi1 - psi0) * 1000 / (double)rep->elapsed_ns
				  : -1;
	mmp_disturbance_judge(st->samples, pool->n, pins->npus, pins->oversubscribed,
			      run->p.cache != MMP_CACHE_WARM, pressure, &rep->dist);
	mmp_disturbance_check_stops(stops, &rep->dist);
	mmp_disturbance_check_steal(steal0, steal1, rep->elapsed_ns, pins->npus, &rep->dist);
}

static int threads_rep(void *state, struct mmp_rep *rep, struct mmp_error *err)
{
	struct threads_run *st = state;
	const struct mmp_run *run = st->item->run;
	const struct mmp_probe *probe = run->p.probe;
	const struct mmp_datafile *df = st->item->data;
	const uint8_t *map = NULL;
	int rc = 0;

	/* The copy of the data (data = anon) or the run's own memory. */
	const int anon = st->mem.data != NULL;
	if (anon)
		map = st->mem.data; /* the copy, in place for every repetition */
	else if (probe->needs & MMP_NEEDS_MAP) {
		rc = map_file(run, df, &map, err);
		if (rc)
			return rc;
	}
	if (st->priv && probe->reset)
		probe->reset(st->priv);
	for (size_t i = 0; i < st->tally_words; i++)
		atomic_store(&st->tally[i], 0);
	arm_slices(st, map);
	go_and_judge(st, rep);
	/* Where the pages are, once every page has been touched: after the
	 * first repetition (outside the timed region). */
	if (!st->census.done)
		rc = mmp_runmem_census(&st->mem, map, map ? st->end : 0, st->tally, &st->census,
				       err);
	if (!rc)
		rep->census = &st->census;
	if (map && !anon)
		munmap((void *)map, df->size);
	return rc;
}

const struct mmp_engine mmp_threads_engine = {
	.name = "threads",
	.open = threads_open,
	.rep = threads_rep,
	.close = threads_close,
};
