/* Lock files: one mmprof at a time on a result file or on the creation of
 * a data file.
 *
 * The lock is flock(LOCK_EX) on a small file beside what it protects,
 * holding the holder's PID as text so a refused process can say who holds
 * it.  flock rather than fcntl locks: an fcntl lock is dropped when the
 * process closes *any* descriptor of the file, and a flock is released by
 * the kernel when the holder dies, so a killed mmprof never leaves a lock
 * behind (only the file, which the next holder reuses or removes).
 */
#ifndef MMPROF_LOCKFILE_H
#define MMPROF_LOCKFILE_H

#include <signal.h>
#include <sys/types.h>

#include "util/error.h"

#define MMP_LOCK_PATH_MAX 4096

struct mmp_lock {
	int fd; /* -1: not held */
	char path[MMP_LOCK_PATH_MAX];
};

/* Take the lock at path, creating the file (0644 minus umask, never through
 * a symbolic link).  wait = 0: when another process holds it, return
 * -EWOULDBLOCK at once with its PID in *holder (0 when unknown; holder may
 * be NULL).  wait = 1: poll until it is free, returning -EINTR as soon as
 * *stop is set (stop may be NULL).  Other failures (a directory that is
 * missing or read-only) return a negative errno with the path in err. */
int mmp_lock_take(struct mmp_lock *lk, const char *path, int wait,
		  const volatile sig_atomic_t *stop, pid_t *holder, struct mmp_error *err);

/* Remove the lock file and release the lock.  Safe on a lock not held. */
void mmp_lock_release(struct mmp_lock *lk);

/* Is a process with this PID alive (as far as this PID namespace sees)? */
int mmp_pid_alive(pid_t pid);

#endif
