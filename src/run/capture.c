/* Reading a program's output (see capture.h). */
#include "run/capture.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A regex being rewritten from Perl's habits into POSIX ERE. */
struct ere {
	char *out;
	size_t len, used;
	int bracket;  /* inside [...] */
	int repeated; /* the last thing emitted was a repetition (* + ? {m,n}) */
	char *err;
	size_t errlen;
};

static int emit(struct ere *e, const char *s, size_t n)
{
	if (e->used + n + 1 > e->len) {
		snprintf(e->err, e->errlen, "the regex is too long");
		return -EINVAL;
	}
	memcpy(e->out + e->used, s, n);
	e->used += n;
	return 0;
}

/* One member of a bracket expression at *pp, which it advances past. */
static int in_bracket(struct ere *e, const char **pp)
{
	const char *p = *pp;
	if (p[0] == '\\' && p[1] == 'd') {
		*pp = p + 2;
		return emit(e, "0-9", 3);
	}
	/* A ] right after [ or [^ was copied as a member when the bracket
	 * opened, as POSIX reads it. */
	if (*p == ']')
		e->bracket = 0;
	if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
		/* [:digit:] and kin: copy through their closing ]. */
		const char *close = strstr(p + 2, (char[]){ p[1], ']', 0 });
		if (close) {
			*pp = close + 2;
			return emit(e, p, (size_t)(close + 2 - p));
		}
	}
	*pp = p + 1;
	return emit(e, p, 1);
}

/* A repetition of a repetition ("a++", "(x*)*" is fine, "x*+" is not):
 * Perl's possessive and lazy forms, and glibc's regcomp takes exponential
 * memory over a run of them.  *took: *pp was a bound {m,n}, copied whole
 * so that its digits are not read as atoms. */
static int repetition(struct ere *e, const char **pp, int *took)
{
	const char *p = *pp;
	size_t bound = *p == '{' ? strspn(p + 1, "0123456789,") : 0;
	int is_bound = *p == '{' && bound > 0 && bound < 20 && p[1 + bound] == '}';
	int repeat = *p == '*' || *p == '+' || *p == '?' || is_bound;
	*took = 0;
	if (repeat && e->repeated) {
		snprintf(e->err, e->errlen,
			 "'%c' repeats a repetition: POSIX has no possessive or lazy forms (a+?, "
			 "a++); write one repetition",
			 *p);
		return -EINVAL;
	}
	e->repeated = repeat;
	if (!is_bound)
		return 0;
	*took = 1;
	*pp = p + bound + 2;
	return emit(e, p, bound + 2);
}

/* One atom outside brackets: \d and \D rewritten, (? refused, [ opened. */
static int outside(struct ere *e, const char **pp)
{
	const char *p = *pp;
	if (p[0] == '\\' && p[1]) {
		*pp = p + 2;
		if (p[1] == 'd')
			return emit(e, "[0-9]", 5);
		if (p[1] == 'D')
			return emit(e, "[^0-9]", 6);
		return emit(e, p, 2);
	}
	if (p[0] == '(' && p[1] == '?') {
		snprintf(e->err, e->errlen, "'(?' is Perl syntax, not POSIX extended: use a plain "
					    "group ( ); the first group is what is read");
		return -EINVAL;
	}
	if (*p != '[') {
		*pp = p + 1;
		return emit(e, p, 1);
	}
	/* "[", "[^", "[]" and "[^]": the ] is a member there, not the end. */
	size_t n = 1 + (p[1] == '^');
	n += p[n] == ']';
	e->bracket = 1;
	*pp = p + n;
	return emit(e, p, n);
}

/* POSIX ERE has no \d: rewrite it (and \D) into bracket expressions, and
 * refuse Perl's (?...) groups with a message rather than regcomp's
 * "Invalid preceding regular expression". */
static int translate(const char *re, char *out, size_t len, char *err, size_t errlen)
{
	struct ere e = { .out = out, .len = len, .err = err, .errlen = errlen };
	int rc = 0, took;
	for (const char *p = re; *p && !rc;) {
		if (e.bracket)
			rc = in_bracket(&e, &p);
		else if (!(rc = repetition(&e, &p, &took)) && !took)
			rc = outside(&e, &p);
	}
	if (!rc)
		out[e.used] = '\0';
	return rc;
}

static const char *regex_of(const char *spec)
{
	size_t n = strlen(MMP_CAPTURE_PREFIX);
	return strncmp(spec, MMP_CAPTURE_PREFIX, n) == 0 ? spec + n : spec;
}

int mmp_capture_compile(struct mmp_capture *c, const char *spec, char *err, size_t errlen)
{
	char re[2048];
	memset(c, 0, sizeof(*c));
	const char *text = regex_of(spec);
	if (!*text) {
		snprintf(err, errlen, "an empty regex");
		return -EINVAL;
	}
	int rc = translate(text, re, sizeof(re), err, errlen);
	if (rc)
		return rc;
	rc = regcomp(&c->re, re, REG_EXTENDED);
	if (rc) {
		char why[256];
		regerror(rc, &c->re, why, sizeof(why));
		snprintf(err, errlen, "regex '%s': %s", text, why);
		return rc == REG_ESPACE ? -ENOMEM : -EINVAL;
	}
	c->groups = c->re.re_nsub;
	c->compiled = 1;
	return 0;
}

void mmp_capture_free(struct mmp_capture *c)
{
	if (c->compiled)
		regfree(&c->re);
	memset(c, 0, sizeof(*c));
}

int mmp_capture_check(const char *spec, int allow_wall, char *err, size_t errlen)
{
	struct mmp_capture c;
	if (allow_wall && strcmp(spec, "wall") == 0)
		return 0;
	if (strncmp(spec, MMP_CAPTURE_PREFIX, strlen(MMP_CAPTURE_PREFIX)) != 0) {
		snprintf(err, errlen, "'%s' is not %soutput:REGEX", spec,
			 allow_wall ? "wall or " : "");
		return -EINVAL;
	}
	int rc = mmp_capture_compile(&c, spec, err, errlen);
	mmp_capture_free(&c);
	return rc;
}

int mmp_capture_window(const struct mmp_capture *c, const char *win, int first, int last,
		       char *buf, size_t buflen)
{
	regmatch_t m[2];
	/* ^ and $ are the line's ends, not a window's. */
	if (regexec(&c->re, win, 2, m, (first ? 0 : REG_NOTBOL) | (last ? 0 : REG_NOTEOL)) != 0)
		return 0;
	/* A match in a window's second half may be cut by its end ("12" of
	 * "12345"); the next window, which starts there, sees it whole. */
	if (!last && (size_t)m[0].rm_so >= MMP_CAPTURE_WINDOW_STEP)
		return 0;
	regmatch_t *g = c->groups && m[1].rm_so >= 0 ? &m[1] : &m[0];
	snprintf(buf, buflen, "%.*s", (int)(g->rm_eo - g->rm_so), win + g->rm_so);
	return 1;
}

int mmp_capture_line(const struct mmp_capture *c, const char *line, char *buf, size_t buflen)
{
	return mmp_capture_window(c, line, 1, 1, buf, buflen);
}

int mmp_capture_find(const struct mmp_capture *c, const char *text, size_t len, char *buf,
		     size_t buflen)
{
	char line[MMP_CAPTURE_LINE_MAX];
	int found = 0;
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		if (n && p[n - 1] == '\r') /* a Windows-style line end */
			n--;
		/* A longer line in windows, as output_log.c reads a stream. */
		for (size_t off = 0;; off += MMP_CAPTURE_WINDOW_STEP) {
			size_t w = n - off < sizeof(line) - 1 ? n - off : sizeof(line) - 1;
			memcpy(line, p + off, w);
			line[w] = '\0';
			if (mmp_capture_window(c, line, off == 0, off + w == n, buf, buflen)) {
				found = 1;
				break;
			}
			if (off + w == n)
				break;
		}
		p = nl ? nl + 1 : end;
	}
	return found;
}

/* A count is one whole token of decimal digits: "-1048576", "1048576e3",
 * "1,048,576", "1048576.7", "0x100000" and "1048576abc" are not counts,
 * and reading their first digits would pass a wrong answer as right.  A
 * sentence's full stop or comma after the digits is punctuation, not
 * part of the number. */
int mmp_capture_count(const char *text, uint64_t *out, const char **why)
{
	const char *found = NULL;
	size_t found_len = 0;
	const char *dummy;
	if (!why)
		why = &dummy;
	for (const char *p = text; *p;) {
		while (isspace((unsigned char)*p))
			p++;
		const char *s = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		size_t n = (size_t)(p - s);
		int has_digit = 0;
		for (size_t i = 0; i < n && !has_digit; i++)
			has_digit = isdigit((unsigned char)s[i]);
		if (!has_digit)
			continue;
		if (found) {
			*why = "holds more than one number";
			return -EINVAL;
		}
		found = s;
		found_len = n;
	}
	if (!found) {
		*why = "holds no number";
		return -EINVAL;
	}
	if (found_len > 1 && strchr(".,;:", found[found_len - 1]))
		found_len--;
	uint64_t v = 0;
	for (size_t i = 0; i < found_len; i++) {
		if (!isdigit((unsigned char)found[i])) {
			*why = "is not a whole unsigned decimal count";
			return -EINVAL;
		}
		unsigned d = (unsigned)(found[i] - '0');
		if (v > (UINT64_MAX - d) / 10) {
			*why = "is a count larger than 64 bits";
			return -ERANGE;
		}
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* Digits at p: their value and how many. */
static size_t digits(const char *p, uint64_t *v)
{
	size_t n = 0;
	*v = 0;
	while (isdigit((unsigned char)p[n]) && n < 18)
		*v = *v * 10 + (uint64_t)(p[n++] - '0');
	return n;
}

/* A clock at p: [D.]H:MM:SS[.f] or M:SS[.f].  Its length, 0 if none. */
static size_t clock_at(const char *p, uint64_t *ns)
{
	uint64_t field[4], days = 0, frac = 0;
	size_t n, pos = 0, nf = 0;

	n = digits(p, &field[0]);
	if (!n)
		return 0;
	pos = n;
	if (p[pos] == '.' && isdigit((unsigned char)p[pos + 1])) {
		/* "1.02:03:04": a day count, when a clock follows. */
		uint64_t h;
		size_t m = digits(p + pos + 1, &h);
		if (p[pos + 1 + m] == ':') {
			days = field[0];
			field[0] = h;
			pos += 1 + m;
		}
	}
	nf = 1;
	while (nf < 3 && p[pos] == ':' && isdigit((unsigned char)p[pos + 1])) {
		n = digits(p + pos + 1, &field[nf]);
		if (n != 2)
			return 0;
		pos += 1 + n;
		nf++;
	}
	if (nf < 2)
		return 0;
	if (days && nf != 3)
		return 0;
	if (p[pos] == '.' && isdigit((unsigned char)p[pos + 1])) {
		size_t k = 0;
		uint64_t scale = 100000000; /* the first fraction digit is 0.1 s */
		for (pos++; isdigit((unsigned char)p[pos]); pos++, k++) {
			if (k < 9) {
				frac += (uint64_t)(p[pos] - '0') * scale;
				scale /= 10;
			}
		}
	}
	uint64_t secs = nf == 3 ? (days * 24 + field[0]) * 3600 + field[1] * 60 + field[2]
				: field[0] * 60 + field[1];
	*ns = secs * 1000000000u + frac;
	return pos;
}

struct unit {
	const char *name;
	double ns;
};

static const struct unit units[] = {
	{ "ns", 1 },	    { "nanoseconds", 1 }, { "us", 1e3 },	     { "µs", 1e3 },
	{ "μs", 1e3 },	    { "microseconds", 1e3 }, { "ms", 1e6 },	     { "milliseconds", 1e6 },
	{ "s", 1e9 },	    { "sec", 1e9 },	  { "secs", 1e9 },	     { "second", 1e9 },
	{ "seconds", 1e9 }, { "min", 60e9 },	  { "minutes", 60e9 },	     { "h", 3600e9 },
	{ "hours", 3600e9 },
};

/* A number with an optional unit at p.  Its length, 0 if none. */
static size_t number_at(const char *p, uint64_t *ns)
{
	char *end;
	double v = strtod(p, &end);
	if (end == p || !isfinite(v) || v < 0)
		return 0;
	const char *u = end;
	while (*u == ' ')
		u++;
	double factor = 1e9; /* a bare number is seconds */
	size_t best = 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t l = strlen(units[i].name);
		/* The whole word: "ms" but not the "m" of "minutes". */
		if (strncmp(u, units[i].name, l) == 0 && !isalpha((unsigned char)u[l]) && l > best) {
			best = l;
			factor = units[i].ns;
		}
	}
	double x = v * factor;
	if (x >= 1.8e19)
		return 0;
	*ns = (uint64_t)llround(x);
	return (size_t)((best ? u + best : end) - p);
}

/* A minus sign before p: '-' after a space, a colon or the start, not
 * the '-' of "2024-01-02" or "run-3". */
static int minus_before(const char *text, const char *p)
{
	return p > text && p[-1] == '-' &&
	       (p - 1 == text || !isalnum((unsigned char)p[-2]));
}

int mmp_capture_duration(const char *text, uint64_t *ns, char *err, size_t errlen)
{
	for (const char *p = text; *p; p++) {
		if (!isdigit((unsigned char)*p) || (p > text && (isdigit((unsigned char)p[-1]) ||
								  p[-1] == '.')))
			continue;
		size_t n = clock_at(p, ns);
		if (!n)
			n = number_at(p, ns);
		if (!n)
			continue;
		/* Read as written or not at all: "-0.3 s" is not 0.3 s, and
		 * "1,234 ms" or a de_DE "1,5 s" is not 1 s (the comma is a
		 * thousands separator in one locale, the decimal point in
		 * another: which one cannot be told from the text). */
		if (minus_before(text, p)) {
			snprintf(err, errlen, "a negative duration in '%.80s': a program's time "
					      "cannot be below 0 (a clock that went back?)",
				 text);
			return -ERANGE;
		}
		if (p[n] == ',' && isdigit((unsigned char)p[n + 1])) {
			snprintf(err, errlen, "a comma in the number in '%.80s': a thousands "
					      "separator or a decimal comma (de_DE) cannot be told "
					      "apart; print it with a point (e.g. LC_NUMERIC=C)",
				 text);
			return -EINVAL;
		}
		return 0;
	}
	snprintf(err, errlen, "no duration in '%.80s' (a clock like 00:00:01.25, or a number "
			      "with a unit like 12.5 ms)",
		 text);
	return -EINVAL;
}
