/* Listings for the command line that need more than a table walk. */
#ifndef MMPROF_LISTING_H
#define MMPROF_LISTING_H

#include <stdio.h>

#include "util/error.h"

/* --list-events; a negative errno when libpfm4 cannot start (why in err:
 * the command line says it). */
int mmp_list_events(FILE *out, struct mmp_error *err);

#endif
