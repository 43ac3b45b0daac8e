/* The environment a program runs in (see child_env.h). */
#include "run/child_env.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/lists.h"
#include "util/vec.h"

extern char **environ;

/* What each runtime needs for its JIT code to be named (child_env.h says
 * why each).  value: what the variable is set to, or with append, added
 * to what it already holds (JAVA_TOOL_OPTIONS is a list of options). */
static const struct jit_var {
	unsigned what; /* the map it asks for (MMP_JIT_*), 0: none */
	const char *name, *value;
	int append;
} jit_vars[] = {
	{ MMP_JIT_DOTNET, "DOTNET_PerfMapEnabled", "1", 0 },
	{ MMP_JIT_JAVA_EXIT, "JAVA_TOOL_OPTIONS",
	  "-XX:+IgnoreUnrecognizedVMOptions -XX:+UnlockDiagnosticVMOptions "
	  "-XX:+DumpPerfMapAtExit",
	  1 },
};

/* Where perf-map-agent's library is found when installed by hand (it has
 * no distribution package): its build directory, or a library directory. */
static const char *const agent_places[] = {
	"/usr/local/lib/libperfmap.so",
	"/usr/lib/libperfmap.so",
	"/opt/perf-map-agent/out/libperfmap.so",
	"/usr/local/perf-map-agent/out/libperfmap.so",
};

static int name_ok(const char *s, size_t n)
{
	if (!n || isdigit((unsigned char)s[0]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

/* The next item of an env = text, trimmed, with "\," made a comma, into
 * buf; advances *p.  0 at the end, -ENAMETOOLONG for an item too long. */
static int next_item(const char **p, char *buf, size_t len)
{
	const char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return 0;
	const char *comma = mmp_list_comma(s), *end = comma ? comma : s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	size_t n = 0;
	for (const char *r = s; r < end; r++) {
		if (r[0] == '\\' && r + 1 < end && r[1] == ',')
			r++;
		if (n + 1 >= len)
			return -ENAMETOOLONG;
		buf[n++] = *r;
	}
	buf[n] = '\0';
	*p = comma ? comma + 1 : s + strlen(s);
	return 1;
}

int mmp_env_check(const char *text, char *err, size_t errlen)
{
	char item[8192];
	int rc, any = 0;
	for (const char *p = text; (rc = next_item(&p, item, sizeof(item))) > 0;) {
		const char *eq = strchr(item, '=');
		any = 1;
		if (!eq) {
			snprintf(err, errlen, "'%s' is not VAR=VALUE (env = VAR=VALUE, ...)", item);
			return -EINVAL;
		}
		if (!name_ok(item, (size_t)(eq - item))) {
			snprintf(err, errlen,
				 "'%.*s' is not a variable name (letters, digits and _, not first a "
				 "digit)",
				 (int)(eq - item), item);
			return -EINVAL;
		}
	}
	if (rc < 0) {
		snprintf(err, errlen, "an item of env is longer than %zu bytes", sizeof(item) - 1);
		return -EINVAL;
	}
	if (!any) {
		snprintf(err, errlen, "env is empty (env = VAR=VALUE, ...)");
		return -EINVAL;
	}
	return 0;
}

int mmp_env_sets(const char *text, const char *name)
{
	char item[8192];
	size_t n = strlen(name);
	for (const char *p = text ? text : ""; next_item(&p, item, sizeof(item)) > 0;)
		if (strncmp(item, name, n) == 0 && item[n] == '=')
			return 1;
	return 0;
}

static int grow(struct mmp_child_env *e)
{
	return MMP_VEC_RESERVE(e->v, e->cap, e->n + 2);
}

int mmp_child_env_init(struct mmp_child_env *e, char *const *base)
{
	memset(e, 0, sizeof(*e));
	if (!base)
		base = environ;
	if (grow(e))
		return -ENOMEM;
	for (size_t i = 0; base && base[i]; i++) {
		if (grow(e) || !(e->v[e->n] = strdup(base[i]))) {
			mmp_child_env_free(e);
			return -ENOMEM;
		}
		e->n++;
	}
	e->v[e->n] = NULL;
	return 0;
}

void mmp_child_env_free(struct mmp_child_env *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
	memset(e, 0, sizeof(*e));
}

static size_t find(const struct mmp_child_env *e, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < e->n; i++)
		if (strncmp(e->v[i], name, n) == 0 && e->v[i][n] == '=')
			return i;
	return e->n;
}

const char *mmp_child_env_get(const struct mmp_child_env *e, const char *name)
{
	size_t i = find(e, name);
	return i < e->n ? e->v[i] + strlen(name) + 1 : NULL;
}

int mmp_child_env_set(struct mmp_child_env *e, const char *name, const char *value)
{
	size_t len = strlen(name) + strlen(value) + 2;
	char *s = malloc(len);
	if (!s || grow(e)) {
		free(s);
		return -ENOMEM;
	}
	snprintf(s, len, "%s=%s", name, value);
	size_t i = find(e, name);
	if (i < e->n) {
		free(e->v[i]);
		e->v[i] = s;
	} else {
		e->v[e->n++] = s;
		e->v[e->n] = NULL;
	}
	return 0;
}

int mmp_child_env_apply(struct mmp_child_env *e, const char *text)
{
	char item[8192];
	for (const char *p = text ? text : ""; next_item(&p, item, sizeof(item)) > 0;) {
		char *eq = strchr(item, '=');
		if (!eq)
			return -EINVAL; /* checked when the config was read */
		*eq = '\0';
		if (mmp_child_env_set(e, item, eq + 1))
			return -ENOMEM;
	}
	return 0;
}

const char *mmp_child_env_changes(const struct mmp_child_env *e, char *const *base, char *buf,
				  size_t len)
{
	size_t used = 0;
	if (!base)
		base = environ;
	buf[0] = '\0';
	for (size_t i = 0; i < e->n && used < len; i++) {
		size_t j = 0;
		while (base && base[j] && strcmp(base[j], e->v[i]) != 0)
			j++;
		if (base && base[j])
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " " : "", e->v[i]);
	}
	return buf;
}

int mmp_jit_java_agent(char *buf, size_t len)
{
	const char *env = getenv("MMPROF_PERFMAP_AGENT");
	size_t used = 0;
	if (env && *env) {
		if (access(env, R_OK) == 0) {
			snprintf(buf, len, "%s", env);
			return 0;
		}
		snprintf(buf, len, "MMPROF_PERFMAP_AGENT=%s: no such readable file", env);
		return -ENOENT;
	}
	for (size_t i = 0; i < sizeof(agent_places) / sizeof(agent_places[0]); i++)
		if (access(agent_places[i], R_OK) == 0) {
			snprintf(buf, len, "%s", agent_places[i]);
			return 0;
		}
	used = (size_t)snprintf(buf, len, "no perf-map agent installed (libperfmap.so; looked in");
	for (size_t i = 0; i < sizeof(agent_places) / sizeof(agent_places[0]) && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s %s", i ? "," : "",
					 agent_places[i]);
	if (used < len)
		snprintf(buf + used, len - used, "; MMPROF_PERFMAP_AGENT names one)");
	return -ENOENT;
}

int mmp_child_env_jitnames(struct mmp_child_env *e, const char *user_env)
{
	char agent[4096], opts[8192];
	unsigned set = 0;
	int have_agent = mmp_jit_java_agent(agent, sizeof(agent)) == 0;

	for (size_t i = 0; i < sizeof(jit_vars) / sizeof(jit_vars[0]); i++) {
		const struct jit_var *v = &jit_vars[i];
		const char *value = v->value;
		unsigned what = v->what;
		if (!v->append && mmp_env_sets(user_env, v->name))
			continue;
		if (what == MMP_JIT_JAVA_EXIT && have_agent) {
			/* The agent writes as the JVM compiles: code freed
			 * before the exit is named too. */
			snprintf(opts, sizeof(opts), "-agentpath:%s", agent);
			value = opts;
			what = MMP_JIT_JAVA_AGENT;
		}
		if (v->append) {
			const char *old = mmp_child_env_get(e, v->name);
			char joined[sizeof(opts) + 64];
			if (old && *old) {
				snprintf(joined, sizeof(joined), "%s %s", old, value);
				value = joined;
			}
			if (mmp_child_env_set(e, v->name, value))
				return -ENOMEM;
		} else if (mmp_child_env_set(e, v->name, value)) {
			return -ENOMEM;
		}
		set |= what;
	}
	return (int)set;
}
