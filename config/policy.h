/* The policy: tiers, rules and the [libplace] settings, as the policy file, LIBPLACE_RULES
 * and the LIBPLACE_* environment give them (the grammar is docs/libplace.policy.5).
 *
 * Everything lives in fixed arrays inside struct place_policy: it is built in the
 * constructor, before the program runs, and read on every placed allocation, so it must
 * not depend on the allocator it configures, and nothing in it is ever freed. */
#ifndef PLACE_POLICY_H
#define PLACE_POLICY_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

enum {
    PLACE_MAX_TIERS = 16,
    PLACE_MAX_RULES = 64,
    PLACE_MAX_CHAIN = 8,
    PLACE_MAX_PATTERNS = 63, /* over all rules: a frame's matches are one 64-bit mask, whose
                                top bit says "an allocation wrapper" (PLACE_WRAPPER) */
    PLACE_MAX_DEPTH = 16,
    PLACE_DEFAULT_DEPTH = 4,
    PLACE_NAME_MAX = 32, /* tier and rule names, with the NUL */
    PLACE_PATTERN_MAX = 256,
    PLACE_MAX_SITES = 1000,
    PLACE_DEFAULT_SITES = 10,
    PLACE_DEFAULT_SAMPLE = 512 * 1024,
    PLACE_DEFAULT_REPORT_DEPTH = 4,
    PLACE_DEFAULT_FOLD_MIN = 1 << 20,
    PLACE_DEFAULT_PROFILE_MIN = 1 << 20,
    PLACE_DEFAULT_PROFILE_INTERVAL_MS = 100,
    PLACE_DEFAULT_WAIT_MS = 1000,
};

/* symmetric: an OpenSHMEM symmetric heap, which the SHMEM library allocates; libplace
 * counts its blocks and may bind their pages, never allocates in it. */
enum place_kind {
    PLACE_DRAM,
    PLACE_HBW,
    PLACE_NUMA,
    PLACE_PINNED,
    PLACE_MANAGED,
    PLACE_DEVICE,
    PLACE_SYMMETRIC
};
/* The bounds that masks and checks of every kind or api are built from. */
enum { PLACE_KIND_LAST = PLACE_SYMMETRIC };

/* The kinds whose tiers an api = shmem rule's chain may name (a mask by kind): a
 * symmetric block's pages bound to nodes, or left in their own heap. */
enum { PLACE_SHMEM_KINDS = 1u << PLACE_HBW | 1u << PLACE_NUMA | 1u << PLACE_SYMMETRIC };

enum place_mempolicy {
    PLACE_MPOL_DEFAULT, /* the kind's own default: preferred for hbw, bind for numa */
    PLACE_MPOL_BIND,
    PLACE_MPOL_BIND_ALL,
    PLACE_MPOL_PREFERRED,
    PLACE_MPOL_INTERLEAVE,
    PLACE_MPOL_WEIGHTED, /* interleave in the ratio of `weights` */
};

enum place_pagesize { PLACE_PAGE_4K, PLACE_PAGE_2M, PLACE_PAGE_THP };

/* Which of its nodes an hbw or numa tier's blocks go to: hbw's nearest the CPU of the
 * thread that first places one (hbwmalloc's meaning; numa: all of them, by the policy),
 * or, block by block, the node nearest the CPU of the thread that allocates it (sub-NUMA
 * modes). */
enum place_nearest { PLACE_NEAR_FIRST, PLACE_NEAR_CPU };

/* Whose a tier's limit is: this process's, or every process's of the machine (of this
 * user, in this job) that declares a tier of that name with scope = node. */
enum place_scope { PLACE_SCOPE_PROCESS, PLACE_SCOPE_NODE };

/* any is the malloc family and CUDA; shmem rules are always named as such, since they
 * bind the pages of a block the SHMEM library placed rather than choose its memory. */
enum place_api { PLACE_API_MALLOC = 1, PLACE_API_CUDA = 2, PLACE_API_ANY = 3, PLACE_API_SHMEM = 4 };
enum { PLACE_API_LAST = PLACE_API_SHMEM };

enum place_on_full { PLACE_FALLBACK, PLACE_WAIT, PLACE_OVERFLOW, PLACE_FAIL };

enum place_on_error { PLACE_ON_ERROR_ABORT, PLACE_ON_ERROR_PASSTHROUGH };

/* Where a value came from, for messages: "hbw.ini:7", "LIBPLACE_LIMIT_HBW",
 * "LIBPLACE_RULES rule 2". */
struct place_origin {
    const char *source;
    int line;     /* 0: the source is the whole story */
    bool in_rule; /* line counts inline rules, not lines */
};

/* Where a setting came from, as messages name it: FILE:LINE, VARIABLE rule N, or the
 * variable with its value. */
struct place_buf;
void place_origin_print(struct place_buf *b, const struct place_origin *at);

struct place_tier_config {
    char name[PLACE_NAME_MAX];
    enum place_kind kind;
    bool declared;  /* by a [tier] section; otherwise implied by a chain */
    uint64_t limit; /* bytes; 0: none */
    enum place_mempolicy policy;
    enum place_pagesize pagesize;
    uint64_t nodes; /* NUMA node mask */
    int device; /* device tiers: the GPU's index */
    uint64_t chunk_initial, chunk_max;
    unsigned chunk_growth;
    int location;                         /* managed: -2 the driver decides, -1 host, N device N */
    unsigned reclaim_min, reclaim_target; /* watermarks, percent of limit as free room */
    enum place_scope scope;
    enum place_nearest near;
    uint8_t weights[64];    /* policy = weighted_interleave: each node's share, 0: none */
    bool weights_bandwidth; /* weights = bandwidth: the firmware's read bandwidths instead */
    struct place_origin at;
    uint32_t given;                 /* bit k: key k of the tier table was set */
    uint32_t seen;                  /* bit k: key k was written, maybe wrongly */
    struct place_origin key_at[16]; /* where each given key was set */
};

/* A site pattern: [MODULE_GLOB:]FUNCTION_GLOB, or MODULE+0xOFFSET (exact). */
struct place_pattern {
    char module[PLACE_PATTERN_MAX]; /* "" matches every module */
    char function[PLACE_PATTERN_MAX];
    bool exact;
    uint64_t offset;
};

struct place_rule_config {
    char name[PLACE_NAME_MAX];
    unsigned api;
    uint64_t min, max;
    unsigned depth;
    uint8_t chain[PLACE_MAX_CHAIN]; /* tier indexes, resolved by place_policy_finish */
    unsigned nchain;
    enum place_on_full on_full;
    unsigned wait_ms;  /* on_full = wait: how long at most */
    uint64_t patterns; /* mask over place_policy.patterns; 0: no site condition */
    char chain_text[PLACE_MAX_CHAIN][PLACE_NAME_MAX];
    struct place_origin at, to_at;
    uint32_t given, seen;
};

/* The words every process writes come first (the counts, the settings), then the strings
 * and tables, so that a policy of a few rules writes a few pages of these 73 KiB (they
 * lie in zeroed memory: base/large.h). */
struct place_policy {
    unsigned ntiers, nrules, npatterns;
    unsigned errors;
    uint64_t hash; /* FNV-1a of the policy text and the inline rules */
    /* where errors go: the shim prints them, the tests collect them */
    void (*error)(void *ctx, const char *line);
    void *error_ctx;
    /* [libplace] */
    enum place_report_format { PLACE_REPORT_TEXT, PLACE_REPORT_JSON } report_format;
    int report_signal;    /* 0: none */
    bool report_children; /* forked children write reports of their own */
    bool report_on_fatal; /* a signal that ends the program writes the report first */
    enum place_verify { PLACE_VERIFY_SAMPLE, PLACE_VERIFY_ALL, PLACE_VERIFY_OFF } verify;
    enum place_on_error on_error;
    bool dry_run;
    bool fold;         /* dry_run = fold: planned blocks of fold_min bytes or more share one
                        * buffer (place_policy_fold_min) */
    uint64_t fold_min; /* at least a page */
    unsigned sites;
    uint64_t sample;       /* mean bytes between the profile's samples; 0: every allocation */
    unsigned report_depth; /* frames kept per site of the profile */
    bool profile_access;   /* profile = access: blocks of profile_min bytes or more tracked
                            * for how often they are touched (stats/access.h) */
    uint64_t profile_min;  /* at least a page */
    unsigned profile_interval_ms;
    char file[PATH_MAX];   /* the policy file, "" when there is none */
    char report[PATH_MAX]; /* "" none, "stderr", or a path template */
    char report_only[256]; /* "": every process but launchers; else globs of process names, ", " */
    char wrappers[256];    /* globs of the program's own allocation wrappers, ", " */
    char heaps[256];       /* globs of libraries (file or function names) that keep a GPU
                            * heap of their own, besides NVSHMEM, ", " */
    /* index 0 is always dram */
    struct place_tier_config tiers[PLACE_MAX_TIERS];
    struct place_rule_config rules[PLACE_MAX_RULES];
    struct place_pattern patterns[PLACE_MAX_PATTERNS];
};

/* Empty policy: dram only, no rules, defaults; errors go to fn(ctx, line). */
void place_policy_init(struct place_policy *p, void (*fn)(void *ctx, const char *line), void *ctx);

/* Adds the sections of an INI text (source names it in messages) or of a file. */
void place_policy_parse_text(struct place_policy *p, const char *source, const char *text);
void place_policy_parse_file(struct place_policy *p, const char *path);
/* A whole policy held by the variable `name` (LIBPLACE_INLINE_POLICY: placerun -p -). */
void place_policy_parse_variable(struct place_policy *p, const char *name, const char *text);

/* Adds LIBPLACE_RULES-style rules: "key=value key=value; key=value ...". */
void place_policy_parse_inline(struct place_policy *p, const char *source, const char *text);

/* Sets one key as if `key = value` stood in [libplace] (section "libplace") or in the
 * section of the tier named `section`. Used for the environment's overrides. */
void place_policy_set(struct place_policy *p, const struct place_origin *at, const char *section,
                      const char *key, const char *value);

/* The tier named name; when there is none and name is a kind a chain may name without
 * declaring it (hbw, pinned, managed), a tier of that kind is added if implied is true. */
struct place_tier_config *place_policy_tier(struct place_policy *p, const char *name, bool implied);

/* Whether name is a kind a chain may name without declaring it: hbw, pinned, managed,
 * symmetric, deviceN (GPU N's memory). */
bool place_policy_implied(const char *name);

/* The kind a tier of this name has without a kind key: a kind's own name, or device for
 * deviceN. False for any other name. */
bool place_policy_kind_of(const char *name, enum place_kind *kind);

/* Resolves chains, adds implied tiers and checks what needs the whole policy (a kind's
 * required keys, keys that do not fit the kind). Call once, after everything is added. */
void place_policy_finish(struct place_policy *p);

/* One error, as "ORIGIN: TEXT", counted in p->errors. */
void place_policy_error(struct place_policy *p, const struct place_origin *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The name of a kind, a memory policy, an api, an on_full. */
const char *place_kind_name(enum place_kind k);
const char *place_on_full_name(enum place_on_full f);

/* The size from which a dry run folds its planned blocks; 0 when it does not fold. */
static inline uint64_t place_policy_fold_min(const struct place_policy *p)
{
    return p->dry_run && p->fold ? p->fold_min : 0;
}

#endif
