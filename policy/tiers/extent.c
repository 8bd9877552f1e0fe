#include "extent.h"

#include <string.h>
#include <sys/mman.h>

#include "../base/assert.h"
#include "../base/clock.h"
#include "../base/pages.h"
#include "../base/rank.h"

enum { NONE = UINT32_MAX, RUN_USED = 0, RUN_CLEAN, RUN_DIRTY, ZERO_BY_KERNEL = 256 << 10 };

int place_extents_init(struct place_extents *e, void *lo, size_t len, size_t unit,
                       bool keep_pages)
{
    size_t n = len / unit;
    if (n > (size_t)INT32_MAX) /* page indices and their sums stay in 32 bits */
        n = INT32_MAX;
    if (!n)
        return -1;
    size_t bytes = n * sizeof(struct place_page_run);
    void *run = place_reserve(&bytes, bytes, MAP_NORESERVE);
    if (!run)
        return -1;
    place_lock_init(&e->lock);
    e->lo = lo;
    e->unit = unit;
    e->shift = (uint8_t)__builtin_ctzll(unit);
    e->npages = (uint32_t)n;
    e->top = 0;
    for (unsigned k = 0; k < PLACE_RUN_BINS; k++)
        e->bins[k] = NONE;
    e->dirty = 0;
    e->used = 0;
    e->recent = 0;
    e->recent_at = 0;
    e->keep = PLACE_KEEP_MIN / unit;
    e->keep_pages = keep_pages;
    e->run = run;
    e->fresh = NULL;
    e->fresh_to = 0;
    memset(e->kept, 0, sizeof e->kept);
    memset(e->kept_n, 0, sizeof e->kept_n);
    e->kept_pages = 0;
    return 0;
}

static unsigned bin_of(uint32_t pages)
{
    if (pages <= PLACE_RUN_EXACT)
        return pages - 1;
    return PLACE_RUN_EXACT - 5 + (31u - (unsigned)__builtin_clz(pages));
}

static char *page(const struct place_extents *e, uint32_t i)
{
    return e->lo + (size_t)i * e->unit;
}

/* page's inverse: the page p starts. */
static uint32_t index_of(const struct place_extents *e, const void *p)
{
    return (uint32_t)((size_t)((const char *)p - e->lo) >> e->shift);
}

/* The top rises to top, the pages on the way through fresh first. */
static void rise(struct place_extents *e, uint32_t top)
{
    const uint32_t batch = (uint32_t)(((size_t)64 << 20) / e->unit);
    if (e->fresh && top > e->fresh_to) {
        uint64_t to = ((uint64_t)top + batch - 1) / batch * batch;
        if (to > e->npages)
            to = e->npages;
        e->fresh(e->fresh_arg, e->lo + (size_t)e->fresh_to * e->unit,
                 (size_t)(to - e->fresh_to) * e->unit);
        e->fresh_to = (uint32_t)to;
    }
    e->top = top;
}

/* p is the start of a run handed out, below the top. */
static bool used_run(const struct place_extents *e, const void *p)
{
    size_t at = (size_t)((const char *)p - e->lo);
    if (!place_extents_own(e, p) || at % e->unit != 0)
        return false;
    uint32_t i = (uint32_t)(at / e->unit), n = e->run[i].pages;
    return n > 0 && (uint64_t)i + n <= e->top && e->run[i].state == RUN_USED &&
           e->run[i + n - 1].pages == n && e->run[i + n - 1].state == RUN_USED;
}

/* The first page from i on whose address is a multiple of align. */
static uint32_t aligned_from(const struct place_extents *e, uint32_t i, size_t align)
{
    if (align <= e->unit)
        return i;
    uintptr_t a = (uintptr_t)page(e, i), up = (a + align - 1) & ~(uintptr_t)(align - 1);
    return i + (uint32_t)((up - a) / e->unit);
}

/* The run [i, i + n) tagged on its first and last page. */
static void tag(struct place_extents *e, uint32_t i, uint32_t n, uint8_t state)
{
    PLACE_ASSERT(n > 0 && (uint64_t)i + n <= e->top);
    e->run[i].pages = e->run[i + n - 1].pages = n;
    e->run[i].state = e->run[i + n - 1].state = state;
}

static void list(struct place_extents *e, uint32_t i)
{
    struct place_page_run *r = &e->run[i];
    uint32_t *head = &e->bins[bin_of(r->pages)];
    PLACE_ASSERT(r->state != RUN_USED && e->run[i + r->pages - 1].pages == r->pages);
    r->prev = NONE;
    r->next = *head;
    if (*head != NONE)
        e->run[*head].prev = i;
    *head = i;
    if (r->state == RUN_DIRTY)
        e->dirty += r->pages;
}

static void unlist(struct place_extents *e, uint32_t i)
{
    struct place_page_run *r = &e->run[i];
    if (r->prev != NONE)
        e->run[r->prev].next = r->next;
    else
        e->bins[bin_of(r->pages)] = r->next;
    if (r->next != NONE)
        e->run[r->next].prev = r->prev;
    PLACE_ASSERT(r->state != RUN_USED && (r->state != RUN_DIRTY || e->dirty >= r->pages));
    if (r->state == RUN_DIRTY)
        e->dirty -= r->pages;
}

/* [i, i + n) free, merged with the free runs next to it (two free runs never touch):
 * the merged run's first page. The merged run is dirty if any part of it is. */
static uint32_t release(struct place_extents *e, uint32_t i, uint32_t n, uint8_t state)
{
    if (i > 0 && e->run[i - 1].state != RUN_USED) {
        uint32_t left = i - e->run[i - 1].pages;
        /* a free run's first and last pages agree */
        PLACE_ASSERT(e->run[i - 1].pages <= i && e->run[left].pages == e->run[i - 1].pages &&
                     e->run[left].state == e->run[i - 1].state);
        state = state == RUN_DIRTY || e->run[left].state == RUN_DIRTY ? RUN_DIRTY : RUN_CLEAN;
        unlist(e, left);
        n += i - left;
        i = left;
    }
    if (i + n < e->top && e->run[i + n].state != RUN_USED) {
        uint32_t right = i + n;
        state = state == RUN_DIRTY || e->run[right].state == RUN_DIRTY ? RUN_DIRTY : RUN_CLEAN;
        unlist(e, right);
        n += e->run[right].pages;
    }
    tag(e, i, n, state);
    list(e, i);
    /* merged: used pages, or the start or the top, on both sides */
    PLACE_ASSERT((i == 0 || e->run[i - 1].state == RUN_USED) &&
                 (i + n == e->top || e->run[i + n].state == RUN_USED));
    return i;
}

/* [i, i + n), handed out until now (a block freed, a kept run merged, a kept run's tail
 * past a cut), among the free runs as release puts it: the merged run's first page. */
static uint32_t unuse(struct place_extents *e, uint32_t i, uint32_t n)
{
    e->used -= n;
    return release(e, i, n, RUN_DIRTY);
}

/* A free run holding n pages from a page aligned so, or NONE. First fit from the bin
 * that may hold n upwards. */
static uint32_t find(const struct place_extents *e, uint32_t n, size_t align, uint32_t *at)
{
    for (unsigned k = bin_of(n); k < PLACE_RUN_BINS; k++)
        for (uint32_t i = e->bins[k]; i != NONE; i = e->run[i].next) {
            uint32_t j = aligned_from(e, i, align);
            if ((uint64_t)j + n <= (uint64_t)i + e->run[i].pages) {
                *at = j;
                return i;
            }
        }
    return NONE;
}

size_t place_extents_size(const struct place_extents *e, size_t size, size_t align)
{
    size_t whole = (size_t)e->npages * e->unit;
    if (size > whole || align > whole)
        return 0;
    return (size + e->unit - 1) / e->unit * e->unit;
}

/* place_extents_aside, under the lock. */
static bool aside(const struct place_extents *e)
{
    return 4 * e->kept_pages > e->used - e->kept_pages;
}

/* A kept run of pages taken off its list (one is there), under the lock: still used. */
static void *unkeep(struct place_extents *e, uint32_t pages)
{
    void *p = e->kept[pages];
    e->kept[pages] = *(void **)p;
    e->kept_pages -= pages;
    e->kept_n[pages]--;
    return p;
}

/* Every kept run among the free runs (place_extents_merge), under the lock. */
static void merge(struct place_extents *e)
{
    for (uint32_t pages = 1; pages <= PLACE_KEPT_MAX; pages++)
        while (e->kept[pages])
            unuse(e, index_of(e, unkeep(e, pages)), pages);
}

/* A run of n pages at align handed out, under the lock: from a free run, else (grow) from
 * the top; its first page, or NONE. *clean: whether it reads as zero. */
static uint32_t carve(struct place_extents *e, uint32_t n, size_t align, bool grow, bool *clean)
{
    uint32_t j;
    uint32_t i = find(e, n, align, &j);
    if (i != NONE) { /* the pages before the aligned start and after the block stay free */
        uint32_t len = e->run[i].pages;
        uint8_t state = e->run[i].state;
        unlist(e, i);
        tag(e, j, n, RUN_USED);
        if (j > i)
            release(e, i, j - i, state);
        if (j + n < i + len)
            release(e, j + n, i + len - (j + n), state);
        *clean = state == RUN_CLEAN;
    } else { /* from the top, and the free run that ends there if there is one */
        uint32_t from = e->top;
        if (from && e->run[from - 1].state != RUN_USED)
            from -= e->run[from - 1].pages;
        j = aligned_from(e, from, align);
        if (!grow || (uint64_t)j + n > e->npages)
            return NONE;
        uint8_t state = RUN_CLEAN; /* never handed out: the kernel's zero pages */
        if (from < e->top) {
            state = e->run[from].state;
            unlist(e, from);
        }
        /* find saw no free run that holds the block, the one at the top included: the
         * top only rises (below it, pages may hold old bytes) */
        PLACE_ASSERT(j + n > e->top);
        rise(e, j + n);
        tag(e, j, n, RUN_USED);
        if (j > from) /* the pages skipped to align: a free run */
            release(e, from, j - from, state);
        *clean = state == RUN_CLEAN;
    }
    e->used += n;
    return j;
}

/* The first n pages of the shortest kept run longer than n, under the lock; the rest of
 * it among the free runs. NONE when no longer run is kept. */
static uint32_t split_kept(struct place_extents *e, uint32_t n)
{
    for (uint32_t pages = n + 1; pages <= PLACE_KEPT_MAX; pages++) {
        if (!e->kept[pages])
            continue;
        uint32_t i = index_of(e, unkeep(e, pages));
        tag(e, i, n, RUN_USED);
        unuse(e, i + n, pages - n);
        return i;
    }
    return NONE;
}

/* carve's, from the top when no free run holds it: a longer kept run cut first, else the
 * kept runs merged when they hold much, so that the top rises only for pages no length
 * keeps aside. */
static uint32_t carve_rising(struct place_extents *e, uint32_t n, size_t align, bool *clean)
{
    uint32_t j = carve(e, n, align, false, clean);
    if (j != NONE)
        return j;
    if (align <= e->unit && (j = split_kept(e, n)) != NONE) {
        *clean = false;
        return j;
    }
    if (aside(e))
        merge(e);
    return carve(e, n, align, true, clean);
}

void *place_extents_take(struct place_extents *e, size_t bytes, size_t align, bool zero)
{
    uint32_t n = (uint32_t)(bytes / e->unit);
    bool clean;
    PLACE_ASSERT(n > 0 && bytes % e->unit == 0);
    place_lock(&e->lock, PLACE_RANK_ARENAS);
    uint32_t j = carve_rising(e, n, align, &clean);
    place_unlock(&e->lock, PLACE_RANK_ARENAS);
    if (j == NONE)
        return NULL;
    void *p = page(e, j);
    PLACE_ASSERT(align <= e->unit || (uintptr_t)p % align == 0);
    if (zero && !clean) {
        /* some pages may hold old bytes: a big block gets fresh zero pages from the
         * kernel rather than a memset, which would make every page resident */
        if (bytes < ZERO_BY_KERNEL || e->keep_pages || madvise(p, bytes, MADV_DONTNEED) != 0)
            memset(p, 0, bytes);
    }
    return p;
}

unsigned place_extents_take_runs(struct place_extents *e, size_t bytes, void **out, unsigned n,
                                 bool grow)
{
    uint32_t pages = (uint32_t)(bytes / e->unit);
    unsigned got = 0;
    bool clean;
    PLACE_ASSERT(pages > 0 && pages <= PLACE_KEPT_MAX && bytes % e->unit == 0);
    place_lock(&e->lock, PLACE_RANK_ARENAS);
    for (; got < n && e->kept[pages]; got++)
        out[got] = unkeep(e, pages);
    for (uint32_t j; got < n; got++) {
        j = grow ? carve_rising(e, pages, 0, &clean) : carve(e, pages, 0, false, &clean);
        if (j == NONE)
            break;
        out[got] = page(e, j);
    }
    place_unlock(&e->lock, PLACE_RANK_ARENAS);
    return got;
}

void place_extents_keep(struct place_extents *e, void *const *runs, unsigned n)
{
    place_lock(&e->lock, PLACE_RANK_ARENAS);
    for (unsigned k = 0; k < n; k++) {
        uint32_t pages = place_extents_pages(e, runs[k]);
        PLACE_ASSERT(used_run(e, runs[k]) && pages <= PLACE_KEPT_MAX);
        if (e->kept_n[pages] >= PLACE_KEPT_RUNS) { /* merged now */
            unuse(e, index_of(e, runs[k]), pages);
            continue;
        }
        *(void **)runs[k] = e->kept[pages];
        e->kept[pages] = runs[k];
        e->kept_pages += pages;
        e->kept_n[pages]++;
    }
    place_unlock(&e->lock, PLACE_RANK_ARENAS);
}

bool place_extents_aside(struct place_extents *e)
{
    place_lock(&e->lock, PLACE_RANK_ARENAS);
    bool much = aside(e);
    place_unlock(&e->lock, PLACE_RANK_ARENAS);
    return much;
}

void place_extents_merge(struct place_extents *e)
{
    place_lock(&e->lock, PLACE_RANK_ARENAS);
    merge(e);
    place_unlock(&e->lock, PLACE_RANK_ARENAS);
}

size_t place_extents_give(struct place_extents *e, void *p)
{
    uint32_t i = index_of(e, p), n = e->run[i].pages;
    place_lock(&e->lock, PLACE_RANK_ARENAS);
    PLACE_ASSERT(used_run(e, p));
    if (4 * (size_t)n > e->keep)
        e->keep = 4 * (size_t)n < PLACE_KEEP_MAX / e->unit ? 4 * (size_t)n : PLACE_KEEP_MAX / e->unit;
    int64_t now = place_now_ns();
    size_t in_use = e->used - e->kept_pages; /* kept runs are aside, not in use */
    if (now - e->recent_at > PLACE_DECAY_NS || in_use > e->recent) {
        if (now - e->recent_at > PLACE_DECAY_NS)
            e->recent_at = now;
        e->recent = in_use;
    }
    i = unuse(e, i, n);
    if (!e->keep_pages && e->dirty > e->keep && e->dirty > e->recent + e->recent / 4) {
        /* over the budget: this run's pages go back, out of the lock; it counts as used
         * meanwhile, so no thread takes it or merges with it */
        uint32_t len = e->run[i].pages;
        unlist(e, i);
        tag(e, i, len, RUN_USED);
        place_unlock(&e->lock, PLACE_RANK_ARENAS);
        bool given = madvise(page(e, i), (size_t)len * e->unit, MADV_DONTNEED) == 0;
        place_lock(&e->lock, PLACE_RANK_ARENAS);
        release(e, i, len, given ? RUN_CLEAN : RUN_DIRTY);
    }
    place_unlock(&e->lock, PLACE_RANK_ARENAS);
    return (size_t)n * e->unit;
}

bool place_extents_grow(struct place_extents *e, void *p, size_t bytes)
{
    uint32_t i = index_of(e, p), want = (uint32_t)(bytes / e->unit);
    bool grown = false;
    place_lock(&e->lock, PLACE_RANK_ARENAS);
    PLACE_ASSERT(used_run(e, p) && want > e->run[i].pages);
    uint32_t n = e->run[i].pages, j = i + n;
    /* what follows the block: a free run (two never touch), then maybe the top */
    uint32_t len = j < e->top && e->run[j].state != RUN_USED ? e->run[j].pages : 0;
    uint8_t state = len ? e->run[j].state : RUN_CLEAN;
    if (len >= want - n) { /* the free run holds the rest: what it has over stays free */
        unlist(e, j);
        tag(e, i, want, RUN_USED);
        if (len > want - n)
            release(e, i + want, len - (want - n), state);
        e->used += want - n;
        grown = true;
    } else if (j + len == e->top && (uint64_t)i + want <= e->npages) { /* and the top */
        if (len)
            unlist(e, j);
        rise(e, i + want);
        tag(e, i, want, RUN_USED);
        e->used += want - n;
        grown = true;
    }
    place_unlock(&e->lock, PLACE_RANK_ARENAS);
    return grown;
}

size_t place_extents_usable(const struct place_extents *e, const void *p)
{
    /* without the lock: a block's entries change only by its owner, and the top only rises */
    PLACE_ASSERT(used_run(e, p));
    return (size_t)place_extents_pages(e, p) << e->shift;
}

size_t place_extents_trim(struct place_extents *e)
{
    size_t given = 0;
    if (e->keep_pages)
        return 0;
    place_lock(&e->lock, PLACE_RANK_ARENAS);
    for (unsigned k = 0; k < PLACE_RUN_BINS; k++)
        for (uint32_t i = e->bins[k]; i != NONE; i = e->run[i].next) {
            struct place_page_run *r = &e->run[i];
            if (r->state != RUN_DIRTY ||
                madvise(page(e, i), (size_t)r->pages * e->unit, MADV_DONTNEED) != 0)
                continue;
            e->dirty -= r->pages;
            tag(e, i, r->pages, RUN_CLEAN);
            given += (size_t)r->pages * e->unit;
        }
    place_unlock(&e->lock, PLACE_RANK_ARENAS);
    return given;
}

void place_extents_prefork(struct place_extents *e)
{
    pthread_mutex_lock(&e->lock);
}

void place_extents_postfork(struct place_extents *e)
{
    pthread_mutex_unlock(&e->lock);
}
