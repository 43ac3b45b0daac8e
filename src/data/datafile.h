/* Data files: created once from (size, fill, seed), reused while they
 * match, never overwritten unless mmprof made them; and the reference
 * result every probe run is checked against.
 *
 * A file mmprof creates gets a marker beside it (FILE.mmprof) recording
 * its size, fill, seed, inode and mtime.  A file whose marker names
 * another inode or mtime is mmprof's when its bytes are the ones the
 * marker's fill and seed generate (a copy: its marker is then rewritten).
 * A file without a matching marker is the user's: it is read as it is and
 * never written.  A spec without size never creates or rewrites anything.
 *
 * Creation is one process at a time per file (flock on .FILE.lock beside
 * it): a second mmprof asking for the same file waits, then finds it made
 * and reuses it.  Temporaries (FILE.tmp.PID, FILE.mmprof.tmp.PID) are
 * opened O_EXCL|O_NOFOLLOW; those of processes that no longer exist are
 * removed by the next open of FILE (said in the datafile's note).
 *
 * Free space: a file is created only when its size plus a margin of 1/16
 * of it, at least 1 MiB and at most 64 MiB, is free
 * (mmp_datafile_space_needed), so a small file fits on a nearly full disk
 * and a large one still leaves room for the results.
 */
#ifndef MMPROF_DATAFILE_H
#define MMPROF_DATAFILE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "mmprof/params.h"

struct mmp_data_spec {
	const char *file; /* NULL: a generated file in the data directory */
	uint64_t size;    /* 0: an existing file's own size */
	enum mmp_fill fill;
	uint64_t seed;
};

struct mmp_datafile {
	char *path;
	struct mmp_data_spec spec; /* as asked for (file points at path) */
	uint64_t size;             /* bytes in the file */
	int fd;                    /* read-only */
	int generated;             /* mmprof's own file (its marker matches) */
	int created;               /* created by this invocation */
	double create_bytes_per_s; /* when created: how fast */
	uint64_t hist[256];        /* reference: an independent read() scan */
	/* The file as opened, for mmp_datafile_recheck. */
	uint64_t dev, ino;
	int64_t mtime_ns;
	char note[1024]; /* "" or leftovers removed, for a "note:" line */
};

/* $MMPROF_DATA, else ./data. */
const char *mmp_data_dir(void);

/* Where a spec's data lives (no file system access). */
int mmp_datafile_path(const struct mmp_data_spec *spec, const char *dir, char *buf,
		      size_t len);

/* Create or reuse, open read-only, and scan for the reference.  stop, when
 * set, aborts a long creation (the temporary file is removed), the wait for
 * another creator, or the reference scan, within a chunk (1 MiB): -EINTR. */
int mmp_datafile_open(const struct mmp_data_spec *spec, const char *dir,
		      const volatile sig_atomic_t *stop, struct mmp_datafile *out,
		      struct mmp_error *err);
void mmp_datafile_close(struct mmp_datafile *df);

/* The bytes of a generated file, from its first byte (for tests). */
void mmp_datafile_generate(uint8_t *buf, size_t n, enum mmp_fill fill, uint64_t seed);

/* The reference for bytes [0, size) of the file: a plain read() loop and a
 * 256-bin count, deliberately sharing no code with the probes.  The _stop
 * form returns -EINTR within one 1 MiB chunk of *stop being set (a 16 GiB
 * file otherwise ignores Ctrl-C for most of a minute). */
int mmp_reference_scan(int fd, uint64_t size, uint64_t hist[256], struct mmp_error *err);
int mmp_reference_scan_stop(int fd, uint64_t size, uint64_t hist[256],
			    const volatile sig_atomic_t *stop, struct mmp_error *err);

/* Bytes that must be free to create a file of size bytes (see above). */
uint64_t mmp_datafile_space_needed(uint64_t size);

/* Everything mmp_datafile_open would refuse, found without creating or
 * writing anything: a file that does not exist and cannot be made (no
 * size, a missing or read-only directory, not enough free space), a path
 * that is not a regular file, an empty or unreadable file, a user's file
 * whose size disagrees with size, a file in the data directory without a
 * matching marker.  0 or a negative errno with the message open would give. */
int mmp_datafile_check(const struct mmp_data_spec *spec, const char *dir,
		       struct mmp_error *err);

/* Is the file still the one opened (same inode at the path, same size and
 * mtime)?  -ESTALE with "the data file X changed during the run (...)"
 * when not: results measured on other bytes than the reference's. */
int mmp_datafile_recheck(const struct mmp_datafile *df, struct mmp_error *err);

/* The data files of one invocation, each opened and scanned once. */
struct mmp_datafiles {
	struct mmp_datafile **files;
	size_t n;
	const char *dir;
	const volatile sig_atomic_t *stop;
};

int mmp_datafiles_get(struct mmp_datafiles *set, const struct mmp_data_spec *spec,
		      struct mmp_datafile **out, struct mmp_error *err);
void mmp_datafiles_free(struct mmp_datafiles *set);

#endif
