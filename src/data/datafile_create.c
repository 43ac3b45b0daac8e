/* Creating a data file (see datafile.h): under its lock, into a
 * temporary, marker, rename; and removing what killed creators left.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "datafile_impl.h"
#include "util/lockfile.h"
#include "util/paths.h"
#include "util/units.h"

static int write_all(int fd, const uint8_t *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A temporary beside a data file: PATH.tmp.PID or PATH.mmprof.tmp.PID.
 * O_EXCL|O_NOFOLLOW: a symbolic link planted at that name (the data
 * directory may be shared) is never written through.  The name is our
 * PID's, so one already there is a leftover of an earlier process that had
 * this PID, or planted: remove the name (never what it points to) and try
 * once more. */
static int open_temporary(const char *name, struct mmp_error *err)
{
	for (int attempt = 0;; attempt++) {
		int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST || attempt || unlink(name))
			return mmp_error_errno(err, -errno, "create %s", name);
	}
}

int mmp_datafile_write_marker(const char *path, const struct mmp_data_spec *spec,
			      const struct stat *st, struct mmp_error *err)
{
	char name[4200], tmp[4300];
	snprintf(name, sizeof(name), "%s%s", path, MMP_MARKER_SUFFIX);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", name, (int)getpid());
	int fd = open_temporary(tmp, err);
	if (fd < 0)
		return fd;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int rc = mmp_error_errno(err, -errno, "write %s", tmp);
		close(fd);
		unlink(tmp);
		return rc;
	}
	fprintf(f,
		"mmprof data file v1\nsize=%" PRIu64 "\nfill=%s\nseed=%" PRIu64
		"\ninode=%" PRIu64 "\nmtime_ns=%" PRId64 "\n",
		(uint64_t)st->st_size, mmp_fill_names[spec->fill], spec->seed,
		(uint64_t)st->st_ino, mmp_mtime_ns(st));
	errno = 0;
	int bad = fflush(f) || ferror(f);
	int e = errno ? errno : EIO;
	if (fclose(f) || bad) {
		int rc = mmp_error_errno(err, -(bad ? e : errno), "write %s", tmp);
		unlink(tmp);
		return rc;
	}
	if (rename(tmp, name)) {
		int rc = mmp_error_errno(err, -errno, "rename %s", tmp);
		unlink(tmp);
		return rc;
	}
	return 0;
}

uint64_t mmp_datafile_space_needed(uint64_t size)
{
	uint64_t margin = size / 16;
	if (margin < (UINT64_C(1) << 20))
		margin = UINT64_C(1) << 20;
	if (margin > (UINT64_C(64) << 20))
		margin = UINT64_C(64) << 20;
	return size > UINT64_MAX - margin ? UINT64_MAX : size + margin;
}

/* Write the data to a temporary file, then the marker, then rename the
 * data into place, all under the file's lock: an interrupted creation
 * leaves no half-written file under the real name, and a creator killed
 * between the marker and the rename leaves a marker without its file,
 * which is harmless (the other order would leave a file without a marker,
 * which the next run refuses as the user's).  The marker is written from
 * the temporary's stat: a rename keeps the inode and the mtime.  No fsync:
 * a data file lost in a power cut is regenerated from its seed. */
static int create(const char *path, const struct mmp_data_spec *spec,
		  const volatile sig_atomic_t *stop, double *rate, struct mmp_error *err)
{
	char tmp[4200];
	struct statvfs vfs;
	struct stat st;
	struct rng r;
	uint8_t *buf = NULL;
	int fd, rc = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open_temporary(tmp, err);
	if (fd < 0)
		return fd;
	if (fstatvfs(fd, &vfs) == 0 &&
	    (uint64_t)vfs.f_bavail * vfs.f_frsize < mmp_datafile_space_needed(spec->size)) {
		char need[32], margin[32];
		rc = mmp_error_set(err, -ENOSPC,
				   "not enough space for %s (%s, plus %s to spare); set "
				   "MMPROF_DATA to a larger file system",
				   path, mmp_format_size(spec->size, need, sizeof(need)),
				   mmp_format_size(mmp_datafile_space_needed(spec->size) - spec->size,
						   margin, sizeof(margin)));
		goto fail;
	}
	buf = malloc(MMP_DATA_CHUNK);
	if (!buf) {
		rc = mmp_error_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	if (spec->fill == MMP_FILL_ZERO)
		memset(buf, 0, MMP_DATA_CHUNK);
	else
		rng_seed(&r, spec->seed);

	uint64_t t0 = mmp_now_ns();
	for (uint64_t done = 0; done < spec->size;) {
		size_t n = spec->size - done < MMP_DATA_CHUNK ? (size_t)(spec->size - done)
							      : MMP_DATA_CHUNK;
		if (stop && *stop) {
			rc = mmp_error_set(err, -EINTR, "interrupted while creating %s", path);
			goto fail;
		}
		if (spec->fill == MMP_FILL_RANDOM)
			rng_fill(&r, buf, n);
		rc = write_all(fd, buf, n);
		if (rc) {
			mmp_error_errno(err, rc, "write %s", tmp);
			goto fail;
		}
		done += n;
	}
	uint64_t t1 = mmp_now_ns();
	*rate = (double)spec->size * 1e9 / (double)(t1 > t0 ? t1 - t0 : 1);
	if (fstat(fd, &st)) {
		rc = mmp_error_errno(err, -errno, "stat %s", tmp);
		goto fail;
	}
	if (close(fd)) {
		fd = -1;
		rc = mmp_error_errno(err, -errno, "close %s", tmp);
		goto fail;
	}
	fd = -1;
	rc = mmp_datafile_write_marker(path, spec, &st, err);
	if (rc)
		goto fail;
	if (rename(tmp, path)) {
		rc = mmp_error_errno(err, -errno, "rename %s to %s", tmp, path);
		goto fail;
	}
	free(buf);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(buf);
	return rc;
}

static void add_note(struct mmp_datafile *df, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_note(struct mmp_datafile *df, const char *fmt, ...)
{
	size_t used = strlen(df->note);
	va_list ap;
	if (used && used + 2 < sizeof(df->note)) {
		memcpy(df->note + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(df->note + used, sizeof(df->note) - used, fmt, ap);
	va_end(ap);
}

/* What creators of path that died left beside it: PATH.tmp.PID and
 * PATH.mmprof.tmp.PID whose PID no longer exists, each given to fn with
 * its PID (and an unheld lock file, when unheld_lock is not NULL).  A
 * live creator's are spared (its PID exists). */
static void each_leftover(const char *path, void (*fn)(void *, const char *, long), void *arg,
			  void (*unheld_lock)(const char *))
{
	char dir[4096], victim[4096 + 256], data[300], marker[300], lock[300];
	const char *base;
	if (mmp_path_split(path, dir, sizeof(dir), &base))
		return;
	int nd = snprintf(data, sizeof(data), "%s.tmp.", base);
	int nm = snprintf(marker, sizeof(marker), "%s%s.tmp.", base, MMP_MARKER_SUFFIX);
	snprintf(lock, sizeof(lock), ".%s.lock", base);
	if (nd < 0 || (size_t)nd >= sizeof(data) || nm < 0 || (size_t)nm >= sizeof(marker))
		return;
	DIR *d = opendir(dir);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		int n = strncmp(e->d_name, data, (size_t)nd) == 0	 ? nd
			: strncmp(e->d_name, marker, (size_t)nm) == 0 ? nm
								      : 0;
		snprintf(victim, sizeof(victim), "%s/%s", dir, e->d_name);
		if (!n) {
			if (unheld_lock && strcmp(e->d_name, lock) == 0)
				unheld_lock(victim);
			continue;
		}
		char *end;
		long pid = strtol(e->d_name + n, &end, 10);
		if (*end || end == e->d_name + n || pid <= 0 || mmp_pid_alive((pid_t)pid))
			continue;
		fn(arg, victim, pid);
	}
	closedir(d);
}

struct removal {
	struct mmp_datafile *df;
	const char *path;
};

static void remove_one(void *arg, const char *victim, long pid)
{
	struct removal *r = arg;
	if (unlink(victim) == 0)
		add_note(r->df, "removed %s, left by an mmprof (PID %ld) that stopped while "
				"creating %s",
			 victim, pid, r->path);
}

/* A lock nobody holds: its holder was killed. */
static void release_unheld(const char *lockpath)
{
	struct mmp_lock lk;
	if (mmp_lock_take(&lk, lockpath, 0, NULL, NULL, NULL) == 0)
		mmp_lock_release(&lk);
}

static void remove_leftovers(const char *path, struct mmp_datafile *df)
{
	struct removal r = { df, path };
	each_leftover(path, remove_one, &r, release_unheld);
}

static void add_bytes(void *arg, const char *victim, long pid)
{
	struct stat st;
	(void)pid;
	if (lstat(victim, &st) == 0 && S_ISREG(st.st_mode))
		*(uint64_t *)arg += (uint64_t)st.st_blocks * 512;
}

uint64_t mmp_datafile_leftover_bytes(const char *path)
{
	uint64_t bytes = 0;
	each_leftover(path, add_bytes, &bytes, NULL);
	return bytes;
}

/* "8KiB, zero, seed 1": what a spec asks the bytes to be. */
static const char *spec_text(const struct mmp_data_spec *spec, char *buf, size_t len)
{
	char size[32];
	snprintf(buf, len, "%s, %s, seed %" PRIu64, mmp_format_size(spec->size, size, sizeof(size)),
		 mmp_fill_names[spec->fill], spec->seed);
	return buf;
}

/* A copy of mmprof's file (found by its bytes): its marker is made to
 * name this file, so the next run reuses it without reading it first. */
static int adopt_copy(const char *path, const struct mmp_data_found *found,
		      struct mmp_datafile *out, struct mmp_error *err)
{
	struct stat st;
	if (stat(path, &st))
		return mmp_error_errno(err, -errno, "stat %s", path);
	int rc = mmp_datafile_write_marker(path, &found->made, &st, err);
	if (rc == 0)
		add_note(out, "%s: a copy of a file mmprof made (same bytes); its marker now "
			      "names this one",
			 path);
	return rc;
}

/* Decide what to do with what is at path: reuse, (re)create or refuse.
 * Creating, refusing (the file may be another mmprof's, half way
 * through replacing it) and adopting a copy are decided again under the
 * file's lock, so a second creator waits for the first and then reuses
 * its file. */
int mmp_datafile_prepare(const char *path, const struct mmp_data_spec *spec, const char *dir,
			 const volatile sig_atomic_t *stop, struct mmp_datafile *out,
			 struct mmp_error *err)
{
	enum mmp_data_verdict v;
	struct mmp_data_found found;
	char lockname[4096 + 16], ldir[4096], was[96], now[96];
	const char *base;
	struct mmp_lock lk;
	struct mmp_error lerr = { 0 };

	remove_leftovers(path, out);
	int rc = mmp_datafile_decide(path, spec, stop, &v, &found, err);
	if (rc == 0 && v != MMP_DATA_CREATE && !found.copy) {
		out->generated = v == MMP_DATA_REUSE;
		return 0;
	}
	if (rc && rc != -EEXIST)
		return rc;
	if (!spec->file) {
		int mrc = mmp_mkdirs(dir, rc ? &lerr : err);
		if (mrc)
			return rc ? rc : mrc;
	}
	if (mmp_path_split(path, ldir, sizeof(ldir), &base))
		return mmp_error_set(err, -ENAMETOOLONG, "data file path too long");
	snprintf(lockname, sizeof(lockname), "%s/.%s.lock", ldir, base);
	int lrc = mmp_lock_take(&lk, lockname, 1, stop, NULL, &lerr);
	if (lrc) {
		/* No lock (a read-only directory): a refusal stands as it was,
		 * and a copy is read as mmprof's without its marker updated. */
		if (rc && lrc != -EINTR)
			return rc;
		if (!rc && v == MMP_DATA_REUSE && lrc != -EINTR) {
			out->generated = 1;
			return 0;
		}
		*err = lerr;
		return lrc;
	}
	mmp_error_clear(err);
	rc = mmp_datafile_decide(path, spec, stop, &v, &found, err);
	if (rc == 0 && v == MMP_DATA_REUSE && found.copy)
		rc = adopt_copy(path, &found, out, err);
	if (rc == 0 && v == MMP_DATA_CREATE) {
		if (found.ours)
			add_note(out, "replacing %s (%s, made by mmprof) with %s", path,
				 spec_text(&found.made, was, sizeof(was)),
				 spec_text(spec, now, sizeof(now)));
		rc = create(path, spec, stop, &out->create_bytes_per_s, err);
		out->created = rc == 0;
	}
	if (rc == 0)
		out->generated = v != MMP_DATA_USER;
	mmp_lock_release(&lk);
	return rc;
}
