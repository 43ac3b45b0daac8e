/* accessor_byte: one out-of-line call per byte that checks bounds, takes
 * the view handle's reference count with a CAS loop, loads, and gives the
 * reference back with another CAS loop.  Models .NET 9's
 * UnmanagedMemoryAccessor.ReadByte over a MemoryMappedViewAccessor.  With
 * refcount = shared every thread's every byte writes one cache line, the
 * suspected cause of the seed's 10x (1 thread) to ~1000x (8 threads) gap;
 * refcount = once takes the reference once per thread (the fixed path).
 */
#include "sink.h"
#include "view.h"

static MMP_ALWAYS_INLINE int accessor_byte_loop(const struct mmp_slice *s,
						enum mmp_sink_mode mode)
{
	const struct mmp_view view = mmp_view_of(s), *v = &view;
	const uint64_t end = s->end;
	struct mmp_sink_regs r = mmp_sink_begin(s->sink);
	int rc = 0;

	if (s->params->refcount == MMP_REFCOUNT_ONCE) {
		rc = mmp_view_acquire(v);
		if (rc)
			return rc;
		for (uint64_t i = s->begin; i < end; i++) {
			int b = mmp_view_read_byte_held(v, i);
			if (MMP_UNLIKELY(b < 0)) {
				rc = b;
				break;
			}
			mmp_sink_put(&r, (uint8_t)b, mode);
		}
		mmp_view_release(v);
	} else {
		for (uint64_t i = s->begin; i < end; i++) {
			int b = mmp_view_read_byte(v, i);
			if (MMP_UNLIKELY(b < 0)) {
				rc = b;
				break;
			}
			mmp_sink_put(&r, (uint8_t)b, mode);
		}
	}
	mmp_sink_end(s->sink, &r);
	return rc;
}

static int accessor_byte_run(const struct mmp_slice *s)
{
	MMP_SINK_DISPATCH(accessor_byte_loop, s);
}

const struct mmp_probe mmp_probe_accessor_byte = {
	.name = "accessor_byte",
	.summary = "a call per byte: bounds checks + CAS acquire/release of the view's "
		   "refcount (.NET ReadByte)",
	.needs = MMP_NEEDS_MAP,
	.uses = MMP_KEY_BIT(MMP_KEY_REFCOUNT) | MMP_KEY_BIT(MMP_KEY_TALLY) |
		MMP_KEY_BIT(MMP_KEY_PREFAULT) | MMP_KEY_BIT(MMP_KEY_ADVICE),
	.access_mode = MMP_ACCESS_BYTE,
	.shared_state = "refcount",
	.setup = mmp_view_setup,
	.reset = mmp_view_reset,
	.check = mmp_view_check,
	.teardown = mmp_view_teardown,
	.bulk = "accessor_block",
	.loop = "a call with bounds checks and a scalar kernel step per byte",
	.run = accessor_byte_run,
};
