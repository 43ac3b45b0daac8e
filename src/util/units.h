/* Byte sizes and small number formats shared by config, reports and tests. */
#ifndef MMPROF_UNITS_H
#define MMPROF_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Parse "512", "4K", "4KiB", "4KB", "100M", "1G", "2T" (suffixes are
 * binary and case-insensitive, as in fio).  Returns 0, -EINVAL for text that
 * is not a size, -ERANGE when the value does not fit in 64 bits. */
int mmp_parse_size(const char *text, uint64_t *out);

/* Parse a plain unsigned decimal integer (no sign, no suffix). */
int mmp_parse_u64(const char *text, uint64_t *out);

/* "100MiB" for exact binary multiples, "1000B" otherwise. */
const char *mmp_format_size(uint64_t bytes, char *buf, size_t len);
/* A time as a person reads it: "640 ns", "1.9 us", "12.3 ms", "4.1 s"
 * (three significant digits at most). */
const char *mmp_format_ns(double ns, char *buf, size_t len);

/* Monotonic time in nanoseconds. */
uint64_t mmp_now_ns(void);

#endif
