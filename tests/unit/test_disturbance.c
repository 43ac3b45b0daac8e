/* Judging a repetition from what the kernel said about its threads
 * (disturbance.h): a stopped round is disturbed, a slept one is not judged. */
#include "helpers.h"

#include <signal.h>
#include <string.h>

#include "run/disturbance.h"

#define MS 1000000u

/* One thread that ran cpu ms of wall ms and waited wait ms for a CPU. */
static struct mmp_thread_sample sample(uint64_t wall, uint64_t cpu, uint64_t wait)
{
	return (struct mmp_thread_sample){ .start = 1000 * MS, .end = 1000 * MS + wall * MS,
					   .wall_ns = wall * MS, .cpu_ns = cpu * MS,
					   .wait_ns = wait * MS };
}

/* The round: 2093 ms of wall for its usual 93 ms of CPU, no wait
 * (a stopped task is not runnable). */
static void test_stopped_round_is_disturbed(void **state)
{
	struct mmp_disturbance d;
	(void)state;
	struct mmp_thread_sample t = sample(2093, 93, 0);
	mmp_disturbance_judge(&t, 1, 1, 0, 0, -1, &d);
	assert_true(d.disturbed);
	assert_non_null(strstr(d.why, "off-CPU"));
	assert_true(d.offcpu_max > 0.9);
	/* Two threads, one stopped: the round is. */
	struct mmp_thread_sample two[2] = { sample(95, 93, 1), sample(95, 5, 0) };
	mmp_disturbance_judge(two, 2, 2, 0, 0, -1, &d);
	assert_true(d.disturbed);
	/* Oversubscribed: judged the same, before busy. */
	mmp_disturbance_judge(&t, 1, 1, 1, 0, -1, &d);
	assert_true(d.disturbed);
	assert_non_null(strstr(d.why, "off-CPU"));
}

static void test_running_round_is_not(void **state)
{
	struct mmp_disturbance d;
	(void)state;
	/* A few ms off-CPU in 95 (a page fault's I/O, a tick): not judged. */
	struct mmp_thread_sample t = sample(95, 91, 1);
	mmp_disturbance_judge(&t, 1, 1, 0, 0, -1, &d);
	assert_false(d.disturbed);
	/* Below the floor: 4 ms off-CPU of 10 is noise, not a stop. */
	t = sample(10, 6, 0);
	mmp_disturbance_judge(&t, 1, 1, 0, 0, -1, &d);
	assert_false(d.disturbed);
	/* A probe that may sleep (reading from the disk) is not judged on it. */
	t = sample(2093, 93, 0);
	mmp_disturbance_judge(&t, 1, 1, 0, 1, -1, &d);
	assert_false(d.disturbed);
	assert_true(d.offcpu_max < 0);
	/* Unknown wait (no schedstat): cannot tell, so not judged. */
	t.wait_ns = UINT64_MAX;
	mmp_disturbance_judge(&t, 1, 1, 0, 0, -1, &d);
	assert_false(d.disturbed);
}

/* A SIGCONT (what ends every stop) during a repetition marks it. */
static void test_sigcont_marks_the_repetition(void **state)
{
	struct mmp_disturbance d;
	(void)state;
	struct mmp_thread_sample t = sample(95, 93, 0);
	unsigned before = mmp_disturbance_stops();
	mmp_disturbance_judge(&t, 1, 1, 0, 0, -1, &d);
	mmp_disturbance_check_stops(before, &d);
	assert_false(d.disturbed);
	raise(SIGCONT);
	mmp_disturbance_check_stops(before, &d);
	assert_true(d.disturbed);
	assert_non_null(strstr(d.why, "stopped and continued 1 time"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stopped_round_is_disturbed),
		cmocka_unit_test(test_running_round_is_not),
		cmocka_unit_test(test_sigcont_marks_the_repetition),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
