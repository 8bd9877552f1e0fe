/* Threads that go on allocating and freeing while the main thread exits, as a Python
 * daemon thread doing I/O at shutdown does: the process ends under their feet, and its
 * buffered output and exit status must come through.
 *
 *   exit_threads LINES */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { THREADS = 4, RING = 64 };

static void *churn(void *arg)
{
    unsigned seed = (unsigned)(size_t)arg;
    void *ring[RING] = {0};
    for (unsigned k = 0;; k++) {
        seed = seed * 1103515245 + 12345;
        size_t size = 16 + (seed >> 8) % 8192;
        free(ring[k % RING]);
        ring[k % RING] = malloc(size);
        if (ring[k % RING])
            memset(ring[k % RING], (int)k, 16);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int lines = argc > 1 ? atoi(argv[1]) : 1000;
    for (size_t k = 0; k < THREADS; k++) {
        pthread_t t;
        pthread_create(&t, NULL, churn, (void *)(k + 1));
        pthread_detach(t);
    }
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    for (int k = 0; k < lines; k++)
        printf("line %d of %d\n", k + 1, lines);
    return 5;
}
