/* The preload library's mmprof side (preload/mmprof_preload.c has the
 * library): finding it, the environment a program runs with it in, reading
 * back what it changed, and saying why it could not load.
 *
 * The prefault, touch, huge and bulk controls (controls.h) change a
 * program mmprof cannot recompile through LD_PRELOAD: MAP_POPULATE on its
 * mappings (and with touch, a load from each of their pages),
 * MADV_HUGEPAGE on its large ones; the same on the blocks of 1 MiB and
 * more its allocator (glibc's malloc) hands out; its small read()s of
 * regular files served from a buffer of the library's.  The library appends what it really
 * changed to a report file per process started; mmprof sums it per
 * repetition.  A rung whose library changed nothing (never loaded: a
 * static or setuid binary; or no mapping it could change, no small read
 * it could serve) is said so and left out of the attribution.
 */
#ifndef MMPROF_PRELOAD_H
#define MMPROF_PRELOAD_H

#include <stddef.h>
#include <stdint.h>

/* Why the library stepped aside for a descriptor it served or would
 * have (bulk): the words of its report (preload/bulk_reads.c), in this
 * order, and "other" for a word this mmprof does not know. */
enum {
	MMP_ASIDE_DUP, MMP_ASIDE_FORK, MMP_ASIDE_SPAWN, MMP_ASIDE_EXEC, MMP_ASIDE_WRITE,
	MMP_ASIDE_READV, MMP_ASIDE_SENDFILE, MMP_ASIDE_FDOPEN, MMP_ASIDE_ODIRECT,
	MMP_ASIDE_FULL, MMP_ASIDE_OTHER, MMP_ASIDE_N
};
extern const char *const mmp_preload_aside_names[MMP_ASIDE_N];

/* What one repetition's processes reported. */
struct mmp_preload_report {
	unsigned loaded;     /* processes the library was loaded in */
	unsigned exited;     /* of them, those whose exit handlers ran */
	uint64_t mappings;   /* mappings changed */
	uint64_t present;    /* bytes present right after populating (prefault) */
	uint64_t advised;    /* bytes advised MADV_HUGEPAGE (huge) */
	uint64_t touched;    /* bytes whose pages were read once after populating (touch) */
	uint64_t huge;       /* huge-page bytes the kernel gave advised mappings */
	/* Of the above, malloc'd blocks (their page-aligned interiors): */
	uint64_t blocks;        /* blocks changed */
	uint64_t block_present; /* of present, bytes in blocks */
	uint64_t block_advised; /* of advised, bytes in blocks */
	uint64_t refused;       /* blocks the kernel refused to populate */
	int refused_errno;      /* the errno it gave (MADV_POPULATE_WRITE: Linux 5.14+) */
	unsigned noalloc;       /* processes whose allocator the library did not reach */
	char noalloc_why[8];    /* "libc": not glibc; "own": the program brings its own */
	/* bulk: the program's read()/pread() calls the library answered, of
	 * them those answered from its buffer alone, the system calls it
	 * made for them (read, pread, lseek), and the descriptors it
	 * stepped aside for, by why */
	uint64_t calls, served, syscalls;
	uint64_t aside[MMP_ASIDE_N];
	/* Survey mode ("survey": the job's warmup under controls = auto):
	 * what each rung would reach, nothing changed -- the mappings and
	 * malloc'd blocks seen, the bytes prefault would populate, huge
	 * advise (private anonymous memory: what the kernel backs with huge
	 * pages at the first touch) and touch read, and the small reads bulk
	 * would serve. */
	struct mmp_preload_seen {
		uint64_t mappings, blocks;
		uint64_t populate, advise, touch;
		uint64_t reads;
	} seen;
};

/* "fork 1, dup 2": the descriptors stepped aside, by why ("" when none). */
void mmp_preload_asides(const struct mmp_preload_report *r, char *buf, size_t len);

/* The library: $MMPROF_PRELOAD when set, else ../lib/mmprof/ from the
 * executable (an install, staged or not), else the build tree's, else
 * the installed place compiled in.  0, or -ENOENT with every place looked
 * in, in buf. */
int mmp_preload_find(char *buf, size_t len);

/* The environment to exec with: base's (NULL: this process's; a job's
 * own is child_env.h's), LD_PRELOAD with lib first (an existing
 * LD_PRELOAD kept after it), MMPROF_PRELOAD_MODE and
 * MMPROF_PRELOAD_REPORT.  A NULL-terminated array of malloc'd strings
 * (mmp_preload_env_free), or NULL when out of memory. */
char **mmp_preload_env(char *const *base, const char *lib, const char *mode, const char *report);
void mmp_preload_env_free(char **env);

/* Sum a report file; a missing file is a report of nothing loaded.  0, or
 * a negative errno. */
int mmp_preload_read(const char *path, struct mmp_preload_report *r);

/* Why an executable cannot take a preload library: "a static binary (no
 * ELF interpreter)", "setuid root: the loader ignores LD_PRELOAD", "not
 * an ELF file (a script? its interpreter is what loads)"; NULL when
 * nothing in the file says it cannot. */
const char *mmp_preload_why_not(const char *exe, char *buf, size_t len);

#endif
