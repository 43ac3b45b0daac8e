/* The runner on this machine: real threads pinned where planned (seen from
 * inside them), every probe and tally layout checked against the
 * reference, repetition counting, and stopping. */
#include "helpers.h"

#include <errno.h>

#include "mmprof/config.h"
#include "mmprof/datafile.h"
#include "mmprof/probe.h"
#include "mmprof/runner.h"
#include "mmprof/topology.h"

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
	int stop_after;
	volatile sig_atomic_t *stop;
};

static int on_rep(const struct mmp_run_info *info, const struct mmp_rep *rep, void *arg)
{
	struct seen *s = arg;
	if (rep->warmup)
		s->warmups++;
	else
		assert_int_equal(rep->index, s->reps++);
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
	if (s->stop_after && s->warmups + s->reps == (unsigned)s->stop_after)
		*s->stop = 1;
	return 0;
}

/* Run every run of a config; returns the number of runs. */
static size_t run_config(const char *text, struct seen *seen, size_t max)
{
	char path[700];
	struct mmp_config cfg;
	struct mmp_plan plan;
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
		struct mmp_runner_opts opts = { .topo = topo, .on_rep = on_rep, .arg = &seen[i] };

		assert_int_equal(mmp_topology_plan(topo, &run->p.placement, run->p.threads, &pins,
						   &err),
				 0);
		assert_int_equal(mmp_datafiles_get(&files, &spec, &df, &err), 0);
		if (mmp_runner_run(run, df, &pins, NULL, &opts, &err))
			fail_msg("run %zu: %s", i, err.msg);
		mmp_pin_plan_free(&pins);
	}
	size_t n = plan.nruns;
	mmp_datafiles_free(&files);
	mmp_plan_free(&plan);
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
	if (mmp_topology_pus(topo) < 2)
		skip(); /* needs two PUs */
	snprintf(text, sizeof(text),
		 "[global]\nsize = 64K\nrepeat = 1\nwarmup = 0\n"
		 "[rev]\nprobe = mmap_byte\nthreads = 2\nplacement = pus:1,0\n"
		 "[last]\nprobe = limit\nplacement = pus:%u\n",
		 mmp_topology_pus(topo) - 1);
	assert_int_equal(run_config(text, seen, 2), 2);
	assert_int_equal(seen[0].pu_seen[0], 1);
	assert_string_equal(seen[0].allowed[0], "1");
	assert_int_equal(seen[0].pu_seen[1], 0);
	assert_string_equal(seen[0].allowed[1], "0");
	assert_int_equal(seen[1].pu_seen[0], (int)mmp_topology_pus(topo) - 1);
}

static void test_stop_between_repetitions(void **state)
{
	volatile sig_atomic_t stop = 0;
	struct seen seen = { .stop_after = 2, .stop = &stop };
	char path[700];
	struct mmp_config cfg;
	struct mmp_plan plan;
	struct mmp_datafiles files = { .dir = dir };
	struct mmp_error err = { 0 };
	struct mmp_pin_plan pins;
	struct mmp_datafile *df;
	(void)state;

	snprintf(path, sizeof(path), "%s/stop.ini", dir);
	test_write_file(path, "[j]\nprobe = mmap_byte\nsize = 4K\nrepeat = 10\nwarmup = 1\n");
	assert_int_equal(mmp_config_load(path, &cfg), 0);
	assert_int_equal(mmp_config_expand(&cfg, &plan), 0);
	const struct mmp_run *run = &plan.runs[0];
	struct mmp_data_spec spec = { NULL, run->p.size, run->p.fill, run->p.seed };
	struct mmp_runner_opts opts = { .topo = topo, .stop = &stop, .on_rep = on_rep,
					.arg = &seen };
	assert_int_equal(mmp_topology_plan(topo, &run->p.placement, 1, &pins, &err), 0);
	assert_int_equal(mmp_datafiles_get(&files, &spec, &df, &err), 0);
	assert_int_equal(mmp_runner_run(run, df, &pins, NULL, &opts, &err), -EINTR);
	assert_int_equal(seen.warmups, 1);
	assert_int_equal(seen.reps, 1);
	mmp_pin_plan_free(&pins);
	mmp_datafiles_free(&files);
	mmp_plan_free(&plan);
	mmp_config_free(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_probe_and_tally),
		cmocka_unit_test(test_pinning_seen_from_threads),
		cmocka_unit_test(test_stop_between_repetitions),
	};
	return cmocka_run_group_tests_name("runner", tests, setup, teardown);
}
