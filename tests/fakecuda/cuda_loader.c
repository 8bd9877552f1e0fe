/* cuda_loader: loads the CUDA driver as the CUDA runtime does, with dlopen("libcuda.so.1")
 * and one dlsym of cuGetProcAddress_v2, and reaches every other entry point through that
 * (base name, CUDA version, flags). It is not linked with libcuda.
 *
 *   lookup             a fixed list of lookups, each with the object (and symbol) that the
 *                      pointer lies in, so a test sees whose function came back
 *   alloc COUNT SIZE   as cuda_linked alloc, through pointers for CUDA 13.0
 *   async COUNT SIZE   as cuda_linked async; odd blocks use the per-thread-stream pointers
 *   pool COUNT SIZE    the same with cuMemAllocFromPoolAsync from the device's default pool
 *   info               cuMemGetInfo
 * The device is 0, or $CUDA_LOADER_DEVICE. Exit status as cuda_linked's. */
#include <cuda.h>
#include <dlfcn.h>

typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t,
                                CUdriverProcAddressQueryResult *);
typedef CUresult (*get_proc_v1_fn)(const char *, void **, int, cuuint64_t);

static get_proc_fn get_proc;

/* Names go through cuda.h's macros like any call, so the member for cuMemAlloc is
 * cuMemAlloc_v2 with the _v2 prototype, which is what a lookup for CUDA 13.0 returns. */
static struct {
    CUresult (*cuGetErrorName)(CUresult, const char **);
    CUresult (*cuInit)(unsigned int);
    CUresult (*cuDeviceGet)(CUdevice *, int);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
    CUresult (*cuCtxSetCurrent)(CUcontext);
    CUresult (*cuMemGetInfo)(size_t *, size_t *);
    CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
    CUresult (*cuMemFree)(CUdeviceptr);
    CUresult (*cuMemAllocAsync)(CUdeviceptr *, size_t, CUstream);
    CUresult (*cuMemFreeAsync)(CUdeviceptr, CUstream);
    CUresult (*cuMemAllocAsync_pt)(CUdeviceptr *, size_t, CUstream);
    CUresult (*cuMemFreeAsync_pt)(CUdeviceptr, CUstream);
    CUresult (*cuMemAllocFromPoolAsync)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
    CUresult (*cuMemAllocFromPoolAsync_pt)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
    CUresult (*cuDeviceGetDefaultMemPool)(CUmemoryPool *, CUdevice);
    CUresult (*cuStreamSynchronize)(CUstream);
    CUresult (*cuStreamSynchronize_pt)(CUstream);
    CUresult (*cuPointerGetAttribute)(void *, CUpointer_attribute, CUdeviceptr);
    CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
} drv;

#define DRV(f) drv.f
#define DRV_PER_THREAD(f) drv.f##_pt
#include "cuda_prog.h"

static void *get(const char *name, cuuint64_t flags)
{
    void *pfn = NULL;
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SUCCESS;
    CUresult rc = get_proc(name, &pfn, 13000, flags, &st);
    if (rc || !pfn) {
        printf("cuGetProcAddress %s failed: %d (status %d)\n", name, (int)rc, (int)st);
        exit(3);
    }
    return pfn;
}

/* The stringised argument is the base name: # does not expand cuda.h's macros. */
#define GET(f) (*(void **)&drv.f = get(#f, 0))

static void get_all(void)
{
    GET(cuGetErrorName);
    GET(cuInit);
    GET(cuDeviceGet);
    GET(cuDevicePrimaryCtxRetain);
    GET(cuDevicePrimaryCtxRelease);
    GET(cuCtxSetCurrent);
    GET(cuMemGetInfo);
    GET(cuMemAlloc);
    GET(cuMemFree);
    GET(cuMemAllocAsync);
    GET(cuMemFreeAsync);
    GET(cuMemAllocFromPoolAsync);
    GET(cuDeviceGetDefaultMemPool);
    GET(cuStreamSynchronize);
    GET(cuPointerGetAttribute);
    GET(cuMemcpyHtoD);
    GET(cuMemcpyDtoH);
    const cuuint64_t pt = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    *(void **)&drv.cuMemAllocAsync_pt = get("cuMemAllocAsync", pt);
    *(void **)&drv.cuMemFreeAsync_pt = get("cuMemFreeAsync", pt);
    *(void **)&drv.cuStreamSynchronize_pt = get("cuStreamSynchronize", pt);
    *(void **)&drv.cuMemAllocFromPoolAsync_pt = get("cuMemAllocFromPoolAsync", pt);
}

/* The object a function lies in, and its symbol when the object exports one there. */
static void print_where(void *pfn)
{
    Dl_info di;
    if (!dladdr(pfn, &di) || !di.dli_fname) {
        printf("?\n");
        return;
    }
    const char *slash = strrchr(di.dli_fname, '/');
    printf("%s %s\n", slash ? slash + 1 : di.dli_fname,
           di.dli_sname && di.dli_saddr == pfn ? di.dli_sname : "?");
}

static void show(const char *label, const char *name, int version, cuuint64_t flags, CUresult rc,
                 void *pfn, int st)
{
    printf("%s%s %d %llu -> ", label, name, version, (unsigned long long)flags);
    if (rc || !pfn)
        printf("not found (status %d)\n", st);
    else
        print_where(pfn);
}

static void lookup(void *dlsymmed)
{
    const cuuint64_t pt = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    static const struct {
        const char *name;
        int version;
        cuuint64_t flags;
    } asks[] = {
        {"cuGetProcAddress", 13000, 0}, {"cuGetProcAddress", 11030, 0},
        {"cuMemAlloc", 13000, 0},       {"cuMemAlloc", 3000, 0},
        {"cuMemFree", 13000, 0},        {"cuMemAllocAsync", 13000, 0},
        {"cuMemAllocAsync", 13000, pt}, {"cuMemFreeAsync", 13000, 0},
        {"cuMemFreeAsync", 13000, pt},  {"cuMemGetInfo", 13000, 0},
        {"cuMemGetInfo", 3000, 0},      {"cuMemAllocManaged", 13000, 0},
        {"cuMemHostAlloc", 13000, 0},   {"cuMemHostRegister", 13000, 0},
        {"cuMemCreate", 13000, 0},      {"cuMemRelease", 13000, 0},
        {"cuMemMap", 13000, 0},         {"cuMemUnmap", 13000, 0},
        {"cuMemAllocFromPoolAsync", 13000, 0},
        {"cuMemAllocFromPoolAsync", 13000, pt},
        {"cuMemPoolDestroy", 13000, 0},
        {"cuMemcpyHtoD", 13000, 0},     {"cuCtxGetCurrent", 13000, 0},
        {"cuNoSuchFunction", 13000, 0},
    };
    printf("dlsym cuGetProcAddress_v2 -> ");
    print_where(dlsymmed);
    for (size_t i = 0; i < sizeof asks / sizeof asks[0]; i++) {
        void *pfn = NULL;
        CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SUCCESS;
        CUresult rc = get_proc(asks[i].name, &pfn, asks[i].version, asks[i].flags, &st);
        show("", asks[i].name, asks[i].version, asks[i].flags, rc, pfn, (int)st);
    }

    /* The pointers handed out for cuGetProcAddress itself answer as the first one does. */
    get_proc_fn self = NULL;
    get_proc_v1_fn v1 = NULL;
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SUCCESS;
    void *pfn = NULL;
    get_proc("cuGetProcAddress", (void **)&self, 13000, 0, NULL);
    get_proc("cuGetProcAddress", (void **)&v1, 11030, 0, NULL);
    CUresult rc = self ? self("cuMemAlloc", &pfn, 13000, 0, &st) : CUDA_ERROR_NOT_FOUND;
    show("via-self ", "cuMemAlloc", 13000, 0, rc, pfn, (int)st);
    pfn = NULL;
    rc = v1 ? v1("cuMemAlloc", &pfn, 3000, 0) : CUDA_ERROR_NOT_FOUND;
    show("via-v1 ", "cuMemAlloc", 3000, 0, rc, pfn, rc ? -1 : 0);
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    int blocks_cmd = !strcmp(cmd, "alloc") || !strcmp(cmd, "async") || !strcmp(cmd, "pool");
    int plain_cmd = !strcmp(cmd, "lookup") || !strcmp(cmd, "info");
    if (!(blocks_cmd || plain_cmd) || argc != (blocks_cmd ? 4 : 2)) {
        fprintf(stderr, "usage: cuda_loader lookup | info | alloc|async|pool COUNT SIZE\n");
        return 64;
    }
    size_t count = blocks_cmd ? parse_size(argv[2]) : 0,
           size = blocks_cmd ? parse_size(argv[3]) : 0;
    setvbuf(stdout, NULL, _IOLBF, 0);

    /* RTLD_LOCAL: nothing but this handle sees the driver's names, so every pointer below
     * comes from cuGetProcAddress, as in the runtime. */
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("dlopen libcuda.so.1 failed: %s\n", dlerror());
        return 3;
    }
    void *sym = dlsym(h, "cuGetProcAddress_v2");
    if (!sym) {
        printf("dlsym cuGetProcAddress_v2 failed: %s\n", dlerror());
        return 3;
    }
    *(void **)&get_proc = sym;
    if (!strcmp(cmd, "lookup")) {
        lookup(sym);
    } else {
        get_all();
        CUdevice dev = setup("CUDA_LOADER_DEVICE");
        CUmemoryPool pool = NULL;
        CUresult rc = cmd[0] == 'p' ? drv.cuDeviceGetDefaultMemPool(&pool, dev) : CUDA_SUCCESS;
        if (rc)
            failed("default pool", ~0ul, rc, 2);
        else if (blocks_cmd)
            blocks(count, size, cmd[0] == 'p' ? BY_POOL : cmd[1] == 's' ? BY_ASYNC : BY_ALLOC, pool);
        else
            info();
        printf("done\n");
        finish(dev);
    }
    dlclose(h);
    return status;
}
