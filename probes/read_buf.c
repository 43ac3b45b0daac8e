/* read_buf: open the file, read() it sequentially `buffer` bytes at a time
 * into a user buffer, scan each buffer, close.  Models the classic
 * read(fd, buf, size) loop of the read/mmap/fread seed: every `buffer`
 * bytes cost a system call and a copy out of the page cache, which is what
 * small buffers pay for.  Each thread opens its own descriptor and reads
 * its own slice (a shared descriptor's file position would serialise
 * them).
 */
#include "file_read.h"

static MMP_ALWAYS_INLINE int read_buf_loop(const struct mmp_slice *s, enum mmp_sink_mode mode)
{
	return mmp_file_read_loop(s, mode, 0);
}

static int read_buf_run(const struct mmp_slice *s)
{
	MMP_SINK_DISPATCH(read_buf_loop, s);
}

const struct mmp_probe mmp_probe_read_buf = {
	.name = "read_buf",
	.label = "read",
	.summary = "open + read() `buffer` bytes at a time into a user buffer + close",
	.needs = MMP_NEEDS_PATH,
	.uses = MMP_KEY_BIT(MMP_KEY_BUFFER) | MMP_KEY_BIT(MMP_KEY_TALLY) |
		MMP_KEY_BIT(MMP_KEY_ADVICE),
	.access_mode = MMP_ACCESS_WHOLE,
	.shared_state = "tally",
	.loop = "open, a read() per buffer (a copy) and a scalar kernel step per byte",
	.run = read_buf_run,
};
