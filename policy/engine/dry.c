#include "dry.h"

#include <pthread.h>

#include "../base/glibc.h"
#include "../base/guard.h"
#include "../stats/timeline.h"

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

void *place_dry_alloc(struct place_tier *t, const struct place_request *r)
{
    struct dry *e = __libc_malloc(sizeof *e);
    void *p = e ? place_glibc_alloc(r) : NULL;
    if (!p) {
        __libc_free(e);
        place_tier_release(t, (int64_t)r->size);
        return NULL;
    }
    place_stats_count(t->stats, PLACE_EV_ALLOCS, 1);
    *e = (struct dry){.p = p, .tier = t->index, .bytes = r->size};
    unsigned s = stripe(p);
    pthread_mutex_lock(&stripes[s].lock);
    HASH_ADD_PTR(stripes[s].map, p, e);
    pthread_mutex_unlock(&stripes[s].lock);
    place_timeline_tick();
    return p;
}

/* The planned tier that holds p, or -1; with take, p leaves the map and its tier. The
 * guard is up while a stripe is locked: a signal handler that allocates meanwhile gets
 * glibc's memory instead of waiting for the stripe its own thread holds. */
static int lookup(const void *p, bool take)
{
    unsigned s = stripe(p);
    struct dry *e;
    uint8_t was = place_guard_enter();
    pthread_mutex_lock(&stripes[s].lock);
    HASH_FIND_PTR(stripes[s].map, &p, e);
    if (e && take)
        HASH_DEL(stripes[s].map, e);
    pthread_mutex_unlock(&stripes[s].lock);
    place_guard_leave(was);
    if (!e)
        return -1;
    int tier = (int)e->tier;
    if (take) {
        place_tier_uncharge(place_tiers[tier], e->bytes);
        __libc_free(e);
    }
    return tier;
}

int place_dry_tier(const void *p)
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
