#include "slab.h"

#include <string.h>
#include <sys/mman.h>

#include "../base/assert.h"
#include "../base/pages.h"
#include "../base/rank.h"

enum { SLAB = 1 << PLACE_SLAB_SHIFT, DEPOT_MAX = 2 * PLACE_BIN_MAX };

const uint32_t place_class_size[PLACE_CLASSES] = {
    16,    32,    48,    64,    80,    96,    112,   128,   144,   160,   176,   192,   208,
    224,   240,   256,   320,   384,   448,   512,   640,   768,   896,   1024,  1152,  1280,
    1408,  1536,  1664,  1792,  1920,  2048,  2304,  2560,  2816,  3072,  3328,  3584,  3840,
    4096,  4608,  5120,  5632,  6144,  6656,  7168,  7680,  8192,  12288, 16384, 20480, 24576,
    28672, 32768, 36864, 40960, 45056, 49152, 53248, 57344, 61440, 65536,
};

/* The class of a size s of at most 8 KiB, as a constant: sixteen classes by 16 bytes to
 * 256, four between each power of two and the next to 1 KiB, eight to 8 KiB. */
#define LG(x) ((x) >= 4096 ? 12 : (x) >= 2048 ? 11 : (x) >= 1024 ? 10 : (x) >= 512 ? 9 : 8)
#define CLASS(s)                                                                                   \
    ((s) <= 256       ? ((s) ? ((s)-1) >> 4 : 0)                                                   \
     : LG((s)-1) < 10 ? 16 + (LG((s)-1) - 8) * 4 + (((s)-1) >> (LG((s)-1) - 2) & 3)                \
                      : 24 + (LG((s)-1) - 10) * 8 + (((s)-1) >> (LG((s)-1) - 3) & 7))
#define BY16_1(i) CLASS(16 * (i))
#define BY16_4(i) BY16_1(i), BY16_1((i) + 1), BY16_1((i) + 2), BY16_1((i) + 3)
#define BY16_16(i) BY16_4(i), BY16_4((i) + 4), BY16_4((i) + 8), BY16_4((i) + 12)
#define BY16_64(i) BY16_16(i), BY16_16((i) + 16), BY16_16((i) + 32), BY16_16((i) + 48)
#define BY16_256(i) BY16_64(i), BY16_64((i) + 64), BY16_64((i) + 128), BY16_64((i) + 192)

const uint8_t place_class_by16[8192 / 16 + 1] = {BY16_256(0), BY16_256(256), BY16_1(512)};

unsigned place_aligned_class(const struct place_slabs *s, size_t size, size_t align)
{
    if (size > PLACE_SMALL_MAX || align > PLACE_SMALL_MAX)
        return PLACE_CLASSES;
    unsigned c = place_size_class(size > align ? size : align);
    if (place_class_size[c] > s->max) /* a run: aligned to its page alone */
        return align <= s->runs[0].unit ? c : PLACE_CLASSES;
    while (c < PLACE_CLASSES && place_class_size[c] % align) /* 64 KiB: any align up to it */
        c++;
    return c;
}

int place_slabs_init(struct place_slabs *s, void *lo, size_t len, unsigned nparts, bool keep_pages)
{
    /* slabs aligned to their size: a class whose size is a multiple of an alignment (up
     * to 64 KiB) then aligns every block */
    uintptr_t at = ((uintptr_t)lo + SLAB - 1) & ~(uintptr_t)(SLAB - 1);
    if (at - (uintptr_t)lo >= len)
        return -1;
    len -= at - (uintptr_t)lo;
    lo = (void *)at;
    size_t n = (len >> PLACE_SLAB_SHIFT) / nparts * nparts;
    if (!n)
        return -1;
    size_t bytes = n * sizeof(struct place_slab);
    void *meta = place_reserve(&bytes, bytes, MAP_NORESERVE);
    size_t depots = nparts * PLACE_CLASSES * sizeof(struct place_depot);
    size_t items = nparts * PLACE_CLASSES * DEPOT_MAX * sizeof(void *);
    s->depot = meta ? place_reserve(&depots, depots, MAP_NORESERVE) : NULL;
    s->depot_items = s->depot ? place_reserve(&items, items, MAP_NORESERVE) : NULL;
    if (!s->depot_items)
        return -1;
    for (unsigned k = 0; k < nparts * PLACE_CLASSES; k++)
        place_lock_init(&s->depot[k].lock);
    place_lock_init(&s->lock);
    s->lo = lo;
    s->hi = (char *)lo + (n << PLACE_SLAB_SHIFT);
    s->meta = meta;
    s->nparts = nparts;
    s->part_len = (n / nparts) << PLACE_SLAB_SHIFT;
    for (unsigned k = 0; k < nparts; k++)
        s->carve[k] = place_slabs_part(s, k);
    s->keep_pages = keep_pages;
    s->max = keep_pages ? PLACE_SMALL_MAX : PLACE_SLABBED_MAX;
    return 0;
}

static struct place_slab *meta_of(const struct place_slabs *s, const void *p)
{
    return place_slab_of(s, p);
}

static char *base_of(const struct place_slabs *s, const struct place_slab *sl)
{
    return s->lo + ((size_t)(sl - s->meta) << PLACE_SLAB_SHIFT);
}

/* Block p is one of sl's, at a block's start, among those handed out at least once. */
static bool of_slab(const struct place_slabs *s, const struct place_slab *sl, const void *p)
{
    size_t at = (size_t)((const char *)p - base_of(s, sl)), size = place_class_size[sl->cls];
    return (const char *)p >= s->lo && (const char *)p < s->carve[sl->part] &&
           meta_of(s, p) == sl && at % size == 0 && at / size < sl->bump;
}

static void link_partial(struct place_slabs *s, struct place_slab *sl)
{
    struct place_slab **head = &s->partial[sl->part][sl->cls];
    sl->prev = NULL;
    sl->next = *head;
    if (*head)
        (*head)->prev = sl;
    *head = sl;
    sl->listed = true;
}

static void unlink_partial(struct place_slabs *s, struct place_slab *sl)
{
    if (sl->prev)
        sl->prev->next = sl->next;
    else
        s->partial[sl->part][sl->cls] = sl->next;
    if (sl->next)
        sl->next->prev = sl->prev;
    sl->listed = false;
}

/* A slab for class c in part `part`: an empty one (of any class), else one never used. */
static struct place_slab *new_slab(struct place_slabs *s, unsigned c, unsigned part)
{
    struct place_slab *sl = s->empty[part];
    if (sl) {
        s->empty[part] = sl->next;
    } else {
        if (s->carve[part] == place_slabs_part(s, part) + s->part_len)
            return NULL;
        sl = meta_of(s, s->carve[part]);
        s->carve[part] += SLAB;
    }
    *sl = (struct place_slab){
        .cls = (uint8_t)c, .part = (uint8_t)part, .cap = SLAB / place_class_size[c]};
    link_partial(s, sl);
    return sl;
}

/* Up to n of depot k's blocks into out, the last given first (the likeliest in a CPU's
 * cache). */
static unsigned depot_take(struct place_slabs *s, unsigned k, void **out, unsigned n)
{
    struct place_depot *d = &s->depot[k];
    if (!__atomic_load_n(&d->n, __ATOMIC_RELAXED)) /* no lock for an empty one */
        return 0;
    place_lock(&d->lock, PLACE_RANK_ARENAS);
    unsigned got = d->n < n ? d->n : n;
    __atomic_store_n(&d->n, d->n - got, __ATOMIC_RELAXED); /* read unlocked above */
    memcpy(out, s->depot_items + k * DEPOT_MAX + d->n, got * sizeof *out);
    place_unlock(&d->lock, PLACE_RANK_ARENAS);
    return got;
}

/* All n blocks onto depot k, when it has room for them below bound: whether it took them. */
static bool depot_give(struct place_slabs *s, unsigned k, void *const *blocks, unsigned n,
                       unsigned bound)
{
    struct place_depot *d = &s->depot[k];
    if (__atomic_load_n(&d->n, __ATOMIC_RELAXED) + n > bound)
        return false;
    place_lock(&d->lock, PLACE_RANK_ARENAS);
    bool room = d->n + n <= bound;
    if (room) {
        memcpy(s->depot_items + k * DEPOT_MAX + d->n, blocks, n * sizeof *blocks);
        __atomic_store_n(&d->n, d->n + n, __ATOMIC_RELAXED);
    }
    place_unlock(&d->lock, PLACE_RANK_ARENAS);
    return room;
}

unsigned place_slabs_take(struct place_slabs *s, unsigned c, unsigned part, void **out, unsigned n,
                          bool grow)
{
    size_t size = place_class_size[c];
    PLACE_ASSERT(c < PLACE_CLASSES && part < s->nparts);
    if (size > s->max) /* runs: see place_slabs.max */
        return place_extents_take_runs(&s->runs[part], size, out, n, grow);
    unsigned got = depot_take(s, part * PLACE_CLASSES + c, out, n);
    if (got == n)
        return got;
    place_lock(&s->lock, PLACE_RANK_ARENAS);
    while (got < n) {
        struct place_slab *sl = s->partial[part][c];
        if (!sl && !(sl = new_slab(s, c, part)))
            break;
        PLACE_ASSERT(sl->listed && sl->cls == c);
        unsigned from = got;
        for (; got < n && sl->free; got++) {
            PLACE_ASSERT(of_slab(s, sl, sl->free));
            out[got] = sl->free;
            sl->free = *(void **)sl->free;
        }
        char *base = base_of(s, sl);
        for (; got < n && sl->bump < sl->cap; got++)
            out[got] = base + sl->bump++ * size;
        sl->out += got - from;
        /* a listed slab has a block to hand out; no more out than it holds */
        PLACE_ASSERT(got > from && sl->out <= sl->cap);
        if (!sl->free && sl->bump == sl->cap)
            unlink_partial(s, sl);
    }
    place_unlock(&s->lock, PLACE_RANK_ARENAS);
    return got;
}

bool place_slabs_fresh(const struct place_slabs *s, unsigned c, unsigned part)
{
    size_t size = place_class_size[c];
    if (size > s->max) {
        const struct place_extents *e = &s->runs[part];
        return !__atomic_load_n(&e->kept[size >> e->shift], __ATOMIC_RELAXED);
    }
    if (__atomic_load_n(&s->depot[part * PLACE_CLASSES + c].n, __ATOMIC_RELAXED))
        return false;
    struct place_slab *sl = __atomic_load_n(&s->partial[part][c], __ATOMIC_RELAXED);
    return !sl || !__atomic_load_n(&sl->free, __ATOMIC_RELAXED);
}

/* The part all n blocks are of, or s->nparts when they are of more than one (another
 * thread's blocks freed into a bin of a near = cpu tier). */
static unsigned part_of(const struct place_slabs *s, void *const *blocks, unsigned n)
{
    if (s->nparts == 1)
        return 0;
    unsigned part = (unsigned)((size_t)((char *)blocks[0] - s->lo) / s->part_len);
    for (unsigned k = 1; k < n; k++)
        if ((size_t)((char *)blocks[k] - s->lo) / s->part_len != part)
            return s->nparts;
    return part;
}

/* The n blocks back to their slabs, under the pool's lock. */
static void to_slabs(struct place_slabs *s, void *const *blocks, unsigned n)
{
    place_lock(&s->lock, PLACE_RANK_ARENAS);
    for (unsigned k = 0; k < n; k++) {
        struct place_slab *sl = meta_of(s, blocks[k]);
        /* one of its slab's blocks, and one that is out */
        PLACE_ASSERT(of_slab(s, sl, blocks[k]) && sl->out > 0 && sl->out <= sl->cap);
        *(void **)blocks[k] = sl->free;
        sl->free = blocks[k];
        if (!sl->listed)
            link_partial(s, sl);
        if (--sl->out == 0) { /* empty: any class may have it */
            unlink_partial(s, sl);
            sl->next = s->empty[sl->part];
            s->empty[sl->part] = sl;
        }
    }
    place_unlock(&s->lock, PLACE_RANK_ARENAS);
}

void place_slabs_give(struct place_slabs *s, unsigned c, void *const *blocks, unsigned n)
{
    PLACE_ASSERT(c < PLACE_CLASSES && n > 0 && 2u * s->caps[c] <= DEPOT_MAX);
    if (place_class_size[c] > s->max) { /* kept by their extents: no depot */
        for (unsigned k = 0, j; k < n; k = j) {
            struct place_extents *e = place_slabs_runs_of(s, blocks[k]);
            for (j = k + 1; j < n && place_slabs_runs_of(s, blocks[j]) == e; j++)
                ;
            place_extents_keep(e, blocks + k, j - k);
        }
        return;
    }
    unsigned part = part_of(s, blocks, n);
    if (part == s->nparts || !depot_give(s, part * PLACE_CLASSES + c, blocks, n, 2u * s->caps[c]))
        to_slabs(s, blocks, n);
}

bool place_slabs_aside(struct place_slabs *s, unsigned part)
{
    return place_extents_aside(&s->runs[part]);
}

void place_slabs_merge(struct place_slabs *s, unsigned part)
{
    if (s->runs)
        place_extents_merge(&s->runs[part]);
}

size_t place_slabs_trim(struct place_slabs *s)
{
    size_t given = 0;
    for (unsigned k = 0; k < s->nparts * PLACE_CLASSES; k++) {
        void *blocks[DEPOT_MAX];
        unsigned n = depot_take(s, k, blocks, DEPOT_MAX);
        if (n)
            to_slabs(s, blocks, n);
    }
    for (unsigned k = 0; k < s->nparts; k++)
        place_slabs_merge(s, k);
    if (s->keep_pages) /* its emptied slabs serve any class still */
        return 0;
    place_lock(&s->lock, PLACE_RANK_ARENAS);
    for (unsigned k = 0; k < s->nparts; k++)
        for (struct place_slab *sl = s->empty[k]; sl; sl = sl->next)
            if (!sl->released && madvise(base_of(s, sl), SLAB, MADV_DONTNEED) == 0) {
                sl->released = true;
                given += SLAB;
            }
    place_unlock(&s->lock, PLACE_RANK_ARENAS);
    return given;
}

void place_slabs_prefork(struct place_slabs *s)
{
    for (unsigned k = 0; k < s->nparts * PLACE_CLASSES; k++)
        pthread_mutex_lock(&s->depot[k].lock);
    pthread_mutex_lock(&s->lock);
}

void place_slabs_postfork(struct place_slabs *s)
{
    pthread_mutex_unlock(&s->lock);
    for (unsigned k = s->nparts * PLACE_CLASSES; k-- > 0;)
        pthread_mutex_unlock(&s->depot[k].lock);
}
