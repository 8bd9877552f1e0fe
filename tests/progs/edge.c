/* Every family member at its edges, printing only results that must be the same with
 * and without libplace: return values, errno, alignment checks and usable sizes (glibc's
 * own, as libplace must report them). The bats suite compares the two outputs. */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile size_t huge = SIZE_MAX - 4096; /* volatile: the compiler must not fold it */
static volatile size_t half = SIZE_MAX / 2;

#define SAY(...) printf(__VA_ARGS__)

/* p came from the aligned allocator `name` with n bytes: fill it, grow it to `grown`
 * with realloc, and say whether the contents survived. An aligned block's usable size
 * depends on where the heap happens to start (glibc alone gives 648 or 680 for
 * aligned_alloc(64, 640), about once in 300 runs the former), so only its bounds are
 * said; tests/unit/test_usable.c checks libplace's answer against glibc's own. */
static void aligned_then_realloc(const char *name, char *p, size_t align, size_t n, size_t grown)
{
    size_t usable = malloc_usable_size(p);
    SAY("%s(%zu): aligned %d usable at least %zu and below %zu: %d\n", name, align,
        (uintptr_t)p % align == 0, n, n + align + 64, usable >= n && usable < n + align + 64);
    memset(p, name[0], n);
    char *q = realloc(p, grown);
    SAY("realloc of %s keeps contents %d\n", name, q[0] == name[0] && q[n - 1] == name[0]);
    free(q);
}

int main(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);

    void *z1 = malloc(0), *z2 = malloc(0);
    SAY("malloc(0): non-null %d, distinct %d, usable %zu\n", z1 && z2, z1 != z2,
        malloc_usable_size(z1));
    free(z1);
    free(z2);

    for (size_t n = 1; n <= (1u << 21); n *= 3) {
        void *p = malloc(n);
        SAY("malloc(%zu) usable %zu\n", n, malloc_usable_size(p));
        free(p);
    }
    SAY("usable(NULL) %zu\n", malloc_usable_size(NULL));

    errno = 0;
    void *c = calloc(half, 3);
    SAY("calloc overflow: %p errno %s\n", c, errno == ENOMEM ? "ENOMEM" : "other");
    char *keep = malloc(8);
    strcpy(keep, "intact");
    errno = 0;
    void *ra = reallocarray(keep, half, 4);
    SAY("reallocarray overflow: %p errno %s, old %s\n", ra, errno == ENOMEM ? "ENOMEM" : "other",
        keep);
    free(keep);
    errno = 0;
    void *m = malloc(huge);
    SAY("malloc(huge): %p errno %s\n", m, errno == ENOMEM ? "ENOMEM" : "other");

    errno = 777;
    void *ok = malloc(100);
    free(ok);
    SAY("errno after successful malloc/free: %d\n", errno);

    size_t aligns[] = {0, 1, 4, 8, 16, 24, 64, 4096, 1 << 20};
    for (size_t k = 0; k < sizeof aligns / sizeof aligns[0]; k++) {
        void *p = NULL;
        int rc = posix_memalign(&p, aligns[k], 1000);
        SAY("posix_memalign(%zu): rc %d aligned %d\n", aligns[k], rc,
            rc == 0 && (uintptr_t)p % aligns[k] == 0);
        free(p);
    }

    /* aligned pointers handed to free and to realloc */
    aligned_then_realloc("aligned_alloc", aligned_alloc(64, 640), 64, 640, 100000);
    aligned_then_realloc("memalign", memalign(4096, 10), 4096, 10, 20);

    void *pv = pvalloc(1);
    SAY("pvalloc(1): aligned %d usable is a page %d\n", (uintptr_t)pv % page == 0,
        malloc_usable_size(pv) >= page);
    char *pv2 = realloc(pv, 3 * page);
    SAY("realloc of pvalloc: %d\n", pv2 != NULL);
    free(pv2);

    void *va = valloc(1);
    SAY("valloc(1): aligned %d\n", (uintptr_t)va % page == 0);
    free(va);

    char *r0 = malloc(10);
    SAY("realloc(p, 0): %p\n", realloc(r0, 0));
    void *rn = realloc(NULL, 10);
    SAY("realloc(NULL, 10): non-null %d usable %zu\n", rn != NULL, malloc_usable_size(rn));
    free(rn);
    free(NULL);
    return 0;
}
