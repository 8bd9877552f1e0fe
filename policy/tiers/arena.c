#include "arena.h"

#include <dlfcn.h>
#include <link.h>
#include <memkind.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

#include <unistd.h>

#include "../../config/policy.h"
#include "../base/guard.h"
#include "../base/lib.h"
#include "../base/out.h"
#include "cache.h"
#include "owner.h"
#include "tier.h"

enum { ARENA_MIN = 64 << 20 };

/* memkind, loaded at first need: linking it would load hwloc, daxctl, udev and more into
 * every process under the shim, milliseconds of start-up that a policy without an arena
 * tier must not pay. */
static struct {
    int (*create_fixed)(void *, size_t, memkind_t *);
    void *(*malloc)(memkind_t, size_t);
    void *(*calloc)(memkind_t, size_t, size_t);
    int (*posix_memalign)(memkind_t, void **, size_t, size_t);
    void (*free)(memkind_t, void *);
    size_t (*usable_size)(memkind_t, void *);
} mk;

static const struct place_sym mk_syms[] = {
    {(void **)&mk.create_fixed, "memkind_create_fixed"},
    {(void **)&mk.malloc, "memkind_malloc"},
    {(void **)&mk.calloc, "memkind_calloc"},
    {(void **)&mk.posix_memalign, "memkind_posix_memalign"},
    {(void **)&mk.free, "memkind_free"},
    {(void **)&mk.usable_size, "memkind_malloc_usable_size"},
};

struct place_writable {
    uintptr_t at;
    bool ok;
};

static int find_writable(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct place_writable *q = arg;
    bool in_data = false, in_relro = false;
    for (unsigned k = 0; k < info->dlpi_phnum; k++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (q->at < lo || q->at + sizeof(void *) > hi)
            continue;
        in_data |= ph->p_type == PT_LOAD && (ph->p_flags & PF_W);
        in_relro |= ph->p_type == PT_GNU_RELRO;
    }
    q->ok |= in_data && !in_relro;
    return in_data; /* found its object */
}

static struct place_lib memkind = {
    .file = "libmemkind.so.0",
    .absent = "memkind cannot be loaded",
    .hint = "Debian package libmemkind0",
    .needs = "memkind 1.12 or later is needed",
    .syms = mk_syms,
    .nsyms = sizeof mk_syms / sizeof mk_syms[0],
};

/* Whether the word at p may be written: in a writable segment of its object, outside
 * PT_GNU_RELRO (which the loader makes read-only after relocation). */
static bool writable(const void *p)
{
    struct place_writable q = {(uintptr_t)p, false};
    dl_iterate_phdr(find_writable, &q);
    return q.ok;
}

/* A fixed kind's finalize at exit: keep it. Non-zero ends memkind's finalize loop, so
 * no kind after it is torn down either (and memkind's check that every kind it made
 * was destroyed, an assert, is skipped). */
static int keep_kind(struct memkind *kind)
{
    (void)kind;
    return -1;
}

/* memkind's destructor finalizes every kind it knows, and a fixed kind's finalize
 * destroys its jemalloc arenas. It runs after libplace's destructor but before those of
 * the libraries the program dlopened, and while other threads may still allocate: their
 * frees and allocations would then reach destroyed arenas (a crash at exit, the
 * program's buffered output lost). DESIGN.md section 7 says never tear a heap down, so
 * fixed kinds are kept: in memkind 1.12 to 1.14, MEMKIND_FIXED_OPS (writable data)
 * holds memkind_fixed_destroy both as its destroy (slot 1, which memkind_destroy_kind
 * calls) and its finalize (slot 16, which only the destructor calls). Only when both
 * slots say so is the finalize replaced; another layout is left alone. */
static void keep_kinds_at_exit(void)
{
    enum { DESTROY = 1, FINALIZE = 16 };
    void **ops = place_lib_sym(&memkind, "MEMKIND_FIXED_OPS");
    void *destroy = place_lib_sym(&memkind, "memkind_fixed_destroy");
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    /* the table must be as large as the slots read, and writable data (not RELRO) */
    if (!ops || !destroy || !dladdr1(ops, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym ||
        sym->st_size < (FINALIZE + 1) * sizeof(void *) || ELF64_ST_TYPE(sym->st_info) != STT_OBJECT)
        return;
    if (ops[DESTROY] == destroy && ops[FINALIZE] == destroy && writable(ops + FINALIZE))
        ops[FINALIZE] = (void *)keep_kind;
}

static int create(struct place_arena *a, struct place_tier *t, size_t want,
                  const struct place_arena_spec *spec, const char **why)
{
    /* MAP_NORESERVE: address space only; pages cost memory when the program touches them.
     * Under strict overcommit the kernel may refuse a large reservation, so halve. Huge
     * pages are reserved as mapped instead, so that a fault never finds none (SIGBUS). */
    int flags = spec && spec->flags ? spec->flags : MAP_NORESERVE;
    size_t len = spec && spec->len ? spec->len : want < ARENA_MIN ? ARENA_MIN : want;
    void *p = place_reserve(&len, spec && spec->len ? spec->len : ARENA_MIN, flags);
    if (!p) {
        *why = spec && spec->flags ? "the kernel refused to map the huge pages it needs"
                                   : "the kernel refused to reserve address space for it";
        return -1;
    }
    if (spec && spec->binding && (*why = place_numa_bind(p, len, spec->binding)))
        return -1;
    a->nodes = spec && spec->binding ? spec->binding->nodes : 0;
    /* the first half for small blocks, the second for memkind's (whole huge pages each) */
    size_t half = (len / 2) & ~(((size_t)2 << 20) - 1);
    if (place_slabs_init(&a->slabs, p, half, flags & MAP_HUGETLB) != 0) {
        *why = "the bookkeeping of its small blocks could not be mapped";
        return -1;
    }
    place_cache_caps(t->limit, a->slabs.caps);
    if (place_owner_add(p, len, t) != 0) {
        *why = "libplace's table of owned ranges is full";
        return -1;
    }
    a->lo = p;
    a->len = len;
    a->large_lo = (char *)p + half;
    a->large_len = len - half;
    return 0;
}

void *place_reserve(size_t *len, size_t least, int flags)
{
    for (; *len >= least; *len /= 2) {
        void *p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
        if (p != MAP_FAILED)
            return p;
    }
    return NULL;
}

size_t place_ram(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : (size_t)1 << 34;
}

static struct place_arena arenas[PLACE_MAX_TIERS];
static unsigned narenas;

int place_arena_tier(struct place_tier *t, const struct place_arena_spec *spec)
{
    size_t total = place_ram();
    if (narenas == PLACE_MAX_TIERS)
        return -1;
    const char *why;
    uint8_t was = place_guard_enter();
    int rc = create(&arenas[narenas], t, total, spec, &why);
    place_guard_leave(was);
    if (rc != 0) {
        t->unavailable = why;
        return -1;
    }
    t->slabs = &arenas[narenas].slabs;
    t->state = &arenas[narenas++];
    return 0;
}

/* memkind's fixed kind over the second half of the range, made at the first large block:
 * a program whose placed blocks are all small never loads memkind (milliseconds and
 * megabytes per process). A thread that finds another making it is told no (the block
 * goes down the chain): dlopen holds the loader's lock, and waiting could deadlock. */
static bool large_ready(struct place_arena *a)
{
    int state = atomic_load_explicit(&a->large, memory_order_acquire);
    if (__builtin_expect(state == LARGE_READY, 1))
        return true;
    if (state != LARGE_NONE || !atomic_compare_exchange_strong(&a->large, &state, LARGE_BUSY))
        return false;
    const char *why = place_lib_load(&memkind);
    if (!why) {
        keep_kinds_at_exit();
        if (mk.create_fixed(a->large_lo, a->large_len, &a->kind) != MEMKIND_SUCCESS)
            why = "memkind_create_fixed failed over its reserved range";
    }
    if (why && why != place_lib_busy)
        place_warn("blocks over %u bytes cannot be placed in arenas (they go down the chain): %s",
                   PLACE_SMALL_MAX, why);
    state = !why ? LARGE_READY : why == place_lib_busy ? LARGE_NONE : LARGE_FAILED;
    atomic_store_explicit(&a->large, state, memory_order_release);
    return state == LARGE_READY;
}

/* The usable size memkind will give a large block: jemalloc's size classes (four per
 * doubling), reserved under the limit before allocating. */
static size_t large_size(size_t size, size_t align)
{
    /* jemalloc's sz_sa2u: aligned small blocks come from a class that is a multiple of
     * the alignment; past a page of alignment, or past the small classes, from large
     * extents of at least 16 KiB */
    if (align > 16) {
        size = (size + align - 1) & ~(align - 1);
        if ((align > 4096 || size > 14336) && size < 16384)
            size = 16384;
    }
    if (size <= 8)
        return 8;
    if (size <= 128)
        return (size + 15) & ~(size_t)15;
    unsigned lg = 63u - (unsigned)__builtin_clzll(size - 1); /* floor(log2(size - 1)) */
    size_t delta = (size_t)1 << (lg - 2);
    return (size + delta - 1) & ~(delta - 1);
}

/* A block past the small classes, from memkind, its usable size reserved under the limit.
 * calloc: jemalloc knows which pages are fresh and zero already, which is cheaper and
 * leaves them untouched (a memset would make every page of a big block resident). */
static void *take_large(struct place_tier *t, struct place_arena *a, const struct place_request *r,
                        bool force, bool *limited)
{
    if (!large_ready(a))
        return NULL;
    size_t want = large_size(r->size, r->align);
    if (!place_tier_reserve(t, want, force)) {
        *limited = true;
        return NULL;
    }
    void *p = NULL;
    if (!r->align)
        p = r->call == PLACE_CALLOC ? mk.calloc(a->kind, 1, r->size) : mk.malloc(a->kind, r->size);
    else if (mk.posix_memalign(a->kind, &p, r->align, r->size) != 0)
        p = NULL;
    else if (r->call == PLACE_CALLOC)
        memset(p, 0, r->size);
    if (!p) {
        place_tier_release(t, (int64_t)want);
        return NULL;
    }
    size_t got = mk.usable_size(a->kind, p);
    if (got > want && !place_tier_reserve(t, got - want, force)) {
        mk.free(a->kind, p);
        place_tier_release(t, (int64_t)want);
        *limited = true;
        return NULL;
    }
    if (got < want)
        place_tier_release(t, (int64_t)(want - got));
    if (__builtin_expect(t->reclaim_below || (force && t->limit), 0))
        place_tier_commit_marks(t, got, force);
    return p;
}

void place_arena_defer(struct place_tier *t, void *p)
{
    struct place_arena *a = t->state;
    void *head = atomic_load_explicit(&a->deferred, memory_order_relaxed);
    do
        *(void **)p = head;
    while (!atomic_compare_exchange_weak_explicit(&a->deferred, &head, p, memory_order_release,
                                                  memory_order_relaxed));
    place_stats_count(t->stats, PLACE_EV_FREES, 1); /* the slot may be mid-update */
}

/* Block p back to t's pool (its slab, or memkind), its bytes released: how many. */
static size_t to_pool(struct place_tier *t, struct place_arena *a, void *p)
{
    size_t n;
    if (place_slabs_own(&a->slabs, p)) {
        n = place_class_size[place_slabs_class(&a->slabs, p)];
        place_slabs_give(&a->slabs, &p, 1);
    } else {
        n = mk.usable_size(a->kind, p);
        mk.free(a->kind, p);
    }
    place_tier_release(t, (int64_t)n);
    return n;
}

/* The deferred frees given back (by a thread outside the guard's nesting): the bytes. */
static size_t drain(struct place_tier *t, struct place_arena *a)
{
    if (__builtin_expect(atomic_load_explicit(&a->deferred, memory_order_relaxed) == NULL, 1))
        return 0;
    size_t bytes = 0;
    void *p = atomic_exchange_explicit(&a->deferred, NULL, memory_order_acquire);
    while (p) {
        void *next = *(void **)p;
        bytes += to_pool(t, a, p);
        p = next;
    }
    return bytes;
}

void *place_arena_take(struct place_tier *t, const struct place_request *r, bool force,
                       bool *limited)
{
    struct place_arena *a = t->state;
    *limited = false;
    unsigned c = r->align ? place_aligned_class(r->size, r->align)
                 : r->size <= PLACE_SMALL_MAX ? place_size_class(r->size)
                                              : PLACE_CLASSES;
    if (c == PLACE_CLASSES)
        return take_large(t, a, r, force, limited);
    struct place_bins *b = place_cache_bins(t->index);
    void *p = b ? place_bin_pop(b, c) : NULL;
    if (!p) {
        drain(t, a);
        p = place_cache_refill(t, &a->slabs, c, force, limited);
    }
    if (p && r->call == PLACE_CALLOC)
        memset(p, 0, r->size);
    return p;
}

void place_arena_give(struct place_tier *t, void *p)
{
    struct place_arena *a = t->state;
    if (!place_slabs_own(&a->slabs, p))
        to_pool(t, a, p);
    else if (!place_cache_push(t, &a->slabs, p))
        place_cache_overflow(t, &a->slabs, place_slabs_class(&a->slabs, p), p);
}

size_t place_arena_usable(struct place_tier *t, const void *p)
{
    struct place_arena *a = t->state;
    if (place_slabs_own(&a->slabs, p))
        return place_class_size[place_slabs_class(&a->slabs, p)];
    return mk.usable_size(a->kind, (void *)p);
}

size_t place_arena_reclaim(struct place_tier *t, size_t want)
{
    (void)want;
    struct place_arena *a = t->state;
    return drain(t, a) + place_cache_flush(t, &a->slabs) + place_slabs_trim(&a->slabs);
}

void place_arenas_prefork(void)
{
    place_caches_prefork();
    for (unsigned k = 0; k < narenas; k++)
        place_slabs_prefork(&arenas[k].slabs);
}

void place_arenas_postfork_parent(void)
{
    for (unsigned k = narenas; k-- > 0;)
        place_slabs_postfork(&arenas[k].slabs);
    place_caches_postfork_parent();
}

void place_arenas_postfork_child(void)
{
    for (unsigned k = narenas; k-- > 0;)
        place_slabs_postfork(&arenas[k].slabs);
    place_caches_postfork_child();
}

void *place_memkind_sym(const char *name)
{
    return place_lib_sym(&memkind, name);
}
