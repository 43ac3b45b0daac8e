/* mmap_byte: one-byte loads through a raw pointer into the mapping.
 * Models Java's MappedByteBuffer.get(i) after JIT compilation: an index
 * check against the buffer's limit, then a plain load.  It is the seed's
 * fast side: what a byte-at-a-time reader costs when no per-call machinery
 * stands between the loop and the page cache.
 */
#include <errno.h>

#include "sink.h"

static MMP_ALWAYS_INLINE int mmap_byte_loop(const struct mmp_slice *s,
					    enum mmp_sink_mode mode)
{
	/* volatile: one real load per byte.  Without it the compiler would
	 * vectorise the loop and the probe would measure the compiler, not
	 * the access path (tests/integration/no_vectorisation.sh checks). */
	const volatile uint8_t *p = s->map;
	const uint64_t end = s->end;
	struct mmp_sink_regs r = mmp_sink_begin(s->sink);

	/* get(i) checks i against the buffer's limit; HotSpot's C2 hoists that
	 * check out of a counted loop (loop predication), so it is paid once
	 * per loop, not once per byte. */
	if (MMP_UNLIKELY(end > s->file_size))
		return -ERANGE; /* IndexOutOfBoundsException */
	for (uint64_t i = s->begin; i < end; i++)
		mmp_sink_put(&r, p[i], mode);
	mmp_sink_end(s->sink, &r);
	return 0;
}

static int mmap_byte_run(const struct mmp_slice *s)
{
	MMP_SINK_DISPATCH(mmap_byte_loop, s);
}

const struct mmp_probe mmp_probe_mmap_byte = {
	.name = "mmap_byte",
	.summary = "1-byte loads through a raw pointer (Java MappedByteBuffer.get(i))",
	.needs = MMP_NEEDS_MAP,
	.uses = MMP_KEY_BIT(MMP_KEY_TALLY) | MMP_KEY_BIT(MMP_KEY_PREFAULT) |
		MMP_KEY_BIT(MMP_KEY_ADVICE),
	.access_mode = MMP_ACCESS_BYTE,
	.shared_state = "tally",
	.bulk = "mmap_block",
	.loop = "a scalar 1-byte load and kernel step per byte",
	.run = mmap_byte_run,
};
