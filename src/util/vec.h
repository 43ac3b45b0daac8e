/* Growable arrays: plain heap arrays (free() releases one) whose capacity
 * doubles, so appending n elements costs O(n) copies in all.  Parallel
 * arrays that share one count and capacity (a run's times and flags)
 * take one mmp_vec_grown and one MMP_VEC_RESIZE each. */
#ifndef MMPROF_VEC_H
#define MMPROF_VEC_H

#include <stddef.h>

/* The capacity for `need` elements: cap (8 when 0) doubled until it holds
 * them; SIZE_MAX when doubling would overflow, which no resize can reach
 * (-ENOMEM). */
size_t mmp_vec_grown(size_t cap, size_t need);

/* Reallocates the array whose pointer is at arrayp (&r->elapsed, of any
 * object pointer type) to cap elements of elem bytes.  0, or -ENOMEM when
 * cap * elem overflows or realloc fails; the array is then left as it
 * was, still valid and still the caller's to free. */
int mmp_vec_resize(void *arrayp, size_t cap, size_t elem);

/* Room for `need` elements in the array at arrayp, whose capacity is
 * *cap: grown by doubling when need > *cap, *cap updated only on success.
 * 0 or -ENOMEM. */
int mmp_vec_reserve(void *arrayp, size_t *cap, size_t need, size_t elem);

/* The typed forms: p is the array (an lvalue such as r->elapsed), cap a
 * size_t lvalue. */
#define MMP_VEC_RESIZE(p, cap) mmp_vec_resize(&(p), (cap), sizeof(*(p)))
#define MMP_VEC_RESERVE(p, cap, need) mmp_vec_reserve(&(p), &(cap), (need), sizeof(*(p)))

#endif
