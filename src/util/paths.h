/* Small path helpers shared by the data files and the result files. */
#ifndef MMPROF_PATHS_H
#define MMPROF_PATHS_H

#include <stddef.h>

#include "util/error.h"

/* mkdir -p: dir and every missing parent.  0, or a negative errno with the
 * directory that could not be made in err. */
int mmp_mkdirs(const char *dir, struct mmp_error *err);

/* A file beside a CSV: "results/x.csv" + ".threads.csv" ->
 * "results/x.threads.csv" (".csv" replaced, not repeated). */
void mmp_sibling_path(const char *csv_path, const char *suffix, char *buf, size_t len);

/* The absolute path a name will have, symbolic links resolved as far as
 * the file system goes: realpath() of the longest part that exists, and
 * the rest ("results/new/x.csv" before results/ exists) appended with "."
 * and ".." taken lexically.  Two names for one file, existing or not yet,
 * resolve to the same text.  0, or a negative errno. */
int mmp_path_resolve(const char *path, char *buf, size_t len);

/* Split "a/b/c" into "a/b" and "c" ("c" -> "." and "c"; "/c" -> "/" and
 * "c").  *base points into path. */
int mmp_path_split(const char *path, char *dir, size_t len, const char **base);

/* A result path with its placeholders filled in: {host} is host (the
 * short host name, so one command line gives each machine of a fleet its
 * own file), {{ and }} are literal braces.  0; -EINVAL for another {name}
 * or a '{' without '}', -ENAMETOOLONG, each with why in err. */
int mmp_path_fill(const char *path, const char *host, char *buf, size_t len,
		  struct mmp_error *err);

#endif
