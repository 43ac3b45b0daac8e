/* Lock files (see lockfile.h). */
#include "util/lockfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How often a waiting process retries: short enough that Ctrl-C is
 * honoured at once, long enough to cost nothing while a 1 GiB data file
 * is written by the holder. */
#define POLL_NS 20000000L

int mmp_pid_alive(pid_t pid)
{
	if (pid <= 0)
		return 0;
	/* EPERM: it exists but belongs to someone else. */
	return kill(pid, 0) == 0 || errno == EPERM;
}

static pid_t read_holder(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	long pid = strtol(buf, NULL, 10);
	return pid > 0 ? (pid_t)pid : 0;
}

/* Still the file at path?  A previous holder removes the file while it
 * holds the lock, so a process that opened it just before and locked it
 * just after holds a lock on a file nobody else can find: start again. */
static int still_there(int fd, const char *path)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int mmp_lock_take(struct mmp_lock *lk, const char *path, int wait,
		  const volatile sig_atomic_t *stop, pid_t *holder, struct mmp_error *err)
{
	struct timespec pause = { 0, POLL_NS };
	struct stat st;

	lk->fd = -1;
	if (holder)
		*holder = 0;
	if ((size_t)snprintf(lk->path, sizeof(lk->path), "%s", path) >= sizeof(lk->path))
		return mmp_error_set(err, -ENAMETOOLONG, "lock file name too long: %s", path);
	for (;;) {
		int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
		if (fd < 0)
			return mmp_error_errno(err, -errno, "create lock file %s", path);
		if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			close(fd);
			return mmp_error_set(err, -EINVAL, "lock file %s is not a regular file",
					     path);
		}
		while (flock(fd, LOCK_EX | LOCK_NB)) {
			int e = errno;
			if (e == EINTR)
				continue;
			if (e != EWOULDBLOCK) {
				close(fd);
				return mmp_error_errno(err, -e, "lock %s", path);
			}
			if (!wait || (stop && *stop)) {
				if (holder)
					*holder = read_holder(fd);
				close(fd);
				return wait ? mmp_error_set(err, -EINTR, "interrupted while "
									 "waiting for %s",
							    path)
					    : -EWOULDBLOCK;
			}
			nanosleep(&pause, NULL);
		}
		if (!still_there(fd, path)) {
			close(fd);
			continue;
		}
		char pid[32];
		int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
		/* The PID is for messages only: a failure to write it is not a
		 * failure to lock (a reader then says "PID unknown"). */
		if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, (size_t)n, 0) != n)
			pid[0] = '\0';
		lk->fd = fd;
		return 0;
	}
}

void mmp_lock_release(struct mmp_lock *lk)
{
	if (lk->fd < 0)
		return;
	/* Unlink while still holding it: see still_there(). */
	unlink(lk->path);
	close(lk->fd);
	lk->fd = -1;
}
