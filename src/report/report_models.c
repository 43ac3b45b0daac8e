/* Model against real: each `model` answer (answers.h) as one line, the
 * real programs' ratio beside their C models' ratio, both with intervals
 * over the same rounds, so a model is held against the runtime it models. */
#include <inttypes.h>
#include <string.h>

#include "report/report.h"

static const char *reads(const struct mmp_run_result *r, char *buf, size_t len)
{
	if (!r->access)
		snprintf(buf, len, "-");
	else if (r->access % 1024 == 0)
		snprintf(buf, len, "%" PRIu64 " KiB", r->access / 1024);
	else
		snprintf(buf, len, "%" PRIu64 " B", r->access);
	return buf;
}

void mmp_report_models(FILE *out, const struct mmp_analysis *an)
{
	const struct mmp_answers *ans = &an->answers;
	char pair[160], acc[32], thr[32], real[96], model[96], ratio[96], more[320];
	size_t width = 0;
	int header = 0;

	for (size_t i = 0; i < ans->n; i++) {
		const struct mmp_answer *a = &ans->a[i];
		if (a->kind != MMP_Q_MODEL)
			continue;
		size_t w = strlen(a->a->run->job->name) + 1 + strlen(a->b->run->job->name);
		width = w > width ? w : width;
	}
	for (size_t i = 0; i < ans->n; i++) {
		const struct mmp_answer *a = &ans->a[i];
		if (a->kind != MMP_Q_MODEL)
			continue;
		if (!header) {
			fprintf(out, "\nmodel against real (time ratios, geometric means of the rounds "
				     "all four ran in, 95%% intervals; the model agrees when its "
				     "ratio is within %g%% of the real one):\n",
				a->tolerance * 100);
			header = 1;
		}
		snprintf(pair, sizeof(pair), "%s/%s", a->a->run->job->name, a->b->run->job->name);
		snprintf(thr, sizeof(thr), "%u t%s", a->a->run->p.threads,
			 a->a->planned->pins.oversubscribed ? "!" : "");
		fprintf(out, "  %-*s %6s %4s: real %s, model %s (%s/%s); model/real %s %s",
			(int)width, pair, reads(a->a, acc, sizeof(acc)), thr,
			mmp_format_interval(&a->real, "x", real, sizeof(real)),
			mmp_format_interval(&a->model, "x", model, sizeof(model)),
			a->ma->run->job->name, a->mb->run->job->name,
			mmp_format_interval(&a->ratio, "x", ratio, sizeof(ratio)), a->verdict);
		if (a->outcome == MMP_OUTCOME_INCONCLUSIVE)
			fprintf(out, " (%s)", mmp_format_undecided(a, more, sizeof(more)));
		fprintf(out, " (%zu rounds%s)\n", a->rounds,
			a->used_disturbed ? ", disturbed ones included" : "");
	}
}
