/* libplace.h: ask libplace about memory placement from inside a program.
 *
 * Header only, nothing to link: each call looks libplace up in the running process
 * (dlsym) and answers PLACE_NOT_LOADED when it is not there, so a program can ship with
 * these calls and run with or without LD_PRELOAD=libplace.so.
 *
 *     long long used = place_used("hbw");          // bytes in use in node hbw
 *     if (used == PLACE_NOT_LOADED) ...             // running without libplace
 *
 * Nodes are the policy's tiers by name ("dram" is always there). Byte counts are usable
 * sizes, as malloc_usable_size gives them. The default dram tier (glibc's heap) is
 * counted only while a report is asked for (LIBPLACE_REPORT); the policy's own tiers
 * always are. */
#ifndef LIBPLACE_H
#define LIBPLACE_H

#include <dlfcn.h>
#include <stddef.h>

#define PLACE_NOT_LOADED (-1LL) /* libplace is not in this process */
#define PLACE_NO_NODE (-2LL)    /* no node of that name */
#define PLACE_NO_ROOM (-3LL)    /* place_account: the node's limit has no room for it */
#define PLACE_TIMED_OUT (-4LL)  /* place_wait_available: no room came in time */

/* As a node name to place_used, place_peak, place_limit and place_available: every node
 * together (a limit of 0 there: some node has none; the peak is the sum of each node's, an
 * upper bound of theirs together). An OpenSHMEM symmetric heap ("symmetric") is left out:
 * it is address space, whose pages a bound block also counts in its hbw or numa node. */
#define PLACE_ALL_NODES "*"

/* place_account's flags: with none, a node without room answers PLACE_NO_ROOM. */
#define PLACE_ACCOUNT_WAIT 1     /* wait until frees in the node make room */
#define PLACE_ACCOUNT_OVERFLOW 2 /* count it past the limit (the report shows the excess) */

/* libplace's entry point, found by name; the one function behind the calls below. */
typedef long long (*place_api_fn)(int op, const char *node, const void *p, char *out, size_t cap);
enum {
    PLACE_OP_QUERY_USED,
    PLACE_OP_QUERY_LIMIT,
    PLACE_OP_QUERY_AVAILABLE,
    PLACE_OP_QUERY_PEAK,
    PLACE_OP_NODE_OF,
    PLACE_OP_REPORT,
    PLACE_OP_ACCOUNT,       /* cap: the bytes; p: the flags */
    PLACE_OP_UNACCOUNT,     /* cap: the bytes */
    PLACE_OP_WAIT_AVAILABLE /* cap: the bytes; p: the timeout in ms, negative for none */
};

/* Asks libplace, found on the first call: the address of place_api, or `absent`, kept in
 * one pointer read and written atomically (threads that look at once find the same). */
static inline long long place_ask_(int op, const char *node, const void *p, char *out, size_t cap)
{
    static char absent;
    static void *found;
    void *f = __atomic_load_n(&found, __ATOMIC_ACQUIRE);
    if (!f) {
        f = dlsym(RTLD_DEFAULT, "place_api");
        if (!f)
            f = &absent;
        __atomic_store_n(&found, f, __ATOMIC_RELEASE);
    }
    if (f == (void *)&absent)
        return PLACE_NOT_LOADED;
    return ((place_api_fn)(size_t)f)(op, node, p, out, cap);
}

/* Whether libplace is loaded and placing (a policy that failed to load with
 * on_error = passthrough answers 0). */
static inline int place_loaded(void)
{
    return place_ask_(PLACE_OP_QUERY_USED, "dram", NULL, NULL, 0) >= 0;
}

/* Bytes in use in node now. */
static inline long long place_used(const char *node)
{
    return place_ask_(PLACE_OP_QUERY_USED, node, NULL, NULL, 0);
}

/* The most bytes ever in use in node. */
static inline long long place_peak(const char *node)
{
    return place_ask_(PLACE_OP_QUERY_PEAK, node, NULL, NULL, 0);
}

/* node's limit in bytes; 0: none. */
static inline long long place_limit(const char *node)
{
    return place_ask_(PLACE_OP_QUERY_LIMIT, node, NULL, NULL, 0);
}

/* What node can still take under its limit (0 when full or past it; with scope = node,
 * what every process sharing the limit leaves), or, without a limit, the free memory the
 * machine reports for it. */
static inline long long place_available(const char *node)
{
    return place_ask_(PLACE_OP_QUERY_AVAILABLE, node, NULL, NULL, 0);
}

/* The name of the node holding block p (a pointer malloc and its family returned) into
 * out; returns its length, or PLACE_NOT_LOADED. A block no rule placed is "dram"'s. */
static inline long long place_node_of(const void *p, char *out, size_t cap)
{
    return place_ask_(PLACE_OP_NODE_OF, NULL, p, out, cap);
}

/* Writes the report now: to dest ("stderr" or a path template, as LIBPLACE_REPORT), or
 * NULL for the configured destination (a file gets .N appended, N counting these
 * reports, so it never meets the one at exit). 0, or PLACE_NOT_LOADED. Without
 * LIBPLACE_REPORT at start, only the policy's tiers were counted: rules' hits and call
 * sites are counted, like the dram tier, only while a report is asked for. */
static inline int place_report_now(const char *dest)
{
    return (int)place_ask_(PLACE_OP_REPORT, dest, NULL, NULL, 0);
}

/* Counts bytes of memory the program obtained another way (its own mmap, a library's
 * pool) against node, as if allocated there: its limit, the report and the queries see
 * them. 0; PLACE_NO_ROOM when the limit has no room (flags: PLACE_ACCOUNT_WAIT waits for
 * room, as long as it takes, unless the request is larger than the limit or the process
 * has one thread, which answers at once; PLACE_ACCOUNT_OVERFLOW counts it anyway);
 * PLACE_NO_NODE; PLACE_NOT_LOADED. */
static inline int place_account(const char *node, size_t bytes, int flags)
{
    return (int)place_ask_(PLACE_OP_ACCOUNT, node, (const void *)(size_t)flags, NULL, bytes);
}

/* Gives back bytes that place_account counted in node. 0, PLACE_NO_NODE or
 * PLACE_NOT_LOADED. */
static inline int place_unaccount(const char *node, size_t bytes)
{
    return (int)place_ask_(PLACE_OP_UNACCOUNT, node, NULL, NULL, bytes);
}

/* Waits until node has bytes available under its limit, at most timeout_ms (negative:
 * no end). 0; PLACE_TIMED_OUT; PLACE_NO_ROOM when bytes is more than the limit itself;
 * a node without a limit answers 0 at once. PLACE_NO_NODE or PLACE_NOT_LOADED. */
static inline int place_wait_available(const char *node, size_t bytes, long timeout_ms)
{
    return (int)place_ask_(PLACE_OP_WAIT_AVAILABLE, node, (const void *)(ptrdiff_t)timeout_ms,
                           NULL, bytes);
}

#endif
