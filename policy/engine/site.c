#include "site.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "../../config/policy.h"
#include "../base/claim.h"
#include "modules.h"

/* Process-wide: a return address's pattern matches, valid for one module generation.
 * A full neighbourhood means asking the modules each time. */
enum { ADDRESS_BITS = 14, PROBES = 16 };

static _Atomic uint64_t address_keys[1 << ADDRESS_BITS];
static struct {
    _Atomic uint64_t mask;
    _Atomic uint32_t gen; /* 0 while the mask is being written, or never written */
} addresses[1 << ADDRESS_BITS];

static uint64_t address_mask(uintptr_t ra)
{
    uint32_t gen = place_modules_generation(), at;
    long i = place_claim(address_keys, ADDRESS_BITS, PROBES, ra);
    if (i < 0)
        return place_modules_match(ra, &at);
    if (atomic_load_explicit(&addresses[i].gen, memory_order_acquire) == gen)
        return atomic_load_explicit(&addresses[i].mask, memory_order_relaxed);
    uint64_t mask = place_modules_match(ra, &at);
    atomic_store_explicit(&addresses[i].gen, 0, memory_order_relaxed);
    atomic_store_explicit(&addresses[i].mask, mask, memory_order_relaxed);
    atomic_store_explicit(&addresses[i].gen, at, memory_order_release);
    return mask;
}

/* Per thread: stacks unwound before. */
enum { MEMOS = 16 };

struct memo {
    uintptr_t ra, sp;
    uint32_t gen;
    unsigned depth; /* asked for */
    unsigned n;     /* frames found: depth, or fewer on a shallow stack */
    uint64_t cum[PLACE_MAX_DEPTH];
    uintptr_t slot[PLACE_MAX_DEPTH], val[PLACE_MAX_DEPTH];
};

static __thread struct memo memos[MEMOS] __attribute__((tls_model("initial-exec")));
static __thread uintptr_t stack_top __attribute__((tls_model("initial-exec")));

static uintptr_t thread_stack_top(void)
{
    if (!stack_top) {
        pthread_attr_t attr;
        void *lo;
        size_t size;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            if (pthread_attr_getstack(&attr, &lo, &size) == 0)
                stack_top = (uintptr_t)lo + size;
            pthread_attr_destroy(&attr);
        }
    }
    return stack_top;
}

/* Where on the stack, between from and the top, the word `value` is first found; 0 if
 * nowhere. The frames libunwind reported are on this stack, above `from`, so the scan
 * stops at each one's own slot at the latest. */
static uintptr_t find_slot(uintptr_t from, uintptr_t value)
{
    uintptr_t top = thread_stack_top();
    for (uintptr_t a = from & ~(uintptr_t)7; a + sizeof value <= top; a += sizeof value)
        if (*(const uintptr_t *)a == value)
            return a;
    return 0;
}

static bool still_there(const struct memo *m)
{
    for (unsigned k = 1; k < m->n; k++)
        if (*(const uintptr_t *)m->slot[k] != m->val[k])
            return false;
    return true;
}

/* Unwinds, fills m with the frames from ra up, and says whether the stack slots of all
 * of them were found (only then can the memo be trusted later). */
static bool unwind(struct memo *m, uintptr_t ra, uintptr_t sp, unsigned depth)
{
    void *buf[PLACE_MAX_DEPTH + 8];
    int got = unw_backtrace(buf, (int)depth + 8);
    int first = 0;
    while (first < got && (uintptr_t)buf[first] != ra)
        first++;
    m->n = 0;
    uint64_t cum = 0;
    if (first == got) { /* libunwind could not see the caller: ra alone */
        m->val[0] = ra;
        m->cum[0] = address_mask(ra);
        m->n = 1;
        return false;
    }
    for (int k = first; k < got && m->n < depth; k++) {
        m->val[m->n] = (uintptr_t)buf[k];
        cum |= address_mask((uintptr_t)buf[k]);
        m->cum[m->n++] = cum;
    }
    /* The outermost frame of a thread (its start routine's caller) has no return address
     * on the stack: the frames end at the first one whose slot is not found, on the first
     * call and on every repeat alike. */
    uintptr_t from = sp;
    for (unsigned k = 0; k < m->n; k++) {
        m->slot[k] = find_slot(from, m->val[k]);
        if (!m->slot[k]) {
            m->n = k;
            return k > 0;
        }
        from = m->slot[k] + sizeof(uintptr_t);
    }
    return true;
}

const uint64_t *place_site_masks(uintptr_t ra, unsigned depth, unsigned *n)
{
    static __thread uint64_t one __attribute__((tls_model("initial-exec")));
    if (depth <= 1) {
        one = address_mask(ra);
        *n = 1;
        return &one;
    }
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    uint32_t gen = place_modules_generation();
    struct memo *m = &memos[((ra ^ sp) * 0x9e3779b97f4a7c15ull) >> 60];
    if (!(m->ra == ra && m->sp == sp && m->gen == gen && m->depth == depth && still_there(m))) {
        bool trusted = unwind(m, ra, sp, depth);
        m->ra = trusted ? ra : 0;
        m->sp = sp;
        m->gen = gen;
        m->depth = depth;
    }
    *n = m->n;
    return m->cum;
}
