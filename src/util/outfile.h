/* Result files: NAME.csv and its companions (NAME.attribution.csv,
 * NAME.threads.csv, NAME.answers.csv, NAME.events.csv, NAME.json), written
 * so that a run can never destroy what it reads or leave a half file.
 *
 *   - A result path that is an input of the run (a data file, its marker,
 *     the config: the caller lists them) is refused before anything is
 *     opened for writing.
 *   - Each file is written to a temporary beside it (.NAME.csv.tmp.PID)
 *     and renamed into place by mmp_outfile_commit: until then the previous
 *     NAME.csv stays whole; a crash leaves only the temporary, which the
 *     next run on that path removes (its PID being gone), with a note.
 *   - One mmprof at a time per result set: a lock (.NAME.csv.lock, flock)
 *     is held from mmp_outset_open to mmp_outset_close; a second one is
 *     refused, naming the path and the PID that holds it.
 *   - When NAME.csv is committed, companions of an earlier run that this
 *     run did not write are removed, so the set on disk is one run's.
 *   - A character device or FIFO (/dev/null, /dev/stdout, a pipe) is
 *     written directly: no temporary, no lock, and no companions
 *     (mmp_outset_has_companions() says 0: never /dev/null.attribution.csv).
 *   - A file replaced keeps its mode and (when this user may give it: root)
 *     its owner and group.  NAME.csv as a symbolic link is followed, but
 *     not into a directory others can write (-EPERM: name the file).
 *   - Every write error (ENOSPC, EIO, /dev/full) is an error naming the file.
 *
 * Why fsync before the rename: without it, a power cut after the rename
 * can leave NAME.csv empty or short on ext4/xfs (the rename reaches the
 * journal before the data), which is exactly the half file the temporary
 * exists to prevent; results cost minutes to measure and the fsync of a
 * CSV costs milliseconds, once per file per run.  Data files are not
 * fsynced (see datafile.c): they are regenerated from their seed.
 */
#ifndef MMPROF_OUTFILE_H
#define MMPROF_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#include "util/error.h"
#include "util/lockfile.h"

#define MMP_OUT_PATH_MAX 4096

/* The files of one result set; the suffix replaces NAME.csv's ".csv". */
enum mmp_out_kind {
	MMP_OUT_CSV,         /* NAME.csv itself */
	MMP_OUT_ATTRIBUTION, /* NAME.attribution.csv */
	MMP_OUT_THREADS,     /* NAME.threads.csv (--per-thread) */
	MMP_OUT_ANSWERS,     /* NAME.answers.csv */
	MMP_OUT_EVENTS,      /* NAME.events.csv */
	MMP_OUT_JSON,        /* NAME.json */
	MMP_OUT_PROFILE,     /* NAME.profile.csv */
	MMP_OUT_FOLDED,      /* NAME.profile.folded */
	MMP_OUT_COUNT
};

#define MMP_OUT_BIT(kind) (1u << (kind))

struct mmp_outset {
	char path[MMP_OUT_PATH_MAX];   /* NAME.csv as given */
	char target[MMP_OUT_PATH_MAX]; /* the file NAME.csv is renamed into (links followed) */
	int special;                   /* a device or FIFO: written directly */
	struct mmp_lock lock;
	struct mmp_lock other; /* --json elsewhere (mmp_outset_lock_other) */
	int other_held;
	unsigned open;      /* MMP_OUT_BIT of files opened and not yet committed */
	unsigned committed; /* MMP_OUT_BIT of files committed */
	char note[2048];    /* "" or what was cleaned up, for a "note:" line */
	/* Each file's path, made when the set is opened: a signal handler
	 * (mmp_outset_rescue) cannot format one. */
	char kind_path[MMP_OUT_COUNT][MMP_OUT_PATH_MAX];
	/* mmp_outset_keep_previous: NAME.old.csv and its companions, where
	 * the set this run replaces goes (as perf keeps perf.data.old). */
	int keep_previous;
	int moved; /* done: the previous set is NAME.old's (or there was none) */
	char old_path[MMP_OUT_COUNT][MMP_OUT_PATH_MAX];
};

struct mmp_outsink;

struct mmp_outfile {
	FILE *f; /* write here */
	enum mmp_out_kind kind;     /* MMP_OUT_COUNT: a file of no set */
	struct mmp_outset *set;     /* NULL: a file of no set */
	char path[MMP_OUT_PATH_MAX]; /* where it will be */
	char tmp[MMP_OUT_PATH_MAX];  /* the temporary; "" when written directly */
	struct mmp_outsink *sink;    /* under f: its descriptor and first write error */
	unsigned long long flushed;  /* bytes whole on disk at the last good flush */
};

/* ".attribution.csv" etc.; ".csv" for MMP_OUT_CSV. */
const char *mmp_out_suffix(enum mmp_out_kind kind);

/* Check csv_path and every companion path against the inputs in protect
 * (nprotect paths; same st_dev+st_ino, or the same resolved path), then
 * create the directory, take the lock and remove temporaries left by
 * earlier runs that died (said in set->note).  Nothing is written when it
 * fails: -EEXIST (an input), -EWOULDBLOCK (another mmprof), -EISDIR,
 * -EINVAL (a socket, a block device, a dangling link), or the errno of a
 * directory that cannot be made, with a message in err. */
int mmp_outset_open(struct mmp_outset *set, const char *csv_path, const char *const *protect,
		    size_t nprotect, struct mmp_error *err);

/* Keep the set this run replaces: when the first file of this run's set
 * is committed (or rescued), an earlier NAME.csv and each of its
 * companions are renamed to NAME.old.csv, NAME.old.events.csv, ... (what
 * was there as NAME.old's before is removed), said in set->note.  A run
 * that commits nothing (no row measured) leaves both sets as they were.
 * Not for a device or FIFO, nor for NAME.csv as a symbolic link (its
 * target is someone's file): 0, or -EINVAL for those. */
int mmp_outset_keep_previous(struct mmp_outset *set);

/* 0 when NAME.csv is a device or FIFO: write no companions at all. */
int mmp_outset_has_companions(const struct mmp_outset *set);

/* The final path of one file of the set. */
void mmp_outset_path(const struct mmp_outset *set, enum mmp_out_kind kind, char *buf,
		     size_t len);

/* Open one file of the set for writing (its temporary, or the device
 * itself).  A companion of a special NAME.csv is -EINVAL. */
int mmp_outfile_open(struct mmp_outset *set, enum mmp_out_kind kind, struct mmp_outfile *out,
		     struct mmp_error *err);

/* fflush and check: for writers that flush every row, so a full disk is
 * reported at the row that hit it.  0 or a negative errno naming the file. */
int mmp_outfile_flush(struct mmp_outfile *out, struct mmp_error *err);

/* Flush, fsync and rename into place (a special file: flush only).
 * Committing NAME.csv also removes the companions that this set neither
 * committed nor has open (said in set->note).  On failure the temporary
 * is removed and the previous file is left as it was. */
int mmp_outfile_commit(struct mmp_outfile *out, struct mmp_error *err);

/* Commit what was whole at the last good mmp_outfile_flush: after a
 * write error (EFBIG past ulimit -f, ENOSPC), the temporary is cut back
 * to its last complete row and renamed into place, so rows already
 * measured are kept rather than the previous file.  Without an error,
 * mmp_outfile_commit.  A device or FIFO cannot be cut back: the error is
 * returned.  0 or a negative errno. */
int mmp_outfile_commit_written(struct mmp_outfile *out, struct mmp_error *err);

/* 1 when a write to the file has failed. */
int mmp_outfile_failed(const struct mmp_outfile *out);

/* For a signal handler about to _exit (main's second Ctrl-C): rename the
 * temporary into place as it is, keeping every row already flushed.  Only
 * rename(2), which is async-signal-safe: no fsync, no pruning, no lock
 * release (the kernel drops it at exit).  0, or -1 with errno. */
int mmp_outfile_rescue(const struct mmp_outfile *out);

/* For that handler, the whole set at once: with rows measured, each open
 * file of files (NAME.csv first) renamed into place as it is, and every
 * other file of the set -- an earlier run's, whose run_id is not this
 * one's -- removed, so that what is kept is one run's set; with none,
 * every temporary removed and the earlier files left as they were.  The
 * sentence that says which files are kept (and removed) is put in said.
 * The set it replaces is NAME.old's first when it keeps the previous.
 * Only rename, unlink and lstat: async-signal-safe. */
void mmp_outset_rescue(struct mmp_outset *set, const struct mmp_outfile *const *files,
		       size_t n, unsigned long rows, char *said, size_t len);

/* Close and remove the temporary: the previous file stays as it was. */
void mmp_outfile_abandon(struct mmp_outfile *out);

/* Which file of the set path names (links and "." resolved, or the same
 * file on disk), or -1 when it is none of them: for --json, which joins
 * the set when it names NAME.json and must not name NAME.csv. */
int mmp_outset_kind_of(const struct mmp_outset *set, const char *path);

/* A file of no result set: mmprof compare --csv, and --json at a path
 * other than NAME.json.  It is checked against the inputs in protect as
 * NAME.csv is (a path that is an input: -EEXIST), and written as a result
 * file is -- to a temporary beside it, fsynced and renamed into place by
 * mmp_outfile_commit, or directly when it is a device or FIFO -- but it
 * takes no lock and prunes nothing, as it belongs to no set.  (A temporary
 * left by a crash stays, named .NAME.tmp.PID.)  mmp_outfile_check_alone
 * checks without writing: before a run, so a refused path costs nothing. */
int mmp_outfile_check_alone(const char *path, const char *const *protect, size_t nprotect,
			    struct mmp_error *err);
int mmp_outfile_open_alone(const char *path, const char *const *protect, size_t nprotect,
			   struct mmp_outfile *out, struct mmp_error *err);
/* A file of no set that this run writes (--json elsewhere) is still
 * one mmprof's at a time: lock it as NAME.csv is (.BASE.lock beside it),
 * held with the set and released by mmp_outset_close.  A device or FIFO
 * takes no lock.  0, -EWOULDBLOCK with who holds it, or a negative errno
 * with a message. */
int mmp_outset_lock_other(struct mmp_outset *set, const char *path, struct mmp_error *err);

/* Release the lock and remove the lock file.  Commit or abandon every file
 * of the set first (a temporary still open stays until the next run). */
void mmp_outset_close(struct mmp_outset *set);

#endif
