/* The kernel and tally step that every probe applies to each byte it reads.
 *
 * Probes call mmp_sink_put() inside their innermost loop, so it must cost
 * exactly what the modelled code costs and nothing more: the sink mode is a
 * compile-time constant in each specialised copy of a loop
 * (MMP_SINK_DISPATCH), never a branch or an indirect call per byte.
 */
#ifndef MMPROF_PROBES_SINK_H
#define MMPROF_PROBES_SINK_H

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>

#include "mmprof/probe.h"

#define MMP_ALWAYS_INLINE inline __attribute__((always_inline))
#define MMP_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* A call that must stay a call: the modelled API is not inlined (the .NET
 * JIT does not inline SafeHandle's reference counting into the caller), and
 * gcc's IPA must not clone it with the bounds folded in. */
#if defined(__has_attribute)
#if __has_attribute(noipa)
#define MMP_REAL_CALL __attribute__((noinline, noipa))
#endif
#endif
#ifndef MMP_REAL_CALL
#define MMP_REAL_CALL __attribute__((noinline))
#endif

enum mmp_sink_mode {
	MMP_SINK_ZEROS_LOCAL,
	MMP_SINK_ZEROS_MEMORY,
	MMP_SINK_HIST_LOCAL,
	MMP_SINK_HIST_MEMORY,
	/* tally = plain, plain-padded: what `c[t]++` on a counter in memory
	 * compiles to -- a load, an add and a store, no lock. */
	MMP_SINK_ZEROS_PLAIN,
	MMP_SINK_HIST_PLAIN,
};

static inline enum mmp_sink_mode mmp_sink_mode(const struct mmp_slice *s)
{
	int memory = s->sink->slot != NULL;
	if (memory && s->sink->plain)
		return s->kernel == MMP_KERNEL_HISTOGRAM ? MMP_SINK_HIST_PLAIN : MMP_SINK_ZEROS_PLAIN;
	if (s->kernel == MMP_KERNEL_HISTOGRAM)
		return memory ? MMP_SINK_HIST_MEMORY : MMP_SINK_HIST_LOCAL;
	return memory ? MMP_SINK_ZEROS_MEMORY : MMP_SINK_ZEROS_LOCAL;
}

/* A sink's fields in locals for the length of a loop: the atomic adds of a
 * memory tally could alias anything the compiler cannot see, so fields
 * read through the sink pointer would be reloaded on every byte. */
struct mmp_sink_regs {
	_Atomic uint64_t *slot;
	size_t stride;
	uint64_t zeros;
	uint64_t *hist;
};

static MMP_ALWAYS_INLINE struct mmp_sink_regs mmp_sink_begin(struct mmp_sink *sink)
{
	return (struct mmp_sink_regs){ sink->slot, sink->stride, 0, sink->hist };
}

static MMP_ALWAYS_INLINE void mmp_sink_end(struct mmp_sink *sink, const struct mmp_sink_regs *r)
{
	sink->zeros += r->zeros;
}

/* One byte through the kernel. */
static MMP_ALWAYS_INLINE void mmp_sink_put(struct mmp_sink_regs *r, uint8_t b,
					   enum mmp_sink_mode mode)
{
	switch (mode) {
	case MMP_SINK_ZEROS_LOCAL:
		r->zeros += (b == 0);
		break;
	case MMP_SINK_ZEROS_MEMORY:
		/* Interlocked.Increment / AtomicInteger.incrementAndGet: a
		 * full-barrier read-modify-write of the tally's cache line.
		 * Unlikely (1 byte in 256 of random data): the increment goes
		 * out of line and the hot loop is one straight block.  Left to
		 * itself gcc laid the loop across two 64-byte lines in some
		 * probes and not others, and copies of the same loop differed
		 * by 1.6x depending on where the linker put them. */
		if (MMP_UNLIKELY(b == 0))
			atomic_fetch_add_explicit(r->slot, 1, memory_order_seq_cst);
		break;
	case MMP_SINK_HIST_LOCAL:
		r->hist[b]++;
		break;
	case MMP_SINK_HIST_MEMORY:
		atomic_fetch_add_explicit(&r->slot[(size_t)b * r->stride], 1,
					  memory_order_seq_cst);
		break;
	/* Relaxed load and store of the slot: plain moves on every target,
	 * kept in the loop (a compiler may not merge them away). */
	case MMP_SINK_ZEROS_PLAIN:
		if (MMP_UNLIKELY(b == 0))
			atomic_store_explicit(r->slot,
					      atomic_load_explicit(r->slot, memory_order_relaxed) + 1,
					      memory_order_relaxed);
		break;
	case MMP_SINK_HIST_PLAIN: {
		_Atomic uint64_t *c = &r->slot[(size_t)b * r->stride];
		atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
				      memory_order_relaxed);
		break;
	}
	}
}

/* A buffer the modelled code scans after copying it out (ReadArray). */
static MMP_ALWAYS_INLINE void mmp_sink_scan(struct mmp_sink_regs *r, const uint8_t *buf,
					    uint64_t n, enum mmp_sink_mode mode)
{
	for (uint64_t j = 0; j < n; j++)
		mmp_sink_put(r, buf[j], mode);
}

/* Expand a loop `static int fn(const struct mmp_slice *, enum mmp_sink_mode)`
 * into one specialised copy per sink mode and call the right one. */
#define MMP_SINK_DISPATCH(fn, slice)                                           \
	do {                                                                   \
		switch (mmp_sink_mode(slice)) {                                \
		case MMP_SINK_ZEROS_LOCAL:                                     \
			return fn(slice, MMP_SINK_ZEROS_LOCAL);                \
		case MMP_SINK_ZEROS_MEMORY:                                    \
			return fn(slice, MMP_SINK_ZEROS_MEMORY);               \
		case MMP_SINK_HIST_LOCAL:                                      \
			return fn(slice, MMP_SINK_HIST_LOCAL);                 \
		case MMP_SINK_HIST_MEMORY:                                     \
			return fn(slice, MMP_SINK_HIST_MEMORY);                \
		case MMP_SINK_ZEROS_PLAIN:                                     \
			return fn(slice, MMP_SINK_ZEROS_PLAIN);                \
		case MMP_SINK_HIST_PLAIN:                                      \
			return fn(slice, MMP_SINK_HIST_PLAIN);                 \
		}                                                              \
		return -EINVAL;                                                \
	} while (0)

#endif
