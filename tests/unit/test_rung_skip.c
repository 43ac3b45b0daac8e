/* Rungs skipped from the job's surveyed warmup (rung_skip.h): each rule
 * on the figures of a real round of this project's planted programs, and
 * what keeps a rung (a cost too large, a figure not known). */
#include "helpers.h"

#include <string.h>

#include "plan/controls.h"
#include "session/rung_skip.h"

#define MS 1000000u

/* This machine kind's calibration as measured (2026-12-05, KVM): a first
 * touch 2.9 ns [-36.3, 8.74] a page over a touched one's, faulting 2.13
 * us a page, one fault a page (anonymous memory). */
static struct mmp_calibration cal(double touch_high_ns)
{
	struct mmp_calibration c = { .done = 1, .faults_per_page = 1 };
	c.cost_ns = (struct mmp_calib_value){ 2.9, -36.3, touch_high_ns, 1 };
	c.fault_ns = (struct mmp_calib_value){ 2130, 2050, 2200, 1 };
	return c;
}

static int skipped(const struct mmp_rung_evidence *e, unsigned added, char *why)
{
	why[0] = '\0';
	return mmp_rung_skip(e, added, why, 400);
}

/* One thread seen: onepu has nothing to take; two, or not known: kept. */
static void test_onepu(void **state)
{
	char why[400];
	struct mmp_rung_evidence e = { .threads_seen = 1, .faults = -1 };
	(void)state;
	assert_true(skipped(&e, MMP_CONTROL_ONEPU, why));
	assert_non_null(strstr(why, "saw one thread of the program"));
	e.threads_seen = 2;
	assert_false(skipped(&e, MMP_CONTROL_ONEPU, why));
	e.threads_seen = 0;
	assert_false(skipped(&e, MMP_CONTROL_ONEPU, why));
}

/* fsync_writer: it maps nothing, mallocs no large block, writes: every
 * preload rung has nothing to reach; a library that was not loaded says
 * why; no survey (warmup = 0) decides nothing. */
static void test_nothing_to_reach(void **state)
{
	char why[400];
	struct mmp_preload_report r = { .loaded = 1, .exited = 1 };
	struct mmp_calibration c = cal(8.74);
	struct mmp_rung_evidence e = { .survey = &r, .faults = 62, .wall_ns = 262 * MS,
				       .cal = &c, .threads_seen = 1 };
	(void)state;
	assert_true(skipped(&e, MMP_CONTROL_PREFAULT, why));
	assert_non_null(strstr(why, "nothing in its job's warmup for it to reach (no mapping"));
	assert_true(skipped(&e, MMP_CONTROL_TOUCH, why));
	assert_true(skipped(&e, MMP_CONTROL_HUGE, why));
	assert_non_null(strstr(why, "no private anonymous mapping"));
	assert_true(skipped(&e, MMP_CONTROL_BULK, why));
	assert_non_null(strstr(why, "no read() under 16 KiB"));
	r.noalloc = 1;
	strcpy(r.noalloc_why, "own");
	assert_true(skipped(&e, MMP_CONTROL_PREFAULT, why));
	assert_non_null(strstr(why, "the program brings its own"));
	r.loaded = 0;
	e.survey_why = "build/x is a static binary";
	assert_true(skipped(&e, MMP_CONTROL_BULK, why));
	assert_string_equal(why, "the preload library was not loaded into the program (build/x "
				 "is a static binary)");
	e.survey = NULL;
	assert_false(skipped(&e, MMP_CONTROL_PREFAULT, why));
	assert_false(skipped(&e, MMP_CONTROL_BULK, why));
	/* Not a preload rung, not onepu: never from the survey. */
	assert_false(skipped(&e, MMP_CONTROL_LIMIT, why));
}

/* malloc_touch touch 512: 512 MiB to populate, touch and advise, 131,151
 * faults in 272 ms -- every rung kept; with KVM's first touch (8.74 ns a
 * page at most) touch's 128 Ki pages are 0.4% of it: skipped, said with
 * the figures. */
static void test_costs(void **state)
{
	char why[400];
	struct mmp_preload_report r = { .loaded = 1, .exited = 1 };
	r.seen.blocks = 1;
	r.seen.populate = r.seen.touch = r.seen.advise = 512ull << 20;
	struct mmp_calibration c = cal(8.74);
	struct mmp_rung_evidence e = { .survey = &r, .faults = 131151, .wall_ns = 272 * MS,
				       .cal = &c, .threads_seen = 1 };
	(void)state;
	assert_false(skipped(&e, MMP_CONTROL_PREFAULT, why));
	assert_false(skipped(&e, MMP_CONTROL_HUGE, why));
	assert_true(skipped(&e, MMP_CONTROL_TOUCH, why));
	assert_non_null(strstr(why, "its job's warmup would touch 131072 pages: at most 8.74 ns a "
				    "first touch as calibrated here, 0.42% of its 272 ms"));
	/* A paravirtualised host's first touch (~2 us a page): kept. */
	c.cost_ns.high = 2000;
	assert_false(skipped(&e, MMP_CONTROL_TOUCH, why));
	/* planted plain: 1,113 faults in 600 ms, 2.2 us each at most: 0.41%. */
	e.faults = 1113;
	e.wall_ns = 600 * MS;
	assert_true(skipped(&e, MMP_CONTROL_PREFAULT, why));
	assert_non_null(strstr(why, "its job's warmup took 1113 page faults: at most 2.2 us each"));
	/* The CI run that found it: the planted faults program (128 MiB
	 * anonymous, 32,857 faults in 127 ms) calibrated on a 16 MiB file,
	 * where a fault maps 132 pages: 33.3 ns a page is 4.4 us a fault, not
	 * 33 ns -- kept. */
	c.fault_ns.high = 33.3;
	c.faults_per_page = 0.00757;
	e.faults = 32857;
	e.wall_ns = 127 * MS;
	assert_false(skipped(&e, MMP_CONTROL_PREFAULT, why));
	/* No fault counted in the calibration: no cost known, kept. */
	c.faults_per_page = 0;
	assert_false(skipped(&e, MMP_CONTROL_PREFAULT, why));
	c.faults_per_page = 1;
	c.fault_ns.high = 2200;
	/* Faults not counted, or no calibration: kept. */
	e.faults = -1;
	assert_false(skipped(&e, MMP_CONTROL_PREFAULT, why));
	e.faults = 1113;
	c.done = 0;
	assert_false(skipped(&e, MMP_CONTROL_PREFAULT, why));
	e.cal = NULL;
	assert_false(skipped(&e, MMP_CONTROL_TOUCH, why));
	/* Transparent huge pages off: huge has nothing to get. */
	e.thp_off = 1;
	e.thp_why = "/sys/kernel/mm/transparent_hugepage/enabled: never";
	assert_true(skipped(&e, MMP_CONTROL_HUGE, why));
	assert_string_equal(why, "transparent huge pages are off here "
				 "(/sys/kernel/mm/transparent_hugepage/enabled: never)");
}

/* percall bytes: a million 1-byte reads of a regular file: bulk kept. */
static void test_bulk_kept(void **state)
{
	char why[400];
	struct mmp_preload_report r = { .loaded = 1, .exited = 1 };
	r.seen.reads = 1048577;
	struct mmp_rung_evidence e = { .survey = &r, .faults = 70, .wall_ns = 464 * MS };
	(void)state;
	assert_false(skipped(&e, MMP_CONTROL_BULK, why));
	assert_true(skipped(&e, MMP_CONTROL_PREFAULT, why));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_onepu),
		cmocka_unit_test(test_nothing_to_reach),
		cmocka_unit_test(test_costs),
		cmocka_unit_test(test_bulk_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
