/* What a call outside the gates does: a malloc or calloc whose size no malloc rule's
 * window holds (engine/place.h), a free of a pointer outside every tier's range
 * (tiers/owner.h). The exported function tests its gate and tail-calls the entry here:
 *
 *   - without a report, glibc's own function: the gate costs a compare, nothing more;
 *   - with one, the same call counted in the thread's TLS (a countdown, an add, and the
 *     tail call; a sample due, a thread not registered or inside libplace, and a free the
 *     profile's filter names take the out-of-line path);
 *   - in a dry run, free asks the dry map first (a planned block is glibc's).
 *
 * A table of entries, not a flag the hot path tests: pass-through pays for the report's
 * path with nothing, and the report's path tests no flag. Being tail-called, the counted
 * entries read the program's return address as their own. Counted until the
 * constructor knows whether a report is wanted, so that a block allocated before it is
 * counted when it is freed. */
#ifndef PLACE_OUTSIDE_H
#define PLACE_OUTSIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/hidden.h"

struct place_outside {
    void *(*malloc)(size_t size);
    void *(*calloc)(size_t nmemb, size_t size); /* nmemb * size does not overflow */
    void (*free)(void *p);
};

extern PLACE_HIDDEN struct place_outside place_outside;

/* The aligned family's outside path with a report: not in the table, since
 * posix_memalign cannot tail-call it, so the caller's return address comes as ra. */
void *place_memalign_counted(size_t align, size_t size, uintptr_t ra);

/* Sets the table for what the constructor decided: counting (a report), or not; a dry
 * run's frees ask the dry map. */
void place_gates_set(bool counting, bool dry_run);

#endif
