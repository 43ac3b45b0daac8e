/* Huge pages for anonymous memory: a 2 MiB page needs one TLB entry where
 * 4 KiB pages need 512, so a probe over a large buffer measures page
 * walks or not depending on what the kernel gave. Ask, then look. */
#include "platform/memory.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define THP_DIR "/sys/kernel/mm/transparent_hugepage/"

enum mmp_thp_mode mmp_memory_thp_mode(void)
{
	static const char *const names[] = { "[always]", "[madvise]", "[never]" };
	char line[256];
	FILE *f = fopen(THP_DIR "enabled", "r");
	enum mmp_thp_mode mode = MMP_THP_UNAVAILABLE;

	if (!f)
		return mode;
	if (fgets(line, sizeof(line), f))
		for (int i = 0; i < 3; i++)
			if (strstr(line, names[i]))
				mode = (enum mmp_thp_mode)i;
	fclose(f);
	return mode;
}

const char *mmp_thp_mode_name(enum mmp_thp_mode mode)
{
	static const char *const names[] = { "always", "madvise", "never", "unavailable" };
	return (unsigned)mode < 4 ? names[mode] : "?";
}

/* One number from a sysfs or procfs file, or from the line starting with
 * key in it (/proc/meminfo); 0 when absent. */
static uint64_t read_number(const char *path, const char *key)
{
	char line[256];
	unsigned long long v = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!key || strncmp(line, key, strlen(key)) == 0) {
			sscanf(line + (key ? strlen(key) : 0), "%llu", &v);
			break;
		}
	fclose(f);
	return v;
}

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

/* Reserved huge pages (vm.nr_hugepages) are guaranteed huge but few;
 * transparent ones need a huge-aligned range and free contiguous memory. */
static int try_hugetlb(size_t len, struct mmp_huge_region *out)
{
	uint64_t size = read_number("/proc/meminfo", "Hugepagesize:") * 1024;
	uint64_t free_pages = read_number("/proc/meminfo", "HugePages_Free:");
	if (!size || free_pages * size < round_up(len, size))
		return -ENOMEM;
	void *p = mmap(NULL, round_up(len, size), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	*out = (struct mmp_huge_region){ p, round_up(len, size), true, size };
	return 0;
}

int mmp_memory_alloc_huge(size_t len, struct mmp_huge_region *out, struct mmp_error *err)
{
	size_t huge = read_number(THP_DIR "hpage_pmd_size", NULL);

	memset(out, 0, sizeof(*out));
	if (len == 0)
		return mmp_error_set(err, -EINVAL, "huge page allocation of 0 bytes");
	if (try_hugetlb(len, out) == 0)
		return 0;
	if (!huge)
		huge = 2u << 20; /* x86-64 PMD size, for kernels without the file */
	size_t want = round_up(len, huge);
	char *map = mmap(NULL, want + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (map == MAP_FAILED)
		return mmp_error_errno(err, -errno, "mmap(%zu bytes, PRIVATE|ANONYMOUS)", want + huge);
	/* Only whole, aligned 2 MiB blocks can be huge: trim to one. */
	char *start = (char *)round_up((size_t)(uintptr_t)map, huge);
	if (start > map)
		munmap(map, (size_t)(start - map));
	if (map + want + huge > start + want)
		munmap(start + want, (size_t)(map + want + huge - (start + want)));
	if (madvise(start, want, MADV_HUGEPAGE) != 0) {
		int rc = mmp_error_errno(err, -errno, "madvise(%p, %zu bytes, MADV_HUGEPAGE)",
					 (void *)start, want);
		munmap(start, want);
		return rc;
	}
	*out = (struct mmp_huge_region){ start, want, false, huge };
	return 0;
}

void mmp_memory_free_huge(struct mmp_huge_region *r)
{
	if (r->addr)
		munmap(r->addr, r->len);
	memset(r, 0, sizeof(*r));
}

int mmp_memory_advise_huge(void *addr, size_t len, struct mmp_error *err)
{
	if (madvise(addr, len, MADV_HUGEPAGE) != 0)
		return mmp_error_errno(err, -errno, "madvise(%p, %zu bytes, MADV_HUGEPAGE)", addr,
				       len);
	return 0;
}

struct vma {
	uintptr_t start, end;
	uint64_t huge; /* bytes: AnonHugePages + Private_Hugetlb + Shared_Hugetlb */
};

/* Add one finished mapping's huge bytes that can lie in [lo, hi). */
static void account(const struct vma *v, uintptr_t lo, uintptr_t hi,
		    struct mmp_huge_report *out)
{
	uintptr_t a = v->start > lo ? v->start : lo, b = v->end < hi ? v->end : hi;
	if (a >= b)
		return;
	if (v->start < lo || v->end > hi)
		out->approximate = true;
	out->huge_bytes += v->huge < b - a ? v->huge : b - a;
}

int mmp_memory_huge_report(const void *addr, size_t len, struct mmp_huge_report *out,
			   struct mmp_error *err)
{
	static const char *const fields[] = { "AnonHugePages:", "Private_Hugetlb:",
					      "Shared_Hugetlb:" };
	uintptr_t lo = (uintptr_t)addr, hi = lo + len;
	struct vma v = { 0, 0, 0 };
	char line[4096]; /* a mapping's line ends with its path */
	unsigned long start, end;

	memset(out, 0, sizeof(*out));
	out->range_bytes = len;
	out->thp = mmp_memory_thp_mode();
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return mmp_error_errno(err, -errno, "fopen(/proc/self/smaps)");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2) {
			account(&v, lo, hi, out);
			v = (struct vma){ start, end, 0 };
			continue;
		}
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
			unsigned long long kb;
			size_t n = strlen(fields[i]);
			if (strncmp(line, fields[i], n) == 0 && sscanf(line + n, "%llu", &kb) == 1)
				v.huge += kb * 1024;
		}
	}
	account(&v, lo, hi, out);
	fclose(f);
	if (out->huge_bytes > len)
		out->huge_bytes = len;
	return 0;
}
