#include "dry.h"

#include <pthread.h>
#include <string.h>

#include "../shim/free.h"
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

/* Whether p is in the map, with its planned size in *bytes; with take, removes it and
 * releases it from its tier. */
static bool lookup(void *p, bool take, size_t *bytes)
{
    unsigned s = stripe(p);
    struct dry *e;
    pthread_mutex_lock(&stripes[s].lock);
    HASH_FIND_PTR(stripes[s].map, &p, e);
    if (e && take)
        HASH_DEL(stripes[s].map, e);
    pthread_mutex_unlock(&stripes[s].lock);
    if (!e)
        return false;
    *bytes = e->bytes;
    if (take) {
        struct place_tier_stats *st = &place_tiers[e->tier]->stats;
        atomic_fetch_add_explicit(&st->frees, 1, memory_order_relaxed);
        place_stats_release(st, (int64_t)e->bytes);
        __libc_free(e);
        place_timeline_tick();
    }
    return true;
}

int place_dry_tier(void *p)
{
    unsigned s = stripe(p);
    struct dry *e;
    pthread_mutex_lock(&stripes[s].lock);
    HASH_FIND_PTR(stripes[s].map, &p, e);
    int tier = e ? (int)e->tier : -1;
    pthread_mutex_unlock(&stripes[s].lock);
    return tier;
}

bool place_dry_free(void *p)
{
    size_t bytes;
    if (!lookup(p, true, &bytes))
        return false;
    __libc_free(p);
    return true;
}

bool place_dry_realloc(void *p, size_t size, uintptr_t ra, void **out)
{
    size_t planned;
    if (!lookup(p, false, &planned))
        return false;
    size_t old = place_glibc_usable(p); /* the program may use all of it, as with glibc */
    /* the policy decides again; p stays where it is until the new block exists */
    void *q = size ? place_alloc(size, 0, PLACE_MALLOC, ra) : NULL;
    if (q) {
        memcpy(q, p, old < size ? old : size);
        place_free(p);
    } else if (!size) {
        place_dry_free(p);
    }
    *out = q;
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
