#include "blocks.h"

#include <pthread.h>

#include "../base/glibc.h"
#include "../base/rank.h"
#define uthash_malloc(sz) place_libc_malloc(sz)
#define uthash_free(ptr, sz) place_libc_free(ptr)
#include <uthash.h>

struct entry {
    struct place_block b;
    UT_hash_handle hh;
    struct entry *handle; /* a mapping: its handle's block */
    unsigned mappings;    /* a handle's block: the mappings that hold it */
    bool released;        /* a handle's block: out of the handle map, held by its mappings */
};

static struct entry *maps[PLACE_BLOCK_MAPS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void place_blocks_put(enum place_block_map m, const struct place_block *b)
{
    struct entry *e = place_libc_malloc(sizeof *e);
    if (e) {
        *e = (struct entry){.b = *b};
        place_lock(&lock, PLACE_RANK_BLOCKS);
        struct entry *old;
        HASH_FIND(hh, maps[m], &b->key, sizeof b->key, old);
        if (old) { /* an address reused whose free libplace did not see */
            HASH_DEL(maps[m], old);
            if (old->mappings) /* a handle's block its mappings still hold */
                old->released = true;
            else
                place_libc_free(old);
        }
        HASH_ADD(hh, maps[m], b.key, sizeof e->b.key, e);
        place_unlock(&lock, PLACE_RANK_BLOCKS);
    }
}

/* The block under key into *b; with take, out of the map. */
static bool lookup(enum place_block_map m, uint64_t key, struct place_block *b, bool take)
{
    struct entry *e;
    place_lock(&lock, PLACE_RANK_BLOCKS);
    HASH_FIND(hh, maps[m], &key, sizeof key, e);
    bool found = e != NULL;
    if (found) {
        *b = e->b;
        if (take)
            HASH_DEL(maps[m], e);
    }
    place_unlock(&lock, PLACE_RANK_BLOCKS);
    if (take)
        place_libc_free(e);
    return found;
}

bool place_blocks_take(enum place_block_map m, uint64_t key, struct place_block *b)
{
    return lookup(m, key, b, true);
}

bool place_blocks_find(enum place_block_map m, uint64_t key, struct place_block *b)
{
    return lookup(m, key, b, false);
}

/* Takes mapping e out of the map: true, with its handle's block into *gone, when that was
 * the last hold on a released handle (whose entry is then freed). Under the lock. */
static bool unmapped(struct entry *e, struct place_block *gone, struct entry **free_too)
{
    struct entry *handle = e->handle;
    HASH_DEL(maps[PLACE_BLOCKS_CUDA_MAPS], e);
    handle->mappings--;
    *free_too = NULL;
    if (!handle->released || handle->mappings)
        return false;
    *gone = handle->b;
    *free_too = handle;
    return true;
}

bool place_blocks_map(uint64_t h, uint64_t va, size_t size, struct place_block *gone)
{
    struct entry *e = place_libc_malloc(sizeof *e), *handle, *old, *freed = NULL;
    if (!e)
        return false;
    *e = (struct entry){.b = {.key = va, .usable = size}};
    place_lock(&lock, PLACE_RANK_BLOCKS);
    HASH_FIND(hh, maps[PLACE_BLOCKS_CUDA_HANDLES], &h, sizeof h, handle);
    HASH_FIND(hh, maps[PLACE_BLOCKS_CUDA_MAPS], &va, sizeof va, old);
    /* the driver mapped va anew: a mapping still there is one whose end libplace did not
     * see (a context destroyed, a device reset) */
    bool stale = old && unmapped(old, gone, &freed);
    if (handle) {
        e->handle = handle;
        handle->mappings++;
        HASH_ADD(hh, maps[PLACE_BLOCKS_CUDA_MAPS], b.key, sizeof e->b.key, e);
    }
    place_unlock(&lock, PLACE_RANK_BLOCKS);
    if (!handle)
        place_libc_free(e);
    place_libc_free(old);
    place_libc_free(freed);
    return stale;
}

bool place_blocks_release(uint64_t h, struct place_block *gone)
{
    struct entry *e;
    place_lock(&lock, PLACE_RANK_BLOCKS);
    HASH_FIND(hh, maps[PLACE_BLOCKS_CUDA_HANDLES], &h, sizeof h, e);
    if (e) {
        HASH_DEL(maps[PLACE_BLOCKS_CUDA_HANDLES], e);
        e->released = true;
        *gone = e->b;
    }
    bool freed = e && !e->mappings;
    place_unlock(&lock, PLACE_RANK_BLOCKS);
    if (freed)
        place_libc_free(e);
    return freed;
}

bool place_blocks_unmap(uint64_t va, uint64_t end, uint64_t *next, struct place_block *gone)
{
    struct entry *e, *it, *safe, *freed = NULL;
    place_lock(&lock, PLACE_RANK_BLOCKS);
    HASH_FIND(hh, maps[PLACE_BLOCKS_CUDA_MAPS], &va, sizeof va, e);
    if (!e) /* a gap in the range: the next mapping inside it, if any */
        HASH_ITER(hh, maps[PLACE_BLOCKS_CUDA_MAPS], it, safe)
            if (it->b.key > va && it->b.key < end && (!e || it->b.key < e->b.key))
                e = it;
    *next = e ? e->b.key + e->b.usable : end;
    bool last = e && unmapped(e, gone, &freed);
    place_unlock(&lock, PLACE_RANK_BLOCKS);
    place_libc_free(e);
    place_libc_free(freed);
    return last;
}

void place_blocks_prefork(void)
{
    pthread_mutex_lock(&lock);
}

void place_blocks_postfork(void)
{
    pthread_mutex_unlock(&lock);
}
