/* Controls and attribution: parsing `controls`, which rungs a job's ladder
 * gets (on a synthetic two-PU machine), and the arithmetic of the causes on
 * synthetic rounds: shares sum to 1, intervals decide significance,
 * interacting controls are merged instead of printing 129% and -53%, the
 * remainder after the limit rung is named, the top cause is decided. */
#include "helpers.h"

#include <errno.h>

#include <math.h>

#include "analysis/analysis.h"
#include "analysis/answers.h"
#include "analysis/attribution.h"
#include "config/config.h"
#include "plan/controls.h"
#include "result/metrics.h"
#include "plan/plan.h"
#include "mmprof/probe.h"
#include "run/process_run.h"
#include "result/result.h"
#include "platform/sampling.h"
#include "platform/topology.h"

static void test_parse(void **state)
{
	unsigned m;
	char err[256];
	(void)state;
	assert_int_equal(mmp_controls_parse("auto", &m, err, sizeof(err)), 0);
	assert_int_equal(m, MMP_CONTROLS_ALL);
	assert_int_equal(mmp_controls_parse("none", &m, err, sizeof(err)), 0);
	assert_int_equal(m, 0);
	assert_int_equal(mmp_controls_parse("bulk, prefault", &m, err, sizeof(err)), 0);
	assert_int_equal(m, MMP_CONTROL_BULK | MMP_CONTROL_PREFAULT);
	assert_int_equal(mmp_controls_parse("prefualt", &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unknown control 'prefualt' (did you mean 'prefault'?)"));
	assert_int_equal(mmp_controls_parse("auto, bulk", &m, err, sizeof(err)), -EINVAL);
	assert_int_equal(mmp_controls_parse(" ", &m, err, sizeof(err)), -EINVAL);
	assert_string_equal(mmp_control_by_bit(MMP_CONTROL_SOLO)->name, "solo");
	/* One row per control: names, causes and functions all present. */
	size_t n;
	const struct mmp_control_info *t = mmp_controls(&n);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(t[i].name);
		assert_non_null(t[i].cause);
		assert_non_null(t[i].apply);
		assert_non_null(t[i].fix);
		assert_ptr_equal(mmp_control_by_bit(t[i].bit), &t[i]);
		/* Evidence names a metric column; attribution looks it up
		 * and uses its heading, so a misspelt one would crash. */
		for (size_t k = 0; k < t[i].nevidence; k++)
			if (!mmp_metric_find(t[i].evidence[k].metric))
				fail_msg("control %s: evidence metric '%s' is not in metrics.c",
					 t[i].name, t[i].evidence[k].metric);
	}
	/* The help texts' list: every name whole, in the room callers give. */
	char names[MMP_CONTROLS_NAMES_LEN], small[24];
	assert_int_equal(mmp_controls_names(names, sizeof(names)), 0);
	for (size_t i = 0; i < n; i++)
		assert_non_null(strstr(names, t[i].name));
	assert_non_null(strstr(names, "tally"));
	/* Too little room: the list stops after a whole name and says so. */
	assert_int_equal(mmp_controls_names(small, sizeof(small)), -ENOSPC);
	size_t kept = strlen(small) - 3;
	assert_string_equal(small + kept, "...");
	assert_int_equal(strncmp(small, names, kept), 0);
	assert_true(names[kept] == ',' || strncmp(small + kept - 2, ", ", 2) == 0);
}

/* The runs of a config, on a machine of 2 PUs (synthetic). */
struct fixture {
	struct mmp_config cfg;
	struct mmp_sweep plan;
	struct mmp_topology *topo;
};

static void load(struct fixture *f, const char *text)
{
	char path[700];
	struct mmp_error err = { 0 };
	snprintf(path, sizeof(path), "%s/c.ini", test_tmpdir());
	test_write_file(path, text);
	assert_int_equal(mmp_config_load(path, &f->cfg), 0);
	if (mmp_config_expand(&f->cfg, &f->plan))
		fail_msg("%s", f->cfg.diags[0]);
	assert_int_equal(mmp_topology_load(&f->topo, "core:2 pu:1", &err), 0);
}

static void unload(struct fixture *f)
{
	mmp_sweep_free(&f->plan);
	mmp_config_free(&f->cfg);
	mmp_topology_free(f->topo);
}

/* Build run i's ladder and check its rungs' names. */
static void ladder_is(struct fixture *f, size_t i, const char *const *want, size_t n,
		      struct mmp_ladder *out)
{
	struct mmp_pin_plan plan;
	struct mmp_error err = { 0 };
	const struct mmp_run *run = &f->plan.runs[i];
	assert_int_equal(mmp_topology_plan(f->topo, &run->p.placement, run->p.threads, &plan,
					   &err),
			 0);
	assert_int_equal(mmp_ladder_build(run, &plan, f->topo, out, &err), 0);
	mmp_pin_plan_free(&plan);
	if (out->n != (n ? n + 1 : 0)) {
		for (size_t k = 0; k < out->n; k++)
			print_message("# rung %zu: %s\n", k, out->rung[k].run.control_name);
		fail_msg("run %zu: %zu rungs, want %zu", i, out->n - 1, n);
	}
	if (n)
		assert_string_equal(out->rung[0].run.control_name, "");
	for (size_t k = 0; k < n; k++)
		assert_string_equal(out->rung[k + 1].run.control_name, want[k]);
}

static void test_ladders(void **state)
{
	struct fixture f;
	struct mmp_ladder l;
	(void)state;
	load(&f, "[global]\nsize = 1M\ncontrols = auto\n"
		 "[seed8]\nprobe = accessor_byte\nthreads = 8\ntally = atomic\n"
		 "[packed]\nprobe = mmap_byte\nthreads = 2\ntally = packed\nprefault = yes\n"
		 "[once1]\nprobe = accessor_byte\nrefcount = once\ntally = atomic\n"
		 "[limit2]\nprobe = limit\nthreads = 2\n"
		 "[some]\nprobe = accessor_byte\nthreads = 2\ncontrols = bulk, prefault\n"
		 "[off]\nprobe = accessor_byte\ncontrols = none\n"
		 "[block]\nprobe = mmap_block\nthreads = 2\ncontrols = padded, private, bulk, limit\n");

	static const char *const seed8[] = {
		"fit", "fit+prefault", "fit+prefault+touch", "fit+prefault+touch+private",
		"fit+prefault+touch+private+tally", "fit+prefault+touch+private+tally+bulk",
		"fit+prefault+touch+private+tally+bulk+solo",
		"fit+prefault+touch+private+tally+bulk+solo+limit",
	};
	ladder_is(&f, 0, seed8, 8, &l);
	assert_int_equal(l.rung[1].run.p.threads, 2); /* fit: the 2 PUs */
	assert_int_equal(l.rung[1].pins.nthreads, 2);
	assert_false(l.rung[1].pins.oversubscribed);
	assert_true(l.rung[2].run.p.prefault);
	assert_false(l.rung[2].run.p.touch);
	assert_true(l.rung[3].run.p.prefault); /* touch: on top of prefault */
	assert_true(l.rung[3].run.p.touch);
	assert_int_equal(l.rung[4].run.p.tally, MMP_TALLY_PADDED);
	assert_int_equal(l.rung[4].run.p.refcount, MMP_REFCOUNT_PRIVATE);
	assert_int_equal(l.rung[5].run.p.tally, MMP_TALLY_LOCAL);
	assert_string_equal(l.rung[6].run.p.probe->name, "accessor_block");
	assert_int_equal(mmp_params_access(&l.rung[6].run.p), 4096);
	assert_int_equal(l.rung[7].run.p.threads, 1);
	assert_int_equal(l.rung[7].end, (1 << 20) / 2); /* the first of 2 slices */
	assert_int_equal(l.rung[7].pins.pu[0], l.rung[6].pins.pu[0]);
	assert_string_equal(l.rung[8].run.p.probe->name, "limit");
	assert_true(l.rung[8].run.p.prefault);
	assert_true(l.rung[8].run.p.touch);
	assert_int_equal(l.rung[8].end, l.rung[7].end); /* the same bytes */
	assert_int_equal(l.rung[0].run.p.threads, 8); /* the job itself, untouched */
	mmp_ladder_free(&l);

	/* prefault = yes: its mapping's first touch is still there to take. */
	static const char *const packed[] = { "touch", "touch+padded", "touch+padded+tally",
					      "touch+padded+tally+bulk",
					      "touch+padded+tally+bulk+solo",
					      "touch+padded+tally+bulk+solo+limit" };
	ladder_is(&f, 1, packed, 6, &l);
	assert_string_equal(l.rung[4].run.p.probe->name, "mmap_block");
	mmp_ladder_free(&l);

	/* One thread: nothing is shared, but the atomic tally still costs. */
	static const char *const once1[] = { "prefault", "prefault+touch", "prefault+touch+tally",
					     "prefault+touch+tally+bulk",
					     "prefault+touch+tally+bulk+limit" };
	ladder_is(&f, 2, once1, 5, &l);
	mmp_ladder_free(&l);

	/* The ceiling maps its pages in and touches them itself: no bulk
	 * path, nothing shared, no limit of itself, no prefault or touch. */
	static const char *const limit2[] = { "solo" };
	ladder_is(&f, 3, limit2, 1, &l);
	assert_true(f.plan.runs[3].p.prefault);
	assert_true(f.plan.runs[3].p.touch);
	mmp_ladder_free(&l);

	static const char *const some[] = { "prefault", "prefault+bulk" };
	ladder_is(&f, 4, some, 2, &l); /* only what was asked, in ladder order */
	mmp_ladder_free(&l);

	ladder_is(&f, 5, NULL, 0, &l); /* none: no ladder at all */
	assert_int_equal(l.nunapplied, 0);
	mmp_ladder_free(&l);

	/* Named controls that do not apply are kept with why, for the plan's
	 * notes; auto takes those that apply and keeps none. */
	ladder_is(&f, 0, seed8, 8, &l);
	assert_int_equal(l.nunapplied, 0);
	mmp_ladder_free(&l);
	static const char *const block[] = { "limit" };
	ladder_is(&f, 6, block, 1, &l);
	assert_int_equal(l.nunapplied, 3);
	assert_string_equal(l.unapplied[0].control->name, "padded");
	assert_string_equal(l.unapplied[0].why,
			    "mmap_block with tally = local keeps no per-thread counters side by "
			    "side (padded applies to tally = packed and plain)");
	assert_string_equal(l.unapplied[1].control->name, "private");
	assert_string_equal(l.unapplied[1].why,
			    "mmap_block (tally = local) has no shared state to make private");
	assert_string_equal(l.unapplied[2].control->name, "bulk");
	assert_string_equal(l.unapplied[2].why, "mmap_block has no bulk path");
	mmp_ladder_free(&l);
	unload(&f);
}

/* A program's ladder: bulk serves its small reads through the preload
 * library, just below onepu (at its own row for probes: test_ladders). */
static void test_program_ladder(void **state)
{
	struct fixture f;
	struct mmp_ladder l;
	(void)state;
	load(&f, "[global]\nsize = 1M\ncontrols = auto\nprobe = exec\n"
		 "[two]\ncommand = prog {file}\nthreads = 2\n"
		 "[one]\ncommand = prog {file}\n");
	static const char *const two[] = {
		"prefault", "prefault+touch", "prefault+touch+huge", "prefault+touch+huge+bulk",
		"prefault+touch+huge+bulk+onepu", "prefault+touch+huge+bulk+onepu+limit",
	};
	ladder_is(&f, 0, two, 6, &l);
	assert_false(l.rung[3].run.p.bulkreads);
	assert_true(l.rung[4].run.p.bulkreads);
	assert_true(l.rung[5].run.p.bulkreads); /* and every rung above it */
	assert_false(l.rung[0].run.p.bulkreads);
	mmp_ladder_free(&l);
	/* One thread: no onepu, bulk still below limit. */
	static const char *const one[] = { "prefault", "prefault+touch", "prefault+touch+huge",
					   "prefault+touch+huge+bulk",
					   "prefault+touch+huge+bulk+limit" };
	ladder_is(&f, 1, one, 5, &l);
	mmp_ladder_free(&l);
	unload(&f);
}

/* A job point and its rungs, planned for real (a 2-PU synthetic machine),
 * with synthetic times per round. */
struct synthetic {
	struct fixture f;
	struct mmp_plan plan;
	struct mmp_results res;
	struct mmp_analysis an;
	struct mmp_datafile df;
};

static void synth_load(struct synthetic *s, const char *text)
{
	load(&s->f, text);
	assert_int_equal(mmp_plan_build(&s->f.cfg, &s->f.plan, s->f.topo, &s->plan), 0);
	assert_int_equal(mmp_results_init(&s->res, &s->plan), 0);
	assert_int_equal(mmp_analysis_init(&s->an, &s->res), 0);
	s->df.size = 1 << 20;
	for (size_t i = 0; i < s->plan.nruns; i++)
		mmp_results_start(&s->res, i, &s->df, NULL);
}

/* Every run recorded: finish them, then the statistics and the analysis. */
static void synth_compute(struct synthetic *s)
{
	for (size_t i = 0; i < s->plan.nruns; i++)
		mmp_results_finish(&s->res, i, MMP_RUN_DONE, NULL);
	assert_int_equal(mmp_results_compute(&s->res), 0);
	assert_int_equal(mmp_analysis_compute(&s->an), 0);
}

/* Round r of run i takes ns[i] (ns per byte of the job) with a little
 * noise, times a factor the whole round shares. */
static void synth_rounds(struct synthetic *s, const double *ns, size_t nrounds, double noise,
			 int disturb_from)
{
	uint64_t x = 12345;
	for (size_t r = 0; r < nrounds; r++) {
		double round = 1 + 0.2 * (double)(r % 3);
		for (size_t i = 0; i < s->plan.nruns; i++) {
			x = x * 6364136223846793005u + 1442695040888963407u;
			double jitter = 1 + noise * ((double)(x >> 11) / 9007199254740992.0 - 0.5);
			struct mmp_rep rep = { .index = (unsigned)r, .result_ok = 1 };
			rep.elapsed_ns = (uint64_t)(ns[i] * (1 << 20) * round * jitter);
			rep.dist.disturbed = disturb_from >= 0 && (int)r >= disturb_from && i == 0;
			snprintf(rep.dist.why, sizeof(rep.dist.why), "threads overlapped 40%% of the time");
			assert_int_equal(mmp_results_record(&s->res, i, &rep, NULL), 0);
		}
	}
	synth_compute(s);
}

static void synth_free(struct synthetic *s)
{
	mmp_analysis_free(&s->an);
	mmp_results_free(&s->res);
	mmp_plan_free(&s->plan);
	unload(&s->f);
}

static double share_sum(const struct mmp_attribution *a)
{
	double sum = 0;
	for (size_t i = 0; i < a->n; i++)
		sum += a->cause[i].share;
	return sum;
}

static void test_arithmetic(void **state)
{
	struct synthetic s;
	(void)state;
	/* ReadByte at 2 threads: job, +prefault, +touch, +private, +tally,
	 * +bulk, +solo, +limit; touch takes nothing measurable away. */
	synth_load(&s, "[global]\nsize = 1M\ncontrols = auto\n"
		       "[j]\nprobe = accessor_byte\nthreads = 2\ntally = atomic\n");
	assert_int_equal(s.plan.nruns, 8);
	static const double ns[] = { 10.0, 9.6, 9.6, 2.6, 2.4, 0.30, 0.29, 0.05 };
	synth_rounds(&s, ns, 8, 0.02, -1);
	const struct mmp_attribution *a = &s.an.attr[0];
	assert_ptr_equal(a->job, &s.res.run[0]);
	assert_int_equal(a->rounds, 8);
	assert_false(a->disturbed);
	assert_true(fabs(share_sum(a) - 1) < 1e-9);
	assert_int_equal(a->n, 8); /* seven controls and the limit */
	assert_string_equal(a->cause[0].name, "page faults");
	assert_string_equal(a->cause[1].name, "first touch");
	assert_false(a->cause[1].significant);
	assert_false(a->cause[1].per_page.valid); /* only a cost has a figure a page */
	assert_string_equal(a->cause[2].name, "true sharing");
	assert_string_equal(a->cause[2].detail, "refcount, atomic tally");
	assert_true(a->cause[2].significant);
	assert_true(fabs(a->cause[2].share - 0.70) < 0.02);
	assert_true(a->cause[2].share_low < a->cause[2].share &&
		    a->cause[2].share < a->cause[2].share_high);
	assert_string_equal(a->cause[3].name, "tally in memory");
	assert_string_equal(a->cause[4].name, "per-call");
	assert_string_equal(a->cause[7].name, "limit");
	assert_null(a->cause[7].control);
	assert_ptr_equal(a->top, &a->cause[2]);
	assert_true(a->top_decided);
	assert_non_null(strstr(a->top->control->fix(a->top->detail), "reference once per thread"));
	assert_string_equal(a->order, "prefault, touch, private, tally, bulk, solo, limit");
	/* The loop cause names the path the last rung before limit takes. */
	assert_string_equal(a->cause[6].name, "loop");
	assert_non_null(strstr(a->cause[6].detail, "a call per block"));
	synth_free(&s);
}

/* A control that makes the job slower given the ones below it is merged
 * with the next: one interacting cause, not 129% and -53%. */
static void test_interaction_merged(void **state)
{
	struct synthetic s;
	(void)state;
	synth_load(&s, "[global]\nsize = 1M\ncontrols = private, bulk\n"
		       "[j]\nprobe = accessor_byte\nthreads = 2\nprefault = yes\n");
	assert_int_equal(s.plan.nruns, 3);
	static const double ns[] = { 10.0, 15.3, 2.0 };
	synth_rounds(&s, ns, 6, 0.02, -1);
	const struct mmp_attribution *a = &s.an.attr[0];
	assert_int_equal(a->n, 2);
	assert_string_equal(a->cause[0].name, "true sharing + per-call");
	assert_true(a->cause[0].interacting);
	assert_true(fabs(a->cause[0].share - 0.8) < 0.02);
	assert_string_equal(a->cause[1].name, "remaining");
	assert_true(fabs(share_sum(a) - 1) < 1e-9);
	for (size_t i = 0; i < a->n; i++)
		assert_true(a->cause[i].share > 0 && a->cause[i].share < 1);
	synth_free(&s);
}

/* The first touch: its cost in ns a page of the mapping (the job's time
 * a byte, times a page, times the threads touching side by side), and
 * "below the kernel" only where a fault counter said none was taken. */
static void test_touch_per_page(void **state)
{
	struct synthetic s;
	(void)state;
	synth_load(&s, "[global]\nsize = 1M\ncontrols = prefault, touch\n"
		       "[j]\nprobe = mmap_byte\nthreads = 2\n");
	assert_int_equal(s.plan.nruns, 3);
	static const double ns[] = { 1.0, 0.9, 0.4 };
	synth_rounds(&s, ns, 8, 0.02, -1);
	const struct mmp_attribution *a = &s.an.attr[0];
	assert_string_equal(a->cause[1].name, "first touch");
	assert_true(a->cause[1].significant);
	assert_true(a->cause[1].per_page.valid);
	/* synth_rounds scales round r by 1 + 0.2 (r % 3): 1.225 over 8. */
	double want = 0.5 * 1.225 * 4096 * 2;
	assert_true(fabs(a->cause[1].per_page.estimate - want) < 0.05 * want);
	assert_true(a->cause[1].per_page.low < want && want < a->cause[1].per_page.high);
	/* No fault counter in these rounds: nothing says no fault was taken. */
	assert_false(a->cause[1].evidence.counted);
	assert_false(a->cause[1].below_kernel);
	/* Its fix is about mappings, not about faults. */
	assert_non_null(strstr(a->cause[1].control->fix(a->cause[1].detail), "reuse the mapping"));
	synth_free(&s);
}

/* A control that makes the job slower by a sliver, significant in tight
 * rounds but under 2% of the job, is no interaction: the next cause keeps
 * its own name and share (true sharing, not "first touch + true
 * sharing"). */
static void test_immaterial_slowdown_not_merged(void **state)
{
	struct synthetic s;
	(void)state;
	synth_load(&s, "[global]\nsize = 1M\ncontrols = prefault, touch, private\n"
		       "[j]\nprobe = accessor_byte\nthreads = 2\nrefcount = shared\n");
	assert_int_equal(s.plan.nruns, 4);
	static const double ns[] = { 10.0, 9.6, 9.65, 2.6 };
	synth_rounds(&s, ns, 8, 0.001, -1);
	const struct mmp_attribution *a = &s.an.attr[0];
	assert_string_equal(a->cause[1].name, "first touch");
	assert_true(a->cause[1].significant);
	assert_true(a->cause[1].cost.high < 0); /* slower, by 0.5% */
	assert_false(a->cause[1].interacting);
	assert_string_equal(a->cause[2].name, "true sharing");
	assert_false(a->cause[2].interacting);
	assert_ptr_equal(a->top, &a->cause[2]);
	synth_free(&s);
}

/* A control that makes the job materially slower (5%, beyond 2%) but by
 * a small part of what the next saves (0.5 of 7.4 ns/B) leaves the next
 * cause its name: the harm cannot be most of that saving (false sharing
 * next to a first touch that made a contended job slower in CI's noise
 * was "first touch + false sharing"). */
static void test_small_harm_beside_large_saving_not_merged(void **state)
{
	struct synthetic s;
	(void)state;
	synth_load(&s, "[global]\nsize = 1M\ncontrols = prefault, touch, private\n"
		       "[j]\nprobe = accessor_byte\nthreads = 2\nrefcount = shared\n");
	assert_int_equal(s.plan.nruns, 4);
	static const double ns[] = { 10.0, 9.5, 10.0, 2.6 };
	synth_rounds(&s, ns, 8, 0.001, -1);
	const struct mmp_attribution *a = &s.an.attr[0];
	assert_string_equal(a->cause[1].name, "first touch");
	assert_true(a->cause[1].cost.high < -0.02 * a->total); /* material: 5% slower */
	assert_false(a->cause[1].interacting);
	assert_string_equal(a->cause[2].name, "true sharing");
	assert_false(a->cause[2].interacting);
	assert_ptr_equal(a->top, &a->cause[2]);
	synth_free(&s);
}

/* Within the noise: no cause is significant, none is named the fix. */
static void test_noise_decides_nothing(void **state)
{
	struct synthetic s;
	(void)state;
	synth_load(&s, "[global]\nsize = 1M\ncontrols = prefault, bulk\n"
		       "[j]\nprobe = mmap_byte\n");
	static const double ns[] = { 1.0, 0.99, 1.01 };
	synth_rounds(&s, ns, 5, 0.3, -1);
	const struct mmp_attribution *a = &s.an.attr[0];
	assert_false(a->cause[0].significant);
	assert_false(a->cause[1].significant);
	assert_false(a->top_decided);
	synth_free(&s);
}

/* Disturbed rounds are left out when enough clean ones remain; when they
 * cannot be, sharing causes are marked understated. */
static void test_disturbed_rounds(void **state)
{
	struct synthetic s;
	(void)state;
	synth_load(&s, "[global]\nsize = 1M\ncontrols = private\n"
		       "[j]\nprobe = accessor_byte\nthreads = 2\nprefault = yes\n");
	static const double ns[] = { 10.0, 3.0 };
	synth_rounds(&s, ns, 6, 0.02, 3); /* rounds 3, 4, 5 of the job disturbed */
	const struct mmp_attribution *a = &s.an.attr[0];
	assert_int_equal(a->rounds, 3);
	assert_false(a->disturbed);
	assert_false(a->cause[0].understated);
	assert_int_equal(s.res.run[0].ndisturbed, 3);
	synth_free(&s);

	synth_load(&s, "[global]\nsize = 1M\ncontrols = private\n"
		       "[j]\nprobe = accessor_byte\nthreads = 2\nprefault = yes\n");
	synth_rounds(&s, ns, 6, 0.02, 1); /* only round 0 clean */
	a = &s.an.attr[0];
	assert_int_equal(a->rounds, 6);
	assert_true(a->disturbed);
	assert_true(a->cause[0].understated);
	/* A clear 70% from disturbed rounds still names no cause and no fix:
	 * what the other task took from the job and from its control is
	 * part of the difference.  (Before, a sharing cause on top stood.) */
	assert_true(a->cause[0].significant);
	assert_ptr_equal(a->top, &a->cause[0]);
	assert_false(a->top_decided);
	assert_string_equal(a->doubt, "its rounds were disturbed");
	assert_int_equal(a->more, SIZE_MAX);
	synth_free(&s);
}

/* The case: two threads with no shared state, every round of the
 * job disturbed (another process on one thread's PU: that thread takes
 * twice as long).  One thread alone looks twice as fast, and before, with
 * no sharing control in the ladder, "scaling" was decided and its fix
 * "use fewer threads" named, while the cause was the other process. */
static void test_disturbed_names_no_fix(void **state)
{
	struct synthetic s;
	(void)state;
	synth_load(&s, "[global]\nsize = 1M\ncontrols = solo\n"
		       "[j]\nprobe = mmap_block\nthreads = 2\nprefault = yes\n");
	assert_int_equal(s.plan.nruns, 2);
	static const double ns[] = { 2.0, 1.0 };
	synth_rounds(&s, ns, 8, 0.02, 0);
	const struct mmp_attribution *a = &s.an.attr[0];
	assert_true(a->disturbed);
	assert_string_equal(a->cause[0].name, "scaling");
	assert_true(a->cause[0].significant);
	assert_false(a->top_decided);
	assert_string_equal(a->doubt, "its rounds were disturbed");
	assert_true(a->undecided_disturbed); /* the verdict says what to do */
	synth_free(&s);

	/* The same figures from clean rounds decide it. */
	synth_load(&s, "[global]\nsize = 1M\ncontrols = solo\n"
		       "[j]\nprobe = mmap_block\nthreads = 2\nprefault = yes\n");
	synth_rounds(&s, ns, 8, 0.02, -1);
	assert_true(s.an.attr[0].top_decided);
	synth_free(&s);
}

/* An answer from disturbed rounds: a 5x gap that clean rounds call
 * "slower" is inconclusive, says why, and promises no number of rounds. */
static void test_disturbed_answer_inconclusive(void **state)
{
	static const char *const ini = "[global]\nsize = 1M\ncontrols = none\nthreads = 2\n"
				       "prefault = yes\n[slow]\nprobe = accessor_byte\n"
				       "baseline = fast\n[fast]\nprobe = mmap_byte\n";
	static const double ns[] = { 5.0, 1.0 };
	struct synthetic s;
	(void)state;
	synth_load(&s, ini);
	synth_rounds(&s, ns, 8, 0.02, -1);
	assert_int_equal(s.an.answers.n, 1);
	const struct mmp_answer *ans = &s.an.answers.a[0];
	assert_int_equal(ans->kind, MMP_Q_RATIO);
	assert_int_equal(ans->outcome, MMP_OUTCOME_YES);
	assert_string_equal(ans->verdict, "slower");
	assert_null(ans->disturbed_why);
	synth_free(&s);

	synth_load(&s, ini);
	synth_rounds(&s, ns, 8, 0.02, 0); /* every round of [slow] disturbed */
	ans = &s.an.answers.a[0];
	assert_true(ans->ratio.low > 4 && ans->ratio.high < 6);
	assert_true(ans->used_disturbed);
	assert_int_equal(ans->outcome, MMP_OUTCOME_INCONCLUSIVE);
	assert_string_equal(ans->verdict, "inconclusive");
	assert_int_equal(ans->more, SIZE_MAX);
	assert_string_equal(ans->disturbed_why, "threads overlapped 40% of the time");
	assert_string_equal(ans->evidence,
			    "its rounds were disturbed (threads overlapped 40% of the time)");
	synth_free(&s);

	/* table = sizes: no method is the fastest from them either; the
	 * verdict still names the methods, the measured fastest first. */
	synth_load(&s, "[global]\nsize = 1M\ncontrols = none\nthreads = 2\nprefault = yes\n"
		       "table = sizes\n[slow]\nprobe = accessor_byte\n[fast]\nprobe = mmap_byte\n");
	synth_rounds(&s, ns, 8, 0.02, 0);
	assert_int_equal(s.an.answers.n, 1);
	ans = &s.an.answers.a[0];
	assert_int_equal(ans->kind, MMP_Q_FASTEST);
	assert_int_equal(ans->outcome, MMP_OUTCOME_INCONCLUSIVE);
	assert_non_null(strstr(ans->verdict, "inconclusive between "));
	assert_non_null(strstr(ans->verdict, ", "));
	assert_non_null(ans->disturbed_why);
	synth_free(&s);
}

/* A program (exec) with onepu and limit: rounds whose CPU time on two PUs
 * is cpu times its time on one, its threads overlapping as given (< 0:
 * not seen), the job's rounds disturbed when apart. */
static void synth_exec_rounds(struct synthetic *s, double cpu, double overlap, int apart,
			      int low, int disturbed);

static void synth_exec(struct synthetic *s, double cpu, double overlap, int apart)
{
	synth_exec_rounds(s, cpu, overlap, apart, 6, apart ? 6 : 0);
}

/* The first `low` rounds with that overlap (the others 0.95), the first
 * `disturbed` rounds disturbed. */
static void synth_exec_rounds(struct synthetic *s, double cpu, double overlap, int apart,
			      int low, int disturbed)
{
	synth_load(s, "[global]\nsize = 1M\ncontrols = onepu, limit\n"
		      "[j]\nprobe = exec\ncommand = prog {file}\nthreads = 2\n");
	assert_int_equal(s->plan.nruns, 3); /* the job, +onepu, +onepu+limit */
	static const double ns[] = { 10.0, 12.0, 1.0 };
	for (unsigned r = 0; r < 6; r++) {
		for (size_t i = 0; i < s->plan.nruns; i++) {
			double jitter = 1 + 0.01 * (double)((r * 7 + i * 3) % 5);
			struct mmp_rep_process px = { 0 };
			struct mmp_rep rep = { .index = r, .result_ok = 1, .process = &px };
			rep.elapsed_ns = (uint64_t)(ns[i] * (1 << 20) * jitter);
			/* CPU time: 2 PUs' worth of 10 ns/B, or one PU's */
			px.cpu_ns = (uint64_t)((i == 1 ? 20.0 / cpu : 20.0) * (1 << 20) * jitter);
			rep.dist.overlap = i == 0 ? ((int)r < low ? overlap : 0.95) : 1;
			rep.dist.disturbed = i == 0 && (int)r < disturbed;
			if (apart)
				snprintf(rep.dist.why, sizeof(rep.dist.why), "its threads ran at once");
			assert_int_equal(mmp_results_record(&s->res, i, &rep, NULL), 0);
		}
	}
	synth_compute(s);
}

/* A program's loop is named only when the one-PU question is decided: the
 * threads ran at the same time and their sharing is shown, or costs less
 * than the loop. */
static void test_exec_sharing_decided_first(void **state)
{
	struct synthetic s;
	const struct mmp_attribution *a;
	(void)state;
	/* threads ran together, CPU time the same on 2 PUs as on one: the
	 * loop (10 ns/B of its own work over limit's 1) is the largest */
	synth_exec(&s, 1.0, 0.95, 0);
	a = &s.an.attr[0];
	assert_string_equal(a->cause[0].name, "cross-core sharing");
	assert_int_equal(a->cause[0].cannot_tell, MMP_CANNOT_TELL_NO);
	assert_non_null(a->top);
	assert_string_equal(a->top->name, "loop");
	assert_true(a->top_decided);
	/* a program's loop is not mmprof's scan to rewrite: where to look */
	assert_non_null(strstr(a->top->control->fix(a->top->detail), "where its profile puts"));
	synth_free(&s);

	/* the same figures from rounds whose threads did not run at once:
	 * nothing is named, and the sharing cause says why */
	synth_exec(&s, 1.0, 0.1, 1);
	a = &s.an.attr[0];
	assert_true(a->disturbed);
	assert_int_equal(a->cause[0].cannot_tell, MMP_CANNOT_TELL_APART);
	assert_non_null(strstr(a->cause[0].not_shown, "did not run at the same time (in 6 of the "
							"6 rounds used; in those, two that were "
							"ready ran at once 10% of the time"));
	assert_false(a->top_decided);
	assert_string_equal(a->doubt, "cross-core sharing: its threads did not run at the same "
				      "time: cannot tell");
	synth_free(&s);

	/* 2 rounds apart, 2 more disturbed by other tasks with the threads
	 * together, 2 clean: all 6 used; the overlap said is of the 2 apart,
	 * not the median of all (95%, beside "did not run at the same time") */
	synth_exec_rounds(&s, 1.0, 0.1, 1, 2, 4);
	a = &s.an.attr[0];
	assert_int_equal(a->cause[0].cannot_tell, MMP_CANNOT_TELL_APART);
	print_message("# %s\n", a->cause[0].not_shown);
	assert_non_null(strstr(a->cause[0].not_shown, "(in 2 of the 6 rounds used; in those, two "
							"that were ready ran at once 10% of the "
							"time"));
	synth_free(&s);

	/* not seen (no switch records): cannot tell either */
	synth_exec(&s, 1.0, -1, 0);
	a = &s.an.attr[0];
	assert_int_equal(a->cause[0].cannot_tell, MMP_CANNOT_TELL_UNSEEN);
	assert_false(a->top_decided);
	assert_non_null(strstr(a->doubt, "was not seen"));
	synth_free(&s);

	/* CPU time 3x on 2 PUs: more than 2 PUs could cost without sharing,
	 * whatever was seen of the overlap -- the cause is named */
	synth_exec(&s, 3.0, -1, 0);
	a = &s.an.attr[0];
	assert_int_equal(a->cause[0].cannot_tell, MMP_CANNOT_TELL_NO);
	assert_string_equal(a->cause[0].not_shown, "");
	assert_ptr_equal(a->top, &a->cause[0]);
	assert_true(a->top_decided);
	synth_free(&s);
}

/* A program touching each page of fresh memory once, its profile by hand:
 * `setup` 1 ms cpu samples in a function "setup" (in the kernel, entered
 * from it, when kernel), `work` in "work" (named from a perf map). */
static void synth_huge(struct synthetic *s, int kernel, int dtlb)
{
	/* dtlb: dTLB-load-misses counted in every run (10 a KiB, 1 on huge
	 * pages) */
	static struct mmp_event tlb = { .name = "dTLB-load-misses", .role = MMP_ROLE_DTLB_MISSES };
	static const struct mmp_event_set tlbset = { &tlb, 1 };
	static const char map[] = "1000 100 setup\n2000 100 work\n";
	struct mmp_perf_map pm = { .pid = 9, .path = "/tmp/perf-9.map", .text = (char *)map,
				   .len = sizeof(map) - 1 };
	static const double ns[] = { 10.0, 9.0, 3.0 }; /* the job, +prefault, +huge */
	static uint64_t chain[1] = { 0x1008 };
	struct mmp_sample one[200];
	synth_load(s, "[global]\nsize = 1M\ncontrols = prefault, huge\n"
		      "[j]\nprobe = exec\ncommand = prog {file}\nthreads = 1\n");
	assert_int_equal(s->plan.nruns, 3);
	for (size_t i = 0; dtlb && i < s->plan.nruns; i++)
		mmp_results_start(&s->res, i, &s->df, &tlbset);
	for (unsigned r = 0; r < 6; r++)
		for (size_t i = 0; i < s->plan.nruns; i++) {
			double jitter = 1 + 0.01 * (double)((r * 7 + i * 3) % 5);
			unsigned setup = (unsigned)(ns[i] * 10 * jitter) - 10, k = 0;
			for (unsigned n = 0; n < setup + 10; n++)
				one[k++] = (struct mmp_sample){
					.ip = n < setup ? (kernel ? 0xffffffff81000000u : 0x1008) : 0x2008,
					.pid = 9, .tid = 9, .kind = MMP_SAMPLE_CPU,
					.kernel = (uint8_t)(n < setup && kernel), .nchain = n < setup && kernel };
			struct mmp_samples sm = { .s = one, .n = k, .cap = k, .chain = chain,
						  .nchain = 1, .chaincap = 1, .period_ns = 1000000,
						  .pid = 9, .perf_map = &pm, .nperf_map = 1 };
			struct mmp_count misses = { .state = MMP_COUNT_COUNTED,
						    .value = (i == 2 ? 1 : 10) * 1024.0 };
			struct mmp_rep_process px = { .samples = &sm };
			struct mmp_rep rep = { .index = r, .result_ok = 1, .process = &px,
					       .counts = dtlb ? &misses : NULL };
			rep.elapsed_ns = (uint64_t)(ns[i] * (1 << 20) * jitter);
			px.cpu_ns = rep.elapsed_ns;
			rep.dist.overlap = -1;
			assert_int_equal(mmp_results_record(&s->res, i, &rep, NULL), 0);
		}
	synth_compute(s);
}

/* What huge pages take away is TLB reach in the program's own code, but
 * the kernel's work per 4 KiB page when the profiles put it there (a
 * program that touches fresh memory once): then it is named page faults,
 * with the kernel's part as its evidence.  Outside the kernel, without a
 * dTLB counter, it is either: fewer, larger page set-ups below the kernel
 * (a hypervisor's) or TLB reach -- named so until a counter decides. */
static void test_huge_in_the_kernel_is_page_faults(void **state)
{
	struct synthetic s;
	(void)state;
	for (int kernel = 0; kernel < 2; kernel++)
		for (int dtlb = 0; dtlb < 2; dtlb++) {
			synth_huge(&s, kernel, dtlb);
			const struct mmp_attribution *a = &s.an.attr[0];
			assert_int_equal(a->n, 3); /* prefault, huge, the remainder */
			const struct mmp_cause *huge = &a->cause[1];
			assert_int_equal(huge->control->bit, MMP_CONTROL_HUGE);
			assert_true(huge->significant);
			print_message("# kernel %d, dTLB %d: %s, kernel part %.2f\n", kernel, dtlb,
				      huge->name, huge->kernel_part);
			if (kernel) {
				assert_string_equal(huge->name, "page setup (in the kernel)");
				assert_true(huge->kernel_part > 0.95);
				assert_null(huge->evidence.metric); /* not TLB misses */
			} else if (dtlb) {
				assert_string_equal(huge->name, "TLB reach");
				assert_true(huge->kernel_part == 0);
				assert_true(huge->evidence.counted);
				assert_true(huge->evidence.before > 9 * huge->evidence.after);
			} else {
				assert_string_equal(huge->name, "page setup (faults or TLB)");
				assert_non_null(strstr(huge->detail, "no dTLB counter to tell"));
				assert_false(huge->evidence.counted);
			}
			synth_free(&s);
		}
}

/* A program under prefault, huge (the job, +prefault, +huge) whose
 * preload library reported, in every repetition of both rungs, what r
 * says. */
static void synth_preload(struct synthetic *s, const struct mmp_preload_report *r)
{
	static const double ns[] = { 10.0, 5.0, 1.0 };
	synth_load(s, "[global]\nsize = 1M\ncontrols = prefault, huge\n"
		      "[j]\nprobe = exec\ncommand = prog {file}\nthreads = 1\n");
	assert_int_equal(s->plan.nruns, 3);
	for (unsigned k = 0; k < 6; k++)
		for (size_t i = 0; i < s->plan.nruns; i++) {
			struct mmp_rep_process px = { .preload_asked = i > 0 };
			struct mmp_rep rep = { .index = k, .result_ok = 1, .process = &px };
			rep.elapsed_ns = (uint64_t)(ns[i] * (1 << 20) * (1 + 0.01 * (k % 3)));
			px.cpu_ns = rep.elapsed_ns;
			rep.dist.overlap = -1;
			if (i)
				px.preload = *r;
			assert_int_equal(mmp_results_record(&s->res, i, &rep, NULL), 0);
		}
	synth_compute(s);
}

/* What the rungs reached in malloc'd blocks is said with them; a rung
 * that reached none says why, the allocator's part included. */
static void test_preload_blocks(void **state)
{
	struct synthetic s;
	(void)state;
	struct mmp_preload_report r = { .loaded = 1, .exited = 1, .mappings = 2,
					.present = (256u << 20) + (2u << 20), .advised = 256u << 20,
					.huge = 254u << 20, .blocks = 1,
					.block_present = 256u << 20, .block_advised = 256u << 20 };
	synth_preload(&s, &r);
	const struct mmp_attribution *a = &s.an.attr[0];
	assert_int_equal(a->nunused, 0);
	assert_int_equal(a->nreached, 2);
	assert_string_equal(a->reached[0].control->name, "prefault");
	assert_string_equal(a->reached[0].why,
			    "256 MiB in 1 malloc'd block populated, 2 MiB in its mappings");
	assert_string_equal(a->reached[1].control->name, "huge");
	assert_string_equal(a->reached[1].why,
			    "256 MiB in 1 malloc'd block advised MADV_HUGEPAGE; 254 MiB on huge pages");
	synth_free(&s);

	/* The kernel refused to populate the block (before Linux 5.14). */
	struct mmp_preload_report refused = { .loaded = 1, .exited = 1, .blocks = 1,
					      .refused = 1, .refused_errno = EINVAL };
	synth_preload(&s, &refused);
	a = &s.an.attr[0];
	assert_int_equal(a->nreached, 0);
	assert_int_equal(a->nunused, 2);
	assert_string_equal(a->unused[0].control->name, "prefault");
	assert_non_null(strstr(a->unused[0].why, "(0 mappings, 1 block changed; the kernel refused "
						 "to populate its 1 malloc'd block (MADV_POPULATE_WRITE: "));
	assert_non_null(strstr(a->unused[0].why, "Linux 5.14 and later have it)"));
	synth_free(&s);

	/* Its mappings populated, its blocks refused: the rung is used, and
	 * says what it did not reach. */
	refused.mappings = 3;
	refused.present = 4u << 20;
	synth_preload(&s, &refused);
	a = &s.an.attr[0];
	assert_int_equal(a->nunused, 1); /* huge: no huge pages given */
	assert_int_equal(a->nreached, 1);
	assert_string_equal(a->reached[0].control->name, "prefault");
	assert_non_null(strstr(a->reached[0].why, "no malloc'd block; the kernel refused to populate "
						  "its 1 malloc'd block (MADV_POPULATE_WRITE: "));
	synth_free(&s);

	/* The program's own malloc: not reached, and said so. */
	struct mmp_preload_report own = { .loaded = 1, .exited = 1, .noalloc = 1,
					  .noalloc_why = "own" };
	synth_preload(&s, &own);
	a = &s.an.attr[0];
	assert_int_equal(a->nunused, 2);
	assert_string_equal(a->unused[0].why,
			    "no mapping or malloc'd block of the program's was populated (0 mappings, "
			    "0 blocks changed; its allocator is not reached (the program brings its own "
			    "malloc))");
	synth_free(&s);
}


/* A program's ladder (the job, +prefault, +touch, +onepu on 2 PUs) whose
 * touch rung reached nothing: its times are noise (7.5 ns/B where
 * prefault's are 6, a CPU time 2.5x prefault's), recorded every round or,
 * skipped (controls = auto), its first round only. */
static void synth_unused_between(struct synthetic *s, int skipped)
{
	static const double wall[] = { 10.0, 6.0, 7.5, 12.0 }, cpu[] = { 20.0, 12.0, 30.0, 6.0 };
	const struct mmp_preload_report reached = { .loaded = 1, .exited = 1, .mappings = 1,
						    .present = 1u << 20, .touched = 1u << 20 },
					untouched = { .loaded = 1, .exited = 1, .mappings = 1,
						      .present = 1u << 20 };
	synth_load(s, "[global]\nsize = 1M\ncontrols = prefault, touch, onepu\n"
		      "[j]\nprobe = exec\ncommand = prog {file}\nthreads = 2\n");
	assert_int_equal(s->plan.nruns, 4);
	assert_int_equal(s->plan.runs[2].added, MMP_CONTROL_TOUCH);
	for (unsigned k = 0; k < 6; k++)
		for (size_t i = 0; i < s->plan.nruns; i++) {
			double jitter = 1 + 0.01 * (double)((k * 7 + i * 3) % 5);
			struct mmp_rep_process px = { .preload_asked = i > 0 };
			struct mmp_rep rep = { .index = k, .result_ok = 1, .process = &px };
			if (i == 2 && skipped) /* decided from its warmup: no round recorded */
				continue;
			rep.elapsed_ns = (uint64_t)(wall[i] * (1 << 20) * jitter);
			px.cpu_ns = (uint64_t)(cpu[i] * (1 << 20) * jitter);
			rep.dist.overlap = i == 3 ? 1 : 0.95;
			px.preload = i == 1 ? untouched : reached;
			if (i == 2)
				px.preload = untouched; /* nothing readable was touched */
			assert_int_equal(mmp_results_record(&s->res, i, &rep, NULL), 0);
		}
	s->res.run[2].skipped = skipped;
	if (skipped)
		snprintf(s->res.run[2].skipped_why, sizeof(s->res.run[2].skipped_why),
			 "its warmup reached nothing (no mapping touched)");
	synth_compute(s);
}

/* An unused rung between two used ones: the rung above it is held to the
 * rung below it (times and CPU times), never to its own noise; a skipped
 * rung without a round (decided from its warmup) leaves the rounds the
 * others share; the shares add up. */
static void test_unused_rung_between(void **state)
{
	struct synthetic s;
	(void)state;
	for (int skipped = 0; skipped < 2; skipped++) {
		synth_unused_between(&s, skipped);
		const struct mmp_attribution *a = &s.an.attr[0];
		assert_int_equal(a->rounds, 6);
		assert_int_equal(a->nunused, 1);
		assert_string_equal(a->unused[0].control->name, "touch");
		assert_int_equal(a->unused[0].skipped, skipped);
		assert_string_equal(mmp_unused_verb(&a->unused[0]),
				    skipped ? "skipped" : "changed nothing");
		assert_int_equal(skipped, strstr(a->unused[0].why, "its warmup reached nothing "
								   "(no mapping touched)") != NULL);
		assert_int_equal(a->n, 3); /* prefault, onepu, the remainder */
		assert_string_equal(a->cause[0].control->name, "prefault");
		assert_true(fabs(a->cause[0].cost.estimate - 4.0) < 0.2);
		const struct mmp_cause *onepu = &a->cause[1];
		assert_string_equal(onepu->control->name, "onepu");
		/* its CPU time against prefault's: 6 of 12, half of 6 ns/B */
		assert_ptr_equal(onepu->before, &s.res.run[1]);
		print_message("# skipped %d: onepu %.3f ns/B\n", skipped, onepu->cost.estimate);
		assert_true(fabs(onepu->cost.estimate - 3.0) < 0.1);
		assert_true(fabs(onepu->cpu_ratio.estimate - 2.0) < 0.05);
		assert_true(fabs(share_sum(a) - 1) < 1e-9);
		synth_free(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_ladders),
		cmocka_unit_test(test_program_ladder),
		cmocka_unit_test(test_arithmetic),
		cmocka_unit_test(test_interaction_merged),
		cmocka_unit_test(test_noise_decides_nothing),
		cmocka_unit_test(test_touch_per_page),
		cmocka_unit_test(test_immaterial_slowdown_not_merged),
		cmocka_unit_test(test_small_harm_beside_large_saving_not_merged),
		cmocka_unit_test(test_disturbed_rounds),
		cmocka_unit_test(test_exec_sharing_decided_first),
		cmocka_unit_test(test_disturbed_names_no_fix),
		cmocka_unit_test(test_disturbed_answer_inconclusive),
		cmocka_unit_test(test_huge_in_the_kernel_is_page_faults),
		cmocka_unit_test(test_preload_blocks),
		cmocka_unit_test(test_unused_rung_between),
	};
	return cmocka_run_group_tests_name("attribution", tests, NULL, NULL);
}
