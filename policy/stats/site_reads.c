#include "site_reads.h"

#include <string.h>

#include "../base/top.h"
#include "threads.h"

/* Entry j as it stands, with what live slots still hold for it. */
static struct place_site_count read_entry(unsigned j)
{
    struct place_site_count c = place_sites_entry(j);
    if (c.key)
        place_threads_site(c.key, &c.allocs, &c.bytes);
    return c;
}

unsigned place_sites_top(struct place_site_count *out, unsigned n, unsigned *total)
{
    enum { SITES = PLACE_SITE_SLOTS - 1 };
    unsigned got = 0;
    *total = 0;
    struct place_site_count other = {.rule = -1, .tier = -1};
    for (unsigned j = 0; j < PLACE_SITE_ENTRIES; j++) {
        struct place_site_count c = read_entry(j);
        if (j >= SITES) { /* the "other sites" entries make one row */
            other.allocs += c.allocs;
            other.bytes += c.bytes;
            if (j < PLACE_SITE_ENTRIES - 1 || !other.allocs)
                continue;
            c = other;
        }
        if (!c.allocs)
            continue;
        ++*total;
        PLACE_TOP_INSERT(out, n, &got, c, bytes);
    }
    return got;
}

void place_rules_totals(unsigned n, uint64_t *hits, uint64_t *bytes)
{
    memset(hits, 0, n * sizeof *hits);
    memset(bytes, 0, n * sizeof *bytes);
    for (unsigned j = 0; j < PLACE_SITE_ENTRIES; j++) {
        struct place_site_count c = read_entry(j);
        if (c.allocs && c.rule >= 0 && (unsigned)c.rule < n) {
            hits[c.rule] += c.allocs;
            bytes[c.rule] += c.bytes;
        }
    }
}
