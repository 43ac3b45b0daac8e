/* A program's output as it streams (see output_log.h). */
#include "run/output_log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/units.h"

void mmp_output_log_init(struct mmp_output_log *o, int fd,
			 const struct mmp_capture *const cap[MMP_OUTPUT_CAPTURES], uint64_t log_max,
			 char *ring, size_t ring_len)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	for (size_t i = 0; i < MMP_OUTPUT_CAPTURES; i++)
		o->cap[i] = cap ? cap[i] : NULL;
	o->ring = ring;
	o->ring_len = ring && ring_len < log_max ? ring_len : 0;
	o->head_max = log_max - o->ring_len;
	o->log_max = log_max;
	o->last = '\n'; /* mmprof's first line ends the way a line does */
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
		o->last = buf[w - 1];
		buf += w;
		n -= (size_t)w;
	}
}

/* Past the head: into the ring, over its oldest bytes.  The last byte
 * pushed out is remembered: when it ends a line, the tail opens at a
 * line's start as it is. */
static void keep_tail(struct mmp_output_log *o, const char *buf, size_t n)
{
	if (!o->ring_len || !n)
		return;
	uint64_t past = o->total - n - o->head; /* in the ring before these n */
	size_t filled = past < o->ring_len ? (size_t)past : o->ring_len;
	if (n > o->ring_len) { /* only its last ring_len bytes can stay */
		o->dropped = buf[n - o->ring_len - 1];
		buf += n - o->ring_len;
		n = o->ring_len;
	} else if (filled + n > o->ring_len) {
		size_t oldest = filled == o->ring_len ? o->ring_pos : 0;
		o->dropped = o->ring[(oldest + filled + n - o->ring_len - 1) % o->ring_len];
	}
	size_t first = o->ring_len - o->ring_pos < n ? o->ring_len - o->ring_pos : n;
	memcpy(o->ring + o->ring_pos, buf, first);
	memcpy(o->ring, buf + first, n - first);
	o->ring_pos = (o->ring_pos + n) % o->ring_len;
}

/* Match the window of the line that o->line holds (last: it ends the
 * line), for each regex this line has not matched yet: a line's first
 * match is its capture, as in a short line. */
static void match_window(struct mmp_output_log *o, int last)
{
	o->line[o->line_len] = '\0';
	for (size_t i = 0; i < MMP_OUTPUT_CAPTURES; i++)
		if (o->cap[i] && !o->line_hit[i] &&
		    mmp_capture_window(o->cap[i], o->line, !o->line_shifted, last, o->found[i],
				       sizeof(o->found[i])))
			o->matched[i] = o->line_hit[i] = 1;
}

/* The line buffer is full and the line goes on: match this window, keep
 * its second half as the start of the next (capture.h). */
static void next_window(struct mmp_output_log *o)
{
	match_window(o, 0);
	memmove(o->line, o->line + MMP_CAPTURE_WINDOW_STEP, o->line_len - MMP_CAPTURE_WINDOW_STEP);
	o->line_len -= MMP_CAPTURE_WINDOW_STEP;
	o->line_shifted = 1;
}

/* The line read so far is whole: match it. */
static void end_line(struct mmp_output_log *o)
{
	if (o->line_len && o->line[o->line_len - 1] == '\r') /* a Windows-style line end */
		o->line_len--;
	match_window(o, 1);
	memset(o->line_hit, 0, sizeof(o->line_hit));
	o->line_shifted = 0;
	o->line_len = 0;
	o->line_started = 0;
}

void mmp_output_log_take(void *ctx, const char *buf, size_t n)
{
	struct mmp_output_log *o = ctx;
	size_t to_head = o->head < o->head_max ? (size_t)(o->head_max - o->head < n
								   ? o->head_max - o->head
								   : n)
					       : 0;
	o->total += n;
	write_log(o, buf, to_head);
	o->head += to_head;
	keep_tail(o, buf + to_head, n - to_head);
	for (const char *p = buf, *end = buf + n; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		/* A line longer than the buffer is matched in windows (as
		 * mmp_capture_find does): a result after its first 8 KiB. */
		while (len) {
			size_t room = sizeof(o->line) - 1 - o->line_len;
			if (!room) {
				next_window(o);
				room = sizeof(o->line) - 1 - o->line_len;
			}
			size_t keep = len < room ? len : room;
			memcpy(o->line + o->line_len, p, keep);
			o->line_len += keep;
			p += keep;
			len -= keep;
		}
		o->line_started = 1;
		if (!nl)
			break;
		end_line(o);
		p = nl + 1;
	}
}

/* The tail: what the ring holds, oldest first, written after the note
 * of what was left out between the head and it. */
static void write_tail(struct mmp_output_log *o)
{
	uint64_t past = o->total - o->head; /* bytes that went to the ring */
	size_t held = past < o->ring_len ? (size_t)past : o->ring_len;
	/* Full, its oldest byte is where the next would go; else it starts at 0. */
	size_t start = past > o->ring_len && o->ring_len ? o->ring_pos : 0;
	size_t skip = 0;
	if (past > held) {
		/* Left out before it: open the tail at a line's start when one
		 * is near (the bytes before it are left out too). */
		for (size_t i = 0; o->dropped != '\n' && i < held && i < MMP_CAPTURE_LINE_MAX; i++)
			if (o->ring[(start + i) % o->ring_len] == '\n') {
				skip = i + 1 < held ? i + 1 : 0;
				break;
			}
		char note[320], max[32];
		mmp_format_size(o->log_max, max, sizeof(max));
		int len = snprintf(note, sizeof(note),
				   "%s# mmprof: %" PRIu64 " bytes of its output left out here "
				   "(log_max = %s: its first %" PRIu64 " and last %zu bytes are "
				   "kept; it printed %" PRIu64 " bytes)\n",
				   o->last == '\n' ? "" : "\n", past - held + skip, max, o->head,
				   held - skip, o->total);
		write_log(o, note, (size_t)len);
	}
	if (!held)
		return; /* no ring: the head is all there is */
	size_t from = (start + skip) % o->ring_len, n = held - skip;
	size_t first = o->ring_len - from < n ? o->ring_len - from : n;
	write_log(o, o->ring + from, first);
	write_log(o, o->ring, n - first);
}

int mmp_output_log_finish(struct mmp_output_log *o)
{
	if (o->line_started)
		end_line(o);
	if (o->total > o->head)
		write_tail(o);
	return o->write_errno ? -o->write_errno : 0;
}

const char *mmp_output_log_found(const struct mmp_output_log *o, size_t i)
{
	return i < MMP_OUTPUT_CAPTURES && o->matched[i] ? o->found[i] : NULL;
}
