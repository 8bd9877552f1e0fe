/* The chunk pool (policy/tiers/pool.c) over a test source that maps chunks with mmap and
 * records what it was asked: chunk sizes growing to the maximum, blocks in whole grains
 * at the asked alignment, reuse of freed grains, a chunk of its own above the maximum
 * (given back at its free), reclaim of whole free chunks only, device addresses. The
 * pool is libplace's own; only the source is the test's. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "../../config/policy.h"
#include "../../policy/tiers/pool.h"
#include "../../policy/tiers/tier.h"
#include "check.h"

enum { MiB = 1 << 20, DEVICE_OFFSET = 0x1000000 };

static size_t got[64], put[64];
static unsigned ngot, nput;
static bool refuse;

/* What the pool holds from the source: every chunk it got and has not put back. */
static size_t held(void)
{
    size_t n = 0;
    for (unsigned k = 0; k < ngot; k++)
        n += got[k];
    for (unsigned k = 0; k < nput; k++)
        n -= put[k];
    return n;
}

static void *get(struct place_tier *t, size_t size, const struct place_request *r,
                 uintptr_t *device)
{
    (void)t;
    CHECK(r == NULL); /* a chunk, for no request in particular */
    if (refuse)
        return NULL;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    got[ngot++] = size;
    *device = (uintptr_t)p + DEVICE_OFFSET; /* a device address space of its own */
    return p;
}

static void put_chunk(struct place_tier *t, void *p, size_t size, struct place_cu_call *cu)
{
    (void)t, (void)cu;
    put[nput++] = size;
    munmap(p, size);
}

static const struct place_source source = {.get = get, .put = put_chunk};

int main(void)
{
    struct place_tier_config c = {
        .chunk_initial = 2 * MiB, .chunk_max = 8 * MiB, .chunk_growth = 2};
    struct place_tier t = {.name = "test", .config = &c, .source = &source};
    static struct place_pool pool;
    place_pool_init(&pool, &t);

    /* nothing is asked of the source before the first block */
    CHECK_EQ(ngot, 0);

    /* whole grains, at least the grain's alignment */
    void *a = place_pool_alloc(&pool, 1, 0);
    CHECK(a != NULL);
    CHECK_EQ(place_pool_usable(&pool, a), PLACE_POOL_GRAIN);
    CHECK_EQ((uintptr_t)a % PLACE_POOL_GRAIN, 0);
    CHECK_EQ(place_pool_good_size(1, 0), PLACE_POOL_GRAIN);
    CHECK_EQ(place_pool_good_size(300, 0), 2 * PLACE_POOL_GRAIN);
    CHECK_EQ(ngot, 1);
    CHECK_EQ(got[0], 2 * MiB);
    CHECK_EQ(place_pool_device(&pool, a), (uintptr_t)a + DEVICE_OFFSET);

    /* blocks are usable and do not overlap */
    void *b[16];
    for (int k = 0; k < 16; k++) {
        b[k] = place_pool_alloc(&pool, MiB, 0);
        CHECK(b[k] != NULL);
        memset(b[k], k, MiB);
    }
    for (int k = 0; k < 16; k++)
        CHECK(((unsigned char *)b[k])[MiB - 1] == k && ((unsigned char *)b[k])[0] == k);
    /* chunks grew 2M, 4M, 8M, then stayed at the maximum */
    CHECK(ngot >= 4);
    CHECK_EQ(got[1], 4 * MiB);
    CHECK_EQ(got[2], 8 * MiB);
    CHECK_EQ(got[3], 8 * MiB);
    unsigned chunks = ngot;

    /* a freed block's grains serve the next request that fits */
    size_t freed = place_pool_free(&pool, b[3]);
    CHECK_EQ(freed, MiB);
    CHECK_EQ(place_pool_usable(&pool, b[3]), 0);
    /* the last chunk has room for five more; then only b[3]'s grains are left */
    void *more[5];
    for (int k = 0; k < 5; k++)
        more[k] = place_pool_alloc(&pool, MiB, 0);
    void *again = place_pool_alloc(&pool, MiB, 0);
    CHECK(again == b[3]);
    CHECK_EQ(ngot, chunks);
    b[3] = again;
    for (int k = 0; k < 5; k++)
        place_pool_free(&pool, more[k]);

    /* alignment */
    void *aligned = place_pool_alloc(&pool, 100, 64 * 1024);
    CHECK(aligned != NULL && (uintptr_t)aligned % (64 * 1024) == 0);
    place_pool_free(&pool, aligned);

    /* above the maximum: a chunk of its own, whole pages, given back at its free */
    void *big = place_pool_alloc(&pool, 9 * MiB + 1, 0);
    CHECK(big != NULL);
    CHECK_EQ(got[ngot - 1], 9 * MiB + 4096);
    CHECK_EQ(place_pool_usable(&pool, big), 9 * MiB + 4096);
    memset(big, 1, 9 * MiB + 1);
    CHECK_EQ(place_pool_free(&pool, big), 9 * MiB + 4096);
    CHECK_EQ(nput, 1);
    CHECK_EQ(put[0], 9 * MiB + 4096);

    /* reclaim gives back whole free chunks only */
    size_t before = held();
    CHECK_EQ(before, 2 * MiB + 4 * MiB + 8 * MiB * (chunks - 2));
    CHECK_EQ(place_pool_reclaim(&pool, SIZE_MAX), 0); /* every chunk has a block in it */
    for (int k = 0; k < 16; k++)
        place_pool_free(&pool, b[k]);
    size_t back = place_pool_reclaim(&pool, SIZE_MAX);
    CHECK_EQ(back, before - 2 * MiB); /* the first chunk still holds `a` */
    CHECK_EQ(held(), 2 * MiB);
    /* the rest of it is free: a block of all but `a`'s grain fits without a new chunk */
    unsigned chunks_now = ngot;
    void *rest = place_pool_alloc(&pool, 2 * MiB - PLACE_POOL_GRAIN, 0);
    CHECK(rest != NULL);
    CHECK_EQ(ngot, chunks_now);
    place_pool_free(&pool, rest);

    /* reclaim stops once it gave back what was asked */
    place_pool_free(&pool, a);
    void *c1 = place_pool_alloc(&pool, 3 * MiB, 0), *c2 = place_pool_alloc(&pool, 3 * MiB, 0);
    place_pool_free(&pool, c1);
    place_pool_free(&pool, c2);
    unsigned puts = nput;
    CHECK(place_pool_reclaim(&pool, 1) > 0);
    CHECK_EQ(nput, puts + 1);

    /* a source that refuses: NULL, nothing half-made */
    place_pool_reclaim(&pool, SIZE_MAX);
    refuse = true;
    CHECK(place_pool_alloc(&pool, 1, 0) == NULL);
    CHECK_EQ(held(), 0);
    return CHECK_DONE();
}
