/* A report line of the preload library (docs/exec.md): words and decimal
 * numbers built without stdio or malloc -- the library runs inside the
 * program's allocator and its read() -- and written with one write(), on
 * an O_APPEND descriptor, so that the program's processes add their lines
 * without tearing each other's.  Shared by preload/mmprof_preload.c and
 * preload/bulk_reads.c. */
#ifndef MMPROF_PRELOAD_REPORT_LINE_H
#define MMPROF_PRELOAD_REPORT_LINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

struct line {
	char buf[160];
	size_t n;
};

static inline void put_str(struct line *l, const char *s)
{
	while (*s && l->n + 2 < sizeof(l->buf))
		l->buf[l->n++] = *s++;
}

static inline void put_u64(struct line *l, uint64_t v)
{
	char d[24];
	int k = 0;
	do
		d[k++] = (char)('0' + v % 10);
	while ((v /= 10) && k < 24);
	if (l->n)
		put_str(l, " ");
	while (k && l->n + 2 < sizeof(l->buf))
		l->buf[l->n++] = d[--k];
}

/* The line, ended, with one write() (the kernel's, not the program's
 * write(), which the library may interpose). */
static inline void line_write(int fd, struct line *l)
{
	if (fd < 0)
		return;
	l->buf[l->n++] = '\n';
	long ignored = syscall(SYS_write, fd, l->buf, l->n);
	(void)ignored;
}

static inline uint64_t line_pid(void)
{
	return (uint64_t)syscall(SYS_getpid);
}

#endif
