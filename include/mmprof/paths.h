/* Small path helpers shared by the data files and the CSV writers. */
#ifndef MMPROF_PATHS_H
#define MMPROF_PATHS_H

#include <stddef.h>

#include "mmprof/error.h"

/* mkdir -p: dir and every missing parent.  0, or a negative errno with the
 * directory that could not be made in err. */
int mmp_mkdirs(const char *dir, struct mmp_error *err);

/* A file beside a CSV: "results/x.csv" + ".threads.csv" ->
 * "results/x.threads.csv" (".csv" replaced, not repeated). */
void mmp_sibling_path(const char *csv_path, const char *suffix, char *buf, size_t len);

#endif
