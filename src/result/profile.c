/* A run's sampling profile and the differential between two (see
 * profile.h). */
#include "result/profile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

const char *const mmp_prof_kind_names[] = { "function", "line", "faults", "inclusive", NULL };

void mmp_profile_init(struct mmp_profile *p)
{
	memset(p, 0, sizeof(*p));
}

void mmp_profile_free(struct mmp_profile *p)
{
	for (size_t i = 0; i < p->nrows; i++) {
		free(p->row[i].count);
		free(p->row[i].callee);
	}
	free(p->row);
	free(p->cpu);
	free(p->faults);
	free(p->have);
	free(p->index);
	free(p->frame);
	free(p->stack);
	free(p->stackindex);
	memset(p, 0, sizeof(*p));
}

static int grow_rounds(struct mmp_profile *p, size_t rounds)
{
	if (rounds <= p->rounds)
		return 0;
	size_t n = mmp_vec_grown(p->rounds, rounds);
	if (MMP_VEC_RESIZE(p->cpu, n) || MMP_VEC_RESIZE(p->faults, n) || MMP_VEC_RESIZE(p->have, n))
		return -ENOMEM;
	for (size_t i = 0; i < p->nrows; i++) {
		if (MMP_VEC_RESIZE(p->row[i].count, n))
			return -ENOMEM;
		memset(p->row[i].count + p->rounds, 0, (n - p->rounds) * sizeof(double));
	}
	memset(p->cpu + p->rounds, 0, (n - p->rounds) * sizeof(double));
	memset(p->faults + p->rounds, 0, (n - p->rounds) * sizeof(double));
	memset(p->have + p->rounds, 0, n - p->rounds);
	p->rounds = n;
	return 0;
}

/* The key: names are interned (symbols.h), so pointers compare. */
static size_t key_hash(const struct mmp_prof_row *k)
{
	uint64_t h = (uint64_t)k->kind * 0x9e3779b97f4a7c15u;
	h ^= (uint64_t)(uintptr_t)k->module * 0xc2b2ae3d27d4eb4fu;
	h ^= (uint64_t)(uintptr_t)k->function * 0x165667b19e3779f9u;
	h ^= (uint64_t)(uintptr_t)k->file * 0x27d4eb2f165667c5u;
	h ^= (uint64_t)k->line * 0x94d049bb133111ebu ^ (uint64_t)k->why ^ (uint64_t)k->kernel << 8;
	return (size_t)(h ^ (h >> 31));
}

static int key_equal(const struct mmp_prof_row *a, const struct mmp_prof_row *b)
{
	return a->kind == b->kind && a->module == b->module && a->function == b->function &&
	       a->file == b->file && a->line == b->line && a->why == b->why &&
	       a->kernel == b->kernel;
}

static const struct mmp_prof_row *find(const struct mmp_profile *p, const struct mmp_prof_row *k)
{
	if (!p->indexcap)
		return NULL;
	for (size_t h = key_hash(k);; h++) {
		size_t v = p->index[h & (p->indexcap - 1)];
		if (!v)
			return NULL;
		if (key_equal(&p->row[v - 1], k))
			return &p->row[v - 1];
	}
}

static int reindex(struct mmp_profile *p, size_t cap)
{
	size_t *ix = calloc(cap, sizeof(*ix));
	if (!ix)
		return -ENOMEM;
	for (size_t i = 0; i < p->nrows; i++) {
		size_t h = key_hash(&p->row[i]);
		while (ix[h & (cap - 1)])
			h++;
		ix[h & (cap - 1)] = i + 1;
	}
	free(p->index);
	p->index = ix;
	p->indexcap = cap;
	return 0;
}

static int count_row(struct mmp_profile *p, const struct mmp_prof_row *k, size_t round,
		     struct mmp_prof_row **out)
{
	struct mmp_prof_row *r = (struct mmp_prof_row *)find(p, k);
	if (!r) {
		if (2 * (p->nrows + 1) > p->indexcap &&
		    reindex(p, p->indexcap ? 2 * p->indexcap : 1024))
			return -ENOMEM;
		if (MMP_VEC_RESERVE(p->row, p->rowcap, p->nrows + 1))
			return -ENOMEM;
		r = &p->row[p->nrows];
		*r = *k;
		r->total = 0;
		r->depth = 0;
		r->callee = NULL;
		r->ncallee = 0;
		r->count = calloc(p->rounds, sizeof(double));
		if (!r->count)
			return -ENOMEM;
		size_t h = key_hash(k);
		while (p->index[h & (p->indexcap - 1)])
			h++;
		p->index[h & (p->indexcap - 1)] = ++p->nrows;
	}
	r->count[round] += 1;
	r->total += 1;
	if (out)
		*out = r;
	return 0;
}

static int count(struct mmp_profile *p, const struct mmp_prof_row *k, size_t round)
{
	return count_row(p, k, round, NULL);
}

/* One more sample in which r called the row at index callee. */
static int add_callee(struct mmp_prof_row *r, size_t callee)
{
	for (size_t i = 0; i < r->ncallee; i++)
		if (r->callee[i].row == callee) {
			r->callee[i].n += 1;
			return 0;
		}
	struct mmp_prof_callee *c = realloc(r->callee, (r->ncallee + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	r->callee = c;
	r->callee[r->ncallee++] = (struct mmp_prof_callee){ callee, 1 };
	return 0;
}

/* The deepest chain followed: the kernel's own limit
 * (perf_event_max_stack) is 127 frames by default. */
#define CHAIN_MAX 255

/* A sample's frames, innermost first: inner (already named), then the
 * callers, the chain's return addresses after it.  At most CHAIN_MAX + 1. */
static int name_chain(struct mmp_symbols *sy, const struct mmp_sample *s,
		      const struct mmp_frame *inner, struct mmp_frame *out, size_t *n)
{
	const struct mmp_samples *all = mmp_symbols_samples(sy);
	/* A kernel sample's chain starts at the user instruction that
	 * entered it, which is inner. */
	size_t from = s->kernel && s->nchain ? 1 : 0, to = s->nchain;
	if (to - from > CHAIN_MAX)
		to = from + CHAIN_MAX;
	out[0] = *inner;
	*n = 1;
	for (size_t i = from + 1; i <= to; i++) {
		int rc = mmp_symbols_name(sy, s->pid, all->chain[s->chain + i - 1], s->time, 1,
					  &out[(*n)++]);
		if (rc)
			return rc;
	}
	return 0;
}

/* Each function of a sample's frames (name_chain), once. */
static int add_inclusive(struct mmp_profile *p, const struct mmp_frame *frames, size_t nf,
			 size_t round)
{
	struct {
		const char *module, *function;
		enum mmp_unnamed why;
	} seen[CHAIN_MAX + 1];
	size_t nseen = 0, inner_named = SIZE_MAX;
	for (size_t i = 0; i < nf; i++) {
		const struct mmp_frame *f = &frames[i];
		struct mmp_prof_row k = { .kind = MMP_PROF_INCLUSIVE, .module = f->module,
					  .function = f->function, .offset = f->offset,
					  .why = f->function ? MMP_NAMED : f->why };
		size_t j = 0;
		while (j < nseen && !(seen[j].module == k.module && seen[j].function == k.function &&
				      seen[j].why == k.why))
			j++;
		if (j < nseen)
			continue;
		seen[nseen].module = k.module;
		seen[nseen].function = k.function;
		seen[nseen].why = k.why;
		nseen++;
		struct mmp_prof_row *r;
		int rc = count_row(p, &k, round, &r);
		if (rc)
			return rc;
		r->depth += (double)i;
		if (!k.function)
			continue;
		if (inner_named != SIZE_MAX && (rc = add_callee(r, inner_named)))
			return rc;
		inner_named = (size_t)(r - p->row);
	}
	return 0;
}

static size_t stack_hash(const struct mmp_prof_frame *f, size_t n)
{
	uint64_t h = (uint64_t)n * 0x9e3779b97f4a7c15u;
	for (size_t i = 0; i < n; i++) {
		h = (h ^ (uint64_t)(uintptr_t)f[i].module) * 0xc2b2ae3d27d4eb4fu;
		h = (h ^ (uint64_t)(uintptr_t)f[i].function) * 0x165667b19e3779f9u;
		h = (h ^ (uint64_t)f[i].why) * 0x27d4eb2f165667c5u;
		h ^= h >> 29;
	}
	return (size_t)h;
}

static int stack_equal(const struct mmp_profile *p, const struct mmp_prof_stack *st,
		       const struct mmp_prof_frame *f, size_t n)
{
	if (st->n != n)
		return 0;
	const struct mmp_prof_frame *g = &p->frame[st->first];
	for (size_t i = 0; i < n; i++)
		if (g[i].module != f[i].module || g[i].function != f[i].function ||
		    g[i].why != f[i].why)
			return 0;
	return 1;
}

static int reindex_stacks(struct mmp_profile *p, size_t cap)
{
	size_t *ix = calloc(cap, sizeof(*ix));
	if (!ix)
		return -ENOMEM;
	for (size_t i = 0; i < p->nstacks; i++) {
		size_t h = stack_hash(&p->frame[p->stack[i].first], p->stack[i].n);
		while (ix[h & (cap - 1)])
			h++;
		ix[h & (cap - 1)] = i + 1;
	}
	free(p->stackindex);
	p->stackindex = ix;
	p->stackindexcap = cap;
	return 0;
}

/* A new stack of n frames f, its frames appended to p->frame. */
static int new_stack(struct mmp_profile *p, const struct mmp_prof_frame *f, size_t n,
		     size_t *at)
{
	if (2 * (p->nstacks + 1) > p->stackindexcap &&
	    reindex_stacks(p, p->stackindexcap ? 2 * p->stackindexcap : 1024))
		return -ENOMEM;
	if (MMP_VEC_RESERVE(p->stack, p->stackcap, p->nstacks + 1) ||
	    MMP_VEC_RESERVE(p->frame, p->framecap, p->nframes + n))
		return -ENOMEM;
	memcpy(&p->frame[p->nframes], f, n * sizeof(*f));
	p->stack[p->nstacks] = (struct mmp_prof_stack){ .first = p->nframes, .n = (uint32_t)n };
	p->nframes += n;
	*at = p->nstacks++;
	return 0;
}

/* One more sample of the stack of frames (name_chain), with "[kernel]"
 * inside them when it landed there. */
static int add_stack(struct mmp_profile *p, const struct mmp_frame *frames, size_t nf,
		     int kernel)
{
	struct mmp_prof_frame f[CHAIN_MAX + 2];
	size_t n = 0;
	if (kernel && frames[0].why != MMP_KERNEL)
		f[n++] = (struct mmp_prof_frame){ .module = "[kernel]", .why = MMP_KERNEL };
	for (size_t i = 0; i < nf; i++)
		f[n++] = (struct mmp_prof_frame){
			.module = frames[i].module, .function = frames[i].function,
			.why = frames[i].function ? MMP_NAMED : frames[i].why };
	size_t h = stack_hash(f, n), at = SIZE_MAX;
	for (size_t v; p->stackindexcap && (v = p->stackindex[h & (p->stackindexcap - 1)]); h++)
		if (stack_equal(p, &p->stack[v - 1], f, n)) {
			at = v - 1;
			break;
		}
	if (at == SIZE_MAX) {
		int rc = new_stack(p, f, n, &at);
		if (rc)
			return rc;
		h = stack_hash(f, n);
		while (p->stackindex[h & (p->stackindexcap - 1)])
			h++;
		p->stackindex[h & (p->stackindexcap - 1)] = at + 1;
	}
	p->stack[at].total += 1;
	return 0;
}

static int add_cpu(struct mmp_profile *p, struct mmp_symbols *sy, const struct mmp_sample *s,
		   size_t round)
{
	struct mmp_frame f, frames[CHAIN_MAX + 1];
	size_t nf;
	const struct mmp_samples *all = mmp_symbols_samples(sy);
	if (s->kernel && !s->nchain) {
		f = (struct mmp_frame){ .module = "[kernel]", .why = MMP_KERNEL };
	} else {
		/* In the kernel: its chain starts at the user instruction
		 * that entered it (a fault, a system call), not a return
		 * address. */
		uint64_t ip = s->kernel ? all->chain[s->chain] : s->ip;
		int rc = mmp_symbols_name(sy, s->pid, ip, s->time, 0, &f);
		if (rc)
			return rc;
	}
	struct mmp_prof_row k = { .kind = MMP_PROF_FUNCTION, .module = f.module,
				  .function = f.function, .offset = f.offset,
				  .kernel = s->kernel };
	/* One row per function; what is not named, one per module and
	 * reason. */
	k.why = f.function ? MMP_NAMED : f.why;
	if (!f.function)
		p->unnamed[f.why]++;
	int rc = count(p, &k, round);
	if (!rc)
		rc = name_chain(sy, s, &f, frames, &nf);
	if (!rc)
		rc = add_inclusive(p, frames, nf, round);
	if (!rc)
		rc = add_stack(p, frames, nf, s->kernel);
	if (rc || !f.file)
		return rc;
	k = (struct mmp_prof_row){ .kind = MMP_PROF_LINE, .module = f.module,
				   .function = f.function, .file = f.file, .line = f.line,
				   .offset = f.offset, .kernel = s->kernel };
	return count(p, &k, round);
}

int mmp_profile_add(struct mmp_profile *p, struct mmp_symbols *sy, const struct mmp_samples *s,
		    size_t round)
{
	int rc = grow_rounds(p, round + 1);
	if (rc)
		return rc;
	if ((rc = mmp_symbols_process(sy, s)))
		return rc;
	p->have[round] = 1;
	p->period_ns = s->period_ns;
	p->fault_period = s->fault_period;
	p->lost += s->lost;
	p->perf_map_seen |= mmp_symbols_has_perf_map(sy);
	p->jit |= s->jit;
	p->runtimes |= mmp_samples_runtimes(s);
	p->user_only |= s->user_only;
	if (s->faults_refused)
		p->faults_refused = s->faults_refused;
	for (size_t i = 0; i < s->n && !rc; i++) {
		const struct mmp_sample *x = &s->s[i];
		if (x->kind == MMP_SAMPLE_CPU) {
			p->cpu[round] += 1;
			rc = add_cpu(p, sy, x, round);
			continue;
		}
		const char *map = mmp_symbols_mapping(sy, x->pid, x->addr, x->time);
		struct mmp_prof_row k = { .kind = MMP_PROF_FAULTS,
					  .module = map ? map : "[no mapping recorded]" };
		p->faults[round] += 1;
		rc = count(p, &k, round);
	}
	return rc;
}

void mmp_profile_refused(struct mmp_profile *p, const char *why)
{
	if (!p->refused[0])
		snprintf(p->refused, sizeof(p->refused), "%s", why);
}

size_t mmp_profile_rounds(const struct mmp_profile *p)
{
	size_t n = 0;
	for (size_t k = 0; k < p->rounds; k++)
		n += p->have[k];
	return n;
}

double mmp_profile_samples(const struct mmp_profile *p, int faults)
{
	double sum = 0;
	for (size_t k = 0; k < p->rounds; k++)
		sum += faults ? p->faults[k] : p->cpu[k];
	return sum;
}

void mmp_profile_share(const struct mmp_profile *p, const struct mmp_prof_row *row,
		       struct mmp_interval *out)
{
	const double *of = row->kind == MMP_PROF_FAULTS ? p->faults : p->cpu;
	double *v = malloc((p->rounds ? p->rounds : 1) * sizeof(double));
	size_t n = 0;
	memset(out, 0, sizeof(*out));
	if (!v)
		return;
	for (size_t k = 0; k < p->rounds; k++)
		if (p->have[k] && of[k] > 0)
			v[n++] = row->count[k] / of[k];
	mmp_interval_mean(v, n, out);
	free(v);
}

static int by_total(const void *a, const void *b)
{
	const struct mmp_prof_row *x = *(const struct mmp_prof_row *const *)a;
	const struct mmp_prof_row *y = *(const struct mmp_prof_row *const *)b;
	return x->total < y->total ? 1 : x->total > y->total ? -1 : 0;
}

size_t mmp_profile_top(const struct mmp_profile *p, enum mmp_prof_kind kind,
		       const struct mmp_prof_row **out, size_t cap)
{
	const struct mmp_prof_row **all = malloc((p->nrows ? p->nrows : 1) * sizeof(*all));
	size_t n = 0;
	if (!all)
		return 0;
	for (size_t i = 0; i < p->nrows; i++)
		if (p->row[i].kind == kind)
			all[n++] = &p->row[i];
	qsort(all, n, sizeof(*all), by_total);
	if (n > cap)
		n = cap;
	memcpy(out, all, n * sizeof(*out));
	free(all);
	return n;
}

/* A function's self samples: its function row, and its time in the
 * kernel entered from it. */
static double self_samples(const struct mmp_profile *p, const struct mmp_prof_row *r)
{
	double n = 0;
	for (int kernel = 0; kernel < 2; kernel++) {
		struct mmp_prof_row k = { .kind = MMP_PROF_FUNCTION, .module = r->module,
					  .function = r->function, .why = r->why,
					  .kernel = kernel };
		const struct mmp_prof_row *f = find(p, &k);
		n += f ? f->total : 0;
	}
	return n;
}

size_t mmp_profile_callers(const struct mmp_profile *p, const struct mmp_prof_row **out,
			   size_t cap)
{
	const struct mmp_prof_row **all = malloc((p->nrows ? p->nrows : 1) * sizeof(*all));
	const double samples = mmp_profile_samples(p, 0);
	size_t n = 0;
	if (!all)
		return 0;
	for (size_t i = 0; i < p->nrows; i++) {
		const struct mmp_prof_row *r = &p->row[i];
		if (r->kind != MMP_PROF_INCLUSIVE || !r->function)
			continue;
		double most = 0; /* its samples in the one callee it calls most */
		for (size_t c = 0; c < r->ncallee; c++)
			most = r->callee[c].n > most ? r->callee[c].n : most;
		if (r->total >= MMP_PROFILE_EVERY * samples || r->depth > MMP_PROFILE_NEAR * r->total ||
		    most >= MMP_PROFILE_PASS * r->total ||
		    r->total - self_samples(p, r) < MMP_PROFILE_CALLEES * samples)
			continue;
		all[n++] = r;
	}
	qsort(all, n, sizeof(*all), by_total);
	if (n > cap)
		n = cap;
	memcpy(out, all, n * sizeof(*out));
	free(all);
	return n;
}

static int by_growth(const void *a, const void *b)
{
	const struct mmp_growth *x = a, *y = b;
	double gx = x->growth.estimate, gy = y->growth.estimate;
	return gx < gy ? 1 : gx > gy ? -1 : 0;
}

size_t mmp_profile_growth(const struct mmp_profile *a, double per_a, const struct mmp_profile *b,
			  double per_b, enum mmp_prof_kind kind, struct mmp_growth *out,
			  size_t cap, struct mmp_interval *total)
{
	size_t rounds = a->rounds < b->rounds ? a->rounds : b->rounds;
	size_t nr = b->nrows ? b->nrows : 1, nk1 = rounds ? rounds : 1;
	size_t *ks = malloc(nk1 * sizeof(*ks));
	double *va = malloc(4 * nk1 * sizeof(double));
	double *vb = va ? va + rounds : NULL, *d = va ? va + 2 * rounds : NULL;
	double *gross = va ? va + 3 * rounds : NULL;
	double *diff = malloc(nr * nk1 * sizeof(double)); /* row by row, round by round */
	struct mmp_growth *all = malloc(nr * sizeof(*all));
	size_t n = 0, nk = 0, got = 0;
	double grew = 0;

	memset(total, 0, sizeof(*total));
	if (!ks || !va || !diff || !all || per_a <= 0 || per_b <= 0)
		goto out;
	const double ca = (double)a->period_ns / per_a, cb = (double)b->period_ns / per_b;
	for (size_t k = 0; k < rounds; k++)
		if (a->have[k] && b->have[k])
			ks[nk++] = k;
	if (!nk)
		goto out;
	for (size_t j = 0; j < nk; j++) {
		va[j] = a->cpu[ks[j]] * ca;
		vb[j] = b->cpu[ks[j]] * cb;
		gross[j] = 0;
	}
	mmp_interval_diff(vb, va, nk, total);
	for (size_t i = 0; i < b->nrows; i++) {
		const struct mmp_prof_row *rb = &b->row[i];
		if (rb->kind != kind)
			continue;
		const struct mmp_prof_row *ra = find(a, rb);
		double *dr = diff + n * nk;
		for (size_t j = 0; j < nk; j++) {
			va[j] = ra ? ra->count[ks[j]] * ca : 0;
			vb[j] = rb->count[ks[j]] * cb;
			dr[j] = vb[j] - va[j];
		}
		struct mmp_growth *g = &all[n++];
		g->row = rb;
		mmp_interval_diff(vb, va, nk, &g->growth);
	}
	/* Shares are of the growth where it grew: the rows that grew, summed
	 * round by round.  Of the net growth they could pass 100% when a
	 * control moves time from one function to another (prefault: the
	 * faults' work moved into mmap's syscall) and the net is small. */
	for (size_t i = 0; i < n; i++) {
		if (all[i].growth.estimate <= 0)
			continue;
		grew += all[i].growth.estimate;
		for (size_t j = 0; j < nk; j++)
			gross[j] += diff[i * nk + j];
	}
	for (size_t i = 0; i < n; i++) {
		size_t m = 0;
		for (size_t j = 0; j < nk; j++)
			if (gross[j] > 0)
				d[m++] = diff[i * nk + j] / gross[j];
		mmp_interval_mean(d, m, &all[i].share);
		all[i].grew = grew;
	}
	qsort(all, n, sizeof(*all), by_growth);
	got = n < cap ? n : cap;
	memcpy(out, all, got * sizeof(*out));
out:
	free(ks);
	free(va);
	free(diff);
	free(all);
	return got;
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* "()" after a function's name, unless it has its own (a JIT's names
 * carry their signature: "Program::Main(string[])[OptimizedTier1]"). */
static const char *parens(const char *function)
{
	return function && strchr(function, '(') ? "" : "()";
}

/* A JIT's name without what the reader does not need to find it: .NET's
 * perf map says "instance uint8 [System.Private.CoreLib]
 * System.IO.UnmanagedMemoryAccessor::ReadByte(int64)[OptimizedTier1]",
 * the return type and the assembly before the type; the CSV's function
 * column keeps it whole. */
static const char *jit_short(const struct mmp_prof_row *row)
{
	const char *f = row->function, *colons = strstr(f, "::"), *cut = NULL;
	if (strcmp(row->module, "[jit]") != 0 || !colons)
		return f;
	for (const char *q = f; q + 1 < colons; q++)
		if (q[0] == ']' && q[1] == ' ')
			cut = q + 2;
	return cut ? cut : f;
}

const char *mmp_prof_frame_name(const struct mmp_prof_frame *f, char *buf, size_t len)
{
	struct mmp_prof_row row = { .kind = MMP_PROF_FUNCTION, .module = f->module,
				    .function = f->function, .why = f->why };
	if (f->function)
		snprintf(buf, len, "%s", jit_short(&row));
	else if (f->why == MMP_KERNEL)
		snprintf(buf, len, "[kernel]");
	else
		snprintf(buf, len, "%s (%s)", base(f->module), mmp_unnamed_why(f->why));
	/* The folded format's separators: ';' between frames, the last
	 * space before the count (a space inside a frame is read as part
	 * of it), one stack a line. */
	for (char *c = buf; *c; c++)
		if (*c == ';')
			*c = ':';
		else if (*c == '\n' || *c == '\r')
			*c = ' ';
	return buf;
}

const char *mmp_prof_row_name(const struct mmp_prof_row *row, char *buf, size_t len)
{
	if (row->kernel && row->why != MMP_KERNEL) {
		struct mmp_prof_row user = *row;
		user.kernel = 0;
		mmp_prof_row_name(&user, buf, len);
		size_t n = strlen(buf);
		snprintf(buf + n, len - n, " in the kernel");
		return buf;
	}
	if (row->kind == MMP_PROF_FAULTS)
		snprintf(buf, len, "%s", row->module);
	else if (row->kind == MMP_PROF_LINE)
		snprintf(buf, len, "%s:%u in %s%s", base(row->file), row->line,
			 row->function ? row->function : "?", parens(row->function));
	else if (row->function)
		snprintf(buf, len, "%s%s", jit_short(row), parens(row->function));
	else if (row->why == MMP_KERNEL)
		snprintf(buf, len, "[kernel]");
	else
		snprintf(buf, len, "%s+0x%" PRIx64 " (%s)", base(row->module), row->offset,
			 mmp_unnamed_why(row->why));
	return buf;
}
