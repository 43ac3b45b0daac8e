/* The first touch of mapped pages, and the calibration that measures it
 * (see firsttouch.h). */
#include "platform/firsttouch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "mmprof/probe.h"
#include "util/units.h"

size_t mmp_page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);
	return p > 0 ? (size_t)p : 4096;
}

uint64_t mmp_touch_pages(const void *addr, size_t len)
{
	const volatile uint8_t *p = addr;
	const size_t page = mmp_page_size();
	uint64_t pages = 0;
	uint8_t sum = 0;
	for (size_t off = 0; off < len; off += page, pages++)
		sum = (uint8_t)(sum + p[off]);
	/* The sum goes nowhere; the volatile loads are what was asked for. */
	(void)sum;
	return pages;
}

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Faults this thread took: minor and major (RUSAGE_THREAD: the
 * calibration's own, not another thread's of mmprof). */
static double faults_now(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return (double)ru.ru_minflt + (double)ru.ru_majflt;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static struct mmp_calib_value summarise(double *v, unsigned n)
{
	struct mmp_calib_value out = { 0 };
	if (!n)
		return out;
	qsort(v, n, sizeof(*v), cmp_double);
	out.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	out.low = v[0];
	out.high = v[n - 1];
	out.valid = 1;
	return out;
}

struct source {
	int fd; /* -1: anonymous memory */
	size_t len;
};

static void *map_fresh(const struct source *s, int populate)
{
	int pop = populate ? MAP_POPULATE : 0;
	void *m = s->fd >= 0
			  ? mmap(NULL, s->len, PROT_READ, MAP_SHARED | pop, s->fd, 0)
			  : mmap(NULL, s->len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | pop, -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

/* Anonymous memory faults where a program writes it; a file's pages
 * where it reads them. */
static void fault_in(const struct source *s, void *m)
{
	if (s->fd >= 0) {
		mmp_touch_pages(m, s->len);
		return;
	}
	volatile uint8_t *p = m;
	for (size_t off = 0; off < s->len; off += mmp_page_size())
		p[off] = 1;
}

#define MAX_SAMPLES 16

static int measure(const struct source *s, unsigned samples, struct mmp_calibration *c)
{
	double first[MAX_SAMPLES], touched[MAX_SAMPLES], cost[MAX_SAMPLES], scan[MAX_SAMPLES];
	double pages = (double)((s->len + mmp_page_size() - 1) / mmp_page_size());
	volatile uint64_t zeros = 0;

	c->first_faults = 0;
	for (unsigned k = 0; k < samples; k++) {
		uint8_t *m = map_fresh(s, 1);
		if (!m)
			return -errno;
		double f0 = faults_now();
		uint64_t t0 = now_ns();
		mmp_touch_pages(m, s->len);
		uint64_t t1 = now_ns();
		c->first_faults += faults_now() - f0;
		mmp_touch_pages(m, s->len);
		uint64_t t2 = now_ns();
		zeros += mmp_probe_ceiling_zeros(m, s->len);
		uint64_t t3 = now_ns();
		munmap(m, s->len);
		first[k] = (double)(t1 - t0) / pages;
		touched[k] = (double)(t2 - t1) / pages;
		cost[k] = first[k] - touched[k];
		scan[k] = t3 > t2 ? (double)s->len / (double)(t3 - t2) : 0;
	}
	(void)zeros;
	c->first_ns = summarise(first, samples);
	c->touched_ns = summarise(touched, samples);
	c->cost_ns = summarise(cost, samples);
	c->scan_gbs = summarise(scan, samples);

	/* The same pages left to fault in: the kernel's work and the first
	 * touch together, and the faults it counts. */
	double fault[MAX_SAMPLES], faults = 0;
	unsigned nf = samples < 3 ? samples : 3;
	for (unsigned k = 0; k < nf; k++) {
		uint8_t *m = map_fresh(s, 0);
		if (!m)
			return -errno;
		double f0 = faults_now();
		uint64_t t0 = now_ns();
		fault_in(s, m);
		uint64_t t1 = now_ns();
		faults += faults_now() - f0;
		munmap(m, s->len);
		fault[k] = (double)(t1 - t0) / pages;
	}
	c->fault_ns = summarise(fault, nf);
	c->faults_per_page = nf ? faults / (nf * pages) : 0;
	/* Far above a touched page's read, and not one fault in a hundred
	 * pages counted: the guest kernel never ran for it. */
	c->below_kernel = c->cost_ns.median > MMP_FIRST_TOUCH_MIN_NS &&
			  c->cost_ns.median > 4 * c->touched_ns.median &&
			  c->first_faults < 0.01 * pages * samples;
	return 0;
}

int mmp_calibrate(const char *path, uint64_t bytes, unsigned samples, struct mmp_calibration *out)
{
	struct source s = { .fd = -1, .len = (size_t)bytes };
	const size_t page = mmp_page_size();
	int rc;

	memset(out, 0, sizeof(*out));
	if (samples < 1 || samples > MAX_SAMPLES)
		samples = samples < 1 ? 1 : MAX_SAMPLES;
	if (path) {
		s.fd = open(path, O_RDONLY | O_CLOEXEC);
		if (s.fd < 0) {
			rc = -errno;
			snprintf(out->error, sizeof(out->error), "open %s: %s", path, strerror(-rc));
			return rc;
		}
		off_t end = lseek(s.fd, 0, SEEK_END);
		if (end >= 0 && (uint64_t)end < bytes)
			s.len = (size_t)end;
	}
	s.len -= s.len % page;
	if (s.len < page) {
		if (s.fd >= 0)
			close(s.fd);
		snprintf(out->error, sizeof(out->error), "%s is smaller than a page",
			 path ? path : "the memory asked for");
		return -EINVAL;
	}
	if (path)
		snprintf(out->what, sizeof(out->what), "%s", path);
	else
		snprintf(out->what, sizeof(out->what), "anonymous memory");
	out->bytes = s.len;
	out->samples = samples;
	rc = measure(&s, samples, out);
	if (s.fd >= 0)
		close(s.fd);
	if (rc) {
		snprintf(out->error, sizeof(out->error), "mmap of %s: %s", out->what, strerror(-rc));
		return rc;
	}
	out->done = 1;
	return 0;
}

const char *mmp_calibration_line(const struct mmp_calibration *c, char *buf, size_t len)
{
	char a[32], lo[32], hi[32], t[32], f[32];
	if (!c->done) {
		snprintf(buf, len, "not measured (%s)",
			 c->error[0] ? c->error : "a described machine is not this one");
		return buf;
	}
	snprintf(buf, len,
		 "first touch %s [%s, %s] a page over a touched one's %s%s; faulting %s a page; "
		 "scan %.1f GB/s [%.1f, %.1f]",
		 mmp_format_ns(c->cost_ns.median, a, sizeof(a)),
		 mmp_format_ns(c->cost_ns.low, lo, sizeof(lo)),
		 mmp_format_ns(c->cost_ns.high, hi, sizeof(hi)),
		 mmp_format_ns(c->touched_ns.median, t, sizeof(t)),
		 c->cost_ns.median <= MMP_FIRST_TOUCH_MIN_NS ? " (not measurable here)" : "",
		 mmp_format_ns(c->fault_ns.median, f, sizeof(f)), c->scan_gbs.median,
		 c->scan_gbs.low, c->scan_gbs.high);
	return buf;
}

const char *mmp_calibration_source(const struct mmp_calibration *c, char *buf, size_t len)
{
	char size[32];
	buf[0] = '\0';
	if (c->done)
		snprintf(buf, len,
			 "%u fresh %s mappings of %s; %.0f faults counted in their first touches, "
			 "%.3g a page left to fault",
			 c->samples, mmp_format_size(c->bytes, size, sizeof(size)), c->what,
			 c->first_faults, c->faults_per_page);
	return buf;
}
