/* What is at a data file's path: the decision to reuse, create or refuse
 * (shared with mmp_datafile_open), the same decision taken before a run
 * without writing anything (mmp_datafile_check), and the check that the
 * file did not change while it was measured (mmp_datafile_recheck).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "datafile_impl.h"
#include "util/paths.h"
#include "util/units.h"

struct marker {
	uint64_t size, seed, inode;
	int64_t mtime_ns;
	char fill[16];
};

static int marker_read(const char *path, struct marker *m)
{
	char name[4200];
	snprintf(name, sizeof(name), "%s%s", path, MMP_MARKER_SUFFIX);
	FILE *f = fopen(name, "r");
	if (!f)
		return -errno;
	int n = fscanf(f,
		       "mmprof data file v1\nsize=%" SCNu64 "\nfill=%15s\nseed=%" SCNu64
		       "\ninode=%" SCNu64 "\nmtime_ns=%" SCNd64,
		       &m->size, m->fill, &m->seed, &m->inode, &m->mtime_ns);
	fclose(f);
	return n == 5 ? 0 : -EINVAL;
}

/* Is the file at path the one mmprof wrote for this marker? */
static int marker_matches(const struct marker *m, const struct stat *st)
{
	return m->inode == (uint64_t)st->st_ino && m->mtime_ns == mmp_mtime_ns(st) &&
	       m->size == (uint64_t)st->st_size;
}

static int fill_named(const char *name, enum mmp_fill *fill)
{
	for (int i = 0; mmp_fill_names[i]; i++)
		if (strcmp(mmp_fill_names[i], name) == 0) {
			*fill = (enum mmp_fill)i;
			return 0;
		}
	return -EINVAL;
}

/* Are the bytes at path the ones made's size, fill and seed generate?
 * 1 or 0, or a negative errno.  This is how a copy of mmprof's file (a
 * copied checkout: another inode, perhaps another mtime) is told from a
 * file written since: the generator, not a checksum, is the reference,
 * so markers written before copies were recognised serve as they are. */
static int same_bytes(const char *path, const struct mmp_data_spec *made,
		      const volatile sig_atomic_t *stop, struct mmp_error *err)
{
	uint8_t *have = malloc(MMP_DATA_CHUNK), *want = malloc(MMP_DATA_CHUNK);
	struct rng r;
	int rc = 1;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0 || !have || !want) {
		rc = fd < 0 ? mmp_error_errno(err, -errno, "open %s", path)
			    : mmp_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (made->fill == MMP_FILL_ZERO)
		memset(want, 0, MMP_DATA_CHUNK);
	else
		rng_seed(&r, made->seed);
	for (uint64_t off = 0; off < made->size && rc == 1;) {
		size_t n = made->size - off < MMP_DATA_CHUNK ? (size_t)(made->size - off)
							     : MMP_DATA_CHUNK;
		if (stop && *stop) {
			rc = mmp_error_set(err, -EINTR, "interrupted while reading %s", path);
			break;
		}
		ssize_t got = pread(fd, have, n, (off_t)off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got != (ssize_t)n) {
			/* Short: the file shrank since it was looked at. */
			rc = got < 0 ? mmp_error_errno(err, -errno, "read %s", path) : 0;
			break;
		}
		if (made->fill == MMP_FILL_RANDOM)
			rng_fill(&r, want, n);
		rc = memcmp(have, want, n) == 0;
		off += n;
	}
out:
	if (fd >= 0)
		close(fd);
	free(have);
	free(want);
	return rc;
}

const char *mmp_datafile_kind(unsigned mode)
{
	return S_ISDIR(mode)    ? "a directory"
	       : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISCHR(mode)  ? "a character device"
	       : S_ISBLK(mode)  ? "a block device"
	       : S_ISSOCK(mode) ? "a socket"
	       : S_ISREG(mode)  ? "a regular file"
				: "not a regular file";
}

/* Did mmprof make the file at path (st)?  1 with found filled, 0 not
 * (*changed: a marker for its size is there but the bytes are others),
 * or a negative errno. */
static int made_by_mmprof(const char *path, const struct stat *st,
			  const volatile sig_atomic_t *stop, struct mmp_data_found *found,
			  int *changed, struct mmp_error *err)
{
	struct marker m;
	enum mmp_fill fill;

	*changed = 0;
	if (marker_read(path, &m) || m.size != (uint64_t)st->st_size || fill_named(m.fill, &fill))
		return 0;
	found->made = (struct mmp_data_spec){ .size = m.size, .fill = fill, .seed = m.seed };
	if (!marker_matches(&m, st)) {
		int rc = same_bytes(path, &found->made, stop, err);
		if (rc <= 0) {
			*changed = rc == 0;
			return rc;
		}
		found->copy = 1;
	}
	found->ours = 1;
	return 1;
}

int mmp_datafile_decide(const char *path, const struct mmp_data_spec *spec,
			const volatile sig_atomic_t *stop, enum mmp_data_verdict *verdict,
			struct mmp_data_found *found, struct mmp_error *err)
{
	struct stat st;
	struct mmp_data_found local;
	char want[32], have[32];
	int changed;

	if (!found)
		found = &local;
	memset(found, 0, sizeof(*found));
	*verdict = MMP_DATA_CREATE;
	if (stat(path, &st)) {
		if (errno != ENOENT)
			return mmp_error_errno(err, -errno, "stat %s", path);
		if (!spec->size)
			return mmp_error_set(err, -ENOENT,
					     "%s does not exist (without size a named file is "
					     "read as it is, never created: set size, and fill "
					     "and seed, in a config to have mmprof create it)",
					     path);
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return mmp_error_set(err, -EINVAL, "%s is not a regular file (%s)", path,
				     mmp_datafile_kind(st.st_mode));
	int rc = made_by_mmprof(path, &st, stop, found, &changed, err);
	if (rc < 0)
		return rc;
	if (rc) {
		const struct mmp_data_spec *m = &found->made;
		int same = (!spec->size || spec->size == m->size) && spec->fill == m->fill &&
			   m->seed == spec->seed;
		/* mmprof's own file with other contents is replaced, unless no
		 * size is asked for: then it is read as it is. */
		*verdict = same || !spec->size ? MMP_DATA_REUSE : MMP_DATA_CREATE;
		return 0;
	}
	if (!spec->file && changed)
		return mmp_error_set(err, -EEXIST,
				     "%s exists but its bytes are not the ones %s%s describes "
				     "(written since mmprof made it, or another file put under "
				     "its name); refusing to overwrite it: move both away (or "
				     "delete them) to have it made again, or use it as it is "
				     "with file = %s",
				     path, path, MMP_MARKER_SUFFIX, path);
	if (!spec->file)
		return mmp_error_set(err, -EEXIST,
				     "%s exists but mmprof did not create it (no matching "
				     "%s%s); refusing to overwrite it: move it away, or "
				     "use it with file = %s",
				     path, path, MMP_MARKER_SUFFIX, path);
	if (spec->size && spec->size != (uint64_t)st.st_size)
		return mmp_error_set(err, -EEXIST,
				     "%s exists (%s) and mmprof did not create it; "
				     "refusing to rewrite it as size = %s: remove `size` "
				     "to read it as it is, or name a new file",
				     path, mmp_format_size((uint64_t)st.st_size, have, sizeof(have)),
				     mmp_format_size(spec->size, want, sizeof(want)));
	if (st.st_size == 0)
		return mmp_error_set(err, -EINVAL, "%s is empty: nothing to read", path);
	*verdict = MMP_DATA_USER;
	return 0;
}

/* The directory a new file would be created in, or for the data directory
 * (made when missing) the closest part of it that exists. */
static int creatable_in(const char *path, const struct mmp_data_spec *spec, const char *dir,
			char *where, size_t len, struct mmp_error *err)
{
	const char *base;
	struct stat st;

	if (spec->file) {
		if (mmp_path_split(path, where, len, &base))
			return mmp_error_set(err, -ENAMETOOLONG, "data file path too long");
		if (stat(where, &st))
			return mmp_error_errno(err, -errno,
					       "cannot create %s: its directory %s is missing", path,
					       where);
		if (!S_ISDIR(st.st_mode))
			return mmp_error_set(err, -ENOTDIR,
					     "cannot create %s: %s is not a directory", path, where);
		return 0;
	}
	if ((size_t)snprintf(where, len, "%s", dir) >= len)
		return mmp_error_set(err, -ENAMETOOLONG, "data directory path too long");
	while (stat(where, &st)) {
		if (errno != ENOENT)
			return mmp_error_errno(err, -errno, "cannot create %s: stat %s", path,
					       where);
		char *slash = strrchr(where, '/');
		if (!slash)
			snprintf(where, len, ".");
		else if (slash == where)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (!S_ISDIR(st.st_mode))
		return mmp_error_set(err, -ENOTDIR, "cannot create %s: %s is not a directory",
				     path, where);
	return 0;
}

int mmp_datafile_check(const struct mmp_data_spec *spec, const char *dir,
		       struct mmp_error *err)
{
	char path[4096], where[4096];
	enum mmp_data_verdict v;
	struct statvfs vfs;

	if (mmp_datafile_path(spec, dir, path, sizeof(path)))
		return mmp_error_set(err, -ENAMETOOLONG, "data file path too long");
	int rc = mmp_datafile_decide(path, spec, NULL, &v, NULL, err);
	if (rc)
		return rc;
	if (v != MMP_DATA_CREATE) {
		if (access(path, R_OK))
			return mmp_error_errno(err, -errno, "cannot read %s", path);
		return 0;
	}
	rc = creatable_in(path, spec, dir, where, sizeof(where), err);
	if (rc)
		return rc;
	if (access(where, W_OK | X_OK))
		return mmp_error_errno(err, -errno, "cannot create %s in %s", path, where);
	/* A temporary a killed creation left is removed before this file is
	 * created (datafile_create.c): its space is free for it.  Counted as
	 * used, every later run was refused "not enough space". */
	uint64_t avail = 0;
	int known = statvfs(where, &vfs) == 0;
	if (known)
		avail = (uint64_t)vfs.f_bavail * vfs.f_frsize + mmp_datafile_leftover_bytes(path);
	if (known && avail < mmp_datafile_space_needed(spec->size)) {
		char need[32], margin[32], free_[32];
		return mmp_error_set(
			err, -ENOSPC,
			"not enough space for %s (%s, plus %s to spare; %s free); set "
			"MMPROF_DATA to a larger file system",
			path, mmp_format_size(spec->size, need, sizeof(need)),
			mmp_format_size(mmp_datafile_space_needed(spec->size) - spec->size, margin,
					sizeof(margin)),
			mmp_format_size(avail, free_, sizeof(free_)));
	}
	return 0;
}

int mmp_datafile_recheck(const struct mmp_datafile *df, struct mmp_error *err)
{
	struct stat now, there;
	char a[32], b[32];

	if (df->fd < 0 || fstat(df->fd, &now))
		return mmp_error_errno(err, df->fd < 0 ? -EBADF : -errno, "stat %s", df->path);
	if ((uint64_t)now.st_size != df->size)
		return mmp_error_set(err, -ESTALE,
				     "the data file %s changed during the run (size %s -> %s)",
				     df->path, mmp_format_size(df->size, a, sizeof(a)),
				     mmp_format_size((uint64_t)now.st_size, b, sizeof(b)));
	if (mmp_mtime_ns(&now) != df->mtime_ns)
		return mmp_error_set(err, -ESTALE,
				     "the data file %s changed during the run (written to; "
				     "size %s)",
				     df->path, mmp_format_size(df->size, a, sizeof(a)));
	if (stat(df->path, &there))
		return mmp_error_set(err, -ESTALE,
				     "the data file %s changed during the run (removed)", df->path);
	if ((uint64_t)there.st_ino != df->ino || (uint64_t)there.st_dev != df->dev)
		return mmp_error_set(err, -ESTALE,
				     "the data file %s changed during the run (replaced by "
				     "another file)",
				     df->path);
	return 0;
}
