/* Where a program's threads really ran (see pu_watch.h). */
#include "run/pu_watch.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void mmp_pu_watch_start(struct mmp_pu_watch *w, pid_t pid, const int *pus, unsigned npus)
{
	memset(w, 0, sizeof(*w));
	w->pid = pid;
	CPU_ZERO(&w->planned);
	for (unsigned i = 0; i < npus; i++)
		CPU_SET(pus[i], &w->planned);
}

static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* The PU a task is on or last ran on: field 39 of its stat, counted past
 * the ")" that ends its name (a name may hold spaces and parentheses). */
static int task_processor(pid_t pid, const char *tid)
{
	char path[96], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/task/%.20s/stat", (int)pid, tid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	char *p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* ") S ppid ...": field 3 is the first after it. */
	for (int field = 2; field < 39; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -1;
	}
	return atoi(p + 1);
}

/* Every task of process pid into w; its children's pids appended to
 * queue (at most max). */
static void sample_process(struct mmp_pu_watch *w, pid_t pid, pid_t *queue, size_t *nq,
			   size_t max, unsigned *tasks)
{
	char path[96], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return; /* gone meanwhile */
	for (struct dirent *e; (e = readdir(d)) && *tasks < MMP_PU_WATCH_MAX_TASKS;) {
		if (e->d_name[0] == '.')
			continue;
		cpu_set_t mask;
		pid_t tid = (pid_t)atoi(e->d_name);
		int pu = task_processor(pid, e->d_name);
		++*tasks;
		if (pu >= 0 && pu < CPU_SETSIZE)
			CPU_SET(pu, &w->seen);
		if (sched_getaffinity(tid, sizeof(mask), &mask) == 0)
			CPU_OR(&w->allowed, &w->allowed, &mask);
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/children", (int)pid, e->d_name);
		if (read_small(path, buf, sizeof(buf)) <= 0)
			continue;
		for (char *p = buf, *end; *nq < max; p = end) {
			long child = strtol(p, &end, 10);
			if (end == p)
				break;
			queue[(*nq)++] = (pid_t)child;
		}
	}
	closedir(d);
}

void mmp_pu_watch_sample(void *ctx)
{
	struct mmp_pu_watch *w = ctx;
	pid_t queue[256];
	size_t nq = 0;
	unsigned tasks = 0;
	queue[nq++] = w->pid;
	/* Breadth first over the tree: its processes, then theirs. */
	for (size_t i = 0; i < nq && tasks < MMP_PU_WATCH_MAX_TASKS; i++)
		sample_process(w, queue[i], queue, &nq, sizeof(queue) / sizeof(queue[0]), &tasks);
	if (tasks)
		w->samples++;
}

void mmp_pu_watch_judge(const struct mmp_pu_watch *w, uint64_t cpu_ns, uint64_t wall_ns,
			struct mmp_pu_escape *out)
{
	cpu_set_t outside, both;
	char planned[MMP_CPULIST_MAX];
	int npus = CPU_COUNT(&w->planned);

	memset(out, 0, sizeof(*out));
	out->cpu_share = -1;
	mmp_cpulist_format(&w->planned, planned, sizeof(planned));
	if (w->samples)
		mmp_cpulist_format(&w->seen, out->seen, sizeof(out->seen));
	CPU_OR(&both, &w->seen, &w->allowed);
	CPU_XOR(&outside, &both, &w->planned);
	CPU_AND(&outside, &outside, &both); /* in both, not planned */
	if (w->samples && CPU_COUNT(&outside)) {
		mmp_cpulist_format(&outside, out->outside, sizeof(out->outside));
		out->escaped = 1;
	}
	if (cpu_ns && wall_ns && npus) {
		out->cpu_share = (double)cpu_ns / ((double)wall_ns * npus);
		if ((double)cpu_ns >
		    (double)wall_ns * npus * MMP_PU_WATCH_CPU_SLACK + MMP_PU_WATCH_CPU_SLACK_NS)
			out->escaped = 1;
	}
	if (!out->escaped)
		return;
	if (out->outside[0])
		snprintf(out->why, sizeof(out->why),
			 "its threads left its PUs %.20s (seen on %.20s; outside them, seen or "
			 "allowed: %.20s): it widened its own CPU affinity (taskset, numactl, OpenMP?)",
			 planned, out->seen, out->outside);
	else
		snprintf(out->why, sizeof(out->why),
			 "its CPU time was %.2fx what its %d PU(s) %.20s give in its wall time: it "
			 "ran outside them (it widened its own CPU affinity?)",
			 out->cpu_share, npus, planned);
}
