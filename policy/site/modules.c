#include "modules.h"

#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "../../config/values.h"
#include "../base/glibc.h"
#include "../base/claim.h"
#include "../base/fmt.h"
#include "../base/glob.h"
#include "../base/large.h"
#include "../base/rank.h"
#include "../stats/heaps.h"
#include "elfsym.h"
#include "shape.h"

/* The tables are reached from inside malloc: glibc's allocator directly, never the
 * interposed one. */
#define uthash_malloc(sz) place_libc_malloc(sz)
#define uthash_free(ptr, sz) place_libc_free(ptr)
#include <uthash.h>

struct range {
    uintptr_t lo, hi;
    uint64_t mask;
};

struct module {
    uintptr_t lo, hi; /* the extent of its loaded segments; lo is the table's key */
    uintptr_t base;   /* what the loader added to its link-time addresses */
    char *path;
    const char *name; /* the file name part of path */
    uint64_t whole;   /* patterns that match every address in it (MODULE:*) */
    bool wrapped;     /* its wrappers are among its ranges */
    bool program;     /* the executable, not a library */
    struct place_segment seg[PLACE_SEGMENTS]; /* its loaded segments, for shape.c's reads */
    unsigned nseg;
    struct range *ranges;
    size_t n, cap;
    UT_hash_handle hh;
};

static const struct place_policy *policy;
static struct module *modules;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long seen_adds, seen_subs;
_Atomic uint32_t place_modules_gen = 1;
/* the patterns that named code in some module the table held, at any time of the run (a
 * module unloaded since does not take it back: its blocks were placed) */
static _Atomic uint64_t resolved;
static bool wrappers_on;
static const char *wrapper_globs = ""; /* the policy's own, separated by commas */
static const char *heap_globs = "";    /* likewise */

static void add_range(struct module *m, uintptr_t lo, uintptr_t hi, uint64_t mask)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 16;
        struct range *r = place_libc_realloc(m->ranges, cap * sizeof *r);
        if (!r)
            return; /* the pattern does not match here: the allocation stays in dram */
        m->ranges = r;
        m->cap = cap;
    }
    m->ranges[m->n++] = (struct range){lo, hi, mask};
    atomic_fetch_or(&resolved, mask & ~PLACE_WRAPPER);
}

static bool module_matches(const struct module *m, const struct place_pattern *p)
{
    if (!*p->module)
        return true;
    return place_glob_match(p->module, strchr(p->module, '/') ? m->path : m->name);
}

struct scan {
    struct module *m;
    uint64_t want;  /* the patterns whose function globs need the symbol table */
    uint64_t plain; /* those of them that are plain names: compared, not matched */
};

static int match_symbol(void *arg, const char *name, uint64_t value, uint64_t size)
{
    struct scan *s = arg;
    uint64_t bits = 0;
    for (uint64_t w = s->want; w; w &= w - 1) {
        int k = __builtin_ctzll(w);
        const char *f = policy->patterns[k].function;
        if (s->plain >> k & 1 ? strcmp(f, name) == 0 : place_glob_match(f, name))
            bits |= 1ull << k;
    }
    if (bits)
        add_range(s->m, s->m->base + value, s->m->base + value + size, bits);
    return 0;
}

/* The allocation wrappers libplace knows, as globs (a family by its prefix): matched
 * against every function of every module, so kept split. */
static const char *const known_wrappers[] = {
    "_Znw*", "_Zna*", /* operator new and new[], every form */
    "g_malloc*", "g_try_malloc*", "g_realloc*", "g_try_realloc*", "g_slice_alloc*", "g_memdup*",
    "g_strdup*", "g_strndup*", "PyMem_*", "_PyMem_*", "pymalloc_*", "mca_mpool_*",
    "strdup", "strndup", "__strdup", "__strndup", "wcsdup", "xmalloc", "xcalloc", "xrealloc",
    "xstrdup", "xstrndup", "xzalloc", "xmemdup", "PyObject_Malloc", "PyObject_Calloc",
    "PyObject_Realloc", "_PyObject_Malloc", "_PyObject_Calloc", "_PyObject_Realloc",
    "opal_malloc", "opal_calloc", "opal_realloc", "sqlite3Malloc", "sqlite3MallocZero",
    "sqlite3DbMallocRaw", "sqlite3DbMallocRawNN", "sqlite3DbMallocZero", "sqlite3Realloc",
    "sqlite3DbRealloc", "sqlite3MemMalloc", "sqlite3MemRealloc",
    /* interpreters' own: Perl, Ruby, Lua, Tcl */
    "*safesysmalloc", "*safesyscalloc", "*safesysrealloc", "ruby_xmalloc*", "ruby_xcalloc",
    "ruby_xrealloc*", "luaM_malloc_", "luaM_realloc_", "Tcl_Alloc", "Tcl_AttemptAlloc",
    "Tcl_Realloc", "Tcl_AttemptRealloc",
};

enum { NKNOWN = sizeof known_wrappers / sizeof *known_wrappers };

/* The known wrappers that are plain names in a hash table, the globs by their first
 * byte, and those that are `*` and a plain tail by that tail: each function's name is
 * matched against the few that can match it (cc1's 27 600 functions, C++ names of 60
 * bytes and more, against every glob cost 180M instructions at its first site lookup;
 * libsqlite3's 4 900, all sqlite3..., against its eleven names by glob 3.6M). Made
 * once, when wrappers are turned on. */
enum { EXACT_BITS = 7 };
_Static_assert(NKNOWN < (1 << EXACT_BITS) / 2, "the table of plain names stays half empty");
static uint8_t known_exact[1 << EXACT_BITS]; /* a name's index + 1; 0: none */
static uint8_t known_by_first[256][NKNOWN] PLACE_LARGE;
static uint8_t known_count[256];
static uint8_t known_tails[NKNOWN];
static unsigned known_ntails;

/* A name of n bytes hashed by its length and its first and last 8 bytes (fewer when it
 * is shorter): names that share a long prefix differ at their ends. */
static unsigned exact_slot(const char *name, size_t n)
{
    uint64_t head = 0, tail = 0;
    memcpy(&head, name, n < 8 ? n : 8);
    memcpy(&tail, name + (n < 8 ? 0 : n - 8), n < 8 ? n : 8);
    return (unsigned)place_claim_hash(head ^ tail * 31 ^ n, EXACT_BITS);
}

static void index_known(void)
{
    for (unsigned k = 0; k < NKNOWN; k++) {
        const char *g = known_wrappers[k];
        if (place_glob_literal(g)) {
            unsigned i = exact_slot(g, strlen(g));
            while (known_exact[i])
                i = (i + 1) & ((1u << EXACT_BITS) - 1);
            known_exact[i] = (uint8_t)(k + 1);
        } else if (g[0] == '*' && place_glob_literal(g + 1)) {
            known_tails[known_ntails++] = (uint8_t)k;
        } else {
            for (unsigned c = 1; c < 256; c++)
                if (g[0] == '*' || g[0] == (char)c)
                    known_by_first[c][known_count[c]++] = (uint8_t)k;
        }
    }
}

static bool known_wrapper(const char *name)
{
    size_t n = strlen(name);
    for (unsigned i = exact_slot(name, n); known_exact[i]; i = (i + 1) & ((1u << EXACT_BITS) - 1))
        if (strcmp(known_wrappers[known_exact[i] - 1], name) == 0)
            return true;
    unsigned char first = (unsigned char)name[0];
    for (unsigned k = 0; k < known_count[first]; k++)
        if (place_glob_match(known_wrappers[known_by_first[first][k]], name))
            return true;
    for (unsigned k = 0; k < known_ntails; k++) {
        const char *tail = known_wrappers[known_tails[k]] + 1;
        size_t t = strlen(tail);
        if (n >= t && memcmp(name + n - t, tail, t) == 0)
            return true;
    }
    return false;
}

static int match_wrapper(void *arg, const char *name, uint64_t value, uint64_t size)
{
    struct module *m = arg;
    bool known = known_wrapper(name);
    if (known || place_value_globs_match(wrapper_globs, name) ||
        place_shape_wrapper(m->base + value, size, m->seg, m->nseg))
        add_range(m, m->base + value, m->base + value + size, PLACE_WRAPPER);
    return 0;
}

static void resolve_wrappers(struct module *m)
{
    m->wrapped = true;
    place_elf_functions(m->path, match_wrapper, m);
}

static void resolve(struct module *m)
{
    struct scan s = {m, 0, 0};
    unsigned npatterns = policy ? policy->npatterns : 0; /* none: the table only symbolizes */
    for (unsigned k = 0; k < npatterns; k++) {
        const struct place_pattern *p = &policy->patterns[k];
        if (!module_matches(m, p))
            continue;
        if (p->exact)
            add_range(m, m->base + p->offset, m->base + p->offset + 1, 1ull << k);
        else if (strcmp(p->function, "*") == 0) {
            m->whole |= 1ull << k;
            atomic_fetch_or(&resolved, 1ull << k);
        } else {
            s.want |= 1ull << k;
            if (place_glob_literal(p->function))
                s.plain |= 1ull << k;
        }
    }
    if (s.want)
        place_elf_functions(m->path, match_symbol, &s);
}

static int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size, (void)arg;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    struct place_segment seg[PLACE_SEGMENTS];
    unsigned nseg = 0;
    for (int k = 0; k < info->dlpi_phnum; k++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (start < lo)
            lo = start;
        if (start + ph->p_memsz > hi)
            hi = start + ph->p_memsz;
        if (nseg < PLACE_SEGMENTS && (ph->p_flags & PF_R))
            seg[nseg++] = (struct place_segment){start, start + ph->p_memsz, ph->p_flags & PF_X};
    }
    if (lo >= hi)
        return 0;
    struct module *m;
    HASH_FIND(hh, modules, &lo, sizeof lo, m);
    if (m)
        return 0;
    char exe[PATH_MAX];
    const char *path = info->dlpi_name;
    if (!*path) { /* the executable */
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = 0;
        path = exe;
    }
    m = place_libc_calloc(1, sizeof *m);
    char *copy = m ? place_libc_malloc(strlen(path) + 1) : NULL;
    if (!copy) {
        place_libc_free(m);
        return 0;
    }
    *m = (struct module){.lo = lo,
                         .hi = hi,
                         .base = info->dlpi_addr,
                         .path = strcpy(copy, path),
                         .program = path == exe,
                         .nseg = nseg};
    memcpy(m->seg, seg, nseg * sizeof *seg);
    const char *slash = strrchr(copy, '/');
    m->name = slash ? slash + 1 : copy;
    resolve(m);
    HASH_ADD(hh, modules, lo, sizeof lo, m);
    return 0;
}

static int note_counts(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    unsigned long long *c = arg;
    c[0] = info->dlpi_adds;
    c[1] = info->dlpi_subs;
    return 1;
}

/* Brings the table up to date with the loader's, under the lock. A module that went away
 * may have left its addresses to another, so an unload starts the table afresh and a
 * new generation. */
static void refresh(void)
{
    unsigned long long c[2] = {0, 0};
    dl_iterate_phdr(note_counts, c);
    if (modules && c[0] == seen_adds && c[1] == seen_subs)
        return;
    if (c[1] != seen_subs) {
        struct module *m, *tmp;
        HASH_ITER(hh, modules, m, tmp)
        {
            HASH_DEL(modules, m);
            place_libc_free(m->ranges);
            place_libc_free(m->path);
            place_libc_free(m);
        }
        atomic_fetch_add(&place_modules_gen, 1);
    }
    int was;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &was);
    dl_iterate_phdr(add_module, NULL);
    pthread_setcancelstate(was, NULL);
    seen_adds = c[0];
    seen_subs = c[1];
}

static struct module *find(uintptr_t ra)
{
    struct module *m, *tmp;
    HASH_ITER(hh, modules, m, tmp)
    {
        if (ra >= m->lo && ra < m->hi)
            return m;
    }
    return NULL;
}

void place_modules_start(const struct place_policy *p)
{
    policy = p;
    place_lock(&lock, PLACE_RANK_MODULES);
    refresh();
    place_unlock(&lock, PLACE_RANK_MODULES);
}

void place_modules_wrappers(const char *globs)
{
    place_lock(&lock, PLACE_RANK_MODULES);
    wrapper_globs = globs;
    if (!wrappers_on)
        index_known();
    wrappers_on = true;
    atomic_fetch_add(&place_modules_gen, 1); /* answers cached before lack the wrapper bit */
    place_unlock(&lock, PLACE_RANK_MODULES);
}

uint64_t place_modules_resolved(bool wait)
{
    if (wait) { /* the modules loaded since the last lookup too; refresh allocates */
        place_lock(&lock, PLACE_RANK_MODULES);
        refresh();
        place_unlock(&lock, PLACE_RANK_MODULES);
    }
    return atomic_load(&resolved);
}

uint64_t place_modules_match(uintptr_t ra, uint32_t *gen)
{
    uint64_t mask = 0;
    place_lock(&lock, PLACE_RANK_MODULES);
    refresh();
    struct module *m = find(ra);
    if (m && wrappers_on && !m->wrapped)
        resolve_wrappers(m);
    if (m) {
        mask = m->whole;
        for (size_t k = 0; k < m->n; k++)
            if (ra >= m->ranges[k].lo && ra < m->ranges[k].hi)
                mask |= m->ranges[k].mask;
    }
    *gen = place_modules_generation();
    place_unlock(&lock, PLACE_RANK_MODULES);
    return mask;
}

struct nearest {
    uint64_t off; /* the address, as a link-time value */
    char name[256];
    uint64_t start;
};

static int containing(void *arg, const char *name, uint64_t value, uint64_t size)
{
    struct nearest *n = arg;
    if (n->off >= value && n->off - value < size) {
        struct place_buf b = PLACE_BUF(n->name);
        place_bprintf(&b, "%s", name);
        n->start = value;
        return 1;
    }
    return 0;
}

/* The function of m that holds ra, from its symbol table: false when none does. */
static bool function_at(const struct module *m, uintptr_t ra, struct nearest *n)
{
    *n = (struct nearest){.off = ra - m->base};
    int was;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &was);
    int found = place_elf_functions(m->path, containing, n);
    pthread_setcancelstate(was, NULL);
    return found == 1;
}

void place_modules_where(uintptr_t ra, struct place_where *w, bool wait)
{
    *w = (struct place_where){.offset = ra};
    struct place_buf site = PLACE_BUF(w->site), symbol = PLACE_BUF(w->symbol);
    struct module *m = NULL;
    bool locked = place_lock_or_try(&lock, PLACE_RANK_MODULES, wait);
    if (locked) {
        if (wait) /* refresh allocates: never from a signal handler */
            refresh();
        m = find(ra);
    }
    if (!m) {
        place_bprintf(&site, "0x%lx", (unsigned long)ra);
    } else {
        struct nearest n;
        w->offset = ra - m->base;
        strncpy(w->path, m->path, sizeof w->path - 1);
        place_bprintf(&site, "%s+0x%lx", m->name, (unsigned long)w->offset);
        if (function_at(m, ra, &n))
            place_bprintf(&symbol, "%s!%s+0x%lx", m->name, n.name,
                          (unsigned long)(n.off - n.start));
    }
    if (locked)
        place_unlock(&lock, PLACE_RANK_MODULES);
}

/* The last answers by return address: a library calls cuMemCreate from a few places,
 * maybe thousands of times (PyTorch's expandable segments), and an answer that takes the
 * symbol table is read once. Under the lock; an entry holds for its module generation
 * only (a module unloaded may have left its addresses to another). */
enum { HEAP_MEMO = 16 };
static struct {
    uintptr_t ra;
    uint32_t gen;
    char owner[PLACE_HEAP_OWNER_MAX]; /* "" not a heap's */
} heap_memo[HEAP_MEMO];
static unsigned heap_memo_next;

void place_modules_heaps(const char *globs)
{
    place_lock(&lock, PLACE_RANK_MODULES);
    heap_globs = globs;
    memset(heap_memo, 0, sizeof heap_memo); /* answers to other globs */
    place_unlock(&lock, PLACE_RANK_MODULES);
}

/* NVSHMEM's host library (libnvshmem_host.so.N), or its functions where libnvshmem.a is
 * linked into the program: every one of their names has "nvshmem" in it. */
static const char known_heaps[] = "*nvshmem*";

static bool heap_name(const char *name)
{
    return place_glob_match(known_heaps, name) || place_value_globs_match(heap_globs, name);
}

bool place_modules_heap_owner(uintptr_t ra, char *owner, size_t n)
{
    struct place_buf b = {.s = owner, .cap = n};
    *owner = 0;
    place_lock(&lock, PLACE_RANK_MODULES);
    refresh();
    uint32_t gen = place_modules_generation();
    unsigned k = 0;
    while (k < HEAP_MEMO && !(heap_memo[k].ra == ra && heap_memo[k].gen == gen))
        k++;
    struct module *m = k == HEAP_MEMO ? find(ra) : NULL;
    if (m) { /* an address in no module (its table entry could not be made) is not kept */
        struct nearest f;
        k = heap_memo_next++ % HEAP_MEMO;
        struct place_buf memo = PLACE_BUF(heap_memo[k].owner);
        heap_memo[k].owner[0] = 0;
        /* a program is named by its functions only: its file name is no library's */
        if (!m->program && heap_name(m->name))
            place_bprintf(&memo, "%s", m->name);
        else if (function_at(m, ra, &f) && heap_name(f.name))
            place_bprintf(&memo, "%s", f.name);
        heap_memo[k].ra = ra;
        heap_memo[k].gen = gen;
    }
    if (k < HEAP_MEMO)
        place_bprintf(&b, "%s", heap_memo[k].owner);
    place_unlock(&lock, PLACE_RANK_MODULES);
    return b.len > 0;
}

/* the fork holds the rank itself (shim/init.c) */
void place_modules_prefork(void)
{
    pthread_mutex_lock(&lock);
}

void place_modules_postfork(void)
{
    pthread_mutex_unlock(&lock);
}
