/* The direct allocator: each block is its source's own answer to the request (a GPU's
 * memory, where the program's own CUDA call makes the block), counted a block at a time
 * in whole units of the source's. No cache and no pool: frameworks cache device memory
 * themselves. */
#include "tier.h"

static void *get_block(struct place_tier *t, const struct place_request *r)
{
    uintptr_t device;
    return t->source->get(t, r->size, r, &device);
}

static void put_block(struct place_tier *t, void *p, size_t usable, const struct place_request *r)
{
    t->source->put(t, p, usable, r->cu);
}

static void *direct_alloc(struct place_tier *t, const struct place_request *r, bool force,
                          bool *limited)
{
    return place_tier_counted(t, r, force, limited, get_block, put_block);
}

static void direct_release(struct place_tier *t, void *p, size_t usable, struct place_cu_call *cu)
{
    t->source->put(t, p, usable, cu);
    place_tier_uncharge(t, usable);
}

static size_t direct_good_size(const struct place_tier *t, size_t size, size_t align)
{
    (void)align;
    size_t unit = t->source->unit ? t->source->unit : 1;
    return (size + unit - 1) / unit * unit;
}

const struct place_allocator place_direct_allocator = {
    .alloc = direct_alloc,
    .release = direct_release,
    .good_size = direct_good_size,
};
