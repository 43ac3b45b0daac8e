/* An independent scan to hold mmprof's ceiling against (bench/ceiling.sh):
 * plain C, no mmprof code or headers.  It counts the zero bytes of a file
 * the way the fastest honest reader would -- mapped, every page touched
 * once before timing, then one pass of a loop the compiler vectorises --
 * or of a copy of it in anonymous memory, and prints the ns per byte of
 * each repetition, one a line.
 *
 *   scan_ref FILE pagecache|anon REPS
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Byte-wide counters, 64 side by side, summed every 255 steps before
 * they can wrap: the shape a compiler turns into vector compares. */
static uint64_t zeros(const uint8_t *p, size_t n)
{
	uint64_t c = 0;
	size_t i = 0;
	while (n - i >= 64) {
		uint8_t acc[64] = { 0 };
		size_t steps = (n - i) / 64 < 255 ? (n - i) / 64 : 255;
		for (size_t k = 0; k < steps; k++, i += 64)
			for (int l = 0; l < 64; l++)
				acc[l] += p[i + l] == 0;
		for (int l = 0; l < 64; l++)
			c += acc[l];
	}
	for (; i < n; i++)
		c += p[i] == 0;
	return c;
}

static void touch(const uint8_t *p, size_t n)
{
	volatile uint8_t sink = 0;
	for (size_t i = 0; i < n; i += 4096)
		sink += p[i];
	(void)sink;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: scan_ref FILE pagecache|anon REPS\n");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	size_t n = (size_t)st.st_size;
	int anon = strcmp(argv[2], "anon") == 0, reps = atoi(argv[3]);
	uint8_t *copy = NULL;
	if (anon) {
		/* Page-aligned, as a mapping is: malloc's 16-byte alignment would
		 * have every 64-byte step straddle two cache lines. */
		copy = aligned_alloc(4096, (n + 4095) / 4096 * 4096);
		if (!copy || pread(fd, copy, n, 0) != (ssize_t)n) {
			perror("copy");
			return 1;
		}
		touch(copy, n); /* read() wrote it through the kernel's map, not ours */
	}
	uint64_t first = UINT64_MAX;
	for (int r = 0; r < reps; r++) {
		const uint8_t *p = copy;
		if (!anon) {
			p = mmap(NULL, n, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
			if (p == MAP_FAILED) {
				perror("mmap");
				return 1;
			}
			touch(p, n);
		}
		double t0 = now_ns();
		uint64_t z = zeros(p, n);
		double t1 = now_ns();
		if (first != UINT64_MAX && z != first) {
			fprintf(stderr, "scan_ref: counts differ between repetitions\n");
			return 1;
		}
		first = z;
		printf("%.5f %llu\n", (t1 - t0) / (double)n, (unsigned long long)z);
		if (!anon)
			munmap((void *)p, n);
	}
	free(copy);
	close(fd);
	return 0;
}
