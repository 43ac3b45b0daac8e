/* Inside the data file module: shared by datafile.c (opening, the
 * reference), datafile_create.c (creating under the lock) and
 * datafile_check.c (deciding; checking before a run, rechecking during
 * it).  The generator is here so creation and mmp_datafile_generate are
 * one definition of "the bytes for a seed". */
#ifndef MMPROF_DATAFILE_IMPL_H
#define MMPROF_DATAFILE_IMPL_H

#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "data/datafile.h"

#define MMP_MARKER_SUFFIX ".mmprof"

/* Creation writes, and the reference scan reads, 1 MiB at a time: large
 * enough to run at disk speed, small enough that Ctrl-C (*stop) is seen
 * within milliseconds. */
#define MMP_DATA_CHUNK (UINT64_C(1) << 20)

/* The bytes on disk of what dead creators of path left beside it (the
 * temporaries the creation removes before it writes): space the check
 * before a run counts as free. */
uint64_t mmp_datafile_leftover_bytes(const char *path);

struct rng {
	uint64_t s[4];
};

static inline uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static inline void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* n is a multiple of 8 except for the last piece of a file. */
static inline void rng_fill(struct rng *r, uint8_t *buf, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w = rng_next(r);
		for (int b = 0; b < 8; b++)
			buf[i + (size_t)b] = (uint8_t)(w >> (8 * b));
	}
	if (i < n) {
		uint64_t w = rng_next(r);
		for (size_t b = 0; i + b < n; b++)
			buf[i + b] = (uint8_t)(w >> (8 * b));
	}
}

static inline int64_t mmp_mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* What to do with what is at a data file's path. */
enum mmp_data_verdict {
	MMP_DATA_REUSE,  /* mmprof's own file, as asked for */
	MMP_DATA_USER,   /* the user's file, read as it is */
	MMP_DATA_CREATE, /* nothing there, or mmprof's own with other contents */
};

/* What the marker beside a file says of it. */
struct mmp_data_found {
	int ours; /* mmprof made the file at path (as `made` says) */
	int copy; /* ...known by its bytes: the marker names another inode or
		   * mtime (a copied checkout, cp -a), so it must be rewritten */
	struct mmp_data_spec made; /* size, fill and seed it was made with */
};

/* Decide from the file and its marker (no writes).  A file whose marker
 * names another inode or mtime but its size is read once and compared
 * with the bytes the marker's fill and seed generate: the same bytes are
 * mmprof's own (a copy), others the user's.  stop aborts that read within
 * a chunk (-EINTR).  found may be NULL.  A refusal is a negative errno
 * with the message the user sees. */
int mmp_datafile_decide(const char *path, const struct mmp_data_spec *spec,
			const volatile sig_atomic_t *stop, enum mmp_data_verdict *verdict,
			struct mmp_data_found *found, struct mmp_error *err);

/* Write the marker that says mmprof made the file at path (as st) with
 * made's size, fill and seed. */
int mmp_datafile_write_marker(const char *path, const struct mmp_data_spec *made,
			      const struct stat *st, struct mmp_error *err);

/* Reuse, create (under the file's lock) or refuse what is at path; sets
 * out->generated, out->created, out->create_bytes_per_s and out->note. */
int mmp_datafile_prepare(const char *path, const struct mmp_data_spec *spec, const char *dir,
			 const volatile sig_atomic_t *stop, struct mmp_datafile *out,
			 struct mmp_error *err);

/* What a mode is, for messages: "a directory", "a FIFO", ... */
const char *mmp_datafile_kind(unsigned mode);

#endif
