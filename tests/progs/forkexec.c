/* Forks three children, one after the other so their output comes in order: one execs a
 * program, one exits through exit() with a status of its own, one allocates and frees
 * 1000 blocks and returns from main; the parent prints their statuses and exits with its
 * own. The parent holds 5000 blocks across the forks, so a child that reported its
 * parent's counts instead of its own would show it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int status_of(pid_t pid)
{
    int st;
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
    if (argc > 1) { /* the exec'd child */
        printf("exec'd child says %s\n", argv[1]);
        return 5;
    }
    static void *held[5000];
    for (int k = 0; k < 5000; k++)
        held[k] = malloc(32);
    fflush(stdout);
    pid_t a = fork();
    if (a == 0) {
        execl("/proc/self/exe", "forkexec", "hello", (char *)NULL);
        _exit(127);
    }
    int sa = status_of(a);
    pid_t b = fork();
    if (b == 0) {
        char *s = strdup("child b allocates");
        printf("%s\n", s);
        free(s);
        exit(6);
    }
    int sb = status_of(b);
    pid_t c = fork();
    if (c == 0) {
        for (int k = 0; k < 1000; k++)
            free(malloc((size_t)k * 17));
        printf("child c done\n");
        return 0;
    }
    int sc = status_of(c);
    printf("statuses %d %d %d\n", sa, sb, sc);
    for (int k = 0; k < 5000; k++)
        free(held[k]);
    return 3;
}
