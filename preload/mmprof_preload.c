/* libmmprof-preload.so: what the prefault and huge controls change in a
 * program mmprof cannot recompile (probe = exec, docs/exec.md).  mmprof
 * sets LD_PRELOAD to this library and
 *
 *   MMPROF_PRELOAD_MODE    "prefault", "touch", "huge", "bulk", or a list
 *                          of them (bulk: small reads served from a buffer
 *                          of the library's, preload/bulk_reads.c); or
 *                          "survey": nothing changed, what each of them
 *                          would reach counted (the job's warmup under
 *                          controls = auto, docs/exec.md)
 *   MMPROF_PRELOAD_REPORT  a file the library appends what it changed to
 *
 * prefault: every mmap() of the program that can be read (not PROT_NONE,
 * not MAP_NORESERVE, not a stack, anonymous ones up to 1 GiB: a runtime's
 * address-space reservations would cost their whole size) gets its pages
 * mapped in at the call (MAP_POPULATE), so the program's loop takes no
 * page faults on them.  touch: prefault, then one load from every page of
 * each readable mapping it populated, so that the first touch a
 * hypervisor charges below the kernel (~2 us a page on a
 * paravirtualised host, no fault counted) is paid at the call, not in
 * the program's loop.  huge: mappings of 4 MiB and more are advised
 * MADV_HUGEPAGE before their first touch.  Both: advised first, then
 * populated (MADV_POPULATE_READ/WRITE), since MAP_POPULATE would fill them
 * with small pages before the advice.
 *
 * The allocator (glibc): malloc, calloc, realloc, reallocarray,
 * posix_memalign, aligned_alloc, memalign, valloc and pvalloc are
 * interposed and served by glibc's own (__libc_malloc, ...), since glibc
 * maps a large block with its internal mmap, which the mmap() here never
 * sees.  A block of ALLOC_MIN or more gets, on its page-aligned interior
 * (the pages no other block shares), what a mapping gets: huge advice
 * from 4 MiB, MADV_POPULATE_WRITE (Linux 5.14+; refused elsewhere, and
 * said so), the touch; of a realloc'd block only the grown part, the
 * rest holding the program's data already.  free() is interposed only to
 * read an advised block's huge bytes before glibc unmaps it.
 *
 * It reports what really changed, measured, one line per event, each line
 * one write() on an O_APPEND descriptor (so processes the program starts
 * add their own lines without tearing):
 *
 *   load PID MODE           the library is in the process (none: it was
 *                           never loaded: a static or setuid binary)
 *   map PID LEN PRESENT ADVISED TOUCHED   a mapping changed: its length,
 *                           the bytes /proc/self/pagemap shows present after
 *                           the call, the bytes advised MADV_HUGEPAGE, the
 *                           bytes whose pages were read once (touch)
 *   alloc PID LEN PRESENT ADVISED TOUCHED REFUSED   a malloc'd block
 *                           changed: the length of its interior, as for
 *                           map, and the errno with which the kernel
 *                           refused to populate it (0: it did not)
 *   noalloc PID WHY         the allocator is not reached (WHY: "libc", a C
 *                           library other than glibc; "own", the program's
 *                           malloc is another allocator's)
 *   huge PID BYTES          huge-page bytes the kernel gave an advised
 *                           mapping (smaps AnonHugePages, FilePmdMapped,
 *                           ShmemPmdMapped), read before it is unmapped or at
 *                           the process's exit
 *   exit PID                exit handlers ran (without it, the huge bytes of
 *                           mappings still there were not read)
 *
 * and in survey mode, with nothing changed:
 *
 *   seenmap PID LEN POP ADV TOUCH     a mapping prefault would populate
 *                           (POP, its length, else 0), huge advise (ADV:
 *                           private anonymous ones only, the kind the kernel
 *                           backs with huge pages at their first touch) and
 *                           touch read (TOUCH)
 *   seenalloc PID LEN POP ADV TOUCH   the same of a malloc'd block
 *
 * It calls the kernel directly (syscall) rather than the libc it
 * interposes, allocates nothing and formats its own numbers: an allocator
 * that maps its arenas with mmap() calls in here. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "report_line.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif

#define ANON_MAX (1ull << 30)      /* anonymous mappings populated up to this */
#define HUGE_MIN (4ull << 20)      /* mappings advised from this size */
#define MAX_ADVISED 256            /* advised mappings whose huge bytes are read */

static int populate, touch, huge, survey, report_fd = -1;
static struct advised {
	uintptr_t start;
	size_t len;
} advised[MAX_ADVISED];
static atomic_flag advised_lock = ATOMIC_FLAG_INIT;

static void lock(void)
{
	while (atomic_flag_test_and_set_explicit(&advised_lock, memory_order_acquire))
		;
}

static void unlock(void)
{
	atomic_flag_clear_explicit(&advised_lock, memory_order_release);
}

static long raw_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
#if defined(SYS_mmap2) && UINTPTR_MAX == 0xffffffffu
	return syscall(SYS_mmap2, addr, len, prot, flags, fd, (long)(off / 4096));
#else
	return syscall(SYS_mmap, addr, len, prot, flags, fd, off);
#endif
}

static void emit(struct line *l)
{
	line_write(report_fd, l);
}

static uint64_t pid(void)
{
	return line_pid();
}

/* Bytes of [start, start+len) with a present (or swapped) page table
 * entry: what the populate really mapped in. */
static uint64_t present_bytes(uintptr_t start, size_t len)
{
	static const long page = 4096;
	uint64_t entries[512], present = 0;
	long psz = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : page;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	uint64_t first = start / (uint64_t)psz, count = (len + (uint64_t)psz - 1) / (uint64_t)psz;
	for (uint64_t i = 0; i < count;) {
		uint64_t want = count - i < 512 ? count - i : 512;
		ssize_t got = pread(fd, entries, want * 8, (off_t)((first + i) * 8));
		if (got <= 0)
			break;
		for (ssize_t k = 0; k < got / 8; k++)
			present += (entries[k] >> 62) != 0; /* bit 63 present, 62 swapped */
		i += (uint64_t)got / 8;
	}
	close(fd);
	return present * (uint64_t)psz;
}

static uint64_t parse_hex(const char **p)
{
	uint64_t v = 0;
	for (;; (*p)++) {
		char c = **p;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return v;
		v = v * 16 + (uint64_t)d;
	}
}

/* One line of /proc/self/smaps: a mapping's header sets whether the
 * following fields belong to [start, end); a huge-page field adds. */
static void smaps_line(const char *s, uintptr_t start, uintptr_t end, int *in, uint64_t *kb)
{
	static const char *const fields[] = { "AnonHugePages:", "FilePmdMapped:",
					      "ShmemPmdMapped:" };
	if ((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')) {
		const char *p = s;
		uint64_t a = parse_hex(&p);
		if (*p != '-')
			return;
		p++;
		uint64_t b = parse_hex(&p);
		*in = a < end && b > start;
		return;
	}
	if (!*in)
		return;
	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
		size_t n = strlen(fields[f]);
		if (strncmp(s, fields[f], n) == 0) {
			uint64_t v = 0;
			for (s += n; *s == ' '; s++)
				;
			for (; *s >= '0' && *s <= '9'; s++)
				v = v * 10 + (uint64_t)(*s - '0');
			*kb += v;
		}
	}
}

/* Huge-page bytes the kernel backs [start, start+len) with now. */
static uint64_t huge_bytes(uintptr_t start, size_t len)
{
	char buf[8192], line[512];
	size_t ln = 0;
	int in = 0;
	uint64_t kb = 0;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/smaps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	for (;;) {
		ssize_t got = read(fd, buf, sizeof(buf));
		if (got <= 0)
			break;
		for (ssize_t i = 0; i < got; i++) {
			if (buf[i] != '\n') {
				if (ln + 1 < sizeof(line))
					line[ln++] = buf[i];
				continue;
			}
			line[ln] = '\0';
			smaps_line(line, start, start + len, &in, &kb);
			ln = 0;
		}
	}
	close(fd);
	return kb * 1024;
}

static void report_huge(uintptr_t start, size_t len)
{
	struct line l = { .n = 0 };
	put_str(&l, "huge");
	put_u64(&l, pid());
	put_u64(&l, huge_bytes(start, len));
	emit(&l);
}

/* Advised mappings that [addr, addr+len) overlaps: their huge bytes read
 * now, before the kernel takes them back, and forgotten. */
static void unmapping(uintptr_t addr, size_t len)
{
	if (!huge)
		return;
	lock();
	for (int i = 0; i < MAX_ADVISED; i++) {
		struct advised *a = &advised[i];
		if (a->len && a->start < addr + len && a->start + a->len > addr) {
			report_huge(a->start, a->len);
			a->len = 0;
		}
	}
	unlock();
}

static void remember(uintptr_t start, size_t len)
{
	lock();
	for (int i = 0; i < MAX_ADVISED; i++)
		if (!advised[i].len) {
			advised[i].start = start;
			advised[i].len = len;
			break;
		}
	unlock();
}

/* Whether prefault would populate a mapping, huge advise it. */
static int populatable(size_t len, int prot, int flags, int fd)
{
	if (prot == PROT_NONE || (flags & (MAP_NORESERVE | MAP_GROWSDOWN | MAP_STACK)))
		return 0;
	return fd >= 0 && !(flags & MAP_ANONYMOUS) ? 1 : len <= ANON_MAX;
}

static int advisable(size_t len, int prot, int flags)
{
	return prot != PROT_NONE && len >= HUGE_MIN &&
	       !(flags & (MAP_NORESERVE | MAP_GROWSDOWN | MAP_STACK | MAP_HUGETLB));
}

static int wanted_populate(size_t len, int prot, int flags, int fd)
{
	return populate && populatable(len, prot, flags, fd);
}

static int wanted_huge(size_t len, int prot, int flags)
{
	return huge && advisable(len, prot, flags);
}

/* survey: what the modes would do to a mapping or block, said, nothing
 * done.  Huge counts private anonymous memory only: the kernel gives a
 * file's mapping (or shared memory's, by default) no huge page at its
 * first touch, so advising it would change nothing. */
static void seen(const char *what, size_t len, int pop, int adv, int readable)
{
	struct line l = { .n = 0 };
	if (!pop && !adv)
		return;
	put_str(&l, what);
	put_u64(&l, pid());
	put_u64(&l, len);
	put_u64(&l, pop ? len : 0);
	put_u64(&l, adv ? len : 0);
	put_u64(&l, pop && readable ? len : 0);
	emit(&l);
}

/* One load from every page of a populated mapping the program may read:
 * the bytes whose pages were read. */
static uint64_t touch_pages(uintptr_t start, size_t len, int prot)
{
	if (!touch || !(prot & PROT_READ))
		return 0;
	long psz = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
	const volatile unsigned char *p = (const volatile unsigned char *)start;
	unsigned char sum = 0;
	for (size_t off = 0; off < len; off += (size_t)psz)
		sum = (unsigned char)(sum + p[off]);
	(void)sum;
	return len;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int munmap(void *addr, size_t len);

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (survey) {
		long c = raw_mmap(addr, len, prot, flags, fd, off);
		if (c < 0 && c > -4096) {
			errno = (int)-c;
			return MAP_FAILED;
		}
		int anon = (flags & MAP_ANONYMOUS) && !(flags & MAP_SHARED);
		seen("seenmap", len, populatable(len, prot, flags, fd),
		     anon && advisable(len, prot, flags), (prot & PROT_READ) != 0);
		return (void *)c;
	}
	int pop = wanted_populate(len, prot, flags, fd), adv = wanted_huge(len, prot, flags);
	if ((flags & MAP_FIXED) && huge)
		unmapping((uintptr_t)addr, len); /* replaced: what was advised there goes */
	/* With advice to follow, populate after it: MAP_POPULATE now would fill
	 * the mapping with small pages first. */
	long r = raw_mmap(addr, len, prot, flags | (pop && !adv ? MAP_POPULATE : 0), fd, off);
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return MAP_FAILED;
	}
	if (!pop && !adv)
		return (void *)r;
	uint64_t advised_len = 0;
	if (adv && syscall(SYS_madvise, r, len, MADV_HUGEPAGE) == 0) {
		advised_len = len;
		remember((uintptr_t)r, len);
	}
	if (pop && adv)
		syscall(SYS_madvise, r, len,
			(prot & PROT_WRITE) && !(flags & MAP_SHARED) ? MADV_POPULATE_WRITE
								     : MADV_POPULATE_READ);
	struct line l = { .n = 0 };
	put_str(&l, "map");
	put_u64(&l, pid());
	put_u64(&l, len);
	put_u64(&l, pop ? present_bytes((uintptr_t)r, len) : 0);
	put_u64(&l, advised_len);
	/* After the populate: a touch of a page not present would fault. */
	put_u64(&l, pop ? touch_pages((uintptr_t)r, len, prot) : 0);
	emit(&l);
	return (void *)r;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

int munmap(void *addr, size_t len)
{
	unmapping((uintptr_t)addr, len);
	long r = syscall(SYS_munmap, addr, len);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return 0;
}

#ifdef __GLIBC__
#include <dlfcn.h>
#include <malloc.h>

/* glibc's allocator under its own names: dlsym(RTLD_NEXT, "malloc") would
 * do too, but dlsym allocates (calloc) and so calls back in here before
 * it has an answer. */
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t k, size_t n);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void *__libc_valloc(size_t n);
extern void *__libc_pvalloc(size_t n);
extern void __libc_free(void *p);

/* Blocks from 1 MiB: glibc maps a block with its own mmap from 128 KiB
 * (M_MMAP_THRESHOLD), raised up to 32 MiB as the program frees such
 * blocks, so the threshold says nothing fixed about where a block comes
 * from; a size does say what it can save.  The library spends ~37 us on
 * a block (measured on a paravirtualised guest, docs/exec.md: a madvise
 * walk, a pagemap read, a report line) even when glibc reuses it from its
 * heap with every page present and there is nothing to save, as it does
 * for a program that mallocs and frees a buffer in a loop (0.06-0.24 us
 * a block without the library).  The smaller the blocks reached, the more
 * such calls pay it; a 1 MiB block has 256 pages to fault, ~5 ms at the
 * ~20 us a fault measured there, so the first one reached pays for many
 * reuses. */
#define ALLOC_MIN (1ull << 20)

static int alloc_on; /* a mode asks for it and the allocator is reached */

/* The pages of [p, p+n) no other allocation shares: glibc keeps its chunk
 * header in the first page, and the page of the block's last byte may
 * hold the next chunk.  Advice and populating change no byte, but they
 * split the mapping there and report bytes that are not the block's. */
static int interior(const void *p, size_t n, uintptr_t *start, size_t *len)
{
	uintptr_t psz = (uintptr_t)(sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096);
	uintptr_t a = ((uintptr_t)p + psz - 1) & ~(psz - 1), b = ((uintptr_t)p + n) & ~(psz - 1);
	if (!p || b <= a)
		return 0;
	*start = a;
	*len = b - a;
	return 1;
}

/* What a new block (or the grown part of one) gets: advised before its
 * first touch, then populated for a write (the program is about to write
 * it: a read would map the shared zero page and fault again on the
 * write), then read once a page (touch).  One report line. */
static void reach(const void *p, size_t n)
{
	uintptr_t start;
	size_t len;
	if (!alloc_on || n < ALLOC_MIN || !interior(p, n, &start, &len))
		return;
	if (survey) {
		int err = errno;
		seen("seenalloc", len, 1, len >= HUGE_MIN, 1);
		errno = err;
		return;
	}
	int adv = huge && len >= HUGE_MIN;
	if (!populate && !adv)
		return; /* huge alone, under 4 MiB: nothing to change, nothing to say */
	int err = errno; /* the program sees the allocator's errno, not ours */
	uint64_t advised_len = 0, refused = 0;
	if (adv && syscall(SYS_madvise, start, len, MADV_HUGEPAGE) == 0) {
		advised_len = len;
		remember(start, len);
	}
	if (populate && syscall(SYS_madvise, start, len, MADV_POPULATE_WRITE) != 0)
		refused = (uint64_t)errno;
	struct line l = { .n = 0 };
	put_str(&l, "alloc");
	put_u64(&l, pid());
	put_u64(&l, len);
	put_u64(&l, populate ? present_bytes(start, len) : 0);
	put_u64(&l, advised_len);
	put_u64(&l, populate && !refused ? touch_pages(start, len, PROT_READ) : 0);
	put_u64(&l, refused);
	emit(&l);
	errno = err;
}

/* An advised block about to be freed or moved: its huge bytes read now,
 * before glibc unmaps it with its internal munmap. */
static void leaving(void *p)
{
	uintptr_t start;
	size_t len, n;
	if (!p || !alloc_on || !huge || (n = malloc_usable_size(p)) < HUGE_MIN ||
	    !interior(p, n, &start, &len))
		return;
	int err = errno;
	unmapping(start, len);
	errno = err;
}

void *malloc(size_t n)
{
	void *p = __libc_malloc(n);
	reach(p, n);
	return p;
}

void *calloc(size_t k, size_t n)
{
	void *p = __libc_calloc(k, n);
	reach(p, k * n); /* a product that overflows was refused above */
	return p;
}

void *realloc(void *old, size_t n)
{
	size_t had = old ? malloc_usable_size(old) : 0;
	leaving(old);
	void *p = __libc_realloc(old, n);
	/* Only the grown part is new: the rest is the program's data, moved
	 * with its pages (mremap) or copied, and present already. */
	if (p && n > had)
		reach((char *)p + had, n - had);
	return p;
}

void *reallocarray(void *old, size_t k, size_t n)
{
	if (n && k > SIZE_MAX / n) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(old, k * n);
}

void free(void *p)
{
	leaving(p);
	__libc_free(p);
}

void *memalign(size_t align, size_t n)
{
	void *p = __libc_memalign(align, n);
	reach(p, n);
	return p;
}

/* glibc before 2.38 takes any alignment here (an alias of memalign);
 * this is that glibc's behaviour, not C17's. */
void *aligned_alloc(size_t align, size_t n)
{
	return memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	if (align % sizeof(void *) || (align & (align - 1)) || !align)
		return EINVAL;
	int err = errno;
	void *p = memalign(align, n);
	if (!p && n) {
		errno = err;
		return ENOMEM;
	}
	*out = p;
	return 0;
}

void *valloc(size_t n)
{
	void *p = __libc_valloc(n);
	reach(p, n);
	return p;
}

void *pvalloc(size_t n)
{
	void *p = __libc_pvalloc(n);
	reach(p, n);
	return p;
}

/* Whether the program's malloc is this one: an executable (or a library
 * preloaded before this one) that defines its own allocator is found
 * first, and the blocks it hands out are not glibc's. */
static const char *alloc_unreached(void)
{
	/* Compared by the object that defines it: malloc's address taken here
	 * goes through the GOT, to whichever malloc the program has. */
	Dl_info mine, found;
	void *first = dlsym(RTLD_DEFAULT, "malloc");
	if (!first || !dladdr((void *)interior, &mine) || !dladdr(first, &found))
		return "own";
	return mine.dli_fbase == found.dli_fbase ? NULL : "own";
}
#else
static int alloc_on;

static const char *alloc_unreached(void)
{
	return "libc"; /* another C library's allocator: not interposed */
}
#endif

__attribute__((constructor)) static void preload_start(void)
{
	const char *mode = getenv("MMPROF_PRELOAD_MODE");
	const char *path = getenv("MMPROF_PRELOAD_REPORT");
	if (!mode || !path)
		return;
	touch = strstr(mode, "touch") != NULL;
	populate = touch || strstr(mode, "prefault") != NULL;
	huge = strstr(mode, "huge") != NULL;
	survey = strstr(mode, "survey") != NULL;
	if (survey)
		populate = touch = huge = 0; /* it counts, it changes nothing */
	report_fd = (int)syscall(SYS_openat, AT_FDCWD, path,
				 O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	struct line l = { .n = 0 };
	put_str(&l, "load");
	put_u64(&l, pid());
	put_str(&l, " ");
	put_str(&l, mode);
	emit(&l);
	const char *why = populate || huge || survey ? alloc_unreached() : NULL;
	if (why) {
		struct line n = { .n = 0 };
		put_str(&n, "noalloc");
		put_u64(&n, pid());
		put_str(&n, " ");
		put_str(&n, why);
		emit(&n);
	}
	alloc_on = (populate || huge || survey) && !why;
}

__attribute__((destructor)) static void preload_end(void)
{
	struct line l = { .n = 0 };
	unmapping(0, UINTPTR_MAX); /* every advised mapping still there */
	put_str(&l, "exit");
	put_u64(&l, pid());
	emit(&l);
}
