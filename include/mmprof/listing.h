/* Listings for the command line that need more than a table walk. */
#ifndef MMPROF_LISTING_H
#define MMPROF_LISTING_H

#include <stdio.h>

/* --list-events; -1 when libpfm4 cannot start (message on stderr). */
int mmp_list_events(FILE *out);

#endif
