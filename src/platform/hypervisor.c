/* The platform: bare metal or which hypervisor, and steal time (see
 * hypervisor.h). */
#include "platform/hypervisor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
static int native_cpuid(uint32_t leaf, uint32_t r[4])
{
	__cpuid(leaf, r[0], r[1], r[2], r[3]);
	return 0;
}
#define NATIVE_CPUID native_cpuid
#else
#define NATIVE_CPUID NULL /* no CPUID: the kernel's word, or unknown */
#endif

/* CPUID leaf 0x40000000's signatures (EBX, ECX, EDX as 12 characters). */
static const struct {
	const char *sig;
	const char *vendor;
} vendors[] = {
	{ "KVMKVMKVM", "KVM" },
	{ "Microsoft Hv", "Microsoft Hyper-V" },
	{ "VMwareVMware", "VMware" },
	{ "XenVMMXenVMM", "Xen" },
	{ "TCGTCGTCGTCG", "QEMU TCG" },
	{ "bhyve bhyve ", "bhyve" },
	{ " lrpepyh  vr", "Parallels" },
	{ "VBoxVBoxVBox", "VirtualBox" },
	{ "ACRNACRNACRN", "ACRN" },
	{ "QNXQVMBSQG", "QNX hypervisor" },
	{ "Jailhouse", "Jailhouse" },
	{ "EVMMEVMMEVMM", "Intel KGT" },
	{ "UnisysSpar64", "Unisys s-Par" },
};

/* The signature, trailing NULs and spaces of a short one kept as read. */
static void signature(const uint32_t r[4], char sig[16])
{
	memcpy(sig, &r[1], 4);
	memcpy(sig + 4, &r[2], 4);
	memcpy(sig + 8, &r[3], 4);
	sig[12] = '\0';
	for (int i = 0; i < 12; i++)
		if (sig[i] && (sig[i] < 0x20 || sig[i] > 0x7e))
			sig[i] = '?';
}

void mmp_platform_identify_with(mmp_cpuid_fn cpuid, const char *kernel_says,
				struct mmp_platform *out)
{
	uint32_t r[4];
	int hv_bit = -1; /* unknown without CPUID */

	memset(out, 0, sizeof(*out));
	out->virtual_machine = -1;
	if (cpuid && cpuid(1, r) == 0) {
		hv_bit = (r[2] >> 31) & 1;
		if (hv_bit && cpuid(0x40000000, r) == 0) {
			signature(r, out->cpuid);
			for (size_t i = 0; i < sizeof(vendors) / sizeof(vendors[0]); i++)
				if (strcmp(out->cpuid, vendors[i].sig) == 0)
					snprintf(out->vendor, sizeof(out->vendor), "%s", vendors[i].vendor);
		}
	}
	if (kernel_says)
		snprintf(out->kernel_says, sizeof(out->kernel_says), "%s", kernel_says);
	if (out->kernel_says[0]) {
		out->virtual_machine = 1;
		if (out->vendor[0] && strcmp(out->vendor, out->kernel_says) != 0)
			snprintf(out->name, sizeof(out->name), "%s (the kernel's word; CPUID says %s)",
				 out->kernel_says, out->vendor);
		else
			snprintf(out->name, sizeof(out->name), "%s", out->kernel_says);
	} else if (hv_bit == 1) {
		out->virtual_machine = 1;
		if (out->vendor[0])
			snprintf(out->name, sizeof(out->name), "%s", out->vendor);
		else if (out->cpuid[0])
			snprintf(out->name, sizeof(out->name), "a hypervisor (CPUID '%s')", out->cpuid);
		else
			snprintf(out->name, sizeof(out->name), "a hypervisor (unnamed in CPUID)");
	} else if (hv_bit == 0) {
		out->virtual_machine = 0;
		snprintf(out->name, sizeof(out->name), "bare metal");
	} else {
		snprintf(out->name, sizeof(out->name), "unknown (no CPUID here, and the kernel "
						       "log names no hypervisor)");
	}
}

/* "Hypervisor detected: PVM" in the kernel's ring buffer (x86 boots say
 * it); "" when the log cannot be read (dmesg_restrict without
 * CAP_SYSLOG) or has rotated past the boot. */
static void kernel_word(char *buf, size_t len)
{
	static const char key[] = "Hypervisor detected: ";
	buf[0] = '\0';
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	if (size <= 0)
		return;
	char *log = malloc((size_t)size + 1);
	if (!log)
		return;
	int got = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, size);
	if (got > 0) {
		log[got] = '\0';
		const char *p = strstr(log, key);
		if (p) {
			p += sizeof(key) - 1;
			size_t n = strcspn(p, "\r\n");
			snprintf(buf, len, "%.*s", (int)n, p);
		}
	}
	free(log);
}

void mmp_platform_identify(struct mmp_platform *out)
{
	char word[48];
	kernel_word(word, sizeof(word));
	mmp_platform_identify_with(NATIVE_CPUID, word, out);
}

static int listed(const int *pus, size_t n, int cpu)
{
	for (size_t i = 0; i < n; i++)
		if (pus[i] == cpu)
			return 1;
	return 0;
}

int64_t mmp_steal_ns(const int *pus, size_t n)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[512];
	long hz = sysconf(_SC_CLK_TCK);
	unsigned long long total = 0;
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		int cpu;
		unsigned long long v[8];
		if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9')
			continue;
		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9)
			continue;
		if (n && !listed(pus, n, cpu))
			continue;
		total += v[7];
		found = 1;
	}
	fclose(f);
	if (!found || hz <= 0)
		return -1;
	return (int64_t)(total * (1000000000ull / (unsigned long long)hz));
}
