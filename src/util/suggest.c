#include "util/suggest.h"

#include <ctype.h>
#include <string.h>

#define MAX_WORD 64

size_t mmp_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[MAX_WORD + 1];

	if (la > MAX_WORD || lb > MAX_WORD)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			int same = tolower((unsigned char)a[i - 1]) ==
				   tolower((unsigned char)b[j - 1]);
			size_t best = diag + (same ? 0 : 1);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *mmp_suggest(const char *word, const char *const *candidates, size_t n)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;
	size_t limit = strlen(word) / 2;

	if (limit > 2)
		limit = 2;
	if (limit == 0)
		limit = 1;
	for (size_t i = 0; i < n; i++) {
		size_t d = mmp_edit_distance(word, candidates[i]);
		if (d < best_d) {
			best_d = d;
			best = candidates[i];
		}
	}
	if (best_d <= limit)
		return best;
	/* No near spelling: a shared stem of three or more letters is still a
	 * fair hint ("bufsize" for "buffer", "acc" for "access"). */
	best = NULL;
	size_t best_prefix = 2;
	for (size_t i = 0; i < n; i++) {
		size_t p = 0;
		while (word[p] && candidates[i][p] &&
		       tolower((unsigned char)word[p]) ==
			       tolower((unsigned char)candidates[i][p]))
			p++;
		if (p > best_prefix) {
			best_prefix = p;
			best = candidates[i];
		}
	}
	return best;
}
