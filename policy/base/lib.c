#include "lib.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>

#include "guard.h"

const char place_lib_busy[] = "it is being loaded by another thread";

const char *place_once(struct place_once *o, const char *(*step)(void *), void *arg)
{
    int expect = 0;
    if (atomic_load_explicit(&o->state, memory_order_acquire) == 2)
        return o->verdict;
    if (!atomic_compare_exchange_strong(&o->state, &expect, 1))
        return expect == 2 ? o->verdict : place_lib_busy;
    /* what the library allocates as it starts is glibc's, not a placed block */
    uint8_t was = place_guard_enter();
    const char *verdict = step(arg);
    place_guard_leave(was);
    if (verdict == place_lib_busy) { /* a step it needs is under way elsewhere: try again later */
        atomic_store_explicit(&o->state, 0, memory_order_release);
        return verdict;
    }
    o->verdict = verdict;
    atomic_store_explicit(&o->state, 2, memory_order_release);
    return verdict;
}

/* glibc's dlsym, found without dlsym (libplace exports one: shim/dlsym.c's trampoline
 * jumps here). Hidden, not static: the trampoline reads it. */
__attribute__((visibility("hidden"))) place_dlsym_fn place_glibc_dlsym;

place_dlsym_fn place_glibc_dlsym_fn(void)
{
    place_dlsym_fn fn = __atomic_load_n(&place_glibc_dlsym, __ATOMIC_ACQUIRE);
    if (!fn) {
        /* dlvsym is not interposed; 2.34 moved dlsym into libc, 2.2.5 is older x86-64 */
        void *f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (!f)
            f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
        fn = (place_dlsym_fn)f;
        __atomic_store_n(&place_glibc_dlsym, fn, __ATOMIC_RELEASE);
    }
    return fn;
}

void *place_real_dlsym(void *handle, const char *name)
{
    return place_glibc_dlsym_fn()(handle, name);
}

void *place_next_sym(const char *name, _Atomic(void *) *cache)
{
    void *fn = atomic_load_explicit(cache, memory_order_acquire);
    if (!fn) {
        fn = place_real_dlsym(RTLD_NEXT, name);
        atomic_store_explicit(cache, fn, memory_order_release);
    }
    return fn;
}

/* The libraries whose dlopen failed, for place_libs_explain. */
static struct place_lib *failed[8];
static _Atomic unsigned nfailed;

static void say_why(struct place_lib *l, const char *what)
{
    snprintf(l->why, sizeof l->why, "%s (%s%s%s)", l->absent, what, l->hint ? "; " : "",
             l->hint ? l->hint : "");
}

static const char *load(void *arg)
{
    struct place_lib *l = arg;
    void *h = dlopen(l->file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        /* Not dlerror: it translates its message, and gettext takes glibc's locale lock
         * for reading. A load from inside setlocale's own malloc (which holds that lock
         * for writing) released it under setlocale, and the program hung later (grep,
         * under a pinned rule without a CUDA driver). The loader's words are asked for
         * where a report is written (place_libs_explain). A lookup that succeeds clears
         * the failure, so that the program's own dlerror() does not find libplace's. */
        place_real_dlsym(RTLD_DEFAULT, "dlopen");
        char what[128];
        snprintf(what, sizeof what, "%s does not load", l->file);
        say_why(l, what);
        unsigned k = atomic_fetch_add(&nfailed, 1);
        if (k < sizeof failed / sizeof failed[0])
            failed[k] = l;
        return l->why;
    }
    atomic_store_explicit(&l->handle, h, memory_order_release);
    for (unsigned k = 0; k < l->nsyms; k++)
        if (!(*l->syms[k].fn = place_real_dlsym(h, l->syms[k].name))) {
            snprintf(l->why, sizeof l->why, "%s lacks %s (%s)", l->file, l->syms[k].name,
                     l->needs);
            return l->why;
        }
    return NULL;
}

const char *place_lib_load(struct place_lib *l)
{
    return place_once(&l->once, load, l);
}

void place_libs_explain(void)
{
    unsigned n = atomic_load(&nfailed);
    for (unsigned k = 0; k < n && k < sizeof failed / sizeof failed[0]; k++) {
        struct place_lib *l = failed[k];
        if (!l || l->explained)
            continue;
        void *h = dlopen(l->file, RTLD_NOW | RTLD_LOCAL);
        if (h) { /* it loads now: what was said then stands */
            dlclose(h);
            continue;
        }
        const char *e = dlerror();
        if (e)
            say_why(l, e);
        l->explained = true;
    }
}

/* While another thread loads the library, a lookup still finds it if the program has it
 * loaded already (a CUDA entry point reached before libplace's own load finished):
 * RTLD_NOLOAD takes the loader's lock only as long as that other dlopen holds it, and
 * libplace holds nothing the loading thread waits for. */
void *place_lib_sym(struct place_lib *l, const char *name)
{
    if (place_lib_load(l) == place_lib_busy &&
        !atomic_load_explicit(&l->handle, memory_order_acquire)) {
        void *h = dlopen(l->file, RTLD_LAZY | RTLD_NOLOAD);
        void *fn = h ? place_real_dlsym(h, name) : NULL;
        if (h)
            dlclose(h); /* its other users keep it, and fn, loaded */
        return fn;
    }
    void *h = atomic_load_explicit(&l->handle, memory_order_acquire);
    return h ? place_real_dlsym(h, name) : NULL;
}

bool place_lib_owns(const char *file, const void *fn)
{
    Dl_info info;
    struct link_map *map = NULL;
    if (!dladdr1(fn, &info, (void **)&map, RTLD_DL_LINKMAP) || !map)
        return false;
    void *h = dlopen(file, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return false;
    dlclose(h);
    /* glibc's handle is the library's link map */
    return (void *)map == h;
}
