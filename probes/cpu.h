/* What differs between CPU architectures, and only that: the probes' one
 * place for platform conditionals (STYLE.md, "What to avoid").
 *
 * - mmp_cpu_relax(): the spin-wait hint (x86 PAUSE, arm64 YIELD).
 * - MMP_CPU_BASE_BYTES: the vector width every CPU of the architecture
 *   runs well: 16 bytes, SSE2 on x86-64 and Advanced SIMD (NEON) on arm64,
 *   both part of the base architecture (elsewhere generic vectors, which
 *   the compiler scalarises if it must).  Written wider, gcc 12 lowers a
 *   generic vector compare to byte-at-a-time scalar code on both.
 * - MMP_CPU_WIDE, MMP_CPU_WIDE_BYTES and mmp_cpu_has_wide(): a wider unit
 *   that not every CPU of the architecture has, used where the CPU running
 *   the code has it (x86-64: AVX2, 32 bytes).  Where there is none the
 *   attribute is empty and the check a constant 0, so the wide copy of a
 *   loop folds away.
 */
#ifndef MMPROF_PROBES_CPU_H
#define MMPROF_PROBES_CPU_H

#if defined(__x86_64__) || defined(__i386__)
#define MMP_CPU_BASE_BYTES 16
#define MMP_CPU_WIDE_BYTES 32
#define MMP_CPU_WIDE __attribute__((target("avx2")))
#define mmp_cpu_has_wide() __builtin_cpu_supports("avx2")
static inline void mmp_cpu_relax(void)
{
	__builtin_ia32_pause();
}
#elif defined(__aarch64__)
#define MMP_CPU_BASE_BYTES 16
#define MMP_CPU_WIDE_BYTES 16
#define MMP_CPU_WIDE
#define mmp_cpu_has_wide() 0
static inline void mmp_cpu_relax(void)
{
	__asm__ __volatile__("yield");
}
#else
#define MMP_CPU_BASE_BYTES 16
#define MMP_CPU_WIDE_BYTES 16
#define MMP_CPU_WIDE
#define mmp_cpu_has_wide() 0
static inline void mmp_cpu_relax(void)
{
}
#endif

#endif
