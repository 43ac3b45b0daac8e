/* Data files: created once from (size, fill, seed), reused while they
 * match, never overwritten unless mmprof made them; and the reference
 * result every probe run is checked against.
 *
 * A file mmprof creates gets a marker beside it (FILE.mmprof) recording
 * its size, fill, seed, inode and mtime.  A file without a matching marker
 * is the user's: it is read as it is and never written.
 */
#ifndef MMPROF_DATAFILE_H
#define MMPROF_DATAFILE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/error.h"
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
};

/* $MMPROF_DATA, else ./data. */
const char *mmp_data_dir(void);

/* Where a spec's data lives (no file system access). */
int mmp_datafile_path(const struct mmp_data_spec *spec, const char *dir, char *buf,
		      size_t len);

/* Create or reuse, open read-only, and scan for the reference.  stop, when
 * set, aborts a long creation (the temporary file is removed). */
int mmp_datafile_open(const struct mmp_data_spec *spec, const char *dir,
		      const volatile sig_atomic_t *stop, struct mmp_datafile *out,
		      struct mmp_error *err);
void mmp_datafile_close(struct mmp_datafile *df);

/* The bytes of a generated file, from its first byte (for tests). */
void mmp_datafile_generate(uint8_t *buf, size_t n, enum mmp_fill fill, uint64_t seed);

/* The reference for bytes [0, size) of the file: a plain read() loop and a
 * 256-bin count, deliberately sharing no code with the probes. */
int mmp_reference_scan(int fd, uint64_t size, uint64_t hist[256], struct mmp_error *err);

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
