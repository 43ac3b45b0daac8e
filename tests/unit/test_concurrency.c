/* Whether a program's threads ran at the same time (concurrency.h), from
 * switch records as the sampler hands them over, and how a repetition is
 * judged from it (disturbance.h).  The kernel's own records of a real
 * program are in test_profile.c. */
#include "helpers.h"

#include <string.h>

#include "run/concurrency.h"
#include "run/disturbance.h"
#include "platform/sampling.h"

#define MS 1000000u

#define IN(t, tid) { (t) * MS, (tid), MMP_SWITCH_IN }
#define PREEMPT(t, tid) { (t) * MS, (tid), MMP_SWITCH_PREEMPT }
#define SLEEP(t, tid) { (t) * MS, (tid), MMP_SWITCH_SLEEP }
#define START(t, tid) { (t) * MS, (tid), MMP_SWITCH_START }
#define EXIT(t, tid) { (t) * MS, (tid), MMP_SWITCH_EXIT }

static void measure(struct mmp_switch *sw, size_t n, unsigned npus, struct mmp_concurrency *c)
{
	assert_int_equal(mmp_concurrency_measure(sw, n, npus, c), 0);
}

/* Two workers started by the first thread, which then sleeps in a join:
 * on two PUs they run side by side the whole 20 ms.  (Records of one time
 * in any order: a thread starts before it runs, leaves before another
 * takes its CPU.) */
static void test_side_by_side(void **state)
{
	(void)state;
	struct mmp_switch sw[] = {
		IN(1, 11), START(1, 11), START(1, 12), IN(2, 12), SLEEP(2, 10),
		EXIT(22, 11), EXIT(22, 12), IN(23, 10), EXIT(24, 10),
	};
	struct mmp_concurrency c;
	measure(sw, sizeof(sw) / sizeof(sw[0]), 2, &c);
	assert_int_equal(c.threads, 3);
	/* the first thread ran from the first record (it was running at its
	 * exec: its own first record takes it off) */
	assert_int_equal(c.ready2_ns, 21 * MS);
	assert_int_equal(c.run2_ns, 21 * MS);
	assert_true(c.overlap == 1);
	assert_int_equal(c.cpu_ns, (2 + 2 * 20 + 1) * MS);
}

/* The same workers taking turns on one PU while the other PU is someone
 * else's: each preempted while still ready.  Unsorted on purpose (one
 * buffer per CPU, drained in turn). */
static void test_taking_turns(void **state)
{
	(void)state;
	struct mmp_switch sw[] = {
		PREEMPT(13, 12), IN(13, 11), PREEMPT(3, 11), IN(3, 12), IN(0, 11), START(0, 12),
		EXIT(20, 11), IN(20, 12), EXIT(25, 12),
	};
	struct mmp_concurrency c;
	measure(sw, sizeof(sw) / sizeof(sw[0]), 2, &c);
	assert_int_equal(c.ready2_ns, 20 * MS);
	assert_int_equal(c.run2_ns, 0);
	assert_true(c.overlap == 0);
	/* one PU: nothing could overlap, nothing is judged */
	measure(sw, sizeof(sw) / sizeof(sw[0]), 1, &c);
	assert_true(c.overlap == 1);
}

/* A thread asleep is not ready: a program whose threads hand work to each
 * other is not one whose threads were kept apart. */
static void test_sleep_is_not_waiting(void **state)
{
	(void)state;
	struct mmp_switch sw[] = {
		IN(0, 11), IN(0, 12), SLEEP(1, 12), IN(5, 12), SLEEP(6, 11), IN(10, 11),
		SLEEP(11, 12), EXIT(15, 11), EXIT(15, 12),
	};
	struct mmp_concurrency c;
	measure(sw, sizeof(sw) / sizeof(sw[0]), 2, &c);
	assert_int_equal(c.ready2_ns, 3 * MS); /* [0, 1], [5, 6], [10, 11] */
	assert_int_equal(c.run2_ns, 3 * MS);
	assert_true(c.overlap == 1);
	/* no records: nothing seen, nothing judged */
	measure(sw, 0, 2, &c);
	assert_int_equal(c.threads, 0);
	assert_true(c.overlap == 1);
}

static void test_judged(void **state)
{
	struct mmp_disturbance d;
	struct mmp_concurrency c = { .ready2_ns = 30 * MS, .run2_ns = 9 * MS, .overlap = 0.3 };
	(void)state;
	mmp_disturbance_judge_process(&(struct mmp_process_pus){ .wall_ns = 40 * MS, .npus = 2, .idle_ns = UINT64_MAX, .irq_ns = UINT64_MAX, .cpu_ns = 50 * MS }, 0, -1, &d);
	mmp_disturbance_judge_overlap(&c, &d);
	assert_true(d.disturbed);
	assert_true(d.overlap == 0.3);
	assert_string_equal(d.why, "its threads ran at once 30% of the 30 ms two were ready to run");
	/* a scheduler slice or two of two threads ready is not judged */
	c = (struct mmp_concurrency){ .ready2_ns = 4 * MS, .overlap = 0 };
	mmp_disturbance_judge_process(&(struct mmp_process_pus){ .wall_ns = 40 * MS, .npus = 2, .idle_ns = UINT64_MAX, .irq_ns = UINT64_MAX, .cpu_ns = 50 * MS }, 0, -1, &d);
	mmp_disturbance_judge_overlap(&c, &d);
	assert_false(d.disturbed);
	assert_true(d.overlap == 0);
	/* 80% and above is running together */
	c = (struct mmp_concurrency){ .ready2_ns = 30 * MS, .run2_ns = 24 * MS, .overlap = 0.8 };
	mmp_disturbance_judge_overlap(&c, &d);
	assert_false(d.disturbed);
	/* not measured: said as unknown (the CSV's empty cell) */
	mmp_disturbance_judge_overlap(NULL, &d);
	assert_false(d.disturbed);
	assert_true(d.overlap < 0);
	/* a reason already found stays */
	mmp_disturbance_judge_process(&(struct mmp_process_pus){ .wall_ns = 100 * MS, .npus = 2, .idle_ns = 10 * MS, .irq_ns = UINT64_MAX, .cpu_ns = 50 * MS }, 0, -1, &d);
	assert_true(d.disturbed);
	c = (struct mmp_concurrency){ .ready2_ns = 30 * MS, .overlap = 0 };
	mmp_disturbance_judge_overlap(&c, &d);
	assert_non_null(strstr(d.why, "other tasks took"));
	assert_true(d.overlap == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_side_by_side),
		cmocka_unit_test(test_taking_turns),
		cmocka_unit_test(test_sleep_is_not_waiting),
		cmocka_unit_test(test_judged),
	};
	return cmocka_run_group_tests_name("concurrency", tests, NULL, NULL);
}
