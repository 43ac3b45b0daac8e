/* fread_buf: fopen the file, give stdio a `buffer`-byte buffer (setvbuf),
 * and fread() `access` bytes per call (default: the buffer's size) into a
 * user buffer, scanning each piece, then fclose.  Models the seed's fread
 * path honestly: its published times stayed at ~0.045 ms from 512 B to
 * 1 GB, which no reader of the bytes can do; here the result is checked
 * like every probe's.  Small `access` with a large `buffer` shows what
 * stdio's buffering saves over one read() per call.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "file_read.h"

static MMP_ALWAYS_INLINE int fread_buf_loop(const struct mmp_slice *s, enum mmp_sink_mode mode)
{
	struct mmp_sink_regs r = mmp_sink_begin(s->sink);
	const uint64_t per_call = s->access ? s->access : s->buffer_size;
	uint64_t pos = s->begin;
	int rc = 0;

	FILE *f = fopen(s->path, "rbe");
	if (!f)
		return -errno;
	/* glibc ignores setvbuf's size without a buffer (it takes the file
	 * system's block size): give it one of `buffer` bytes.  Allocating
	 * it is part of using fread this way, so it is timed too. */
	char *vbuf = malloc((size_t)s->buffer_size);
	if (!vbuf || setvbuf(f, vbuf, _IOFBF, (size_t)s->buffer_size)) {
		rc = -ENOMEM;
		goto out;
	}
	if (s->advice != MMP_ADVICE_NORMAL)
		posix_fadvise(fileno(f), (off_t)s->begin, (off_t)(s->end - s->begin),
			      mmp_fadvice(s->advice));
	if (pos && fseeko(f, (off_t)pos, SEEK_SET)) {
		rc = -errno;
		goto out;
	}
	while (pos < s->end) {
		size_t want = s->end - pos < per_call ? (size_t)(s->end - pos) : (size_t)per_call;
		size_t n = fread(s->buffer, 1, want, f);
		if (n == 0) {
			rc = ferror(f) ? -EIO : -ENODATA; /* error, or the file shrank */
			break;
		}
		mmp_sink_scan(&r, s->buffer, n, mode);
		pos += n;
	}
out:
	fclose(f);
	free(vbuf);
	mmp_sink_end(s->sink, &r);
	return rc;
}

static int fread_buf_run(const struct mmp_slice *s)
{
	MMP_SINK_DISPATCH(fread_buf_loop, s);
}

const struct mmp_probe mmp_probe_fread_buf = {
	.name = "fread_buf",
	.label = "fread",
	.summary = "fopen + setvbuf(`buffer`) + fread() `access` bytes per call + fclose",
	.needs = MMP_NEEDS_PATH,
	.uses = MMP_KEY_BIT(MMP_KEY_BUFFER) | MMP_KEY_BIT(MMP_KEY_ACCESS) |
		MMP_KEY_BIT(MMP_KEY_TALLY) | MMP_KEY_BIT(MMP_KEY_ADVICE),
	.access_mode = MMP_ACCESS_BLOCK,
	.default_access = 0, /* calls of the buffer's size */
	.shared_state = "tally",
	.loop = "fopen, an fread() per call (two copies) and a scalar kernel step per byte",
	.run = fread_buf_run,
};
