/* The matrices (see report.h): core to core from pingpong over PU pairs,
 * node to node from chase and limit over numa:M x membind node:N. */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

#include "mmprof/probe.h"
#include "result/stats.h"
#include "platform/topology.h"
#include "util/units.h"

/* A run's figure for a matrix cell: ns per operation for the probes that
 * count operations, GB/s for a byte probe (limit: the bandwidth side). */
static double figure(const struct mmp_run_result *r)
{
	if (r->ops)
		return r->st.median / (double)r->ops;
	return r->bytes ? (double)r->bytes / r->st.median : 0;
}

static const char *figure_unit(const struct mmp_run_result *r)
{
	static char unit[40];
	if (r->ops)
		snprintf(unit, sizeof(unit), "ns per %s", r->run->p.probe->unit);
	else
		snprintf(unit, sizeof(unit), "GB/s");
	return unit;
}

static void print_cell(FILE *out, double v, int width)
{
	if (v <= 0)
		fprintf(out, " %*s", width, ".");
	else if (v >= 100)
		fprintf(out, " %*.0f", width, v);
	else
		fprintf(out, " %*.1f", width, v);
}

/* Whether two job points belong in one matrix: same job, and every key
 * but what the matrix spreads over equal -- the placement for both, and
 * the memory binding for the node matrix only (a core matrix bound
 * elsewhere is another matrix). */
static int same_matrix(const struct mmp_results *res, const struct mmp_run_result *a,
		       const struct mmp_run_result *b)
{
	char x[256], y[256];
	const int pairs = a->run->p.placement.kind == MMP_PLACE_PAIRS;
	if (a->run->job != b->run->job)
		return 0;
	for (size_t k = 0; k < MMP_KEY_COUNT; k++) {
		if (k == MMP_KEY_PLACEMENT || (k == MMP_KEY_MEMBIND && !pairs))
			continue;
		if (strcmp(mmp_run_format(a->run, (enum mmp_key_id)k, x, sizeof(x)),
			   mmp_run_format(b->run, (enum mmp_key_id)k, y, sizeof(y))) != 0)
			return 0;
	}
	(void)res;
	return 1;
}

/* What tells this matrix from its job's others: the keys whose value
 * differs between the job's points, but the two a matrix spreads over
 * (and the size, which the node matrix names itself). */
static const char *matrix_keys(const struct mmp_results *res, const struct mmp_run_result *r,
			       char *buf, size_t len)
{
	char v[128], w[128];
	size_t used = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < MMP_KEY_COUNT && used < len; k++) {
		int differs = 0;
		if (k == MMP_KEY_PLACEMENT || k == MMP_KEY_SIZE ||
		    (k == MMP_KEY_MEMBIND && r->run->p.placement.kind != MMP_PLACE_PAIRS) ||
		    !*mmp_run_format(r->run, (enum mmp_key_id)k, v, sizeof(v)))
			continue;
		for (size_t j = 0; j < res->plan->nruns && !differs; j++) {
			const struct mmp_run_result *o = &res->run[j];
			differs = mmp_planned_is_point(o->planned) && o->run->job == r->run->job &&
				  strcmp(mmp_run_format(o->run, (enum mmp_key_id)k, w, sizeof(w)),
					 v) != 0;
		}
		if (differs)
			used += (size_t)snprintf(buf + used, len - used, " %s=%s",
						 mmp_keys[k].name, v);
	}
	return buf;
}

static int usable(const struct mmp_run_result *r)
{
	return mmp_planned_is_point(r->planned) && mmp_result_has_data(r) && r->results_ok;
}

/* The members of i's matrix (i first), when i is the first of them. */
static size_t members(const struct mmp_results *res, size_t i, int (*fits)(const struct mmp_run_result *),
		      size_t *idx)
{
	const struct mmp_plan *plan = res->plan;
	size_t n = 0;
	for (size_t j = 0; j < plan->nruns; j++) {
		const struct mmp_run_result *r = &res->run[j];
		if (!usable(r) || !fits(r) || !same_matrix(res, &res->run[i], r))
			continue;
		if (j < i)
			return 0; /* printed with an earlier member */
		idx[n++] = j;
	}
	return n;
}

static int is_pairs(const struct mmp_run_result *r)
{
	return r->run->p.placement.kind == MMP_PLACE_PAIRS && r->ops;
}

static int cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static size_t distinct(int *v, size_t n)
{
	size_t m = 0;
	qsort(v, n, sizeof(*v), cmp_int);
	for (size_t i = 0; i < n; i++)
		if (!m || v[m - 1] != v[i])
			v[m++] = v[i];
	return m;
}

static size_t index_of(const int *v, size_t n, int x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return i;
	return n;
}

/* One line per pair relation: the median cell and the range. */
static void print_relations(FILE *out, const struct mmp_results *res, const size_t *idx,
			    size_t n, const struct mmp_topology *topo)
{
	double *v = malloc(n * sizeof(*v));
	if (!v)
		return;
	for (int rel = MMP_PAIR_SMT; rel <= MMP_PAIR_REMOTE; rel++) {
		size_t m = 0;
		for (size_t k = 0; k < n; k++) {
			const struct mmp_run_result *r = &res->run[idx[k]];
			const int *pu = r->planned->pins.pu;
			if ((int)mmp_topology_pair_relation(topo, pu[0], pu[1]) == rel)
				v[m++] = figure(r);
		}
		struct mmp_stats st;
		if (!m || mmp_stats_compute(v, m, &st))
			continue;
		fprintf(out, "  %-14s %zu pair%s: median %.1f, from %.1f to %.1f\n",
			mmp_pair_relation_name((enum mmp_pair_relation)rel), m, m == 1 ? "" : "s",
			st.median, st.min, st.max);
	}
	free(v);
}

static void pu_matrix(FILE *out, const struct mmp_results *res, const size_t *idx, size_t n,
		      const struct mmp_topology *topo)
{
	int *pus = malloc(2 * n * sizeof(*pus));
	double *cell = NULL, cv_max = 0;
	if (!pus)
		return;
	for (size_t k = 0; k < n; k++) {
		pus[2 * k] = res->run[idx[k]].planned->pins.pu[0];
		pus[2 * k + 1] = res->run[idx[k]].planned->pins.pu[1];
	}
	size_t m = distinct(pus, 2 * n);
	cell = calloc(m * m, sizeof(*cell));
	if (!cell) {
		free(pus);
		return;
	}
	unsigned rounds = 0;
	for (size_t k = 0; k < n; k++) {
		const struct mmp_run_result *r = &res->run[idx[k]];
		size_t a = index_of(pus, m, r->planned->pins.pu[0]);
		size_t b = index_of(pus, m, r->planned->pins.pu[1]);
		cell[a * m + b] = cell[b * m + a] = figure(r); /* either way round */
		cv_max = r->st.cv > cv_max ? r->st.cv : cv_max;
		rounds = (unsigned)r->n;
	}
	const struct mmp_run_result *first = &res->run[idx[0]];
	char keys[256];
	fprintf(out, "\n[%s]%s core to core: %s, PU x PU (median of %u rounds; every pair's "
		     "cv <= %.*f%%; '.' not measured):\n",
		first->run->job->name, matrix_keys(res, first, keys, sizeof(keys)),
		figure_unit(first), rounds, cv_max < 0.1 ? 1 : 0, cv_max * 100);
	fprintf(out, "  %5s", "PU");
	for (size_t b = 0; b < m; b++)
		fprintf(out, " %6d", pus[b]);
	fprintf(out, "\n");
	for (size_t a = 0; a < m; a++) {
		fprintf(out, "  %5d", pus[a]);
		for (size_t b = 0; b < m; b++)
			print_cell(out, a == b ? 0 : cell[a * m + b], 6);
		fprintf(out, "\n");
	}
	if (topo)
		print_relations(out, res, idx, n, topo);
	free(cell);
	free(pus);
}

/* placement = numa:M (one node) and membind = node:N: the CPU node and the
 * memory node of a cell. */
static int is_node_cell(const struct mmp_run_result *r)
{
	const struct mmp_params *p = &r->run->p;
	return p->placement.kind == MMP_PLACE_NUMA && !strchr(p->placement.spec, ',') &&
	       !strchr(p->placement.spec, '-') && p->membind.kind == MMP_MEMBIND_NODE &&
	       (r->ops || p->probe->role == MMP_PROBE_CEILING);
}

static void node_matrix(FILE *out, const struct mmp_results *res, const size_t *idx, size_t n)
{
	int *cpu = malloc(n * sizeof(*cpu)), *mem = malloc(n * sizeof(*mem));
	int *cpus = malloc(n * sizeof(*cpus)), *mems = malloc(n * sizeof(*mems));
	double *cell = NULL, cv_max = 0;
	unsigned rounds = 0;
	if (!cpu || !mem || !cpus || !mems)
		goto out;
	for (size_t k = 0; k < n; k++) {
		const struct mmp_params *p = &res->run[idx[k]].run->p;
		cpus[k] = cpu[k] = (int)p->placement.numa_node;
		mems[k] = mem[k] = (int)p->membind.node;
	}
	size_t nc = distinct(cpus, n), nm = distinct(mems, n);
	cell = calloc(nc * nm, sizeof(*cell));
	if (!cell)
		goto out;
	for (size_t k = 0; k < n; k++) {
		const struct mmp_run_result *r = &res->run[idx[k]];
		cell[index_of(cpus, nc, cpu[k]) * nm + index_of(mems, nm, mem[k])] = figure(r);
		cv_max = r->st.cv > cv_max ? r->st.cv : cv_max;
		rounds = (unsigned)r->n;
	}
	const struct mmp_run_result *first = &res->run[idx[0]];
	char size[32], keys[256];
	fprintf(out, "\n[%s]%s node to node: %s, %s%s, threads on node (rows) x memory on node "
		     "(columns) (median of %u rounds; cv <= %.*f%%; '.' not measured):\n",
		first->run->job->name, matrix_keys(res, first, keys, sizeof(keys)),
		first->run->p.probe->name,
		mmp_format_size(first->bytes, size, sizeof(size)),
		first->ops ? "" : " read", rounds, cv_max < 0.1 ? 1 : 0, cv_max * 100);
	fprintf(out, "  %-12s", figure_unit(first));
	for (size_t b = 0; b < nm; b++)
		fprintf(out, "  node %3d", mems[b]);
	fprintf(out, "\n");
	for (size_t a = 0; a < nc; a++) {
		fprintf(out, "  node %-7d", cpus[a]);
		for (size_t b = 0; b < nm; b++)
			print_cell(out, cell[a * nm + b], 9);
		fprintf(out, "\n");
	}
out:
	free(cell);
	free(cpu);
	free(mem);
	free(cpus);
	free(mems);
}

void mmp_report_matrices(FILE *out, const struct mmp_results *res,
			 const struct mmp_topology *topo)
{
	const struct mmp_plan *plan = res->plan;
	size_t *idx = malloc((plan->nruns ? plan->nruns : 1) * sizeof(*idx));
	if (!idx)
		return;
	for (size_t i = 0; i < plan->nruns; i++) {
		const struct mmp_run_result *r = &res->run[i];
		if (!usable(r))
			continue;
		size_t n;
		if (is_pairs(r) && (n = members(res, i, is_pairs, idx)) > 0)
			pu_matrix(out, res, idx, n, topo);
		else if (is_node_cell(r) && (n = members(res, i, is_node_cell, idx)) > 0)
			node_matrix(out, res, idx, n);
	}
	free(idx);
}
