#include "tracked.h"

#include <sys/mman.h>
#include <unistd.h>

#include "../base/glibc.h"
#include "../site/site.h"
#include "../stats/access.h"
#include "../stats/profile.h"
#include "place.h"

uint64_t place_tracked_min;
static unsigned depth;

void place_tracked_start(uint64_t min, unsigned interval_ms, unsigned d)
{
    place_access_start(interval_ms, min);
    depth = d;
    place_tracked_min = min;
    /* every size from min up comes to the engine, whose blocks no rule takes are tracked */
    size_t lo = place_window.lo < min ? place_window.lo : min;
    place_window = (struct place_window){lo, SIZE_MAX - lo};
}

static size_t page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

/* The program's block, in pages of its own (*start, *data bytes) between the guards,
 * its header in the first. */
static void *map(size_t size, size_t align, uintptr_t *start, size_t *data)
{
    size_t page = page_size();
    size_t head = align > 2 * PLACE_GLIBC_WORD ? align : 2 * PLACE_GLIBC_WORD;
    if (align > page || size > SIZE_MAX - head - 3 * page)
        return NULL;
    *data = (head + size + page - 1) & ~(page - 1);
    char *base = mmap(NULL, *data + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                      -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    /* the pages the program gets count against overcommit as glibc's own mapping would */
    if (mmap(base + page, *data, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
             -1, 0) == MAP_FAILED) {
        munmap(base, *data + 2 * page);
        return NULL;
    }
    place_glibc_mmapped_header(base + page + head, base + page, *data);
    *start = (uintptr_t)(base + page);
    return base + page + head;
}

void place_tracked_unmap(void *p)
{
    size_t len, page = page_size();
    char *data = place_glibc_mmapped_span(p, &len);
    munmap(data - page, len + 2 * page);
}

void *place_tracked_alloc(const struct place_request *r)
{
    uintptr_t start;
    size_t data;
    void *p = map(r->size, r->call == PLACE_ALIGNED ? r->align : 0, &start, &data);
    if (!p) {
        place_access_untracked(r->size);
        return NULL;
    }
    struct place_sample s = {
        .asked = r->size,
        .held = place_glibc_usable(p),
        .start = start,
        .len = data,
    };
    s.n = place_site_frames(r->ra, depth, s.frames);
    if (!place_profile_track(p, &s)) {
        place_tracked_unmap(p);
        place_access_untracked(r->size);
        return NULL;
    }
    place_access_ensure();
    return p;
}
