/* Growable arrays (see vec.h). */
#include "util/vec.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t mmp_vec_grown(size_t cap, size_t need)
{
	size_t c = cap ? cap : 8;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return SIZE_MAX;
		c *= 2;
	}
	return c;
}

int mmp_vec_resize(void *arrayp, size_t cap, size_t elem)
{
	void *old, *grown;
	if (elem && cap > SIZE_MAX / elem)
		return -ENOMEM;
	size_t bytes = cap * elem;
	/* The array's pointer is read and written as bytes: arrayp points at
	 * a double * or a struct row *, not at a void *, and every pointer
	 * to an object has void *'s representation on the targets built
	 * here (POSIX asks it of dlsym's callers). */
	memcpy(&old, arrayp, sizeof(old));
	grown = realloc(old, bytes ? bytes : 1); /* realloc(p, 0) may free p */
	if (!grown)
		return -ENOMEM;
	memcpy(arrayp, &grown, sizeof(grown));
	return 0;
}

int mmp_vec_reserve(void *arrayp, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t c = mmp_vec_grown(*cap, need);
	int rc = mmp_vec_resize(arrayp, c, elem);
	if (!rc)
		*cap = c;
	return rc;
}
