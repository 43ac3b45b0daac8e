/* Comma lists of names ("java_like, dotnet_like", "prefault, bulk"): the
 * one tokenizer the config keys, the controls and the reports share. */
#ifndef MMPROF_LISTS_H
#define MMPROF_LISTS_H

#include <stddef.h>

/* The next name of a comma list ("a, b"): copies it, trimmed, into buf and
 * advances *p; 0 at the end. */
int mmp_list_next(const char **p, char *buf, size_t len);

/* The first comma of s that separates list items, or NULL: "\\," is a
 * comma inside an item (a path "a\\,b/d.bin"). */
const char *mmp_list_comma(const char *s);

/* Whether the list names `name`. */
int mmp_list_has(const char *list, const char *name);

/* Appends sep (unless buf is empty) and the printf-formatted item to the
 * string in buf, of len bytes.  An item that does not fit is left out
 * whole and "..." marks the cut (-ENOSPC), so a help text never lists a
 * shortened name as if it were one. */
int mmp_list_addf(char *buf, size_t len, const char *sep, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
