/* Data files and their reference results (see datafile.h).
 *
 * The random fill is xoshiro256** seeded through splitmix64 (in
 * datafile_impl.h), written here rather than taken from libc: the bytes
 * must be the same for a seed on every machine and libc version, and the
 * generator must outrun the page cache (>= 500 MB/s) so creating 100 MiB
 * costs a fraction of a second.  Creation is in datafile_create.c, the
 * decision to reuse, create or refuse in datafile_check.c.
 */
#include "data/datafile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datafile_impl.h"
#include "util/units.h"

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

int mmp_reference_scan_stop(int fd, uint64_t size, uint64_t hist[256],
			    const volatile sig_atomic_t *stop, struct mmp_error *err)
{
	uint8_t *buf = malloc(MMP_DATA_CHUNK);
	uint64_t off = 0;

	if (!buf)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	memset(hist, 0, 256 * sizeof(hist[0]));
	while (off < size) {
		if (stop && *stop) {
			free(buf);
			return mmp_error_set(err, -EINTR, "interrupted during the reference scan");
		}
		uint64_t want = size - off < MMP_DATA_CHUNK ? size - off : MMP_DATA_CHUNK;
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

int mmp_reference_scan(int fd, uint64_t size, uint64_t hist[256], struct mmp_error *err)
{
	return mmp_reference_scan_stop(fd, size, hist, NULL, err);
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
	rc = mmp_datafile_prepare(path, spec, dir, stop, out, err);
	if (rc)
		goto fail;
	/* O_NONBLOCK: a FIFO put at the path since it was checked must not
	 * block the open (it is refused just below); a regular file ignores
	 * the flag. */
	out->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (out->fd < 0) {
		rc = mmp_error_errno(err, -errno, "open %s", path);
		goto fail;
	}
	if (fstat(out->fd, &st)) {
		rc = mmp_error_errno(err, -errno, "stat %s", path);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = mmp_error_set(err, -EINVAL, "%s is not a regular file (%s)", path,
				   mmp_datafile_kind(st.st_mode));
		goto fail;
	}
	out->size = (uint64_t)st.st_size;
	out->dev = (uint64_t)st.st_dev;
	out->ino = (uint64_t)st.st_ino;
	out->mtime_ns = mmp_mtime_ns(&st);
	if (out->size == 0) {
		rc = mmp_error_set(err, -EINVAL, "%s is empty: nothing to read", path);
		goto fail;
	}
	rc = mmp_reference_scan_stop(out->fd, out->size, out->hist, stop, err);
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
