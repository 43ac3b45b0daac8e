/* The programs' logs of one invocation (see logdir.h). */
#include "util/logdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/paths.h"

int mmp_logdir_make(const struct mmp_outset *set, const char *run_id, char *path, size_t len,
		    struct mmp_error *err)
{
	int n;
	if (mmp_outset_has_companions(set)) {
		char root[MMP_OUT_PATH_MAX];
		mmp_sibling_path(set->path, ".logs", root, sizeof(root));
		n = snprintf(path, len, "%s/%s", root, run_id);
	} else {
		const char *tmp = getenv("TMPDIR");
		n = snprintf(path, len, "%s/mmprof-%s.logs", tmp && *tmp ? tmp : "/tmp", run_id);
	}
	if (n < 0 || (size_t)n >= len)
		return mmp_error_set(err, -ENAMETOOLONG, "path too long for the logs of %s",
				     set->path);
	return mmp_mkdirs(path, err);
}

/* What process_run.c names a log: run<N>-<job>.<k>.log, and the preload
 * library's report beside it (.log.preload). */
static int is_log_name(const char *name)
{
	size_t n = strlen(name);
	if (strncmp(name, "run", 3) != 0)
		return 0;
	return (n > 4 && strcmp(name + n - 4, ".log") == 0) ||
	       (n > 12 && strcmp(name + n - 12, ".log.preload") == 0);
}

/* A run id as mmp_meta_collect makes it: 16 lowercase hex digits. */
static int is_run_id(const char *name)
{
	size_t n = strspn(name, "0123456789abcdef");
	return n == 16 && name[n] == '\0';
}

static int is_regular(int dirfd, const char *name)
{
	struct stat st;
	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* Its log files, then the directory if that emptied it.  1 when it went. */
static int remove_run(int rootfd, const char *name)
{
	int fd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	for (struct dirent *e; (e = readdir(d));)
		if (is_log_name(e->d_name) && is_regular(fd, e->d_name))
			unlinkat(fd, e->d_name, 0);
	closedir(d);
	return unlinkat(rootfd, name, AT_REMOVEDIR) == 0;
}

/* The start of NAME.old.csv, when the set keeps the previous: every row
 * has its run_id, so the first rows name the invocation whose logs its
 * log cells point at.  NULL when there is none (free it). */
static char *previous_rows(const struct mmp_outset *set)
{
	enum { HEAD = 256 * 1024 }; /* the header and a first row, many times over */
	if (!set->keep_previous)
		return NULL;
	int fd = open(set->old_path[MMP_OUT_CSV], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char *buf = fd >= 0 ? malloc(HEAD + 1) : NULL;
	ssize_t n = buf ? read(fd, buf, HEAD) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

unsigned mmp_logdir_keep_only(const struct mmp_outset *set, const char *run_id)
{
	char root[MMP_OUT_PATH_MAX];
	unsigned removed = 0;
	int flat = 0; /* an earlier version's logs, straight in NAME.logs */
	if (!mmp_outset_has_companions(set))
		return 0;
	char *old = previous_rows(set);
	mmp_sibling_path(set->path, ".logs", root, sizeof(root));
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		free(old);
		return 0;
	}
	for (struct dirent *e; (e = readdir(d));) {
		if (strcmp(e->d_name, run_id) == 0)
			continue;
		/* NAME.old.csv's rows name these: they stay with it. */
		if (old && is_run_id(e->d_name) && strstr(old, e->d_name))
			continue;
		if (is_run_id(e->d_name))
			removed += (unsigned)remove_run(fd, e->d_name);
		else if (is_log_name(e->d_name) && is_regular(fd, e->d_name) &&
			 unlinkat(fd, e->d_name, 0) == 0)
			flat = 1;
	}
	closedir(d);
	free(old);
	/* This invocation ran no program and nothing else is there. */
	(void)rmdir(root);
	return removed + (unsigned)flat;
}

void mmp_logdir_drop_empty(const struct mmp_outset *set, char *path)
{
	/* rmdir removes only an empty directory: nothing written is lost. */
	if (!path[0] || rmdir(path) != 0)
		return;
	path[0] = '\0';
	if (mmp_outset_has_companions(set)) {
		char root[MMP_OUT_PATH_MAX];
		mmp_sibling_path(set->path, ".logs", root, sizeof(root));
		rmdir(root);
	}
}
