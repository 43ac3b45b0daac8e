/* Programs with one cause of slowness planted each, for the exec
 * controls' tests (tests/integration/exec_causes.sh): mmprof runs them as
 * real programs it cannot change and must name the planted cause, or say
 * it cannot tell, and never name another.
 *
 *   plain FILE T [P]   T threads sum their slices of FILE byte by byte into
 *                      per-thread counters side by side in one array, with
 *                      a plain load and store per byte (what `c[t] += b`
 *                      compiles to, no atomic): false sharing
 *   padded FILE T [P]  the same, each counter on lines of its own: plainly
 *                      parallel, nothing shared
 *   atomic FILE T [P]  every byte added to one shared atomic: true sharing
 *   lock FILE T [P]    every 64 bytes' sum added to one total under one
 *                      pthread mutex: a contended lock
 *   compute FILE T [P] each byte through a chain of multiplies into a
 *                      register: slow for its own arithmetic, nothing
 *                      shared and no memory traffic to speak of
 *   faults MIB         touch one byte per page of MIB MiB of fresh
 *                      anonymous memory: page faults
 *   bandwidth MIB T    T threads sum their slices of MIB MiB of memory, 4
 *                      passes: the memory system's bandwidth
 *
 * P (default 1) passes over each slice lengthen the parallel part without
 * a larger file: the process's serial costs (its start, mapping the file)
 * stay the same, so the CPU time the threads' sharing adds is a larger
 * part of the whole -- what the one-PU control compares.
 *
 * Each prints "Sum: N" (the file modes: the sum of its bytes, what
 * kernel = histogram checks: every pass adds the same, so the total over
 * P passes must divide by P) and "Elapsed time: S s", its own time of
 * the parallel part. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64
#define LINE 128 /* two 64-byte lines: the adjacent-line prefetcher pairs them */

static const uint8_t *data;
static size_t size;
static unsigned nthreads, passes = 1;
static const char *mode;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t locked_total;
static pthread_barrier_t start;

static uint64_t packed[MAX_THREADS];
static struct {
	uint64_t v;
	char pad[LINE - sizeof(uint64_t)];
} padded[MAX_THREADS] __attribute__((aligned(LINE)));
static struct {
	uint64_t v;
	char pad[LINE - sizeof(uint64_t)];
} sink[MAX_THREADS] __attribute__((aligned(LINE)));
static _Atomic uint64_t shared;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void slice(unsigned t, size_t *b, size_t *e)
{
	size_t chunk = size / nthreads;
	*b = chunk * t;
	*e = t + 1 == nthreads ? size : chunk * (t + 1);
}

/* A few multiplies per byte, each depending on the last: the core's
 * latency, not the memory's, bounds it, and no line is shared. */
static uint64_t mix(uint64_t h, uint8_t b)
{
	h ^= b;
	for (int k = 0; k < 2; k++)
		h = h * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
	return h;
}

static void one_pass(unsigned t, size_t b, size_t e)
{
	if (strcmp(mode, "plain") == 0) {
		/* volatile: a load and a store per byte, as the compiler
		 * emits for a counter it cannot keep in a register. */
		volatile uint64_t *c = &packed[t];
		for (size_t i = b; i < e; i++)
			*c += data[i];
	} else if (strcmp(mode, "padded") == 0) {
		volatile uint64_t *c = &padded[t].v;
		for (size_t i = b; i < e; i++)
			*c += data[i];
	} else if (strcmp(mode, "atomic") == 0) {
		for (size_t i = b; i < e; i++)
			atomic_fetch_add_explicit(&shared, data[i], memory_order_relaxed);
	} else if (strcmp(mode, "lock") == 0) {
		for (size_t i = b; i < e; i += 64) {
			uint64_t s = 0;
			for (size_t j = i; j < i + 64 && j < e; j++)
				s += data[j];
			pthread_mutex_lock(&lock);
			locked_total += s;
			pthread_mutex_unlock(&lock);
		}
	} else if (strcmp(mode, "compute") == 0) {
		uint64_t h = 0, s = 0;
		for (size_t i = b; i < e; i++) {
			h = mix(h, data[i]);
			s += data[i];
		}
		padded[t].v += s;
		sink[t].v ^= h; /* the chain's end is stored: it is not left out */
	} else { /* bandwidth */
		const uint64_t *w = (const uint64_t *)data;
		uint64_t s = 0;
		for (int pass = 0; pass < 4; pass++)
			for (size_t i = b / 8; i < e / 8; i++)
				s += w[i];
		packed[t] += s;
	}
}

/* Each worker's own clock around its work: the main thread, waiting in
 * the barrier and the joins, may get a CPU back only after the workers
 * finished (seen under load: it printed 3 us for a 70 ms run). */
static double began[MAX_THREADS], ended[MAX_THREADS];

static void *work(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg;
	size_t b, e;
	slice(t, &b, &e);
	pthread_barrier_wait(&start);
	began[t] = now_s();
	for (unsigned p = 0; p < passes; p++)
		one_pass(t, b, e);
	ended[t] = now_s();
	return NULL;
}

static int map_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		perror(path);
		return -1;
	}
	size = (size_t)st.st_size;
	data = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (data == MAP_FAILED) {
		perror("mmap");
		return -1;
	}
	return 0;
}

static int faults(size_t mib)
{
	size_t len = mib << 20;
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	double t0 = now_s();
	for (size_t i = 0; i < len; i += (size_t)page)
		m[i] = 1;
	double t1 = now_s();
	uint64_t sum = 0;
	for (size_t i = 0; i < len; i += (size_t)page)
		sum += m[i];
	printf("Sum: %llu\nElapsed time: %.6f s\n", (unsigned long long)sum, t1 - t0);
	munmap(m, len);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: planted plain|padded|atomic|lock|compute FILE T [PASSES] | "
				"faults MIB | bandwidth MIB T [PASSES]\n");
		return 2;
	}
	mode = argv[1];
	if (strcmp(mode, "faults") == 0)
		return faults(strtoull(argv[2], NULL, 0));
	if (argc < 4)
		return 2;
	nthreads = (unsigned)atoi(argv[3]);
	if (nthreads < 1 || nthreads > MAX_THREADS)
		return 2;
	if (argc > 4 && (passes = (unsigned)atoi(argv[4])) < 1)
		return 2;
	if (strcmp(mode, "bandwidth") == 0) {
		size = strtoull(argv[2], NULL, 0) << 20;
		uint8_t *m = malloc(size);
		if (!m)
			return 1;
		memset(m, 1, size);
		data = m;
	} else if (map_file(argv[2])) {
		return 1;
	}
	pthread_t tid[MAX_THREADS];
	pthread_barrier_init(&start, NULL, nthreads + 1);
	for (unsigned t = 0; t < nthreads; t++)
		pthread_create(&tid[t], NULL, work, (void *)(uintptr_t)t);
	pthread_barrier_wait(&start);
	double t0 = 0, t1 = 0;
	for (unsigned t = 0; t < nthreads; t++) {
		pthread_join(tid[t], NULL);
		t0 = !t || began[t] < t0 ? began[t] : t0;
		t1 = ended[t] > t1 ? ended[t] : t1;
	}
	uint64_t sum = shared + locked_total;
	for (unsigned t = 0; t < nthreads; t++)
		sum += packed[t] + padded[t].v;
	/* Every pass adds the same: a total that does not divide lost one. */
	if (sum % passes) {
		fprintf(stderr, "planted: %llu over %u passes does not divide\n",
			(unsigned long long)sum, passes);
		return 1;
	}
	printf("Sum: %llu\nElapsed time: %.6f s\n", (unsigned long long)(sum / passes), t1 - t0);
	return 0;
}
