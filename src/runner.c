/* The runner (see runner.h). */
#include "mmprof/runner.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mmprof/counters.h"
#include "mmprof/probe.h"
#include "mmprof/units.h"

/* 128 bytes, not 64: the L2 adjacent-line prefetcher pulls cache lines in
 * pairs, so two words 64 bytes apart still ping-pong between cores. */
#define MMP_PAD 128
#define PAD_WORDS (MMP_PAD / sizeof(uint64_t))

struct worker {
	_Alignas(MMP_PAD) struct pool *pool;
	unsigned index;
	pthread_t tid;
	struct mmp_slice slice;
	struct mmp_sink sink;
	uint8_t *buffer;
	uint64_t t_start, t_end;
	int rc;
	struct mmp_counters counters;
	struct mmp_count *counts; /* this repetition's, one per event */
	int setup_rc;
	struct mmp_error setup_err;
	struct mmp_thread_place place;
};

struct pool {
	const struct mmp_run *run;
	const struct mmp_runner_opts *opts;
	unsigned n;
	uint64_t access;       /* bytes per call */
	uint64_t buffer_bytes; /* per-thread copy-out or read buffer */
	const struct mmp_event_set *events;
	struct worker *w;
	pthread_mutex_t gate; /* held by main while threads are being created */
	int abort;            /* set under gate: threads leave without work */
	pthread_barrier_t ready, start, done;
	int quit; /* read by workers after the start barrier */
	/* State every thread of the run shares (the view's reference count)
	 * and the tally in memory, each on its own pair of cache lines. */
	_Atomic int64_t *refcount;
	_Atomic uint64_t *tally;
	size_t tally_words;
};

static void cpulist(const cpu_set_t *set, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && used < len; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int last = c;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
			last++;
		if (last > c)
			used += (size_t)snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "",
						 c, last);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
		c = last;
	}
}

/* Bind, look where we are, and allocate this thread's buffer on its own
 * NUMA node (first touch happens here, on the bound PU). */
static void worker_setup(struct worker *w)
{
	struct pool *pool = w->pool;
	cpu_set_t set;

	w->setup_rc = mmp_topology_bind_self(pool->opts->topo, w->place.pu_planned,
					     &w->setup_err);
	if (w->setup_rc)
		return;
	w->place.pu_seen = sched_getcpu();
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		cpulist(&set, w->place.allowed, sizeof(w->place.allowed));
	if (pool->buffer_bytes) {
		w->buffer = aligned_alloc(4096, (pool->buffer_bytes + 4095) / 4096 * 4096);
		if (!w->buffer) {
			w->setup_rc = mmp_error_set(&w->setup_err, -ENOMEM,
						    "thread %u: cannot allocate a %llu-byte buffer",
						    w->index, (unsigned long long)pool->buffer_bytes);
			return;
		}
		memset(w->buffer, 0, pool->buffer_bytes);
	}
	/* Counters are opened by the thread they count, once it sits on its
	 * PU; an event that cannot be opened is a state, not a failure. */
	if (pool->events && pool->events->n) {
		w->counts = calloc(pool->events->n, sizeof(*w->counts));
		if (!w->counts || mmp_counters_open(&w->counters, pool->events)) {
			w->setup_rc = mmp_error_set(&w->setup_err, -ENOMEM,
						    "thread %u: out of memory for counters", w->index);
			return;
		}
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pool *pool = w->pool;

	pthread_mutex_lock(&pool->gate);
	int abort = pool->abort;
	pthread_mutex_unlock(&pool->gate);
	if (abort)
		return NULL;

	worker_setup(w);
	pthread_barrier_wait(&pool->ready);
	for (;;) {
		pthread_barrier_wait(&pool->start);
		if (pool->quit)
			break;
		if (w->counts)
			mmp_counters_enable(&w->counters);
		w->t_start = mmp_now_ns();
		w->rc = pool->run->p.probe->run(&w->slice);
		w->t_end = mmp_now_ns();
		if (w->counts) {
			mmp_counters_disable(&w->counters);
			mmp_counters_read(&w->counters, w->counts);
		}
		pthread_barrier_wait(&pool->done);
	}
	return NULL;
}

/* Where thread t counts: see struct mmp_sink.  atomic: one shared word
 * (or one shared histogram); packed: per-thread words side by side (bin b
 * of all threads adjacent); padded: each thread's counts on lines of its
 * own, 128 bytes from the next thread's. */
static void tally_place(const struct pool *pool, unsigned t, struct mmp_sink *sink)
{
	const int hist = pool->run->p.kernel == MMP_KERNEL_HISTOGRAM;
	const size_t bins = hist ? 256 : 1;

	sink->slot = NULL;
	sink->stride = 1;
	if (!mmp_probe_uses(pool->run->p.probe, MMP_KEY_TALLY))
		return;
	switch (pool->run->p.tally) {
	case MMP_TALLY_LOCAL:
		return;
	case MMP_TALLY_ATOMIC:
		sink->slot = pool->tally;
		return;
	case MMP_TALLY_PACKED:
		sink->slot = pool->tally + t;
		sink->stride = pool->n;
		return;
	case MMP_TALLY_PADDED:
		sink->slot = pool->tally + (size_t)t * (bins + PAD_WORDS);
		return;
	}
}

static uint64_t tally_words(unsigned n)
{
	/* The largest layout: padded histograms. */
	return (uint64_t)n * (256 + PAD_WORDS) + PAD_WORDS;
}

static int pool_create(struct pool *pool, const struct mmp_run *run,
		       const struct mmp_pin_plan *plan, const struct mmp_runner_opts *opts,
		       uint64_t buffer_bytes, struct mmp_error *err)
{
	unsigned created = 0;
	int rc = 0;
	sigset_t all, old;

	memset(pool, 0, sizeof(*pool));
	pool->run = run;
	pool->opts = opts;
	pool->n = plan->nthreads;
	pool->buffer_bytes = buffer_bytes;
	pool->events = opts->events;
	pool->w = aligned_alloc(MMP_PAD, sizeof(struct worker) * pool->n);
	pool->refcount = aligned_alloc(MMP_PAD, MMP_PAD);
	pool->tally_words = tally_words(pool->n);
	pool->tally = aligned_alloc(MMP_PAD, (pool->tally_words * 8 + MMP_PAD - 1) / MMP_PAD *
						     MMP_PAD);
	if (!pool->w || !pool->refcount || !pool->tally) {
		free(pool->w);
		free((void *)pool->refcount);
		free((void *)pool->tally);
		return mmp_error_set(err, -ENOMEM, "out of memory for %u threads", pool->n);
	}
	memset(pool->w, 0, sizeof(struct worker) * pool->n);
	pthread_mutex_init(&pool->gate, NULL);
	pthread_barrier_init(&pool->ready, NULL, pool->n + 1);
	pthread_barrier_init(&pool->start, NULL, pool->n + 1);
	pthread_barrier_init(&pool->done, NULL, pool->n + 1);

	/* Signals go to the main thread, which decides when to stop. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_mutex_lock(&pool->gate);
	for (; created < pool->n; created++) {
		struct worker *w = &pool->w[created];
		w->pool = pool;
		w->index = created;
		w->place.pu_planned = plan->pu[created];
		w->place.pu_seen = -1;
		int e = pthread_create(&w->tid, NULL, worker_main, w);
		if (e) {
			rc = mmp_error_errno(err, -e, "pthread_create (thread %u of %u)",
					     created + 1, pool->n);
			pool->abort = 1;
			break;
		}
	}
	pthread_mutex_unlock(&pool->gate);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		for (unsigned i = 0; i < created; i++)
			pthread_join(pool->w[i].tid, NULL);
		pthread_barrier_destroy(&pool->ready);
		pthread_barrier_destroy(&pool->start);
		pthread_barrier_destroy(&pool->done);
		pthread_mutex_destroy(&pool->gate);
		free(pool->w);
		free((void *)pool->refcount);
		free((void *)pool->tally);
		return rc;
	}
	pthread_barrier_wait(&pool->ready);
	return 0;
}

static void pool_destroy(struct pool *pool)
{
	pool->quit = 1;
	pthread_barrier_wait(&pool->start);
	for (unsigned i = 0; i < pool->n; i++) {
		pthread_join(pool->w[i].tid, NULL);
		free(pool->w[i].buffer);
		if (pool->w[i].counts)
			mmp_counters_close(&pool->w[i].counters);
		free(pool->w[i].counts);
	}
	pthread_barrier_destroy(&pool->ready);
	pthread_barrier_destroy(&pool->start);
	pthread_barrier_destroy(&pool->done);
	pthread_mutex_destroy(&pool->gate);
	free(pool->w);
	free((void *)pool->refcount);
	free((void *)pool->tally);
}

static int map_file(const struct mmp_run *run, const struct mmp_datafile *df,
		    const uint8_t **out, struct mmp_error *err)
{
	static const int advice[] = {
		[MMP_ADVICE_NORMAL] = MADV_NORMAL,	   [MMP_ADVICE_SEQUENTIAL] = MADV_SEQUENTIAL,
		[MMP_ADVICE_RANDOM] = MADV_RANDOM,	   [MMP_ADVICE_WILLNEED] = MADV_WILLNEED,
		[MMP_ADVICE_HUGEPAGE] = MADV_HUGEPAGE,
	};
	int flags = MAP_SHARED | (run->p.prefault ? MAP_POPULATE : 0);
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
	*out = map;
	return 0;
}

/* Sum what the threads counted, locally and in the tally, and compare it
 * with the reference bin for bin. */
static void collect(const struct pool *pool, const struct mmp_datafile *df,
		    struct mmp_rep *rep)
{
	const struct mmp_run *run = pool->run;
	uint64_t bins[256] = { 0 };

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
		rep->result_ok = bins[0] == df->hist[0];
		return;
	}
	rep->result = 0;
	rep->result_ok = 1;
	for (int b = 0; b < 256; b++) {
		rep->result += (uint64_t)b * bins[b];
		rep->result_ok &= bins[b] == df->hist[b];
	}
}

static int one_rep(struct pool *pool, const struct mmp_datafile *df, struct mmp_rep *rep,
		   struct mmp_error *err)
{
	const struct mmp_run *run = pool->run;
	const uint8_t *map = NULL;
	int rc;

	if (run->p.probe->needs & MMP_NEEDS_MAP) {
		rc = map_file(run, df, &map, err);
		if (rc)
			return rc;
	}
	atomic_store(pool->refcount, 0);
	for (size_t i = 0; i < pool->tally_words; i++)
		atomic_store(&pool->tally[i], 0);

	uint64_t chunk = df->size / pool->n;
	for (unsigned t = 0; t < pool->n; t++) {
		struct worker *w = &pool->w[t];
		memset(&w->sink, 0, sizeof(w->sink));
		tally_place(pool, t, &w->sink);
		w->slice = (struct mmp_slice){
			.map = map,
			.fd = df->fd,
			.file_size = df->size,
			.begin = chunk * t,
			.end = t + 1 == pool->n ? df->size : chunk * (t + 1),
			.path = df->path,
			.access = pool->access,
			.buffer_size = run->p.buffer,
			.kernel = run->p.kernel,
			.refcount = run->p.refcount,
			.view = { .base = map, .capacity = df->size, .open = 1, .readable = 1,
				  .state = pool->refcount },
			.buffer = w->buffer,
			.sink = &w->sink,
		};
		w->rc = 0;
	}

	pthread_barrier_wait(&pool->start);
	pthread_barrier_wait(&pool->done);

	uint64_t first = UINT64_MAX, last = 0;
	rep->thread_min_ns = UINT64_MAX;
	rep->thread_max_ns = 0;
	rep->probe_rc = 0;
	for (unsigned t = 0; t < pool->n; t++) {
		const struct worker *w = &pool->w[t];
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
	rep->bytes = df->size;
	/* Counts: per thread as read, and summed over threads. */
	size_t nev = pool->events ? pool->events->n : 0;
	for (size_t i = 0; i < nev; i++)
		for (unsigned t = 0; t < pool->n; t++) {
			rep->thread_counts[t * nev + i] = pool->w[t].counts[i];
			mmp_count_add(&rep->counts[i], &pool->w[t].counts[i], t == 0);
		}
	collect(pool, df, rep);
	/* Every reference taken was given back, or the model is broken. */
	if (atomic_load(pool->refcount) != 0 && !rep->probe_rc)
		rep->probe_rc = -EPROTO;
	if (map)
		munmap((void *)map, df->size);
	return 0;
}

int mmp_runner_run(const struct mmp_run *run, const struct mmp_datafile *data,
		   const struct mmp_pin_plan *plan, const struct mmp_runner_opts *opts,
		   struct mmp_error *err)
{
	struct pool pool;
	struct mmp_rep rep;
	uint64_t access = mmp_probe_access(run->p.probe, run->p.access);
	int rc;

	if (data->size < plan->nthreads)
		return mmp_error_set(err, -EINVAL, "%s has %llu bytes, fewer than %u threads",
				     data->path, (unsigned long long)data->size, plan->nthreads);
	memset(&rep, 0, sizeof(rep));
	rep.thread_ns = calloc(plan->nthreads, sizeof(uint64_t));
	struct mmp_thread_place *places = calloc(plan->nthreads, sizeof(*places));
	int *open_error = NULL;
	if (!rep.thread_ns || !places) {
		rc = mmp_error_set(err, -ENOMEM, "out of memory");
		goto out_free;
	}
	size_t nev = opts->events ? opts->events->n : 0;
	rep.counts = calloc(nev ? nev : 1, sizeof(*rep.counts));
	rep.thread_counts = calloc(nev ? nev * plan->nthreads : 1, sizeof(*rep.thread_counts));
	open_error = calloc(nev ? nev : 1, sizeof(int));
	if (!rep.counts || !rep.thread_counts || !open_error) {
		rc = mmp_error_set(err, -ENOMEM, "out of memory");
		goto out_free;
	}
	rc = pool_create(&pool, run, plan, opts, mmp_probe_buffer_bytes(run->p.probe, &run->p),
			 err);
	if (rc)
		goto out_free;
	pool.access = access;
	for (unsigned t = 0; t < pool.n; t++) {
		if (pool.w[t].setup_rc && !rc) {
			rc = pool.w[t].setup_rc;
			*err = pool.w[t].setup_err;
		}
		places[t] = pool.w[t].place;
		for (size_t i = 0; !pool.w[t].setup_rc && i < nev; i++)
			if (!open_error[i])
				open_error[i] = pool.w[t].counters.error[i];
	}
	if (rc)
		goto out_pool;

	struct mmp_run_info info = {
		.run = run, .data = data, .plan = plan, .places = places, .access = access,
		.events = opts->events, .open_error = open_error,
	};
	unsigned total = run->p.warmup + run->p.repeat;
	for (unsigned i = 0; i < total; i++) {
		if (opts->stop && *opts->stop) {
			rc = -EINTR;
			break;
		}
		rep.warmup = i < run->p.warmup;
		rep.index = rep.warmup ? i : i - run->p.warmup;
		rc = one_rep(&pool, data, &rep, err);
		if (rc)
			break;
		if (opts->on_rep) {
			rc = opts->on_rep(&info, &rep, opts->arg);
			if (rc)
				break;
		}
	}
out_pool:
	pool_destroy(&pool);
out_free:
	free(rep.thread_ns);
	free(rep.counts);
	free(rep.thread_counts);
	free(open_error);
	free(places);
	return rc;
}
