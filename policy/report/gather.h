/* What a report says, gathered once into one snapshot: the counters (through the stats
 * layer's snapshots), the tiers' state, the rules, the top sites already symbolized, the
 * timeline. One walk of it (report/walk.c) writes the text or the JSON form, so both
 * always agree and neither reads another module. */
#ifndef PLACE_GATHER_H
#define PLACE_GATHER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../../config/policy.h"
#include "../site/modules.h"
#include "../stats/counters.h"
#include "../stats/heaps.h"
#include "../stats/access.h"
#include "../stats/profile.h"
#include "../stats/symmetric.h"
#include "../stats/timeline.h"
#include "../tiers/shared.h"
#include "../tiers/tier.h"

struct place_near;
struct place_node_row {
    const char *name, *kind;
    const char *unavailable; /* NULL, or why this machine lacks it */
    bool planned;            /* a dry run planned for it although this machine lacks it */
    uint64_t limit;
    unsigned reclaim_min, reclaim_target; /* percent; 0: no watermarks */
    struct place_snapshot s; /* bytes: in use by the program, thread caches apart */
    int64_t cached;          /* bytes threads' caches hold (counted against the limit) */
    uint64_t overflow_peak; /* the most bytes ever in use past the limit */
    bool machine; /* total and free are known */
    uint64_t total, free;
    bool checked; /* verified holds the kernel's word on where the tier's pages are */
    struct place_verified verified;
    unsigned nheaps; /* libraries that made some of its blocks as heaps of their own */
    struct place_heap_stats heaps[PLACE_HEAP_OWNERS];
    const uint8_t *weights; /* weighted interleave: each node's share, or NULL */
    const struct place_near *near; /* near = cpu: each CPU node's HBW node, or NULL */
    bool bandwidth;         /* ... taken from the firmware's read bandwidths */
    bool shared; /* scope = node: the limit the machine's processes share, as it stands */
    struct place_shared_view node;
};

struct place_rule_row {
    const char *name;
    uint64_t hits, bytes;
    unsigned nchain;
    const char *chain[PLACE_MAX_CHAIN];
    enum place_on_full on_full;
    uint64_t sites;      /* its site patterns, a mask over g->patterns (0: no site condition) */
    uint64_t unresolved; /* those that named no code in any module loaded */
};

/* One call site (return address) of one rule, with where its blocks went. */
struct place_site_row {
    uintptr_t ra; /* 0: the sites that did not fit the table */
    const char *rule; /* NULL: none */
    uint64_t allocs, bytes, fallbacks;
    uint64_t tier_allocs[PLACE_MAX_TIERS], tier_bytes[PLACE_MAX_TIERS];
    struct place_where where; /* symbolized by gather */
};

/* One site of the profile: estimates (stats/profile.h) and its frames, symbolized. */
enum { PLACE_MAX_PROFILE = 100, PLACE_MAX_HOT = 32 };
struct place_frame {
    char site[128];   /* "module+0xOFF" */
    char symbol[256]; /* "module!function+0xOFF", "" when no symbol covers it */
};
struct place_profile_site {
    struct place_profile_row r;
    struct place_frame frames[PLACE_MAX_DEPTH];
};

struct place_gathered {
    /* the process */
    pid_t pid, forked_from;
    const char *program;
    char host[256], start[32];
    const char *rank; /* NULL outside MPI */
    uint64_t ms;      /* since start */
    uint64_t threads;
    unsigned running;
    int signal; /* the signal in whose handler it is written, 0 at exit */
    bool fatal; /* that signal ends the program */
    /* the policy */
    const char *file; /* NULL: none */
    bool inline_rules, dry_run;
    uint64_t fold_min; /* a folded dry run's (engine/fold.h); 0: none */
    unsigned nrules;
    uint64_t hash;
    struct place_rule_row rules[PLACE_MAX_RULES];
    const struct place_pattern *patterns; /* the policy's, which the rows' masks index */
    /* the nodes */
    unsigned ntiers;
    struct place_node_row nodes[PLACE_MAX_TIERS];
    const struct place_timeline *timeline;
    /* the sites */
    unsigned nsites, total_sites;
    struct place_site_row sites[PLACE_MAX_SITES];
    /* the profile: every allocation's site, sampled */
    uint64_t sample, lost; /* the mean interval (0: every allocation); samples not kept */
    unsigned nprofile, total_profile;
    struct place_profile_site profile[PLACE_MAX_PROFILE];
    /* the access profile (stats/access.h): its sampler, and the sites hottest per byte */
    struct place_access_state access;
    struct place_profile_tracking tracking;
    unsigned nhot;
    struct place_profile_site hot[PLACE_MAX_HOT];
    /* the symmetric heap, when a SHMEM call was seen: its decisions and its node */
    bool symmetric;
    struct place_symmetric_stats shmem;
    const struct place_node_row *heap;
};

/* Fills g (a static one: it is large) from everything as it stands. signal: the signal
 * whose handler asks (then nothing waits for a lock), 0 otherwise. */
void place_gather(struct place_gathered *g, int signal);

#endif
