/* make bench: are the probes as fast as what they model?
 *
 * On the 100 MiB file of configs/byte_8t.ini, pinned to one PU, with the
 * pages mapped in beforehand, and interleaved repetition by repetition so
 * drift hits both sides alike:
 *   mmap_byte (1 thread, local tally)  vs  a plain C loop of 1-byte loads
 *   limit                              vs  memchr() counting the zeros
 * Targets: mmap_byte within 1.1x of the plain loop's time; limit at >= 0.8x
 * of memchr's bandwidth.  Also: creating a 100 MiB random data file at
 * >= 500 MB/s (in a scratch directory beside the data directory; the median
 * of three creations, because the first touch of fresh guest memory in a VM
 * can cost more than the writing itself).  A probe slower than what it models measures
 * mmprof, not the access path.  Exit status 1 when a target is missed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "data/datafile.h"
#include "mmprof/probe.h"
#include "result/stats.h"
#include "platform/topology.h"
#include "util/units.h"

#define REPS 9

/* The loop mmap_byte models, written as plainly as C allows: one volatile
 * byte load per byte (without volatile the compiler would vectorise it and
 * it would no longer be the same loads). */
static uint64_t plain_loop(const volatile uint8_t *p, uint64_t n)
{
	uint64_t zeros = 0;
	for (uint64_t i = 0; i < n; i++)
		zeros += p[i] == 0;
	return zeros;
}

static uint64_t memchr_count(const uint8_t *p, uint64_t n)
{
	const uint8_t *end = p + n;
	uint64_t zeros = 0;
	while (p < end) {
		const uint8_t *z = memchr(p, 0, (size_t)(end - p));
		if (!z)
			break;
		zeros++;
		p = z + 1;
	}
	return zeros;
}

static uint64_t run_probe(const char *name, const uint8_t *map, uint64_t n)
{
	const struct mmp_probe *p = mmp_probe_find(name);
	struct mmp_sink sink = { .stride = 1 };
	struct mmp_slice s = { .map = map, .fd = -1, .file_size = n, .begin = 0, .end = n,
			       .kernel = MMP_KERNEL_ZEROS, .sink = &sink };
	if (p->run(&s))
		return UINT64_MAX;
	return sink.zeros;
}

/* Create a fresh copy of the data in a scratch directory; bytes/s. */
static double creation_rate(const struct mmp_data_spec *spec)
{
	char dir[4096];
	struct mmp_datafile df;
	struct mmp_error err = { 0 };
	double rate = 0;

	snprintf(dir, sizeof(dir), "%s.bench.XXXXXX", mmp_data_dir());
	if (!mkdtemp(dir)) {
		perror("bench: mkdtemp");
		return 0;
	}
	if (mmp_datafile_open(spec, dir, NULL, &df, &err) == 0) {
		rate = df.create_bytes_per_s;
		unlink(df.path);
		char marker[4200];
		snprintf(marker, sizeof(marker), "%s.mmprof", df.path);
		unlink(marker);
		mmp_datafile_close(&df);
	} else {
		fprintf(stderr, "bench: %s\n", err.msg);
	}
	rmdir(dir);
	return rate;
}

enum { PLAIN, MMAP_BYTE, MEMCHR, LIMIT, NSIDES };
static const char *const side_name[NSIDES] = { "plain 1-byte loop", "mmap_byte probe",
					       "memchr count", "limit probe" };

int main(void)
{
	struct mmp_data_spec spec = { .size = 100 << 20, .fill = MMP_FILL_RANDOM,
				      .seed = 20250401 };
	struct mmp_datafile df;
	struct mmp_topology *topo;
	struct mmp_error err = { 0 };
	double ns[NSIDES][REPS];
	struct mmp_stats st[NSIDES];
	int wrong = 0;

	if (mmp_topology_load(&topo, NULL, &err) || mmp_topology_bind_self(topo, 0, &err) ||
	    mmp_datafile_open(&spec, mmp_data_dir(), NULL, &df, &err)) {
		fprintf(stderr, "bench: %s\n", err.msg);
		return 2;
	}
	const uint8_t *map = mmap(NULL, df.size, PROT_READ, MAP_SHARED | MAP_POPULATE, df.fd, 0);
	if (map == MAP_FAILED) {
		perror("bench: mmap");
		return 2;
	}
	printf("probe speed: %s, %llu bytes, pinned to PU 0, pages mapped in, %d interleaved "
	       "repetitions\n",
	       df.path, (unsigned long long)df.size, REPS);
	for (int r = 0; r < REPS; r++) {
		for (int side = 0; side < NSIDES; side++) {
			uint64_t t0 = mmp_now_ns(), zeros;
			switch (side) {
			case PLAIN:
				zeros = plain_loop(map, df.size);
				break;
			case MMAP_BYTE:
				zeros = run_probe("mmap_byte", map, df.size);
				break;
			case MEMCHR:
				zeros = memchr_count(map, df.size);
				break;
			default:
				zeros = run_probe("limit", map, df.size);
				break;
			}
			ns[side][r] = (double)(mmp_now_ns() - t0);
			if (zeros != df.hist[0]) {
				fprintf(stderr, "bench: %s counted %llu zeros, reference %llu\n",
					side_name[side], (unsigned long long)zeros,
					(unsigned long long)df.hist[0]);
				wrong = 1;
			}
		}
	}
	for (int side = 0; side < NSIDES; side++) {
		mmp_stats_compute(ns[side], REPS, &st[side]);
		printf("  %-18s median %8.3f ms  %6.2f GB/s  cv %4.1f%%\n", side_name[side],
		       st[side].median / 1e6, (double)df.size / st[side].median,
		       st[side].cv * 100);
	}
	double rates[3];
	struct mmp_stats cst;
	for (int i = 0; i < 3; i++)
		rates[i] = creation_rate(&spec);
	mmp_stats_compute(rates, 3, &cst);
	double rate = cst.median;
	printf("  %-18s %5.0f, %5.0f, %5.0f MB/s\n", "data file creation", rates[0] / 1e6,
	       rates[1] / 1e6, rates[2] / 1e6);
	double byte_ratio = st[MMAP_BYTE].median / st[PLAIN].median;
	double limit_ratio = st[MEMCHR].median / st[LIMIT].median; /* bandwidth ratio */
	int byte_ok = byte_ratio <= 1.1, limit_ok = limit_ratio >= 0.8;
	printf("mmap_byte / plain loop time: %.3fx (target <= 1.1x): %s\n", byte_ratio,
	       byte_ok ? "met" : "MISSED");
	printf("limit / memchr bandwidth:    %.3fx (target >= 0.8x): %s\n", limit_ratio,
	       limit_ok ? "met" : "MISSED");
	int create_ok = rate >= 500e6;
	printf("data file creation (median): %.0f MB/s (target >= 500 MB/s): %s\n", rate / 1e6,
	       create_ok ? "met" : "MISSED");
	munmap((void *)map, df.size);
	mmp_datafile_close(&df);
	mmp_topology_free(topo);
	return wrong ? 2 : (byte_ok && limit_ok && create_ok) ? 0 : 1;
}
