/* What identifies one invocation in its CSV rows, so CSVs from several
 * machines and runs can be concatenated and still told apart. */
#ifndef MMPROF_META_H
#define MMPROF_META_H

#include <stddef.h>

#include "platform/firsttouch.h"
#include "platform/hypervisor.h"

#define MMPROF_VERSION "0.1.0"

struct mmp_meta {
	char run_id[40];         /* random, 16 hex digits */
	char host[256];
	char cpu_model[256];
	char kernel_release[128];
	char started_at[40];     /* ISO 8601 UTC */
	struct mmp_platform platform; /* bare metal, or which hypervisor */
	/* This machine's first-touch cost and scan speed, measured before the
	 * first round (session.c); calibration.done 0: not measured */
	struct mmp_calibration calibration;
};

void mmp_meta_collect(struct mmp_meta *m);

/* The host name up to its first dot: the host column's name without its
 * domain where gethostname() gives one ("node7" of "node7.cluster"), as
 * --csv results/{host}.csv writes it. */
void mmp_meta_short_host(char *buf, size_t len);

#endif
