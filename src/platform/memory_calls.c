/* Whether this process may bind memory and read where its pages are.
 *
 * Docker's default seccomp profile refuses mbind, set_mempolicy,
 * get_mempolicy and move_pages to a container without CAP_SYS_NICE
 * (EPERM), Kubernetes pods usually inherit it, and qemu's user-mode
 * emulator answers ENOSYS, as does a kernel built without NUMA.  Asked
 * once, when this system's topology is loaded, with calls that change
 * nothing: MPOL_DEFAULT on a scratch page of our own, and move_pages with
 * no target nodes (a query). */
#include "platform/memory.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/mempolicy.h>

#include "topology_internal.h"

void mmp_memory_calls_ask(int *bind_errno, int *locate_errno)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	int status = 0;

	*bind_errno = *locate_errno = 0;
	if (p == MAP_FAILED)
		return; /* cannot tell: the calls themselves will say */
	*(volatile char *)p = 0; /* present, so the query has a page to answer for */
	if (syscall(SYS_mbind, p, (unsigned long)page, MPOL_DEFAULT, NULL, 0UL, 0U) != 0)
		*bind_errno = errno;
	if (syscall(SYS_move_pages, 0, 1UL, &p, NULL, &status, 0) != 0)
		*locate_errno = errno;
	munmap(p, (size_t)page);
}

void mmp_memory_calls_probe(struct mmp_topology *t)
{
	mmp_memory_calls_ask(&t->bind_errno, &t->locate_errno);
}

void mmp_memory_calls_print(int bind_errno, int locate_errno, FILE *out)
{
	char why[600];
	if (bind_errno)
		fprintf(out, "memory binding: refused, %s; membind other than firsttouch "
			"needs bind = best-effort here\n",
			mmp_memory_refusal_text(bind_errno, "mbind", why, sizeof(why)));
	else
		fprintf(out, "memory binding: allowed (mbind)\n");
	if (locate_errno)
		fprintf(out, "page locations: refused, %s; the page census says unknown\n",
			mmp_memory_refusal_text(locate_errno, "move_pages", why, sizeof(why)));
	else
		fprintf(out, "page locations: readable (move_pages)\n");
}

int mmp_memory_bind_refused(const struct mmp_topology *t)
{
	return t->described ? 0 : t->bind_errno;
}

int mmp_memory_locate_refused(const struct mmp_topology *t)
{
	return t->described ? 0 : t->locate_errno;
}

const char *mmp_memory_refusal_text(int e, const char *call, char *buf, size_t len)
{
	if (e == ENOSYS)
		snprintf(buf, len,
			 "%s: %s (an emulator such as qemu-user, or a kernel without NUMA)", call,
			 strerror(e));
	else
		snprintf(buf, len,
			 "%s: %s (a container's seccomp profile refuses the NUMA calls: run it "
			 "with CAP_SYS_NICE, e.g. docker run --cap-add SYS_NICE, or a profile "
			 "that allows mbind, set_mempolicy, get_mempolicy and move_pages)",
			 call, strerror(e));
	return buf;
}
