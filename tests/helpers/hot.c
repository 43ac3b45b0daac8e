/* A program with known hot code for the sampling profile's tests
 * (tests/unit/test_profile.c, tests/integration/profile.sh): built with
 * -g and frame pointers, and a stripped copy.
 *
 *   spin MS            one thread in hot_loop() for MS ms of CPU, the
 *                      line marked HOT taking the time
 *   share T N          T threads sharing N increments, each adding to its
 *                      own counter of one packed array (c[t]++: false
 *                      sharing between cores): the same work at any T
 *   fault FILE MB      maps MB MiB of anonymous memory and touches each
 *                      page, then reads FILE through a mapping: the page
 *                      faults land in both
 *   count FILE         "Found N zero bytes" for FILE (what mmprof checks)
 *
 * share and fault end with "cpu: MS ms", the process's CPU time (user and
 * system, every thread): what bench/sampling.sh compares, since sampling
 * costs the sampled program CPU time and a loaded machine moves its wall
 * time far more.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static double cpu_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

__attribute__((noinline)) static void hot_loop(double ms)
{
	double end = cpu_ms() + ms;
	uint64_t x = 1;
	while (cpu_ms() < end) {
		for (int i = 0; i < 100000; i++)
			x = (x * 6364136223846793005u + 1442695040888963407u) ^ (x >> 29); /* HOT */
		sink = x;
	}
}

#define MAXT 64
static volatile uint64_t counter[MAXT]; /* packed: one line for all */
static uint64_t per_thread;

__attribute__((noinline)) static void *bump(void *arg)
{
	volatile uint64_t *c = &counter[(uintptr_t)arg];
	for (uint64_t i = 0; i < per_thread; i++)
		(*c)++; /* SHARED */
	return NULL;
}

static int share(int t, uint64_t n)
{
	pthread_t th[MAXT];
	if (t < 1 || t > MAXT)
		return 2;
	per_thread = n / (uint64_t)t;
	for (int i = 0; i < t; i++)
		pthread_create(&th[i], NULL, bump, (void *)(uintptr_t)i);
	for (int i = 0; i < t; i++)
		pthread_join(th[i], NULL);
	return 0;
}

__attribute__((noinline)) static uint64_t zeros(const unsigned char *p, size_t n)
{
	uint64_t z = 0;
	for (size_t i = 0; i < n; i++)
		z += p[i] == 0;
	return z;
}

static int count(const char *path, uint64_t *out)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st))
		return 1;
	*out = 0;
	if (st.st_size) {
		unsigned char *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			return 1;
		*out = zeros(p, (size_t)st.st_size);
		munmap(p, (size_t)st.st_size);
	}
	close(fd);
	return 0;
}

__attribute__((noinline)) static void touch(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1; /* TOUCH */
}

static void print_cpu(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("cpu: %.3f ms\n", (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
					 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3);
}

static void deep_a(uint64_t n);
static void via(int n, uint64_t steps);

int main(int argc, char **argv)
{
	uint64_t z;
	if (argc == 3 && strcmp(argv[1], "spin") == 0) {
		hot_loop(atof(argv[2]));
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "share") == 0) {
		int rc = share(atoi(argv[2]), strtoull(argv[3], NULL, 10));
		print_cpu();
		return rc;
	}
	if (argc == 4 && strcmp(argv[1], "fault") == 0) {
		size_t n = (size_t)atoi(argv[3]) << 20;
		unsigned char *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		touch(p, n);
		if (count(argv[2], &z))
			return 1;
		printf("Found %llu zero bytes\n", (unsigned long long)z);
		print_cpu();
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "count") == 0) {
		if (count(argv[2], &z))
			return 1;
		printf("Found %llu zero bytes\n", (unsigned long long)z);
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "deep") == 0) {
		deep_a(strtoull(argv[3], NULL, 10));
		via(atoi(argv[2]), strtoull(argv[3], NULL, 10));
		return 0;
	}
	fprintf(stderr, "usage: hot spin MS | share T N | fault FILE MB | count FILE | deep N ITER\n");
	return 2;
}

/* deep N ITER: ITER steps of the HOT loop's arithmetic in deep_a() called
 * from main, then as many through via(), which calls outer() recursing N
 * deep, which calls deep_a() and deep_b() for half each: outer() is in
 * the call chain of half the samples, N times in each, and no sample
 * lands in it; via() passes all of its samples to outer().  Their own
 * loops, not hot_loop(): another caller would move hot_loop() in the
 * binary, and where its loop's bytes fall decides which of its two lines
 * the samples are read at.  No tail calls (the add after each call):
 * every level keeps its frame; and no leaf (keep()): gcc leaves a leaf
 * without a frame, and the kernel, unwinding by frame pointers, would
 * skip its caller. */
__attribute__((noinline)) static void keep(uint64_t x)
{
	sink = x;
}

__attribute__((noinline)) static void deep_a(uint64_t n)
{
	uint64_t x = 1;
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	keep(x);
}

__attribute__((noinline)) static void deep_b(uint64_t n)
{
	uint64_t x = 2;
	for (uint64_t i = 0; i < n; i++)
		x = x * 2862933555777941757u + 3037000493u;
	keep(x);
}

__attribute__((noinline)) static void outer(int n, uint64_t steps)
{
	if (n > 1) {
		outer(n - 1, steps);
	} else {
		deep_a(steps / 2);
		deep_b(steps / 2);
	}
	sink += (uint64_t)n;
}

__attribute__((noinline)) static void via(int n, uint64_t steps)
{
	outer(n, steps);
	sink += 1;
}
