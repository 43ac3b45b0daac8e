/* Comma lists of names (see lists.h). */
#include "util/lists.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int mmp_list_next(const char **p, char *buf, size_t len)
{
	const char *s = *p;
	while (*s == ',' || isspace((unsigned char)*s))
		s++;
	if (!*s)
		return 0;
	const char *e = s;
	while (*e && *e != ',')
		e++;
	const char *t = e;
	while (t > s && isspace((unsigned char)t[-1]))
		t--;
	snprintf(buf, len, "%.*s", (int)(t - s), s);
	*p = e;
	return 1;
}

const char *mmp_list_comma(const char *s)
{
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == ',')
			s++;
		else if (*s == ',')
			return s;
	}
	return NULL;
}

int mmp_list_has(const char *list, const char *name)
{
	char item[256];
	for (const char *p = list ? list : ""; mmp_list_next(&p, item, sizeof(item));)
		if (strcmp(item, name) == 0)
			return 1;
	return 0;
}

int mmp_list_addf(char *buf, size_t len, const char *sep, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	if (used == len)
		return -ENOSPC;
	const char *s = used ? sep : "";
	size_t ls = strlen(s);
	int n = -1;
	va_list ap;
	va_start(ap, fmt);
	if (used + ls < len)
		n = vsnprintf(buf + used + ls, len - used - ls, fmt, ap);
	va_end(ap);
	if (n >= 0 && used + ls + (size_t)n < len) {
		memcpy(buf + used, s, ls);
		return 0;
	}
	/* "..." after the last whole item, or over the end of it when even
	 * that does not fit. */
	int room = used + ls + 4 <= len;
	size_t at = room || (len >= 4 && used <= len - 4) ? used : len >= 4 ? len - 4 : 0;
	snprintf(buf + at, len - at, "%s...", room ? s : "");
	return -ENOSPC;
}
