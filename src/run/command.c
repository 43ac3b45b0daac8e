/* Splitting and expanding exec commands (see command.h). */
#include "run/command.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/lists.h"
#include "util/vec.h"

/* One row per placeholder: its name, what it stands for, and its text. */
struct placeholder {
	const char *name;
	const char *help;
	void (*format)(const struct mmp_command_vars *v, char *buf, size_t len);
};

static void f_file(const struct mmp_command_vars *v, char *b, size_t n)
{
	snprintf(b, n, "%s", v->file ? v->file : ""); /* no data file: the config refuses it */
}
static void f_size(const struct mmp_command_vars *v, char *b, size_t n)
{
	snprintf(b, n, "%" PRIu64, v->size);
}
static void f_threads(const struct mmp_command_vars *v, char *b, size_t n)
{
	snprintf(b, n, "%u", v->threads);
}
static void f_access(const struct mmp_command_vars *v, char *b, size_t n)
{
	snprintf(b, n, "%" PRIu64, v->access);
}
static void f_pus(const struct mmp_command_vars *v, char *b, size_t n)
{
	snprintf(b, n, "%s", v->pus);
}
static void f_npus(const struct mmp_command_vars *v, char *b, size_t n)
{
	snprintf(b, n, "%u", v->npus);
}
static void f_kernel(const struct mmp_command_vars *v, char *b, size_t n)
{
	snprintf(b, n, "%s", v->kernel);
}
static void f_job(const struct mmp_command_vars *v, char *b, size_t n)
{
	snprintf(b, n, "%s", v->job);
}
static void f_run(const struct mmp_command_vars *v, char *b, size_t n)
{
	snprintf(b, n, "%zu", v->run);
}

static const struct placeholder placeholders[] = {
	{ "file", "the data file's path", f_file },
	{ "size", "the data file's size in bytes", f_size },
	{ "threads", "the run's threads (the placement plans this many)", f_threads },
	{ "access", "bytes per call, as the job's access key says (required when used)",
	  f_access },
	{ "pus", "the planned PUs, comma-separated (the child is bound to them)", f_pus },
	{ "npus", "how many distinct PUs that is", f_npus },
	{ "kernel", "zeros or histogram", f_kernel },
	{ "job", "the job's name", f_job },
	{ "run", "the run's number in the plan (--dry-run, the CSV's run)", f_run },
};
#define NPLACEHOLDERS (sizeof(placeholders) / sizeof(placeholders[0]))

int mmp_command_placeholders(char *buf, size_t len)
{
	int rc = 0;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < NPLACEHOLDERS && !rc; i++)
		rc = mmp_list_addf(buf, len, " ", "{%s}", placeholders[i].name);
	return rc;
}

void mmp_command_print_placeholders(FILE *out)
{
	for (size_t i = 0; i < NPLACEHOLDERS; i++)
		fprintf(out, "    {%s}%*s %s\n", placeholders[i].name,
			(int)(8 - strlen(placeholders[i].name)), "", placeholders[i].help);
}

static const struct placeholder *find_placeholder(const char *name, size_t len)
{
	for (size_t i = 0; i < NPLACEHOLDERS; i++)
		if (strlen(placeholders[i].name) == len &&
		    strncmp(placeholders[i].name, name, len) == 0)
			return &placeholders[i];
	return NULL;
}

/* A word being built. */
struct word {
	char *s;
	size_t n, cap;
	int started; /* quotes make a word even when it stays empty */
	int quoted;  /* some of it was quoted or escaped: not an operator */
};

static int put(struct word *w, const char *s, size_t n)
{
	if (MMP_VEC_RESERVE(w->s, w->cap, w->n + n + 1))
		return -ENOMEM;
	memcpy(w->s + w->n, s, n);
	w->n += n;
	w->s[w->n] = '\0';
	w->started = 1;
	return 0;
}

static int push_word(struct mmp_argv *out, struct word *w)
{
	char **grown = realloc(out->v, (out->n + 2) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	out->v = grown;
	if (!w->s && put(w, "", 0))
		return -ENOMEM;
	out->v[out->n++] = w->s;
	out->v[out->n] = NULL;
	memset(w, 0, sizeof(*w));
	return 0;
}

/* What a shell would have taken for a pipe, a list or a redirection:
 * "|", "&&", ";", and ">x", "2>x", "<x" (a redirection glued to its file). */
static int is_operator(const char *s)
{
	static const char *const ops[] = { "|", "||", "&", "&&", ";", ";;", NULL };
	static const char *const redirections[] = { ">", "<", "1>", "2>", "&>", NULL };
	for (size_t i = 0; ops[i]; i++)
		if (strcmp(s, ops[i]) == 0)
			return 1;
	for (size_t i = 0; redirections[i]; i++)
		if (strncmp(s, redirections[i], strlen(redirections[i])) == 0)
			return 1;
	return 0;
}

/* A placeholder at *p ("{name}"), written into w: expanded, or as it is
 * when only checking.  Advances *p past it. */
static int placeholder(const char **p, const struct mmp_command_vars *vars, struct word *w,
		       char *err, size_t errlen)
{
	const char *name = *p + 1, *close = strchr(name, '}');
	char value[4096];
	if (!close) {
		snprintf(err, errlen, "'{' without '}' (write {{ for a literal brace)");
		return -EINVAL;
	}
	const struct placeholder *ph = find_placeholder(name, (size_t)(close - name));
	if (!ph) {
		char names[MMP_COMMAND_PLACEHOLDERS_LEN];
		mmp_command_placeholders(names, sizeof(names));
		snprintf(err, errlen, "unknown placeholder {%.*s} (one of %s; {{ and }} are "
				      "literal braces)",
			 (int)(close - name > 64 ? 64 : close - name), name, names);
		return -EINVAL;
	}
	*p = close + 1;
	if (!vars)
		return put(w, name - 1, (size_t)(close - name) + 2);
	ph->format(vars, value, sizeof(value));
	return put(w, value, strlen(value));
}

/* Splitting a command line: where it is and what it has built. */
struct lexer {
	const char *p;
	char quote; /* the open quote, or 0 */
	struct word w;
	const struct mmp_command_vars *vars;
	struct mmp_argv *out;
	char *err;
	size_t errlen;
};

/* {{ and }} are literal braces, { opens a placeholder, a lone } is
 * refused.  Whether the character at lx->p was a brace (*rc then says how
 * it went). */
static int brace(struct lexer *lx, int *rc)
{
	const char *p = lx->p;
	if ((p[0] == '{' || p[0] == '}') && p[1] == p[0]) {
		*rc = put(&lx->w, p, 1);
		lx->p += 2;
	} else if (p[0] == '{') {
		*rc = placeholder(&lx->p, lx->vars, &lx->w, lx->err, lx->errlen);
	} else if (p[0] == '}') {
		snprintf(lx->err, lx->errlen, "'}' without '{' (write }} for a literal brace)");
		*rc = -EINVAL;
	} else {
		return 0;
	}
	return 1;
}

/* Inside quotes: single quotes keep every character, double quotes let a
 * backslash escape " \ $ and ` as sh does. */
static int in_quotes(struct lexer *lx)
{
	const char *p = lx->p;
	if (*p == lx->quote) {
		lx->quote = 0;
		lx->p++;
		return 0;
	}
	if (lx->quote == '"' && *p == '\\' && p[1] && strchr("\"\\$`", p[1])) {
		lx->p += 2;
		return put(&lx->w, p + 1, 1);
	}
	lx->p++;
	return put(&lx->w, p, 1);
}

/* The word ends: one a shell would have taken for an operator is refused,
 * since without a shell it would reach the program. */
static int end_word(struct lexer *lx)
{
	if (!lx->w.started)
		return 0;
	if (!lx->w.quoted && is_operator(lx->w.s)) {
		snprintf(lx->err, lx->errlen,
			 "'%s' would reach the program as an argument: there is no shell "
			 "(quote it, or run sh -c '...')",
			 lx->w.s);
		return -EINVAL;
	}
	return push_word(lx->out, &lx->w);
}

static int unquoted(struct lexer *lx)
{
	const char *p = lx->p;
	if (*p == '\'' || *p == '"') {
		lx->quote = *p;
		lx->w.started = lx->w.quoted = 1;
		lx->p++;
		return 0;
	}
	if (*p == '\\') {
		if (!p[1]) {
			snprintf(lx->err, lx->errlen, "a backslash at the end of the command");
			return -EINVAL;
		}
		lx->w.quoted = 1;
		lx->p += 2;
		return put(&lx->w, p + 1, 1);
	}
	lx->p++;
	if (*p == ' ' || *p == '\t' || *p == '\n')
		return end_word(lx);
	return put(&lx->w, p, 1);
}

int mmp_command_expand(const char *text, const struct mmp_command_vars *vars,
		       struct mmp_argv *out, char *err, size_t errlen)
{
	struct lexer lx = { .p = text, .vars = vars, .out = out, .err = err, .errlen = errlen };
	int rc = 0;

	memset(out, 0, sizeof(*out));
	while (!rc && *lx.p) {
		if (!brace(&lx, &rc))
			rc = lx.quote ? in_quotes(&lx) : unquoted(&lx);
	}
	if (!rc && lx.quote) {
		snprintf(err, errlen, "unterminated %s quote", lx.quote == '\'' ? "single" : "double");
		rc = -EINVAL;
	}
	if (!rc)
		rc = end_word(&lx);
	if (!rc && out->n == 0) {
		snprintf(err, errlen, "an empty command");
		rc = -EINVAL;
	}
	free(lx.w.s);
	if (rc) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		mmp_command_free(out);
	}
	return rc;
}

void mmp_command_free(struct mmp_argv *argv)
{
	for (size_t i = 0; argv->v && i < argv->n; i++)
		free(argv->v[i]);
	free(argv->v);
	memset(argv, 0, sizeof(*argv));
}

int mmp_command_uses(const char *text, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = text; (p = strchr(p, '{')) != NULL;) {
		if (p[1] == '{') {
			p += 2;
			continue;
		}
		if (strncmp(p + 1, name, len) == 0 && p[1 + len] == '}')
			return 1;
		p++;
	}
	return 0;
}

static int safe_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("_@%+=:,./-{}", c);
}

int mmp_command_quote(char *const *argv, size_t argc, char *buf, size_t len)
{
	size_t used = 0;
#define EMIT(ch)                                \
	do {                                    \
		if (used + 1 >= len)            \
			return -ENOSPC;         \
		buf[used++] = (ch);             \
	} while (0)
	for (size_t i = 0; i < argc; i++) {
		const char *a = argv[i];
		int plain = *a != '\0';
		for (const char *p = a; *p && plain; p++)
			plain = safe_char(*p);
		if (i)
			EMIT(' ');
		if (plain) {
			for (const char *p = a; *p; p++)
				EMIT(*p);
			continue;
		}
		EMIT('\'');
		for (const char *p = a; *p; p++) {
			if (*p == '\'') {
				/* 'it'\''s': close, an escaped quote, reopen. */
				EMIT('\'');
				EMIT('\\');
				EMIT('\'');
				EMIT('\'');
			} else {
				EMIT(*p);
			}
		}
		EMIT('\'');
	}
#undef EMIT
	if (len == 0)
		return -ENOSPC;
	buf[used] = '\0';
	return 0;
}
