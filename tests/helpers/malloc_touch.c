/* A program whose slowness is its page faults in malloc'd memory, for the
 * exec controls' tests (tests/integration/exec_malloc.sh): glibc's malloc
 * maps a block this large with its own internal mmap, which the preload
 * library's mmap() never sees, so the prefault and huge rungs reach it
 * only through the allocator's entry points.
 *
 *   touch MIB   malloc MIB MiB and write one byte per page: every page is
 *               a fault (or, with huge pages, one in 512)
 *   calloc MIB  the same through calloc
 *   realloc MIB malloc half of it, write its pages, realloc it to MIB MiB
 *               and write the pages of the whole: only the grown half is
 *               new to the allocator (and to the preload library)
 *   none MIB    reuse one 64 KiB buffer (below the size the preload library
 *               reaches), one byte written a cache line, until MIB MiB of
 *               lines have been written: memory work without a fault to
 *               speak of (16 pages), so no rung may name page faults
 *
 * Each prints "Sum: N" (the bytes written and read back: one a page, or
 * one a line) and "Elapsed time: S s", its own time from before the
 * malloc to after the last write -- the malloc is inside it, as it is in
 * a real program's time.
 *
 * Built with -DOWN_MALLOC (the test does), the program brings its own
 * allocator, as one linked with a private copy of jemalloc or tcmalloc
 * does: the executable's malloc is found before the preload library's, so
 * the library must say it did not reach it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SMALL (64u << 10)
#define LINE 64

#ifdef OWN_MALLOC
#include <sys/mman.h>

/* A bump allocator over one reservation: enough for this program. */
static uint8_t *next, *end;

void *malloc(size_t n)
{
	n = (n + 63) & ~(size_t)63;
	if (!next) {
		next = mmap(NULL, 1ull << 32, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (next == MAP_FAILED)
			return next = NULL;
		end = next + (1ull << 32);
	}
	if (n > (size_t)(end - next))
		return NULL;
	void *p = next;
	next += n;
	return p;
}

void free(void *p)
{
	(void)p;
}

void *calloc(size_t k, size_t n)
{
	return k && n > SIZE_MAX / k ? NULL : malloc(k * n); /* fresh pages are zero */
}

void *realloc(void *old, size_t n)
{
	void *p = malloc(n);
	if (p && old)
		memcpy(p, old, n); /* the reservation reads zeros past the old block */
	return p;
}
#endif

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One byte a stride, through a volatile pointer so the compiler keeps every
 * store (a store is what makes the kernel fault a private page in). */
static void write_pages(volatile uint8_t *m, size_t len, size_t page)
{
	for (size_t i = 0; i < len; i += page)
		m[i] = 1;
}

static uint64_t sum_pages(const volatile uint8_t *m, size_t len, size_t page)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < len; i += page)
		sum += m[i];
	return sum;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "touch", "calloc", "realloc", "none" };
	int mode = -1;
	for (int i = 0; argc == 3 && i < 4; i++)
		if (strcmp(argv[1], modes[i]) == 0)
			mode = i;
	if (mode < 0) {
		fprintf(stderr, "usage: malloc_touch touch|calloc|realloc|none MIB\n");
		return 2;
	}
	size_t len = (size_t)strtoull(argv[2], NULL, 0) << 20;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t sum = 0;
	double t0 = now_s();
	size_t first = mode == 3 ? SMALL : mode == 2 ? len / 2 : len;
	uint8_t *m = mode == 1 ? calloc(first, 1) : malloc(first);
	if (m && mode == 2) {
		write_pages(m, first, page);
		uint8_t *grown = realloc(m, len);
		if (!grown)
			free(m);
		m = grown;
	}
	if (!m) {
		fprintf(stderr, "malloc_touch: %s of %zu bytes failed\n", modes[mode], len);
		return 1;
	}
	if (mode != 3) {
		write_pages(m, len, page);
		sum = sum_pages(m, len, page);
	} else {
		for (size_t done = 0; done < len; done += SMALL) {
			write_pages(m, SMALL, LINE);
			sum += sum_pages(m, SMALL, LINE);
		}
	}
	double t1 = now_s();
	printf("Sum: %llu\nElapsed time: %.6f s\n", (unsigned long long)sum, t1 - t0);
	free(m);
	return 0;
}
