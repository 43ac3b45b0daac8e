/* Interned strings (see strtab.h): open addressing on the string's hash,
 * the strings themselves in chunks that never move. */
#include "util/strtab.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (64u << 10)

struct chunk {
	struct chunk *next;
	size_t used, size;
	char text[];
};

struct mmp_strtab {
	const char **slot; /* cap slots, NULL: empty */
	size_t n, cap;     /* cap a power of two */
	struct chunk *chunks;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

int mmp_strtab_new(struct mmp_strtab **out)
{
	struct mmp_strtab *t = calloc(1, sizeof(*t));
	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->cap = 1024;
	t->slot = calloc(t->cap, sizeof(*t->slot));
	if (!t->slot) {
		free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

static int grow(struct mmp_strtab *t)
{
	size_t cap = 2 * t->cap;
	const char **slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slot[i])
			continue;
		size_t k = (size_t)hash(t->slot[i]);
		while (slot[k & (cap - 1)])
			k++;
		slot[k & (cap - 1)] = t->slot[i];
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	return 0;
}

static char *store(struct mmp_strtab *t, const char *s, size_t len)
{
	struct chunk *c = t->chunks;
	if (!c || c->size - c->used < len + 1) {
		size_t size = len + 1 > CHUNK ? len + 1 : CHUNK;
		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->next = t->chunks;
		c->used = 0;
		c->size = size;
		t->chunks = c;
	}
	char *p = c->text + c->used;
	memcpy(p, s, len + 1);
	c->used += len + 1;
	return p;
}

const char *mmp_strtab_add(struct mmp_strtab *t, const char *s)
{
	if (2 * (t->n + 1) > t->cap && grow(t))
		return NULL;
	size_t k = (size_t)hash(s);
	for (;; k++) {
		const char **slot = &t->slot[k & (t->cap - 1)];
		if (!*slot) {
			char *p = store(t, s, strlen(s));
			if (!p)
				return NULL;
			*slot = p;
			t->n++;
			return p;
		}
		if (strcmp(*slot, s) == 0)
			return *slot;
	}
}

void mmp_strtab_free(struct mmp_strtab *t)
{
	if (!t)
		return;
	while (t->chunks) {
		struct chunk *c = t->chunks;
		t->chunks = c->next;
		free(c);
	}
	free(t->slot);
	free(t);
}
