/* The threads of one run (see thread_pool.h). */
#include "run/thread_pool.h"

#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "util/units.h"

void mmp_cpulist_format(const cpu_set_t *set, char *buf, size_t len)
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
	w->schedstat_fd = mmp_schedstat_open();
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		mmp_cpulist_format(&set, w->place.allowed, sizeof(w->place.allowed));
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

/* CPU time so far from the thread's CPU clock (schedstat's runtime is only
 * brought up to date at a tick or a switch: milliseconds stale), and time
 * spent waiting for a CPU from schedstat's run_delay (counted when a wait
 * ends, so up to date for a running thread); UINT64_MAX: no schedstat. */
static void sample_read(const struct mmp_worker *w, uint64_t *cpu, uint64_t *wait,
			uint64_t *nivcsw)
{
	struct rusage ru;
	struct timespec ts;
	uint64_t stale_cpu;
	if (mmp_schedstat_read(w->schedstat_fd, &stale_cpu, wait))
		*wait = UINT64_MAX;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	*cpu = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	*nivcsw = getrusage(RUSAGE_THREAD, &ru) == 0 ? (uint64_t)ru.ru_nivcsw : 0;
}

/* A data file that shrinks while it is mapped turns the probe's next load
 * past the new end into SIGBUS, which would end the process with nothing
 * said and no results written.  Each worker runs its probe under a jump
 * point; the handler returns there and the repetition reports -EFAULT
 * (the runner then finds out what changed).  A SIGBUS outside a probe is
 * not ours to hide: it is raised again with the default action. */
static _Thread_local sigjmp_buf *bus_jump;

static void on_sigbus(int sig)
{
	if (bus_jump)
		siglongjmp(*bus_jump, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_sigbus(void)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

static void guard_sigbus(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, install_sigbus);
}

/* The probe over this thread's slice; -EFAULT when its mapping shrank. */
static int run_guarded(struct mmp_worker *w)
{
	sigjmp_buf here;
	int rc;
	if (sigsetjmp(here, 1) == 0) {
		bus_jump = &here;
		rc = w->pool->probe->run(&w->slice);
	} else {
		rc = -EFAULT;
	}
	bus_jump = NULL;
	return rc;
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

	/* Created with every signal blocked (they are the main thread's); a
	 * synchronous SIGBUS must reach this thread's handler. */
	sigset_t bus;
	sigemptyset(&bus);
	sigaddset(&bus, SIGBUS);
	pthread_sigmask(SIG_UNBLOCK, &bus, NULL);
	worker_setup(w);
	pthread_barrier_wait(&pool->ready);
	for (;;) {
		pthread_barrier_wait(&pool->start);
		if (pool->quit)
			break;
		if (pool->task) {
			pool->task(w, pool->task_arg);
			pthread_barrier_wait(&pool->done);
			continue;
		}
		/* A barrier wakes its sleepers one by one, and on a virtual
		 * machine an idle vCPU takes a while to come back: threads
		 * released together still started up to a millisecond apart.
		 * They meet once more here, spinning (yielding, for threads that
		 * share a PU), so that they start within microseconds of each
		 * other and really run together. */
		atomic_fetch_add(&pool->arrived, 1);
		while (atomic_load(&pool->arrived) < pool->n)
			sched_yield();
		/* What the kernel says about this thread is read outside the
		 * counted region, so a syscall tracepoint does not see it. */
		uint64_t cpu0, wait0, iv0, cpu1, wait1, iv1;
		sample_read(w, &cpu0, &wait0, &iv0);
		uint64_t wall0 = mmp_now_ns();
		if (w->counts)
			mmp_counters_enable(&w->counters);
		w->t_start = mmp_now_ns();
		w->rc = run_guarded(w);
		w->t_end = mmp_now_ns();
		if (w->counts) {
			mmp_counters_disable(&w->counters);
			mmp_counters_read(&w->counters, w->counts);
		}
		uint64_t wall1 = mmp_now_ns();
		sample_read(w, &cpu1, &wait1, &iv1);
		w->sample = (struct mmp_thread_sample){
			.start = w->t_start,
			.end = w->t_end,
			.wall_ns = wall1 - wall0,
			.cpu_ns = cpu1 - cpu0,
			.wait_ns = wait0 == UINT64_MAX || wait1 == UINT64_MAX ? UINT64_MAX
									     : wait1 - wait0,
			.nivcsw = iv1 - iv0,
		};
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
		if (pool->w[i].schedstat_fd >= 0)
			close(pool->w[i].schedstat_fd);
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
	guard_sigbus();
	pool->probe = probe;
	pool->topo = topo;
	pool->events = events;
	pool->n = plan->nthreads;
	pool->buffer_bytes = buffer_bytes;
	pool->w = aligned_alloc(MMP_PAD, sizeof(struct mmp_worker) * pool->n);
	if (!pool->w)
		return mmp_error_set(err, -ENOMEM, "out of memory for %u threads", pool->n);
	memset(pool->w, 0, sizeof(struct mmp_worker) * pool->n);
	for (unsigned i = 0; i < pool->n; i++)
		pool->w[i].schedstat_fd = -1;
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
	atomic_store(&pool->arrived, 0);
	pthread_barrier_wait(&pool->start);
	pthread_barrier_wait(&pool->done);
}

void mmp_pool_task(struct mmp_thread_pool *pool, void (*fn)(struct mmp_worker *w, void *arg),
		   void *arg)
{
	pool->task = fn;
	pool->task_arg = arg;
	pthread_barrier_wait(&pool->start);
	pthread_barrier_wait(&pool->done);
	pool->task = NULL;
}

void mmp_pool_destroy(struct mmp_thread_pool *pool)
{
	pool->quit = 1;
	pthread_barrier_wait(&pool->start);
	for (unsigned i = 0; i < pool->n; i++)
		pthread_join(pool->w[i].tid, NULL);
	release(pool);
}
