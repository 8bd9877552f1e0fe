/* measure COMMAND [ARGS...]: runs the command and prints, on stderr after it ends,
 *   measure: wall_ns=N maxrss_kib=N status=N
 *
 * Linked statically, so its own resident set is a few hundred KiB: the kernel keeps a
 * process's peak RSS across exec, so a child forked from a larger parent (a Python
 * harness, say) would report the parent's size for a small program. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: measure COMMAND [ARGS...]\n");
        return 2;
    }
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pid_t pid = fork();
    if (pid < 0) {
        perror("measure: fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        perror("measure: exec");
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) {
        perror("measure: wait4");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    long long ns = (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    fprintf(stderr, "measure: wall_ns=%lld maxrss_kib=%ld status=%d\n", ns, ru.ru_maxrss, code);
    return code;
}
