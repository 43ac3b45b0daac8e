/* Where a program's threads ran (pu_watch.h): the verdict from samples
 * and CPU time, and a real process tree sampled -- a grandchild that
 * widened its own affinity is found. */
#include "helpers.h"

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>

#include "run/pu_watch.h"

static void test_judge(void **state)
{
	struct mmp_pu_watch w;
	struct mmp_pu_escape e;
	int pu0 = 0;
	(void)state;
	mmp_pu_watch_start(&w, 1, &pu0, 1);
	/* No sample, no CPU time: nothing known, nothing claimed. */
	mmp_pu_watch_judge(&w, 0, 1000000, &e);
	assert_false(e.escaped);
	assert_string_equal(e.seen, "");
	assert_true(e.cpu_share < 0);
	/* Found where planned, CPU within what one PU gives. */
	w.samples = 3;
	CPU_SET(0, &w.seen);
	CPU_SET(0, &w.allowed);
	mmp_pu_watch_judge(&w, 99000000, 100000000, &e);
	assert_false(e.escaped);
	assert_string_equal(e.seen, "0");
	/* A 5 ms program whose rusage has its child's 0.3 ms before the exec
	 * (no task-clock: 1.06x, seen under a seccomp filter): not an escape. */
	mmp_pu_watch_judge(&w, 5300000, 5000000, &e);
	assert_false(e.escaped);
	/* 1.5 PUs' worth of CPU on one PU: it ran elsewhere too. */
	mmp_pu_watch_judge(&w, 150000000, 100000000, &e);
	assert_true(e.escaped);
	assert_non_null(strstr(e.why, "its CPU time was 1.50x what its 1 PU(s) 0 give"));
	/* Allowed PUs 0-3, seen on 2: outside are 1-3. */
	for (int c = 1; c < 4; c++)
		CPU_SET(c, &w.allowed);
	CPU_SET(2, &w.seen);
	mmp_pu_watch_judge(&w, 50000000, 100000000, &e);
	assert_true(e.escaped);
	assert_string_equal(e.seen, "0,2");
	assert_string_equal(e.outside, "1-3");
	assert_non_null(strstr(e.why, "its threads left its PUs 0 (seen on 0,2; outside them, seen "
				      "or allowed: 1-3)"));
}

/* Two PUs this process may use, or skip. */
static void two_pus(int *a, int *b)
{
	cpu_set_t set;
	int n = 0;
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &set))
			*(n++ ? b : a) = c;
	if (n < 2)
		skip();
}

static void bind_to(int a, int b)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(a, &set);
	if (b >= 0)
		CPU_SET(b, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(2);
}

/* A child bound to one PU whose child widens itself to two, as `sh -c
 * 'taskset -p ...; prog'` does: a sample of the tree from the first
 * process finds it. */
static void test_tree(void **state)
{
	int a, b, ready[2];
	pid_t grandchild;
	(void)state;
	two_pus(&a, &b);
	assert_int_equal(pipe(ready), 0);
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		bind_to(a, -1);
		pid_t g = fork();
		if (g == 0) {
			bind_to(a, b);
			g = getpid();
			if (write(ready[1], &g, sizeof(g)) != sizeof(g))
				_exit(3);
			pause();
			_exit(0);
		}
		waitpid(g, NULL, 0);
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &grandchild, sizeof(grandchild)), sizeof(grandchild));
	close(ready[0]);
	struct mmp_pu_watch w;
	struct mmp_pu_escape e;
	char want[16];
	mmp_pu_watch_start(&w, child, &a, 1);
	mmp_pu_watch_sample(&w);
	/* The grandchild first: its parent waits for it, then exits. */
	kill(grandchild, SIGKILL);
	waitpid(child, NULL, 0);
	assert_int_equal(w.samples, 1);
	assert_true(CPU_ISSET(b, &w.allowed));
	mmp_pu_watch_judge(&w, 0, 0, &e);
	assert_true(e.escaped);
	snprintf(want, sizeof(want), "%d", b);
	assert_string_equal(e.outside, want);
	/* Gone: a sample finds no task and counts none. */
	mmp_pu_watch_sample(&w);
	assert_int_equal(w.samples, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
