/* Memory policies: parsed, checked against a topology, and applied with
 * hwloc (hwloc-bind's messages: the call, the nodeset, the flags,
 * strerror). Page census in memory_pages.c, huge pages in memory_huge.c. */
#include "platform/memory.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/mempolicy.h>

#include "util/suggest.h"
#include "util/units.h"
#include "topology_internal.h"

struct policy_row {
	enum mmp_membind_kind kind;
	const char *name;
	const char *arg; /* NULL, "N", "LIST" (interleave's is optional) */
};

static const struct policy_row policies[] = {
	{ MMP_MEMBIND_FIRSTTOUCH, "firsttouch", NULL },
	{ MMP_MEMBIND_LOCAL, "local", NULL },
	{ MMP_MEMBIND_NODE, "node", "N" },
	{ MMP_MEMBIND_INTERLEAVE, "interleave", "LIST" },
};
#define NPOLICIES (sizeof(policies) / sizeof(policies[0]))

/* interleave's list is optional, so the table alone cannot spell it. */
static const char syntax[] = "firsttouch, local, node:N, node:*, interleave, interleave:LIST";

static int unknown_policy(const char *text, char *err, size_t errlen)
{
	const char *names[NPOLICIES];
	const char *colon = strchr(text, ':');
	char head[MMP_MEMBIND_SPEC_MAX], hint[MMP_MEMBIND_SPEC_MAX + 32] = "";

	for (size_t i = 0; i < NPOLICIES; i++)
		names[i] = policies[i].name;
	snprintf(head, sizeof(head), "%.*s", colon ? (int)(colon - text) : (int)strlen(text), text);
	const char *best = mmp_suggest(head, names, NPOLICIES);
	if (best)
		snprintf(hint, sizeof(hint), " (did you mean '%s%s'?)", best, colon ? colon : "");
	snprintf(err, errlen, "'%s' is not a memory policy (%s)%s", text, syntax, hint);
	return -EINVAL;
}

int mmp_membind_parse(const char *text, struct mmp_membind *out, char *err, size_t errlen)
{
	struct mmp_membind m = { 0 };
	const char *colon = strchr(text, ':');
	size_t head = colon ? (size_t)(colon - text) : strlen(text);
	const struct policy_row *row = NULL;

	if (strlen(text) >= sizeof(m.spec)) {
		snprintf(err, errlen, "memory policy is longer than %zu characters",
			 sizeof(m.spec) - 1);
		return -EINVAL;
	}
	snprintf(m.spec, sizeof(m.spec), "%s", text);
	for (size_t i = 0; i < NPOLICIES; i++)
		if (strlen(policies[i].name) == head && strncmp(policies[i].name, text, head) == 0)
			row = &policies[i];
	if (!row)
		return unknown_policy(text, err, errlen);
	m.kind = row->kind;
	if (colon && !row->arg) {
		snprintf(err, errlen, "'%s': %s takes nothing after it", text, row->name);
		return -EINVAL;
	}
	if (row->kind == MMP_MEMBIND_NODE) {
		uint64_t n;
		if (!colon || !colon[1]) {
			snprintf(err, errlen, "node: needs a NUMA node number, e.g. node:0");
			return -EINVAL;
		}
		if (strcmp(colon + 1, "*") == 0) {
			m.each = true; /* every node of the machine, one job point each */
			*out = m;
			return 0;
		}
		if (mmp_parse_u64(colon + 1, &n) || n > MMP_MAX_OS_INDEX) {
			snprintf(err, errlen, "'%s' is not node:N with N a NUMA node number", text);
			return -EINVAL;
		}
		m.node = (unsigned)n;
	} else if (row->kind == MMP_MEMBIND_INTERLEAVE) {
		m.all_nodes = !colon;
		if (colon && mmp_idlist_walk(colon + 1, MMP_MAX_OS_INDEX, NULL, NULL)) {
			snprintf(err, errlen,
				 "'%s' is not interleave:LIST with NUMA node numbers (e.g. "
				 "interleave:0,2 or interleave:0-3; ranges go up)",
				 text);
			return -EINVAL;
		}
	}
	*out = m;
	return 0;
}

int mmp_bind_mode_parse(const char *text, enum mmp_bind_mode *out, char *err, size_t errlen)
{
	static const char *const names[] = { "strict", "best-effort" };
	for (int i = 0; i < 2; i++)
		if (strcmp(text, names[i]) == 0) {
			*out = (enum mmp_bind_mode)i;
			return 0;
		}
	const char *best = mmp_suggest(text, names, 2);
	snprintf(err, errlen, "'%s' is not a binding mode (strict, best-effort)%s%s%s", text,
		 best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "");
	return -EINVAL;
}

const char *mmp_bind_mode_name(enum mmp_bind_mode mode)
{
	return mode == MMP_BIND_STRICT ? "strict" : "best-effort";
}

struct node_walk {
	const struct mmp_topology *t;
	const struct mmp_membind *m;
	hwloc_bitmap_t set; /* the nodes named, when not NULL */
	struct mmp_error *err;
	int rc;
};

/* One named node: it exists, has memory, and the process may use it. */
static void check_node(void *arg, unsigned node)
{
	struct node_walk *w = arg;
	char nodes[128];
	if (w->rc)
		return;
	hwloc_obj_t obj = hwloc_get_numanode_obj_by_os_index(w->t->topo, node);
	if (!obj) {
		w->rc = mmp_error_set(w->err, -EINVAL,
				      "membind %s: node %u is not a NUMA node here (nodes: %s)",
				      w->m->spec, node,
				      mmp_topology_node_list(w->t, nodes, sizeof(nodes)));
	} else if (obj->attr && obj->attr->numanode.local_memory == 0) {
		w->rc = mmp_error_set(w->err, -EINVAL, "membind %s: NUMA node %u has no memory",
				      w->m->spec, node);
	} else if (!hwloc_bitmap_isset(hwloc_topology_get_allowed_nodeset(w->t->topo), node)) {
		w->rc = mmp_error_set(w->err, -EINVAL,
				      "membind %s: node %u is not allowed for this process "
				      "(allowed nodes: %s, the cgroup's cpuset.mems)",
				      w->m->spec, node,
				      mmp_bitmap_text(hwloc_topology_get_allowed_nodeset(w->t->topo),
						      nodes, sizeof(nodes)));
	} else if (w->set) {
		hwloc_bitmap_set(w->set, node);
	}
}

/* Check m and, when set is not NULL, collect the nodes it names. */
static int named_nodes(const struct mmp_membind *m, const struct mmp_topology *t,
		       hwloc_bitmap_t set, struct mmp_error *err)
{
	struct node_walk w = { t, m, set, err, 0 };
	if (m->kind == MMP_MEMBIND_NODE)
		check_node(&w, m->node);
	else if (m->kind == MMP_MEMBIND_INTERLEAVE && !m->all_nodes)
		mmp_idlist_walk(strchr(m->spec, ':') + 1, MMP_MAX_OS_INDEX, check_node, &w);
	else if (m->kind == MMP_MEMBIND_INTERLEAVE && set)
		hwloc_bitmap_copy(set, hwloc_topology_get_allowed_nodeset(t->topo));
	return w.rc;
}

int mmp_membind_check(const struct mmp_membind *m, const struct mmp_topology *t,
		      struct mmp_error *err)
{
	return named_nodes(m, t, NULL, err);
}

int mmp_membind_allowed(const struct mmp_membind *m, enum mmp_bind_mode mode,
			const struct mmp_topology *t, struct mmp_error *err)
{
	char why[MMP_ERROR_MSG_MAX - 160];
	int e = mmp_memory_bind_refused(t);
	if (m->kind == MMP_MEMBIND_FIRSTTOUCH || !e || mode != MMP_BIND_STRICT)
		return 0;
	/* No policy named: one message however many policies a sweep has. */
	return mmp_error_set(err, -e,
			     "membind other than firsttouch with bind = strict, and this process "
			     "may not bind memory: %s; or set bind = best-effort to run with "
			     "pages where first touch puts them",
			     mmp_memory_refusal_text(e, "mbind", why, sizeof(why)));
}

/* best-effort where the binding calls are refused: nothing is called. */
static int refused_fallback(const struct mmp_topology *t, const struct mmp_membind *m,
			    enum mmp_bind_mode mode, struct mmp_bind_result *res,
			    struct mmp_error *err)
{
	char why[MMP_ERROR_MSG_MAX - 160];
	if (mode == MMP_BIND_STRICT)
		return mmp_membind_allowed(m, mode, t, err);
	mmp_memory_refusal_text(mmp_memory_bind_refused(t), "mbind", why, sizeof(why));
	res->fell_back = true;
	snprintf(res->note, sizeof(res->note), "best-effort: membind %s not applied: %.800s; "
		 "pages stay first-touch", m->spec, why);
	return 0;
}

int mmp_memory_local_node(const struct mmp_topology *t, int *node, struct mmp_error *err)
{
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
	char text[128];
	int rc = 0;

	if (!cpus)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	if (hwloc_get_cpubind(t->topo, cpus, HWLOC_CPUBIND_THREAD) != 0) {
		rc = mmp_error_errno(err, -errno, "hwloc_get_cpubind(THREAD) for membind local");
		goto out;
	}
	/* The first node holding all of them: "local" has one answer only
	 * when the thread cannot wander to another node's PUs. */
	for (hwloc_obj_t n = NULL; (n = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, n));)
		if (n->cpuset && hwloc_bitmap_isincluded(cpus, n->cpuset)) {
			*node = (int)n->os_index;
			goto out;
		}
	rc = mmp_error_set(err, -EINVAL,
			   "membind local: the calling thread may run on PUs %s, which span NUMA "
			   "nodes; bind it inside one node first (mmp_topology_bind_self)",
			   mmp_bitmap_text(cpus, text, sizeof(text)));
out:
	hwloc_bitmap_free(cpus);
	return rc;
}

static const char *policy_name(hwloc_membind_policy_t p)
{
	return p == HWLOC_MEMBIND_FIRSTTOUCH ? "FIRSTTOUCH"
	       : p == HWLOC_MEMBIND_INTERLEAVE ? "INTERLEAVE"
					       : "BIND";
}

static const char *flags_text(int flags, char *buf, size_t len)
{
	snprintf(buf, len, "BYNODESET%s%s", flags & HWLOC_MEMBIND_STRICT ? "|STRICT" : "",
		 flags & HWLOC_MEMBIND_MIGRATE ? "|MIGRATE" : "");
	return buf;
}

/* The nodeset and hwloc policy m means for the calling thread. */
static int resolve(const struct mmp_topology *t, const struct mmp_membind *m,
		   hwloc_bitmap_t set, hwloc_membind_policy_t *policy, struct mmp_error *err)
{
	int node;
	switch (m->kind) {
	case MMP_MEMBIND_FIRSTTOUCH:
		/* hwloc asks for the complete nodeset with FIRSTTOUCH (MPOL_LOCAL). */
		*policy = HWLOC_MEMBIND_FIRSTTOUCH;
		hwloc_bitmap_copy(set, hwloc_topology_get_complete_nodeset(t->topo));
		return 0;
	case MMP_MEMBIND_LOCAL: {
		int rc = mmp_memory_local_node(t, &node, err);
		if (rc)
			return rc;
		*policy = HWLOC_MEMBIND_BIND;
		hwloc_bitmap_only(set, (unsigned)node);
		return 0;
	}
	case MMP_MEMBIND_NODE:
		*policy = HWLOC_MEMBIND_BIND;
		return named_nodes(m, t, set, err);
	case MMP_MEMBIND_INTERLEAVE:
		*policy = HWLOC_MEMBIND_INTERLEAVE;
		return named_nodes(m, t, set, err);
	}
	return mmp_error_set(err, -EINVAL, "membind %s: unknown policy", m->spec);
}

static int this_system(const struct mmp_topology *t, const char *what, struct mmp_error *err)
{
	if (!t->described)
		return 0;
	return mmp_error_set(err, -EPERM, "%s on a described topology (%s): it is for planning only",
			     what, t->source);
}

/* Some page of the range is present (hwloc_get_area_memlocation). */
static int has_pages(const struct mmp_topology *t, const void *addr, size_t len)
{
	hwloc_bitmap_t where = hwloc_bitmap_alloc();
	int present = where &&
		      hwloc_get_area_memlocation(t->topo, addr, len, where, HWLOC_MEMBIND_BYNODESET) ==
			      0 &&
		      !hwloc_bitmap_iszero(where);
	hwloc_bitmap_free(where);
	return present;
}

/* What a node can give a binding now, in bytes: its free pages and the
 * page cache the kernel may drop for them (the node's meminfo); -1 when
 * the kernel does not say. */
static int64_t node_room(unsigned node)
{
	char path[96], line[160];
	int64_t kib = 0;
	int found = 0;
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/meminfo", node);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		static const char *const counted[] = { "MemFree:", "Active(file):",
						       "Inactive(file):" };
		unsigned n;
		char key[32];
		int64_t v;
		if (sscanf(line, "Node %u %31s %" SCNd64, &n, key, &v) != 3)
			continue;
		for (int i = 0; i < 3; i++)
			if (strcmp(key, counted[i]) == 0) {
				kib += v;
				found++;
			}
	}
	fclose(f);
	return found == 3 ? kib * 1024 : -1;
}

/* A strict binding of more than its nodes hold does not fail: the kernel
 * kills the process when it touches the page that does not fit (OOM).
 * Say so before anything is touched.  Interleave puts len / nodes on each
 * node; bind may use all of them. */
static int check_room(const hwloc_bitmap_t set, hwloc_membind_policy_t policy, size_t len,
		      const struct mmp_membind *m, struct mmp_error *err)
{
	int64_t sum = 0;
	int nodes = hwloc_bitmap_weight(set), node;
	char need[32], part[32], have[32];
	if (policy == HWLOC_MEMBIND_FIRSTTOUCH || nodes <= 0)
		return 0;
	hwloc_bitmap_foreach_begin(node, set) {
		int64_t room = node_room((unsigned)node);
		uint64_t share = len / (size_t)nodes;
		if (room < 0)
			return 0; /* the kernel does not say: the binding decides */
		if (policy == HWLOC_MEMBIND_INTERLEAVE && (uint64_t)room < share)
			return mmp_error_set(err, -ENOMEM,
					     "membind %s strict: %s interleaved puts %s on node %d, "
					     "which has %s free or reclaimable "
					     "(/sys/devices/system/node/node%d/meminfo); the kernel "
					     "would kill the run rather than fail the binding",
					     m->spec, mmp_format_size(len, need, sizeof(need)),
					     mmp_format_size(share, part, sizeof(part)), node,
					     mmp_format_size((uint64_t)room, have, sizeof(have)), node);
		sum += room;
	}
	hwloc_bitmap_foreach_end();
	if (policy == HWLOC_MEMBIND_BIND && (uint64_t)sum < len) {
		char nodetext[64];
		return mmp_error_set(err, -ENOMEM,
				     "membind %s strict: %s do not fit on node(s) %s, which have %s "
				     "free or reclaimable (/sys/devices/system/node/node*/meminfo); "
				     "the kernel would kill the run rather than fail the binding",
				     m->spec, mmp_format_size(len, need, sizeof(need)),
				     mmp_bitmap_text(set, nodetext, sizeof(nodetext)),
				     mmp_format_size((uint64_t)sum, have, sizeof(have)));
	}
	return 0;
}

int mmp_memory_bind(const struct mmp_topology *t, void *addr, size_t len,
		    const struct mmp_membind *m, enum mmp_bind_mode mode,
		    struct mmp_bind_result *res, struct mmp_error *err)
{
	hwloc_membind_policy_t policy = HWLOC_MEMBIND_FIRSTTOUCH;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	struct mmp_error why = { 0 };
	char fl[48], call[256];
	int flags = HWLOC_MEMBIND_BYNODESET, rc;

	memset(res, 0, sizeof(*res));
	if (!set)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	rc = this_system(t, "membind", err);
	if (rc)
		goto out;
	if (m->kind == MMP_MEMBIND_FIRSTTOUCH) {
		/* What the kernel does anyway: no call, nothing to refuse. */
		snprintf(res->note, sizeof(res->note), "first touch: no binding");
		goto out;
	}
	if (mmp_memory_bind_refused(t)) {
		rc = refused_fallback(t, m, mode, res, err);
		goto out;
	}
	rc = resolve(t, m, set, &policy, &why);
	if (rc) {
		if (mode == MMP_BIND_STRICT || rc == -ENOMEM) {
			mmp_error_set(err, rc, "%s", why.msg);
			goto out;
		}
		res->fell_back = true;
		snprintf(res->note, sizeof(res->note), "best-effort: %.900s; pages stay first-touch",
			 why.msg);
		rc = 0;
		goto out;
	}
	if (mode == MMP_BIND_STRICT) {
		flags |= HWLOC_MEMBIND_STRICT;
		rc = check_room(set, policy, len, m, err);
		if (rc)
			goto out;
	}
	/* MPOL_LOCAL with MPOL_MF_MOVE would pull pages to the caller's
	 * node: first-touch leaves pages where they already are. */
	if (policy != HWLOC_MEMBIND_FIRSTTOUCH && has_pages(t, addr, len)) {
		flags |= HWLOC_MEMBIND_MIGRATE;
		res->migrated = true;
	}
	if (policy != HWLOC_MEMBIND_FIRSTTOUCH)
		mmp_bitmap_text(set, res->nodes, sizeof(res->nodes));
	snprintf(call, sizeof(call), "hwloc_set_area_membind(%p, %zu bytes, nodeset %s, %s, %s)",
		 addr, len, policy == HWLOC_MEMBIND_FIRSTTOUCH ? "all" : res->nodes,
		 policy_name(policy), flags_text(flags, fl, sizeof(fl)));
	if (hwloc_set_area_membind(t->topo, addr, len, set, policy, flags) == 0) {
		snprintf(res->note, sizeof(res->note), "%s", call);
	} else if (mode == MMP_BIND_STRICT) {
		rc = mmp_error_errno(err, -errno, "membind %s strict: %s", m->spec, call);
	} else {
		res->fell_back = true;
		snprintf(res->note, sizeof(res->note), "best-effort: %s failed: %s; pages stay "
			 "first-touch", call, strerror(errno));
	}
out:
	hwloc_bitmap_free(set);
	return rc;
}

int mmp_memory_alloc(const struct mmp_topology *t, size_t len, const struct mmp_membind *m,
		     enum mmp_bind_mode mode, void **out, struct mmp_bind_result *res,
		     struct mmp_error *err)
{
	hwloc_membind_policy_t policy = HWLOC_MEMBIND_FIRSTTOUCH;
	char fl[48];
	int rc;

	*out = NULL;
	memset(res, 0, sizeof(*res));
	rc = this_system(t, "membind", err);
	if (rc)
		return rc;
	if (m->kind == MMP_MEMBIND_FIRSTTOUCH || mode == MMP_BIND_BEST_EFFORT) {
		/* hwloc_alloc_membind without STRICT hides whether the
		 * binding took; binding separately can say so.  First touch
		 * needs no binding call at all (mmp_memory_bind). */
		void *p = hwloc_alloc(t->topo, len);
		if (!p)
			return mmp_error_errno(err, -errno, "hwloc_alloc(%zu bytes)", len);
		rc = mmp_memory_bind(t, p, len, m, mode, res, err);
		if (rc) {
			hwloc_free(t->topo, p, len);
			return rc;
		}
		*out = p;
		return 0;
	}
	if (mmp_memory_bind_refused(t))
		return mmp_membind_allowed(m, mode, t, err);
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	if (!set)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	rc = resolve(t, m, set, &policy, err);
	if (rc == 0)
		rc = check_room(set, policy, len, m, err);
	if (rc == 0) {
		int flags = HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_STRICT;
		if (policy != HWLOC_MEMBIND_FIRSTTOUCH)
			mmp_bitmap_text(set, res->nodes, sizeof(res->nodes));
		snprintf(res->note, sizeof(res->note),
			 "hwloc_alloc_membind(%zu bytes, nodeset %s, %s, %s)", len,
			 policy == HWLOC_MEMBIND_FIRSTTOUCH ? "all" : res->nodes,
			 policy_name(policy), flags_text(flags, fl, sizeof(fl)));
		*out = hwloc_alloc_membind(t->topo, len, set, policy, flags);
		if (!*out)
			rc = mmp_error_errno(err, -errno, "membind %s strict: %s", m->spec,
					     res->note);
	}
	hwloc_bitmap_free(set);
	return rc;
}

void mmp_memory_touch_from(const struct mmp_topology *t, int pu, void *addr, size_t len)
{
	hwloc_bitmap_t was = hwloc_bitmap_alloc();
	int moved = was && !t->described &&
		    hwloc_get_cpubind(t->topo, was, HWLOC_CPUBIND_THREAD) == 0 &&
		    mmp_topology_bind_self(t, pu, NULL) == 0;
	/* Unpinned (cannot bind here): the pages land where this thread
	 * runs, which is still first touch. */
	memset(addr, 0, len);
	if (moved)
		hwloc_set_cpubind(t->topo, was, HWLOC_CPUBIND_THREAD);
	hwloc_bitmap_free(was);
}

void mmp_memory_free(const struct mmp_topology *t, void *addr, size_t len)
{
	if (addr)
		hwloc_free(t->topo, addr, len);
}

bool mmp_membind_list_continues(const char *prev, const char *next)
{
	return strncmp(prev, "interleave:", strlen("interleave:")) == 0 &&
	       isdigit((unsigned char)next[0]);
}

static int mask_node(unsigned long *mask, size_t nbits, unsigned node, struct mmp_error *err)
{
	const size_t per = 8 * sizeof(unsigned long);
	if (node >= nbits)
		return mmp_error_set(err, -EINVAL, "NUMA node %u is past the %zu a mask holds", node,
				     nbits);
	mask[node / per] |= 1UL << (node % per);
	return 0;
}

struct mask_walk {
	unsigned long *mask;
	size_t nbits;
	int rc;
	struct mmp_error *err;
};

static void walk_mask(void *arg, unsigned node)
{
	struct mask_walk *w = arg;
	if (!w->rc)
		w->rc = mask_node(w->mask, w->nbits, node, w->err);
}

int mmp_membind_process_policy(const struct mmp_membind *m, enum mmp_bind_mode mode,
			       const struct mmp_topology *t, int *mpol, unsigned long *mask,
			       size_t nbits, struct mmp_error *err)
{
	memset(mask, 0, nbits / 8);
	*mpol = -1; /* no call: the kernel's default policy is first touch */
	if (m->kind == MMP_MEMBIND_FIRSTTOUCH)
		return 0;
	if (mmp_memory_bind_refused(t))
		return mode == MMP_BIND_STRICT ? mmp_membind_allowed(m, mode, t, err) : 0;
	switch (m->kind) {
	case MMP_MEMBIND_FIRSTTOUCH:
	case MMP_MEMBIND_LOCAL:
		*mpol = MPOL_LOCAL;
		return 0;
	case MMP_MEMBIND_NODE:
		*mpol = mode == MMP_BIND_STRICT ? MPOL_BIND : MPOL_PREFERRED;
		return mask_node(mask, nbits, m->node, err);
	case MMP_MEMBIND_INTERLEAVE:
		*mpol = MPOL_INTERLEAVE;
		if (m->all_nodes) {
			unsigned nodes[256], n = mmp_topology_node_indexes(t, nodes, 256);
			for (unsigned i = 0; i < n && i < 256; i++)
				if (mask_node(mask, nbits, nodes[i], err))
					return -EINVAL;
			return 0;
		}
		struct mask_walk w = { mask, nbits, 0, err };
		mmp_idlist_walk(strchr(m->spec, ':') + 1, MMP_MAX_OS_INDEX, walk_mask, &w);
		return w.rc;
	}
	return mmp_error_set(err, -EINVAL, "unknown memory policy");
}
