/* Path helpers (see paths.h). */
#include "util/paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int mmp_path_split(const char *path, char *dir, size_t len, const char **base)
{
	const char *slash = strrchr(path, '/');
	int n;
	if (!slash) {
		n = snprintf(dir, len, ".");
		*base = path;
	} else {
		size_t d = slash == path ? 1 : (size_t)(slash - path);
		n = snprintf(dir, len, "%.*s", (int)d, path);
		*base = slash + 1;
	}
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Append the components of tail to the absolute path in buf, "." dropped
 * and ".." removing the last component (the part that does not exist yet
 * has no symbolic links to honour). */
static int append_lexically(char *buf, size_t len, char *tail)
{
	size_t used = strlen(buf);
	for (char *save = NULL, *c = strtok_r(tail, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			char *slash = strrchr(buf, '/');
			used = slash && slash != buf ? (size_t)(slash - buf) : 1;
			buf[used] = '\0';
			continue;
		}
		size_t n = strlen(c);
		int root = used == 1 && buf[0] == '/';
		if (used + !root + n + 1 > len)
			return -ENAMETOOLONG;
		if (!root)
			buf[used++] = '/';
		memcpy(buf + used, c, n + 1);
		used += n;
	}
	return 0;
}

int mmp_path_resolve(const char *path, char *buf, size_t len)
{
	char work[PATH_MAX], resolved[PATH_MAX], tail[PATH_MAX] = "";
	int n;

	if (!*path)
		return -ENOENT;
	if (path[0] == '/') {
		n = snprintf(work, sizeof(work), "%s", path);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		n = snprintf(work, sizeof(work), "%s/%s", cwd, path);
	}
	if (n < 0 || (size_t)n >= sizeof(work))
		return -ENAMETOOLONG;
	/* Peel components off the end until what is left exists. */
	while (!realpath(work, resolved)) {
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		char *slash = strrchr(work, '/');
		if (!slash) /* cannot happen: work is absolute and "/" exists */
			return -ENOENT;
		char moved[PATH_MAX];
		snprintf(moved, sizeof(moved), "%s%s%s", slash + 1, *tail ? "/" : "", tail);
		snprintf(tail, sizeof(tail), "%s", moved);
		if (slash == work)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if ((size_t)snprintf(buf, len, "%s", resolved) >= len)
		return -ENAMETOOLONG;
	return append_lexically(buf, len, tail);
}

int mmp_path_fill(const char *path, const char *host, char *buf, size_t len,
		  struct mmp_error *err)
{
	size_t used = 0;
	for (const char *p = path; *p;) {
		const char *piece = p;
		size_t n = 1;
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			p += 2;
		} else if (p[0] == '{') {
			const char *close = strchr(p, '}');
			if (!close)
				return mmp_error_set(err, -EINVAL,
						     "'{' without '}' (write {{ for a literal brace)");
			if ((size_t)(close - p) != 5 || strncmp(p, "{host}", 6) != 0)
				return mmp_error_set(err, -EINVAL,
						     "unknown placeholder %.*s: the only one is "
						     "{host} ({{ and }} are literal braces)",
						     (int)(close - p > 64 ? 64 : close - p + 1), p);
			piece = host;
			n = strlen(host);
			p = close + 1;
		} else {
			p++;
		}
		if (used + n >= len)
			return mmp_error_set(err, -ENAMETOOLONG, "path too long: %s", path);
		memcpy(buf + used, piece, n);
		used += n;
	}
	buf[used] = '\0';
	return 0;
}
