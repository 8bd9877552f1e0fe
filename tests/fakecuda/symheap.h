/* libsymheap (symheap.c): a GPU heap made of cuMemCreate chunks. Each call answers 0, or
 * -1 / the driver's error. */
#ifndef SYMHEAP_H
#define SYMHEAP_H

#include <stddef.h>

/* Finds the driver (cuGetProcAddress) and starts it; the heap goes on GPU dev. */
int symheap_start(int dev);

/* The size of one chunk: the driver's granularity (0: it did not say). */
size_t symheap_chunk(void);

/* n more chunks; the last ones made are given back first by symheap_shrink. */
int symheap_grow(int n);
int symheap_shrink(int n);

#endif
