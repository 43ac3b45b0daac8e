/* Interned strings: each distinct string stored once, its pointer stable
 * until the table is freed, so names can be compared by pointer and kept
 * in many rows without copies (the profile's function, file and module
 * names). */
#ifndef MMPROF_STRTAB_H
#define MMPROF_STRTAB_H

struct mmp_strtab;

int mmp_strtab_new(struct mmp_strtab **out);
/* The table's copy of s (the same pointer for equal strings); NULL when
 * out of memory. */
const char *mmp_strtab_add(struct mmp_strtab *t, const char *s);
void mmp_strtab_free(struct mmp_strtab *t);

#endif
