/* A program for the exec probe's tests (tests/integration/exec.sh): it
 * reads a file and prints a zero count and its own time in the formats the
 * seed's programs use, or misbehaves on request.
 *
 *   count FILE [MS]   "Found N zero bytes in FILE" (and MS ms asleep inside the
 *                     timed part, so its time is long enough for a clock
 *                     in whole ms), then its time three ways:
 *                     "Elapsed time: 00:00:00.0123456" (.NET TimeSpan),
 *                     "java: 00:00:00.012" (Java's StopWatch), "took 12.345678 ms"
 *   wrong FILE        the same with N + 1
 *   late FILE         the count, and "took 100 s" (longer than it lives)
 *   threads T FILE    count with T threads, each doing the same fixed work
 *                     (~0.1 s of CPU here) first; then "cpu: process NS
 *                     threads NS ..." (the process's and each thread's CPU
 *                     time, by their own clocks)
 *   argv ARGS...      each argument as "arg[i]=...", then "pus=LIST" (its
 *                     CPU affinity) and "pgid=own" when it leads its group
 *   print LINE...     each argument as a line of its own
 *   flood FILE MIB    "Found N zero bytes in FILE", then MIB MiB of numbered
 *                     64-byte filler lines, then "flood ends" (a result line
 *                     followed by more output than mmprof keeps)
 *   daemon PIDFILE    count nothing; start "sleep 300" in a session of its
 *                     own (setsid), write its PID to PIDFILE, exit 0
 *   stopparent MS FILE  count, stop its parent (mmprof) with SIGSTOP, sleep
 *                     MS ms, continue it with SIGCONT (a debugger, Ctrl-Z)
 *   exit N            exit with status N
 *   signal N          kill itself with signal N
 *   sleep S PIDFILE   start a child that sleeps too, write "PID CHILDPID" to
 *                     PIDFILE, sleep S seconds
 *   stubborn S PIDFILE  the same, ignoring SIGTERM
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static unsigned long long count_zeros(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char buf[65536];
	unsigned long long zeros = 0;
	size_t n;
	if (!f) {
		perror(path);
		exit(66);
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		for (size_t i = 0; i < n; i++)
			zeros += buf[i] == 0;
	fclose(f);
	return zeros;
}

static void print_times(uint64_t ns)
{
	uint64_t s = ns / 1000000000u, frac = ns % 1000000000u;
	printf("Elapsed time: %02llu:%02llu:%02llu.%07llu\n", (unsigned long long)(s / 3600),
	       (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60),
	       (unsigned long long)(frac / 100));
	printf("java: %02llu:%02llu:%02llu.%03llu\n", (unsigned long long)(s / 3600),
	       (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60),
	       (unsigned long long)(frac / 1000000));
	printf("took %.6f ms\n", ns / 1e6);
}

static const char *file_arg;

static uint64_t cpu_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Work, not wall time: on a shared machine a thread that spins for a
 * fixed time gets less CPU when others run.  arg: where the thread's own
 * CPU time goes. */
static void *spin(void *arg)
{
	volatile uint64_t x = 0;
	for (uint64_t i = 0; i < 100000000u; i++)
		x += i;
	*(uint64_t *)arg = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
	return (void *)(uintptr_t)(x & 1); /* read back: clang's set-but-unused */
}

static int sleeper(double seconds, const char *pidfile, int stubborn)
{
	if (stubborn)
		signal(SIGTERM, SIG_IGN);
	pid_t child = fork();
	if (child == 0) {
		/* A grandchild that would outlive a careless stop. */
		execlp("sleep", "sleep", "300", (char *)NULL);
		_exit(127);
	}
	FILE *f = fopen(pidfile, "w");
	if (!f)
		return 70;
	fprintf(f, "%d %d\n", (int)getpid(), (int)child);
	fclose(f);
	printf("sleeping\n");
	fflush(stdout);
	struct timespec ts = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };
	while (nanosleep(&ts, &ts) != 0)
		;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 64;
	const char *mode = argv[1];
	if (!strcmp(mode, "count") || !strcmp(mode, "wrong") || !strcmp(mode, "late")) {
		uint64_t t0 = now_ns();
		unsigned long long zeros = count_zeros(argv[2]);
		if (argc > 3) {
			long ms = atol(argv[3]);
			struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
			while (nanosleep(&ts, &ts) != 0)
				;
		}
		uint64_t t1 = now_ns();
		printf("Reading %s...\n", argv[2]);
		printf("Found %llu zero bytes in %s\n", zeros + !strcmp(mode, "wrong"), argv[2]);
		if (!strcmp(mode, "late"))
			printf("took 100 s\n");
		else
			print_times(t1 - t0);
		return 0;
	}
	if (!strcmp(mode, "threads")) {
		int n = atoi(argv[2]);
		pthread_t t[64];
		uint64_t cpu[64] = { 0 };
		file_arg = argv[3];
		for (int i = 0; i < n && i < 64; i++)
			pthread_create(&t[i], NULL, spin, &cpu[i]);
		for (int i = 0; i < n && i < 64; i++)
			pthread_join(t[i], NULL);
		printf("Found %llu zero bytes in %s\n", count_zeros(file_arg), file_arg);
		/* The kernel's own accounting of the same threads, for tests
		 * that hold a counter against it (whatever else ran). */
		printf("cpu: process %llu threads", (unsigned long long)cpu_ns(CLOCK_PROCESS_CPUTIME_ID));
		for (int i = 0; i < n && i < 64; i++)
			printf(" %llu", (unsigned long long)cpu[i]);
		printf("\n");
		return 0;
	}
	if (!strcmp(mode, "argv")) {
		cpu_set_t set;
		for (int i = 2; i < argc; i++)
			printf("arg[%d]=%s\n", i - 2, argv[i]);
		printf("pus=");
		if (sched_getaffinity(0, sizeof(set), &set) == 0)
			for (int c = 0, first = 1; c < CPU_SETSIZE; c++)
				if (CPU_ISSET(c, &set)) {
					printf("%s%d", first ? "" : ",", c);
					first = 0;
				}
		printf("\n");
		if (getpgid(0) == getpid())
			printf("pgid=own\n");
		return 0;
	}
	if (!strcmp(mode, "stopparent")) {
		long ms = atol(argv[2]);
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
		unsigned long long zeros = count_zeros(argv[3]);
		kill(getppid(), SIGSTOP);
		while (nanosleep(&ts, &ts) != 0)
			;
		kill(getppid(), SIGCONT);
		printf("Found %llu zero bytes in %s\n", zeros, argv[3]);
		return 0;
	}
	if (!strcmp(mode, "daemon")) {
		int ready[2];
		char byte;
		if (pipe(ready))
			return 71;
		pid_t child = fork();
		if (child == 0) {
			setsid();
			/* In its own session before the helper exits: out of the
			 * group when the group is killed. */
			ssize_t ignored = write(ready[1], "x", 1);
			(void)ignored;
			execlp("sleep", "sleep", "300", (char *)NULL);
			_exit(127);
		}
		if (read(ready[0], &byte, 1) != 1)
			return 72;
		FILE *f = fopen(argv[2], "w");
		if (!f)
			return 70;
		fprintf(f, "%d\n", (int)child);
		fclose(f);
		return 0;
	}
	if (!strcmp(mode, "print")) {
		for (int i = 2; i < argc; i++)
			printf("%s\n", argv[i]);
		return 0;
	}
	if (!strcmp(mode, "flood")) {
		unsigned long long zeros = count_zeros(argv[2]);
		unsigned long long lines = strtoull(argv[3], NULL, 10) * (1u << 20) / 64;
		printf("Found %llu zero bytes in %s\n", zeros, argv[2]);
		for (unsigned long long i = 0; i < lines; i++)
			printf("filler line %020llu ..............................\n", i);
		printf("flood ends\n");
		return 0;
	}
	if (!strcmp(mode, "exit"))
		return atoi(argv[2]);
	if (!strcmp(mode, "signal")) {
		fflush(stdout);
		signal(atoi(argv[2]), SIG_DFL);
		raise(atoi(argv[2]));
		return 0;
	}
	if (!strcmp(mode, "sleep") || !strcmp(mode, "stubborn"))
		return sleeper(atof(argv[2]), argv[3], !strcmp(mode, "stubborn"));
	return 64;
}
