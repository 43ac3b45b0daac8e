/* Building a job's ladder of controls (see controls.h). */
#include "mmprof/controls.h"
#include "mmprof/lists.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/probe.h"
#include "mmprof/suggest.h"

static const char *const names[MMP_CONTROL_COUNT + 1] = {
	"fit", "prefault", "padded", "private", "bulk", "solo", NULL,
};

const char *mmp_control_name(unsigned bit)
{
	for (unsigned i = 0; i < MMP_CONTROL_COUNT; i++)
		if (bit == 1u << i)
			return names[i];
	return "?";
}

int mmp_controls_parse(const char *text, unsigned *mask, char *err, size_t errlen)
{
	static const char *const all[] = { "auto", "none", "fit", "prefault", "padded",
					   "private", "bulk", "solo" };
	char name[64];
	int words = 0, alone = 0;

	*mask = 0;
	for (const char *p = text; mmp_list_next(&p, name, sizeof(name)); words++) {
		unsigned bit = 0;
		if (strcmp(name, "auto") == 0 || strcmp(name, "none") == 0) {
			alone = 1;
			bit = name[0] == 'a' ? MMP_CONTROLS_ALL : 0;
		} else {
			for (unsigned i = 0; i < MMP_CONTROL_COUNT; i++)
				if (strcmp(name, names[i]) == 0)
					bit = 1u << i;
			if (!bit) {
				const char *hint = mmp_suggest(name, all, 8);
				snprintf(err, errlen,
					 "unknown control '%s'%s%s%s (auto, none, or fit, prefault, "
					 "padded, private, bulk, solo)",
					 name, hint ? " (did you mean '" : "", hint ? hint : "",
					 hint ? "'?)" : "");
				return -EINVAL;
			}
		}
		*mask |= bit;
	}
	if (!words) {
		snprintf(err, errlen, "controls needs auto, none, or control names");
		return -EINVAL;
	}
	if (alone && words > 1) {
		snprintf(err, errlen, "auto and none stand alone, not in a list of controls");
		return -EINVAL;
	}
	return 0;
}

/* Keys a probe reads decide what a rung may change. */
static void set_applies(struct mmp_run *run)
{
	run->applies = ~UINT64_C(0);
	for (size_t k = 0; k < MMP_KEY_COUNT; k++)
		if (!mmp_probe_uses(run->p.probe, (enum mmp_key_id)k))
			run->applies &= ~MMP_KEY_BIT(k);
}

static int uses(const struct mmp_run *run, enum mmp_key_id key)
{
	return (run->applies & MMP_KEY_BIT(key)) != 0;
}

/* Apply one control to a copy of the rung below; 0 when it does not apply
 * to this job. */
static int apply(unsigned bit, struct mmp_rung *r, const struct mmp_topology *topo,
		 struct mmp_error *err)
{
	struct mmp_run *run = &r->run;
	unsigned threads = run->p.threads;

	switch (bit) {
	case MMP_CONTROL_FIT:
		if (!r->plan.oversubscribed)
			return 0;
		run->p.threads = r->plan.npus;
		mmp_pin_plan_free(&r->plan);
		return mmp_topology_plan(topo, &run->p.placement, run->p.threads, &r->plan, err)
			       ? -1
			       : 1;
	case MMP_CONTROL_PREFAULT:
		if (!uses(run, MMP_KEY_PREFAULT) || run->p.prefault)
			return 0;
		run->p.prefault = true;
		return 1;
	case MMP_CONTROL_PADDED:
		if (threads < 2 || !uses(run, MMP_KEY_TALLY) || run->p.tally != MMP_TALLY_PACKED)
			return 0;
		run->p.tally = MMP_TALLY_PADDED;
		return 1;
	case MMP_CONTROL_PRIVATE: {
		int changed = 0;
		if (threads < 2)
			return 0;
		if (uses(run, MMP_KEY_TALLY) && run->p.tally == MMP_TALLY_ATOMIC) {
			run->p.tally = MMP_TALLY_PADDED;
			changed = 1;
		}
		if (uses(run, MMP_KEY_REFCOUNT) && run->p.refcount == MMP_REFCOUNT_SHARED)
			changed = 1; /* the runner gives each thread its own word */
		return changed;
	}
	case MMP_CONTROL_BULK: {
		const struct mmp_probe *bulk =
			run->p.probe->bulk ? mmp_probe_find(run->p.probe->bulk) : NULL;
		if (!bulk)
			return 0;
		run->p.probe = bulk;
		run->p.access = 0; /* the bulk probe's own default */
		set_applies(run);
		return 1;
	}
	case MMP_CONTROL_SOLO:
		if (threads < 2)
			return 0;
		r->solo_of = threads;
		run->p.threads = 1;
		int pu = r->plan.pu[0];
		mmp_pin_plan_free(&r->plan);
		r->plan.pu = malloc(sizeof(int));
		if (!r->plan.pu)
			return mmp_error_set(err, -ENOMEM, "out of memory"), -1;
		r->plan.pu[0] = pu; /* where the job's first thread ran */
		r->plan.nthreads = r->plan.npus = 1;
		r->plan.oversubscribed = 0;
		return 1;
	}
	return 0;
}

static int copy_plan(struct mmp_pin_plan *dst, const struct mmp_pin_plan *src)
{
	*dst = *src;
	dst->pu = malloc(sizeof(int) * (src->nthreads ? src->nthreads : 1));
	if (!dst->pu)
		return -ENOMEM;
	memcpy(dst->pu, src->pu, sizeof(int) * src->nthreads);
	return 0;
}

int mmp_ladder_build(const struct mmp_run *job, const struct mmp_pin_plan *job_plan,
		     const struct mmp_topology *topo, struct mmp_ladder *out,
		     struct mmp_error *err)
{
	unsigned wanted = 0;
	char msg[256];

	memset(out, 0, sizeof(*out));
	if (job->p.controls && mmp_controls_parse(job->p.controls, &wanted, msg, sizeof(msg)))
		return mmp_error_set(err, -EINVAL, "%s", msg);
	out->rung = calloc(MMP_CONTROL_COUNT + 1, sizeof(*out->rung));
	if (!out->rung)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	out->rung[0].run = *job;
	if (copy_plan(&out->rung[0].plan, job_plan))
		goto nomem;
	out->n = 1;
	for (unsigned i = 0; i < MMP_CONTROL_COUNT; i++) {
		unsigned bit = 1u << i;
		if (!(wanted & bit))
			continue;
		struct mmp_rung *below = &out->rung[out->n - 1], *r = &out->rung[out->n];
		*r = *below;
		if (copy_plan(&r->plan, &below->plan))
			goto nomem;
		r->added = bit;
		int applied = apply(bit, r, topo, err);
		if (applied < 0) {
			mmp_pin_plan_free(&r->plan);
			mmp_ladder_free(out);
			return err->code ? err->code : -EINVAL;
		}
		if (!applied) {
			mmp_pin_plan_free(&r->plan);
			continue;
		}
		r->run.control = below->run.control | bit;
		size_t len = strlen(r->run.control_name); /* copied from below */
		snprintf(r->run.control_name + len, sizeof(r->run.control_name) - len, "%s%s",
			 len ? "+" : "", names[i]);
		out->n++;
	}
	return 0;
nomem:
	mmp_ladder_free(out);
	return mmp_error_set(err, -ENOMEM, "out of memory");
}

void mmp_ladder_free(struct mmp_ladder *ladder)
{
	for (size_t i = 0; ladder->rung && i < ladder->n; i++)
		mmp_pin_plan_free(&ladder->rung[i].plan);
	free(ladder->rung);
	memset(ladder, 0, sizeof(*ladder));
}
