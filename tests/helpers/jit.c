/* A tiny "runtime" that compiles one loop at run time, for the profile's
 * tests of JIT code (tests/integration/profile.sh): it behaves as .NET
 * does with the variables jitnames sets (docs/profile.md).
 *
 *   jit ITERATIONS       copies a count-down loop into executable memory
 *                        and runs it ITERATIONS times round, then prints
 *                        "pid N" (the test removes the map it wrote):
 *     DOTNET_PerfMapEnabled=1         writes /tmp/perf-PID.map naming it
 *                                     jitted_loop[Helper] at the address
 *                                     it runs at (as .NET 10 does)
 *     DOTNET_EnableWriteXorExecute    not 0: as .NET's W^X, the code is
 *                                     written through one mapping of a
 *                                     memfd named doublemapper and run
 *                                     from a second, read-execute one.
 *                                     0: one anonymous read-write-execute
 *                                     mapping
 *   JIT_HELPER_NO_MAP=1  writes no map whatever it is asked (a runtime
 *                        jitnames does not know)
 *
 * x86-64 and arm64 (the loop is machine code); elsewhere it exits 77 and
 * the tests skip.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
#if defined(__x86_64__) || defined(__aarch64__)
#if defined(__x86_64__)
	/* mov rax, rdi; 1: dec rdi; jnz 1b; ret */
	static const unsigned char code[] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };
#else
	/* mov x1, x0; 1: subs x0, x0, #1; b.ne 1b; mov x0, x1; ret (little-endian words) */
	static const unsigned char code[] = { 0xe1, 0x03, 0x00, 0xaa, 0x00, 0x04, 0x00, 0xf1,
					      0xe1, 0xff, 0xff, 0x54, 0xe0, 0x03, 0x01, 0xaa,
					      0xc0, 0x03, 0x5f, 0xd6 };
#endif
	const char *wx = getenv("DOTNET_EnableWriteXorExecute");
	const char *map = getenv("DOTNET_PerfMapEnabled");
	const char *no_map = getenv("JIT_HELPER_NO_MAP");
	int double_map = !wx || strcmp(wx, "0") != 0;
	unsigned char *rw, *rx;
	const size_t len = 4096;

	if (argc != 2) {
		fprintf(stderr, "usage: jit ITERATIONS\n");
		return 2;
	}
	if (double_map) {
		int fd = memfd_create("doublemapper", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, (off_t)len))
			return 1;
		rw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		rx = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
		close(fd);
	} else {
		rw = rx = mmap(NULL, len, PROT_READ | PROT_WRITE | PROT_EXEC,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	if (rw == MAP_FAILED || rx == MAP_FAILED)
		return 1;
	memcpy(rw, code, sizeof(code));
	/* arm64 fetches instructions through a cache the data writes do not
	 * update: make the new code visible where it runs (x86: nothing). */
	__builtin___clear_cache((char *)rx, (char *)rx + sizeof(code));
	if (map && strcmp(map, "1") == 0 && !(no_map && strcmp(no_map, "1") == 0)) {
		char path[64];
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
		FILE *f = fopen(path, "w");
		if (!f)
			return 1;
		fprintf(f, "%lx %zx jitted_loop[Helper]\n", (unsigned long)(uintptr_t)rx, sizeof(code));
		fclose(f);
	}
	uint64_t (*loop)(uint64_t) = (uint64_t(*)(uint64_t))(uintptr_t)rx;
	uint64_t n = strtoull(argv[1], NULL, 10), sum = 0;
	for (int round = 0; round < 4; round++)
		sum += loop(n / 4 ? n / 4 : 1);
	printf("pid %d\nsum %llu\n", (int)getpid(), (unsigned long long)sum);
	return 0;
#else
	(void)argc;
	(void)argv;
	fprintf(stderr, "jit: x86-64 and arm64 only\n");
	return 77;
#endif
}
