#include "pool.h"

#include <string.h>
#include <sys/mman.h>

#include "../../config/policy.h"
#include "../base/large.h"
#include "../base/rank.h"
#include "tier.h"

enum { PAGE = 4096, CHUNK_ALIGN = 2 << 20 };

static struct place_pool *pools[PLACE_MAX_TIERS];
static unsigned npools;

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

size_t place_pool_good_size(size_t size, size_t align)
{
    (void)align;
    return round_up(size ? size : 1, PLACE_POOL_GRAIN);
}

void place_pool_init(struct place_pool *pool, struct place_tier *t)
{
    const struct place_tier_config *c = t->config;
    memset(pool, 0, sizeof *pool);
    pthread_mutex_init(&pool->lock, NULL);
    pool->tier = t;
    pool->max = round_up(c->chunk_max, PAGE);
    pool->next = round_up(c->chunk_initial, PAGE);
    pool->growth = c->chunk_growth;
    if (npools < PLACE_MAX_TIERS)
        pools[npools++] = pool;
}

/* Bits of the used map: the first clear (want 0) or set (want 1) bit in [from, end). */
static size_t next_bit(const uint64_t *map, size_t from, size_t end, int want)
{
    while (from < end) {
        uint64_t w = map[from / 64] ^ (want ? 0 : ~0ull);
        w &= ~0ull << (from % 64);
        size_t word = from / 64 * 64;
        if (w)
            return word + (size_t)__builtin_ctzll(w) < end ? word + (size_t)__builtin_ctzll(w)
                                                           : end;
        from = word + 64;
    }
    return end;
}

static void mark(uint64_t *map, size_t from, size_t n, bool used)
{
    for (size_t g = from; g < from + n;) {
        size_t bit = g % 64, take = 64 - bit < from + n - g ? 64 - bit : from + n - g;
        uint64_t bits = (take == 64 ? ~0ull : ((1ull << take) - 1)) << bit;
        map[g / 64] = used ? map[g / 64] | bits : map[g / 64] & ~bits;
        g += take;
    }
}

/* The first run of n free grains in c whose address is a multiple of align. */
static bool find(struct place_chunk *c, size_t n, size_t align, size_t *at)
{
    for (size_t g = c->first_free; g < c->grains;) {
        g = next_bit(c->used, g, c->grains, 0);
        uintptr_t a = c->lo + g * PLACE_POOL_GRAIN;
        g += (round_up(a, align) - a) / PLACE_POOL_GRAIN;
        if (g + n > c->grains)
            return false;
        size_t end = next_bit(c->used, g, g + n, 1);
        if (end == g + n) {
            *at = g;
            return true;
        }
        g = end;
    }
    return false;
}

static void *take(struct place_chunk *c, size_t g, size_t n)
{
    mark(c->used, g, n, true);
    c->len[g] = (uint32_t)n;
    c->free_grains -= n;
    if (g == c->first_free)
        c->first_free = next_bit(c->used, g + n, c->grains, 0);
    return (void *)(c->lo + g * PLACE_POOL_GRAIN);
}

/* Adds a chunk of size bytes from the source, keeping the table by address. */
static struct place_chunk *add_chunk(struct place_pool *pool, size_t size, bool own)
{
    if (pool->n == PLACE_POOL_CHUNKS)
        return NULL;
    size_t grains = size / PLACE_POOL_GRAIN, meta = 0;
    void *m = NULL;
    if (!own) {
        /* the bookkeeping is libplace's own memory, never the chunk's */
        meta = round_up(grains / 8 + 8, 64) + grains * sizeof(uint32_t);
        m = mmap(NULL, meta, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
        if (m == MAP_FAILED)
            return NULL;
    }
    uintptr_t device = 0;
    void *p = pool->tier->source->get(pool->tier, size, NULL, &device);
    if (!p) {
        if (m)
            munmap(m, meta);
        return NULL;
    }
    unsigned k = pool->n;
    while (k > 0 && pool->chunk[k - 1].lo > (uintptr_t)p) {
        pool->chunk[k] = pool->chunk[k - 1];
        k--;
    }
    pool->n++;
    struct place_chunk *c = &pool->chunk[k];
    *c = (struct place_chunk){.lo = (uintptr_t)p,
                              .device = device,
                              .size = size,
                              .own = own,
                              .grains = grains,
                              .free_grains = grains};
    if (m) {
        c->used = m;
        c->len = (uint32_t *)((char *)m + round_up(grains / 8 + 8, 64));
    }
    return c;
}

void *place_pool_alloc(struct place_pool *pool, size_t size, size_t align)
{
    size_t n = place_pool_good_size(size, 0) / PLACE_POOL_GRAIN;
    if (align < PLACE_POOL_GRAIN)
        align = PLACE_POOL_GRAIN;
    void *p = NULL;
    place_lock(&pool->lock, PLACE_RANK_POOLS);
    if (size > pool->max) {
        /* straight to the driver, in a chunk of its own; page alignment at most */
        struct place_chunk *c = align <= PAGE ? add_chunk(pool, round_up(size, PAGE), true) : NULL;
        if (c) {
            c->free_grains = 0;
            p = (void *)c->lo;
        }
        place_unlock(&pool->lock, PLACE_RANK_POOLS);
        return p;
    }
    size_t at;
    for (unsigned k = 0; k < pool->n && !p; k++) {
        struct place_chunk *c = &pool->chunk[k];
        if (!c->own && c->free_grains >= n && find(c, n, align, &at))
            p = take(c, at, n);
    }
    if (!p) {
        size_t want = round_up(n * PLACE_POOL_GRAIN + (align > PAGE ? align : 0), CHUNK_ALIGN);
        size_t chunk = pool->next > want ? pool->next : want;
        struct place_chunk *c = add_chunk(pool, chunk < pool->max ? chunk : pool->max, false);
        if (c && find(c, n, align, &at)) {
            p = take(c, at, n);
            if (pool->next < pool->max)
                pool->next =
                    pool->next * pool->growth < pool->max ? pool->next * pool->growth : pool->max;
        }
    }
    place_unlock(&pool->lock, PLACE_RANK_POOLS);
    return p;
}

/* The chunk holding address a, by binary search; NULL if none does. */
static struct place_chunk *chunk_of(struct place_pool *pool, uintptr_t a)
{
    unsigned lo = 0, hi = pool->n;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        struct place_chunk *c = &pool->chunk[mid];
        if (a < c->lo)
            hi = mid;
        else if (a >= c->lo + c->size)
            lo = mid + 1;
        else
            return c;
    }
    return NULL;
}

static void drop_chunk(struct place_pool *pool, struct place_chunk *c)
{
    pool->tier->source->put(pool->tier, (void *)c->lo, c->size, NULL);
    if (c->used)
        munmap(c->used, round_up(c->grains / 8 + 8, 64) + c->grains * sizeof(uint32_t));
    unsigned k = (unsigned)(c - pool->chunk);
    memmove(c, c + 1, (pool->n - k - 1) * sizeof *c);
    pool->n--;
}

static size_t usable(const struct place_chunk *c, uintptr_t a)
{
    if (c->own)
        return a == c->lo ? place_pool_good_size(c->size, 0) : 0;
    size_t g = (a - c->lo) / PLACE_POOL_GRAIN;
    return (a - c->lo) % PLACE_POOL_GRAIN == 0 && c->used[g / 64] >> g % 64 & 1
               ? (size_t)c->len[g] * PLACE_POOL_GRAIN
               : 0;
}

size_t place_pool_free(struct place_pool *pool, void *p)
{
    uintptr_t a = (uintptr_t)p;
    place_lock(&pool->lock, PLACE_RANK_POOLS);
    struct place_chunk *c = chunk_of(pool, a);
    size_t n = c ? usable(c, a) : 0;
    if (n && c->own) {
        drop_chunk(pool, c);
    } else if (n) {
        size_t g = (a - c->lo) / PLACE_POOL_GRAIN;
        mark(c->used, g, n / PLACE_POOL_GRAIN, false);
        c->free_grains += n / PLACE_POOL_GRAIN;
        if (g < c->first_free)
            c->first_free = g;
    }
    place_unlock(&pool->lock, PLACE_RANK_POOLS);
    return n;
}

size_t place_pool_usable(struct place_pool *pool, const void *p)
{
    place_lock(&pool->lock, PLACE_RANK_POOLS);
    struct place_chunk *c = chunk_of(pool, (uintptr_t)p);
    size_t n = c ? usable(c, (uintptr_t)p) : 0;
    place_unlock(&pool->lock, PLACE_RANK_POOLS);
    return n;
}

uintptr_t place_pool_device(struct place_pool *pool, const void *p)
{
    place_lock(&pool->lock, PLACE_RANK_POOLS);
    struct place_chunk *c = chunk_of(pool, (uintptr_t)p);
    uintptr_t d = c ? c->device + ((uintptr_t)p - c->lo) : 0;
    place_unlock(&pool->lock, PLACE_RANK_POOLS);
    return d;
}

size_t place_pool_reclaim(struct place_pool *pool, size_t want)
{
    size_t done = 0;
    place_lock(&pool->lock, PLACE_RANK_POOLS);
    for (unsigned k = pool->n; k-- > 0 && done < want;) {
        struct place_chunk *c = &pool->chunk[k];
        if (!c->own && c->free_grains == c->grains) {
            done += c->size;
            drop_chunk(pool, c);
        }
    }
    place_unlock(&pool->lock, PLACE_RANK_POOLS);
    return done;
}

int place_pool_tier(struct place_tier *t)
{
    static struct place_pool made[PLACE_MAX_TIERS] PLACE_LARGE;
    static unsigned n;
    if (n == PLACE_MAX_TIERS) {
        t->unavailable = "libplace's table of pools is full";
        return -1;
    }
    place_pool_init(&made[n], t);
    t->state = &made[n++];
    return 0;
}

static void *get_block(struct place_tier *t, const struct place_request *r)
{
    void *p = place_pool_alloc(t->state, r->size, r->align);
    if (p && r->call == PLACE_CALLOC)
        memset(p, 0, r->size);
    return p;
}

static void put_block(struct place_tier *t, void *p, size_t usable, const struct place_request *r)
{
    (void)usable, (void)r;
    place_pool_free(t->state, p);
}

static void *pool_alloc(struct place_tier *t, const struct place_request *r, bool force,
                        bool *limited)
{
    return place_tier_counted(t, r, force, limited, get_block, put_block);
}

/* A block of a pool's is freed as a CUDA call asks or as free() does: the same. */
static void pool_release(struct place_tier *t, void *p, size_t usable, struct place_cu_call *cu)
{
    (void)usable, (void)cu;
    place_tier_uncharge(t, place_pool_free(t->state, p));
}

static uintptr_t pool_device(struct place_tier *t, const void *p)
{
    return place_pool_device(t->state, p);
}

static size_t pool_usable(struct place_tier *t, const void *p)
{
    return place_pool_usable(t->state, p);
}

static size_t pool_good_size(const struct place_tier *t, size_t size, size_t align)
{
    (void)t;
    return place_pool_good_size(size, align);
}

static size_t pool_reclaim(struct place_tier *t, size_t want)
{
    return place_pool_reclaim(t->state, want);
}

const struct place_allocator place_pool_allocator = {
    .alloc = pool_alloc,
    .release = pool_release,
    .usable_size = pool_usable,
    .good_size = pool_good_size,
    .reclaim = pool_reclaim,
    .device_ptr = pool_device,
};

void place_pools_prefork(void)
{
    for (unsigned k = 0; k < npools; k++)
        pthread_mutex_lock(&pools[k]->lock);
}

void place_pools_postfork(void)
{
    for (unsigned k = 0; k < npools; k++)
        pthread_mutex_unlock(&pools[k]->lock);
}
