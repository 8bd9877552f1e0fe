#include "dry.h"

#include <pthread.h>

#include "../shim/glibc.h"
#include "../shim/thread.h"
#include "chain.h"
#include "tier.h"
#include "timeline.h"

#define uthash_malloc(sz) __libc_malloc(sz)
#define uthash_free(ptr, sz) __libc_free(ptr)
#include <uthash.h>

/* which planned tier each pointer went to, by pointer, in 64 locked stripes */
struct dry {
    void *p;
    unsigned tier;
    size_t bytes;
    UT_hash_handle hh;
};

static struct {
    pthread_mutex_t lock;
    struct dry *map;
} stripes[64];

static unsigned stripe(const void *p)
{
    return (unsigned)(((uintptr_t)p * 0x9e3779b97f4a7c15ull) >> 58);
}

void *place_dry_alloc(unsigned tier, size_t size, size_t align, enum place_call call)
{
    struct dry *e = __libc_malloc(sizeof *e);
    void *p = e ? place_glibc(size, align, call) : NULL;
    if (!p) {
        __libc_free(e);
        place_stats_release(&place_tiers[tier]->stats, (int64_t)size);
        return NULL;
    }
    atomic_fetch_add_explicit(&place_tiers[tier]->stats.allocs, 1, memory_order_relaxed);
    *e = (struct dry){.p = p, .tier = tier, .bytes = size};
    unsigned s = stripe(p);
    pthread_mutex_lock(&stripes[s].lock);
    HASH_ADD_PTR(stripes[s].map, p, e);
    pthread_mutex_unlock(&stripes[s].lock);
    place_timeline_tick();
    return p;
}

/* The planned tier that holds p, or -1; with take, p leaves the map and its tier. */
static int lookup(void *p, bool take)
{
    unsigned s = stripe(p);
    struct dry *e;
    pthread_mutex_lock(&stripes[s].lock);
    HASH_FIND_PTR(stripes[s].map, &p, e);
    if (e && take)
        HASH_DEL(stripes[s].map, e);
    pthread_mutex_unlock(&stripes[s].lock);
    if (!e)
        return -1;
    int tier = (int)e->tier;
    if (take) {
        struct place_tier_stats *st = &place_tiers[tier]->stats;
        atomic_fetch_add_explicit(&st->frees, 1, memory_order_relaxed);
        place_stats_release(st, (int64_t)e->bytes);
        __libc_free(e);
        place_timeline_tick();
    }
    return tier;
}

int place_dry_tier(void *p)
{
    return lookup(p, false);
}

bool place_dry_free(void *p)
{
    if (lookup(p, true) < 0)
        return false;
    __libc_free(p);
    return true;
}

void place_dry_prefork(void)
{
    for (unsigned s = 0; s < 64; s++)
        pthread_mutex_lock(&stripes[s].lock);
}

void place_dry_postfork(void)
{
    for (unsigned s = 0; s < 64; s++)
        pthread_mutex_unlock(&stripes[s].lock);
}
