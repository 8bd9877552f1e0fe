/* A signal handler that allocates and frees placed blocks while the interrupted thread
 * does the same from the same thread's cache (policy/tiers/cache.h): a block must never
 * be handed to both, and none may be lost.
 *
 *   sigcache SIGNALS
 *
 * An interval timer sends SIGALRM every 20 us until SIGNALS were handled: it interrupts
 * the thread wherever it is, on one CPU as on many (a second thread sending signals in a
 * loop made the test take minutes whenever the scheduler put both on one CPU: one signal
 * handled per time slice). The handler takes a new 1500-byte block and frees the one it
 * held before; the main thread allocates and frees 1500-byte blocks and counts those
 * that the handler holds too.
 * Prints the duplicates, then, once 200 more blocks were taken and freed (so that frees
 * the handler made while its thread was inside libplace, which wait on a list, are
 * given back by a refill), whether the node holds exactly the handler's last block (or
 * nothing, when glibc served it: a handler that interrupts libplace gets glibc's). */
#include <libplace.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static void *volatile held;
static volatile long handled;

static void on_signal(int sig)
{
    (void)sig;
    void *before = held;
    held = malloc(1500);
    free(before);
    handled++;
}

int main(int argc, char **argv)
{
    long want = argc > 1 ? atol(argv[1]) : 100000, duplicates = 0;
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval every = {{0, 20}, {0, 20}}, off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &every, NULL);
    while (handled < want) {
        void *p = malloc(1500);
        if (p == held) /* the handler holds it: handed out twice */
            duplicates++;
        memset(p, 1, 1500);
        free(p);
    }
    setitimer(ITIMER_REAL, &off, NULL);
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGALRM);
    sigprocmask(SIG_BLOCK, &block, NULL);
    void *more[200];
    for (int k = 0; k < 200; k++)
        more[k] = malloc(1500);
    for (int k = 0; k < 200; k++)
        free(more[k]);
    char node[8] = "";
    place_node_of(held, node, sizeof node);
    long long expect = strcmp(node, "a") == 0 ? (long long)malloc_usable_size(held) : 0;
    printf("duplicates %ld, node holds the handler's block: %d\n", duplicates,
           place_used("a") == expect);
    return 0;
}
