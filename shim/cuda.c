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

#include "../policy/base/guard.h"
#include "../policy/base/lib.h"
#include "../policy/engine/cuda_path.h"
#include "../policy/engine/cuda_vmm.h"
#include "../policy/tiers/mempools.h"
#include "dlsym.h"
#include "export.h"

/* The v1 lookup of CUDA 11.3 to 11.8, which cuda.h now spells as the v2 one. */
#undef cuGetProcAddress
typedef CUresult (*getproc_v1)(const char *, void **, int, cuuint64_t);
PLACE_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int version,
                                       cuuint64_t flags);
/* The per-thread default stream's variants, which cuda.h declares only for code built
 * for that stream. */
PLACE_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t size, CUstream stream);
PLACE_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream);
PLACE_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t size,
                                                   CUmemoryPool pool, CUstream stream);

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
    E_POOL_ALLOC,
    E_POOL_ALLOC_PTSZ,
    E_POOL_DESTROY,
    E_CREATE,
    E_RELEASE,
    E_MAP,
    E_UNMAP,
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
    [E_POOL_ALLOC] = {"cuMemAllocFromPoolAsync", "cuMemAllocFromPoolAsync", 11020, INT_MAX,
                      LEGACY, cuMemAllocFromPoolAsync},
    [E_POOL_ALLOC_PTSZ] = {"cuMemAllocFromPoolAsync", "cuMemAllocFromPoolAsync_ptsz", 11020,
                           INT_MAX, PER_THREAD, cuMemAllocFromPoolAsync_ptsz},
    [E_POOL_DESTROY] = {"cuMemPoolDestroy", "cuMemPoolDestroy", 11020, INT_MAX, ANY_STREAM,
                        cuMemPoolDestroy},
    [E_CREATE] = {"cuMemCreate", "cuMemCreate", 10020, INT_MAX, ANY_STREAM, cuMemCreate},
    [E_RELEASE] = {"cuMemRelease", "cuMemRelease", 10020, INT_MAX, ANY_STREAM, cuMemRelease},
    [E_MAP] = {"cuMemMap", "cuMemMap", 10020, INT_MAX, ANY_STREAM, cuMemMap},
    [E_UNMAP] = {"cuMemUnmap", "cuMemUnmap", 10020, INT_MAX, ANY_STREAM, cuMemUnmap},
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

/* The return address of the program's call into the CUDA runtime (cudaMalloc...), so
 * that sites name the program's code rather than the runtime's; 0 outside one. */
static __thread uintptr_t runtime_site __attribute__((tls_model("initial-exec")));

/* The program's call site: its call into the CUDA runtime, if it went through one. */
#define SITE (runtime_site ? runtime_site : (uintptr_t)__builtin_return_address(0))

PLACE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t size)
{
    struct place_cu_call c = {.how = PLACE_CU_PLAIN, .next = next(E_ALLOC)};
    return place_cuda_alloc(dptr, size, &c, SITE);
}

PLACE_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width,
                                         size_t height, unsigned elem)
{
    struct place_cu_call c = {.how = PLACE_CU_PITCH,
                                 .next = next(E_PITCH),
                                 .pitch = pitch,
                                 .width = width,
                                 .height = height,
                                 .elem = elem};
    /* rows of 512 bytes, as the driver pitches them; bad arguments are its to refuse */
    size_t size = 0, row = (width + 511) / 512 * 512;
    bool valid = pitch && row >= width && (elem == 4 || elem == 8 || elem == 16) &&
                 !__builtin_mul_overflow(row, height, &size);
    return place_cuda_alloc(dptr, valid ? size : 0, &c, SITE);
}

static CUresult alloc_async(int e, CUdeviceptr *dptr, size_t size, CUstream stream, uintptr_t ra)
{
    struct place_cu_call c = {.how = PLACE_CU_ASYNC, .next = next(e), .stream = stream};
    return place_cuda_alloc(dptr, size, &c, ra);
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
    struct place_cu_call c = {.how = PLACE_CU_PLAIN, .next = next(E_FREE)};
    return place_cuda_free(dptr, &c);
}

static CUresult free_async(int e, CUdeviceptr dptr, CUstream stream)
{
    struct place_cu_call c = {.how = PLACE_CU_ASYNC, .next = next(e), .stream = stream};
    return place_cuda_free(dptr, &c);
}

PLACE_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream stream)
{
    return free_async(E_FREE_ASYNC, dptr, stream);
}

PLACE_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream)
{
    return free_async(E_FREE_ASYNC_PTSZ, dptr, stream);
}

/* The calls libplace only counts: the driver's own, made with the guard up (what the
 * driver allocates inside is glibc's), then the count on success. */

static CUresult counted(uint8_t was, CUresult rc)
{
    place_guard_leave(was);
    return rc;
}

/* A pool's block, counted on the pool's GPU, whose limit refuses it (the block is then
 * handed back on its stream): no rule spills it, the pool is the program's choice. */
static CUresult from_pool(int e, CUdeviceptr *dptr, size_t size, CUmemoryPool pool,
                          CUstream stream)
{
    CUresult (*fn)(CUdeviceptr *, size_t, CUmemoryPool, CUstream) = next(e);
    uint8_t was = place_guard_enter();
    CUresult rc = fn ? fn(dptr, size, pool, stream) : CUDA_ERROR_NOT_INITIALIZED;
    if (rc == CUDA_ERROR_OUT_OF_MEMORY && place_cuda_trim(-1, pool))
        rc = fn(dptr, size, pool, stream);
    if (rc == CUDA_SUCCESS && !place_cuda_pool_block(pool, *dptr, size)) {
        CUresult (*free)(CUdeviceptr, CUstream) =
            next(e == E_POOL_ALLOC ? E_FREE_ASYNC : E_FREE_ASYNC_PTSZ);
        free(*dptr, stream);
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    }
    return counted(was, rc);
}

PLACE_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t size, CUmemoryPool pool,
                                              CUstream stream)
{
    return from_pool(E_POOL_ALLOC, dptr, size, pool, stream);
}

PLACE_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t size,
                                                   CUmemoryPool pool, CUstream stream)
{
    return from_pool(E_POOL_ALLOC_PTSZ, dptr, size, pool, stream);
}

PLACE_EXPORT CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
    CUresult (*fn)(CUmemoryPool) = next(E_POOL_DESTROY);
    uint8_t was = place_guard_enter();
    CUresult rc = fn ? fn(pool) : CUDA_ERROR_NOT_INITIALIZED;
    if (rc == CUDA_SUCCESS)
        place_mempool_destroyed(pool);
    return counted(was, rc);
}

PLACE_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t size, unsigned flags)
{
    CUresult (*fn)(CUdeviceptr *, size_t, unsigned) = next(E_MANAGED);
    uint8_t was = place_guard_enter();
    CUresult rc = fn ? fn(dptr, size, flags) : CUDA_ERROR_NOT_INITIALIZED;
    if (rc == CUDA_SUCCESS)
        place_cuda_charge(PLACE_BLOCKS_CUDA, PLACE_MANAGED, -1, *dptr, size, 0);
    return counted(was, rc);
}

/* Pinned memory the program asks the driver for: counted in the policy's pinned tier. */
static CUresult pinned(uint8_t was, CUresult rc, const void *p, size_t size)
{
    if (rc == CUDA_SUCCESS)
        place_cuda_charge(PLACE_BLOCKS_CUDA, PLACE_PINNED, -1, (uintptr_t)p, size, 0);
    return counted(was, rc);
}

PLACE_EXPORT CUresult cuMemHostAlloc(void **pp, size_t size, unsigned flags)
{
    CUresult (*fn)(void **, size_t, unsigned) = next(E_HOST_ALLOC);
    uint8_t was = place_guard_enter();
    CUresult rc = fn ? fn(pp, size, flags) : CUDA_ERROR_NOT_INITIALIZED;
    return pinned(was, rc, rc == CUDA_SUCCESS ? *pp : NULL, size);
}

PLACE_EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t size)
{
    CUresult (*fn)(void **, size_t) = next(E_ALLOC_HOST);
    uint8_t was = place_guard_enter();
    CUresult rc = fn ? fn(pp, size) : CUDA_ERROR_NOT_INITIALIZED;
    return pinned(was, rc, rc == CUDA_SUCCESS ? *pp : NULL, size);
}

PLACE_EXPORT CUresult cuMemHostRegister_v2(void *p, size_t size, unsigned flags)
{
    CUresult (*fn)(void *, size_t, unsigned) = next(E_REGISTER);
    uint8_t was = place_guard_enter();
    return pinned(was, fn ? fn(p, size, flags) : CUDA_ERROR_NOT_INITIALIZED, p, size);
}

/* A free of memory the driver gave (e: cuMemFreeHost or cuMemHostUnregister): uncounted. */
static CUresult unpin(int e, void *p)
{
    CUresult (*fn)(void *) = next(e);
    uint8_t was = place_guard_enter();
    CUresult rc = fn ? fn(p) : CUDA_ERROR_NOT_INITIALIZED;
    if (rc == CUDA_SUCCESS)
        place_cuda_discharge((uintptr_t)p);
    return counted(was, rc);
}

PLACE_EXPORT CUresult cuMemFreeHost(void *p)
{
    return unpin(E_FREE_HOST, p);
}

PLACE_EXPORT CUresult cuMemHostUnregister(void *p)
{
    return unpin(E_UNREGISTER, p);
}

PLACE_EXPORT CUresult cuMemGetInfo_v2(size_t *free, size_t *total)
{
    CUresult (*fn)(size_t *, size_t *) = next(E_INFO);
    uint8_t was = place_guard_enter();
    CUresult rc = fn ? fn(free, total) : CUDA_ERROR_NOT_INITIALIZED;
    uint64_t f, t;
    if (rc == CUDA_SUCCESS && (f = *free, t = *total, place_cuda_fit(-1, &t, &f)))
        *free = f, *total = t;
    return counted(was, rc);
}

/* Virtual-memory allocations (PyTorch's expandable segments, NVSHMEM's symmetric heap):
 * counted where they lie (engine/cuda_vmm.h); a GPU's limit refuses them as the GPU would,
 * they have no other place to go. The caller says whose heap a block is. */
PLACE_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                                  const CUmemAllocationProp *prop, unsigned long long flags)
{
    CUresult (*fn)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                   unsigned long long) = next(E_CREATE);
    CUresult (*release)(CUmemGenericAllocationHandle) = next(E_RELEASE);
    uint8_t was = place_guard_enter();
    CUresult rc = fn ? fn(handle, size, prop, flags) : CUDA_ERROR_NOT_INITIALIZED;
    if (rc == CUDA_ERROR_OUT_OF_MEMORY && prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE &&
        place_cuda_trim(prop->location.id, NULL))
        rc = fn(handle, size, prop, flags);
    if (rc == CUDA_SUCCESS &&
        !place_vmm_create(prop, *handle, size, (uintptr_t)__builtin_return_address(0))) {
        release(*handle);
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    }
    return counted(was, rc);
}

PLACE_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
    CUresult (*fn)(CUmemGenericAllocationHandle) = next(E_RELEASE);
    uint8_t was = place_guard_enter();
    CUresult rc = fn ? fn(handle) : CUDA_ERROR_NOT_INITIALIZED;
    if (rc == CUDA_SUCCESS)
        place_vmm_release(handle);
    return counted(was, rc);
}

PLACE_EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                               CUmemGenericAllocationHandle handle, unsigned long long flags)
{
    CUresult (*fn)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
                   unsigned long long) = next(E_MAP);
    uint8_t was = place_guard_enter();
    CUresult rc = fn ? fn(ptr, size, offset, handle, flags) : CUDA_ERROR_NOT_INITIALIZED;
    if (rc == CUDA_SUCCESS)
        place_vmm_map(ptr, size, handle);
    return counted(was, rc);
}

PLACE_EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    CUresult (*fn)(CUdeviceptr, size_t) = next(E_UNMAP);
    uint8_t was = place_guard_enter();
    CUresult rc = fn ? fn(ptr, size) : CUDA_ERROR_NOT_INITIALIZED;
    if (rc == CUDA_SUCCESS)
        place_vmm_unmap(ptr, size);
    return counted(was, rc);
}

/* The runtime's calls, for programs on shared cudart: they reach the driver through
 * the wrappers above anyway; going through here first records the program's call site. */
#define RUNTIME(name, params, args)                                                                \
    PLACE_EXPORT cudaError_t name params                                                           \
    {                                                                                              \
        static _Atomic(void *) cache;                                                              \
        cudaError_t(*fn) params = place_next_sym(#name, &cache);                                     \
        if (!fn)                                                                                   \
            return cudaErrorInitializationError;                                                   \
        uintptr_t outer = runtime_site;                                                            \
        runtime_site = outer ? outer : (uintptr_t)__builtin_return_address(0);                     \
        cudaError_t rc = fn args;                                                                  \
        runtime_site = outer;                                                                      \
        return rc;                                                                                 \
    }

RUNTIME(cudaMalloc, (void **p, size_t size), (p, size))
RUNTIME(cudaFree, (void *p), (p))
RUNTIME(cudaMallocHost, (void **p, size_t size), (p, size))
RUNTIME(cudaHostAlloc, (void **p, size_t size, unsigned flags), (p, size, flags))
RUNTIME(cudaFreeHost, (void *p), (p))
RUNTIME(cudaMallocManaged, (void **p, size_t size, unsigned flags), (p, size, flags))
