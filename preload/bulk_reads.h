/* Bulk reads, the preload library's per-call rung (MMPROF_PRELOAD_MODE
 * has "bulk"; docs/exec.md): the program's small read()s and pread()s of
 * a regular file opened read-only are served from a buffer of the
 * library's, filled by one large read, so that it makes one system call
 * where it made thousands -- and sees the same bytes at the same offsets.
 *
 * preload/bulk_reads.c keeps the buffers and the descriptors' states;
 * preload/bulk_calls.c interposes the calls that read, move, share or
 * write a descriptor and asks it here.  Hidden: nothing of this is the
 * program's to call. */
#ifndef MMPROF_PRELOAD_BULK_READS_H
#define MMPROF_PRELOAD_BULK_READS_H

#include <stddef.h>
#include <sys/types.h>

#define HIDDEN __attribute__((visibility("hidden")))

/* Reads below this many bytes are served from the buffer; larger ones go
 * to the kernel as they are (after what the buffer holds at the
 * position), so a program reading in large blocks is left as it was. */
#define BULK_SMALL (16u << 10)

/* The mode asked for it (set by the library's constructor). */
extern int bulk_active HIDDEN;

/* read(fd, buf, n) served: 1 with *r what read() returns (errno set when
 * -1), 0 when the descriptor is not served (the caller reads itself). */
int bulk_read(int fd, void *buf, size_t n, ssize_t *r) HIDDEN;
int bulk_pread(int fd, void *buf, size_t n, off_t off, ssize_t *r) HIDDEN;
/* lseek of a served descriptor: 1 with *r its result. */
int bulk_lseek(int fd, off_t off, int whence, off_t *r) HIDDEN;

/* The kernel's file position put back to the program's, the buffer
 * dropped and the descriptor left alone from now on, said in the report
 * with why ("dup", "readv", ...): for a call whose effect on the position
 * the library cannot follow exactly. */
void bulk_step_aside(int fd, const char *why) HIDDEN;
/* Every served descriptor stepped aside, and the descriptors not yet
 * seen never taken (a child shares them all): before fork, spawn, exec. */
void bulk_before_child(const char *why) HIDDEN;
/* fd is being closed: its position put back (a parent may share the
 * description: stdin from a file) and its buffer freed. */
void bulk_closing(int fd) HIDDEN;
/* fd was just returned by open, dup, ...: whatever the library knew of
 * that number was of a descriptor closed where it could not see. */
void bulk_fresh(int fd) HIDDEN;
/* newfd was made a copy of oldfd (dup, dup2, dup3, F_DUPFD): the two
 * share one position, which the buffer of either would break. */
void bulk_duplicated(int oldfd, int newfd) HIDDEN;
/* fd is about to be written (or truncated): served descriptors of the
 * same file step aside, since their buffers would hold the old bytes. */
void bulk_writing(int fd) HIDDEN;
/* At exit: every served descriptor's position put back, its counts
 * reported. */
void bulk_sync_all(void) HIDDEN;

#endif
