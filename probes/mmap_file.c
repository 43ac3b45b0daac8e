/* mmap_file: the whole-file mmap method of the read/mmap/fread seed, all
 * of it timed: open, mmap this thread's slice (from the page before it),
 * madvise, scan every byte through the mapping, munmap, close.  The
 * mapping's set-up and page faults are part of the method, which is what
 * makes mmap lose to read() on small files and win on large ones.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sink.h"

static int madvice(enum mmp_advice a)
{
	switch (a) {
	case MMP_ADVICE_SEQUENTIAL:
		return MADV_SEQUENTIAL;
	case MMP_ADVICE_RANDOM:
		return MADV_RANDOM;
	case MMP_ADVICE_WILLNEED:
		return MADV_WILLNEED;
	case MMP_ADVICE_HUGEPAGE:
		return MADV_HUGEPAGE;
	default:
		return MADV_NORMAL;
	}
}

static MMP_ALWAYS_INLINE int mmap_file_loop(const struct mmp_slice *s, enum mmp_sink_mode mode)
{
	struct mmp_sink_regs r = mmp_sink_begin(s->sink);
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	const uint64_t offset = s->begin / page * page; /* mmap wants page offsets */
	const uint64_t length = s->end - offset;
	int rc = 0;

	int fd = open(s->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	const uint8_t *map = mmap(NULL, length, PROT_READ, MAP_SHARED, fd, (off_t)offset);
	if (map == MAP_FAILED) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if (s->advice != MMP_ADVICE_NORMAL && madvise((void *)map, length, madvice(s->advice)))
		rc = -errno;
	else
		mmp_sink_scan(&r, map + (s->begin - offset), s->end - s->begin, mode);
	munmap((void *)map, length);
	close(fd);
	mmp_sink_end(s->sink, &r);
	return rc;
}

static int mmap_file_run(const struct mmp_slice *s)
{
	MMP_SINK_DISPATCH(mmap_file_loop, s);
}

const struct mmp_probe mmp_probe_mmap_file = {
	.name = "mmap_file",
	.label = "mmap",
	.summary = "open + mmap + scan + munmap + close, all timed (the whole-file mmap method)",
	.needs = MMP_NEEDS_PATH,
	.maps = 1,
	.uses = MMP_KEY_BIT(MMP_KEY_TALLY) | MMP_KEY_BIT(MMP_KEY_ADVICE),
	.access_mode = MMP_ACCESS_WHOLE,
	.shared_state = "tally",
	.loop = "open, mmap, its page faults and a scalar kernel step per byte",
	.run = mmap_file_run,
};
