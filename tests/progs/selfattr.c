/* Site capture's hostile cases: threads that ask for their own attributes before they
 * allocate anything, as HotSpot does for every thread it starts (glibc allocates while
 * holding the thread's lock); and, with "altstack", a signal handler that allocates on
 * an alternate stack the program malloc'd.
 *
 *   selfattr [altstack] */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

static void *run(void *arg)
{
    pthread_attr_t attr;
    void *lo;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &attr) != 0 || pthread_attr_getstack(&attr, &lo, &size) != 0)
        return NULL;
    pthread_attr_destroy(&attr);
    char *p = malloc(100);
    snprintf(p, 100, "thread %ld: stack of %zu KiB", (long)(intptr_t)arg, size >> 10);
    return p;
}

static volatile sig_atomic_t handled;

static void on_alarm(int sig)
{
    (void)sig;
    void *p = malloc(64);
    memset(p, 1, 64);
    free(p);
    handled++;
}

int main(int argc, char **argv)
{
    int altstack = argc > 1 && strcmp(argv[1], "altstack") == 0;
    pthread_attr_t attr; /* the main thread too: glibc reads /proc/self/maps for it */
    if (!altstack && pthread_getattr_np(pthread_self(), &attr) == 0)
        pthread_attr_destroy(&attr);
    for (long k = 0; k < 4 && !altstack; k++) {
        pthread_t t;
        void *out;
        pthread_create(&t, NULL, run, (void *)k);
        pthread_join(t, &out);
        puts(out ? (char *)out : "no attributes");
        free(out);
    }
    stack_t ss = {.ss_sp = malloc(1 << 16), .ss_size = 1 << 16};
    sigaltstack(&ss, NULL);
    struct sigaction sa = {.sa_handler = on_alarm, .sa_flags = SA_ONSTACK};
    sigaction(SIGUSR1, &sa, NULL);
    for (int k = 0; k < 100; k++)
        raise(SIGUSR1);
    printf("handled %d signals on the alternate stack\n", (int)handled);
    return 0;
}
