/* Config files: INI (libinih), one table of keys, [global] inherited by every
 * job section, comma lists expanded into runs.
 *
 *   mmp_config_load()   parse and check every value against the key table
 *   mmp_config_expand() jobs x sweep points -> the job points (a list of runs),
 *                       checking combinations (a probe given a key it does
 *                       not read, more threads than bytes, ...)
 *
 * Errors are collected, not printed, each as
 * "FILE:LINE: [section] message"; both functions return -EINVAL when there
 * is at least one.  The first MMP_CONFIG_MAX_DIAGS are kept; the rest are
 * counted in cfg->truncated (mmp_config_summary says so).
 *
 * A file that is not a config at all is one diagnostic (line 0) and a
 * distinct errno from mmp_config_load: -EISDIR a directory, -ENODEV a
 * device or socket (/dev/zero used to be read forever), -EFBIG more than
 * MMP_CONFIG_MAX_BYTES, -ENODATA a FIFO nobody wrote to (never waited
 * for).  A NUL byte is -EINVAL with its line.  A UTF-8 byte order mark is
 * skipped.  Other errnos (-ENOENT, -EACCES) come from open() alone, with
 * no diagnostic.
 */
#ifndef MMPROF_CONFIG_H
#define MMPROF_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/error.h"
#include "mmprof/params.h"

struct mmp_key;

/* A key's value type (fio's parse.h types, each with its callbacks): how
 * the text of one value becomes the field of struct mmp_params, how the
 * field is written back as a config would spell it, and what --help says
 * it takes.  The stage whose values they are owns a type: config's own
 * are below, the rest are declared at the end of this header and defined
 * in that stage beside the parser they call, so config names them in its
 * key table without including a later stage's header. */
struct mmp_key_type {
	/* One value into dst (the field's storage): 0, or -EINVAL with a
	 * message in err (-ENOMEM).  A value kept as text points into text,
	 * which outlives dst. */
	int (*parse)(const struct mmp_key *key, const char *text, void *dst, char *err,
		     size_t errlen);
	/* The field as text; "" for an unset value. */
	void (*format)(const struct mmp_key *key, const void *src, char *buf, size_t len);
	/* What it takes, for --help, --list-keys and the README table. */
	void (*limits)(const struct mmp_key *key, char *buf, size_t len);
	/* NULL, or whether the comma after prev is inside one value and next
	 * goes on with it ("pus:0-3,8", "interleave:0,2"). */
	bool (*list_continues)(const char *prev, const char *next);
	/* Other keys this value needs in the run: check `what` (0 to
	 * nneeds - 1, at most 8) gives a message when the run lacks them,
	 * else NULL.  Each is said once per job, after its sweep. */
	const char *(*needs)(const struct mmp_params *p, unsigned what, char *buf, size_t len);
	unsigned nneeds;
	/* The value is any text (a path, a name): a comma in it is written \,. */
	bool verbatim;
	/* The value is a list the type splits itself (env = A=1, B=2): a
	 * "\," reaches parse as written, a comma inside one of its items. */
	bool own_list;
};

/* Config's own types (config_types.c, config_numbers.c). */
extern const struct mmp_key_type mmp_key_path;    /* a path, taken as written */
extern const struct mmp_key_type mmp_key_jobs;    /* job names (one, or a list value) */
extern const struct mmp_key_type mmp_key_size;    /* bytes, K/M/G/T binary suffixes */
extern const struct mmp_key_type mmp_key_uint;    /* a plain count */
extern const struct mmp_key_type mmp_key_enum;    /* one of key->values */
extern const struct mmp_key_type mmp_key_bool;    /* yes/no */
extern const struct mmp_key_type mmp_key_probe;   /* a probe name from the registry */
extern const struct mmp_key_type mmp_key_keylist; /* names of sweepable keys (zip) */
extern const struct mmp_key_type mmp_key_repeat;  /* a count, or auto (stored as 0) */
extern const struct mmp_key_type mmp_key_percent; /* 5% or 0.05, stored as a fraction */
extern const struct mmp_key_type mmp_key_seconds; /* 90, 90s, 1.5m, 500ms, as seconds */
extern const struct mmp_key_type mmp_key_rate;    /* per second (1000, 4kHz), or off (0) */

enum mmp_key_flags {
	MMP_KEY_GLOBAL_ONLY = 1 << 0, /* only in [global]: one value per config */
	MMP_KEY_NO_SWEEP = 1 << 1,    /* one value per job: never swept */
	MMP_KEY_LIST_VALUE = 1 << 2,  /* the value is itself a comma list (names) */
};

/* What a key means for a run's identity (issue 18: one definition that
 * the plan, the results, the answers, compare and the Python loader all
 * read; `mmprof --list-keys=roles` exports it to analysis/keys.tsv). */
enum mmp_key_role {
	/* Identifies a run: another value is another run.  Its CSV column
	 * (of the same name; size is the CSV's bytes) says it per row. */
	MMP_ROLE_RUN = 1 << 0,
	/* Must match for mmprof compare to pair a run of A with one of B
	 * (`--vary KEY` lets it differ).  The data file's path is not one:
	 * it names the machine's data directory, not the run. */
	MMP_ROLE_COMPARE = 1 << 1,
	/* Held fixed by a ratio between two jobs of one plan (baseline,
	 * fixes, model): the same bytes read in the same conditions, the
	 * access path aside. */
	MMP_ROLE_CONDITION = 1 << 2,
	/* Named in a run's label when its value differs between job points
	 * (job, probe, threads and access are always named). */
	MMP_ROLE_LABEL = 1 << 3,
	/* Left out of the plan's per-run lines: said once for the config. */
	MMP_ROLE_HIDDEN = 1 << 4,
};
#define MMP_ROLE_COUNT 5
/* "run", "compare", "condition", "label", "hidden": bit i's name. */
extern const char *const mmp_key_role_names[MMP_ROLE_COUNT];
/* The keys with every role of roles, as MMP_KEY_BIT()s. */
uint64_t mmp_keys_with(unsigned roles);

struct mmp_key {
	const char *name;
	enum mmp_key_id id;
	const struct mmp_key_type *type;
	size_t offset;             /* of the field in struct mmp_params */
	size_t width;              /* sizeof that field (mmp_key_uint: 4 or 8 bytes) */
	const char *def;           /* default as text; NULL: not set */
	uint64_t min, max;         /* the numeric types' limits */
	const char *const *values; /* mmp_key_enum: NULL-terminated */
	unsigned flags;            /* enum mmp_key_flags */
	unsigned roles;            /* enum mmp_key_role */
	const char *group;         /* data, what runs, where, how, job, config */
	const char *help;          /* one line */
	const char *default_help;  /* shown instead of def when def is NULL */
};

/* The one table of config keys, indexed by enum mmp_key_id. */
extern const struct mmp_key mmp_keys[MMP_KEY_COUNT];
const struct mmp_key *mmp_key_find(const char *name);

/* A key as one section sets it. */
struct mmp_setting {
	int line;     /* 0: not set in this section */
	size_t count; /* values in its comma list */
	char **text;  /* each value as written */
	void *values; /* count parsed values, each the width of the field */
};

struct mmp_job {
	char *name;
	int line; /* of the [section] header */
	int bad;  /* a diagnostic while its section was read: not expanded,
		   * so its errors do not echo as others' */
	struct mmp_setting set[MMP_KEY_COUNT];
};

/* Diagnostics kept per config: the first fifty say what is wrong; more
 * would scroll the first ones away. */
#define MMP_CONFIG_MAX_DIAGS 50
/* A config is a small text file; anything larger (a log, a data file, a
 * device) is refused before it is parsed. */
#define MMP_CONFIG_MAX_BYTES (1 << 20)

/* Runs one config may expand to (the product of each job's lists, summed
 * over its jobs), checked before any run is built: three lists of 500
 * values are 125 million runs, which would take days to measure and
 * minutes to even list.  Split larger sweeps into several configs. */
#define MMP_CONFIG_MAX_RUNS 100000

struct mmp_config {
	char *path;
	struct mmp_job global;
	struct mmp_job *jobs;
	size_t njobs;
	char **diags; /* "FILE:LINE: [section] message" */
	size_t ndiags;
	size_t truncated; /* diagnostics not kept (beyond MMP_CONFIG_MAX_DIAGS) */
};

/* One run: a job at one sweep point, or a control variant of one. */
struct mmp_run {
	size_t index;     /* position in the sweep, then in the plan */
	unsigned control; /* MMP_CONTROL_* applied: 0 for the job itself */
	char control_name[64]; /* "prefault+private", "" for the job itself */
	size_t job_index; /* into cfg->jobs */
	const struct mmp_job *job;
	struct mmp_params p;
	uint64_t applies;            /* MMP_KEY_BIT of keys that mean something here */
	int line[MMP_KEY_COUNT];     /* line each value came from; 0: default */
	const char *from[MMP_KEY_COUNT]; /* section it came from; NULL: default */
};

/* The job points: every job at every point of its sweep, in config order.
 * The plan (plan.h) adds the controls' rungs and the comparison sets. */
struct mmp_sweep {
	struct mmp_run *runs;
	size_t nruns;
};

/* The run's kind (probe.h): whether it runs a program. */
enum mmp_run_kind mmp_run_kind(const struct mmp_run *run);

int mmp_config_load(const char *path, struct mmp_config *cfg);
/* A config built in memory (mmprof exec): an empty one named `name`, then
 * one key at a time, each checked as if read from a file at `line` (its
 * diagnostics say "name:line: [section] ...").  -ENOMEM only: problems are
 * diagnostics, as for a file. */
int mmp_config_init(struct mmp_config *cfg, const char *name);
int mmp_config_set(struct mmp_config *cfg, const char *section, const char *key,
		   const char *value, int line);
/* A job name a section header takes: letters, digits, '_', '-', '.'. */
bool mmp_config_job_name_ok(const char *name);

/* Where mmprof --config NAME looks when NAME has no '/' (one with a '/' is
 * a path, opened as written): in each directory, NAME then NAME.ini.
 *   1. the current directory;
 *   2. each directory of $MMPROF_CONFIG_PATH, colon-separated (empty
 *      entries skipped);
 *   3. configs/ beside the executable, when there is one (the build tree);
 *   4. ../share/mmprof/configs from the executable's directory, when there
 *      is one (an install moved elsewhere, or staged with DESTDIR);
 *   5. MMPROF_DATADIR/configs, PREFIX/share/mmprof compiled in by the
 *      Makefile (make install puts the shipped configs there).
 * A directory met twice is searched once. */
struct mmp_config_search {
	size_t n;
	char **dir;       /* "." for the current directory */
	const char **why; /* "the current directory", "MMPROF_CONFIG_PATH", ... */
};
/* 0, or -ENOMEM. */
int mmp_config_search_path(struct mmp_config_search *sp);
void mmp_config_search_free(struct mmp_config_search *sp);
/* The file --config name opens, in buf: name itself when it has a '/',
 * else the first match on the path (in the current directory, as written:
 * "x.ini", not "./x.ini"), else name when it is a directory here (the
 * loader says it is one).  -ENOENT when nothing matched, with every
 * directory looked in, and a near name when one is on the path, in err. */
int mmp_config_find(const struct mmp_config_search *sp, const char *name, char *buf,
		    size_t len, struct mmp_error *err);
/* Each config the path offers by name: fn(NAME, DIR/NAME.ini) for every
 * *.ini, in search order, a name shadowed by an earlier directory's left
 * out.  0, or -ENOMEM. */
int mmp_config_list(const struct mmp_config_search *sp,
		    void (*fn)(const char *name, const char *path, void *arg), void *arg);
int mmp_config_expand(struct mmp_config *cfg, struct mmp_sweep *sweep);
void mmp_config_free(struct mmp_config *cfg);
void mmp_sweep_free(struct mmp_sweep *sweep);

/* The line to print after the diagnostics: "3 error(s) in FILE; nothing
 * was run", or "50 errors shown, 7 more not shown, in FILE; nothing was
 * run" when some were not kept. */
/* The diagnostics in the order of the lines they name (the config as a
 * whole first): the stages that find them (reading, expanding, checking
 * data, planning) each add theirs, and the user reads the file top down. */
void mmp_config_sort_diags(struct mmp_config *cfg);
const char *mmp_config_summary(const struct mmp_config *cfg, char *buf, size_t len);

/* Where a diagnostic or a note points: "FILE:LINE: [section]" (line 0:
 * "FILE: [section]"; no section: "FILE:LINE:"). */
const char *mmp_config_where(const struct mmp_config *cfg, int line, const char *section,
			     char *buf, size_t len);
/* Add a diagnostic "FILE:LINE: [section] message" (line 0: "FILE: ..."). */
void mmp_config_diag(struct mmp_config *cfg, int line, const char *section,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The value of one key of a run, as a config file would spell it; "" when
 * the key does not apply to the run's probe or is not set. */
const char *mmp_run_format(const struct mmp_run *run, enum mmp_key_id key, char *buf,
			   size_t len);

/* Key table as text: for --help, and as Markdown for README.md. */
/* --list-keys: text, a Markdown table, or each key's roles (key TAB
 * role,role; "-" for none) for the Python loader. */
enum mmp_list_format { MMP_LIST_TEXT, MMP_LIST_MARKDOWN, MMP_LIST_ROLES };
void mmp_keys_print(FILE *out, enum mmp_list_format format);

/* Parse one value of a key into dst (the field's storage), by its type.
 * Returns 0, or -EINVAL with a message in err (no file or line: the
 * caller adds them).  String values point into text, which must outlive
 * dst (a setting's text lives as long as its config; defaults are
 * static). */
int mmp_key_parse(const struct mmp_key *key, const char *text, void *dst, char *err,
		  size_t errlen);
/* Format a field's value ("" for unset strings and sizes). */
const char *mmp_key_format(const struct mmp_key *key, const void *src, char *buf,
			   size_t len);
/* Split a comma list into values (the placement type keeps "pus:0-3,8"
 * together).  Returns the count, or -EINVAL for an empty value. */
int mmp_key_split(const struct mmp_key *key, const char *text, char ***items);
void mmp_key_free_items(char **items, size_t n);
/* A value kept as the text written (a type's format). */
void mmp_key_format_text(const struct mmp_key *key, const void *src, char *buf, size_t len);

/* The types of values later stages own, each defined in its stage beside
 * the parser it calls (only the key table names them here). */
/* src/platform/platform_keys.c: placement, membind, events (names, presets) */
extern const struct mmp_key_type mmp_key_placement, mmp_key_membind, mmp_key_events;
/* src/plan/plan_keys.c: controls (auto, none, or names) */
extern const struct mmp_key_type mmp_key_controls;
/* src/run/run_keys.c: command (an argv with {placeholders}); time (wall or
 * output:REGEX) and result (output:REGEX); env (VAR=VALUE, ...: a
 * program's environment, child_env.h) */
extern const struct mmp_key_type mmp_key_command, mmp_key_time, mmp_key_capture, mmp_key_env;


#endif
