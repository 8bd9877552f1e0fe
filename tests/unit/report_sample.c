/* The report of a made-up snapshot, on stdout: `report_sample text|json full|exit|plain`.
 *
 * A real run on one machine reaches only some of the report's lines (no HBM, no
 * verified pages from a signal, no symmetric heap without SHMEM): these three snapshots
 * reach every line and key, so tests/bats/report_layout.bats can hold place-report's
 * reading of the JSON to the text libplace writes for the same figures. "full" is a
 * forked, folded dry run ended by a signal, with every table; "exit" a report at exit
 * under inline rules, every allocation profiled; "plain" a report asked for by the
 * report signal, without rules, sites or sampling. */
#include <signal.h>
#include <string.h>

#include "../../policy/report/walk.h"
#include "../../policy/tiers/binding.h"
#include "../../policy/tiers/shared.h"

static struct place_gathered g;
static struct place_timeline line = {
    .n = 2,
    .ms = {5, 1250},
    .bytes = {{4096, 0, 1 << 20}, {8192, 2 << 20, 3 << 20}},
    .lo = {{0, 0, 0}, {4096, 1 << 20, 2 << 20}},
    .hi = {{4096, 0, 1 << 20}, {8192, 2 << 20, 3 << 20}},
};

static void events(struct place_node_row *n, uint64_t allocs, uint64_t frees)
{
    n->s.events[PLACE_EV_ALLOCS] = allocs;
    n->s.events[PLACE_EV_FREES] = frees;
}

static void common(void)
{
    g.pid = 4242;
    g.program = "solver";
    strcpy(g.host, "node\"017");
    strcpy(g.start, "20261121T054300Z");
    g.ms = 42720;
    g.threads = 9;
    g.running = 1;
    g.hash = 0x3f1c9a0b7e2d4c51;
    g.timeline = &line;
    g.ntiers = 1;
    g.nodes[0] = (struct place_node_row){
        .name = "dram", .kind = "dram", .s = {.bytes = 312 << 10, .peak = 1 << 30}};
    events(&g.nodes[0], 1205308, 1204900);
}

static void full(void)
{
    g.forked_from = 4100;
    g.signal = SIGTERM;
    g.fatal = true;
    g.rank = "3";
    g.file = "/home/ana/hbw.ini";
    g.inline_rules = true;
    g.dry_run = true;
    g.fold_min = 1 << 20;
    g.sample = 512 << 10;
    g.lost = 7;

    g.ntiers = 4;
    struct place_node_row *hbw = &g.nodes[1], *far = &g.nodes[2], *heap = &g.nodes[3];
    g.nodes[0].machine = true, g.nodes[0].total = 64ULL << 30, g.nodes[0].free = 50ULL << 30;
    g.nodes[0].checked = true; /* nothing resident */
    /* near = cpu over HBW nodes 2 and 3, the CPUs of node 0 nearest node 2's, node 1's
     * nearest node 3's; the limit shared by the node's processes */
    static struct place_near near = {.nparts = 2, .node = {2, 3}};
    memset(near.of_node, UINT8_MAX, sizeof near.of_node);
    near.of_node[0] = 0, near.of_node[1] = 1;
    *hbw = (struct place_node_row){
        .name = "hbw",
        .near = &near,
        .shared = true,
        .node = {.name = "/libplace-1000-hbw",
                 .in_use = 60 << 20,
                 .peak = 64 << 20,
                 .processes = 3},
        .kind = "hbw",
        .limit = 64 << 20,
        .reclaim_min = 10,
        .reclaim_target = 20,
        .s = {.bytes = 55 << 20, .peak = 70 << 20},
        .cached = 3 << 20,
        .overflow_peak = 6 << 20,
        .checked = true,
        .verified = {.resident = 4096,
                     .looked = 1024,
                     .placed = 900,
                     .untouched = 24,
                     .by_node = {[0] = 100, [1] = 900}},
        .nheaps = 2,
        .heaps = {{.blocks = 1, .bytes = 4 << 20, .peak = 6 << 20, .owner = "libsymheap.so"},
                  {.blocks = 3, .bytes = 1 << 20, .peak = 2 << 20, .owner = PLACE_HEAP_OTHERS}},
    };
    events(hbw, 414, 403);
    uint64_t *e = hbw->s.events;
    e[PLACE_EV_REFUSED] = 37, e[PLACE_EV_FALLBACKS_OUT] = 37, e[PLACE_EV_WAITS] = 2;
    e[PLACE_EV_WAIT_NS] = 1234567890, e[PLACE_EV_OVERFLOW] = 5, e[PLACE_EV_FAILURES] = 1;
    e[PLACE_EV_RECLAIMED] = 8 << 20;
    *far = (struct place_node_row){
        .name = "far",
        .kind = "numa",
        .unavailable = "no such node",
        .planned = true,
        .checked = true,
        .verified = {.resident = 1, .looked = 1, .placed = 1, .by_node = {[2] = 1}, .all = true},
    };
    far->s.events[PLACE_EV_FALLBACKS_IN] = 37;
    /* a line longer than place_line's 1 KiB, cut there */
    static char reason[1200] = "no SHMEM library, and then some";
    memset(reason + strlen(reason), '.', sizeof reason - 1 - strlen(reason));
    *heap = (struct place_node_row){
        .name = "heap",
        .kind = "symmetric",
        .unavailable = reason,
        .s = {.bytes = 2 << 20, .peak = 5 << 20},
    };
    heap->s.events[PLACE_EV_SKIPPED] = 1;
    g.heap = heap;
    g.symmetric = true;
    g.shmem = (struct place_symmetric_stats){
        .calls = 5,
        .digest = 0x3a7c0e19b54d82f6,
        .refused = 1,
        .unbindable = 1,
        .blocks = {[1] = 2, [2] = 1},
        .bytes = {[1] = 2 << 20, [2] = 4096},
        .binds = {[1] = 3, [2] = 1},
    };

    /* site patterns: "big" names two, one of which names no code; "halo" an exact one in
     * no module loaded, so it cannot match */
    static const struct place_pattern patterns[] = {
        {.function = "solve_*"},
        {.module = "libfoo.so", .function = "fo?_init"},
        {.module = "app", .exact = true, .offset = 0x12ab},
    };
    g.patterns = patterns;
    g.nrules = 3;
    g.rules[0] = (struct place_rule_row){.name = "big",
                                         .hits = 450,
                                         .bytes = 1200 << 20,
                                         .nchain = 2,
                                         .chain = {"hbw", "dram"},
                                         .sites = 3,
                                         .unresolved = 2};
    g.rules[1] = (struct place_rule_row){.name = "halo",
                                         .hits = 1,
                                         .bytes = 100,
                                         .nchain = 1,
                                         .chain = {"far"},
                                         .on_full = PLACE_WAIT,
                                         .sites = 4,
                                         .unresolved = 4};
    g.rules[2] = (struct place_rule_row){
        .name = "sym", .nchain = 1, .chain = {"heap"}, .on_full = PLACE_OVERFLOW};

    g.nsites = 3;
    g.total_sites = 24;
    struct place_site_row *s = g.sites;
    s[0] = (struct place_site_row){.ra = 0x401000,
                                   .rule = "big",
                                   .allocs = 300,
                                   .bytes = 900 << 20,
                                   .fallbacks = 24,
                                   .tier_allocs = {24, 276},
                                   .tier_bytes = {72 << 20, 828 << 20},
                                   .where = {.site = "solver+0x1000",
                                             .symbol = "solver!assemble+0x5e",
                                             .path = "/opt/solver",
                                             .offset = 0x1000}};
    s[1] = (struct place_site_row){.ra = 0x7f0000002000,
                                   .allocs = 2,
                                   .bytes = 0,
                                   .tier_allocs = {2},
                                   .where = {.site = "0x7f0000002000", .offset = 0x7f0000002000}};
    s[2] = (struct place_site_row){
        .allocs = 4, .bytes = 8 << 20, .tier_allocs = {3, 1}, .tier_bytes = {6 << 20, 2 << 20}};

    g.nprofile = 3;
    g.total_profile = 40;
    struct place_profile_site *p = g.profile;
    p[0].r = (struct place_profile_row){.frames = {0x401000, 0x402000},
                                        .n = 2,
                                        .samples = 90,
                                        .calls = 300,
                                        .bytes = 900 << 20,
                                        .live = 10 << 20,
                                        .peak = 20 << 20,
                                        .mean = 3 << 20,
                                        .tier_bytes = {72 << 20, 828 << 20}};
    strcpy(p[0].frames[0].site, "solver+0x1000");
    strcpy(p[0].frames[0].symbol, "solver!assemble+0x5e");
    strcpy(p[0].frames[1].site, "solver+0x2000");
    p[1].r = (struct place_profile_row){.frames = {0x500000},
                                        .n = 1,
                                        .samples = 1,
                                        .calls = 1,
                                        .bytes = 4096,
                                        .live = 4096,
                                        .peak = 4096,
                                        .mean = 4096,
                                        .tier_bytes = {4096}};
    strcpy(p[1].frames[0].site, "libc.so.6+0x500");
    p[2].r = (struct place_profile_row){.samples = 3, .calls = 9, .bytes = 9000, .mean = 1000};
}

static void exit_(void)
{
    g.inline_rules = true;
    g.nrules = 1;
    g.rules[0] = (struct place_rule_row){.name = "all",
                                         .hits = 2,
                                         .bytes = 3 << 10,
                                         .nchain = 1,
                                         .chain = {"dram"},
                                         .on_full = PLACE_FAIL};
    g.nsites = 1;
    g.total_sites = 1;
    g.sites[0] = (struct place_site_row){
        .ra = 0x401000,
        .rule = "all",
        .allocs = 2,
        .bytes = 3 << 10,
        .tier_allocs = {2},
        .tier_bytes = {3 << 10},
        .where = {.site = "a.out+0x1000", .path = "/a.out", .offset = 0x1000}};
    g.nprofile = 1;
    g.total_profile = 1;
    g.profile[0].r = (struct place_profile_row){.frames = {0x401000},
                                                .n = 1,
                                                .samples = 2,
                                                .calls = 2,
                                                .bytes = 3 << 10,
                                                .peak = 3 << 10,
                                                .mean = 1536,
                                                .tier_bytes = {3 << 10}};
    strcpy(g.profile[0].frames[0].site, "a.out+0x1000");
}

static void plain(void)
{
    g.signal = SIGUSR1;
    g.inline_rules = true; /* with no rules: not said */
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    common();
    if (strcmp(argv[2], "full") == 0)
        full();
    else if (strcmp(argv[2], "exit") == 0)
        exit_();
    else if (strcmp(argv[2], "plain") == 0)
        plain();
    else
        return 2;
    if (strcmp(argv[1], "json") == 0)
        place_report_walk(1, PLACE_REPORT_JSON, &g);
    else if (strcmp(argv[1], "text") == 0)
        place_report_walk(1, PLACE_REPORT_TEXT, &g);
    else
        return 2;
    return 0;
}
