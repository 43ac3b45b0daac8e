/* numa_refused PROGRAM [ARG...]: runs PROGRAM with mbind, set_mempolicy,
 * get_mempolicy and move_pages refused with EPERM, as Docker's default
 * seccomp profile refuses them to a container without CAP_SYS_NICE
 * (tests/integration/numa_refused.sh).  Every other call is allowed; the
 * filter is inherited by every thread and child and survives execve. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#endif

#define REFUSE(nr)                                                   \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),             \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)

int main(int argc, char **argv)
{
	struct sock_filter filter[] = {
#ifdef ARCH
		/* Another ABI's numbers mean other calls: refuse nothing
		 * there rather than the wrong calls. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
#endif
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		REFUSE(SYS_mbind),
		REFUSE(SYS_set_mempolicy),
		REFUSE(SYS_get_mempolicy),
		REFUSE(SYS_move_pages),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(filter) / sizeof(filter[0]), .filter = filter };

	if (argc < 2) {
		fprintf(stderr, "usage: numa_refused PROGRAM [ARG...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		fprintf(stderr, "numa_refused: installing the seccomp filter: %s\n", strerror(errno));
		return 126;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "numa_refused: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
