/* The probes that count operations: pingpong's two threads hand their
 * lines over exactly `ops` times in both variants, chase follows one cycle
 * through every line and lands where its order says -- and a broken link
 * or a lost turn is seen. */
#include "helpers.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "mmprof/probe.h"

/* The runner's env->alloc hands out memory it frees after teardown: so
 * does this one (ctx keeps the block). */
static void *plain_alloc(void *ctx, size_t len)
{
	void **kept = ctx;
	void *p = aligned_alloc(4096, (len + 4095) / 4096 * 4096);
	if (p)
		memset(p, 0, len);
	*kept = p;
	return p;
}

struct pp_thread {
	const struct mmp_probe *p;
	struct mmp_slice s;
	struct mmp_sink sink;
	int rc;
};

static void *pp_main(void *arg)
{
	struct pp_thread *t = arg;
	t->rc = t->p->run(&t->s);
	return NULL;
}

static void run_pingpong(enum mmp_transfer transfer, uint64_t ops)
{
	const struct mmp_probe *p = mmp_probe_find("pingpong");
	struct mmp_params params = { .probe = p, .ops = ops, .transfer = transfer };
	void *lines = NULL;
	struct mmp_probe_env env = { .params = &params, .nthreads = 2, .alloc = plain_alloc,
				     .alloc_ctx = &lines };
	struct pp_thread t[2];
	pthread_t tid[2];
	void *priv = NULL;

	assert_int_equal(p->threads, 2);
	assert_int_equal(p->setup(&env, &priv), 0);
	for (int rep = 0; rep < 2; rep++) { /* reset makes a repetition start afresh */
		p->reset(priv);
		for (unsigned i = 0; i < 2; i++) {
			memset(&t[i], 0, sizeof(t[i]));
			t[i].p = p;
			t[i].s = (struct mmp_slice){ .params = &params, .thread = i, .nthreads = 2,
						     .priv = priv, .sink = &t[i].sink };
			assert_int_equal(pthread_create(&tid[i], NULL, pp_main, &t[i]), 0);
		}
		for (unsigned i = 0; i < 2; i++) {
			pthread_join(tid[i], NULL);
			assert_int_equal(t[i].rc, 0);
		}
		assert_int_equal(t[0].sink.zeros + t[1].sink.zeros, p->expected(&params, 2));
		assert_int_equal(p->ops(&params), ops / 2 * 2);
		assert_int_equal(p->check(priv), 0);
	}
	/* A repetition that did not finish its turns fails the check. */
	p->reset(priv);
	assert_int_equal(p->check(priv), ops >= 2 ? -EPROTO : 0);
	p->teardown(priv);
	free(lines);
}

static void test_pingpong_cas(void **state)
{
	(void)state;
	run_pingpong(MMP_TRANSFER_CAS, 20000);
	run_pingpong(MMP_TRANSFER_CAS, 7); /* odd: whole round trips only */
}

static void test_pingpong_store(void **state)
{
	(void)state;
	run_pingpong(MMP_TRANSFER_STORE, 20000);
}

/* chase over len bytes in nthreads slices; returns what the threads
 * counted, after corrupting one link of thread 0's cycle when asked. */
static uint64_t run_chase(uint64_t len, unsigned nthreads, uint64_t ops, int corrupt)
{
	const struct mmp_probe *p = mmp_probe_find("chase");
	struct mmp_params params = { .probe = p, .ops = ops, .size = len, .seed = 3 };
	struct mmp_probe_env env = { .params = &params, .nthreads = nthreads };
	uint8_t *work = aligned_alloc(64, len);
	void *priv = NULL;
	uint64_t total = 0;

	assert_non_null(work);
	assert_int_equal(p->setup(&env, &priv), 0);
	uint64_t chunk = len / nthreads;
	for (unsigned t = 0; t < nthreads; t++) {
		struct mmp_slice s = { .work = work, .params = &params, .thread = t,
				       .nthreads = nthreads, .priv = priv,
				       .begin = chunk * t,
				       .end = t + 1 == nthreads ? len : chunk * (t + 1) };
		assert_int_equal(p->prepare(&s), 0);
	}
	/* Every line of a slice is in one cycle: following it from any line
	 * comes back after exactly lines-in-slice steps. */
	void *start = work, *q = start;
	uint64_t steps = 0;
	do {
		memcpy(&q, q, sizeof(q));
		steps++;
	} while (q != start && steps <= len);
	assert_int_equal(steps, chunk / 64);
	if (corrupt) { /* a line that points at itself: the chase never leaves it */
		void *self = work + 64;
		memcpy(work + 64, &self, sizeof(self));
	}
	for (unsigned t = 0; t < nthreads; t++) {
		struct mmp_sink sink = { 0 };
		struct mmp_slice s = { .work = work, .params = &params, .thread = t,
				       .nthreads = nthreads, .priv = priv, .sink = &sink,
				       .begin = chunk * t,
				       .end = t + 1 == nthreads ? len : chunk * (t + 1) };
		assert_int_equal(p->run(&s), 0);
		total += sink.zeros;
	}
	assert_int_equal(p->ops(&params), ops);
	p->teardown(priv);
	free(work);
	return total;
}

static void test_chase(void **state)
{
	const struct mmp_probe *p = mmp_probe_find("chase");
	struct mmp_params params = { .probe = p, .ops = 1000 };
	(void)state;
	assert_true(p->needs & MMP_NEEDS_WORK);
	assert_false(mmp_probe_reads_file(p));
	/* ops shorter than, equal to and longer than the cycle */
	assert_int_equal(run_chase(64 * 1024, 1, 100, 0), 100);
	assert_int_equal(run_chase(64 * 1024, 1, 1024, 0), 1024);
	assert_int_equal(run_chase(64 * 1024, 2, 5000, 0), 2 * 5000);
	assert_int_equal(p->expected(&params, 2), 2000);
	/* A broken cycle is a wrong result for thread 0, not a silent one. */
	assert_int_equal(run_chase(64 * 1024, 2, 5000, 1), 5000);
}

static void test_chase_too_small(void **state)
{
	const struct mmp_probe *p = mmp_probe_find("chase");
	struct mmp_params params = { .probe = p, .ops = 10, .size = 100 };
	struct mmp_probe_env env = { .params = &params, .nthreads = 1 };
	uint8_t work[128];
	void *priv = NULL;
	(void)state;
	assert_int_equal(p->setup(&env, &priv), 0);
	struct mmp_slice s = { .work = work, .params = &params, .priv = priv, .begin = 0,
			       .end = 100, .nthreads = 1 };
	assert_int_equal(p->prepare(&s), -EINVAL); /* one whole line: no cycle */
	p->teardown(priv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pingpong_cas),
		cmocka_unit_test(test_pingpong_store),
		cmocka_unit_test(test_chase),
		cmocka_unit_test(test_chase_too_small),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
