/* glibc's allocator, reached without dlsym.
 *
 * libplace exports the malloc family, and the __libc_* names glibc exports for it too
 * (shim/alloc.c: a program with its own malloc hooks calls those by name, and a block
 * libplace placed must not reach glibc's free). So no symbol reference of libplace's can
 * name glibc's allocator: the linker binds a reference to a name libplace defines to
 * libplace's own, versioned (.symver) or not. base/glibc.c finds libc.so.6's __libc_*
 * functions in its dynamic symbol table instead, at the first call that needs one:
 * through the loader's list of objects (_r_debug), with no lock and no allocation, so
 * it works before libplace's constructor has run (ld.so and libc's own initialisers
 * allocate before it) and from inside the loader. */
#ifndef PLACE_GLIBC_H
#define PLACE_GLIBC_H

#include <stddef.h>
#include <stdint.h>

#include "hidden.h"

struct place_glibc {
    void *(*malloc)(size_t size);
    void *(*calloc)(size_t nmemb, size_t size);
    void *(*realloc)(void *p, size_t size);
    void (*free)(void *p);
    void *(*memalign)(size_t align, size_t size);
    void *(*pvalloc)(size_t size);
};

/* Each entry finds them all at its first call, then is glibc's own function. */
extern PLACE_HIDDEN struct place_glibc place_glibc;

/* Fills place_glibc (once found, again is a few loads); what base/glibc.c's first calls
 * do, and what a caller that copies the entries does first. */
void place_glibc_find(void);

#define place_libc_malloc (place_glibc.malloc)
#define place_libc_calloc (place_glibc.calloc)
#define place_libc_realloc (place_glibc.realloc)
#define place_libc_free (place_glibc.free)
#define place_libc_memalign (place_glibc.memalign)
#define place_libc_pvalloc (place_glibc.pvalloc)

/* glibc's sigaction and signal under their other exported names: libplace exports
 * sigaction and signal itself (shim/fatal.c). bsd_signal is signal, the same function;
 * signal.h no longer declares it for new programs. */
struct sigaction;
int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);
void (*bsd_signal(int sig, void (*handler)(int)))(int);

/* glibc has no __libc_ alias for malloc_usable_size, and the one exported name is the
 * one libplace replaces. Its answer is a function of the chunk header just below the
 * pointer (malloc/malloc.c, musable()): the chunk size with the flag bits masked, less
 * the header words the chunk keeps for itself, two for an mmapped chunk, one otherwise.
 * That layout has not changed since glibc 2.0; tests/unit/test_usable.c checks this
 * function against glibc's own answer for every kind of chunk, so a glibc that changed
 * it would fail the build's tests rather than miscount silently.
 * The caller guarantees p is a live pointer from glibc's allocator. */
enum { PLACE_GLIBC_FLAGS = 7, PLACE_GLIBC_MMAPPED = 2, PLACE_GLIBC_WORD = sizeof(size_t) };

static inline size_t place_glibc_usable(const void *p)
{
    enum { WORD = PLACE_GLIBC_WORD, IS_MMAPPED = PLACE_GLIBC_MMAPPED };
    size_t head = ((const size_t *)p)[-1];
    /* (head & IS_MMAPPED) * 4 is one more WORD for an mmapped chunk, without a branch */
    return (head & ~(size_t)PLACE_GLIBC_FLAGS) - WORD - (head & IS_MMAPPED) * (WORD / IS_MMAPPED);
}

/* The header of a chunk glibc would have mmapped, written below p for a mapping of len
 * bytes from base that p lies in (at least two words past base): the offset from base
 * to the chunk (its prev_size) and the chunk's size with IS_MMAPPED. place_glibc_usable
 * then answers base + len - p. engine/fold.c lays its blocks out so. */
static inline void place_glibc_mmapped_header(void *p, void *base, size_t len)
{
    size_t *chunk = (size_t *)p - 2;
    chunk[0] = (size_t)((char *)chunk - (char *)base);
    chunk[1] = ((size_t)((char *)base + len - (char *)chunk)) | PLACE_GLIBC_MMAPPED;
}

/* The mapping such a header describes: its start, and its length in *len. */
static inline void *place_glibc_mmapped_span(const void *p, size_t *len)
{
    const size_t *chunk = (const size_t *)p - 2;
    *len = chunk[0] + (chunk[1] & ~(size_t)PLACE_GLIBC_FLAGS);
    return (char *)chunk - chunk[0];
}

#endif
