/* Config parsing: every error class with its FILE:LINE, [global]
 * inheritance, defaults, sweep expansion, zip, and the key table itself. */
#include "helpers.h"

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "config/config.h"
#include "mmprof/probe.h"

static char path[600];

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "%s/cfg.ini", test_tmpdir());
	return 0;
}

/* Load (and, when that passes, expand) a config given as text. */
static int load(const char *text, struct mmp_config *cfg, struct mmp_sweep *plan)
{
	test_write_file(path, text);
	memset(plan, 0, sizeof(*plan));
	int rc = mmp_config_load(path, cfg);
	if (rc == 0)
		rc = mmp_config_expand(cfg, plan);
	return rc;
}

static void print_diags(const struct mmp_config *cfg)
{
	for (size_t i = 0; i < cfg->ndiags; i++)
		print_message("# diag: %s\n", cfg->diags[i]);
}

/* The config fails and one diagnostic reads exactly "PATH:want". */
static void expect_error(const char *text, const char *want)
{
	struct mmp_config cfg;
	struct mmp_sweep plan;
	char full[1400];
	int found = 0;

	assert_int_equal(load(text, &cfg, &plan), -EINVAL);
	snprintf(full, sizeof(full), "%s:%s", path, want);
	for (size_t i = 0; i < cfg.ndiags; i++)
		found |= strcmp(cfg.diags[i], full) == 0;
	if (!found) {
		print_message("# wanted: %s\n", full);
		print_diags(&cfg);
	}
	assert_true(found);
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);
}

#define JOB "[j]\nprobe = mmap_byte\nsize = 1M\n"

static void test_unknown_key_did_you_mean(void **state)
{
	(void)state;
	expect_error("[global]\nsize = 1M\n\n[j]\nprobe = mmap_byte\nthreds = 2\n",
		     "6: [j] unknown key 'threds' (did you mean 'threads'?)");
	expect_error(JOB "placment = compact\n",
		     "4: [j] unknown key 'placment' (did you mean 'placement'?)");
	expect_error(JOB "colour = blue\n", "4: [j] unknown key 'colour' (see mmprof --help)");
}

static void test_bad_values(void **state)
{
	(void)state;
	expect_error(JOB "threads = 0\n", "4: [j] threads = 0 is out of range (1 to 1024)");
	expect_error(JOB "threads = 5000\n", "4: [j] threads = 5000 is out of range (1 to 1024)");
	expect_error(JOB "threads = two\n", "4: [j] 'two' is not a whole number");
	expect_error(JOB "threads = -1\n", "4: [j] '-1' is not a whole number");
	expect_error("[j]\nprobe = mmap_byte\nsize = 2T\n",
		     "3: [j] size = 2T is out of range (1B to 1TiB)");
	expect_error("[j]\nprobe = mmap_byte\nsize = 0\n",
		     "3: [j] size = 0 is out of range (1B to 1TiB)");
	expect_error("[j]\nprobe = mmap_byte\nsize = 12Q\n",
		     "3: [j] '12Q' is not a size (e.g. 512, 4K, 100M, 1G)");
	expect_error("[j]\nprobe = mmap_byte\nsize = 99999999999999999999\n",
		     "3: [j] '99999999999999999999' does not fit in 64 bits");
	expect_error("[j]\nprobe = mmap_byte\nsize = 17179869184G\n",
		     "3: [j] '17179869184G' does not fit in 64 bits");
	expect_error(JOB "kernel = zero\n",
		     "4: [j] 'zero' is not a valid kernel (did you mean 'zeros'?)");
	expect_error(JOB "tally = shared\n",
		     "4: [j] 'shared' is not a valid tally (one of: atomic packed padded local plain "
		     "plain-padded)");
	expect_error(JOB "prefault = maybe\n", "4: [j] 'maybe' is not yes or no");
	expect_error(JOB "repeat = 0\n", "4: [j] repeat = 0 is out of range (1 to 100000)");
	expect_error(JOB "access = 2G\n", "4: [j] access = 2G is out of range (1B to 1GiB)");
}

static void test_probe_names(void **state)
{
	(void)state;
	expect_error("[j]\nprobe = mmap_bite\nsize = 1M\n",
		     "2: [j] unknown probe 'mmap_bite' (did you mean 'mmap_byte'?)");
	expect_error("[j]\nprobe = qqq\nsize = 1M\n",
		     "2: [j] unknown probe 'qqq' (one of: mmap_byte mmap_block accessor_byte "
		     "accessor_block limit read_buf pread_buf fread_buf mmap_file pingpong chase exec)");
	expect_error("[j]\nsize = 1M\n",
		     "1: [j] no probe: set probe = one of mmap_byte ... (see --list-probes)");
}

static void test_lists(void **state)
{
	(void)state;
	expect_error(JOB "threads = 1,,2\n", "4: [j] threads = 1,,2: empty value in the list");
	expect_error(JOB "threads = 1,\n", "4: [j] threads = 1,: empty value in the list");
	expect_error(JOB "threads =\n", "4: [j] threads has no value");
	expect_error(JOB "threads = 1, 0, 2\n", "4: [j] threads = 0 is out of range (1 to 1024)");
}

static void test_structure(void **state)
{
	(void)state;
	expect_error("size = 1M\n[j]\nprobe = mmap_byte\n",
		     "1: 'size' is outside any section (put it under [global] or a job)");
	expect_error(JOB "threads = 1\nthreads = 2\n",
		     "5: [j] 'threads' is set twice in this section (first at line 4)");
	expect_error(JOB "[j]\nthreads = 2\n",
		     "4: [j] section appears twice (first at line 1); a job is one section");
	expect_error(JOB "just some words\n",
		     "4: expected 'key = value' or '[section]', got 'just some words'");
	expect_error(JOB "[broken\nthreads = 2\n", "4: malformed section header '[broken'");
	expect_error(JOB "[bad name]\nprobe = limit\n",
		     "4: [bad name] job names use letters, digits, '_', '-' and '.'");
	expect_error(JOB "csv = out.csv\n", "4: [j] 'csv' applies to the whole config: set it in [global]");
	expect_error("[global]\nsize = 1M\n", " no jobs: add a section such as [scan] with probe = mmap_byte");
	expect_error("[j]\nprobe = limit\n", "1: [j] no data: set size (to generate a file) or file");
	expect_error(JOB "repeat = 1, 2\n", "4: [j] repeat takes one value, not a list");
}

static void test_long_line(void **state)
{
	char text[9000];
	(void)state;
	snprintf(text, sizeof(text), JOB "file = %0*d\n", 5000, 0);
	expect_error(text, "4: line longer than 4093 characters");
}

static void test_combinations(void **state)
{
	(void)state;
	expect_error(JOB "refcount = once\n", "4: [j] probe 'mmap_byte' does not use 'refcount'");
	expect_error(JOB "access = 1K\n",
		     "4: [j] probe 'mmap_byte' does not use 'access' (it reads 1 byte per call)");
	expect_error("[j]\nprobe = limit\nsize = 1M\ntally = atomic\n",
		     "4: [j] probe 'limit' does not use 'tally'");
	expect_error("[j]\nprobe = mmap_byte\nsize = 4\nthreads = 8\n",
		     "4: [j] threads = 8 is more than the 4 bytes to share");
	expect_error(JOB "zip = probe, acess\n",
		     "4: [j] unknown key 'acess' (did you mean 'access'?)");
	expect_error(JOB "zip = probe\n",
		     "4: [j] zip needs at least two keys (e.g. zip = probe, access)");
	expect_error(JOB "zip = probe, repeat\n", "4: [j] 'repeat' takes one value, it cannot be zipped");
	expect_error("[j]\nprobe = mmap_byte, mmap_block, limit\naccess = 1, 1K\nsize = 1M\n"
		     "zip = probe, access\n",
		     "5: [j] zip: access has 2 values but the other zipped lists have 3");
	expect_error(JOB "baseline = nobody\n", "4: [j] baseline 'nobody' is not a job here");
	expect_error(JOB "baseline = j\n", "4: [j] baseline names this job itself");
	expect_error(JOB "fixes = j\n", "4: [j] fixes names this job itself");
	expect_error("[j]\nprobe = read_buf\nsize = 1M\nadvice = hugepage\n",
		     "4: [j] advice = hugepage is for mappings; probe 'read_buf' reads with system calls");
	expect_error(JOB "table = sizes\n", "4: [j] 'table' applies to the whole config: set it in [global]");
	expect_error(JOB "cache = cold\n", "4: [j] 'cold' is not a valid cache (one of: warm drop drop-all)");
	expect_error(JOB "fixes = jj\n", "4: [j] fixes 'jj' is not a job here (did you mean 'j'?)");
	expect_error(JOB "[k]\nprobe = limit\nsize = 1M\nbaseline = j, jj\n",
		     "7: [k] baseline 'jj' is not a job here (did you mean 'j'?)");
}

static void test_placement_syntax(void **state)
{
	(void)state;
	expect_error(JOB "placement = compat\n",
		     "4: [j] 'compat' is not a placement (compact, scatter, cores, spread, pairs, "
		     "pus:LIST, numa:LIST, package:N, l3:N) (did you mean 'compact'?)");
	expect_error(JOB "placement = pus:3-1\n",
		     "4: [j] 'pus:3-1' is not a PU list (e.g. pus:0-3,8; ranges go up)");
	expect_error(JOB "placement = pus:\n",
		     "4: [j] pus: needs a list of PU numbers, e.g. pus:0-3,8");
	expect_error(JOB "placement = numa:x\n",
		     "4: [j] 'numa:x' is not a NUMA node list (e.g. numa:0,2; ranges go up)");
}

static void test_inheritance_and_defaults(void **state)
{
	struct mmp_config cfg;
	struct mmp_sweep plan;
	(void)state;
	assert_int_equal(load("; comment\n[global]\nsize = 4K\nthreads = 2\ntally = packed\n\n"
			      "[a]\nprobe = mmap_byte\n\n[b]\nprobe = mmap_block ; inline\n"
			      "threads = 1\nkernel = histogram\n",
			      &cfg, &plan),
			 0);
	assert_int_equal(cfg.njobs, 2);
	assert_int_equal(plan.nruns, 2);
	const struct mmp_run *a = &plan.runs[0], *b = &plan.runs[1];
	assert_string_equal(a->job->name, "a");
	assert_int_equal(a->p.size, 4096);
	assert_int_equal(a->p.threads, 2);
	assert_int_equal(a->p.tally, MMP_TALLY_PACKED);
	assert_int_equal(a->p.kernel, MMP_KERNEL_ZEROS); /* default */
	assert_int_equal(a->p.repeat, 5);
	assert_int_equal(a->p.warmup, 1);
	assert_int_equal(a->p.placement.kind, MMP_PLACE_COMPACT);
	assert_int_equal(a->line[MMP_KEY_THREADS], 4);
	assert_string_equal(a->from[MMP_KEY_THREADS], "global");
	assert_null(a->from[MMP_KEY_KERNEL]);
	assert_string_equal(b->p.probe->name, "mmap_block");
	assert_int_equal(b->p.threads, 1);
	assert_int_equal(b->line[MMP_KEY_THREADS], 12);
	assert_int_equal(b->p.kernel, MMP_KERNEL_HISTOGRAM);
	assert_int_equal(mmp_params_access(&b->p), 4096);
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);
}

static void test_sweep_product_and_order(void **state)
{
	struct mmp_config cfg;
	struct mmp_sweep plan;
	char buf[64];
	(void)state;
	assert_int_equal(load("[global]\nsize = 512, 32K, 1M\n[j]\nprobe = mmap_byte\n"
			      "threads = 1, 2\ntally = atomic, local\n",
			      &cfg, &plan),
			 0);
	assert_int_equal(plan.nruns, 12);
	/* Keys vary in table order, the last fastest. */
	assert_int_equal(plan.runs[0].p.size, 512);
	assert_int_equal(plan.runs[0].p.tally, MMP_TALLY_ATOMIC);
	assert_int_equal(plan.runs[0].p.threads, 1);
	assert_int_equal(plan.runs[1].p.threads, 2);
	assert_int_equal(plan.runs[2].p.tally, MMP_TALLY_LOCAL);
	assert_int_equal(plan.runs[4].p.size, 32768);
	assert_int_equal(plan.runs[11].p.size, 1 << 20);
	assert_string_equal(mmp_run_format(&plan.runs[11], MMP_KEY_SIZE, buf, sizeof(buf)),
			    "1MiB");
	for (size_t i = 0; i < plan.nruns; i++)
		assert_int_equal(plan.runs[i].index, i);
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);
}

static void test_zip(void **state)
{
	struct mmp_config cfg;
	struct mmp_sweep plan;
	(void)state;
	assert_int_equal(load("[global]\nsize = 1M\nthreads = 1, 8\n[j]\n"
			      "probe = accessor_byte, accessor_block\naccess = 1, 1K\n"
			      "zip = probe, access\nrefcount = once\n",
			      &cfg, &plan),
			 0);
	assert_int_equal(plan.nruns, 4);
	assert_string_equal(plan.runs[0].p.probe->name, "accessor_byte");
	assert_int_equal(plan.runs[0].p.threads, 1);
	assert_string_equal(plan.runs[1].p.probe->name, "accessor_byte");
	assert_int_equal(plan.runs[1].p.threads, 8);
	assert_string_equal(plan.runs[2].p.probe->name, "accessor_block");
	assert_int_equal(plan.runs[2].p.access, 1024);
	assert_int_equal(plan.runs[3].p.threads, 8);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(plan.runs[i].p.refcount, MMP_REFCOUNT_ONCE);
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);
}

/* Keys a probe ignores, inherited from [global], neither fail nor multiply
 * its runs. */
static void test_inherited_keys_collapse(void **state)
{
	struct mmp_config cfg;
	struct mmp_sweep plan;
	char buf[64];
	(void)state;
	assert_int_equal(load("[global]\nsize = 1M\nrefcount = shared, once\naccess = 1K, 4K\n"
			      "[byte]\nprobe = mmap_byte\n[acc]\nprobe = accessor_block\n",
			      &cfg, &plan),
			 0);
	assert_int_equal(plan.nruns, 1 + 4);
	assert_string_equal(mmp_run_format(&plan.runs[0], MMP_KEY_REFCOUNT, buf, sizeof(buf)), "");
	assert_string_equal(mmp_run_format(&plan.runs[0], MMP_KEY_ACCESS, buf, sizeof(buf)), "");
	assert_int_equal(mmp_params_access(&plan.runs[0].p), 1);
	assert_string_equal(mmp_run_format(&plan.runs[2], MMP_KEY_REFCOUNT, buf, sizeof(buf)),
			    "once");
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);
}

static void test_placement_lists(void **state)
{
	struct mmp_config cfg;
	struct mmp_sweep plan;
	(void)state;
	assert_int_equal(load(JOB "placement = pus:0-1,3, compact, numa:0, pus:2\n", &cfg, &plan), 0);
	assert_int_equal(plan.nruns, 4);
	assert_string_equal(plan.runs[0].p.placement.spec, "pus:0-1,3");
	assert_int_equal(plan.runs[0].p.placement.kind, MMP_PLACE_PUS);
	assert_int_equal(plan.runs[1].p.placement.kind, MMP_PLACE_COMPACT);
	assert_int_equal(plan.runs[2].p.placement.kind, MMP_PLACE_NUMA);
	assert_string_equal(plan.runs[3].p.placement.spec, "pus:2");
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);
}

/* Several problems: all reported, each with its line. */
static void test_all_errors_reported(void **state)
{
	struct mmp_config cfg;
	struct mmp_sweep plan;
	(void)state;
	assert_int_equal(load("[j]\nprobe = limit\nsize = 1M\nthreds = 1\nkernel = hist\nfoo\n", &cfg,
			      &plan),
			 -EINVAL);
	assert_int_equal(cfg.ndiags, 3);
	assert_non_null(strstr(cfg.diags[0], ":4: "));
	assert_non_null(strstr(cfg.diags[1], ":5: "));
	assert_non_null(strstr(cfg.diags[2], ":6: "));
	mmp_config_free(&cfg);
}

static void test_missing_file(void **state)
{
	struct mmp_config cfg;
	(void)state;
	assert_int_equal(mmp_config_load("/nonexistent/x.ini", &cfg), -ENOENT);
	mmp_config_free(&cfg);
}

/* Loading what is not a config file must return at once: before, a
 * device was read forever and a FIFO without a writer blocked the open.
 * The alarm turns such a hang into a failed test. */
static int load_path(const char *p, struct mmp_config *cfg)
{
	alarm(10);
	int rc = mmp_config_load(p, cfg);
	alarm(0);
	return rc;
}

/* One diagnostic, "PATH: want". */
static void expect_only(const struct mmp_config *cfg, const char *p, const char *want)
{
	char full[1400];
	snprintf(full, sizeof(full), "%s: %s", p, want);
	if (cfg->ndiags != 1 || strcmp(cfg->diags[0], full) != 0) {
		print_message("# wanted: %s\n", full);
		print_diags(cfg);
		fail();
	}
}

static void test_not_a_config(void **state)
{
	struct mmp_config cfg;
	char dir[512], fifo[600], big[600];
	(void)state;

	snprintf(dir, sizeof(dir), "%s", test_tmpdir());
	assert_int_equal(load_path(dir, &cfg), -EISDIR);
	expect_only(&cfg, dir, "is a directory, not a config file");
	mmp_config_free(&cfg);

	assert_int_equal(load_path("/dev/zero", &cfg), -ENODEV);
	expect_only(&cfg, "/dev/zero", "is a character device, not a config file");
	mmp_config_free(&cfg);
	assert_int_equal(load_path("/dev/urandom", &cfg), -ENODEV);
	mmp_config_free(&cfg);

	/* A FIFO nobody writes to: refused at once, not waited for. */
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(load_path(fifo, &cfg), -ENODATA);
	expect_only(&cfg, fifo, "is a FIFO and nothing was written to it");
	mmp_config_free(&cfg);

	/* Larger than the limit. */
	snprintf(big, sizeof(big), "%s/big.ini", dir);
	FILE *f = fopen(big, "w");
	assert_non_null(f);
	for (int i = 0; i < MMP_CONFIG_MAX_BYTES / 32 + 1; i++)
		fputs("; a comment line of 32 bytes...\n", f);
	fclose(f);
	assert_int_equal(load_path(big, &cfg), -EFBIG);
	expect_only(&cfg, big, "is 1048608 bytes: not a config file (the limit is 1048576 bytes)");
	mmp_config_free(&cfg);
}

/* A FIFO or pipe with a writer is read: bash's <(...) gives one. */
static void test_config_from_a_pipe(void **state)
{
	struct mmp_config cfg;
	char fifo[600];
	(void)state;

	snprintf(fifo, sizeof(fifo), "%s/fifo", test_tmpdir());
	assert_int_equal(mkfifo(fifo, 0600), 0);
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		FILE *w = fopen(fifo, "w"); /* waits for the reader */
		if (!w)
			_exit(1);
		fputs("[j]\nprobe = limit\nsize = 4K\n", w);
		_exit(fclose(w) ? 1 : 0);
	}
	/* The open does not wait for the writer: give it time to arrive. */
	usleep(200000);
	assert_int_equal(load_path(fifo, &cfg), 0);
	assert_int_equal(cfg.njobs, 1);
	mmp_config_free(&cfg);
	waitpid(child, NULL, 0);
}

static void test_byte_order_mark(void **state)
{
	struct mmp_config cfg;
	struct mmp_sweep plan;
	(void)state;
	assert_int_equal(load("\xEF\xBB\xBF[j]\nprobe = limit\nsize = 4K\n", &cfg, &plan), 0);
	assert_int_equal(plan.nruns, 1);
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);
	/* Only at the start of the file. */
	expect_error("[j]\n\xEF\xBB\xBFprobe = limit\nsize = 4K\n",
		     "2: [j] unknown key '\xEF\xBB\xBFprobe' (see mmprof --help)");
}

static void test_nul_byte(void **state)
{
	struct mmp_config cfg;
	FILE *f = fopen(path, "w");
	(void)state;
	assert_non_null(f);
	fwrite("[j]\nprobe = limit\0\nsize = 4K\n", 1, 29, f);
	fclose(f);
	assert_int_equal(mmp_config_load(path, &cfg), -EINVAL);
	char want[700];
	snprintf(want, sizeof(want), "%s:2: a NUL byte: this is not a text file (a config is INI text)",
		 path);
	assert_int_equal(cfg.ndiags, 1);
	assert_string_equal(cfg.diags[0], want);
	mmp_config_free(&cfg);
}

/* Past fifty errors the rest are counted, and the summary says so. */
static void test_errors_cut_off(void **state)
{
	struct mmp_config cfg;
	struct mmp_sweep plan;
	char text[4096] = "[j]\nprobe = limit\nsize = 4K\n", buf[900], want[900];
	(void)state;
	for (int i = 0; i < 60; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "bad%d = 1\n", i);
	assert_int_equal(load(text, &cfg, &plan), -EINVAL);
	assert_int_equal(cfg.ndiags, MMP_CONFIG_MAX_DIAGS);
	assert_int_equal(cfg.truncated, 10);
	snprintf(want, sizeof(want), "50 errors shown, 10 more not shown, in %s; nothing was run",
		 path);
	assert_string_equal(mmp_config_summary(&cfg, buf, sizeof(buf)), want);
	mmp_config_free(&cfg);

	assert_int_equal(load("[j]\nprobe = limit\nsize = 4K\nbad = 1\n", &cfg, &plan), -EINVAL);
	snprintf(want, sizeof(want), "1 error(s) in %s; nothing was run", path);
	assert_string_equal(mmp_config_summary(&cfg, buf, sizeof(buf)), want);
	mmp_config_free(&cfg);
}

/* "key = 1, 2, ..., n" (seeds: any number is a value). */
static void append_list(char *text, size_t len, const char *key, int n, const char *suffix)
{
	size_t used = strlen(text);
	used += (size_t)snprintf(text + used, len - used, "%s = ", key);
	for (int i = 1; i <= n; i++)
		used += (size_t)snprintf(text + used, len - used, "%d%s%s", i, suffix,
					 i < n ? "," : "\n");
}

/* 16384 runs expand (every one distinct, none lost to the duplicate
 * check), duplicates are still dropped, and a sweep past the limit is
 * refused from its size alone, before one run is built (125 million
 * runs used to spin silently). */
static void test_large_sweeps(void **state)
{
	static char text[64 * 1024];
	struct mmp_config cfg;
	struct mmp_sweep plan;
	(void)state;

	snprintf(text, sizeof(text), "[global]\nrepeat = 1\n\n[j]\nprobe = limit\n");
	append_list(text, sizeof(text), "seed", 256, "");
	append_list(text, sizeof(text), "size", 64, "K");
	alarm(120);
	assert_int_equal(load(text, &cfg, &plan), 0);
	alarm(0);
	assert_int_equal(plan.nruns, 16384);
	assert_int_equal(plan.runs[16383].p.seed, 256);
	assert_int_equal(plan.runs[16383].p.size, 64 << 10);
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);

	/* The same value twice in a list, and a key a probe ignores: one run
	 * per distinct thing measured. */
	assert_int_equal(load("[j]\nprobe = limit\nsize = 4K\nseed = 1, 2, 1, 2\n"
			      "[k]\nprobe = mmap_byte\nsize = 4K\nbuffer = 1K, 2K\n",
			      &cfg, &plan),
			 -EINVAL); /* buffer set in [k] for a probe that ignores it */
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);
	assert_int_equal(load("[global]\nbuffer = 1K, 2K\n"
			      "[j]\nprobe = limit\nsize = 4K\nseed = 1, 2, 1, 2\n",
			      &cfg, &plan),
			 0);
	assert_int_equal(plan.nruns, 2);
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);

	snprintf(text, sizeof(text), "[j]\nprobe = limit\n");
	append_list(text, sizeof(text), "seed", 500, "");
	append_list(text, sizeof(text), "size", 500, "K");
	append_list(text, sizeof(text), "threads", 500, "");
	alarm(20);
	assert_int_equal(load(text, &cfg, &plan), -EINVAL);
	alarm(0);
	assert_int_equal(plan.nruns, 0);
	mmp_sweep_free(&plan);
	expect_error(text, "1: [j] 125000000 runs (size 500 x seed 500 x threads 500): more than "
			   "the 100000 runs a config may have (MMP_CONFIG_MAX_RUNS); split the "
			   "sweep into several configs");
	mmp_config_free(&cfg);

	/* The limit is per config: two jobs of 60000 runs each. */
	static char job[16 * 1024];
	snprintf(job, sizeof(job), "probe = limit\n");
	append_list(job, sizeof(job), "seed", 600, "");
	append_list(job, sizeof(job), "size", 100, "K");
	snprintf(text, sizeof(text), "[a]\n%s[b]\n%s", job, job);
	expect_error(text, "5: [b] 60000 runs (size 100 x seed 600) bring the config to 120000 "
			   "runs, more than the 100000 runs a config may have "
			   "(MMP_CONFIG_MAX_RUNS); split the sweep into several configs");
}

/* Every default in the table parses, and every key formats back. */
static void test_key_table(void **state)
{
	char err[256], buf[256];
	struct mmp_params p;
	(void)state;
	for (size_t k = 0; k < MMP_KEY_COUNT; k++) {
		const struct mmp_key *key = &mmp_keys[k];
		assert_int_equal(key->id, k);
		assert_non_null(key->help);
		assert_ptr_equal(mmp_key_find(key->name), key);
		assert_true(key->def || key->default_help);
		memset(&p, 0, sizeof(p));
		if (key->def) {
			assert_int_equal(mmp_key_parse(key, key->def, (char *)&p + key->offset, err,
						       sizeof(err)),
					 0);
			mmp_key_format(key, (char *)&p + key->offset, buf, sizeof(buf));
			assert_string_equal(buf, key->def);
		}
	}
}

/* A comma inside a path (issue 20): "\\," keeps it, and a path key whose
 * whole value exists is that one path; otherwise a comma still sweeps. */
static void test_paths_with_commas(void **state)
{
	struct mmp_config cfg;
	struct mmp_sweep plan;
	char dir[600], file[700], text[2048];
	(void)state;
	snprintf(dir, sizeof(dir), "%s/a,b", test_tmpdir());
	mkdir(dir, 0755);
	snprintf(file, sizeof(file), "%s/d.bin", dir);
	test_write_file(file, "data");

	snprintf(text, sizeof(text), "[j]\nprobe = mmap_byte\nfile = %s\n", file);
	assert_int_equal(load(text, &cfg, &plan), 0);
	assert_int_equal(plan.nruns, 1);
	assert_string_equal(plan.runs[0].p.file, file);
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);

	assert_int_equal(load("[j]\nprobe = mmap_byte\nsize = 1M\nfile = new\\,one.bin, other.bin\n",
			      &cfg, &plan),
			 0);
	assert_int_equal(plan.nruns, 2);
	assert_string_equal(plan.runs[0].p.file, "new,one.bin");
	assert_string_equal(plan.runs[1].p.file, "other.bin");
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);

	assert_int_equal(load("[global]\ncsv = out\\,1.csv\n[j]\nprobe = mmap_byte\nsize = 1M\n",
			      &cfg, &plan),
			 0);
	assert_string_equal(plan.runs[0].p.csv, "out,1.csv");
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);
	expect_error("[global]\ncsv = a.csv, b.csv\n" JOB,
		     "2: [global] csv takes one value, not a list (write \\, for a comma in it)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_key_did_you_mean),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_paths_with_commas),
		cmocka_unit_test(test_probe_names),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_combinations),
		cmocka_unit_test(test_placement_syntax),
		cmocka_unit_test(test_inheritance_and_defaults),
		cmocka_unit_test(test_sweep_product_and_order),
		cmocka_unit_test(test_zip),
		cmocka_unit_test(test_inherited_keys_collapse),
		cmocka_unit_test(test_placement_lists),
		cmocka_unit_test(test_all_errors_reported),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_not_a_config),
		cmocka_unit_test(test_config_from_a_pipe),
		cmocka_unit_test(test_byte_order_mark),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_errors_cut_off),
		cmocka_unit_test(test_large_sweeps),
		cmocka_unit_test(test_key_table),
	};
	return cmocka_run_group_tests_name("config", tests, setup, NULL);
}
