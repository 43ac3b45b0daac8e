/* Derived metrics from the counters (perf stat's "shadow" metrics, LIKWID's
 * group formulas): one row per run, from the medians of its repetitions. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/probe.h"
#include "mmprof/report.h"
#include "mmprof/stats.h"

struct metric {
	const char *head;
	int (*value)(const struct mmp_run_result *r, double *out);
	const char *format;
};

static int per_byte(const struct mmp_run_result *r, int role, double *out)
{
	double v;
	if (!mmp_result_metric(r, role, &v))
		return 0;
	*out = v / (double)r->bytes;
	return 1;
}

static int per_mib(const struct mmp_run_result *r, int role, double *out)
{
	double v;
	if (!mmp_result_metric(r, role, &v))
		return 0;
	*out = v / ((double)r->bytes / (1 << 20));
	return 1;
}

static int cycles_per_byte(const struct mmp_run_result *r, double *out)
{
	return per_byte(r, MMP_ROLE_CYCLES, out);
}

static int instructions_per_byte(const struct mmp_run_result *r, double *out)
{
	return per_byte(r, MMP_ROLE_INSTRUCTIONS, out);
}

static int ipc(const struct mmp_run_result *r, double *out)
{
	double c, i;
	if (!mmp_result_metric(r, MMP_ROLE_CYCLES, &c) ||
	    !mmp_result_metric(r, MMP_ROLE_INSTRUCTIONS, &i) || c <= 0)
		return 0;
	*out = i / c;
	return 1;
}

static int faults_per_mib(const struct mmp_run_result *r, double *out)
{
	double minor, major;
	if (per_mib(r, MMP_ROLE_PAGE_FAULTS, out))
		return 1;
	if (!mmp_result_metric(r, MMP_ROLE_MINOR_FAULTS, &minor) ||
	    !mmp_result_metric(r, MMP_ROLE_MAJOR_FAULTS, &major))
		return 0;
	*out = (minor + major) / ((double)r->bytes / (1 << 20));
	return 1;
}

static int syscalls_per_mib(const struct mmp_run_result *r, double *out)
{
	return per_mib(r, MMP_ROLE_SYSCALLS, out);
}

static int reads_per_mib(const struct mmp_run_result *r, double *out)
{
	return per_mib(r, MMP_ROLE_READ_SYSCALLS, out);
}

static int switches_per_run(const struct mmp_run_result *r, double *out)
{
	return mmp_result_metric(r, MMP_ROLE_CONTEXT_SWITCHES, out);
}

static int contention_per_kib(const struct mmp_run_result *r, double *out)
{
	double v;
	if (!mmp_result_metric(r, MMP_ROLE_CONTENTION, &v))
		return 0;
	*out = v / ((double)r->bytes / 1024);
	return 1;
}

static const struct metric metrics[] = {
	{ "cycles/B", cycles_per_byte, "%.2f" },
	{ "instr/B", instructions_per_byte, "%.2f" },
	{ "IPC", ipc, "%.2f" },
	{ "faults/MiB", faults_per_mib, "%.1f" },
	{ "syscalls/MiB", syscalls_per_mib, "%.1f" },
	{ "reads/MiB", reads_per_mib, "%.1f" },
	{ "ctx-sw/run", switches_per_run, "%.0f" },
	{ "contention/KiB", contention_per_kib, "%.3f" },
};
#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))

void mmp_report_metrics(FILE *out, const struct mmp_results *mres)
{
	int show[NMETRICS] = { 0 }, any = 0, counted = 0;
	double v;
	char cell[32], access[32];
	const struct mmp_run_result *results = mres->run;
	size_t n = mres->plan->nruns;

	for (size_t i = 0; i < n; i++)
		counted |= results[i].events && results[i].events->n && results[i].n;
	if (!counted)
		return;
	for (size_t m = 0; m < NMETRICS; m++)
		for (size_t i = 0; i < n && !show[m]; i++)
			any |= show[m] = mmp_planned_is_point(results[i].planned) && results[i].n &&
					 metrics[m].value(&results[i], &v);
	fprintf(out, "\ncounters (medians over repetitions; - = not counted here):\n");
	if (!any) {
		fprintf(out, "  no derived metric has its events counted (see the notes on "
			     "stderr)\n");
		return;
	}
	size_t wjob = 3, wprobe = 5;
	for (size_t i = 0; i < n; i++) {
		if (strlen(results[i].run->job->name) > wjob)
			wjob = strlen(results[i].run->job->name);
		if (strlen(results[i].run->p.probe->name) > wprobe)
			wprobe = strlen(results[i].run->p.probe->name);
	}
	fprintf(out, "%-*s  %-*s  %7s  %6s", (int)wjob, "job", (int)wprobe, "probe", "threads",
		"access");
	for (size_t m = 0; m < NMETRICS; m++)
		if (show[m])
			fprintf(out, "  %*s", (int)(strlen(metrics[m].head) > 8 ? strlen(metrics[m].head)
										: 8),
				metrics[m].head);
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		const struct mmp_run_result *r = &results[i];
		if (!mmp_planned_is_point(r->planned))
			continue;
		snprintf(access, sizeof(access), "-");
		if (r->access)
			snprintf(access, sizeof(access), "%" PRIu64, r->access);
		fprintf(out, "%-*s  %-*s  %7u  %6s", (int)wjob, r->run->job->name, (int)wprobe,
			r->run->p.probe->name, r->run->p.threads, access);
		for (size_t m = 0; m < NMETRICS; m++) {
			if (!show[m])
				continue;
			snprintf(cell, sizeof(cell), "-");
			if (r->n && metrics[m].value(r, &v))
				snprintf(cell, sizeof(cell), metrics[m].format, v);
			fprintf(out, "  %*s",
				(int)(strlen(metrics[m].head) > 8 ? strlen(metrics[m].head) : 8), cell);
		}
		fputc('\n', out);
	}
}
