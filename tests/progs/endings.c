/* Ways a program ends other than returning from main, each after installing what handlers
 * it needs, allocating 1000 blocks of 4 KiB (kept) and printing "allocated" (flushed):
 *   wait       sleep until a signal ends it (kill -TERM, -INT, -HUP, -QUIT)
 *   segv       a write through a null pointer
 *   abort      abort()
 *   fpe        an integer division by zero
 *   rethrow    a SIGSEGV handler of its own, installed with SA_RESETHAND, that prints
 *              "handled" and raises the signal again (as Open MPI's backtrace handler does)
 *   keepint    a SIGINT handler of its own (signal()) that ends the sleep; then it reads the
 *              action back, expecting its own handler, and exits 3
 *   ignore     SIGTERM ignored, then raised at itself; exits 4 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t interrupted;

static void on_int(int sig)
{
    (void)sig;
    interrupted = 1;
}

static void on_segv(int sig)
{
    static const char msg[] = "handled\n";
    (void)!write(1, msg, sizeof msg - 1);
    raise(sig);
}

int main(int argc, char **argv)
{
    volatile int *null = (volatile int *)(uintptr_t)(argc - 2); /* not known to be NULL */
    const char *how = argc > 1 ? argv[1] : "";
    if (strcmp(how, "rethrow") == 0) {
        struct sigaction sa = {.sa_handler = on_segv, .sa_flags = SA_RESETHAND};
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, NULL);
    } else if (strcmp(how, "keepint") == 0) {
        signal(SIGINT, on_int);
    }
    for (int k = 0; k < 1000; k++) {
        char *p = malloc(4096);
        if (!p)
            return 1;
        memset(p, k, 4096);
    }
    printf("allocated\n");
    fflush(stdout);
    if (strcmp(how, "wait") == 0) {
        for (;;)
            pause();
    } else if (strcmp(how, "segv") == 0) {
        *null = 1;
    } else if (strcmp(how, "abort") == 0) {
        abort();
    } else if (strcmp(how, "fpe") == 0) {
        volatile int zero = argc - 2;
        volatile int n = argc * 7;
        printf("%d\n", n / zero);
    } else if (strcmp(how, "rethrow") == 0) {
        *null = 1;
    } else if (strcmp(how, "keepint") == 0) {
        while (!interrupted) /* not pause(): the signal may come just before it */
            usleep(1000);
        struct sigaction now;
        sigaction(SIGINT, NULL, &now);
        printf("own handler %s\n", now.sa_handler == on_int ? "kept" : "lost");
        return 3;
    } else if (strcmp(how, "ignore") == 0) {
        signal(SIGTERM, SIG_IGN);
        raise(SIGTERM);
        printf("ignored\n");
        return 4;
    }
    return 2;
}
