/* Writing JSON (RFC 8259): a small streaming writer, members and elements
 * one per line, indented.  Debian has no C JSON library worth a dependency
 * for writing one document; this is the whole of what mmprof needs.
 *
 *   - Strings are escaped: quotes, backslashes and control characters
 *     (\n, \t, ... \u00XX); non-ASCII text passes through as UTF-8, and a
 *     byte that is not valid UTF-8 becomes U+FFFD, so the document always
 *     parses.  A NULL string is null.
 *   - Numbers are written with the fewest digits that read back as the
 *     same double; NaN and infinities (which JSON cannot hold) are null.
 *   - Inside an object every value has a key; inside an array or at the
 *     top none does.  Misuse (a missing or stray key, unbalanced ends,
 *     nesting deeper than MMP_JSON_MAX_DEPTH) is remembered and reported by
 *     mmp_json_finish, never written silently.
 */
#ifndef MMPROF_JSON_H
#define MMPROF_JSON_H

#include <stdint.h>
#include <stdio.h>

#define MMP_JSON_MAX_DEPTH 32

struct mmp_json {
	FILE *f;
	int depth;
	unsigned char in_array[MMP_JSON_MAX_DEPTH + 1]; /* 1: array, 2: on one line; [0]: the top */
	unsigned char members[MMP_JSON_MAX_DEPTH + 1];  /* a value was written at this level */
	int misused;
};

void mmp_json_init(struct mmp_json *j, FILE *f);

/* key: the member's name inside an object; NULL in an array or at the top. */
void mmp_json_open_object(struct mmp_json *j, const char *key);
void mmp_json_close_object(struct mmp_json *j);
void mmp_json_open_array(struct mmp_json *j, const char *key);
void mmp_json_close_array(struct mmp_json *j);
/* An array of scalars on one line ([1, 3, 4]): run numbers, PUs.  An
 * object or array inside it is misuse.  Closed with mmp_json_close_array. */
void mmp_json_open_line(struct mmp_json *j, const char *key);

void mmp_json_put_string(struct mmp_json *j, const char *key, const char *value);
/* The same, with "" absent too: null, as an empty CSV cell is. */
void mmp_json_put_text(struct mmp_json *j, const char *key, const char *value);
/* {estimate, low, high} and, with with_rounds, the rounds it comes from;
 * the bounds null when there is no interval. */
struct mmp_interval;
void mmp_json_put_interval(struct mmp_json *j, const char *key, const struct mmp_interval *iv,
			   int with_rounds);
void mmp_json_put_number(struct mmp_json *j, const char *key, double value);
void mmp_json_put_uint(struct mmp_json *j, const char *key, uint64_t value);
void mmp_json_put_bool(struct mmp_json *j, const char *key, int value);
void mmp_json_put_null(struct mmp_json *j, const char *key);

/* The document is complete: a final newline.  0, or -EINVAL when the
 * writer was misused (the text is then not one valid document). */
int mmp_json_finish(struct mmp_json *j);

/* s as a JSON string literal, quotes included (the escaping above). */
void mmp_json_quote(FILE *f, const char *s);

#endif
