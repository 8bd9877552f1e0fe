/* The symmetric heap's decisions (engine/shmem_path.c). Every PE of an OpenSHMEM job must
 * make the same allocations with the same arguments; so each call and what libplace
 * decided for it is folded into a digest, in call order, which place-report merge
 * compares across PEs (a limit reached on one PE only is the classic cause of a
 * difference). Beside it, what is bound to which tier. */
#ifndef PLACE_STATS_SYMMETRIC_H
#define PLACE_STATS_SYMMETRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../config/policy.h"

struct place_symmetric_stats {
    uint64_t calls;  /* allocation calls decided (shmem_malloc, _calloc, _align, _realloc) */
    uint64_t digest; /* FNV-1a over each call's (kind, size, alignment, rule, tier) */
    uint64_t refused; /* calls the symmetric tier's limit refused (answered NULL) */
    uint64_t unbindable; /* bindings the kernel refused (mbind) */
    /* by tier index: blocks bound there now, their bytes (whole pages), blocks ever bound */
    uint64_t blocks[PLACE_MAX_TIERS], bytes[PLACE_MAX_TIERS], binds[PLACE_MAX_TIERS];
};

/* One call decided: kind (the entry point, numbered by the caller), its arguments, the
 * rule that took it (-1: none) and the tier its pages went to (its index; the symmetric
 * tier's when left where the SHMEM library put them, -1 when refused). */
void place_symmetric_decided(unsigned kind, size_t size, size_t align, int rule, int tier);

/* bytes of whole pages bound to tier (negative: unbound, at a free), one block. */
void place_symmetric_bound(unsigned tier, int64_t bytes);

void place_symmetric_unbindable(void);

/* A SHMEM_SYMMETRIC_SIZE that holds a heap whose blocks peaked at peak bytes: an eighth
 * more for the library's own bookkeeping and alignment, in whole MiB. */
static inline uint64_t place_symmetric_suggested(uint64_t peak)
{
    uint64_t mib = (uint64_t)1 << 20;
    return (peak + peak / 8 + mib - 1) / mib * mib;
}

/* fork: the lock is held across it. */
void place_symmetric_prefork(void);
void place_symmetric_postfork(void);

/* A copy, whole; false when no call has been seen. */
bool place_symmetric_snapshot(struct place_symmetric_stats *out);

#endif
