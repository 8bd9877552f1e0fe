// Two call sites that allocate through operator new, and one through strdup: the
// profile must name each caller, not the wrapper (libstdc++'s operator new, libc's
// strdup), so that two `new` sites show as two sites. Usage: twonew NODES BUFFERS
// KEEP: NODES blocks of 1 KiB from make_nodes, BUFFERS of 64 KiB from make_buffers,
// NODES strings of 100 characters from copy_names; the last KEEP of each stay live at
// exit, the rest are freed first.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__attribute__((noinline)) void make_nodes(std::vector<int *> &keep, int n)
{
    for (int k = 0; k < n; k++)
        keep.push_back(new int[256]);
}

__attribute__((noinline)) void make_buffers(std::vector<char *> &keep, int n)
{
    for (int k = 0; k < n; k++) {
        char *b = new char[65536];
        b[k % 65536] = 1;
        keep.push_back(b);
    }
}

__attribute__((noinline)) void copy_names(std::vector<char *> &keep, int n)
{
    static char name[101];
    memset(name, 'x', 100);
    for (int k = 0; k < n; k++)
        keep.push_back(strdup(name));
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    int nodes = atoi(argv[1]), buffers = atoi(argv[2]), kept = atoi(argv[3]);
    std::vector<int *> a;
    std::vector<char *> b, c;
    a.reserve(nodes);
    b.reserve(buffers);
    c.reserve(nodes);
    make_nodes(a, nodes);
    make_buffers(b, buffers);
    copy_names(c, nodes);
    long sum = 0;
    for (int k = 0; k < nodes - kept; k++) {
        delete[] a[k];
        free(c[k]);
    }
    for (int k = 0; k < buffers - kept; k++) {
        sum += b[k][k % 65536];
        delete[] b[k];
    }
    printf("%ld\n", sum);
    return 0;
}
