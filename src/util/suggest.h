/* "Did you mean" for misspelt keys, probe names and enum values. */
#ifndef MMPROF_SUGGEST_H
#define MMPROF_SUGGEST_H

#include <stddef.h>

/* Edit distance (Levenshtein, case-insensitive) of two short strings. */
size_t mmp_edit_distance(const char *a, const char *b);

/* The candidate closest to word, or NULL when none is close enough to be a
 * plausible typo (distance at most 2, and less than half the word). */
const char *mmp_suggest(const char *word, const char *const *candidates, size_t n);

#endif
