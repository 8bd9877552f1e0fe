#include "outside.h"

#include "../base/glibc.h"
#include "../stats/threads.h"
#include "sampler.h"
#include "whose.h"

/* The caller of the exported function that tail-called the entry. */
#define CALLER ((uintptr_t)__builtin_return_address(0))

/* What count() did with a call. */
enum { COUNTED, DUE, ASIDE };

/* Counts an allocation of size bytes in the thread's TLS and off its sample interval:
 * COUNTED, or DUE when it is to be sampled; ASIDE, untouched, when the thread is not
 * ACTIVE (not registered yet, inside libplace, or counting into the shared counters).
 * Counted before glibc answers, so an allocation glibc fails counts. */
static inline int count(size_t size)
{
    if (__builtin_expect(place_self.state != PLACE_THREAD_ACTIVE, 0))
        return ASIDE;
    place_own_add(&place_self.allocs, 1);
    return __builtin_expect(place_sample_due(size), 0) ? DUE : COUNTED;
}

/* The rest of a call count() did not finish: its sample, or the whole count. */
static void *finish(void *p, size_t size, int k, uintptr_t ra)
{
    if (k == DUE)
        place_sample(p, size, 0, ra);
    else
        place_count_glibc(p, size, ra);
    return p;
}

__attribute__((noinline)) static void *malloc_rest(size_t size, int k, uintptr_t ra)
{
    return finish(place_libc_malloc(size), size, k, ra);
}

__attribute__((noinline)) static void *calloc_rest(size_t nmemb, size_t size, int k, uintptr_t ra)
{
    return finish(place_libc_calloc(nmemb, size), nmemb * size, k, ra);
}

/* Also a dry run's free, whole. */
__attribute__((noinline)) static void free_unowned(void *p)
{
    place_free_unowned(p);
}

static void *count_malloc(size_t size)
{
    int k = count(size);
    if (__builtin_expect(k == COUNTED, 1))
        return place_libc_malloc(size);
    return malloc_rest(size, k, CALLER);
}

static void *count_calloc(size_t nmemb, size_t size)
{
    int k = count(nmemb * size);
    if (__builtin_expect(k == COUNTED, 1))
        return place_libc_calloc(nmemb, size);
    return calloc_rest(nmemb, size, k, CALLER);
}

/* free(NULL) is in no range: the filter names NULL (stats/profile.h), so it takes the
 * out-of-line path, which counts no free. */
static void count_free(void *p)
{
    if (__builtin_expect(place_count_free(p), 1)) {
        place_libc_free(p);
        return;
    }
    free_unowned(p);
}

void *place_memalign_counted(size_t align, size_t size, uintptr_t ra)
{
    int k = count(size);
    void *p = place_libc_memalign(align, size);
    return k == COUNTED ? p : finish(p, size, k, ra);
}

static const struct place_outside counted = {count_malloc, count_calloc, count_free};

struct place_outside place_outside = {count_malloc, count_calloc, count_free};

/* Each entry is one word, stored whole: a thread between two of them reaches glibc
 * counted or not, either right. */
void place_gates_set(bool counting, bool dry_run)
{
    place_glibc_find();
    const struct place_outside glibc = {place_libc_malloc, place_libc_calloc, place_libc_free};
    const struct place_outside *o = counting ? &counted : &glibc;
    __atomic_store_n(&place_outside.malloc, o->malloc, __ATOMIC_RELAXED);
    __atomic_store_n(&place_outside.calloc, o->calloc, __ATOMIC_RELAXED);
    __atomic_store_n(&place_outside.free, dry_run ? free_unowned : o->free, __ATOMIC_RELAXED);
}
