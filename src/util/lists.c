/* Comma lists of names (see lists.h). */
#include "mmprof/lists.h"

#include <ctype.h>
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
