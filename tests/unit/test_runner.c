/* The runner on this machine: real threads pinned where planned (seen from
 * inside them), every probe and tally layout checked against the
 * reference, repetition counting, and stopping. */
#include "helpers.h"

#include <errno.h>

#include "config/config.h"
#include "data/datafile.h"
#include "run/engine.h"
#include "mmprof/probe.h"
#include "run/runner.h"
#include "platform/topology.h"

static struct mmp_topology *topo;
static char dir[600];

static int setup(void **state)
{
	struct mmp_error err = { 0 };
	(void)state;
	snprintf(dir, sizeof(dir), "%s", test_tmpdir());
	return mmp_topology_load(&topo, NULL, &err);
}

static int teardown(void **state)
{
	(void)state;
	mmp_topology_free(topo);
	return 0;
}

struct seen {
	unsigned warmups, reps, bad;
	uint64_t bytes;
	int pu_seen[8];
	char allowed[8][MMP_CPULIST_MAX];
	unsigned nthreads;
};

static void on_rep(const struct mmp_run_info *info, const struct mmp_rep *rep, struct seen *s)
{
	if (rep->warmup)
		s->warmups++;
	else
		s->reps++;
	if (!rep->result_ok || rep->probe_rc) {
		print_message("# [%s] %s: result %llu ok=%d rc=%d\n", info->run->job->name,
			      info->run->p.probe->name, (unsigned long long)rep->result,
			      rep->result_ok, rep->probe_rc);
		s->bad++;
	}
	assert_true(rep->elapsed_ns >= rep->thread_max_ns);
	assert_true(rep->thread_max_ns >= rep->thread_min_ns);
	s->bytes = rep->bytes;
	s->nthreads = info->plan->nthreads;
	for (unsigned t = 0; t < info->plan->nthreads && t < 8; t++) {
		assert_int_equal(info->places[t].pu_planned, info->plan->pu[t]);
		s->pu_seen[t] = info->places[t].pu_seen;
		snprintf(s->allowed[t], MMP_CPULIST_MAX, "%s", info->places[t].allowed);
	}
	/* Judged: overlap is a share, one thread always overlaps itself. */
	assert_true(rep->dist.overlap >= 0 && rep->dist.overlap <= 1);
	if (info->plan->nthreads == 1)
		assert_true(rep->dist.overlap == 1);
}

/* warmup + repeat repetitions of one run, as a set of one. */
static void run_one(const struct mmp_run *run, const struct mmp_datafile *df,
		    const struct mmp_pin_plan *pins, struct seen *seen)
{
	struct mmp_runner_item item = { .run = run, .data = df, .plan = pins };
	struct mmp_runner *r;
	struct mmp_error err = { 0 };
	if (mmp_runner_open(&r, &item, 1, topo, &err))
		fail_msg("open: %s", err.msg);
	for (unsigned i = 0; i < run->p.warmup + run->p.repeat; i++) {
		struct mmp_rep *rep;
		const struct mmp_run_info *info;
		if (mmp_runner_rep(r, 0, &rep, &info, &err))
			fail_msg("rep %u: %s", i, err.msg);
		rep->warmup = i < run->p.warmup;
		on_rep(info, rep, seen);
	}
	mmp_runner_close(r);
}

/* Run every run of a config; returns the number of runs. */
static size_t run_config(const char *text, struct seen *seen, size_t max)
{
	char path[700];
	struct mmp_config cfg;
	struct mmp_sweep plan;
	struct mmp_datafiles files = { .dir = dir };
	struct mmp_error err = { 0 };

	snprintf(path, sizeof(path), "%s/runner.ini", dir);
	test_write_file(path, text);
	assert_int_equal(mmp_config_load(path, &cfg), 0);
	assert_int_equal(mmp_config_expand(&cfg, &plan), 0);
	assert_true(plan.nruns <= max);
	for (size_t i = 0; i < plan.nruns; i++) {
		const struct mmp_run *run = &plan.runs[i];
		struct mmp_pin_plan pins;
		struct mmp_datafile *df;
		struct mmp_data_spec spec = { run->p.file, run->p.size, run->p.fill, run->p.seed };

		assert_int_equal(mmp_topology_plan(topo, &run->p.placement, run->p.threads, &pins,
						   &err),
				 0);
		assert_int_equal(mmp_datafiles_get(&files, &spec, &df, &err), 0);
		run_one(run, df, &pins, &seen[i]);
		mmp_pin_plan_free(&pins);
	}
	size_t n = plan.nruns;
	mmp_datafiles_free(&files);
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);
	return n;
}

/* Every probe x kernel x tally at 3 threads (slices that do not divide
 * evenly), on random and on all-zero data. */
static void test_every_probe_and_tally(void **state)
{
	static struct seen seen[128];
	(void)state;
	size_t n = run_config("[global]\nsize = 100001\nfill = random, zero\nthreads = 3\n"
			      "repeat = 2\nwarmup = 1\nkernel = zeros, histogram\n"
			      "tally = atomic, packed, padded, local\naccess = 333\n"
			      "[byte]\nprobe = mmap_byte, accessor_byte\n"
			      "[block]\nprobe = mmap_block, accessor_block\nrefcount = shared, once\n"
			      "[limit]\nprobe = limit\n",
			      seen, 128);
	/* 2 fills x 2 kernels x (2 probes x 4 tallies, mmap_block x 4 tallies,
	 * accessor_block x 2 refcounts x 4 tallies, limit) */
	assert_int_equal(n, 2 * 2 * (8 + 4 + 8 + 1));
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(seen[i].bad, 0);
		assert_int_equal(seen[i].warmups, 1);
		assert_int_equal(seen[i].reps, 2);
		assert_int_equal(seen[i].bytes, 100001);
		assert_int_equal(seen[i].nthreads, 3);
	}
}

/* Threads land on the planned PU, as sched_getcpu and sched_getaffinity
 * see it from inside each thread. */
static void test_pinning_seen_from_threads(void **state)
{
	struct seen seen[2] = { 0 };
	char text[400];
	(void)state;
	/* The last PU this process may use (a cpuset or taskset may leave
	 * out the machine's last one). */
	int last = (int)mmp_topology_pus(topo) - 1;
	while (last >= 0 && !mmp_topology_pu_allowed(topo, last))
		last--;
	if (mmp_topology_allowed_pus(topo) < 2 || !mmp_topology_pu_allowed(topo, 0) ||
	    !mmp_topology_pu_allowed(topo, 1))
		skip(); /* needs PUs 0 and 1 */
	snprintf(text, sizeof(text),
		 "[global]\nsize = 64K\nrepeat = 1\nwarmup = 0\n"
		 "[rev]\nprobe = mmap_byte\nthreads = 2\nplacement = pus:1,0\n"
		 "[last]\nprobe = limit\nplacement = pus:%u\n",
		 last);
	assert_int_equal(run_config(text, seen, 2), 2);
	assert_int_equal(seen[0].pu_seen[0], 1);
	assert_string_equal(seen[0].allowed[0], "1");
	assert_int_equal(seen[0].pu_seen[1], 0);
	assert_string_equal(seen[0].allowed[1], "0");
	assert_int_equal(seen[1].pu_seen[0], last);
}

/* The accessor's private state: refcount = private gives every thread a
 * word of its own, and every reference comes back. */
static void test_private_refcount(void **state)
{
	struct seen seen[2] = { 0 };
	(void)state;
	assert_int_equal(run_config("[global]\nsize = 64K\nrepeat = 2\nwarmup = 0\nthreads = 2\n"
				    "[p]\nprobe = accessor_byte, accessor_block\n"
				    "refcount = private\n",
				    seen, 2),
			 2);
	assert_int_equal(seen[0].bad + seen[1].bad, 0);
	assert_int_equal(seen[1].reps, 2);
}

/* Every kind of run has its engine, whole, and a probe gets the engine
 * of its kind: only exec, which runs a program, the process engine.  A
 * kind without its row in engine.c ends here, not in a run. */
static void test_engine_of_every_probe(void **state)
{
	size_t n;
	const struct mmp_probe *const *all = mmp_probe_all(&n);
	(void)state;
	for (int k = 0; k < MMP_RUN_KINDS; k++) {
		const struct mmp_engine *e = mmp_engine_of((enum mmp_run_kind)k);
		assert_non_null(e);
		assert_non_null(e->name);
		assert_true(e->open && e->rep && e->close);
	}
	for (size_t i = 0; i < n; i++) {
		const struct mmp_engine *e = mmp_engine_of(mmp_probe_kind(all[i]));
		assert_string_equal(e->name,
				    strcmp(all[i]->name, "exec") == 0 ? "process" : "threads");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_probe_and_tally),
		cmocka_unit_test(test_pinning_seen_from_threads),
		cmocka_unit_test(test_private_refcount),
		cmocka_unit_test(test_engine_of_every_probe),
	};
	return cmocka_run_group_tests_name("runner", tests, setup, teardown);
}
