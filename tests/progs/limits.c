/* Drives a node with a limit, for tests/bats/limits.bats. It asks libplace through
 * include/libplace.h which node holds each block, and keeps its own sum of the usable
 * sizes of the live blocks in node "capped", so the limit is checked against the blocks
 * themselves, not only against libplace's counters.
 *
 *   limits threads N ITERS   N threads allocate 64-256 KiB blocks and free each other's
 *   limits stress N ITERS [small]
 *                            the same, with realloc of every fourth block, and the first
 *                            thread forking a child every 100 blocks that allocates and
 *                            frees in the node and checks it from its side; small: blocks
 *                            of 1..4 KiB (an arena's thread caches) instead
 *   limits wait MS           fill capped, then a thread's malloc waits until main frees
 *                            a block MS ms later
 *   limits fill SIZE COUNT [idle]
 *                            COUNT blocks of SIZE: where each went, or the errno; with
 *                            idle, a second thread lives meanwhile (one that could free,
 *                            so that on_full = wait waits)
 *   limits api               what the API answers (without libplace: not loaded)
 *   limits account           place_account, place_unaccount, place_wait_available, totals
 *   limits shrink            a block shrunk in a full node stays; one grown past it goes
 *                            to the chain's next tier, counted once
 *   limits forkreport N      N children fork and exit while a thread writes reports
 *   limits align             memalign with alignments glibc rounds up, and a big one
 *   limits grow              realloc keeps every usable byte of the old block
 *   limits childsig          a forked child raises SIGUSR1: how it ended
 *   limits spin N            the main thread allocates while it gets SIGUSR1 N times */
#include <errno.h>
#include <libplace.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static _Atomic long long tracked; /* usable bytes of live blocks in capped, by our count */
static _Atomic int over;          /* times tracked was seen past the limit */
static long long limit;

static int in_capped(const void *p)
{
    char node[64];
    return place_node_of(p, node, sizeof node) > 0 && strcmp(node, "capped") == 0;
}

static void *take(size_t size)
{
    void *p = malloc(size);
    if (p && in_capped(p)) {
        long long now = atomic_fetch_add(&tracked, (long long)malloc_usable_size(p)) +
                        (long long)malloc_usable_size(p);
        if (now > limit)
            atomic_fetch_add(&over, 1);
    }
    if (p)
        memset(p, 0xab, size);
    return p;
}

static void give(void *p)
{
    if (p && in_capped(p))
        atomic_fetch_sub(&tracked, (long long)malloc_usable_size(p));
    free(p);
}

/* realloc, keeping the count of blocks in capped: p leaves it, the new block may join */
static void *resize(void *p, size_t size)
{
    if (in_capped(p))
        atomic_fetch_sub(&tracked, (long long)malloc_usable_size(p));
    void *q = realloc(p, size);
    if (!q) { /* p is as it was */
        q = p;
        size = 0;
    }
    if (in_capped(q)) {
        long long now = atomic_fetch_add(&tracked, (long long)malloc_usable_size(q)) +
                        (long long)malloc_usable_size(q);
        if (now > limit)
            atomic_fetch_add(&over, 1);
    }
    memset(q, 0xcd, size);
    return q;
}

/* A forked child: it holds its parent's blocks, allocates and frees some of its own in
 * the node, and finds the node's count back where its parent left it. */
static void child(unsigned seed)
{
    void *p[8];
    long long before = place_used("capped");
    for (int k = 0; k < 8; k++) /* past the small classes: no thread cache keeps them */
        p[k] = malloc((64 << 10) + 1 + rand_r(&seed) % (64 << 10));
    for (int k = 0; k < 8; k++)
        free(p[k]);
    _exit(place_used("capped") == before && before >= 0 ? 0 : 1);
}

enum { SLOTS = 64 };
static _Atomic(void *) shared[SLOTS]; /* blocks handed between threads */
static int iters;
static bool stress, small;
static _Atomic int forks, failed;

static void fork_one(unsigned seed)
{
    pid_t pid = fork();
    if (pid == 0)
        child(seed);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        atomic_fetch_add(&failed, 1);
    atomic_fetch_add(&forks, 1);
}

static void *churn(void *arg)
{
    unsigned seed = (unsigned)(size_t)arg;
    for (int k = 0; k < iters; k++) {
        size_t size = small ? 1025 + rand_r(&seed) % 2975 : (64 << 10) + rand_r(&seed) % (192 << 10);
        void *p = take(size);
        if (stress && p && k % 4 == 0)
            p = resize(p, small ? 1025 + rand_r(&seed) % 2975 : (16 << 10) + rand_r(&seed) % (256 << 10));
        if (stress && (size_t)arg == 1 && k % 100 == 99)
            fork_one(seed);
        /* swap it into a random slot and free what another thread left there */
        give(atomic_exchange(&shared[rand_r(&seed) % SLOTS], p));
    }
    return NULL;
}

static int threads(int n)
{
    pthread_t t[64];
    /* what main itself holds in the node (libc's blocks, when the window takes them) */
    long long base = place_used("capped");
    for (int k = 0; k < n; k++)
        pthread_create(&t[k], NULL, churn, (void *)(size_t)(k + 1));
    for (int k = 0; k < n; k++)
        pthread_join(t[k], NULL);
    for (int k = 0; k < SLOTS; k++)
        give(atomic_exchange(&shared[k], NULL));
    printf("over %d tracked %lld used %lld peak %lld limit %lld\n", atomic_load(&over),
           atomic_load(&tracked), place_used("capped") - base, place_peak("capped"), limit);
    if (stress)
        printf("forks %d failed %d\n", atomic_load(&forks), atomic_load(&failed));
    return 0;
}

static long long ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static void *waiter(void *arg)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    void *p = take(256 << 10);
    printf("waited %lld ms, got %s\n", ms_since(&t0), p && in_capped(p) ? "capped" : "dram");
    *(void **)arg = p;
    return NULL;
}

static int wait_for_room(int ms)
{
    void *held[256];
    int n = 0;
    for (; n < 256; n++) {
        void *p = malloc(256 << 10); /* the policy waits only for the waiter (by site) */
        if (!in_capped(p)) {
            free(p);
            break;
        }
        held[n] = p;
    }
    printf("capped holds %d blocks, available %lld\n", n, place_available("capped"));
    pthread_t t;
    void *got = NULL;
    pthread_create(&t, NULL, waiter, &got);
    usleep((useconds_t)ms * 1000);
    free(held[--n]);
    pthread_join(t, NULL);
    give(got);
    while (n)
        free(held[--n]);
    return 0;
}

static void *idle(void *arg)
{
    pause(); /* until the process ends */
    return arg;
}

static int fill(size_t size, int count, bool company)
{
    pthread_t t;
    if (company)
        pthread_create(&t, NULL, idle, NULL);
    for (int k = 0; k < count; k++) {
        errno = 0;
        void *p = malloc(size);
        char node[64] = "";
        if (p)
            place_node_of(p, node, sizeof node);
        printf("%d %s\n", k, p ? node : strerror(errno));
    }
    printf("used %lld limit %lld available %lld\n", place_used("capped"), place_limit("capped"),
           place_available("capped"));
    return 0;
}

static int shrink(void)
{
    char node[64];
    void *a = malloc(700 << 10), *b = malloc(250 << 10);
    errno = 0;
    void *s = realloc(a, 100 << 10); /* in a full node, still shrinks in place */
    place_node_of(s, node, sizeof node);
    printf("shrunk: %s, same block %d, errno %d\n", node, s == a, errno);
    void *g = realloc(b, 600 << 10); /* the node refuses: the chain's next tier */
    place_node_of(g, node, sizeof node);
    printf("grown: %s\n", node);
    free(s);
    free(g);
    return 0;
}

static _Atomic bool reporting;

static void *reporter(void *arg)
{
    while (atomic_load(&reporting))
        place_report_now("/dev/null");
    return arg;
}

static int forkreport(int n)
{
    pthread_t t;
    atomic_store(&reporting, true);
    pthread_create(&t, NULL, reporter, NULL);
    int ok = 0;
    for (int k = 0; k < n; k++) {
        pid_t pid = fork();
        if (pid == 0)
            exit(0); /* its exit report, whatever the parent was writing at the fork */
        int status;
        ok += pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0;
    }
    atomic_store(&reporting, false);
    pthread_join(t, NULL);
    printf("%d of %d children exited\n", ok, n);
    return 0;
}

static int api(void)
{
    printf("loaded %d used %lld limit %lld nosuch %lld report %d\n", place_loaded(),
           place_used("dram"), place_limit("capped"), place_used("nosuch"), place_report_now(NULL));
    return 0;
}

static _Atomic bool given_back;

/* Gives back what main accounted in capped, 100 ms from now. */
static void *give_back(void *bytes)
{
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
    atomic_store(&given_back, true);
    place_unaccount("capped", (size_t)bytes);
    return NULL;
}

/* Bytes in use in capped since `before`, after r: each line's call comes first. */
#define AFTER(r) ((r), place_used("capped") - before)

/* place_account and the rest of StarPU's accounting, on capped (a 1 MiB limit). */
static int account(void)
{
    long long before = place_used("capped"), all = place_used(PLACE_ALL_NODES);
    printf("all %lld, limit of all %lld\n", all < 0 ? all : all >= before,
           place_limit(PLACE_ALL_NODES));
    int r;
    long long used = AFTER(r = place_account("capped", 512 << 10, 0));
    printf("account 512K: %d, used %lld\n", r, used);
    printf("account 768K: %d\n", place_account("capped", 768 << 10, 0));
    used = AFTER(r = place_account("capped", 768 << 10, PLACE_ACCOUNT_OVERFLOW));
    printf("overflow 768K: %d, used %lld\n", r, used);
    used = AFTER(r = place_unaccount("capped", 768 << 10));
    printf("unaccount 768K: %d, used %lld\n", r, used);
    printf("wait 768K 50 ms: %d\n", place_wait_available("capped", 768 << 10, 50));
    printf("wait 2M: %d\n", place_wait_available("capped", 2 << 20, -1));
    printf("account 2M waiting: %d\n", place_account("capped", 2 << 20, PLACE_ACCOUNT_WAIT));
    pthread_t t;
    pthread_create(&t, NULL, give_back, (void *)(size_t)(512 << 10));
    r = place_wait_available("capped", 768 << 10, -1);
    printf("wait 768K until a thread gives 512K back: %d, %s\n", r,
           atomic_load(&given_back) ? "after it" : "before it");
    pthread_join(t, NULL);
    atomic_store(&given_back, false);
    place_account("capped", 1 << 20, 0);
    pthread_create(&t, NULL, give_back, (void *)(size_t)(1 << 20));
    used = AFTER(r = place_account("capped", 256 << 10, PLACE_ACCOUNT_WAIT));
    printf("account 256K waiting, full: %d, %s, used %lld\n", r,
           atomic_load(&given_back) ? "after the give-back" : "before it", used);
    pthread_join(t, NULL);
    /* with another thread alive the wait is a real one; no time to wait still asks once */
    pthread_create(&t, NULL, idle, NULL);
    printf("wait 1 byte, no time, with room: %d\n", place_wait_available("capped", 1, 0));
    printf("no such node: %d %d %d\n", place_account("nosuch", 1, 0), place_unaccount("nosuch", 1),
           place_wait_available("nosuch", 1, 0));
    return 0;
}

static int align(void)
{
    size_t aligns[] = {4, 24, 64, 8192};
    for (unsigned k = 0; k < 4; k++) {
        void *p = memalign(aligns[k], 100000);
        size_t a = 1; /* glibc rounds an alignment up to a power of two */
        while (a < aligns[k])
            a *= 2;
        printf("memalign %zu: %s %s\n", aligns[k], p && (size_t)p % a == 0 ? "aligned" : "no",
               p && in_capped(p) ? "capped" : "dram");
        free(p);
    }
    void *p = aligned_alloc(8192, 70000);
    long long used = place_used("capped");
    printf("aligned_alloc 8192: %s, used %s limit\n", p && in_capped(p) ? "capped" : "dram",
           used <= place_limit("capped") ? "within" : "past");
    free(p);
    return 0;
}

static int grow(void)
{
    char *p = malloc(100001);
    size_t n = malloc_usable_size(p);
    memset(p, 'x', n);
    char *q = realloc(p, 300000);
    size_t kept = 0;
    while (kept < n && q[kept] == 'x')
        kept++;
    printf("kept %s\n", kept == n ? "every usable byte" : "less");
    free(q);
    return 0;
}

static int childsig(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        raise(SIGUSR1);
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status))
        printf("child killed by signal %d\n", WTERMSIG(status));
    else
        printf("child exited with %d\n", WEXITSTATUS(status));
    return 0;
}

static _Atomic int spinning = 1;
static pthread_t main_thread;

/* Signals the main thread while it is (most likely) inside malloc or free. */
static void *signaller(void *arg)
{
    int n = *(int *)arg;
    for (int k = 0; k < n; k++) {
        pthread_kill(main_thread, SIGUSR1);
        usleep(2000);
    }
    atomic_store(&spinning, 0);
    return NULL;
}

static int spin(int n)
{
    pthread_t t;
    main_thread = pthread_self();
    pthread_create(&t, NULL, signaller, &n);
    while (atomic_load(&spinning)) {
        free(malloc(5000));
        free(malloc(300000));
    }
    pthread_join(t, NULL);
    printf("spun\n");
    return 0;
}

int main(int argc, char **argv)
{
    limit = place_limit("capped");
    if ((argc == 4 || argc == 5) &&
        (strcmp(argv[1], "threads") == 0 || strcmp(argv[1], "stress") == 0)) {
        iters = atoi(argv[3]);
        small = argc == 5 && strcmp(argv[4], "small") == 0;
        stress = argv[1][0] == 's';
        return threads(atoi(argv[2]));
    }
    if (argc == 3 && strcmp(argv[1], "wait") == 0)
        return wait_for_room(atoi(argv[2]));
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "fill") == 0)
        return fill((size_t)atoll(argv[2]), atoi(argv[3]), argc == 5 && strcmp(argv[4], "idle") == 0);
    if (argc == 2 && strcmp(argv[1], "api") == 0)
        return api();
    if (argc == 2 && strcmp(argv[1], "account") == 0)
        return account();
    if (argc == 2 && strcmp(argv[1], "shrink") == 0)
        return shrink();
    if (argc == 3 && strcmp(argv[1], "forkreport") == 0)
        return forkreport(atoi(argv[2]));
    if (argc == 2 && strcmp(argv[1], "align") == 0)
        return align();
    if (argc == 2 && strcmp(argv[1], "grow") == 0)
        return grow();
    if (argc == 2 && strcmp(argv[1], "childsig") == 0)
        return childsig();
    if (argc == 3 && strcmp(argv[1], "spin") == 0)
        return spin(atoi(argv[2]));
    fprintf(stderr,
            "usage: limits threads N ITERS | stress N ITERS | wait MS | fill SIZE COUNT | api | account | align | grow "
            "| childsig | spin N\n");
    return 2;
}
