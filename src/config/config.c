/* Reading a config file: libinih does the INI syntax; this file feeds it
 * through a reader that counts lines (the Debian build passes no line
 * number to the handler), notices section headers and malformed lines, and
 * checks every value against the key table as it arrives.
 */
#include "config/config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mmprof/probe.h"
#include "util/suggest.h"

_Static_assert(sizeof(enum mmp_fill) == sizeof(int), "enum keys are stored as int");
_Static_assert(sizeof(enum mmp_tally) == sizeof(int), "enum keys are stored as int");

#define MAX_LINE 4096

const char *mmp_config_where(const struct mmp_config *cfg, int line, const char *section,
			     char *buf, size_t len)
{
	if (line > 0 && section)
		snprintf(buf, len, "%s:%d: [%s]", cfg->path, line, section);
	else if (line > 0)
		snprintf(buf, len, "%s:%d:", cfg->path, line);
	else if (section)
		snprintf(buf, len, "%s: [%s]", cfg->path, section);
	else
		snprintf(buf, len, "%s:", cfg->path);
	return buf;
}

void mmp_config_diag(struct mmp_config *cfg, int line, const char *section,
		     const char *fmt, ...)
{
	char msg[1024], full[1400];
	va_list ap;

	if (cfg->ndiags >= MMP_CONFIG_MAX_DIAGS) {
		cfg->truncated++;
		return;
	}
	char where[600];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(full, sizeof(full), "%s %s", mmp_config_where(cfg, line, section, where, sizeof(where)),
		 msg);
	char **grown = realloc(cfg->diags, (cfg->ndiags + 1) * sizeof(*grown));
	if (!grown) {
		cfg->truncated++;
		return;
	}
	cfg->diags = grown;
	cfg->diags[cfg->ndiags] = strdup(full);
	if (cfg->diags[cfg->ndiags])
		cfg->ndiags++;
	else
		cfg->truncated++;
}

/* The line a diagnostic names ("FILE:LINE: ..."), 0 for the config as a
 * whole. */
static long diag_line(const struct mmp_config *cfg, const char *diag)
{
	size_t n = strlen(cfg->path);
	if (strncmp(diag, cfg->path, n) != 0 || diag[n] != ':')
		return 0;
	char *end;
	long line = strtol(diag + n + 1, &end, 10);
	return end != diag + n + 1 && *end == ':' ? line : 0;
}

void mmp_config_sort_diags(struct mmp_config *cfg)
{
	/* Insertion sort: stable (one line's errors keep the order they were
	 * found in) and at most MMP_CONFIG_MAX_DIAGS of them. */
	for (size_t i = 1; i < cfg->ndiags; i++) {
		char *d = cfg->diags[i];
		long line = diag_line(cfg, d);
		size_t j = i;
		for (; j > 0 && diag_line(cfg, cfg->diags[j - 1]) > line; j--)
			cfg->diags[j] = cfg->diags[j - 1];
		cfg->diags[j] = d;
	}
}

const char *mmp_config_summary(const struct mmp_config *cfg, char *buf, size_t len)
{
	if (cfg->truncated)
		snprintf(buf, len, "%zu errors shown, %zu more not shown, in %s; nothing was run",
			 cfg->ndiags, cfg->truncated, cfg->path);
	else
		snprintf(buf, len, "%zu error(s) in %s; nothing was run", cfg->ndiags, cfg->path);
	return buf;
}

/* State shared by the reader and the handler while one file is parsed. */
struct parse_state {
	struct mmp_config *cfg;
	FILE *file;
	int line;
	size_t bytes;            /* read so far: MMP_CONFIG_MAX_BYTES at most */
	int stop;                /* not a text config after all: read no further */
	struct mmp_job *current; /* section of the last header seen */
	int skip;                /* keys under a malformed header: already reported */
	int nomem;
};

/* A diagnostic since `before` (errors counted, shown or not): the section
 * being read is bad. */
static void mark_if_said(struct parse_state *st, size_t before)
{
	if (st->current && st->cfg->ndiags + st->cfg->truncated != before)
		st->current->bad = 1;
}

bool mmp_config_job_name_ok(const char *name)
{
	if (!*name)
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
			return false;
	return true;
}

static struct mmp_job *find_job(struct mmp_config *cfg, const char *name)
{
	if (strcmp(name, "global") == 0)
		return &cfg->global;
	for (size_t i = 0; i < cfg->njobs; i++)
		if (strcmp(cfg->jobs[i].name, name) == 0)
			return &cfg->jobs[i];
	return NULL;
}

/* A "[name]" line: a new job (or [global]), checked for duplicates. */
static void section_header(struct parse_state *st, const char *text)
{
	struct mmp_config *cfg = st->cfg;
	const char *close = strchr(text, ']');
	char name[256];

	if (!close || close[1] != '\0') {
		mmp_config_diag(cfg, st->line, NULL, "malformed section header '%s'", text);
		st->current = NULL;
		st->skip = 1;
		return;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(close - text - 1), text + 1);
	struct mmp_job *job = find_job(cfg, name);
	if (job && job->line) {
		mmp_config_diag(cfg, st->line, name,
				"section appears twice (first at line %d); a job is one section",
				job->line);
		st->current = job;
		return;
	}
	if (!job && !mmp_config_job_name_ok(name)) {
		mmp_config_diag(cfg, st->line, name,
				"job names use letters, digits, '_', '-' and '.'");
	}
	if (!job) {
		struct mmp_job *grown = realloc(cfg->jobs, (cfg->njobs + 1) * sizeof(*grown));
		if (!grown) {
			st->nomem = 1;
			return;
		}
		cfg->jobs = grown;
		job = &cfg->jobs[cfg->njobs];
		memset(job, 0, sizeof(*job));
		job->name = strdup(name);
		if (!job->name) {
			st->nomem = 1;
			return;
		}
		cfg->njobs++;
	}
	job->line = st->line;
	st->current = job;
	st->skip = 0;
}

/* One byte of the file, or EOF; past MMP_CONFIG_MAX_BYTES the file is not
 * a config (a FIFO or a /proc file can be larger than fstat said). */
static int next_byte(struct parse_state *st)
{
	if (st->stop)
		return EOF;
	int c = getc(st->file);
	if (c != EOF && ++st->bytes > MMP_CONFIG_MAX_BYTES) {
		mmp_config_diag(st->cfg, 0, NULL,
				"more than %d bytes: not a config file (the limit is %d bytes)",
				MMP_CONFIG_MAX_BYTES, MMP_CONFIG_MAX_BYTES);
		st->stop = -EFBIG;
		return EOF;
	}
	return c;
}

/* libinih calls this for every physical line.  It is where line numbers,
 * section headers and lines libinih would reject are seen; it reads byte
 * by byte (not fgets) so that a NUL byte is seen rather than taken for the
 * end of the line. */
static char *read_line(char *buf, int size, void *stream)
{
	struct parse_state *st = stream;
	size_t n = 0;
	int ch = EOF, nul = 0;

	while (n + 1 < (size_t)size && (ch = next_byte(st)) != EOF) {
		nul |= ch == '\0';
		buf[n++] = (char)ch;
		if (ch == '\n')
			break;
	}
	if (n == 0)
		return NULL;
	buf[n] = '\0';
	st->line++;
	int full = n + 1 == (size_t)size && buf[n - 1] != '\n';
	/* A UTF-8 byte order mark, as some Windows editors write. */
	if (st->line == 1 && n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) {
		memmove(buf, buf + 3, n - 2);
		n -= 3;
	}
	if (nul) {
		mmp_config_diag(st->cfg, st->line, NULL,
				"a NUL byte: this is not a text file (a config is INI text)");
		st->stop = -EINVAL;
		return NULL;
	}
	if (full) {
		ch = next_byte(st);
		if (ch != EOF && ch != '\n') {
			mmp_config_diag(st->cfg, st->line, NULL, "line longer than %d characters",
					MAX_LINE - 3);
			while ((ch = next_byte(st)) != EOF && ch != '\n')
				;
			buf[0] = '\0';
			return buf;
		}
	}

	char *p = buf;
	while (isspace((unsigned char)*p))
		p++;
	char *end = p + strlen(p);
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	char saved = *end;
	*end = '\0';
	if (*p == '[') {
		/* The header may carry an inline comment, as libinih allows. */
		char *c = strchr(p, ';');
		char *stop = c ? c : end;
		while (stop > p && isspace((unsigned char)stop[-1]))
			stop--;
		char keep = *stop;
		*stop = '\0';
		section_header(st, p);
		*stop = keep;
	} else if (*p && *p != ';' && *p != '#' && !strchr(p, '=') && !strchr(p, ':')) {
		mmp_config_diag(st->cfg, st->line, NULL,
				"expected 'key = value' or '[section]', got '%s'", p);
		buf[0] = '\0'; /* already reported: keep libinih quiet */
		return buf;
	}
	*end = saved;
	return buf;
}

/* A line's own problems (a NUL byte, too long, not key = value, a bad or
 * repeated header) mark the section it is in as bad. */
static char *count_lines(char *buf, int size, void *stream)
{
	struct parse_state *st = stream;
	size_t before = st->cfg->ndiags + st->cfg->truncated;
	char *line = read_line(buf, size, stream);
	mark_if_said(st, before);
	return line;
}

static void unknown_key(struct mmp_config *cfg, int line, const char *section,
			const char *name)
{
	const char *names[MMP_KEY_COUNT];
	for (size_t i = 0; i < MMP_KEY_COUNT; i++)
		names[i] = mmp_keys[i].name;
	const char *hint = mmp_suggest(name, names, MMP_KEY_COUNT);
	if (hint)
		mmp_config_diag(cfg, line, section, "unknown key '%s' (did you mean '%s'?)", name,
				hint);
	else
		mmp_config_diag(cfg, line, section, "unknown key '%s' (see mmprof --help)", name);
}

static int store_setting(struct parse_state *st, struct mmp_job *job,
			 const struct mmp_key *key, const char *value)
{
	struct mmp_config *cfg = st->cfg;
	struct mmp_setting *set = &job->set[key->id];
	char **items = NULL;
	char err[512];
	size_t width = key->width;

	if (*value == '\0') {
		mmp_config_diag(cfg, st->line, job->name, "%s has no value", key->name);
		return 1;
	}
	int n = mmp_key_split(key, value, &items);
	if (n == -ENOMEM)
		return 0;
	if (n > 1 && (key->flags & MMP_KEY_NO_SWEEP)) {
		mmp_key_free_items(items, (size_t)n);
		mmp_config_diag(cfg, st->line, job->name, "%s takes one value, not a list%s",
				key->name,
				key->type->verbatim ? " (write \\, for a comma in it)" : "");
		return 1;
	}
	if (n < 0) {
		mmp_config_diag(cfg, st->line, job->name, "%s = %s: empty value in the list",
				key->name, value);
		return 1;
	}
	set->values = calloc((size_t)n, width);
	if (!set->values) {
		mmp_key_free_items(items, (size_t)n);
		return 0;
	}
	set->text = items;
	set->count = (size_t)n;
	set->line = st->line;
	for (int i = 0; i < n; i++) {
		err[0] = '\0';
		int rc = mmp_key_parse(key, items[i], (char *)set->values + (size_t)i * width, err,
				       sizeof(err));
		if (rc == -ENOMEM)
			return 0;
		if (rc)
			mmp_config_diag(cfg, st->line, job->name, "%s", err);
	}
	return 1;
}

static int handle_key(void *user, const char *section, const char *name, const char *value)
{
	struct parse_state *st = user;
	struct mmp_config *cfg = st->cfg;
	struct mmp_job *job = st->current;

	if (st->nomem)
		return 0;
	if (st->skip)
		return 1;
	if (!section[0] || !job) {
		mmp_config_diag(cfg, st->line, NULL,
				"'%s' is outside any section (put it under [global] or a job)",
				name);
		return 1;
	}
	const struct mmp_key *key = mmp_key_find(name);
	if (!key) {
		unknown_key(cfg, st->line, job->name, name);
		return 1;
	}
	if ((key->flags & MMP_KEY_GLOBAL_ONLY) && job != &cfg->global) {
		mmp_config_diag(cfg, st->line, job->name,
				"'%s' applies to the whole config: set it in [global]", name);
		return 1;
	}
	if (job->set[key->id].line) {
		mmp_config_diag(cfg, st->line, job->name,
				"'%s' is set twice in this section (first at line %d)", name,
				job->set[key->id].line);
		return 1;
	}
	if (!store_setting(st, job, key, value)) {
		st->nomem = 1;
		return 0;
	}
	return 1;
}

/* Every key line: a diagnostic marks the section it is in as bad. */
static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct parse_state *st = user;
	size_t before = st->cfg->ndiags + st->cfg->truncated;
	int rc = handle_key(user, section, name, value);
	mark_if_said(st, before);
	return rc;
}

static void release_job(struct mmp_job *job)
{
	for (size_t k = 0; k < MMP_KEY_COUNT; k++) {
		struct mmp_setting *set = &job->set[k];
		free(set->values);
		mmp_key_free_items(set->text, set->count);
	}
	free(job->name);
}

void mmp_config_free(struct mmp_config *cfg)
{
	release_job(&cfg->global);
	for (size_t i = 0; i < cfg->njobs; i++)
		release_job(&cfg->jobs[i]);
	free(cfg->jobs);
	for (size_t i = 0; i < cfg->ndiags; i++)
		free(cfg->diags[i]);
	free(cfg->diags);
	free(cfg->path);
	memset(cfg, 0, sizeof(*cfg));
}

static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode)    ? "a directory"
	       : S_ISCHR(mode)  ? "a character device"
	       : S_ISBLK(mode)  ? "a block device"
	       : S_ISSOCK(mode) ? "a socket"
				: "not a regular file";
}

/* Open the config without trusting it to be one: O_NONBLOCK so a FIFO
 * nobody writes to does not block the open, then refuse what cannot be a
 * config (a directory; a device, which /dev/zero showed reads forever) and
 * what is too large, each with one line.  A FIFO or pipe is read (bash's
 * <(...) is one); with no writer it reads as empty at once. */
static int open_config(struct mmp_config *cfg, const char *path, FILE **out)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	int rc = 0;
	if (fstat(fd, &st)) {
		rc = -errno;
	} else if (S_ISDIR(st.st_mode)) {
		mmp_config_diag(cfg, 0, NULL, "is a directory, not a config file");
		rc = -EISDIR;
	} else if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		mmp_config_diag(cfg, 0, NULL, "is %s, not a config file", file_kind(st.st_mode));
		rc = -ENODEV;
	} else if (st.st_size > MMP_CONFIG_MAX_BYTES) {
		mmp_config_diag(cfg, 0, NULL,
				"is %lld bytes: not a config file (the limit is %d bytes)",
				(long long)st.st_size, MMP_CONFIG_MAX_BYTES);
		rc = -EFBIG;
	} else {
		int flags = fcntl(fd, F_GETFL);
		if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
			rc = -errno;
		else if (!(*out = fdopen(fd, "r")))
			rc = -errno;
		else
			return S_ISFIFO(st.st_mode) ? 1 : 0;
	}
	close(fd);
	return rc;
}

int mmp_config_init(struct mmp_config *cfg, const char *name)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->path = strdup(name);
	cfg->global.name = strdup("global");
	return cfg->path && cfg->global.name ? 0 : -ENOMEM;
}

int mmp_config_set(struct mmp_config *cfg, const char *section, const char *key,
		   const char *value, int line)
{
	struct parse_state st = { .cfg = cfg, .line = line };
	struct mmp_job *job = find_job(cfg, section);
	if (job && job->line) {
		st.current = job;
	} else {
		char header[300];
		snprintf(header, sizeof(header), "[%s]", section);
		section_header(&st, header);
	}
	if (!st.nomem)
		on_key(&st, section, key, value);
	return st.nomem ? -ENOMEM : 0;
}

int mmp_config_load(const char *path, struct mmp_config *cfg)
{
	struct parse_state st = { .cfg = cfg };

	memset(cfg, 0, sizeof(*cfg));
	cfg->path = strdup(path);
	cfg->global.name = strdup("global");
	if (!cfg->path || !cfg->global.name)
		return -ENOMEM;
	int fifo = open_config(cfg, path, &st.file);
	if (fifo < 0)
		return fifo;

	/* One value per line: an indented line is a key of its own, not a
	 * continuation, and long lines are read whole. */
	ini_allow_multiline = 0;
	ini_use_stack = 0;
	ini_allow_realloc = 1;
	ini_initial_alloc = MAX_LINE;
	ini_max_line = MAX_LINE;
	int rc = ini_parse_stream(count_lines, &st, on_key, &st);
	fclose(st.file);
	if (st.nomem || rc == -2)
		return -ENOMEM;
	if (st.stop == -EFBIG)
		return -EFBIG;
	if (rc > 0 && cfg->ndiags == 0)
		mmp_config_diag(cfg, rc, NULL, "syntax error");
	if (fifo && st.bytes == 0 && cfg->ndiags == 0) {
		mmp_config_diag(cfg, 0, NULL, "is a FIFO and nothing was written to it");
		return -ENODATA;
	}
	if (cfg->njobs == 0 && cfg->ndiags == 0)
		mmp_config_diag(cfg, 0, NULL,
				"no jobs: add a section such as [scan] with probe = mmap_byte");
	return cfg->ndiags ? -EINVAL : 0;
}
