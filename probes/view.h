/* A model of .NET's UnmanagedMemoryAccessor over a MemoryMappedView:
 * bounds checks on every call, and a SafeHandle reference count that every
 * call takes and gives back with a compare-and-swap retry loop
 * (SafeHandle.DangerousAddRef / DangerousRelease).  Shared by the
 * accessor_byte and accessor_block probes.
 */
#ifndef MMPROF_PROBES_VIEW_H
#define MMPROF_PROBES_VIEW_H

#include <stdint.h>

#include "mmprof/probe.h"

/* SafeHandle keeps flags in the low bits of its state word and counts
 * references above them. */
#define MMP_VIEW_CLOSED 1
#define MMP_VIEW_REF_ONE 4

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
