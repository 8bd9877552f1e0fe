/* The calling thread's state inside libplace: the re-entry guard, and its pass-through
 * counts.
 *
 * The state lives in one initial-exec TLS block, so the hot path reaches it with one
 * %fs-relative access and no call, and it exists before libplace's constructor runs.
 * The counts of glibc's blocks are here too, so that the counted path adds to them
 * without loading a pointer first; a snapshot reads them through the thread's slot in
 * the stats layer (policy/stats/threads.h), which also holds what the thread counts
 * less often, and which the thread hands everything to when it exits. */
#ifndef PLACE_GUARD_H
#define PLACE_GUARD_H

#include <stdint.h>

#include "assert.h"

struct place_slot;

enum place_thread_state {
    PLACE_THREAD_NEW,    /* not registered yet (or libplace not ready) */
    PLACE_THREAD_ACTIVE, /* has a slot: counts here and there, hands bytes over in batches */
    PLACE_THREAD_BUSY,   /* inside libplace: the re-entry guard is up */
    PLACE_THREAD_SHARED, /* exited, or no slot was free: counts go to the shared counters */
};

struct place_thread {
    /* glibc's blocks this thread allocated and freed, while ACTIVE (the hot path tests
     * the state and leaves every other one to the slow path) */
    uint64_t allocs, frees;
    struct place_slot *slot; /* this thread's slot, while it has one */
    /* its memo of the stacks site lookups read (policy/site/memo.h): NULL until its first
     * lookup and after its exit hook, and the module generation it was filled for: 0
     * while there is no table (generations start at 1), so that a lookup tests it alone */
    struct place_memo_set *memos;
    uint32_t memos_gen;
    /* the return address of its last stack whose caller alone decided every rule (none:
     * 0), and that stack's masks in the memo's entry, valid while memos_gen is */
    uintptr_t caller_ra;
    const uint64_t *caller_masks;
    /* Bytes this thread may still ask for before its next allocation is sampled for the
     * profile (policy/stats/profile.h): 0 at its start, so that its first allocation
     * draws the first interval. */
    int64_t sample_left;
    uint64_t sample_seed; /* its random draws of those intervals */
    uint8_t state;
    uint8_t before_fork; /* the state the prefork handler's guard saved */
    uint32_t ranks;      /* the ranks of the locks it holds, in builds with asserts (base/rank.h) */
};

extern __thread struct place_thread place_self __attribute__((tls_model("initial-exec")));

/* The re-entry guard: while it is up, the calling thread's allocations are served by
 * glibc and neither counted nor sampled (they are libplace's own), so what libplace calls into
 * (libc, pthreads, other libraries' fork handlers, libunwind and the tier libraries) may
 * allocate without recursing into libplace's own slow paths or locks. enter returns the
 * state to give back to leave, so guards nest. The signal fences keep the compiler from
 * moving what the guard protects (a thread's cache bins, its slot) across it: a signal
 * handler runs on the same thread, so the compiler's order is the only one that matters. */
static inline uint8_t place_guard_enter(void)
{
    uint8_t was = place_self.state;
    place_self.state = PLACE_THREAD_BUSY;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return was;
}

/* place_self is named, never reached through a pointer, in the inline paths: UBSan's
 * null check of a TLS variable's address, as GCC 12 emits it (lea, then je on flags the
 * lea does not set), fired at random in the UBSan build. */
static inline void place_guard_leave(uint8_t was)
{
    /* only the guard's own enter raises it; a thread active is one with a slot */
    PLACE_ASSERT(place_self.state == PLACE_THREAD_BUSY);
    PLACE_ASSERT(was <= PLACE_THREAD_SHARED && (was != PLACE_THREAD_ACTIVE || place_self.slot));
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    place_self.state = was;
}

/* Whether the calling thread is inside libplace (its own allocations are glibc's). */
static inline int place_guarded(void)
{
    return place_self.state == PLACE_THREAD_BUSY;
}

#endif
