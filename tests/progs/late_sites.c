/* Threads whose last allocations come after libplace has dropped their memo of stacks
 * (site/memo.c: a pthread key made at the first site lookup): from a destructor of a key
 * made later, which glibc runs later. Under a site rule each of those is looked up
 * again with no table. Prints the sum of what the destructors read back, the same with
 * or without libplace. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site_frame.h"

enum { THREADS = 4, LATE = 64 };

static pthread_key_t late_key;
static pthread_once_t late_once = PTHREAD_ONCE_INIT;
static unsigned long total;

__attribute__((noinline)) static unsigned char *site_alloc(size_t n, int c)
{
    unsigned char *p = malloc(n);
    if (p)
        memset(p, c, n);
    SITE_FRAME_KEPT();
    return p;
}

static void late(void *arg)
{
    unsigned long sum = 0;
    for (int k = 0; k < LATE; k++) {
        unsigned char *p = site_alloc(32 + (size_t)k * 8, k);
        if (p)
            sum += p[k] + (unsigned long)k;
        free(p);
    }
    __atomic_add_fetch(&total, sum + (unsigned long)(size_t)arg, __ATOMIC_RELAXED);
}

static void make_late_key(void)
{
    pthread_key_create(&late_key, late);
}

static void *thread_main(void *arg)
{
    free(site_alloc(100, 1)); /* libplace's memo (and its key) first */
    pthread_once(&late_once, make_late_key);
    pthread_setspecific(late_key, arg);
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    for (size_t k = 0; k < THREADS; k++)
        if (pthread_create(&t[k], NULL, thread_main, (void *)(k + 1)) != 0)
            return 1;
    for (size_t k = 0; k < THREADS; k++)
        pthread_join(t[k], NULL);
    printf("late sum %lu\n", total);
    return 0;
}
