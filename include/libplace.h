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

/* libplace's entry point, found by name; the one function behind the calls below. */
typedef long long (*place_api_fn)(int op, const char *node, const void *p, char *out, size_t cap);
enum {
    PLACE_OP_QUERY_USED,
    PLACE_OP_QUERY_LIMIT,
    PLACE_OP_QUERY_AVAILABLE,
    PLACE_OP_QUERY_PEAK,
    PLACE_OP_NODE_OF,
    PLACE_OP_REPORT
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

/* What node can still take under its limit (0 when full or past it), or, without a limit,
 * the free memory the machine reports for it. */
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
 * reports, so it never meets the one at exit). 0, or PLACE_NOT_LOADED. */
static inline int place_report_now(const char *dest)
{
    return (int)place_ask_(PLACE_OP_REPORT, dest, NULL, NULL, 0);
}

#endif
