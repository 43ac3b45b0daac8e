/* Placement kinds: one table row each (name, what follows the colon, its
 * planning step), from which parsing, messages and planning derive. */
#include "topology_internal.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "util/suggest.h"
#include "util/units.h"

struct kind_row {
	struct mmp_placement_kind_info info;
	const char *what;    /* what the argument numbers, for "needs ..." */
	const char *a;       /* its article: "a package", "an L3 domain" */
	const char *example; /* a valid spec */
};

static const struct kind_row kinds[] = {
	{ { MMP_PLACE_COMPACT, "compact", NULL, mmp_plan_compact }, NULL, NULL, "compact" },
	{ { MMP_PLACE_SCATTER, "scatter", NULL, mmp_plan_scatter }, NULL, NULL, "scatter" },
	{ { MMP_PLACE_CORES, "cores", NULL, mmp_plan_cores }, NULL, NULL, "cores" },
	{ { MMP_PLACE_SPREAD, "spread", NULL, mmp_plan_spread }, NULL, NULL, "spread" },
	{ { MMP_PLACE_PAIRS, "pairs", NULL, mmp_plan_pairs }, NULL, NULL, "pairs" },
	{ { MMP_PLACE_PUS, "pus", "LIST", mmp_plan_pus }, "PU", "a", "pus:0-3,8" },
	{ { MMP_PLACE_NUMA, "numa", "LIST", mmp_plan_numa }, "NUMA node", "a", "numa:0,2" },
	{ { MMP_PLACE_PACKAGE, "package", "N", mmp_plan_package }, "package", "a", "package:1" },
	{ { MMP_PLACE_L3, "l3", "N", mmp_plan_l3 }, "L3 domain", "an", "l3:0" },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

const struct mmp_placement_kind_info *mmp_placement_kind_info(enum mmp_placement_kind kind)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (kinds[i].info.kind == kind)
			return &kinds[i].info;
	return NULL;
}

const char *mmp_placement_syntax(char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < NKINDS && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s%s%s", i ? ", " : "",
					 kinds[i].info.name, kinds[i].info.arg ? ":" : "",
					 kinds[i].info.arg ? kinds[i].info.arg : "");
	return buf;
}

int mmp_idlist_walk(const char *list, unsigned max, void (*fn)(void *, unsigned), void *arg)
{
	const char *p = list;

	if (!*p)
		return -EINVAL;
	while (*p) {
		char *end;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		unsigned long a = strtoul(p, &end, 10), b = a;
		p = end;
		if (*p == '-') {
			if (!isdigit((unsigned char)p[1]))
				return -EINVAL;
			b = strtoul(p + 1, &end, 10);
			p = end;
		}
		if (a > max || b > max || b < a)
			return -EINVAL;
		for (unsigned long i = a; i <= b; i++)
			if (fn)
				fn(arg, (unsigned)i);
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return p[-1] == ',' ? -EINVAL : 0;
}

static const struct kind_row *find_row(const char *name, size_t len)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (strlen(kinds[i].info.name) == len && strncmp(kinds[i].info.name, name, len) == 0)
			return &kinds[i];
	return NULL;
}

static int unknown(const char *text, const char *colon, char *err, size_t errlen)
{
	const char *names[NKINDS];
	char head[MMP_PLACEMENT_SPEC_MAX], hint[MMP_PLACEMENT_SPEC_MAX + 8] = "", all[160];
	size_t n = 0, hl = colon ? (size_t)(colon - text) : strlen(text);

	snprintf(head, sizeof(head), "%.*s", (int)hl, text);
	/* "packge:1" is most likely package:1: suggest on the name alone,
	 * among the kinds that take what the user wrote after the colon. */
	for (size_t i = 0; i < NKINDS; i++)
		if (!colon == !kinds[i].info.arg)
			names[n++] = kinds[i].info.name;
	const char *best = mmp_suggest(head, names, n);
	if (best)
		snprintf(hint, sizeof(hint), " (did you mean '%s%s%s'?)", best, colon ? ":" : "",
			 colon ? colon + 1 : "");
	snprintf(err, errlen, "'%s' is not a placement (%s)%s", text,
		 mmp_placement_syntax(all, sizeof(all)),
		 hint);
	return -EINVAL;
}

struct seen {
	hwloc_bitmap_t set;
	int twice;
};

static void note_seen(void *arg, unsigned id)
{
	struct seen *s = arg;
	if (s->twice < 0 && hwloc_bitmap_isset(s->set, id))
		s->twice = (int)id;
	hwloc_bitmap_set(s->set, id);
}

static void first_id(void *arg, unsigned id)
{
	unsigned *first = arg;
	if (*first == ~0u)
		*first = id;
}

static int parse_list(const struct kind_row *row, const char *text, const char *list,
		      struct mmp_placement *p, char *err, size_t errlen)
{
	if (mmp_idlist_walk(list, MMP_MAX_OS_INDEX, NULL, NULL)) {
		snprintf(err, errlen, "'%s' is not a %s list (e.g. %s; ranges go up)", text,
			 row->what, row->example);
		return -EINVAL;
	}
	if (row->info.kind != MMP_PLACE_NUMA)
		return 0; /* a PU named twice runs two threads there, on purpose */
	/* Two threads lists of one node would plan its PUs twice over. */
	struct seen s = { hwloc_bitmap_alloc(), -1 };
	if (!s.set) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	mmp_idlist_walk(list, MMP_MAX_OS_INDEX, note_seen, &s);
	hwloc_bitmap_free(s.set);
	if (s.twice >= 0) {
		snprintf(err, errlen, "'%s' names NUMA node %d twice", text, s.twice);
		return -EINVAL;
	}
	p->numa_node = ~0u;
	mmp_idlist_walk(list, MMP_MAX_OS_INDEX, first_id, &p->numa_node);
	return 0;
}

int mmp_placement_parse(const char *text, struct mmp_placement *out, char *err,
			size_t errlen)
{
	struct mmp_placement p = { 0 };

	if (strlen(text) >= sizeof(p.spec)) {
		snprintf(err, errlen, "placement is longer than %zu characters",
			 sizeof(p.spec) - 1);
		return -EINVAL;
	}
	snprintf(p.spec, sizeof(p.spec), "%s", text);
	const char *colon = strchr(text, ':');
	const struct kind_row *row = find_row(text, colon ? (size_t)(colon - text) : strlen(text));
	if (!row)
		return unknown(text, colon, err, errlen);
	p.kind = row->info.kind;
	if (!row->info.arg) {
		if (colon) {
			snprintf(err, errlen, "'%s': %s takes nothing after it", text,
				 row->info.name);
			return -EINVAL;
		}
	} else if (!colon || !colon[1]) {
		int list = strcmp(row->info.arg, "LIST") == 0;
		snprintf(err, errlen, "%s: needs %s %s number%s, e.g. %s", row->info.name,
			 list ? "a list of" : row->a, row->what, list ? "s" : "", row->example);
		return -EINVAL;
	} else if (row->info.kind == MMP_PLACE_NUMA && strcmp(colon + 1, "*") == 0) {
		p.each = true; /* every node of the machine, one job point each (plan.c) */
	} else if (strcmp(row->info.arg, "LIST") == 0) {
		int rc = parse_list(row, text, colon + 1, &p, err, errlen);
		if (rc)
			return rc;
	} else {
		uint64_t n;
		if (mmp_parse_u64(colon + 1, &n) || n > MMP_MAX_OS_INDEX) {
			snprintf(err, errlen, "'%s' is not %s:N with N %s %s number (0, 1, ...)",
				 text, row->info.name, row->a, row->what);
			return -EINVAL;
		}
		p.index = (unsigned)n;
	}
	*out = p;
	return 0;
}

bool mmp_placement_list_continues(const char *prev, const char *next)
{
	const char *colon = strchr(prev, ':');
	const struct kind_row *row = colon ? find_row(prev, (size_t)(colon - prev)) : NULL;
	return row && row->info.arg && strcmp(row->info.arg, "LIST") == 0 &&
	       isdigit((unsigned char)next[0]);
}
