/* --list-events: presets, then what this machine can count and what it
 * cannot, each event tried for real on the calling thread. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "platform/memory.h"
#include "platform/counters.h"
#include "platform/events.h"
#include "report/listing.h"

static const char *kind_name(enum mmp_event_kind k)
{
	return k == MMP_EV_HARDWARE ? "hardware" : k == MMP_EV_SOFTWARE ? "software" : "tracepoint";
}

/* Every name to try: perf's generic names, then the presets' events. */
static size_t collect(struct mmp_event *evs, size_t max)
{
	size_t n = 0, nknown, npresets;
	const char *const *known = mmp_events_known(&nknown);
	const struct mmp_preset *presets = mmp_presets(&npresets);
	char err[256];

	for (size_t i = 0; i < nknown + npresets && n < max; i++) {
		struct mmp_event_set set;
		const char *name = i < nknown ? known[i] : presets[i - nknown].name;
		if (mmp_events_resolve(name, &set, err, sizeof(err)))
			continue;
		for (size_t e = 0; e < set.n && n < max; e++) {
			int dup = 0;
			for (size_t k = 0; k < n; k++)
				dup |= strcmp(evs[k].name, set.ev[e].name) == 0;
			if (!dup)
				evs[n++] = set.ev[e];
		}
		mmp_event_set_free(&set);
	}
	return n;
}

int mmp_list_events(FILE *out, struct mmp_error *error)
{
	struct mmp_event evs[96];
	char err[256], names[1024], missing[4096], why[400], dir[256];
	size_t npresets;
	const struct mmp_preset *presets = mmp_presets(&npresets);

	if (mmp_events_init(err, sizeof(err)))
		return mmp_error_set(error, -ENODEV, "%s", err);
	fprintf(out, "libpfm4 knows this CPU as %s (%u generic counters per group)\n\n",
		mmp_events_pmu_name(), mmp_events_pmu_counters());
	fprintf(out, "presets (events = NAME, ...):\n");
	for (size_t i = 0; i < npresets; i++) {
		mmp_preset_expand(&presets[i], names, sizeof(names), missing, sizeof(missing));
		fprintf(out, "  %-11s %s\n  %-11s = %s\n", presets[i].name, presets[i].purpose, "",
			names[0] ? names : "(nothing on this CPU)");
		const char *label = "not on this CPU:";
		for (const char *m = missing; *m; label = "") {
			size_t n = strcspn(m, "\n");
			fprintf(out, "  %-11s   %-16s %.*s\n", "", label, (int)n, m);
			m += n + (m[n] == '\n');
		}
	}
	size_t n = collect(evs, sizeof(evs) / sizeof(evs[0]));
	int ok[96];
	for (size_t i = 0; i < n; i++)
		ok[i] = mmp_counters_try(&evs[i], why, sizeof(why)) == 0;
	fprintf(out, "\ncan count on this machine:\n");
	for (size_t i = 0; i < n; i++)
		if (ok[i])
			fprintf(out, "  %-44s %-10s %s\n", evs[i].name, kind_name(evs[i].kind),
				evs[i].encoding);
	fprintf(out, "\ncannot count on this machine:\n");
	for (size_t i = 0; i < n; i++) {
		if (ok[i])
			continue;
		mmp_counters_try(&evs[i], why, sizeof(why));
		fprintf(out, "  %-44s %s\n", evs[i].name, why);
	}
	/* What else this process may not ask the kernel, beside counters. */
	int bind_e, locate_e;
	mmp_memory_calls_ask(&bind_e, &locate_e);
	fprintf(out, "\n");
	mmp_memory_calls_print(bind_e, locate_e, out);
	fprintf(out, "\nAlso accepted: any event libpfm4 lists for %s, with umasks "
		     "(EVENT:UMASK),\n", mmp_events_pmu_name());
	if (mmp_tracefs_dir(dir, sizeof(dir), why, sizeof(why)) == 0)
		fprintf(out, "and any tracepoint SUBSYSTEM:EVENT under %s/events.\n", dir);
	else
		fprintf(out, "and tracepoints SUBSYSTEM:EVENT once tracefs is available (%s).\n",
			why);
	return 0;
}
