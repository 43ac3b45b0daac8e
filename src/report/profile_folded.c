/* NAME.profile.folded: every profiled run's cpu samples as folded stacks
 * (see companions.h), the format FlameGraph's flamegraph.pl and
 * difffolded.pl, inferno and speedscope read. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report/companions.h"

/* A frame's name, longest kept: a JIT's signature can run long, and a
 * frame cut short would split one function into two. */
#define FRAME_MAX 1024

/* The run's root frame: "run N [job] probe threads=T +control", N as
 * NAME.csv's run column, so one run's stacks are one grep away. */
static void root_frame(const struct mmp_results *res, const struct mmp_run_result *r, char *buf,
		       size_t len)
{
	char label[512];
	mmp_result_label(res, r, label, sizeof(label));
	snprintf(buf, len, "run %zu %s", r->run->index + 1, label);
	for (char *c = buf; *c; c++)
		if (*c == ';')
			*c = ':';
}

/* One line per stack: root first, so its frames go out outermost first. */
static void write_run(FILE *f, const struct mmp_results *res, const struct mmp_run_result *r)
{
	const struct mmp_profile *p = r->profile;
	char root[640], name[FRAME_MAX];
	root_frame(res, r, root, sizeof(root));
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct mmp_prof_stack *st = &p->stack[i];
		fputs(root, f);
		for (size_t k = st->n; k-- > 0;)
			fprintf(f, ";%s", mmp_prof_frame_name(&p->frame[st->first + k], name,
							     sizeof(name)));
		fprintf(f, " %.0f\n", st->total);
	}
}

int mmp_profile_folded(struct mmp_outset *set, const struct mmp_results *res, int *wrote,
		       struct mmp_error *err)
{
	struct mmp_outfile out;
	int any = 0;
	*wrote = 0;
	for (size_t i = 0; i < res->plan->nruns && !any; i++)
		any = res->run[i].profile && res->run[i].profile->nstacks &&
		      mmp_result_has_data(&res->run[i]);
	if (!any || !mmp_outset_has_companions(set))
		return 0;
	if (mmp_outfile_open(set, MMP_OUT_FOLDED, &out, err))
		return err->code;
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_run_result *r = &res->run[i];
		if (r->profile && mmp_profile_rounds(r->profile) && mmp_result_has_data(r))
			write_run(out.f, res, r);
	}
	*wrote = 1;
	return mmp_outfile_commit(&out, err);
}
