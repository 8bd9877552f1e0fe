#include "symmetric.h"

#include <stdatomic.h>
#include <stdbool.h>

#include "../base/rank.h"

/* Calls are collective and rare (each costs the SHMEM library a barrier): one spin lock
 * serves. It is never held across a call out; fork takes it (place_symmetric_prefork),
 * so that a child never finds it held by a thread it lacks. */
static struct place_symmetric_stats stats;
static atomic_flag busy = ATOMIC_FLAG_INIT;

static void spin(void)
{
    while (atomic_flag_test_and_set_explicit(&busy, memory_order_acquire))
        ;
}

static void lock(void)
{
    place_rank_take(PLACE_RANK_SYMMETRIC);
    spin();
}

static void unlock(void)
{
    atomic_flag_clear_explicit(&busy, memory_order_release);
    place_rank_drop(PLACE_RANK_SYMMETRIC);
}

static void fold(uint64_t v)
{
    for (int k = 0; k < 8; k++, v >>= 8)
        stats.digest = (stats.digest ^ (v & 0xff)) * 0x100000001b3ull;
}

void place_symmetric_decided(unsigned kind, size_t size, size_t align, int rule, int tier)
{
    lock();
    if (!stats.calls++)
        stats.digest = 0xcbf29ce484222325ull;
    fold(kind);
    fold(size);
    fold(align);
    fold((uint64_t)(int64_t)rule);
    fold((uint64_t)(int64_t)tier);
    stats.refused += tier < 0;
    unlock();
}

void place_symmetric_bound(unsigned tier, int64_t bytes)
{
    lock();
    stats.blocks[tier] += bytes < 0 ? (uint64_t)-1 : 1;
    stats.bytes[tier] += (uint64_t)bytes;
    stats.binds[tier] += bytes > 0;
    unlock();
}

void place_symmetric_unbindable(void)
{
    lock();
    stats.unbindable++;
    unlock();
}

bool place_symmetric_snapshot(struct place_symmetric_stats *out)
{
    /* a report from a signal handler may have interrupted the holder: a copy torn by a
     * call under way beats waiting forever */
    bool held = false;
    for (int k = 0; k < 1 << 20 && !held; k++)
        held = !atomic_flag_test_and_set_explicit(&busy, memory_order_acquire);
    if (held)
        place_rank_hold(PLACE_RANK_SYMMETRIC);
    *out = stats;
    if (held)
        unlock();
    return out->calls != 0;
}

/* The fork table holds the rank for the fork (shim/init.c). */
void place_symmetric_prefork(void)
{
    spin();
}

void place_symmetric_postfork(void)
{
    atomic_flag_clear_explicit(&busy, memory_order_release);
}
