/* Site capture's hostile cases: threads that ask for their own attributes before they
 * allocate anything, as HotSpot does for every thread it starts (glibc allocates while
 * holding the thread's lock); and, with "altstack", a signal handler that allocates on
 * an alternate stack the program malloc'd.
 *
 * With "overflow", a thread overflows its stack and a SIGSEGV handler on an alternate
 * stack allocates before it jumps out: unwinding from it crosses the signal frame into
 * the frame whose stack pointer is the faulting address.
 *
 *   selfattr [altstack | overflow] */
#include <pthread.h>
#include <setjmp.h>
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

static sigjmp_buf out;

static void on_segv(int sig)
{
    (void)sig;
    void *p = malloc(5000);
    free(p);
    siglongjmp(out, 1);
}

static volatile int forever = 1; /* the compiler may not see that it never ends */

static int deeper(int n)
{
    volatile char pad[512];
    pad[0] = (char)n;
    return forever ? deeper(n + 1) + pad[0] : n;
}

static void *overflow(void *arg)
{
    stack_t ss = {.ss_sp = malloc(1 << 16), .ss_size = 1 << 16};
    sigaltstack(&ss, NULL);
    struct sigaction sa = {.sa_handler = on_segv, .sa_flags = SA_ONSTACK};
    sigaction(SIGSEGV, &sa, NULL);
    if (sigsetjmp(out, 1) == 0)
        deeper(0);
    return arg;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "overflow") == 0) {
        pthread_attr_t small;
        pthread_t t;
        pthread_attr_init(&small);
        pthread_attr_setstacksize(&small, 64 << 10);
        pthread_create(&t, &small, overflow, NULL);
        pthread_join(t, NULL);
        puts("the stack overflowed and the handler allocated");
        return 0;
    }
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
