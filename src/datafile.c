/* Data files and their reference results (see datafile.h).
 *
 * The random fill is xoshiro256** seeded through splitmix64, written here
 * rather than taken from libc: the bytes must be the same for a seed on
 * every machine and libc version, and the generator must outrun the page
 * cache (>= 500 MB/s) so creating 100 MiB costs a fraction of a second.
 */
#include "mmprof/datafile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "mmprof/paths.h"
#include "mmprof/units.h"

#define CHUNK (UINT64_C(1) << 20)
#define MARKER_SUFFIX ".mmprof"

struct rng {
	uint64_t s[4];
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, uint64_t seed)
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
static void rng_fill(struct rng *r, uint8_t *buf, size_t n)
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

void mmp_datafile_generate(uint8_t *buf, size_t n, enum mmp_fill fill, uint64_t seed)
{
	struct rng r;
	if (fill == MMP_FILL_ZERO) {
		memset(buf, 0, n);
		return;
	}
	rng_seed(&r, seed);
	rng_fill(&r, buf, n);
}

const char *mmp_data_dir(void)
{
	const char *env = getenv("MMPROF_DATA");
	return env && *env ? env : "data";
}

int mmp_datafile_path(const struct mmp_data_spec *spec, const char *dir, char *buf,
		      size_t len)
{
	char size[32];
	int n;

	if (spec->file)
		n = snprintf(buf, len, "%s", spec->file);
	else
		n = snprintf(buf, len, "%s/mmprof-%s-%s-%" PRIu64 ".bin", dir,
			     mmp_format_size(spec->size, size, sizeof(size)),
			     mmp_fill_names[spec->fill], spec->seed);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

struct marker {
	uint64_t size, seed, inode;
	int64_t mtime_ns;
	char fill[16];
};

static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

static int marker_read(const char *path, struct marker *m)
{
	char name[4200];
	snprintf(name, sizeof(name), "%s%s", path, MARKER_SUFFIX);
	FILE *f = fopen(name, "r");
	if (!f)
		return -errno;
	int n = fscanf(f,
		       "mmprof data file v1\nsize=%" SCNu64 "\nfill=%15s\nseed=%" SCNu64
		       "\ninode=%" SCNu64 "\nmtime_ns=%" SCNd64,
		       &m->size, m->fill, &m->seed, &m->inode, &m->mtime_ns);
	fclose(f);
	return n == 5 ? 0 : -EINVAL;
}

/* Is the file at path the one mmprof wrote for this marker? */
static int marker_matches(const struct marker *m, const struct stat *st)
{
	return m->inode == (uint64_t)st->st_ino && m->mtime_ns == mtime_ns(st) &&
	       m->size == (uint64_t)st->st_size;
}

static int write_all(int fd, const uint8_t *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

static int write_marker(const char *path, const struct mmp_data_spec *spec,
			const struct stat *st, struct mmp_error *err)
{
	char name[4200], tmp[4300];
	snprintf(name, sizeof(name), "%s%s", path, MARKER_SUFFIX);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", name, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f)
		return mmp_error_errno(err, -errno, "create %s", tmp);
	fprintf(f,
		"mmprof data file v1\nsize=%" PRIu64 "\nfill=%s\nseed=%" PRIu64
		"\ninode=%" PRIu64 "\nmtime_ns=%" PRId64 "\n",
		(uint64_t)st->st_size, mmp_fill_names[spec->fill], spec->seed,
		(uint64_t)st->st_ino, mtime_ns(st));
	if (fclose(f)) {
		int rc = mmp_error_errno(err, -errno, "write %s", tmp);
		unlink(tmp);
		return rc;
	}
	if (rename(tmp, name)) {
		int rc = mmp_error_errno(err, -errno, "rename %s", tmp);
		unlink(tmp);
		return rc;
	}
	return 0;
}

/* Write the data to a temporary file, then the marker, then rename the
 * data into place: an interrupted creation leaves no half-written file
 * under the real name, and a marker without its file is harmless. */
static int create(const char *path, const struct mmp_data_spec *spec,
		  const volatile sig_atomic_t *stop, double *rate, struct mmp_error *err)
{
	char tmp[4200];
	struct statvfs vfs;
	struct stat st;
	struct rng r;
	uint8_t *buf = NULL;
	int fd, rc = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return mmp_error_errno(err, -errno, "create %s", tmp);
	if (fstatvfs(fd, &vfs) == 0 &&
	    (uint64_t)vfs.f_bavail * vfs.f_frsize < spec->size + (UINT64_C(64) << 20)) {
		char need[32];
		rc = mmp_error_set(err, -ENOSPC,
				   "not enough space for %s (%s, plus 64MiB to spare); set "
				   "MMPROF_DATA to a larger file system",
				   path, mmp_format_size(spec->size, need, sizeof(need)));
		goto fail;
	}
	buf = malloc(CHUNK);
	if (!buf) {
		rc = mmp_error_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	if (spec->fill == MMP_FILL_ZERO)
		memset(buf, 0, CHUNK);
	else
		rng_seed(&r, spec->seed);

	uint64_t t0 = mmp_now_ns();
	for (uint64_t done = 0; done < spec->size;) {
		size_t n = spec->size - done < CHUNK ? (size_t)(spec->size - done) : CHUNK;
		if (stop && *stop) {
			rc = mmp_error_set(err, -EINTR, "interrupted while creating %s", path);
			goto fail;
		}
		if (spec->fill == MMP_FILL_RANDOM)
			rng_fill(&r, buf, n);
		rc = write_all(fd, buf, n);
		if (rc) {
			mmp_error_errno(err, rc, "write %s", tmp);
			goto fail;
		}
		done += n;
	}
	uint64_t t1 = mmp_now_ns();
	*rate = (double)spec->size * 1e9 / (double)(t1 > t0 ? t1 - t0 : 1);
	if (fstat(fd, &st)) {
		rc = mmp_error_errno(err, -errno, "stat %s", tmp);
		goto fail;
	}
	if (close(fd)) {
		fd = -1;
		rc = mmp_error_errno(err, -errno, "close %s", tmp);
		goto fail;
	}
	fd = -1;
	rc = write_marker(path, spec, &st, err);
	if (rc)
		goto fail;
	if (rename(tmp, path)) {
		rc = mmp_error_errno(err, -errno, "rename %s to %s", tmp, path);
		goto fail;
	}
	free(buf);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(buf);
	return rc;
}

int mmp_reference_scan(int fd, uint64_t size, uint64_t hist[256], struct mmp_error *err)
{
	uint8_t *buf = malloc(CHUNK);
	uint64_t off = 0;

	if (!buf)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	memset(hist, 0, 256 * sizeof(hist[0]));
	while (off < size) {
		uint64_t want = size - off < CHUNK ? size - off : CHUNK;
		ssize_t n = pread(fd, buf, (size_t)want, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int rc = n < 0 ? -errno : -EIO;
			free(buf);
			return mmp_error_errno(err, rc, "reference scan at byte %" PRIu64, off);
		}
		for (ssize_t i = 0; i < n; i++)
			hist[buf[i]]++;
		off += (uint64_t)n;
	}
	free(buf);
	return 0;
}

/* Decide what to do with what is at path: reuse, (re)create or refuse. */
static int prepare(const char *path, const struct mmp_data_spec *spec, const char *dir,
		   const volatile sig_atomic_t *stop, struct mmp_datafile *out,
		   struct mmp_error *err)
{
	struct stat st;
	struct marker m;
	char want[32], have[32];

	if (stat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			return mmp_error_set(err, -EINVAL, "%s is not a regular file", path);
		int ours = marker_read(path, &m) == 0 && marker_matches(&m, &st);
		if (ours) {
			int same = (!spec->size || spec->size == m.size) &&
				   strcmp(m.fill, mmp_fill_names[spec->fill]) == 0 &&
				   m.seed == spec->seed;
			out->generated = 1;
			if (same)
				return 0;
			/* mmprof's own file with other contents: replace it. */
			if (!spec->size)
				return 0;
		} else if (!spec->file) {
			return mmp_error_set(err, -EEXIST,
					     "%s exists but mmprof did not create it (no matching "
					     "%s%s); refusing to overwrite it: move it away, or "
					     "use it with file = %s",
					     path, path, MARKER_SUFFIX, path);
		} else if (spec->size && spec->size != (uint64_t)st.st_size) {
			return mmp_error_set(err, -EEXIST,
					     "%s exists (%s) and mmprof did not create it; "
					     "refusing to rewrite it as size = %s: remove `size` "
					     "to read it as it is, or name a new file",
					     path, mmp_format_size((uint64_t)st.st_size, have,
								   sizeof(have)),
					     mmp_format_size(spec->size, want, sizeof(want)));
		} else {
			out->generated = 0; /* the user's file, read as it is */
			return 0;
		}
	} else if (errno != ENOENT) {
		return mmp_error_errno(err, -errno, "stat %s", path);
	} else if (!spec->size) {
		return mmp_error_set(err, -ENOENT,
				     "%s does not exist; set size (and fill, seed) to create it",
				     path);
	}
	if (!spec->file) {
		int rc = mmp_mkdirs(dir, err);
		if (rc)
			return rc;
	}
	int rc = create(path, spec, stop, &out->create_bytes_per_s, err);
	if (rc)
		return rc;
	out->generated = 1;
	out->created = 1;
	return 0;
}

int mmp_datafile_open(const struct mmp_data_spec *spec, const char *dir,
		      const volatile sig_atomic_t *stop, struct mmp_datafile *out,
		      struct mmp_error *err)
{
	char path[4096];
	struct stat st;
	int rc;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (mmp_datafile_path(spec, dir, path, sizeof(path)))
		return mmp_error_set(err, -ENAMETOOLONG, "data file path too long");
	out->path = strdup(path);
	if (!out->path)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	out->spec = *spec;
	out->spec.file = out->path;
	rc = prepare(path, spec, dir, stop, out, err);
	if (rc)
		goto fail;
	out->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (out->fd < 0) {
		rc = mmp_error_errno(err, -errno, "open %s", path);
		goto fail;
	}
	if (fstat(out->fd, &st)) {
		rc = mmp_error_errno(err, -errno, "stat %s", path);
		goto fail;
	}
	out->size = (uint64_t)st.st_size;
	if (out->size == 0) {
		rc = mmp_error_set(err, -EINVAL, "%s is empty: nothing to read", path);
		goto fail;
	}
	rc = mmp_reference_scan(out->fd, out->size, out->hist, err);
	if (rc)
		goto fail;
	return 0;
fail:
	mmp_datafile_close(out);
	return rc;
}

void mmp_datafile_close(struct mmp_datafile *df)
{
	if (df->fd >= 0)
		close(df->fd);
	free(df->path);
	df->path = NULL;
	df->fd = -1;
}

static int same_spec(const struct mmp_datafile *df, const struct mmp_data_spec *spec,
		     const char *path)
{
	return strcmp(df->path, path) == 0 && df->spec.size == spec->size &&
	       df->spec.fill == spec->fill && df->spec.seed == spec->seed;
}

int mmp_datafiles_get(struct mmp_datafiles *set, const struct mmp_data_spec *spec,
		      struct mmp_datafile **out, struct mmp_error *err)
{
	char path[4096];
	if (mmp_datafile_path(spec, set->dir, path, sizeof(path)))
		return mmp_error_set(err, -ENAMETOOLONG, "data file path too long");
	for (size_t i = 0; i < set->n; i++) {
		if (same_spec(set->files[i], spec, path)) {
			*out = set->files[i];
			return 0;
		}
		if (strcmp(set->files[i]->path, path) == 0)
			return mmp_error_set(err, -EINVAL,
					     "%s is asked for with two different sizes, fills "
					     "or seeds in one config",
					     path);
	}
	struct mmp_datafile *df = calloc(1, sizeof(*df));
	struct mmp_datafile **grown = realloc(set->files, (set->n + 1) * sizeof(*grown));
	if (!df || !grown) {
		free(df);
		if (grown)
			set->files = grown;
		return mmp_error_set(err, -ENOMEM, "out of memory");
	}
	set->files = grown;
	int rc = mmp_datafile_open(spec, set->dir, set->stop, df, err);
	if (rc) {
		free(df);
		return rc;
	}
	set->files[set->n++] = df;
	*out = df;
	return 0;
}

void mmp_datafiles_free(struct mmp_datafiles *set)
{
	for (size_t i = 0; i < set->n; i++) {
		mmp_datafile_close(set->files[i]);
		free(set->files[i]);
	}
	free(set->files);
	set->files = NULL;
	set->n = 0;
}
