/* A run's memory (see runmem.h). */
#include "run/runmem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/probe.h"

/* node:N as a policy value, for "local" resolved to one node. */
static struct mmp_membind node_policy(unsigned node)
{
	struct mmp_membind b = { .kind = MMP_MEMBIND_NODE, .node = node };
	snprintf(b.spec, sizeof(b.spec), "node:%u", node);
	return b;
}

int mmp_runmem_init(struct mmp_runmem *m, const struct mmp_topology *topo,
		    const struct mmp_params *p, const struct mmp_pin_plan *pins,
		    struct mmp_error *err)
{
	memset(m, 0, sizeof(*m));
	m->topo = topo;
	m->p = p;
	m->pins = pins;
	m->shared = p->membind;
	/* firsttouch: thread 0's PU touches the state first (mmp_runmem_alloc),
	 * which puts it on thread 0's node with no binding call. */
	if (p->membind.kind == MMP_MEMBIND_LOCAL) {
		int node = mmp_topology_pu_node(topo, pins->pu[0]);
		if (node < 0)
			return mmp_error_set(err, -EINVAL, "PU %d has no NUMA node here",
					     pins->pu[0]);
		m->shared = node_policy((unsigned)node);
	}
	return 0;
}

static void note_fallback(struct mmp_runmem *m, const struct mmp_bind_result *res)
{
	if (res->fell_back && !m->note[0])
		snprintf(m->note, sizeof(m->note), "%s", res->note);
}

void *mmp_runmem_alloc(struct mmp_runmem *m, size_t len, struct mmp_error *err)
{
	struct mmp_bind_result res;
	void *p;
	if (m->nblocks == MMP_RUNMEM_BLOCKS) {
		mmp_error_set(err, -ENOMEM, "too many shared blocks for one run");
		return NULL;
	}
	if (mmp_memory_alloc(m->topo, len, &m->shared, m->p->bind, &p, &res, err))
		return NULL;
	note_fallback(m, &res);
	if (m->shared.kind == MMP_MEMBIND_FIRSTTOUCH)
		mmp_memory_touch_from(m->topo, m->pins->pu[0], p, len);
	else
		memset(p, 0, len); /* placed now, as bound */
	m->block[m->nblocks].addr = p;
	m->block[m->nblocks].len = len;
	m->nblocks++;
	return p;
}

int mmp_runmem_place_buffer(struct mmp_runmem *m, void *addr, size_t len,
			    struct mmp_error *err)
{
	struct mmp_bind_result res;
	if (m->p->membind.kind != MMP_MEMBIND_NODE && m->p->membind.kind != MMP_MEMBIND_INTERLEAVE)
		return 0; /* the thread touched it: its own node */
	int rc = mmp_memory_bind(m->topo, addr, len, &m->p->membind, m->p->bind, &res, err);
	if (!rc)
		note_fallback(m, &res);
	return rc;
}

int mmp_runmem_data(struct mmp_runmem *m, uint64_t len, struct mmp_error *err)
{
	struct mmp_bind_result res = { 0 };
	void *p = NULL;
	int rc;

	m->data_len = len;
	if (m->p->hugepages) {
		rc = mmp_memory_alloc_huge(len, &m->huge, err);
		if (rc)
			return rc;
		p = m->huge.addr;
	} else {
		static const struct mmp_membind firsttouch = { .kind = MMP_MEMBIND_FIRSTTOUCH,
							       .spec = "firsttouch" };
		rc = mmp_memory_alloc(m->topo, len, &firsttouch, m->p->bind, &p, &res, err);
		if (rc)
			return rc;
		m->block[m->nblocks].addr = p;
		m->block[m->nblocks].len = len;
		m->nblocks++;
	}
	m->data = p;
	/* Nothing is touched yet: a binding now decides where each page lands. */
	switch (m->p->membind.kind) {
	case MMP_MEMBIND_FIRSTTOUCH:
		return 0; /* each thread's first touch, in mmp_runmem_fill */
	case MMP_MEMBIND_LOCAL:
		for (unsigned t = 0; t < m->pins->nthreads; t++) {
			uint64_t b, e;
			int node = mmp_topology_pu_node(m->topo, m->pins->pu[t]);
			struct mmp_membind own = node_policy(node < 0 ? 0 : (unsigned)node);
			mmp_slice_bounds(len, m->pins->nthreads, t, &b, &e);
			/* Slices meet inside a page: the page goes to the later one. */
			long page = sysconf(_SC_PAGESIZE);
			uint64_t pb = b / (uint64_t)page * (uint64_t)page;
			if (e > pb && (rc = mmp_memory_bind(m->topo, m->data + pb, e - pb, &own,
							    m->p->bind, &res, err)))
				return rc;
			note_fallback(m, &res);
		}
		return 0;
	case MMP_MEMBIND_NODE:
	case MMP_MEMBIND_INTERLEAVE:
		rc = mmp_memory_bind(m->topo, m->data, len, &m->p->membind, m->p->bind, &res, err);
		if (!rc)
			note_fallback(m, &res);
		return rc;
	}
	return 0;
}

int mmp_runmem_fill(struct mmp_runmem *m, int fd, uint64_t begin, uint64_t end)
{
	while (begin < end) {
		ssize_t n = pread(fd, m->data + begin, end - begin, (off_t)begin);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		begin += (uint64_t)n;
	}
	return 0;
}

int mmp_runmem_census(const struct mmp_runmem *m, const uint8_t *map, uint64_t len,
		      const void *state, struct mmp_census_record *out, struct mmp_error *err)
{
	unsigned n = m->pins->nthreads;
	int rc;

	mmp_census_record_free(out);
	out->nthreads = n;
	out->state_node = -1;
	out->pu_node = calloc(n, sizeof(int));
	out->remote_share = calloc(n, sizeof(double));
	if (!out->pu_node || !out->remote_share)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	if (map && len) {
		rc = mmp_memory_census(m->topo, map, len, 0, &out->data, err);
		if (rc)
			return rc;
	}
	if (state)
		mmp_memory_node_of(m->topo, state, &out->state_node, NULL);
	for (unsigned t = 0; t < n; t++) {
		uint64_t b, e;
		struct mmp_page_census c;
		out->pu_node[t] = mmp_topology_pu_node(m->topo, m->pins->pu[t]);
		out->remote_share[t] = -1;
		mmp_slice_bounds(len, m->pins->nthreads, t, &b, &e);
		if (!map || e <= b || out->pu_node[t] < 0 ||
		    mmp_memory_census(m->topo, map + b, e - b, 1024, &c, NULL) || c.unknown)
			continue;
		uint64_t present = c.pages_examined - c.not_present;
		if (present)
			out->remote_share[t] =
				1.0 - (double)mmp_page_census_on(&c, (unsigned)out->pu_node[t]) /
					      (double)present;
	}
	if (m->data && m->p->hugepages) {
		struct mmp_huge_report h;
		if (mmp_memory_huge_report(m->data, m->data_len, &h, NULL) == 0)
			out->huge_bytes = h.huge_bytes;
	}
	out->done = 1;
	return 0;
}

void mmp_census_record_free(struct mmp_census_record *c)
{
	free(c->pu_node);
	free(c->remote_share);
	memset(c, 0, sizeof(*c));
}

void mmp_runmem_release(struct mmp_runmem *m)
{
	for (size_t i = 0; i < m->nblocks; i++)
		mmp_memory_free(m->topo, m->block[i].addr, m->block[i].len);
	if (m->huge.addr)
		mmp_memory_free_huge(&m->huge);
	m->nblocks = 0;
	m->data = NULL;
}
