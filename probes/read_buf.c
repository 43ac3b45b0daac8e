/* read_buf: open the file, read() it sequentially `buffer` bytes at a time
 * into a user buffer, scan each buffer, close.  Models the classic
 * read(fd, buf, size) loop of the read/mmap/fread seed: every `buffer`
 * bytes cost a system call and a copy out of the page cache, which is what
 * small buffers pay for.  Each thread opens its own descriptor and reads
 * its own slice (a shared descriptor's file position would serialise
 * them).
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "sink.h"

static MMP_ALWAYS_INLINE int read_buf_loop(const struct mmp_slice *s, enum mmp_sink_mode mode)
{
	struct mmp_sink_regs r = mmp_sink_begin(s->sink);
	uint8_t *buf = s->buffer;
	const uint64_t size = s->buffer_size;
	uint64_t left = s->end - s->begin;
	int rc = 0;

	int fd = open(s->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (s->begin && lseek(fd, (off_t)s->begin, SEEK_SET) < 0) {
		rc = -errno;
		goto out;
	}
	while (left) {
		ssize_t n = read(fd, buf, left < size ? (size_t)left : (size_t)size);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if (n == 0) {
			rc = -EIO; /* the file is shorter than it was */
			break;
		}
		mmp_sink_scan(&r, buf, (uint64_t)n, mode);
		left -= (uint64_t)n;
	}
out:
	close(fd);
	mmp_sink_end(s->sink, &r);
	return rc;
}

static int read_buf_run(const struct mmp_slice *s)
{
	MMP_SINK_DISPATCH(read_buf_loop, s);
}

const struct mmp_probe mmp_probe_read_buf = {
	.name = "read_buf",
	.summary = "open + read() `buffer` bytes at a time into a user buffer + close",
	.needs = MMP_NEEDS_PATH,
	.uses = MMP_KEY_BIT(MMP_KEY_BUFFER) | MMP_KEY_BIT(MMP_KEY_TALLY),
	.access_mode = MMP_ACCESS_WHOLE,
	.shared_state = "tally",
	.run = read_buf_run,
};
