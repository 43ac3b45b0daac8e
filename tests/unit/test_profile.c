/* The sampling profile: records parsed, a real program sampled through
 * the ring buffers and named by elfutils (the right function and
 * file:line of tests/helpers/hot.c), a stripped copy shown as
 * module+offset with the reason, faults grouped by mapping, and the
 * growth between two runs put on the line that grew. */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <sys/wait.h>

#include "analysis/attribution.h"
#include "run/concurrency.h"
#include "plan/controls.h"
#include "analysis/evidence.h"
#include "run/exec_child.h"
#include "result/profile.h"
#include "platform/sampling.h"
#include "result/symbols.h"

static char hot[512], stripped[512], planted[512], jit[512];

static int setup(void **state)
{
	const char *build = getenv("BUILD");
	(void)state;
	snprintf(hot, sizeof(hot), "%s/tests/hot", build && *build ? build : "build");
	snprintf(stripped, sizeof(stripped), "%s/tests/hot-stripped",
		 build && *build ? build : "build");
	snprintf(planted, sizeof(planted), "%s/tests/planted", build && *build ? build : "build");
	snprintf(jit, sizeof(jit), "%s/tests/jit", build && *build ? build : "build");
	return 0;
}

/* The line of tests/helpers/hot.c that holds marker. */
static unsigned line_of(const char *marker)
{
	FILE *f = fopen("tests/helpers/hot.c", "r");
	char buf[512];
	unsigned n = 0;
	assert_non_null(f);
	while (fgets(buf, sizeof(buf), f)) {
		n++;
		if (strstr(buf, marker)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("no %s in hot.c", marker);
	return 0;
}

/* Run argv under the sampler; skip when the kernel refuses to sample. */
static void sample(char *const *argv, unsigned hz, unsigned fault_period,
		   struct mmp_samples *out)
{
	struct mmp_exec_child c;
	struct mmp_error err = { 0 };
	struct mmp_sampler *s;
	char why[256] = "";
	int pus[1] = { 0 };
	cpu_set_t set;
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set)) {
			pus[0] = i;
			break;
		}
	struct mmp_exec_spec spec = { .path = argv[0], .argv = argv, .pus = pus, .npus = 1,
				      .mpol = -1 };
	if (access(argv[0], X_OK)) {
		print_message("# %s: not there to run (make unit-tests builds it)\n", argv[0]);
		skip();
	}
	assert_int_equal(mmp_exec_child_start(&c, &spec, &err), 0);
	struct mmp_sampling_opts o = { .hz = hz, .fault_period = fault_period };
	int rc = mmp_sampler_open_child(&s, c.pid, &o, why, sizeof(why));
	if (rc) {
		mmp_exec_child_kill(&c);
		mmp_exec_child_close(&c);
		print_message("# %s\n", why);
		skip();
	}
	assert_int_equal(mmp_sampler_start(s), 0);
	assert_int_equal(mmp_exec_child_go(&c, argv[0], &err), 0);
	assert_int_equal(mmp_exec_child_wait(&c, 60, NULL), 0);
	assert_true(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0);
	assert_int_equal(mmp_sampler_finish(s, out), 0);
	mmp_sampler_close(s);
	mmp_exec_child_close(&c);
}

static const struct mmp_prof_row *top(const struct mmp_profile *p, enum mmp_prof_kind kind)
{
	const struct mmp_prof_row *r[1];
	assert_int_equal(mmp_profile_top(p, kind, r, 1), 1);
	return r[0];
}

static void test_hot_function_and_line(void **state)
{
	char *argv[] = { hot, "spin", "300", NULL };
	struct mmp_samples s;
	struct mmp_symbols *sy;
	struct mmp_profile p;
	char name[256];
	(void)state;
	sample(argv, 2000, 0, &s);
	/* 300 ms of CPU at 2 kHz: some 600 samples; the mappings of the
	 * program and its libraries were recorded. */
	assert_true(s.n > 100);
	assert_true(s.nmap >= 2);
	assert_int_equal(mmp_symbols_new(&sy), 0);
	mmp_profile_init(&p);
	assert_int_equal(mmp_profile_add(&p, sy, &s, 0), 0);
	const struct mmp_prof_row *f = top(&p, MMP_PROF_FUNCTION);
	assert_non_null(f->function);
	assert_string_equal(f->function, "hot_loop");
	const struct mmp_prof_row *l = top(&p, MMP_PROF_LINE);
	print_message("# top line %s, %.0f of %.0f samples\n",
		      mmp_prof_row_name(l, name, sizeof(name)), l->total,
		      mmp_profile_samples(&p, 0));
	assert_non_null(strstr(l->file, "hot.c"));
	assert_int_equal(l->line, line_of("/* HOT */"));
	struct mmp_interval share;
	mmp_profile_share(&p, f, &share);
	assert_true(share.estimate > 0.5);
	mmp_profile_free(&p);
	mmp_symbols_free(sy);
	mmp_samples_free(&s);
}

static void test_stripped(void **state)
{
	char *argv[] = { stripped, "spin", "200", NULL };
	struct mmp_samples s;
	struct mmp_symbols *sy;
	struct mmp_profile p;
	char name[256];
	(void)state;
	sample(argv, 2000, 0, &s);
	assert_int_equal(mmp_symbols_new(&sy), 0);
	mmp_profile_init(&p);
	assert_int_equal(mmp_profile_add(&p, sy, &s, 0), 0);
	const struct mmp_prof_row *f = top(&p, MMP_PROF_FUNCTION);
	mmp_prof_row_name(f, name, sizeof(name));
	print_message("# top: %s\n", name);
	assert_null(f->function);
	assert_int_equal(f->why, MMP_STRIPPED);
	assert_non_null(strstr(f->module, "hot-stripped"));
	assert_non_null(strstr(name, "hot-stripped+0x"));
	assert_non_null(strstr(name, "stripped"));
	assert_true(p.unnamed[MMP_STRIPPED] > 0);
	mmp_profile_free(&p);
	mmp_symbols_free(sy);
	mmp_samples_free(&s);
}

static void test_faults_by_mapping(void **state)
{
	const char *dir = test_tmpdir();
	char file[600];
	snprintf(file, sizeof(file), "%s/data.bin", dir);
	FILE *f = fopen(file, "w");
	assert_non_null(f);
	for (int i = 0; i < 4 << 20; i++)
		fputc(i & 0xff, f);
	assert_int_equal(fclose(f), 0);
	char *argv[] = { hot, "fault", file, "32", NULL };
	struct mmp_samples s;
	struct mmp_symbols *sy;
	struct mmp_profile p;
	(void)state;
	sample(argv, 1000, 1, &s);
	assert_int_equal(mmp_symbols_new(&sy), 0);
	mmp_profile_init(&p);
	assert_int_equal(mmp_profile_add(&p, sy, &s, 0), 0);
	const struct mmp_prof_row *r[16];
	size_t n = mmp_profile_top(&p, MMP_PROF_FAULTS, r, 16);
	int anon = -1, data = -1;
	for (size_t i = 0; i < n; i++) {
		print_message("# faults %.0f in %s\n", r[i]->total, r[i]->module);
		if (strcmp(r[i]->module, "anonymous") == 0)
			anon = (int)i;
		if (strcmp(r[i]->module, file) == 0)
			data = (int)i;
	}
	/* 32 MiB touched page by page: 8192 faults in anonymous memory,
	 * the most; the file's mapping had some too. */
	assert_int_equal(anon, 0);
	assert_true(r[0]->total >= 8192);
	assert_true(data > 0);
	mmp_profile_free(&p);
	mmp_symbols_free(sy);
	mmp_samples_free(&s);
	unlink(file);
	rmdir(dir);
}

/* The inclusive row of a named function, or NULL. */
static const struct mmp_prof_row *inclusive(const struct mmp_profile *p, const char *function)
{
	for (size_t i = 0; i < p->nrows; i++)
		if (p->row[i].kind == MMP_PROF_INCLUSIVE && p->row[i].function &&
		    strcmp(p->row[i].function, function) == 0)
			return &p->row[i];
	return NULL;
}

/* hot deep 8: half the time in deep_a() under main(), half under via()
 * and eight frames of outer(), which divides it between deep_a() and
 * deep_b(): outer() is an inclusive row of about half the samples,
 * counted once per sample however deep it recursed (eight times would be
 * four times the samples), and the one caller worth showing: main() is in
 * every sample, via() passes all of its samples to outer(), the leaves
 * are their own time. */
static void test_inclusive(void **state)
{
	char *argv[] = { hot, "deep", "8", "300000000", NULL };
	struct mmp_samples s;
	struct mmp_symbols *sy;
	struct mmp_profile p;
	(void)state;
	sample(argv, 2000, 0, &s);
	assert_int_equal(mmp_symbols_new(&sy), 0);
	mmp_profile_init(&p);
	assert_int_equal(mmp_profile_add(&p, sy, &s, 0), 0);
	double all = mmp_profile_samples(&p, 0);
	const struct mmp_prof_row *o = inclusive(&p, "outer"), *m = inclusive(&p, "main"),
				  *v = inclusive(&p, "via");
	assert_non_null(o);
	assert_non_null(m);
	assert_non_null(v);
	print_message("# %.0f samples: inclusive outer %.0f (depth %.1f), via %.0f, main %.0f\n",
		      all, o->total, o->depth / o->total, v->total, m->total);
	assert_true(o->total <= all && m->total <= all && v->total <= all);
	assert_true(o->total > 0.3 * all && o->total < 0.7 * all);
	assert_true(m->total > 0.95 * all);
	/* No sample lands in outer() itself. */
	const struct mmp_prof_row *f[64];
	size_t n = mmp_profile_top(&p, MMP_PROF_FUNCTION, f, 64);
	for (size_t i = 0; i < n; i++)
		assert_true(!f[i]->function || strcmp(f[i]->function, "outer") != 0 ||
			    f[i]->total < 0.05 * all);
	const struct mmp_prof_row *c[8];
	n = mmp_profile_callers(&p, c, 8);
	int outer_shown = 0;
	for (size_t i = 0; i < n; i++) {
		print_message("# caller %s %.0f\n", c[i]->function, c[i]->total);
		outer_shown += strcmp(c[i]->function, "outer") == 0;
		assert_string_not_equal(c[i]->function, "main");
		assert_string_not_equal(c[i]->function, "via");
		assert_string_not_equal(c[i]->function, "deep_a");
		assert_string_not_equal(c[i]->function, "deep_b");
	}
	assert_int_equal(outer_shown, 1);
	mmp_profile_free(&p);
	mmp_symbols_free(sy);
	mmp_samples_free(&s);
}

/* Run a: 60 ms spinning, run b: 240 ms, three rounds each: the growth
 * (per unit of work, here the run) is at the HOT line. */
static void test_growth(void **state)
{
	char *a_argv[] = { hot, "spin", "60", NULL }, *b_argv[] = { hot, "spin", "240", NULL };
	struct mmp_symbols *sy;
	struct mmp_profile a, b;
	struct mmp_growth g[4];
	struct mmp_interval total;
	char name[256];
	(void)state;
	assert_int_equal(mmp_symbols_new(&sy), 0);
	mmp_profile_init(&a);
	mmp_profile_init(&b);
	for (size_t k = 0; k < 3; k++) {
		struct mmp_samples s;
		sample(a_argv, 2000, 0, &s);
		assert_int_equal(mmp_profile_add(&a, sy, &s, k), 0);
		mmp_samples_free(&s);
		sample(b_argv, 2000, 0, &s);
		assert_int_equal(mmp_profile_add(&b, sy, &s, k), 0);
		mmp_samples_free(&s);
	}
	size_t n = mmp_profile_growth(&a, 1, &b, 1, MMP_PROF_LINE, g, 4, &total);
	assert_true(n >= 1);
	print_message("# growth %.1f ms [%.1f, %.1f]; top %s %.0f%% [%.0f, %.0f]\n",
		      total.estimate / 1e6, total.low / 1e6, total.high / 1e6,
		      mmp_prof_row_name(g[0].row, name, sizeof(name)), 100 * g[0].share.estimate,
		      100 * g[0].share.low, 100 * g[0].share.high);
	assert_true(total.valid && total.low > 0);
	assert_int_equal(g[0].row->line, line_of("/* HOT */"));
	assert_true(g[0].share.estimate > 0.5);
	/* The same as a verdict's evidence: a is the rung with the control
	 * (onepu here), b the one without it. */
	struct mmp_run_result ra = { .profile = &a, .bytes = 0 }, rb = { .profile = &b };
	struct mmp_cause c = { .control = mmp_control_by_bit(MMP_CONTROL_ONEPU), .before = &rb,
			       .after = &ra };
	char text[512], want[128];
	assert_int_equal(mmp_evidence_cause(&c, text, sizeof(text)), 1);
	print_message("# %s\n", text);
	snprintf(want, sizeof(want), "of the CPU time onepu takes away is at hot.c:%u in hot_loop()",
		 line_of("/* HOT */"));
	assert_non_null(strstr(text, want));
	/* No growth the other way round: nothing to say. */
	c.before = &ra;
	c.after = &rb;
	assert_int_equal(mmp_evidence_cause(&c, text, sizeof(text)), 0);
	mmp_profile_free(&a);
	mmp_profile_free(&b);
	mmp_symbols_free(sy);
}

/* The kernel's record of a real program's threads going on and off the
 * one PU it is bound to (sample() binds it): two workers with 32 MiB to
 * sum each could only take turns, and the records say so -- both ready
 * for a while, never both running.  With no rate (profile = off) there
 * are no samples, only these records. */
static void test_switches_on_one_pu(void **state)
{
	char *argv[] = { planted, "bandwidth", "16", "2", "4", NULL };
	struct mmp_samples s;
	struct mmp_concurrency c;
	(void)state;
	sample(argv, 0, 0, &s);
	assert_int_equal(s.n, 0);
	assert_true(s.nsw > 0);
	assert_int_equal(mmp_concurrency_measure(s.sw, s.nsw, 2, &c), 0);
	print_message("# %zu records, %u threads, %.1f ms two ready, %.1f ms two running\n",
		      s.nsw, c.threads, c.ready2_ns / 1e6, c.run2_ns / 1e6);
	assert_int_equal(c.threads, 3);
	assert_true(c.ready2_ns > 0);
	assert_int_equal(c.run2_ns, 0);
	assert_true(c.overlap == 0);
	assert_true(c.cpu_ns > 0);
	mmp_samples_free(&s);
}

/* JIT code has no line table: where its time grew is said by function.
 * tests/helpers/jit.c compiles a loop and names it in a perf map (as .NET
 * with DOTNET_PerfMapEnabled=1, run from its W^X view); run a spins it 4
 * times less than run b.  The lines that grow are the C library's, a few samples:
 * the growth is put on jitted_loop[Helper], not on one of them. */
static void test_where_jit(void **state)
{
	char *a_argv[] = { jit, "100000000", NULL }, *b_argv[] = { jit, "400000000", NULL };
	struct mmp_symbols *sy;
	struct mmp_profile a, b;
	struct mmp_growth g[2];
	struct mmp_interval total;
	char name[256], path[64];
	(void)state;
	setenv("DOTNET_PerfMapEnabled", "1", 1);
	assert_int_equal(mmp_symbols_new(&sy), 0);
	mmp_profile_init(&a);
	mmp_profile_init(&b);
	for (size_t k = 0; k < 3; k++) {
		struct mmp_samples s;
		for (int which = 0; which < 2; which++) {
			sample(which ? b_argv : a_argv, 2000, 0, &s);
			snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)s.pid);
			unlink(path);
			assert_true(s.nperf_map >= 1);
			assert_int_equal(mmp_profile_add(which ? &b : &a, sy, &s, k), 0);
			mmp_samples_free(&s);
		}
	}
	unsetenv("DOTNET_PerfMapEnabled");
	struct mmp_run_result ra = { .profile = &a }, rb = { .profile = &b };
	size_t n = mmp_evidence_where(&ra, &rb, g, 2, &total);
	assert_true(n >= 1);
	print_message("# growth %.1f ms; top %s %.0f%%\n", total.estimate / 1e6,
		      mmp_prof_row_name(g[0].row, name, sizeof(name)), 100 * g[0].share.estimate);
	assert_int_equal(g[0].row->kind, MMP_PROF_FUNCTION);
	assert_non_null(g[0].row->function);
	assert_string_equal(g[0].row->function, "jitted_loop[Helper]");
	assert_true(g[0].share.estimate > 0.5);
	/* By line, the C library's lines alone: not what a verdict quotes. */
	n = mmp_evidence_growth(&ra, &rb, MMP_PROF_LINE, g, 1, &total);
	assert_true(n == 0 || g[0].growth.estimate < 0.5 * total.estimate);
	mmp_profile_free(&a);
	mmp_profile_free(&b);
	mmp_symbols_free(sy);
}

/* One round of samples, by hand: n[f] cpu samples in JIT function f of
 * "fell", "grew", "same" (named from a perf map, no program run). */
static void synthetic(struct mmp_profile *p, struct mmp_symbols *sy, size_t round,
		      const unsigned n[3])
{
	static const char map[] = "1000 100 fell\n2000 100 grew\n3000 100 same\n";
	struct mmp_perf_map pm = { .pid = 7, .path = "/tmp/perf-7.map", .text = (char *)map,
				   .len = sizeof(map) - 1 };
	struct mmp_sample one[400];
	size_t k = 0;
	for (int f = 0; f < 3; f++)
		for (unsigned i = 0; i < n[f]; i++)
			one[k++] = (struct mmp_sample){ .ip = 0x1000u * (f + 1u) + 8, .pid = 7,
							.tid = 7, .kind = MMP_SAMPLE_CPU };
	struct mmp_samples s = { .s = one, .n = k, .cap = k, .period_ns = 1000000, .pid = 7,
				 .perf_map = &pm, .nperf_map = 1 };
	assert_int_equal(mmp_profile_add(p, sy, &s, round), 0);
}

/* A control that moves time rather than only removing it (prefault moves
 * the faults' work into mmap): from a to b "grew" gains 90 samples and
 * "fell" loses 80, a net growth of 10.  Its share is of where the time
 * grew (100%), not of the net (900%). */
static void test_growth_moved(void **state)
{
	static const unsigned a_n[3][3] = { { 100, 10, 50 }, { 104, 9, 50 }, { 98, 11, 50 } };
	static const unsigned b_n[3][3] = { { 20, 100, 50 }, { 22, 101, 50 }, { 19, 99, 50 } };
	struct mmp_symbols *sy;
	struct mmp_profile a, b;
	struct mmp_growth g[3];
	struct mmp_interval total;
	(void)state;
	assert_int_equal(mmp_symbols_new(&sy), 0);
	mmp_profile_init(&a);
	mmp_profile_init(&b);
	for (size_t k = 0; k < 3; k++) {
		synthetic(&a, sy, k, a_n[k]);
		synthetic(&b, sy, k, b_n[k]);
	}
	size_t n = mmp_profile_growth(&a, 1, &b, 1, MMP_PROF_FUNCTION, g, 3, &total);
	assert_int_equal(n, 3);
	assert_string_equal(g[0].row->function, "grew");
	assert_true(total.estimate > 5e6 && total.estimate < 15e6);
	assert_true(g[0].growth.estimate > 85e6 && g[0].growth.estimate < 95e6);
	assert_true(g[0].grew == g[0].growth.estimate);
	assert_true(g[0].share.estimate > 0.99 && g[0].share.estimate <= 1.0 + 1e-9);
	assert_string_equal(g[2].row->function, "fell");
	assert_true(g[2].share.estimate < -0.8);
	mmp_profile_free(&a);
	mmp_profile_free(&b);
	mmp_symbols_free(sy);
}

/* A stack as the folded file writes it, root first ("same;grew;fell"). */
static void folded_line(const struct mmp_profile *p, const struct mmp_prof_stack *st, char *buf,
			size_t len)
{
	char name[128];
	size_t used = 0;
	buf[0] = '\0';
	for (size_t k = st->n; k-- > 0 && used < len;)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ";" : "",
					 mmp_prof_frame_name(&p->frame[st->first + k], name,
							     sizeof(name)));
}

/* Folded stacks, by hand: three samples in fell() called by grew()
 * called by same(), two in grew() called by same(), one in the kernel
 * entered from fell() (its "[kernel]" frame innermost), one in a JIT
 * function whose name holds the format's separator.  One stack each,
 * with its count; the counts add up to the samples. */
static void test_folded_stacks(void **state)
{
	static const char map[] = "1000 100 fell\n2000 100 grew\n3000 100 same\n4000 100 a;b\n";
	struct mmp_perf_map pm = { .pid = 7, .path = "/tmp/perf-7.map", .text = (char *)map,
				   .len = sizeof(map) - 1 };
	uint64_t chain[] = { 0x2008, 0x3008, 0x3008, 0x1008, 0x2008 };
	struct mmp_sample one[7];
	for (int i = 0; i < 7; i++)
		one[i] = (struct mmp_sample){ .ip = 0x1008, .pid = 7, .tid = 7,
					      .kind = MMP_SAMPLE_CPU, .chain = 0, .nchain = 2 };
	one[3].ip = one[4].ip = 0x2008;
	one[3].chain = one[4].chain = 2;
	one[3].nchain = one[4].nchain = 1;
	one[5] = (struct mmp_sample){ .ip = 0xffffffff81000000u, .pid = 7, .tid = 7,
				      .kind = MMP_SAMPLE_CPU, .kernel = 1, .chain = 3,
				      .nchain = 2 };
	one[6] = (struct mmp_sample){ .ip = 0x4008, .pid = 7, .tid = 7, .kind = MMP_SAMPLE_CPU };
	struct mmp_samples s = { .s = one, .n = 7, .cap = 7, .chain = chain, .nchain = 5,
				 .period_ns = 1000000, .pid = 7, .perf_map = &pm, .nperf_map = 1 };
	struct mmp_symbols *sy;
	struct mmp_profile p;
	char line[512];
	static const struct {
		const char *stack;
		double n;
	} want[] = { { "same;grew;fell", 3 }, { "same;grew", 2 }, { "grew;fell;[kernel]", 1 },
		     { "a:b", 1 } };
	(void)state;
	assert_int_equal(mmp_symbols_new(&sy), 0);
	mmp_profile_init(&p);
	assert_int_equal(mmp_profile_add(&p, sy, &s, 0), 0);
	assert_int_equal(p.nstacks, 4);
	double sum = 0;
	for (size_t i = 0; i < p.nstacks; i++) {
		folded_line(&p, &p.stack[i], line, sizeof(line));
		print_message("# %s %.0f\n", line, p.stack[i].total);
		size_t w = 0;
		while (w < 4 && strcmp(want[w].stack, line) != 0)
			w++;
		assert_true(w < 4);
		assert_true(p.stack[i].total == want[w].n);
		sum += p.stack[i].total;
	}
	assert_true(sum == mmp_profile_samples(&p, 0));
	mmp_profile_free(&p);
	mmp_symbols_free(sy);
}

/* A where: line names rows until half of what the control took away is
 * named: three functions grow 40, 35 and 30 samples, so the first two
 * (38% and 33%) are said, the third is not. */
static void test_where_names_half(void **state)
{
	static const unsigned a_n[3][3] = { { 10, 10, 50 }, { 11, 9, 50 }, { 10, 11, 49 } };
	static const unsigned b_n[3][3] = { { 50, 45, 80 }, { 51, 44, 81 }, { 49, 46, 79 } };
	struct mmp_symbols *sy;
	struct mmp_profile a, b;
	char line[1024];
	(void)state;
	assert_int_equal(mmp_symbols_new(&sy), 0);
	mmp_profile_init(&a);
	mmp_profile_init(&b);
	for (size_t k = 0; k < 3; k++) {
		synthetic(&a, sy, k, a_n[k]);
		synthetic(&b, sy, k, b_n[k]);
	}
	struct mmp_run_result ra = { .profile = &a }, rb = { .profile = &b };
	struct mmp_cause c = { .control = mmp_control_by_bit(MMP_CONTROL_ONEPU), .after = &ra,
			       .before = &rb };
	assert_int_equal(mmp_evidence_cause(&c, line, sizeof(line)), 1);
	print_message("# where: %s\n", line);
	assert_non_null(strstr(line, "38% [37, 39] of the CPU time onepu takes away is at fell()"));
	assert_non_null(strstr(line, "; 33% ["));
	assert_non_null(strstr(line, "] at grew()"));
	assert_null(strstr(line, "same"));
	mmp_profile_free(&a);
	mmp_profile_free(&b);
	mmp_symbols_free(sy);
}

/* Records as the kernel writes them: a sample with a chain, an MMAP2. */
static void test_parse_records(void **state)
{
	unsigned char buf[512] = { 0 };
	size_t at = 0;
	struct mmp_samples s = { 0 };
	(void)state;
	/* sample: header, id, ip, pid/tid, time, nr, chain */
	uint64_t sample[] = { 7, 0x401000, ((uint64_t)43 << 32) | 42, 1000, 4,
			      (uint64_t)PERF_CONTEXT_USER, 0x401000, 0x402000, 0x403000 };
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER,
				       .size = (uint16_t)(sizeof(h) + sizeof(sample)) };
	memcpy(buf + at, &h, sizeof(h));
	memcpy(buf + at + sizeof(h), sample, sizeof(sample));
	at += h.size;
	/* mmap2: pid/tid, addr, len, pgoff, maj/min, ino, ino_gen, prot/flags,
	 * name (8-aligned), trailer {pid/tid, time, id} */
	uint64_t m[] = { ((uint64_t)42 << 32) | 42, 0x400000, 0x10000, 0x1000, 0, 0, 0, 5 };
	const char name[16] = "/bin/prog";
	uint64_t trailer[] = { 42, 900, 7 };
	h = (struct perf_event_header){ .type = PERF_RECORD_MMAP2,
					.size = (uint16_t)(sizeof(h) + sizeof(m) + sizeof(name) +
							   sizeof(trailer)) };
	memcpy(buf + at, &h, sizeof(h));
	memcpy(buf + at + sizeof(h), m, sizeof(m));
	memcpy(buf + at + sizeof(h) + sizeof(m), name, sizeof(name));
	memcpy(buf + at + sizeof(h) + sizeof(m) + sizeof(name), trailer, sizeof(trailer));
	at += h.size;
	assert_int_equal(mmp_samples_parse(&s, buf, at, 7, 8), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.s[0].ip, 0x401000);
	assert_int_equal(s.s[0].pid, 42);
	assert_int_equal(s.s[0].tid, 43);
	assert_int_equal(s.s[0].time, 1000);
	/* the marker and the ip itself are not callers */
	assert_int_equal(s.s[0].nchain, 2);
	assert_int_equal(s.chain[s.s[0].chain], 0x402000);
	assert_int_equal(s.nmap, 1);
	assert_int_equal(s.map[0].start, 0x400000);
	assert_int_equal(s.map[0].pgoff, 0x1000);
	assert_int_equal(s.map[0].time, 900);
	assert_string_equal(s.map[0].name, "/bin/prog");
	/* a record longer than the bytes left is refused, not read past */
	assert_int_equal(mmp_samples_parse(&s, buf, at - 8, 7, 8), -EINVAL);
	mmp_samples_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_records),
		cmocka_unit_test(test_switches_on_one_pu),
		cmocka_unit_test(test_hot_function_and_line),
		cmocka_unit_test(test_stripped),
		cmocka_unit_test(test_faults_by_mapping),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_growth_moved),
		cmocka_unit_test(test_folded_stacks),
		cmocka_unit_test(test_where_names_half),
		cmocka_unit_test(test_inclusive),
		cmocka_unit_test(test_where_jit),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
