#include "dry.h"

#include <pthread.h>

#include "../base/glibc.h"
#include "../base/guard.h"
#include "../base/rank.h"
#include "fold.h"

#define uthash_malloc(sz) place_libc_malloc(sz)
#define uthash_free(ptr, sz) place_libc_free(ptr)
#include <uthash.h>

/* which planned tier each pointer went to, by pointer, in 64 locked stripes */
struct dry {
    void *p;
    unsigned tier;
    bool folded;
    size_t bytes;
    UT_hash_handle hh;
};

static uint64_t fold_min;

void place_dry_start(uint64_t min)
{
    fold_min = min;
}

/* Folded when big enough (and the kernel maps it), else glibc's. */
static void *planned(const struct place_request *r, bool *folded)
{
    void *p = NULL;
    if (fold_min && r->size >= fold_min)
        p = place_fold_alloc(r->size, r->call == PLACE_ALIGNED ? r->align : 0);
    *folded = p != NULL;
    return p ? p : place_glibc_alloc(r);
}

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
    struct dry *e = place_libc_malloc(sizeof *e);
    bool folded = false;
    void *p = e ? planned(r, &folded) : NULL;
    if (!p) {
        place_libc_free(e);
        place_tier_release(t, (int64_t)r->size);
        return NULL;
    }
    place_stats_count(t->stats, PLACE_EV_ALLOCS, 1);
    *e = (struct dry){.p = p, .tier = t->index, .folded = folded, .bytes = r->size};
    unsigned s = stripe(p);
    place_lock(&stripes[s].lock, PLACE_RANK_DRY);
    HASH_ADD_PTR(stripes[s].map, p, e);
    place_unlock(&stripes[s].lock, PLACE_RANK_DRY);
    return p;
}

/* The planned tier that holds p, or -1; with take, p leaves the map and its tier, and
 * *folded says whether it was folded. The guard is up while a stripe is locked: a signal
 * handler that allocates meanwhile gets glibc's memory instead of waiting for the stripe
 * its own thread holds. Asked with the guard up (that handler's free or realloc of that
 * memory, a library's that libplace called), the thread may hold the very stripe, or be
 * midway through changing it: the answer is glibc's, which is what such a block is (a
 * planned block that such a handler frees stays in the map, counted). */
static int lookup(const void *p, bool take, bool *folded)
{
    if (place_guarded())
        return -1;
    unsigned s = stripe(p);
    struct dry *e;
    uint8_t was = place_guard_enter();
    place_lock(&stripes[s].lock, PLACE_RANK_DRY);
    HASH_FIND_PTR(stripes[s].map, &p, e);
    if (e && take)
        HASH_DEL(stripes[s].map, e);
    place_unlock(&stripes[s].lock, PLACE_RANK_DRY);
    place_guard_leave(was);
    if (!e)
        return -1;
    int tier = (int)e->tier;
    if (take) {
        *folded = e->folded;
        place_tier_uncharge(place_tiers[tier], e->bytes);
        place_libc_free(e);
    }
    return tier;
}

int place_dry_tier(const void *p)
{
    return lookup(p, false, NULL);
}

bool place_dry_free(void *p)
{
    bool folded;
    if (lookup(p, true, &folded) < 0)
        return false;
    if (folded)
        place_fold_free(p);
    else
        place_libc_free(p);
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
