#include "site.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "../../config/policy.h"
#include "../base/cfi.h"
#include "../base/claim.h"
#include "../base/pages.h"
#include "memo.h"
#include "modules.h"

/* Process-wide: a return address's pattern matches and its frame's layout at the call
 * (base/cfi.h), valid for one module generation. An entry is claimed for good by its
 * key (base/claim.h) and read where its key lies, one cache line; a full neighbourhood
 * means asking the modules and the unwind information each time. */
enum { ADDRESS_BITS = 14, PROBES = 16 };

static struct address {
    _Atomic uint64_t key, mask, rule;
    _Atomic uint32_t gen; /* 0 while the entry is being written, or never written */
} addresses[1 << ADDRESS_BITS] __attribute__((aligned(32)));

/* What the table answers for a return address: its patterns, its frame's rule. */
struct answer {
    uint64_t mask, rule;
};

/* e's answers into *a if they are whole and of generation gen: a sequence lock, the
 * generation read before and after them (plain loads and compiler fences on x86-64). */
static inline bool read_entry(const struct address *e, uint32_t gen, struct answer *a)
{
    if (atomic_load_explicit(&e->gen, memory_order_acquire) != gen)
        return false;
    a->mask = atomic_load_explicit(&e->mask, memory_order_relaxed);
    a->rule = atomic_load_explicit(&e->rule, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    return atomic_load_explicit(&e->gen, memory_order_relaxed) == gen;
}

/* address() for a key not at its hash's own slot, or not answered for this generation:
 * probes, claims, fills. An answer is kept only if the modules did not change while it
 * was made. */
__attribute__((noinline)) static struct answer address_slow(uintptr_t ra)
{
    uint32_t gen = place_modules_generation(), at;
    long i = place_claim_strided(&addresses[0].key, sizeof addresses[0] / sizeof(uint64_t),
                                 ADDRESS_BITS, PROBES, ra);
    struct address *e = i >= 0 ? &addresses[i] : NULL;
    struct answer a;
    if (e && read_entry(e, gen, &a))
        return a;
    a.mask = place_modules_match(ra, &at);
    a.rule = place_cfi_rule_at(ra - 1);
    if (e && place_modules_generation() == at) {
        atomic_store_explicit(&e->gen, 0, memory_order_relaxed);
        atomic_thread_fence(memory_order_release);
        atomic_store_explicit(&e->mask, a.mask, memory_order_relaxed);
        atomic_store_explicit(&e->rule, a.rule, memory_order_relaxed);
        atomic_store_explicit(&e->gen, at, memory_order_release);
    }
    return a;
}

/* ra's answers: most often in its hash's own slot. */
static inline struct answer address(uintptr_t ra)
{
    const struct address *e = &addresses[place_claim_hash(ra, ADDRESS_BITS)];
    struct answer a;
    if (__builtin_expect(atomic_load_explicit(&e->key, memory_order_relaxed) == ra &&
                             read_entry(e, place_modules_generation(), &a),
                         1))
        return a;
    return address_slow(ra);
}

uint64_t place_site_mask(uintptr_t ra)
{
    return address(ra).mask;
}

/* Patterns no frame matches (PLACE_WRAPPER is never among a frame's patterns): frames are
 * read up to the depth asked, whatever they match. */
static const uint64_t NEVER = ~0ull;

/* Every pattern the rules name: once the frames seen match all of them, deeper frames
 * cannot change any rule's answer, so none is unwound, traced or checked. */
static uint64_t all_patterns;

__thread struct place_memo_set *place_memos __attribute__((tls_model("initial-exec")));
static __thread bool no_memos __attribute__((tls_model("initial-exec")));
static pthread_key_t memo_key;
static pthread_once_t memo_once = PTHREAD_ONCE_INIT;

/* pthread key destructor: the table goes with its thread (a lookup after this unwinds) */
static void drop_memos(void *table)
{
    munmap(table, PLACE_MEMO_SETS * sizeof *place_memos);
    place_memos = NULL;
    no_memos = true;
}

static void make_memo_key(void)
{
    pthread_key_create(&memo_key, drop_memos);
}

/* The calling thread's table, made at its first lookup. With the guard up, so not from
 * glibc: a signal handler's malloc meanwhile goes to glibc, and would deadlock on the
 * glibc lock this thread held. */
static struct place_memo_set *own_memos(void)
{
    if (__builtin_expect(place_memos != NULL || no_memos, 1))
        return place_memos;
    pthread_once(&memo_once, make_memo_key);
    size_t size = PLACE_MEMO_SETS * sizeof *place_memos;
    if (!(place_memos = place_reserve(&size, size, 0)) || pthread_setspecific(memo_key, place_memos) != 0) {
        if (place_memos)
            munmap(place_memos, size);
        place_memos = NULL;
        no_memos = true;
    }
    return place_memos;
}

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

/* The caller's frame alone (its patterns: first): all that is needed when it matches
 * every pattern, or all there is when the unwinder cannot see it. */
static void caller_only(struct place_memo *m, uintptr_t ra, uint64_t first)
{
    m->frame[0].ra = ra;
    m->cum[0] = first;
    m->n = m->raw = 1;
}

/* The patterns of frame ip that add_frame needs: a sample (stop NEVER) wants the
 * wrapper bit alone, and only until a frame counts. */
static uint64_t wanted(const struct place_memo *m, uintptr_t ip, uint64_t stop)
{
    return m->n == 0 || stop != NEVER ? place_site_mask(ip) : 0;
}

/* Adds frame ip (its slot: 0 when unknown; its patterns: mask) to m: a wrapper while no
 * frame has been counted yet is read but not counted, its patterns going into the first
 * counted frame's. Returns whether frames above ip are still wanted: fewer than depth
 * counted, and the patterns seen not yet all of `stop` (past which no rule's answer
 * changes). */
static bool add_frame(struct place_memo *m, uintptr_t ip, uintptr_t slot, uint64_t mask,
                      unsigned depth, uint64_t stop, uint64_t *cum)
{
    m->frame[m->raw].ra = ip;
    m->frame[m->raw++].slot = slot;
    *cum |= mask & ~PLACE_WRAPPER;
    if (m->n == 0 && (mask & PLACE_WRAPPER) && m->raw < PLACE_MEMO_WRAPPERS)
        return *cum != stop;
    m->cum[m->n++] = *cum;
    return m->n < depth && *cum != stop;
}

/* libunwind's own locks are out of libplace's reach: a fork while another thread is
 * inside libunwind would leave one held forever in the child, whose next unwind waits
 * for it (seen: a stress test's child hung in unw_step). So a fork waits for the unwinds
 * under way, and an unwind waits for a fork under way. */
static _Atomic unsigned unwinding;
static _Atomic bool forking;
/* this thread's unwind, which a signal handler's fork interrupted: not waited for */
static __thread bool mine __attribute__((tls_model("initial-exec")));

static void unwind_begin(void)
{
    for (;;) {
        atomic_fetch_add(&unwinding, 1); /* seq_cst: seen by the fork before it reads */
        if (!atomic_load(&forking)) {
            mine = true;
            return;
        }
        atomic_fetch_sub(&unwinding, 1);
        while (atomic_load(&forking))
            sched_yield();
    }
}

static void unwind_end(void)
{
    mine = false;
    atomic_fetch_sub(&unwinding, 1);
}

void place_sites_prefork(void)
{
    atomic_store(&forking, true);
    while (atomic_load(&unwinding) > (unsigned)mine)
        sched_yield();
}

void place_sites_postfork_parent(void)
{
    atomic_store(&forking, false);
}

void place_sites_postfork_child(void)
{
    /* a thread that counted itself in and was backing out is not the child's */
    atomic_store(&unwinding, 0);
    atomic_store(&forking, false);
}

/* A stack that ended among wrappers: the last one read is the site. */
static void last_is_site(struct place_memo *m, uint64_t cum)
{
    if (m->n == 0 && m->raw > 0)
        m->cum[m->n++] = cum;
}

/* The frames from ra up, stepped through by their unwind information (base/cfi.h):
 * libplace's own frames first, from `from` (NULL: this one) to the entry point's, then
 * the program's, each with the slot of its return address: a table lookup and a few
 * loads a frame. No system call, and no lock once the table knows each return address
 * (a new one is asked of the modules, under their lock), so no fork handler. Returns
 * false when a frame on the way is one the walker does not read (no unwind information,
 * a signal frame, a layout by expression): libunwind's then; m is left no key's entry
 * if it was written. */
static bool walk(struct place_memo *m, uintptr_t ra, unsigned depth, uint64_t stop,
                 const struct place_cfi_frame *from)
{
#if PLACE_CFI_WALKS
    struct place_cfi_frame here;
    if (!from) {
        PLACE_CFI_HERE(here);
        from = &here;
    }
    uintptr_t sp = from->sp, bp = from->bp;
    /* the table's key is a return address: the call is the one before */
    uint64_t rule = address(from->ip + 1).rule;
    const uintptr_t *slot;
    for (int k = 0;; k++) {
        if (k == 8 || !(slot = place_cfi_step(rule, &sp, &bp)))
            return false;
        if (*slot == ra)
            break;
        rule = address(*slot).rule;
    }
    m->ra = 0; /* no key's entry until it is whole */
    m->trusted = false;
    m->n = m->raw = 0;
    uint64_t cum = 0;
    for (;;) {
        uintptr_t at = *slot;
        struct answer a = address(at);
        rule = a.rule;
        if (!add_frame(m, at, (uintptr_t)slot, a.mask, depth, stop, &cum))
            break;
        if (!(slot = place_cfi_step(rule, &sp, &bp))) {
            if (!(rule & PLACE_CFI_OUTERMOST))
                return false;
            break; /* the stack's first frame */
        }
        if (*slot == 0)
            break;
    }
    last_is_site(m, cum);
    return true;
#else
    (void)m, (void)ra, (void)depth, (void)stop, (void)from;
    return false;
#endif
}

/* Unwinds, fills m with the frames from ra (whose patterns are first) up, and says
 * whether the stack slots of all of them were found (only then can the memo be trusted
 * later). */
static bool unwind(struct place_memo *m, uintptr_t ra, uint64_t first, unsigned depth)
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
        caller_only(m, ra, first);
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
        more = add_frame(m, (uintptr_t)ip, slot, wanted(m, (uintptr_t)ip, all_patterns), depth,
                         all_patterns, &cum);
    } while (more && unw_step(&c) > 0);
    last_is_site(m, cum);
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
            while (k < got && (more = add_frame(m, (uintptr_t)ips[k], 0,
                                                wanted(m, (uintptr_t)ips[k], stop), depth, stop,
                                                &cum)))
                k++;
            if (!more || got < asked || asked == full) {
                last_is_site(m, cum);
                return;
            }
        }
        if (!more || got < asked || asked == full) {
            caller_only(m, ra, first);
            return;
        }
        asked = full;
    }
}

unsigned place_site_frames(uintptr_t ra, unsigned depth, uintptr_t *out)
{
    struct place_memo m;
    if (!walk(&m, ra, depth, NEVER, NULL)) {
        unwind_begin();
        trace(&m, ra, 0, depth, NEVER);
        unwind_end();
    }
    /* the counted frames are the last read: the wrappers came first */
    for (unsigned k = 0; k < m.n; k++)
        out[k] = m.frame[m.raw - m.n + k].ra;
    return m.n;
}

void place_unwinder_start(void)
{
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
}

void place_sites_start(uint64_t patterns)
{
    all_patterns = patterns;
    place_unwinder_start();
}

/* A thread's entry when it has no table (its memo could not be made) */
static __thread struct place_memo spare __attribute__((tls_model("initial-exec")));

/* Key (ra, sp, tag)'s untrusted entry in set, or NULL. (Its trusted ones were read by
 * place_memo_hit before any lookup came here, and none still there.) */
static struct place_memo *untrusted_of(struct place_memo_set *set, uintptr_t ra, uintptr_t sp,
                                       uint64_t tag)
{
    for (unsigned w = 0; set && w < PLACE_MEMO_WAYS; w++) {
        struct place_memo *e = &set->way[w];
        if (e->ra == ra && e->sp == sp && e->tag == tag && !e->trusted)
            return e;
    }
    return NULL;
}

/* m, filled, becomes the entry of key (ra, sp, tag). */
static const uint64_t *keep(struct place_memo *m, uintptr_t ra, uintptr_t sp, uint64_t tag,
                            unsigned *n)
{
    m->ra = ra;
    m->sp = sp;
    m->tag = tag;
    *n = m->n;
    return m->cum;
}

/* A stack the walker cannot read (a signal frame, code without unwind information),
 * libunwind's: traced (its backtrace: ~80 ns for 12 frames once their layout is known,
 * but no slots) until it has been seen HOT times, then unwound frame by frame (its
 * cursor: two system calls a frame, ~4 us for 12, but the slots that make every later
 * hit a few loads). One key may have several trusted entries (the same call at the same
 * depth from different callers further up) and one untrusted entry, which counts the
 * sightings of every other stack it has. */
static const uint64_t *unwound(struct place_memo_set *set, uintptr_t ra, uintptr_t sp,
                               uint64_t tag, uint64_t first, unsigned depth, unsigned *n)
{
    struct place_memo *m = untrusted_of(set, ra, sp, tag);
    enum { HOT = 64 };
    bool hot = m && ++m->seen >= HOT;
    if (!m && set) {
        m = &set->way[set->victim];
        set->victim = (set->victim + 1) % PLACE_MEMO_WAYS;
        m->seen = 0;
    } else if (!m) {
        m = &spare;
    }
    unwind_begin();
    m->trusted = hot && unwind(m, ra, first, depth);
    if (!hot)
        trace(m, ra, first, depth, all_patterns);
    unwind_end();
    return keep(m, ra, sp, tag, n);
}

const uint64_t *place_site_masks_unknown(uintptr_t ra, uintptr_t sp, unsigned depth,
                                         unsigned *n, const struct place_cfi_frame *from)
{
    uint64_t mask = place_site_mask(ra);
    uint64_t tag = place_memo_tag(depth), first = mask & ~PLACE_WRAPPER;
    struct place_memo_set *table = own_memos();
    struct place_memo_set *set = table ? place_memo_set_of(table, ra, sp) : NULL;
    /* place_memo_hit found no trusted entry: the stack is walked into the set's next
     * victim, trusted at once */
    struct place_memo *m = set ? &set->way[set->victim] : &spare;
    if (first == all_patterns || (depth <= 1 && !(mask & PLACE_WRAPPER))) {
        /* the caller alone decides (it matches every pattern, or it is the site and the
         * depth is 1): nothing to walk or check */
        caller_only(m, ra, first);
    } else if (!walk(m, ra, depth, all_patterns, from)) {
        return unwound(set, ra, sp, tag, first, depth, n);
    }
    m->trusted = true;
    if (set)
        set->victim = (set->victim + 1) % PLACE_MEMO_WAYS;
    m->seen = 0;
    return keep(m, ra, sp, tag, n);
}

const uint64_t *place_site_masks(uintptr_t ra, uintptr_t sp, unsigned depth, unsigned *n)
{
    const uint64_t *hit = place_memo_hit(ra, sp, depth, n);
    return hit ? hit : place_site_masks_unknown(ra, sp, depth, n, NULL);
}
