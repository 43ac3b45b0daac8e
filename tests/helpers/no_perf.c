/* no_perf [-e ENOSYS] CMD ARGS...: runs CMD with perf_event_open refused
 * by a seccomp filter.  By default with EACCES, as the kernel refuses it
 * to a user below perf_event_paranoid (the sessions here run as root and
 * the sysctl is the machine's): tests/integration/profile.sh.  With
 * -e ENOSYS, as qemu-user and a kernel without perf events answer:
 * tests/integration/counters.sh. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int error = EACCES, arg = 1;
	if (argc > 2 && strcmp(argv[1], "-e") == 0) {
		if (strcmp(argv[2], "ENOSYS") == 0)
			error = ENOSYS;
		else if (strcmp(argv[2], "EACCES") != 0) {
			fprintf(stderr, "no_perf: -e takes EACCES or ENOSYS, not %s\n", argv[2]);
			return 2;
		}
		arg = 3;
	}
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)error & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	if (argc <= arg) {
		fprintf(stderr, "usage: no_perf [-e EACCES|ENOSYS] CMD ARGS...\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("no_perf: seccomp");
		return 2;
	}
	execvp(argv[arg], argv + arg);
	perror("no_perf: exec");
	return 127;
}
