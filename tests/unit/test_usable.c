/* place_glibc_usable() reads glibc's chunk header; check it against glibc's own
 * malloc_usable_size for every kind of chunk: small, large, mmapped, aligned, from
 * calloc, resized by realloc, and from a non-main arena (another thread's). */
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>

#include "../../policy/base/glibc.h"
#include "check.h"

static size_t (*glibc_usable)(void *);

static void compare(void *p)
{
    CHECK(p != NULL);
    CHECK_EQ(place_glibc_usable(p), glibc_usable(p));
    free(p);
}

static void *kinds(void *arg)
{
    (void)arg;
    for (size_t n = 0; n < (1u << 20); n = n < 64 ? n + 1 : n * 5 / 4)
        compare(malloc(n));
    compare(malloc(64 << 20)); /* mmapped */
    compare(calloc(1000, 3));
    compare(calloc(1, 8 << 20));
    for (size_t a = 8; a <= 65536; a *= 2) {
        compare(memalign(a, 1000));
        compare(memalign(a, 300000)); /* mmapped and aligned */
    }
    compare(valloc(5000));
    compare(pvalloc(5000));
    void *r = malloc(10);
    r = realloc(r, 100000);
    r = realloc(r, 50);
    compare(r);
    return NULL;
}

int main(void)
{
    glibc_usable = (size_t(*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
    CHECK(glibc_usable != NULL && glibc_usable != (size_t(*)(void *))malloc_usable_size);
    kinds(NULL);
    pthread_t t;
    pthread_create(&t, NULL, kinds, NULL); /* a second thread allocates from its own arena */
    pthread_join(t, NULL);
    return CHECK_DONE();
}
