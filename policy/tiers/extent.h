/* Larger blocks of an arena: runs of whole pages from the second half of its range.
 *
 * A block past the slabs' classes (tiers/slab.h) is a run of pages, found in free lists
 * by length (one per length up to PLACE_RUN_EXACT pages, so that the shortest free run
 * that holds it is found first; then powers of two, first fit), else cut from the
 * never-used top. The runs of the classes up to 64 KiB, freed from a thread's cache, are
 * kept by length, a few of each (PLACE_KEPT_RUNS), and handed out again as they are; the
 * rest are merged into the free runs as they come. Before the top rises, the shortest
 * kept run longer than the block is cut for it, else the kept runs are merged while they
 * hold much (place_extents_aside; a run class's refill flushes the thread's own bins of
 * them first: tiers/cache.c). mallocbench's mixed pairs, every page written, peaked at
 * 52.6 MiB (1.26x glibc's) with free lists by powers of two and every freed run kept for
 * its length, 50.5 MiB with lists by length and kept runs cut, 46.4 MiB (1.11x) with
 * four runs kept a length; with two threads at 100.4, 99.7 and 87.3 MiB (glibc 81.2),
 * in the same time within noise. Bookkeeping lives
 * outside the pages (one entry per page, the first and last page of a run saying its
 * length), so a freed run merges with free neighbours without touching their memory, and
 * pages given back to the kernel stay given back. Freed pages are kept for reuse up to
 * a budget: four times the largest block freed (at least 1 MiB, at most 64 MiB; glibc
 * adapts its trim threshold so, to twice) or a quarter more pages than have been in use
 * within the last second (the most at a free; the quarter for the free runs too short
 * to reuse), whichever is more, as glibc keeps every freed chunk below its heap's top
 * and jemalloc decays its dirty pages over time: a program that frees everything at the
 * end of each round (mimalloc-bench's mstress) finds the pages again in the next one
 * (6x glibc's page faults and 1.43x its time when the budget followed what was in use
 * at each free; 0.74x and 0.82x now, at 1.15x its max RSS). Past it a freed run's
 * pages go back to the kernel (MADV_DONTNEED): a program that frees and allocates big
 * buffers in a loop reuses their pages (faults cost more than the copy of a small block),
 * one that frees much gives the memory back. mimalloc-bench's malloc-large (20 buffers of
 * 5 to 25 MiB replaced 2000 times) faulted 9.3x glibc's pages and ran 4.6x its time under
 * the 64 MiB budget alone, 3.9x and 2.1x with half the pages in use, 0.78x and 0.82x
 * with all of them, at glibc's max RSS. A run whose pages were given back, or never
 * touched, reads as zero: calloc skips the memset (and a big block that may hold old bytes
 * is given back to the kernel first, rather than made resident by a memset).
 * One lock per arena; a large block costs much more than the lock. */
#ifndef PLACE_EXTENT_H
#define PLACE_EXTENT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    PLACE_RUN_EXACT = 32, /* free runs up to this many pages are listed by length */
    PLACE_RUN_BINS = PLACE_RUN_EXACT + 26, /* then one per power of two, to 2^31 pages */
    PLACE_KEEP_MIN = 1 << 20,
    PLACE_KEEP_MAX = 64 << 20,
    PLACE_KEPT_MAX = 16, /* the longest run kept as it is (pages): 64 KiB */
    PLACE_KEPT_RUNS = 4, /* runs kept per length at most; more are merged as freed */
};
#define PLACE_DECAY_NS 1000000000 /* a second */

/* One page's entry: meaningful on the first and the last page of a run. */
struct place_page_run {
    uint32_t pages; /* the run's length */
    uint8_t state;  /* RUN_USED, RUN_CLEAN (free, reads as zero) or RUN_DIRTY (free) */
    uint32_t next, prev; /* free lists, by first page; UINT32_MAX ends one */
};

struct place_extents {
    pthread_mutex_t lock;
    char *lo;
    size_t unit;      /* the page size: 4 KiB, or 2 MiB for hugetlb ranges */
    uint8_t shift;    /* log2(unit) */
    uint32_t npages;  /* pages in [lo, lo + npages * unit) */
    uint32_t top;     /* pages from top on were never handed out */
    /* free runs: bin k holds those of k + 1 pages up to PLACE_RUN_EXACT, then those of
     * 33 to 63 pages, of 64 to 127, and so on */
    uint32_t bins[PLACE_RUN_BINS];
    size_t dirty;     /* pages of free runs that may be resident */
    size_t keep;      /* how many such pages are kept, by the largest block freed */
    size_t used;      /* pages of runs handed out, kept ones included */
    size_t recent;    /* the most pages in use (kept ones not) at a free within the last
                       * PLACE_DECAY_NS */
    int64_t recent_at; /* when that window began */
    bool keep_pages;  /* hugetlb: pages are not given back */
    struct place_page_run *run; /* one per page */
    /* runs freed by length (their pages) and handed out again as they are, a list through
     * their first word: still used for the free runs (place_extents_keep) */
    void *kept[PLACE_KEPT_MAX + 1];
    size_t kept_pages; /* theirs, all lengths */
    uint32_t kept_n[PLACE_KEPT_MAX + 1]; /* how many, by length */
    /* optional: called (under the lock) for each stretch of pages the top is about to
     * reach, before any is handed out, 64 MiB at a time: the NUMA binding of a weighted
     * interleave, which costs a mapping per stripe and so is set as the range is used */
    void (*fresh)(void *arg, char *lo, size_t len);
    void *fresh_arg;
    uint32_t fresh_to; /* pages below it have been through fresh */
};

/* Sets e up over [lo, lo + len) in pages of unit bytes (keep_pages: never given back).
 * 0, or -1 when its bookkeeping cannot be mapped. */
int place_extents_init(struct place_extents *e, void *lo, size_t len, size_t unit,
                       bool keep_pages);

static inline bool place_extents_own(const struct place_extents *e, const void *p)
{
    return (size_t)((const char *)p - e->lo) < (size_t)e->npages * e->unit;
}

/* The pages of run p, handed out (read without the lock: a run's entries change only by
 * its owner, and the top only rises). */
static inline uint32_t place_extents_pages(const struct place_extents *e, const void *p)
{
    return e->run[(size_t)((const char *)p - e->lo) >> e->shift].pages;
}

/* The bytes a block of size at align takes (whole pages), or 0 when no run can hold it. */
size_t place_extents_size(const struct place_extents *e, size_t size, size_t align);

/* A block of bytes (place_extents_size's answer) at align, zeroed when zero is set, or
 * NULL when the range has no run for it. From the free runs, else (no alignment past a
 * page) from the shortest longer kept run, cut, else from the top, the kept runs merged
 * first when they hold much (place_extents_aside). */
void *place_extents_take(struct place_extents *e, size_t bytes, size_t align, bool zero);

/* Up to n runs of bytes (at most PLACE_KEPT_MAX pages) into out: those of that length
 * kept, then cut from the free runs, then (grow) from the top as place_extents_take
 * takes from it; how many. Their pages hold whatever they held. */
unsigned place_extents_take_runs(struct place_extents *e, size_t bytes, void **out, unsigned n,
                                 bool grow);

/* n runs handed out, of at most PLACE_KEPT_MAX pages, kept for their length (no merge, no
 * budget, until place_extents_merge), up to PLACE_KEPT_RUNS of a length; past them a run
 * is merged into the free runs at once, its pages kept (as a merge's are) until a trim or
 * a larger block's free finds the free runs over the budget. */
void place_extents_keep(struct place_extents *e, void *const *runs, unsigned n);

/* Whether the kept runs hold more than a quarter as many pages as the runs in use:
 * merged before the top rises (place_extents_take). A program whose sizes change from one moment to
 * the next (espresso) leaves most of its runs aside; one that keeps many blocks of each
 * size (mimalloc-bench's mixed pairs) a few, which merging would only cut up. */
bool place_extents_aside(struct place_extents *e);

/* Every kept run back among the free runs, merged with its neighbours. */
void place_extents_merge(struct place_extents *e);

/* Block p back, merged with its free neighbours; its bytes. */
size_t place_extents_give(struct place_extents *e, void *p);

/* Block p grown in place to bytes (place_extents_size's answer, more than it holds)
 * from the pages after it, free or never used: whether it was. Its new pages hold
 * whatever they held. */
bool place_extents_grow(struct place_extents *e, void *p, size_t bytes);

/* Block p's bytes. */
size_t place_extents_usable(const struct place_extents *e, const void *p);

/* Every free run's pages back to the kernel: the bytes given back. */
size_t place_extents_trim(struct place_extents *e);

/* fork: the lock is held across it and released on both sides. */
void place_extents_prefork(struct place_extents *e);
void place_extents_postfork(struct place_extents *e);

#endif
