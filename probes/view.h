/* A model of .NET's UnmanagedMemoryAccessor over a MemoryMappedView:
 * bounds checks on every call, and a SafeHandle reference count that every
 * call takes and gives back with a compare-and-swap retry loop
 * (SafeHandle.DangerousAddRef / DangerousRelease).  Shared by the
 * accessor_byte and accessor_block probes, which own its state: the
 * handle's reference count word (one for all threads, as in .NET, or one
 * per thread for refcount = private), made by their setup hook.
 */
#ifndef MMPROF_PROBES_VIEW_H
#define MMPROF_PROBES_VIEW_H

#include <stdatomic.h>
#include <stdint.h>

#include "mmprof/probe.h"

/* SafeHandle keeps flags in the low bits of its state word and counts
 * references above them. */
#define MMP_VIEW_CLOSED 1
#define MMP_VIEW_REF_ONE 4

/* The accessor's view, as one thread sees it: bounds the per-call check
 * reads, and the handle's reference count each call acquires and releases. */
struct mmp_view {
	const uint8_t *base;
	uint64_t capacity;
	int open;
	int readable;
	_Atomic int64_t *state;
};

/* The probes' hooks (struct mmp_probe setup/reset/check/teardown). */
int mmp_view_setup(const struct mmp_probe_env *env, void **priv);
void mmp_view_reset(void *priv);
int mmp_view_check(void *priv);
void mmp_view_teardown(void *priv);

/* The view one thread of a repetition reads through. */
struct mmp_view mmp_view_of(const struct mmp_slice *s);

/* DangerousAddRef: -EBADF if the handle is closed. */
int mmp_view_acquire(const struct mmp_view *v);
/* DangerousRelease. */
void mmp_view_release(const struct mmp_view *v);

/* ReadByte(pos): checks, acquire, one load, release.  Returns the byte
 * (0..255) or a negative errno from a failed check. */
int mmp_view_read_byte(const struct mmp_view *v, uint64_t pos);
/* The same call with the reference already held by the caller (the fixed
 * path: one acquire per thread instead of one per byte). */
int mmp_view_read_byte_held(const struct mmp_view *v, uint64_t pos);

/* ReadArray(pos, dst, 0, count): checks, acquire, copy, release.  Returns
 * the number of bytes copied (count, or less at the end of the view) or a
 * negative errno. */
int64_t mmp_view_read_array(const struct mmp_view *v, uint64_t pos, uint8_t *dst,
			    uint64_t count);
int64_t mmp_view_read_array_held(const struct mmp_view *v, uint64_t pos, uint8_t *dst,
				 uint64_t count);

#endif
