/* The allocation profile: where every allocation comes from, sampled by bytes.
 *
 * Each thread counts down the bytes it asks for (place_self.sample_left); the allocation
 * that takes it to zero is sampled, and the next interval is drawn from an exponential
 * distribution of mean `rate` bytes. A block of s bytes is so sampled with probability
 * p = 1 - exp(-s / rate) whatever came before it, and stands for 1/p calls and s/p bytes:
 * every estimate is unbiased, the way tcmalloc's and jemalloc's heap profiles are.
 * rate 0 samples every allocation (p = 1: exact).
 *
 * A sampled block is kept by its address until it is freed, so that each site's live
 * bytes and their peak are known. free learns whether a block may be sampled from a byte
 * filter indexed by address (one load); only a hit looks the block up. Samples are rare
 * (one per 512 KiB asked, by default), so one lock serves the tables. */
#ifndef PLACE_PROFILE_H
#define PLACE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../config/policy.h"
#include "../base/guard.h"
#include "../base/hidden.h"

enum { PLACE_FILTER_BITS = 18 };

/* How many sampled blocks live at addresses of each hash (saturating at 255). */
extern PLACE_HIDDEN uint8_t place_profile_filter[1u << PLACE_FILTER_BITS];

/* p's count in the filter (blocks are 16-byte aligned: the low bits tell nothing). */
static inline uint8_t *place_profile_filter_slot(const void *p)
{
    return &place_profile_filter[((uintptr_t)p >> 4) & ((1u << PLACE_FILTER_BITS) - 1)];
}

/* Whether p may be a sampled block: false is certain. */
static inline bool place_profile_maybe(const void *p)
{
    /* a plain load, one byte read whole, which the compiler folds into the compare: an
     * instruction on every counted free (the writers store it atomically) */
    return *place_profile_filter_slot(p) != 0;
}

/* Counts size bytes off the calling thread's interval: true when this allocation is due
 * for a sample (place_sample, engine/sampler.h, then draws the next interval). */
static inline bool place_sample_due(size_t size)
{
#if defined(__x86_64__)
    /* one subtraction from memory, whose flags are the answer (GCC loads, subtracts,
     * stores and tests otherwise: three instructions more on every counted call) */
    bool due;
    __asm__("subq %2, %0" : "+m"(place_self.sample_left), "=@ccle"(due) : "er"((int64_t)size));
    return __builtin_expect(due, 0);
#else
    int64_t left = place_self.sample_left - (int64_t)size;
    place_self.sample_left = left;
    return __builtin_expect(left <= 0, 0);
#endif
}

/* The mean bytes between samples (0: every allocation); until start, every 512 KiB.
 * Samples are taken while a report counts (stats/threads.h place_counting). */
void place_profile_start(uint64_t rate);

/* The next interval for a thread whose random state is *seed (0: not seeded yet). */
int64_t place_profile_interval(uint64_t *seed);

/* What a sample says of one block. */
struct place_sample {
    uintptr_t frames[PLACE_MAX_DEPTH]; /* the site: the program's frames, innermost first */
    unsigned n;
    size_t asked, held; /* the size asked for, and what its node counts */
    unsigned tier;      /* the node that holds it */
    /* a tracked block (stats/access.h): every one is recorded (weight 1), and its
     * mapping's pages, from start, len bytes, are read for accesses */
    uintptr_t start;
    size_t len;
};

/* Records block p, sampled as s says; returns what dram's estimate of bytes in use
 * changes by: the block's weight in held bytes (s->held / p) when dram holds it and the
 * table had room for it (else its free could not take it back), less that of a dram
 * block freed unseen at the same address, whose record it replaces. */
int64_t place_profile_add(const void *p, const struct place_sample *s);

/* Records tracked block p (s->start, s->len set) with weight 1: false when the tables
 * have no room for it, and nothing is recorded. */
bool place_profile_track(const void *p, const struct place_sample *s);

/* Forgets p if it is a sampled block: true, with the node that held it, its weight in
 * held bytes, which that node's estimate loses, and whether it is tracked (its mapping is
 * the caller's to unmap). */
bool place_profile_remove(const void *p, unsigned *tier, int64_t *held, bool *tracked);

/* The most tracked blocks live at once: each is three mappings, and the kernel allows a
 * process 65530 by default; past this many, blocks stay glibc's, so that the program
 * keeps mappings enough for its own (glibc's thread arenas map theirs). */
enum { PLACE_TRACKED_MAX = 8192 };

/* A tracked block's mapping as the sampler reads it. */
struct place_tracked {
    uintptr_t start; /* the pages the program's block lies in */
    size_t len;
    uint32_t site;
};

/* Copies the tracked blocks into out (cap of them); returns how many there are, which
 * may be more than cap. */
size_t place_profile_tracked(struct place_tracked *out, size_t cap);

/* One interval's reading of a tracked block: bytes of its pages touched, and written
 * (when soft-dirty bits were read this interval). */
struct place_touch {
    uint32_t site;
    uint64_t touched, written;
};

/* Adds one interval's readings (n of them) to their sites; `written` says whether the
 * readings' written bytes were read. Every site with tracked bytes live counts the
 * interval, touched or not. */
void place_profile_touched(const struct place_touch *t, size_t n, bool written);

/* What the access profile says of a site (all 0 when it has no tracked block). */
struct place_profile_access {
    uint64_t blocks;       /* tracked blocks allocated */
    uint64_t first_ms;     /* when the first was, since the run's start */
    uint64_t last_ms;      /* when the last was freed (UINT64_MAX: some are live) */
    uint64_t peak;         /* the most bytes of tracked blocks live at once */
    uint64_t live_mean;    /* tracked bytes live, mean over the intervals */
    uint64_t touched_mean; /* bytes touched per interval, mean over every interval */
    uint64_t touched_peak;
    double touched_share; /* of the bytes live in the intervals, the share touched */
    double written_share; /* of the bytes live in the intervals read for it, the share
                           * written; < 0: never read */
    uint64_t heat;        /* touched_mean per byte of peak, in millionths (the ranking) */
};

/* One site of the profile, as it stands: estimates, rounded, in bytes asked. */
struct place_profile_row {
    uintptr_t frames[PLACE_MAX_DEPTH]; /* 0 frames: the sites that did not fit the table */
    unsigned n;
    uint64_t samples, calls, bytes, live, peak, mean; /* mean: bytes per call */
    uint64_t tier_bytes[PLACE_MAX_TIERS];
    struct place_profile_access access;
};

/* The n sites with the most bytes, largest first, into out; returns how many, with the
 * number of sites in *total, the mean interval in *rate and the samples the block table
 * could not keep in *lost. Without wait, a busy table is read as it stands. */
unsigned place_profile_top(struct place_profile_row *out, unsigned n, unsigned *total,
                           uint64_t *rate, uint64_t *lost, bool wait);

/* The tracked blocks of the whole process. */
struct place_profile_tracking {
    uint64_t intervals; /* read so far */
    uint64_t blocks, live, peak; /* blocks tracked, bytes of them live now and at most */
};

/* The n sites with tracked blocks hottest per byte (access.heat), hottest first; returns
 * how many, with the process's figures in *all. */
unsigned place_profile_hottest(struct place_profile_row *out, unsigned n,
                               struct place_profile_tracking *all, bool wait);

/* The lock, held across fork. */
void place_profile_prefork(void);
void place_profile_postfork_parent(void);
void place_profile_postfork_child(void);

#endif
