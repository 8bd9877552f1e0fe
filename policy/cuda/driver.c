#include "driver.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stdio.h>

#include "../../shim/dlsym.h"
#include "../../shim/thread.h"
#include "../fmt.h"
#include "../out.h"
#include "../tier.h"

struct place_driver place_cu;
const char place_driver_busy[] = "the CUDA driver is being started by another thread";

/* Runs step once: its verdict (NULL or why not) to every later caller, and
 * place_driver_busy to one that comes while another thread runs it (dlopen holds the
 * loader's lock: waiting could deadlock). The driver's own allocations meanwhile are
 * glibc's. */
struct once {
    _Atomic int state; /* 0 not tried, 1 under way, 2 done */
    const char *verdict;
};

static const char *once(struct once *o, const char *(*step)(void))
{
    int expect = 0;
    if (atomic_load_explicit(&o->state, memory_order_acquire) == 2)
        return o->verdict;
    if (!atomic_compare_exchange_strong(&o->state, &expect, 1))
        return expect == 2 ? o->verdict : place_driver_busy;
    uint8_t was = place_guard_enter();
    o->verdict = step();
    place_guard_leave(was);
    atomic_store_explicit(&o->state, 2, memory_order_release);
    return o->verdict;
}

/* What libplace calls, by the names the CUDA 13 headers give them. */
#define SYM(field, name)                                                                           \
    {                                                                                              \
        (void **)&place_cu.field, name                                                             \
    }
static const struct {
    void **fn;
    const char *name;
} syms[] = {
    SYM(Init, "cuInit"),
    SYM(DeviceGetCount, "cuDeviceGetCount"),
    SYM(DeviceGet, "cuDeviceGet"),
    SYM(DeviceTotalMem, "cuDeviceTotalMem_v2"),
    SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
    SYM(CtxGetCurrent, "cuCtxGetCurrent"),
    SYM(CtxGetDevice, "cuCtxGetDevice"),
    SYM(CtxPushCurrent, "cuCtxPushCurrent_v2"),
    SYM(CtxPopCurrent, "cuCtxPopCurrent_v2"),
    SYM(MemGetInfo, "cuMemGetInfo_v2"),
    SYM(MemAlloc, "cuMemAlloc_v2"),
    SYM(MemFree, "cuMemFree_v2"),
    SYM(MemAllocManaged, "cuMemAllocManaged"),
    SYM(MemAdvise, "cuMemAdvise_v2"),
    SYM(MemHostRegister, "cuMemHostRegister_v2"),
    SYM(MemHostUnregister, "cuMemHostUnregister"),
    SYM(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2"),
    SYM(StreamSynchronize, "cuStreamSynchronize"),
    SYM(GetErrorName, "cuGetErrorName"),
};

static const char *load(void)
{
    static char why[256];
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "no CUDA driver (%s)", e ? e : "libcuda.so.1 not found");
        return why;
    }
    /* the handle serves the entry points' own lookups even if libplace lacks a symbol */
    place_cu.handle = h;
    for (size_t k = 0; k < sizeof syms / sizeof syms[0]; k++)
        if (!(*syms[k].fn = place_real_dlsym(h, syms[k].name))) {
            snprintf(why, sizeof why,
                     "the CUDA driver lacks %s (a CUDA 12.2 or later driver is needed)",
                     syms[k].name);
            return why;
        }
    return NULL;
}

const char *place_driver_load(void)
{
    static struct once loaded;
    return once(&loaded, load);
}

void *place_driver_sym(const char *name)
{
    place_driver_load();
    return place_cu.handle ? place_real_dlsym(place_cu.handle, name) : NULL;
}

bool place_driver_owns(const void *fn)
{
    Dl_info info;
    struct link_map *map = NULL;
    if (!dladdr1(fn, &info, (void **)&map, RTLD_DL_LINKMAP) || !map)
        return false;
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return false;
    dlclose(h);
    /* glibc's handle is the library's link map */
    return (void *)map == h;
}

const char *place_cu_error(CUresult rc, char *buf, size_t len)
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
                   place_cu_error(rc, e, sizeof e));
}

static const char *start(void)
{
    static char why[256];
    char e[96];
    const char *no = place_driver_load();
    if (no)
        return no;
    CUresult rc = place_cu.Init(0);
    if (rc == CUDA_SUCCESS)
        rc = place_cu.DeviceGetCount(&place_cu.devices);
    if (rc != CUDA_SUCCESS) {
        snprintf(why, sizeof why, "the CUDA driver did not start: cuInit said %s",
                 place_cu_error(rc, e, sizeof e));
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

const char *place_driver_start(void)
{
    static struct once started;
    return once(&started, start);
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
