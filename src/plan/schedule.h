/* The order of a comparison set's repetitions.
 *
 * interleaved (the default): round by round, one repetition of every run of
 * the set per round, the runs shuffled anew each round (Fisher-Yates, from
 * a generator seeded by the plan's seed, the set and the round: an order
 * can be replayed with order_seed, and every CSV row says its round and
 * its place in it).  A slow drift of the machine then hits every run alike,
 * and no run is always first after a pause.
 * sequential: every round of one run, then the next run's.
 *
 * Rounds come in batches (repeat = auto adds rounds a batch at a time).
 */
#ifndef MMPROF_SCHEDULE_H
#define MMPROF_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "mmprof/params.h"

struct mmp_step {
	size_t item;       /* which run of the set */
	unsigned round;    /* the set's round, warmups first */
	unsigned position; /* the run's place in its round */
};

/* The steps of rounds [first, first + count) of a set of n runs: n * count
 * steps into steps[]. */
void mmp_schedule_batch(enum mmp_order order, uint64_t seed, size_t set, size_t n,
			unsigned first, unsigned count, struct mmp_step *steps);

#endif
