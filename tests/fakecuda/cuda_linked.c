/* cuda_linked: calls the CUDA driver through the symbols a program linked with -lcuda binds
 * (cuda.h's names: cuMemAlloc is cuMemAlloc_v2), so an LD_PRELOADed library that exports
 * them is what runs. Every subcommand first runs cuInit, retains the primary context of
 * device 0 (or $CUDA_LINKED_DEVICE) and makes it current.
 *
 *   alloc COUNT SIZE   COUNT cuMemAlloc blocks of SIZE: kind, data through the device, free
 *   async COUNT SIZE   the same with cuMemAllocAsync / cuMemFreeAsync on stream 0, then
 *                      cuStreamSynchronize
 *   pool COUNT SIZE    the same with cuMemAllocFromPoolAsync from a pool of cuMemPoolCreate,
 *                      then the pool's reserve, trimmed to 0, and its reserve again
 *   trim COUNT SIZE    the default pool keeps all (release threshold UINT64_MAX): `async`,
 *                      its reserve, `alloc`, its reserve again
 *   pitch WIDTH HEIGHT cuMemAllocPitch (elements of 4 bytes): pitch and kind
 *   host SIZE          cuMemHostAlloc (PORTABLE|DEVICEMAP) and cuMemAllocHost
 *   register SIZE      cuMemHostRegister of an mmap'd buffer, twice; unregister, twice
 *   managed SIZE       cuMemAllocManaged, used from the host, advised to the device
 *   create SIZE        cuMemCreate on the device (SIZE rounded up to the granularity)
 *   vmm SIZE           that memory mapped into two reserved ranges, its handle released at
 *                      once; data written through one and read through the other; unmapped
 *   hostcreate SIZE    cuMemCreate in host memory, then on host NUMA node 0: each mapped,
 *                      accessed through the device, unmapped and released
 *   info               cuMemGetInfo
 *   malloc COUNT SIZE  plain malloc blocks, each written and checked, with their kind
 * SIZE and COUNT take K, M and G. Nothing prints an address, so runs can be compared. */
#include <cuda.h>
#include <sys/mman.h>

#define DRV(f) f
#define DRV_PER_THREAD(f) f /* a linked program has the legacy-stream symbols only */
#include "cuda_prog.h"

static void pitch(size_t width, size_t height)
{
    CUdeviceptr p;
    size_t pitch;
    CUresult rc = cuMemAllocPitch(&p, &pitch, width, height, 4);
    if (rc) {
        failed("pitch", ~0ul, rc, 1);
        return;
    }
    printf("pitch=%zu kind=%s\n", pitch, kind_of(p));
    if ((rc = cuMemFree(p)))
        failed("free", ~0ul, rc, 2);
}

/* Pinned memory is mapped: its device address reads what the host wrote. */
static void host(size_t size)
{
    void *a, *b;
    CUdeviceptr d;
    CUresult rc = cuMemHostAlloc(&a, size, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
    if (rc) {
        failed("hostalloc", ~0ul, rc, 1);
        return;
    }
    printf("hostalloc kind=%s\n", kind_of((CUdeviceptr)a));
    if ((rc = cuMemAllocHost(&b, size))) {
        failed("allochost", ~0ul, rc, 1);
        cuMemFreeHost(a);
        return;
    }
    printf("allochost kind=%s\n", kind_of((CUdeviceptr)b));
    if ((rc = cuMemHostGetDevicePointer(&d, a, 0))) {
        failed("devptr", ~0ul, rc, 2);
    } else {
        printf("devptr %s\n", d == (CUdeviceptr)a ? "same" : "differs");
        fill(a, 0, size);
        if ((rc = cuMemcpyDtoH(b, d, size)))
            failed("copy", ~0ul, rc, 2);
        else if (same(b, 0, size))
            printf("host data ok\n");
        else
            printf("host data WRONG\n"), worst(2);
    }
    if ((rc = cuMemFreeHost(a)) || (rc = cuMemFreeHost(b)))
        failed("freehost", ~0ul, rc, 2);
}

static void expect(const char *what, CUresult rc, CUresult want)
{
    printf("%s: %s (%d)\n", what, name_of(rc), (int)rc);
    if (rc != want)
        worst(2);
}

static void register_(size_t size)
{
    void *buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *copy = malloc(size);
    CUdeviceptr d;
    if (buf == MAP_FAILED || !copy) {
        printf("register: no buffer\n");
        exit(3);
    }
    const unsigned flags = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP;
    CUresult rc = cuMemHostRegister(buf, size, flags);
    if (rc) {
        failed("register", ~0ul, rc, 1);
        goto out;
    }
    printf("register kind=%s\n", kind_of((CUdeviceptr)buf));
    expect("register again", cuMemHostRegister(buf, size, flags),
           CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    if ((rc = cuMemHostGetDevicePointer(&d, buf, 0))) {
        failed("devptr", ~0ul, rc, 2);
    } else {
        printf("devptr %s\n", d == (CUdeviceptr)buf ? "same" : "differs");
        fill(buf, 0, size);
        if ((rc = cuMemcpyDtoH(copy, d, size)))
            failed("copy", ~0ul, rc, 2);
        else if (same(copy, 0, size))
            printf("register data ok\n");
        else
            printf("register data WRONG\n"), worst(2);
    }
    expect("unregister", cuMemHostUnregister(buf), CUDA_SUCCESS);
    expect("unregister again", cuMemHostUnregister(buf), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
out:
    munmap(buf, size);
    free(copy);
}

static void managed(size_t size, CUdevice dev)
{
    CUdeviceptr p;
    CUresult rc = cuMemAllocManaged(&p, size, CU_MEM_ATTACH_GLOBAL);
    if (rc) {
        failed("managed", ~0ul, rc, 1);
        return;
    }
    printf("managed kind=%s\n", kind_of(p));
    fill((unsigned char *)p, 0, size);
    printf("managed data %s\n", same((unsigned char *)p, 0, size) ? "ok" : "WRONG");
    worst(same((unsigned char *)p, 0, size) ? 0 : 2);
    CUmemLocation loc = {CU_MEM_LOCATION_TYPE_DEVICE, dev};
    if ((rc = cuMemAdvise(p, size, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, loc)))
        failed("advise", ~0ul, rc, 2);
    else
        printf("advise ok\n");
    if ((rc = cuMemFree(p)))
        failed("free", ~0ul, rc, 2);
}

/* size rounded up to the granularity of memory as prop says; 0 when that fails (said). */
static size_t granular(size_t size, const CUmemAllocationProp *prop)
{
    size_t gran;
    CUresult rc = cuMemGetAllocationGranularity(&gran, prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    if (rc) {
        failed("granularity", ~0ul, rc, 2);
        return 0;
    }
    return (size + gran - 1) / gran * gran;
}

static void create(size_t size, CUdevice dev)
{
    CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                                .location = {CU_MEM_LOCATION_TYPE_DEVICE, dev}};
    CUmemGenericAllocationHandle h;
    CUresult rc;
    if (!(size = granular(size, &prop)))
        return;
    info();
    if ((rc = cuMemCreate(&h, size, &prop, 0))) {
        failed("create", ~0ul, rc, 1);
        return;
    }
    printf("create size=%zu ok\n", size);
    info();
    if ((rc = cuMemRelease(h)))
        failed("release", ~0ul, rc, 2);
    info();
}

/* The pool's reserve and what of it is in use: "pool reserved=R used=U". */
static void pool_line(CUmemoryPool pool)
{
    cuuint64_t reserved = 0, used = 0;
    CUresult rc = cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved);
    if (!rc)
        rc = cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used);
    if (rc)
        failed("pool attribute", ~0ul, rc, 2);
    else
        printf("pool reserved=%llu used=%llu\n", (unsigned long long)reserved,
               (unsigned long long)used);
}

/* A pool of its own on the device: blocks from it, freed and waited for, then trimmed. */
static void pool(unsigned long count, size_t size, CUdevice dev)
{
    CUmemPoolProps props = {.allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
                            .location = {CU_MEM_LOCATION_TYPE_DEVICE, dev}};
    CUmemoryPool p;
    CUresult rc = cuMemPoolCreate(&p, &props);
    if (rc) {
        failed("pool create", ~0ul, rc, 1);
        return;
    }
    blocks(count, size, BY_POOL, p);
    pool_line(p);
    if ((rc = cuMemPoolTrimTo(p, 0)))
        failed("trim", ~0ul, rc, 2);
    pool_line(p);
    if ((rc = cuMemPoolDestroy(p)))
        failed("pool destroy", ~0ul, rc, 2);
}

/* The default pool keeps what is freed into it: plain allocations then find the device
 * that much smaller. */
static void trim(unsigned long count, size_t size, CUdevice dev)
{
    CUmemoryPool p;
    cuuint64_t keep_all = UINT64_MAX;
    CUresult rc = cuDeviceGetDefaultMemPool(&p, dev);
    if (!rc)
        rc = cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep_all);
    if (rc) {
        failed("default pool", ~0ul, rc, 2);
        return;
    }
    blocks(count, size, BY_ASYNC, NULL);
    pool_line(p);
    blocks(count, size, BY_ALLOC, NULL);
    pool_line(p);
}

/* A range of size reserved, h mapped into it and made readable and writable for the
 * device; 0 when a step failed (said). */
static CUdeviceptr map_range(CUmemGenericAllocationHandle h, size_t size, CUdevice dev)
{
    CUmemAccessDesc access = {{CU_MEM_LOCATION_TYPE_DEVICE, dev},
                              CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    CUdeviceptr p = 0;
    CUresult rc = cuMemAddressReserve(&p, size, 0, 0, 0);
    if (rc) {
        failed("reserve", ~0ul, rc, 1);
        return 0;
    }
    if ((rc = cuMemMap(p, size, 0, h, 0))) {
        failed("map", ~0ul, rc, 2);
    } else if ((rc = cuMemSetAccess(p, size, &access, 1))) {
        failed("access", ~0ul, rc, 2);
        cuMemUnmap(p, size);
    } else {
        return p;
    }
    cuMemAddressFree(p, size);
    return 0;
}

static void unmap(CUdeviceptr p, size_t size)
{
    CUresult rc = cuMemUnmap(p, size);
    if (rc)
        failed("unmap", ~0ul, rc, 2);
}

static void address_free(CUdeviceptr p, size_t size)
{
    CUresult rc = cuMemAddressFree(p, size);
    if (rc)
        failed("address free", ~0ul, rc, 2);
}

/* One memory mapped twice, its handle released at once: the mappings share the data and
 * keep the memory until the last goes. */
static void vmm(size_t size, CUdevice dev)
{
    CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                                .location = {CU_MEM_LOCATION_TYPE_DEVICE, dev}};
    CUmemGenericAllocationHandle h;
    CUdeviceptr a, b = 0;
    if (!(size = granular(size, &prop)))
        return;
    CUresult rc = cuMemCreate(&h, size, &prop, 0);
    if (rc) {
        failed("create", ~0ul, rc, 1);
        return;
    }
    if ((a = map_range(h, size, dev)) && !(b = map_range(h, size, dev))) {
        unmap(a, size);
        address_free(a, size);
    }
    if ((rc = cuMemRelease(h)))
        failed("release", ~0ul, rc, 2);
    else
        printf("released\n");
    if (!b)
        return;
    info();
    check_data("vmm", ~0ul, a, b, size);
    unmap(a, size);
    info();
    unmap(b, size);
    info();
    address_free(a, size);
    address_free(b, size);
}

/* cuMemCreate in host memory, anywhere and on NUMA node 0, used through the device. */
static void hostcreate(size_t size, CUdevice dev)
{
    static const struct {
        CUmemLocationType type;
        const char *what;
    } locs[] = {{CU_MEM_LOCATION_TYPE_HOST, "hostcreate host"},
                {CU_MEM_LOCATION_TYPE_HOST_NUMA, "hostcreate host_numa"}};
    info();
    for (size_t i = 0; i < sizeof locs / sizeof locs[0]; i++) {
        CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                                    .location = {locs[i].type, 0}};
        CUmemGenericAllocationHandle h;
        CUdeviceptr p;
        size_t n = granular(size, &prop);
        if (!n)
            return;
        CUresult rc = cuMemCreate(&h, n, &prop, 0);
        if (rc) {
            failed(locs[i].what, ~0ul, rc, 1);
            continue;
        }
        if ((p = map_range(h, n, dev))) {
            check_data(locs[i].what, ~0ul, p, p, n);
            unmap(p, n);
            address_free(p, n);
        }
        if ((rc = cuMemRelease(h)))
            failed("release", ~0ul, rc, 2);
    }
    info();
}

/* Plain malloc in a process that uses CUDA: what a placement tool may move to CUDA memory. */
static void mallocs(unsigned long count, size_t size)
{
    unsigned char **p = calloc(count ? count : 1, sizeof *p);
    unsigned long n;
    for (n = 0; n < count && (p[n] = malloc(size)); n++) {
        fill(p[n], n, size);
        printf("block %lu kind=%s\n", n, kind_of((CUdeviceptr)p[n]));
    }
    if (n < count)
        printf("block %lu failed: malloc\n", n), worst(1);
    for (unsigned long k = 0; k < n; k++) {
        printf("block %lu data %s\n", k, same(p[k], k, size) ? "ok" : "WRONG");
        worst(same(p[k], k, size) ? 0 : 2);
        free(p[k]);
    }
    free(p);
}

int main(int argc, char **argv)
{
    enum {
        ALLOC,
        ASYNC,
        POOLS,
        TRIM,
        PITCH,
        MALLOC,
        HOST,
        REGISTER,
        MANAGED,
        CREATE,
        VMM,
        HOSTCREATE,
        INFO,
        NCMDS
    };
    static const char *const cmds[NCMDS] = {"alloc",  "async",      "pool",     "trim",    "pitch",
                                            "malloc", "host",       "register", "managed", "create",
                                            "vmm",    "hostcreate", "info"};
    int c = 0;
    while (c < NCMDS && (argc < 2 || strcmp(argv[1], cmds[c])))
        c++;
    int nargs = c < HOST ? 2 : c < INFO ? 1 : 0;
    if (c == NCMDS || argc != nargs + 2) {
        fprintf(stderr, "usage: cuda_linked alloc|async|pool|trim|pitch|malloc A B | "
                        "host|register|managed|create|vmm|hostcreate SIZE | info\n");
        return 64;
    }
    size_t a = nargs > 0 ? parse_size(argv[2]) : 0, b = nargs > 1 ? parse_size(argv[3]) : 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    CUdevice dev = setup("CUDA_LINKED_DEVICE");
    switch (c) {
    case ALLOC:
    case ASYNC:
        blocks(a, b, c == ASYNC ? BY_ASYNC : BY_ALLOC, NULL);
        break;
    case POOLS:
        pool(a, b, dev);
        break;
    case TRIM:
        trim(a, b, dev);
        break;
    case PITCH:
        pitch(a, b);
        break;
    case MALLOC:
        mallocs(a, b);
        break;
    case HOST:
        host(a);
        break;
    case REGISTER:
        register_(a);
        break;
    case MANAGED:
        managed(a, dev);
        break;
    case CREATE:
        create(a, dev);
        break;
    case VMM:
        vmm(a, dev);
        break;
    case HOSTCREATE:
        hostcreate(a, dev);
        break;
    default:
        info();
    }
    printf("done\n");
    return finish(dev);
}
