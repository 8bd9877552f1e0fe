/* The site table as a report reads it: each entry with what live threads still hold
 * pending for it. Above both the table (sites.h) and the threads' slots (threads.h), so
 * that neither calls the other back: a slot hands its pending sites to the table, and
 * only this reader looks at both. */
#ifndef PLACE_SITE_READS_H
#define PLACE_SITE_READS_H

#include <stdint.h>

#include "sites.h"

/* The n sites with the most bytes, largest first, into out; returns how many, and in
 * *total how many sites there are. */
unsigned place_sites_top(struct place_site_count *out, unsigned n, unsigned *total);

/* Each rule's matches and their bytes asked for, the first n rules' (its sites summed). */
void place_rules_totals(unsigned n, uint64_t *hits, uint64_t *bytes);

#endif
