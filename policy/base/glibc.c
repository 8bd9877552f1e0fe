/* glibc's __libc_* allocator functions, found in libc.so.6's dynamic symbol table (see
 * glibc.h for why not by a symbol reference). The loader has mapped and relocated libc
 * before any code of libplace's runs, and lists it in _r_debug from its start; reading
 * that list and the symbol table takes no lock and allocates nothing, so the first
 * malloc, wherever the loader makes it, can find them. */
#include "glibc.h"

#include <elf.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "out.h"

static void *first_malloc(size_t size)
{
    place_glibc_find();
    return place_glibc.malloc(size);
}

static void *first_calloc(size_t nmemb, size_t size)
{
    place_glibc_find();
    return place_glibc.calloc(nmemb, size);
}

static void *first_realloc(void *p, size_t size)
{
    place_glibc_find();
    return place_glibc.realloc(p, size);
}

static void first_free(void *p)
{
    place_glibc_find();
    place_glibc.free(p);
}

static void *first_memalign(size_t align, size_t size)
{
    place_glibc_find();
    return place_glibc.memalign(align, size);
}

static void *first_pvalloc(size_t size)
{
    place_glibc_find();
    return place_glibc.pvalloc(size);
}

struct place_glibc place_glibc = {first_malloc,   first_calloc,   first_realloc,
                                  first_free,     first_memalign, first_pvalloc};

/* libc's dynamic symbol table, as its .dynamic section gives it. */
struct table {
    const ElfW(Sym) *sym;
    const char *str;
    const uint32_t *gnu_hash;
    const ElfW(Half) *versym;
    ElfW(Addr) base;
};

/* The loader relocates most objects' .dynamic addresses in place, not every machine's
 * (a read-only .dynamic keeps link-time ones): an address below the base is link-time. */
static const void *at(const struct table *t, ElfW(Addr) a)
{
    return (const void *)(a < t->base ? a + t->base : a);
}

static int read_table(const struct link_map *m, struct table *t)
{
    *t = (struct table){.base = m->l_addr};
    for (const ElfW(Dyn) *d = m->l_ld; d && d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_SYMTAB)
            t->sym = at(t, d->d_un.d_ptr);
        else if (d->d_tag == DT_STRTAB)
            t->str = at(t, d->d_un.d_ptr);
        else if (d->d_tag == DT_GNU_HASH)
            t->gnu_hash = at(t, d->d_un.d_ptr);
        else if (d->d_tag == DT_VERSYM)
            t->versym = at(t, d->d_un.d_ptr);
    }
    return t->sym && t->str && t->gnu_hash ? 0 : -1;
}

/* Name's default-version definition in t by its GNU hash table, or NULL. */
static void *lookup(const struct table *t, const char *name)
{
    uint32_t h = 5381;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        h = h * 33 + *c;
    const uint32_t *g = t->gnu_hash;
    uint32_t nbuckets = g[0], symoffset = g[1], bloom_words = g[2];
    const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)(g + 4) + bloom_words);
    const uint32_t *chain = buckets + nbuckets;
    uint32_t i = nbuckets ? buckets[h % nbuckets] : 0;
    if (i < symoffset)
        return NULL;
    for (;; i++) {
        uint32_t hi = chain[i - symoffset];
        const ElfW(Sym) *s = &t->sym[i];
        if ((hi | 1) == (h | 1) && s->st_shndx != SHN_UNDEF && s->st_value &&
            !(t->versym && (t->versym[i] & 0x8000)) && strcmp(t->str + s->st_name, name) == 0)
            return (void *)(t->base + s->st_value);
        if (hi & 1)
            return NULL;
    }
}

/* No allocator means no program: said (base/out.h allocates nothing), then the end. */
static void lost(const char *what, const char *where)
{
    place_warn("glibc's %s is not in %s: no allocator to run the program with", what, where);
    _exit(127);
}

void place_glibc_find(void)
{
    if (__atomic_load_n(&place_glibc.malloc, __ATOMIC_ACQUIRE) != first_malloc)
        return;
    struct table t;
    const struct link_map *m = _r_debug.r_map;
    while (m && !(strstr(m->l_name, "/libc.so.6") && read_table(m, &t) == 0))
        m = m->l_next;
    if (!m)
        lost("libc.so.6", "the loader's list of objects (_r_debug)");
    static const char *const names[] = {"__libc_malloc", "__libc_calloc",   "__libc_realloc",
                                        "__libc_free",   "__libc_memalign", "__libc_pvalloc"};
    void *found[sizeof names / sizeof names[0]];
    for (unsigned k = 0; k < sizeof names / sizeof names[0]; k++)
        if (!(found[k] = lookup(&t, names[k])))
            lost(names[k], "libc.so.6's symbol table");
    /* another thread may be here too: it stores the same words; malloc last, as the
     * test above reads it */
    __atomic_store_n(&place_glibc.calloc, (__typeof__(place_glibc.calloc))found[1], __ATOMIC_RELAXED);
    __atomic_store_n(&place_glibc.realloc, (__typeof__(place_glibc.realloc))found[2], __ATOMIC_RELAXED);
    __atomic_store_n(&place_glibc.free, (__typeof__(place_glibc.free))found[3], __ATOMIC_RELAXED);
    __atomic_store_n(&place_glibc.memalign, (__typeof__(place_glibc.memalign))found[4], __ATOMIC_RELAXED);
    __atomic_store_n(&place_glibc.pvalloc, (__typeof__(place_glibc.pvalloc))found[5], __ATOMIC_RELAXED);
    __atomic_store_n(&place_glibc.malloc, (__typeof__(place_glibc.malloc))found[0], __ATOMIC_RELEASE);
}
