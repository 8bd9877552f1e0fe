#include "lib.h"

#include <dlfcn.h>
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

static const char *load(void *arg)
{
    struct place_lib *l = arg;
    void *h = dlopen(l->file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(l->why, sizeof l->why, "%s (%s%s%s)", l->absent, e ? e : l->file,
                 l->hint ? "; " : "", l->hint ? l->hint : "");
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
