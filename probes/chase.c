/* chase: the latency of one load from memory of a given size.
 *
 * Each thread's slice of the run's `size` bytes is cut into 64-byte lines
 * linked in one random cycle (every line once, in a shuffled order), and
 * the thread follows `ops` links: each load's address is the previous
 * load's value, so no two loads overlap and no prefetcher can guess the
 * next line (lmbench's lat_mem_rd with a random stride, MLC's idle
 * latency).  Small sizes stay in a cache; beyond the caches every load is
 * a DRAM access, and beyond the TLB's reach a page walk too -- which is
 * what hugepages = yes takes away.
 *
 * The memory is the run's own (MMP_NEEDS_WORK): bound as membind says, so
 * placement = numa:M with membind = node:N measures node M reading node N.
 *
 * Checked: following a cycle of n lines from its first line, load L lands
 * on line L mod n of the shuffled order, which prepare wrote down.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sink.h"

#define LINE 64

struct chase_thread {
	void *start; /* the cycle's first line */
	void *end;   /* where ops loads from start land */
};

struct chase_state {
	struct chase_thread *t; /* [nthreads] */
	unsigned nthreads;
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static uint64_t chase_ops(const struct mmp_params *p)
{
	return p->ops; /* each thread's loads, one after another */
}

static uint64_t chase_expected(const struct mmp_params *p, unsigned nthreads)
{
	return p->ops * nthreads;
}

static int chase_setup(const struct mmp_probe_env *env, void **priv)
{
	struct chase_state *st = calloc(1, sizeof(*st));
	if (!st || !(st->t = calloc(env->nthreads, sizeof(*st->t)))) {
		free(st);
		return -ENOMEM;
	}
	st->nthreads = env->nthreads;
	*priv = st;
	return 0;
}

static void chase_teardown(void *priv)
{
	struct chase_state *st = priv;
	if (st)
		free(st->t);
	free(st);
}

/* The whole lines of [begin, end). */
static void lines_of(const struct mmp_slice *s, uint8_t **first, size_t *n)
{
	uint64_t b = (s->begin + LINE - 1) / LINE * LINE, e = s->end / LINE * LINE;
	*first = s->work + b;
	*n = e > b ? (size_t)((e - b) / LINE) : 0;
}

static int chase_prepare(const struct mmp_slice *s)
{
	struct chase_state *st = s->priv;
	uint8_t *base;
	size_t n;
	uint64_t rng = s->params->seed * UINT64_C(0x100000001b3) + s->thread;

	lines_of(s, &base, &n);
	if (n < 2)
		return -EINVAL; /* the plan keeps size >= 128 bytes per thread */
	size_t *order = malloc(n * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
		size_t j = (size_t)(splitmix64(&rng) % (i + 1));
		size_t x = order[i];
		order[i] = order[j];
		order[j] = x;
	}
	/* Link the lines in that order into one cycle; the rest of each line
	 * is written too, so every page is touched here (first touch). */
	for (size_t i = 0; i < n; i++) {
		uint8_t *line = base + order[i] * LINE;
		void *next = base + order[(i + 1) % n] * LINE;
		memset(line, 0, LINE);
		memcpy(line, &next, sizeof(next));
	}
	st->t[s->thread].start = base + order[0] * LINE;
	st->t[s->thread].end = base + order[s->params->ops % n] * LINE;
	free(order);
	return 0;
}

static int chase_run(const struct mmp_slice *s)
{
	const struct chase_thread *t = &((const struct chase_state *)s->priv)->t[s->thread];
	void *p = t->start;
	for (uint64_t i = s->params->ops; i; i--)
		p = *(void *volatile *)p;
	/* Every load landed where the cycle says: count them. */
	if (p == t->end)
		s->sink->zeros += s->params->ops;
	return 0;
}

const struct mmp_probe mmp_probe_chase = {
	.name = "chase",
	.summary = "a dependent pointer chase through size bytes in random order: ns per load "
		   "(memory latency; numa:M x membind node:N: the node matrix)",
	.needs = MMP_NEEDS_WORK,
	.uses = MMP_KEY_BIT(MMP_KEY_OPS),
	.ignores = MMP_NO_FILE_KEYS,
	.access_mode = MMP_ACCESS_WHOLE,
	.run = chase_run,
	.unit = "load",
	.default_ops = UINT64_C(1) << 20,
	.ops = chase_ops,
	.expected = chase_expected,
	.prepare = chase_prepare,
	.setup = chase_setup,
	.teardown = chase_teardown,
};
