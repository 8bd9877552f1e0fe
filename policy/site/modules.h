/* The modules (executable and shared libraries) mapped in the process, with the address
 * ranges of the functions the policy's site patterns name.
 *
 * Function globs are resolved once per module, when libplace first sees it: at start for
 * what is loaded then, and for a library dlopened later at the first lookup after the
 * loader reports a new module. Lookups of one address are rare (the site cache in
 * site.c answers repeats), so they take a lock; nothing here runs per allocation. */
#ifndef PLACE_MODULES_H
#define PLACE_MODULES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../config/policy.h"
#include "../base/hidden.h"

/* Reads the modules loaded now and resolves the patterns against them. */
void place_modules_start(const struct place_policy *policy);

/* The bit of a match mask that says "an allocation wrapper": a function that allocates
 * for its caller (operator new, strdup, xmalloc, g_malloc, PyMem_Malloc, ..., and the
 * globs of `wrappers`), whose frame is not the site. A module's wrappers are looked for
 * at the first match asked in it, once wrappers are on. */
#define PLACE_WRAPPER (1ull << 63)

/* From now on, matches carry PLACE_WRAPPER; globs: the policy's `wrappers` ("" none). */
void place_modules_wrappers(const char *globs);

/* Libraries that keep a GPU heap of their own besides NVSHMEM, which is always known:
 * globs of their file names or of their functions' names ("" none). */
void place_modules_heaps(const char *globs);

/* Whether the code address ra lies in such a library: then owner holds the name that
 * matched (the module's file name, else its function's). Reads the module's symbol table:
 * for rare calls only (cuMemCreate). */
bool place_modules_heap_owner(uintptr_t ra, char *owner, size_t n);

/* The patterns (a mask over policy->patterns) that the code address `ra` matches. *gen is
 * set to the module generation the answer belongs to: it changes when a module is
 * unloaded, which invalidates every cached answer. */
uint64_t place_modules_match(uintptr_t ra, uint32_t *gen);

/* The patterns (a mask over policy->patterns) that named code in some module loaded during
 * the run: one that names none can never match (a typo, or a static function of a
 * stripped module, which has no name there). With wait the table first takes in the
 * modules loaded since it last looked; without (a signal handler), read as it stands. */
uint64_t place_modules_resolved(bool wait);

/* The current generation: one load, inline (a site lookup compares it). */
extern PLACE_HIDDEN _Atomic uint32_t place_modules_gen;

static inline uint32_t place_modules_generation(void)
{
    return atomic_load_explicit(&place_modules_gen, memory_order_acquire);
}

/* The table's lock, held across fork. */
void place_modules_prefork(void);
void place_modules_postfork(void);

/* Where a code address lies, for the report (it reads the module's symbol table; nothing
 * here runs per allocation). */
struct place_where {
    char site[256];   /* "module+0xOFF", the form an exact site pattern takes; "0xADDR" outside
                         every module */
    char symbol[512]; /* "module!function+0xOFF", "" when no symbol covers it */
    char path[1024];  /* the module's path, "" outside every module */
    uintptr_t offset; /* in the module (the address itself outside every module) */
};

/* Fills w for ra. Without wait, a table busy in another thread (a report from a signal
 * handler may have interrupted it) leaves the answer at "0xADDR". */
void place_modules_where(uintptr_t ra, struct place_where *w, bool wait);

#endif
