/* The ownership test, and the shim's path for pointers a tier owns: free, realloc and
 * malloc_usable_size reach the owning tier, and glibc's pointers never do. The tier here
 * is a test tier: 4 KiB slots in a range this test maps and registers, each with a usable
 * size of the request rounded up to 64 bytes. */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../../policy/tiers/owner.h"
#include "check.h"

enum { SLOT = 4096, SLOTS = 64 };

static char *arena;
static size_t used[SLOTS]; /* usable size, 0 when free */
static int frees_seen;

static void *slot_get(size_t size)
{
    if (size > SLOT)
        return NULL;
    for (int k = 0; k < SLOTS; k++)
        if (!used[k]) {
            used[k] = size ? (size + 63) / 64 * 64 : 64;
            return arena + (size_t)k * SLOT;
        }
    return NULL;
}

static void *slot_block(struct place_tier *t, const struct place_request *r)
{
    (void)t;
    return slot_get(r->size);
}

static void slot_put(struct place_tier *t, void *p, size_t usable, const struct place_request *r)
{
    (void)t, (void)r;
    CHECK_EQ(usable, used[((char *)p - arena) / SLOT]);
    used[((char *)p - arena) / SLOT] = 0;
}

/* counted a block at a time, as libplace's pool is */
static void *slot_alloc(struct place_tier *t, const struct place_request *r, bool force,
                        bool *limited)
{
    return place_tier_counted(t, r, force, limited, slot_block, slot_put);
}

/* usable: 0 from free(), which leaves it to the allocator; else the block's own */
static void slot_free(struct place_tier *t, void *p, size_t usable, struct place_cu_call *cu)
{
    (void)cu;
    size_t held = used[((char *)p - arena) / SLOT];
    CHECK(usable == 0 || usable == held);
    used[((char *)p - arena) / SLOT] = 0;
    frees_seen++;
    place_tier_uncharge(t, held);
}

static size_t slot_usable(struct place_tier *t, const void *p)
{
    (void)t;
    return used[((const char *)p - arena) / SLOT];
}

static int slot_stats(struct place_tier *t, size_t *total, size_t *free)
{
    (void)t;
    *total = SLOT * SLOTS;
    *free = 0;
    return 0;
}

static const struct place_allocator slot_allocator = {
    .alloc = slot_alloc,
    .release = slot_free,
    .usable_size = slot_usable,
};
static const struct place_source slot_source = {.stats = slot_stats};
static struct place_node_stats slots_node, other_node;
static struct place_tier slots = {
    .name = "slots", .allocator = &slot_allocator, .source = &slot_source, .stats = &slots_node};
static struct place_tier other = {
    .name = "other", .allocator = &slot_allocator, .source = &slot_source, .stats = &other_node};

/* A block placed behind libplace's back, its bytes reserved in the tier as the chain
 * would (its free gives them back; a node never counts below 0). */
static void *placed(size_t size)
{
    char *p = slot_get(size);
    place_stats_reserve(slots.stats, (int64_t)used[(p - arena) / SLOT], 0);
    return p;
}

int main(void)
{
    /* nothing registered: every pointer misses, NULL included */
    void *g = malloc(100);
    CHECK(place_owner(g) == NULL);
    CHECK(place_owner(NULL) == NULL);

    arena = mmap(NULL, SLOT * SLOTS, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(arena != MAP_FAILED);
    CHECK_EQ(place_owner_add(arena, SLOT * SLOTS, &slots), 0);
    CHECK(place_owner(arena) == &slots);
    CHECK(place_owner(arena + SLOT * SLOTS - 1) == &slots);
    CHECK(place_owner(arena + SLOT * SLOTS) == NULL);
    CHECK(place_owner(arena - 1) == NULL);
    CHECK(place_owner(g) == NULL);

    /* two ranges with a gap between them: the enclosing interval covers the gap, and a
     * pointer in it is still nobody's */
    char *three = mmap(NULL, 3 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(three != MAP_FAILED);
    CHECK_EQ(place_owner_add(three, 1 << 20, &other), 0);
    CHECK_EQ(place_owner_add(three + (2 << 20), 1 << 20, &other), 0);
    CHECK(place_owner(three + 12345) == &other);
    CHECK(place_owner(three + (2 << 20) + 5) == &other);
    CHECK(place_owner(three + (1 << 20)) == NULL);
    CHECK(place_owner(three + (2 << 20) - 1) == NULL);
    CHECK(place_owner(arena + 5) == &slots);
    CHECK(place_owner(g) == NULL);

    /* the shim's entry points on an owned pointer */
    char *p = placed(100);
    strcpy(p, "placed");
    CHECK_EQ(malloc_usable_size(p), 128);
    CHECK(realloc(p, 120) == p); /* still fits: stays */
    /* growing: no rule places 2000 bytes here, but the block keeps its placement while
     * its tier has room: a new block in the tier, contents kept, the old one freed */
    char *q = realloc(p, 2000);
    CHECK(q != p && place_owner(q) == &slots);
    CHECK(strcmp(q, "placed") == 0);
    CHECK_EQ(frees_seen, 1);
    CHECK_EQ(used[0], 0);
    CHECK_EQ(malloc_usable_size(q), 2048);
    /* growing past what the tier can hold: refused there, so the policy decides, and no
     * rule places 8000 bytes: glibc's, contents kept, the tier's block freed */
    char *r = realloc(q, 8000);
    CHECK(r != q && place_owner(r) == NULL);
    CHECK(strcmp(r, "placed") == 0);
    CHECK_EQ(frees_seen, 2);
    CHECK(malloc_usable_size(r) >= 8000);
    free(r);
    CHECK_EQ(frees_seen, 2);

    p = placed(100);
    strcpy(p, "stays");
    errno = 0;
    CHECK(realloc(p, SIZE_MAX / 2) == NULL); /* nothing can hold it: ENOMEM, p intact */
    CHECK_EQ(errno, ENOMEM);
    CHECK(strcmp(p, "stays") == 0);
    CHECK(realloc(p, 0) == NULL); /* frees */
    CHECK_EQ(frees_seen, 3);

    /* counted against the owning tier, not dram: the blocks the test placed behind
     * libplace's back are frees only; the block realloc moved within the tier is one
     * allocation and one free; every byte reserved is given back */
    struct place_snapshot s = place_stats_snapshot(slots.stats, NULL);
    CHECK_EQ(s.events[PLACE_EV_ALLOCS], 1);
    CHECK_EQ(s.events[PLACE_EV_FREES], 3);
    CHECK_EQ(s.bytes, 0);

    free(g);
    return CHECK_DONE();
}
