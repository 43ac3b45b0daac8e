/* limit: the fastest honest scan of the same bytes, the ceiling every other
 * probe is compared to.  Zero counting compares 64 bytes per step with
 * vector instructions and keeps byte-wide counters; the histogram spreads
 * its increments over four sub-histograms so consecutive equal bytes do not
 * wait on each other's store.  No per-call API, no shared state, and its
 * pages mapped in and touched before timing (config_expand.c: a first
 * touch below the kernel costs ~2 us a page on a paravirtualised host):
 * what is left is the memory system.
 */
#include <string.h>

#include "cpu.h"
#include "sink.h"

/* The zero count of p[0, n), written once for vectors of W bytes.  One
 * step reads 64 bytes as 64 / W vectors, each counted in an accumulator of
 * its own so consecutive compares do not wait on each other; byte lanes
 * count at most 255 hits before they are summed.  (The unroll keeps the
 * accumulators in registers: left as a loop, gcc kept them in memory.) */
#define ZEROS_FUNCTION(name, attr, W)                                          \
	typedef uint8_t name##_vec __attribute__((vector_size(W)));            \
	attr static uint64_t name(const uint8_t *p, uint64_t n)                \
	{                                                                      \
		const name##_vec zero = { 0 };                                 \
		uint64_t total = 0, i = 0;                                     \
		while (n - i >= 64) {                                          \
			uint64_t steps = (n - i) / 64;                         \
			if (steps > 255)                                       \
				steps = 255;                                   \
			name##_vec acc[64 / W];                                \
			for (int v = 0; v < 64 / W; v++)                       \
				acc[v] = zero;                                 \
			for (uint64_t k = 0; k < steps; k++, i += 64) {        \
				_Pragma("GCC unroll 4")                        \
				for (int v = 0; v < 64 / W; v++) {             \
					name##_vec a;                          \
					memcpy(&a, p + i + v * W, sizeof(a));  \
					acc[v] -= (name##_vec)(a == zero);     \
				}                                              \
			}                                                      \
			for (int v = 0; v < 64 / W; v++)                       \
				for (int l = 0; l < W; l++)                    \
					total += acc[v][l];                    \
		}                                                              \
		for (; i < n; i++)                                             \
			total += p[i] == 0;                                    \
		return total;                                                  \
	}

/* The baseline every CPU of the architecture runs (16 bytes: SSE2 on
 * x86-64, NEON on arm64), and the wider unit's copy where the CPU running
 * it has one (cpu.h: AVX2 on x86-64; elsewhere it folds away). */
ZEROS_FUNCTION(zeros_baseline, , MMP_CPU_BASE_BYTES)
ZEROS_FUNCTION(zeros_wide, MMP_CPU_WIDE, MMP_CPU_WIDE_BYTES)

static void histogram(const uint8_t *p, uint64_t n, uint64_t *hist)
{
	/* 32-bit sub-counters: each sees a quarter of a 2 GiB chunk at most. */
	const uint64_t chunk = UINT64_C(1) << 31;
	uint32_t h[4][256];

	for (uint64_t off = 0; off < n; off += chunk) {
		uint64_t len = n - off < chunk ? n - off : chunk;
		const uint8_t *q = p + off;
		uint64_t i = 0;

		memset(h, 0, sizeof(h));
		for (; i + 8 <= len; i += 8) {
			uint64_t w;
			memcpy(&w, q + i, sizeof(w));
			h[0][w & 0xff]++;
			h[1][(w >> 8) & 0xff]++;
			h[2][(w >> 16) & 0xff]++;
			h[3][(w >> 24) & 0xff]++;
			h[0][(w >> 32) & 0xff]++;
			h[1][(w >> 40) & 0xff]++;
			h[2][(w >> 48) & 0xff]++;
			h[3][w >> 56]++;
		}
		for (; i < len; i++)
			h[0][q[i]]++;
		for (int b = 0; b < 256; b++)
			hist[b] += (uint64_t)h[0][b] + h[1][b] + h[2][b] + h[3][b];
	}
}

/* Out of line, so that the scans stay inlined into it alone (the tests
 * read its disassembly for the vector compares), and the calibration's
 * scan is this very code. */
__attribute__((noinline)) static int limit_run(const struct mmp_slice *s)
{
	const uint8_t *p = s->map + s->begin;
	uint64_t n = s->end - s->begin;

	if (s->sink->slot)
		return -EINVAL; /* the ceiling never uses a tally in memory */
	if (s->kernel == MMP_KERNEL_HISTOGRAM) {
		histogram(p, n, s->sink->hist);
		return 0;
	}
	if (mmp_cpu_has_wide())
		s->sink->zeros += zeros_wide(p, n);
	else
		s->sink->zeros += zeros_baseline(p, n);
	return 0;
}

uint64_t mmp_probe_ceiling_zeros(const uint8_t *p, uint64_t n)
{
	struct mmp_sink sink = { 0 };
	struct mmp_slice s = { .map = p, .begin = 0, .end = n, .kernel = MMP_KERNEL_ZEROS,
			       .sink = &sink };
	limit_run(&s);
	return sink.zeros;
}

const struct mmp_probe mmp_probe_limit = {
	.name = "limit",
	.summary = "the fastest honest vectorised scan of the same bytes, its pages mapped in and touched first: the ceiling",
	.role = MMP_PROBE_CEILING,
	.needs = MMP_NEEDS_MAP,
	.uses = MMP_KEY_BIT(MMP_KEY_PREFAULT) | MMP_KEY_BIT(MMP_KEY_ADVICE),
	.access_mode = MMP_ACCESS_WHOLE,
	.run = limit_run,
};
