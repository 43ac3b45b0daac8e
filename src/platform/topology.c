/* Loading a topology (this machine or a described one), the PUs a process
 * may use, small queries, and binding the calling thread (hwloc-bind's
 * error messages). Planning is in topology_plan.c, printing in
 * topology_print.c. */
#include "topology_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);
	return n > m && strcmp(s + n - m, tail) == 0;
}

/* hwloc reads HWLOC_SYNTHETIC before HWLOC_XMLFILE when nothing else was
 * set; doing the same here lets a bad value be reported with its name. */
static const char *from_environment(const char **var)
{
	static const char *const vars[] = { "HWLOC_SYNTHETIC", "HWLOC_XMLFILE" };
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		if (v && *v) {
			*var = vars[i];
			return v;
		}
	}
	return NULL;
}

/* Linux kernels are built for at most 8192 CPUs (NR_CPUS of the
 * distributions' largest configs); a description beyond that is a typo,
 * and hwloc takes minutes and gigabytes to build it (131,072 PUs: 60 s,
 * 1.3 GB), so it is refused before hwloc sees it. */
#define MMP_MAX_DESCRIBED_PUS 8192

/* The PUs a synthetic description makes: the product of its levels'
 * counts ("pack:2 core:4(...) pu:2" is 16), at most limit + 1. */
static unsigned long synthetic_pus(const char *body, unsigned long limit)
{
	unsigned long pus = 1;
	for (const char *p = body; *p;) {
		while (*p == ' ')
			p++;
		const char *colon = p;
		while (*colon && *colon != ' ' && *colon != ':' && *colon != '(')
			colon++;
		const char *num = *colon == ':' ? colon + 1 : p;
		if (isdigit((unsigned char)*num)) {
			unsigned long n = strtoul(num, NULL, 10);
			pus = n && pus > (limit + 1) / n ? limit + 1 : pus * n;
		}
		/* To the next level: past this one's (attributes). */
		int depth = 0;
		for (; *p && (depth || *p != ' '); p++)
			depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
	}
	return pus;
}

static int use_description(struct mmp_topology *t, const char *desc, const char *var,
			   struct mmp_error *err)
{
	const char *body = desc;
	int xml = 0;
	char via[64] = "";

	if (strncmp(desc, "synthetic:", 10) == 0) {
		body = desc + 10;
	} else if (strncmp(desc, "xml:", 4) == 0) {
		body = desc + 4;
		xml = 1;
	} else if (ends_with(desc, ".xml") || (var && strcmp(var, "HWLOC_XMLFILE") == 0)) {
		xml = 1;
	}
	if (var)
		snprintf(via, sizeof(via), " (from %s)", var);
	snprintf(t->source, sizeof(t->source), "%s: %s%s", xml ? "xml" : "synthetic", body, via);
	if (xml && access(body, R_OK) != 0)
		return mmp_error_errno(err, -errno, "topology xml:%s%s: cannot read it", body, via);
	if (!xml && synthetic_pus(body, MMP_MAX_DESCRIBED_PUS) > MMP_MAX_DESCRIBED_PUS)
		return mmp_error_set(err, -E2BIG,
				     "synthetic:%s%s: more than %d PUs; a Linux kernel runs at most "
				     "%d CPUs (NR_CPUS), and hwloc would take minutes to build it",
				     body, via, MMP_MAX_DESCRIBED_PUS, MMP_MAX_DESCRIBED_PUS);
	errno = 0;
	if ((xml ? hwloc_topology_set_xml(t->topo, body)
		 : hwloc_topology_set_synthetic(t->topo, body)) != 0)
		return mmp_error_errno(err, errno ? -errno : -EINVAL,
				       "%s('%s')%s: hwloc cannot use this %s",
				       xml ? "hwloc_topology_set_xml" : "hwloc_topology_set_synthetic",
				       body, via, xml ? "XML file" : "synthetic description");
	return 0;
}

/* A batch scheduler restricts a job's CPUs itself (Slurm's task/cgroup
 * cpuset, task/affinity binding), and a user who reads "the cgroup
 * cpuset" there asks who made it: the variable each sets in its jobs'
 * environment names it, with what gives a task more CPUs where that was
 * checked. */
static const struct {
	const char *var, *name, *hint;
} schedulers[] = {
	{ "SLURM_JOB_ID", "Slurm", "srun --exclusive --cpus-per-task=N gives a task N CPUs" },
	{ "PBS_JOBID", "PBS", NULL },
	{ "LSB_JOBID", "LSF", NULL },
	{ "FLUX_JOB_ID", "Flux", NULL },
};

/* The scheduler whose job this is, or -1. */
static int scheduler(void)
{
	for (size_t i = 0; i < sizeof(schedulers) / sizeof(schedulers[0]); i++) {
		const char *id = getenv(schedulers[i].var);
		if (id && *id)
			return (int)i;
	}
	return -1;
}

static void name_scheduler(struct mmp_topology *t, int i)
{
	size_t n = strlen(t->allowed_why);
	const char *hint = schedulers[i].hint;
	snprintf(t->allowed_why + n, sizeof(t->allowed_why) - n, " (set by %s for job %.32s%s%s)",
		 schedulers[i].name, getenv(schedulers[i].var), hint ? ": " : "", hint ? hint : "");
}

/* cgroup cpuset.cpus is hwloc's allowed cpuset; the affinity the process
 * was started with (taskset, numactl -C) is only visible as its binding. */
static int compute_allowed(struct mmp_topology *t, struct mmp_error *err)
{
	hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(t->topo);
	char text[128];

	t->allowed = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(t->topo));
	if (!t->allowed)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	if (!hwloc_bitmap_isequal(t->allowed, all))
		snprintf(t->allowed_why, sizeof(t->allowed_why), "%s",
			 t->described ? "the description's allowed cpuset" : "the cgroup cpuset");
	if (t->described)
		return 0;

	int sched = scheduler();
	hwloc_bitmap_t bind = hwloc_bitmap_alloc();
	if (!bind)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	if (hwloc_get_cpubind(t->topo, bind, HWLOC_CPUBIND_PROCESS) == 0 ||
	    hwloc_get_cpubind(t->topo, bind, HWLOC_CPUBIND_THREAD) == 0) {
		if (!hwloc_bitmap_isincluded(t->allowed, bind)) {
			size_t n = strlen(t->allowed_why);
			snprintf(t->allowed_why + n, sizeof(t->allowed_why) - n, "%s%s%s",
				 n ? " and " : "", "the CPU affinity mmprof was started with",
				 sched >= 0 ? "" : ", e.g. by taskset or numactl -C");
		}
		hwloc_bitmap_and(t->allowed, t->allowed, bind);
	}
	hwloc_bitmap_free(bind);
	if (t->allowed_why[0] && sched >= 0)
		name_scheduler(t, sched);
	if (hwloc_bitmap_iszero(t->allowed))
		return mmp_error_set(err, -EINVAL,
				     "no PU of this machine (%s) is allowed for this process",
				     mmp_bitmap_text(all, text, sizeof(text)));
	return 0;
}

int mmp_topology_load(struct mmp_topology **out, const char *desc, struct mmp_error *err)
{
	struct mmp_topology *t = calloc(1, sizeof(*t));
	const char *var = NULL;
	int rc;

	*out = NULL;
	if (!t)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	if (hwloc_topology_init(&t->topo)) {
		rc = mmp_error_errno(err, -errno, "hwloc_topology_init");
		free(t);
		return rc;
	}
	/* Keep disallowed PUs in the tree so a message can tell "not allowed
	 * here" from "does not exist"; plans use t->allowed. */
	hwloc_topology_set_flags(t->topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	if (!desc || !*desc)
		desc = from_environment(&var);
	snprintf(t->source, sizeof(t->source), "this system");
	if (desc) {
		rc = use_description(t, desc, var, err);
		if (rc)
			goto fail;
	}
	if (hwloc_topology_load(t->topo)) {
		rc = mmp_error_errno(err, errno ? -errno : -EINVAL, "hwloc_topology_load(%s)",
				     t->source);
		goto fail;
	}
	t->described = !hwloc_topology_is_thissystem(t->topo);
	if (!t->described)
		mmp_memory_calls_probe(t);
	rc = compute_allowed(t, err);
	if (rc)
		goto fail;
	if ((rc = mmp_caches_fill(t)) != 0) {
		rc = mmp_error_set(err, rc, "out of memory");
		goto fail;
	}
	*out = t;
	return 0;
fail:
	mmp_topology_free(t);
	return rc;
}

void mmp_topology_free(struct mmp_topology *t)
{
	if (!t)
		return;
	mmp_caches_clear(t->cache);
	hwloc_bitmap_free(t->allowed);
	hwloc_topology_destroy(t->topo);
	free(t);
}

int mmp_topology_is_described(const struct mmp_topology *t)
{
	return t->described;
}

const char *mmp_topology_source(const struct mmp_topology *t)
{
	return t->source;
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

unsigned mmp_topology_l3_domains(const struct mmp_topology *t)
{
	return t->cache[2].n;
}

unsigned mmp_topology_allowed_pus(const struct mmp_topology *t)
{
	int n = hwloc_bitmap_weight(t->allowed);
	return n > 0 ? (unsigned)n : 0;
}

bool mmp_topology_pu_allowed(const struct mmp_topology *t, int pu)
{
	return pu >= 0 && hwloc_bitmap_isset(t->allowed, (unsigned)pu);
}

const char *mmp_bitmap_text(hwloc_const_bitmap_t set, char *buf, size_t len)
{
	if (hwloc_bitmap_iszero(set))
		snprintf(buf, len, "none");
	else
		hwloc_bitmap_list_snprintf(buf, len, set);
	return buf;
}

const char *mmp_topology_allowed_why(const struct mmp_topology *t)
{
	return t->allowed_why;
}

const char *mmp_topology_allowed_list(const struct mmp_topology *t, char *buf, size_t len)
{
	return mmp_bitmap_text(t->allowed, buf, len);
}

const char *mmp_allowed_text(const struct mmp_topology *t, char *buf, size_t len)
{
	char list[128];
	mmp_bitmap_text(t->allowed, list, sizeof(list));
	if (t->allowed_why[0])
		snprintf(buf, len, "allowed PUs: %s, restricted by %s", list, t->allowed_why);
	else
		snprintf(buf, len, "allowed PUs: %s", list);
	return buf;
}

hwloc_obj_t mmp_pu_numa_obj(const struct mmp_topology *t, unsigned pu)
{
	hwloc_obj_t node = NULL;
	/* Several nodes may hold one PU (DRAM beside HBM or CXL memory);
	 * the first in hwloc's order is the DRAM node the kernel allocates
	 * from by default. */
	while ((node = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, node)) != NULL)
		if (node->cpuset && hwloc_bitmap_isset(node->cpuset, pu))
			return node;
	return NULL;
}

int mmp_topology_pu_node(const struct mmp_topology *t, int pu)
{
	if (pu < 0 || !hwloc_get_pu_obj_by_os_index(t->topo, (unsigned)pu))
		return -EINVAL;
	hwloc_obj_t node = mmp_pu_numa_obj(t, (unsigned)pu);
	return node ? (int)node->os_index : -ENOENT;
}

int mmp_topology_pu_l3(const struct mmp_topology *t, int pu)
{
	hwloc_obj_t obj = pu < 0 ? NULL : hwloc_get_pu_obj_by_os_index(t->topo, (unsigned)pu);
	if (!obj)
		return -EINVAL;
	return mmp_cache_domain_of(&t->cache[2], (unsigned)pu);
}

bool mmp_topology_node_exists(const struct mmp_topology *t, unsigned node)
{
	return hwloc_get_numanode_obj_by_os_index(t->topo, node) != NULL;
}

unsigned mmp_topology_node_indexes(const struct mmp_topology *t, unsigned *out, unsigned cap)
{
	hwloc_obj_t node = NULL;
	unsigned n = 0;
	while ((node = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, node)) != NULL) {
		if (n < cap)
			out[n] = node->os_index;
		n++;
	}
	return n;
}

const char *mmp_topology_node_list(const struct mmp_topology *t, char *buf, size_t len)
{
	return mmp_bitmap_text(hwloc_topology_get_topology_nodeset(t->topo), buf, len);
}

int mmp_topology_bind_self(const struct mmp_topology *t, int pu, struct mmp_error *err)
{
	char text[64];
	int rc = 0;

	if (t->described)
		return mmp_error_set(err, -EPERM,
				     "cannot bind to PU %d on a described topology (%s): "
				     "it is for planning only",
				     pu, t->source);
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
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

struct hwloc_distances_s *mmp_numa_latency(const struct mmp_topology *t)
{
	struct hwloc_distances_s *d = NULL;
	unsigned nr = 1;
	if (hwloc_distances_get_by_type(t->topo, HWLOC_OBJ_NUMANODE, &nr, &d,
					HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0 ||
	    nr == 0)
		return NULL;
	return d;
}

unsigned mmp_numa_distance(const struct mmp_topology *t, struct hwloc_distances_s *d,
			   hwloc_obj_t a, hwloc_obj_t b)
{
	hwloc_uint64_t ab, ba;
	(void)t;
	if (!d || !a || !b || hwloc_distances_obj_pair_values(d, a, b, &ab, &ba) != 0)
		return 0;
	return (unsigned)ab;
}
