/* accessor_block: `access` bytes per call through the accessor model's
 * ReadArray (bounds checks, one reference-count acquire/release per call,
 * a copy), then a scan of the copy.  Models .NET's
 * UnmanagedMemoryAccessor.ReadArray; the reference count is paid once per
 * `access` bytes, which is why the seed's 1 KiB reads were on par with Java.
 */
#include "sink.h"
#include "view.h"

static MMP_ALWAYS_INLINE int accessor_block_loop(const struct mmp_slice *s,
						 enum mmp_sink_mode mode)
{
	const struct mmp_view view = mmp_view_of(s), *v = &view;
	const int held = s->params->refcount == MMP_REFCOUNT_ONCE;
	const uint64_t end = s->end, access = s->access;
	uint8_t *buffer = s->buffer;
	struct mmp_sink_regs r = mmp_sink_begin(s->sink);
	int rc = 0;

	if (held) {
		rc = mmp_view_acquire(v);
		if (rc)
			return rc;
	}
	for (uint64_t pos = s->begin; pos < end;) {
		uint64_t want = end - pos < access ? end - pos : access;
		int64_t n = held ? mmp_view_read_array_held(v, pos, buffer, want)
				 : mmp_view_read_array(v, pos, buffer, want);
		if (MMP_UNLIKELY(n <= 0)) {
			rc = n < 0 ? (int)n : -EIO;
			break;
		}
		mmp_sink_scan(&r, buffer, (uint64_t)n, mode);
		pos += (uint64_t)n;
	}
	if (held)
		mmp_view_release(v);
	mmp_sink_end(s->sink, &r);
	return rc;
}

static int accessor_block_run(const struct mmp_slice *s)
{
	MMP_SINK_DISPATCH(accessor_block_loop, s);
}

const struct mmp_probe mmp_probe_accessor_block = {
	.name = "accessor_block",
	.summary = "`access` bytes per call through the accessor model's ReadArray "
		   "(.NET ReadArray)",
	.needs = MMP_NEEDS_MAP,
	.uses = MMP_KEY_BIT(MMP_KEY_ACCESS) | MMP_KEY_BIT(MMP_KEY_REFCOUNT) |
		MMP_KEY_BIT(MMP_KEY_TALLY) | MMP_KEY_BIT(MMP_KEY_PREFAULT) |
		MMP_KEY_BIT(MMP_KEY_ADVICE),
	.access_mode = MMP_ACCESS_BLOCK,
	.default_access = 4096,
	.shared_state = "refcount",
	.setup = mmp_view_setup,
	.reset = mmp_view_reset,
	.check = mmp_view_check,
	.teardown = mmp_view_teardown,
	.loop = "a call per block, a copy out and a scalar kernel step per byte",
	.run = accessor_block_run,
};
