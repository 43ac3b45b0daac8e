/* Reading what a program printed: `result = output:REGEX` and
 * `time = output:REGEX` of the exec probe (docs/exec.md, "Output").
 *
 *   REGEX     POSIX extended (regcomp), matched against each line of the
 *             program's output on its own (^ and $ are the line's ends);
 *             the LAST line that matches is used.  \d and \D are accepted
 *             and mean [0-9] and [^0-9] (inside a bracket, \d is 0-9), as
 *             in the seed's and most users' regexes; (?: is refused.
 *   capture   the first group when the regex has one, else the whole match
 *   result    the one number in the capture, which must be a whole token
 *             of decimal digits (a full stop or comma may end it): a
 *             capture with none, two, or one like -5, 1e3, 1,048,576, 1.7,
 *             0x10 or 12abc is not a count, and the result is WRONG
 *   time      the first duration in the capture:
 *               a clock [D.]HH:MM:SS[.fraction] or MM:SS[.fraction]: .NET's
 *               TimeSpan ("00:00:01.2345678", "1.02:03:04"), Java's
 *               "00:00:00.075"
 *               a number with a unit: ns, us, µs, ms, s, sec(s),
 *               second(s), min, h ("12.5 ms", "1.2s", "3e-3 s")
 *               a bare number: seconds
 */
#ifndef MMPROF_CAPTURE_H
#define MMPROF_CAPTURE_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#define MMP_CAPTURE_PREFIX "output:"
/* A line is matched in windows of MMP_CAPTURE_LINE_MAX - 1 bytes, each
 * starting MMP_CAPTURE_WINDOW_STEP bytes after the one before: a match of
 * up to 4 KiB anywhere in a line of any length (a progress bar redrawn
 * with \r, a one-line JSON report) is found, the line's first as in a
 * short line.  Only the window at the line's start matches ^, only the
 * one at its end $. */
#define MMP_CAPTURE_LINE_MAX 8192
#define MMP_CAPTURE_WINDOW_STEP ((MMP_CAPTURE_LINE_MAX - 1) / 2)

struct mmp_capture {
	regex_t re;
	size_t groups;
	int compiled;
};

/* Check a key's value: "output:REGEX", or (allow_wall) "wall".  0 or
 * -EINVAL with a message. */
int mmp_capture_check(const char *spec, int allow_wall, char *err, size_t errlen);

/* Compile spec ("output:REGEX", or a bare REGEX).  0, -EINVAL with a
 * message, or -ENOMEM. */
int mmp_capture_compile(struct mmp_capture *c, const char *spec, char *err, size_t errlen);
void mmp_capture_free(struct mmp_capture *c);

/* The capture of one line (NUL-terminated, its line end removed) into
 * buf (truncated to buflen).  1 when it matched, 0 when not. */
int mmp_capture_line(const struct mmp_capture *c, const char *line, char *buf, size_t buflen);
/* The same for one window of a longer line (NUL-terminated; first: it
 * starts the line, last: it ends it).  A match starting in the second
 * half of a window that is not the last is left to the next window. */
int mmp_capture_window(const struct mmp_capture *c, const char *win, int first, int last,
		       char *buf, size_t buflen);

/* The capture of the last matching line of text[0, len) into buf
 * (truncated to buflen).  1 when a line matched, 0 when none did. */
int mmp_capture_find(const struct mmp_capture *c, const char *text, size_t len, char *buf,
		     size_t buflen);

/* The count text holds (see "result" above).  0, or -EINVAL (no count,
 * several, or not a whole decimal token), -ERANGE (more than 64 bits),
 * with *why (when why is not NULL) saying which ("holds no number"). */
int mmp_capture_count(const char *text, uint64_t *out, const char **why);

/* The first duration in text, in nanoseconds.  0, or -EINVAL with a
 * message. */
int mmp_capture_duration(const char *text, uint64_t *ns, char *err, size_t errlen);

#endif
