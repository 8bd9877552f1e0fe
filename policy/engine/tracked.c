#include "tracked.h"

#include <string.h>
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

/* Freed mappings kept for reuse, as glibc keeps a freed block's pages in its heap: a
 * program that allocates, fills and frees a big buffer over and over would otherwise
 * fault every page of it in again each time (3000 times 2 MiB: 3.6 s against glibc's
 * 0.09 s). A mapping is reused for a block that needs no less and at most a quarter
 * more, the one freed last first; the cache holds at most CACHED mappings and as many
 * bytes as the largest one freed (twice that held python3's dict tables, 19 MiB more
 * than a report's run, against 10 MiB), unmapping smaller ones for a bigger one. Taken
 * with a try lock, never waited for: a thread that finds it busy maps or unmaps. */
enum { CACHED = 16 };
static struct {
    uintptr_t start;
    size_t len;
    uint64_t freed; /* when, in frees: the latest one's pages are likeliest in the caches */
} cached[CACHED];
static unsigned ncached;
static size_t cached_bytes, largest;
static uint64_t frees;
static bool busy;

static bool cache_lock(void)
{
    return !__atomic_test_and_set(&busy, __ATOMIC_ACQUIRE);
}

static void cache_unlock(void)
{
    __atomic_clear(&busy, __ATOMIC_RELEASE);
}

/* The cached mapping of need bytes to a quarter more freed last, taken out of the cache:
 * its start, its length in *len; 0 when there is none. */
static uintptr_t cache_take(size_t need, size_t *len)
{
    if (!cache_lock())
        return 0;
    unsigned best = CACHED;
    for (unsigned k = 0; k < ncached; k++)
        if (cached[k].len >= need && cached[k].len - need <= need / 4 &&
            (best == CACHED || cached[k].freed > cached[best].freed))
            best = k;
    uintptr_t start = 0;
    if (best < CACHED) {
        start = cached[best].start;
        *len = cached[best].len;
        cached_bytes -= *len;
        cached[best] = cached[--ncached];
    }
    cache_unlock();
    return start;
}

/* Keeps a freed mapping for reuse, making room by unmapping smaller ones (a bigger one
 * serves more sizes): false when it is not kept (the cache busy, or full of bigger
 * ones). */
static bool cache_put(uintptr_t start, size_t len)
{
    if (!cache_lock())
        return false;
    if (len > largest)
        largest = len;
    struct {
        uintptr_t start;
        size_t len;
    } out[CACHED];
    unsigned nout = 0;
    while (ncached == CACHED || cached_bytes + len > largest) {
        unsigned smallest = 0;
        for (unsigned k = 1; k < ncached; k++)
            if (cached[k].len < cached[smallest].len)
                smallest = k;
        if (!ncached || cached[smallest].len >= len)
            break;
        out[nout].start = cached[smallest].start;
        out[nout++].len = cached[smallest].len;
        cached_bytes -= cached[smallest].len;
        cached[smallest] = cached[--ncached];
    }
    bool kept = ncached < CACHED && cached_bytes + len <= largest;
    if (kept) {
        cached[ncached].start = start;
        cached[ncached].len = len;
        cached[ncached++].freed = ++frees;
        cached_bytes += len;
    }
    cache_unlock();
    size_t page = page_size();
    for (unsigned k = 0; k < nout; k++)
        munmap((char *)out[k].start - page, out[k].len + 2 * page);
    return kept;
}

/* The program's block, in pages of its own (*start, *data bytes) between the guards,
 * its header in the first: a cached mapping's pages (*fresh false: they hold what its
 * last block left), or new ones. */
static void *map(size_t size, size_t align, uintptr_t *start, size_t *data, bool *fresh)
{
    size_t page = page_size();
    size_t head = align > 2 * PLACE_GLIBC_WORD ? align : 2 * PLACE_GLIBC_WORD;
    if (align > page || size > SIZE_MAX - head - 3 * page)
        return NULL;
    *data = (head + size + page - 1) & ~(page - 1);
    char *pages = (char *)cache_take(*data, data);
    *fresh = pages == NULL;
    if (*fresh) {
        /* a quarter of its power of two more, in whole pages, so that its pages serve
         * the next block a little bigger too; pages never touched cost nothing */
        size_t step = ((size_t)1 << (63 - __builtin_clzll(*data))) / 4;
        if (step > page && *data <= SIZE_MAX - 3 * page - step)
            *data = (*data + step - 1) / step * step;
        char *base = mmap(NULL, *data + 2 * page, PROT_NONE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (base == MAP_FAILED)
            return NULL;
        pages = base + page;
        /* the pages the program gets count against overcommit as glibc's own mapping
         * would */
        if (mmap(pages, *data, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                 -1, 0) == MAP_FAILED) {
            munmap(base, *data + 2 * page);
            return NULL;
        }
    }
    place_glibc_mmapped_header(pages + head, pages, *data);
    *start = (uintptr_t)pages;
    return pages + head;
}

void place_tracked_unmap(void *p)
{
    size_t len, page = page_size();
    char *data = place_glibc_mmapped_span(p, &len);
    if (!cache_put((uintptr_t)data, len))
        munmap(data - page, len + 2 * page);
}

void place_tracked_postfork_child(void)
{
    cache_unlock(); /* a thread that held it did not follow */
}

/* Records tracked block p of size bytes asked, in its pages from start (len bytes), for
 * the site at ra. */
static bool record(void *p, size_t size, uintptr_t start, size_t len, uintptr_t ra)
{
    struct place_sample s = {
        .asked = size,
        .held = place_glibc_usable(p),
        .start = start,
        .len = len,
    };
    s.n = place_site_frames(ra, depth, s.frames);
    return place_profile_track(p, &s);
}

void *place_tracked_alloc(const struct place_request *r)
{
    uintptr_t start;
    size_t data;
    bool fresh;
    void *p = map(r->size, r->call == PLACE_ALIGNED ? r->align : 0, &start, &data, &fresh);
    if (!p) {
        place_access_untracked(r->size);
        return NULL;
    }
    if (!record(p, r->size, start, data, r->ra)) {
        place_tracked_unmap(p);
        place_access_untracked(r->size);
        return NULL;
    }
    place_access_ensure();
    if (!fresh && r->call == PLACE_CALLOC)
        memset(p, 0, r->size);
    return p;
}

bool place_tracked_keep(void *p, size_t size, uintptr_t ra)
{
    size_t len;
    char *data = place_glibc_mmapped_span(p, &len);
    return record(p, size, (uintptr_t)data, len, ra);
}
