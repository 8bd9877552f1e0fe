/* A signal handler that allocates while the program allocates and frees: SIGALRM every
 * 200 us, whose handler mallocs and frees a block, and a main loop of malloc/free pairs.
 * Under a policy that places everything, the handler often interrupts the main thread
 * inside a placed free or a dry run's map, holding a lock the handler's malloc would
 * need.
 *
 *   sigalloc PAIRS [noalloc]
 *
 * noalloc: the handler only counts, for the run without libplace that says what the
 * output must be (glibc's own malloc is not async-signal-safe: allocating in a handler
 * crashes it now and then). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t handled;
static int noalloc;

static void on_alarm(int sig)
{
    (void)sig;
    char *p = noalloc ? NULL : malloc(48);
    if (p) {
        memset(p, 7, 48);
        free(p);
    }
    handled++;
}

int main(int argc, char **argv)
{
    long pairs = argc > 1 ? atol(argv[1]) : 1000000;
    noalloc = argc > 2 && strcmp(argv[2], "noalloc") == 0;
    struct sigaction sa = {.sa_handler = on_alarm, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval every = {{0, 200}, {0, 200}};
    setitimer(ITIMER_REAL, &every, NULL);
    unsigned long sum = 0;
    for (long k = 0; k < pairs; k++) {
        char *p = malloc(16 + (size_t)(k % 200));
        p[0] = (char)k;
        sum += (unsigned char)p[0];
        free(p);
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    printf("%ld pairs, checksum %lu, signals handled: %s\n", pairs, sum, handled > 0 ? "some" : "none");
    return 0;
}
