/* Whether a program's threads ran at the same time (see concurrency.h). */
#include "run/concurrency.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "platform/sampling.h"

enum state { UNSEEN, READY, RUNNING, ASLEEP, GONE };

/* Records of one nanosecond (another CPU's buffer, a clock's resolution)
 * in the order they can only have happened: a thread starts before it
 * runs, leaves a CPU before another takes it, runs before it ends. */
static int rank(uint8_t kind)
{
	switch (kind) {
	case MMP_SWITCH_START:
		return 0;
	case MMP_SWITCH_PREEMPT:
	case MMP_SWITCH_SLEEP:
		return 1;
	case MMP_SWITCH_IN:
		return 2;
	default:
		return 3;
	}
}

static int by_time(const void *a, const void *b)
{
	const struct mmp_switch *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return rank(x->kind) - rank(y->kind);
}

static int by_tid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static size_t tid_index(const uint32_t *tids, size_t n, uint32_t tid)
{
	const uint32_t *p = bsearch(&tid, tids, n, sizeof(*tids), by_tid);
	return (size_t)(p - tids);
}

static enum state after(uint8_t kind)
{
	switch (kind) {
	case MMP_SWITCH_IN:
		return RUNNING;
	case MMP_SWITCH_PREEMPT:
	case MMP_SWITCH_START:
		return READY;
	case MMP_SWITCH_SLEEP:
		return ASLEEP;
	default:
		return GONE;
	}
}

int mmp_concurrency_measure(struct mmp_switch *sw, size_t n, unsigned npus,
			    struct mmp_concurrency *out)
{
	memset(out, 0, sizeof(*out));
	out->overlap = 1;
	if (!n)
		return 0;
	uint32_t *tids = malloc(n * sizeof(*tids));
	unsigned char *st = calloc(n, 1);
	if (!tids || !st) {
		free(tids);
		free(st);
		return -ENOMEM;
	}
	qsort(sw, n, sizeof(*sw), by_time);
	for (size_t i = 0; i < n; i++)
		tids[i] = sw[i].tid;
	qsort(tids, n, sizeof(*tids), by_tid);
	size_t nt = 0;
	for (size_t i = 0; i < n; i++)
		if (!nt || tids[nt - 1] != tids[i])
			tids[nt++] = tids[i];
	out->threads = (unsigned)nt;

	/* A thread whose first record takes it off a CPU (or ends it) was
	 * on one before the records began: the program's first thread,
	 * running since its exec enabled them. */
	unsigned ready = 0, running = 0;
	for (size_t i = 0; i < n; i++) {
		size_t t = tid_index(tids, nt, sw[i].tid);
		if (st[t] != UNSEEN)
			continue;
		st[t] = sw[i].kind == MMP_SWITCH_IN || sw[i].kind == MMP_SWITCH_START ? GONE
										     : RUNNING;
	}
	for (size_t t = 0; t < nt; t++) {
		st[t] = st[t] == RUNNING ? RUNNING : UNSEEN;
		running += st[t] == RUNNING;
	}
	ready = running;

	uint64_t last = sw[0].time;
	for (size_t i = 0; i < n; i++) {
		uint64_t dt = sw[i].time - last;
		if (ready >= 2)
			out->ready2_ns += dt;
		if (running >= 2)
			out->run2_ns += dt;
		out->cpu_ns += dt * running;
		last = sw[i].time;
		size_t t = tid_index(tids, nt, sw[i].tid);
		enum state from = (enum state)st[t], to = after(sw[i].kind);
		ready -= from == RUNNING || from == READY;
		running -= from == RUNNING;
		ready += to == RUNNING || to == READY;
		running += to == RUNNING;
		st[t] = (unsigned char)to;
	}
	free(tids);
	free(st);
	if (npus >= 2 && out->ready2_ns)
		out->overlap = (double)out->run2_ns / (double)out->ready2_ns;
	return 0;
}
