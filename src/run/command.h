/* Commands of the exec probe: `command = prog {file} 1 {threads}` as an
 * argv, split like a shell splits a word list but with no shell: no
 * variables, globs, pipes or redirections, so what runs is exactly what
 * was written, on every machine.
 *
 *   words       separated by blanks; 'single quotes' keep everything;
 *               "double quotes" keep everything but \" \\ \$ \` (which
 *               drop the backslash); a backslash outside quotes keeps the
 *               next character; '' is an empty word
 *   operators   an unquoted | || & && ; < > >> 2> is refused: with no shell
 *               it would reach the program as a word (sh -c '...' runs one)
 *   {name}      a placeholder, replaced in every word, quoted or not (the
 *               table in command.c: file, size, threads, access, pus, npus,
 *               kernel, job, run); {{ and }} are literal braces
 */
#ifndef MMPROF_COMMAND_H
#define MMPROF_COMMAND_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What the placeholders of one run stand for. */
struct mmp_command_vars {
	const char *file;   /* the data file's path */
	uint64_t size;      /* its bytes */
	unsigned threads;   /* the run's threads */
	uint64_t access;    /* bytes per call; 0: the job did not say */
	const char *pus;    /* the planned PUs, "0,1" */
	unsigned npus;      /* how many distinct PUs */
	const char *kernel; /* zeros or histogram */
	const char *job;    /* the job's name */
	size_t run;         /* the run's number in the plan, from 1 */
};

struct mmp_argv {
	char **v; /* NULL-terminated */
	size_t n;
};

/* Split and expand text.  vars NULL: check only (syntax and placeholder
 * names; each placeholder stays as written).  0, -EINVAL with a message
 * in err, or -ENOMEM. */
int mmp_command_expand(const char *text, const struct mmp_command_vars *vars,
		       struct mmp_argv *out, char *err, size_t errlen);
void mmp_command_free(struct mmp_argv *argv);

/* Whether text names placeholder `name` (after a successful check). */
int mmp_command_uses(const char *text, const char *name);

/* One command line that mmp_command_expand splits back into argv (each
 * word single-quoted where it needs it; braces are left as they are, so
 * placeholders in argv stay placeholders).  -ENOSPC when len is short. */
int mmp_command_quote(char *const *argv, size_t argc, char *buf, size_t len);

/* "{file} {size} ...": the placeholders, for help texts, into buf of len
 * bytes: 0, or -ENOSPC with "..." where the list was cut.
 * MMP_COMMAND_PLACEHOLDERS_LEN holds them all (test_exec checks). */
#define MMP_COMMAND_PLACEHOLDERS_LEN 128
int mmp_command_placeholders(char *buf, size_t len);
/* Each placeholder with its meaning, one per line (docs, --help). */
void mmp_command_print_placeholders(FILE *out);

#endif
