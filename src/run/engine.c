/* The engines, one row per kind of run (see engine.h). */
#include "run/engine.h"

static const struct mmp_engine *const engines[MMP_RUN_KINDS] = {
	[MMP_RUN_KIND_THREADS] = &mmp_threads_engine,
	[MMP_RUN_KIND_PROCESS] = &mmp_process_engine,
};

const struct mmp_engine *mmp_engine_of(enum mmp_run_kind kind)
{
	return engines[kind];
}
