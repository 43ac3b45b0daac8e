/* A program's output as it streams (see output_log.h). */
#include "mmprof/output_log.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

void mmp_output_log_init(struct mmp_output_log *o, int fd,
			 const struct mmp_capture *const cap[MMP_OUTPUT_CAPTURES])
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	for (size_t i = 0; i < MMP_OUTPUT_CAPTURES; i++)
		o->cap[i] = cap ? cap[i] : NULL;
}

static void write_log(struct mmp_output_log *o, const char *buf, size_t n)
{
	while (n && !o->write_errno) {
		ssize_t w = write(o->fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->write_errno = w < 0 ? errno : EIO;
			return;
		}
		buf += w;
		n -= (size_t)w;
	}
}

/* The line read so far is whole: match it. */
static void end_line(struct mmp_output_log *o)
{
	if (o->line_len && o->line[o->line_len - 1] == '\r') /* a Windows-style line end */
		o->line_len--;
	o->line[o->line_len] = '\0';
	for (size_t i = 0; i < MMP_OUTPUT_CAPTURES; i++)
		if (o->cap[i] && mmp_capture_line(o->cap[i], o->line, o->found[i],
						  sizeof(o->found[i])))
			o->matched[i] = 1;
	o->line_len = 0;
	o->line_started = 0;
}

void mmp_output_log_take(void *ctx, const char *buf, size_t n)
{
	struct mmp_output_log *o = ctx;
	o->total += n;
	write_log(o, buf, n);
	for (const char *p = buf, *end = buf + n; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		/* Past the first MMP_CAPTURE_LINE_MAX - 1 bytes a line is not
		 * matched (as mmp_capture_find does). */
		size_t room = sizeof(o->line) - 1 - o->line_len;
		size_t keep = len < room ? len : room;
		memcpy(o->line + o->line_len, p, keep);
		o->line_len += keep;
		o->line_started = 1;
		if (!nl)
			break;
		end_line(o);
		p = nl + 1;
	}
}

int mmp_output_log_finish(struct mmp_output_log *o)
{
	if (o->line_started)
		end_line(o);
	return o->write_errno ? -o->write_errno : 0;
}

const char *mmp_output_log_found(const struct mmp_output_log *o, size_t i)
{
	return i < MMP_OUTPUT_CAPTURES && o->matched[i] ? o->found[i] : NULL;
}
