/* The contention preset on each PMU family libpfm4 knows: with
 * LIBPFM_FORCE_PMU set, it resolves to the HITM, remote and local DRAM,
 * remote cache and cross-CCX events of that family, with the encodings the
 * vendors document (Intel SDM / perfmon tables, AMD PPRs: event and umask
 * written out here, not read back from libpfm4) and the roles the metrics
 * read.  Without a PMU (this VM) the preset still resolves, to what this
 * CPU has.  And the remote metrics: a share of two counts, empty when
 * either was not counted.
 *
 * libpfm4 picks its PMU once per process (pfm_terminate does not undo a
 * forced PMU), so each family resolves in a child forked before this
 * process ever initialised libpfm4 (nothing on the parent's side resolves
 * events).  A fork, not a fresh exec of this program: under qemu-user
 * without binfmt_misc an exec of an arm64 binary fails (ENOEXEC).
 */
#include "helpers.h"

#include <errno.h>
#include <inttypes.h>
#include <sys/wait.h>

#include "platform/counters.h"
#include "platform/events.h"
#include "result/metrics.h"

#define MAX_EVENTS 8

struct want {
	const char *name;
	uint64_t config; /* PERF_TYPE_RAW: umask << 8 | event */
	enum mmp_event_role role;
};

struct family {
	const char *pmu; /* as libpfm4 names it */
	struct want ev[MAX_EVENTS];
};

#define HITM MMP_ROLE_CONTENTION
#define RDRAM MMP_ROLE_REMOTE_DRAM
#define LDRAM MMP_ROLE_LOCAL_DRAM
#define RHITM MMP_ROLE_REMOTE_HITM
#define RFWD MMP_ROLE_REMOTE_FWD
#define XCCX MMP_ROLE_CROSS_CCX

/* Intel server cores: loads that missed L3, by source (event 0xd3). */
#define INTEL_D3(ev, hitm, lock)                                                                 \
	{ { hitm, 0x4d2, HITM },                                                                 \
	  { lock, 0x21d0, HITM },                                                                \
	  { ev ":REMOTE_DRAM", 0x2d3, RDRAM },                                                   \
	  { ev ":LOCAL_DRAM", 0x1d3, LDRAM },                                                    \
	  { ev ":REMOTE_HITM", 0x4d3, RHITM },                                                   \
	  { ev ":REMOTE_FWD", 0x8d3, RFWD } }
#define HSX_D3                                                                                   \
	{ { "MEM_LOAD_UOPS_L3_HIT_RETIRED:XSNP_HITM", 0x4d2, HITM },                             \
	  { "MEM_UOPS_RETIRED:LOCK_LOADS", 0x21d0, HITM },                                       \
	  { "MEM_LOAD_UOPS_L3_MISS_RETIRED:REMOTE_DRAM", 0x4d3, RDRAM },                          \
	  { "MEM_LOAD_UOPS_L3_MISS_RETIRED:LOCAL_DRAM", 0x1d3, LDRAM },                           \
	  { "MEM_LOAD_UOPS_L3_MISS_RETIRED:REMOTE_HITM", 0x10d3, RHITM },                         \
	  { "MEM_LOAD_UOPS_L3_MISS_RETIRED:REMOTE_FWD", 0x20d3, RFWD } }
/* AMD Zen3 and later: demand data cache fills by source (event 0x43). */
#define ZEN_43(local_ccx, far_dram, near_dram, far_cache, near_cache)                           \
	{ { "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:" local_ccx, 0x0243, HITM },                   \
	  { "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:" far_dram, 0x4043, RDRAM },                    \
	  { "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:" near_dram, 0x0843, LDRAM },                   \
	  { "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:" far_cache, 0x1043, RHITM },                   \
	  { "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:" near_cache, 0x0443, XCCX } }

static const struct family families[] = {
	{ "skx", INTEL_D3("MEM_LOAD_L3_MISS_RETIRED", "MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM",
			  "MEM_INST_RETIRED:LOCK_LOADS") },
	{ "clx", INTEL_D3("MEM_LOAD_L3_MISS_RETIRED", "MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM",
			  "MEM_INST_RETIRED:LOCK_LOADS") },
	{ "icx", INTEL_D3("MEM_LOAD_L3_MISS_RETIRED", "MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM",
			  "MEM_INST_RETIRED:LOCK_LOADS") },
	{ "spr", INTEL_D3("MEM_LOAD_L3_MISS_RETIRED", "MEM_LOAD_L3_HIT_RETIRED:XSNP_FWD",
			  "MEM_INST_RETIRED:LOCK_LOADS") },
	/* Newer libpfm4 than 4.13 only: skipped where it does not know them. */
	{ "emr", INTEL_D3("MEM_LOAD_L3_MISS_RETIRED", "MEM_LOAD_L3_HIT_RETIRED:XSNP_FWD",
			  "MEM_INST_RETIRED:LOCK_LOADS") },
	{ "gnr", INTEL_D3("MEM_LOAD_L3_MISS_RETIRED", "MEM_LOAD_L3_HIT_RETIRED:XSNP_FWD",
			  "MEM_INST_RETIRED:LOCK_LOADS") },
	/* Haswell-EP and Broadwell-EP: other umask bits for the same sources. */
	{ "hsw_ep", HSX_D3 },
	{ "bdw_ep", HSX_D3 },
	{ "ivb_ep",
	  { { "MEM_LOAD_UOPS_LLC_HIT_RETIRED:XSNP_HITM", 0x4d2, HITM },
	    { "MEM_UOPS_RETIRED:LOCK_LOADS", 0x21d0, HITM },
	    { "MEM_LOAD_UOPS_LLC_MISS_RETIRED:REMOTE_DRAM", 0xcd3, RDRAM },
	    { "MEM_LOAD_UOPS_LLC_MISS_RETIRED:LOCAL_DRAM", 0x1d3, LDRAM },
	    { "MEM_LOAD_UOPS_LLC_MISS_RETIRED:REMOTE_HITM", 0x10d3, RHITM },
	    { "MEM_LOAD_UOPS_LLC_MISS_RETIRED:REMOTE_FWD", 0x20d3, RFWD } } },
	/* Sandy Bridge-EP: DRAM sources only. */
	{ "snb_ep",
	  { { "MEM_LOAD_UOPS_LLC_HIT_RETIRED:XSNP_HITM", 0x4d2, HITM },
	    { "MEM_UOPS_RETIRED:LOCK_LOADS", 0x21d0, HITM },
	    { "MEM_LOAD_UOPS_LLC_MISS_RETIRED:REMOTE_DRAM", 0x4d3, RDRAM },
	    { "MEM_LOAD_UOPS_LLC_MISS_RETIRED:LOCAL_DRAM", 0x1d3, LDRAM } } },
	/* A client core counts local DRAM but nothing remote: left out. */
	{ "skl",
	  { { "MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM", 0x4d2, HITM },
	    { "MEM_INST_RETIRED:LOCK_LOADS", 0x21d0, HITM } } },
	/* libpfm4's Zen1 table has no demand fills by source. */
	{ "amd64_fam17h_zen1", { { 0 } } },
	{ "amd64_fam17h_zen2",
	  { { "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_RMT_DRAM", 0x4043, RDRAM },
	    { "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_LCL_DRAM", 0x0843, LDRAM },
	    { "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_RMT_CACHE", 0x1043, RHITM } } },
	{ "amd64_fam19h_zen3",
	  ZEN_43("INT_CACHE", "MEM_IO_RMT", "MEM_IO_LCL", "EXT_CACHE_RMT", "EXT_CACHE_LCL") },
	{ "amd64_fam19h_zen4", ZEN_43("LOCAL_CCX", "DRAM_IO_FAR", "DRAM_IO_NEAR",
				      "FAR_CACHE_NEAR_FAR", "NEAR_CACHE_NEAR_FAR") },
	{ "amd64_fam1ah_zen5", ZEN_43("LOCAL_CCX", "DRAM_IO_FAR", "DRAM_IO_NEAR",
				      "NEAR_FAR_CACHE_FAR", "NEAR_FAR_CACHE_NEAR") },
};

/* Child side: "pmu NAME" then "NAME\tTYPE\tCONFIG\tROLE" per event. */
static int print_resolved(const char *pmu, const char *events)
{
	struct mmp_event_set set;
	char err[512];

	if (strcmp(pmu, "-") == 0)
		unsetenv("LIBPFM_FORCE_PMU");
	else
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
	if (mmp_events_resolve(events, &set, err, sizeof(err))) {
		printf("error %s\n", err);
		return 1;
	}
	printf("pmu %s\n", mmp_events_pmu_name());
	for (size_t i = 0; i < set.n; i++)
		printf("%s\t%u\t%#" PRIx64 "\t%d\n", set.ev[i].name, (unsigned)set.ev[i].attr.type,
		       (uint64_t)set.ev[i].attr.config, (int)set.ev[i].role);
	mmp_event_set_free(&set);
	return 0;
}

/* Parent side: run the child, its output into buf. */
static void resolve_in_child(const char *pmu, const char *events, char *buf, size_t len)
{
	int fd[2], status;
	size_t used = 0;
	ssize_t n;

	assert_int_equal(pipe(fd), 0);
	fflush(stdout); /* or the child writes what the parent had buffered too */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		int rc = print_resolved(pmu, events);
		fflush(stdout);
		_exit(rc);
	}
	close(fd[1]);
	while (used + 1 < len && (n = read(fd[0], buf + used, len - used - 1)) > 0)
		used += (size_t)n;
	buf[used] = '\0';
	close(fd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("resolving '%s' with LIBPFM_FORCE_PMU=%s failed: %s", events, pmu, buf);
}

static void test_family(void **state)
{
	const struct family *f = *state;
	char out[4096], want_pmu[80], line[256];
	size_t n = 0;

	resolve_in_child(f->pmu, "contention", out, sizeof(out));
	snprintf(want_pmu, sizeof(want_pmu), "pmu %s\n", f->pmu);
	if (strncmp(out, want_pmu, strlen(want_pmu)) != 0) {
		print_message("# this libpfm4 does not know %s (%.*s)\n", f->pmu,
			      (int)strcspn(out, "\n"), out);
		skip();
	}
	const char *p = out + strlen(want_pmu);
	for (; *p; n++) {
		size_t len = strcspn(p, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		p += len + (p[len] == '\n');
		if (n >= MAX_EVENTS || !f->ev[n].name)
			fail_msg("%s: unexpected event %s", f->pmu, line);
		char expect[256];
		snprintf(expect, sizeof(expect), "%s\t%u\t%#" PRIx64 "\t%d", f->ev[n].name,
			 (unsigned)PERF_TYPE_RAW, f->ev[n].config, (int)f->ev[n].role);
		if (strcmp(line, expect) != 0)
			fail_msg("%s: event %zu is\n  %s\nwant\n  %s", f->pmu, n, line, expect);
	}
	if (n < MAX_EVENTS && f->ev[n].name)
		fail_msg("%s: %s missing from the contention preset", f->pmu, f->ev[n].name);
}

/* This machine as it is: whatever its PMU (none in a VM), the default
 * events resolve, and the contention preset holds no more than one event
 * per slot. */
static void test_this_machine(void **state)
{
	char out[4096];
	(void)state;
	resolve_in_child("-", "basic,faults,sched,syscalls,contention", out, sizeof(out));
	assert_non_null(strstr(out, "\npage-faults\t"));
	resolve_in_child("-", "contention", out, sizeof(out));
	size_t lines = 0;
	for (const char *p = strchr(out, '\n'); p && p[1]; p = strchr(p + 1, '\n'))
		lines++;
	assert_true(lines <= 7);
	print_message("# here (%.*s): contention = %zu event(s)\n", (int)strcspn(out, "\n"), out,
		      lines);
}

/* Metrics from synthetic counts: the remote DRAM share is remote over
 * both, and has no value when either count is missing or both are 0. */
static void test_remote_metrics(void **state)
{
	struct mmp_event ev[3];
	struct mmp_event_set set = { ev, 3 };
	struct mmp_count c[3];
	const struct mmp_metric *share = mmp_metric_find("remote_dram_share");
	const struct mmp_metric *hitm = mmp_metric_find("remote_hitm_per_kib");
	double v;
	(void)state;

	assert_non_null(share);
	assert_non_null(hitm);
	assert_non_null(mmp_metric_find("remote_fwd_per_kib"));
	assert_non_null(mmp_metric_find("cross_ccx_per_kib"));
	memset(ev, 0, sizeof(ev));
	ev[0].role = MMP_ROLE_REMOTE_DRAM;
	ev[1].role = MMP_ROLE_LOCAL_DRAM;
	ev[2].role = MMP_ROLE_REMOTE_HITM;
	mmp_count_from(&c[0], 300, 100, 100);
	mmp_count_from(&c[1], 100, 100, 50); /* multiplexed: scaled to 200 */
	mmp_count_from(&c[2], 64, 100, 100);
	assert_true(mmp_metric_of_rep(share, &set, c, 1 << 20, &v));
	assert_float_equal(v, 300.0 / 500.0, 1e-12);
	assert_true(mmp_metric_of_rep(hitm, &set, c, 1 << 20, &v));
	assert_float_equal(v, 64.0 / 1024.0, 1e-12);

	mmp_count_from(&c[1], 0, 100, 0); /* local never on a counter */
	assert_false(mmp_metric_of_rep(share, &set, c, 1 << 20, &v));
	mmp_count_from(&c[0], 0, 100, 100);
	mmp_count_from(&c[1], 0, 100, 100); /* no load reached DRAM */
	assert_false(mmp_metric_of_rep(share, &set, c, 1 << 20, &v));
	set.n = 1; /* no local DRAM event on this CPU */
	mmp_count_from(&c[0], 300, 100, 100);
	assert_false(mmp_metric_of_rep(share, &set, c, 1 << 20, &v));
}

int main(void)
{
	enum { NFAMILIES = sizeof(families) / sizeof(families[0]) };
	struct CMUnitTest tests[NFAMILIES + 2];

	for (size_t i = 0; i < NFAMILIES; i++) {
		struct CMUnitTest t = { families[i].pmu, test_family, NULL, NULL,
					(void *)&families[i] };
		tests[i] = t;
	}
	struct CMUnitTest here = cmocka_unit_test(test_this_machine);
	struct CMUnitTest metrics = cmocka_unit_test(test_remote_metrics);
	tests[NFAMILIES] = here;
	tests[NFAMILIES + 1] = metrics;
	return cmocka_run_group_tests_name("presets", tests, NULL, NULL);
}
