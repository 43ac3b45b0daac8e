/* The platform and the costs below the kernel: the hypervisor named from
 * CPUID (a stub here, so every vendor is checked on any machine) and the
 * kernel's word; the first touch of a mapping, touched page by page; the
 * calibration on a file and on anonymous memory; steal time read. */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sys/mman.h>

#include "run/disturbance.h"
#include "platform/firsttouch.h"
#include "platform/hypervisor.h"

/* A CPUID of a guest whose leaf 0x40000000 says `stub_sig`; with
 * stub_hv 0, of bare metal (leaf 1's bit 31 clear). */
static const char *stub_sig;
static int stub_hv;

static int stub_cpuid(uint32_t leaf, uint32_t r[4])
{
	memset(r, 0, 4 * sizeof(uint32_t));
	if (leaf == 1) {
		r[2] = stub_hv ? 1u << 31 : 0;
	} else if (leaf == 0x40000000) {
		char sig[12] = { 0 };
		memcpy(sig, stub_sig, strnlen(stub_sig, 12));
		r[0] = 0x40000001;
		memcpy(&r[1], sig, 4);
		memcpy(&r[2], sig + 4, 4);
		memcpy(&r[3], sig + 8, 4);
	}
	return 0;
}

static void identify(const char *sig, int hv, const char *kernel, struct mmp_platform *p)
{
	stub_sig = sig;
	stub_hv = hv;
	mmp_platform_identify_with(stub_cpuid, kernel, p);
}

static void test_hypervisor_named(void **state)
{
	struct mmp_platform p;
	(void)state;
	identify("KVMKVMKVM", 1, NULL, &p);
	assert_int_equal(p.virtual_machine, 1);
	assert_string_equal(p.vendor, "KVM");
	assert_string_equal(p.name, "KVM");
	identify("Microsoft Hv", 1, "", &p);
	assert_string_equal(p.name, "Microsoft Hyper-V");
	identify("VMwareVMware", 1, NULL, &p);
	assert_string_equal(p.name, "VMware");
	identify("XenVMMXenVMM", 1, NULL, &p);
	assert_string_equal(p.name, "Xen");
	/* A signature no table knows: said as read. */
	identify("NewHvNewHv!!", 1, NULL, &p);
	assert_string_equal(p.vendor, "");
	assert_string_equal(p.name, "a hypervisor (CPUID 'NewHvNewHv!!')");
	/* The hypervisor bit clear: bare metal, whatever leaf 0x40000000 says. */
	identify("KVMKVMKVM", 0, NULL, &p);
	assert_int_equal(p.virtual_machine, 0);
	assert_string_equal(p.cpuid, "");
	assert_string_equal(p.name, "bare metal");
}

/* A PVM guest (this project's machines): user-space CPUID says bhyve,
 * the kernel says PVM.  Both are kept; the kernel's word names it. */
static void test_kernel_word_first(void **state)
{
	struct mmp_platform p;
	(void)state;
	identify("bhyve bhyve ", 1, "PVM", &p);
	assert_string_equal(p.cpuid, "bhyve bhyve ");
	assert_string_equal(p.vendor, "bhyve");
	assert_string_equal(p.kernel_says, "PVM");
	assert_string_equal(p.name, "PVM (the kernel's word; CPUID says bhyve)");
	identify("KVMKVMKVM", 1, "KVM", &p);
	assert_string_equal(p.name, "KVM");
	/* No CPUID at all (arm64): the kernel's word, or unknown. */
	mmp_platform_identify_with(NULL, "KVM", &p);
	assert_int_equal(p.virtual_machine, 1);
	assert_string_equal(p.name, "KVM");
	mmp_platform_identify_with(NULL, NULL, &p);
	assert_int_equal(p.virtual_machine, -1);
	assert_non_null(strstr(p.name, "unknown"));
}

/* This machine: some name, never empty. */
static void test_this_machine(void **state)
{
	struct mmp_platform p;
	(void)state;
	mmp_platform_identify(&p);
	assert_true(p.name[0] != '\0');
	print_message("# this machine: %s\n", p.name);
}

/* The touch reads one byte of every page, no more: on a fresh mapping of
 * a file, every page is resident after it, and it counts them. */
static void test_touch_every_page(void **state)
{
	(void)state;
	const size_t page = mmp_page_size();
	const size_t pages = 37, len = pages * page - 100; /* the last page partly */
	char path[600];
	snprintf(path, sizeof(path), "%s/d", test_tmpdir());
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)len), 0);
	/* Out of the page cache first, so that residency is the touch's. */
	assert_int_equal(fdatasync(fd), 0);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	uint8_t *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(m != MAP_FAILED);
	/* No read-around: the pages the touch maps are its own. */
	assert_int_equal(madvise(m, len, MADV_RANDOM), 0);
	unsigned char vec[64];
	assert_int_equal(mincore(m, len, vec), 0);
	size_t before = 0;
	for (size_t i = 0; i < pages; i++)
		before += vec[i] & 1;
	assert_int_equal(mmp_touch_pages(m, len), pages);
	assert_int_equal(mincore(m, len, vec), 0);
	for (size_t i = 0; i < pages; i++)
		assert_true(vec[i] & 1);
	print_message("# %zu of %zu pages resident before the touch, all after\n", before, pages);
	/* Half a page: one page, one load. */
	assert_int_equal(mmp_touch_pages(m, page / 2), 1);
	assert_int_equal(mmp_touch_pages(m, 0), 0);
	munmap(m, len);
	close(fd);
}

static void check_calibration(const struct mmp_calibration *c, uint64_t bytes)
{
	char line[1024];
	assert_true(c->done);
	assert_int_equal(c->bytes, bytes);
	assert_int_equal(c->samples, 3);
	assert_true(c->first_ns.valid && c->touched_ns.valid && c->cost_ns.valid);
	assert_true(c->first_ns.low <= c->first_ns.median && c->first_ns.median <= c->first_ns.high);
	assert_true(c->touched_ns.median > 0);
	assert_true(c->scan_gbs.median > 0);
	assert_true(c->fault_ns.valid);
	/* Faulting pages count faults (fault-around maps a few a fault).  A
	 * populated mapping's touch counts almost none on a kernel; where it
	 * counts them (qemu-user maps without MAP_POPULATE), nothing is said
	 * to be below the kernel. */
	assert_true(c->faults_per_page > 0);
	double pages = (double)(bytes / mmp_page_size()) * c->samples;
	if (c->first_faults >= 0.01 * pages)
		assert_false(c->below_kernel);
	print_message("# %.0f faults in %.0f first touches\n", c->first_faults, pages);
	print_message("# %s\n", mmp_calibration_line(c, line, sizeof(line)));
	assert_non_null(strstr(line, "first touch"));
	assert_non_null(strstr(line, "GB/s"));
}

/* Bookkeeping, not speed: every figure measured and in its place. */
static void test_calibrate_file_and_anon(void **state)
{
	struct mmp_calibration c;
	(void)state;
	char path[600];
	snprintf(path, sizeof(path), "%s/data", test_tmpdir());
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	static uint8_t block[65536];
	for (size_t i = 0; i < sizeof(block); i++)
		block[i] = (uint8_t)(i * 7);
	for (int i = 0; i < 64; i++) /* 4 MiB */
		assert_int_equal(write(fd, block, sizeof(block)), (ssize_t)sizeof(block));
	close(fd);

	assert_int_equal(mmp_calibrate(path, 2 << 20, 3, &c), 0);
	assert_string_equal(c.what, path);
	check_calibration(&c, 2 << 20);
	/* Asked for more than the file has: the file's bytes. */
	assert_int_equal(mmp_calibrate(path, 64 << 20, 3, &c), 0);
	check_calibration(&c, 4 << 20);
	assert_int_equal(mmp_calibrate(NULL, 2 << 20, 3, &c), 0);
	assert_string_equal(c.what, "anonymous memory");
	check_calibration(&c, 2 << 20);

	/* Nothing to measure: said, not done. */
	assert_int_equal(mmp_calibrate("/nonexistent/x", 1 << 20, 3, &c), -ENOENT);
	assert_false(c.done);
	assert_non_null(strstr(c.error, "/nonexistent/x"));
	char line[512];
	assert_non_null(strstr(mmp_calibration_line(&c, line, sizeof(line)), "not measured"));
}

/* Steal time: read for every CPU and for a list; a growth disturbs. */
static void test_steal(void **state)
{
	(void)state;
	int cpu0 = 0;
	int64_t all = mmp_steal_ns(NULL, 0), one = mmp_steal_ns(&cpu0, 1);
	assert_true(all >= 0 && one >= 0 && one <= all);
	int nope = 99999;
	assert_int_equal(mmp_steal_ns(&nope, 1), -1);

	struct mmp_disturbance d = { 0 };
	mmp_disturbance_check_steal(5000000, 5000000, 1000000, 2, &d);
	assert_false(d.disturbed);
	assert_true(d.steal == 0);
	mmp_disturbance_check_steal(0, 10000000, 100000000, 2, &d);
	assert_true(d.disturbed);
	assert_true(fabs(d.steal - 0.05) < 1e-9);
	assert_non_null(strstr(d.why, "steal"));
	/* An earlier reason stays the reason. */
	struct mmp_disturbance e = { .disturbed = 1 };
	snprintf(e.why, sizeof(e.why), "threads overlapped 40%% of the time");
	mmp_disturbance_check_steal(0, 10000000, 100000000, 2, &e);
	assert_non_null(strstr(e.why, "overlapped"));
	/* Unknown: not judged. */
	struct mmp_disturbance u = { 0 };
	mmp_disturbance_check_steal(-1, 10, 100, 1, &u);
	assert_false(u.disturbed);
	assert_true(u.steal < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hypervisor_named),
		cmocka_unit_test(test_kernel_word_first),
		cmocka_unit_test(test_this_machine),
		cmocka_unit_test(test_touch_every_page),
		cmocka_unit_test(test_calibrate_file_and_anon),
		cmocka_unit_test(test_steal),
	};
	return cmocka_run_group_tests_name("platform", tests, NULL, NULL);
}
