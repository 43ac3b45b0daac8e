/* Bulk reads: the calls interposed (see bulk_reads.h).  read and pread
 * are answered from the buffer; lseek answered (SEEK_SET, SEEK_CUR) or
 * passed on at the program's position; every other call that reads a
 * descriptor through the kernel's position, shares the descriptor with
 * a copy or a child, or writes its file, makes it step aside first, so
 * the kernel's position is the program's when the call runs.  Calls the
 * kernel directly where it can (so these reads are not cancellation
 * points); the library functions it wraps (fdopen, fclose, spawn,
 * system, exec) are found with dlsym(RTLD_NEXT).
 *
 * Not seen: splice, libc's own calls (a FILE's fread, and fopen's open: its fd
 * is taken only when read() is called on it), clone() without fork, the
 * execl family (execve, execv, execvp, execvpe and fexecve are seen),
 * and another process sharing the description while the program runs
 * (a child it forks or spawns is seen). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bulk_reads.h"

/* The fortified entry points (_FORTIFY_SOURCE) the program may call. */
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
void __chk_fail(void) __attribute__((noreturn));

#define REAL(name)                                                                          \
	static __typeof__(name) *real_##name;                                               \
	if (!real_##name)                                                                   \
		real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

ssize_t read(int fd, void *buf, size_t n)
{
	ssize_t r;
	if (bulk_read(fd, buf, n, &r))
		return r;
	return syscall(SYS_read, fd, buf, n);
}

ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	if (n > buflen)
		__chk_fail();
	return read(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	ssize_t r;
	if (bulk_pread(fd, buf, n, off, &r))
		return r;
	return syscall(SYS_pread64, fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	return pread(fd, buf, n, off);
}

ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	if (n > buflen)
		__chk_fail();
	return pread(fd, buf, n, off);
}

ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	return __pread_chk(fd, buf, n, off, buflen);
}

off_t lseek(int fd, off_t off, int whence)
{
	off_t r;
	if (bulk_lseek(fd, off, whence, &r))
		return r;
	return (off_t)syscall(SYS_lseek, fd, off, whence);
}

off_t lseek64(int fd, off_t off, int whence)
{
	return lseek(fd, off, whence);
}

int close(int fd)
{
	bulk_closing(fd);
	return (int)syscall(SYS_close, fd);
}

int dup(int fd)
{
	int r = (int)syscall(SYS_dup, fd);
	if (r >= 0)
		bulk_duplicated(fd, r);
	return r;
}

int dup3(int fd, int to, int flags)
{
	if (fd != to)
		bulk_closing(to); /* the kernel closes it */
	int r = (int)syscall(SYS_dup3, fd, to, flags);
	if (r >= 0)
		bulk_duplicated(fd, r);
	return r;
}

int dup2(int fd, int to)
{
	if (fd == to) /* the kernel's answer: fd when it is open */
		return (int)syscall(SYS_fcntl, fd, F_GETFD) < 0 ? -1 : fd;
	return dup3(fd, to, 0);
}

/* fcntl's third argument is an int or a pointer: passed on as one, to
 * libc's fcntl (it turns F_GETOWN into F_GETOWN_EX, whose process-group
 * answer a raw call's negative value would lose). */
static int fcntl_any(int fd, int cmd, void *arg)
{
	REAL(fcntl);
	if (cmd == F_SETFL && ((long)arg & O_DIRECT))
		bulk_step_aside(fd, "odirect");
	int r = real_fcntl ? real_fcntl(fd, cmd, arg) : (int)syscall(SYS_fcntl, fd, cmd, arg);
	if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
		bulk_duplicated(fd, r);
	return r;
}

int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_any(fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...);
int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_any(fd, cmd, arg);
}

/* A new descriptor at a number the library may have known. */
static int opened(int fd)
{
	if (fd >= 0)
		bulk_fresh(fd);
	return fd;
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

int openat(int dir, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	return opened((int)syscall(SYS_openat, dir, path, flags, mode));
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	return opened((int)syscall(SYS_openat, AT_FDCWD, path, flags, mode));
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	return opened((int)syscall(SYS_openat, AT_FDCWD, path, flags, mode));
}

int openat64(int dir, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	return opened((int)syscall(SYS_openat, dir, path, flags, mode));
}

int creat(const char *path, mode_t mode)
{
	return opened((int)syscall(SYS_openat, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode));
}

/* Calls that read through the kernel's position: it must be the
 * program's first, and the buffer cannot follow them. */
ssize_t readv(int fd, const struct iovec *iov, int n)
{
	bulk_step_aside(fd, "readv");
	return syscall(SYS_readv, fd, iov, n);
}

ssize_t sendfile(int out, int in, off_t *off, size_t n)
{
	if (!off)
		bulk_step_aside(in, "sendfile");
	bulk_writing(out);
	return syscall(SYS_sendfile, out, in, off, n);
}

ssize_t sendfile64(int out, int in, off_t *off, size_t n)
{
	return sendfile(out, in, off, n);
}

ssize_t copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t n, unsigned flags)
{
	if (!in_off)
		bulk_step_aside(in, "sendfile");
	bulk_writing(out);
	return syscall(SYS_copy_file_range, in, in_off, out, out_off, n, flags);
}

/* A FILE on the descriptor reads it through libc's own read. */
FILE *fdopen(int fd, const char *mode)
{
	REAL(fdopen);
	bulk_step_aside(fd, "fdopen");
	return real_fdopen ? real_fdopen(fd, mode) : NULL;
}

/* fclose closes its descriptor with libc's own close. */
int fclose(FILE *f)
{
	REAL(fclose);
	if (f)
		bulk_closing(fileno(f));
	return real_fclose(f);
}

/* Writes: a served file written through another descriptor. */
ssize_t write(int fd, const void *buf, size_t n)
{
	bulk_writing(fd);
	return syscall(SYS_write, fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	bulk_writing(fd);
	return syscall(SYS_pwrite64, fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite(fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	bulk_writing(fd);
	return syscall(SYS_writev, fd, iov, n);
}

int ftruncate(int fd, off_t len)
{
	bulk_writing(fd);
	return (int)syscall(SYS_ftruncate, fd, len);
}

int ftruncate64(int fd, off_t len)
{
	return ftruncate(fd, len);
}

/* Children share the descriptors' positions: each served one steps
 * aside before (fork's prepare handler), and none not yet read is taken
 * after.  vfork is left alone -- a wrapper's frame would not survive the
 * child returning through it -- and needs nothing: its child shares this
 * memory, so the exec or _exit it calls steps the parent's descriptors
 * aside too. */
static void before_fork(void)
{
	bulk_before_child("fork");
}

/* Registered whatever the mode: the constructor that reads it may run
 * after this one (before_fork does nothing then). */
__attribute__((constructor)) static void bulk_calls_start(void)
{
	pthread_atfork(before_fork, NULL, NULL);
}

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	REAL(posix_spawn);
	bulk_before_child("spawn");
	return real_posix_spawn ? real_posix_spawn(pid, path, fa, attr, argv, envp) : ENOSYS;
}

int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	REAL(posix_spawnp);
	bulk_before_child("spawn");
	return real_posix_spawnp ? real_posix_spawnp(pid, file, fa, attr, argv, envp) : ENOSYS;
}

int system(const char *cmd)
{
	REAL(system);
	bulk_before_child("spawn");
	return real_system ? real_system(cmd) : -1;
}

/* An exec keeps the descriptors: their positions must be the program's. */
int execve(const char *path, char *const argv[], char *const envp[])
{
	bulk_before_child("exec");
	return (int)syscall(SYS_execve, path, argv, envp);
}

int execv(const char *path, char *const argv[])
{
	REAL(execv);
	bulk_before_child("exec");
	return real_execv(path, argv);
}

int execvp(const char *file, char *const argv[])
{
	REAL(execvp);
	bulk_before_child("exec");
	return real_execvp(file, argv);
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
	REAL(execvpe);
	bulk_before_child("exec");
	return real_execvpe(file, argv, envp);
}

int fexecve(int fd, char *const argv[], char *const envp[])
{
	REAL(fexecve);
	bulk_before_child("exec");
	return real_fexecve(fd, argv, envp);
}

/* _exit skips the destructors that put the positions back. */
void _exit(int status)
{
	bulk_sync_all();
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}
