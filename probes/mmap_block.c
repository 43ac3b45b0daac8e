/* mmap_block: `access` bytes per call copied out of the mapping into a
 * per-thread buffer, then scanned.  Models Java's
 * MappedByteBuffer.position(i).get(byte[], 0, n): one bounds check and one
 * copy per call, so the per-byte cost is the copy plus the scan.  It is the
 * seed's 1 KiB case, where Java and .NET were on par.
 */
#include <errno.h>
#include <string.h>

#include "sink.h"

static MMP_ALWAYS_INLINE int mmap_block_loop(const struct mmp_slice *s,
					     enum mmp_sink_mode mode)
{
	const uint64_t limit = s->file_size, end = s->end, access = s->access;
	const uint8_t *map = s->map;
	uint8_t *buffer = s->buffer;
	struct mmp_sink_regs r = mmp_sink_begin(s->sink);

	for (uint64_t pos = s->begin; pos < end;) {
		uint64_t n = end - pos < access ? end - pos : access;
		if (MMP_UNLIKELY(n > limit - pos))
			return -ERANGE; /* BufferUnderflowException */
		memcpy(buffer, map + pos, n);
		mmp_sink_scan(&r, buffer, n, mode);
		pos += n;
	}
	mmp_sink_end(s->sink, &r);
	return 0;
}

static int mmap_block_run(const struct mmp_slice *s)
{
	MMP_SINK_DISPATCH(mmap_block_loop, s);
}

const struct mmp_probe mmp_probe_mmap_block = {
	.name = "mmap_block",
	.summary = "`access` bytes per call copied from the mapping, then scanned "
		   "(Java get(byte[]))",
	.needs = MMP_NEEDS_MAP,
	.uses = MMP_KEY_BIT(MMP_KEY_ACCESS) | MMP_KEY_BIT(MMP_KEY_TALLY) |
		MMP_KEY_BIT(MMP_KEY_PREFAULT) | MMP_KEY_BIT(MMP_KEY_ADVICE),
	.access_mode = MMP_ACCESS_BLOCK,
	.default_access = 4096,
	.shared_state = "tally",
	.loop = "a copy out and a scalar kernel step per byte",
	.run = mmap_block_run,
};
