/* Runs of pages for an arena's large blocks (policy/tiers/extent.c) over a real mapping:
 * the shortest free run first, splitting, merging with both neighbours, alignment, a
 * range used up, zeroed blocks after a reuse (calloc), freed pages given back to the
 * kernel past the budget (mincore says which pages are resident) and by trim. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../policy/tiers/extent.h"
#include "check.h"

enum { PAGES = 4096 };

static size_t unit;

/* How many of the n pages from p are resident. */
static size_t resident(const void *p, size_t n)
{
    unsigned char v[PAGES];
    if (n > PAGES)
        return SIZE_MAX;
    if (mincore((void *)p, n * unit, v) != 0)
        return SIZE_MAX;
    size_t r = 0;
    for (size_t k = 0; k < n; k++)
        r += v[k] & 1;
    return r;
}

static void *take(struct place_extents *e, size_t size, size_t align, bool zero)
{
    size_t bytes = place_extents_size(e, size, align);
    return bytes ? place_extents_take(e, bytes, align, zero) : NULL;
}

int main(void)
{
    unit = (size_t)getpagesize();
    size_t align = 64 * unit;
    char *map = mmap(NULL, PAGES * unit + align, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(map != MAP_FAILED);
    char *lo = (char *)(((uintptr_t)map + align - 1) & ~(uintptr_t)(align - 1));
    struct place_extents e;
    CHECK_EQ(place_extents_init(&e, lo, PAGES * unit, unit, false), 0);

    /* whole pages, cut from the top in order */
    CHECK_EQ(place_extents_size(&e, 65537, 0), 17 * unit);
    CHECK_EQ(place_extents_size(&e, (PAGES + 1) * unit, 0), 0);
    char *a = take(&e, 3 * unit, 0, false), *b = take(&e, 5 * unit, 0, false),
         *c = take(&e, 2 * unit, 0, false), *d = take(&e, unit, 0, false);
    CHECK(a == lo && b == lo + 3 * unit && c == lo + 8 * unit && d == lo + 10 * unit);
    CHECK_EQ(place_extents_usable(&e, b), 5 * unit);
    CHECK(place_extents_own(&e, d) && !place_extents_own(&e, lo + PAGES * unit));

    /* a freed run is reused first fit, and split; calloc over used pages is zeroed */
    memset(b, 0xab, 5 * unit);
    CHECK_EQ(place_extents_give(&e, b), 5 * unit);
    char *b2 = take(&e, 2 * unit, 0, true);
    CHECK(b2 == b);
    CHECK(b2[0] == 0 && b2[2 * unit - 1] == 0);
    char *b3 = take(&e, 3 * unit, 0, false);
    CHECK(b3 == b + 2 * unit);

    /* a, c and then the two runs between: one run of 10 pages from lo */
    place_extents_give(&e, a);
    place_extents_give(&e, b2);
    place_extents_give(&e, c);
    place_extents_give(&e, b3);
    char *ten = take(&e, 10 * unit, 0, false);
    CHECK(ten == lo);
    CHECK_EQ(place_extents_usable(&e, ten), 10 * unit);
    place_extents_give(&e, ten);

    /* alignment: no free run holds an aligned page, so the top moves to one; the pages
     * skipped are a free run of their own, found by the next block of their size */
    char *x = take(&e, unit, 0, false);
    CHECK(x == lo);
    char *al = take(&e, unit, align, false);
    CHECK(al == lo + align);
    CHECK(take(&e, unit, 0, false) == lo + unit); /* first fit: the run after x */
    char *skipped = take(&e, 53 * unit, 0, false);
    CHECK(skipped == lo + 11 * unit);
    place_extents_give(&e, skipped);
    place_extents_give(&e, al);
    place_extents_give(&e, x);
    place_extents_give(&e, lo + unit);

    /* freed pages are kept up to four times the largest block freed, or a quarter more
     * than were in use within the last second: four blocks of n pages freed keep theirs,
     * a fifth too while all five were in use a moment ago, but one freed once that
     * second is past goes back to the kernel (and a block from it reads as zero without
     * a memset) */
    size_t n = PLACE_KEEP_MIN / unit;
    place_extents_trim(&e); /* none kept from above */
    char *k[4];
    for (unsigned j = 0; j < 4; j++) {
        k[j] = take(&e, n * unit, 0, false);
        CHECK(k[j] != NULL);
        memset(k[j], 1, n * unit);
    }
    char *sep = take(&e, 16 * unit, 0, false), *huge = take(&e, n * unit, 0, false);
    CHECK(sep && huge);
    memset(huge, 0x5a, n * unit);
    for (unsigned j = 0; j < 4; j++)
        place_extents_give(&e, k[j]);
    CHECK_EQ(resident(k[0], 4 * n), 4 * n);
    place_extents_give(&e, huge);
    CHECK_EQ(resident(huge, n), n);
    huge = take(&e, n * unit, 0, false);
    memset(huge, 0x5a, n * unit);
    e.recent_at -= PLACE_DECAY_NS; /* the second past */
    place_extents_give(&e, huge);
    CHECK_EQ(resident(huge, n), 0);
    CHECK_EQ(resident(k[0], 4 * n), 4 * n);
    char *again = take(&e, n * unit, 0, true);
    CHECK(again == huge && again[0] == 0 && again[n * unit - 1] == 0);
    CHECK_EQ(resident(again, n), 2); /* the two pages read, no memset */
    place_extents_give(&e, again);
    CHECK(place_extents_trim(&e) >= 4 * n * unit); /* and trim gives back every kept page */
    CHECK_EQ(resident(k[0], 4 * n), 0);
    place_extents_give(&e, sep);

    /* a small run under the budget keeps its pages until a trim */
    char *kept = take(&e, 4 * unit, 0, false);
    memset(kept, 1, 4 * unit);
    place_extents_give(&e, kept);
    CHECK_EQ(resident(kept, 4), 4);
    CHECK(place_extents_trim(&e) >= 4 * unit);
    CHECK_EQ(resident(kept, 4), 0);
    CHECK_EQ(place_extents_trim(&e), 0);

    /* a big calloc from pages that held old bytes gets zero pages from the kernel, not a
     * memset that would make them all resident */
    char *old = take(&e, 2 * n * unit, 0, false);
    memset(old, 7, 2 * n * unit);
    place_extents_give(&e, old); /* kept: under four times the largest block freed */
    CHECK_EQ(resident(old, 2 * n), 2 * n);
    char *zeroed = take(&e, 2 * n * unit, 0, true);
    CHECK(zeroed == old && zeroed[0] == 0 && zeroed[2 * n * unit - 1] == 0);
    CHECK_EQ(resident(zeroed, 2 * n), 2);
    place_extents_give(&e, zeroed);

    /* the shortest free run that holds a block is found first: a 5-page block takes the
     * free 5-page run, not the 7-page one freed after it (first fit among the runs of 4
     * to 7 pages took that, and left 2 pages no run class could use) */
    struct place_extents f;
    CHECK_EQ(place_extents_init(&f, lo, 16 * unit, unit, false), 0);
    char *r5 = take(&f, 5 * unit, 0, false), *s1 = take(&f, unit, 0, false),
         *r7 = take(&f, 7 * unit, 0, false), *s2 = take(&f, unit, 0, false);
    CHECK(r5 == lo && s1 == lo + 5 * unit && r7 == lo + 6 * unit && s2 == lo + 13 * unit);
    place_extents_give(&f, r5);
    place_extents_give(&f, r7);
    CHECK(take(&f, 5 * unit, 0, false) == r5);
    CHECK(take(&f, 7 * unit, 0, false) == r7);

    /* everything free is one run with the top: the whole range, then no more */
    place_extents_give(&e, d);
    char *all = take(&e, PAGES * unit, 0, false);
    CHECK(all == lo);
    CHECK(take(&e, unit, 0, false) == NULL);
    place_extents_give(&e, all);
    CHECK(take(&e, PAGES * unit, 0, false) == lo);
    return CHECK_DONE();
}
