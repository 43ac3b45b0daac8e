/* pingpong: what one cache line costs to move from one core to another.
 *
 * Two threads hand a line back and forth `ops` times; the time of a
 * repetition over its transfers is the one-way latency (core-to-core
 * latency, c2clat).  With placement = pairs the plan sweeps PU pairs and
 * the report fills a PU x PU matrix.
 *
 *   transfer = cas    one line holds a counter; a thread waits until the
 *                     counter says it is its turn, then compare-and-swaps it
 *                     one up.  Every transfer is a read-for-ownership of the
 *                     line the other core just wrote.
 *   transfer = store  two lines, one written by each thread; a thread stores
 *                     its next value and waits to read the other's.  A line
 *                     moves (read, then invalidated) per transfer, with no
 *                     atomic read-modify-write.
 *
 * The lines live where the run binds shared state (membind); they are 128
 * bytes apart and aligned, so the adjacent-line prefetcher does not pair
 * them.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "cpu.h"
#include "sink.h"

#define LINE 128
#define WORDS_PER_LINE (LINE / sizeof(uint64_t))

/* A waiter that shares its PU with the other thread (oversubscribed, or
 * taskset to one PU) gives it the PU after this many spins; one with a PU
 * of its own never yields, which would hand its PU to unrelated work. */
#define SPINS_BEFORE_YIELD 1000

struct pingpong_state {
	_Atomic uint64_t *line; /* [2 * WORDS_PER_LINE]: line 0, line 1 */
	uint64_t rounds;        /* each thread's turns: ops / 2 */
	enum mmp_transfer transfer;
};

/* Spin until *w == want. */
static inline void await(_Atomic uint64_t *w, uint64_t want, int shares_pu)
{
	unsigned spins = 0;
	while (atomic_load_explicit(w, memory_order_acquire) != want) {
		mmp_cpu_relax();
		if (MMP_UNLIKELY(shares_pu && ++spins == SPINS_BEFORE_YIELD)) {
			spins = 0;
			sched_yield();
		}
	}
}

static uint64_t pingpong_ops(const struct mmp_params *p)
{
	return p->ops / 2 * 2; /* whole round trips */
}

static uint64_t pingpong_expected(const struct mmp_params *p, unsigned nthreads)
{
	(void)nthreads;
	return pingpong_ops(p);
}

static int pingpong_setup(const struct mmp_probe_env *env, void **priv)
{
	struct pingpong_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	if (env->nthreads != 2 || !env->alloc) {
		free(st);
		return -EINVAL;
	}
	st->line = env->alloc(env->alloc_ctx, 2 * LINE);
	if (!st->line) {
		free(st);
		return -ENOMEM;
	}
	st->rounds = env->params->ops / 2;
	st->transfer = env->params->transfer;
	*priv = st;
	return 0;
}

static void pingpong_reset(void *priv)
{
	struct pingpong_state *st = priv;
	atomic_store(&st->line[0], 0);
	atomic_store(&st->line[WORDS_PER_LINE], 0);
}

/* Every turn was taken: the counter (cas) or both lines (store) went all
 * the way. */
static int pingpong_check(void *priv)
{
	struct pingpong_state *st = priv;
	if (st->transfer == MMP_TRANSFER_CAS)
		return atomic_load(&st->line[0]) == 2 * st->rounds ? 0 : -EPROTO;
	return atomic_load(&st->line[0]) == st->rounds &&
			       atomic_load(&st->line[WORDS_PER_LINE]) == st->rounds
		       ? 0
		       : -EPROTO;
}

static void pingpong_teardown(void *priv)
{
	free(priv); /* the lines are the runner's (env->alloc) */
}

static int pingpong_run(const struct mmp_slice *s)
{
	struct pingpong_state *st = s->priv;
	const uint64_t me = s->thread;
	uint64_t done = 0;

	if (st->transfer == MMP_TRANSFER_CAS) {
		_Atomic uint64_t *w = &st->line[0];
		/* Thread 0 moves the counter from even values, thread 1 from odd. */
		for (uint64_t i = 0; i < st->rounds; i++) {
			uint64_t turn = 2 * i + me;
			await(w, turn, s->shares_pu);
			done += atomic_compare_exchange_strong(w, &turn, turn + 1);
		}
	} else {
		_Atomic uint64_t *mine = &st->line[me * WORDS_PER_LINE];
		_Atomic uint64_t *theirs = &st->line[(1 - me) * WORDS_PER_LINE];
		for (uint64_t i = 1; i <= st->rounds; i++) {
			if (me == 0) {
				atomic_store_explicit(mine, i, memory_order_release);
				await(theirs, i, s->shares_pu);
			} else {
				await(theirs, i, s->shares_pu);
				atomic_store_explicit(mine, i, memory_order_release);
			}
			done++;
		}
	}
	s->sink->zeros += done;
	return 0;
}

const struct mmp_probe mmp_probe_pingpong = {
	.name = "pingpong",
	.summary = "two threads hand one cache line back and forth: ns per one-way transfer "
		   "(placement = pairs: the PU x PU matrix)",
	.needs = 0,
	.uses = MMP_KEY_BIT(MMP_KEY_OPS) | MMP_KEY_BIT(MMP_KEY_TRANSFER),
	.ignores = MMP_NO_FILE_KEYS | MMP_KEY_BIT(MMP_KEY_SIZE) | MMP_KEY_BIT(MMP_KEY_SEED),
	.threads = 2,
	.access_mode = MMP_ACCESS_WHOLE,
	.run = pingpong_run,
	.unit = "transfer",
	.default_ops = 200000,
	.ops = pingpong_ops,
	.expected = pingpong_expected,
	.setup = pingpong_setup,
	.reset = pingpong_reset,
	.check = pingpong_check,
	.teardown = pingpong_teardown,
};
