/* cuda_linked: calls the CUDA driver through the symbols a program linked with -lcuda binds
 * (cuda.h's names: cuMemAlloc is cuMemAlloc_v2), so an LD_PRELOADed library that exports
 * them is what runs. Every subcommand first runs cuInit, retains the primary context of
 * device 0 (or $CUDA_LINKED_DEVICE) and makes it current.
 *
 *   alloc COUNT SIZE   COUNT cuMemAlloc blocks of SIZE: kind, data through the device, free
 *   async COUNT SIZE   the same with cuMemAllocAsync / cuMemFreeAsync on stream 0
 *   pitch WIDTH HEIGHT cuMemAllocPitch (elements of 4 bytes): pitch and kind
 *   host SIZE          cuMemHostAlloc (PORTABLE|DEVICEMAP) and cuMemAllocHost
 *   register SIZE      cuMemHostRegister of an mmap'd buffer, twice; unregister, twice
 *   managed SIZE       cuMemAllocManaged, used from the host, advised to the device
 *   create SIZE        cuMemCreate on the device (SIZE rounded up to the granularity)
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

static void create(size_t size, CUdevice dev)
{
    CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                                .location = {CU_MEM_LOCATION_TYPE_DEVICE, dev}};
    CUmemGenericAllocationHandle h;
    size_t gran;
    CUresult rc = cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    if (rc) {
        failed("granularity", ~0ul, rc, 2);
        return;
    }
    size = (size + gran - 1) / gran * gran;
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
    enum { ALLOC, ASYNC, PITCH, MALLOC, HOST, REGISTER, MANAGED, CREATE, INFO, NCMDS };
    static const char *const cmds[NCMDS] = {"alloc",    "async",   "pitch",  "malloc", "host",
                                            "register", "managed", "create", "info"};
    int c = 0;
    while (c < NCMDS && (argc < 2 || strcmp(argv[1], cmds[c])))
        c++;
    int nargs = c < HOST ? 2 : c < INFO ? 1 : 0;
    if (c == NCMDS || argc != nargs + 2) {
        fprintf(stderr, "usage: cuda_linked alloc|async|pitch|malloc A B | "
                        "host|register|managed|create SIZE | info\n");
        return 64;
    }
    size_t a = nargs > 0 ? parse_size(argv[2]) : 0, b = nargs > 1 ? parse_size(argv[3]) : 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    CUdevice dev = setup("CUDA_LINKED_DEVICE");
    switch (c) {
    case ALLOC:
    case ASYNC:
        blocks(a, b, c == ASYNC);
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
    default:
        info();
    }
    printf("done\n");
    return finish(dev);
}
