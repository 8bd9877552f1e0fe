/* nvml_prog: matches the CUDA devices with NVML's and prints what NVML says of each one's
 * memory, as a tool that places memory by what the GPUs have free does. Built twice:
 * nvml_loader loads NVML as pynvml and PyTorch do (dlopen("libnvidia-ml.so.1") and one
 * dlsym per function); nvml_linked (-DLINKED) is linked with it, as a program built with
 * -lnvidia-ml is. Both are linked with libcuda for the CUDA side.
 *
 *   nvml_prog [SIZE]
 *
 * cuInit, the primary context of device 0 (or $CUDA_LINKED_DEVICE) made current; with SIZE
 * (bytes, K, M or G) a block of SIZE allocated there with cuMemAlloc. Then it prints
 *   cuda free=F total=T                         cuMemGetInfo
 * and, after nvmlInit_v2, for each CUDA device D in CUDA's order, the NVML device with the
 * same UUID (NVML's order need not be CUDA's: the devices are matched by UUID, never by
 * index):
 *   gpu D nvml=I total=T free=F used=U          nvmlDeviceGetMemoryInfo, NVML index I
 *   gpu D v2 total=T reserved=R free=F used=U   nvmlDeviceGetMemoryInfo_v2
 * then, once (on NVML index 0),
 *   v2 bad version: RC                          nvmlDeviceGetMemoryInfo_v2 with version 1
 * (RC the nvmlReturn_t, NVML_ERROR_ARGUMENT_VERSION_MISMATCH (25) expected); nvmlShutdown,
 * the block freed, the context released. A failing call prints `WHAT failed: NAME (RC)`.
 * Nothing prints an address, so runs can be compared.
 *
 * Exit status: 0 everything worked, 1 the allocation failed, 2 a call that must succeed
 * failed or gave a wrong result, 3 CUDA or NVML could not be set up, 64 usage. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvml_api.h"

#define DRV(f) f /* linked with libcuda */
#include "prog.h"

#ifdef LINKED
#define NVML(f) f
#else
#include <dlfcn.h>
#define NVML(f) nvml.f

/* Each member has its function's type, and is found by the function's own name. */
#define NVML_FUNCTIONS(X)                                                                          \
    X(nvmlInit_v2)                                                                                 \
    X(nvmlShutdown)                                                                                \
    X(nvmlErrorString)                                                                             \
    X(nvmlDeviceGetCount_v2)                                                                       \
    X(nvmlDeviceGetHandleByIndex_v2)                                                               \
    X(nvmlDeviceGetUUID)                                                                           \
    X(nvmlDeviceGetMemoryInfo)                                                                     \
    X(nvmlDeviceGetMemoryInfo_v2)

static struct {
#define MEMBER(f) __typeof__(f) *f;
    NVML_FUNCTIONS(MEMBER)
#undef MEMBER
} nvml;
#endif

static void nvml_failed(const char *what, nvmlReturn_t rc, int code)
{
    const char *s = NVML(nvmlErrorString)(rc);
    printf("%s failed: %s (%d)\n", what, s ? s : "?", (int)rc);
    worst(code);
}

#ifndef LINKED
/* As pynvml does: the library by its soname, then each function by name. */
static int load_nvml(void)
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("dlopen libnvidia-ml.so.1 failed\n");
        return -1;
    }
#define LOAD(f)                                                                                    \
    {                                                                                              \
        void *p = dlsym(h, #f);                                                                    \
        if (!p) {                                                                                  \
            printf("dlsym %s failed\n", #f);                                                       \
            return -1;                                                                             \
        }                                                                                          \
        memcpy(&nvml.f, &p, sizeof p);                                                             \
    }
    NVML_FUNCTIONS(LOAD)
#undef LOAD
    return 0;
}
#endif

/* cuDeviceGetUuid's bytes as NVML writes a UUID: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx. */
static void uuid_string(const CUuuid *u, char out[NVML_DEVICE_UUID_BUFFER_SIZE])
{
    char *p = out + sprintf(out, "GPU-");
    for (int i = 0; i < 16; i++)
        p += sprintf(p, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "",
                     (unsigned char)u->bytes[i]);
}

/* The NVML index of CUDA device dev, found by UUID; -1 when NVML has no such device. */
static int nvml_index(CUdevice dev, unsigned count, nvmlDevice_t *handle)
{
    CUuuid u;
    char want[NVML_DEVICE_UUID_BUFFER_SIZE], have[NVML_DEVICE_UUID_BUFFER_SIZE];
    CUresult crc = cuDeviceGetUuid_v2(&u, dev);
    if (crc) {
        failed("uuid", ~0ul, crc, 2);
        return -1;
    }
    uuid_string(&u, want);
    for (unsigned i = 0; i < count; i++) {
        nvmlReturn_t rc = NVML(nvmlDeviceGetHandleByIndex_v2)(i, handle);
        if (!rc)
            rc = NVML(nvmlDeviceGetUUID)(*handle, have, sizeof have);
        if (rc) {
            nvml_failed("nvml uuid", rc, 2);
            continue;
        }
        if (!strcmp(have, want))
            return (int)i;
    }
    printf("gpu %d not in nvml\n", (int)dev);
    worst(2);
    return -1;
}

static void gpu(CUdevice dev, unsigned count)
{
    nvmlDevice_t h;
    int i = nvml_index(dev, count, &h);
    if (i < 0)
        return;
    nvmlMemory_t m1;
    nvmlReturn_t rc = NVML(nvmlDeviceGetMemoryInfo)(h, &m1);
    if (rc)
        nvml_failed("nvmlDeviceGetMemoryInfo", rc, 2);
    else
        printf("gpu %d nvml=%d total=%llu free=%llu used=%llu\n", (int)dev, i, m1.total, m1.free,
               m1.used);
    nvmlMemory_v2_t m2 = {.version = nvmlMemory_v2};
    if ((rc = NVML(nvmlDeviceGetMemoryInfo_v2)(h, &m2)))
        nvml_failed("nvmlDeviceGetMemoryInfo_v2", rc, 2);
    else
        printf("gpu %d v2 total=%llu reserved=%llu free=%llu used=%llu\n", (int)dev, m2.total,
               m2.reserved, m2.free, m2.used);
}

/* The v2 query with the version of a struct NVML does not know: it must be refused. */
static void bad_version(unsigned count)
{
    nvmlDevice_t h;
    nvmlReturn_t rc = count ? NVML(nvmlDeviceGetHandleByIndex_v2)(0, &h) : NVML_ERROR_NOT_FOUND;
    if (rc) {
        nvml_failed("nvml device 0", rc, 2);
        return;
    }
    nvmlMemory_v2_t m = {.version = (unsigned)sizeof m | 1u << 24};
    rc = NVML(nvmlDeviceGetMemoryInfo_v2)(h, &m);
    printf("v2 bad version: %d\n", (int)rc);
    if (rc != NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
        worst(2);
}

int main(int argc, char **argv)
{
    if (argc > 2) {
        fprintf(stderr, "usage: nvml_prog [SIZE]\n");
        return 64;
    }
    size_t size = argc == 2 ? parse_size(argv[1]) : 0;
    setvbuf(stdout, NULL, _IOLBF, 0);

    const char *s = getenv("CUDA_LINKED_DEVICE");
    CUdevice dev = 0;
    CUcontext ctx;
    CUresult crc = cuInit(0);
    if (!crc)
        crc = cuDeviceGet(&dev, s ? atoi(s) : 0);
    if (!crc)
        crc = cuDevicePrimaryCtxRetain(&ctx, dev);
    if (!crc && (crc = cuCtxSetCurrent(ctx)))
        cuDevicePrimaryCtxRelease(dev);
    if (crc) {
        failed("setup", ~0ul, crc, 3);
        return status;
    }

    CUdeviceptr block = 0;
    if (argc == 2 && (crc = cuMemAlloc(&block, size))) {
        failed("alloc", ~0ul, crc, 1);
        cuDevicePrimaryCtxRelease(dev);
        return status;
    }
    size_t free_ = 0, total = 0;
    if ((crc = cuMemGetInfo(&free_, &total)))
        failed("cuMemGetInfo", ~0ul, crc, 2);
    else
        printf("cuda free=%zu total=%zu\n", free_, total);

    int ncuda = 0;
    unsigned count = 0;
    nvmlReturn_t rc = NVML_SUCCESS;
    int up = 1;
#ifndef LINKED
    if (load_nvml())
        worst(3), up = 0;
#endif
    if (up && (rc = NVML(nvmlInit_v2)()))
        nvml_failed("nvmlInit_v2", rc, 3), up = 0;
    if (up) {
        if ((rc = NVML(nvmlDeviceGetCount_v2)(&count)))
            nvml_failed("nvmlDeviceGetCount_v2", rc, 2);
        if ((crc = cuDeviceGetCount(&ncuda)))
            failed("cuDeviceGetCount", ~0ul, crc, 2);
        for (int d = 0; d < ncuda; d++)
            gpu(d, count);
        bad_version(count);
        if ((rc = NVML(nvmlShutdown)()))
            nvml_failed("nvmlShutdown", rc, 2);
    }

    if (block && (crc = cuMemFree(block)))
        failed("cuMemFree", ~0ul, crc, 2);
    if ((crc = cuDevicePrimaryCtxRelease(dev)))
        failed("release", ~0ul, crc, 2);
    return status;
}
