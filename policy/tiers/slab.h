/* Small blocks of an arena: size classes, and where their blocks come from.
 *
 * Every block of at most PLACE_SMALL_MAX bytes has a size class. Up to `max` bytes
 * (PLACE_SLABBED_MAX; every class in a hugetlb range) it comes from a slab: 256 KiB of the
 * arena's range holding blocks of one size class. A slab's bookkeeping lives outside it
 * (one struct per slab, indexed by address), so a block's class is one shift and one load
 * away, and an empty slab's pages can go back to the kernel whole. A class above `max` is
 * a number of whole pages, and its blocks are runs of those pages from the arena's
 * extents (tiers/extent.h), kept there for their length once freed: see place_slabs.max.
 *
 * The shared pool is reached only in batches, by the per-thread caches in front of it
 * (tiers/cache.h): through each slab class's depot, or under one lock per arena (the
 * slabs', or the extents'); a placed malloc or free that the cache serves takes no lock. */
#ifndef PLACE_SLAB_H
#define PLACE_SLAB_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/hidden.h"
#include "extent.h"

enum {
    PLACE_SLAB_SHIFT = 18,    /* 256 KiB */
    PLACE_SMALL_MAX = 65536,  /* the largest size class */
    PLACE_SLABBED_MAX = 8192, /* the largest slab class, outside hugetlb ranges */
    /* 16..256 by 16, four per doubling to 1 KiB, eight to 8 KiB, then whole pages */
    PLACE_CLASSES = 62,
    PLACE_PARTS = 8,    /* near = cpu: an arena's parts, one per HBW node (tiers/binding.h) */
    PLACE_BIN_MAX = 32, /* blocks a thread's cache holds per class at most (tiers/cache.h) */
};

extern PLACE_HIDDEN const uint32_t place_class_size[PLACE_CLASSES];

/* The classes of sizes up to 8 KiB by 16-byte steps (every class's size is a multiple
 * of 16): entry i is the class of sizes 16 * i - 15 to 16 * i (slab.c); read past 256. */
extern PLACE_HIDDEN const uint8_t place_class_by16[8192 / 16 + 1];

/* The class of a block of size bytes (size <= PLACE_SMALL_MAX): the smallest that holds
 * it. A shift to 256 bytes (a load there made small pairs 5% slower: its latency is on
 * the path to the bin), a load to 8 KiB (the arithmetic between powers of two cost 12
 * instructions), whole pages past it. */
static inline unsigned place_size_class(size_t size)
{
    if (size <= 256)
        return size ? (unsigned)((size - 1) >> 4) : 0;
    if (size <= 8192)
        return place_class_by16[(size + 15) >> 4];
    return 46 + (unsigned)((size - 1) >> 12);
}

struct place_slabs;

/* The class of a block asked for at align (a power of two) from s: one whose every block
 * is aligned so, or PLACE_CLASSES when none is. */
unsigned place_aligned_class(const struct place_slabs *s, size_t size, size_t align);

/* One slab's bookkeeping. Its blocks are handed out from the list of those given back,
 * then from those never handed out (which cost no memory until then). */
struct place_slab {
    void *free;     /* blocks given back: a list through their first word */
    uint32_t bump;  /* blocks from bump on were never handed out */
    uint32_t out;   /* blocks out of the slab: live, or in a thread's cache */
    uint32_t cap;   /* blocks it holds */
    uint8_t cls;
    uint8_t part;   /* of its pool's parts */
    bool listed;    /* on its class's partial list */
    bool released;  /* its pages went back to the kernel */
    struct place_slab *next, *prev;
};

/* Blocks of one class and part given back and handed out again as they are, pointers
 * only (tcmalloc's transfer cache): a thread's flush and another's refill trade a batch
 * under a lock of their own, touching neither the blocks nor their slabs nor the pool's
 * lock. Threads that free what others allocate spent most of their time on the pool's
 * lock, walking free lists of blocks another CPU had just written (xmalloc-test: 84% of
 * place_slabs_take on the one load of a list's next block; 1.22x glibc's time, 0.66x
 * with depots; rptest 0.58x, 0.23x). Its blocks stay out of their slabs, so a depot
 * holds at most twice its class's bin bound, and a trim empties it. */
struct place_depot {
    pthread_mutex_t lock;
    uint32_t n; /* blocks held: the first n of its items */
} __attribute__((aligned(64)));

/* The small blocks' shared pool of one arena: [lo, hi) of its range, in parts of equal
 * length that hand out blocks apart (one part, or one per node of a near = cpu tier,
 * each part's pages bound to its node): a block goes back to the part it came from. */
struct place_slabs {
    pthread_mutex_t lock;
    char *lo, *hi;
    struct place_slab *meta;      /* one per slab of [lo, hi) */
    unsigned nparts;
    size_t part_len;                                        /* bytes, whole slabs */
    char *carve[PLACE_PARTS];                               /* each part's first slab never used */
    struct place_slab *partial[PLACE_PARTS][PLACE_CLASSES]; /* slabs with blocks to hand out */
    struct place_slab *empty[PLACE_PARTS];                  /* slabs with no block out */
    struct place_depot *depot;                              /* [part * PLACE_CLASSES + class] */
    void **depot_items;           /* 2 * PLACE_BIN_MAX per depot, apart: touched once used */
    bool keep_pages;              /* hugetlb: pages cannot be given back piecemeal */
    /* The largest block its slabs hold. A slab keeps the pages its blocks ever touched
     * for its class alone, where glibc reuses a freed chunk for any size: espresso's
     * blocks of 4 to 64 KiB peak at 265 KiB together and at 861 KiB class by class, and
     * placed it held 1.35 MiB more than glibc at its peak. So a larger class is a run of
     * pages from runs[part] (the arena's extents): kept for its length once freed, and
     * merged for any length when a refill would otherwise raise the extents' top
     * (tiers/cache.c): +1.1 MiB. Classes of whole pages would cost sqlite3's 4368-byte
     * page-cache blocks two pages each, hence the eighth-steps up to 8 KiB stay slabs.
     * In a hugetlb range a page is 2 MiB: there slabs hold every class (past 8 KiB in
     * 4 KiB steps too: a 9000-byte block takes 12 KiB). */
    uint32_t max;
    struct place_extents *runs;
    uint8_t caps[PLACE_CLASSES];  /* how many blocks a thread's cache keeps per class */
};

/* Sets s up over [lo, lo + len) in nparts parts (at most PLACE_PARTS). 0, or -1 when its
 * bookkeeping cannot be mapped. */
int place_slabs_init(struct place_slabs *s, void *lo, size_t len, unsigned nparts, bool keep_pages);

/* Part k of s as a range: what its pages' binding covers. */
static inline char *place_slabs_part(const struct place_slabs *s, unsigned k)
{
    return s->lo + k * s->part_len;
}

static inline bool place_slabs_own(const struct place_slabs *s, const void *p)
{
    return (const char *)p >= s->lo && (const char *)p < s->hi;
}

static inline struct place_slab *place_slab_of(const struct place_slabs *s, const void *p)
{
    return &s->meta[(size_t)((const char *)p - s->lo) >> PLACE_SLAB_SHIFT];
}

/* The class of block p of s's slabs. */
static inline unsigned place_slabs_class(const struct place_slabs *s, const void *p)
{
    return place_slab_of(s, p)->cls;
}

/* The extents (a part's, of s->runs) that block p of s's arena outside its slabs lies in. */
static inline struct place_extents *place_slabs_runs_of(const struct place_slabs *s, const void *p)
{
    struct place_extents *e = s->runs;
    for (unsigned k = 1; k < s->nparts && !place_extents_own(e, p); k++)
        e++;
    return e;
}

/* The class of block p of s's arena, outside its slabs: a run class's, or PLACE_CLASSES
 * for a large block (or a page at a larger alignment, which no slab class is). */
static inline unsigned place_slabs_run_class(const struct place_slabs *s, const void *p)
{
    const struct place_extents *e = place_slabs_runs_of(s, p);
    size_t bytes = (size_t)place_extents_pages(e, p) << e->shift;
    return bytes > s->max && bytes <= PLACE_SMALL_MAX ? place_size_class(bytes) : PLACE_CLASSES;
}

/* The class of block p of s's arena, a slab's or a run's; PLACE_CLASSES for a large block. */
static inline unsigned place_slabs_block_class(const struct place_slabs *s, const void *p)
{
    return place_slabs_own(s, p) ? place_slabs_class(s, p) : place_slabs_run_class(s, p);
}

/* Takes up to n blocks of class c out of part `part` of s into out, from its depot first,
 * then its slabs (under the pool's lock, once); returns how many. Fewer than n only when
 * the part is used up. A run class's blocks come from its extents (runs of that length
 * kept, then the free runs) and, only with grow, from their top. */
unsigned place_slabs_take(struct place_slabs *s, unsigned c, unsigned part, void **out, unsigned n,
                          bool grow);

/* Whether a take of class c from part `part` of s would hand out memory no block has
 * touched yet: its depot empty, and its partial slab's list of blocks given back too (or
 * no slab partial); for a run class, no run of its length kept. Read unlocked, as a hint:
 * another thread may change it at once. */
bool place_slabs_fresh(const struct place_slabs *s, unsigned c, unsigned part);

/* Part `part`'s kept runs merged into its free runs (a trim's; a take from the top merges
 * them itself when they hold much: tiers/extent.h). */
void place_slabs_merge(struct place_slabs *s, unsigned part);

/* Whether part `part`'s kept runs are worth merging (place_extents_aside). */
bool place_slabs_aside(struct place_slabs *s, unsigned part);

/* Gives n blocks of class c back to s: to their depot when they are of one part and it
 * has room, else to their slabs (under the pool's lock, once); runs to their extents,
 * kept for their length. */
void place_slabs_give(struct place_slabs *s, unsigned c, void *const *blocks, unsigned n);

/* Gives the depots' blocks back to their slabs and merges the kept runs, then the pages of
 * slabs with no block out back to the kernel (not hugetlb's): the bytes given. */
size_t place_slabs_trim(struct place_slabs *s);

/* fork: the locks are held across it and released on both sides. */
void place_slabs_prefork(struct place_slabs *s);
void place_slabs_postfork(struct place_slabs *s);

#endif
