/* The first touch of a mapped page, and this machine's calibration.
 *
 * Mapping a page in (a fault, or MAP_POPULATE) is the guest kernel's
 * work, and its counters see it.  On a virtual machine the first load
 * from a freshly mapped page can cost far more again, below the kernel:
 * a hypervisor that shadows the guest's page tables (or an EPT/NPT that
 * is filled lazily) fills its own entry on that first access.  No fault
 * is counted -- the guest kernel never runs -- yet on a paravirtualised
 * host it was measured at 1.5-2 us per 4 KiB page, 10x the scan of the
 * same bytes once touched.  Reading one byte of every page once, before
 * timing, pays it outside the loop: the touch control and the ceiling do
 * that, and the calibration measures it with and without.
 */
#ifndef MMPROF_FIRSTTOUCH_H
#define MMPROF_FIRSTTOUCH_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* One load from every page of [addr, addr + len): the pages counted.
 * The loads are real (volatile), the bytes read are thrown away. */
uint64_t mmp_touch_pages(const void *addr, size_t len);

/* The machine's page size, as the touch steps. */
size_t mmp_page_size(void);

/* A figure the calibration measured: the median of its samples and their
 * range (every number printed is measured in that run, with its spread). */
struct mmp_calib_value {
	double median, low, high;
	int valid;
};

/* What the calibration measured before the first round. */
struct mmp_calibration {
	int done;               /* measured; 0: not (a described machine, an error) */
	char what[320];         /* what it mapped: "data/x.bin (16 MiB of it)", "anonymous memory" */
	uint64_t bytes;         /* bytes of each mapping measured */
	unsigned samples;       /* fresh mappings measured */
	/* ns per page: the first load from each page of a fresh populated
	 * mapping, and the second (the same pages, touched) */
	struct mmp_calib_value first_ns, touched_ns;
	/* first - touched, per page: what the first touch costs */
	struct mmp_calib_value cost_ns;
	/* ns per page of a fresh mapping that is not populated: the page
	 * faults plus the first touch; and the faults counted there */
	struct mmp_calib_value fault_ns;
	double faults_per_page;      /* in the faulting pass (fault-around: < 1) */
	double first_faults;         /* faults counted in the first-touch passes */
	struct mmp_calib_value scan_gbs; /* limit's scan of the touched mapping, GB/s */
	/* the first touch costs far more than the touched read, and no fault
	 * was counted: paid below the kernel */
	int below_kernel;
	char error[400];        /* why not done */
};

/* Above this many ns per page (and 4x the touched read), a first touch is
 * a cost of its own; below it, "not measurable here". */
#define MMP_FIRST_TOUCH_MIN_NS 250.0

/* Measure on the first `bytes` of the file at path (page cache), or on
 * anonymous memory when path is NULL: `samples` fresh mappings, each
 * populated, read one byte a page twice (first, touched), scanned once,
 * and one more fresh mapping left to fault.  Well under a second at
 * 16 MiB.  0, or a negative errno with out->error said. */
int mmp_calibrate(const char *path, uint64_t bytes, unsigned samples, struct mmp_calibration *out);

/* One line for a person (under 160 characters): "first touch 1.9 us
 * [1.3 us, 2.1 us] a page over a touched one's 12 ns; faulting 2.1 us a
 * page; scan 24.1 GB/s [22.0, 25.3]"; or "not measured (why)". */
const char *mmp_calibration_line(const struct mmp_calibration *c, char *buf, size_t len);
/* What it measured on: "5 fresh 16MiB mappings of data/x.bin; 0 faults
 * counted in their first touches, 0.0625 a page left to fault"; "" when
 * not measured. */
const char *mmp_calibration_source(const struct mmp_calibration *c, char *buf, size_t len);

#endif
