/* Counters on this machine: software events and tracepoints really
 * counted, in groups, across repeated enable/disable; hardware events a
 * "not supported" state when there is no PMU; the scaling rule; group
 * planning; event names through libpfm4. */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>

#include "platform/counters.h"
#include "platform/events.h"

static void resolve(const char *list, struct mmp_event_set *set)
{
	char err[512];
	if (mmp_events_resolve(list, set, err, sizeof(err)))
		fail_msg("resolve %s: %s", list, err);
}

/* Counting needs perf_event_open itself: a kernel without perf events or
 * an emulator (qemu-user answers ENOSYS), or a seccomp filter (EACCES,
 * EPERM), refuses even software events.  That is the machine's state, as
 * a missing PMU is: skip with the reason mmprof gives for it. */
static void skip_without_perf_event_open(void)
{
	struct mmp_event_set set;
	char why[400];
	resolve("task-clock", &set);
	int rc = mmp_counters_try(&set.ev[0], why, sizeof(why));
	mmp_event_set_free(&set);
	if (rc == -ENOSYS || rc == -EACCES || rc == -EPERM) {
		print_message("# task-clock: %s\n", why);
		skip();
	}
}

static void test_scaling_rule(void **state)
{
	struct mmp_count c;
	(void)state;
	mmp_count_from(&c, 100, 200, 200);
	assert_int_equal(c.state, MMP_COUNT_COUNTED);
	assert_float_equal(c.value, 100, 0);
	assert_float_equal(mmp_count_ratio(&c), 1, 0);
	mmp_count_from(&c, 100, 200, 50);
	assert_int_equal(c.state, MMP_COUNT_SCALED);
	assert_float_equal(c.value, 400, 1e-9);
	assert_float_equal(mmp_count_ratio(&c), 0.25, 1e-12);
	mmp_count_from(&c, 0, 200, 0);
	assert_int_equal(c.state, MMP_COUNT_NOT_COUNTED);
	assert_false(mmp_count_valid(&c));
}

static void test_sum_over_threads(void **state)
{
	struct mmp_count a, b, bad, sum;
	(void)state;
	mmp_count_from(&a, 10, 100, 100);
	mmp_count_from(&b, 30, 100, 50);
	mmp_count_add(&sum, &a, 1);
	mmp_count_add(&sum, &b, 0);
	assert_int_equal(sum.state, MMP_COUNT_SCALED);
	assert_float_equal(sum.value, 10 + 60, 1e-9);
	assert_int_equal(sum.raw, 40);
	assert_float_equal(mmp_count_ratio(&sum), 150.0 / 200.0, 1e-12);
	/* One thread's event never ran: the sum would undercount, so none. */
	mmp_count_from(&bad, 0, 100, 0);
	mmp_count_add(&sum, &bad, 0);
	assert_int_equal(sum.state, MMP_COUNT_NOT_COUNTED);
	assert_false(mmp_count_valid(&sum));
	mmp_count_add(&sum, &a, 0);
	assert_false(mmp_count_valid(&sum));
}

static void test_group_plan(void **state)
{
	struct mmp_event ev[10];
	struct mmp_event_set set = { ev, 10 };
	int group_of[10];
	(void)state;
	memset(ev, 0, sizeof(ev));
	for (int i = 0; i < 10; i++)
		ev[i].kind = i % 3 == 2 ? MMP_EV_SOFTWARE : MMP_EV_HARDWARE;
	/* hardware: 0 1 3 4 6 7 9 (7 events) in groups of 3; software: 2 5 8. */
	assert_int_equal(mmp_counters_plan_groups(&set, 3, group_of), 4);
	assert_int_equal(group_of[0], 0);
	assert_int_equal(group_of[1], 0);
	assert_int_equal(group_of[2], 1);
	assert_int_equal(group_of[3], 0);
	assert_int_equal(group_of[4], 2);
	assert_int_equal(group_of[5], 1);
	assert_int_equal(group_of[9], 3);
	assert_int_equal(group_of[8], 1);
}

static void test_resolve_names_and_presets(void **state)
{
	struct mmp_event_set set;
	char err[512];
	(void)state;
	resolve("basic, faults", &set);
	assert_int_equal(set.n, 6);
	assert_string_equal(set.ev[0].name, "cycles");
	assert_int_equal(set.ev[0].role, MMP_ROLE_CYCLES);
	assert_int_equal(set.ev[0].kind, MMP_EV_HARDWARE);
	assert_int_equal(set.ev[1].role, MMP_ROLE_INSTRUCTIONS);
	assert_int_equal(set.ev[2].role, MMP_ROLE_TASK_CLOCK);
	assert_int_equal(set.ev[2].kind, MMP_EV_SOFTWARE);
	assert_int_equal(set.ev[4].role, MMP_ROLE_MINOR_FAULTS);
	assert_string_equal(set.ev[3].encoding, "perf::PERF_COUNT_SW_PAGE_FAULTS");
	mmp_event_set_free(&set);

	resolve("faults, page-faults, minor-faults", &set); /* named twice: once */
	assert_int_equal(set.n, 3);
	mmp_event_set_free(&set);
	resolve("none", &set);
	assert_int_equal(set.n, 0);
	mmp_event_set_free(&set);
	resolve("dTLB-load-misses", &set);
	assert_int_equal(set.ev[0].attr.type, PERF_TYPE_HW_CACHE);
	mmp_event_set_free(&set);

	assert_int_equal(mmp_events_resolve("basic, cycels", &set, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unknown event 'cycels' (did you mean 'cycles'?)"));
	assert_int_equal(mmp_events_resolve("LLC-misses", &set, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unknown event 'LLC-misses'"));
}

/* This machine's CPU names encode through libpfm4 even without a PMU to
 * count them (it reads CPUID, not the kernel). */
static void test_cpu_specific_names(void **state)
{
	struct mmp_event_set set;
	char err[512];
	(void)state;
	assert_int_equal(mmp_events_init(err, sizeof(err)), 0);
	const char *pmu = mmp_events_pmu_name();
	if (strncmp(pmu, "amd64_fam19h_zen", 16) == 0 || strncmp(pmu, "amd64_fam1ah_zen", 16) == 0) {
		/* Demand fills by source: same CCX, then the remote cause's. */
		static const enum mmp_event_role roles[] = {
			MMP_ROLE_CONTENTION, MMP_ROLE_REMOTE_DRAM, MMP_ROLE_LOCAL_DRAM,
			MMP_ROLE_REMOTE_HITM, MMP_ROLE_CROSS_CCX,
		};
		resolve("RETIRED_INSTRUCTIONS, contention", &set);
		assert_int_equal(set.ev[0].kind, MMP_EV_HARDWARE);
		assert_int_equal(set.ev[0].attr.type, PERF_TYPE_RAW);
		assert_non_null(strstr(set.ev[0].encoding, "::RETIRED_INSTRUCTIONS"));
		assert_int_equal(set.n, 6);
		for (size_t i = 1; i < set.n; i++) {
			assert_non_null(strstr(set.ev[i].name, "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:"));
			assert_int_equal(set.ev[i].role, roles[i - 1]);
		}
		mmp_event_set_free(&set);
		assert_true(mmp_events_pmu_counters() >= 4);
		return;
	}
	print_message("# libpfm4 sees %s, not AMD Zen 3 to 5: Zen names not checked\n", pmu);
	skip();
}

/* Software events in one group, counted for real, over several
 * enable/disable cycles as the runner makes them: in a thread of its own,
 * waiting on a barrier between cycles. */
struct group_run {
	struct mmp_event_set set;
	pthread_barrier_t start, done;
	struct mmp_count out[3][4];
	int opened;
};

#define PAGES 256

static void *group_worker(void *arg)
{
	struct group_run *g = arg;
	struct mmp_counters c;

	g->opened = mmp_counters_open(&c, &g->set) == 0;
	for (size_t i = 0; g->opened && i < g->set.n; i++)
		g->opened &= c.fd[i] >= 0;
	for (int cycle = 0; cycle < 3; cycle++) {
		pthread_barrier_wait(&g->start);
		char *p = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED)
			madvise(p, PAGES * 4096, MADV_NOHUGEPAGE);
		mmp_counters_enable(&c);
		for (size_t k = 0; p != MAP_FAILED && k < PAGES; k++)
			p[k * 4096] = 1; /* one fault per page */
		mmp_counters_disable(&c);
		mmp_counters_read(&c, g->out[cycle]);
		if (p != MAP_FAILED)
			munmap(p, PAGES * 4096);
		pthread_barrier_wait(&g->done);
	}
	mmp_counters_close(&c);
	return NULL;
}

static void group_counts(const char *events)
{
	struct group_run g;
	pthread_t t;

	resolve(events, &g.set);
	pthread_barrier_init(&g.start, NULL, 2);
	pthread_barrier_init(&g.done, NULL, 2);
	assert_int_equal(pthread_create(&t, NULL, group_worker, &g), 0);
	for (int cycle = 0; cycle < 3; cycle++) {
		pthread_barrier_wait(&g.start);
		pthread_barrier_wait(&g.done);
	}
	pthread_join(t, NULL);
	assert_true(g.opened);
	for (int cycle = 0; cycle < 3; cycle++) {
		const struct mmp_count *out = g.out[cycle];
		for (size_t i = 0; i < g.set.n; i++) {
			const struct mmp_event *ev = &g.set.ev[i];
			if (out[i].state != MMP_COUNT_COUNTED ||
			    (ev->role != MMP_ROLE_CONTEXT_SWITCHES && out[i].raw == 0))
				fail_msg("%s, cycle %d: %s is %s, %llu", events, cycle, ev->name,
					 mmp_count_state_name(out[i].state),
					 (unsigned long long)out[i].raw);
			/* One fault per page touched (and under AddressSanitizer
			 * one per page of its shadow, an eighth as many). */
			if (ev->role == MMP_ROLE_PAGE_FAULTS || ev->role == MMP_ROLE_MINOR_FAULTS)
				assert_in_range(out[i].raw, PAGES, PAGES + PAGES / 8 + 16);
			if (ev->role == MMP_ROLE_TASK_CLOCK)
				assert_true(out[i].raw <= out[i].enabled);
		}
	}
	pthread_barrier_destroy(&g.start);
	pthread_barrier_destroy(&g.done);
	mmp_event_set_free(&g.set);
}

/* "page-faults, task-clock" lost task-clock after the first cycle when
 * members were toggled with PERF_IOC_FLAG_GROUP (see counters.c). */
static void test_software_group_counts(void **state)
{
	(void)state;
	skip_without_perf_event_open();
	group_counts("page-faults, task-clock");
	group_counts("task-clock, page-faults, minor-faults");
	group_counts("page-faults, minor-faults, task-clock, context-switches");
}

/* A software group of 70 members (every software event goes into one
 * group): before, the group read's buffer held 64 and the read failed
 * with ENOSPC, so every member came back "not counted". */
static void test_large_group_counts(void **state)
{
	enum { N = 70 };
	struct mmp_event_set one, many;
	struct mmp_counters c;
	struct mmp_count out[N];
	(void)state;

	skip_without_perf_event_open();
	resolve("task-clock", &one);
	many.n = N;
	many.ev = calloc(N, sizeof(*many.ev));
	assert_non_null(many.ev);
	for (size_t i = 0; i < N; i++)
		many.ev[i] = one.ev[0];
	assert_int_equal(mmp_counters_open(&c, &many), 0);
	for (size_t i = 0; i < N; i++)
		if (c.fd[i] < 0)
			skip(); /* fds or events refused here: nothing to read */
	mmp_counters_enable(&c);
	volatile unsigned long spin = 0;
	for (unsigned long k = 0; k < 1000000; k++)
		spin += k;
	(void)spin; /* read once, so clang sees the work used */
	mmp_counters_disable(&c);
	mmp_counters_read(&c, out);
	for (size_t i = 0; i < N; i++) {
		if (out[i].state != MMP_COUNT_COUNTED || out[i].raw == 0)
			fail_msg("member %zu of %d: %s, %llu", i, N, mmp_count_state_name(out[i].state),
				 (unsigned long long)out[i].raw);
	}
	mmp_counters_close(&c);
	free(many.ev);
	mmp_event_set_free(&one);
}

static void test_tracepoint_counts_reads(void **state)
{
	struct mmp_event_set set;
	struct mmp_counters c;
	struct mmp_count out[2];
	char buf[64];
	(void)state;

	resolve("syscalls:sys_enter_read, raw_syscalls:sys_enter", &set);
	if (set.ev[0].unavailable) {
		print_message("# %s\n", set.ev[0].why);
		mmp_event_set_free(&set);
		skip();
	}
	int fd = open("/dev/zero", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(mmp_counters_open(&c, &set), 0);
	if (c.fd[0] < 0) {
		print_message("# cannot open tracepoints: %s\n", strerror(c.error[0]));
		mmp_counters_close(&c);
		close(fd);
		skip();
	}
	for (int cycle = 0; cycle < 2; cycle++) {
		mmp_counters_enable(&c);
		for (int k = 0; k < 100; k++)
			assert_int_equal(read(fd, buf, sizeof(buf)), sizeof(buf));
		mmp_counters_disable(&c);
		mmp_counters_read(&c, out);
		assert_int_equal(out[0].state, MMP_COUNT_COUNTED);
		/* 100 reads; the disable ioctl is a system call but not a read. */
		assert_int_equal(out[0].raw, 100);
		assert_in_range(out[1].raw, 101, 110);
	}
	close(fd);
	mmp_counters_close(&c);
	mmp_event_set_free(&set);
}

/* No PMU (a VM): cycles is "not supported", with the reason; with a PMU,
 * it is counted and the no-PMU assertions are skipped. */
static void test_hardware_state(void **state)
{
	struct mmp_event_set set;
	struct mmp_counters c;
	struct mmp_count out[2];
	char why[400];
	(void)state;

	skip_without_perf_event_open();
	resolve("cycles, page-faults", &set);
	assert_int_equal(mmp_counters_open(&c, &set), 0);
	assert_true(c.fd[1] >= 0); /* the software event opens regardless */
	mmp_counters_enable(&c);
	mmp_counters_disable(&c);
	mmp_counters_read(&c, out);
	if (c.fd[0] >= 0) {
		print_message("# this machine has a PMU: cycles opened; no-PMU state not checked\n");
		assert_true(mmp_count_valid(&out[0]) || out[0].state == MMP_COUNT_NOT_COUNTED);
		mmp_counters_close(&c);
		mmp_event_set_free(&set);
		skip();
	}
	assert_true(c.error[0] == ENOENT || c.error[0] == EOPNOTSUPP || c.error[0] == ENODEV);
	assert_int_equal(out[0].state, MMP_COUNT_NOT_SUPPORTED);
	assert_false(mmp_count_valid(&out[0]));
	assert_int_equal(out[1].state, MMP_COUNT_COUNTED);
	mmp_counters_explain(&set.ev[0], c.error[0], why, sizeof(why));
	assert_non_null(strstr(why, "not supported"));
	assert_non_null(strstr(why, "no hardware PMU"));
	assert_int_not_equal(mmp_counters_try(&set.ev[0], why, sizeof(why)), 0);
	assert_int_equal(mmp_counters_try(&set.ev[1], why, sizeof(why)), 0);
	mmp_counters_close(&c);
	mmp_event_set_free(&set);
}

static void test_denied_advice(void **state)
{
	struct mmp_event ev = { .name = "raw_syscalls:sys_enter", .kind = MMP_EV_TRACEPOINT };
	char why[400];
	(void)state;
	mmp_counters_explain(&ev, EACCES, why, sizeof(why));
	assert_non_null(strstr(why, "denied"));
	assert_non_null(strstr(why, "perf_event_paranoid is "));
	assert_non_null(strstr(why, "kernel.perf_event_paranoid=-1"));
}

/* ENOSYS: no perf_event_open at all (qemu-user, a kernel without perf
 * events) is said as such, not as the kernel rejecting one encoding. */
static void test_no_perf_event_open_advice(void **state)
{
	struct mmp_event hw = { .name = "cycles", .kind = MMP_EV_HARDWARE,
				.encoding = "perf::PERF_COUNT_HW_CPU_CYCLES" };
	struct mmp_event sw = { .name = "task-clock", .kind = MMP_EV_SOFTWARE,
				.encoding = "perf::PERF_COUNT_SW_TASK_CLOCK" };
	char why[400];
	(void)state;
	for (int i = 0; i < 2; i++) {
		mmp_counters_explain(i ? &sw : &hw, ENOSYS, why, sizeof(why));
		assert_non_null(strstr(why, "not supported (perf_event_open: "));
		assert_non_null(strstr(why, "no perf events"));
		assert_non_null(strstr(why, "qemu-user"));
		assert_null(strstr(why, "rejected"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scaling_rule),
		cmocka_unit_test(test_sum_over_threads),
		cmocka_unit_test(test_group_plan),
		cmocka_unit_test(test_resolve_names_and_presets),
		cmocka_unit_test(test_cpu_specific_names),
		cmocka_unit_test(test_software_group_counts),
		cmocka_unit_test(test_large_group_counts),
		cmocka_unit_test(test_tracepoint_counts_reads),
		cmocka_unit_test(test_hardware_state),
		cmocka_unit_test(test_denied_advice),
		cmocka_unit_test(test_no_perf_event_open_advice),
	};
	return cmocka_run_group_tests_name("counters", tests, NULL, NULL);
}
