/* What cuda_linked and cuda_loader share: the setup, the block loop of `alloc`, `async`,
 * `pool` and `trim`, the data check, `info`, and the output. The includer defines DRV(f), how it
 * reaches driver function f: cuda_linked calls the symbol (DRV(f) is f), cuda_loader a pointer it
 * got from cuGetProcAddress. DRV_PER_THREAD(f) is f's per-thread-default-stream variant, which
 * `async` uses for every other block.
 *
 * The exit status, sizes and failures are prog.h's (included here). */
#include "prog.h"

/* Differs from block to block and from page to page, so a misplaced copy shows. */
static unsigned char pattern(unsigned long block, size_t i)
{
    return (unsigned char)(block * 131 + i * 7 + (i >> 12));
}

static void fill(unsigned char *p, unsigned long block, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = pattern(block, i);
}

static int same(const unsigned char *p, unsigned long block, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != pattern(block, i))
            return 0;
    return 1;
}

/* What the driver says an address is; pageable: the driver does not know it. */
static const char *kind_of(CUdeviceptr p)
{
    unsigned int managed = 0, type = 0;
    if (DRV(cuPointerGetAttribute)(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, p))
        return "pageable";
    if (managed)
        return "managed";
    if (DRV(cuPointerGetAttribute)(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p))
        return "unknown";
    return type == CU_MEMORYTYPE_DEVICE ? "device" : type == CU_MEMORYTYPE_HOST ? "host" : "other";
}

static void info(void)
{
    size_t free_ = 0, total = 0;
    CUresult rc = DRV(cuMemGetInfo)(&free_, &total);
    if (rc)
        failed("info", ~0ul, rc, 2);
    else
        printf("info free=%zu total=%zu\n", free_, total);
}

static CUdevice setup(const char *device_env)
{
    const char *s = getenv(device_env);
    CUdevice dev = 0;
    CUcontext ctx;
    CUresult rc = DRV(cuInit)(0);
    if (!rc)
        rc = DRV(cuDeviceGet)(&dev, s ? atoi(s) : 0);
    if (!rc)
        rc = DRV(cuDevicePrimaryCtxRetain)(&ctx, dev);
    if (!rc)
        rc = DRV(cuCtxSetCurrent)(ctx);
    if (rc) {
        failed("setup", ~0ul, rc, 3);
        exit(status);
    }
    return dev;
}

static int finish(CUdevice dev)
{
    CUresult rc = DRV(cuDevicePrimaryCtxRelease)(dev);
    if (rc)
        failed("release", ~0ul, rc, 2);
    return status;
}

/* Through the device: host -> to, then from -> host, compared with what went in (to and
 * from: one block, or two mappings of one memory). Said as "WHAT [K] data ok|WRONG"; K
 * ~0ul: none. */
static void check_data(const char *what, unsigned long k, CUdeviceptr to, CUdeviceptr from,
                       size_t size)
{
    unsigned char *buf = malloc(size);
    char label[64];
    if (!buf) {
        printf("%s: no host buffer\n", what);
        exit(3);
    }
    fill(buf, k, size);
    CUresult rc = DRV(cuMemcpyHtoD)(to, buf, size);
    memset(buf, 0, size);
    if (!rc)
        rc = DRV(cuMemcpyDtoH)(buf, from, size);
    snprintf(label, sizeof label, "%s%s", rc ? "copy of " : "", what);
    if (rc) {
        failed(label, k, rc, 2);
    } else {
        printf("%s", label);
        if (k != ~0ul)
            printf(" %lu", k);
        printf(" data %s\n", same(buf, k, size) ? "ok" : "WRONG");
        worst(same(buf, k, size) ? 0 : 2);
    }
    free(buf);
}

/* How blocks() allocates: cuMemAlloc, cuMemAllocAsync or cuMemAllocFromPoolAsync (these two
 * every other block on the per-thread stream), the stream-ordered ones freed with
 * cuMemFreeAsync. */
enum mode { BY_ALLOC, BY_ASYNC, BY_POOL };

/* COUNT blocks, each checked, then all freed; the first failing allocation ends the run.
 * Stream-ordered frees are waited for, so that the pools give back what they release. */
static void blocks(unsigned long count, size_t size, enum mode mode, CUmemoryPool pool)
{
    CUdeviceptr *p = calloc(count ? count : 1, sizeof *p);
    unsigned long n;
    info();
    for (n = 0; n < count; n++) {
        CUresult rc = mode == BY_ALLOC ? DRV(cuMemAlloc)(&p[n], size)
                      : mode == BY_POOL
                          ? n % 2 ? DRV_PER_THREAD(cuMemAllocFromPoolAsync)(&p[n], size, pool, 0)
                                  : DRV(cuMemAllocFromPoolAsync)(&p[n], size, pool, 0)
                      : n % 2 ? DRV_PER_THREAD(cuMemAllocAsync)(&p[n], size, 0)
                              : DRV(cuMemAllocAsync)(&p[n], size, 0);
        if (rc) {
            failed("block", n, rc, 1);
            break;
        }
        printf("block %lu kind=%s\n", n, kind_of(p[n]));
        check_data("block", n, p[n], p[n], size);
    }
    for (unsigned long k = 0; k < n; k++) {
        CUresult rc = mode == BY_ALLOC ? DRV(cuMemFree)(p[k])
                      : k % 2          ? DRV_PER_THREAD(cuMemFreeAsync)(p[k], 0)
                                       : DRV(cuMemFreeAsync)(p[k], 0);
        if (rc)
            failed("free of block", k, rc, 2);
    }
    /* The stream of the last free: the legacy stream waits for what the per-thread one did
     * before, and the per-thread one for what the legacy one did. */
    CUresult rc = mode == BY_ALLOC || !n ? CUDA_SUCCESS
                  : (n - 1) % 2          ? DRV_PER_THREAD(cuStreamSynchronize)(0)
                                         : DRV(cuStreamSynchronize)(0);
    if (rc)
        failed("sync", ~0ul, rc, 2);
    info();
    free(p);
}
