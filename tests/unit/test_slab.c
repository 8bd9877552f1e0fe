/* The size classes (policy/tiers/slab.h): place_size_class, the hot path's formula, and
 * place_class_size, the table of class sizes, must agree: every size maps to the smallest
 * class that holds it. And an aligned request gets a class that holds it and whose every
 * block is aligned. Then a pool over a real mapping: blocks given back go to their
 * class's depot up to its bound and come out of it again, the last given first; past the
 * bound to their slabs; a trim empties the depots, so that a slab whose every block came
 * back gives its pages to the kernel, or (hugetlb, pages kept) serves another class. */
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
    CHECK_EQ(place_slabs_take(&s, C64, 0, a, 80), 80);
    for (unsigned k = 0; k < 80; k++) {
        CHECK(place_slabs_own(&s, a[k]) && place_slabs_class(&s, a[k]) == C64);
        memset(a[k], 0xab, 64); /* the slab's pages resident */
    }
    place_slabs_give(&s, C64, a, 16);
    CHECK_EQ(s.depot[C64].n, 16);
    CHECK_EQ(place_slabs_take(&s, C64, 0, b, 8), 8);
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
    CHECK_EQ(place_slabs_take(&s, C64, 0, a, 4), 4);
    place_slabs_give(&s, C64, a, 4);
    CHECK_EQ(s.depot[C64].n, 0);

    /* hugetlb's pages stay, but a trim still empties the depots: a pool of one slab, its
     * blocks all in the depot, has a slab for another class only after it */
    struct place_slabs h = {0};
    char *one = (char *)(((uintptr_t)map + SLAB - 1) & ~(uintptr_t)(SLAB - 1));
    CHECK_EQ(place_slabs_init(&h, one, SLAB, 1, true), 0);
    memset(h.caps, PLACE_BIN_MAX, sizeof h.caps);
    CHECK_EQ(place_slabs_take(&h, C64, 0, a, 16), 16);
    place_slabs_give(&h, C64, a, 16);
    CHECK_EQ(h.depot[C64].n, 16);
    CHECK_EQ(place_slabs_take(&h, PLACE_CLASSES - 1, 0, b, 1), 0);
    CHECK_EQ(place_slabs_trim(&h), 0);
    CHECK_EQ(h.depot[C64].n, 0);
    CHECK_EQ(place_slabs_take(&h, PLACE_CLASSES - 1, 0, b, 1), 1);
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
    for (size_t align = 16; align <= PLACE_SMALL_MAX; align *= 2)
        for (size_t size = 1; size <= PLACE_SMALL_MAX; size += 97) {
            unsigned c = place_aligned_class(size, align);
            CHECK(c < PLACE_CLASSES && place_class_size[c] >= size &&
                  place_class_size[c] % align == 0);
        }
    CHECK_EQ(place_aligned_class(PLACE_SMALL_MAX + 1, 16), PLACE_CLASSES);
    pool();
    return CHECK_DONE();
}
