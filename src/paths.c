/* Path helpers (see paths.h). */
#include "mmprof/paths.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int mmp_mkdirs(const char *dir, struct mmp_error *err)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s", dir);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return mmp_error_errno(err, -errno, "mkdir %s", path);
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return mmp_error_errno(err, -errno, "mkdir %s", path);
	return 0;
}

void mmp_sibling_path(const char *csv_path, const char *suffix, char *buf, size_t len)
{
	size_t n = strlen(csv_path);
	if (n > 4 && strcmp(csv_path + n - 4, ".csv") == 0)
		n -= 4;
	snprintf(buf, len, "%.*s%s", (int)n, csv_path, suffix);
}
