/* libunwind, for the stacks the walk (walk.c) cannot read: a signal frame, code without
 * unwind information, a frame laid out by an expression. Every call into it goes through
 * the fork handshake (handshake.h).
 *
 * libunwind is loaded at start only by a process that may need it (site rules, a
 * report's samples), like memkind and libnuma: one that runs untouched never maps it, nor
 * the liblzma it needs (108 KiB of max RSS). Without it, a stack the walk cannot read is
 * its caller alone. */
#include "unwound.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "../base/lib.h"
#include "../base/out.h"
#include "frames.h"
#include "handshake.h"

/* libunwind's local-only names are macros (unw_step is _ULx86_64_step on x86-64): the
 * symbols looked up are what they expand to. */
#define NAME(f) NAME_(f)
#define NAME_(f) #f

static struct {
    __typeof__(unw_tdep_getcontext) *getcontext;
    __typeof__(unw_init_local) *init_local;
    __typeof__(unw_step) *step;
    __typeof__(unw_get_reg) *get_reg;
    __typeof__(unw_is_signal_frame) *is_signal_frame;
    __typeof__(unw_set_caching_policy) *set_caching_policy;
    __typeof__(unw_backtrace) *backtrace;
    unw_addr_space_t *local_addr_space;
} uw;

static const struct place_sym uw_syms[] = {
    {(void **)&uw.getcontext, NAME(unw_tdep_getcontext)},
    {(void **)&uw.init_local, NAME(unw_init_local)},
    {(void **)&uw.step, NAME(unw_step)},
    {(void **)&uw.get_reg, NAME(unw_get_reg)},
    {(void **)&uw.is_signal_frame, NAME(unw_is_signal_frame)},
    {(void **)&uw.set_caching_policy, NAME(unw_set_caching_policy)},
    {(void **)&uw.backtrace, NAME(unw_backtrace)},
    {(void **)&uw.local_addr_space, NAME(unw_local_addr_space)},
};

static struct place_lib libunwind = {
    .file = "libunwind.so.8",
    .absent = "libunwind cannot be loaded",
    .hint = "Debian package libunwind8",
    .needs = "libunwind 1.1 or later is needed",
    .syms = uw_syms,
    .nsyms = sizeof uw_syms / sizeof uw_syms[0],
};

/* Set once libunwind is loaded, before any thread can read a stack with it. */
static bool loaded;

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
    if (__atomic_load_n(&loaded, __ATOMIC_ACQUIRE) && uw.getcontext(&ctx) == 0 &&
        uw.init_local(&c, &ctx) == 0)
        /* the frames of libplace and of the entry point first, at most a few */
        for (int k = 0; k < 8 && uw.step(&c) > 0; k++)
            if (uw.get_reg(&c, UNW_REG_IP, &ip) == 0 && ip == ra) {
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
        if (uw.get_reg(&c, UNW_REG_IP, &ip) != 0 || uw.get_reg(&c, UNW_REG_SP, &sp) != 0)
            break;
        /* libunwind says "signal frame" of the frame the signal interrupted, whose
         * registers come from its sigcontext: its SP may be the very address that
         * faulted (a stack overflow caught on a sigaltstack), so no slot is read there,
         * nor further on */
        readable &= uw.is_signal_frame(&c) <= 0;
        uintptr_t slot = readable ? slot_of((uintptr_t)sp, (uintptr_t)ip) : 0;
        trusted &= slot != 0;
        more = place_frames_add(m, (uintptr_t)ip, slot, place_frames_wanted(m, (uintptr_t)ip, stop),
                                depth, stop, &cum);
    } while (more && uw.step(&c) > 0);
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
        int got = __atomic_load_n(&loaded, __ATOMIC_ACQUIRE) ? uw.backtrace(ips, asked) : 0, k = 0;
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
    static bool tried; /* at start, before any other thread can ask */
    if (tried)
        return;
    tried = true;
    const char *why = place_lib_load(&libunwind);
    if (why) {
        place_warn("%s: a stack whose frames the walk cannot read (a signal handler's, code "
                   "without unwind information) is its caller's frame alone",
                   why);
        return;
    }
    uw.set_caching_policy(*uw.local_addr_space, UNW_CACHE_PER_THREAD);
    __atomic_store_n(&loaded, true, __ATOMIC_RELEASE);
}
