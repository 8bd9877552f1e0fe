/* The access profile: how often each tracked block is touched, from the page tables'
 * accessed bits, which the kernel gives every process with no counter and no privilege.
 *
 * A tracked block (engine/tracked.h) is a mapping of its own, kept apart from its
 * neighbours by a guard page on each side, so that /proc/self/smaps gives it a line of
 * its own. A thread of libplace's, started at the first tracked block, clears each
 * tracked block's accessed bits with madvise(MADV_COLD) (the block's pages alone: a
 * page whose bit was cleared costs the program a few hundred nanoseconds at its next
 * access, measured here; clear_refs would make every page of the program pay), sleeps
 * an interval, and reads back each tracked mapping's Referenced bytes: the bytes of its
 * pages touched at least once in the interval (not a count of accesses; a huge page
 * counts whole). MADV_COLD also moves the pages to the inactive list, which matters
 * only when the kernel reclaims; it skips pages shared with a forked process. Before
 * one interval in ten it clears the soft-dirty bits too (clear_refs 4, the whole
 * process: each page's first write after it faults) and reads the written pages from
 * /proc/self/pagemap, where the kernel keeps them. What it reads goes to the blocks'
 * sites (stats/profile.h place_profile_touched).
 *
 * The interval doubles (up to 64 times the one asked) while reading costs the thread
 * more than 10% of it: smaps walks every page the process maps. The thread blocks every
 * signal and never allocates; a forked child starts its own at its first tracked
 * block. */
#ifndef PLACE_ACCESS_H
#define PLACE_ACCESS_H

#include <stdbool.h>
#include <stdint.h>

/* The interval asked for, in ms, and the smallest block tracked; the sampler starts at
 * the first place_access_ensure. */
void place_access_start(unsigned interval_ms, uint64_t min);

/* The access profile was asked for and cannot run (why: a sentence's end): the report
 * says so. */
void place_access_refuse(unsigned interval_ms, uint64_t min, const char *why);

/* A tracked block was added: the sampler runs from now on (started if it is not). Called
 * with the guard up, outside every lock. */
void place_access_ensure(void);

/* What the sampler did, for the report. */
struct place_access_state {
    bool on;             /* asked for */
    const char *refused; /* why the kernel gives no accessed bits here (NULL: it does) */
    bool written;        /* soft-dirty bits read: written shares given */
    unsigned interval_ms;
    uint64_t min;
    double interval_mean_ms; /* the intervals the sampler took, on average */
    uint64_t intervals;
    uint64_t cost_ns; /* the sampler's CPU time */
    uint64_t untracked_blocks, untracked_bytes; /* blocks big enough that stayed glibc's */
};
void place_access_state(struct place_access_state *out);

/* A block big enough to track that is glibc's instead (its alignment, or no mapping). */
void place_access_untracked(uint64_t bytes);

/* Whether the sampler thread is running (the report's thread count leaves it out). */
bool place_access_running(void);

/* A forked child has no sampler thread. */
void place_access_postfork_child(void);

#endif
