/* Topology and placement with hwloc (likwid-pin's policies, hwloc-bind's
 * error messages). */
#include "mmprof/topology.h"

#include <ctype.h>
#include <errno.h>
#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/suggest.h"
#include "mmprof/units.h"

#define MAX_PU_INDEX 65535

struct mmp_topology {
	hwloc_topology_t topo;
};

int mmp_topology_load(struct mmp_topology **out, const char *desc, struct mmp_error *err)
{
	struct mmp_topology *t = calloc(1, sizeof(*t));
	int rc;

	if (!t)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	if (hwloc_topology_init(&t->topo)) {
		rc = mmp_error_errno(err, -errno, "hwloc_topology_init");
		free(t);
		return rc;
	}
	if (desc) {
		size_t n = strlen(desc);
		int xml = n > 4 && strcmp(desc + n - 4, ".xml") == 0;
		if ((xml ? hwloc_topology_set_xml(t->topo, desc)
			 : hwloc_topology_set_synthetic(t->topo, desc)) != 0) {
			rc = mmp_error_errno(err, errno ? -errno : -EINVAL,
					     "hwloc: cannot use topology '%s'", desc);
			goto fail;
		}
	}
	if (hwloc_topology_load(t->topo)) {
		rc = mmp_error_errno(err, -errno, "hwloc_topology_load");
		goto fail;
	}
	*out = t;
	return 0;
fail:
	hwloc_topology_destroy(t->topo);
	free(t);
	return rc;
}

void mmp_topology_free(struct mmp_topology *t)
{
	if (!t)
		return;
	hwloc_topology_destroy(t->topo);
	free(t);
}

static unsigned count(const struct mmp_topology *t, hwloc_obj_type_t type)
{
	int n = hwloc_get_nbobjs_by_type(t->topo, type);
	return n > 0 ? (unsigned)n : 0;
}

unsigned mmp_topology_pus(const struct mmp_topology *t)
{
	return count(t, HWLOC_OBJ_PU);
}

unsigned mmp_topology_cores(const struct mmp_topology *t)
{
	return count(t, HWLOC_OBJ_CORE);
}

unsigned mmp_topology_packages(const struct mmp_topology *t)
{
	return count(t, HWLOC_OBJ_PACKAGE);
}

unsigned mmp_topology_numa_nodes(const struct mmp_topology *t)
{
	return count(t, HWLOC_OBJ_NUMANODE);
}

/* "0-3,8" -> calls fn for 0,1,2,3,8 in that order; -EINVAL on bad syntax. */
static int walk_pu_list(const char *list, void (*fn)(void *, unsigned), void *arg,
			char *err, size_t errlen)
{
	const char *p = list;

	if (!*p) {
		snprintf(err, errlen, "pus: needs a list of PU numbers, e.g. pus:0-3,8");
		return -EINVAL;
	}
	while (*p) {
		char *end;
		if (!isdigit((unsigned char)*p))
			goto bad;
		unsigned long a = strtoul(p, &end, 10), b = a;
		p = end;
		if (*p == '-') {
			if (!isdigit((unsigned char)p[1]))
				goto bad;
			b = strtoul(p + 1, &end, 10);
			p = end;
		}
		if (a > MAX_PU_INDEX || b > MAX_PU_INDEX || b < a)
			goto bad;
		for (unsigned long i = a; i <= b; i++)
			if (fn)
				fn(arg, (unsigned)i);
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
		else
			break;
	}
	if (p > list && p[-1] == ',')
		goto bad;
	return 0;
bad:
	snprintf(err, errlen, "'pus:%s' is not a PU list (e.g. pus:0-3,8; ranges go up)",
		 list);
	return -EINVAL;
}

int mmp_placement_parse(const char *text, struct mmp_placement *out, char *err,
			size_t errlen)
{
	static const char *const names[] = { "compact", "scatter", "cores", "pus:", "numa:",
					     NULL };
	struct mmp_placement p = { 0 };

	if (strlen(text) >= sizeof(p.spec)) {
		snprintf(err, errlen, "placement is longer than %zu characters",
			 sizeof(p.spec) - 1);
		return -EINVAL;
	}
	snprintf(p.spec, sizeof(p.spec), "%s", text);
	if (strcmp(text, "compact") == 0) {
		p.kind = MMP_PLACE_COMPACT;
	} else if (strcmp(text, "scatter") == 0) {
		p.kind = MMP_PLACE_SCATTER;
	} else if (strcmp(text, "cores") == 0) {
		p.kind = MMP_PLACE_CORES;
	} else if (strncmp(text, "pus:", 4) == 0) {
		p.kind = MMP_PLACE_PUS;
		if (walk_pu_list(text + 4, NULL, NULL, err, errlen))
			return -EINVAL;
	} else if (strncmp(text, "numa:", 5) == 0) {
		uint64_t node;
		p.kind = MMP_PLACE_NUMA;
		if (mmp_parse_u64(text + 5, &node) || node > MAX_PU_INDEX) {
			snprintf(err, errlen, "'%s' is not numa:N with N a NUMA node number",
				 text);
			return -EINVAL;
		}
		p.numa_node = (unsigned)node;
	} else {
		const char *hint = mmp_suggest(text, names, 5);
		snprintf(err, errlen,
			 "'%s' is not a placement (compact, scatter, cores, pus:LIST, numa:N)%s%s%s",
			 text, hint ? " (did you mean '" : "", hint ? hint : "",
			 hint ? "'?)" : "");
		return -EINVAL;
	}
	*out = p;
	return 0;
}

/* The PUs a placement offers, in the order threads take them. */
struct pu_order {
	int *pu;
	unsigned n, cap;
};

static void order_push(void *arg, unsigned pu)
{
	struct pu_order *o = arg;
	if (o->n < o->cap)
		o->pu[o->n++] = (int)pu;
}

static void order_compact(const struct mmp_topology *t, hwloc_const_cpuset_t within,
			  struct pu_order *o)
{
	hwloc_obj_t pu = NULL;
	while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(t->topo, within, HWLOC_OBJ_PU,
							      pu)) != NULL)
		order_push(o, pu->os_index);
}

/* PUs of one domain, one per core first, then the SMT siblings. */
static void order_by_core(const struct mmp_topology *t, hwloc_const_cpuset_t within,
			  unsigned rank_limit, struct pu_order *o)
{
	int ncores = hwloc_get_nbobjs_inside_cpuset_by_type(t->topo, within, HWLOC_OBJ_CORE);
	if (ncores <= 0) {
		order_compact(t, within, o);
		return;
	}
	for (unsigned rank = 0; rank < rank_limit; rank++) {
		int pushed = 0;
		for (int c = 0; c < ncores; c++) {
			hwloc_obj_t core = hwloc_get_obj_inside_cpuset_by_type(t->topo, within,
									       HWLOC_OBJ_CORE,
									       (unsigned)c);
			hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(
				t->topo, core->cpuset, HWLOC_OBJ_PU, rank);
			if (pu) {
				order_push(o, pu->os_index);
				pushed = 1;
			}
		}
		if (!pushed)
			break;
	}
}

static int order_scatter(const struct mmp_topology *t, struct pu_order *o)
{
	hwloc_obj_type_t type = HWLOC_OBJ_PACKAGE;
	int ndom = hwloc_get_nbobjs_by_type(t->topo, type);
	if (ndom <= 1) {
		type = HWLOC_OBJ_NUMANODE;
		ndom = hwloc_get_nbobjs_by_type(t->topo, type);
	}
	if (ndom <= 1) {
		order_by_core(t, hwloc_topology_get_topology_cpuset(t->topo), ~0u, o);
		return 0;
	}
	/* Each domain's own order, then dealt out round-robin. */
	struct pu_order *dom = calloc((size_t)ndom, sizeof(*dom));
	if (!dom)
		return -ENOMEM;
	int rc = 0;
	for (int d = 0; d < ndom; d++) {
		hwloc_obj_t obj = hwloc_get_obj_by_type(t->topo, type, (unsigned)d);
		dom[d].cap = o->cap;
		dom[d].pu = calloc(o->cap, sizeof(int));
		if (!dom[d].pu) {
			rc = -ENOMEM;
			goto out;
		}
		order_by_core(t, obj->cpuset, ~0u, &dom[d]);
	}
	for (unsigned i = 0; o->n < o->cap; i++) {
		int any = 0;
		for (int d = 0; d < ndom; d++) {
			if (i < dom[d].n) {
				order_push(o, (unsigned)dom[d].pu[i]);
				any = 1;
			}
		}
		if (!any)
			break;
	}
out:
	for (int d = 0; d < ndom; d++)
		free(dom[d].pu);
	free(dom);
	return rc;
}

static void count_entry(void *arg, unsigned pu)
{
	(void)pu;
	(*(unsigned *)arg)++;
}

struct pu_check {
	const struct mmp_topology *t;
	int missing;
};

static void check_pu(void *arg, unsigned pu)
{
	struct pu_check *c = arg;
	if (c->missing < 0 && !hwloc_get_pu_obj_by_os_index(c->t->topo, pu))
		c->missing = (int)pu;
}

static int build_order(const struct mmp_topology *t, const struct mmp_placement *p,
		       struct pu_order *o, struct mmp_error *err)
{
	char list[128], msg[256];
	hwloc_bitmap_list_snprintf(list, sizeof(list),
				   hwloc_topology_get_topology_cpuset(t->topo));

	switch (p->kind) {
	case MMP_PLACE_COMPACT:
		order_compact(t, hwloc_topology_get_topology_cpuset(t->topo), o);
		return 0;
	case MMP_PLACE_CORES:
		order_by_core(t, hwloc_topology_get_topology_cpuset(t->topo), 1, o);
		return 0;
	case MMP_PLACE_SCATTER:
		return order_scatter(t, o) ? mmp_error_set(err, -ENOMEM, "out of memory") : 0;
	case MMP_PLACE_NUMA: {
		hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(t->topo, p->numa_node);
		if (!node || hwloc_bitmap_iszero(node->cpuset)) {
			char nodes[128];
			hwloc_bitmap_list_snprintf(nodes, sizeof(nodes),
						   hwloc_topology_get_topology_nodeset(t->topo));
			return mmp_error_set(err, -EINVAL,
					     "placement %s: no NUMA node %u with PUs here "
					     "(NUMA nodes: %s)",
					     p->spec, p->numa_node, nodes);
		}
		order_compact(t, node->cpuset, o);
		return 0;
	}
	case MMP_PLACE_PUS: {
		struct pu_check c = { t, -1 };
		walk_pu_list(p->spec + 4, check_pu, &c, msg, sizeof(msg));
		if (c.missing >= 0)
			return mmp_error_set(err, -EINVAL,
					     "placement %s: PU %d does not exist or is not "
					     "allowed here (PUs: %s)",
					     p->spec, c.missing, list);
		walk_pu_list(p->spec + 4, order_push, o, msg, sizeof(msg));
		return 0;
	}
	}
	return mmp_error_set(err, -EINVAL, "unknown placement");
}

int mmp_topology_plan(const struct mmp_topology *t, const struct mmp_placement *p,
		      unsigned nthreads, struct mmp_pin_plan *out, struct mmp_error *err)
{
	/* A PU list may name PUs more than once: room for every entry. */
	unsigned cap = mmp_topology_pus(t), listed = 0;
	char msg[256];
	if (p->kind == MMP_PLACE_PUS)
		walk_pu_list(p->spec + 4, count_entry, &listed, msg, sizeof(msg));
	if (listed > cap)
		cap = listed;
	struct pu_order o = { .pu = calloc(cap + 1, sizeof(int)), .cap = cap };
	int rc;

	memset(out, 0, sizeof(*out));
	if (!o.pu)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	rc = build_order(t, p, &o, err);
	if (rc)
		goto out;
	if (o.n == 0) {
		rc = mmp_error_set(err, -EINVAL, "placement %s offers no PU", p->spec);
		goto out;
	}
	out->pu = calloc(nthreads, sizeof(int));
	if (!out->pu) {
		rc = mmp_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	out->nthreads = nthreads;
	for (unsigned i = 0; i < nthreads; i++)
		out->pu[i] = o.pu[i % o.n];

	hwloc_bitmap_t distinct = hwloc_bitmap_alloc();
	if (!distinct) {
		rc = mmp_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
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

int mmp_topology_bind_self(const struct mmp_topology *t, int pu, struct mmp_error *err)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char text[64];
	int rc = 0;

	if (!set)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	hwloc_bitmap_only(set, (unsigned)pu);
	if (hwloc_set_cpubind(t->topo, set, HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT)) {
		hwloc_bitmap_snprintf(text, sizeof(text), set);
		rc = mmp_error_errno(err, -errno,
				     "hwloc_set_cpubind(cpuset %s, THREAD|STRICT) for PU %d", text,
				     pu);
	}
	hwloc_bitmap_free(set);
	return rc;
}

void mmp_topology_print(const struct mmp_topology *t, FILE *out)
{
	char pus[128], size[32];
	hwloc_bitmap_list_snprintf(pus, sizeof(pus), hwloc_topology_get_topology_cpuset(t->topo));
	fprintf(out, "machine: %u package(s), %u NUMA node(s), %u core(s), %u PU(s) [%s]\n",
		mmp_topology_packages(t), mmp_topology_numa_nodes(t), mmp_topology_cores(t),
		mmp_topology_pus(t), pus);
	for (hwloc_obj_type_t type = HWLOC_OBJ_L1CACHE; type <= HWLOC_OBJ_L3CACHE; type++) {
		hwloc_obj_t c = hwloc_get_obj_by_type(t->topo, type, 0);
		if (c && c->attr)
			fprintf(out, "  L%u%s %s x %d\n", c->attr->cache.depth,
				c->attr->cache.type == HWLOC_OBJ_CACHE_DATA ? "d" : "",
				mmp_format_size(c->attr->cache.size, size, sizeof(size)),
				hwloc_get_nbobjs_by_type(t->topo, type));
	}
	hwloc_obj_t pu = NULL;
	while ((pu = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_PU, pu)) != NULL) {
		hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(t->topo, HWLOC_OBJ_CORE, pu);
		hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t->topo, HWLOC_OBJ_PACKAGE, pu);
		hwloc_obj_t node = hwloc_get_obj_covering_cpuset(t->topo, pu->cpuset);
		while (node && !node->memory_arity)
			node = node->parent;
		fprintf(out, "  PU %u: core %d, package %d, NUMA node %d\n", pu->os_index,
			core ? (int)core->logical_index : -1, pkg ? (int)pkg->logical_index : -1,
			node && node->memory_first_child ? (int)node->memory_first_child->os_index
							 : -1);
	}
}
