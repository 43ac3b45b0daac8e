/* The config key types of the platform's values (config.h): placement
 * and membind, parsed by topology's and memory's own parsers, and events,
 * resolved through libpfm4 as they will be counted. */
#include "config/config.h"

#include <errno.h>
#include <stdio.h>

#include "platform/events.h"
#include "platform/memory.h"
#include "platform/topology.h"

static int parse_placement(const struct mmp_key *key, const char *text, void *dst, char *err,
			   size_t errlen)
{
	(void)key;
	return mmp_placement_parse(text, dst, err, errlen);
}

static void format_placement(const struct mmp_key *key, const void *src, char *buf, size_t len)
{
	(void)key;
	snprintf(buf, len, "%s", ((const struct mmp_placement *)src)->spec);
}

static void limits_placement(const struct mmp_key *key, char *buf, size_t len)
{
	(void)key;
	mmp_placement_syntax(buf, len);
}

const struct mmp_key_type mmp_key_placement = {
	.parse = parse_placement, .format = format_placement, .limits = limits_placement,
	.list_continues = mmp_placement_list_continues,
};

static int parse_membind(const struct mmp_key *key, const char *text, void *dst, char *err,
			 size_t errlen)
{
	(void)key;
	return mmp_membind_parse(text, dst, err, errlen);
}

static void format_membind(const struct mmp_key *key, const void *src, char *buf, size_t len)
{
	(void)key;
	snprintf(buf, len, "%s", ((const struct mmp_membind *)src)->spec);
}

static void limits_membind(const struct mmp_key *key, char *buf, size_t len)
{
	(void)key;
	snprintf(buf, len, "firsttouch, local, node:N, node:*, interleave[:LIST]");
}

const struct mmp_key_type mmp_key_membind = {
	.parse = parse_membind, .format = format_membind, .limits = limits_membind,
	.list_continues = mmp_membind_list_continues,
};

/* Kept as written: the plan resolves each distinct value once
 * (eventplan.h); here it is only checked. */
static int parse_events(const struct mmp_key *key, const char *text, void *dst, char *err,
			size_t errlen)
{
	struct mmp_event_set set;
	int rc = mmp_events_resolve(text, &set, err, errlen);
	(void)key;
	mmp_event_set_free(&set);
	if (rc)
		return rc == -ENOMEM ? rc : -EINVAL;
	*(const char **)dst = text;
	return 0;
}

static void limits_events(const struct mmp_key *key, char *buf, size_t len)
{
	(void)key;
	snprintf(buf, len, "names and presets, see --list-events; none");
}

const struct mmp_key_type mmp_key_events = {
	.parse = parse_events, .format = mmp_key_format_text, .limits = limits_events,
};
