/* The words of a session's messages and the observer that prints them
 * on stderr (say.c; observer.h has the facts).  Part of the binary. */
#ifndef MMPROF_CLI_SAY_H
#define MMPROF_CLI_SAY_H

#include <stdio.h>

#include "util/observer.h"

struct mmp_say {
	FILE *out;    /* stderr */
	int quiet;    /* --quiet: errors only */
	int progress; /* a progress line (stderr is a TTY, not --quiet) */
	int shown;    /* a progress line is on the screen */
};

/* The observer that words what it is told onto say->out. */
void mmp_say_observer(struct mmp_say *say, struct mmp_observer *obs);
/* One message's line, as the observer prints it. */
void mmp_say_told(FILE *f, const struct mmp_told *t);
/* Clear the progress line, if one is shown (before the report). */
void mmp_say_end_progress(struct mmp_say *say);

#endif
