/* Attribution, then answers, from computed results (see analysis.h). */
#include "analysis/analysis.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int mmp_analysis_init(struct mmp_analysis *an, const struct mmp_results *res)
{
	size_t n = res->plan->nruns;
	memset(an, 0, sizeof(*an));
	an->res = res;
	an->attr = calloc(n ? n : 1, sizeof(*an->attr));
	return an->attr ? 0 : -ENOMEM;
}

static void free_attributions(struct mmp_analysis *an)
{
	for (size_t i = 0; an->attr && i < an->res->plan->nruns; i++)
		mmp_attribution_free(&an->attr[i]);
}

int mmp_analysis_compute(struct mmp_analysis *an)
{
	const struct mmp_plan *plan = an->res->plan;

	free_attributions(an);
	for (size_t i = 0; i < plan->nruns; i++) {
		if (plan->runs[i].rung || !plan->runs[i].nrungs)
			continue;
		int rc = mmp_attribute(an->res, i, &an->attr[i]);
		if (rc == -ENOMEM)
			return rc;
	}
	mmp_answers_free(&an->answers);
	return mmp_answers_build(an->res, an->attr, &an->answers);
}

void mmp_analysis_free(struct mmp_analysis *an)
{
	if (an->res)
		free_attributions(an);
	free(an->attr);
	mmp_answers_free(&an->answers);
	memset(an, 0, sizeof(*an));
}
