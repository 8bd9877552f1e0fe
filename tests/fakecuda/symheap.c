/* libsymheap: a library that keeps a GPU heap of its own, as NVSHMEM keeps its symmetric
 * heap. It finds the driver as the CUDA runtime (and so NVSHMEM) does: dlopen of
 * libcuda.so.1, then every entry point through cuGetProcAddress; and it makes the heap in
 * chunks of the driver's granularity with cuMemCreate. The blocks it would hand out inside
 * the chunks never reach the driver, which is what libplace's report says of such a heap.
 *
 * It is not NVSHMEM, which Debian does not package: libplace learns of it through its
 * policy's `heaps`, as it would of any library other than NVSHMEM. */
#include <cuda.h>
#include <dlfcn.h>
#include <stddef.h>

#include "symheap.h"

enum { MAX_CHUNKS = 64 };

static CUresult (*create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                          unsigned long long);
static CUresult (*release)(CUmemGenericAllocationHandle);
static CUresult (*granularity)(size_t *, const CUmemAllocationProp *,
                               CUmemAllocationGranularity_flags);
static CUmemGenericAllocationHandle chunks[MAX_CHUNKS];
static int nchunks;
static CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                                   .location = {CU_MEM_LOCATION_TYPE_DEVICE, 0}};

static int get(CUresult (*get_proc)(const char *, void **, int, cuuint64_t,
                                    CUdriverProcAddressQueryResult *),
               const char *name, void *fn)
{
    return get_proc(name, fn, 13000, 0, NULL) == CUDA_SUCCESS && *(void **)fn;
}

int symheap_start(int dev)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    CUresult (*get_proc)(const char *, void **, int, cuuint64_t,
                         CUdriverProcAddressQueryResult *);
    CUresult (*init)(unsigned);
    if (!h || !(*(void **)&get_proc = dlsym(h, "cuGetProcAddress_v2")))
        return -1;
    if (!get(get_proc, "cuInit", &init) || !get(get_proc, "cuMemCreate", &create) ||
        !get(get_proc, "cuMemRelease", &release) ||
        !get(get_proc, "cuMemGetAllocationGranularity", &granularity) || init(0))
        return -1;
    prop.location.id = dev;
    return 0;
}

size_t symheap_chunk(void)
{
    size_t g = 0;
    return granularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) ? 0 : g;
}

int symheap_grow(int n)
{
    size_t g = symheap_chunk();
    for (int k = 0; k < n; k++) {
        if (nchunks == MAX_CHUNKS || !g)
            return -1;
        CUresult rc = create(&chunks[nchunks], g, &prop, 0);
        if (rc)
            return (int)rc;
        nchunks++;
    }
    return 0;
}

int symheap_shrink(int n)
{
    for (int k = 0; k < n && nchunks; k++)
        if (release(chunks[--nchunks]))
            return -1;
    return 0;
}
