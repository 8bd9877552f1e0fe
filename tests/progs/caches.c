/* An arena's per-thread caches, seen from the program (include/libplace.h), for
 * tests/bats/caches.bats. Blocks are 1025..4000 bytes: a window libc's own blocks stay
 * out of.
 *
 *   caches tiers N ITERS   N threads allocate, fill, trade and free blocks; sizes up to
 *                          2 KiB belong in node a, larger ones in b. Prints how many
 *                          blocks were in the wrong node, how many came back changed
 *                          (handed out twice), and what a and b hold at the end.
 *   caches fork            a thread fills its cache for node a and waits; the program
 *                          forks: what the child and the parent hold, then the parent
 *                          once the thread has exited
 *   caches align           posix_memalign and aligned_alloc at every alignment from 16
 *                          bytes to 64 KiB, sizes up to 70 000: how many blocks were
 *                          misaligned, and how many came from node a
 *   caches lend            blocks of 2200 bytes freed into the thread's bin, then one
 *                          of 2000: its usable size (2304: a larger block lent) and
 *                          node a's bytes in use; then eight of 2000 aligned to 2 KiB:
 *                          how many are not; what node a has in use once all are freed */
#include <libplace.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { SLOTS = 256 };
static _Atomic(unsigned char *) slots[SLOTS];
static _Atomic int wrong, changed;
static int iters;

static const char *expected(size_t size)
{
    return size <= 2048 ? "a" : "b";
}

/* A block is filled with its size (first word) and a byte derived from it. */
static unsigned char *make(size_t size)
{
    unsigned char *p = malloc(size);
    char node[8] = "";
    if (!p)
        return NULL;
    if (place_node_of(p, node, sizeof node) < 0 || strcmp(node, expected(size)) != 0)
        atomic_fetch_add(&wrong, 1);
    memcpy(p, &size, sizeof size);
    memset(p + sizeof size, (int)(size & 0xff), size - sizeof size);
    return p;
}

static void check_and_free(unsigned char *p)
{
    if (!p)
        return;
    size_t size;
    memcpy(&size, p, sizeof size);
    for (size_t k = sizeof size; k < size; k++)
        if (p[k] != (unsigned char)(size & 0xff)) {
            atomic_fetch_add(&changed, 1);
            break;
        }
    free(p);
}

static void *trade(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    for (int k = 0; k < iters; k++) {
        unsigned char *p = make(1025 + rand_r(&seed) % 2976);
        /* most blocks are freed by another thread than the one that made them */
        check_and_free(atomic_exchange(&slots[rand_r(&seed) % SLOTS], p));
    }
    return NULL;
}

static int tiers(int n)
{
    pthread_t t[64];
    for (int k = 0; k < n; k++)
        pthread_create(&t[k], NULL, trade, (void *)(uintptr_t)(k + 1));
    for (int k = 0; k < n; k++)
        pthread_join(t[k], NULL);
    for (int k = 0; k < SLOTS; k++)
        check_and_free(atomic_exchange(&slots[k], NULL));
    printf("wrong %d changed %d used a %lld b %lld\n", atomic_load(&wrong), atomic_load(&changed),
           place_used("a"), place_used("b"));
    return 0;
}

static int ready[2], go[2];

static void *filler(void *arg)
{
    (void)arg;
    void *p[100];
    for (int k = 0; k < 100; k++)
        p[k] = malloc(1500);
    for (int k = 0; k < 100; k++)
        free(p[k]);
    char c = 1;
    if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
        return NULL;
    return NULL;
}

/* Held against the limit: used by the program, or in a thread's cache. */
static long long held(void)
{
    return place_limit("a") - place_available("a");
}

static int forked(void)
{
    pthread_t t;
    char c;
    if (pipe(ready) || pipe(go) || pthread_create(&t, NULL, filler, NULL) ||
        read(ready[0], &c, 1) != 1)
        return 1;
    printf("parent: used %lld, caches hold some %d\n", place_used("a"), held() > 0);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) { /* the filler did not follow: its cache is given back here */
        printf("child: used %lld held %lld\n", place_used("a"), held());
        fflush(stdout);
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    if (write(go[1], &c, 1) != 1)
        return 1;
    pthread_join(t, NULL); /* its exit gives its cache back */
    printf("parent after the thread's exit: used %lld held %lld\n", place_used("a"), held());
    return 0;
}

/* p's address, which the compiler cannot know: it takes aligned_alloc's result to be
 * aligned as asked (glibc declares it alloc_align) and folds the test away. */
static uintptr_t address(void *p)
{
    void *volatile v = p;
    return (uintptr_t)v;
}

static int aligned(void)
{
    int misaligned = 0, in_a = 0, n = 0;
    for (size_t align = 16; align <= 65536; align *= 2)
        for (size_t size = 1; size <= 70000; size = size * 3 + 1, n++) {
            void *p = NULL;
            if (n % 2 ? posix_memalign(&p, align, size) != 0 : !(p = aligned_alloc(align, size)))
                return 1;
            char node[8] = "";
            misaligned += address(p) % align != 0;
            in_a += place_node_of(p, node, sizeof node) > 0 && strcmp(node, "a") == 0;
            memset(p, 1, size);
            free(p);
        }
    printf("%d blocks, %d misaligned, %d in a\n", n, misaligned, in_a);
    return 0;
}

static int lend(void)
{
    void *big[32], *q[8];
    for (int k = 0; k < 32; k++)
        if (!(big[k] = malloc(2200)))
            return 1;
    for (int k = 0; k < 32; k++)
        free(big[k]);
    void *p = malloc(2000);
    if (!p)
        return 1;
    size_t usable = malloc_usable_size(p);
    long long used = place_used("a"); /* p alone: the blocks lent with it are cached */
    int misaligned = 0;
    for (int k = 0; k < 8; k++) {
        if (!(q[k] = aligned_alloc(2048, 2000)))
            return 1;
        misaligned += address(q[k]) % 2048 != 0;
    }
    free(p);
    for (int k = 0; k < 8; k++)
        free(q[k]);
    /* printed last: stdout's buffer is a block of node a too */
    printf("usable %zu, used %lld, misaligned %d, then %lld\n", usable, used, misaligned,
           place_used("a"));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "align") == 0)
        return aligned();
    if (argc == 4 && strcmp(argv[1], "tiers") == 0) {
        iters = atoi(argv[3]);
        return tiers(atoi(argv[2]));
    }
    if (argc == 2 && strcmp(argv[1], "fork") == 0)
        return forked();
    if (argc == 2 && strcmp(argv[1], "lend") == 0)
        return lend();
    fprintf(stderr, "usage: caches tiers N ITERS | caches fork | caches align | caches lend\n");
    return 2;
}
