/* Where pages really are: per-node counts for a range, the node of one
 * word.
 *
 * hwloc_get_area_memlocation (one move_pages(2) query inside hwloc) is
 * asked one page at a time rather than calling move_pages ourselves:
 * hwloc already owns every other NUMA call here, returns nodes as the
 * nodeset type binding uses, and needs no libnuma. The cost is one system
 * call per examined page, about 0.5 us here (4096 pages: 2 ms), which is
 * why large ranges are sampled. */
#include "platform/memory.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "topology_internal.h"

static int this_system(const struct mmp_topology *t, struct mmp_error *err)
{
	if (!t->described)
		return 0;
	return mmp_error_set(err, -EPERM,
			     "page locations on a described topology (%s): it is for planning "
			     "only",
			     t->source);
}

static void count_on(struct mmp_page_census *c, unsigned node)
{
	unsigned i = 0;
	while (i < c->nnodes && c->node[i].node < node)
		i++;
	if (i < c->nnodes && c->node[i].node == node) {
		c->node[i].pages++;
		return;
	}
	if (c->nnodes == MMP_CENSUS_NODES)
		return; /* more distinct nodes than any machine mmprof has met */
	memmove(&c->node[i + 1], &c->node[i], (c->nnodes - i) * sizeof(c->node[0]));
	c->node[i].node = node;
	c->node[i].pages = 1;
	c->nnodes++;
}

int mmp_memory_census(const struct mmp_topology *t, const void *addr, size_t len,
		      unsigned max_pages, struct mmp_page_census *out, struct mmp_error *err)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)addr & ~(page - 1);
	uintptr_t end = ((uintptr_t)addr + len + page - 1) & ~(page - 1);
	int rc = this_system(t, err);

	memset(out, 0, sizeof(*out));
	if (rc)
		return rc;
	out->page_size = page;
	out->pages_total = len ? (end - start) / page : 0;
	if (max_pages == 0)
		max_pages = MMP_CENSUS_DEFAULT_PAGES;
	out->unknown = mmp_memory_locate_refused(t);
	if (out->unknown)
		return 0; /* "unknown", not a guess */
	out->pages_examined = out->pages_total < max_pages ? out->pages_total : max_pages;
	out->sampled = out->pages_examined < out->pages_total;

	hwloc_bitmap_t where = hwloc_bitmap_alloc();
	if (!where)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	for (uint64_t k = 0; k < out->pages_examined; k++) {
		uint64_t index = out->sampled ? k * out->pages_total / out->pages_examined : k;
		const void *p = (const void *)(start + index * page);
		if (hwloc_get_area_memlocation(t->topo, p, 1, where, HWLOC_MEMBIND_BYNODESET)) {
			rc = mmp_error_errno(err, -errno,
					     "hwloc_get_area_memlocation(%p, 1 byte, BYNODESET)", p);
			break;
		}
		if (hwloc_bitmap_iszero(where))
			out->not_present++;
		else
			count_on(out, (unsigned)hwloc_bitmap_first(where));
	}
	hwloc_bitmap_free(where);
	return rc;
}

uint64_t mmp_page_census_on(const struct mmp_page_census *c, unsigned node)
{
	for (unsigned i = 0; i < c->nnodes; i++)
		if (c->node[i].node == node)
			return c->node[i].pages;
	return 0;
}

const char *mmp_page_census_format(const struct mmp_page_census *c, char *buf, size_t len)
{
	size_t used = 0;
	double all = c->pages_examined ? (double)c->pages_examined : 1.0;

	if (c->unknown) {
		snprintf(buf, len, "page locations unknown (move_pages: %s)", strerror(c->unknown));
		return buf;
	}
	used += (size_t)snprintf(buf, len, "%llu of %llu pages examined%s:",
				 (unsigned long long)c->pages_examined,
				 (unsigned long long)c->pages_total, c->sampled ? " (sampled)" : "");
	for (unsigned i = 0; i < c->nnodes && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s node %u %.1f%%", i ? "," : "",
					 c->node[i].node, 100.0 * (double)c->node[i].pages / all);
	if (c->not_present && used < len)
		snprintf(buf + used, len - used, "%s not present %.1f%%", c->nnodes ? "," : "",
			 100.0 * (double)c->not_present / all);
	return buf;
}

int mmp_memory_node_of(const struct mmp_topology *t, const void *addr, int *node,
		       struct mmp_error *err)
{
	int rc = this_system(t, err);
	if (rc)
		return rc;
	if (mmp_memory_locate_refused(t))
		return mmp_error_set(err, -mmp_memory_locate_refused(t),
				     "the node of %p is unknown: move_pages: %s", addr,
				     strerror(mmp_memory_locate_refused(t)));
	hwloc_bitmap_t where = hwloc_bitmap_alloc();
	if (!where)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	if (hwloc_get_area_memlocation(t->topo, addr, 1, where, HWLOC_MEMBIND_BYNODESET))
		rc = mmp_error_errno(err, -errno, "hwloc_get_area_memlocation(%p, 1 byte, BYNODESET)",
				     addr);
	else if (hwloc_bitmap_iszero(where))
		rc = mmp_error_set(err, -ENOENT, "the page at %p is not present (touch it first)",
				   addr);
	else
		*node = hwloc_bitmap_first(where);
	hwloc_bitmap_free(where);
	return rc;
}
