/* Allocation wrappers found by their code's shape: a function that returns the block of
 * a malloc-family call it makes (xmalloc and its kind in a program libplace knows
 * nothing of) is a wrapper, as those the policy or libplace name are (modules.c). */
#ifndef PLACE_SHAPE_H
#define PLACE_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A loaded segment of a module: what may be read, and whether it is code. */
struct place_segment {
    uintptr_t lo, hi;
    bool code;
};
enum { PLACE_SEGMENTS = 8 };

/* libplace's own entry points of the malloc family, which a program's calls reach
 * (through its PLT or GOT): given by the composition root (shim/init.c), before any
 * wrapper is looked for. */
void place_shape_allocators(const uintptr_t *entry, unsigned n);

/* Whether the function at code, size bytes, in a module of segments seg[0..n), is
 * shaped as a wrapper: it tail-jumps to an allocator, or calls one and then only tests
 * the result, branches, pops and adjusts the stack pointer before it returns (the
 * result still in rax). x86-64 only (elsewhere: false); every byte read lies in one of
 * the segments. */
bool place_shape_wrapper(uintptr_t code, size_t size, const struct place_segment *seg,
                         unsigned n);

#endif
