/* The accessor model's calls (see view.h).  Each is a real, out-of-line
 * call as in the JIT-compiled .NET code; the checks are the ones
 * UnmanagedMemoryAccessor.EnsureSafeToRead makes. */
#include "view.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sink.h"

/* 128 bytes, not 64: the L2 adjacent-line prefetcher pulls cache lines in
 * pairs, so two words 64 bytes apart still ping-pong between cores. */
#define LINE 128
#define WORDS_PER_LINE (LINE / sizeof(int64_t))

/* The handle's state words: word 0 is the one the real handle has, shared
 * by every thread; with refcount = private thread t has word t + 1, each on
 * lines of its own. */
struct view_state {
	_Atomic int64_t *words;
	unsigned nwords;
	int private_words;
	int own_words; /* allocated here, not by the runner's env->alloc */
};

int mmp_view_setup(const struct mmp_probe_env *env, void **priv)
{
	struct view_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->private_words = env->params->refcount == MMP_REFCOUNT_PRIVATE;
	st->nwords = 1 + (st->private_words ? env->nthreads : 0);
	/* The handle's words live where the run binds its shared state. */
	st->own_words = !env->alloc;
	st->words = env->alloc ? env->alloc(env->alloc_ctx, (size_t)st->nwords * LINE)
			       : aligned_alloc(LINE, (size_t)st->nwords * LINE);
	if (!st->words) {
		free(st);
		return -ENOMEM;
	}
	*priv = st;
	mmp_view_reset(st);
	return 0;
}

void mmp_view_reset(void *priv)
{
	struct view_state *st = priv;
	for (unsigned i = 0; i < st->nwords; i++)
		atomic_store(&st->words[i * WORDS_PER_LINE], 0);
}

int mmp_view_check(void *priv)
{
	struct view_state *st = priv;
	/* Every reference taken was given back, or the model is broken. */
	for (unsigned i = 0; i < st->nwords; i++)
		if (atomic_load(&st->words[i * WORDS_PER_LINE]) != 0)
			return -EPROTO;
	return 0;
}

void mmp_view_teardown(void *priv)
{
	struct view_state *st = priv;
	if (!st)
		return;
	if (st->own_words)
		free((void *)st->words);
	free(st);
}

struct mmp_view mmp_view_of(const struct mmp_slice *s)
{
	const struct view_state *st = s->priv;
	unsigned word = st->private_words ? 1 + s->thread : 0;
	return (struct mmp_view){
		.base = s->map,
		.capacity = s->file_size,
		.open = 1,
		.readable = 1,
		.state = &st->words[word * WORDS_PER_LINE],
	};
}

static MMP_ALWAYS_INLINE int view_check(const struct mmp_view *v, uint64_t pos,
					uint64_t size)
{
	if (MMP_UNLIKELY(!v->open))
		return -EBADF;
	if (MMP_UNLIKELY(!v->readable))
		return -EACCES;
	/* position < 0 cannot happen with an unsigned position, but .NET's
	 * long does test it: keep the compare so the call does its work. */
	if (MMP_UNLIKELY((int64_t)pos < 0))
		return -ERANGE;
	if (MMP_UNLIKELY(pos > v->capacity - size))
		return -ERANGE;
	return 0;
}

MMP_REAL_CALL int mmp_view_acquire(const struct mmp_view *v)
{
	int64_t old = atomic_load_explicit(v->state, memory_order_relaxed);
	do {
		if (MMP_UNLIKELY(old & MMP_VIEW_CLOSED))
			return -EBADF;
	} while (!atomic_compare_exchange_weak_explicit(v->state, &old, old + MMP_VIEW_REF_ONE,
							memory_order_seq_cst,
							memory_order_relaxed));
	return 0;
}

MMP_REAL_CALL void mmp_view_release(const struct mmp_view *v)
{
	int64_t old = atomic_load_explicit(v->state, memory_order_relaxed);
	while (!atomic_compare_exchange_weak_explicit(v->state, &old, old - MMP_VIEW_REF_ONE,
						      memory_order_seq_cst,
						      memory_order_relaxed))
		;
}

MMP_REAL_CALL int mmp_view_read_byte(const struct mmp_view *v, uint64_t pos)
{
	int rc = view_check(v, pos, 1);
	if (rc)
		return rc;
	rc = mmp_view_acquire(v);
	if (rc)
		return rc;
	uint8_t b = ((const volatile uint8_t *)v->base)[pos];
	mmp_view_release(v);
	return b;
}

MMP_REAL_CALL int mmp_view_read_byte_held(const struct mmp_view *v, uint64_t pos)
{
	int rc = view_check(v, pos, 1);
	if (rc)
		return rc;
	return ((const volatile uint8_t *)v->base)[pos];
}

/* The copy after a passed check: at most to the end of the view. */
static MMP_ALWAYS_INLINE int64_t view_copy(const struct mmp_view *v, uint64_t pos,
					   uint8_t *dst, uint64_t count)
{
	uint64_t left = v->capacity - pos;
	uint64_t n = count < left ? count : left;
	memcpy(dst, v->base + pos, n);
	return (int64_t)n;
}

MMP_REAL_CALL int64_t mmp_view_read_array(const struct mmp_view *v, uint64_t pos,
					  uint8_t *dst, uint64_t count)
{
	int rc = view_check(v, pos, 1);
	if (rc)
		return rc;
	rc = mmp_view_acquire(v);
	if (rc)
		return rc;
	int64_t n = view_copy(v, pos, dst, count);
	mmp_view_release(v);
	return n;
}

MMP_REAL_CALL int64_t mmp_view_read_array_held(const struct mmp_view *v, uint64_t pos,
					       uint8_t *dst, uint64_t count)
{
	int rc = view_check(v, pos, 1);
	if (rc)
		return rc;
	return view_copy(v, pos, dst, count);
}
