/* Shuffled rounds (see schedule.h). */
#include "plan/schedule.h"

/* splitmix64: a good mix of (seed, set, round) into a stream, with no
 * state to carry between rounds. */
static uint64_t mix(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* One round: the runs 0..n-1 in shuffled order, into steps[0..n). */
static void shuffle(uint64_t seed, size_t set, unsigned round, size_t n, struct mmp_step *steps)
{
	uint64_t x = seed ^ (UINT64_C(0x632be59bd9b4e019) * (set + 1)) ^
		     (UINT64_C(0x8cb92ba72f3d8dd7) * ((uint64_t)round + 1));
	for (size_t i = 0; i < n; i++)
		steps[i].item = i;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(mix(&x) % i);
		size_t t = steps[i - 1].item;
		steps[i - 1].item = steps[j].item;
		steps[j].item = t;
	}
	for (size_t p = 0; p < n; p++) {
		steps[p].round = round;
		steps[p].position = (unsigned)p;
	}
}

void mmp_schedule_batch(enum mmp_order order, uint64_t seed, size_t set, size_t n,
			unsigned first, unsigned count, struct mmp_step *steps)
{
	size_t k = 0;
	if (order == MMP_ORDER_SEQUENTIAL) {
		for (size_t item = 0; item < n; item++)
			for (unsigned r = first; r < first + count; r++)
				steps[k++] = (struct mmp_step){ item, r, (unsigned)item };
		return;
	}
	for (unsigned r = first; r < first + count; r++, k += n)
		shuffle(seed, set, r, n, steps + k);
}
