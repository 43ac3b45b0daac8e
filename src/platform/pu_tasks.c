/* What ran on a program's PUs while it ran (see pu_tasks.h). */
#include "platform/pu_tasks.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "platform/counters.h"
#include "platform/events.h"
#include "util/vec.h"

/* 64 pages (256 KiB) per PU: a switch record is 32 bytes, so some 8,000
 * switches between two drains (20 ms): 400,000 a second. */
#define RING_PAGES 64
#define PF_KTHREAD 0x00200000 /* include/linux/sched.h: a kernel thread */
#define KTHREADD 2

struct ring {
	int fd;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	size_t size;
};

struct sw { /* a task left a PU, another came in */
	uint64_t time;
	uint32_t pid, tid, npid, ntid;
};

/* A PU's last switch: since then the task that came in holds it. */
struct pu_state {
	uint64_t last; /* 0: none yet */
	uint32_t pid, tid;
};

struct fork_rec { uint32_t pid, ppid; };
struct comm_rec { uint32_t pid, tid; char comm[16]; };

struct mmp_pu_tasks {
	struct ring *ring;
	unsigned nring;
	size_t page;
	/* Switches are added up as they are drained, not kept: a program
	 * that runs minutes switches millions of times. */
	struct pu_state *pu;
	uint64_t t0, t1; /* the window: its exec, its exit (UINT64_MAX: running) */
	struct fork_rec *fork;
	size_t nfork, forkcap;
	struct comm_rec *comm;
	size_t ncomm, commcap;
	struct task *task; /* every task seen, named as it was first seen */
	size_t ntask, taskcap;
	uint64_t lost;
	int nomem;
};

/* A task's time on the PUs. */
struct task {
	uint32_t pid, tid;
	uint64_t ns;
	int kind;      /* enum mmp_task_kind */
	int proc_kind; /* what /proc said when it was first seen; -1: gone */
	char name[48];
};

static struct task *task_of(struct task **all, size_t *n, size_t *cap, uint32_t pid,
			    uint32_t tid)
{
	for (size_t i = 0; i < *n; i++)
		if ((*all)[i].tid == tid && (*all)[i].pid == pid)
			return &(*all)[i];
	if (mmp_vec_reserve(all, cap, *n + 1, sizeof(**all)))
		return NULL;
	struct task *t = &(*all)[(*n)++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	return t;
}

static void explain(int error, char *why, size_t wlen)
{
	if (error == EACCES || error == EPERM)
		snprintf(why, wlen,
			 "other tasks on its PUs not told apart (perf_event_open of its PUs: %s; "
			 "perf_event_paranoid %d, seeing other tasks needs 0 or CAP_PERFMON)",
			 strerror(error), mmp_perf_paranoid());
	else
		snprintf(why, wlen,
			 "other tasks on its PUs not told apart (perf_event_open of its PUs: %s)",
			 strerror(error));
}

int mmp_pu_tasks_open(struct mmp_pu_tasks **out, const int *pus, unsigned npus, char *why,
		      size_t wlen)
{
	struct mmp_pu_tasks *t = calloc(1, sizeof(*t));
	int rc = 0;
	*out = NULL;
	if (!t || !(t->ring = calloc(npus ? npus : 1, sizeof(*t->ring))) ||
	    !(t->pu = calloc(npus ? npus : 1, sizeof(*t->pu)))) {
		if (t)
			free(t->ring);
		free(t);
		return -ENOMEM;
	}
	t->t1 = UINT64_MAX;
	t->page = (size_t)sysconf(_SC_PAGESIZE);
	for (unsigned i = 0; i < npus; i++) {
		struct perf_event_attr a = {
			.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY,
			.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
			.sample_id_all = 1, .context_switch = 1, .task = 1, .comm = 1,
			/* The program's exec and exit are CLOCK_MONOTONIC. */
			.use_clockid = 1, .clockid = CLOCK_MONOTONIC,
		};
		struct ring *r = &t->ring[t->nring];
		r->fd = mmp_counters_open_sampler(&a, -1, pus[i]);
		if (r->fd < 0) {
			rc = r->fd;
			goto fail;
		}
		t->nring++;
		r->size = RING_PAGES * t->page;
		void *m = mmap(NULL, r->size + t->page, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
		if (m == MAP_FAILED) {
			rc = -errno;
			goto fail;
		}
		r->meta = m;
		r->data = (unsigned char *)m + t->page;
	}
	*out = t;
	return 0;
fail:
	explain(-rc, why, wlen);
	mmp_pu_tasks_close(t);
	return rc;
}

static int add_time(struct task **all, size_t *n, size_t *cap, uint32_t pid, uint32_t tid,
		    uint64_t from, uint64_t to, uint64_t t0, uint64_t t1)
{
	from = from < t0 ? t0 : from;
	to = to > t1 ? t1 : to;
	if (to <= from)
		return 0;
	struct task *t = task_of(all, n, cap, pid, tid);
	if (!t)
		return -ENOMEM;
	t->ns += to - from;
	return 0;
}

/* The time since the PU's last switch (or the window's start) is the
 * leaving task's; the one coming in holds it from now. */
static int account(struct mmp_pu_tasks *t, uint32_t pu, const struct sw *s)
{
	struct pu_state *p = &t->pu[pu];
	if (add_time(&t->task, &t->ntask, &t->taskcap, s->pid, s->tid, p->last ? p->last : t->t0,
		     s->time, t->t0, t->t1))
		return -ENOMEM;
	*p = (struct pu_state){ .last = s->time, .pid = s->npid, .tid = s->ntid };
	return 0;
}

/* A task met in a switch: named now, while it is there to ask (a
 * compiler of a build lives some milliseconds; by the program's exit it
 * is gone). */
static int meet(struct mmp_pu_tasks *t, uint32_t pid, uint32_t tid)
{
	size_t before = t->ntask;
	struct task *k = task_of(&t->task, &t->ntask, &t->taskcap, pid, tid);
	if (!k)
		return -ENOMEM;
	if (t->ntask > before)
		k->proc_kind = tid ? mmp_pu_tasks_classify((pid_t)pid, (pid_t)tid, k->name,
							   sizeof(k->name))
				   : MMP_TASK_IDLE;
	return 0;
}

/* One record; the trailer sample_id_all adds: {pid, tid}, time. */
static int parse(struct mmp_pu_tasks *t, uint32_t pu, const unsigned char *rec, size_t len)
{
	const struct perf_event_header *h = (const void *)rec;
	const unsigned char *body = rec + sizeof(*h);
	uint32_t ids[4];
	if (len < sizeof(*h) + 16)
		return 0;
	switch (h->type) {
	case PERF_RECORD_SWITCH_CPU_WIDE: {
		struct sw s;
		/* Out: the trailer's task left, next_prev came in.  The
		 * matching "in" record says the same again. */
		if (!(h->misc & PERF_RECORD_MISC_SWITCH_OUT) || len < sizeof(*h) + 24)
			return 0;
		memcpy(ids, body, 8);
		s.npid = ids[0];
		s.ntid = ids[1];
		memcpy(ids, rec + len - 16, 8);
		s.pid = ids[0];
		s.tid = ids[1];
		memcpy(&s.time, rec + len - 8, 8);
		if (meet(t, s.pid, s.tid) || meet(t, s.npid, s.ntid))
			return -ENOMEM;
		return account(t, pu, &s);
	}
	case PERF_RECORD_FORK:
		if (len < sizeof(*h) + 24 + 16)
			return 0;
		memcpy(ids, body, 16); /* pid, ppid, tid, ptid */
		if (MMP_VEC_RESERVE(t->fork, t->forkcap, t->nfork + 1))
			return -ENOMEM;
		t->fork[t->nfork++] = (struct fork_rec){ ids[0], ids[1] };
		return 0;
	case PERF_RECORD_COMM: {
		struct comm_rec c = { 0 };
		if (len < sizeof(*h) + 8 + 16)
			return 0;
		memcpy(ids, body, 8);
		c.pid = ids[0];
		c.tid = ids[1];
		size_t room = len - sizeof(*h) - 8 - 16;
		memcpy(c.comm, body + 8, room < sizeof(c.comm) - 1 ? room : sizeof(c.comm) - 1);
		if (MMP_VEC_RESERVE(t->comm, t->commcap, t->ncomm + 1))
			return -ENOMEM;
		t->comm[t->ncomm++] = c;
		return 0;
	}
	case PERF_RECORD_LOST: {
		uint64_t lost;
		memcpy(&lost, body + 8, 8);
		t->lost += lost ? lost : 1;
		return 0;
	}
	}
	return 0;
}

static void drain_ring(struct mmp_pu_tasks *t, uint32_t pu)
{
	struct ring *r = &t->ring[pu];
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	unsigned char rec[256];
	while (tail < head && !t->nomem) {
		struct perf_event_header h;
		size_t at = (size_t)(tail & (r->size - 1)), first;
		first = sizeof(h) < r->size - at ? sizeof(h) : r->size - at;
		memcpy(&h, r->data + at, first);
		memcpy((unsigned char *)&h + first, r->data, sizeof(h) - first);
		if (h.size < sizeof(h) || h.size > head - tail)
			break;
		if (h.size <= sizeof(rec)) {
			first = h.size < r->size - at ? h.size : r->size - at;
			memcpy(rec, r->data + at, first);
			memcpy(rec + first, r->data, h.size - first);
			if (parse(t, pu, rec, h.size))
				t->nomem = 1;
		}
		tail += h.size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

void mmp_pu_tasks_drain(struct mmp_pu_tasks *t)
{
	for (unsigned i = 0; t && i < t->nring; i++)
		drain_ring(t, i);
}

int mmp_pu_tasks_classify(pid_t pid, pid_t tid, char *name, size_t len)
{
	char path[96], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	char *p = n > 0 ? (buf[n] = '\0', strrchr(buf, ')')) : NULL;
	int ppid = 0;
	unsigned long flags = 0;
	/* ") S ppid pgrp session tty_nr tpgid flags" */
	if (!p || sscanf(p + 1, " %*c %d %*d %*d %*d %*d %lu", &ppid, &flags) != 2)
		return -1;
	/* The name from comm: a kworker's there says its workqueue too
	 * ("kworker/u4:2-flush-254:0"), stat's is cut at 15 characters. */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n > 0 && len) {
		buf[n] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(name, len, "%s", buf);
	}
	return (flags & PF_KTHREAD) || pid == KTHREADD || ppid == KTHREADD ? MMP_TASK_KERNEL
									   : MMP_TASK_OTHER;
}


/* The program's processes: its pid and, again and again, every process
 * a FORK record says one of them started. */
static int in_program(const uint32_t *set, size_t n, uint32_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == pid)
			return 1;
	return 0;
}

static uint32_t *program_set(const struct mmp_pu_tasks *t, pid_t program, size_t *n)
{
	uint32_t *set = malloc((t->nfork + 1) * sizeof(*set));
	if (!set)
		return NULL;
	set[0] = (uint32_t)program;
	*n = 1;
	for (int added = 1; added;) {
		added = 0;
		for (size_t i = 0; i < t->nfork; i++)
			if (in_program(set, *n, t->fork[i].ppid) &&
			    !in_program(set, *n, t->fork[i].pid)) {
				set[(*n)++] = t->fork[i].pid;
				added = 1;
			}
	}
	return set;
}

/* A task not the program's nor mmprof's: a kernel thread or another
 * task, and its name: what /proc says now, else the last name a COMM
 * record gave it (an exec or a prctl on these PUs, after it was met),
 * else what /proc said when it was met. */
static void name_task(const struct mmp_pu_tasks *t, struct task *k)
{
	char now[sizeof(k->name)] = "";
	int kind = mmp_pu_tasks_classify((pid_t)k->pid, (pid_t)k->tid, now, sizeof(now));
	if (kind >= 0)
		k->proc_kind = kind;
	for (size_t i = t->ncomm; !now[0] && i-- > 0;)
		if (t->comm[i].tid == k->tid)
			snprintf(now, sizeof(now), "%s", t->comm[i].comm);
	if (now[0])
		memcpy(k->name, now, sizeof(now));
	k->kind = k->proc_kind < 0 ? MMP_TASK_OTHER : k->proc_kind;
	if (!k->name[0])
		snprintf(k->name, sizeof(k->name), "pid %u (gone)", k->pid);
}

static int by_ns(const void *a, const void *b)
{
	const struct task *x = a, *y = b;
	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

/* Tasks of one name (a program's threads, make's compilers) as one:
 * their times on the first, the others' emptied.  Then largest first. */
static void merge_names(struct task *all, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n && all[i].ns; j++)
			if (all[j].ns && all[j].kind == all[i].kind &&
			    strcmp(all[j].name, all[i].name) == 0) {
				all[i].ns += all[j].ns;
				all[j].ns = 0;
			}
	qsort(all, n, sizeof(*all), by_ns);
}

/* The largest tasks of kind, each with its share of capacity. */
static void list(const struct task *all, size_t n, int kind, double capacity, char *buf,
		 size_t len)
{
	size_t used = 0, shown = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && shown < MMP_PU_TASKS_NAMES && used < len; i++) {
		if (all[i].kind != kind || !all[i].ns)
			continue;
		double share = (double)all[i].ns / capacity * 100;
		char pct[16];
		if (share < 0.5)
			snprintf(pct, sizeof(pct), "<1%%");
		else
			snprintf(pct, sizeof(pct), "%.0f%%", share);
		used += (size_t)snprintf(buf + used, len - used, "%s%s %s", shown ? ", " : "",
					 all[i].name, pct);
		shown++;
	}
}

/* Each task's kind, its time added to its kind's; then the tasks of
 * one name merged, largest first. */
static void classify(struct mmp_pu_tasks *t, const uint32_t *prog, size_t nprog,
		     struct mmp_pu_tasks_seen *out)
{
	pid_t self = getpid();
	for (size_t i = 0; i < t->ntask; i++) {
		struct task *k = &t->task[i];
		if (!k->tid)
			k->kind = MMP_TASK_IDLE;
		else if (in_program(prog, nprog, k->pid))
			k->kind = MMP_TASK_PROGRAM;
		else if (k->pid == (uint32_t)self)
			k->kind = MMP_TASK_SELF;
		else
			name_task(t, k);
		out->ns[k->kind] += k->ns;
	}
	merge_names(t->task, t->ntask);
}

void mmp_pu_tasks_start(struct mmp_pu_tasks *t, uint64_t t0)
{
	t->t0 = t0;
}

int mmp_pu_tasks_finish(struct mmp_pu_tasks *t, pid_t program, uint64_t t1,
			struct mmp_pu_tasks_seen *out)
{
	size_t nprog = 0;
	uint32_t *prog = NULL;

	memset(out, 0, sizeof(*out));
	t->t1 = t1;
	mmp_pu_tasks_drain(t);
	if (t->nomem || t1 <= t->t0 || !(prog = program_set(t, program, &nprog)))
		return -ENOMEM;
	out->complete = !t->lost;
	for (unsigned pu = 0; pu < t->nring; pu++) {
		struct pu_state *p = &t->pu[pu];
		if (!p->last) {
			/* No switch at all: one task held it throughout, which
			 * one the records cannot say. */
			out->unknown_ns += t1 - t->t0;
			out->complete = 0;
		} else if (add_time(&t->task, &t->ntask, &t->taskcap, p->pid, p->tid, p->last, t1,
				    t->t0, t1)) {
			free(prog);
			return -ENOMEM;
		}
	}
	classify(t, prog, nprog, out);
	double capacity = (double)(t1 - t->t0) * t->nring;
	list(t->task, t->ntask, MMP_TASK_KERNEL, capacity, out->kernel, sizeof(out->kernel));
	list(t->task, t->ntask, MMP_TASK_OTHER, capacity, out->other, sizeof(out->other));
	free(prog);
	return 0;
}

void mmp_pu_tasks_close(struct mmp_pu_tasks *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < t->nring; i++) {
		if (t->ring[i].meta)
			munmap(t->ring[i].meta, t->ring[i].size + t->page);
		close(t->ring[i].fd);
	}
	free(t->ring);
	free(t->pu);
	free(t->fork);
	free(t->comm);
	free(t->task);
	free(t);
}
