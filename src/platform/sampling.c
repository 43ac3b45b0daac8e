/* Sampling a program through perf_event ring buffers (see sampling.h). */
#include "platform/sampling.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "platform/counters.h"
#include "platform/events.h"
#include "util/vec.h"

/* 128 pages (512 KiB) of records per CPU: ~1,500 samples with 40-frame
 * chains, drained at half full.  A program that outruns the drain loses
 * records, counted in PERF_RECORD_LOST and said with the profile. */
#define RING_PAGES 128
#define CPU_SAMPLE_TYPE                                                                        \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |         \
	 PERF_SAMPLE_CALLCHAIN)
#define FAULT_SAMPLE_TYPE                                                                      \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |         \
	 PERF_SAMPLE_ADDR)

struct ring {
	int cpu_fd, fault_fd;
	uint64_t cpu_id, fault_id;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	size_t size; /* of data, a power of two */
};

struct mmp_sampler {
	struct ring *ring;
	size_t nring;
	size_t page;
	struct mmp_samples out;
	pthread_t thread;
	int thread_on;
	int stop_pipe[2];
	unsigned char *rec; /* one record, unwrapped */
	size_t reclen;
	int error; /* of the drain (ENOMEM) */
	struct timespec opened; /* CLOCK_REALTIME: perf maps older are not the program's */
};

/* A perf map larger than this is not read (a runtime writes a line of
 * some 100 bytes per method compiled: 640,000 methods). */
#define PERF_MAP_MAX (64u << 20)

/* The trailer sample_id_all adds to other records: with the cpu event's
 * sample_type, {pid, tid}, time, identifier. */
static uint64_t trailer_time(const unsigned char *rec, size_t len)
{
	uint64_t t = 0;
	if (len >= sizeof(struct perf_event_header) + 24)
		memcpy(&t, rec + len - 16, sizeof(t));
	return t;
}

static int parse_sample(struct mmp_samples *out, const unsigned char *rec, size_t len,
			int kind)
{
	const unsigned char *p = rec + sizeof(struct perf_event_header);
	const unsigned char *end = rec + len;
	const struct perf_event_header *h = (const void *)rec;
	struct mmp_sample s = { .kind = (uint8_t)kind };
	uint32_t ids[2];
	uint64_t nr = 0;

	/* identifier (already read), ip, pid/tid, time, [addr], [callchain] */
	if (end - p < 32)
		return 0;
	p += 8;
	memcpy(&s.ip, p, 8);
	p += 8;
	memcpy(ids, p, 8);
	p += 8;
	s.pid = ids[0];
	s.tid = ids[1];
	memcpy(&s.time, p, 8);
	p += 8;
	s.kernel = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	if (kind == MMP_SAMPLE_FAULT) {
		if (end - p < 8)
			return 0;
		memcpy(&s.addr, p, 8);
		p += 8;
	} else {
		if (end - p < 8)
			return 0;
		memcpy(&nr, p, 8);
		p += 8;
		if (nr > (uint64_t)(end - p) / 8)
			return 0;
		/* The chain: context markers (PERF_CONTEXT_USER, ...) between
		 * the kernel's frames and the user's; the first frame is the
		 * ip itself, kept as s.ip.  For a sample in the kernel (its
		 * chain excluded) the first user frame is where the program
		 * entered it, kept. */
		s.chain = (uint32_t)out->nchain;
		int first_done = 0;
		for (uint64_t i = 0; i < nr; i++) {
			uint64_t a;
			memcpy(&a, p + 8 * i, 8);
			if (a >= (uint64_t)PERF_CONTEXT_MAX)
				continue;
			if (s.nchain == 0 && a == s.ip && !first_done) {
				first_done = 1;
				continue;
			}
			first_done = 1;
			if (s.nchain == UINT16_MAX)
				break;
			if (MMP_VEC_RESERVE(out->chain, out->chaincap, out->nchain + 1))
				return -ENOMEM;
			out->chain[out->nchain++] = a;
			s.nchain++;
		}
	}
	if (MMP_VEC_RESERVE(out->s, out->cap, out->n + 1))
		return -ENOMEM;
	out->s[out->n++] = s;
	return 0;
}

static int parse_mmap2(struct mmp_samples *out, const unsigned char *rec, size_t len)
{
	/* pid, tid, addr, len, pgoff, maj/min/ino/ino_generation (or a
	 * build id), prot, flags, filename (NUL-padded), trailer */
	const size_t head = sizeof(struct perf_event_header);
	const size_t fixed = head + 8 + 8 * 3 + 24 + 8;
	struct mmp_sample_map m = { 0 };
	uint32_t ids[2];

	if (len < fixed + 8 + 24)
		return 0;
	memcpy(ids, rec + head, 8);
	memcpy(&m.start, rec + head + 8, 8);
	memcpy(&m.len, rec + head + 16, 8);
	memcpy(&m.pgoff, rec + head + 24, 8);
	memcpy(&m.prot, rec + head + 56, 4);
	m.pid = ids[0];
	m.time = trailer_time(rec, len);
	const char *name = (const char *)rec + fixed;
	size_t room = len - fixed - 24;
	m.name = strndup(name, strnlen(name, room));
	if (!m.name || MMP_VEC_RESERVE(out->map, out->mapcap, out->nmap + 1)) {
		free(m.name);
		return -ENOMEM;
	}
	out->map[out->nmap++] = m;
	return 0;
}

static int add_switch(struct mmp_samples *out, uint32_t tid, uint64_t time, int kind)
{
	if (MMP_VEC_RESERVE(out->sw, out->swcap, out->nsw + 1))
		return -ENOMEM;
	out->sw[out->nsw++] = (struct mmp_switch){ .time = time, .tid = tid, .kind = (uint8_t)kind };
	return 0;
}

/* SWITCH: nothing but the trailer ({pid, tid}, time, id); the kernel
 * sets SWITCH_OUT_PREEMPT when the thread left its CPU still runnable.
 * FORK, EXIT: pid, ppid, tid, ptid, time, then the trailer. */
static int parse_task(struct mmp_samples *out, const unsigned char *rec, size_t len)
{
	const struct perf_event_header *h = (const void *)rec;
	uint32_t ids[2];
	uint64_t time;

	if (len < sizeof(*h) + 24)
		return 0;
	if (h->type == PERF_RECORD_SWITCH) {
		memcpy(ids, rec + len - 24, 8);
		time = trailer_time(rec, len);
		return add_switch(out, ids[1], time,
				  !(h->misc & PERF_RECORD_MISC_SWITCH_OUT) ? MMP_SWITCH_IN
				  : h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT ? MMP_SWITCH_PREEMPT
										 : MMP_SWITCH_SLEEP);
	}
	memcpy(ids, rec + sizeof(*h) + 8, 8); /* tid, ptid */
	memcpy(&time, rec + sizeof(*h) + 16, 8);
	return add_switch(out, ids[0], time,
			  h->type == PERF_RECORD_FORK ? MMP_SWITCH_START : MMP_SWITCH_EXIT);
}

static int parse_one(struct mmp_samples *out, const unsigned char *rec, size_t len,
		     uint64_t cpu_id, uint64_t fault_id)
{
	const struct perf_event_header *h = (const void *)rec;
	uint64_t id = 0;

	switch (h->type) {
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return parse_task(out, rec, len);
	case PERF_RECORD_SAMPLE:
		if (len < sizeof(*h) + 8)
			return 0;
		memcpy(&id, rec + sizeof(*h), 8);
		if (id == cpu_id)
			return parse_sample(out, rec, len, MMP_SAMPLE_CPU);
		if (id == fault_id)
			return parse_sample(out, rec, len, MMP_SAMPLE_FAULT);
		return 0;
	case PERF_RECORD_MMAP2:
		return parse_mmap2(out, rec, len);
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES: {
		uint64_t lost = 0;
		/* LOST: id, lost; LOST_SAMPLES: lost */
		size_t at = sizeof(*h) + (h->type == PERF_RECORD_LOST ? 8 : 0);
		if (len >= at + 8)
			memcpy(&lost, rec + at, 8);
		out->lost += lost;
		return 0;
	}
	}
	return 0;
}

int mmp_samples_parse(struct mmp_samples *out, const unsigned char *rec, size_t len,
		      uint64_t cpu_id, uint64_t fault_id)
{
	while (len >= sizeof(struct perf_event_header)) {
		const struct perf_event_header *h = (const void *)rec;
		if (h->size < sizeof(*h) || h->size > len)
			return -EINVAL;
		int rc = parse_one(out, rec, h->size, cpu_id, fault_id);
		if (rc)
			return rc;
		rec += h->size;
		len -= h->size;
	}
	return 0;
}

/* Copy n bytes at offset off of the ring, across its end. */
static void ring_copy(const struct ring *r, uint64_t off, void *dst, size_t n)
{
	size_t at = (size_t)(off & (r->size - 1));
	size_t first = n < r->size - at ? n : r->size - at;
	memcpy(dst, r->data + at, first);
	memcpy((unsigned char *)dst + first, r->data, n - first);
}

static int drain(struct mmp_sampler *s, struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	int rc = 0;

	while (tail < head && !rc) {
		struct perf_event_header h;
		ring_copy(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			break;
		if (h.size > s->reclen) {
			unsigned char *b = realloc(s->rec, h.size);
			if (!b)
				return -ENOMEM;
			s->rec = b;
			s->reclen = h.size;
		}
		ring_copy(r, tail, s->rec, h.size);
		rc = parse_one(&s->out, s->rec, h.size, r->cpu_id, r->fault_id);
		tail += h.size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return rc;
}

static void *drain_thread(void *arg)
{
	struct mmp_sampler *s = arg;
	struct pollfd *pfd = calloc(s->nring + 1, sizeof(*pfd));
	if (!pfd) {
		s->error = ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < s->nring; i++)
		pfd[i] = (struct pollfd){ .fd = s->ring[i].cpu_fd, .events = POLLIN };
	pfd[s->nring] = (struct pollfd){ .fd = s->stop_pipe[0], .events = POLLIN };
	for (;;) {
		int n = poll(pfd, s->nring + 1, 200);
		if (n < 0 && errno != EINTR)
			break;
		if (pfd[s->nring].revents)
			break;
		for (size_t i = 0; i < s->nring && !s->error; i++)
			if (drain(s, &s->ring[i]))
				s->error = ENOMEM;
	}
	free(pfd);
	return NULL;
}

static void fill_attr(struct perf_event_attr *a, int kind, const struct mmp_sampling_opts *o,
		      int user_only)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->inherit = 1;
	a->sample_id_all = 1;
	a->exclude_kernel = (unsigned)user_only;
	a->exclude_hv = 1;
	/* Kernel frames would cost the unwind and name nothing mmprof can
	 * symbolise; the user frames say where the program called in. */
	a->exclude_callchain_kernel = 1;
	if (kind == MMP_SAMPLE_CPU) {
		/* Without a rate, a dummy event: it samples nothing but still
		 * writes the switch and task records. */
		a->config = o->hz ? PERF_COUNT_SW_CPU_CLOCK : PERF_COUNT_SW_DUMMY;
		a->sample_period = o->hz ? 1000000000u / o->hz : 0;
		a->sample_type = CPU_SAMPLE_TYPE;
		a->mmap = a->mmap2 = a->mmap_data = o->hz != 0;
		/* Each thread on and off its CPU, started and ended: whether
		 * the threads ran at the same time (concurrency.h). */
		a->context_switch = 1;
		a->task = 1;
		a->watermark = 1;
		a->wakeup_watermark = RING_PAGES * 4096u / 2;
	} else {
		a->config = PERF_COUNT_SW_PAGE_FAULTS;
		a->sample_period = o->fault_period;
		a->sample_type = FAULT_SAMPLE_TYPE;
	}
}

static void explain(int error, int paranoid, char *why, size_t wlen)
{
	/* At 2 and below a user may sample the user space of their own
	 * programs: a refusal there comes from elsewhere. */
	if ((error == EACCES || error == EPERM) && paranoid > 2)
		snprintf(why, wlen,
			 "sampling refused (perf_event_open: %s): perf_event_paranoid is %d; run "
			 "as root, or sysctl kernel.perf_event_paranoid=2 (lets a user sample the "
			 "user space of their own programs)",
			 strerror(error), paranoid);
	else if (error == EACCES || error == EPERM)
		snprintf(why, wlen,
			 "sampling refused (perf_event_open: %s): perf_event_paranoid is %d, which "
			 "allows it, so something else refuses it (a seccomp filter such as a "
			 "container's default profile, or an LSM policy)",
			 strerror(error), paranoid);
	else if (error == ENOSYS)
		snprintf(why, wlen, "sampling not supported (perf_event_open of cpu-clock: %s): %s",
			 strerror(error), MMP_NO_PERF_EVENT_OPEN);
	else
		snprintf(why, wlen,
			 "sampling not supported (perf_event_open of cpu-clock: %s): this kernel "
			 "does not sample software events",
			 strerror(error));
}

static int open_ring(struct mmp_sampler *s, struct ring *r, pid_t pid, int cpu,
		     const struct mmp_sampling_opts *o, int *user_only)
{
	struct perf_event_attr a;
	fill_attr(&a, MMP_SAMPLE_CPU, o, *user_only);
	int fd = mmp_counters_open_sampler(&a, pid, cpu);
	if ((fd == -EACCES || fd == -EPERM) && !*user_only) {
		*user_only = 1; /* perf_event_paranoid >= 2: no kernel samples */
		fill_attr(&a, MMP_SAMPLE_CPU, o, 1);
		fd = mmp_counters_open_sampler(&a, pid, cpu);
	}
	if (fd < 0)
		return fd;
	r->cpu_fd = fd;
	r->size = RING_PAGES * s->page;
	void *m = mmap(NULL, r->size + s->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	r->meta = m;
	r->data = (unsigned char *)m + s->page;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &r->cpu_id))
		return -errno;
	if (!o->fault_period)
		return 0;
	fill_attr(&a, MMP_SAMPLE_FAULT, o, *user_only);
	fd = mmp_counters_open_sampler(&a, pid, cpu);
	if (fd < 0) {
		s->out.faults_refused = -fd;
		return 0;
	}
	r->fault_fd = fd;
	/* Its records go to the cpu event's buffer on the same CPU. */
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->cpu_fd) ||
	    ioctl(fd, PERF_EVENT_IOC_ID, &r->fault_id)) {
		s->out.faults_refused = errno;
		close(fd);
		r->fault_fd = -1;
	}
	return 0;
}

int mmp_sampler_open_child(struct mmp_sampler **out, pid_t pid,
			   const struct mmp_sampling_opts *opts, char *why, size_t wlen)
{
	cpu_set_t allowed;
	int user_only = 0, rc = 0;
	struct mmp_sampler *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->stop_pipe[0] = s->stop_pipe[1] = -1;
	s->page = (size_t)sysconf(_SC_PAGESIZE);
	s->out.pid = pid;
	s->out.period_ns = 1000000000u / (opts->hz ? opts->hz : MMP_SAMPLING_HZ);
	s->out.fault_period = opts->fault_period;
	clock_gettime(CLOCK_REALTIME, &s->opened);
	/* Every CPU mmprof may use: the program is bound inside them, and
	 * could widen its own mask within them. */
	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		rc = -errno;
		goto fail;
	}
	s->ring = calloc((size_t)CPU_COUNT(&allowed), sizeof(*s->ring));
	if (!s->ring) {
		rc = -ENOMEM;
		goto fail;
	}
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed))
			continue;
		struct ring *r = &s->ring[s->nring++];
		r->cpu_fd = r->fault_fd = -1;
		rc = open_ring(s, r, pid, cpu, opts, &user_only);
		if (rc)
			goto fail;
	}
	s->out.user_only = user_only;
	if (pipe2(s->stop_pipe, O_CLOEXEC)) {
		rc = -errno;
		goto fail;
	}
	*out = s;
	return 0;
fail:
	explain(-rc, mmp_perf_paranoid(), why, wlen);
	mmp_sampler_close(s);
	return rc;
}

int mmp_sampler_start(struct mmp_sampler *s)
{
	int rc = pthread_create(&s->thread, NULL, drain_thread, s);
	s->thread_on = rc == 0;
	return -rc;
}

/* /tmp/perf-ID.map into out, naming pid's code, when it was written since
 * the program started (a file's time lags the clock by a tick: 1 s of
 * slack, far less than a pid takes to come round again). */
static int read_perf_map(struct mmp_samples *out, uint32_t id, uint32_t pid,
			 const struct timespec *since)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", id);
	for (size_t i = 0; i < out->nperf_map; i++)
		if (strcmp(out->perf_map[i].path, path) == 0)
			return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > (off_t)PERF_MAP_MAX ||
	    st.st_mtim.tv_sec + 1 < since->tv_sec) {
		close(fd);
		return 0;
	}
	struct mmp_perf_map m = { .pid = pid, .path = strdup(path),
				  .text = malloc((size_t)st.st_size + 1) };
	size_t got = 0;
	while (m.text && got < (size_t)st.st_size) {
		ssize_t n = read(fd, m.text + got, (size_t)st.st_size - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!m.path || !m.text)
		goto nomem;
	m.text[got] = '\0';
	m.len = got;
	struct mmp_perf_map *all = realloc(out->perf_map, (out->nperf_map + 1) * sizeof(*all));
	if (!all)
		goto nomem;
	out->perf_map = all;
	out->perf_map[out->nperf_map++] = m;
	return 0;
nomem:
	free(m.path);
	free(m.text);
	return -ENOMEM;
}

/* The perf maps of every process the program ran as, and of each of its
 * threads (JDK 17 names its file after one): each number tried once. */
static int read_perf_maps(struct mmp_samples *out, const struct timespec *since)
{
	struct { uint32_t id, pid; } *ids = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (size_t i = 0; i <= out->n + out->nmap && !rc; i++) {
		uint32_t id[2], pid;
		if (i == 0)
			id[0] = id[1] = pid = (uint32_t)out->pid;
		else if (i <= out->n)
			id[0] = pid = out->s[i - 1].pid, id[1] = out->s[i - 1].tid;
		else
			id[0] = id[1] = pid = out->map[i - 1 - out->n].pid;
		for (int k = 0; k < 2 && !rc; k++) {
			size_t j = 0;
			while (j < n && ids[j].id != id[k])
				j++;
			if (j < n)
				continue;
			if ((rc = MMP_VEC_RESERVE(ids, cap, n + 1)))
				break;
			ids[n].id = id[k];
			ids[n++].pid = pid;
		}
	}
	for (size_t j = 0; j < n && !rc; j++)
		rc = read_perf_map(out, ids[j].id, ids[j].pid, since);
	free(ids);
	return rc;
}

int mmp_sampler_finish(struct mmp_sampler *s, struct mmp_samples *out)
{
	if (s->thread_on) {
		char b = 1;
		if (write(s->stop_pipe[1], &b, 1) != 1)
			pthread_cancel(s->thread);
		pthread_join(s->thread, NULL);
		s->thread_on = 0;
	}
	for (size_t i = 0; i < s->nring && !s->error; i++)
		if (drain(s, &s->ring[i]))
			s->error = ENOMEM;
	if (!s->error && read_perf_maps(&s->out, &s->opened))
		s->error = ENOMEM;
	*out = s->out;
	memset(&s->out, 0, sizeof(s->out));
	return s->error ? -s->error : 0;
}

void mmp_sampler_close(struct mmp_sampler *s)
{
	if (!s)
		return;
	if (s->thread_on) {
		struct mmp_samples drop;
		mmp_sampler_finish(s, &drop);
		mmp_samples_free(&drop);
	}
	for (size_t i = 0; i < s->nring; i++) {
		struct ring *r = &s->ring[i];
		if (r->meta)
			munmap(r->meta, r->size + s->page);
		if (r->fault_fd >= 0)
			close(r->fault_fd);
		if (r->cpu_fd >= 0)
			close(r->cpu_fd);
	}
	for (int k = 0; k < 2; k++)
		if (s->stop_pipe[k] >= 0)
			close(s->stop_pipe[k]);
	mmp_samples_free(&s->out);
	free(s->ring);
	free(s->rec);
	free(s);
}

void mmp_samples_free(struct mmp_samples *out)
{
	for (size_t i = 0; i < out->nmap; i++)
		free(out->map[i].name);
	free(out->map);
	free(out->sw);
	free(out->s);
	free(out->chain);
	for (size_t i = 0; i < out->nperf_map; i++) {
		free(out->perf_map[i].path);
		free(out->perf_map[i].text);
	}
	free(out->perf_map);
	memset(out, 0, sizeof(*out));
}

unsigned mmp_samples_runtimes(const struct mmp_samples *s)
{
	static const struct {
		const char *library;
		unsigned runtime;
	} known[] = { { "/libcoreclr.so", MMP_RUNTIME_DOTNET }, { "/libjvm.so", MMP_RUNTIME_JAVA } };
	unsigned seen = 0;
	for (size_t i = 0; i < s->nmap; i++)
		for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
			const char *at = strstr(s->map[i].name, known[k].library);
			if (at && at[strlen(known[k].library)] == '\0')
				seen |= known[k].runtime;
		}
	return seen;
}
