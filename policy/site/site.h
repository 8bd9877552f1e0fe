/* Call sites: which site patterns the frames above an allocation match.
 *
 * A repeated site must cost a lookup, not an unwind. Each thread remembers the stacks it
 * saw, keyed by the return address into the caller and the stack pointer at the call,
 * with the stack slot of each deeper return address: a later call with the same key
 * whose return addresses are still in those slots has the same frames, checked by
 * reading them, a few loads. A stack the memo lacks is walked by its frames' unwind
 * information (cfi.h: each return address's frame layout read once, kept process
 * wide with its pattern matches), a table lookup and a few loads a frame, which also
 * finds the slots. Stacks the walker cannot read (a signal frame, code without unwind
 * information) are libunwind's: traced by its backtrace (~80 ns for 12 frames, no
 * slots), or unwound by its cursor once seen often (two system calls a frame: the
 * slots). A key may keep several stacks (one call reached from different callers at the
 * same depth). Frames past the first that match every pattern the rules name are never
 * looked at: a caller that does (site = * included) costs no walk at all. */
#ifndef PLACE_SITE_H
#define PLACE_SITE_H

#include <stdint.h>

#include "cfi.h"

/* For the frames above the allocation call whose return address is ra (frame 1, or the
 * first past the allocation wrappers ra is in: operator new, strdup, the policy's
 * `wrappers`, ...): element k of the result is the patterns matched by any of frames
 * 1..k+1 or the wrappers below them, for k below the depth given to place_sites_start
 * (the deepest rule's), so that a rule of depth d reads element d - 1 (a shallower stack:
 * all its frames' patterns). The array is the calling thread's and valid until its next
 * call. Runs with the re-entry guard up. */
const uint64_t *place_site_masks(uintptr_t ra, uintptr_t sp);

/* place_site_masks for a stack place_memo_masks (memo.h) did not find: the caller
 * alone, the thread's table made, or the stack walked (or traced or unwound) into a new
 * or an untrusted entry. from: a frame of the calling thread's between this call and
 * the allocation's entry point (PLACE_CFI_HERE), where the walk starts, or NULL (here):
 * the nearer the entry, the fewer of libplace's own frames it steps through. */
const uint64_t *place_site_masks_unknown(uintptr_t ra, uintptr_t sp,
                                         const struct place_cfi_frame *from);

/* The caller's stack pointer: with ra, the key of site lookups. It need only be the same
 * whenever the program calls from the same frame, and a function without alloca keeps
 * its own constant distance from that. */
static inline uintptr_t place_stack_pointer(void)
{
#if defined(__x86_64__)
    uintptr_t sp;
    __asm__("mov %%rsp, %0" : "=r"(sp));
    return sp;
#else
    return (uintptr_t)__builtin_frame_address(0);
#endif
}

/* The frames from ra up (frame 1 as for a rule's depth: past the allocation wrappers),
 * at most depth, into out; returns how many (ra alone when no unwinder can see them).
 * Walked, or libunwind's backtrace where the walker cannot read a frame. */
unsigned place_site_frames(uintptr_t ra, unsigned depth, uintptr_t *out);

/* The patterns the code address ra matches (modules.h), PLACE_WRAPPER included,
 * cached process wide. */
uint64_t place_site_mask(uintptr_t ra);

/* At start, when some rule names sites, with every pattern the rules
 * name (frames past those that match all of them are never looked at) and the deepest
 * rule's depth (every lookup's: a thread's memo holds stacks of that depth): libunwind keeps
 * what it parsed of each frame's unwind information per thread. Its default, one cache
 * for the process, blocks every signal and takes a lock around each lookup: two
 * sigprocmask system calls per frame, which made gcc 6x slower under a depth-4 rule. */
void place_sites_start(uint64_t patterns, unsigned depth);

/* libunwind loaded (dlopened, at start, by a process with site rules or a report) and
 * set up as site lookups and the profile's samples use it: each thread keeps what it
 * parsed of each frame's unwind information. Its pipe goes to high descriptors
 * (shim/pipe.c). When it cannot be loaded, libplace says so once, and a stack the walk
 * cannot read is its caller alone. */
void place_unwinder_start(void);

/* Fork handlers: the fork waits for the unwinds under way (libunwind's locks must not be
 * held in the child), and unwinds wait while it forks. */
void place_sites_prefork(void);
void place_sites_postfork_parent(void);
void place_sites_postfork_child(void);

#endif
