/* Optional libraries (memkind, libnuma, the CUDA driver), loaded at first need
 * (DESIGN.md section 7), and work that must run once.
 *
 * A library is dlopened with the guard up and its symbols looked up in its own handle
 * through glibc's dlsym: never through libplace's exported dlsym, and never finding
 * libplace's wrappers of the same names. A thread that finds another one loading is told
 * place_lib_busy rather than made to wait: dlopen holds the loader's lock, so waiting
 * could deadlock, and "busy" is not a verdict (ask again later). */
#ifndef PLACE_LIB_H
#define PLACE_LIB_H

#include <stdatomic.h>
#include <stdbool.h>

#include "hidden.h"

/* Runs a step once; every later caller gets its verdict (NULL, or why it failed). */
struct place_once {
    _Atomic int state; /* 0 not tried, 1 under way, 2 done */
    const char *verdict;
};

/* What a caller gets while another thread runs the step. */
extern PLACE_HIDDEN const char place_lib_busy[];

/* The step's verdict, running it (with the guard up) if nobody has. */
const char *place_once(struct place_once *o, const char *(*step)(void *), void *arg);

/* A symbol the library must have, and where its address goes. */
struct place_sym {
    void **fn;
    const char *name;
};

struct place_lib {
    const char *file;   /* the soname dlopen asks for: "libnuma.so.1" */
    const char *absent; /* said when it cannot be loaded: "no CUDA driver" (why follows) */
    const char *hint;   /* what to install, or NULL */
    const char *needs;  /* said when a symbol is missing: "memkind 1.12 or later is needed" */
    const struct place_sym *syms;
    unsigned nsyms;
    _Atomic(void *) handle; /* kept even when a symbol is missing: lookups of others work */
    struct place_once once;
    char why[256];
    bool explained; /* why holds the loader's own words */
};

/* Loads l and fills its symbols: NULL, why it cannot be used, or place_lib_busy. */
const char *place_lib_load(struct place_lib *l);

/* The loader's own words (dlerror's) for each library that did not load, into its why:
 * only where glibc's locale lock cannot be held by the caller, as where a report is
 * written outside a signal handler. */
void place_libs_explain(void);

/* A symbol of l by its exact name (l loaded first), or NULL. */
void *place_lib_sym(struct place_lib *l, const char *name);

/* Whether fn is a function of the loaded library of that soname ("libcuda.so.1"). */
bool place_lib_owns(const char *file, const void *fn);

/* glibc's dlsym. For RTLD_NEXT, "next" is next after libplace. */
void *place_real_dlsym(void *handle, const char *name);

/* The next definition after libplace's of name (an interposed entry point's own), found
 * once into *cache; NULL while there is none. */
void *place_next_sym(const char *name, _Atomic(void *) *cache);

/* glibc's dlsym itself, found on the first call (shim/dlsym.c's trampoline jumps to it). */
typedef void *(*place_dlsym_fn)(void *, const char *);
place_dlsym_fn place_glibc_dlsym_fn(void);

#endif
