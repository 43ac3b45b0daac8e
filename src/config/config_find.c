/* Finding a config by name: mmprof --config byte_8t (see config.h for the
 * search path).  A name with a '/' is a path and is never searched for,
 * as a shell treats a command with a '/': --config path/to/x.ini,
 * /dev/stdin and <(...) open exactly what they name. */
#include "config/config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/suggest.h"

/* The Makefile compiles PREFIX/share/mmprof in; a build without it (a
 * compiler run by hand) gets the Makefile's default prefix. */
#ifndef MMPROF_DATADIR
#define MMPROF_DATADIR "/usr/local/share/mmprof"
#endif

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Two names of one directory: the same text, or the same inode. */
static int same_dir(const char *a, const char *b)
{
	struct stat sa, sb;
	if (strcmp(a, b) == 0)
		return 1;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

static int add_dir(struct mmp_config_search *sp, const char *dir, size_t len, const char *why)
{
	for (size_t i = 0; i < sp->n; i++) {
		char tmp[PATH_MAX];
		snprintf(tmp, sizeof(tmp), "%.*s", (int)len, dir);
		if (same_dir(sp->dir[i], tmp))
			return 0;
	}
	char **dirs = realloc(sp->dir, (sp->n + 1) * sizeof(*dirs));
	if (!dirs)
		return -ENOMEM;
	sp->dir = dirs;
	const char **whys = realloc(sp->why, (sp->n + 1) * sizeof(*whys));
	if (!whys)
		return -ENOMEM;
	sp->why = whys;
	if (!(sp->dir[sp->n] = strndup(dir, len)))
		return -ENOMEM;
	sp->why[sp->n++] = why;
	return 0;
}

/* The directory the running executable is in ("" when /proc says nothing). */
static void exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	char *slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	else
		buf[0] = '\0';
}

/* dir beside the executable, when it is a directory, as its real path
 * (DESTDIR/usr/share/..., not DESTDIR/usr/bin/../share/...). */
static int add_beside(struct mmp_config_search *sp, const char *exe, const char *rel,
		      const char *why)
{
	char dir[PATH_MAX + 64], real[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/%s", exe, rel);
	if (!is_dir(dir) || !realpath(dir, real))
		return 0;
	/* Where an install put both: said as the installed place, below. */
	if (same_dir(real, MMPROF_DATADIR "/configs"))
		return 0;
	return add_dir(sp, real, strlen(real), why);
}

int mmp_config_search_path(struct mmp_config_search *sp)
{
	char exe[PATH_MAX];
	int rc;

	memset(sp, 0, sizeof(*sp));
	if ((rc = add_dir(sp, ".", 1, "the current directory")))
		goto fail;
	const char *env = getenv("MMPROF_CONFIG_PATH");
	for (const char *p = env; p && *p;) {
		size_t n = strcspn(p, ":");
		if (n && (rc = add_dir(sp, p, n, "MMPROF_CONFIG_PATH")))
			goto fail;
		p += n + (p[n] == ':');
	}
	exe_dir(exe, sizeof(exe));
	if (exe[0] && ((rc = add_beside(sp, exe, "configs", "beside the executable")) ||
		       (rc = add_beside(sp, exe, "../share/mmprof/configs",
					"installed beside the executable"))))
		goto fail;
	rc = add_dir(sp, MMPROF_DATADIR "/configs", strlen(MMPROF_DATADIR "/configs"),
		     "installed");
	if (rc == 0)
		return 0;
fail:
	mmp_config_search_free(sp);
	return rc;
}

void mmp_config_search_free(struct mmp_config_search *sp)
{
	for (size_t i = 0; i < sp->n; i++)
		free(sp->dir[i]);
	free(sp->dir);
	free(sp->why);
	memset(sp, 0, sizeof(*sp));
}

/* dir/name (just name in the current directory, so that messages name the
 * file as the user wrote it) plus suffix. */
static int candidate(const char *dir, const char *name, const char *suffix, char *buf,
		     size_t len)
{
	int n = strcmp(dir, ".") == 0 ? snprintf(buf, len, "%s%s", name, suffix)
				      : snprintf(buf, len, "%s/%s%s", dir, name, suffix);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Names of the *.ini files in dir, without ".ini", sorted. */
static int ini_names(const char *dir, char ***out, size_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;

	*out = NULL;
	*count = 0;
	if (!d)
		return 0; /* a directory that is not there offers nothing */
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char path[PATH_MAX];
		struct stat st;
		if (len <= 4 || strcmp(e->d_name + len - 4, ".ini") != 0 ||
		    candidate(dir, e->d_name, "", path, sizeof(path)) || stat(path, &st) ||
		    S_ISDIR(st.st_mode))
			continue;
		char **grown = realloc(names, (n + 1) * sizeof(*grown));
		if (!grown || !(grown[n] = strndup(e->d_name, len - 4))) {
			free(grown ? grown : names);
			closedir(d);
			return -ENOMEM;
		}
		names = grown;
		n++;
	}
	closedir(d);
	for (size_t i = 1; i < n; i++) /* a handful of names: insertion sort */
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	*out = names;
	*count = n;
	return 0;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int mmp_config_list(const struct mmp_config_search *sp,
		    void (*fn)(const char *name, const char *path, void *arg), void *arg)
{
	char **seen = NULL;
	size_t nseen = 0;
	int rc = 0;

	for (size_t i = 0; i < sp->n && rc == 0; i++) {
		char **names;
		size_t n;
		if ((rc = ini_names(sp->dir[i], &names, &n)))
			break;
		for (size_t k = 0; k < n && rc == 0; k++) {
			char path[PATH_MAX];
			size_t s = 0;
			while (s < nseen && strcmp(seen[s], names[k]) != 0)
				s++;
			if (s < nseen) /* an earlier directory's config of that name wins */
				continue;
			char **grown = realloc(seen, (nseen + 1) * sizeof(*grown));
			if (!grown || !(grown[nseen] = strdup(names[k]))) {
				if (grown)
					seen = grown;
				rc = -ENOMEM;
				break;
			}
			seen = grown;
			nseen++;
			if (candidate(sp->dir[i], names[k], ".ini", path, sizeof(path)) == 0)
				fn(names[k], path, arg);
		}
		free_names(names, n);
	}
	free_names(seen, nseen);
	return rc;
}

/* "(did you mean 'byte_8t'?) " when a config on the path has a name near
 * the one asked for. */
struct near {
	const char *word;
	char best[NAME_MAX + 1];
	size_t best_d;
};

static void nearest(const char *name, const char *path, void *arg)
{
	struct near *nr = arg;
	const char *one[1] = { name };
	(void)path;
	if (mmp_suggest(nr->word, one, 1)) {
		size_t d = mmp_edit_distance(nr->word, name);
		if (d < nr->best_d) {
			nr->best_d = d;
			snprintf(nr->best, sizeof(nr->best), "%s", name);
		}
	}
}

int mmp_config_find(const struct mmp_config_search *sp, const char *name, char *buf,
		    size_t len, struct mmp_error *err)
{
	struct stat st;
	int rc;

	if (strchr(name, '/') || !*name) {
		if ((size_t)snprintf(buf, len, "%s", name) >= len)
			return mmp_error_set(err, -ENAMETOOLONG, "config path too long: %s", name);
		return 0;
	}
	for (size_t i = 0; i < sp->n; i++) {
		static const char *const suffix[] = { "", ".ini" };
		for (size_t s = 0; s < 2; s++) {
			if ((rc = candidate(sp->dir[i], name, suffix[s], buf, len)))
				return mmp_error_set(err, rc, "config name too long: %s", name);
			if (stat(buf, &st) == 0 && !S_ISDIR(st.st_mode))
				return 0;
		}
	}
	/* Nothing to search for it as: a directory of that name here is
	 * opened as before, and said to be one. */
	if (stat(name, &st) == 0) {
		snprintf(buf, len, "%s", name);
		return 0;
	}

	char where[MMP_ERROR_MSG_MAX / 2] = "";
	size_t used = 0;
	for (size_t i = 0; i < sp->n && used < sizeof(where); i++) {
		int n = snprintf(where + used, sizeof(where) - used, "%s%s (%s%s)", i ? ", " : "",
				 sp->dir[i], sp->why[i], is_dir(sp->dir[i]) ? "" : ", not there");
		if (n < 0)
			break;
		used += (size_t)n;
	}
	struct near nr = { .word = name, .best_d = (size_t)-1 };
	if (mmp_config_list(sp, nearest, &nr))
		nr.best[0] = '\0';
	char hint[NAME_MAX + 32] = "";
	if (nr.best[0])
		snprintf(hint, sizeof(hint), " (did you mean '%s'?)", nr.best);
	return mmp_error_set(err, -ENOENT, "no config '%s'%s: looked for %s and %s.ini in %s",
			     name, hint, name, name, where);
}
