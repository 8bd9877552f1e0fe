# Allocates COUNT buffers of MIB MiB (where.py [COUNT [MIB]]: 1 and 8 by default), touches
# every page and prints on which NUMA nodes the kernel holds them, per buffer, as
# move_pages says: "buffer 0: node 1 2048" (node, pages). Run under libplace in
# scripts/numa-vm.
import ctypes
import sys

SIZE, PAGE = (int(sys.argv[2]) if len(sys.argv) > 2 else 8) << 20, 4096
numa = ctypes.CDLL("libnuma.so.1")
numa.numa_move_pages.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p,
                                 ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
libc = ctypes.CDLL(None)
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
# malloc'd and never freed: still live when libplace checks their pages at exit (a
# freed big block's pages go back to the kernel)
buffers = [libc.malloc(SIZE) for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 1)]
for k, base in enumerate(buffers):
    for off in range(0, SIZE, PAGE):
        ctypes.memset(base + off, 1, 1)
    first = (base + PAGE - 1) // PAGE * PAGE
    n = (base + SIZE - first) // PAGE
    pages = (ctypes.c_void_p * n)(*[first + i * PAGE for i in range(n)])
    status = (ctypes.c_int * n)()
    assert numa.numa_move_pages(0, n, pages, None, status, 0) == 0
    counts = {}
    for s in status:
        counts[s] = counts.get(s, 0) + 1
    print(f"buffer {k}: " + ", ".join(f"node {s} {c}" for s, c in sorted(counts.items())))
