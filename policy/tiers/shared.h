/* A tier's limit shared by the machine's processes (scope = node): MPI ranks on one node
 * that each declare "limit = 16G" of HBM hold 16G together, not 16G each.
 *
 * One region of shared memory per user, tier name and job (/dev/shm/libplace-UID-TIER,
 * with -JOB where a batch system's job id is set) holds the count every such process
 * reserves from, its peak, a slot per process with what that process holds, and the
 * futex word that on_full = wait sleeps on across processes. A reservation and a release
 * take the region's lock: they are a tier's slow path already (a bin's refill, a large
 * block), and under it the count stays the slots' sum, even when a process dies holding
 * it (the lock is robust: the next holder recounts). A process that ends gives its slot
 * back; a killed one keeps it until a reservation finds no room, which first frees the
 * slots of processes that are gone (by pid and start time, at most every 100 ms; pids
 * must be of one namespace: containers that share /dev/shm across pid namespaces would
 * see each other's processes as gone). A forked child takes an empty slot before anything
 * else: what it inherited stays its parent's, and its frees of those are taken from what
 * it placed itself, never below 0. Without a slot (past the process's end, or a child
 * that found none free) a process counts for itself only. */
#ifndef PLACE_SHARED_H
#define PLACE_SHARED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct place_tier;
struct place_shared;

/* Joins t to its region, made if need be: NULL, or why it cannot (written into t->reason). */
const char *place_shared_attach(struct place_tier *t);

/* bytes reserved in the region, under limit (0: past any limit); false when refused. */
bool place_shared_reserve(struct place_shared *s, int64_t bytes, uint64_t limit);

/* bytes given back (negative: taken past any limit), waking the processes that wait. */
void place_shared_release(struct place_shared *s, int64_t bytes);

/* Where on_full = wait waits across processes (to be waited on and woken without
 * FUTEX_PRIVATE_FLAG). */
struct place_waits *place_shared_waits(struct place_shared *s);

/* What the report gives beside the process's figures. */
struct place_shared_view {
    const char *name; /* the region's, as shm_open names it */
    int64_t in_use, peak;
    unsigned processes; /* slots held, the dead not yet freed included */
};
void place_shared_view(const struct place_shared *s, struct place_shared_view *v);

/* The bytes every sharing process holds together now (what place_tier_held reads on
 * every commit with watermarks: no walk over the slots). */
int64_t place_shared_in_use(const struct place_shared *s);

/* Whether a process other than this one holds a slot (and so may free room). */
bool place_shared_others(const struct place_shared *s);

/* A forked child's own slot, empty (the first thing it does: what it gives back of
 * other threads' caches must not come from its parent's); the end of the process: its
 * slots given back. */
void place_shared_postfork_child(void);
void place_shared_end(void);

#endif
