/* The memory of one run: where its shared state, its threads' buffers and
 * (data = anon) its copy of the data live, as membind / bind / hugepages
 * ask, and where their pages were really found.
 *
 * Policies (memory.h) applied to each kind of memory:
 *
 *   shared state  (the tally, the probe's state such as the view's
 *                 reference count): firsttouch and local mean thread 0's
 *                 node (the state has one home; thread 0 is where the
 *                 threads start): firsttouch by touching it first from
 *                 thread 0's PU, with no binding call, local by binding it
 *                 there; node:N and interleave as said.
 *   buffers       each thread's own: firsttouch and local leave them where
 *                 the thread touched them (its node); node:N and interleave
 *                 move them there.
 *   data = anon   a copy of the bytes the run reads, made once before its
 *                 first repetition, each thread copying its own slice:
 *                 firsttouch puts each slice on its reader's node, local
 *                 binds each slice to its reader's node first, node:N and
 *                 interleave bind the whole copy; hugepages = yes backs it
 *                 with huge pages (memory.h says what was obtained).
 *
 * The page-cache pages of a mapped file live where the page cache put
 * them: no binding moves them, which is why data = anon exists.
 */
#ifndef MMPROF_RUNMEM_H
#define MMPROF_RUNMEM_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "platform/memory.h"
#include "mmprof/params.h"
#include "platform/topology.h"

/* Where a run's memory was found, once per run (after its first
 * repetition, when every page has been touched). */
struct mmp_census_record {
	int done;
	struct mmp_page_census data; /* the data the probes read (mapping or copy) */
	int state_node;              /* node of the shared state; -1: none or not known */
	uint64_t huge_bytes;         /* of the data, backed by huge pages */
	unsigned nthreads;
	int *pu_node;                /* [nthreads]: node of each thread's PU */
	double *remote_share;        /* [nthreads]: share of its slice's pages on another
					node; < 0 when not known */
};

#define MMP_RUNMEM_BLOCKS 8

struct mmp_runmem {
	const struct mmp_topology *topo;
	const struct mmp_params *p;
	const struct mmp_pin_plan *pins;
	struct mmp_membind shared; /* the policy for shared state */
	struct {
		void *addr;
		size_t len;
	} block[MMP_RUNMEM_BLOCKS];
	size_t nblocks;
	uint8_t *data; /* data = anon: the copy */
	uint64_t data_len;
	struct mmp_huge_region huge; /* the copy, when it is on huge pages */
	char note[MMP_ERROR_MSG_MAX]; /* a best-effort binding that fell back */
};

int mmp_runmem_init(struct mmp_runmem *m, const struct mmp_topology *topo,
		    const struct mmp_params *p, const struct mmp_pin_plan *pins,
		    struct mmp_error *err);
/* Memory for shared state, bound as the policy says; freed by
 * mmp_runmem_release.  NULL with a message. */
void *mmp_runmem_alloc(struct mmp_runmem *m, size_t len, struct mmp_error *err);
/* A thread's buffer, allocated and touched by the thread: moved where
 * node:N or interleave says. */
int mmp_runmem_place_buffer(struct mmp_runmem *m, void *addr, size_t len,
			    struct mmp_error *err);
/* data = anon: the copy of bytes [0, len), bound (not yet filled). */
int mmp_runmem_data(struct mmp_runmem *m, uint64_t len, struct mmp_error *err);
/* Fill bytes [begin, end) of the copy from the file: called by the thread
 * that reads that slice, so that first touch puts it on its node. */
int mmp_runmem_fill(struct mmp_runmem *m, int fd, uint64_t begin, uint64_t end);
/* Where the data (at map, len bytes, read in slices of chunk bytes by
 * pins->nthreads threads) and the shared state (at state, or NULL) are. */
int mmp_runmem_census(const struct mmp_runmem *m, const uint8_t *map, uint64_t len,
		      const void *state, struct mmp_census_record *out, struct mmp_error *err);
void mmp_census_record_free(struct mmp_census_record *c);
void mmp_runmem_release(struct mmp_runmem *m);

#endif
