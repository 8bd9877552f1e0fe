/* Big blocks in every shape the access profile must take as glibc would: calloc's zeroes,
 * aligned blocks (one past a page), realloc grown and shrunk across profile_min with its
 * contents kept, malloc_usable_size, memory the program maps itself, blocks of threads and
 * of a forked child. Prints what it checked and a checksum: the same with or without
 * libplace.
 *
 * usage: access_edges [term]  (term: ends by SIGTERM after its work, the default action) */
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MIB = 1 << 20 };

static unsigned long fill(unsigned char *p, size_t n, unsigned seed)
{
    unsigned long s = 0;
    for (size_t k = 0; k < n; k++) {
        p[k] = (unsigned char)(k * 31 + seed);
        s += p[k];
    }
    return s;
}

static unsigned long sum(const unsigned char *p, size_t n)
{
    unsigned long s = 0;
    for (size_t k = 0; k < n; k++)
        s += p[k];
    return s;
}

static void check(int ok, const char *what)
{
    printf("%s: %s\n", what, ok ? "ok" : "WRONG");
    if (!ok)
        exit(1);
}

/* Sweeps a block for about ms milliseconds, so that the sampler reads it a few times:
 * what it leaves there depends on the clock, so nothing reads it afterwards. */
static void sweep_for(volatile unsigned char *p, size_t n, long ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        for (size_t k = 0; k < n; k += 64)
            p[k]++;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static void *thread_main(void *arg)
{
    size_t n = (size_t)(uintptr_t)arg;
    unsigned char *p = malloc(n);
    if (!p)
        return NULL;
    unsigned long s = fill(p, n, 5);
    sweep_for(p, n, 300);
    free(p);
    return (void *)(uintptr_t)s;
}

int main(int argc, char **argv)
{
    unsigned long total = 0;

    unsigned char *z = calloc(4, MIB);
    check(z && sum(z, 4 * MIB) == 0, "calloc zeroed");
    check(malloc_usable_size(z) >= 4 * MIB, "usable size");

    void *a = NULL;
    check(posix_memalign(&a, 4096, 3 * MIB) == 0 && ((uintptr_t)a & 4095) == 0, "aligned 4096");
    void *b = aligned_alloc(1 << 16, 2 * MIB); /* past a page: glibc's */
    check(b && ((uintptr_t)b & 0xffff) == 0, "aligned 64K");
    total += fill(a, 3 * MIB, 1) + fill(b, 2 * MIB, 2);

    /* realloc: small to tracked, grown, shrunk below profile_min, the contents kept */
    unsigned char *r = malloc(1000);
    unsigned long head = fill(r, 1000, 3);
    r = realloc(r, 2 * MIB);
    check(r && sum(r, 1000) == head, "realloc to 2M keeps");
    fill(r + 1000, 2 * MIB - 1000, 4);
    unsigned long whole = sum(r, 2 * MIB);
    r = realloc(r, 8 * MIB);
    check(r && sum(r, 2 * MIB) == whole, "realloc to 8M keeps");
    unsigned long first = sum(r, 100);
    r = realloc(r, 100);
    check(r && sum(r, 100) == first, "realloc to 100 keeps");
    total += sum(r, 100);

    /* a big buffer filled and freed, then calloc'd again: zeroes (its pages may be the
     * freed one's, kept for reuse), and a loop of them keeps each one's contents */
    for (int k = 0; k < 50; k++) {
        size_t n = (size_t)(3 + k % 3) * MIB + (size_t)k * 4096;
        unsigned char *f = malloc(n);
        memset(f, 0xff, n);
        total += sum(f, 4096) + fill(f + n - 4096, 4096, (unsigned)k);
        free(f);
        unsigned char *c = calloc(1, n);
        if (sum(c, n) != 0) {
            check(0, "calloc after free zeroed");
        }
        free(c);
    }
    check(1, "calloc after free zeroed");

    /* memory the program maps itself: never tracked, never touched by libplace */
    unsigned char *m = mmap(NULL, 8 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    check(m != MAP_FAILED, "own mapping");
    total += fill(m, 8 * MIB, 6);
    munmap(m, 8 * MIB);

    pthread_t t[2];
    for (int k = 0; k < 2; k++)
        pthread_create(&t[k], NULL, thread_main, (void *)(uintptr_t)((k + 2) * MIB));
    for (int k = 0; k < 2; k++) {
        void *s;
        pthread_join(t[k], &s);
        total += (unsigned long)(uintptr_t)s;
    }

    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        unsigned char *c = malloc(6 * MIB);
        unsigned long s = fill(c, 6 * MIB, 7);
        sweep_for(c, 6 * MIB, 400);
        free(c);
        printf("child: %lu\n", s);
        exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child");

    sweep_for(a, 3 * MIB, 300);
    printf("checksum %lu\n", total);
    fflush(stdout);
    if (argc > 1 && strcmp(argv[1], "term") == 0)
        raise(SIGTERM);
    free(r);
    free(b);
    free(a);
    free(z);
    return 0;
}
