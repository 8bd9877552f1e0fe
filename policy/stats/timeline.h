/* Each node's bytes in use over time, for the report: sampled when usage changes (a
 * placed allocation or free, a thread's batch of dram counts), into a bounded table.
 * Every change is a point until the table first fills; then two neighbouring points
 * become one (the later, the first point kept) and a point is taken at most once per
 * interval, which doubles each time the table fills again: a run of any length keeps
 * at most PLACE_TIMELINE_POINTS points spread over all of it. Each point also has its
 * band, the least and most in use since the point before (the stats layer's counters
 * keep them between points), so a burst between two points is not lost. */
#ifndef PLACE_TIMELINE_H
#define PLACE_TIMELINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../config/policy.h"
#include "../base/hidden.h"

enum { PLACE_TIMELINE_POINTS = 512 };

extern PLACE_HIDDEN bool place_timeline_on;
extern PLACE_HIDDEN _Atomic int64_t place_timeline_next; /* when the next sample is due */

/* CLOCK_MONOTONIC_COARSE in nanoseconds. */
int64_t place_coarse_ns(void);

/* Starts sampling (only when a report will be written), with a first point now. */
void place_timeline_start(void);

void place_timeline_sample(void);

/* A forked child's timeline starts at the fork. */
void place_timeline_restart(void);

/* On an event: a sample if the interval has passed. A clock read when on. */
static inline void place_timeline_tick(void)
{
    if (__builtin_expect(place_timeline_on, 0) &&
        place_coarse_ns() >= atomic_load_explicit(&place_timeline_next, memory_order_relaxed))
        place_timeline_sample();
}

/* The points: n of them, times in ms since start, bytes[k][tier], and lo/hi[k][tier],
 * the band since point k - 1. For the report, which
 * takes one last sample first and gets a copy (without wait, only if the table is free:
 * a report from a signal handler may have interrupted a sample; then the last copy). */
struct place_timeline {
    unsigned n;
    uint32_t ms[PLACE_TIMELINE_POINTS];
    int64_t bytes[PLACE_TIMELINE_POINTS][PLACE_MAX_TIERS];
    int64_t lo[PLACE_TIMELINE_POINTS][PLACE_MAX_TIERS], hi[PLACE_TIMELINE_POINTS][PLACE_MAX_TIERS];
};
const struct place_timeline *place_timeline_final(bool wait);

#endif
