/* The data files of the job points, before anything runs: every distinct data
 * file checked once (mmp_datafile_check) and reported with the FILE:LINE
 * that asked for it, and the list of a run's inputs that result files must
 * never overwrite (for mmp_outset_open).
 */
#ifndef MMPROF_SWEEP_DATA_H
#define MMPROF_SWEEP_DATA_H

#include <stddef.h>

#include "config/config.h"

/* Check each distinct data file of the plan in dir (mmp_data_dir()): a
 * problem is a config diagnostic at the line of the run's `file` key (else
 * its `size`, else its job header); so is one file asked for with two
 * different sizes, fills or seeds.  Creates and writes nothing.  0, or
 * -EINVAL when there are diagnostics, or -ENOMEM. */
int mmp_sweep_check_data(struct mmp_config *cfg, const struct mmp_sweep *plan, const char *dir);

/* The inputs of a run: the config file, and each distinct data file of the
 * plan with its marker (FILE.mmprof), as an array of n strings for
 * mmp_outset_open's protect list.  0 or -ENOMEM; free with
 * mmp_sweep_inputs_free. */
int mmp_sweep_inputs(const struct mmp_config *cfg, const struct mmp_sweep *plan, const char *dir,
		    char ***paths, size_t *n);
void mmp_sweep_inputs_free(char **paths, size_t n);

#endif
