/* The loop read_buf and pread_buf share: open the file, pass on the
 * access advice, read this thread's slice `buffer` bytes at a time into
 * the thread's buffer, scan each piece, close.  Every step is inside the
 * timed region, as in a program that reads a file.
 */
#ifndef MMPROF_PROBES_FILE_READ_H
#define MMPROF_PROBES_FILE_READ_H

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "sink.h"

/* posix_fadvise's words for mmprof's advice (hugepage is for mappings:
 * the config refuses it for these probes). */
static inline int mmp_fadvice(enum mmp_advice a)
{
	switch (a) {
	case MMP_ADVICE_SEQUENTIAL:
		return POSIX_FADV_SEQUENTIAL;
	case MMP_ADVICE_RANDOM:
		return POSIX_FADV_RANDOM;
	case MMP_ADVICE_WILLNEED:
		return POSIX_FADV_WILLNEED;
	default:
		return POSIX_FADV_NORMAL;
	}
}

static MMP_ALWAYS_INLINE int mmp_file_read_loop(const struct mmp_slice *s,
						enum mmp_sink_mode mode, int positional)
{
	struct mmp_sink_regs r = mmp_sink_begin(s->sink);
	uint8_t *buf = s->buffer;
	const uint64_t size = s->buffer_size;
	uint64_t pos = s->begin;
	int rc = 0;

	int fd = open(s->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (s->advice != MMP_ADVICE_NORMAL)
		posix_fadvise(fd, (off_t)s->begin, (off_t)(s->end - s->begin),
			      mmp_fadvice(s->advice));
	if (!positional && pos && lseek(fd, (off_t)pos, SEEK_SET) < 0) {
		rc = -errno;
		goto out;
	}
	while (pos < s->end) {
		size_t want = s->end - pos < size ? (size_t)(s->end - pos) : (size_t)size;
		ssize_t n = positional ? pread(fd, buf, want, (off_t)pos) : read(fd, buf, want);
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
		pos += (uint64_t)n;
	}
out:
	close(fd);
	mmp_sink_end(s->sink, &r);
	return rc;
}

#endif
