/* Sampling allocations for the profile (stats/profile.h): what a due allocation records
 * and where its site is.
 *
 * A site is the program's own code: the frames above the allocation call, with the
 * allocation wrappers skipped (operator new, strdup, xmalloc, g_malloc, PyMem_*, ...;
 * site/modules.h resolves them, and `wrappers` adds the program's), up to
 * `report_depth` frames. The dram node's bytes in use are estimated from the same
 * samples (each stands for its weight), while its allocations and frees are counted
 * exactly; the other nodes count every byte themselves. */
#ifndef PLACE_SAMPLER_H
#define PLACE_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/glibc.h"
#include "../stats/profile.h"
#include "../stats/threads.h"

/* Once libplace is ready: the mean interval (0: every allocation), the frames kept per
 * site, and whether a report will read the profile (else nothing is sampled). */
void place_sampler_start(uint64_t rate, unsigned depth, bool on);

/* An allocation of the program's that place_sample_due found due: block p (NULL: it
 * failed) of size bytes asked from return address ra, in node `tier`. Draws the
 * thread's next interval and records p. Either side of the guard (libplace's own
 * allocations are never due: their callers do not count them). */
void place_sample(void *p, size_t size, unsigned tier, uintptr_t ra);

/* The program frees p, which the filter names: forgotten if it was sampled. */
void place_unsample(void *p);

/* free of p, which the filter may name (place_profile_maybe). */
static inline void place_sample_free(void *p)
{
    if (__builtin_expect(place_profile_maybe(p), 0))
        place_unsample(p);
}

/* The count of a glibc block (the default dram node) allocated from ra: its allocation
 * counted in the thread's own counts (stats/threads.h), and a sample when one is due. */
void place_count_glibc(void *p, size_t size, uintptr_t ra);

/* A glibc block's free, counted (a sampled one's weight leaves dram's estimate): true
 * when p was a tracked block (engine/tracked.h), which is unmapped, else the caller
 * frees it. */
bool place_uncount_glibc(void *p);

void *place_realloc_counted(void *p, size_t size, uintptr_t ra);

/* realloc of glibc's block p (NULL: none) to size bytes, which glibc serves; while a
 * report counts, counted as the old block freed and a new one allocated. */
static inline void *place_realloc_glibc(void *p, size_t size, uintptr_t ra)
{
    return place_counting ? place_realloc_counted(p, size, ra) : place_libc_realloc(p, size);
}

#endif
