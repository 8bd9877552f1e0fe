/* The size classes (policy/tiers/slab.h): place_size_class, the hot path's formula, and
 * place_class_size, the table of class sizes, must agree: every size maps to the smallest
 * class that holds it. And an aligned request gets a class that holds it and whose every
 * block is aligned. */
#include <stdint.h>

#include "../../policy/tiers/slab.h"
#include "check.h"

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
    return CHECK_DONE();
}
