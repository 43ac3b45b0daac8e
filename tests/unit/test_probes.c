/* Every probe, called directly on a buffer: results equal a naive count for
 * every kernel, sink, slice split and access size; the accessor model's
 * checks and reference counting. */
#include "helpers.h"

#include <errno.h>
#include <stdatomic.h>

#include "data/datafile.h"
#include "mmprof/probe.h"
#include "view.h"

#define N 100003

static uint8_t *data;
static uint64_t ref[256];
static char path[600]; /* the same bytes in a file, for probes that read one */

static int setup(void **state)
{
	(void)state;
	data = malloc(N);
	mmp_datafile_generate(data, N, MMP_FILL_RANDOM, 42);
	memset(data + 5000, 0, 3000); /* a run of zeros across slice edges */
	for (size_t i = 0; i < N; i++)
		ref[data[i]]++;
	snprintf(path, sizeof(path), "%s/data.bin", test_tmpdir());
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, N, f), N);
	assert_int_equal(fclose(f), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(data);
	return 0;
}

/* Run a probe over [0, N) in pieces, as threads would, and return its
 * 256 bins (zeros only in bin 0 for the zeros kernel). */
static void run_probe(const struct mmp_probe *p, enum mmp_kernel kernel,
		      enum mmp_refcount refcount, int memory, size_t stride, uint64_t access,
		      uint64_t bufsize, const uint64_t *cuts, size_t ncuts, uint64_t bins[256])
{
	_Atomic uint64_t *slots = calloc(256 * stride + 1, sizeof(*slots));
	uint8_t *buffer = malloc(access > bufsize ? access : bufsize);
	struct mmp_params params = { .probe = p, .kernel = kernel, .refcount = refcount };
	struct mmp_probe_env env = { .params = &params, .nthreads = (unsigned)ncuts - 1 };
	void *priv = NULL;

	if (p->setup)
		assert_int_equal(p->setup(&env, &priv), 0);
	memset(bins, 0, 256 * sizeof(bins[0]));
	for (size_t c = 0; c + 1 < ncuts; c++) {
		struct mmp_sink sink = { .slot = memory ? slots : NULL, .stride = stride };
		struct mmp_slice s = {
			.map = data, .fd = -1, .path = path, .file_size = N, .begin = cuts[c],
			.end = cuts[c + 1], .access = access, .buffer_size = bufsize,
			.kernel = kernel, .params = &params, .thread = (unsigned)c,
			.nthreads = env.nthreads, .priv = priv, .buffer = buffer, .sink = &sink,
		};
		assert_int_equal(p->run(&s), 0);
		if (p->check) /* every reference given back */
			assert_int_equal(p->check(priv), 0);
		bins[0] += sink.zeros;
		for (int b = 0; b < 256; b++)
			bins[b] += sink.hist[b];
	}
	for (int b = 0; memory && b < (kernel == MMP_KERNEL_HISTOGRAM ? 256 : 1); b++)
		bins[b] += atomic_load(&slots[(size_t)b * stride]);
	free((void *)slots);
	free(buffer);
	if (p->teardown)
		p->teardown(priv);
}

static void check(const struct mmp_probe *p, enum mmp_kernel kernel, int memory,
		  size_t stride, uint64_t access)
{
	/* Probes with a read buffer get the same odd sizes as `access`. */
	uint64_t bufsize = (p->uses & MMP_KEY_BIT(MMP_KEY_BUFFER)) ? access : 0;
	static const uint64_t whole[] = { 0, N };
	static const uint64_t pieces[] = { 0, 1, 4999, 7777, 7778, 65536, N };
	int refcounts = (p->uses & MMP_KEY_BIT(MMP_KEY_REFCOUNT)) ? 3 : 1;
	uint64_t bins[256];

	for (int rc = 0; rc < refcounts; rc++) {
		for (int split = 0; split < 2; split++) {
			run_probe(p, kernel, (enum mmp_refcount)rc, memory, stride, access, bufsize,
				  split ? pieces : whole, split ? 7 : 2, bins);
			for (int b = 0; b < (kernel == MMP_KERNEL_HISTOGRAM ? 256 : 1); b++)
				if (bins[b] != ref[b])
					fail_msg("%s %s refcount=%s memory=%d stride=%zu "
						 "access=%llu split=%d: bin %d %llu != %llu",
						 p->name, mmp_kernel_names[kernel],
						 mmp_refcount_names[rc], memory, stride,
						 (unsigned long long)access, split, b,
						 (unsigned long long)bins[b],
						 (unsigned long long)ref[b]);
		}
	}
}

static void test_every_probe_every_sink(void **state)
{
	size_t n;
	const struct mmp_probe *const *all = mmp_probe_all(&n);
	static const uint64_t accesses[] = { 1, 7, 1024, N + 5 };
	(void)state;

	assert_true(n >= 5);
	for (size_t i = 0; i < n; i++) {
		const struct mmp_probe *p = all[i];
		int has_tally = (p->uses & MMP_KEY_BIT(MMP_KEY_TALLY)) != 0;
		if (!mmp_probe_reads_file(p) || (p->needs & MMP_NEEDS_PROCESS))
			continue; /* pingpong, chase: test_op_probes; exec: exec.sh */
		for (int k = 0; k < 2; k++) {
			for (size_t a = 0; a < 4; a++) {
				uint64_t access = (p->uses & MMP_KEY_BIT(MMP_KEY_BUFFER))
							  ? accesses[a]
							  : mmp_params_access(&(struct mmp_params){
								    .probe = p, .access = accesses[a] });
				check(p, (enum mmp_kernel)k, 0, 1, access);
				if (has_tally) {
					check(p, (enum mmp_kernel)k, 1, 1, access);
					check(p, (enum mmp_kernel)k, 1, 3, access);
				}
				if (p->access_mode != MMP_ACCESS_BLOCK &&
				    !(p->uses & MMP_KEY_BIT(MMP_KEY_BUFFER)))
					break; /* access changes nothing */
			}
		}
	}
}

static void test_registry(void **state)
{
	size_t n, ceilings = 0;
	const struct mmp_probe *const *all = mmp_probe_all(&n);
	(void)state;
	for (size_t i = 0; i < n; i++) {
		assert_ptr_equal(mmp_probe_find(all[i]->name), all[i]);
		/* The ceiling reads the same bytes as the jobs it serves, in one
		 * scan, and is one probe: the plan and the reports find it by
		 * its role. */
		if (all[i]->role == MMP_PROBE_CEILING) {
			ceilings++;
			assert_ptr_equal(mmp_probe_ceiling(), all[i]);
			assert_true(all[i]->needs & MMP_NEEDS_MAP);
			assert_int_equal(all[i]->access_mode, MMP_ACCESS_WHOLE);
		}
		assert_non_null(all[i]->summary);
		/* A probe has a loop, or runs a program (and then no loop). */
		assert_true((all[i]->run != NULL) != !!(all[i]->needs & MMP_NEEDS_PROCESS));
		if (all[i]->bulk)
			assert_non_null(mmp_probe_find(all[i]->bulk));
		if (all[i]->access_mode == MMP_ACCESS_BLOCK)
			assert_true(all[i]->default_access > 1 ||
				    (all[i]->uses & MMP_KEY_BIT(MMP_KEY_BUFFER)));
		for (size_t j = i + 1; j < n; j++)
			assert_string_not_equal(all[i]->name, all[j]->name);
	}
	assert_int_equal(ceilings, 1);
	assert_null(mmp_probe_find("nope"));
	struct mmp_params p = { .probe = mmp_probe_find("mmap_byte"), .access = 4096 };
	assert_int_equal(mmp_params_access(&p), 1);
	p.probe = mmp_probe_find("limit");
	assert_int_equal(mmp_params_access(&p), 0);
	p.probe = mmp_probe_find("mmap_block");
	p.access = 0;
	assert_int_equal(mmp_params_access(&p), 4096);
	/* A program's access is what its job declares, nothing when it does not. */
	p.probe = mmp_probe_find("exec");
	assert_int_equal(mmp_params_access(&p), 0);
	p.access = 1024;
	assert_int_equal(mmp_params_access(&p), 1024);
	/* Controls reach a program from outside it; prefault and huge pages
	 * through the preload library. */
	assert_true(mmp_probe_uses(p.probe, MMP_KEY_CONTROLS));
	assert_true(mmp_probe_uses(p.probe, MMP_KEY_PREFAULT));
	assert_true(mmp_probe_uses(p.probe, MMP_KEY_HUGEPAGES));
	assert_false(mmp_probe_uses(p.probe, MMP_KEY_TALLY));
	assert_true(mmp_probe_uses(p.probe, MMP_KEY_COMMAND));
	assert_false(mmp_probe_uses(mmp_probe_find("mmap_byte"), MMP_KEY_COMMAND));
}

/* A memory tally is written, not just read: atomic adds land in the slot. */
static void test_memory_tally_is_written(void **state)
{
	const struct mmp_probe *p = mmp_probe_find("mmap_byte");
	_Atomic uint64_t slot = 0;
	struct mmp_sink sink = { .slot = &slot, .stride = 1 };
	struct mmp_slice s = { .map = data, .file_size = N, .begin = 0, .end = N,
			       .kernel = MMP_KERNEL_ZEROS, .sink = &sink };
	(void)state;
	assert_int_equal(p->run(&s), 0);
	assert_int_equal(atomic_load(&slot), ref[0]);
	assert_int_equal(sink.zeros, 0);
	/* A plain tally (c[t]++) lands in the same slot, and for histograms
	 * in each bin's. */
	atomic_store(&slot, 0);
	sink.plain = 1;
	assert_int_equal(p->run(&s), 0);
	assert_int_equal(atomic_load(&slot), ref[0]);
	assert_int_equal(sink.zeros, 0);
	static _Atomic uint64_t bins[256];
	struct mmp_sink hist = { .slot = bins, .stride = 1, .plain = 1 };
	s.sink = &hist;
	s.kernel = MMP_KERNEL_HISTOGRAM;
	assert_int_equal(p->run(&s), 0);
	for (int b = 0; b < 256; b++)
		assert_int_equal(atomic_load(&bins[b]), ref[b]);
}

static void test_view_checks(void **state)
{
	_Atomic int64_t refcount = 0;
	struct mmp_view v = { .base = data, .capacity = 10, .open = 1, .readable = 1,
			      .state = &refcount };
	uint8_t out[16];
	(void)state;

	assert_int_equal(mmp_view_read_byte(&v, 9), data[9]);
	assert_int_equal(mmp_view_read_byte(&v, 10), -ERANGE);
	assert_int_equal(mmp_view_read_byte(&v, UINT64_MAX), -ERANGE);
	assert_int_equal(mmp_view_read_array(&v, 7, out, 16), 3);
	assert_memory_equal(out, data + 7, 3);
	assert_int_equal(mmp_view_read_array(&v, 10, out, 1), -ERANGE);
	assert_int_equal(atomic_load(&refcount), 0);

	v.readable = 0;
	assert_int_equal(mmp_view_read_byte(&v, 0), -EACCES);
	v.readable = 1;
	v.open = 0;
	assert_int_equal(mmp_view_read_byte_held(&v, 0), -EBADF);
	v.open = 1;

	/* A closed handle refuses new references; one held stays counted. */
	assert_int_equal(mmp_view_acquire(&v), 0);
	assert_int_equal(atomic_load(&refcount), MMP_VIEW_REF_ONE);
	atomic_fetch_or(&refcount, MMP_VIEW_CLOSED);
	assert_int_equal(mmp_view_read_byte(&v, 0), -EBADF);
	mmp_view_release(&v);
	assert_int_equal(atomic_load(&refcount), MMP_VIEW_CLOSED);
}

/* The per-call API reports its failure through the probe. */
static void test_probe_reports_api_error(void **state)
{
	const struct mmp_probe *p = mmp_probe_find("accessor_byte");
	struct mmp_params params = { .probe = p, .refcount = MMP_REFCOUNT_SHARED };
	struct mmp_probe_env env = { .params = &params, .nthreads = 1 };
	struct mmp_sink sink = { 0 };
	void *priv;
	(void)state;
	assert_int_equal(p->setup(&env, &priv), 0);
	struct mmp_slice s = { .map = data, .file_size = N, .begin = 0, .end = 100,
			       .kernel = MMP_KERNEL_ZEROS, .params = &params, .nthreads = 1,
			       .priv = priv, .sink = &sink };
	/* The handle is closed: every call refuses, and the check sees a
	 * state word that is not back to zero. */
	atomic_store(mmp_view_of(&s).state, MMP_VIEW_CLOSED);
	assert_int_equal(p->run(&s), -EBADF);
	params.refcount = MMP_REFCOUNT_ONCE;
	assert_int_equal(p->run(&s), -EBADF);
	assert_int_equal(p->check(priv), -EPROTO);
	p->reset(priv);
	assert_int_equal(p->check(priv), 0);
	/* A slice past the end of the mapping is an out-of-bounds read. */
	params.refcount = MMP_REFCOUNT_SHARED;
	s.file_size = 50;
	assert_int_equal(p->run(&s), -ERANGE);
	p->teardown(priv);
	assert_int_equal(mmp_probe_find("mmap_byte")->run(
				 &(struct mmp_slice){ .map = data, .file_size = 50, .begin = 0,
						      .end = 100, .sink = &sink }),
			 -ERANGE);
}

/* refcount = private: each thread's word is its own, on lines of its own. */
static void test_private_words(void **state)
{
	const struct mmp_probe *p = mmp_probe_find("accessor_byte");
	struct mmp_params params = { .probe = p, .refcount = MMP_REFCOUNT_PRIVATE };
	struct mmp_probe_env env = { .params = &params, .nthreads = 3 };
	void *priv;
	(void)state;
	assert_int_equal(p->setup(&env, &priv), 0);
	struct mmp_slice a = { .params = &params, .thread = 0, .priv = priv };
	struct mmp_slice b = { .params = &params, .thread = 1, .priv = priv };
	uintptr_t x = (uintptr_t)mmp_view_of(&a).state, y = (uintptr_t)mmp_view_of(&b).state;
	assert_true(y - x >= 128);
	assert_int_equal(x % 128, 0);
	params.refcount = MMP_REFCOUNT_SHARED;
	p->teardown(priv);
	assert_int_equal(p->setup(&env, &priv), 0);
	a.priv = b.priv = priv;
	assert_ptr_equal(mmp_view_of(&a).state, mmp_view_of(&b).state);
	p->teardown(priv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_probe_every_sink),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_memory_tally_is_written),
		cmocka_unit_test(test_view_checks),
		cmocka_unit_test(test_probe_reports_api_error),
		cmocka_unit_test(test_private_words),
	};
	return cmocka_run_group_tests_name("probes", tests, setup, teardown);
}
