#include "pages.h"

void *place_reserve(size_t *len, size_t least, int flags)
{
    for (; *len >= least; *len /= 2) {
        void *p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
        if (p != MAP_FAILED)
            return p;
    }
    return NULL;
}
