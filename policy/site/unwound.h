/* libunwind's reading of a stack (unwound.c), where the walk cannot read one. */
#ifndef PLACE_UNWOUND_H
#define PLACE_UNWOUND_H

#include <stdbool.h>
#include <stdint.h>

#include "memo.h"

/* Fills m with the frames from ra (whose patterns are first) up, to the frame whose
 * patterns make `stop` (frames.h), by libunwind's cursor (two system calls a frame, ~4 us
 * for 12, but each return address's slot): whether the slots of all of them were
 * found, so that m can be trusted. */
bool place_unwind_frames(struct place_memo *m, uintptr_t ra, uint64_t first, unsigned depth,
                         uint64_t stop);

/* The same by libunwind's backtrace (~80 ns for 12 frames once their layout is known,
 * no slots: m is not trusted). */
void place_unwind_trace(struct place_memo *m, uintptr_t ra, uint64_t first, unsigned depth,
                        uint64_t stop);

#endif
