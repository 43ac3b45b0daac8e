/* pread_buf: open the file and pread() this thread's slice `buffer` bytes
 * at a time at explicit offsets, scanning each buffer, then close.  The
 * positional read needs no file position, so threads could share one
 * descriptor; it differs from read_buf by the system call alone, which is
 * what comparing the two shows.
 */
#include "file_read.h"

static MMP_ALWAYS_INLINE int pread_buf_loop(const struct mmp_slice *s, enum mmp_sink_mode mode)
{
	return mmp_file_read_loop(s, mode, 1);
}

static int pread_buf_run(const struct mmp_slice *s)
{
	MMP_SINK_DISPATCH(pread_buf_loop, s);
}

const struct mmp_probe mmp_probe_pread_buf = {
	.name = "pread_buf",
	.label = "pread",
	.summary = "open + pread() `buffer` bytes at a time at the slice's offsets + close",
	.needs = MMP_NEEDS_PATH,
	.uses = MMP_KEY_BIT(MMP_KEY_BUFFER) | MMP_KEY_BIT(MMP_KEY_TALLY) |
		MMP_KEY_BIT(MMP_KEY_ADVICE),
	.access_mode = MMP_ACCESS_WHOLE,
	.shared_state = "tally",
	.loop = "open, a pread() per buffer (a copy) and a scalar kernel step per byte",
	.run = pread_buf_run,
};
