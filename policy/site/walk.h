/* The walk by the frames' unwind information (cfi.h): a table lookup and a few loads a
 * frame, each return address's stack slot found on the way, so the memo entry it fills
 * is trusted at once. */
#ifndef PLACE_WALK_H
#define PLACE_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "cfi.h"
#include "memo.h"

/* The frames from ra up, stepped through by their unwind information:
 * libplace's own frames first, from `from` (NULL: this one) to the entry point's, then
 * the program's, each with the slot of its return address: a table lookup and a few
 * loads a frame. No system call, and no lock once the table knows each return address
 * (a new one is asked of the modules, under their lock), so no fork handler. Returns
 * false when a frame on the way is one the walker does not read (no unwind information,
 * a signal frame, a layout by expression): libunwind's then; m is left no key's entry
 * if it was written. */
bool place_site_walk(struct place_memo *m, uintptr_t ra, unsigned depth, uint64_t stop,
                     const struct place_cfi_frame *from);

#endif
