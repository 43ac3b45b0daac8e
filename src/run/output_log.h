/* What a program of the exec probe prints, as it streams.  mmprof reads
 * the program's stdout and stderr from a pipe while it runs
 * (exec_child.h) and hands each piece here, which
 *
 *   - matches every line against the run's regexes (capture.h's rule:
 *     each line on its own, a long one in windows, a \r before its \n
 *     dropped; a last line without \n counts at the end)
 *     and keeps the last match of each, however much was printed after
 *     it: nothing is read back from the log, so no window of it can miss
 *     the line;
 *   - writes the output to the log, after mmprof's own first line, up to
 *     log_max bytes of it: the first half as it comes, the last half
 *     kept in a ring and written at the end, and between them one line
 *     saying how many bytes were left out ("# mmprof: 98566144 bytes of
 *     its output left out here ...").  The tail starts at a line's start
 *     when a line ends in its first MMP_CAPTURE_LINE_MAX bytes (those
 *     bytes are counted as left out), so it does not open mid-line.  A
 *     program printing 100 MB per repetition leaves a log of log_max.
 *
 * A write error of the log (a full disk, ulimit -f) does not stop the
 * matching: the figures are read from the stream, not from the file.
 */
#ifndef MMPROF_OUTPUT_LOG_H
#define MMPROF_OUTPUT_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "run/capture.h"

#define MMP_OUTPUT_CAPTURES 2 /* result and time */
#define MMP_OUTPUT_FOUND_MAX 1024

struct mmp_output_log {
	int fd; /* the log */
	const struct mmp_capture *cap[MMP_OUTPUT_CAPTURES]; /* NULL: not looked for */
	char found[MMP_OUTPUT_CAPTURES][MMP_OUTPUT_FOUND_MAX];
	int matched[MMP_OUTPUT_CAPTURES];
	char line[MMP_CAPTURE_LINE_MAX]; /* the line being read, its first bytes */
	size_t line_len;
	int line_started;  /* bytes of a line not yet ended were seen */
	int line_shifted;  /* o->line is a later window of a long line */
	int line_hit[MMP_OUTPUT_CAPTURES]; /* cap[i] matched this line already */
	uint64_t total;    /* bytes the program printed */
	uint64_t head_max, head; /* bytes written as they came: at most, so far */
	char *ring;        /* the last ring_len bytes past the head (the caller's) */
	size_t ring_len, ring_pos; /* its size; where the next byte goes */
	uint64_t log_max;  /* for the note */
	char last;         /* the last byte written to the log */
	char dropped;      /* the last byte the ring let go of */
	int write_errno;   /* the log's first write error */
};

/* Start on the log fd (open, positioned after mmprof's first line),
 * looking for cap[i] (NULL: nothing), keeping log_max bytes of the output
 * in the log: the first log_max - ring_len as they come, the last ring_len
 * through ring (the caller's buffer, log_max / 2 bytes, reused from one
 * process to the next). */
void mmp_output_log_init(struct mmp_output_log *o, int fd,
			 const struct mmp_capture *const cap[MMP_OUTPUT_CAPTURES], uint64_t log_max,
			 char *ring, size_t ring_len);

/* n more bytes of the output (exec_child.h's watch->output). */
void mmp_output_log_take(void *o, const char *buf, size_t n);

/* The output ended: its last line (without \n) matched, the note and the
 * tail written.  0, or the log's first write error (negative errno). */
int mmp_output_log_finish(struct mmp_output_log *o);

/* The capture of the last line that matched cap[i], or NULL. */
const char *mmp_output_log_found(const struct mmp_output_log *o, size_t i);

#endif
