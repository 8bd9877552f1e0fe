/* libunwind, for the stacks the walk (walk.c) cannot read: a signal frame, code without
 * unwind information, a frame laid out by an expression. Every call into it goes through
 * the fork handshake (handshake.h). */
#include "unwound.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "frames.h"
#include "handshake.h"

/* libunwind's cursor gives each frame's stack pointer, which is its callee's canonical
 * frame address: on x86-64 the return address into the frame lies in the word just
 * below it. So each return address's slot is known without scanning the stack and
 * without asking for the thread's stack bounds (pthread_getattr_np takes the thread's
 * lock and allocates: called from inside malloc, it deadlocked threads that ask for
 * their own attributes, and a scan from a heap-allocated sigaltstack crossed unmapped
 * memory). A slot that does not hold the address (a signal frame's interrupted PC lives
 * in its ucontext, not on the stack) makes the memo untrusted: unwound again next time. */
static uintptr_t slot_of(uintptr_t sp, uintptr_t ip)
{
#if defined(__x86_64__)
    uintptr_t slot = sp - sizeof(uintptr_t);
    return *(const uintptr_t *)slot == ip ? slot : 0;
#else
    (void)sp, (void)ip;
    return 0; /* the return address need not be on the stack (a link register) */
#endif
}

/* Unwinds, fills m with the frames from ra (whose patterns are first) up, and says
 * whether the stack slots of all of them were found (only then can the memo be trusted
 * later). */
static bool unwind(struct place_memo *m, uintptr_t ra, uint64_t first, unsigned depth,
                   uint64_t stop)
{
    unw_context_t ctx;
    unw_cursor_t c;
    unw_word_t ip = 0, sp = 0;
    m->n = 0;
    bool found = false;
    if (unw_getcontext(&ctx) == 0 && unw_init_local(&c, &ctx) == 0)
        /* the frames of libplace and of the entry point first, at most a few */
        for (int k = 0; k < 8 && unw_step(&c) > 0; k++)
            if (unw_get_reg(&c, UNW_REG_IP, &ip) == 0 && ip == ra) {
                found = true;
                break;
            }
    if (!found) {
        place_frames_caller_only(m, ra, first);
        return false;
    }
    bool trusted = true, readable = true, more;
    uint64_t cum = 0;
    m->raw = 0;
    do {
        if (unw_get_reg(&c, UNW_REG_IP, &ip) != 0 || unw_get_reg(&c, UNW_REG_SP, &sp) != 0)
            break;
        /* libunwind says "signal frame" of the frame the signal interrupted, whose
         * registers come from its sigcontext: its SP may be the very address that
         * faulted (a stack overflow caught on a sigaltstack), so no slot is read there,
         * nor further on */
        readable &= unw_is_signal_frame(&c) <= 0;
        uintptr_t slot = readable ? slot_of((uintptr_t)sp, (uintptr_t)ip) : 0;
        trusted &= slot != 0;
        more = place_frames_add(m, (uintptr_t)ip, slot, place_frames_wanted(m, (uintptr_t)ip, stop),
                                depth, stop, &cum);
    } while (more && unw_step(&c) > 0);
    place_frames_end(m, cum);
    return trusted && m->n > 0;
}

/* The frames from ra up by libunwind's own backtrace, which keeps per thread the layout
 * of each frame it has seen (tens of nanoseconds a frame, no system call) but says
 * nothing of where each return address lies: the entry it fills is not trusted. */
static void trace(struct place_memo *m, uintptr_t ra, uint64_t first, unsigned depth, uint64_t stop)
{
    void *ips[8 + PLACE_MEMO_WRAPPERS + PLACE_MAX_DEPTH];
    /* A backtrace costs by the frame: libplace's own (about four) and the depth asked for
     * are read first, and every frame that may matter only when those ran out (gcc's
     * stacks, 20 frames asked where 9 were needed: 147 -> ~70 ns). */
    int full = 8 + PLACE_MEMO_WRAPPERS + (int)depth, asked = 6 + (int)depth;
    for (;;) {
        int got = unw_backtrace(ips, asked), k = 0;
        while (k < got && k < 8 && (uintptr_t)ips[k] != ra)
            k++;
        bool more = k == got; /* ra not reached yet */
        if (!more && k < 8) {
            m->n = m->raw = 0;
            uint64_t cum = 0;
            while (k < got &&
                   (more = place_frames_add(m, (uintptr_t)ips[k], 0,
                                            place_frames_wanted(m, (uintptr_t)ips[k], stop), depth,
                                            stop, &cum)))
                k++;
            if (!more || got < asked || asked == full) {
                place_frames_end(m, cum);
                return;
            }
        }
        if (!more || got < asked || asked == full) {
            place_frames_caller_only(m, ra, first);
            return;
        }
        asked = full;
    }
}

bool place_unwind_frames(struct place_memo *m, uintptr_t ra, uint64_t first, unsigned depth,
                         uint64_t stop)
{
    place_unwind_begin();
    bool trusted = unwind(m, ra, first, depth, stop);
    place_unwind_end();
    return trusted;
}

void place_unwind_trace(struct place_memo *m, uintptr_t ra, uint64_t first, unsigned depth,
                        uint64_t stop)
{
    place_unwind_begin();
    trace(m, ra, first, depth, stop);
    place_unwind_end();
}

void place_unwinder_start(void)
{
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
}
