/* libFuzzer target: any bytes as a config file, through everything mmprof
 * does before it runs a probe: load, expand, check the data files, list
 * the inputs to protect, build the plan on a synthetic machine (placement,
 * ladders, comparison sets), resolve the events, print the --dry-run plan.  Nothing here writes a
 * file, so the fuzzer can run it millions of times.
 *
 * Built with clang -fsanitize=fuzzer,address,undefined by
 * tests/integration/fuzz.sh (make FUZZ=1 CC=clang BUILD=build/libfuzzer
 * build/libfuzzer/fuzz/fuzz_config).  Inputs go through a memfd named by
 * /proc/self/fd/N: mmp_config_load takes a path, and a memfd is a regular
 * file that costs no disk.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config/config.h"
#include "plan/eventplan.h"
#include "plan/plan.h"
#include "report/plan_report.h"
#include "data/sweep_data.h"
#include "platform/topology.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct mmp_topology *topo;
static FILE *devnull;
static int memfd = -1;
static char path[64];
static char datadir[64] = "/tmp/mmprof-fuzz.XXXXXX";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct mmp_error err = { 0 };
	(void)argc;
	(void)argv;
	/* Two packages with SMT: placements naming PUs and NUMA nodes that
	 * exist and that do not. */
	if (mmp_topology_load(&topo, "pack:2 numa:1 core:2 pu:2", &err)) {
		fprintf(stderr, "fuzz_config: topology: %s\n", err.msg);
		abort();
	}
	devnull = fopen("/dev/null", "w");
	memfd = memfd_create("config.ini", MFD_CLOEXEC);
	/* An empty data directory: generated files are "to be created". */
	if (!devnull || memfd < 0 || !mkdtemp(datadir))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mmp_config cfg;
	struct mmp_sweep sweep = { 0 };
	struct mmp_plan plan = { 0 };
	char **inputs = NULL, msg[512], line[1400];
	size_t ninputs = 0;

	if (ftruncate(memfd, 0) || (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
		abort();
	int rc = mmp_config_load(path, &cfg);
	if (rc == 0)
		rc = mmp_config_expand(&cfg, &sweep);
	if (rc == 0) {
		mmp_sweep_check_data(&cfg, &sweep, datadir);
		if (mmp_sweep_inputs(&cfg, &sweep, datadir, &inputs, &ninputs) == 0)
			mmp_sweep_inputs_free(inputs, ninputs);
		if (mmp_plan_build(&cfg, &sweep, topo, &plan) == 0) {
			mmp_report_plan(&plan, &cfg, devnull);
			struct mmp_eventplan ep;
			if (mmp_eventplan_build(&ep, &plan, msg, sizeof(msg)) == 0)
				mmp_eventplan_notes(&ep, NULL);
			mmp_eventplan_free(&ep);
		}
	}
	/* What main prints: every diagnostic and the summary. */
	for (size_t i = 0; i < cfg.ndiags; i++)
		fputs(cfg.diags[i], devnull);
	fputs(mmp_config_summary(&cfg, line, sizeof(line)), devnull);
	mmp_plan_free(&plan);
	mmp_sweep_free(&sweep);
	mmp_config_free(&cfg);
	return 0;
}
