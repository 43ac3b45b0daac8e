/* make bench: what counting costs.
 *
 * Start-up: loading the topology, starting libpfm4 and encoding the default
 * events, timed once, cold, as mmprof does it (target <= 50 ms).
 * Overhead: configs/byte_8t.ini's 1-thread java_like run (100 MiB,
 * mmap_byte, atomic tally) with events = none and with the default events,
 * in pairs (both runs' threads made once, as a comparison set has them),
 * the order alternating from pair to pair, so drift and order hit both;
 * the overhead is the median of the pairs' ratios (target: within 1%).
 * Exit status 1 when a target is missed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "data/datafile.h"
#include "platform/events.h"
#include "run/runner.h"
#include "result/stats.h"
#include "platform/topology.h"
#include "util/units.h"

#define ROUNDS 21

int main(void)
{
	static const char ini[] = "[global]\nsize = 100M\nseed = 20250401\ntally = atomic\n"
				  "repeat = 1\nwarmup = 0\nprobe = mmap_byte\n"
				  "[none]\nevents = none\n[default]\n";
	char path[] = "/tmp/mmprof-bench-XXXXXX.ini", err[512];
	struct mmp_topology *topo;
	struct mmp_error e = { 0 };
	struct mmp_event_set set;

	uint64_t t0 = mmp_now_ns();
	int rc = mmp_topology_load(&topo, NULL, &e);
	uint64_t t1 = mmp_now_ns();
	rc = rc ? rc : mmp_events_init(err, sizeof(err));
	uint64_t t2 = mmp_now_ns();
	rc = rc ? rc : mmp_events_resolve("basic,faults,sched,syscalls,contention", &set, err,
					  sizeof(err));
	uint64_t t3 = mmp_now_ns();
	if (rc) {
		fprintf(stderr, "bench: %s%s\n", e.msg, err);
		return 2;
	}
	double startup_ms = (double)(t3 - t0) / 1e6;
	printf("start-up: topology %.1f ms + libpfm4 %.1f ms + encoding %zu events %.1f ms = "
	       "%.1f ms\n",
	       (double)(t1 - t0) / 1e6, (double)(t2 - t1) / 1e6, set.n, (double)(t3 - t2) / 1e6,
	       startup_ms);

	int fd = mkstemps(path, 4);
	if (fd < 0 || write(fd, ini, sizeof(ini) - 1) != (ssize_t)(sizeof(ini) - 1)) {
		perror("bench: temporary config");
		return 2;
	}
	close(fd);
	struct mmp_config cfg;
	struct mmp_sweep plan;
	if (mmp_config_load(path, &cfg) || mmp_config_expand(&cfg, &plan)) {
		fprintf(stderr, "bench: config: %s\n", cfg.ndiags ? cfg.diags[0] : "?");
		return 2;
	}
	unlink(path);
	const struct mmp_run *none = &plan.runs[0], *dflt = &plan.runs[1];
	struct mmp_data_spec spec = { NULL, none->p.size, none->p.fill, none->p.seed };
	struct mmp_datafile df;
	struct mmp_pin_plan pins;
	if (mmp_datafile_open(&spec, mmp_data_dir(), NULL, &df, &e) ||
	    mmp_topology_plan(topo, &none->p.placement, 1, &pins, &e)) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return 2;
	}
	double t[2][ROUNDS], ratio[ROUNDS];
	struct mmp_runner_item items[2] = {
		{ .run = none, .data = &df, .plan = &pins },
		{ .run = dflt, .data = &df, .plan = &pins, .events = &set },
	};
	struct mmp_runner *runner;
	if (mmp_runner_open(&runner, items, 2, topo, &e)) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return 2;
	}
	for (int r = -1; r < ROUNDS; r++) { /* round -1: a warmup of each */
		for (int turn = 0; turn < 2; turn++) {
			int side = (turn + r + 1) % 2;
			struct mmp_rep *rep;
			const struct mmp_run_info *info;
			if (mmp_runner_rep(runner, (size_t)side, &rep, &info, &e) || !rep->result_ok) {
				fprintf(stderr, "bench: run failed: %s\n", e.msg);
				return 2;
			}
			if (r >= 0)
				t[side][r] = (double)rep->elapsed_ns;
		}
	}
	mmp_runner_close(runner);
	struct mmp_stats a, b, q;
	for (int r = 0; r < ROUNDS; r++)
		ratio[r] = t[1][r] / t[0][r];
	mmp_stats_compute(t[0], ROUNDS, &a);
	mmp_stats_compute(t[1], ROUNDS, &b);
	mmp_stats_compute(ratio, ROUNDS, &q);
	double diff = q.median - 1;
	printf("counter overhead: %s, mmap_byte 1 thread, %d pairs of runs\n", df.path, ROUNDS);
	printf("  events = none      median %.4f ns/byte  cv %.1f%%\n", a.median / (double)df.size,
	       a.cv * 100);
	printf("  events = default   median %.4f ns/byte  cv %.1f%%  (%zu events)\n",
	       b.median / (double)df.size, b.cv * 100, set.n);
	int start_ok = startup_ms <= 50, over_ok = diff <= 0.01 && diff >= -0.01;
	printf("start-up:          %.1f ms (target <= 50 ms): %s\n", startup_ms,
	       start_ok ? "met" : "MISSED");
	printf("counting overhead: %+.2f%%, median of the pairs (target within 1%%): %s\n",
	       diff * 100,
	       over_ok ? "met" : "MISSED");
	mmp_pin_plan_free(&pins);
	mmp_datafile_close(&df);
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);
	mmp_event_set_free(&set);
	mmp_topology_free(topo);
	return start_ok && over_ok ? 0 : 1;
}
