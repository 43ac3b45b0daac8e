/* Where a run's memory lives: NUMA binding through hwloc, where the pages
 * really are, and huge pages.
 *
 * A NUMA result is only as good as the page placement behind it: a
 * "local" run whose pages sit on the other socket measures the
 * interconnect. So binding says what it did (and when best-effort fell
 * back), and the census reads back where pages landed.
 *
 * Binding, allocation and the census need this system's topology; on a
 * described one (mmp_topology_is_described) they fail with -EPERM. Parsing
 * and mmp_membind_check work on any topology.
 */
#ifndef MMPROF_MEMORY_H
#define MMPROF_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/error.h"
#include "mmprof/params.h"
#include "platform/topology.h"

/* "firsttouch", "local", "node:N", "interleave", "interleave:LIST" (e.g.
 * interleave:0,2 or interleave:0-3); bad text gives a message with a
 * "did you mean". */
int mmp_membind_parse(const char *text, struct mmp_membind *out, char *err, size_t errlen);
/* Whether a comma-split config value that follows prev continues prev's
 * node list ("interleave:0" then "2") rather than being a new policy of a
 * sweep. */
bool mmp_membind_list_continues(const char *prev, const char *next);
/* "strict" or "best-effort". */
int mmp_bind_mode_parse(const char *text, enum mmp_bind_mode *out, char *err, size_t errlen);
const char *mmp_bind_mode_name(enum mmp_bind_mode mode);

/* -EINVAL when the policy names nodes the topology does not have ("node 1
 * is not a NUMA node here (nodes: 0)") or the process may not use (cgroup
 * cpuset.mems), or nodes without memory. */
int mmp_membind_check(const struct mmp_membind *m, const struct mmp_topology *t,
		      struct mmp_error *err);

/* Whether this process may make the NUMA system calls binding (mbind,
 * set_mempolicy) and the page census (move_pages) need: 0, or the errno
 * they were refused with, EPERM (a container's seccomp profile without
 * CAP_SYS_NICE) or ENOSYS (an emulator, a kernel without NUMA); asked
 * once when this system's topology was loaded, 0 on a described one.
 * firsttouch needs neither call. */
int mmp_memory_bind_refused(const struct mmp_topology *t);
int mmp_memory_locate_refused(const struct mmp_topology *t);
/* The same question asked without a topology: 0 or errno for each. */
void mmp_memory_calls_ask(int *bind_errno, int *locate_errno);
/* "memory binding: allowed (mbind)" / "...: refused, CAUSE; ..." and the
 * same for page locations: --topology and --list-events. */
void mmp_memory_calls_print(int bind_errno, int locate_errno, FILE *out);
/* "mbind: Operation not permitted (a container's seccomp profile ...: run
 * it with CAP_SYS_NICE ...)": the cause and the way out. */
const char *mmp_memory_refusal_text(int e, const char *call, char *buf, size_t len);
/* -EPERM or -ENOSYS with that text when m asks for a binding (anything
 * but firsttouch), bind = strict and the calls are refused; 0 otherwise
 * (best-effort runs with its pages where first touch puts them, and says
 * so in the run's note). */
int mmp_membind_allowed(const struct mmp_membind *m, enum mmp_bind_mode mode,
			const struct mmp_topology *t, struct mmp_error *err);

/* The policy for a whole process (a program run by exec): set_mempolicy's
 * mode (MPOL_LOCAL for firsttouch and local, MPOL_BIND or, best-effort,
 * MPOL_PREFERRED for node:N, MPOL_INTERLEAVE) and node mask of nbits bits
 * (mask zeroed first).  A process cannot bind each thread's slice, so
 * local means what first touch does.  -EINVAL with a message for nodes
 * past nbits. */
#define MMP_NODEMASK_BITS 1024
int mmp_membind_process_policy(const struct mmp_membind *m, enum mmp_bind_mode mode,
			       const struct mmp_topology *t, int *mpol, unsigned long *mask,
			       size_t nbits, struct mmp_error *err);

/* What a bind or allocation did. */
struct mmp_bind_result {
	bool fell_back;  /* best-effort: the binding asked for is not in place */
	bool migrated;   /* pages already present were asked to move */
	char nodes[64];  /* the nodeset used, "0-1"; "" for first-touch */
	char note[MMP_ERROR_MSG_MAX]; /* the call made, or why it fell back */
};

/* Bind [addr, addr+len) (rounded out to whole pages, as mbind needs);
 * firsttouch makes no call.  Where binding is refused
 * (mmp_memory_bind_refused), best-effort makes no call and says so in the
 * note; strict fails with the cause and the way out.
 * Pages already present are migrated (HWLOC_MEMBIND_MIGRATE); untouched
 * pages are placed when first touched. A strict failure names the call,
 * the nodeset, the policy, the flags and strerror. */
int mmp_memory_bind(const struct mmp_topology *t, void *addr, size_t len,
		    const struct mmp_membind *m, enum mmp_bind_mode mode,
		    struct mmp_bind_result *res, struct mmp_error *err);

/* len bytes of fresh anonymous memory bound by m (hwloc_alloc_membind;
 * best-effort: hwloc_alloc, then mmp_memory_bind; firsttouch: hwloc_alloc
 * and no binding call); free with
 * mmp_memory_free. Pages are placed when first touched. */
int mmp_memory_alloc(const struct mmp_topology *t, size_t len, const struct mmp_membind *m,
		     enum mmp_bind_mode mode, void **out, struct mmp_bind_result *res,
		     struct mmp_error *err);
void mmp_memory_free(const struct mmp_topology *t, void *addr, size_t len);
/* Zero [addr, addr+len) from PU pu, so that first touch puts its pages on
 * pu's node without a binding call: the calling thread is bound there for
 * the writes and given its old binding back. */
void mmp_memory_touch_from(const struct mmp_topology *t, int pu, void *addr, size_t len);

/* The node "local" means for the calling thread: the one node holding
 * every PU it is bound to; -EINVAL when its binding spans nodes. */
int mmp_memory_local_node(const struct mmp_topology *t, int *node, struct mmp_error *err);

/* Where pages are. */
#define MMP_CENSUS_DEFAULT_PAGES 4096
#define MMP_CENSUS_NODES 64

struct mmp_page_census {
	uint64_t page_size;      /* base page size the counts are in */
	uint64_t pages_total;    /* pages the range covers */
	uint64_t pages_examined; /* all of them, or an even sample */
	bool sampled;            /* pages_examined < pages_total */
	uint64_t not_present;    /* examined pages never touched (or swapped out) */
	int unknown;             /* 0, or the errno move_pages is refused with
				  * (mmp_memory_locate_refused): nothing was
				  * examined and nothing is guessed */
	unsigned nnodes;         /* entries of node[] in use, by node number */
	struct {
		unsigned node;   /* OS index */
		uint64_t pages;  /* examined pages found there */
	} node[MMP_CENSUS_NODES];
};

/* Count the pages of [addr, addr+len) per NUMA node. More than
 * max_pages pages (0: MMP_CENSUS_DEFAULT_PAGES) are sampled evenly: page
 * floor(k * total / max_pages) for k = 0..max_pages-1. A page nobody has
 * touched counts as not present: touch first, then count.  Where page
 * locations may not be read, 0 with out->unknown set. */
int mmp_memory_census(const struct mmp_topology *t, const void *addr, size_t len,
		      unsigned max_pages, struct mmp_page_census *out, struct mmp_error *err);
/* Pages of census found on node, 0 when none. */
uint64_t mmp_page_census_on(const struct mmp_page_census *c, unsigned node);
/* "4096 of 16384 pages examined (sampled): node 0 100.0%" (+ ", not present N");
 * "page locations unknown (move_pages: ...)". */
const char *mmp_page_census_format(const struct mmp_page_census *c, char *buf, size_t len);

/* The node of the page holding addr (a shared word): -ENOENT when the
 * page is not present, -EPERM or -ENOSYS when page locations may not be
 * read. */
int mmp_memory_node_of(const struct mmp_topology *t, const void *addr, int *node,
		       struct mmp_error *err);

/* Huge pages (memory_huge.c). */
enum mmp_thp_mode { MMP_THP_ALWAYS, MMP_THP_MADVISE, MMP_THP_NEVER, MMP_THP_UNAVAILABLE };

/* /sys/kernel/mm/transparent_hugepage/enabled; UNAVAILABLE when the
 * kernel has no THP. */
enum mmp_thp_mode mmp_memory_thp_mode(void);
const char *mmp_thp_mode_name(enum mmp_thp_mode mode);

struct mmp_huge_region {
	void *addr;      /* len usable bytes, aligned to the huge page size */
	size_t len;      /* as asked, rounded up to a huge page */
	bool hugetlb;    /* MAP_HUGETLB from the reserved pool (nr_hugepages) */
	size_t huge_page_size;
};

/* Anonymous memory meant to be backed by huge pages: MAP_HUGETLB when
 * enough reserved huge pages are free, otherwise a mapping aligned to the
 * transparent huge page size with MADV_HUGEPAGE (the kernel may still give
 * small pages: ask mmp_memory_huge_report after touching). Free with
 * mmp_memory_free_huge. */
int mmp_memory_alloc_huge(size_t len, struct mmp_huge_region *out, struct mmp_error *err);
void mmp_memory_free_huge(struct mmp_huge_region *r);
/* MADV_HUGEPAGE on an existing anonymous range (page aligned). */
int mmp_memory_advise_huge(void *addr, size_t len, struct mmp_error *err);

struct mmp_huge_report {
	uint64_t range_bytes;  /* the range asked about */
	uint64_t huge_bytes;   /* of it, backed by huge pages (THP or hugetlb) */
	bool approximate;      /* a mapping extends past the range: its huge
				* pages are counted up to the range's size */
	enum mmp_thp_mode thp;
};

/* Bytes of [addr, addr+len) backed by huge pages, from the
 * AnonHugePages and *_Hugetlb lines of /proc/self/smaps for the mappings
 * the range overlaps. */
int mmp_memory_huge_report(const void *addr, size_t len, struct mmp_huge_report *out,
			   struct mmp_error *err);

#endif
