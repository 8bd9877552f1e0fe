/* Start, fork and exit.
 *
 * Allocations that arrive before the constructor (from ld.so and the initialisers of
 * linked libraries) are served by glibc and counted straight into the shared counters,
 * since no thread can register yet; so what they allocate is counted when it is freed.
 * A thread registers on its first count after the constructor. */
#include <dlfcn.h>
#include <errno.h> /* program_invocation_short_name */
#include <link.h>
#include <pthread.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../config/options.h"
#include "../policy/base/lib.h"
#include "../policy/base/out.h"
#include "../policy/base/path.h"
#include "../policy/base/rank.h"
#include "../policy/engine/dry.h"
#include "../policy/engine/outside.h"
#include "../policy/engine/place.h"
#include "../policy/engine/sampler.h"
#include "../policy/engine/tracked.h"
#include "../policy/report/report.h"
#include "../policy/site/modules.h"
#include "../policy/site/shape.h"
#include "../policy/site/site.h"
#include "../policy/stats/access.h"
#include "../policy/stats/heaps.h"
#include "../policy/stats/site_reads.h"
#include "../policy/stats/symmetric.h"
#include "../policy/stats/threads.h"
#include "../policy/stats/timeline.h"
#include "../policy/tiers/arena.h"
#include "../policy/tiers/owner.h"
#include "../policy/tiers/pool.h"
#include "../policy/tiers/tier.h"
#include "fatal.h"
#include "../policy/engine/blocks.h"
#include "../policy/engine/shmem_path.h"
#include "../policy/tiers/shared.h"
#ifdef PLACE_HAVE_CUDA
#include "../policy/engine/cuda_path.h"
#include "../policy/tiers/mempools.h"
#endif

extern char **environ;

/* The locks a forked child must find consistent, in the order they are taken (released
 * in reverse): each module's lock before fork, released after it on both sides. The
 * guard is up from before the first to after the last: a signal handler, or a fork
 * handler another library registered before libplace's, may allocate meanwhile, and is
 * then served by glibc instead of waiting for a lock its own thread holds. One step per
 * lock rank (base/rank.h), laid out by them: a thread nests locks in the fork's order. */
static const struct {
    void (*before)(void), (*parent)(void), (*child)(void);
} fork_table[] = {
    /* first: an unwind under way may take the other locks, never the other way round */
    [PLACE_RANK_UNWIND] = {place_sites_prefork, place_sites_postfork_parent,
                           place_sites_postfork_child},
    [PLACE_RANK_MODULES] = {place_modules_prefork, place_modules_postfork, place_modules_postfork},
    [PLACE_RANK_DRY] = {place_dry_prefork, place_dry_postfork, place_dry_postfork},
    [PLACE_RANK_POOLS] = {place_pools_prefork, place_pools_postfork, place_pools_postfork},
    [PLACE_RANK_OWNER] = {place_owner_prefork, place_owner_postfork, place_owner_postfork},
    [PLACE_RANK_ARENAS] = {place_arenas_prefork, place_arenas_postfork_parent,
                           place_arenas_postfork_child},
    [PLACE_RANK_BLOCKS] = {place_blocks_prefork, place_blocks_postfork, place_blocks_postfork},
    [PLACE_RANK_PROFILE] = {place_profile_prefork, place_profile_postfork_parent,
                            place_profile_postfork_child},
    [PLACE_RANK_THREADS] = {place_threads_prefork, place_threads_postfork_parent,
                            place_threads_postfork_child},
    [PLACE_RANK_SYMMETRIC] = {place_symmetric_prefork, place_symmetric_postfork,
                              place_symmetric_postfork},
};
enum { FORK_STEPS = sizeof fork_table / sizeof fork_table[0] };
_Static_assert(FORK_STEPS == (int)PLACE_RANKS, "one fork step per lock rank");

/* Each step holds its rank, so a fork from a thread that holds a lock (a signal handler's,
 * which would wait for it forever) fails its check. */
static void prefork(void)
{
    place_self.before_fork = place_guard_enter();
    for (unsigned k = 0; k < FORK_STEPS; k++) {
        /* the count above holds whatever index the table names; each rank has its step */
        PLACE_ASSERT(fork_table[k].before && fork_table[k].parent && fork_table[k].child);
        place_rank_take(k);
        fork_table[k].before();
    }
}

/* A step's rank is dropped before its handler runs: the child's gives back the blocks
 * that other threads cached, taking locks of that rank anew. */
static void postfork_parent(void)
{
    for (unsigned k = FORK_STEPS; k-- > 0;) {
        place_rank_drop(k);
        fork_table[k].parent();
    }
    place_guard_leave(place_self.before_fork);
}

/* The child counts its own events from the fork, and writes a report of its own only if
 * the policy says so. */
static void postfork_child(void)
{
    /* first: the steps below give back other threads' cached blocks, which are the
     * parent's still, in a limit the node's processes share */
    place_shared_postfork_child();
    for (unsigned k = FORK_STEPS; k-- > 0;) {
        place_rank_drop(k);
        fork_table[k].child();
    }
    place_report_postfork_child();
    place_access_postfork_child();
    place_tracked_postfork_child();
    place_run_mark_start(getppid());
    place_tiers_restart();
    place_heaps_restart();
    place_timeline_restart();
    if (!place_config.report_children) {
        place_options.report = NULL;
        place_report_on_signal(0); /* the signal means again what it meant before */
    } else if (place_options.report_forked) {
        place_options.report = place_options.report_forked;
    }
    place_guard_leave(place_self.before_fork);
}

/* Whether a loaded object is AddressSanitizer's shared runtime (GCC's libasan, clang's
 * libclang_rt.asan). By name: a dlsym that finds nothing allocates glibc's error state,
 * which would move the program's own blocks. */
static int asan_object(struct dl_phdr_info *info, size_t size, void *found)
{
    (void)size;
    const char *name = strrchr(info->dlpi_name, '/');
    name = name ? name + 1 : info->dlpi_name;
    if (strncmp(name, "libasan.so", 10) == 0 || strncmp(name, "libclang_rt.asan", 16) == 0)
        *(bool *)found = true;
    return *(bool *)found;
}

/* Another allocator ahead of libplace (AddressSanitizer's runtime first in the process,
 * a malloc the program links) serves every call and libplace sees none; AddressSanitizer
 * behind libplace cannot see into the blocks libplace places. Either way the user should
 * know, once, at start. Nothing here allocates. */
static void check_allocator(void)
{
    bool asan = false;
    /* The object whose malloc the program gets, against libplace's own. A non-PIE
     * executable that takes malloc's address makes its PLT slot malloc's canonical
     * address, under an undefined symbol: no definition, and calls still reach libplace. */
    void *first = place_real_dlsym(RTLD_DEFAULT, "malloc");
    Dl_info theirs, ours;
    const ElfW(Sym) *sym = NULL;
    if (first && dladdr1(first, &theirs, (void **)&sym, RTLD_DL_SYMENT) && sym &&
        sym->st_shndx != SHN_UNDEF && dladdr((void *)check_allocator, &ours) &&
        theirs.dli_fbase != ours.dli_fbase)
        place_warn("malloc is %s's, ahead of libplace: it serves the program and libplace sees "
                   "no allocation (put libplace first in LD_PRELOAD, or run without the other)",
                   theirs.dli_fname ? theirs.dli_fname : "another library's");
    else if (dl_iterate_phdr(asan_object, &asan), asan)
        place_warn("AddressSanitizer runs behind libplace: it cannot see overflows in the blocks "
                   "libplace places; check memory without libplace, place without ASan");
}

/* ld.so runs this after the constructors of the shared libraries the program links and
 * before the executable's own. It needs nothing but libc. pthread_atfork allocates, hence
 * the guard. Without a report nothing is counted, so there is no thread registry to keep
 * and no fork handler to run: a program that asked for nothing pays for nothing, not
 * even the libc code pages those calls would fault in. */
__attribute__((constructor)) static void place_init(void)
{
    uint8_t was = place_guard_enter();
    place_run_mark_start(0);
    place_options_read(environ);
    if (place_options.check)
        _exit(place_config.errors ? 1 : 0);
    if (place_options.refuse)
        _exit(PLACE_REFUSED_STATUS);
    if (place_options.drop_report_pid)
        unsetenv("LIBPLACE_REPORT_PID"); /* no allocation: glibc moves the pointers down */
    bool reporting = place_options.report != NULL;
    /* a GPU's tier and a symmetric heap keep their limits on every call of theirs, with or
     * without rules */
    bool limits = false;
    for (unsigned k = 1; k < place_config.ntiers; k++)
        limits |= place_config.tiers[k].kind == PLACE_DEVICE ||
                  place_config.tiers[k].kind == PLACE_SYMMETRIC;
    bool placing = (place_config.nrules || limits) && !place_options.untouched;
    /* before the rules start: the modules' wrappers are part of every site */
    place_sampler_start(place_config.sample, place_config.report_depth, reporting);
    if (reporting || (placing && place_config.npatterns)) {
        /* a program's wrapper of these is one by its shape (site/shape.h) */
        const uintptr_t allocators[] = {(uintptr_t)malloc,        (uintptr_t)calloc,
                                        (uintptr_t)realloc,       (uintptr_t)reallocarray,
                                        (uintptr_t)memalign,      (uintptr_t)aligned_alloc,
                                        (uintptr_t)valloc,        (uintptr_t)pvalloc};
        place_shape_allocators(allocators, sizeof allocators / sizeof allocators[0]);
        place_modules_wrappers(place_config.wrappers);
    }
    place_tiers_init(placing ? &place_config : NULL);
    place_gates_set(reporting, placing && place_config.dry_run);
    if (placing)
        place_policy_start(&place_config, reporting);
    if (reporting && place_config.profile_access && placing && place_config.dry_run)
        place_access_refuse(place_config.profile_interval_ms, place_config.profile_min,
                            "a dry run's blocks are planned, not tracked");
    else if (reporting && place_config.profile_access)
        place_tracked_start(place_config.profile_min, place_config.profile_interval_ms,
                            place_config.report_depth);
    if (reporting) {
        place_keep_stderr();
        place_timeline_start();
        /* a report from a signal handler may only look modules up, not add them */
        if (place_config.report_signal || place_config.report_on_fatal)
            place_modules_start(&place_config);
        if (place_config.report_signal)
            place_report_on_signal(place_config.report_signal);
        if (place_config.report_on_fatal)
            place_fatal_start(place_config.report_signal);
    }
    if (reporting || placing) {
        check_allocator();
        pthread_atfork(prefork, postfork_parent, postfork_child);
    }
#ifdef PLACE_HAVE_CUDA
    place_modules_heaps(place_config.heaps);
    place_cuda_on = reporting || placing;
    place_mempools_trimming = placing;
#endif
    place_shmem_on = reporting || placing;
    place_threads_start(reporting, placing);
    place_guard_leave(was);
}

/* Whether this process placed anything: a rule took an allocation (to dram too), or a
 * tier of its own (a GPU's, the symmetric heap's) counted an event. */
static bool placed_anything(void)
{
    uint64_t hits[PLACE_MAX_RULES], bytes[PLACE_MAX_RULES];
    place_rules_totals(place_nrules, hits, bytes);
    for (unsigned k = 0; k < place_nrules; k++)
        if (hits[k])
            return true;
    struct place_placed_counts pending;
    place_threads_pending(&pending, true);
    for (unsigned k = 1; place_tiers[k]; k++) {
        struct place_snapshot s = place_threads_node(k, &pending, true);
        for (unsigned e = 0; e < PLACE_EVENTS; e++)
            if (s.events[e])
                return true;
    }
    return false;
}

/* ld.so runs this after the program's atexit handlers, C++ static destructors and the
 * executable's destructors, so their frees are counted; the destructors of linked
 * libraries initialised before libplace run after it, and what they free is not in the
 * report. stdio is flushed later still, and nothing here touches it. */
__attribute__((destructor)) static void place_fini(void)
{
    if (place_options.report && (!place_options.report_if_placed || placed_anything()))
        place_report_to(place_options.report);
    else if (place_options.report_missed && getpid() == place_options.report_pid)
        place_warn("no report in %s: process %d (LIBPLACE_REPORT_PID) ended as %s, a shell, "
                   "which writes none, and the programs it ran report beside that path only if "
                   "they placed anything; exec the program from the script, or put %%p in the "
                   "report path for every process's report",
                   place_options.report_missed, place_options.report_pid,
                   program_invocation_short_name);
    place_shared_end(); /* what it holds in limits the node's processes share */
}
