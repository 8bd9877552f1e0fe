/* Memory for libplace's own ranges and tables, straight from the kernel: what runs
 * inside malloc cannot take its bookkeeping from malloc. */
#ifndef PLACE_PAGES_H
#define PLACE_PAGES_H

#include <stddef.h>
#include <sys/mman.h>

/* Maps zeroed, private, anonymous memory: *len bytes, halved while the kernel refuses
 * (strict overcommit) down to least; flags are mmap's besides those (MAP_NORESERVE).
 * NULL when even least is refused; *len is what was mapped. */
void *place_reserve(size_t *len, size_t least, int flags);

#endif
