/* The modules (executable and shared libraries) mapped in the process, with the address
 * ranges of the functions the policy's site patterns name.
 *
 * Function globs are resolved once per module, when libplace first sees it: at start for
 * what is loaded then, and for a library dlopened later at the first lookup after the
 * loader reports a new module. Lookups of one address are rare (the site cache in
 * site.c answers repeats), so they take a lock; nothing here runs per allocation. */
#ifndef PLACE_MODULES_H
#define PLACE_MODULES_H

#include <stddef.h>
#include <stdint.h>

#include "../config/policy.h"

/* Reads the modules loaded now and resolves the patterns against them. */
void place_modules_start(const struct place_policy *policy);

/* The patterns (a mask over policy->patterns) that the code address `ra` matches. *gen is
 * set to the module generation the answer belongs to: it changes when a module is
 * unloaded, which invalidates every cached answer. */
uint64_t place_modules_match(uintptr_t ra, uint32_t *gen);

/* The current generation, cheap (one atomic load). */
uint32_t place_modules_generation(void);

/* The table's lock, held across fork. */
void place_modules_prefork(void);
void place_modules_postfork(void);

/* Writes "module!function+0xOFF" for a code address into out, or "module+0xOFF" when no
 * symbol covers it, or "0xADDR" outside every module. Reads the module's symbol table:
 * for the report, not for allocations. */
void place_modules_symbolize(uintptr_t ra, char *out, size_t cap);

/* "module+0xOFF": the form an exact site pattern takes. */
void place_modules_site(uintptr_t ra, char *out, size_t cap);

#endif
