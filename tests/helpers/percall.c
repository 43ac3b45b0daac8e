/* A program with per-call overhead planted, and its exactness check, for
 * the bulk control of real programs (tests/integration/exec_percall.sh,
 * tests/unit/test_preload_bulk.c): mmprof runs it as a program it cannot
 * change, and the preload library serves its small reads from a buffer.
 *
 *   bytes FILE [P]   reads FILE with one read() per byte, P passes (an
 *                    lseek back to 0 between them): a system call a byte
 *   blocks FILE [P]  the same bytes with read()s of 1 MiB: nothing to take
 *                    away (the control must not be used, or change nothing)
 *   exact FILE       a transcript of what reads, seeks, a dup, a child
 *                    reading on from the shared descriptor and a write to
 *                    the file return: the same with the library as without
 *   stdin N          reads N bytes of its stdin, a byte a call, and exits:
 *                    the position it leaves is its parent's too
 *
 * bytes and blocks print "Sum: N" (the sum of the file's bytes, what
 * kernel = histogram checks; P passes add P times as much) and "Elapsed
 * time: S s", their own time of the reading. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	return fd;
}

/* The sum of the file's bytes, P passes, reading `chunk` bytes a call. */
static int sum_file(const char *path, size_t chunk, unsigned passes)
{
	static unsigned char buf[1 << 20];
	uint64_t sum = 0;
	int fd = open_or_die(path, O_RDONLY);
	double t0 = now_s();
	for (unsigned p = 0; p < passes; p++) {
		ssize_t got;
		if (lseek(fd, 0, SEEK_SET) != 0)
			return perror("lseek"), 1;
		while ((got = read(fd, buf, chunk)) > 0)
			for (ssize_t i = 0; i < got; i++)
				sum += buf[i];
		if (got < 0)
			return perror("read"), 1;
	}
	double t1 = now_s();
	close(fd);
	printf("Sum: %llu\nElapsed time: %.6f s\n", (unsigned long long)sum, t1 - t0);
	return 0;
}

/* n bytes a byte a call: their sum, and the count read ("sum/count"). */
static void bytes_line(const char *what, int fd, size_t n)
{
	unsigned char b;
	uint64_t sum = 0;
	size_t got = 0;
	while (got < n && read(fd, &b, 1) == 1) {
		sum += b;
		got++;
	}
	printf("%s: %zu bytes, sum %llu, then at %lld\n", what, got, (unsigned long long)sum,
	       (long long)lseek(fd, 0, SEEK_CUR));
}

/* Everything whose result depends on the position, in an order that
 * crosses a buffer's edges; each line is compared with the library's. */
static int exact(const char *path)
{
	unsigned char b[300];
	int fd = open_or_die(path, O_RDONLY);
	bytes_line("first 1000", fd, 1000);
	printf("seek cur +5: %lld\n", (long long)lseek(fd, 5, SEEK_CUR));
	printf("seek cur -3: %lld\n", (long long)lseek(fd, -3, SEEK_CUR));
	printf("seek cur -1e9: %lld\n", (long long)lseek(fd, -1000000000, SEEK_CUR));
	ssize_t got = pread(fd, b, 7, 140000);
	printf("pread 7 at 140000: %zd, first %d\n", got, b[0]);
	got = read(fd, b, sizeof(b));
	printf("read 300: %zd, last %d, at %lld\n", got, b[299], (long long)lseek(fd, 0, SEEK_CUR));
	printf("seek set 131070: %lld\n", (long long)lseek(fd, 131070, SEEK_SET));
	bytes_line("across 128 KiB", fd, 10);
	printf("seek end -2: %lld\n", (long long)lseek(fd, -2, SEEK_END));
	bytes_line("at the end", fd, 10);
	lseek(fd, 500, SEEK_SET);
	bytes_line("from 500", fd, 20);
	/* A byte flipped through another descriptor, and flipped back at the
	 * end: the library must not serve what it held before the write. */
	int w = open_or_die(path, O_RDWR);
	pread(w, b, 1, 3500);
	b[0] ^= 0xff;
	pwrite(w, b, 1, 3500);
	lseek(fd, 3400, SEEK_SET);
	bytes_line("after a write", fd, 200);
	b[0] ^= 0xff;
	pwrite(w, b, 1, 3500);
	close(w);
	close(fd);
	/* A dup shares the position. */
	fd = open_or_die(path, O_RDONLY);
	bytes_line("second open", fd, 20);
	int copy = dup(fd);
	bytes_line("through the dup", copy, 5);
	bytes_line("through the first", fd, 5);
	close(copy);
	bytes_line("after the dup closed", fd, 5);
	close(fd);
	/* A child reads on from the shared descriptor. */
	fd = open_or_die(path, O_RDONLY);
	bytes_line("third open", fd, 10);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		bytes_line("child", fd, 3000);
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	printf("parent after child: %lld\n", (long long)lseek(fd, 0, SEEK_CUR));
	bytes_line("parent", fd, 100);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	unsigned passes = argc > 3 ? (unsigned)atoi(argv[3]) : 1;
	if (strcmp(mode, "bytes") == 0 && argc > 2)
		return sum_file(argv[2], 1, passes ? passes : 1);
	if (strcmp(mode, "blocks") == 0 && argc > 2)
		return sum_file(argv[2], 1 << 20, passes ? passes : 1);
	if (strcmp(mode, "exact") == 0 && argc > 2)
		return exact(argv[2]);
	if (strcmp(mode, "stdin") == 0 && argc > 2) {
		bytes_line("stdin", 0, (size_t)atoll(argv[2]));
		return 0;
	}
	fprintf(stderr, "usage: percall bytes|blocks FILE [PASSES] | exact FILE | stdin N\n");
	return 2;
}
