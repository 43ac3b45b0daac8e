/* --dry-run's report of the plan (plan.h): every comparison set and
 * every run with its rungs, PUs and data, as the plan will run them.
 * The plan stage builds; this only words what it built. */
#include <stdio.h>
#include <string.h>

#include "plan/controls.h"
#include "data/datafile.h"
#include "plan/plan.h"
#include "report/plan_report.h"
#include "mmprof/probe.h"

/* Keys never shown per run (MMP_ROLE_HIDDEN): where the data and the CSV
 * go are said once. */
static int hidden_key(size_t k)
{
	return (mmp_keys[k].roles & MMP_ROLE_HIDDEN) != 0;
}

/* The controls the point names that get no rung (the notes at the end
 * say why). */
static void print_unapplied(const struct mmp_planned *r, FILE *out)
{
	size_t n;
	const struct mmp_control_info *c = mmp_controls(&n);
	int first = 1;
	for (size_t i = 0; i < n; i++)
		if (r->unapplied & c[i].bit) {
			fprintf(out, "%s%s", first ? "             no rung for " : ", ", c[i].name);
			first = 0;
		}
	if (!first)
		fprintf(out, ": it does not apply here (why: at the end)\n");
}

/* Every control a job names that does not apply to some of its points,
 * where it is named and why (plan.h): the run says those that apply to
 * none of a job's points as notes. */
static void print_notes(const struct mmp_plan *plan, const struct mmp_config *cfg, FILE *out)
{
	char where[600];
	if (plan->nnotes)
		fprintf(out, "\ncontrols named that do not apply (no rung for them):\n");
	for (size_t i = 0; i < plan->nnotes; i++) {
		const struct mmp_plan_note *n = &plan->notes[i];
		fprintf(out, "  %s controls: %s, at ",
			mmp_config_where(cfg, n->line, n->section, where, sizeof(where)), n->control);
		if (n->points < n->of)
			fprintf(out, "%zu of [%s]'s %zu points", n->points, n->job, n->of);
		else
			fprintf(out, "every point of [%s]", n->job);
		fprintf(out, ": %s\n", n->why);
	}
}

static void print_point(const struct mmp_planned *r, FILE *out)
{
	char v[256], pus[512], path[4096];
	fprintf(out, "  run %-4zu [%s]", r->run.index + 1, r->run.job->name);
	for (size_t k = 0; k < MMP_KEY_COUNT; k++)
		if (!hidden_key(k) && *mmp_planned_format(r, (enum mmp_key_id)k, v, sizeof(v)))
			fprintf(out, " %s=%s", mmp_keys[k].name, v);
	if (mmp_run_reads_file(&r->run.p) &&
	    mmp_datafile_path(&r->data, mmp_data_dir(), path, sizeof(path)) == 0)
		fprintf(out, "\n             data %s", path);
	fprintf(out, "\n             PUs %s (%u distinct)%s\n",
		mmp_pin_plan_format(&r->pins, pus, sizeof(pus)), mmp_pin_plan_used(&r->pins),
		r->pins.oversubscribed ? ", oversubscribed" : "");
	print_unapplied(r, out);
}

/* A rung: what it changes from the rung below it. */
static void print_rung(const struct mmp_planned *r, const struct mmp_planned *below, FILE *out)
{
	const struct mmp_control_info *c = mmp_control_by_bit(r->added);
	char a[256], b[256], pus[512];
	fprintf(out, "  run %-4zu   rung %u +%s (%s):", r->run.index + 1, r->rung, c->name,
		c->cause);
	for (size_t k = 0; k < MMP_KEY_COUNT; k++) {
		mmp_run_format(&r->run, (enum mmp_key_id)k, a, sizeof(a));
		mmp_run_format(&below->run, (enum mmp_key_id)k, b, sizeof(b));
		if (!hidden_key(k) && strcmp(a, b) != 0)
			fprintf(out, " %s=%s", mmp_keys[k].name, a[0] ? a : "-");
	}
	if (r->end != below->end)
		fprintf(out, " reads bytes 0-%llu", (unsigned long long)r->end);
	/* no key: the program's small reads, through the preload library */
	if (r->run.p.bulkreads && !below->run.p.bulkreads)
		fprintf(out, " small read()s served from a 128 KiB buffer (preload library)");
	/* fit and solo change the threads, onepu where they go */
	if (r->pins.nthreads != below->pins.nthreads ||
	    memcmp(r->pins.pu, below->pins.pu, r->pins.nthreads * sizeof(*r->pins.pu)) != 0)
		fprintf(out, " PUs %s", mmp_pin_plan_format(&r->pins, pus, sizeof(pus)));
	fputc('\n', out);
}

static void print_rounds(const struct mmp_cset *set, FILE *out)
{
	if (set->auto_rounds)
		fprintf(out, "auto: %u to %u rounds within %gs", set->rounds, set->max_rounds,
			set->max_time);
	else
		fprintf(out, "%u round%s", set->rounds, set->rounds == 1 ? "" : "s");
	fprintf(out, ", %u warmup", set->warmup);
}

void mmp_report_plan(const struct mmp_plan *plan, const struct mmp_config *cfg, FILE *out)
{
	int any_auto = 0;
	for (size_t s = 0; s < plan->nsets; s++)
		any_auto |= plan->sets[s].auto_rounds;
	size_t copies = 0;
	for (size_t i = 0; i < plan->nruns; i++)
		copies += plan->runs[i].copy_of >= 0;
	fprintf(out, "%s: %zu job(s), %zu job point(s), %zu control rung(s) and %zu copies of "
		     "limit: %zu run(s) in %zu comparison set(s), %s, order seed %llu; %s%lu "
		     "recorded repetition(s)\n",
		cfg->path, cfg->njobs, plan->npoints, plan->nruns - plan->npoints - copies, copies,
		plan->nruns, plan->nsets, mmp_order_names[plan->order],
		(unsigned long long)plan->seed, any_auto ? "at least " : "",
		mmp_plan_repetitions(plan));
	for (size_t s = 0; s < plan->nsets; s++) {
		const struct mmp_cset *set = &plan->sets[s];
		fprintf(out, "\nset %zu: %zu run(s), ", s + 1, set->n);
		print_rounds(set, out);
		fprintf(out, "; %s\n", set->why);
		for (size_t k = 0; k < set->n; k++) {
			const struct mmp_planned *r = &plan->runs[set->runs[k]];
			if (r->rung)
				print_rung(r, &plan->runs[set->runs[k] - 1], out);
			else if (r->copy_of >= 0)
				fprintf(out, "  run %-4zu [%s] a copy of run %ld, the x limit of this "
					     "set's runs\n",
					r->run.index + 1, r->run.job->name, r->copy_of + 1);
			else
				print_point(r, out);
		}
	}
	print_notes(plan, cfg, out);
}

