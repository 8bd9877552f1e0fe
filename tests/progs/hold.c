/* Holds memory in a node for tests/bats/scope.bats, whose limit the machine's processes
 * share (scope = node).
 *
 *   hold SIZE COUNT MS [fork]
 *       COUNT blocks of SIZE (K and M taken), each written, with the node that holds it
 *       (include/libplace.h) or the error; "holding" and what node "shared" has available
 *       to every process; then MS ms of sleep, the blocks freed, "done". With fork, a child
 *       then does the same with one block and ends before the parent frees its own. With
 *       forks, a thread keeps small blocks cached (allocated and freed, 1000 bytes) while
 *       the main thread forks five children that end at once, each fork followed by what
 *       shared has available.
 * Output is line-buffered, so that a test can wait for "holding". */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <libplace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static size_t parse_size(const char *s)
{
    char *end;
    size_t v = strtoull(s, &end, 10);
    return *end == 'M' ? v << 20 : *end == 'K' ? v << 10 : v;
}

static void report(const char *who)
{
    printf("%s holding, shared has %lld available\n", who, place_available("shared"));
}

/* COUNT blocks into p, each told. */
static void take(const char *who, void **p, size_t count, size_t size)
{
    for (size_t k = 0; k < count; k++) {
        char node[64] = "?";
        errno = 0;
        if (!(p[k] = malloc(size))) {
            printf("%s block %zu failed: %s\n", who, k, strerror(errno));
            continue;
        }
        memset(p[k], 1, size);
        place_node_of(p[k], node, sizeof node);
        printf("%s block %zu node=%s\n", who, k, node);
    }
}

static atomic_int cached;

/* Small blocks freed into this thread's cache, which a forked child does not inherit. */
static void *cacher(void *arg)
{
    (void)arg;
    void *v[30];
    for (int round = 0; round < 50; round++) {
        for (int i = 0; i < 30; i++)
            v[i] = malloc(1000);
        for (int i = 0; i < 30; i++)
            free(v[i]);
    }
    atomic_store(&cached, 1);
    while (atomic_load(&cached) == 1)
        usleep(1000);
    return NULL;
}

static void forks(void)
{
    pthread_t t;
    pthread_create(&t, NULL, cacher, NULL);
    while (!atomic_load(&cached))
        usleep(1000);
    report("before forks");
    for (int k = 0; k < 5; k++) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(0);
        waitpid(pid, NULL, 0);
        report("after a fork");
    }
    atomic_store(&cached, 2);
    pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: hold SIZE COUNT MS [fork]\n");
        return 64;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    size_t size = parse_size(argv[1]), count = strtoull(argv[2], NULL, 10);
    long ms = atol(argv[3]);
    void **p = calloc(count + 1, sizeof *p);
    take("parent", p, count, size);
    report("parent");
    if (argc > 4 && strcmp(argv[4], "forks") == 0)
        forks();
    if (argc > 4 && strcmp(argv[4], "fork") == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            void *q[1];
            take("child", q, 1, size);
            report("child");
            free(q[0]);
            _exit(0);
        }
        waitpid(pid, NULL, 0);
        report("after child");
    }
    nanosleep(&(struct timespec){ms / 1000, ms % 1000 * 1000000L}, NULL);
    for (size_t k = 0; k < count; k++)
        free(p[k]);
    printf("done\n");
    return 0;
}
