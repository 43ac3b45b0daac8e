/* --dry-run: the report of a plan, every set and every run with its
 * rungs, PUs and data (src/report/plan_report.c). */
#ifndef MMPROF_PLAN_REPORT_H
#define MMPROF_PLAN_REPORT_H

#include <stdio.h>

#include "config/config.h"
#include "plan/plan.h"

void mmp_report_plan(const struct mmp_plan *plan, const struct mmp_config *cfg, FILE *out);

#endif
