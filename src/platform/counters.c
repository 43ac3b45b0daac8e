/* perf_event groups (see counters.h).  The only caller of perf_event_open. */
#include "platform/counters.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define READ_FORMAT                                                                            \
	(PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |                 \
	 PERF_FORMAT_TOTAL_TIME_RUNNING)

static int perf_open(struct perf_event_attr *attr, pid_t pid, int group_fd)
{
	/* One task (this thread, or a child process), any CPU: the thread is
	 * pinned, and a per-task event follows it if it ever moves. */
	long fd = syscall(SYS_perf_event_open, attr, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

static int state_of_error(int error)
{
	return error == EACCES || error == EPERM ? MMP_COUNT_DENIED : MMP_COUNT_NOT_SUPPORTED;
}

const char *mmp_count_state_name(enum mmp_count_state s)
{
	switch (s) {
	case MMP_COUNT_COUNTED:
		return "counted";
	case MMP_COUNT_SCALED:
		return "scaled";
	case MMP_COUNT_NOT_COUNTED:
		return "not counted";
	case MMP_COUNT_NOT_SUPPORTED:
		return "not supported";
	case MMP_COUNT_DENIED:
		return "denied";
	}
	return "?";
}

double mmp_count_ratio(const struct mmp_count *c)
{
	return c->enabled ? (double)c->running / (double)c->enabled : 0;
}

void mmp_count_from(struct mmp_count *c, uint64_t raw, uint64_t enabled, uint64_t running)
{
	memset(c, 0, sizeof(*c));
	c->raw = raw;
	c->enabled = enabled;
	c->running = running;
	if (running == 0) {
		c->state = MMP_COUNT_NOT_COUNTED;
	} else if (running < enabled) {
		/* Multiplexed: perf's estimate of what it would have counted
		 * had it run all the time the group was enabled. */
		c->state = MMP_COUNT_SCALED;
		c->value = (double)raw * (double)enabled / (double)running;
	} else {
		c->state = MMP_COUNT_COUNTED;
		c->value = (double)raw;
	}
}

void mmp_count_add(struct mmp_count *sum, const struct mmp_count *one, int first)
{
	if (first) {
		*sum = *one;
		return;
	}
	if (!mmp_count_valid(sum))
		return; /* already not countable as a whole */
	if (!mmp_count_valid(one)) {
		sum->state = one->state;
		sum->error = one->error;
		sum->value = 0;
		return;
	}
	sum->raw += one->raw;
	sum->value += one->value;
	sum->enabled += one->enabled;
	sum->running += one->running;
	if (one->state == MMP_COUNT_SCALED)
		sum->state = MMP_COUNT_SCALED;
}

size_t mmp_counters_plan_groups(const struct mmp_event_set *set, unsigned max_hw,
				int *group_of)
{
	size_t groups = 0, in_hw = 0;
	int hw_group = -1, sw_group = -1;

	if (max_hw == 0)
		max_hw = 1;
	for (size_t i = 0; i < set->n; i++) {
		if (set->ev[i].kind == MMP_EV_HARDWARE) {
			if (hw_group < 0 || in_hw == max_hw) {
				hw_group = (int)groups++;
				in_hw = 0;
			}
			group_of[i] = hw_group;
			in_hw++;
		} else {
			if (sw_group < 0)
				sw_group = (int)groups++;
			group_of[i] = sw_group;
		}
	}
	return groups;
}

static ssize_t read_all(int fd, void *buf, size_t len)
{
	ssize_t n;
	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

/* Opens event i for task pid, as a member of the group event lead leads
 * (-1: it leads a group of its own).  The event that leads its group in
 * the end, or -1 when it could not be opened (c->error[i] says why). */
static int open_member(struct mmp_counters *c, size_t i, int lead, pid_t pid)
{
	const struct mmp_event *ev = &c->set->ev[i];
	struct perf_event_attr attr = ev->attr;

	c->fd[i] = -1;
	c->error[i] = 0;
	if (ev->unavailable) {
		c->error[i] = ev->unavailable;
		return -1;
	}
	attr.size = sizeof(attr);
	attr.read_format = READ_FORMAT;
	attr.disabled = lead < 0; /* the leader holds the group back */
	attr.inherit = pid > 0;
	attr.enable_on_exec = pid > 0 && attr.disabled;
	int fd = perf_open(&attr, pid, lead < 0 ? -1 : c->fd[lead]);
	if (fd < 0 && lead >= 0) {
		/* The group would not take it (more than the PMU's counters,
		 * or a software event the kernel keeps apart): its own group. */
		attr.disabled = 1;
		attr.enable_on_exec = pid > 0;
		fd = perf_open(&attr, pid, -1);
		lead = -1;
	}
	if (fd < 0) {
		c->error[i] = -fd;
		return -1;
	}
	c->fd[i] = fd;
	c->leader[i] = lead < 0 ? (int)i : lead;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &c->id[i]) != 0)
		c->id[i] = 0;
	return c->leader[i];
}

/* The time group l has been on a counter so far, or -1 if unreadable. */
static int64_t group_running(struct mmp_counters *c, size_t l)
{
	ssize_t got = read_all(c->fd[l], c->buf, (3 + 2 * c->n) * sizeof(uint64_t));
	return got < (ssize_t)(3 * sizeof(uint64_t)) ? -1 : (int64_t)c->buf[2];
}

/* Hardware group l alone on the PMU for a moment (this thread's other
 * groups are disabled): did it get its counters?  At open the kernel only
 * checks that a group would fit an idle PMU, and Arm's check leaves out a
 * disabled leader, so a group of one more than the counters opens and
 * never runs (the arm64 guest, 7 counters, with libpfm4 told of 8);
 * counters another tool pins (perf record -a, a monitoring agent, the NMI
 * watchdog) are not free either.  Either way every member came back "not
 * counted", though smaller groups would have taken turns. */
static int goes_on(struct mmp_counters *c, size_t l)
{
	int64_t before = group_running(c, l);
	ioctl(c->fd[l], PERF_EVENT_IOC_ENABLE, 0);
	(void)getppid(); /* a moment on the counters, if it got them */
	ioctl(c->fd[l], PERF_EVENT_IOC_DISABLE, 0);
	int64_t after = group_running(c, l);
	return before < 0 || after < 0 || after > before; /* unreadable: the read says */
}

/* Splits each hardware group the PMU does not take in two, until every
 * group goes on or is a single event (which then stays "not counted",
 * as it is).  The counts of these trials are not the run's: the baseline
 * read at the end starts the first interval after them. */
static int place_groups(struct mmp_counters *c, pid_t pid)
{
	size_t *member = calloc(c->n ? c->n : 1, sizeof(*member));
	struct mmp_count *scratch = calloc(c->n ? c->n : 1, sizeof(*scratch));
	if (!member || !scratch) {
		free(member);
		free(scratch);
		return -ENOMEM;
	}
	for (size_t l = 0; l < c->n; l++) {
		if (c->fd[l] < 0 || c->leader[l] != (int)l || c->set->ev[l].kind != MMP_EV_HARDWARE)
			continue;
		for (;;) {
			size_t m = 0;
			for (size_t i = l; i < c->n; i++)
				if (c->fd[i] >= 0 && c->leader[i] == (int)l)
					member[m++] = i;
			if (m < 2 || goes_on(c, l))
				break;
			/* The second half leaves (closing a member's fd takes it
			 * out of its group) and is opened again as a group of
			 * its own, tried when the loop reaches its leader. */
			for (size_t k = m - m / 2; k < m; k++) {
				close(c->fd[member[k]]);
				c->fd[member[k]] = -1;
			}
			int lead = -1;
			for (size_t k = m - m / 2; k < m; k++) {
				int got = open_member(c, member[k], lead, pid);
				if (lead < 0)
					lead = got;
			}
			c->split++;
		}
	}
	mmp_counters_read(c, scratch);
	free(member);
	free(scratch);
	return 0;
}

/* pid 0: the calling thread, enabled by ioctl around its slice.  A child
 * (pid > 0, stopped before its exec): inherit, so that every thread and
 * process it starts is counted into these fds, and the leaders enabled by
 * the kernel at the exec itself (enable_on_exec), so nothing of the fork
 * or of mmprof's side is counted and no ioctl races the program's start.
 * Linux 6.18 opens and reads such inherited groups with PERF_FORMAT_GROUP
 * (each member summed over the threads, the times too); what it refuses
 * with inherit is sampling with PERF_SAMPLE_READ (EINVAL), which mmprof
 * does not use (docs/exec.md). */
static int open_events(struct mmp_counters *c, const struct mmp_event_set *set, pid_t pid)
{
	size_t n = set->n;
	int *group_of = calloc(n ? n : 1, sizeof(int));
	int *group_leader = calloc(n ? n : 1, sizeof(int)); /* per group: event index */

	memset(c, 0, sizeof(*c));
	c->n = n;
	c->set = set;
	c->fd = calloc(n ? n : 1, sizeof(int));
	c->error = calloc(n ? n : 1, sizeof(int));
	c->id = calloc(n ? n : 1, sizeof(uint64_t));
	c->leader = calloc(n ? n : 1, sizeof(int));
	c->last = calloc(n ? 3 * n : 1, sizeof(uint64_t));
	c->buf = calloc(3 + 2 * n, sizeof(uint64_t));
	if (!group_of || !group_leader || !c->fd || !c->error || !c->id || !c->leader ||
	    !c->last || !c->buf) {
		free(group_of);
		free(group_leader);
		mmp_counters_close(c);
		return -ENOMEM;
	}
	size_t groups = mmp_counters_plan_groups(set, mmp_events_pmu_counters(), group_of);
	for (size_t g = 0; g < groups; g++)
		group_leader[g] = -1;
	for (size_t i = 0; i < n; i++) {
		int g = group_of[i];
		int got = open_member(c, i, group_leader[g], pid);
		if (group_leader[g] < 0)
			group_leader[g] = got;
	}
	free(group_of);
	free(group_leader);
	/* A child has not started yet (its groups are enabled at its exec):
	 * nothing of it can be tried. */
	if (pid == 0 && place_groups(c, pid)) {
		mmp_counters_close(c);
		return -ENOMEM;
	}
	return 0;
}

int mmp_counters_open_sampler(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	/* A sampling event writes to a ring buffer mmap'ed on its fd; the
	 * kernel refuses that mmap for an inherited event on every CPU
	 * (cpu = -1: all the program's threads would write one buffer), so
	 * the sampler opens one per CPU (src/platform/sampling.c). */
	attr->size = sizeof(*attr);
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

int mmp_counters_hold_tracepoints(struct mmp_tracepoint_hold *h, const struct mmp_event_set *set)
{
	int held = 0;
	h->n = set ? set->n : 0;
	h->fd = malloc((h->n ? h->n : 1) * sizeof(int));
	if (!h->fd) {
		h->n = 0;
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->n; i++) {
		struct perf_event_attr attr = set->ev[i].attr;
		h->fd[i] = -1;
		if (set->ev[i].kind != MMP_EV_TRACEPOINT || set->ev[i].unavailable)
			continue;
		attr.size = sizeof(attr);
		attr.read_format = 0;
		attr.disabled = 1;
		attr.inherit = 0;
		attr.enable_on_exec = 0;
		h->fd[i] = perf_open(&attr, 0, -1);
		held += h->fd[i] >= 0;
	}
	return held;
}

void mmp_counters_release_tracepoints(struct mmp_tracepoint_hold *h)
{
	for (size_t i = 0; h->fd && i < h->n; i++)
		if (h->fd[i] >= 0)
			close(h->fd[i]);
	free(h->fd);
	h->fd = NULL;
	h->n = 0;
}

int mmp_counters_open(struct mmp_counters *c, const struct mmp_event_set *set)
{
	return open_events(c, set, 0);
}

int mmp_counters_open_child(struct mmp_counters *c, const struct mmp_event_set *set, pid_t pid)
{
	if (pid <= 0)
		return -EINVAL;
	return open_events(c, set, pid);
}

/* Only leaders are switched, without PERF_IOC_FLAG_GROUP: members were
 * opened enabled and follow their leader in and out of the PMU.  Toggling
 * every member too (FLAG_GROUP) lost members here (Linux 6.18): in a
 * {page-faults, task-clock} group enabled by a thread that had slept on a
 * barrier, task-clock read 0 from the second cycle on
 * (tests/unit/test_counters.c, test_software_group_counts). */
static void each_leader(const struct mmp_counters *c, unsigned long request)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->fd[i] >= 0 && c->leader[i] == (int)i)
			ioctl(c->fd[i], request, 0);
}

void mmp_counters_enable(const struct mmp_counters *c)
{
	each_leader(c, PERF_EVENT_IOC_ENABLE);
}

void mmp_counters_disable(const struct mmp_counters *c)
{
	each_leader(c, PERF_EVENT_IOC_DISABLE);
}

int mmp_counters_read(struct mmp_counters *c, struct mmp_count *out)
{
	/* nr, time_enabled, time_running, then (value, id) per member: sized
	 * for every event in one group.  A buffer too small makes the read
	 * fail (ENOSPC), and a group of more than 64 members (a fixed buffer
	 * before) came back "not counted" whole. */
	uint64_t *buf = c->buf;
	size_t len = (3 + 2 * c->n) * sizeof(uint64_t);

	for (size_t i = 0; i < c->n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		if (c->fd[i] < 0) {
			out[i].state = state_of_error(c->error[i]);
			out[i].error = c->error[i];
		} else {
			out[i].state = MMP_COUNT_NOT_COUNTED;
		}
	}
	for (size_t l = 0; l < c->n; l++) {
		if (c->fd[l] < 0 || c->leader[l] != (int)l)
			continue;
		ssize_t got = read_all(c->fd[l], buf, len);
		if (got < (ssize_t)(3 * sizeof(uint64_t)))
			continue; /* stays "not counted" */
		uint64_t nr = buf[0], enabled = buf[1], running = buf[2];
		for (uint64_t m = 0; m < nr && (3 + 2 * m + 2) * sizeof(uint64_t) <= (size_t)got; m++) {
			uint64_t value = buf[3 + 2 * m], id = buf[4 + 2 * m];
			for (size_t i = 0; i < c->n; i++) {
				if (c->fd[i] < 0 || c->leader[i] != (int)l || c->id[i] != id)
					continue;
				uint64_t *last = &c->last[3 * i];
				mmp_count_from(&out[i], value - last[0], enabled - last[1],
					       running - last[2]);
				last[0] = value;
				last[1] = enabled;
				last[2] = running;
			}
		}
	}
	return 0;
}

void mmp_counters_close(struct mmp_counters *c)
{
	for (size_t i = 0; c->fd && i < c->n; i++)
		if (c->fd[i] >= 0)
			close(c->fd[i]);
	free(c->fd);
	free(c->error);
	free(c->id);
	free(c->leader);
	free(c->last);
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

int mmp_counters_try(const struct mmp_event *ev, char *why, size_t wlen)
{
	struct mmp_event_set one = { .ev = (struct mmp_event *)ev, .n = 1 };
	struct mmp_counters c;
	struct mmp_count count;

	if (mmp_counters_open(&c, &one))
		return -ENOMEM;
	int error = c.fd[0] < 0 ? c.error[0] : 0;
	if (!error) {
		mmp_counters_enable(&c);
		/* Something for it to count: a system call and a few loads. */
		volatile unsigned sink = (unsigned)getppid();
		for (unsigned k = 0; k < 100000; k++)
			sink += k;
		(void)sink;
		mmp_counters_disable(&c);
		mmp_counters_read(&c, &count);
		if (!mmp_count_valid(&count)) {
			snprintf(why, wlen, "not counted: opened, but it never ran on a counter");
			mmp_counters_close(&c);
			return -EAGAIN;
		}
	}
	mmp_counters_close(&c);
	if (error) {
		mmp_counters_explain(ev, error, why, wlen);
		return -error;
	}
	return 0;
}

void mmp_counters_explain(const struct mmp_event *ev, int error, char *buf, size_t len)
{
	int paranoid = mmp_perf_paranoid();
	if (ev->unavailable) {
		snprintf(buf, len, "not supported: %s", ev->why);
		return;
	}
	switch (error) {
	case EACCES:
	case EPERM:
		snprintf(buf, len,
			 "denied (perf_event_open: %s): perf_event_paranoid is %d; run as root, or "
			 "sysctl kernel.perf_event_paranoid=%d",
			 strerror(error), paranoid, ev->kind == MMP_EV_TRACEPOINT ? -1 : 1);
		break;
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		snprintf(buf, len,
			 "not supported (perf_event_open: %s): %s", strerror(error),
			 ev->kind == MMP_EV_HARDWARE
				 ? "no hardware PMU counts it here (virtual machines and containers "
				   "often have none)"
				 : "this kernel does not provide it");
		break;
	case ENOSYS:
		snprintf(buf, len, "not supported (perf_event_open: %s): %s", strerror(error),
			 MMP_NO_PERF_EVENT_OPEN);
		break;
	case EMFILE:
		snprintf(buf, len, "not supported (perf_event_open: %s): raise ulimit -n",
			 strerror(error));
		break;
	case EBUSY:
		snprintf(buf, len, "not supported (perf_event_open: %s): another tool holds the "
				   "PMU", strerror(error));
		break;
	default:
		snprintf(buf, len, "not supported (perf_event_open: %s): the kernel rejected %s",
			 strerror(error), ev->encoding);
		break;
	}
}

int mmp_counters_have_pmu(void)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	if (!d)
		return 1; /* cannot tell: do not claim there is none */
	int found = 0;
	for (struct dirent *e; !found && (e = readdir(d));)
		found = strcmp(e->d_name, "cpu") == 0 || strncmp(e->d_name, "cpu_", 4) == 0 ||
			strncmp(e->d_name, "armv", 4) == 0;
	closedir(d);
	return found;
}
