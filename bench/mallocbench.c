/* malloc/free microbenchmark: prints the mean cost of one malloc/free pair.
 *
 *   mallocbench mixed|small|sites THREADS [PAIRS_PER_THREAD] [hbw]
 *
 * hbw: memkind's hbw_malloc and hbw_free instead of malloc and free (what autohbw does
 * for a program; libmemkind loaded with dlopen, MEMKIND_HBW_NODES names HBW nodes).
 *
 * mixed: 4096 live objects per thread, each step frees a random one and allocates a new
 *        one of a log-uniform size in 16 B..64 KiB, and writes a byte in each of its
 *        pages: a program uses the memory it asks for, so the max RSS counts every page
 *        of a block (with only its first byte written, an allocator that cut a freed run
 *        of pages anew at other offsets looked as if it held pages it never touched).
 * small: batches of 64 allocations of 16..256 B, then their frees, the pattern of
 *        short-lived small objects.
 * sites: small, each allocation made by one of 50 functions in turn (50 hot call sites,
 *        each called from run: what a site rule's memo has to keep apart).
 * Sizes and slots are drawn before the clock starts, so only the allocator is timed. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { LIVE = 4096, BATCH = 64, DRAWS = 1 << 16 };

struct job {
    int mixed, sites;
    long pairs;
    uint32_t seed;
    size_t sizes[DRAWS];
    uint32_t slots[DRAWS];
    unsigned long sink;
};

static void *(*alloc)(size_t) = malloc;
static void (*release)(void *) = free;

/* A call site of its own: malloc is not its tail call, so its return address is here;
 * and the nop between the call and the return keeps it from being an allocation wrapper
 * by its shape (policy/site/shape.h), whose caller would be the site instead. */
#define SITE(n)                                                                                    \
    static __attribute__((noinline)) void *site_##n(size_t size)                                   \
    {                                                                                              \
        void *p = alloc(size);                                                                     \
        __asm__ volatile("nop" : "+r"(p));                                                         \
        return p;                                                                                  \
    }
#define SITES10(d) SITE(d##0) SITE(d##1) SITE(d##2) SITE(d##3) SITE(d##4) \
                   SITE(d##5) SITE(d##6) SITE(d##7) SITE(d##8) SITE(d##9)
SITES10(1) SITES10(2) SITES10(3) SITES10(4) SITES10(5)
#define NAMES10(d) site_##d##0, site_##d##1, site_##d##2, site_##d##3, site_##d##4, \
                   site_##d##5, site_##d##6, site_##d##7, site_##d##8, site_##d##9
enum { SITES = 50 };
static void *(*const sites[SITES])(size_t) = {NAMES10(1), NAMES10(2), NAMES10(3), NAMES10(4),
                                               NAMES10(5)};

static uint32_t next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void draw(struct job *j)
{
    for (int k = 0; k < DRAWS; k++) {
        if (j->mixed) { /* log-uniform: 2^(4 + 12u) bytes, u uniform in [0, 1) */
            int bits = 4 + (int)(next(&j->seed) % 12);
            j->sizes[k] = ((size_t)1 << bits) + next(&j->seed) % ((size_t)1 << bits);
        } else {
            j->sizes[k] = 16 + next(&j->seed) % 241;
        }
        j->slots[k] = next(&j->seed) % LIVE;
    }
}

/* A byte written in each page of the size bytes at p. */
static void touch(char *p, size_t size, char v)
{
    for (size_t at = 0; at < size; at += 4096)
        p[at] = v;
}

static void *run(void *arg)
{
    struct job *j = arg;
    unsigned long sink = 0;
    if (j->mixed) {
        void **live = calloc(LIVE, sizeof *live);
        for (int k = 0; k < LIVE; k++)
            touch(live[k] = alloc(j->sizes[k]), j->sizes[k], 1);
        for (long n = 0; n < j->pairs; n++) {
            uint32_t slot = j->slots[n & (DRAWS - 1)];
            release(live[slot]);
            size_t size = j->sizes[(n + 7) & (DRAWS - 1)];
            char *p = alloc(size);
            touch(p, size, (char)n);
            live[slot] = p;
            sink += (uintptr_t)p & 0xff;
        }
        for (int k = 0; k < LIVE; k++)
            release(live[k]);
        free(live);
    } else {
        void *batch[BATCH];
        for (long n = 0; n < j->pairs; n += BATCH) {
            for (int k = 0; k < BATCH; k++) {
                size_t size = j->sizes[(n + k) & (DRAWS - 1)];
                char *p = j->sites ? sites[(n + k) % SITES](size) : alloc(size);
                p[0] = (char)k;
                batch[k] = p;
            }
            for (int k = 0; k < BATCH; k++) {
                sink += (unsigned char)((char *)batch[k])[0];
                release(batch[k]);
            }
        }
    }
    j->sink = sink;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "mixed") != 0 && strcmp(argv[1], "small") != 0 &&
                     strcmp(argv[1], "sites") != 0)) {
        fprintf(stderr, "usage: %s mixed|small|sites THREADS [PAIRS_PER_THREAD] [hbw]\n", argv[0]);
        return 2;
    }
    if (argc > 4 && strcmp(argv[4], "hbw") == 0) {
        void *mk = dlopen("libmemkind.so.0", RTLD_NOW);
        alloc = mk ? (void *(*)(size_t))dlsym(mk, "hbw_malloc") : NULL;
        release = mk ? (void (*)(void *))dlsym(mk, "hbw_free") : NULL;
        if (!alloc || !release) {
            fprintf(stderr, "mallocbench: no hbw_malloc: %s\n", dlerror());
            return 1;
        }
    }
    int threads = atoi(argv[2]);
    long pairs = argc > 3 ? atol(argv[3]) : 20000000;
    if (threads < 1 || threads > 64 || pairs < BATCH) {
        fprintf(stderr, "mallocbench: THREADS must be 1..64 and PAIRS at least %d\n", BATCH);
        return 2;
    }
    struct job *jobs = calloc((size_t)threads, sizeof *jobs);
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    for (int t = 0; t < threads; t++) {
        jobs[t] = (struct job){.mixed = strcmp(argv[1], "mixed") == 0,
                               .sites = strcmp(argv[1], "sites") == 0,
                               .pairs = pairs,
                               .seed = 2463534242u + t};
        draw(&jobs[t]);
    }
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int t = 0; t < threads; t++)
        pthread_create(&tids[t], NULL, run, &jobs[t]);
    unsigned long sink = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(tids[t], NULL);
        sink += jobs[t].sink;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)pairs;
    printf("%s threads=%d pairs=%ld ns_per_pair=%.3f (%lu)\n", argv[1], threads, pairs, ns,
           sink % 10);
    free(jobs);
    free(tids);
    return 0;
}
