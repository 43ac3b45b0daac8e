/* Resolving event names (see events.h): libpfm4 for everything it knows,
 * tracefs ids for tracepoints. */
#include "platform/events.h"

#include <ctype.h>
#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "util/suggest.h"

/* libpfm4 keeps its tables in process-wide state; so does this cache of
 * what it found.  Set once by mmp_events_init. */
static struct {
	int ready;
	int plm; /* privilege levels to count: user, and kernel when allowed */
	unsigned counters;
	char pmu[64];
	int pmu_id;
} pfm;

int mmp_perf_paranoid(void)
{
	int paranoid = 2; /* the kernel's default when the file cannot be read */
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = 2;
		fclose(f);
	}
	return paranoid;
}

int mmp_events_init(char *err, size_t errlen)
{
	if (pfm.ready)
		return 0;
	int rc = pfm_initialize();
	if (rc != PFM_SUCCESS) {
		snprintf(err, errlen, "libpfm4: pfm_initialize: %s", pfm_strerror(rc));
		return -ENODEV;
	}
	/* Kernel-mode counts (page-fault handling, system calls) need root or
	 * perf_event_paranoid <= 1; otherwise count user mode only, as perf
	 * stat does, rather than fail every open. */
	pfm.plm = PFM_PLM3 | ((geteuid() == 0 || mmp_perf_paranoid() <= 1) ? PFM_PLM0 : 0);
	pfm.counters = 4;
	snprintf(pfm.pmu, sizeof(pfm.pmu), "unknown");
	pfm.pmu_id = -1;
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t info = { .size = sizeof(info) };
		if (pfm_get_pmu_info((pfm_pmu_t)p, &info) != PFM_SUCCESS || !info.is_present ||
		    info.type != PFM_PMU_TYPE_CORE)
			continue;
		snprintf(pfm.pmu, sizeof(pfm.pmu), "%s", info.name);
		pfm.pmu_id = p;
		if (info.num_cntrs > 0)
			pfm.counters = (unsigned)info.num_cntrs;
		break;
	}
	pfm.ready = 1;
	return 0;
}

unsigned mmp_events_pmu_counters(void)
{
	return pfm.counters;
}

const char *mmp_events_pmu_name(void)
{
	return pfm.pmu[0] ? pfm.pmu : "unknown";
}

int mmp_tracefs_dir(char *buf, size_t len, char *why, size_t wlen)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	struct stat st;
	char events[300];

	for (size_t i = 0; i < 2; i++) {
		snprintf(events, sizeof(events), "%s/events", dirs[i]);
		if (stat(events, &st) == 0 && S_ISDIR(st.st_mode)) {
			snprintf(buf, len, "%s", dirs[i]);
			return 0;
		}
	}
	/* Mounted, but its root is 0700 root's (the default): this user
	 * cannot look inside, and mounting again would not change that. */
	for (size_t i = 0; i < 2; i++) {
		struct statfs fs;
		if (statfs(dirs[i], &fs) == 0 && fs.f_type == TRACEFS_MAGIC &&
		    stat(dirs[i], &st) == 0 && access(dirs[i], R_OK | X_OK) != 0) {
			snprintf(why, wlen,
				 "tracefs is mounted at %s but this user cannot read it (mode "
				 "%04o, owner uid %u): run as root, or have root grant it "
				 "(mount -o remount,mode=755 %s)",
				 dirs[i], (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid,
				 dirs[i]);
			return -EACCES;
		}
	}
	if (geteuid() != 0) {
		snprintf(why, wlen, "tracefs is not mounted and only root can mount it "
				    "(mount -t tracefs nodev /sys/kernel/tracing)");
		return -ENOENT;
	}
	if (mount("nodev", dirs[0], "tracefs", 0, NULL) != 0) {
		snprintf(why, wlen, "tracefs is not mounted and mounting it at %s failed: %s",
			 dirs[0], strerror(errno));
		return -ENOENT;
	}
	snprintf(buf, len, "%s", dirs[0]);
	return 0;
}

static int tracepoint_syntax(const char *name)
{
	const char *colon = strchr(name, ':');
	if (!colon || colon == name || !colon[1] || strchr(colon + 1, ':'))
		return 0;
	for (const char *p = name; *p; p++)
		if (p != colon && !islower((unsigned char)*p) && !isdigit((unsigned char)*p) &&
		    *p != '_')
			return 0;
	return 1;
}

/* 1: a tracepoint (ev filled, maybe unavailable), 0: no such tracepoint. */
static int resolve_tracepoint(const char *name, struct mmp_event *ev)
{
	char dir[256], path[600], why[sizeof(ev->why)];
	const char *colon = strchr(name, ':');

	ev->kind = MMP_EV_TRACEPOINT;
	ev->attr.size = sizeof(ev->attr);
	ev->attr.type = PERF_TYPE_TRACEPOINT;
	snprintf(ev->encoding, sizeof(ev->encoding), "tracepoint %s", name);
	if (mmp_tracefs_dir(dir, sizeof(dir), why, sizeof(why))) {
		/* Cannot look it up: it is a tracepoint we cannot count here. */
		ev->unavailable = ENOENT;
		snprintf(ev->why, sizeof(ev->why), "%s", why);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/events/%.*s/%s/id", dir, (int)(colon - name), name,
		 colon + 1);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	unsigned long long id;
	int n = fscanf(f, "%llu", &id);
	fclose(f);
	if (n != 1)
		return 0;
	ev->attr.config = id;
	snprintf(ev->encoding, sizeof(ev->encoding), "tracefs id %llu", id);
	return 1;
}

static enum mmp_event_role role_of(const struct mmp_event *ev)
{
	const struct perf_event_attr *a = &ev->attr;
	if (ev->kind == MMP_EV_TRACEPOINT) {
		if (strcmp(ev->name, "raw_syscalls:sys_enter") == 0)
			return MMP_ROLE_SYSCALLS;
		if (strcmp(ev->name, "syscalls:sys_enter_read") == 0)
			return MMP_ROLE_READ_SYSCALLS;
		return MMP_ROLE_OTHER;
	}
	if (a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_CPU_CYCLES)
		return MMP_ROLE_CYCLES;
	if (a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_INSTRUCTIONS)
		return MMP_ROLE_INSTRUCTIONS;
	if (a->type == PERF_TYPE_HW_CACHE &&
	    a->config == (PERF_COUNT_HW_CACHE_DTLB | PERF_COUNT_HW_CACHE_OP_READ << 8 |
			  PERF_COUNT_HW_CACHE_RESULT_MISS << 16))
		return MMP_ROLE_DTLB_MISSES;
	if (a->type != PERF_TYPE_SOFTWARE)
		return MMP_ROLE_OTHER;
	switch (a->config) {
	case PERF_COUNT_SW_TASK_CLOCK:
		return MMP_ROLE_TASK_CLOCK;
	case PERF_COUNT_SW_PAGE_FAULTS:
		return MMP_ROLE_PAGE_FAULTS;
	case PERF_COUNT_SW_PAGE_FAULTS_MIN:
		return MMP_ROLE_MINOR_FAULTS;
	case PERF_COUNT_SW_PAGE_FAULTS_MAJ:
		return MMP_ROLE_MAJOR_FAULTS;
	case PERF_COUNT_SW_CONTEXT_SWITCHES:
		return MMP_ROLE_CONTEXT_SWITCHES;
	case PERF_COUNT_SW_CPU_MIGRATIONS:
		return MMP_ROLE_MIGRATIONS;
	}
	return MMP_ROLE_OTHER;
}

/* 0 and ev filled, or -ENOENT when libpfm4 does not know the name. */
static int resolve_pfm(const char *name, struct mmp_event *ev)
{
	char *fstr = NULL;
	pfm_perf_encode_arg_t arg = { .size = sizeof(arg), .attr = &ev->attr, .fstr = &fstr };

	memset(&ev->attr, 0, sizeof(ev->attr));
	ev->attr.size = sizeof(ev->attr);
	if (pfm_get_os_event_encoding(name, pfm.plm, PFM_OS_PERF_EVENT_EXT, &arg) !=
	    PFM_SUCCESS) {
		free(fstr);
		return -ENOENT;
	}
	/* libpfm4's full name, without the attribute settings it appends
	 * (":u=1:k=1:..."): "perf::PERF_COUNT_SW_PAGE_FAULTS". */
	snprintf(ev->encoding, sizeof(ev->encoding), "%s", fstr ? fstr : name);
	free(fstr);
	for (char *eq; (eq = strrchr(ev->encoding, '=')) != NULL;) {
		char *colon = eq;
		while (colon > ev->encoding && *colon != ':')
			colon--;
		*colon = '\0';
	}
	ev->kind = ev->attr.type == PERF_TYPE_SOFTWARE	 ? MMP_EV_SOFTWARE
		   : ev->attr.type == PERF_TYPE_TRACEPOINT ? MMP_EV_TRACEPOINT
							   : MMP_EV_HARDWARE;
	return 0;
}

static int resolve_one(const char *name, struct mmp_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	if (tracepoint_syntax(name) && resolve_tracepoint(name, ev)) {
		ev->role = role_of(ev);
		return 0;
	}
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	if (resolve_pfm(name, ev))
		return -ENOENT;
	ev->role = role_of(ev);
	return 0;
}

static const struct mmp_preset *find_preset(const char *name)
{
	size_t n;
	const struct mmp_preset *all = mmp_presets(&n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(all[i].name, name) == 0)
			return &all[i];
	return NULL;
}

/* The first alternative of a slot libpfm4 (or tracefs) resolves here. */
static int resolve_slot(const char *slot, struct mmp_event *ev)
{
	char alt[MMP_EVENT_NAME_MAX];
	for (const char *p = slot; *p;) {
		size_t n = strcspn(p, "|");
		snprintf(alt, sizeof(alt), "%.*s", (int)n, p);
		if (resolve_one(alt, ev) == 0)
			return 0;
		p += n;
		if (*p == '|')
			p++;
	}
	return -ENOENT;
}

enum slot_state {
	SLOT_FILLED,   /* ev holds the event, with the slot's role */
	SLOT_NOT_HERE, /* no alternative encodes on this CPU */
	SLOT_UNPAIRED, /* it encodes, but the slot it needs does not */
};

static enum slot_state fill_slot(const struct mmp_preset *p, size_t i, struct mmp_event *ev)
{
	const struct mmp_preset_slot *s = &p->slots[i];
	struct mmp_event other;

	if (resolve_slot(s->any_of, ev))
		return SLOT_NOT_HERE;
	if (s->role != MMP_ROLE_OTHER)
		ev->role = s->role;
	if (s->needs == MMP_ROLE_OTHER)
		return SLOT_FILLED;
	for (size_t k = 0; p->slots[k].any_of; k++)
		if (k != i && p->slots[k].role == s->needs &&
		    resolve_slot(p->slots[k].any_of, &other) == 0)
			return SLOT_FILLED;
	return SLOT_UNPAIRED;
}

void mmp_preset_expand(const struct mmp_preset *p, char *names, size_t len, char *missing,
		       size_t mlen)
{
	struct mmp_event ev;
	size_t used = 0, mused = 0;
	names[0] = missing[0] = '\0';
	for (size_t i = 0; p->slots[i].any_of; i++) {
		enum slot_state st = fill_slot(p, i, &ev);
		if (st == SLOT_FILLED)
			used += (size_t)snprintf(names + used, used < len ? len - used : 0, "%s%s",
						 used ? ", " : "", ev.name);
		else
			mused += (size_t)snprintf(
				missing + mused, mused < mlen ? mlen - mused : 0, "%s%s%s",
				mused ? "\n" : "", st == SLOT_UNPAIRED ? ev.name : p->slots[i].any_of,
				st == SLOT_UNPAIRED ? " (left out: the other half of its ratio is not "
						      "on this CPU)"
						    : "");
	}
}

static int push(struct mmp_event_set *set, const struct mmp_event *ev)
{
	for (size_t i = 0; i < set->n; i++)
		if (strcmp(set->ev[i].name, ev->name) == 0)
			return 0; /* named twice: count it once */
	struct mmp_event *grown = realloc(set->ev, (set->n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	set->ev = grown;
	set->ev[set->n++] = *ev;
	return 0;
}

/* Candidates for "did you mean": presets, known names, this PMU's events. */
static const char *suggest_event(const char *name)
{
	static char pmu_names[512][64];
	const char *cand[600];
	size_t n = 0, nknown, npresets;
	const char *const *known = mmp_events_known(&nknown);
	const struct mmp_preset *presets = mmp_presets(&npresets);

	for (size_t i = 0; i < npresets; i++)
		cand[n++] = presets[i].name;
	for (size_t i = 0; i < nknown; i++)
		cand[n++] = known[i];
	pfm_pmu_info_t pinfo = { .size = sizeof(pinfo) };
	if (pfm.pmu_id >= 0 && pfm_get_pmu_info((pfm_pmu_t)pfm.pmu_id, &pinfo) == PFM_SUCCESS) {
		size_t k = 0;
		for (int i = pinfo.first_event; i != -1 && k < 512 && n < 600;
		     i = pfm_get_event_next(i)) {
			pfm_event_info_t info = { .size = sizeof(info) };
			if (pfm_get_event_info(i, PFM_OS_NONE, &info) != PFM_SUCCESS)
				continue;
			snprintf(pmu_names[k], sizeof(pmu_names[k]), "%s", info.name);
			cand[n++] = pmu_names[k++];
		}
	}
	const char *hint = mmp_suggest(name, cand, n);
	/* A known name that does not encode here (perf's generic names when
	 * LIBPFM_FORCE_PMU limits libpfm4 to one PMU) is not a typo. */
	return hint && strcmp(hint, name) == 0 ? NULL : hint;
}

int mmp_events_resolve(const char *list, struct mmp_event_set *out, char *err, size_t errlen)
{
	char name[MMP_EVENT_NAME_MAX];
	struct mmp_event ev;
	int rc = mmp_events_init(err, errlen);

	memset(out, 0, sizeof(*out));
	if (rc)
		return rc;
	for (const char *p = list; *p;) {
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		size_t n = strcspn(p, ",");
		if (!n)
			break;
		size_t t = n;
		while (t > 0 && isspace((unsigned char)p[t - 1]))
			t--;
		if (t >= sizeof(name)) {
			snprintf(err, errlen, "event name '%.*s...' is too long", 40, p);
			goto fail;
		}
		snprintf(name, sizeof(name), "%.*s", (int)t, p);
		p += n;

		if (strcmp(name, "none") == 0)
			continue;
		const struct mmp_preset *preset = find_preset(name);
		if (preset) {
			for (size_t i = 0; preset->slots[i].any_of; i++) {
				if (fill_slot(preset, i, &ev) != SLOT_FILLED)
					continue; /* not on this CPU: --list-events says */
				if (push(out, &ev))
					goto nomem;
			}
			continue;
		}
		if (resolve_one(name, &ev)) {
			const char *hint = suggest_event(name);
			snprintf(err, errlen,
				 "unknown event '%s'%s%s%s (see --list-events; libpfm4 knows this "
				 "CPU as %s)",
				 name, hint ? " (did you mean '" : "", hint ? hint : "",
				 hint ? "'?)" : "", pfm.pmu);
			goto fail;
		}
		if (push(out, &ev))
			goto nomem;
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	mmp_event_set_free(out);
	return -ENOMEM;
fail:
	mmp_event_set_free(out);
	return -EINVAL;
}

void mmp_event_set_free(struct mmp_event_set *set)
{
	free(set->ev);
	set->ev = NULL;
	set->n = 0;
}
