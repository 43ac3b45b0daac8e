/* Planning: which allowed PU each thread of a run takes, one step per
 * placement kind (likwid-pin's and hwloc-distrib's policies). */
#include "topology_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void mmp_order_push(struct mmp_pu_order *o, int pu)
{
	if (o->n < o->cap)
		o->pu[o->n++] = pu;
}

/* The allowed PUs of set, in topology (logical) order. */
static void order_compact(const struct mmp_topology *t, hwloc_const_cpuset_t set,
			  struct mmp_pu_order *o)
{
	hwloc_obj_t pu = NULL;
	while ((pu = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_PU, pu)) != NULL)
		if (hwloc_bitmap_isset(set, pu->os_index) &&
		    hwloc_bitmap_isset(t->allowed, pu->os_index))
			mmp_order_push(o, (int)pu->os_index);
}

/* The rank-th allowed PU of core within set, or NULL. */
static hwloc_obj_t nth_pu(const struct mmp_topology *t, hwloc_obj_t core,
			  hwloc_const_cpuset_t set, unsigned rank)
{
	hwloc_obj_t pu = NULL;
	while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(t->topo, core->cpuset,
							      HWLOC_OBJ_PU, pu)) != NULL)
		if (hwloc_bitmap_isset(set, pu->os_index) &&
		    hwloc_bitmap_isset(t->allowed, pu->os_index) && rank-- == 0)
			return pu;
	return NULL;
}

/* One PU per core first, then the SMT siblings: a second thread on a core
 * shares its L1, L2 and execution ports, so it is taken last. */
static void order_by_core(const struct mmp_topology *t, hwloc_const_cpuset_t set,
			  unsigned rank_limit, struct mmp_pu_order *o)
{
	if (hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_CORE) <= 0) {
		order_compact(t, set, o);
		return;
	}
	for (unsigned rank = 0; rank < rank_limit; rank++) {
		int pushed = 0;
		hwloc_obj_t core = NULL, pu;
		while ((core = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_CORE, core)) != NULL)
			if ((pu = nth_pu(t, core, set, rank)) != NULL) {
				mmp_order_push(o, (int)pu->os_index);
				pushed = 1;
			}
		if (!pushed)
			break;
	}
}

/* The parts of set (allowed PUs only) under each object of type, in
 * topology order; PUs under none form one more part; a PU under two
 * objects (a DRAM and an HBM node) counts in the first. */
/* The PUs of the i-th domain of type: L3 domains from the machine's own
 * cache description (t->cache), other types from hwloc's objects. */
static hwloc_const_cpuset_t domain_set(const struct mmp_topology *t, hwloc_obj_type_t type,
				       unsigned i)
{
	if (type == HWLOC_OBJ_L3CACHE)
		return i < t->cache[2].n ? t->cache[2].set[i] : NULL;
	hwloc_obj_t obj = hwloc_get_obj_by_type(t->topo, type, i);
	return obj ? obj->cpuset : NULL;
}

static unsigned domains(const struct mmp_topology *t, hwloc_obj_type_t type)
{
	int n = hwloc_get_nbobjs_by_type(t->topo, type);
	return type == HWLOC_OBJ_L3CACHE ? t->cache[2].n : n > 0 ? (unsigned)n : 0;
}

/* The parts of set (allowed PUs only) under each object of type, in
 * topology order; PUs under none form one more part; a PU under two
 * objects (a DRAM and an HBM node) counts in the first. */
static int split_by(const struct mmp_topology *t, hwloc_obj_type_t type,
		    hwloc_const_cpuset_t set, hwloc_bitmap_t **parts, unsigned *n)
{
	unsigned max = domains(t, type);
	hwloc_bitmap_t left = hwloc_bitmap_alloc();
	*parts = calloc((size_t)max + 1, sizeof(**parts));
	*n = 0;
	if (!left || !*parts)
		goto nomem;
	hwloc_bitmap_and(left, set, t->allowed);
	for (unsigned i = 0; i < max; i++) {
		hwloc_const_cpuset_t dom = domain_set(t, type, i);
		if (!dom || !hwloc_bitmap_intersects(dom, left))
			continue;
		hwloc_bitmap_t part = hwloc_bitmap_alloc();
		if (!part)
			goto nomem;
		hwloc_bitmap_and(part, dom, left);
		hwloc_bitmap_andnot(left, left, part);
		(*parts)[(*n)++] = part;
	}
	if (!hwloc_bitmap_iszero(left)) {
		(*parts)[(*n)++] = left;
		left = NULL;
	}
	hwloc_bitmap_free(left);
	return 0;
nomem:
	hwloc_bitmap_free(left);
	return -ENOMEM;
}

static void free_parts(hwloc_bitmap_t *parts, unsigned n)
{
	for (unsigned i = 0; parts && i < n; i++)
		hwloc_bitmap_free(parts[i]);
	free(parts);
}

/* Domains of levels[0] take turns, each ordering its own PUs by the
 * levels below it; below the last level, cores take turns. */
static int order_levels(const struct mmp_topology *t, hwloc_const_cpuset_t set,
			const hwloc_obj_type_t *levels, unsigned nlevels, struct mmp_pu_order *o)
{
	hwloc_bitmap_t *parts = NULL;
	struct mmp_pu_order *sub = NULL;
	unsigned n = 0;
	int rc;

	if (nlevels == 0) {
		order_by_core(t, set, ~0u, o);
		return 0;
	}
	rc = split_by(t, levels[0], set, &parts, &n);
	if (rc || n <= 1) {
		if (!rc)
			rc = order_levels(t, set, levels + 1, nlevels - 1, o);
		free_parts(parts, n);
		return rc;
	}
	sub = calloc(n, sizeof(*sub));
	rc = sub ? 0 : -ENOMEM;
	for (unsigned d = 0; d < n && rc == 0; d++) {
		sub[d].cap = o->cap;
		sub[d].pu = calloc(o->cap, sizeof(int));
		rc = sub[d].pu ? order_levels(t, parts[d], levels + 1, nlevels - 1, &sub[d])
			       : -ENOMEM;
	}
	for (unsigned i = 0, any = 1; rc == 0 && any; i++) {
		any = 0;
		for (unsigned d = 0; d < n; d++)
			if (i < sub[d].n) {
				mmp_order_push(o, sub[d].pu[i]);
				any = 1;
			}
	}
	for (unsigned d = 0; sub && d < n; d++)
		free(sub[d].pu);
	free(sub);
	free_parts(parts, n);
	return rc;
}

static hwloc_const_cpuset_t whole(const struct mmp_topology *t)
{
	return hwloc_topology_get_topology_cpuset(t->topo);
}

static int nomem(int rc, struct mmp_error *err)
{
	return rc ? mmp_error_set(err, -ENOMEM, "out of memory") : 0;
}

int mmp_plan_compact(const struct mmp_topology *t, const struct mmp_placement *p,
		     struct mmp_pu_order *o, struct mmp_error *err)
{
	(void)p;
	(void)err;
	order_compact(t, whole(t), o);
	return 0;
}

int mmp_plan_cores(const struct mmp_topology *t, const struct mmp_placement *p,
		   struct mmp_pu_order *o, struct mmp_error *err)
{
	(void)p;
	(void)err;
	order_by_core(t, whole(t), 1, o);
	return 0;
}

int mmp_plan_scatter(const struct mmp_topology *t, const struct mmp_placement *p,
		     struct mmp_pu_order *o, struct mmp_error *err)
{
	static const hwloc_obj_type_t by_package[] = { HWLOC_OBJ_PACKAGE };
	static const hwloc_obj_type_t by_node[] = { HWLOC_OBJ_NUMANODE };
	hwloc_bitmap_t *parts;
	unsigned n;
	(void)p;

	if (split_by(t, HWLOC_OBJ_PACKAGE, whole(t), &parts, &n))
		return nomem(-ENOMEM, err);
	free_parts(parts, n);
	return nomem(order_levels(t, whole(t), n > 1 ? by_package : by_node, 1, o), err);
}

int mmp_plan_spread(const struct mmp_topology *t, const struct mmp_placement *p,
		    struct mmp_pu_order *o, struct mmp_error *err)
{
	/* Packages alternate first so that two threads already sit on two
	 * sockets (NPS2/SNC nodes of one package share its memory links). */
	static const hwloc_obj_type_t levels[] = { HWLOC_OBJ_PACKAGE, HWLOC_OBJ_NUMANODE,
						   HWLOC_OBJ_L3CACHE };
	(void)p;
	return nomem(order_levels(t, whole(t), levels, 3, o), err);
}

int mmp_plan_pairs(const struct mmp_topology *t, const struct mmp_placement *p,
		   struct mmp_pu_order *o, struct mmp_error *err)
{
	char allowed[256];
	if (mmp_topology_allowed_pus(t) < 2)
		return mmp_error_set(err, -EINVAL, "placement %s needs two PUs (%s)", p->spec,
				     mmp_allowed_text(t, allowed, sizeof(allowed)));
	/* The first pair of mmp_topology_pairs' sweep: the two lowest
	 * allowed PU numbers. */
	int first = hwloc_bitmap_first(t->allowed);
	mmp_order_push(o, first);
	mmp_order_push(o, hwloc_bitmap_next(t->allowed, first));
	return 0;
}

struct pus_walk {
	const struct mmp_topology *t;
	struct mmp_pu_order *o;
	int missing, refused;
};

static void walk_pu(void *arg, unsigned pu)
{
	struct pus_walk *w = arg;
	if (!hwloc_get_pu_obj_by_os_index(w->t->topo, pu)) {
		if (w->missing < 0)
			w->missing = (int)pu;
	} else if (!hwloc_bitmap_isset(w->t->allowed, pu)) {
		if (w->refused < 0)
			w->refused = (int)pu;
	} else {
		mmp_order_push(w->o, (int)pu);
	}
}

int mmp_plan_pus(const struct mmp_topology *t, const struct mmp_placement *p,
		 struct mmp_pu_order *o, struct mmp_error *err)
{
	struct pus_walk w = { t, o, -1, -1 };
	char list[128], allowed[256];

	mmp_idlist_walk(p->spec + 4, MMP_MAX_OS_INDEX, walk_pu, &w);
	if (w.missing >= 0)
		return mmp_error_set(err, -EINVAL, "placement %s: PU %d does not exist here (PUs: %s)",
				     p->spec, w.missing, mmp_bitmap_text(whole(t), list, sizeof(list)));
	if (w.refused >= 0)
		return mmp_error_set(err, -EINVAL,
				     "placement %s: PU %d is not allowed for this process (%s)",
				     p->spec, w.refused, mmp_allowed_text(t, allowed, sizeof(allowed)));
	return 0;
}

/* Compact within obj, or an error when the process may use none of it. */
static int within(const struct mmp_topology *t, const struct mmp_placement *p,
		  hwloc_const_cpuset_t set, const char *what, struct mmp_pu_order *o,
		  struct mmp_error *err)
{
	char pus[128], allowed[256];
	if (!set || hwloc_bitmap_iszero(set))
		return mmp_error_set(err, -EINVAL, "placement %s: %s has no PUs (memory only)",
				     p->spec, what);
	if (!hwloc_bitmap_intersects(set, t->allowed))
		return mmp_error_set(err, -EINVAL,
				     "placement %s: none of the PUs of %s (%s) is allowed for this "
				     "process (%s)",
				     p->spec, what, mmp_bitmap_text(set, pus, sizeof(pus)),
				     mmp_allowed_text(t, allowed, sizeof(allowed)));
	order_compact(t, set, o);
	return 0;
}

struct numa_walk {
	const struct mmp_topology *t;
	const struct mmp_placement *p;
	struct mmp_pu_order *o;
	struct mmp_error *err;
	int rc;
};

static void walk_node(void *arg, unsigned node)
{
	struct numa_walk *w = arg;
	char what[32], nodes[128];
	if (w->rc)
		return;
	hwloc_obj_t obj = hwloc_get_numanode_obj_by_os_index(w->t->topo, node);
	if (!obj) {
		w->rc = mmp_error_set(w->err, -EINVAL,
				      "placement %s: no NUMA node %u here (NUMA nodes: %s)",
				      w->p->spec, node,
				      mmp_topology_node_list(w->t, nodes, sizeof(nodes)));
		return;
	}
	snprintf(what, sizeof(what), "NUMA node %u", node);
	w->rc = within(w->t, w->p, obj->cpuset, what, w->o, w->err);
}

int mmp_plan_numa(const struct mmp_topology *t, const struct mmp_placement *p,
		  struct mmp_pu_order *o, struct mmp_error *err)
{
	struct numa_walk w = { t, p, o, err, 0 };
	mmp_idlist_walk(strchr(p->spec, ':') + 1, MMP_MAX_OS_INDEX, walk_node, &w);
	return w.rc;
}

static int by_index(const struct mmp_topology *t, const struct mmp_placement *p,
		    hwloc_obj_type_t type, const char *name, struct mmp_pu_order *o,
		    struct mmp_error *err)
{
	int n = (int)domains(t, type);
	hwloc_const_cpuset_t set = p->index < (unsigned)n ? domain_set(t, type, p->index) : NULL;
	char what[48], exist[48];

	if (!set) {
		if (n <= 0)
			snprintf(exist, sizeof(exist), "this machine reports no %s", name);
		else if (n == 1)
			snprintf(exist, sizeof(exist), "%ss: 0", name);
		else
			snprintf(exist, sizeof(exist), "%ss: 0-%d", name, n - 1);
		return mmp_error_set(err, -EINVAL, "placement %s: no %s %u here (%s)", p->spec,
				     name, p->index, exist);
	}
	snprintf(what, sizeof(what), "%s %u", name, p->index);
	return within(t, p, set, what, o, err);
}

int mmp_plan_package(const struct mmp_topology *t, const struct mmp_placement *p,
		     struct mmp_pu_order *o, struct mmp_error *err)
{
	return by_index(t, p, HWLOC_OBJ_PACKAGE, "package", o, err);
}

int mmp_plan_l3(const struct mmp_topology *t, const struct mmp_placement *p,
		struct mmp_pu_order *o, struct mmp_error *err)
{
	return by_index(t, p, HWLOC_OBJ_L3CACHE, "L3 domain", o, err);
}

static void count_entry(void *arg, unsigned pu)
{
	(void)pu;
	(*(unsigned *)arg)++;
}

int mmp_topology_plan(const struct mmp_topology *t, const struct mmp_placement *p,
		      unsigned nthreads, struct mmp_pin_plan *out, struct mmp_error *err)
{
	const struct mmp_placement_kind_info *kind = mmp_placement_kind_info(p->kind);
	/* A PU list may name PUs more than once: room for every entry. */
	unsigned cap = mmp_topology_pus(t), listed = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!kind)
		return mmp_error_set(err, -EINVAL, "placement %s: unknown kind %d", p->spec,
				     (int)p->kind);
	if (p->kind == MMP_PLACE_PAIRS && nthreads != 2)
		return mmp_error_set(err, -EINVAL,
				     "placement %s is for two-thread probes (threads = 2), not %u",
				     p->spec, nthreads);
	if (p->kind == MMP_PLACE_PUS)
		mmp_idlist_walk(p->spec + 4, MMP_MAX_OS_INDEX, count_entry, &listed);
	if (listed > cap)
		cap = listed;
	struct mmp_pu_order o = { .pu = calloc(cap + 1, sizeof(int)), .cap = cap };
	if (!o.pu)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	rc = kind->plan(t, p, &o, err);
	if (rc)
		goto out;
	if (o.n == 0) {
		rc = mmp_error_set(err, -EINVAL, "placement %s offers no PU", p->spec);
		goto out;
	}
	out->pu = calloc(nthreads ? nthreads : 1, sizeof(int));
	hwloc_bitmap_t distinct = hwloc_bitmap_alloc();
	if (!out->pu || !distinct) {
		hwloc_bitmap_free(distinct);
		rc = mmp_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	out->nthreads = nthreads;
	for (unsigned i = 0; i < nthreads; i++)
		out->pu[i] = o.pu[i % o.n];
	for (unsigned i = 0; i < o.n; i++)
		hwloc_bitmap_set(distinct, (unsigned)o.pu[i]);
	out->npus = (unsigned)hwloc_bitmap_weight(distinct);
	hwloc_bitmap_free(distinct);
	out->oversubscribed = nthreads > out->npus;
out:
	free(o.pu);
	if (rc)
		mmp_pin_plan_free(out);
	return rc;
}

void mmp_pin_plan_free(struct mmp_pin_plan *plan)
{
	free(plan->pu);
	memset(plan, 0, sizeof(*plan));
}

const char *mmp_pin_plan_format(const struct mmp_pin_plan *plan, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < plan->nthreads && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? " " : "",
					 plan->pu[i]);
	return buf;
}
