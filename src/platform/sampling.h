/* Sampling a program: where its threads spend CPU time and where they
 * take page faults, read from perf_event ring buffers.
 *
 *   open    on a child held before its exec (exec_child.h), per CPU it may
 *           run on: a software cpu-clock event sampling every 1/hz s of
 *           its CPU time with the call chain (PERF_SAMPLE_CALLCHAIN | IP |
 *           TID | TIME), and a page-faults event sampling one fault in
 *           fault_period with its address (PERF_SAMPLE_ADDR), both written
 *           to one ring buffer per CPU; inherited by every thread and
 *           process it starts, enabled by the kernel at its exec.  The
 *           cpu-clock event also records every mapping the program makes
 *           (PERF_RECORD_MMAP2, data mappings too), so samples can be named
 *           after it exited, and every time a thread of it goes on or off
 *           a CPU, starts or ends (PERF_RECORD_SWITCH, FORK, EXIT): with
 *           hz = 0 that alone, on a dummy event.  src/platform/counters.c
 *           does the opens.
 *   start   a thread that drains the buffers while the program runs (it
 *           sleeps in poll until a buffer is half full)
 *   finish  after the program exited: the last records drained, samples
 *           and mappings handed over in time order
 *
 * The kernel refuses the open without the rights (perf_event_paranoid
 * above 1 for another user's or a non-root user's kernel samples: then
 * user space alone is sampled; above 2, nothing): that is a state, said
 * in words (why), and the run is measured without a profile.
 */
#ifndef MMPROF_SAMPLING_H
#define MMPROF_SAMPLING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Default rate: ~1 ms of a thread's CPU time per sample.  make bench
 * (bench/sampling_overhead.sh) measures what it costs. */
#define MMP_SAMPLING_HZ 1000
/* One page fault in this many is sampled: a sample costs about as much as
 * the fault itself here (a first-touch fault is ~1 us), so 1 in 16 cost a
 * program that only faults 5.4% [3.3, 7.5] of its CPU time, 1 in 64
 * 0.8% [-1.4, 3.2] (make bench, bench/sampling.sh). */
#define MMP_SAMPLING_FAULT_PERIOD 64

enum mmp_sample_kind { MMP_SAMPLE_CPU, MMP_SAMPLE_FAULT };

struct mmp_sample {
	uint64_t ip;    /* where the thread was (a fault: the faulting instruction) */
	uint64_t addr;  /* a fault: the address it touched */
	uint64_t time;  /* perf clock, ns */
	uint32_t pid, tid;
	uint32_t chain; /* first of nchain return addresses in mmp_samples.chain */
	uint16_t nchain;
	uint8_t kind;   /* enum mmp_sample_kind */
	uint8_t kernel; /* ip is in the kernel */
};

/* A thread of the program going on or off a CPU, starting or ending
 * (PERF_RECORD_SWITCH, FORK, EXIT): what concurrency.h reads to tell
 * whether its threads ran at the same time. */
enum mmp_switch_kind {
	MMP_SWITCH_IN,      /* it got a CPU */
	MMP_SWITCH_PREEMPT, /* it lost its CPU while still runnable: it waits for one */
	MMP_SWITCH_SLEEP,   /* it left its CPU to block (a lock, I/O, a join) */
	MMP_SWITCH_START,   /* a new thread, runnable from here */
	MMP_SWITCH_EXIT,
};

struct mmp_switch {
	uint64_t time; /* perf clock, ns, as the samples' */
	uint32_t tid;
	uint8_t kind;  /* enum mmp_switch_kind */
};

/* A mapping the program made (PERF_RECORD_MMAP2). */
struct mmp_sample_map {
	uint64_t start, len, pgoff, time;
	uint32_t pid, prot;
	char *name; /* the file, or "[heap]", "[stack]", "//anon", "memfd:..." */
};

/* A perf map a runtime wrote for the program (/tmp/perf-N.map: "START
 * SIZE name" per line of JIT code), read when it exited.  N is its pid,
 * or for JDK 17's -XX:+DumpPerfMapAtExit the id of the thread the Java
 * launcher started the VM in.  A file older than the program is another
 * process's that had the same number, and is not read. */
struct mmp_perf_map {
	uint32_t pid; /* the process whose code it names */
	char *path;
	char *text;   /* NUL-terminated */
	size_t len;
};

struct mmp_samples {
	struct mmp_sample *s;
	size_t n, cap;
	uint64_t *chain; /* callers, innermost first */
	size_t nchain, chaincap;
	struct mmp_sample_map *map;
	size_t nmap, mapcap;
	struct mmp_switch *sw; /* in the order drained: sort by time to read */
	size_t nsw, swcap;
	uint64_t lost;        /* records the kernel dropped (buffer full) */
	uint64_t period_ns;   /* CPU time one cpu sample stands for */
	uint64_t fault_period;
	pid_t pid;            /* the program's (its perf map is /tmp/perf-PID.map) */
	int user_only;        /* kernel samples were refused: user space only */
	int faults_refused;   /* the page-fault event could not be opened (errno) */
	struct mmp_perf_map *perf_map;
	size_t nperf_map;
	unsigned jit;         /* what the run set for runtimes to write them (child_env.h) */
};

struct mmp_sampling_opts {
	/* cpu-clock samples per second of CPU time; 0: none, the threads'
	 * switches only (profile = off still judges their overlap) */
	unsigned hz;
	unsigned fault_period; /* 0: no fault samples */
};

struct mmp_sampler;

/* 0, or a negative errno with the reason in why (refused: the paranoid
 * level and the fix; not supported).  Nothing to undo then. */
int mmp_sampler_open_child(struct mmp_sampler **out, pid_t pid,
			   const struct mmp_sampling_opts *opts, char *why, size_t wlen);
/* The drain thread: call it once the child was released. */
int mmp_sampler_start(struct mmp_sampler *s);
/* Stop the thread, drain what is left, read the perf maps the program's
 * runtimes wrote, hand the samples to out (which mmp_samples_free frees).
 * Call it after the child was reaped. */
int mmp_sampler_finish(struct mmp_sampler *s, struct mmp_samples *out);
void mmp_sampler_close(struct mmp_sampler *s);

void mmp_samples_free(struct mmp_samples *out);

/* The JIT runtimes a program ran, known by the library each maps: which
 * one wrote (or did not write) a perf map decides what the profile
 * advises and which maps mmprof may remove. */
enum { MMP_RUNTIME_DOTNET = 1 << 0, MMP_RUNTIME_JAVA = 1 << 1 };
unsigned mmp_samples_runtimes(const struct mmp_samples *s);

/* Parse the records of one buffer's bytes into out (exposed for tests). */
int mmp_samples_parse(struct mmp_samples *out, const unsigned char *rec, size_t len,
		      uint64_t cpu_id, uint64_t fault_id);

#endif
