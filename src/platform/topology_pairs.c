/* PU pairs for two-thread probes (cache-line ping-pong, core-to-core
 * latency): every pair, or a sample that keeps every relation. */
#include "topology_internal.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *mmp_pair_relation_name(enum mmp_pair_relation r)
{
	switch (r) {
	case MMP_PAIR_SMT:
		return "SMT siblings";
	case MMP_PAIR_L3:
		return "same L3";
	case MMP_PAIR_NODE:
		return "same node";
	case MMP_PAIR_PACKAGE:
		return "same package";
	case MMP_PAIR_REMOTE:
		return "other package";
	}
	return "?";
}

static int same(const struct mmp_topology *t, hwloc_obj_type_t type, hwloc_obj_t a,
		hwloc_obj_t b)
{
	hwloc_obj_t x = hwloc_get_ancestor_obj_by_type(t->topo, type, a);
	hwloc_obj_t y = hwloc_get_ancestor_obj_by_type(t->topo, type, b);
	return x && x == y;
}

static enum mmp_pair_relation relation(const struct mmp_topology *t, hwloc_obj_t a,
				       hwloc_obj_t b)
{
	hwloc_obj_t na = mmp_pu_numa_obj(t, a->os_index), nb = mmp_pu_numa_obj(t, b->os_index);
	if (same(t, HWLOC_OBJ_CORE, a, b))
		return MMP_PAIR_SMT;
	int l3 = mmp_cache_domain_of(&t->cache[2], a->os_index);
	if (l3 >= 0 && l3 == mmp_cache_domain_of(&t->cache[2], b->os_index))
		return MMP_PAIR_L3;
	if (na && na == nb)
		return MMP_PAIR_NODE;
	if (same(t, HWLOC_OBJ_PACKAGE, a, b))
		return MMP_PAIR_PACKAGE;
	return MMP_PAIR_REMOTE;
}

enum mmp_pair_relation mmp_topology_pair_relation(const struct mmp_topology *t, int a, int b)
{
	hwloc_obj_t x = a < 0 ? NULL : hwloc_get_pu_obj_by_os_index(t->topo, (unsigned)a);
	hwloc_obj_t y = b < 0 ? NULL : hwloc_get_pu_obj_by_os_index(t->topo, (unsigned)b);
	return x && y ? relation(t, x, y) : MMP_PAIR_REMOTE;
}

struct group {
	enum mmp_pair_relation relation;
	unsigned distance;
	size_t n, quota, taken, seen;
};

/* Within a node the distance is the local one: only between nodes does
 * it tell relations apart (one hop or two on a 4- or 8-socket machine). */
static unsigned key_distance(const struct mmp_pu_pair *p)
{
	return p->relation >= MMP_PAIR_PACKAGE ? p->distance : 0;
}

/* The index of p's group; a new group when add and none matches, -1 when
 * not add and none matches. */
static int group_of(struct group *g, unsigned *ng, const struct mmp_pu_pair *p, int add)
{
	for (unsigned i = 0; i < *ng; i++)
		if (g[i].relation == p->relation && g[i].distance == key_distance(p))
			return (int)i;
	if (!add)
		return -1;
	g[*ng] = (struct group){ p->relation, key_distance(p), 0, 0, 0, 0 };
	return (int)(*ng)++;
}

static int nearer(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->relation != y->relation)
		return x->relation < y->relation ? -1 : 1;
	return x->distance < y->distance ? -1 : x->distance > y->distance;
}

static void describe(const struct group *g, unsigned ng, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < ng && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used,
					 g[i].distance ? "%s%s (distance %u)" : "%s%s", i ? "; " : "",
					 mmp_pair_relation_name(g[i].relation), g[i].distance);
}

/* The rule documented in topology.h: groups take turns at the budget,
 * then each keeps pairs floor(k*n/q) of its own, in topology order. */
static size_t sample(struct mmp_pu_pair *all, size_t total, unsigned max, struct group *g,
		     unsigned ng, const int *gid)
{
	size_t left = max, kept = 0;
	while (left)
		for (unsigned i = 0; i < ng && left; i++)
			if (g[i].quota < g[i].n) {
				g[i].quota++;
				left--;
			}
	for (size_t i = 0; i < total; i++) {
		struct group *x = &g[gid[i]];
		uint64_t next = (uint64_t)x->taken * x->n / (x->quota ? x->quota : 1);
		if (x->taken < x->quota && x->seen == next) {
			all[kept++] = all[i];
			x->taken++;
		}
		x->seen++;
	}
	return kept;
}

int mmp_topology_pairs(const struct mmp_topology *t, unsigned max_pairs,
		       struct mmp_pu_pair **out, size_t *n, struct mmp_error *err)
{
	unsigned m = mmp_topology_allowed_pus(t), k = 0, ng = 0;
	char text[512];
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (m < 2)
		return mmp_error_set(err, -EINVAL, "pairs need two PUs (%s)",
				     mmp_allowed_text(t, text, sizeof(text)));
	hwloc_obj_t *pu = calloc(m, sizeof(*pu));
	size_t total = (size_t)m * (m - 1) / 2;
	struct mmp_pu_pair *all = calloc(total, sizeof(*all));
	int *gid = calloc(total, sizeof(*gid));
	/* Groups: five relations times the distinct matrix values (or 0). */
	unsigned nodes = mmp_topology_numa_nodes(t);
	struct group *g = calloc(5 * ((size_t)nodes * nodes + 1), sizeof(*g));
	struct hwloc_distances_s *d = mmp_numa_latency(t);
	if (!pu || !all || !gid || !g) {
		rc = mmp_error_set(err, -ENOMEM, "out of memory for %zu PU pairs", total);
		goto out;
	}
	for (int os = hwloc_bitmap_first(t->allowed); os >= 0 && k < m;
	     os = hwloc_bitmap_next(t->allowed, os))
		if ((pu[k] = hwloc_get_pu_obj_by_os_index(t->topo, (unsigned)os)) != NULL)
			k++;
	m = k;
	total = (size_t)m * (m - 1) / 2;
	size_t i = 0;
	for (unsigned a = 0; a < m; a++)
		for (unsigned b = a + 1; b < m; b++, i++) {
			all[i].pu[0] = (int)pu[a]->os_index;
			all[i].pu[1] = (int)pu[b]->os_index;
			all[i].relation = relation(t, pu[a], pu[b]);
			all[i].distance = mmp_numa_distance(t, d, mmp_pu_numa_obj(t, pu[a]->os_index),
							    mmp_pu_numa_obj(t, pu[b]->os_index));
		}
	if (max_pairs == 0 || total <= max_pairs) {
		*out = all;
		*n = total;
		all = NULL;
		goto out;
	}
	for (i = 0; i < total; i++)
		group_of(g, &ng, &all[i], 1);
	qsort(g, ng, sizeof(*g), nearer);
	for (i = 0; i < total; i++) {
		gid[i] = group_of(g, &ng, &all[i], 0);
		g[gid[i]].n++;
	}
	if (max_pairs < ng) {
		describe(g, ng, text, sizeof(text));
		rc = mmp_error_set(err, -EINVAL,
				   "max_pairs %u cannot keep every relation: this machine has %u "
				   "(%s)",
				   max_pairs, ng, text);
		goto out;
	}
	*n = sample(all, total, max_pairs, g, ng, gid);
	*out = all;
	all = NULL;
out:
	if (d)
		hwloc_distances_release(t->topo, d);
	free(pu);
	free(all);
	free(gid);
	free(g);
	return rc;
}
