/* A thread that is still alive when the program exits: it makes 100000 blocks, frees
 * 60000 of them, then waits forever while the main thread returns from main. The report
 * written at exit must count what that thread did.
 *
 *   live_counts */
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <unistd.h>

enum { MADE = 100000, FREED = 60000 };

static sem_t done;
static void *blocks[MADE];

static void *worker(void *arg)
{
    (void)arg;
    for (int k = 0; k < MADE; k++)
        blocks[k] = malloc(48);
    for (int k = 0; k < FREED; k++)
        free(blocks[k]);
    sem_post(&done);
    for (;;)
        pause();
    return NULL;
}

int main(void)
{
    pthread_t t;
    sem_init(&done, 0, 0);
    if (pthread_create(&t, NULL, worker, NULL) != 0)
        return 1;
    while (sem_wait(&done) != 0)
        ;
    return 0;
}
