/* The config key types of a program's values (config.h): `command`,
 * split and its placeholders checked as they will be filled in, and
 * `time` and `result`, whose patterns are compiled as they will be
 * matched, and `env`, a program's environment (child_env.h), whose items
 * are checked as they will be set.  All are kept as written; what a
 * command passes, and a result to check, need other keys of the job
 * (their needs hooks). */
#include "config/config.h"

#include <errno.h>
#include <stdio.h>

#include "run/capture.h"
#include "run/child_env.h"
#include "run/command.h"
#include "mmprof/probe.h"

static int parse_command(const struct mmp_key *key, const char *text, void *dst, char *err,
			 size_t errlen)
{
	struct mmp_argv argv;
	char msg[400];
	int rc = mmp_command_expand(text, NULL, &argv, msg, sizeof(msg));
	(void)key;
	mmp_command_free(&argv);
	if (rc) {
		snprintf(err, errlen, "command: %s", msg);
		return rc == -ENOMEM ? rc : -EINVAL;
	}
	*(const char **)dst = text;
	return 0;
}

static void limits_command(const struct mmp_key *key, char *buf, size_t len)
{
	char names[MMP_COMMAND_PLACEHOLDERS_LEN];
	(void)key;
	mmp_command_placeholders(names, sizeof(names));
	snprintf(buf, len, "words; placeholders %s", names);
}

/* What a command passes needs the job to say: {access} the bytes per
 * call the program reads (also what its runs are compared by), {file} and
 * {size} a data file. */
static const char *command_needs(const struct mmp_params *p, unsigned what, char *buf,
				 size_t len)
{
	if (!p->command)
		return NULL;
	if (what == 0 && !p->access && mmp_command_uses(p->command, "access")) {
		snprintf(buf, len, "command passes {access}: set access = the bytes per call it "
				   "stands for");
		return buf;
	}
	const char *uses = mmp_run_reads_file(p)		   ? NULL
			   : mmp_command_uses(p->command, "file") ? "{file}"
			   : mmp_command_uses(p->command, "size") ? "{size}"
								  : NULL;
	if (what == 1 && uses) {
		snprintf(buf, len, "command passes %s, but the job has no data file: set file = "
				   "the file it reads, or size = the bytes of one to generate",
			 uses);
		return buf;
	}
	return NULL;
}

const struct mmp_key_type mmp_key_command = {
	.parse = parse_command, .format = mmp_key_format_text, .limits = limits_command,
	.needs = command_needs, .nneeds = 2,
};

/* A result is checked against the data file's reference.  (A command
 * passing {file} or {size} without one is said at the command.) */
static const char *result_needs(const struct mmp_params *p, unsigned what, char *buf,
				size_t len)
{
	(void)what;
	if (!p->result || mmp_run_reads_file(p) ||
	    (p->command &&
	     (mmp_command_uses(p->command, "file") || mmp_command_uses(p->command, "size"))))
		return NULL;
	snprintf(buf, len, "result = is checked against the data file's reference, and the job "
			   "has none: set file or size, or leave result out (then nothing is "
			   "checked)");
	return buf;
}

static int parse_capture(const struct mmp_key *key, const char *text, void *dst, char *err,
			 size_t errlen, int allow_wall)
{
	char msg[400];
	int rc = mmp_capture_check(text, allow_wall, msg, sizeof(msg));
	if (rc) {
		snprintf(err, errlen, "%s: %s", key->name, msg);
		return rc == -ENOMEM ? rc : -EINVAL;
	}
	*(const char **)dst = text;
	return 0;
}

static int parse_time(const struct mmp_key *key, const char *text, void *dst, char *err,
		      size_t errlen)
{
	return parse_capture(key, text, dst, err, errlen, 1);
}

static int parse_output(const struct mmp_key *key, const char *text, void *dst, char *err,
			size_t errlen)
{
	return parse_capture(key, text, dst, err, errlen, 0);
}

static void limits_time(const struct mmp_key *key, char *buf, size_t len)
{
	(void)key;
	snprintf(buf, len, "wall, output:REGEX (POSIX extended, \\d allowed)");
}

static void limits_output(const struct mmp_key *key, char *buf, size_t len)
{
	(void)key;
	snprintf(buf, len, "output:REGEX (POSIX extended, \\d allowed)");
}

const struct mmp_key_type mmp_key_time = {
	.parse = parse_time, .format = mmp_key_format_text, .limits = limits_time,
};
const struct mmp_key_type mmp_key_capture = {
	.parse = parse_output, .format = mmp_key_format_text, .limits = limits_output,
	.needs = result_needs, .nneeds = 1,
};

static int parse_env(const struct mmp_key *key, const char *text, void *dst, char *err,
		     size_t errlen)
{
	int rc = mmp_env_check(text, err, errlen);
	(void)key;
	if (rc)
		return rc;
	*(const char **)dst = text;
	return 0;
}

static void limits_env(const struct mmp_key *key, char *buf, size_t len)
{
	(void)key;
	snprintf(buf, len, "VAR=VALUE, ...");
}

const struct mmp_key_type mmp_key_env = {
	.parse = parse_env, .format = mmp_key_format_text, .limits = limits_env, .own_list = true,
};
