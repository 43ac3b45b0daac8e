/* A program whose time is the kernel's work on its behalf, for
 * tests/integration/exec_fsync.sh: it appends N small records to a file
 * with fsync() after each, as an autocommit database does (sqlite3 with
 * one INSERT per transaction).  Each fsync waits for the file system's
 * journal (jbd2 on ext4), the block layer's completion (a kworker, an
 * interrupt and its softirq): kernel threads and interrupts that run on
 * the program's PUs for it, which must not count as other tasks
 * disturbing it.
 *
 *   fsync_writer PATH N [BYTES]   N records of BYTES (default 64) bytes
 *
 * Prints "Records: N" and "Elapsed time: S s" (its own time of the
 * writes).  PATH is created or truncated and left for the caller. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s PATH N [BYTES]\n", argv[0]);
		return 2;
	}
	long n = atol(argv[2]), bytes = argc > 3 ? atol(argv[3]) : 64;
	char rec[4096];
	if (n <= 0 || bytes <= 0 || bytes > (long)sizeof(rec)) {
		fprintf(stderr, "%s: N must be > 0 and BYTES 1..%zu\n", argv[0], sizeof(rec));
		return 2;
	}
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "%s: open %s: %s\n", argv[0], argv[1], strerror(errno));
		return 1;
	}
	double t0 = now();
	for (long i = 0; i < n; i++) {
		int len = snprintf(rec, sizeof(rec), "%ld", i);
		memset(rec + len, ' ', (size_t)(bytes - len));
		rec[bytes - 1] = '\n';
		if (write(fd, rec, (size_t)bytes) != bytes || fsync(fd)) {
			fprintf(stderr, "%s: record %ld to %s: %s\n", argv[0], i, argv[1],
				strerror(errno));
			return 1;
		}
	}
	double t = now() - t0;
	close(fd);
	printf("Records: %ld\nElapsed time: %.6f s\n", n, t);
	return 0;
}
