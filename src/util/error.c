#include "util/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int error_vset(struct mmp_error *err, int code, int with_errno,
		      const char *fmt, va_list ap)
{
	if (!err)
		return code;
	err->code = code;
	int n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	/* EFBIG from a write is the file size limit (main ignores SIGXFSZ,
	 * which would otherwise have killed mmprof with nothing said). */
	if (with_errno && n >= 0 && (size_t)n < sizeof(err->msg))
		snprintf(err->msg + n, sizeof(err->msg) - (size_t)n, ": %s%s", strerror(-code),
			 code == -EFBIG ? " (the file size limit, ulimit -f, was reached)" : "");
	return code;
}

int mmp_error_set(struct mmp_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_vset(err, code, 0, fmt, ap);
	va_end(ap);
	return code;
}

int mmp_error_errno(struct mmp_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_vset(err, code, 1, fmt, ap);
	va_end(ap);
	return code;
}

void mmp_error_clear(struct mmp_error *err)
{
	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
}
