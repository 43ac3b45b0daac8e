/* Controls and attribution: parsing `controls`, which rungs a job's ladder
 * gets (on a synthetic two-PU machine), and the arithmetic of the causes:
 * costs add up to the job, noise decides significance, the top cause. */
#include "helpers.h"

#include <errno.h>

#include "mmprof/attribution.h"
#include "mmprof/config.h"
#include "mmprof/controls.h"
#include "mmprof/probe.h"
#include "mmprof/topology.h"

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
	assert_string_equal(mmp_control_name(MMP_CONTROL_SOLO), "solo");
}

/* The runs of a config, on a machine of 2 PUs (synthetic). */
struct fixture {
	struct mmp_config cfg;
	struct mmp_plan plan;
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
	mmp_plan_free(&f->plan);
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
	if (out->n != n + 1) {
		for (size_t k = 0; k < out->n; k++)
			print_message("# rung %zu: %s\n", k, out->rung[k].run.control_name);
		fail_msg("run %zu: %zu rungs, want %zu", i, out->n - 1, n);
	}
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
		 "[once1]\nprobe = accessor_byte\nrefcount = once\n"
		 "[limit2]\nprobe = limit\nthreads = 2\n"
		 "[some]\nprobe = accessor_byte\nthreads = 2\ncontrols = bulk, prefault\n"
		 "[off]\nprobe = accessor_byte\ncontrols = none\n");

	static const char *const seed8[] = { "fit", "fit+prefault", "fit+prefault+private",
					     "fit+prefault+private+bulk",
					     "fit+prefault+private+bulk+solo" };
	ladder_is(&f, 0, seed8, 5, &l);
	assert_int_equal(l.rung[1].run.p.threads, 2); /* fit: the 2 PUs */
	assert_int_equal(l.rung[1].plan.nthreads, 2);
	assert_false(l.rung[1].plan.oversubscribed);
	assert_true(l.rung[2].run.p.prefault);
	assert_int_equal(l.rung[3].run.p.tally, MMP_TALLY_PADDED);
	assert_true(l.rung[3].run.control & MMP_CONTROL_PRIVATE);
	assert_string_equal(l.rung[4].run.p.probe->name, "accessor_block");
	assert_int_equal(mmp_params_access(&l.rung[4].run.p), 4096);
	assert_int_equal(l.rung[5].run.p.threads, 1);
	assert_int_equal(l.rung[5].solo_of, 2);
	assert_int_equal(l.rung[5].plan.pu[0], l.rung[4].plan.pu[0]);
	assert_int_equal(l.rung[0].run.p.threads, 8); /* the job itself, untouched */
	mmp_ladder_free(&l);

	static const char *const packed[] = { "padded", "padded+bulk", "padded+bulk+solo" };
	ladder_is(&f, 1, packed, 3, &l);
	assert_string_equal(l.rung[2].run.p.probe->name, "mmap_block");
	mmp_ladder_free(&l);

	static const char *const once1[] = { "prefault", "prefault+bulk" };
	ladder_is(&f, 2, once1, 2, &l); /* one thread: nothing is shared */
	mmp_ladder_free(&l);

	static const char *const limit2[] = { "prefault", "prefault+solo" };
	ladder_is(&f, 3, limit2, 2, &l); /* no bulk path, nothing shared */
	mmp_ladder_free(&l);

	static const char *const some[] = { "prefault", "prefault+bulk" };
	ladder_is(&f, 4, some, 2, &l); /* only what was asked, in ladder order */
	mmp_ladder_free(&l);

	ladder_is(&f, 5, NULL, 0, &l);
	mmp_ladder_free(&l);
	unload(&f);
}

/* A job of 100 ns per byte over 1 MiB and its rungs with given medians. */
static void fake(struct mmp_run_result *r, struct mmp_run *run, double median_ns,
		 double sd_ns)
{
	memset(r, 0, sizeof(*r));
	r->run = run;
	r->bytes = 1 << 20;
	r->n = 5;
	r->state = MMP_RUN_DONE;
	r->st.median = median_ns;
	r->st.mean = median_ns;
	r->st.stddev = sd_ns;
	r->st.cv = sd_ns / median_ns;
}

static void test_arithmetic(void **state)
{
	static struct mmp_job job = { .name = "j" };
	static const unsigned added[] = { 0, MMP_CONTROL_FIT, MMP_CONTROL_PREFAULT,
					  MMP_CONTROL_PRIVATE, MMP_CONTROL_BULK };
	/* ns per byte at each rung: 100, then 98 (fit, within noise), 90
	 * (faults 8), 20 (sharing 70), 21 (bulk: 1 slower, significant). */
	static const double per_byte[] = { 100, 98, 90, 20, 21 };
	struct mmp_rung rungs[5];
	struct mmp_ladder ladder = { rungs, 5 };
	struct mmp_run_result r, controls[4];
	struct mmp_attribution a;
	const double bytes = 1 << 20;
	(void)state;

	memset(rungs, 0, sizeof(rungs));
	for (int k = 0; k < 5; k++) {
		rungs[k].added = added[k];
		rungs[k].run.job = &job;
		rungs[k].run.p.probe = mmp_probe_find("accessor_byte");
		rungs[k].run.applies = ~UINT64_C(0);
		rungs[k].run.p.refcount = MMP_REFCOUNT_SHARED;
		rungs[k].run.p.tally = MMP_TALLY_LOCAL;
	}
	fake(&r, &rungs[0].run, per_byte[0] * bytes, 2 * bytes);
	for (int k = 1; k < 5; k++)
		fake(&controls[k - 1], &rungs[k].run, per_byte[k] * bytes, 0.1 * bytes);
	r.ladder = &ladder;
	r.controls = controls;
	r.ncontrols = 4;

	assert_int_equal(mmp_attribute(&r, &a), 0);
	assert_int_equal(a.n, 5);
	assert_float_equal(a.total, 100, 1e-9);
	double sum = 0, share = 0;
	for (size_t i = 0; i < a.n; i++) {
		sum += a.cause[i].ns_per_byte;
		share += a.cause[i].share;
	}
	assert_float_equal(sum, 100, 1e-9); /* the ladder adds up */
	assert_float_equal(share, 1, 1e-12);

	assert_int_equal(a.cause[0].kind, MMP_CAUSE_OVERSUBSCRIPTION);
	assert_float_equal(a.cause[0].ns_per_byte, 2, 1e-9);
	assert_false(a.cause[0].significant); /* 2 < 2 + 0.1 */
	assert_int_equal(a.cause[1].kind, MMP_CAUSE_FAULTS);
	assert_true(a.cause[1].significant);
	assert_int_equal(a.cause[2].kind, MMP_CAUSE_TRUE_SHARING);
	assert_string_equal(a.cause[2].detail, "refcount");
	assert_float_equal(a.cause[2].share, 0.70, 1e-9);
	assert_int_equal(a.cause[3].kind, MMP_CAUSE_PER_CALL);
	assert_float_equal(a.cause[3].ns_per_byte, -1, 1e-9); /* shown, not hidden */
	assert_true(a.cause[3].significant);
	assert_int_equal(a.cause[4].kind, MMP_CAUSE_UNEXPLAINED);
	assert_float_equal(a.cause[4].ns_per_byte, 21, 1e-9);

	const struct mmp_cause *top = mmp_attribution_top(&a);
	assert_non_null(top);
	assert_int_equal(top->kind, MMP_CAUSE_TRUE_SHARING);
	assert_non_null(strstr(mmp_cause_fix(top), "reference once per thread"));
	/* No counters in this fake: the evidence says what was missing. */
	assert_false(a.cause[2].evidence.counted);
	assert_non_null(strstr(a.cause[2].evidence.missing, "contention"));

	/* Everything within noise: no top cause. */
	for (int k = 1; k < 5; k++)
		controls[k - 1].st.median = per_byte[0] * bytes, controls[k - 1].st.stddev = 3 * bytes;
	assert_int_equal(mmp_attribute(&r, &a), 0);
	assert_null(mmp_attribution_top(&a));

	/* Without every rung's data there is no attribution. */
	controls[2].n = 0;
	assert_int_equal(mmp_attribute(&r, &a), -ENODATA);
	r.ncontrols = 0;
	assert_int_equal(mmp_attribute(&r, &a), -ENODATA);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_ladders),
		cmocka_unit_test(test_arithmetic),
	};
	return cmocka_run_group_tests_name("attribution", tests, NULL, NULL);
}
