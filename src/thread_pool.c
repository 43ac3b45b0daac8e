/* The threads of one run (see thread_pool.h). */
#include "mmprof/thread_pool.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/units.h"

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

/* Bind, look where we are, allocate this thread's buffer on its own NUMA
 * node (first touch happens here, on the bound PU), open its counters. */
static void worker_setup(struct mmp_worker *w)
{
	struct mmp_thread_pool *pool = w->pool;
	cpu_set_t set;

	w->setup_rc = mmp_topology_bind_self(pool->topo, w->place.pu_planned, &w->setup_err);
	if (w->setup_rc)
		return;
	w->place.pu_seen = sched_getcpu();
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		cpulist(&set, w->place.allowed, sizeof(w->place.allowed));
	if (pool->buffer_bytes) {
		/* Page-aligned: a copy's speed must not depend on where malloc
		 * happened to put the buffer relative to the source (4K
		 * aliasing). */
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
	struct mmp_worker *w = arg;
	struct mmp_thread_pool *pool = w->pool;

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
		w->rc = pool->probe->run(&w->slice);
		w->t_end = mmp_now_ns();
		if (w->counts) {
			mmp_counters_disable(&w->counters);
			mmp_counters_read(&w->counters, w->counts);
		}
		pthread_barrier_wait(&pool->done);
	}
	return NULL;
}

static void release(struct mmp_thread_pool *pool)
{
	pthread_barrier_destroy(&pool->ready);
	pthread_barrier_destroy(&pool->start);
	pthread_barrier_destroy(&pool->done);
	pthread_mutex_destroy(&pool->gate);
	for (unsigned i = 0; i < pool->n; i++) {
		free(pool->w[i].buffer);
		if (pool->w[i].counts)
			mmp_counters_close(&pool->w[i].counters);
		free(pool->w[i].counts);
	}
	free(pool->w);
}

int mmp_pool_create(struct mmp_thread_pool *pool, const struct mmp_probe *probe,
		    const struct mmp_pin_plan *plan, const struct mmp_topology *topo,
		    const struct mmp_event_set *events, uint64_t buffer_bytes,
		    struct mmp_error *err)
{
	unsigned created = 0;
	int rc = 0;
	sigset_t all, old;

	memset(pool, 0, sizeof(*pool));
	pool->probe = probe;
	pool->topo = topo;
	pool->events = events;
	pool->n = plan->nthreads;
	pool->buffer_bytes = buffer_bytes;
	pool->w = aligned_alloc(MMP_PAD, sizeof(struct mmp_worker) * pool->n);
	if (!pool->w)
		return mmp_error_set(err, -ENOMEM, "out of memory for %u threads", pool->n);
	memset(pool->w, 0, sizeof(struct mmp_worker) * pool->n);
	pthread_mutex_init(&pool->gate, NULL);
	pthread_barrier_init(&pool->ready, NULL, pool->n + 1);
	pthread_barrier_init(&pool->start, NULL, pool->n + 1);
	pthread_barrier_init(&pool->done, NULL, pool->n + 1);

	/* Signals go to the main thread, which decides when to stop. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_mutex_lock(&pool->gate);
	for (; created < pool->n; created++) {
		struct mmp_worker *w = &pool->w[created];
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
		release(pool);
		return rc;
	}
	pthread_barrier_wait(&pool->ready);
	return 0;
}

void mmp_pool_go(struct mmp_thread_pool *pool)
{
	pthread_barrier_wait(&pool->start);
	pthread_barrier_wait(&pool->done);
}

void mmp_pool_destroy(struct mmp_thread_pool *pool)
{
	pool->quit = 1;
	pthread_barrier_wait(&pool->start);
	for (unsigned i = 0; i < pool->n; i++)
		pthread_join(pool->w[i].tid, NULL);
	release(pool);
}
