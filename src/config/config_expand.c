/* From jobs to runs: apply [global] and the key table's defaults, expand
 * comma lists (product, or zipped for the keys named in `zip`), and reject
 * combinations that cannot mean what the user wrote (fio's post-parse
 * checks).
 *
 * Cost: a job's size is known from its lists before anything is built, so
 * a sweep beyond MMP_CONFIG_MAX_RUNS is refused at once; duplicates are
 * found through a hash set of run signatures, so expansion is linear in
 * the runs (the comparison with every earlier run took 17 s at 4096 runs
 * and minutes at 16384).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "util/lists.h"
#include "mmprof/probe.h"
#include "util/suggest.h"

static int defaults(struct mmp_params *p)
{
	char err[256];
	memset(p, 0, sizeof(*p));
	for (size_t k = 0; k < MMP_KEY_COUNT; k++) {
		const struct mmp_key *key = &mmp_keys[k];
		if (key->def && mmp_key_parse(key, key->def, (char *)p + key->offset, err,
					      sizeof(err)))
			return -EINVAL; /* a bad default is a bug: tests parse them all */
	}
	return 0;
}

/* The setting a job uses for a key: its own, else [global]'s, else none. */
static const struct mmp_setting *effective(const struct mmp_config *cfg,
					   const struct mmp_job *job, size_t k,
					   const char **from)
{
	if (job->set[k].line) {
		*from = job->name;
		return &job->set[k];
	}
	if (cfg->global.set[k].line) {
		*from = cfg->global.name;
		return &cfg->global.set[k];
	}
	*from = NULL;
	return NULL;
}

static const void *value_at(const struct mmp_setting *set, size_t k, size_t i)
{
	return (const char *)set->values + i * mmp_keys[k].width;
}

/* A key that names another job (baseline, fixes): that job must exist, and
 * be another one. */
static void check_job_ref(struct mmp_config *cfg, const struct mmp_job *job, int line,
			  const char *from, const char *key, const char *name)
{
	const char *jobs[256] = { NULL };
	size_t n = 0;
	int found = 0;

	for (size_t j = 0; j < cfg->njobs; j++) {
		found |= strcmp(cfg->jobs[j].name, name) == 0;
		if (n < 256)
			jobs[n++] = cfg->jobs[j].name;
	}
	const char *hint = mmp_suggest(name, jobs, n);
	if (!found)
		mmp_config_diag(cfg, line, from, "%s '%s' is not a job here%s%s%s", key, name,
				hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
	else if (strcmp(name, job->name) == 0 && from == job->name)
		mmp_config_diag(cfg, line, from, "%s names this job itself", key);
}

static int job_checks(struct mmp_config *cfg, const struct mmp_job *job)
{
	const char *from;
	size_t before = cfg->ndiags;

	if (!effective(cfg, job, MMP_KEY_PROBE, &from)) {
		size_t n;
		const struct mmp_probe *const *all = mmp_probe_all(&n);
		mmp_config_diag(cfg, job->line, job->name,
				"no probe: set probe = one of %s ... (see --list-probes)",
				all[0]->name);
	}
	/* What the job's probes need: a data file, or memory of their own. */
	const struct mmp_setting *probes = effective(cfg, job, MMP_KEY_PROBE, &from);
	int reads_file = !probes, work = 0;
	for (size_t i = 0; probes && i < probes->count; i++) {
		const struct mmp_probe *probe = ((const struct mmp_probe *const *)probes->values)[i];
		/* A program may read no file (process_checks says what it
		 * then cannot have). */
		reads_file |= mmp_probe_reads_file(probe) && mmp_probe_kind(probe) != MMP_RUN_KIND_PROCESS;
		if (probe->needs & MMP_NEEDS_WORK)
			work = 1;
	}
	if (reads_file && !effective(cfg, job, MMP_KEY_FILE, &from) &&
	    !effective(cfg, job, MMP_KEY_SIZE, &from))
		mmp_config_diag(cfg, job->line, job->name,
				"no data: set size (to generate a file) or file");
	else if (work && !effective(cfg, job, MMP_KEY_SIZE, &from))
		mmp_config_diag(cfg, job->line, job->name,
				"no size: set size = the bytes of memory the probe goes through");

	const struct mmp_setting *base = effective(cfg, job, MMP_KEY_BASELINE, &from);
	const char *names = base ? ((char **)base->values)[0] : "";
	char name[256];
	while (mmp_list_next(&names, name, sizeof(name)))
		check_job_ref(cfg, job, base->line, from, "baseline", name);
	const struct mmp_setting *model = effective(cfg, job, MMP_KEY_MODEL, &from);
	names = model ? ((char **)model->values)[0] : "";
	while (mmp_list_next(&names, name, sizeof(name)))
		check_job_ref(cfg, job, model->line, from, "model", name);
	const struct mmp_setting *fixes = effective(cfg, job, MMP_KEY_FIXES, &from);
	if (fixes)
		check_job_ref(cfg, job, fixes->line, from, "fixes", ((char **)fixes->values)[0]);

	const struct mmp_setting *zip = effective(cfg, job, MMP_KEY_ZIP, &from);
	if (zip) {
		uint64_t mask = *(const uint64_t *)zip->values;
		size_t len = 0;
		for (size_t k = 0; k < MMP_KEY_COUNT; k++) {
			const char *f;
			const struct mmp_setting *s = effective(cfg, job, k, &f);
			if (!(mask & MMP_KEY_BIT(k)) || !s || s->count == 1)
				continue;
			if (len && s->count != len)
				mmp_config_diag(cfg, zip->line, from,
						"zip: %s has %zu values but the other zipped "
						"lists have %zu",
						mmp_keys[k].name, s->count, len);
			len = s->count;
		}
	}
	return cfg->ndiags == before ? 0 : -EINVAL;
}

/* Every key as "name=value;" for the keys that apply: two runs of one job
 * with the same signature would measure the same thing. */
static void signature(const struct mmp_run *run, char *buf, size_t len)
{
	char v[MMP_PLACEMENT_SPEC_MAX + 64];
	size_t used = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < MMP_KEY_COUNT && used < len; k++)
		used += (size_t)snprintf(buf + used, len - used, "%s=%s;", mmp_keys[k].name,
					 mmp_run_format(run, (enum mmp_key_id)k, v, sizeof(v)));
}

/* A key set in a job's own section that none of its runs' probes reads: the
 * user expects an effect that will not happen.  (Inherited from [global],
 * it is simply not for those probes.) */
static void unused_keys(struct mmp_config *cfg, const struct mmp_job *job, uint64_t used,
			const struct mmp_probe *const *ignored_by)
{
	for (size_t k = 0; k < MMP_KEY_COUNT; k++) {
		if (!job->set[k].line || (used & MMP_KEY_BIT(k)) || !ignored_by[k])
			continue;
		mmp_config_diag(cfg, job->set[k].line, job->name, "probe '%s' does not use '%s'%s",
				ignored_by[k]->name, mmp_keys[k].name,
				k == MMP_KEY_ACCESS && ignored_by[k]->access_mode == MMP_ACCESS_BYTE
					? " (it reads 1 byte per call)"
					: "");
	}
}

/* The runs of one job already in the plan, by signature: 64-bit FNV-1a
 * hashes in an open-addressing table, each slot naming its run (index + 1;
 * 0 is empty).  Equal hashes are confirmed by comparing the signatures
 * themselves, recomputed for the earlier run: a collision costs one
 * snprintf, never a lost run. */
struct sig_set {
	uint64_t *hash;
	size_t *run;
	size_t mask;
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = UINT64_C(14695981039346656037);
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= UINT64_C(1099511628211);
	}
	return h;
}

static int sig_set_init(struct sig_set *set, uint64_t runs)
{
	size_t cap = 16;
	while (cap < 2 * runs) /* at most half full: short probe sequences */
		cap *= 2;
	set->mask = cap - 1;
	set->hash = calloc(cap, sizeof(*set->hash));
	set->run = calloc(cap, sizeof(*set->run));
	return set->hash && set->run ? 0 : -ENOMEM;
}

static void sig_set_free(struct sig_set *set)
{
	free(set->hash);
	free(set->run);
}

/* Is a run with this signature in the set?  If not, add it as run `index`
 * (the caller appends it at that index). */
static int sig_set_seen(struct sig_set *set, const struct mmp_sweep *plan, const char *sig,
			size_t index)
{
	char other[2048];
	uint64_t h = fnv1a(sig);
	size_t i = (size_t)h & set->mask;
	for (; set->run[i]; i = (i + 1) & set->mask) {
		if (set->hash[i] != h)
			continue;
		signature(&plan->runs[set->run[i] - 1], other, sizeof(other));
		if (strcmp(sig, other) == 0)
			return 1;
	}
	set->hash[i] = h;
	set->run[i] = index + 1;
	return 0;
}

/* Room for n more runs, in one allocation per job. */
static int reserve_runs(struct mmp_sweep *plan, uint64_t n)
{
	struct mmp_run *grown = realloc(plan->runs, (plan->nruns + (size_t)n) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	plan->runs = grown;
	return 0;
}

static void push_run(struct mmp_sweep *plan, const struct mmp_run *run)
{
	plan->runs[plan->nruns] = *run;
	plan->runs[plan->nruns].index = plan->nruns;
	plan->nruns++;
}

/* The runs a job's lists multiply to (saturating: three lists of 2^22
 * values must not wrap to a small number), and which lists, for the
 * message: "size 500 x seed 500". */
static uint64_t count_runs(const size_t radix[MMP_KEY_COUNT], char *why, size_t len)
{
	uint64_t product = 1;
	size_t used = 0;
	why[0] = '\0';
	for (size_t k = 0; k < MMP_KEY_COUNT; k++) {
		if (radix[k] <= 1)
			continue;
		product = product > UINT64_MAX / radix[k] ? UINT64_MAX : product * radix[k];
		if (used < len)
			used += (size_t)snprintf(why + used, len - used, "%s%s %zu", used ? " x " : "",
						 mmp_keys[k].name, radix[k]);
	}
	return product;
}

/* Refuse a job that would take the config past MMP_CONFIG_MAX_RUNS, from
 * the sizes of its lists alone. */
static int too_many_runs(struct mmp_config *cfg, const struct mmp_job *job, uint64_t runs,
			 const char *why, size_t before)
{
	char count[32];
	if (runs == UINT64_MAX)
		snprintf(count, sizeof(count), "more than 2^64");
	else
		snprintf(count, sizeof(count), "%" PRIu64, runs);
	if (runs > MMP_CONFIG_MAX_RUNS) {
		mmp_config_diag(cfg, job->line, job->name,
				"%s runs (%s): more than the %d runs a config may have "
				"(MMP_CONFIG_MAX_RUNS); split the sweep into several configs",
				count, why, MMP_CONFIG_MAX_RUNS);
		return 1;
	}
	if (before + runs > MMP_CONFIG_MAX_RUNS) {
		mmp_config_diag(cfg, job->line, job->name,
				"%s runs (%s) bring the config to %" PRIu64 " runs, more than "
				"the %d runs a config may have (MMP_CONFIG_MAX_RUNS); split the "
				"sweep into several configs",
				count, why, before + runs, MMP_CONFIG_MAX_RUNS);
		return 1;
	}
	return 0;
}

/* A program needs its command. */
static void process_checks(struct mmp_config *cfg, const struct mmp_job *job,
			   const struct mmp_run *run, const char *const *from, uint64_t *reported)
{
	if (!run->p.command && !(*reported & MMP_KEY_BIT(MMP_KEY_COMMAND))) {
		*reported |= MMP_KEY_BIT(MMP_KEY_COMMAND);
		mmp_config_diag(cfg, run->line[MMP_KEY_PROBE] ? run->line[MMP_KEY_PROBE] : job->line,
				from[MMP_KEY_PROBE] ? from[MMP_KEY_PROBE] : job->name,
				"probe = %s runs a program: set command = PROGRAM ARGS... (see "
				"docs/exec.md)",
				run->p.probe->name);
	}
}

/* A value that needs other keys of the run (its type's needs hooks: a
 * command passing {access} needs access, one passing {file} a data
 * file), each said once per job, at the value's line. */
static void needs_checks(struct mmp_config *cfg, const struct mmp_run *run,
			 const char *const *from, unsigned char *reported)
{
	char msg[320];
	for (size_t k = 0; k < MMP_KEY_COUNT; k++) {
		const struct mmp_key_type *t = mmp_keys[k].type;
		for (unsigned what = 0; what < t->nneeds && (run->applies & MMP_KEY_BIT(k)); what++) {
			if ((reported[k] & (1u << what)) || !t->needs(&run->p, what, msg, sizeof(msg)))
				continue;
			reported[k] |= (unsigned char)(1u << what);
			mmp_config_diag(cfg, run->line[k], from[k], "%s", msg);
		}
	}
}

/* The ceiling is the memory system: its pages are mapped in and each
 * touched once before timing, whatever [global] says, so that "x limit"
 * holds a job against what memory delivers, not against a first touch a
 * hypervisor charges (~2 us a 4 KiB page on a paravirtualised host: a
 * ceiling at a tenth of the scan).  The job's own section asking for
 * less is told why it cannot have it. */
static void ceiling_pages(struct mmp_config *cfg, const struct mmp_job *job, struct mmp_run *run,
			  uint64_t *reported)
{
	for (size_t k = 0; k < MMP_KEY_COUNT; k++) {
		if (!(MMP_CEILING_FIXED_KEYS & MMP_KEY_BIT(k)))
			continue;
		int asked_no = job->set[k].line && !*(const bool *)((const char *)&run->p +
								      mmp_keys[k].offset);
		if (asked_no && !(*reported & MMP_KEY_BIT(k))) {
			*reported |= MMP_KEY_BIT(k);
			mmp_config_diag(cfg, job->set[k].line, job->name,
					"probe '%s' is the ceiling: it maps its pages in and touches "
					"each once before timing (%s = no would measure the mapping, "
					"not the memory system)",
					run->p.probe->name, mmp_keys[k].name);
		}
	}
	run->p.prefault = true;
	run->p.touch = true;
}

/* One job's sweep as it expands: each key's values, one digit per swept
 * key, and what was said or used so far. */
struct sweep {
	struct mmp_config *cfg;
	const struct mmp_job *job;
	size_t j;
	const struct mmp_params *def;
	const struct mmp_setting *set[MMP_KEY_COUNT];
	const char *from[MMP_KEY_COUNT];
	size_t radix[MMP_KEY_COUNT], digit[MMP_KEY_COUNT];
	uint64_t zip, reported, used;
	size_t zip_digit;
	unsigned char needs_reported[MMP_KEY_COUNT];
	const struct mmp_probe *ignored_by[MMP_KEY_COUNT];
};

static void sweep_init(struct sweep *w)
{
	size_t zip_len = 1;

	for (size_t k = 0; k < MMP_KEY_COUNT; k++)
		w->set[k] = effective(w->cfg, w->job, k, &w->from[k]);
	if (w->set[MMP_KEY_ZIP])
		w->zip = *(const uint64_t *)w->set[MMP_KEY_ZIP]->values;
	/* One digit per swept key; the zipped keys share the digit of the
	 * first of them, whose radix is their common length. */
	for (size_t k = 0; k < MMP_KEY_COUNT; k++) {
		w->radix[k] = w->set[k] ? w->set[k]->count : 1;
		if (w->zip & MMP_KEY_BIT(k)) {
			if (w->radix[k] > zip_len)
				zip_len = w->radix[k];
			w->radix[k] = 1;
		}
	}
	if (w->zip)
		w->radix[__builtin_ctzll(w->zip)] = zip_len;
	w->zip_digit = w->zip ? (size_t)__builtin_ctzll(w->zip) : 0;
}

/* The run at the sweep's digits, each key the probe does not use put
 * back to its default (and remembered, to say so once). */
static void point_run(struct sweep *w, struct mmp_run *run)
{
	*run = (struct mmp_run){ .job_index = w->j, .job = w->job, .p = *w->def };
	for (size_t k = 0; k < MMP_KEY_COUNT; k++) {
		if (!w->set[k])
			continue;
		size_t i = (w->zip & MMP_KEY_BIT(k)) ? w->digit[w->zip_digit] : w->digit[k];
		if (w->set[k]->count == 1)
			i = 0;
		memcpy((char *)&run->p + mmp_keys[k].offset, value_at(w->set[k], k, i),
		       mmp_keys[k].width);
		run->line[k] = w->set[k]->line;
		run->from[k] = w->from[k];
	}
	run->applies = ~UINT64_C(0);
	if (!run->p.probe)
		return;
	for (size_t k = 0; k < MMP_KEY_COUNT; k++) {
		/* access = 1 is what a byte probe does anyway. */
		int consistent = k == MMP_KEY_ACCESS && run->p.access == 1 &&
				 run->p.probe->access_mode == MMP_ACCESS_BYTE;
		if (mmp_probe_uses(run->p.probe, (enum mmp_key_id)k) || consistent) {
			w->used |= MMP_KEY_BIT(k);
			if (!consistent)
				continue;
		}
		run->applies &= ~MMP_KEY_BIT(k);
		if (w->ignored_by[k] == NULL)
			w->ignored_by[k] = run->p.probe;
		memcpy((char *)&run->p + mmp_keys[k].offset,
		       (const char *)w->def + mmp_keys[k].offset, mmp_keys[k].width);
		run->line[k] = 0;
		run->from[k] = NULL;
	}
}

/* Whether key k of the job is still to be said (and now it is). */
static int first_time(struct sweep *w, enum mmp_key_id k)
{
	if (w->reported & MMP_KEY_BIT(k))
		return 0;
	w->reported |= MMP_KEY_BIT(k);
	return 1;
}

/* What the probe fixes itself: the ceiling's pages, its operations, the
 * number of its threads (pingpong's two). */
static void probe_fixes(struct sweep *w, struct mmp_run *run)
{
	if (!run->p.probe)
		return;
	if (run->p.probe->role == MMP_PROBE_CEILING)
		ceiling_pages(w->cfg, w->job, run, &w->reported);
	if (run->p.probe->unit && !run->p.ops)
		run->p.ops = run->p.probe->default_ops;
	if (!run->p.probe->threads || run->p.threads == run->p.probe->threads)
		return;
	/* Said where the job itself asks; a [global] default is not for it. */
	if (w->job->set[MMP_KEY_THREADS].line && first_time(w, MMP_KEY_THREADS))
		mmp_config_diag(w->cfg, run->line[MMP_KEY_THREADS], w->from[MMP_KEY_THREADS],
				"probe '%s' runs %u threads, not %u", run->p.probe->name,
				run->p.probe->threads, run->p.threads);
	run->p.threads = run->p.probe->threads;
}

/* The point's values checked against each other, each problem said once
 * per job. */
static void point_checks(struct sweep *w, struct mmp_run *run)
{
	struct mmp_config *cfg = w->cfg;
	if (run->p.advice == MMP_ADVICE_HUGEPAGE && (run->applies & MMP_KEY_BIT(MMP_KEY_ADVICE)) &&
	    !(run->p.probe->needs & MMP_NEEDS_MAP) && !run->p.probe->maps &&
	    first_time(w, MMP_KEY_ADVICE))
		mmp_config_diag(cfg, run->line[MMP_KEY_ADVICE], w->from[MMP_KEY_ADVICE],
				"advice = hugepage is for mappings; probe '%s' reads with "
				"system calls",
				run->p.probe->name);
	/* Page-cache pages are the kernel's: only a copy can be put on huge pages. */
	if (run->p.hugepages && run->p.data == MMP_DATA_PAGECACHE &&
	    mmp_run_kind(run) != MMP_RUN_KIND_PROCESS && (run->applies & MMP_KEY_BIT(MMP_KEY_HUGEPAGES)) &&
	    first_time(w, MMP_KEY_HUGEPAGES))
		mmp_config_diag(cfg, run->line[MMP_KEY_HUGEPAGES], w->from[MMP_KEY_HUGEPAGES],
				"hugepages = yes needs data = anon: the page cache "
				"backs a mapped file with small pages");
	if (run->p.probe && mmp_run_kind(run) == MMP_RUN_KIND_PROCESS)
		process_checks(cfg, w->job, run, w->from, &w->reported);
	needs_checks(cfg, run, w->from, w->needs_reported);
	/* The plan says what a program really runs with: names for
	 * its JIT code whenever it is profiled. */
	if (run->p.jitnames == MMP_JITNAMES_AUTO && (run->applies & MMP_KEY_BIT(MMP_KEY_JITNAMES)))
		run->p.jitnames = run->p.profile ? MMP_JITNAMES_YES : MMP_JITNAMES_NO;
	if (run->p.size && run->p.threads > run->p.size && first_time(w, MMP_KEY_THREADS))
		mmp_config_diag(cfg, run->line[MMP_KEY_THREADS], w->from[MMP_KEY_THREADS],
				"threads = %u is more than the %llu bytes to share",
				run->p.threads, (unsigned long long)run->p.size);
}

/* The next combination, the last key varying fastest; 0 after the last. */
static int next_point(struct sweep *w)
{
	size_t k = MMP_KEY_COUNT;
	while (k > 0) {
		k--;
		if (++w->digit[k] < w->radix[k])
			return 1;
		w->digit[k] = 0;
	}
	return 0;
}

static int expand_job(struct mmp_config *cfg, size_t j, const struct mmp_params *def,
		      struct mmp_sweep *plan)
{
	struct sweep w = { .cfg = cfg, .job = &cfg->jobs[j], .j = j, .def = def };
	char why[512];

	sweep_init(&w);
	uint64_t nruns = count_runs(w.radix, why, sizeof(why));
	if (too_many_runs(cfg, w.job, nruns, why, plan->nruns))
		return 0;
	struct sig_set seen = { 0 };
	if (reserve_runs(plan, nruns) || sig_set_init(&seen, nruns)) {
		sig_set_free(&seen);
		return -ENOMEM;
	}
	do {
		struct mmp_run run;
		char sig[2048];
		point_run(&w, &run);
		probe_fixes(&w, &run);
		point_checks(&w, &run);
		signature(&run, sig, sizeof(sig));
		if (!sig_set_seen(&seen, plan, sig, plan->nruns))
			push_run(plan, &run);
	} while (next_point(&w));
	unused_keys(cfg, w.job, w.used, w.ignored_by);
	sig_set_free(&seen);
	return 0;
}

int mmp_config_expand(struct mmp_config *cfg, struct mmp_sweep *plan)
{
	struct mmp_params def;
	size_t before = cfg->ndiags;

	memset(plan, 0, sizeof(*plan));
	if (defaults(&def))
		return -EINVAL;
	/* Jobs read with errors are left out (their errors are said; a value
	 * that did not parse would echo as other errors here), so that the
	 * other jobs' errors are found in the same pass.  So are the runs of
	 * a job with errors of its own here: what is planned next is only
	 * what could run. */
	for (size_t j = 0; j < cfg->njobs; j++) {
		size_t said = cfg->ndiags + cfg->truncated, first = plan->nruns;
		if (cfg->global.bad || cfg->jobs[j].bad || job_checks(cfg, &cfg->jobs[j]))
			continue;
		if (expand_job(cfg, j, &def, plan))
			return -ENOMEM;
		if (cfg->ndiags + cfg->truncated != said)
			plan->nruns = first;
	}
	return cfg->ndiags == before ? 0 : -EINVAL;
}

enum mmp_run_kind mmp_run_kind(const struct mmp_run *run)
{
	return mmp_probe_kind(run->p.probe);
}

void mmp_sweep_free(struct mmp_sweep *plan)
{
	free(plan->runs);
	memset(plan, 0, sizeof(*plan));
}

const char *mmp_run_format(const struct mmp_run *run, enum mmp_key_id key, char *buf,
			   size_t len)
{
	buf[0] = '\0';
	if (!(run->applies & MMP_KEY_BIT(key)))
		return buf;
	return mmp_key_format(&mmp_keys[key], (const char *)&run->p + mmp_keys[key].offset,
			      buf, len);
}
