#include "driver.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "../../config/policy.h"
#include "../base/fmt.h"
#include "../base/out.h"
#include "tier.h"

struct place_driver place_cu;

/* What libplace calls, by the names the CUDA 13 headers give them. */
static const struct place_sym syms[] = {
    {(void **)&place_cu.Init, "cuInit"},
    {(void **)&place_cu.DeviceGetCount, "cuDeviceGetCount"},
    {(void **)&place_cu.DeviceGet, "cuDeviceGet"},
    {(void **)&place_cu.DeviceTotalMem, "cuDeviceTotalMem_v2"},
    {(void **)&place_cu.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"},
    {(void **)&place_cu.CtxGetCurrent, "cuCtxGetCurrent"},
    {(void **)&place_cu.CtxGetDevice, "cuCtxGetDevice"},
    {(void **)&place_cu.CtxPushCurrent, "cuCtxPushCurrent_v2"},
    {(void **)&place_cu.CtxPopCurrent, "cuCtxPopCurrent_v2"},
    {(void **)&place_cu.MemGetInfo, "cuMemGetInfo_v2"},
    {(void **)&place_cu.MemAlloc, "cuMemAlloc_v2"},
    {(void **)&place_cu.MemFree, "cuMemFree_v2"},
    {(void **)&place_cu.MemAllocManaged, "cuMemAllocManaged"},
    {(void **)&place_cu.MemAdvise, "cuMemAdvise_v2"},
    {(void **)&place_cu.MemHostRegister, "cuMemHostRegister_v2"},
    {(void **)&place_cu.MemHostUnregister, "cuMemHostUnregister"},
    {(void **)&place_cu.MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2"},
    {(void **)&place_cu.StreamSynchronize, "cuStreamSynchronize"},
    {(void **)&place_cu.GetErrorName, "cuGetErrorName"},
    {(void **)&place_cu.PointerGetAttribute, "cuPointerGetAttribute"},
    {(void **)&place_cu.DeviceGetUuid, "cuDeviceGetUuid_v2"},
    {(void **)&place_cu.DeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool"},
    {(void **)&place_cu.DeviceGetMemPool, "cuDeviceGetMemPool"},
    {(void **)&place_cu.MemPoolGetAttribute, "cuMemPoolGetAttribute"},
    {(void **)&place_cu.MemPoolTrimTo, "cuMemPoolTrimTo"},
};

/* libcuda.so.1, which the CUDA runtime itself dlopens: the handle serves the entry
 * points' own lookups even if a symbol libplace calls is missing. */
static struct place_lib libcuda = {
    .file = "libcuda.so.1",
    .absent = "no CUDA driver",
    .needs = "a CUDA 12.2 or later driver is needed",
    .syms = syms,
    .nsyms = sizeof syms / sizeof syms[0],
};

/* dlopens libcuda.so.1 and finds what libplace calls. NULL, or why it cannot. */
static const char *load(void)
{
    return place_lib_load(&libcuda);
}

void *place_driver_sym(const char *name)
{
    return place_lib_sym(&libcuda, name);
}

bool place_driver_owns(const void *fn)
{
    return place_lib_owns(libcuda.file, fn);
}

bool place_driver_running(void)
{
    static _Atomic bool running;
    if (atomic_load(&running))
        return true;
    void *h = dlopen(libcuda.file, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return false;
    CUresult (*count)(int *) = place_real_dlsym(h, "cuDeviceGetCount");
    int n;
    /* it answers CUDA_ERROR_NOT_INITIALIZED, and starts nothing, before cuInit */
    bool yes = count && count(&n) == CUDA_SUCCESS;
    dlclose(h);
    if (yes)
        atomic_store(&running, true);
    return yes;
}

/* "CUDA_ERROR_OUT_OF_MEMORY (2)" and the like, for messages. */
static const char *cu_error(CUresult rc, char *buf, size_t len)
{
    const char *name = NULL;
    if (!place_cu.GetErrorName || place_cu.GetErrorName(rc, &name) != CUDA_SUCCESS || !name)
        name = "CUDA error";
    snprintf(buf, len, "%s (%d)", name, (int)rc);
    return buf;
}

void place_cu_refused(struct place_tier *t, const char *call, size_t size, CUresult rc)
{
    char e[96], n[PLACE_SIZE_STR];
    if (!atomic_exchange(&t->refusals, true))
        place_warn("tier %s: the CUDA driver refused %s of %s: %s (the tier turns such "
                   "requests away; the report counts them)",
                   t->name, call, place_size_str(n, (int64_t)size),
                   cu_error(rc, e, sizeof e));
}

const char *place_driver_start(void)
{
    static char why[256];
    char e[96];
    const char *no = load();
    if (no)
        return no;
    CUresult rc = place_cu.Init(0);
    if (rc == CUDA_SUCCESS)
        rc = place_cu.DeviceGetCount(&place_cu.devices);
    if (rc != CUDA_SUCCESS) {
        snprintf(why, sizeof why, "the CUDA driver did not start: cuInit said %s",
                 cu_error(rc, e, sizeof e));
        return why;
    }
    if (place_cu.devices <= 0)
        return "the CUDA driver reports no GPU";
    if (place_cu.devices > 64)
        place_cu.devices = 64;
    for (int d = 0; d < place_cu.devices; d++) {
        CUdevice dev;
        if (place_cu.DeviceGet(&dev, d) != CUDA_SUCCESS ||
            place_cu.DeviceTotalMem(&place_cu.total[d], dev) != CUDA_SUCCESS)
            place_cu.total[d] = 0;
    }
    return NULL;
}

int place_ctx_device(void)
{
    CUcontext cur = NULL;
    CUdevice dev;
    if (place_cu.CtxGetCurrent(&cur) != CUDA_SUCCESS || !cur ||
        place_cu.CtxGetDevice(&dev) != CUDA_SUCCESS)
        return -1;
    return (int)dev;
}

CUresult place_ctx_enter(int dev, struct place_ctx *c)
{
    static _Atomic(CUcontext) primary[64];
    c->pushed = false;
    int cur = place_ctx_device();
    if (cur >= 0 && (dev < 0 || dev == cur))
        return CUDA_SUCCESS;
    if (dev < 0)
        dev = 0;
    if (dev >= place_cu.devices)
        return CUDA_ERROR_INVALID_DEVICE;
    CUcontext ctx = atomic_load(&primary[dev]);
    if (!ctx) {
        CUdevice d;
        CUresult rc = place_cu.DeviceGet(&d, dev);
        if (rc == CUDA_SUCCESS)
            rc = place_cu.DevicePrimaryCtxRetain(&ctx, d);
        if (rc != CUDA_SUCCESS)
            return rc;
        CUcontext none = NULL;
        /* retained once for the process: a second retain by a racing thread is harmless,
         * the primary context is one per GPU */
        atomic_compare_exchange_strong(&primary[dev], &none, ctx);
    }
    CUresult rc = place_cu.CtxPushCurrent(ctx);
    c->pushed = rc == CUDA_SUCCESS;
    return rc;
}

void place_ctx_leave(struct place_ctx *c)
{
    CUcontext ctx;
    if (c->pushed)
        place_cu.CtxPopCurrent(&ctx);
}

CUresult place_cu_call_alloc(struct place_cu_call *c, CUdeviceptr *dptr, size_t size)
{
    switch (c->how) {
    case PLACE_CU_PITCH:
        c->pitched = true;
        return ((CUresult(*)(CUdeviceptr *, size_t *, size_t, size_t, unsigned))c->next)(
            dptr, c->pitch, c->width, c->height, c->elem);
    case PLACE_CU_ASYNC:
        return ((CUresult(*)(CUdeviceptr *, size_t, CUstream))c->next)(dptr, size, c->stream);
    default:
        return ((CUresult(*)(CUdeviceptr *, size_t))c->next)(dptr, size);
    }
}

CUresult place_cu_call_free(const struct place_cu_call *c, CUdeviceptr d)
{
    return c->how == PLACE_CU_ASYNC ? ((CUresult(*)(CUdeviceptr, CUstream))c->next)(d, c->stream)
                                    : ((CUresult(*)(CUdeviceptr))c->next)(d);
}
