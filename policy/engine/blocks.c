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
};

static struct entry *maps[PLACE_BLOCKS_SHMEM + 1];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void place_blocks_put(enum place_block_map m, const struct place_block *b)
{
    struct entry *e = place_libc_malloc(sizeof *e);
    if (e) {
        e->b = *b;
        place_lock(&lock, PLACE_RANK_BLOCKS);
        struct entry *old;
        HASH_FIND(hh, maps[m], &b->key, sizeof b->key, old);
        if (old) { /* an address reused whose free libplace did not see */
            HASH_DEL(maps[m], old);
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

void place_blocks_prefork(void)
{
    pthread_mutex_lock(&lock);
}

void place_blocks_postfork(void)
{
    pthread_mutex_unlock(&lock);
}
