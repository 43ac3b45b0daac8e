/* The machine and a plan described for a user (--topology): what a
 * performance engineer checks before trusting a NUMA measurement. */
#include "topology_internal.h"

#include <inttypes.h>
#include <string.h>

#include "platform/memory.h"
#include "util/units.h"

#define WRAP 78

/* "96GiB" when a whole number of MiB, "4.96GiB" otherwise (a node's
 * local memory is what firmware and kernel left, rarely round). */
static const char *human(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;
	double v = (double)bytes;

	if (bytes % (1024 * 1024) == 0)
		return mmp_format_size(bytes, buf, len);
	while (u + 1 < sizeof(units) / sizeof(units[0]) && v >= 1024) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.2f%s", v, units[u]);
	return buf;
}

static unsigned plural(unsigned n)
{
	return n != 1;
}

/* The logical indexes of the objects of type inside cpuset, as "0-7". */
static const char *inside(const struct mmp_topology *t, hwloc_obj_type_t type,
			  hwloc_const_cpuset_t cpuset, char *buf, size_t len)
{
	hwloc_bitmap_t ids = hwloc_bitmap_alloc();
	hwloc_obj_t obj = NULL;
	if (!ids)
		return "?";
	if (type == HWLOC_OBJ_L3CACHE) {
		/* The machine's L3 domains, also those hwloc lost in a cpuset. */
		for (unsigned i = 0; i < t->cache[2].n; i++)
			if (hwloc_bitmap_isincluded(t->cache[2].set[i], cpuset))
				hwloc_bitmap_set(ids, i);
	} else {
		while ((obj = hwloc_get_next_obj_by_type(t->topo, type, obj)) != NULL)
			if (obj->cpuset && hwloc_bitmap_isincluded(obj->cpuset, cpuset))
				hwloc_bitmap_set(ids, obj->logical_index);
	}
	mmp_bitmap_text(ids, buf, len);
	hwloc_bitmap_free(ids);
	return buf;
}

static void print_header(const struct mmp_topology *t, FILE *out)
{
	unsigned pus = mmp_topology_pus(t), cores = mmp_topology_cores(t);
	char list[128], all[128];

	unsigned l3 = mmp_topology_l3_domains(t);
	char l3_text[32] = "";

	if (l3)
		snprintf(l3_text, sizeof(l3_text), " %u L3 domain%s,", l3, plural(l3) ? "s" : "");
	fprintf(out, "machine: %u package%s, %u NUMA node%s,%s %u core%s, %u PU%s",
		mmp_topology_packages(t), plural(mmp_topology_packages(t)) ? "s" : "",
		mmp_topology_numa_nodes(t), plural(mmp_topology_numa_nodes(t)) ? "s" : "",
		l3_text, cores, plural(cores) ? "s" : "", pus, plural(pus) ? "s" : "");
	if (cores && pus % cores == 0)
		fprintf(out, " (%u per core)", pus / cores);
	fprintf(out, "\n");
	if (t->described)
		fprintf(out, "source: described by %s; not this system: plans only, no probe runs\n",
			t->source);
	else
		fprintf(out, "source: this system\n");
	mmp_bitmap_text(hwloc_topology_get_topology_cpuset(t->topo), all, sizeof(all));
	if (mmp_topology_allowed_pus(t) < pus)
		fprintf(out, "allowed PUs: %s of %s, restricted by %s; plans use these only\n",
			mmp_topology_allowed_list(t, list, sizeof(list)), all, t->allowed_why);
	if (!t->described)
		mmp_memory_calls_print(t->bind_errno, t->locate_errno, out);
}

static void print_packages(const struct mmp_topology *t, FILE *out)
{
	char nodes[64], l3[64], cores[64], pus[128];
	hwloc_obj_t pkg = NULL;

	if (!mmp_topology_packages(t))
		return;
	fprintf(out, "packages:\n");
	while ((pkg = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_PACKAGE, pkg)) != NULL)
		fprintf(out, "  package %u: NUMA node%s %s, L3 %s, cores %s, PUs %s\n",
			pkg->logical_index, hwloc_bitmap_weight(pkg->nodeset) > 1 ? "s" : "",
			mmp_bitmap_text(pkg->nodeset, nodes, sizeof(nodes)),
			inside(t, HWLOC_OBJ_L3CACHE, pkg->cpuset, l3, sizeof(l3)),
			inside(t, HWLOC_OBJ_CORE, pkg->cpuset, cores, sizeof(cores)),
			mmp_bitmap_text(pkg->cpuset, pus, sizeof(pus)));
}

static void print_distances(const struct mmp_topology *t, FILE *out)
{
	struct hwloc_distances_s *d = mmp_numa_latency(t);
	if (!d) {
		fprintf(out, "NUMA distances: not reported%s\n",
			mmp_topology_numa_nodes(t) == 1 ? " (one node)" : "");
		return;
	}
	fprintf(out, "NUMA distances (relative latency from the ACPI SLIT; local is 10):\n");
	char name[16];
	fprintf(out, "  %-8s", "");
	for (unsigned j = 0; j < d->nbobjs; j++) {
		snprintf(name, sizeof(name), "node %u", d->objs[j]->os_index);
		fprintf(out, " %8s", name);
	}
	fprintf(out, "\n");
	for (unsigned i = 0; i < d->nbobjs; i++) {
		snprintf(name, sizeof(name), "node %u", d->objs[i]->os_index);
		fprintf(out, "  %-8s", name);
		for (unsigned j = 0; j < d->nbobjs; j++)
			fprintf(out, " %8" PRIu64, (uint64_t)d->values[i * d->nbobjs + j]);
		fprintf(out, "\n");
	}
	hwloc_distances_release(t->topo, d);
}

static void print_nodes(const struct mmp_topology *t, FILE *out)
{
	char size[32], pus[128];
	hwloc_obj_t node = NULL;

	fprintf(out, "NUMA nodes:\n");
	while ((node = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, node)) != NULL) {
		uint64_t mem = node->attr ? node->attr->numanode.local_memory : 0;
		fprintf(out, "  node %u: %s local memory, PUs %s\n", node->os_index,
			mem ? human(mem, size, sizeof(size)) : "unknown",
			node->cpuset && !hwloc_bitmap_iszero(node->cpuset)
				? mmp_bitmap_text(node->cpuset, pus, sizeof(pus))
				: "none (memory only)");
	}
	print_distances(t, out);
}

/* The NUMA nodes whose PUs meet set. */
static const char *nodes_of(const struct mmp_topology *t, hwloc_const_cpuset_t set, char *buf,
			    size_t len, int *many)
{
	hwloc_bitmap_t ids = hwloc_bitmap_alloc();
	hwloc_obj_t node = NULL;
	if (!ids)
		return "?";
	while ((node = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, node)) != NULL)
		if (node->cpuset && hwloc_bitmap_intersects(node->cpuset, set))
			hwloc_bitmap_set(ids, node->os_index);
	*many = hwloc_bitmap_weight(ids) > 1;
	mmp_bitmap_text(ids, buf, len);
	hwloc_bitmap_free(ids);
	return buf;
}

static void print_caches(const struct mmp_topology *t, FILE *out)
{
	char size[32], nodes[64], pus[128], allowed[160];
	const char *sep = "caches:";
	const struct mmp_cache_level *c;

	int cores = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_CORE);
	for (unsigned l = 0; l < 2; l++) {
		int n = (int)(c = &t->cache[l])->n;
		if (!n)
			continue;
		fprintf(out, "%s L%u%s %s", sep, l + 1, c->data ? "d" : "",
			mmp_format_size(c->size, size, sizeof(size)));
		if (n == cores)
			fprintf(out, " per core");
		else if (n > 0 && cores > n && cores % n == 0)
			fprintf(out, " per %d cores", cores / n);
		else
			fprintf(out, " x%d", n);
		sep = ",";
	}
	if (*sep == ',')
		fprintf(out, "\n");
	if (t->caches_from && *t->caches_from)
		fprintf(out, "caches described by: %s\n",
			t->caches_from);
	if (!mmp_topology_l3_domains(t)) {
		fprintf(out, "L3 domains: none reported\n");
		return;
	}
	fprintf(out, "L3 domains (cores sharing one L3; on AMD Zen a CCX):\n");
	c = &t->cache[2];
	for (unsigned i = 0; i < c->n; i++) {
		int many = 0;
		nodes_of(t, c->set[i], nodes, sizeof(nodes), &many);
		/* The allowed part of a domain, when the process may not use it
		 * all: the machine as it is, and what this run may use of it. */
		allowed[0] = '\0';
		if (!hwloc_bitmap_isincluded(c->set[i], t->allowed)) {
			hwloc_bitmap_t part = hwloc_bitmap_alloc();
			if (part) {
				hwloc_bitmap_and(part, c->set[i], t->allowed);
				/* Before "PUs": the list stays the line's last word,
				 * as scripts read it. */
				snprintf(allowed, sizeof(allowed), "allowed %s of ",
					 mmp_bitmap_text(part, pus, sizeof(pus)));
				hwloc_bitmap_free(part);
			}
		}
		fprintf(out, "  L3 %u: %s, node%s %s, %sPUs %s\n", i,
			mmp_format_size(c->size, size, sizeof(size)), many ? "s" : "", nodes, allowed,
			mmp_bitmap_text(c->set[i], pus, sizeof(pus)));
	}
}

static int core_item(hwloc_obj_t core, char *buf, size_t len)
{
	char pus[64];
	return snprintf(buf, len, "core %u: PU%s %s", core->logical_index,
			hwloc_bitmap_weight(core->cpuset) > 1 ? "s" : "",
			mmp_bitmap_text(core->cpuset, pus, sizeof(pus)));
}

/* Cores in aligned columns, as many to a line as fit. */
static void print_cores(const struct mmp_topology *t, FILE *out)
{
	char item[96];
	int width = 0;
	unsigned col = 0, per_line;
	hwloc_obj_t core = NULL;

	if (!mmp_topology_cores(t))
		return;
	while ((core = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_CORE, core)) != NULL) {
		int n = core_item(core, item, sizeof(item));
		if (n > width)
			width = n;
	}
	per_line = (unsigned)((WRAP - 2) / (width + 2));
	if (per_line == 0)
		per_line = 1;
	fprintf(out, "cores (the PUs of each; more than one are SMT siblings):\n");
	while ((core = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_CORE, core)) != NULL) {
		core_item(core, item, sizeof(item));
		int last = col + 1 == per_line || !core->next_cousin;
		if (last)
			fprintf(out, "  %s\n", item);
		else
			fprintf(out, "  %-*s", width, item);
		col = last ? 0 : col + 1;
	}
}

void mmp_topology_print(const struct mmp_topology *t, FILE *out)
{
	print_header(t, out);
	print_packages(t, out);
	print_nodes(t, out);
	print_caches(t, out);
	print_cores(t, out);
}

static int one_thread(const struct mmp_topology *t, unsigned i, int pu, char *buf, size_t len)
{
	int node = mmp_topology_pu_node(t, pu), l3 = mmp_topology_pu_l3(t, pu);
	char where[48] = "";

	if (node >= 0 && l3 >= 0)
		snprintf(where, sizeof(where), " (node %d, L3 %d)", node, l3);
	else if (node >= 0)
		snprintf(where, sizeof(where), " (node %d)", node);
	return snprintf(buf, len, "t%u PU %d%s", i, pu, where);
}

const char *mmp_topology_format_placement(const struct mmp_topology *t,
					  const struct mmp_pin_plan *plan, char *buf,
					  size_t len)
{
	char item[96];
	size_t used = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (unsigned i = 0; i < plan->nthreads; i++) {
		int n = one_thread(t, i, plan->pu[i], item, sizeof(item));
		/* Room for this item and, after it, "  ..." and the NUL. */
		if (used + 2 + (size_t)n + 6 > len) {
			snprintf(buf + used, len - used, "%s...", used ? "  " : "");
			break;
		}
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "  " : "", item);
	}
	return buf;
}

void mmp_topology_print_placement(const struct mmp_topology *t,
				  const struct mmp_pin_plan *plan, FILE *out)
{
	char item[96];
	size_t col = 0;

	for (unsigned i = 0; i < plan->nthreads; i++) {
		int n = one_thread(t, i, plan->pu[i], item, sizeof(item));
		if (col && col + (size_t)n + 2 > WRAP) {
			fprintf(out, "\n");
			col = 0;
		}
		fprintf(out, "  %s", item);
		col += (size_t)n + 2;
	}
	fprintf(out, "\n");
}
