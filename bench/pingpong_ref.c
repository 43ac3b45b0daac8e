/* make bench: a minimal ping-pong, written apart from mmprof, to check
 * mmprof's pingpong probe against (bench/pingpong.sh).
 *
 * Two threads pinned to two PUs hand one counter back and forth: a thread
 * waits until the counter says it is its turn (even values: the first
 * thread, odd: the second), then compare-and-swaps it one up.  Every
 * transfer is a read-for-ownership of the line the other core has just
 * written.  One untimed pass of N transfers warms up, then N more are
 * timed; prints ns per one-way transfer, and the larger of the two
 * threads' shares of the timed pass spent waiting for a CPU (waited_max;
 * -1 when the kernel does not say).  No mmprof header, library or code:
 * only the task is shared.
 *
 * How the waiter polls changes the answer, so it is a choice:
 *   -w spin   back-to-back loads, as c2clat and core-to-core-latency do.
 *             The core fills its pipeline with speculative loads of the
 *             line; when the other core's CAS invalidates it they are
 *             squashed (a memory-ordering machine clear), and the polling
 *             keeps pulling the line away from the core about to write it.
 *   -w pause  a PAUSE between loads (x86; aarch64 YIELD), as spin locks in
 *             kernels and runtimes poll: no squashed loads, fewer requests.
 *
 *   usage: pingpong_ref [-n TRANSFERS] [-w spin|pause] [PU_A PU_B]
 *          (defaults: 200000, spin, PUs 0 and 1)
 *
 * Exit status: 0 measured, 1 the counter did not end where the transfers
 * put it, 2 bad usage, or the threads could not be made, pinned or kept
 * where they were pinned.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The counter alone on 128 bytes: a 64-byte line of its own, and its
 * neighbour too, since the adjacent-line prefetcher fetches lines in
 * 128-byte pairs and would otherwise drag in whatever lies beside it. */
struct line {
	_Alignas(128) _Atomic uint64_t v;
	char pad[128 - sizeof(uint64_t)];
};

#define PASSES 2 /* a warmup, then the timed pass */

struct shared {
	struct line counter;
	struct line arrived; /* threads at the start of a pass */
	uint64_t transfers;  /* per pass, even: each thread takes half */
	int pause;           /* -w pause */
};

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

struct player {
	pthread_t tid;
	struct shared *sh;
	int pu;
	unsigned me;           /* 0 moves the counter from even values, 1 from odd */
	uint64_t start, end;   /* the timed pass, CLOCK_MONOTONIC ns */
	double waited;         /* share of the timed pass spent waiting for a CPU; -1: unknown */
	uint64_t failed_cas;   /* must stay 0: only the turn's owner writes */
	int seen_pu;           /* where the thread found itself at the end */
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Time this thread has spent runnable but waiting for a CPU (schedstat's
 * run_delay, up to date while the thread runs): a pass in which another
 * task took the PU measures the scheduler, not the line.  -1: no
 * schedstat (CONFIG_SCHED_INFO off). */
static int64_t run_delay_ns(void)
{
	unsigned long long on_cpu, delay;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	int ok = f && fscanf(f, "%llu %llu", &on_cpu, &delay) == 2;
	if (f)
		fclose(f);
	return ok ? (int64_t)delay : -1;
}

static void *play(void *arg)
{
	struct player *p = arg;
	struct shared *sh = p->sh;
	const uint64_t half = sh->transfers / 2;

	for (uint64_t pass = 0; pass < PASSES; pass++) {
		/* pthread_create returns before the new thread runs, and an
		 * idle vCPU can take a millisecond to wake: meet spinning, so
		 * the timed pass does not start with one thread still asleep. */
		int64_t d0 = run_delay_ns();
		uint64_t w0 = now_ns();
		atomic_fetch_add(&sh->arrived.v, 1);
		while (atomic_load(&sh->arrived.v) < 2 * (pass + 1))
			;
		uint64_t t0 = now_ns();
		for (uint64_t i = 0; i < half; i++) {
			uint64_t turn = pass * sh->transfers + 2 * i + p->me;
			if (sh->pause)
				while (atomic_load_explicit(&sh->counter.v, memory_order_acquire) != turn)
					relax();
			else
				while (atomic_load_explicit(&sh->counter.v, memory_order_acquire) != turn)
					;
			uint64_t expect = turn;
			if (!atomic_compare_exchange_strong(&sh->counter.v, &expect, turn + 1))
				p->failed_cas++;
		}
		uint64_t t1 = now_ns();
		int64_t d1 = run_delay_ns();
		p->start = t0;
		p->end = t1;
		p->waited = d0 < 0 || d1 < 0 ? -1 : (double)(d1 - d0) / (double)(now_ns() - w0);
	}
	p->seen_pu = sched_getcpu();
	return NULL;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-')
		return -1;
	*out = v;
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: pingpong_ref [-n TRANSFERS] [-w spin|pause] [PU_A PU_B]\n"
			"  TRANSFERS: even, >= 2 (default 200000); waiting: spin (default), or\n"
			"  pause between polls; PUs default to 0 and 1\n");
	return 2;
}

int main(int argc, char **argv)
{
	static struct shared sh; /* static: zeroed, and aligned as struct line asks */
	struct player pl[2];
	uint64_t pus[2] = { 0, 1 };
	int a = 1;

	sh.transfers = 200000;
	for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
		if (strcmp(argv[a], "-n") == 0) {
			if (parse_u64(argv[a + 1], &sh.transfers) || sh.transfers < 2 ||
			    sh.transfers % 2 || sh.transfers > UINT64_MAX / (2 * PASSES))
				return usage();
		} else if (strcmp(argv[a], "-w") == 0 && strcmp(argv[a + 1], "spin") == 0) {
			sh.pause = 0;
		} else if (strcmp(argv[a], "-w") == 0 && strcmp(argv[a + 1], "pause") == 0) {
			sh.pause = 1;
		} else {
			return usage();
		}
	}
	if (argc - a == 2) {
		if (parse_u64(argv[a], &pus[0]) || parse_u64(argv[a + 1], &pus[1]) ||
		    pus[0] >= CPU_SETSIZE || pus[1] >= CPU_SETSIZE || pus[0] == pus[1])
			return usage();
	} else if (argc != a) {
		return usage();
	}

	for (unsigned t = 0; t < 2; t++) {
		pthread_attr_t attr;
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(pus[t], &set);
		pl[t] = (struct player){ .sh = &sh, .pu = (int)pus[t], .me = t };
		/* Pinned before it starts, so no transfer runs elsewhere. */
		int rc = pthread_attr_init(&attr);
		if (!rc)
			rc = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		if (!rc)
			rc = pthread_create(&pl[t].tid, &attr, play, &pl[t]);
		pthread_attr_destroy(&attr);
		if (rc) {
			fprintf(stderr,
				"pingpong_ref: pthread_create pinned to PU %d "
				"(pthread_attr_setaffinity_np, cpuset {%d}): %s\n",
				pl[t].pu, pl[t].pu, strerror(rc));
			return 2; /* and with it a first thread waiting for its partner */
		}
	}
	for (unsigned t = 0; t < 2; t++)
		pthread_join(pl[t].tid, NULL);

	for (unsigned t = 0; t < 2; t++)
		if (pl[t].seen_pu != pl[t].pu) {
			fprintf(stderr, "pingpong_ref: thread %u pinned to PU %d ran on PU %d\n", t,
				pl[t].pu, pl[t].seen_pu);
			return 2;
		}
	uint64_t want = PASSES * sh.transfers, got = atomic_load(&sh.counter.v);
	if (got != want || pl[0].failed_cas || pl[1].failed_cas) {
		fprintf(stderr,
			"pingpong_ref: counter ended at %" PRIu64 ", expected %" PRIu64
			" (%" PRIu64 " failed CAS)\n",
			got, want, pl[0].failed_cas + pl[1].failed_cas);
		return 1;
	}
	uint64_t first = pl[0].start < pl[1].start ? pl[0].start : pl[1].start;
	uint64_t last = pl[0].end > pl[1].end ? pl[0].end : pl[1].end;
	double waited = pl[0].waited < 0 || pl[1].waited < 0 ? -1
			: pl[0].waited > pl[1].waited ? pl[0].waited : pl[1].waited;
	printf("pus=%d,%d wait=%s transfers=%" PRIu64 " elapsed_ns=%" PRIu64
	       " ns_per_transfer=%.3f waited_max=%.4f\n",
	       pl[0].pu, pl[1].pu, sh.pause ? "pause" : "spin", sh.transfers, last - first,
	       (double)(last - first) / (double)sh.transfers, waited);
	return 0;
}
