/* Error values that carry a message.
 *
 * Library functions return 0 or a negative errno; when a caller needs to
 * know more than the errno (which file, which cpuset, which limit), the
 * function also fills a struct mmp_error.  Only main() prints it and turns
 * it into an exit status.
 */
#ifndef MMPROF_ERROR_H
#define MMPROF_ERROR_H

#include <stddef.h>

#define MMP_ERROR_MSG_MAX 1024

struct mmp_error {
	int code;                    /* negative errno, 0 when unset */
	char msg[MMP_ERROR_MSG_MAX]; /* one line, no trailing newline */
};

/* Record a message and return code (a negative errno) so callers can write
 * `return mmp_error_set(err, -EINVAL, "...")`.  err may be NULL. */
int mmp_error_set(struct mmp_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like mmp_error_set, with ": strerror(-code)" appended. */
int mmp_error_errno(struct mmp_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

void mmp_error_clear(struct mmp_error *err);

#endif
