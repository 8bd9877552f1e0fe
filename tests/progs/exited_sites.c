/* Threads that count their blocks' site and exit before the report: 8 threads one after
 * another (each takes the slot the last one gave back), each 100 blocks of 64 bytes from
 * thread_alloc. What a thread counted in its slot is handed to the shared table as it
 * exits; lost, the report would say fewer. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "site_frame.h"

enum { THREADS = 8, BLOCKS = 100 };

__attribute__((noinline)) void *thread_alloc(size_t n)
{
    void *p = malloc(n);
    SITE_FRAME_KEPT();
    return p;
}

static void *work(void *arg)
{
    void *p[BLOCKS];
    for (int k = 0; k < BLOCKS; k++)
        p[k] = thread_alloc(64);
    for (int k = 0; k < BLOCKS; k++)
        free(p[k]);
    return arg;
}

int main(void)
{
    for (int t = 0; t < THREADS; t++) {
        pthread_t th;
        if (pthread_create(&th, NULL, work, NULL) != 0 || pthread_join(th, NULL) != 0)
            return 1;
    }
    printf("%d threads\n", THREADS);
    return 0;
}
