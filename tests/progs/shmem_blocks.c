/* An OpenSHMEM program with known symmetric allocations, for shmem.bats: each PE makes
 * the same calls through every entry point libplace interposes, writes its blocks end
 * to end, and prints, per block, what the kernel says of its first whole page's NUMA
 * policy (get_mempolicy) and of where its pages are (move_pages). The blocks are then
 * freed, so the report's symmetric bytes in use end at 0.
 *
 * Output per block: "pe P NAME SIZE policy MODE nodes MASK pages ON/ALL on node N". */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *mode_name(int mode)
{
    static const char *const names[] = {"default", "preferred", "bind", "interleave", "local",
                                        "preferred_many"};
    return mode >= 0 && mode < 6 ? names[mode] : "other";
}

static void show(int pe, const char *name, void *p, size_t size)
{
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    uintptr_t hi = ((uintptr_t)p + size) & ~((uintptr_t)page - 1);
    memset(p, 1, size);
    int mode = -1;
    unsigned long mask = 0;
    if (hi > lo && syscall(SYS_get_mempolicy, &mode, &mask, 64, (void *)lo, 2 /* MPOL_F_ADDR */))
        mode = -1;
    /* where the pages are: count them on the node of the first one */
    enum { MAX = 4096 };
    static void *pages[MAX];
    static int status[MAX];
    unsigned long n = 0;
    for (uintptr_t a = lo; a < hi && n < MAX; a += (uintptr_t)page)
        pages[n++] = (void *)a;
    int node = -1;
    unsigned long on = 0;
    if (n && syscall(SYS_move_pages, 0, n, pages, NULL, status, 0) == 0) {
        node = status[0];
        for (unsigned long k = 0; k < n; k++)
            on += status[k] == node;
    }
    printf("pe %d %s %zu policy %s nodes %#lx pages %lu/%lu on node %d\n", pe, name, size,
           hi > lo ? mode_name(mode) : "none", mask, on, n, node);
}

int main(void)
{
    shmem_init();
    int pe = shmem_my_pe();
    char *a = shmem_malloc(4 << 20);
    long *b = shmem_calloc(1000, sizeof(long));
    char *c = shmem_align(1 << 21, 3 << 20);
    char *d = shmalloc(1 << 20);
    if (!a || !b || !c || !d) { /* every PE fails alike: each ends as it would, with 1 */
        fprintf(stderr, "pe %d: a symmetric allocation failed\n", pe);
        shmem_free(a);
        shmem_free(b);
        shmem_free(c);
        shfree(d);
        shmem_finalize();
        return 1;
    }
    a = shmem_realloc(a, 6 << 20);
    show(pe, "malloc+realloc", a, 6 << 20);
    show(pe, "calloc", b, 1000 * sizeof(long));
    show(pe, "align", c, 3 << 20);
    show(pe, "shmalloc", d, 1 << 20);
    fflush(stdout);
    shmem_barrier_all();
    shmem_free(a);
    shmem_free(b);
    shmem_free(c);
    shfree(d);
    shmem_finalize();
    return 0;
}
