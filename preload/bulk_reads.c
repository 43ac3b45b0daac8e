/* Bulk reads: the buffers and the descriptors' states (see bulk_reads.h).
 *
 * Each served descriptor has a buffer of its own, a window of the file's
 * bytes [ws, ws + wlen), the program's position (lpos: where its next
 * read() starts) and the kernel's (kpos: where the last large read left
 * the description).  A small read is copied from the window, refilled
 * by one read() of BULK_BUF at lpos when lpos is outside it; so kpos runs
 * ahead of lpos, and every call whose effect depends on the kernel's
 * position -- anything the library does not answer itself -- is preceded
 * by an lseek back to lpos (the descriptor steps aside).
 *
 * Only a regular file opened read-only (not O_DIRECT, whose reads must
 * be aligned; not a pseudo file system, whose bytes are made at each
 * read) whose description no other descriptor of the process shares
 * (kcmp: dd opens its input and dup2s it onto 0, then closes the first)
 * is taken.  Its bytes are the page cache's either way: the program sees
 * what it would have read, unless the file is written while it reads
 * (the library sees the program's own writes to it, not another
 * process's, nor stores into a shared writable mapping of it).
 *
 * It reports, one line per event on the report descriptor:
 *   bulk PID FD CALLS SERVED SYSCALLS   the program's read calls on FD the
 *                            library answered, of them answered from the
 *                            buffer alone, and the system calls (read,
 *                            pread, lseek) it made for them; written when
 *                            the descriptor is closed, steps aside, or at
 *                            exit
 *   aside PID FD WHY         FD stepped aside (a word: dup, fork, spawn,
 *                            exec, write, readv, sendfile, fdopen,
 *                            odirect, full -- no free buffer)
 *   seenreads PID CALLS      survey mode: the read()s and pread()s under
 *                            BULK_SMALL of descriptors it would have
 *                            served, none served; written at exit
 *
 * Static buffers, no malloc: the library runs inside the program's
 * allocator's mmap() calls too. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bulk_reads.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "report_line.h"

#define BULK_SLOTS 16         /* descriptors served at once */
#define BULK_BUF (128u << 10) /* one refill: the kernel's default readahead window */
#define FD_MAX 1024           /* descriptors whose state is kept */

/* A descriptor number's state: a slot's index + 1 while served; in
 * survey mode FD_COUNTED, one it would serve. */
enum { FD_UNSEEN = 0, FD_NOT = -1, FD_ASIDE = -2, FD_COUNTED = -3 };

struct slot {
	atomic_flag lock; /* threads reading one descriptor take turns */
	int fd;           /* -1: free */
	dev_t dev;
	ino_t ino;
	int64_t ws, lpos, kpos;
	size_t wlen;
	uint64_t calls, served, syscalls;
	unsigned char buf[BULK_BUF] __attribute__((aligned(4096)));
};

/* What a descriptor being written is, so that a write to a served file is
 * seen without an fstat per write (dd bs=1 writes a byte a call). */
struct written {
	dev_t dev;
	ino_t ino;
	int known;
};

int bulk_active HIDDEN;
static int survey; /* count the small reads it would serve, serve none */
static atomic_ullong survey_calls;
static int report_fd = -1;
static int kcmp_refused; /* no way to see a shared description: dups step aside */
static struct slot slots[BULK_SLOTS];
static _Atomic int state[FD_MAX];
static struct written written[FD_MAX];
static atomic_int serving;
static atomic_flag table = ATOMIC_FLAG_INIT;

/* A spin that yields: the holder may be a thread preempted on this PU. */
static void take(atomic_flag *f)
{
	while (atomic_flag_test_and_set_explicit(f, memory_order_acquire))
		syscall(SYS_sched_yield);
}

static void give(atomic_flag *f)
{
	atomic_flag_clear_explicit(f, memory_order_release);
}

static int in_table(int fd)
{
	return fd >= 0 && fd < FD_MAX;
}

static void report_aside(int fd, const char *why)
{
	struct line l = { .n = 0 };
	put_str(&l, "aside");
	put_u64(&l, line_pid());
	put_u64(&l, (uint64_t)fd);
	put_str(&l, " ");
	put_str(&l, why);
	line_write(report_fd, &l);
}

static void report_counts(struct slot *s)
{
	struct line l = { .n = 0 };
	if (!s->calls)
		return;
	put_str(&l, "bulk");
	put_u64(&l, line_pid());
	put_u64(&l, (uint64_t)s->fd);
	put_u64(&l, s->calls);
	put_u64(&l, s->served);
	put_u64(&l, s->syscalls);
	line_write(report_fd, &l);
	s->calls = s->served = s->syscalls = 0;
}

/* The served slot of fd, locked; NULL when fd is not served. */
static struct slot *acquire(int fd)
{
	if (!bulk_active || !in_table(fd))
		return NULL;
	int st = atomic_load(&state[fd]);
	if (st <= 0)
		return NULL;
	struct slot *s = &slots[st - 1];
	take(&s->lock);
	if (s->fd != fd) { /* closed and its slot given to another meanwhile */
		give(&s->lock);
		return NULL;
	}
	return s;
}

/* The kernel's position made the program's. */
static int kernel_at(struct slot *s)
{
	if (s->kpos == s->lpos)
		return 0;
	s->syscalls++;
	if (syscall(SYS_lseek, s->fd, (off_t)s->lpos, SEEK_SET) < 0)
		return -1;
	s->kpos = s->lpos;
	return 0;
}

/* Free the slot (locked): the position put back, the counts reported,
 * fd's state NEW (FD_UNSEEN when closed, FD_ASIDE when it steps aside). */
static void release(struct slot *s, int next, const char *why)
{
	int saved = errno;
	kernel_at(s);
	report_counts(s);
	if (why)
		report_aside(s->fd, why);
	atomic_store(&state[s->fd], next);
	s->fd = -1;
	atomic_fetch_sub(&serving, 1);
	errno = saved;
}

static int pseudo_fs(long type)
{
	/* proc, sysfs, debugfs, tracefs, cgroup, cgroup2, securityfs, bpf,
	 * configfs, fuse: a read makes the bytes, it does not fetch them */
	static const long kinds[] = { 0x9fa0,	  0x62656572, 0x64626720, 0x74726163,
				      0x27e0eb,	  0x63677270, 0x73636673, 0xcafe4a11,
				      0x62656570, 0x65735546 };
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (type == kinds[i])
			return 1;
	return 0;
}

/* Another descriptor of this process on fd's open file description: its
 * reads and seeks would move the position under the buffer. */
static int shared_here(int fd)
{
	char buf[4096];
	long self = syscall(SYS_getpid), n;
	int dir = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int shared = 0;
	if (dir < 0)
		return 1; /* cannot look: not taken */
	while (!shared && (n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n && !shared;) {
			const char *name = buf + off + 19; /* d_ino, d_off, d_reclen, d_type */
			unsigned short reclen;
			memcpy(&reclen, buf + off + 16, sizeof(reclen));
			off += reclen;
			if (*name < '0' || *name > '9' || atoi(name) == fd || atoi(name) == dir)
				continue;
			long r = syscall(SYS_kcmp, self, self, 0 /* KCMP_FILE */, fd, atoi(name));
			if (r < 0 && errno != EBADF)
				kcmp_refused = 1;
			shared = r == 0;
		}
	}
	syscall(SYS_close, dir);
	return shared;
}

/* Whether fd can be served, and why not in a word when it is one the
 * library would have served but cannot ("odirect"); NULL: not a file it
 * serves at all (a pipe, a socket, a file open for writing). */
static int eligible(int fd, struct stat *st, const char **why)
{
	struct statfs fs;
	*why = NULL;
	if (syscall(SYS_fstat, fd, st) < 0 || !S_ISREG(st->st_mode) || st->st_size == 0)
		return 0;
	long fl = syscall(SYS_fcntl, fd, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) != O_RDONLY)
		return 0;
	if (syscall(SYS_fstatfs, fd, &fs) < 0 || pseudo_fs((long)fs.f_type))
		return 0;
	if (fl & O_DIRECT)
		*why = "odirect";
	else if (shared_here(fd))
		*why = "dup";
	return !*why;
}

/* fd's first small read: served from now on if it can be, its state
 * otherwise.  The slot, locked, or NULL. */
static struct slot *take_on(int fd)
{
	struct stat st;
	const char *why;
	int ok = eligible(fd, &st, &why);
	take(&table);
	if (atomic_load(&state[fd]) != FD_UNSEEN) { /* another thread got there */
		give(&table);
		return acquire(fd);
	}
	struct slot *s = NULL;
	for (int i = 0; ok && i < BULK_SLOTS && !s; i++)
		if (slots[i].fd < 0)
			s = &slots[i];
	if (ok && !s)
		why = "full";
	if (!s) {
		atomic_store(&state[fd], why ? FD_ASIDE : FD_NOT);
		give(&table);
		if (why)
			report_aside(fd, why);
		return NULL;
	}
	long pos = syscall(SYS_lseek, fd, (off_t)0, SEEK_CUR);
	take(&s->lock);
	s->fd = fd;
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	s->ws = s->lpos = s->kpos = pos < 0 ? 0 : pos;
	s->wlen = 0;
	s->calls = s->served = 0;
	s->syscalls = 1;
	atomic_fetch_add(&serving, 1);
	atomic_store(&state[fd], (int)(s - slots) + 1);
	give(&table);
	return s;
}

/* The slots start free (fd -1), and served only when the mode asks. */
__attribute__((constructor)) static void bulk_start(void)
{
	const char *mode = getenv("MMPROF_PRELOAD_MODE");
	const char *path = getenv("MMPROF_PRELOAD_REPORT");
	for (int i = 0; i < BULK_SLOTS; i++)
		slots[i].fd = -1;
	if (!mode || !path || !(strstr(mode, "bulk") || strstr(mode, "survey")))
		return;
	report_fd = (int)syscall(SYS_openat, AT_FDCWD, path,
				 O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	survey = strstr(mode, "survey") != NULL;
	bulk_active = !survey;
}

/* survey: the reads counted so far said, and the count started again
 * (at exit; before a fork, whose child would say the parent's again). */
static void survey_flush(void)
{
	unsigned long long calls = atomic_exchange(&survey_calls, 0);
	if (survey && calls) {
		struct line l = { .n = 0 };
		put_str(&l, "seenreads");
		put_u64(&l, line_pid());
		put_u64(&l, calls);
		line_write(report_fd, &l);
	}
}

/* survey: a small read of fd, counted when it is one the library would
 * serve (asked once a descriptor, as take_on does). */
static void survey_read(int fd, size_t n)
{
	if (!survey || !n || n >= BULK_SMALL || !in_table(fd))
		return;
	int st = atomic_load(&state[fd]);
	if (st == FD_UNSEEN) {
		struct stat sb;
		const char *why;
		int next = eligible(fd, &sb, &why) ? FD_COUNTED : FD_NOT;
		atomic_compare_exchange_strong(&state[fd], &st, next);
		st = atomic_load(&state[fd]);
	}
	if (st == FD_COUNTED)
		atomic_fetch_add(&survey_calls, 1);
}

/* One refill: BULK_BUF bytes at the program's position. */
static long refill(struct slot *s)
{
	if (kernel_at(s) < 0)
		return -1;
	s->syscalls++;
	long r = syscall(SYS_read, s->fd, s->buf, BULK_BUF);
	if (r < 0)
		return -1;
	s->ws = s->lpos;
	s->wlen = (size_t)r;
	s->kpos = s->lpos + r;
	return r;
}

/* n bytes at lpos into dst: from the window, refilled as needed; a large
 * remainder is read straight into dst.  What read() returns. */
static ssize_t copy_out(struct slot *s, unsigned char *dst, size_t n)
{
	size_t done = 0;
	while (done < n) {
		if (s->lpos >= s->ws && s->lpos < s->ws + (int64_t)s->wlen) {
			size_t at = (size_t)(s->lpos - s->ws), c = s->wlen - at;
			c = c < n - done ? c : n - done;
			memcpy(dst + done, s->buf + at, c);
			done += c;
			s->lpos += (int64_t)c;
			continue;
		}
		long r;
		if (n - done >= BULK_SMALL) {
			if (kernel_at(s) < 0)
				return done ? (ssize_t)done : -1;
			s->syscalls++;
			if ((r = syscall(SYS_read, s->fd, dst + done, n - done)) >= 0) {
				s->lpos += r;
				s->kpos = s->lpos;
				done += (size_t)r;
			}
			return r < 0 && !done ? -1 : (ssize_t)done;
		}
		if ((r = refill(s)) <= 0)
			return r < 0 && !done ? -1 : (ssize_t)done;
	}
	return (ssize_t)done;
}

int bulk_read(int fd, void *buf, size_t n, ssize_t *r)
{
	survey_read(fd, n);
	if (!bulk_active || !n || !in_table(fd))
		return 0;
	struct slot *s = acquire(fd);
	if (!s && n < BULK_SMALL && atomic_load(&state[fd]) == FD_UNSEEN)
		s = take_on(fd);
	if (!s)
		return 0;
	uint64_t before = s->syscalls;
	*r = copy_out(s, buf, n);
	s->calls++;
	s->served += s->syscalls == before;
	give(&s->lock);
	return 1;
}

int bulk_pread(int fd, void *buf, size_t n, off_t off, ssize_t *r)
{
	survey_read(fd, n);
	if (!bulk_active || !n || n >= BULK_SMALL || off < 0 || !in_table(fd))
		return 0;
	struct slot *s = acquire(fd);
	if (!s && atomic_load(&state[fd]) == FD_UNSEEN)
		s = take_on(fd);
	if (!s)
		return 0;
	s->calls++;
	if (off < s->ws || off + (int64_t)n > s->ws + (int64_t)s->wlen) {
		/* A window at off: pread leaves the kernel's position alone. */
		s->syscalls++;
		long got = syscall(SYS_pread64, fd, s->buf, BULK_BUF, off);
		if (got < 0) {
			*r = -1;
			give(&s->lock);
			return 1;
		}
		s->ws = off;
		s->wlen = (size_t)got;
	} else {
		s->served++;
	}
	size_t c = s->ws + (int64_t)s->wlen > off ? (size_t)(s->ws + (int64_t)s->wlen - off) : 0;
	c = c < n ? c : n;
	if (c) /* else off is at or past the end of the file */
		memcpy(buf, s->buf + (off - s->ws), c);
	*r = (ssize_t)c;
	give(&s->lock);
	return 1;
}

int bulk_lseek(int fd, off_t off, int whence, off_t *r)
{
	struct slot *s = acquire(fd);
	int64_t to;
	if (!s)
		return 0;
	if (whence == SEEK_SET || whence == SEEK_CUR) {
		/* The position is the library's to answer: no system call. */
		if (whence == SEEK_SET)
			to = off;
		else if (__builtin_add_overflow(s->lpos, (int64_t)off, &to))
			to = -1;
		if (to < 0) {
			errno = whence == SEEK_CUR && off > 0 ? EOVERFLOW : EINVAL;
			*r = -1;
		} else {
			*r = (off_t)(s->lpos = to);
		}
	} else if (kernel_at(s) == 0) { /* SEEK_END, SEEK_DATA, SEEK_HOLE: the kernel's */
		s->syscalls++;
		long got = syscall(SYS_lseek, fd, off, whence);
		if (got >= 0)
			s->lpos = s->kpos = got;
		*r = (off_t)got;
	} else {
		*r = -1;
	}
	give(&s->lock);
	return 1;
}

void bulk_step_aside(int fd, const char *why)
{
	struct slot *s = acquire(fd);
	if (s) {
		release(s, FD_ASIDE, why);
		give(&s->lock);
	}
}

/* Every buffered descriptor's position put back, each left in state
 * NEXT (why: the step aside reported, or NULL). */
static void release_all(int next, const char *why)
{
	for (int i = 0; i < BULK_SLOTS; i++) {
		struct slot *s = &slots[i];
		take(&s->lock);
		if (s->fd >= 0)
			release(s, next, why);
		give(&s->lock);
	}
}

void bulk_before_child(const char *why)
{
	if (!bulk_active && !survey)
		return;
	if (bulk_active)
		release_all(FD_ASIDE, why);
	survey_flush();
	/* Descriptors not read yet are the child's too: never taken now (in
	 * survey mode, the ones counted would have stepped aside). */
	for (int fd = 0; fd < FD_MAX; fd++) {
		int unseen = FD_UNSEEN, counted = FD_COUNTED;
		atomic_compare_exchange_strong(&state[fd], &unseen, FD_ASIDE);
		atomic_compare_exchange_strong(&state[fd], &counted, FD_ASIDE);
	}
}

void bulk_closing(int fd)
{
	struct slot *s = acquire(fd);
	if (s) {
		release(s, FD_UNSEEN, NULL);
		give(&s->lock);
	} else if (in_table(fd)) {
		atomic_store(&state[fd], FD_UNSEEN);
	}
	if (in_table(fd))
		written[fd].known = 0;
}

void bulk_duplicated(int oldfd, int newfd)
{
	bulk_step_aside(oldfd, "dup");
	if (survey && in_table(oldfd))
		atomic_store(&state[oldfd], FD_ASIDE); /* as a served one would */
	bulk_fresh(newfd);
	/* Without kcmp a later read of either cannot see the other. */
	if (bulk_active && kcmp_refused && in_table(newfd))
		atomic_store(&state[newfd], FD_ASIDE);
}

void bulk_fresh(int fd)
{
	if ((!bulk_active && !survey) || !in_table(fd))
		return;
	struct slot *s = acquire(fd);
	if (s) {
		/* Its description is gone: nothing to put back, and an lseek
		 * would move the new one's. */
		s->kpos = s->lpos;
		release(s, FD_UNSEEN, NULL);
		give(&s->lock);
	}
	atomic_store(&state[fd], FD_UNSEEN);
	written[fd].known = 0;
}

/* What fd is, as written[] keeps it. */
static int written_file(int fd, dev_t *dev, ino_t *ino)
{
	struct stat st;
	struct written *w = in_table(fd) ? &written[fd] : NULL;
	int ok = 1;
	take(&table);
	if (!w || !w->known) {
		ok = syscall(SYS_fstat, fd, &st) == 0;
		if (ok && w)
			*w = (struct written){ st.st_dev, st.st_ino, 1 };
		*dev = st.st_dev;
		*ino = st.st_ino;
	}
	if (w && w->known) {
		*dev = w->dev;
		*ino = w->ino;
	}
	give(&table);
	return ok;
}

void bulk_writing(int fd)
{
	dev_t dev;
	ino_t ino;
	if (!bulk_active || !atomic_load(&serving) || !written_file(fd, &dev, &ino))
		return;
	for (int i = 0; i < BULK_SLOTS; i++) {
		struct slot *s = &slots[i];
		take(&s->lock);
		if (s->fd >= 0 && s->dev == dev && s->ino == ino)
			release(s, FD_ASIDE, "write");
		give(&s->lock);
	}
}

void bulk_sync_all(void)
{
	if (bulk_active)
		release_all(FD_UNSEEN, NULL);
	survey_flush();
}

/* At exit, after the program's own exit handlers: a descriptor it shares
 * with its parent (stdin redirected from a file) is left where the
 * program's reads ended, as without the library. */
__attribute__((destructor)) static void bulk_end(void)
{
	bulk_sync_all();
}
