/* Which platform mmprof runs on: bare metal or which hypervisor, and the
 * time a hypervisor took away from this guest's CPUs (steal).
 *
 * Costs below the guest kernel (shadow or nested page tables, a host's
 * other guests) show in no counter of the guest: naming the platform is
 * how a reader knows to expect them.  x86 names its hypervisor in CPUID
 * leaf 0x40000000 when leaf 1 sets the hypervisor bit; the kernel may
 * know better (a paravirtualised guest whose CPUID still says another
 * name): its "Hypervisor detected: X" boot line is read too when the
 * kernel log can be.  Elsewhere (arm64) only the kernel log or the
 * device tree can tell, and "unknown" is said when neither does.
 */
#ifndef MMPROF_HYPERVISOR_H
#define MMPROF_HYPERVISOR_H

#include <stddef.h>
#include <stdint.h>

/* One CPUID query: leaf in, the four registers out; 0, or -1 where the
 * instruction does not exist.  Tests pass their own. */
typedef int (*mmp_cpuid_fn)(uint32_t leaf, uint32_t regs[4]);

struct mmp_platform {
	int virtual_machine;  /* 1 a guest, 0 bare metal, -1 unknown */
	char cpuid[16];       /* the CPUID signature as read ("KVMKVMKVM"); "" none */
	char vendor[48];      /* "KVM", "Microsoft Hyper-V", "bhyve"; "" none */
	char kernel_says[48]; /* the kernel log's "Hypervisor detected: X"; "" unread */
	char name[128];       /* for a person: "PVM (kernel; CPUID says bhyve)",
				 "KVM", "bare metal", "unknown" */
};

/* From cpuid (NULL: none) and the kernel's word (NULL or "": not read). */
void mmp_platform_identify_with(mmp_cpuid_fn cpuid, const char *kernel_says,
				struct mmp_platform *out);
/* This machine: its CPUID where it has one, its kernel log when readable. */
void mmp_platform_identify(struct mmp_platform *out);

/* Steal time of the CPUs in pus (OS indexes; n 0: every CPU) from
 * /proc/stat, in ns (USER_HZ ticks); -1 when it cannot be read. */
int64_t mmp_steal_ns(const int *pus, size_t n);

#endif
