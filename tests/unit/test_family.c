/* The interposed malloc family, glibc-exact. This program links libplace's objects
 * whole, so the malloc it calls is libplace's, exactly as under LD_PRELOAD. */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../policy/engine/sampler.h"
#include "../../policy/engine/outside.h"
#include "../../policy/engine/place.h"
#include "../../policy/stats/threads.h"
#include "../../policy/tiers/tier.h"
#include "check.h"

#define SENTINEL 4242

static void errno_untouched_on_success(void)
{
    void *p, *q;
    errno = SENTINEL;
    p = malloc(100);
    CHECK_EQ(errno, SENTINEL);
    q = calloc(10, 10);
    CHECK_EQ(errno, SENTINEL);
    p = realloc(p, 5000);
    CHECK_EQ(errno, SENTINEL);
    p = reallocarray(p, 10, 100);
    CHECK_EQ(errno, SENTINEL);
    free(p);
    free(q);
    CHECK_EQ(errno, SENTINEL);
    p = memalign(64, 100);
    free(p);
    p = aligned_alloc(256, 512);
    free(p);
    p = valloc(10);
    free(p);
    p = pvalloc(10);
    free(p);
    CHECK_EQ(posix_memalign(&p, 128, 1000), 0);
    free(p);
    CHECK_EQ(errno, SENTINEL);
    free(NULL);
    CHECK_EQ(errno, SENTINEL);
}

static void zero_sizes(void)
{
    void *a = malloc(0), *b = malloc(0);
    CHECK(a != NULL && b != NULL && a != b);
    free(a);
    free(b);
    void *c = calloc(0, 5), *d = calloc(5, 0);
    CHECK(c != NULL && d != NULL && c != d);
    free(c);
    free(d);
    /* glibc frees on realloc(p, 0) and returns NULL */
    void *e = malloc(10);
    CHECK(realloc(e, 0) == NULL);
    void *f = realloc(NULL, 0);
    CHECK(f != NULL);
    free(f);
}

static void overflow(void)
{
    errno = 0;
    CHECK(calloc(SIZE_MAX / 2, 3) == NULL);
    CHECK_EQ(errno, ENOMEM);
    errno = 0;
    CHECK(calloc((size_t)1 << 33, (size_t)1 << 33) == NULL);
    CHECK_EQ(errno, ENOMEM);

    char *p = malloc(16);
    strcpy(p, "kept");
    errno = 0;
    CHECK(reallocarray(p, SIZE_MAX / 4, 8) == NULL);
    CHECK_EQ(errno, ENOMEM);
    CHECK(strcmp(p, "kept") == 0); /* p untouched */
    free(p);

    errno = 0;
    CHECK(malloc(SIZE_MAX - 4096) == NULL);
    CHECK_EQ(errno, ENOMEM);
    errno = 0;
    CHECK(realloc(NULL, SIZE_MAX - 4096) == NULL);
    CHECK_EQ(errno, ENOMEM);
    void *q = malloc(8);
    errno = 0;
    CHECK(realloc(q, SIZE_MAX - 4096) == NULL);
    CHECK_EQ(errno, ENOMEM);
    free(q);
    errno = 0;
    CHECK(memalign(64, SIZE_MAX - 100) == NULL);
    CHECK_EQ(errno, ENOMEM);
    void *r;
    CHECK_EQ(posix_memalign(&r, 64, SIZE_MAX - 100), ENOMEM);
}

static void alignment(void)
{
    void *p = (void *)0x1;
    /* EINVAL for 0, non powers of two, and powers of two below sizeof(void *) */
    size_t bad[] = {0, 1, 2, 4, 12, 24, 48, 100, (size_t)1 << 63 | 8};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        errno = SENTINEL;
        CHECK_EQ(posix_memalign(&p, bad[k], 64), EINVAL);
        CHECK(p == (void *)0x1); /* *memptr untouched */
        CHECK_EQ(errno, SENTINEL);
    }
    for (size_t a = sizeof(void *); a <= ((size_t)1 << 20); a <<= 1) {
        void *q;
        CHECK_EQ(posix_memalign(&q, a, 100), 0);
        CHECK((uintptr_t)q % a == 0);
        CHECK(malloc_usable_size(q) >= 100);
        free(q);
        q = memalign(a, 3 * a + 1);
        CHECK((uintptr_t)q % a == 0);
        CHECK(malloc_usable_size(q) >= 3 * a + 1);
        /* an aligned block can be reallocated and keeps its contents */
        memset(q, 0x5a, 3 * a + 1);
        unsigned char *r = realloc(q, 10 * a);
        CHECK(r != NULL && r[0] == 0x5a && r[3 * a] == 0x5a);
        free(r);
        q = aligned_alloc(a, a);
        CHECK((uintptr_t)q % a == 0);
        free(q);
    }
    /* glibc 2.36's memalign rounds a non-power-of-two alignment up */
    void *q = memalign(24, 100);
    CHECK(q != NULL && (uintptr_t)q % 32 == 0);
    free(q);

    long page = sysconf(_SC_PAGESIZE);
    void *v = valloc(10);
    CHECK((uintptr_t)v % (uintptr_t)page == 0);
    free(v);
    void *pv = pvalloc(10);
    CHECK((uintptr_t)pv % (uintptr_t)page == 0);
    CHECK(malloc_usable_size(pv) >= (size_t)page); /* pvalloc rounds the size up to a page */
    char *grown = realloc(pv, 3 * (size_t)page);
    CHECK(grown != NULL);
    free(grown);
}

static void contents_and_usable(void)
{
    for (size_t n = 1; n < (1u << 22); n = n * 3 + 1) {
        unsigned char *p = malloc(n);
        CHECK(malloc_usable_size(p) >= n);
        memset(p, 0xab, malloc_usable_size(p)); /* the whole usable size is writable */
        unsigned char *q = realloc(p, 2 * n + 7);
        CHECK(q[0] == 0xab && q[n - 1] == 0xab);
        q = realloc(q, n / 2 + 1);
        CHECK(q[n / 2] == 0xab);
        free(q);
        unsigned char *z = calloc(n, 1);
        size_t nonzero = 0;
        for (size_t k = 0; k < n; k++)
            nonzero += z[k] != 0;
        CHECK_EQ(nonzero, 0);
        free(z);
    }
}

/* With counting on, every family member is counted and frees balance the bytes. */
static void counted(void)
{
    place_threads_start(true, false); /* as the constructor does when a report is asked for */
    place_sampler_start(0, 4, true);  /* sample = all: dram's bytes are exact */
    place_gates_set(true, false);
    free(malloc(1));           /* this thread registers on its first counted call */
    struct place_snapshot s0 = place_threads_dram();

    void *p[8];
    p[0] = malloc(100);
    p[1] = calloc(3, 50);
    p[2] = memalign(64, 200);
    p[3] = aligned_alloc(128, 256);
    p[4] = valloc(10);
    p[5] = pvalloc(10);
    CHECK_EQ(posix_memalign(&p[6], 32, 300), 0);
    p[7] = realloc(NULL, 400);
    p[7] = realloc(p[7], 100000); /* moves: one free, one allocation */
    p[7] = reallocarray(p[7], 4, 10);
    size_t usable = 0;
    for (int k = 0; k < 8; k++)
        usable += malloc_usable_size(p[k]);

    struct place_snapshot s1 = place_threads_dram();
    CHECK_EQ(s1.events[PLACE_EV_ALLOCS] - s0.events[PLACE_EV_ALLOCS], 10);
    CHECK_EQ(s1.events[PLACE_EV_FREES] - s0.events[PLACE_EV_FREES], 2);
    CHECK_EQ(s1.bytes - s0.bytes, (long long)usable);

    for (int k = 0; k < 8; k++)
        free(p[k]);
    struct place_snapshot s2 = place_threads_dram();
    CHECK_EQ(s2.events[PLACE_EV_ALLOCS] - s2.events[PLACE_EV_FREES], s0.events[PLACE_EV_ALLOCS] - s0.events[PLACE_EV_FREES]);
    CHECK_EQ(s2.bytes, s0.bytes);

    /* the peak is exact to within PLACE_STATS_BATCH per thread */
    void *big = malloc(8 << 20);
    free(big);
    struct place_snapshot sp = place_threads_dram();
    CHECK(sp.peak >= s0.bytes + (8 << 20) - PLACE_STATS_BATCH);
    CHECK(sp.peak <= s0.bytes + (8 << 20) + 8192 + (long long)usable + PLACE_STATS_BATCH);

    /* realloc(p, 0) counts as a free */
    void *e = malloc(50);
    CHECK(realloc(e, 0) == NULL);
    struct place_snapshot s3 = place_threads_dram();
    CHECK_EQ(s3.bytes, s0.bytes);
    CHECK_EQ(s3.events[PLACE_EV_ALLOCS] - s3.events[PLACE_EV_FREES], s0.events[PLACE_EV_ALLOCS] - s0.events[PLACE_EV_FREES]);
}

/* The dram tier through the tier interface, as chains that end in dram use it. */
static void dram_tier(void)
{
    const struct place_allocator *a = place_dram.allocator;
    for (size_t align = 0; align <= 4096; align = align ? align * 2 : 8) {
        struct place_request r = {.size = 1000, .align = align,
                                  .call = align ? PLACE_ALIGNED : PLACE_MALLOC};
        bool limited = true;
        char *p = a->alloc(&place_dram, &r, false, &limited);
        CHECK(!limited);
        CHECK(p != NULL);
        CHECK(align == 0 || (uintptr_t)p % align == 0);
        size_t usable = a->usable_size(&place_dram, p);
        CHECK(usable >= 1000);
        CHECK_EQ(usable, malloc_usable_size(p)); /* glibc's own block */
        memset(p, 1, usable);
        free(p); /* glibc's blocks are freed by the shim, not through the tier */
    }
    size_t total = 0, avail = 0;
    CHECK_EQ(place_dram.source->stats(&place_dram, &total, &avail), 0);
    CHECK(total > 0 && avail > 0 && avail <= total);
}

int main(void)
{
    errno_untouched_on_success();
    zero_sizes();
    overflow();
    alignment();
    contents_and_usable();
    counted();
    dram_tier();
    return CHECK_DONE();
}
