/* Where the programs' logs of one invocation go (probe = exec), kept or
 * replaced with the rows that name them.
 *
 *   NAME.logs/RUNID/   beside NAME.csv, one directory per invocation (its
 *                      run_id, the CSV's column): the messages a run prints
 *                      while it runs name its logs there, and stay true
 *                      whether its rows are kept or not
 *   $TMPDIR/mmprof-RUNID.logs/   when NAME.csv is a device or a FIFO
 *                      (nothing is "beside" it)
 *
 * NAME.csv's rule (outfile.h) is the logs' rule: when this invocation's
 * rows replace NAME.csv, mmp_logdir_keep_only() removes the logs of every
 * earlier invocation (their rows are gone), including the flat
 * NAME.logs/run<N>-<job>.<k>.log of earlier versions; when no row was
 * measured, NAME.csv stays as it was and so do the logs its rows name --
 * this invocation's stay beside them, for its error messages, until a
 * later run's rows replace both.  A set that keeps the previous
 * (mmp_outset_keep_previous) keeps the logs NAME.old.csv's rows name too.
 * Only what mmprof writes there is
 * removed: directories named like a run id holding run*.log and
 * run*.log.preload files, and such files; anything else stays, and
 * symbolic links are never followed.
 */
#ifndef MMPROF_LOGDIR_H
#define MMPROF_LOGDIR_H

#include <stddef.h>

#include "util/error.h"
#include "util/outfile.h"

/* Make this invocation's directory; its path into path.  0, or a
 * negative errno with a message. */
int mmp_logdir_make(const struct mmp_outset *set, const char *run_id, char *path, size_t len,
		    struct mmp_error *err);

/* NAME.csv now holds run_id's rows: remove other invocations' logs from
 * NAME.logs (and NAME.logs itself when nothing is left in it).  Best
 * effort: what cannot be removed stays.  The number of invocations whose
 * logs were removed. */
unsigned mmp_logdir_keep_only(const struct mmp_outset *set, const char *run_id);

/* This invocation wrote no log (its program could not start): remove its
 * empty directory, and NAME.logs when that is empty too, so that no
 * message points at an empty directory; path becomes "".  A directory
 * with anything in it stays. */
void mmp_logdir_drop_empty(const struct mmp_outset *set, char *path);

#endif
