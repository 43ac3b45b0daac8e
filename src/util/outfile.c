/* Result files (see outfile.h). */
#include "util/outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/paths.h"

static const char *const suffixes[MMP_OUT_COUNT] = {
	[MMP_OUT_CSV] = ".csv",
	[MMP_OUT_ATTRIBUTION] = ".attribution.csv",
	[MMP_OUT_THREADS] = ".threads.csv",
	[MMP_OUT_ANSWERS] = ".answers.csv",
	[MMP_OUT_EVENTS] = ".events.csv",
	[MMP_OUT_JSON] = ".json",
	[MMP_OUT_PROFILE] = ".profile.csv",
	[MMP_OUT_FOLDED] = ".profile.folded",
};

const char *mmp_out_suffix(enum mmp_out_kind kind)
{
	return (unsigned)kind < MMP_OUT_COUNT ? suffixes[kind] : "";
}

static void add_note(struct mmp_outset *set, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_note(struct mmp_outset *set, const char *fmt, ...)
{
	size_t used = strlen(set->note);
	va_list ap;
	if (used && used + 2 < sizeof(set->note)) {
		memcpy(set->note + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(set->note + used, sizeof(set->note) - used, fmt, ap);
	va_end(ap);
}

void mmp_outset_path(const struct mmp_outset *set, enum mmp_out_kind kind, char *buf,
		     size_t len)
{
	if (kind == MMP_OUT_CSV)
		snprintf(buf, len, "%s", set->target);
	else
		mmp_sibling_path(set->path, mmp_out_suffix(kind), buf, len);
}

int mmp_outset_has_companions(const struct mmp_outset *set)
{
	return !set->special;
}

/* Names of the process's own streams: "write there" means the stream, even
 * when it is redirected to a regular file (renaming a temporary over that
 * file would leave the shell's descriptor on the old, unlinked one). */
static int stream_alias(const char *path)
{
	return strcmp(path, "/dev/stdout") == 0 || strcmp(path, "/dev/stderr") == 0 ||
	       strncmp(path, "/dev/fd/", 8) == 0 || strncmp(path, "/proc/self/fd/", 14) == 0;
}

static const char *kind_of_file(mode_t mode)
{
	return S_ISDIR(mode)    ? "a directory"
	       : S_ISBLK(mode)  ? "a block device"
	       : S_ISSOCK(mode) ? "a socket"
				: "not a regular file";
}

/* What NAME.csv is: a device or FIFO (written directly), or a regular
 * file or a new name (written through a temporary).  A symbolic link is
 * followed, as fopen("w") did: the link stays and its target is replaced. */
static int classify(struct mmp_outset *set, struct mmp_error *err)
{
	struct stat st;
	snprintf(set->target, sizeof(set->target), "%s", set->path);
	if (stream_alias(set->path)) {
		set->special = 1;
		return 0;
	}
	if (lstat(set->path, &st)) {
		if (errno == ENOENT)
			return 0;
		return mmp_error_errno(err, -errno, "cannot write %s", set->path);
	}
	if (S_ISLNK(st.st_mode)) {
		char resolved[PATH_MAX];
		if (stat(set->path, &st) || !realpath(set->path, resolved))
			return mmp_error_set(err, -EINVAL,
					     "%s is a symbolic link to a file that does not exist; "
					     "name the result file itself",
					     set->path);
		snprintf(set->target, sizeof(set->target), "%s", resolved);
		/* The file is replaced by a rename in the target's directory:
		 * when others can write there, a link (perhaps planted) makes
		 * mmprof create and rename files in a place anyone can race. */
		char dir[PATH_MAX];
		const char *base;
		struct stat ds;
		if (mmp_path_split(resolved, dir, sizeof(dir), &base) == 0 && stat(dir, &ds) == 0 &&
		    (ds.st_mode & S_IWOTH))
			return mmp_error_set(err, -EPERM,
					     "refusing to write results through the symbolic link "
					     "%s: it points into %s, which others can write (mode "
					     "%04o); name the file itself (--csv %s) if that is "
					     "meant",
					     set->path, dir, (unsigned)(ds.st_mode & 07777), resolved);
	}
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		set->special = 1;
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return mmp_error_set(err, S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL,
				     "cannot write results to %s: it is %s", set->path,
				     kind_of_file(st.st_mode));
	return 0;
}

/* Is the result file at path one of the run's inputs? */
static int check_protected(const char *path, const char *const *protect, size_t n,
			   struct mmp_error *err)
{
	char mine[PATH_MAX], theirs[PATH_MAX];
	struct stat a, b;
	int have_stat = stat(path, &a) == 0;
	int have_path = mmp_path_resolve(path, mine, sizeof(mine)) == 0;

	for (size_t i = 0; i < n; i++) {
		if (!protect[i])
			continue;
		int same = have_stat && stat(protect[i], &b) == 0 && a.st_dev == b.st_dev &&
			   a.st_ino == b.st_ino;
		if (!same && have_path && mmp_path_resolve(protect[i], theirs, sizeof(theirs)) == 0)
			same = strcmp(mine, theirs) == 0;
		if (same)
			return mmp_error_set(err, -EEXIST,
					     "refusing to write results to %s: it is %s, which this "
					     "run reads (a data file, its marker or the config); "
					     "choose another CSV path",
					     path, protect[i]);
	}
	return 0;
}

/* dir/.BASE followed by more: the hidden names beside a file. */
static int hidden_name(const char *path, const char *more, char *buf, size_t len)
{
	char dir[PATH_MAX];
	const char *base;
	if (mmp_path_split(path, dir, sizeof(dir), &base))
		return -ENAMETOOLONG;
	int n = snprintf(buf, len, "%s/.%s%s", dir, base, more);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Temporaries of this file left by runs that died: .BASE.tmp.PID with a
 * PID that no longer exists.  (The caller holds the set's lock, so no live
 * mmprof is writing them; the PID check spares one in another PID
 * namespace that does not honour it.) */
static void remove_stale(struct mmp_outset *set, const char *path)
{
	char dir[PATH_MAX], prefix[NAME_MAX + 16], victim[PATH_MAX + NAME_MAX + 2];
	const char *base;
	if (mmp_path_split(path, dir, sizeof(dir), &base))
		return;
	int plen = snprintf(prefix, sizeof(prefix), ".%s.tmp.", base);
	if (plen < 0 || (size_t)plen >= sizeof(prefix))
		return;
	DIR *d = opendir(dir);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		if (strncmp(e->d_name, prefix, (size_t)plen) != 0)
			continue;
		char *end;
		long pid = strtol(e->d_name + plen, &end, 10);
		if (*end || end == e->d_name + plen || pid <= 0 || mmp_pid_alive((pid_t)pid))
			continue;
		snprintf(victim, sizeof(victim), "%s/%s", dir, e->d_name);
		if (unlink(victim) == 0)
			add_note(set, "removed %s, left by an mmprof (PID %ld) that stopped before "
				      "finishing",
				 victim, pid);
	}
	closedir(d);
}

/* A lock on a file being written; held by another mmprof: who, and what
 * to do ("choose another CSV path"). */
static int take_lock(struct mmp_lock *lk, const char *lock, const char *path, const char *what,
		     struct mmp_error *err)
{
	pid_t holder;
	int rc = mmp_lock_take(lk, lock, 0, NULL, &holder, err);
	if (rc == -EWOULDBLOCK) {
		char who[64] = "another process";
		if (holder)
			snprintf(who, sizeof(who), "process %ld", (long)holder);
		return mmp_error_set(err, rc,
				     "%s is being written by another mmprof (%s holds %s); "
				     "wait for it to finish or choose another %s",
				     path, who, lock, what);
	}
	return rc;
}

int mmp_outset_open(struct mmp_outset *set, const char *csv_path, const char *const *protect,
		    size_t nprotect, struct mmp_error *err)
{
	char path[MMP_OUT_PATH_MAX], dir[PATH_MAX], lock[MMP_OUT_PATH_MAX + 16];
	const char *base;
	int rc;

	memset(set, 0, sizeof(*set));
	set->lock.fd = -1;
	if (!*csv_path)
		return mmp_error_set(err, -EINVAL, "empty CSV path");
	if ((size_t)snprintf(set->path, sizeof(set->path), "%s", csv_path) >= sizeof(set->path))
		return mmp_error_set(err, -ENAMETOOLONG, "CSV path too long: %s", csv_path);
	rc = classify(set, err);
	if (rc)
		return rc;
	for (int k = 0; k < (set->special ? 1 : MMP_OUT_COUNT); k++) {
		mmp_outset_path(set, (enum mmp_out_kind)k, path, sizeof(path));
		rc = check_protected(path, protect, nprotect, err);
		if (rc)
			return rc;
	}
	if (set->special)
		return 0;
	for (int k = 0; k < MMP_OUT_COUNT; k++)
		mmp_outset_path(set, (enum mmp_out_kind)k, set->kind_path[k],
				sizeof(set->kind_path[k]));

	if (mmp_path_split(set->target, dir, sizeof(dir), &base))
		return mmp_error_set(err, -ENAMETOOLONG, "CSV path too long: %s", csv_path);
	rc = mmp_mkdirs(dir, err);
	if (rc)
		return rc;
	mmp_sibling_path(set->target, ".csv", path, sizeof(path));
	if (hidden_name(path, ".lock", lock, sizeof(lock)))
		return mmp_error_set(err, -ENAMETOOLONG, "CSV path too long: %s", csv_path);
	rc = take_lock(&set->lock, lock, set->path, "CSV path", err);
	if (rc)
		return rc;
	for (int k = 0; k < MMP_OUT_COUNT; k++) {
		mmp_outset_path(set, (enum mmp_out_kind)k, path, sizeof(path));
		remove_stale(set, path);
	}
	return 0;
}

int mmp_outset_keep_previous(struct mmp_outset *set)
{
	if (set->special || strcmp(set->target, set->path) != 0)
		return -EINVAL;
	for (int k = 0; k < MMP_OUT_COUNT; k++) {
		char suffix[32];
		snprintf(suffix, sizeof(suffix), ".old%s", suffixes[k]);
		mmp_sibling_path(set->path, suffix, set->old_path[k], sizeof(set->old_path[k]));
	}
	set->keep_previous = 1;
	return 0;
}

/* The earlier set to NAME.old's, once, before this run's first file
 * replaces one of it: the bits of the files moved (none: there was no
 * NAME.csv, and nothing is touched).  Only lstat, unlink and rename: a
 * signal handler's too (mmp_outset_rescue). */
static unsigned move_previous(struct mmp_outset *set)
{
	struct stat st;
	unsigned moved = 0;
	if (!set->keep_previous || set->moved)
		return 0;
	set->moved = 1;
	if (lstat(set->kind_path[MMP_OUT_CSV], &st) || !S_ISREG(st.st_mode))
		return 0;
	/* NAME.old.* is one set too: none of the one before stays. */
	for (int k = 0; k < MMP_OUT_COUNT; k++)
		if (lstat(set->old_path[k], &st) == 0 && S_ISREG(st.st_mode))
			unlink(set->old_path[k]);
	for (int k = 0; k < MMP_OUT_COUNT; k++)
		if (lstat(set->kind_path[k], &st) == 0 && S_ISREG(st.st_mode) &&
		    rename(set->kind_path[k], set->old_path[k]) == 0)
			moved |= MMP_OUT_BIT(k);
	return moved;
}

static void say_moved(struct mmp_outset *set, unsigned moved)
{
	if (!(moved & MMP_OUT_BIT(MMP_OUT_CSV)))
		return;
	add_note(set, "the previous run's %s is now %s%s (one earlier set is kept)", set->path,
		 set->old_path[MMP_OUT_CSV],
		 moved & ~MMP_OUT_BIT(MMP_OUT_CSV) ? ", its companions renamed alike" : "");
}

/* Under each FILE: the descriptor (fsync needs it) and the first write
 * error.  stdio forgets why a buffer flush failed once ferror() is set;
 * "No space left on device" is the message a user needs, not "I/O
 * error". */
struct mmp_outsink {
	int fd;
	int first_errno;
	unsigned long long written; /* bytes write(2) took */
};

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
	struct mmp_outsink *s = cookie;
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(s->fd, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!s->first_errno)
				s->first_errno = w < 0 ? errno : EIO;
			errno = s->first_errno;
			/* Short (0 when nothing): fopencookie(3) wants no negative
			 * count; stdio then sets the stream's error flag. */
			return (ssize_t)done;
		}
		done += (size_t)w;
		s->written += (unsigned long long)w;
	}
	return (ssize_t)done;
}

static int sink_close(void *cookie)
{
	struct mmp_outsink *s = cookie;
	int rc = close(s->fd);
	free(s);
	return rc;
}

/* A FILE over fd that remembers its first write error; fd is closed with
 * it (or here, when that fails). */
static int open_stream(struct mmp_outfile *out, int fd)
{
	cookie_io_functions_t io = { .write = sink_write, .close = sink_close };
	out->sink = calloc(1, sizeof(*out->sink));
	if (out->sink) {
		out->sink->fd = fd;
		out->f = fopencookie(out->sink, "w", io);
		if (out->f)
			return 0;
	}
	free(out->sink);
	out->sink = NULL;
	close(fd);
	return -ENOMEM;
}

/* The errno of a failed flush: the first write error when there was one. */
static int write_errno(const struct mmp_outfile *out, int fallback)
{
	return out->sink && out->sink->first_errno ? -out->sink->first_errno : -fallback;
}

static int open_temporary(struct mmp_outfile *out, struct mmp_error *err)
{
	char more[32];
	snprintf(more, sizeof(more), ".tmp.%ld", (long)getpid());
	if (hidden_name(out->path, more, out->tmp, sizeof(out->tmp)))
		return mmp_error_set(err, -ENAMETOOLONG, "path too long: %s", out->path);
	for (int attempt = 0;; attempt++) {
		/* O_EXCL|O_NOFOLLOW: a name planted in a shared directory (a
		 * symbolic link to someone's file) is never written through. */
		int fd = open(out->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0) {
			int rc = open_stream(out, fd);
			if (rc)
				unlink(out->tmp);
			return rc ? mmp_error_errno(err, rc, "cannot write %s", out->path) : 0;
		}
		/* Our own PID's name: a leftover of an earlier process that had
		 * this PID, or a planted link.  Remove the name (never what it
		 * points to) and try once more. */
		if (errno != EEXIST || attempt || unlink(out->tmp))
			return mmp_error_errno(err, -errno, "cannot write %s (temporary %s)",
					       out->path, out->tmp);
	}
}

int mmp_outfile_open(struct mmp_outset *set, enum mmp_out_kind kind, struct mmp_outfile *out,
		     struct mmp_error *err)
{
	struct stat st;

	memset(out, 0, sizeof(*out));
	out->kind = kind;
	out->set = set;
	if ((unsigned)kind >= MMP_OUT_COUNT)
		return mmp_error_set(err, -EINVAL, "no such result file kind %d", (int)kind);
	mmp_outset_path(set, kind, out->path, sizeof(out->path));
	if (set->special && kind != MMP_OUT_CSV)
		return mmp_error_set(err, -EINVAL,
				     "%s is not a regular file: no result files are written "
				     "beside it",
				     set->path);
	if (set->special) {
		int fd = open(out->path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			return mmp_error_errno(err, -errno, "cannot write %s", out->path);
		int rc = open_stream(out, fd);
		if (rc)
			return mmp_error_errno(err, rc, "cannot write %s", out->path);
	} else {
		if (lstat(out->path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
			return mmp_error_set(err, S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL,
					     "cannot write %s: it is %s", out->path,
					     kind_of_file(st.st_mode));
		int rc = open_temporary(out, err);
		if (rc)
			return rc;
	}
	set->open |= MMP_OUT_BIT(kind);
	return 0;
}

int mmp_outfile_flush(struct mmp_outfile *out, struct mmp_error *err)
{
	if (!out->f)
		return 0;
	errno = 0;
	if (fflush(out->f) || ferror(out->f))
		return mmp_error_errno(err, write_errno(out, errno ? errno : EIO), "write %s",
				       out->path);
	if (out->sink)
		out->flushed = out->sink->written;
	return 0;
}

int mmp_outfile_failed(const struct mmp_outfile *out)
{
	return out->f && (ferror(out->f) || (out->sink && out->sink->first_errno));
}

int mmp_outfile_commit_written(struct mmp_outfile *out, struct mmp_error *err)
{
	if (!mmp_outfile_failed(out))
		return mmp_outfile_commit(out, err);
	if (!out->tmp[0] || !out->sink) {
		int rc = write_errno(out, EIO);
		mmp_error_errno(err, rc, "write %s", out->path);
		mmp_outfile_abandon(out);
		return rc;
	}
	/* What stdio still holds would fail again; the file past the last
	 * good flush is a row cut short. */
	__fpurge(out->f);
	clearerr(out->f);
	if (ftruncate(out->sink->fd, (off_t)out->flushed) ||
	    lseek(out->sink->fd, (off_t)out->flushed, SEEK_SET) < 0) {
		int rc = mmp_error_errno(err, -errno, "write %s (cutting it back)", out->path);
		mmp_outfile_abandon(out);
		return rc;
	}
	out->sink->first_errno = 0;
	return mmp_outfile_commit(out, err);
}

/* The rename reaches the disk with the directory: without this a power
 * cut can bring back the old NAME.csv (harmless, but not what was said). */
static void sync_dir(const char *path)
{
	char dir[PATH_MAX];
	const char *base;
	if (mmp_path_split(path, dir, sizeof(dir), &base))
		return;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd); /* best effort: some file systems refuse it */
		close(fd);
	}
}

/* NAME.csv is committed: companions of an earlier run go. */
static void prune(struct mmp_outset *set)
{
	char path[MMP_OUT_PATH_MAX];
	struct stat st;
	unsigned keep = set->open | set->committed;
	for (int k = 1; k < MMP_OUT_COUNT; k++) {
		if (keep & MMP_OUT_BIT(k))
			continue;
		mmp_outset_path(set, (enum mmp_out_kind)k, path, sizeof(path));
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && unlink(path) == 0)
			add_note(set, "removed %s of an earlier run (this run did not write it)",
				 path);
	}
}

/* The file the temporary replaces keeps its mode (a chmod 600 CSV stays
 * 600) and, when this user may give it, its owner and group: only root
 * may give a file away, and anyone else's rerun makes it theirs, as an
 * editor's save would.  The owner first: fchown clears set-id bits. */
static int keep_mode(struct mmp_outfile *out)
{
	struct stat was, now;
	if (stat(out->path, &was) || !S_ISREG(was.st_mode))
		return 0; /* a new file: created 0644 less the umask */
	if (fstat(out->sink->fd, &now) == 0 && (was.st_uid != now.st_uid || was.st_gid != now.st_gid))
		(void)!fchown(out->sink->fd, was.st_uid, was.st_gid);
	return fchmod(out->sink->fd, was.st_mode & 07777);
}

int mmp_outfile_commit(struct mmp_outfile *out, struct mmp_error *err)
{
	struct mmp_outset *set = out->set;
	int rc = 0;

	if (!out->f)
		return mmp_error_set(err, -EBADF, "%s is not open", out->path);
	errno = 0;
	if (fflush(out->f) || ferror(out->f))
		rc = mmp_error_errno(err, write_errno(out, errno ? errno : EIO), "write %s",
				     out->path);
	else if (out->tmp[0] && keep_mode(out))
		rc = mmp_error_errno(err, -errno, "write %s (keeping its mode)", out->path);
	else if (out->tmp[0] && fsync(out->sink->fd))
		rc = mmp_error_errno(err, -errno, "write %s (fsync)", out->path);
	if (fclose(out->f) && !rc)
		rc = mmp_error_errno(err, -errno, "write %s", out->path);
	out->f = NULL;
	out->sink = NULL; /* freed by fclose */
	if (set)
		set->open &= ~MMP_OUT_BIT(out->kind);
	if (!rc && set && out->tmp[0])
		say_moved(set, move_previous(set));
	if (!rc && out->tmp[0] && rename(out->tmp, out->path))
		rc = mmp_error_errno(err, -errno, "rename %s to %s", out->tmp, out->path);
	if (rc) {
		if (out->tmp[0])
			unlink(out->tmp);
		out->tmp[0] = '\0';
		return rc;
	}
	if (out->tmp[0])
		sync_dir(out->path);
	out->tmp[0] = '\0'; /* renamed: nothing left to abandon */
	if (!set)
		return 0;
	set->committed |= MMP_OUT_BIT(out->kind);
	if (out->kind == MMP_OUT_CSV && !set->special)
		prune(set);
	return 0;
}

int mmp_outfile_rescue(const struct mmp_outfile *out)
{
	return out->tmp[0] ? rename(out->tmp, out->path) : 0;
}

/* Append s to buf (len bytes, NUL-terminated): snprintf is not
 * async-signal-safe. */
static void put(char *buf, size_t len, size_t *at, const char *s)
{
	while (*s && *at + 1 < len)
		buf[(*at)++] = *s++;
	buf[*at] = '\0';
}

void mmp_outset_rescue(struct mmp_outset *set, const struct mmp_outfile *const *files,
		       size_t n, unsigned long rows, char *said, size_t len)
{
	unsigned kept = 0, removed = 0, moved = 0;
	size_t at = 0;
	struct stat st;

	said[0] = '\0';
	if (!rows) {
		for (size_t i = 0; i < n; i++)
			if (files[i]->f && files[i]->tmp[0])
				unlink(files[i]->tmp);
		put(said, len, &at, "mmprof: abandoned before a row was measured: ");
		put(said, len, &at, set->path);
		put(said, len, &at, " and its companions stay as they were\n");
		return;
	}
	moved = move_previous(set);
	if (moved & MMP_OUT_BIT(MMP_OUT_CSV)) {
		put(said, len, &at, "mmprof: the previous ");
		put(said, len, &at, set->path);
		put(said, len, &at, " is now ");
		put(said, len, &at, set->old_path[MMP_OUT_CSV]);
		put(said, len, &at, moved & ~MMP_OUT_BIT(MMP_OUT_CSV) ? ", with its companions\n"
								       : "\n");
	}
	put(said, len, &at, "mmprof: abandoned: the rows measured are in ");
	for (size_t i = 0; i < n; i++) {
		const struct mmp_outfile *f = files[i];
		if (!f->f || (f->tmp[0] && rename(f->tmp, f->path) != 0))
			continue;
		put(said, len, &at, kept ? ", " : "");
		put(said, len, &at, f->path);
		kept |= MMP_OUT_BIT(f->kind);
	}
	for (int k = 1; !set->special && (kept & MMP_OUT_BIT(MMP_OUT_CSV)) && k < MMP_OUT_COUNT;
	     k++) {
		const char *path = set->kind_path[k];
		if ((kept & MMP_OUT_BIT(k)) || lstat(path, &st) || !S_ISREG(st.st_mode) ||
		    unlink(path))
			continue;
		put(said, len, &at, removed ? ", " : "; removed an earlier run's ");
		put(said, len, &at, path);
		removed |= MMP_OUT_BIT(k);
	}
	put(said, len, &at, removed ? " (not this run's)" : "");
	put(said, len, &at, "; no answers, attribution, profile or JSON were written (one "
			    "Ctrl-C lets the repetition finish and writes them)\n");
}

void mmp_outfile_abandon(struct mmp_outfile *out)
{
	if (out->f) {
		fclose(out->f);
		out->f = NULL;
		out->sink = NULL;
		if (out->set)
			out->set->open &= ~MMP_OUT_BIT(out->kind);
	}
	if (out->tmp[0])
		unlink(out->tmp);
	out->tmp[0] = '\0';
}

/* Two names of one file: the same inode, or the same resolved path for a
 * file not made yet. */
static int same_file(const char *x, const char *y)
{
	char rx[PATH_MAX], ry[PATH_MAX];
	struct stat a, b;
	if (stat(x, &a) == 0 && stat(y, &b) == 0)
		return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	return mmp_path_resolve(x, rx, sizeof(rx)) == 0 && mmp_path_resolve(y, ry, sizeof(ry)) == 0 &&
	       strcmp(rx, ry) == 0;
}

int mmp_outset_kind_of(const struct mmp_outset *set, const char *path)
{
	char mine[MMP_OUT_PATH_MAX];
	for (int k = 0; k < (set->special ? 1 : MMP_OUT_COUNT); k++) {
		mmp_outset_path(set, (enum mmp_out_kind)k, mine, sizeof(mine));
		if (same_file(path, mine))
			return k;
	}
	return -1;
}

/* What a file of no set is, as classify() says for NAME.csv. */
static int check_alone(const char *path, const char *const *protect, size_t nprotect,
		       struct mmp_outset *as, struct mmp_error *err)
{
	memset(as, 0, sizeof(*as));
	as->lock.fd = -1;
	if (!*path)
		return mmp_error_set(err, -EINVAL, "empty output path");
	if ((size_t)snprintf(as->path, sizeof(as->path), "%s", path) >= sizeof(as->path))
		return mmp_error_set(err, -ENAMETOOLONG, "path too long: %s", path);
	int rc = classify(as, err);
	return rc ? rc : check_protected(path, protect, nprotect, err);
}

int mmp_outfile_check_alone(const char *path, const char *const *protect, size_t nprotect,
			    struct mmp_error *err)
{
	struct mmp_outset as;
	return check_alone(path, protect, nprotect, &as, err);
}

int mmp_outfile_open_alone(const char *path, const char *const *protect, size_t nprotect,
			   struct mmp_outfile *out, struct mmp_error *err)
{
	struct mmp_outset as;
	char dir[PATH_MAX];
	const char *base;

	memset(out, 0, sizeof(*out));
	out->kind = MMP_OUT_COUNT;
	int rc = check_alone(path, protect, nprotect, &as, err);
	if (rc)
		return rc;
	snprintf(out->path, sizeof(out->path), "%s", as.target);
	if (as.special) {
		int fd = open(out->path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			return mmp_error_errno(err, -errno, "cannot write %s", out->path);
		rc = open_stream(out, fd);
		return rc ? mmp_error_errno(err, rc, "cannot write %s", out->path) : 0;
	}
	if (mmp_path_split(out->path, dir, sizeof(dir), &base))
		return mmp_error_set(err, -ENAMETOOLONG, "path too long: %s", path);
	rc = mmp_mkdirs(dir, err);
	return rc ? rc : open_temporary(out, err);
}

int mmp_outset_lock_other(struct mmp_outset *set, const char *path, struct mmp_error *err)
{
	struct mmp_outset as;
	char dir[PATH_MAX], lock[MMP_OUT_PATH_MAX + 16];
	const char *base;

	int rc = check_alone(path, NULL, 0, &as, err);
	if (rc || as.special)
		return rc;
	if (mmp_path_split(as.target, dir, sizeof(dir), &base) ||
	    hidden_name(as.target, ".lock", lock, sizeof(lock)))
		return mmp_error_set(err, -ENAMETOOLONG, "path too long: %s", path);
	rc = mmp_mkdirs(dir, err);
	if (rc)
		return rc;
	rc = take_lock(&set->other, lock, path, "path", err);
	set->other_held = rc == 0;
	return rc;
}

void mmp_outset_close(struct mmp_outset *set)
{
	mmp_lock_release(&set->lock);
	if (set->other_held)
		mmp_lock_release(&set->other);
	set->other_held = 0;
}
