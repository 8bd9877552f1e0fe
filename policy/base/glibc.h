/* glibc's allocator, reached without dlsym.
 *
 * libplace exports the malloc family itself, so glibc's versions are reached through the
 * __libc_* aliases glibc exports for exactly this purpose. They are plain symbols bound
 * by the dynamic linker, so they work before libplace's constructor has run (ld.so and
 * libc's own initialisers allocate before it). */
#ifndef PLACE_GLIBC_H
#define PLACE_GLIBC_H

#include <stddef.h>
#include <stdint.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t nmemb, size_t size);
void *__libc_realloc(void *p, size_t size);
void __libc_free(void *p);
void *__libc_memalign(size_t align, size_t size);
void *__libc_pvalloc(size_t size);

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
static inline size_t place_glibc_usable(const void *p)
{
    enum { FLAGS = 7, IS_MMAPPED = 2, WORD = sizeof(size_t) };
    size_t head = ((const size_t *)p)[-1];
    /* (head & IS_MMAPPED) * 4 is one more WORD for an mmapped chunk, without a branch */
    return (head & ~(size_t)FLAGS) - WORD - (head & IS_MMAPPED) * (WORD / IS_MMAPPED);
}

#endif
