/* Memory policies where the NUMA system calls are refused (a container's
 * seccomp profile: EPERM; qemu-user or a kernel without NUMA: ENOSYS).
 * The answers the probe gave are planted in this system's topology, so
 * nothing here depends on the machine; tests/integration/numa_refused.sh
 * runs the binary under a real seccomp filter. */
#include "helpers.h"

#include <errno.h>
#include <linux/mempolicy.h>
#include <sys/mman.h>

#include "platform/memory.h"
#include "platform/topology_internal.h"

static struct mmp_topology *here;
/* What this machine really answers (qemu-user: ENOSYS), put back after
 * each planted refusal. */
static int real_bind, real_locate;

static int setup(void **state)
{
	struct mmp_error err = { 0 };
	(void)state;
	if (mmp_topology_load(&here, NULL, &err)) {
		print_error("load: %s\n", err.msg);
		return -1;
	}
	real_bind = here->bind_errno;
	real_locate = here->locate_errno;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	mmp_topology_free(here);
	return 0;
}

static struct mmp_membind policy(const char *text)
{
	struct mmp_membind m;
	char msg[256];
	if (mmp_membind_parse(text, &m, msg, sizeof(msg)))
		fail_msg("parse %s: %s", text, msg);
	return m;
}

static void refuse(int bind_errno, int locate_errno)
{
	here->bind_errno = bind_errno;
	here->locate_errno = locate_errno;
}

static void unplant(void)
{
	refuse(real_bind, real_locate);
}

static void has(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("'%s' lacks '%s'", text, want);
}

/* strict fails with the cause and both ways out; best-effort and
 * firsttouch are allowed. */
static void test_strict_says_why_and_the_way_out(void **state)
{
	struct mmp_membind node0 = policy("node:0"), ft = policy("firsttouch");
	struct mmp_error err = { 0 };
	(void)state;

	refuse(EPERM, EPERM);
	assert_int_equal(mmp_membind_allowed(&node0, MMP_BIND_STRICT, here, &err), -EPERM);
	has(err.msg, "may not bind memory");
	has(err.msg, "mbind: Operation not permitted");
	has(err.msg, "seccomp");
	has(err.msg, "CAP_SYS_NICE");
	has(err.msg, "bind = best-effort");
	assert_int_equal(mmp_membind_allowed(&node0, MMP_BIND_BEST_EFFORT, here, NULL), 0);
	assert_int_equal(mmp_membind_allowed(&ft, MMP_BIND_STRICT, here, NULL), 0);
	refuse(ENOSYS, ENOSYS);
	assert_int_equal(mmp_membind_allowed(&node0, MMP_BIND_STRICT, here, &err), -ENOSYS);
	has(err.msg, "emulator");
	refuse(0, 0);
	assert_int_equal(mmp_membind_allowed(&node0, MMP_BIND_STRICT, here, NULL), 0);
	unplant();
}

/* best-effort makes no call and says so; firsttouch makes none and needs
 * none; strict allocation fails as the check does. */
static void test_bind_and_alloc_when_refused(void **state)
{
	struct mmp_membind node0 = policy("node:0"), ft = policy("firsttouch");
	struct mmp_bind_result res;
	struct mmp_error err = { 0 };
	void *p = NULL;
	(void)state;

	refuse(EPERM, 0);
	assert_int_equal(mmp_memory_alloc(here, 8192, &node0, MMP_BIND_BEST_EFFORT, &p, &res, &err),
			 0);
	assert_true(res.fell_back);
	has(res.note, "best-effort");
	has(res.note, "Operation not permitted");
	has(res.note, "first-touch");
	memset(p, 1, 8192);
	mmp_memory_free(here, p, 8192);
	assert_int_equal(mmp_memory_alloc(here, 8192, &ft, MMP_BIND_STRICT, &p, &res, &err), 0);
	assert_false(res.fell_back);
	mmp_memory_free(here, p, 8192);
	assert_int_equal(mmp_memory_alloc(here, 8192, &node0, MMP_BIND_STRICT, &p, &res, &err),
			 -EPERM);
	assert_null(p);
	has(err.msg, "CAP_SYS_NICE");
	unplant();
}

/* A program run by exec gets no set_mempolicy for firsttouch, none for a
 * best-effort binding that would be refused, and strict says why. */
static void test_process_policy_when_refused(void **state)
{
	struct mmp_membind node0 = policy("node:0"), ft = policy("firsttouch");
	static unsigned long mask[MMP_NODEMASK_BITS / (8 * sizeof(unsigned long))];
	struct mmp_error err = { 0 };
	int mpol = 0;
	(void)state;

	refuse(0, 0); /* first as where the calls are allowed */
	assert_int_equal(mmp_membind_process_policy(&ft, MMP_BIND_STRICT, here, &mpol, mask,
						    MMP_NODEMASK_BITS, &err), 0);
	assert_int_equal(mpol, -1);
	assert_int_equal(mmp_membind_process_policy(&node0, MMP_BIND_STRICT, here, &mpol, mask,
						    MMP_NODEMASK_BITS, &err), 0);
	assert_int_equal(mpol, MPOL_BIND);
	refuse(EPERM, EPERM);
	assert_int_equal(mmp_membind_process_policy(&node0, MMP_BIND_BEST_EFFORT, here, &mpol, mask,
						    MMP_NODEMASK_BITS, &err), 0);
	assert_int_equal(mpol, -1);
	assert_int_equal(mmp_membind_process_policy(&node0, MMP_BIND_STRICT, here, &mpol, mask,
						    MMP_NODEMASK_BITS, &err), -EPERM);
	unplant();
}

/* The census says "unknown" rather than guessing. */
static void test_census_unknown(void **state)
{
	struct mmp_page_census c;
	struct mmp_error err = { 0 };
	char text[256];
	int node = 7;
	char *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	(void)state;

	assert_true(p != MAP_FAILED);
	memset(p, 1, 65536);
	refuse(0, ENOSYS);
	assert_int_equal(mmp_memory_census(here, p, 65536, 0, &c, &err), 0);
	assert_int_equal(c.unknown, ENOSYS);
	assert_int_equal(c.pages_examined, 0);
	assert_int_equal(c.nnodes, 0);
	has(mmp_page_census_format(&c, text, sizeof(text)), "unknown");
	assert_int_equal(mmp_memory_node_of(here, p, &node, &err), -ENOSYS);
	assert_int_equal(node, 7);
	/* And as this machine really answers. */
	unplant();
	assert_int_equal(mmp_memory_census(here, p, 65536, 0, &c, &err), 0);
	assert_int_equal(c.unknown, real_locate);
	assert_int_equal(c.pages_examined, real_locate ? 0 : 65536 / c.page_size);
	assert_int_equal(munmap(p, 65536), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strict_says_why_and_the_way_out),
		cmocka_unit_test(test_bind_and_alloc_when_refused),
		cmocka_unit_test(test_process_policy_when_refused),
		cmocka_unit_test(test_census_unknown),
	};
	return cmocka_run_group_tests_name("memory_refused", tests, setup, teardown);
}
