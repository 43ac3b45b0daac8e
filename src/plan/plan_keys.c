/* The config key type of `controls` (config.h): checked by the controls'
 * own parser, kept as written (the plan builds each job's ladder from it). */
#include "config/config.h"

#include <errno.h>
#include <stdio.h>

#include "plan/controls.h"

static int parse_controls(const struct mmp_key *key, const char *text, void *dst, char *err,
			  size_t errlen)
{
	unsigned mask;
	(void)key;
	if (mmp_controls_parse(text, &mask, err, errlen))
		return -EINVAL;
	*(const char **)dst = text;
	return 0;
}

static void limits_controls(const struct mmp_key *key, char *buf, size_t len)
{
	char names[MMP_CONTROLS_NAMES_LEN];
	(void)key;
	mmp_controls_names(names, sizeof(names));
	snprintf(buf, len, "auto, none, or a list of: %s", names);
}

const struct mmp_key_type mmp_key_controls = {
	.parse = parse_controls, .format = mmp_key_format_text, .limits = limits_controls,
};
