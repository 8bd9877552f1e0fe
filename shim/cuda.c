/* The CUDA entry points: the driver's memory calls, the cuGetProcAddress through which
 * the CUDA runtime finds them, and the runtime's own allocation calls.
 *
 * Programs reach the driver three ways, and each lands here: linked with -lcuda, by
 * symbol (these exports come first); through dlsym of a libcuda handle (shim/dlsym.c);
 * through cuGetProcAddress, which is how static and shared cudart alike find every
 * entry point. A lookup is answered by the driver first, and its answer replaced by a
 * wrapper only when (name, cudaVersion, flags) select a variant libplace wraps: an
 * old version's cuMemAlloc (32-bit sizes) or a name libplace does not know is handed
 * out as the driver gave it. Each wrapper calls exactly the variant it stands for. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdatomic.h>
#include <string.h>

#include "../policy/cuda/calls.h"
#include "../policy/cuda/driver.h"
#include "dlsym.h"
#include "export.h"
#include "thread.h"

/* The v1 lookup of CUDA 11.3 to 11.8, which cuda.h now spells as the v2 one. */
#undef cuGetProcAddress
typedef CUresult (*getproc_v1)(const char *, void **, int, cuuint64_t);
PLACE_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int version,
                                       cuuint64_t flags);
/* The per-thread default stream's variants, which cuda.h declares only for code built
 * for that stream. */
PLACE_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t size, CUstream stream);
PLACE_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream);

enum {
    E_ALLOC,
    E_FREE,
    E_PITCH,
    E_ASYNC,
    E_ASYNC_PTSZ,
    E_FREE_ASYNC,
    E_FREE_ASYNC_PTSZ,
    E_MANAGED,
    E_HOST_ALLOC,
    E_ALLOC_HOST,
    E_FREE_HOST,
    E_REGISTER,
    E_UNREGISTER,
    E_INFO,
    E_CREATE,
    E_RELEASE,
    E_GETPROC,
    E_GETPROC_V1,
    ENTRIES
};

enum { ANY_STREAM, LEGACY, PER_THREAD };

/* What libplace wraps: the name a lookup asks for, the cudaVersion range [from, to) and
 * default-stream flavour for which the driver answers with `symbol`, and its wrapper.
 * The versions are those at which cuda.h moved each name to a new variant. */
static struct entry {
    const char *name, *symbol;
    int from, to, stream;
    void *wrapper;
    _Atomic(void *) next; /* the driver's symbol */
} entries[ENTRIES] = {
    [E_ALLOC] = {"cuMemAlloc", "cuMemAlloc_v2", 3020, INT_MAX, ANY_STREAM, cuMemAlloc_v2},
    [E_FREE] = {"cuMemFree", "cuMemFree_v2", 3020, INT_MAX, ANY_STREAM, cuMemFree_v2},
    [E_PITCH] = {"cuMemAllocPitch", "cuMemAllocPitch_v2", 3020, INT_MAX, ANY_STREAM,
                 cuMemAllocPitch_v2},
    [E_ASYNC] = {"cuMemAllocAsync", "cuMemAllocAsync", 11020, INT_MAX, LEGACY, cuMemAllocAsync},
    [E_ASYNC_PTSZ] = {"cuMemAllocAsync", "cuMemAllocAsync_ptsz", 11020, INT_MAX, PER_THREAD,
                      cuMemAllocAsync_ptsz},
    [E_FREE_ASYNC] = {"cuMemFreeAsync", "cuMemFreeAsync", 11020, INT_MAX, LEGACY, cuMemFreeAsync},
    [E_FREE_ASYNC_PTSZ] = {"cuMemFreeAsync", "cuMemFreeAsync_ptsz", 11020, INT_MAX, PER_THREAD,
                           cuMemFreeAsync_ptsz},
    [E_MANAGED] = {"cuMemAllocManaged", "cuMemAllocManaged", 6000, INT_MAX, ANY_STREAM,
                   cuMemAllocManaged},
    [E_HOST_ALLOC] = {"cuMemHostAlloc", "cuMemHostAlloc", 2020, INT_MAX, ANY_STREAM,
                      cuMemHostAlloc},
    [E_ALLOC_HOST] = {"cuMemAllocHost", "cuMemAllocHost_v2", 3020, INT_MAX, ANY_STREAM,
                      cuMemAllocHost_v2},
    [E_FREE_HOST] = {"cuMemFreeHost", "cuMemFreeHost", 2000, INT_MAX, ANY_STREAM, cuMemFreeHost},
    [E_REGISTER] = {"cuMemHostRegister", "cuMemHostRegister_v2", 6050, INT_MAX, ANY_STREAM,
                    cuMemHostRegister_v2},
    [E_UNREGISTER] = {"cuMemHostUnregister", "cuMemHostUnregister", 4000, INT_MAX, ANY_STREAM,
                      cuMemHostUnregister},
    [E_INFO] = {"cuMemGetInfo", "cuMemGetInfo_v2", 3020, INT_MAX, ANY_STREAM, cuMemGetInfo_v2},
    [E_CREATE] = {"cuMemCreate", "cuMemCreate", 10020, INT_MAX, ANY_STREAM, cuMemCreate},
    [E_RELEASE] = {"cuMemRelease", "cuMemRelease", 10020, INT_MAX, ANY_STREAM, cuMemRelease},
    [E_GETPROC] = {"cuGetProcAddress", "cuGetProcAddress_v2", 12000, INT_MAX, ANY_STREAM,
                   cuGetProcAddress_v2},
    [E_GETPROC_V1] = {"cuGetProcAddress", "cuGetProcAddress", 11030, 12000, ANY_STREAM,
                      cuGetProcAddress},
};

static void *next(int e)
{
    void *fn = atomic_load_explicit(&entries[e].next, memory_order_acquire);
    if (!fn) {
        fn = place_driver_sym(entries[e].symbol);
        atomic_store_explicit(&entries[e].next, fn, memory_order_release);
    }
    return fn;
}

/* Takes the driver's answer fn for entry e as its next, if it has none yet. */
static void *wrap(int e, void *fn)
{
    void *none = NULL;
    atomic_compare_exchange_strong(&entries[e].next, &none, fn);
    return entries[e].wrapper;
}

/* The driver found fn for (symbol, version, flags): the wrapper that stands for it. */
static void *swap(const char *symbol, int version, cuuint64_t flags, void *fn)
{
    int stream = flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM ? PER_THREAD : LEGACY;
    for (int e = 0; symbol && fn && e < ENTRIES; e++) {
        const struct entry *x = &entries[e];
        if (version >= x->from && version < x->to &&
            (x->stream == ANY_STREAM || x->stream == stream) && strcmp(symbol, x->name) == 0)
            return wrap(e, fn);
    }
    return fn;
}

void *place_cu_dlsym(void *handle, const char *name)
{
    for (int e = 0; e < ENTRIES; e++) {
        if (strcmp(name, entries[e].symbol) != 0)
            continue;
        /* only the driver's own symbol is replaced: another library's is its business */
        void *fn = place_real_dlsym(handle, name);
        return fn && place_driver_owns(fn) ? wrap(e, fn) : NULL;
    }
    return NULL;
}

PLACE_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
                                          cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
    CUresult (*fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *) =
        next(E_GETPROC);
    if (!fn)
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult rc = fn(symbol, pfn, version, flags, status);
    if (rc == CUDA_SUCCESS && pfn)
        *pfn = swap(symbol, version, flags, *pfn);
    return rc;
}

PLACE_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int version,
                                       cuuint64_t flags)
{
    getproc_v1 fn = next(E_GETPROC_V1);
    if (!fn)
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult rc = fn(symbol, pfn, version, flags);
    if (rc == CUDA_SUCCESS && pfn)
        *pfn = swap(symbol, version, flags, *pfn);
    return rc;
}

/* The program's call site: its call into the CUDA runtime, if it went through one. */
#define SITE (place_cu_site ? place_cu_site : (uintptr_t)__builtin_return_address(0))

PLACE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t size)
{
    struct place_cu_request r = {.how = PLACE_CU_PLAIN, .next = next(E_ALLOC)};
    return place_cuda_alloc(dptr, size, &r, SITE);
}

PLACE_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width,
                                         size_t height, unsigned elem)
{
    struct place_cu_request r = {.how = PLACE_CU_PITCH,
                                 .next = next(E_PITCH),
                                 .pitch = pitch,
                                 .width = width,
                                 .height = height,
                                 .elem = elem};
    /* rows of 512 bytes, as the driver pitches them; bad arguments are its to refuse */
    size_t size = 0, row = (width + 511) / 512 * 512;
    bool valid = pitch && row >= width && (elem == 4 || elem == 8 || elem == 16) &&
                 !__builtin_mul_overflow(row, height, &size);
    return place_cuda_alloc(dptr, valid ? size : 0, &r, SITE);
}

static CUresult alloc_async(int e, CUdeviceptr *dptr, size_t size, CUstream stream, uintptr_t ra)
{
    struct place_cu_request r = {.how = PLACE_CU_ASYNC, .next = next(e), .stream = stream};
    return place_cuda_alloc(dptr, size, &r, ra);
}

PLACE_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t size, CUstream stream)
{
    return alloc_async(E_ASYNC, dptr, size, stream, SITE);
}

PLACE_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t size, CUstream stream)
{
    return alloc_async(E_ASYNC_PTSZ, dptr, size, stream, SITE);
}

PLACE_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    struct place_cu_request r = {.how = PLACE_CU_PLAIN, .next = next(E_FREE)};
    return place_cuda_free(dptr, &r);
}

static CUresult free_async(int e, CUdeviceptr dptr, CUstream stream)
{
    struct place_cu_request r = {.how = PLACE_CU_ASYNC, .next = next(e), .stream = stream};
    return place_cuda_free(dptr, &r);
}

PLACE_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream stream)
{
    return free_async(E_FREE_ASYNC, dptr, stream);
}

PLACE_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream)
{
    return free_async(E_FREE_ASYNC_PTSZ, dptr, stream);
}

/* The driver's answer to a call libplace only counts, made with the guard up so that
 * what the driver allocates inside is glibc's; `then` runs on success. */
#define COUNTED(e, type, args, then)                                                               \
    do {                                                                                           \
        __typeof__(type) fn = next(e);                                                             \
        if (!fn)                                                                                   \
            return CUDA_ERROR_NOT_INITIALIZED;                                                     \
        uint8_t was = place_guard_enter();                                                         \
        CUresult rc = fn args;                                                                     \
        if (rc == CUDA_SUCCESS) {                                                                  \
            then;                                                                                  \
        }                                                                                          \
        place_guard_leave(was);                                                                    \
        return rc;                                                                                 \
    } while (0)

PLACE_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t size, unsigned flags)
{
    COUNTED(E_MANAGED, CUresult(*)(CUdeviceptr *, size_t, unsigned), (dptr, size, flags),
            place_cuda_charge(PLACE_MANAGED, -1, *dptr, size, false));
}

PLACE_EXPORT CUresult cuMemHostAlloc(void **pp, size_t size, unsigned flags)
{
    COUNTED(E_HOST_ALLOC, CUresult(*)(void **, size_t, unsigned), (pp, size, flags),
            place_cuda_charge(PLACE_PINNED, -1, (uintptr_t)*pp, size, false));
}

PLACE_EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t size)
{
    COUNTED(E_ALLOC_HOST, CUresult(*)(void **, size_t), (pp, size),
            place_cuda_charge(PLACE_PINNED, -1, (uintptr_t)*pp, size, false));
}

PLACE_EXPORT CUresult cuMemFreeHost(void *p)
{
    COUNTED(E_FREE_HOST, CUresult(*)(void *), (p), place_cuda_discharge((uintptr_t)p, false));
}

PLACE_EXPORT CUresult cuMemHostRegister_v2(void *p, size_t size, unsigned flags)
{
    COUNTED(E_REGISTER, CUresult(*)(void *, size_t, unsigned), (p, size, flags),
            place_cuda_charge(PLACE_PINNED, -1, (uintptr_t)p, size, false));
}

PLACE_EXPORT CUresult cuMemHostUnregister(void *p)
{
    COUNTED(E_UNREGISTER, CUresult(*)(void *), (p), place_cuda_discharge((uintptr_t)p, false));
}

PLACE_EXPORT CUresult cuMemGetInfo_v2(size_t *free, size_t *total)
{
    COUNTED(E_INFO, CUresult(*)(size_t *, size_t *), (free, total),
            place_cuda_meminfo(free, total));
}

/* Virtual-memory allocations (PyTorch's expandable segments): counted in their GPU's
 * tier, whose limit refuses them as the GPU would: they have no other place to go. */
PLACE_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                                  const CUmemAllocationProp *prop, unsigned long long flags)
{
    CUresult (*release)(CUmemGenericAllocationHandle) = next(E_RELEASE);
    COUNTED(
        E_CREATE,
        CUresult(*)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                    unsigned long long),
        (handle, size, prop, flags),
        if (prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE &&
            !place_cuda_charge(PLACE_DEVICE, prop->location.id, *handle, size, true)) {
            release(*handle);
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        });
}

PLACE_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
    COUNTED(E_RELEASE, CUresult(*)(CUmemGenericAllocationHandle), (handle),
            place_cuda_discharge(handle, true));
}

/* The runtime's calls, for programs on shared cudart: they reach the driver through
 * the wrappers above anyway; going through here first records the program's call site. */
static void *runtime_next(const char *name, _Atomic(void *) *cache)
{
    void *fn = atomic_load_explicit(cache, memory_order_acquire);
    if (!fn) {
        fn = place_real_dlsym(RTLD_NEXT, name);
        atomic_store_explicit(cache, fn, memory_order_release);
    }
    return fn;
}

#define RUNTIME(name, params, args)                                                                \
    PLACE_EXPORT cudaError_t name params                                                           \
    {                                                                                              \
        static _Atomic(void *) cache;                                                              \
        cudaError_t(*fn) params = runtime_next(#name, &cache);                                     \
        if (!fn)                                                                                   \
            return cudaErrorInitializationError;                                                   \
        uintptr_t outer = place_cu_site;                                                           \
        place_cu_site = outer ? outer : (uintptr_t)__builtin_return_address(0);                    \
        cudaError_t rc = fn args;                                                                  \
        place_cu_site = outer;                                                                     \
        return rc;                                                                                 \
    }

RUNTIME(cudaMalloc, (void **p, size_t size), (p, size))
RUNTIME(cudaFree, (void *p), (p))
RUNTIME(cudaMallocHost, (void **p, size_t size), (p, size))
RUNTIME(cudaHostAlloc, (void **p, size_t size, unsigned flags), (p, size, flags))
RUNTIME(cudaFreeHost, (void *p), (p))
RUNTIME(cudaMallocManaged, (void **p, size_t size, unsigned flags), (p, size, flags))
