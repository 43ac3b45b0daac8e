/* Judging a repetition (see disturbance.h). */
#include "run/disturbance.h"
#include "run/concurrency.h"

#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void mmp_disturbance_judge(const struct mmp_thread_sample *t, unsigned nthreads,
			   unsigned npus, int oversubscribed, int may_sleep, double pressure,
			   struct mmp_disturbance *out)
{
	uint64_t first = UINT64_MAX, last = 0, last_start = 0, first_end = UINT64_MAX;
	uint64_t shortest = UINT64_MAX;
	uint64_t off_ns = 0, off_wall = 0;
	double cpu = 0;

	memset(out, 0, sizeof(*out));
	out->pressure = pressure;
	out->busy = -1;
	out->others = out->unexplained = out->kernel = out->self = -1;
	out->steal = -1;
	out->wait_max = 0;
	out->offcpu_max = may_sleep ? -1 : 0;
	for (unsigned i = 0; i < nthreads; i++) {
		first = t[i].start < first ? t[i].start : first;
		last = t[i].end > last ? t[i].end : last;
		last_start = t[i].start > last_start ? t[i].start : last_start;
		first_end = t[i].end < first_end ? t[i].end : first_end;
		if (t[i].end - t[i].start < shortest)
			shortest = t[i].end - t[i].start;
		cpu += (double)t[i].cpu_ns;
		out->nivcsw += t[i].nivcsw;
		if (out->wait_max >= 0 && t[i].wait_ns == UINT64_MAX)
			out->wait_max = -1;
		else if (out->wait_max >= 0 && t[i].wall_ns) {
			double w = (double)t[i].wait_ns / (double)t[i].wall_ns;
			out->wait_max = w > out->wait_max ? w : out->wait_max;
		}
		/* Neither on a CPU nor waiting for one: stopped (SIGSTOP, a
		 * debugger), frozen (a cgroup freezer), or asleep -- and a
		 * probe that does not sleep was not asleep. */
		if (out->offcpu_max >= 0 && t[i].wait_ns != UINT64_MAX && t[i].wall_ns) {
			uint64_t on = t[i].cpu_ns + t[i].wait_ns;
			uint64_t off = t[i].wall_ns > on ? t[i].wall_ns - on : 0;
			double share = (double)off / (double)t[i].wall_ns;
			if (share > out->offcpu_max) {
				out->offcpu_max = share;
				off_ns = off;
				off_wall = t[i].wall_ns;
			}
		}
	}
	if (out->offcpu_max > MMP_DISTURB_MAX_OFFCPU && off_ns >= MMP_DISTURB_OFFCPU_FLOOR_NS) {
		out->disturbed = 1;
		snprintf(out->why, sizeof(out->why),
			 "a thread was off-CPU (stopped?) %.0f of its %.0f ms, not running nor "
			 "waiting for a CPU",
			 off_ns / 1e6, off_wall / 1e6);
		return;
	}
	double span = last > first ? (double)(last - first) : 0;
	/* Measured against the shortest thread: a thread that simply had less
	 * to do (a lighter slice) is not a disturbance, one that started late
	 * or stalled is. */
	out->overlap = nthreads < 2 || !shortest ? 1
		       : first_end > last_start ? (double)(first_end - last_start) / (double)shortest
						: 0;
	if (out->overlap > 1)
		out->overlap = 1;
	if (oversubscribed) {
		out->busy = span > 0 && npus ? cpu / (span * npus) : 1;
		if (out->busy < MMP_DISTURB_MIN_BUSY) {
			out->disturbed = 1;
			snprintf(out->why, sizeof(out->why),
				 "its %u PUs were %.0f%% busy with its threads", npus, out->busy * 100);
		}
		return;
	}
	if (out->overlap < MMP_DISTURB_MIN_OVERLAP) {
		out->disturbed = 1;
		snprintf(out->why, sizeof(out->why), "threads overlapped %.0f%% of the time",
			 out->overlap * 100);
	} else if (out->wait_max > MMP_DISTURB_MAX_WAIT) {
		out->disturbed = 1;
		snprintf(out->why, sizeof(out->why), "a thread waited %.0f%% of its time for a CPU",
			 out->wait_max * 100);
	}
}

/* SIGCONT is what every SIGSTOP, SIGTSTP (Ctrl-Z) and job-control stop
 * ends with: counted, a repetition it fell in is known to have been
 * stopped, whatever its clocks say. */
static volatile sig_atomic_t continued;

static void on_sigcont(int sig)
{
	(void)sig;
	continued++;
}

static void watch_stops(void)
{
	struct sigaction sa = { .sa_handler = on_sigcont, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCONT, &sa, NULL);
}

unsigned mmp_disturbance_stops(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, watch_stops);
	return (unsigned)continued;
}

void mmp_disturbance_check_stops(unsigned before, struct mmp_disturbance *out)
{
	unsigned n = mmp_disturbance_stops() - before;
	if (!n)
		return;
	out->disturbed = 1;
	snprintf(out->why, sizeof(out->why),
		 "mmprof was stopped and continued %u time(s) during it (SIGSTOP, Ctrl-Z, a "
		 "debugger)",
		 n);
}

void mmp_disturbance_check_steal(int64_t before, int64_t after, uint64_t elapsed_ns,
				 unsigned npus, struct mmp_disturbance *out)
{
	out->steal = -1;
	if (before < 0 || after < before || !elapsed_ns || !npus)
		return;
	out->steal = (double)(after - before) / ((double)elapsed_ns * npus);
	if (after == before)
		return;
	/* /proc/stat counts in ticks (10 ms at USER_HZ 100): a short
	 * repetition that straddles one reads as a large share; either way
	 * the hypervisor ran something else on its PUs' CPUs. */
	if (!out->disturbed)
		snprintf(out->why, sizeof(out->why),
			 "the hypervisor took %.0f ms of its PUs' time (steal)",
			 (double)(after - before) / 1e6);
	out->disturbed = 1;
}

/* Of others (ns), what is explained: the kernel's work on the PUs (its
 * threads, interrupts) and mmprof's own threads, into out's shares. */
static double explained(const struct mmp_process_pus *in, double capacity,
			struct mmp_disturbance *out)
{
	double kernel = in->irq_ns != UINT64_MAX ? (double)in->irq_ns : 0, self = 0;
	int known = in->irq_ns != UINT64_MAX;
	if (in->seen) {
		kernel += (double)in->seen->ns[MMP_TASK_KERNEL];
		self = (double)in->seen->ns[MMP_TASK_SELF];
		out->self = self / capacity;
		snprintf(out->kernel_tasks, sizeof(out->kernel_tasks), "%s", in->seen->kernel);
		snprintf(out->other_tasks, sizeof(out->other_tasks), "%s", in->seen->other);
		known = 1;
	} else if (in->why_not) {
		snprintf(out->seen_why, sizeof(out->seen_why), "%s", in->why_not);
	}
	out->kernel = known ? kernel / capacity : -1;
	return kernel + self;
}

void mmp_disturbance_judge_process(const struct mmp_process_pus *in, uint64_t nivcsw,
				   double pressure, struct mmp_disturbance *out)
{
	memset(out, 0, sizeof(*out));
	out->overlap = 1; /* one process: nothing of mmprof's to overlap */
	out->wait_max = -1;
	out->offcpu_max = -1; /* a program may sleep by design */
	out->busy = -1;
	out->others = -1;
	out->unexplained = -1;
	out->kernel = -1;
	out->self = -1;
	out->steal = -1;
	out->pressure = pressure;
	out->nivcsw = nivcsw;
	if (in->idle_ns == UINT64_MAX || !in->wall_ns || !in->npus)
		return;
	double capacity = (double)in->wall_ns * in->npus;
	double others = capacity - (double)in->idle_ns - (double)in->cpu_ns;
	if (others < 0)
		others = 0; /* tick rounding */
	out->others = others < capacity ? others / capacity : 1;
	/* What the kernel did there (for the program, or none a quieter
	 * machine would take away) and mmprof's own ticks are not other
	 * tasks in the way: left out, said apart. */
	double left = others - explained(in, capacity, out);
	if (left < 0)
		left = 0;
	/* With every switch on its PUs recorded, the other tasks' time is
	 * known to the ns: what is left beyond it ran in no task -- the
	 * interrupts and softirqs of the program's I/O taken while a PU was
	 * idle, which /proc/stat's irq column counts only when a tick lands in
	 * them (10-15% of two PUs for an fsync loop here, with no other task
	 * running) -- and is the kernel's. */
	if (in->seen && in->seen->complete && left > (double)in->seen->ns[MMP_TASK_OTHER]) {
		out->kernel += (left - (double)in->seen->ns[MMP_TASK_OTHER]) / capacity;
		left = (double)in->seen->ns[MMP_TASK_OTHER];
	}
	out->unexplained = left < capacity ? left / capacity : 1;
	if (out->unexplained > MMP_DISTURB_MAX_OTHERS &&
	    left >= (double)MMP_DISTURB_OTHERS_FLOOR_NS * in->npus) {
		out->disturbed = 1;
		snprintf(out->why, sizeof(out->why), "other tasks took %.0f%% of its PUs: %s%.120s%s",
			 out->unexplained * 100,
			 out->other_tasks[0] ? "unexplained (" : "unexplained", out->other_tasks,
			 out->other_tasks[0] ? ")" : "");
	}
}

void mmp_disturbance_judge_overlap(const struct mmp_concurrency *c, struct mmp_disturbance *out)
{
	out->overlap = c ? c->overlap : -1;
	if (!c || out->disturbed || c->ready2_ns < MMP_DISTURB_READY2_FLOOR_NS ||
	    c->overlap >= MMP_DISTURB_MIN_OVERLAP)
		return;
	out->disturbed = 1;
	snprintf(out->why, sizeof(out->why),
		 "its threads ran at once %.0f%% of the %.0f ms two were ready to run",
		 c->overlap * 100, c->ready2_ns / 1e6);
}

/* Two columns of the given PUs' lines of /proc/stat ("cpuN user nice
 * system idle iowait irq softirq ..."; col 0 is user), summed, in ns. */
static int cpu_ticks(const int *pus, unsigned npus, int col, uint64_t *ns)
{
	char line[512];
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "re");
	unsigned found = 0;
	uint64_t ticks = 0;

	if (!f || hz <= 0) {
		if (f)
			fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		int cpu;
		unsigned long long v[7];
		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6]) != 8)
			continue;
		for (unsigned i = 0; i < npus; i++)
			if (pus[i] == cpu) {
				ticks += v[col] + v[col + 1];
				found++;
				break;
			}
	}
	fclose(f);
	if (found != npus)
		return -1;
	*ns = ticks * (1000000000u / (uint64_t)hz);
	return 0;
}

int mmp_cpu_idle_ns(const int *pus, unsigned npus, uint64_t *idle_ns)
{
	return cpu_ticks(pus, npus, 3, idle_ns); /* idle, iowait */
}

int mmp_cpu_irq_ns(const int *pus, unsigned npus, uint64_t *irq_ns)
{
	return cpu_ticks(pus, npus, 5, irq_ns); /* irq, softirq */
}

int mmp_pressure_open(void)
{
	return open("/proc/pressure/cpu", O_RDONLY | O_CLOEXEC);
}

/* A /proc file read again from its start, as a string; -1 when it
 * cannot be. */
static int read_proc(int fd, char *buf, size_t len)
{
	if (fd < 0)
		return -1;
	ssize_t n = pread(fd, buf, len - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

int64_t mmp_pressure_read(int fd)
{
	char buf[256];
	if (read_proc(fd, buf, sizeof(buf)))
		return -1;
	const char *p = strstr(buf, "some ");
	p = p ? strstr(p, "total=") : NULL;
	return p ? (int64_t)strtoll(p + 6, NULL, 10) : -1;
}

int mmp_schedstat_open(void)
{
	return open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
}

int mmp_schedstat_read(int fd, uint64_t *cpu_ns, uint64_t *wait_ns)
{
	char buf[128];
	if (read_proc(fd, buf, sizeof(buf)))
		return -1;
	return sscanf(buf, "%" SCNu64 " %" SCNu64, cpu_ns, wait_ns) == 2 ? 0 : -1;
}
