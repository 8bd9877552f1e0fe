/* The size classes (policy/tiers/slab.h): place_size_class, the hot path's formula, and
 * place_class_size, the table of class sizes, must agree: every size maps to the smallest
 * class that holds it. And an aligned request gets a class that holds it and whose every
 * block is aligned. Then a pool over a real mapping: blocks given back go to their
 * class's depot up to its bound and come out of it again, the last given first; past the
 * bound to their slabs; a trim empties the depots, so that a slab whose every block came
 * back gives its pages to the kernel, or (hugetlb, pages kept) serves another class. Past
 * 8 KiB, runs of pages instead of slabs. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "../../policy/tiers/slab.h"
#include "check.h"

enum { SLAB = 1 << PLACE_SLAB_SHIFT, C64 = 3 /* 64-byte blocks */ };

static unsigned resident_pages(const char *p, size_t len)
{
    unsigned char v[SLAB / 4096];
    unsigned n = 0;
    if (mincore((void *)p, len, v) != 0)
        return ~0u;
    for (size_t k = 0; k < len / 4096; k++)
        n += v[k] & 1;
    return n;
}

static void pool(void)
{
    size_t len = 4 * (size_t)SLAB;
    char *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(map != MAP_FAILED);
    struct place_slabs s = {0};
    CHECK_EQ(place_slabs_init(&s, map, len, 1, false), 0);
    memset(s.caps, PLACE_BIN_MAX, sizeof s.caps); /* a depot holds 64 blocks */
    void *a[80], *b[80];
    CHECK_EQ(place_slabs_take(&s, C64, 0, a, 80, true), 80);
    for (unsigned k = 0; k < 80; k++) {
        CHECK(place_slabs_own(&s, a[k]) && place_slabs_class(&s, a[k]) == C64);
        memset(a[k], 0xab, 64); /* the slab's pages resident */
    }
    place_slabs_give(&s, C64, a, 16);
    CHECK_EQ(s.depot[C64].n, 16);
    CHECK_EQ(place_slabs_take(&s, C64, 0, b, 8, true), 8);
    for (unsigned k = 0; k < 8; k++) /* the last given first */
        CHECK(b[k] == a[8 + k]);
    CHECK_EQ(s.depot[C64].n, 8);
    place_slabs_give(&s, C64, b, 8);
    place_slabs_give(&s, C64, a + 16, 48); /* 64: the bound */
    CHECK_EQ(s.depot[C64].n, 64);
    place_slabs_give(&s, C64, a + 64, 16); /* past it: to the slab */
    CHECK_EQ(s.depot[C64].n, 64);
    char *slab = (char *)((uintptr_t)a[0] & ~(uintptr_t)(SLAB - 1));
    CHECK(resident_pages(slab, SLAB) > 0);
    CHECK_EQ(place_slabs_trim(&s), SLAB); /* every block back: the depot emptied first */
    CHECK_EQ(s.depot[C64].n, 0);
    CHECK_EQ(resident_pages(slab, SLAB), 0);
    memset(s.caps, 0, sizeof s.caps); /* a tier whose bins hold nothing: no depot either */
    CHECK_EQ(place_slabs_take(&s, C64, 0, a, 4, true), 4);
    place_slabs_give(&s, C64, a, 4);
    CHECK_EQ(s.depot[C64].n, 0);

    /* hugetlb's pages stay, but a trim still empties the depots: a pool of one slab, its
     * blocks all in the depot, has a slab for another class only after it */
    struct place_slabs h = {0};
    char *one = (char *)(((uintptr_t)map + SLAB - 1) & ~(uintptr_t)(SLAB - 1));
    CHECK_EQ(place_slabs_init(&h, one, SLAB, 1, true), 0);
    memset(h.caps, PLACE_BIN_MAX, sizeof h.caps);
    CHECK_EQ(place_slabs_take(&h, C64, 0, a, 16, true), 16);
    place_slabs_give(&h, C64, a, 16);
    CHECK_EQ(h.depot[C64].n, 16);
    CHECK_EQ(place_slabs_take(&h, PLACE_CLASSES - 1, 0, b, 1, true), 0);
    CHECK_EQ(place_slabs_trim(&h), 0);
    CHECK_EQ(h.depot[C64].n, 0);
    CHECK_EQ(place_slabs_take(&h, PLACE_CLASSES - 1, 0, b, 1, true), 1);
    munmap(map, len);
}

/* Past 8 KiB a class is whole pages, its blocks runs from the extents, kept for their
 * length when freed and merged back for any other only when asked to. */
static void runs(void)
{
    size_t len = 8 * (size_t)SLAB;
    char *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(map != MAP_FAILED);
    struct place_slabs s = {0};
    struct place_extents e = {0};
    CHECK_EQ(place_slabs_init(&s, map, len / 2, 1, false), 0);
    CHECK_EQ(place_extents_init(&e, map + len / 2, len / 2, 4096, false), 0);
    s.runs = &e;
    memset(s.caps, PLACE_BIN_MAX, sizeof s.caps);
    unsigned c16 = place_size_class(16384), c12 = place_size_class(9000);
    CHECK_EQ(place_class_size[c12], 12288);
    void *a[4], *b[2];
    CHECK_EQ(place_slabs_take(&s, c16, 0, a, 4, true), 4);
    for (unsigned k = 0; k < 4; k++)
        CHECK(place_extents_own(&e, a[k]) && place_slabs_block_class(&s, a[k]) == c16);
    place_slabs_give(&s, c16, a, 4); /* kept for their length, the last given first */
    CHECK_EQ(s.depot[c16].n, 0);
    CHECK_EQ(place_slabs_take(&s, c16, 0, b, 1, false), 1);
    CHECK(b[0] == a[3]);
    place_slabs_give(&s, c16, b, 1);
    /* another length finds no free run without the top; merged, the kept runs hold it */
    CHECK_EQ(place_slabs_take(&s, c12, 0, b, 2, false), 0);
    place_slabs_merge(&s, 0);
    CHECK_EQ(place_slabs_take(&s, c12, 0, b, 2, false), 2);
    CHECK((char *)b[0] >= (char *)a[0] && (char *)b[1] < (char *)a[3] + 16384);
    CHECK_EQ(place_slabs_block_class(&s, b[0]), c12);
    /* before the top rises, the shortest longer kept run is cut: a 16 KiB run kept, a
     * 12 KiB block takes its first three pages and the fourth is a free run */
    void *c[3];
    CHECK_EQ(place_slabs_take(&s, c16, 0, c, 3, true), 3);
    CHECK(place_extents_take(&e, 64 * 4096, 0, false)); /* in use: no merge */
    uint32_t top = e.top;
    place_slabs_give(&s, c16, c, 1);
    CHECK_EQ(place_slabs_take(&s, c12, 0, b, 1, false), 0);
    CHECK_EQ(place_slabs_take(&s, c12, 0, b, 1, true), 1);
    CHECK(b[0] == c[0] && e.top == top && e.kept_pages == 0);
    CHECK_EQ(place_slabs_block_class(&s, b[0]), c12);
    /* a few runs are kept a length, the rest merged as they come: six 16 KiB runs freed,
     * four kept, and the six found again without the top */
    void *six[6];
    CHECK_EQ(place_slabs_take(&s, c16, 0, six, 6, true), 6);
    top = e.top;
    place_slabs_give(&s, c16, six, 6);
    CHECK_EQ(e.kept_pages, PLACE_KEPT_RUNS * 4u);
    CHECK_EQ(place_slabs_take(&s, c16, 0, six, 6, false), 6);
    CHECK_EQ(e.top, top);
    void *one = place_extents_take(&e, 4096, 8192, false); /* a page at 8 KiB: a large block */
    CHECK_EQ(place_slabs_block_class(&s, one), PLACE_CLASSES);
    munmap(map, len);
}

int main(void)
{
    CHECK_EQ(place_class_size[PLACE_CLASSES - 1], PLACE_SMALL_MAX);
    for (unsigned c = 1; c < PLACE_CLASSES; c++)
        CHECK(place_class_size[c - 1] < place_class_size[c] && place_class_size[c] % 16 == 0);
    for (size_t size = 1; size <= PLACE_SMALL_MAX; size++) {
        unsigned c = place_size_class(size);
        if (c >= PLACE_CLASSES || place_class_size[c] < size ||
            (c > 0 && place_class_size[c - 1] >= size)) {
            CHECK_EQ(size, 0); /* says which size */
            break;
        }
    }
    CHECK_EQ(place_size_class(0), 0);
    /* slabs up to 4 KiB, runs of pages past it; a hugetlb range's slabs hold every class */
    struct place_extents pages = {.unit = 4096};
    struct place_slabs paged = {.max = PLACE_SLABBED_MAX, .runs = &pages};
    struct place_slabs huge = {.max = PLACE_SMALL_MAX};
    for (size_t align = 16; align <= PLACE_SMALL_MAX; align *= 2)
        for (size_t size = 1; size <= PLACE_SMALL_MAX; size += 97) {
            unsigned c = place_aligned_class(&huge, size, align);
            CHECK(c < PLACE_CLASSES && place_class_size[c] >= size &&
                  place_class_size[c] % align == 0);
            c = place_aligned_class(&paged, size, align);
            if (c == PLACE_CLASSES) /* a large block: only where a run's page is not enough */
                CHECK(align > 4096);
            else
                CHECK(place_class_size[c] >= size &&
                      (place_class_size[c] > PLACE_SLABBED_MAX ? align <= 4096
                                                               : place_class_size[c] % align == 0));
        }
    CHECK_EQ(place_aligned_class(&huge, PLACE_SMALL_MAX + 1, 16), PLACE_CLASSES);
    pool();
    runs();
    return CHECK_DONE();
}
