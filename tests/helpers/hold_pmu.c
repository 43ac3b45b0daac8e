/* hold_pmu [-c] N|all CMD ARGS...: runs CMD while the hardware counters
 * are taken, as another tool does (perf record -a, a monitoring agent):
 * on every online CPU, pinned CPU-wide events that CMD's threads cannot
 * displace, then CMD started with them still open.  -c takes the cycle
 * counter (CPU_CYCLES, which the Arm PMUv3 driver puts there first); N
 * takes N generic counters (raw event 0x8, INST_RETIRED, which only a
 * generic counter takes), "all" as many as the PMU has.  A pinned event
 * the PMU has no counter for is put in error state, and reading it
 * returns 0 bytes: that is how "all" stops, and how a short N is told.
 * Says on stderr what it holds.  For tests/vm/guest_pmu.sh (arm64). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One pinned event on cpu; 1 if it holds a counter, 0 if none was free
 * (closed again), -1 if it could not be opened. */
static int hold(int cpu, uint64_t config)
{
	struct perf_event_attr a;
	uint64_t v[3];
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_RAW;
	a.config = config;
	a.pinned = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	/* Not close-on-exec: CMD inherits the fds, so the counters stay
	 * held for as long as it runs. */
	long fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1, 0);
	if (fd < 0) {
		fprintf(stderr, "hold_pmu: CPU %d: perf_event_open(raw %#llx, pinned): %s\n", cpu,
			(unsigned long long)config, strerror(errno));
		return -1;
	}
	if (read((int)fd, v, sizeof(v)) <= 0) { /* error state: no counter was free */
		close((int)fd);
		return 0;
	}
	return 1;
}

int main(int argc, char **argv)
{
	int arg = 1, cycles = 0;
	if (arg < argc && strcmp(argv[arg], "-c") == 0) {
		cycles = 1;
		arg++;
	}
	if (argc - arg < 2) {
		fprintf(stderr, "usage: hold_pmu [-c] N|all CMD ARGS...\n");
		return 2;
	}
	int all = strcmp(argv[arg], "all") == 0;
	int want = all ? 64 : atoi(argv[arg]);
	arg++;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	for (int cpu = 0; cpu < cpus; cpu++) {
		int got_cycles = cycles ? hold(cpu, 0x11) : 0, got = 0, r = 1;
		if (got_cycles < 0)
			return 2;
		while (got < want && (r = hold(cpu, 0x8)) == 1)
			got++;
		if (r < 0)
			return 2;
		fprintf(stderr, "hold_pmu: CPU %d: holding %s%d generic counter(s)%s\n", cpu,
			got_cycles ? "the cycle counter and " : "", got,
			got < want ? (all ? ", all there were" : ", fewer than asked") : "");
		if (!all && (got < want || got_cycles != cycles))
			return 2;
	}
	execvp(argv[arg], argv + arg);
	perror("hold_pmu: exec");
	return 127;
}
