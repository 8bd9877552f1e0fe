# Threads pinned each to one CPU (near.py CPU...) allocate a large block (8 MiB) and 32
# small ones (16 KiB), touch every page and print on which NUMA nodes the kernel holds
# them, as move_pages says: "cpu 0 large: node 2 2048" and "cpu 0 small: node 2 128".
# Run under libplace in scripts/numa-vm.
import ctypes
import os
import sys
import threading

PAGE = 4096
numa = ctypes.CDLL("libnuma.so.1")
numa.numa_move_pages.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p,
                                 ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
libc = ctypes.CDLL(None)
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
results = {}


def nodes(blocks, size):
    """The pages of the blocks touched, and on which node each lies: {node: pages}."""
    pages = []
    for base in blocks:
        for off in range(0, size, PAGE):
            ctypes.memset(base + off, 1, 1)
        first = (base + PAGE - 1) // PAGE * PAGE
        pages += range(first, base + size - PAGE + 1, PAGE)
    where = (ctypes.c_void_p * len(pages))(*pages)
    status = (ctypes.c_int * len(pages))()
    assert numa.numa_move_pages(0, len(pages), where, None, status, 0) == 0
    counts = {}
    for s in status:
        counts[s] = counts.get(s, 0) + 1
    return ", ".join(f"node {s} {c}" for s, c in sorted(counts.items()))


def run(cpu):
    os.sched_setaffinity(0, {cpu})  # this thread only
    # malloc'd and never freed: still live when libplace checks their pages at exit
    large = [libc.malloc(8 << 20)]
    small = [libc.malloc(16 << 10) for _ in range(32)]
    results[cpu] = (nodes(large, 8 << 20), nodes(small, 16 << 10))


threads = [threading.Thread(target=run, args=(int(c),)) for c in sys.argv[1:]]
for t in threads:
    t.start()
for t in threads:
    t.join()
for cpu, (large, small) in sorted(results.items()):
    print(f"cpu {cpu} large: {large}")
    print(f"cpu {cpu} small: {small}")
