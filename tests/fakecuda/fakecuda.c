/* fakecuda: a test double of the CUDA driver, built as libcuda.so.1 from cuda.h alone.
 *
 * It carries out a documented subset of the driver API on host memory, so that libplace's
 * CUDA tiers can be tested where there is no GPU: "device" memory is mmap'd host memory,
 * readable and writable from the host, and counted against each fake device's total.
 * Nothing is printed; what a test wants to know it reads from the log.
 *
 * Environment (read at the first call):
 *   FAKECUDA_DEVICES=N    devices 0..N-1 (0..8, default 1; 0: cuInit says CUDA_ERROR_NO_DEVICE)
 *   FAKECUDA_MEM=SIZE     each device's total memory: bytes, optional K/M/G/T (x1024), default 1G
 *   FAKECUDA_FAIL=NAME[,NAME...]
 *                         those entry points fail without doing anything: cuInit with
 *                         CUDA_ERROR_NO_DEVICE; the allocating ones (cuMemAlloc*, cuMemAllocPitch*,
 *                         cuMemAllocAsync*, cuMemAllocFromPoolAsync*, cuMemAllocManaged,
 *                         cuMemHostAlloc, cuMemAllocHost*, cuMemHostRegister*, cuMemCreate)
 *                         with CUDA_ERROR_OUT_OF_MEMORY; any other with CUDA_ERROR_UNKNOWN.
 *                         A NAME is an exact entry point
 *                         (cuMemAlloc_v2) or a base name, which covers all of its variants
 *                         (cuMemAllocAsync: cuMemAllocAsync and cuMemAllocAsync_ptsz).
 *   FAKECUDA_LOG=PATH     every call appends one line to PATH (see below).
 * A malformed FAKECUDA_DEVICES or FAKECUDA_MEM, or a FAKECUDA_FAIL of 1024 characters or
 * more, makes cuInit return CUDA_ERROR_INVALID_VALUE.
 *
 * The log: one line per call of an exported function, written with one write(2) to a file
 * opened with O_APPEND, so lines of threads and of forked children never interleave:
 *   NAME key=value ... rc=N
 * NAME is the exact entry point called (cuMemAlloc_v2, cuMemAllocAsync_ptsz, cuMemAlloc for
 * the v1). Inputs come first, then outputs, then rc, the CUresult in decimal. Sizes and
 * counts are decimal bytes, pointers, handles, contexts and streams 0x-hex (0x0 for NULL
 * or when nothing came back), flags and enum values decimal, devices decimal (-1: none).
 * For example:
 *   cuMemAlloc_v2 size=1048576 ptr=0x7f3a5c000000 dev=0 rc=0
 *   cuGetProcAddress_v2 symbol=cuMemAlloc version=12000 flags=0 status=0 rc=0
 *   cuMemAdvise_v2 ptr=0x7f3a5c000000 count=4096 advice=3 loc_type=1 loc_id=0 rc=0
 *   cuMemHostRegister_v2 ptr=0x7f3a5c000000 size=65536 flags=3 rc=0
 *   cuMemAllocFromPoolAsync size=4096 pool=0x7f3a5e0047e0 stream=0x0 ptr=0x7f3a5c000000 dev=1 rc=0
 *   cuStreamSynchronize stream=0x0 released=3145728 rc=0
 *   cuMemRelease handle=0x3 size=4194304 dev=0 maps=2 rc=0
 *
 * Choices where the documentation leaves room, or where this double is simpler:
 * - Device memory is charged page-rounded; managed, pinned and registered memory is not
 *   charged; cuMemCreate charges its size (a multiple of the 2 MiB granularity) to a device
 *   location, nothing to host ones.
 * - Stream-ordered pools: a pool's reserve (what it uses plus what is idle) is charged to
 *   its device, so idle memory is not free for cuMemAlloc, as with the driver. A block takes
 *   its page-rounded size from the idle memory when there is as much, else charges it anew
 *   (each block has its own mmap, whatever the accounting); a free makes it idle. The
 *   release threshold applies at cuStreamSynchronize and cuCtxSynchronize (all variants),
 *   to every pool. Pools are of device memory and not shareable: host locations and IPC
 *   handle types answer CUDA_ERROR_NOT_SUPPORTED; at most 32 created at a time
 *   (CUDA_ERROR_OUT_OF_MEMORY). The REUSE_* attributes are stored only. Resetting a high
 *   watermark (setting it to 0) restarts it from the current figure.
 * - Virtual memory: a cuMemCreate handle's memory is a memfd, which each cuMemMap maps
 *   shared, so every mapping of one handle sees the same data; mapped memory is readable
 *   and writable from the host too, and cuMemSetAccess only checks its arguments.
 *   Reservations are aligned to the granularity at least, size a multiple of the page
 *   size as documented. cuMemAddressFree of a range with mappings still in it is
 *   CUDA_ERROR_INVALID_VALUE (the documentation does not say).
 * - CU_POINTER_ATTRIBUTE_MEMORY_TYPE of managed memory is CU_MEMORYTYPE_DEVICE: the docs say
 *   managed memory is allocated "on the device" and name CU_MEMORYTYPE_UNIFIED only for copy
 *   descriptors; CU_POINTER_ATTRIBUTE_IS_MANAGED tells managed memory apart.
 * - cuDeviceGetAttribute answers a few attributes with plausible values (see attribute())
 *   and every other valid attribute with 0.
 * - When a primary context's last reference is released, the memory allocated in it is
 *   freed (registered ranges unregistered), as the driver's reset does, and its device's
 *   pools give back their idle memory; pools, cuMemCreate handles, reservations and
 *   mappings are not bound to a context and stay.
 * - A thread's context stack holds at most 8 contexts (cuCtxPushCurrent: INVALID_VALUE).
 * - cuMemcpy*: a device-side range must lie inside one block the fake knows, else
 *   CUDA_ERROR_INVALID_VALUE; cuMemcpy itself takes any addresses (unified addressing).
 * - cuGetProcAddress: an unknown name, or a version older than the name's first variant,
 *   gives CUDA_ERROR_NOT_FOUND with *pfn NULL and the status saying which (cuda.h's text
 *   says CUDA_SUCCESS with *pfn NULL; callers that test *pfn and the status see no
 *   difference); a version newer than the driver's gives CUDA_ERROR_INVALID_VALUE, as
 *   documented. The versions come from cudaTypedefs.h's PFN_<name>_v<version> typedefs,
 *   and are the ones CUDA 13.0's runtime asks for; see procs[].
 * - cuGetErrorString answers the codes this fake returns with the runtime's wording and
 *   any other valid code with its name.
 *
 * The parsing of the environment, the FAIL list's matching and the writing of log lines are
 * fakelog.h's, shared with the fake NVML (fakenvml.c).
 *
 * No malloc and no stdio inside, nor in fakelog.h: libplace may call the driver from within
 * its malloc. */
/* cuda.h's mode for building the driver itself: every variant (v1, _v2, _ptsz, _ptds) is
 * declared under its own name, so each definition below is checked against its prototype. */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>

#include "fakelog.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

enum { MAX_DEVICES = 8, MAX_POOLS = 32, CTX_STACK = 8 };
static const size_t granularity = 2u << 20;

struct CUctx_st {
    int dev;
    unsigned refs;
};

/* A stream-ordered memory pool. Its reserve (used plus idle) is what it has charged to its
 * device; a block from it charges nothing itself. */
struct CUmemPoolHandle_st {
    int live;      /* 0: a free slot */
    int destroyed; /* cuMemPoolDestroy'd with blocks outstanding: it goes with the last */
    int dev;
    int reuse[3]; /* the CU_MEMPOOL_ATTR_REUSE_* flags, stored only */
    size_t max;   /* CUmemPoolProps::maxSize, 0: no bound but the device's */
    size_t used, reserved, used_high, reserved_high;
    cuuint64_t threshold;
};

/* K_RELEASED: a handle cuMemRelease'd while mapped, whose memory its mappings still hold.
 * K_RESERVED: a cuMemAddressReserve range; K_MAPPING: a handle cuMemMap'd into one. */
enum kind {
    K_DEVICE = 1,
    K_MANAGED = 2,
    K_PINNED = 4,
    K_REGISTERED = 8,
    K_HANDLE = 16,
    K_RELEASED = 32,
    K_RESERVED = 64,
    K_MAPPING = 128,
};
#define K_POINTERS (K_DEVICE | K_MANAGED | K_PINNED | K_REGISTERED | K_MAPPING)

struct block {
    uintptr_t base; /* 0: free slot; a handle is odd, so never equal to an address */
    size_t size;
    size_t mapped;  /* bytes this fake mmap'd, 0 for the caller's memory, handles and mappings */
    size_t charged; /* bytes counted against dev's total */
    CUcontext ctx;
    CUmemoryPool pool; /* a stream-ordered block's pool */
    uintptr_t handle;  /* a mapping's handle */
    int fd;            /* a handle's memory (memfd), shared by its mappings */
    unsigned maps;     /* a handle's mappings */
    unsigned kind;
    int dev; /* -1 for a handle in host memory */
};

static struct {
    pthread_mutex_t lock;
    int initialized; /* atomic: read without the lock */
    int ndev, bad_config, log_fd;
    size_t total;
    char fail[1024];
    struct CUctx_st prim[MAX_DEVICES];
    size_t used[MAX_DEVICES];
    /* each device's default pool (pools[dev]), then cuMemPoolCreate's */
    struct CUmemPoolHandle_st pools[MAX_DEVICES + MAX_POOLS];
    CUmemoryPool current_pool[MAX_DEVICES];
    struct block *tab; /* open addressing on base, linear probing */
    size_t cap, count;
    unsigned bits;
    uintptr_t next_handle;
} g = {.lock = PTHREAD_MUTEX_INITIALIZER, .log_fd = -1, .next_handle = 1};

static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Initial-exec, as the real driver's TLS is: a dlopened library's dynamic TLS is allocated
 * with malloc at a thread's first access, and the caller may be inside malloc. */
static __thread struct {
    CUcontext stack[CTX_STACK];
    int depth;
} tls __attribute__((tls_model("initial-exec")));

/* ---- configuration ---- */

static void configure(void)
{
    size_t n;
    g.bad_config |= env_size("FAKECUDA_DEVICES", 1, MAX_DEVICES, &n);
    g.ndev = (int)n;
    g.bad_config |= env_size("FAKECUDA_MEM", 1u << 30, SIZE_MAX, &g.total);
    g.bad_config |= env_list("FAKECUDA_FAIL", g.fail, sizeof g.fail);
    g.log_fd = log_open();
}

/* ---- the log (fakelog.h) ---- */

static CUresult ready(void)
{
    return __atomic_load_n(&g.initialized, __ATOMIC_ACQUIRE) ? CUDA_SUCCESS
                                                             : CUDA_ERROR_NOT_INITIALIZED;
}

/* Opens an entry point's line. Returns the error FAKECUDA_FAIL injects into it, else
 * CUDA_ERROR_NOT_INITIALIZED before cuInit when the entry point needs it, else CUDA_SUCCESS. */
static CUresult enter(struct line *l, const char *name, CUresult injected, int needs_init)
{
    pthread_once(&once, configure);
    line_open(l, g.log_fd, name);
    return listed(g.fail, name) ? injected : needs_init ? ready() : CUDA_SUCCESS;
}

static CUresult leave(struct line *l, CUresult rc)
{
    put_i(l, "rc", rc);
    line_write(l);
    return rc;
}

/* ---- state ---- */

static CUresult device_ok(CUdevice dev)
{
    return dev >= 0 && dev < g.ndev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

/* The calling thread's current context when it is usable; NULL otherwise. */
static CUcontext current(void)
{
    CUcontext c = tls.depth ? tls.stack[tls.depth - 1] : NULL;
    return c && __atomic_load_n(&c->refs, __ATOMIC_ACQUIRE) ? c : NULL;
}

static int valid_ctx(CUcontext c)
{
    for (int d = 0; d < g.ndev; d++)
        if (c == &g.prim[d])
            return 1;
    return 0;
}

static size_t page_round(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return n > SIZE_MAX - page ? 0 : (n + page - 1) & ~(page - 1);
}

static size_t slot_of(uintptr_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - g.bits));
}

/* A reservation and the mapping at its start share a key; the kind tells them apart. */
static struct block *tab_find(uintptr_t key, unsigned kinds)
{
    for (size_t i = g.cap ? slot_of(key) : 0; g.cap && g.tab[i].base; i = (i + 1) & (g.cap - 1))
        if (g.tab[i].base == key && (g.tab[i].kind & kinds))
            return &g.tab[i];
    return NULL;
}

static void tab_put(const struct block *b)
{
    size_t i = slot_of(b->base);
    while (g.tab[i].base)
        i = (i + 1) & (g.cap - 1);
    g.tab[i] = *b;
    g.count++;
}

static int tab_reserve(void)
{
    if ((g.count + 1) * 2 <= g.cap)
        return 0;
    struct block *old = g.tab;
    size_t old_cap = g.cap;
    unsigned bits = g.bits ? g.bits + 1 : 10;
    void *p = mmap(NULL, sizeof(struct block) << bits, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    g.tab = p, g.bits = bits, g.cap = (size_t)1 << bits, g.count = 0;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].base)
            tab_put(&old[i]);
    if (old)
        munmap(old, sizeof(struct block) * old_cap);
    return 0;
}

/* Backward-shift deletion keeps every probe chain unbroken without tombstones. */
static void tab_remove(struct block *b)
{
    size_t mask = g.cap - 1, i = (size_t)(b - g.tab);
    g.tab[i].base = 0;
    g.count--;
    for (size_t j = (i + 1) & mask; g.tab[j].base; j = (j + 1) & mask) {
        if (((j - slot_of(g.tab[j].base)) & mask) >= ((j - i) & mask)) {
            g.tab[i] = g.tab[j];
            g.tab[j].base = 0;
            i = j;
        }
    }
}

/* The block of one of the kinds that holds [p, p + len): a block's own base is found at once,
 * an address inside one by a scan. */
static struct block *find(uintptr_t p, size_t len, unsigned kinds)
{
    struct block *b = tab_find(p, kinds);
    if (b && len <= b->size)
        return b;
    for (size_t i = 0; i < g.cap; i++) {
        b = &g.tab[i];
        if (b->base && (b->kind & kinds) && p >= b->base && p - b->base < b->size &&
            len <= b->size - (p - b->base))
            return b;
    }
    return NULL;
}

/* ---- pools (under the lock) ---- */

static int pool_ok(CUmemoryPool p)
{
    uintptr_t off = (uintptr_t)p - (uintptr_t)g.pools;
    return off < sizeof g.pools && off % sizeof *p == 0 && p->live && !p->destroyed;
}

/* Gives idle memory back to the device until the pool reserves at most keep bytes. */
static size_t pool_release(CUmemoryPool p, cuuint64_t keep)
{
    size_t idle = p->reserved - p->used, over = p->reserved > keep ? p->reserved - keep : 0;
    size_t n = idle < over ? idle : over;
    p->reserved -= n;
    g.used[p->dev] -= n;
    return n;
}

/* A destroyed pool keeps nothing idle, and its slot is free once its last block is. */
static void pool_settle(CUmemoryPool p)
{
    if (!p->destroyed)
        return;
    pool_release(p, 0);
    if (!p->used)
        memset(p, 0, sizeof *p);
}

/* What the release threshold asks at a synchronisation: every pool down to it. */
static size_t release_pools(void)
{
    size_t n = 0;
    for (CUmemoryPool p = g.pools; p < g.pools + MAX_DEVICES + MAX_POOLS; p++)
        if (p->live)
            n += pool_release(p, p->threshold);
    return n;
}

static void drop(struct block *b)
{
    CUmemoryPool pool = b->pool;
    size_t len = b->mapped; /* a stream-ordered block's share of its pool */
    if (b->mapped)
        munmap((void *)b->base, b->mapped);
    if (b->kind & (K_HANDLE | K_RELEASED))
        close(b->fd);
    if (b->charged)
        g.used[b->dev] -= b->charged;
    tab_remove(b);
    if (pool) {
        pool->used -= len;
        pool_settle(pool);
    }
}

/* Stands for the current pool of the calling context's device (cuMemAllocAsync's). */
static struct CUmemPoolHandle_st context_pool;

/* Maps and records a block of memory for the calling thread's context (or for dev when the
 * kind is K_HANDLE; dev -1: host memory). low32: the block must be addressable by a v1
 * 32-bit CUdeviceptr. pool: a K_DEVICE block's stream-ordered pool (or &context_pool), which
 * sets its device; it takes idle memory of the pool when there is enough, else charges the
 * device as a plain block does and adds that to the pool's reserve. A handle's memory is a
 * memfd, so that every mapping of it shares the data. */
static CUresult new_block(unsigned kind, size_t size, int dev, int low32, CUmemoryPool pool,
                          struct block *out)
{
    if (kind != K_HANDLE) {
        if (!(out->ctx = current()))
            return CUDA_ERROR_INVALID_CONTEXT;
        dev = out->ctx->dev;
    }
    out->dev = dev;
    size_t len = page_round(size);
    if (!size || !len)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g.lock);
    CUresult rc = CUDA_ERROR_INVALID_VALUE;
    if (pool == &context_pool)
        pool = g.current_pool[dev];
    else if (pool && !pool_ok(pool))
        goto out;
    if (pool)
        out->dev = dev = pool->dev;
    size_t charge = kind == K_DEVICE ? len : kind == K_HANDLE && dev >= 0 ? size : 0;
    if (pool && pool->reserved - pool->used >= len)
        charge = 0;
    rc = CUDA_ERROR_OUT_OF_MEMORY;
    if ((charge && charge > g.total - g.used[dev]) ||
        (pool && pool->max && charge > pool->max - pool->reserved) || tab_reserve())
        goto out;
    if (kind == K_HANDLE) {
        int fd = memfd_create("fakecuda", MFD_CLOEXEC);
        if (fd < 0 || ftruncate(fd, (off_t)size)) {
            if (fd >= 0)
                close(fd);
            goto out;
        }
        out->fd = fd;
        out->base = g.next_handle += 2;
    } else {
        void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | (low32 ? MAP_32BIT : 0), -1, 0);
        if (p == MAP_FAILED)
            goto out;
        out->base = (uintptr_t)p;
        out->mapped = len;
    }
    out->size = size;
    out->kind = kind;
    out->pool = pool;
    if (charge)
        g.used[dev] += charge;
    if (pool) {
        pool->reserved += charge;
        pool->used += len;
        if (pool->reserved > pool->reserved_high)
            pool->reserved_high = pool->reserved;
        if (pool->used > pool->used_high)
            pool->used_high = pool->used;
    } else {
        out->charged = charge;
    }
    tab_put(out);
    rc = CUDA_SUCCESS;
out:
    pthread_mutex_unlock(&g.lock);
    return rc;
}

/* Frees the block that starts at p; 'missing' is the answer when there is none. */
static CUresult free_block(uintptr_t p, unsigned kinds, CUresult missing, struct block *out)
{
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&g.lock);
    struct block *b = p ? tab_find(p, kinds) : NULL;
    if (b) {
        *out = *b;
        drop(b);
    } else {
        rc = missing;
    }
    pthread_mutex_unlock(&g.lock);
    return rc;
}

/* ---- initialisation, devices, errors ---- */

EXPORT CUresult cuInit(unsigned int Flags)
{
    struct line l;
    CUresult rc = enter(&l, "cuInit", CUDA_ERROR_NO_DEVICE, 0);
    if (!rc)
        rc = Flags || g.bad_config ? CUDA_ERROR_INVALID_VALUE
             : !g.ndev             ? CUDA_ERROR_NO_DEVICE
                                   : CUDA_SUCCESS;
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        for (int d = 0; d < g.ndev; d++) {
            g.prim[d].dev = d;
            CUmemoryPool p = &g.pools[d];
            if (!p->live) /* a second cuInit keeps what the first set up */
                *p = (struct CUmemPoolHandle_st){.live = 1, .dev = d, .reuse = {1, 1, 1}},
                g.current_pool[d] = p;
        }
        pthread_mutex_unlock(&g.lock);
        __atomic_store_n(&g.initialized, 1, __ATOMIC_RELEASE);
    }
    put_u(&l, "flags", Flags);
    return leave(&l, rc);
}

EXPORT CUresult cuDriverGetVersion(int *driverVersion)
{
    struct line l;
    CUresult rc = enter(&l, "cuDriverGetVersion", CUDA_ERROR_UNKNOWN, 0);
    if (!rc && !driverVersion)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc)
        *driverVersion = CUDA_VERSION;
    put_i(&l, "version", rc ? 0 : CUDA_VERSION);
    return leave(&l, rc);
}

EXPORT CUresult cuDeviceGetCount(int *count)
{
    struct line l;
    CUresult rc = enter(&l, "cuDeviceGetCount", CUDA_ERROR_UNKNOWN, 1);
    if (!rc && !count)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc)
        *count = g.ndev;
    put_i(&l, "count", rc ? 0 : g.ndev);
    return leave(&l, rc);
}

EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    struct line l;
    CUresult rc = enter(&l, "cuDeviceGet", CUDA_ERROR_UNKNOWN, 1);
    if (!rc && !device)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc)
        rc = device_ok(ordinal);
    if (!rc)
        *device = ordinal;
    put_i(&l, "ordinal", ordinal);
    return leave(&l, rc);
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    struct line l;
    CUresult rc = enter(&l, "cuDeviceGetName", CUDA_ERROR_UNKNOWN, 1);
    if (!rc && (!name || len <= 0))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc)
        rc = device_ok(dev);
    if (!rc) {
        char s[] = "Fake GPU 0";
        s[sizeof s - 2] = (char)('0' + dev);
        size_t n = sizeof s <= (size_t)len ? sizeof s : (size_t)len;
        memcpy(name, s, n);
        name[n - 1] = 0;
    }
    put_i(&l, "dev", dev);
    return leave(&l, rc);
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    struct line l;
    CUresult rc = enter(&l, "cuDeviceTotalMem_v2", CUDA_ERROR_UNKNOWN, 1);
    if (!rc && !bytes)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc)
        rc = device_ok(dev);
    if (!rc)
        *bytes = g.total;
    put_i(&l, "dev", dev);
    put_u(&l, "total", rc ? 0 : g.total);
    return leave(&l, rc);
}

/* The UUID of device dev: fa ce c0 da, then zeros with the version nibbles of a random
 * UUID (4, 8), then dev in the last byte. The fake NVML (fakenvml.c) names its devices by
 * the same bytes. */
static CUresult device_uuid(const char *fn, CUuuid *uuid, CUdevice dev)
{
    struct line l;
    CUresult rc = enter(&l, fn, CUDA_ERROR_UNKNOWN, 1);
    if (!rc && !uuid)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc)
        rc = device_ok(dev);
    if (!rc) {
        static const unsigned char head[16] = {0xfa, 0xce, 0xc0, 0xda, 0, 0, 0x40, 0, 0x80};
        memcpy(uuid->bytes, head, sizeof head);
        uuid->bytes[15] = (char)dev;
    }
    put_i(&l, "dev", dev);
    return leave(&l, rc);
}

EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    return device_uuid("cuDeviceGetUuid", uuid, dev);
}

EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    return device_uuid("cuDeviceGetUuid_v2", uuid, dev);
}

/* Not driver API: how the fake NVML learns what this fake's device dev has in use (device
 * memory, pools' reserves, cuMemCreate handles) and its total, as the real NVML learns it
 * from the kernel module. 0, or -1 before cuInit or for a device that does not exist. */
EXPORT int fakecuda_usage(int dev, size_t *used, size_t *total)
{
    if (ready() || device_ok(dev))
        return -1;
    pthread_mutex_lock(&g.lock);
    *used = g.used[dev];
    *total = g.total;
    pthread_mutex_unlock(&g.lock);
    return 0;
}

/* What a runtime and libplace ask; a plausible recent GPU, one SM, no peers. */
static int attribute(CUdevice_attribute a, CUdevice dev)
{
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY:
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS:
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM:
    case CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
        return 1;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
        return dev;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
        return 9;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
        return 32;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
        return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
        return 64;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
        return 0x7fffffff;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
        return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
        return 2048;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
        return 48 << 10;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT:
        return 512;
    default:
        return 0;
    }
}

EXPORT CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    struct line l;
    CUresult rc = enter(&l, "cuDeviceGetAttribute", CUDA_ERROR_UNKNOWN, 1);
    if (!rc && (!pi || (int)attrib < 1 || attrib >= CU_DEVICE_ATTRIBUTE_MAX))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc)
        rc = device_ok(dev);
    int v = rc ? 0 : attribute(attrib, dev);
    if (!rc)
        *pi = v;
    put_i(&l, "attrib", attrib);
    put_i(&l, "dev", dev);
    put_i(&l, "value", v);
    return leave(&l, rc);
}

#define E(code)                                                                                    \
    {                                                                                              \
        code, #code                                                                                \
    }
static const struct {
    CUresult code;
    const char *name;
} errors[] = {
    E(CUDA_SUCCESS),
    E(CUDA_ERROR_INVALID_VALUE),
    E(CUDA_ERROR_OUT_OF_MEMORY),
    E(CUDA_ERROR_NOT_INITIALIZED),
    E(CUDA_ERROR_DEINITIALIZED),
    E(CUDA_ERROR_PROFILER_DISABLED),
    E(CUDA_ERROR_PROFILER_NOT_INITIALIZED),
    E(CUDA_ERROR_PROFILER_ALREADY_STARTED),
    E(CUDA_ERROR_PROFILER_ALREADY_STOPPED),
    E(CUDA_ERROR_STUB_LIBRARY),
    E(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER),
    E(CUDA_ERROR_DEVICE_UNAVAILABLE),
    E(CUDA_ERROR_NO_DEVICE),
    E(CUDA_ERROR_INVALID_DEVICE),
    E(CUDA_ERROR_DEVICE_NOT_LICENSED),
    E(CUDA_ERROR_INVALID_IMAGE),
    E(CUDA_ERROR_INVALID_CONTEXT),
    E(CUDA_ERROR_CONTEXT_ALREADY_CURRENT),
    E(CUDA_ERROR_MAP_FAILED),
    E(CUDA_ERROR_UNMAP_FAILED),
    E(CUDA_ERROR_ARRAY_IS_MAPPED),
    E(CUDA_ERROR_ALREADY_MAPPED),
    E(CUDA_ERROR_NO_BINARY_FOR_GPU),
    E(CUDA_ERROR_ALREADY_ACQUIRED),
    E(CUDA_ERROR_NOT_MAPPED),
    E(CUDA_ERROR_NOT_MAPPED_AS_ARRAY),
    E(CUDA_ERROR_NOT_MAPPED_AS_POINTER),
    E(CUDA_ERROR_ECC_UNCORRECTABLE),
    E(CUDA_ERROR_UNSUPPORTED_LIMIT),
    E(CUDA_ERROR_CONTEXT_ALREADY_IN_USE),
    E(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED),
    E(CUDA_ERROR_INVALID_PTX),
    E(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT),
    E(CUDA_ERROR_NVLINK_UNCORRECTABLE),
    E(CUDA_ERROR_JIT_COMPILER_NOT_FOUND),
    E(CUDA_ERROR_UNSUPPORTED_PTX_VERSION),
    E(CUDA_ERROR_JIT_COMPILATION_DISABLED),
    E(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY),
    E(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC),
    E(CUDA_ERROR_CONTAINED),
    E(CUDA_ERROR_INVALID_SOURCE),
    E(CUDA_ERROR_FILE_NOT_FOUND),
    E(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND),
    E(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED),
    E(CUDA_ERROR_OPERATING_SYSTEM),
    E(CUDA_ERROR_INVALID_HANDLE),
    E(CUDA_ERROR_ILLEGAL_STATE),
    E(CUDA_ERROR_LOSSY_QUERY),
    E(CUDA_ERROR_NOT_FOUND),
    E(CUDA_ERROR_NOT_READY),
    E(CUDA_ERROR_ILLEGAL_ADDRESS),
    E(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES),
    E(CUDA_ERROR_LAUNCH_TIMEOUT),
    E(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING),
    E(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED),
    E(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED),
    E(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE),
    E(CUDA_ERROR_CONTEXT_IS_DESTROYED),
    E(CUDA_ERROR_ASSERT),
    E(CUDA_ERROR_TOO_MANY_PEERS),
    E(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED),
    E(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED),
    E(CUDA_ERROR_HARDWARE_STACK_ERROR),
    E(CUDA_ERROR_ILLEGAL_INSTRUCTION),
    E(CUDA_ERROR_MISALIGNED_ADDRESS),
    E(CUDA_ERROR_INVALID_ADDRESS_SPACE),
    E(CUDA_ERROR_INVALID_PC),
    E(CUDA_ERROR_LAUNCH_FAILED),
    E(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE),
    E(CUDA_ERROR_TENSOR_MEMORY_LEAK),
    E(CUDA_ERROR_NOT_PERMITTED),
    E(CUDA_ERROR_NOT_SUPPORTED),
    E(CUDA_ERROR_SYSTEM_NOT_READY),
    E(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH),
    E(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE),
    E(CUDA_ERROR_MPS_CONNECTION_FAILED),
    E(CUDA_ERROR_MPS_RPC_FAILURE),
    E(CUDA_ERROR_MPS_SERVER_NOT_READY),
    E(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED),
    E(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED),
    E(CUDA_ERROR_MPS_CLIENT_TERMINATED),
    E(CUDA_ERROR_CDP_NOT_SUPPORTED),
    E(CUDA_ERROR_CDP_VERSION_MISMATCH),
    E(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED),
    E(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED),
    E(CUDA_ERROR_STREAM_CAPTURE_MERGE),
    E(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED),
    E(CUDA_ERROR_STREAM_CAPTURE_UNJOINED),
    E(CUDA_ERROR_STREAM_CAPTURE_ISOLATION),
    E(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT),
    E(CUDA_ERROR_CAPTURED_EVENT),
    E(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD),
    E(CUDA_ERROR_TIMEOUT),
    E(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE),
    E(CUDA_ERROR_EXTERNAL_DEVICE),
    E(CUDA_ERROR_INVALID_CLUSTER_SIZE),
    E(CUDA_ERROR_FUNCTION_NOT_LOADED),
    E(CUDA_ERROR_INVALID_RESOURCE_TYPE),
    E(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION),
    E(CUDA_ERROR_KEY_ROTATION),
    E(CUDA_ERROR_UNKNOWN),
};
#undef E

static const char *error_name(CUresult e)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == e)
            return errors[i].name;
    return NULL;
}

static const char *error_text(CUresult e)
{
    switch (e) {
    case CUDA_SUCCESS:
        return "no error";
    case CUDA_ERROR_INVALID_VALUE:
        return "invalid argument";
    case CUDA_ERROR_OUT_OF_MEMORY:
        return "out of memory";
    case CUDA_ERROR_NOT_INITIALIZED:
        return "initialization error";
    case CUDA_ERROR_NO_DEVICE:
        return "no CUDA-capable device is detected";
    case CUDA_ERROR_INVALID_DEVICE:
        return "invalid device ordinal";
    case CUDA_ERROR_INVALID_CONTEXT:
        return "invalid device context";
    case CUDA_ERROR_NOT_FOUND:
        return "named symbol not found";
    case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED:
        return "part or all of the requested memory range is already mapped";
    case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED:
        return "pointer does not correspond to a registered memory region";
    case CUDA_ERROR_NOT_SUPPORTED:
        return "operation not supported";
    case CUDA_ERROR_UNKNOWN:
        return "unknown error";
    default:
        return error_name(e);
    }
}

static CUresult describe(const char *fn, CUresult error, const char **pStr,
                         const char *(*what)(CUresult))
{
    struct line l;
    CUresult rc = enter(&l, fn, CUDA_ERROR_UNKNOWN, 0);
    if (!rc && !pStr)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc && !(*pStr = what(error)))
        rc = CUDA_ERROR_INVALID_VALUE;
    put_i(&l, "error", error);
    return leave(&l, rc);
}

EXPORT CUresult cuGetErrorName(CUresult error, const char **pStr)
{
    return describe("cuGetErrorName", error, pStr, error_name);
}

EXPORT CUresult cuGetErrorString(CUresult error, const char **pStr)
{
    return describe("cuGetErrorString", error, pStr, error_text);
}

/* ---- contexts ---- */

/* The last reference resets the primary context: its memory goes, as with the driver,
 * the idle memory of its device's pools included. */
static void reset(CUcontext c)
{
    for (size_t i = 0; i < g.cap; i++)
        while (g.tab[i].base && g.tab[i].ctx == c && g.tab[i].kind != K_HANDLE)
            drop(&g.tab[i]);
    for (CUmemoryPool p = g.pools; p < g.pools + MAX_DEVICES + MAX_POOLS; p++)
        if (p->live && p->dev == c->dev)
            pool_release(p, 0);
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    struct line l;
    CUresult rc = enter(&l, "cuDevicePrimaryCtxRetain", CUDA_ERROR_UNKNOWN, 1);
    if (!rc && !pctx)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc)
        rc = device_ok(dev);
    CUcontext c = rc ? NULL : &g.prim[dev];
    if (c) {
        pthread_mutex_lock(&g.lock);
        __atomic_add_fetch(&c->refs, 1, __ATOMIC_ACQ_REL);
        pthread_mutex_unlock(&g.lock);
        *pctx = c;
    }
    put_i(&l, "dev", dev);
    put_p(&l, "ctx", (uintptr_t)c);
    return leave(&l, rc);
}

static CUresult ctx_release(const char *fn, CUdevice dev)
{
    struct line l;
    CUresult rc = enter(&l, fn, CUDA_ERROR_UNKNOWN, 1);
    if (!rc)
        rc = device_ok(dev);
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        CUcontext c = &g.prim[dev];
        if (!c->refs)
            rc = CUDA_ERROR_INVALID_CONTEXT;
        else if (!__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL))
            reset(c);
        pthread_mutex_unlock(&g.lock);
    }
    put_i(&l, "dev", dev);
    return leave(&l, rc);
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    return ctx_release("cuDevicePrimaryCtxRelease_v2", dev);
}

/* The v1 has the same prototype; CUDA 13's runtime still asks for it (version 7000). */
EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
    return ctx_release("cuDevicePrimaryCtxRelease", dev);
}

EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    struct line l;
    CUresult rc = enter(&l, "cuCtxGetCurrent", CUDA_ERROR_UNKNOWN, 1);
    if (!rc && !pctx)
        rc = CUDA_ERROR_INVALID_VALUE;
    CUcontext c = rc || !tls.depth ? NULL : tls.stack[tls.depth - 1];
    if (!rc)
        *pctx = c;
    put_p(&l, "ctx", (uintptr_t)c);
    return leave(&l, rc);
}

/* As documented: replaces the top of the thread's stack, or pops it when ctx is NULL. */
EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
    struct line l;
    CUresult rc = enter(&l, "cuCtxSetCurrent", CUDA_ERROR_UNKNOWN, 1);
    if (!rc && ctx && !valid_ctx(ctx))
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (!rc && !ctx) {
        tls.depth -= tls.depth > 0;
    } else if (!rc) {
        tls.depth += !tls.depth;
        tls.stack[tls.depth - 1] = ctx;
    }
    put_p(&l, "ctx", (uintptr_t)ctx);
    return leave(&l, rc);
}

EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    struct line l;
    CUresult rc = enter(&l, "cuCtxPushCurrent_v2", CUDA_ERROR_UNKNOWN, 1);
    if (!rc && !valid_ctx(ctx))
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (!rc && tls.depth == CTX_STACK)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc)
        tls.stack[tls.depth++] = ctx;
    put_p(&l, "ctx", (uintptr_t)ctx);
    return leave(&l, rc);
}

EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
    struct line l;
    CUresult rc = enter(&l, "cuCtxPopCurrent_v2", CUDA_ERROR_UNKNOWN, 1);
    if (!rc && !tls.depth)
        rc = CUDA_ERROR_INVALID_CONTEXT;
    CUcontext c = rc ? NULL : tls.stack[--tls.depth];
    if (c && pctx)
        *pctx = c;
    put_p(&l, "ctx", (uintptr_t)c);
    return leave(&l, rc);
}

static CUresult ctx_device(const char *fn, CUdevice *device, CUcontext ctx)
{
    struct line l;
    CUresult rc = enter(&l, fn, CUDA_ERROR_UNKNOWN, 1);
    if (!rc && !device)
        rc = CUDA_ERROR_INVALID_VALUE;
    CUcontext c = ctx ? ctx : current();
    if (!rc && (!c || !valid_ctx(c)))
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (!rc)
        *device = c->dev;
    put_p(&l, "ctx", (uintptr_t)ctx);
    put_i(&l, "dev", rc ? -1 : c->dev);
    return leave(&l, rc);
}

EXPORT CUresult cuCtxGetDevice(CUdevice *device)
{
    return ctx_device("cuCtxGetDevice", device, NULL);
}

EXPORT CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
    return ctx_device("cuCtxGetDevice_v2", device, ctx);
}

/* Nothing runs asynchronously here, so there is never anything to wait for; but a
 * synchronisation is where pools give back what they hold above their release threshold. */
static size_t sync_pools(void)
{
    pthread_mutex_lock(&g.lock);
    size_t n = release_pools();
    pthread_mutex_unlock(&g.lock);
    return n;
}

static CUresult ctx_sync(const char *fn, CUcontext ctx)
{
    struct line l;
    size_t released = 0;
    CUresult rc = enter(&l, fn, CUDA_ERROR_UNKNOWN, 1);
    if (!rc && !(ctx ? valid_ctx(ctx) : current() != NULL))
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (!rc)
        released = sync_pools();
    put_p(&l, "ctx", (uintptr_t)ctx);
    put_u(&l, "released", released);
    return leave(&l, rc);
}

EXPORT CUresult cuCtxSynchronize(void)
{
    return ctx_sync("cuCtxSynchronize", NULL);
}

EXPORT CUresult cuCtxSynchronize_v2(CUcontext ctx)
{
    return ctx_sync("cuCtxSynchronize_v2", ctx);
}

/* Streams are 0 (the default stream) or whatever the caller passes; work on them is
 * done by the time a call returns. */
static CUresult stream_sync(const char *fn, CUstream stream)
{
    struct line l;
    size_t released = 0;
    CUresult rc = enter(&l, fn, CUDA_ERROR_UNKNOWN, 1);
    if (!rc && !current())
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (!rc)
        released = sync_pools();
    put_p(&l, "stream", (uintptr_t)stream);
    put_u(&l, "released", released);
    return leave(&l, rc);
}

EXPORT CUresult cuStreamSynchronize(CUstream stream)
{
    return stream_sync("cuStreamSynchronize", stream);
}

EXPORT CUresult cuStreamSynchronize_ptsz(CUstream stream)
{
    return stream_sync("cuStreamSynchronize_ptsz", stream);
}

/* ---- device memory ---- */

/* How a device block is allocated: cuMemAlloc, or stream-ordered from the current pool of the
 * context's device (cuMemAllocAsync) or from a pool named (cuMemAllocFromPoolAsync, its device
 * whatever the context's). The stream-ordered ones need a context for the default stream,
 * which the fake always uses. */
enum how { PLAIN, ASYNC, FROM_POOL };

static CUresult mem_alloc(const char *fn, CUdeviceptr *dptr, size_t size, int low32, enum how how,
                          CUmemoryPool pool, CUstream stream)
{
    struct line l;
    struct block b = {.dev = -1};
    CUresult rc = enter(&l, fn, CUDA_ERROR_OUT_OF_MEMORY, 1);
    if (!rc && (!dptr || (how == FROM_POOL && !pool)))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc)
        rc = new_block(K_DEVICE, size, 0, low32, how == ASYNC ? &context_pool : pool, &b);
    if (!rc)
        *dptr = b.base;
    put_u(&l, "size", size);
    if (how == FROM_POOL)
        put_p(&l, "pool", (uintptr_t)pool);
    if (how != PLAIN)
        put_p(&l, "stream", (uintptr_t)stream);
    put_p(&l, "ptr", b.base);
    if (how == ASYNC)
        put_p(&l, "pool", (uintptr_t)b.pool);
    put_i(&l, "dev", b.dev);
    return leave(&l, rc);
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    return mem_alloc("cuMemAlloc_v2", dptr, bytesize, 0, PLAIN, NULL, NULL);
}

/* v1: a 32-bit CUdeviceptr, so the block is mapped in the low 2 GiB (MAP_32BIT). */
EXPORT CUresult cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytesize)
{
    CUdeviceptr p = 0;
    CUresult rc = mem_alloc("cuMemAlloc", dptr ? &p : NULL, bytesize, 1, PLAIN, NULL, NULL);
    if (!rc)
        *dptr = (CUdeviceptr_v1)p;
    return rc;
}

EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    return mem_alloc("cuMemAllocAsync", dptr, bytesize, 0, ASYNC, NULL, hStream);
}

EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    return mem_alloc("cuMemAllocAsync_ptsz", dptr, bytesize, 0, ASYNC, NULL, hStream);
}

EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                        CUstream hStream)
{
    return mem_alloc("cuMemAllocFromPoolAsync", dptr, bytesize, 0, FROM_POOL, pool, hStream);
}

EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                             CUstream hStream)
{
    return mem_alloc("cuMemAllocFromPoolAsync_ptsz", dptr, bytesize, 0, FROM_POOL, pool, hStream);
}

EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
                                   size_t Height, unsigned int ElementSizeBytes)
{
    struct line l;
    struct block b = {.dev = -1};
    size_t pitch = (WidthInBytes + 511) & ~(size_t)511;
    CUresult rc = enter(&l, "cuMemAllocPitch_v2", CUDA_ERROR_OUT_OF_MEMORY, 1);
    if (!rc && !current())
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (!rc && (!dptr || !pPitch || !WidthInBytes || !Height || pitch < WidthInBytes ||
                Height > SIZE_MAX / pitch ||
                (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16)))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc)
        rc = new_block(K_DEVICE, pitch * Height, 0, 0, NULL, &b);
    if (!rc)
        *dptr = b.base, *pPitch = pitch;
    put_u(&l, "width", WidthInBytes);
    put_u(&l, "height", Height);
    put_u(&l, "elemsize", ElementSizeBytes);
    put_u(&l, "pitch", rc ? 0 : pitch);
    put_p(&l, "ptr", b.base);
    put_i(&l, "dev", b.dev);
    return leave(&l, rc);
}

/* cuMemFree frees device and managed memory; the async frees need a context for the
 * default stream the fake always uses. A stream-ordered block's bytes, freed by either, go
 * back to its pool's idle memory (pool: 0x0 for any other block). */
static CUresult mem_free(const char *fn, CUdeviceptr dptr, CUstream stream, int with_stream)
{
    struct line l;
    struct block b = {.dev = -1};
    CUresult rc = enter(&l, fn, CUDA_ERROR_UNKNOWN, 1);
    if (!rc && with_stream && !current())
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (!rc)
        rc = free_block(dptr, K_DEVICE | K_MANAGED, CUDA_ERROR_INVALID_VALUE, &b);
    put_p(&l, "ptr", dptr);
    if (with_stream)
        put_p(&l, "stream", (uintptr_t)stream);
    put_u(&l, "size", b.size);
    put_p(&l, "pool", (uintptr_t)b.pool);
    put_i(&l, "dev", b.dev);
    return leave(&l, rc);
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    return mem_free("cuMemFree_v2", dptr, NULL, 0);
}

EXPORT CUresult cuMemFree(CUdeviceptr_v1 dptr)
{
    return mem_free("cuMemFree", dptr, NULL, 0);
}

EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    return mem_free("cuMemFreeAsync", dptr, hStream, 1);
}

EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
    return mem_free("cuMemFreeAsync_ptsz", dptr, hStream, 1);
}

static CUresult mem_info(const char *fn, size_t *free_, size_t *total)
{
    struct line l;
    size_t f = 0, t = 0;
    CUresult rc = enter(&l, fn, CUDA_ERROR_UNKNOWN, 1);
    CUcontext c = rc ? NULL : current();
    if (!rc && !c)
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (!rc && (!free_ || !total))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        f = g.total - g.used[c->dev], t = g.total;
        pthread_mutex_unlock(&g.lock);
        *free_ = f, *total = t;
    }
    put_u(&l, "free", f);
    put_u(&l, "total", t);
    put_i(&l, "dev", c ? c->dev : -1);
    return leave(&l, rc);
}

EXPORT CUresult cuMemGetInfo_v2(size_t *free_, size_t *total)
{
    return mem_info("cuMemGetInfo_v2", free_, total);
}

/* v1: 32-bit counts, so larger figures are clamped. */
EXPORT CUresult cuMemGetInfo(unsigned int *free_, unsigned int *total)
{
    size_t f, t;
    CUresult rc = mem_info("cuMemGetInfo", free_ ? &f : NULL, total ? &t : NULL);
    if (!rc) {
        *free_ = f > UINT32_MAX ? UINT32_MAX : (unsigned int)f;
        *total = t > UINT32_MAX ? UINT32_MAX : (unsigned int)t;
    }
    return rc;
}

/* ---- stream-ordered memory pools ---- */

/* cuDeviceGetDefaultMemPool and cuDeviceGetMemPool; their documented errors for a device
 * that does not exist differ. */
static CUresult device_pool(const char *fn, CUmemoryPool *pool, CUdevice dev, int dflt)
{
    struct line l;
    CUmemoryPool p = NULL;
    CUresult rc = enter(&l, fn, CUDA_ERROR_UNKNOWN, 1);
    if (!rc && !pool)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc && device_ok(dev))
        rc = dflt ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_INVALID_VALUE;
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        *pool = p = dflt ? &g.pools[dev] : g.current_pool[dev];
        pthread_mutex_unlock(&g.lock);
    }
    put_i(&l, "dev", dev);
    put_p(&l, "pool", (uintptr_t)p);
    return leave(&l, rc);
}

EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
    return device_pool("cuDeviceGetDefaultMemPool", pool_out, dev, 1);
}

EXPORT CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
    return device_pool("cuDeviceGetMemPool", pool, dev, 0);
}

/* The pool must be the device's own. */
EXPORT CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)
{
    struct line l;
    CUresult rc = enter(&l, "cuDeviceSetMemPool", CUDA_ERROR_UNKNOWN, 1);
    if (!rc && device_ok(dev))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        if (pool_ok(pool) && pool->dev == dev)
            g.current_pool[dev] = pool;
        else
            rc = CUDA_ERROR_INVALID_VALUE;
        pthread_mutex_unlock(&g.lock);
    }
    put_i(&l, "dev", dev);
    put_p(&l, "pool", (uintptr_t)pool);
    return leave(&l, rc);
}

/* Pools of device memory only: host pools are documented but not carried out here, nor
 * shareable ones (no IPC). */
EXPORT CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)
{
    struct line l;
    CUmemoryPool p = NULL;
    const CUmemPoolProps *pp = poolProps;
    CUresult rc = enter(&l, "cuMemPoolCreate", CUDA_ERROR_UNKNOWN, 1);
    int zeros = 1; /* the reserved bytes must be */
    for (size_t i = 0; pp && i < sizeof pp->reserved; i++)
        zeros &= !pp->reserved[i];
    if (!rc && (!pool || !pp || pp->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
                pp->win32SecurityAttributes || !zeros))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc && (pp->location.type == CU_MEM_LOCATION_TYPE_HOST ||
                pp->location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA || pp->handleTypes))
        rc = CUDA_ERROR_NOT_SUPPORTED;
    else if (!rc &&
             (pp->location.type != CU_MEM_LOCATION_TYPE_DEVICE || device_ok(pp->location.id)))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        for (CUmemoryPool q = g.pools + MAX_DEVICES; !p && q < g.pools + MAX_DEVICES + MAX_POOLS;
             q++)
            if (!q->live)
                p = q;
        if (p)
            *p = (struct CUmemPoolHandle_st){
                .live = 1, .dev = pp->location.id, .reuse = {1, 1, 1}, .max = pp->maxSize};
        else
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        pthread_mutex_unlock(&g.lock);
    }
    if (p)
        *pool = p;
    put_i(&l, "loc_type", pp ? (long long)pp->location.type : -1);
    put_i(&l, "loc_id", pp ? pp->location.id : -1);
    put_u(&l, "max", pp ? pp->maxSize : 0);
    put_p(&l, "pool", (uintptr_t)p);
    return leave(&l, rc);
}

/* As documented: the device's current pool becomes its default one again, and a pool with
 * blocks outstanding goes when they do (used: their bytes). */
EXPORT CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
    struct line l;
    size_t used = 0;
    CUresult rc = enter(&l, "cuMemPoolDestroy", CUDA_ERROR_UNKNOWN, 1);
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        if (!pool_ok(pool) || pool < g.pools + MAX_DEVICES) {
            rc = CUDA_ERROR_INVALID_VALUE;
        } else {
            if (g.current_pool[pool->dev] == pool)
                g.current_pool[pool->dev] = &g.pools[pool->dev];
            pool->destroyed = 1;
            pool_settle(pool);
            used = pool->used;
        }
        pthread_mutex_unlock(&g.lock);
    }
    put_p(&l, "pool", (uintptr_t)pool);
    put_u(&l, "used", used);
    return leave(&l, rc);
}

EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
    struct line l;
    size_t reserved = 0;
    CUresult rc = enter(&l, "cuMemPoolTrimTo", CUDA_ERROR_UNKNOWN, 1);
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        if (pool_ok(pool)) {
            pool_release(pool, minBytesToKeep);
            reserved = pool->reserved;
        } else {
            rc = CUDA_ERROR_INVALID_VALUE;
        }
        pthread_mutex_unlock(&g.lock);
    }
    put_p(&l, "pool", (uintptr_t)pool);
    put_u(&l, "keep", minBytesToKeep);
    put_u(&l, "reserved", reserved);
    return leave(&l, rc);
}

/* One attribute read, or written (set); *v: its value for the log. The current figures are
 * read only; a high watermark can only be set to 0, which restarts it from the current
 * figure. */
static CUresult pool_attr(CUmemoryPool p, CUmemPool_attribute attr, void *value, int set,
                          unsigned long long *v)
{
    size_t *cur, *high = NULL;
    switch (attr) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
        if (set)
            p->reuse[attr - 1] = *(int *)value;
        else
            *(int *)value = p->reuse[attr - 1];
        *v = (unsigned long long)p->reuse[attr - 1];
        return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
        if (set)
            p->threshold = *(cuuint64_t *)value;
        else
            *(cuuint64_t *)value = p->threshold;
        *v = p->threshold;
        return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
        cur = &p->reserved;
        break;
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
        cur = &p->used;
        break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
        cur = &p->reserved, high = &p->reserved_high;
        break;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
        cur = &p->used, high = &p->used_high;
        break;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (set && (!high || *(cuuint64_t *)value))
        return CUDA_ERROR_INVALID_VALUE;
    if (set)
        *high = *cur;
    else
        *(cuuint64_t *)value = high ? *high : *cur;
    *v = high ? *high : *cur;
    return CUDA_SUCCESS;
}

static CUresult pool_attribute(const char *fn, CUmemoryPool pool, CUmemPool_attribute attr,
                               void *value, int set)
{
    struct line l;
    unsigned long long v = 0;
    CUresult rc = enter(&l, fn, CUDA_ERROR_UNKNOWN, 1);
    if (!rc && !value)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        rc = pool_ok(pool) ? pool_attr(pool, attr, value, set, &v) : CUDA_ERROR_INVALID_VALUE;
        pthread_mutex_unlock(&g.lock);
    }
    put_p(&l, "pool", (uintptr_t)pool);
    put_i(&l, "attr", attr);
    put_u(&l, "value", v);
    return leave(&l, rc);
}

EXPORT CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    return pool_attribute("cuMemPoolGetAttribute", pool, attr, value, 0);
}

EXPORT CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    return pool_attribute("cuMemPoolSetAttribute", pool, attr, value, 1);
}

/* ---- managed and pinned host memory ---- */

EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    struct line l;
    struct block b = {.dev = -1};
    CUresult rc = enter(&l, "cuMemAllocManaged", CUDA_ERROR_OUT_OF_MEMORY, 1);
    if (!rc && !current())
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (!rc && (!dptr || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc)
        rc = new_block(K_MANAGED, bytesize, 0, 0, NULL, &b);
    if (!rc)
        *dptr = b.base;
    put_u(&l, "size", bytesize);
    put_u(&l, "flags", flags);
    put_p(&l, "ptr", b.base);
    put_i(&l, "dev", b.dev);
    return leave(&l, rc);
}

static CUresult host_alloc(const char *fn, void **pp, size_t size, unsigned flags, int with_flags)
{
    struct line l;
    struct block b = {.dev = -1};
    const unsigned known =
        CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED;
    CUresult rc = enter(&l, fn, CUDA_ERROR_OUT_OF_MEMORY, 1);
    if (!rc && !current())
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (!rc && (!pp || (flags & ~known)))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc)
        rc = new_block(K_PINNED, size, 0, 0, NULL, &b);
    if (!rc)
        *pp = (void *)b.base;
    put_u(&l, "size", size);
    if (with_flags)
        put_u(&l, "flags", flags);
    put_p(&l, "ptr", b.base);
    put_i(&l, "dev", b.dev);
    return leave(&l, rc);
}

EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    return host_alloc("cuMemHostAlloc", pp, bytesize, Flags, 1);
}

EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    return host_alloc("cuMemAllocHost_v2", pp, bytesize, 0, 0);
}

EXPORT CUresult cuMemFreeHost(void *p)
{
    struct line l;
    struct block b = {.dev = -1};
    CUresult rc = enter(&l, "cuMemFreeHost", CUDA_ERROR_UNKNOWN, 1);
    if (!rc)
        rc = free_block((uintptr_t)p, K_PINNED, CUDA_ERROR_INVALID_VALUE, &b);
    put_p(&l, "ptr", (uintptr_t)p);
    put_u(&l, "size", b.size);
    return leave(&l, rc);
}

EXPORT CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    struct line l;
    const unsigned known = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                           CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY;
    uintptr_t a = (uintptr_t)p;
    CUresult rc = enter(&l, "cuMemHostRegister_v2", CUDA_ERROR_OUT_OF_MEMORY, 1);
    CUcontext c = rc ? NULL : current();
    if (!rc && !c)
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (!rc && (!p || !bytesize || a + bytesize < a || (Flags & ~known)))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        for (size_t i = 0; i < g.cap && !rc; i++) {
            const struct block *o = &g.tab[i];
            if (o->base && (o->kind & (K_REGISTERED | K_PINNED)) && a < o->base + o->size &&
                o->base < a + bytesize)
                rc = CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
        }
        if (!rc && tab_reserve())
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        if (!rc) {
            struct block b = {
                .base = a, .size = bytesize, .ctx = c, .kind = K_REGISTERED, .dev = c->dev};
            tab_put(&b);
        }
        pthread_mutex_unlock(&g.lock);
    }
    put_p(&l, "ptr", a);
    put_u(&l, "size", bytesize);
    put_u(&l, "flags", Flags);
    return leave(&l, rc);
}

EXPORT CUresult cuMemHostUnregister(void *p)
{
    struct line l;
    struct block b = {.dev = -1};
    CUresult rc = enter(&l, "cuMemHostUnregister", CUDA_ERROR_UNKNOWN, 1);
    if (!rc)
        rc = free_block((uintptr_t)p, K_REGISTERED, CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, &b);
    put_p(&l, "ptr", (uintptr_t)p);
    put_u(&l, "size", b.size);
    return leave(&l, rc);
}

/* Unified addressing: a mapped host address is its own device address. */
EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    struct line l;
    CUdeviceptr d = 0;
    CUresult rc = enter(&l, "cuMemHostGetDevicePointer_v2", CUDA_ERROR_UNKNOWN, 1);
    if (!rc && (!pdptr || Flags))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        if (find((uintptr_t)p, 1, K_PINNED | K_REGISTERED))
            d = (uintptr_t)p;
        else
            rc = CUDA_ERROR_INVALID_VALUE;
        pthread_mutex_unlock(&g.lock);
    }
    if (!rc)
        *pdptr = d;
    put_p(&l, "host", (uintptr_t)p);
    put_u(&l, "flags", Flags);
    put_p(&l, "ptr", d);
    return leave(&l, rc);
}

static CUresult advise(const char *fn, CUdeviceptr ptr, size_t count, CUmem_advise advice,
                       CUmemLocation loc)
{
    struct line l;
    CUresult rc = enter(&l, fn, CUDA_ERROR_UNKNOWN, 1);
    if (!rc && (!count || advice < CU_MEM_ADVISE_SET_READ_MOSTLY ||
                advice > CU_MEM_ADVISE_UNSET_ACCESSED_BY))
        rc = CUDA_ERROR_INVALID_VALUE;
    /* The documentation has the location ignored for these three. */
    int located = advice == CU_MEM_ADVISE_SET_PREFERRED_LOCATION ||
                  advice == CU_MEM_ADVISE_SET_ACCESSED_BY ||
                  advice == CU_MEM_ADVISE_UNSET_ACCESSED_BY;
    if (!rc && located && loc.type == CU_MEM_LOCATION_TYPE_DEVICE)
        rc = device_ok(loc.id);
    else if (!rc && located &&
             (loc.type < CU_MEM_LOCATION_TYPE_HOST ||
              loc.type > CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        if (!find(ptr, count, K_MANAGED))
            rc = CUDA_ERROR_INVALID_VALUE;
        pthread_mutex_unlock(&g.lock);
    }
    put_p(&l, "ptr", ptr);
    put_u(&l, "count", count);
    put_i(&l, "advice", advice);
    put_i(&l, "loc_type", loc.type);
    put_i(&l, "loc_id", loc.id);
    return leave(&l, rc);
}

EXPORT CUresult cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
                               CUmemLocation location)
{
    return advise("cuMemAdvise_v2", devPtr, count, advice, location);
}

/* v1 names the device; CU_DEVICE_CPU is the host. */
EXPORT CUresult cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device)
{
    CUmemLocation loc = {
        device == CU_DEVICE_CPU ? CU_MEM_LOCATION_TYPE_HOST : CU_MEM_LOCATION_TYPE_DEVICE, device};
    return advise("cuMemAdvise", devPtr, count, advice, loc);
}

/* ---- virtual memory management ---- */

EXPORT CUresult cuMemGetAllocationGranularity(size_t *granularity_, const CUmemAllocationProp *prop,
                                              CUmemAllocationGranularity_flags option)
{
    struct line l;
    CUresult rc = enter(&l, "cuMemGetAllocationGranularity", CUDA_ERROR_UNKNOWN, 1);
    if (!rc && (!granularity_ || !prop || option > CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc)
        *granularity_ = granularity;
    put_i(&l, "option", option);
    put_u(&l, "granularity", rc ? 0 : granularity);
    return leave(&l, rc);
}

/* Host memory (CUDA 12.2 on) is never charged to a device; HOST_NUMA_CURRENT is refused, as
 * documented for cuMemCreate. */
EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                            const CUmemAllocationProp *prop, unsigned long long flags)
{
    struct line l;
    struct block b = {.dev = -1};
    CUresult rc = enter(&l, "cuMemCreate", CUDA_ERROR_OUT_OF_MEMORY, 1);
    if (!rc && (!handle || !prop || flags || !size || size % granularity ||
                prop->type != CU_MEM_ALLOCATION_TYPE_PINNED))
        rc = CUDA_ERROR_INVALID_VALUE;
    CUmemLocationType type = rc ? CU_MEM_LOCATION_TYPE_INVALID : prop->location.type;
    if (type == CU_MEM_LOCATION_TYPE_DEVICE)
        rc = device_ok(prop->location.id);
    else if (!rc && !(type == CU_MEM_LOCATION_TYPE_HOST && !prop->requestedHandleTypes) &&
             !(type == CU_MEM_LOCATION_TYPE_HOST_NUMA && prop->location.id >= 0))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc)
        rc = new_block(K_HANDLE, size, type == CU_MEM_LOCATION_TYPE_DEVICE ? prop->location.id : -1,
                       0, NULL, &b);
    if (!rc)
        *handle = b.base;
    put_u(&l, "size", size);
    put_i(&l, "loc_type", prop ? (long long)prop->location.type : -1);
    put_i(&l, "loc_id", prop ? prop->location.id : -1);
    put_u(&l, "flags", flags);
    put_p(&l, "handle", b.base);
    return leave(&l, rc);
}

/* As documented, a handle still mapped is gone at once (maps: its mappings), but its memory
 * and its charge stay until its last mapping is unmapped. */
EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
    struct line l;
    struct block b = {.dev = -1};
    CUresult rc = enter(&l, "cuMemRelease", CUDA_ERROR_UNKNOWN, 1);
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        struct block *h = tab_find(handle, K_HANDLE);
        if (h)
            b = *h;
        else
            rc = CUDA_ERROR_INVALID_VALUE;
        if (h && h->maps)
            h->kind = K_RELEASED;
        else if (h)
            drop(h);
        pthread_mutex_unlock(&g.lock);
    }
    put_p(&l, "handle", handle);
    put_u(&l, "size", b.size);
    put_i(&l, "dev", b.dev);
    put_u(&l, "maps", b.maps);
    return leave(&l, rc);
}

/* Reservations are aligned to the granularity at least, so that a mapping may start at one. */
EXPORT CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                    CUdeviceptr addr, unsigned long long flags)
{
    struct line l;
    struct block b = {.kind = K_RESERVED, .dev = -1};
    size_t page = (size_t)sysconf(_SC_PAGESIZE),
           align = alignment > granularity ? alignment : granularity;
    CUresult rc = enter(&l, "cuMemAddressReserve", CUDA_ERROR_UNKNOWN, 1);
    if (!rc &&
        (!ptr || !size || size % page || addr % page || flags || (alignment & (alignment - 1))))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc && size > SIZE_MAX - align)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        void *m = tab_reserve() ? MAP_FAILED
                                : mmap((void *)addr, size + align, PROT_NONE,
                                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED) {
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            uintptr_t start = ((uintptr_t)m + align - 1) & ~(align - 1), end = start + size;
            if (start > (uintptr_t)m)
                munmap(m, start - (uintptr_t)m);
            if ((uintptr_t)m + size + align > end)
                munmap((void *)end, (uintptr_t)m + size + align - end);
            b.base = start, b.size = b.mapped = size;
            tab_put(&b);
            *ptr = start;
        }
        pthread_mutex_unlock(&g.lock);
    }
    put_u(&l, "size", size);
    put_u(&l, "alignment", alignment);
    put_p(&l, "addr", addr);
    put_u(&l, "flags", flags);
    put_p(&l, "ptr", b.base);
    return leave(&l, rc);
}

/* What [p, p + n) holds of mappings: the bytes of those inside it, whether one sticks out of
 * it, whether one is device memory. */
struct cover {
    size_t inside;
    int out, device;
};

static struct cover covered(uintptr_t p, size_t n)
{
    struct cover c = {0, n > UINTPTR_MAX - p, 0};
    for (size_t i = 0; i < g.cap && !c.out; i++) {
        const struct block *m = &g.tab[i];
        if (!m->base || m->kind != K_MAPPING || m->base >= p + n || p >= m->base + m->size)
            continue;
        if (m->base < p || m->base + m->size > p + n)
            c.out = 1;
        else
            c.inside += m->size;
        c.device |= m->dev >= 0;
    }
    return c;
}

/* The whole reservation, with nothing mapped in it anymore (this fake's choice; the
 * documentation does not say). */
EXPORT CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    struct line l;
    CUresult rc = enter(&l, "cuMemAddressFree", CUDA_ERROR_UNKNOWN, 1);
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        struct block *r = ptr ? tab_find(ptr, K_RESERVED) : NULL;
        struct cover c = covered(ptr, size);
        if (r && r->size == size && !c.inside && !c.out)
            drop(r);
        else
            rc = CUDA_ERROR_INVALID_VALUE;
        pthread_mutex_unlock(&g.lock);
    }
    put_p(&l, "ptr", ptr);
    put_u(&l, "size", size);
    return leave(&l, rc);
}

/* Into a part of one reservation that nothing is mapped in; offset must be 0, as the
 * documentation says for now. */
EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                         CUmemGenericAllocationHandle handle, unsigned long long flags)
{
    struct line l;
    CUresult rc = enter(&l, "cuMemMap", CUDA_ERROR_UNKNOWN, 1);
    if (!rc && (flags || offset || !size || size % granularity || ptr % granularity))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        if (tab_reserve()) /* first: the handle's entry may move */
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        struct block *h = rc ? NULL : tab_find(handle, K_HANDLE);
        struct cover c = covered(ptr, size);
        if (!rc && (!h || size > h->size || !find(ptr, size, K_RESERVED) || c.inside || c.out))
            rc = CUDA_ERROR_INVALID_VALUE;
        else if (!rc && mmap((void *)ptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                             h->fd, 0) == MAP_FAILED)
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        if (!rc) {
            struct block m = {
                .base = ptr, .size = size, .handle = handle, .kind = K_MAPPING, .dev = h->dev};
            h->maps++;
            tab_put(&m);
        }
        pthread_mutex_unlock(&g.lock);
    }
    put_p(&l, "ptr", ptr);
    put_u(&l, "size", size);
    put_u(&l, "offset", offset);
    put_p(&l, "handle", handle);
    put_u(&l, "flags", flags);
    return leave(&l, rc);
}

static struct block *mapping_in(uintptr_t p, size_t n)
{
    for (size_t i = 0; i < g.cap; i++)
        if (g.tab[i].base && g.tab[i].kind == K_MAPPING && g.tab[i].base - p < n)
            return &g.tab[i];
    return NULL;
}

/* Whole mappings only; their ranges are reserved again, and a released handle goes with its
 * last mapping. */
EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    struct line l;
    CUresult rc = enter(&l, "cuMemUnmap", CUDA_ERROR_UNKNOWN, 1);
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        struct cover c = covered(ptr, size);
        if (!size || c.out || c.inside != size)
            rc = CUDA_ERROR_INVALID_VALUE;
        for (struct block *m; !rc && (m = mapping_in(ptr, size));) {
            uintptr_t handle = m->handle;
            mmap((void *)m->base, m->size, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
            drop(m);
            struct block *h = tab_find(handle, K_HANDLE | K_RELEASED);
            if (!--h->maps && h->kind == K_RELEASED)
                drop(h);
        }
        pthread_mutex_unlock(&g.lock);
    }
    put_p(&l, "ptr", ptr);
    put_u(&l, "size", size);
    return leave(&l, rc);
}

/* Checked, then nothing to do: mapped memory is readable and writable from the host here.
 * A host NUMA location may be given for host memory only. Logged: the first descriptor. */
EXPORT CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
                               size_t count)
{
    struct line l;
    int host_numa = 0;
    CUresult rc = enter(&l, "cuMemSetAccess", CUDA_ERROR_UNKNOWN, 1);
    if (!rc && (!desc || !count || !size))
        rc = CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; !rc && i < count; i++) {
        const CUmemAccessDesc *d = &desc[i];
        if (d->flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
            d->flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
            d->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            rc = CUDA_ERROR_INVALID_VALUE;
        else if (d->location.type == CU_MEM_LOCATION_TYPE_DEVICE)
            rc = device_ok(d->location.id);
        else if (d->location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA)
            host_numa = 1;
        else
            rc = CUDA_ERROR_INVALID_VALUE;
    }
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        struct cover c = covered(ptr, size);
        if (c.out || c.inside != size || (host_numa && c.device))
            rc = CUDA_ERROR_INVALID_VALUE;
        pthread_mutex_unlock(&g.lock);
    }
    put_p(&l, "ptr", ptr);
    put_u(&l, "size", size);
    put_u(&l, "count", count);
    put_i(&l, "loc_type", desc && count ? (long long)desc->location.type : -1);
    put_i(&l, "loc_id", desc && count ? desc->location.id : -1);
    put_i(&l, "flags", desc && count ? (long long)desc->flags : -1);
    return leave(&l, rc);
}

/* ---- pointers ---- */

static CUresult pointer_attribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr,
                                  const struct block *b, unsigned long long *v)
{
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        *(CUcontext *)data = b->ctx, *v = (uintptr_t)b->ctx;
        break;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *v = b->kind & (K_DEVICE | K_MANAGED) || (b->kind == K_MAPPING && b->dev >= 0)
                 ? CU_MEMORYTYPE_DEVICE
                 : CU_MEMORYTYPE_HOST;
        *(unsigned int *)data = (unsigned int)*v;
        break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *(unsigned int *)data = (unsigned int)(*v = b->kind == K_MANAGED);
        break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = b->dev, *v = (unsigned long long)b->dev;
        break;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *(CUdeviceptr *)data = *v = ptr;
        break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *(CUdeviceptr *)data = *v = b->base;
        break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
        *(size_t *)data = *v = b->size;
        break;
    case CU_POINTER_ATTRIBUTE_MAPPED:
        *(unsigned int *)data = (unsigned int)(*v = 1);
        break;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
        *(CUmemoryPool *)data = b->pool, *v = (uintptr_t)b->pool;
        break;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    struct line l;
    struct block b = {.dev = -1};
    unsigned long long v = 0;
    CUresult rc = enter(&l, "cuPointerGetAttribute", CUDA_ERROR_UNKNOWN, 1);
    if (!rc && !data)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (!rc) {
        pthread_mutex_lock(&g.lock);
        const struct block *f = find(ptr, 1, K_POINTERS);
        if (f)
            b = *f;
        else
            rc = CUDA_ERROR_INVALID_VALUE;
        pthread_mutex_unlock(&g.lock);
    }
    if (!rc)
        rc = pointer_attribute(data, attribute, ptr, &b, &v);
    put_i(&l, "attribute", attribute);
    put_p(&l, "ptr", ptr);
    put_u(&l, "value", v);
    return leave(&l, rc);
}

/* ---- copies and sets: "device" memory is host memory ---- */

enum { SIDE_HOST = 0, SIDE_DEVICE = 1, SIDE_ANY = 2 };

static CUresult check_range(uintptr_t p, size_t n, int side)
{
    if (side == SIDE_HOST)
        return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g.lock);
    int known = find(p, n, K_POINTERS) != NULL;
    pthread_mutex_unlock(&g.lock);
    return known || (side == SIDE_ANY && p) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static CUresult copy(const char *fn, uintptr_t dst, int dst_side, uintptr_t src, int src_side,
                     size_t n)
{
    struct line l;
    CUresult rc = enter(&l, fn, CUDA_ERROR_UNKNOWN, 1);
    if (!rc && !current())
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (!rc && n)
        rc = check_range(dst, n, dst_side);
    if (!rc && n)
        rc = check_range(src, n, src_side);
    if (!rc && n)
        memmove((void *)dst, (const void *)src, n);
    put_p(&l, "dst", dst);
    put_p(&l, "src", src);
    put_u(&l, "size", n);
    return leave(&l, rc);
}

EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    return copy("cuMemcpyHtoD_v2", dstDevice, SIDE_DEVICE, (uintptr_t)srcHost, SIDE_HOST,
                ByteCount);
}

EXPORT CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    return copy("cuMemcpyHtoD_v2_ptds", dstDevice, SIDE_DEVICE, (uintptr_t)srcHost, SIDE_HOST,
                ByteCount);
}

EXPORT CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    return copy("cuMemcpyDtoH_v2", (uintptr_t)dstHost, SIDE_HOST, srcDevice, SIDE_DEVICE,
                ByteCount);
}

EXPORT CUresult cuMemcpyDtoH_v2_ptds(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    return copy("cuMemcpyDtoH_v2_ptds", (uintptr_t)dstHost, SIDE_HOST, srcDevice, SIDE_DEVICE,
                ByteCount);
}

EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
    return copy("cuMemcpyDtoD_v2", dstDevice, SIDE_DEVICE, srcDevice, SIDE_DEVICE, ByteCount);
}

EXPORT CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
    return copy("cuMemcpyDtoD_v2_ptds", dstDevice, SIDE_DEVICE, srcDevice, SIDE_DEVICE, ByteCount);
}

EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
    return copy("cuMemcpy", dst, SIDE_ANY, src, SIDE_ANY, ByteCount);
}

EXPORT CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
    return copy("cuMemcpy_ptds", dst, SIDE_ANY, src, SIDE_ANY, ByteCount);
}

static CUresult set8(const char *fn, CUdeviceptr dst, unsigned char uc, size_t n)
{
    struct line l;
    CUresult rc = enter(&l, fn, CUDA_ERROR_UNKNOWN, 1);
    if (!rc && !current())
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (!rc && n)
        rc = check_range(dst, n, SIDE_DEVICE);
    if (!rc && n)
        memset((void *)dst, uc, n);
    put_p(&l, "dst", dst);
    put_u(&l, "value", uc);
    put_u(&l, "size", n);
    return leave(&l, rc);
}

EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    return set8("cuMemsetD8_v2", dstDevice, uc, N);
}

EXPORT CUresult cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    return set8("cuMemsetD8_v2_ptds", dstDevice, uc, N);
}

/* ---- entry points by name ---- */

/* One row per variant: from 'version' on, 'base' is this function; a per_thread row is a
 * candidate only under CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM. The versions are those
 * of cudaTypedefs.h's PFN_<base>_v<version>[_ptds|_ptsz] typedefs. Older variants that this
 * fake does not define (cuMemHostRegister before 6050, cuDeviceTotalMem before 3020, ...)
 * answer CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT. */
#define FN(f) ((void (*)(void))(f))
static const struct proc {
    const char *base;
    int version, per_thread;
    void (*fn)(void);
} procs[] = {
    {"cuGetProcAddress", 11030, 0, FN(cuGetProcAddress)},
    {"cuGetProcAddress", 12000, 0, FN(cuGetProcAddress_v2)},
    {"cuInit", 2000, 0, FN(cuInit)},
    {"cuDriverGetVersion", 2020, 0, FN(cuDriverGetVersion)},
    {"cuDeviceGetCount", 2000, 0, FN(cuDeviceGetCount)},
    {"cuDeviceGet", 2000, 0, FN(cuDeviceGet)},
    {"cuDeviceGetName", 2000, 0, FN(cuDeviceGetName)},
    {"cuDeviceTotalMem", 3020, 0, FN(cuDeviceTotalMem_v2)},
    {"cuDeviceGetUuid", 9020, 0, FN(cuDeviceGetUuid)},
    {"cuDeviceGetUuid", 11040, 0, FN(cuDeviceGetUuid_v2)},
    {"cuDeviceGetAttribute", 2000, 0, FN(cuDeviceGetAttribute)},
    {"cuGetErrorName", 6000, 0, FN(cuGetErrorName)},
    {"cuGetErrorString", 6000, 0, FN(cuGetErrorString)},
    {"cuDevicePrimaryCtxRetain", 7000, 0, FN(cuDevicePrimaryCtxRetain)},
    {"cuDevicePrimaryCtxRelease", 7000, 0, FN(cuDevicePrimaryCtxRelease)},
    {"cuDevicePrimaryCtxRelease", 11000, 0, FN(cuDevicePrimaryCtxRelease_v2)},
    {"cuCtxGetCurrent", 4000, 0, FN(cuCtxGetCurrent)},
    {"cuCtxSetCurrent", 4000, 0, FN(cuCtxSetCurrent)},
    {"cuCtxPushCurrent", 4000, 0, FN(cuCtxPushCurrent_v2)},
    {"cuCtxPopCurrent", 4000, 0, FN(cuCtxPopCurrent_v2)},
    {"cuCtxGetDevice", 2000, 0, FN(cuCtxGetDevice)},
    {"cuCtxGetDevice", 13000, 0, FN(cuCtxGetDevice_v2)},
    {"cuCtxSynchronize", 2000, 0, FN(cuCtxSynchronize)},
    {"cuStreamSynchronize", 2000, 0, FN(cuStreamSynchronize)},
    {"cuStreamSynchronize", 7000, 1, FN(cuStreamSynchronize_ptsz)},
    {"cuCtxSynchronize", 13000, 0, FN(cuCtxSynchronize_v2)},
    {"cuMemGetInfo", 2000, 0, FN(cuMemGetInfo)},
    {"cuMemGetInfo", 3020, 0, FN(cuMemGetInfo_v2)},
    {"cuMemAlloc", 2000, 0, FN(cuMemAlloc)},
    {"cuMemAlloc", 3020, 0, FN(cuMemAlloc_v2)},
    {"cuMemFree", 2000, 0, FN(cuMemFree)},
    {"cuMemFree", 3020, 0, FN(cuMemFree_v2)},
    {"cuMemAllocPitch", 3020, 0, FN(cuMemAllocPitch_v2)},
    {"cuMemAllocAsync", 11020, 0, FN(cuMemAllocAsync)},
    {"cuMemAllocAsync", 11020, 1, FN(cuMemAllocAsync_ptsz)},
    {"cuMemFreeAsync", 11020, 0, FN(cuMemFreeAsync)},
    {"cuMemFreeAsync", 11020, 1, FN(cuMemFreeAsync_ptsz)},
    {"cuMemAllocFromPoolAsync", 11020, 0, FN(cuMemAllocFromPoolAsync)},
    {"cuMemAllocFromPoolAsync", 11020, 1, FN(cuMemAllocFromPoolAsync_ptsz)},
    {"cuDeviceGetDefaultMemPool", 11020, 0, FN(cuDeviceGetDefaultMemPool)},
    {"cuDeviceGetMemPool", 11020, 0, FN(cuDeviceGetMemPool)},
    {"cuDeviceSetMemPool", 11020, 0, FN(cuDeviceSetMemPool)},
    {"cuMemPoolCreate", 11020, 0, FN(cuMemPoolCreate)},
    {"cuMemPoolDestroy", 11020, 0, FN(cuMemPoolDestroy)},
    {"cuMemPoolTrimTo", 11020, 0, FN(cuMemPoolTrimTo)},
    {"cuMemPoolGetAttribute", 11020, 0, FN(cuMemPoolGetAttribute)},
    {"cuMemPoolSetAttribute", 11020, 0, FN(cuMemPoolSetAttribute)},
    {"cuMemAllocManaged", 6000, 0, FN(cuMemAllocManaged)},
    {"cuMemHostAlloc", 2020, 0, FN(cuMemHostAlloc)},
    {"cuMemAllocHost", 3020, 0, FN(cuMemAllocHost_v2)},
    {"cuMemFreeHost", 2000, 0, FN(cuMemFreeHost)},
    {"cuMemHostRegister", 6050, 0, FN(cuMemHostRegister_v2)},
    {"cuMemHostUnregister", 4000, 0, FN(cuMemHostUnregister)},
    {"cuMemHostGetDevicePointer", 3020, 0, FN(cuMemHostGetDevicePointer_v2)},
    {"cuMemAdvise", 8000, 0, FN(cuMemAdvise)},
    {"cuMemAdvise", 12020, 0, FN(cuMemAdvise_v2)},
    {"cuMemGetAllocationGranularity", 10020, 0, FN(cuMemGetAllocationGranularity)},
    {"cuMemCreate", 10020, 0, FN(cuMemCreate)},
    {"cuMemRelease", 10020, 0, FN(cuMemRelease)},
    {"cuMemAddressReserve", 10020, 0, FN(cuMemAddressReserve)},
    {"cuMemAddressFree", 10020, 0, FN(cuMemAddressFree)},
    {"cuMemMap", 10020, 0, FN(cuMemMap)},
    {"cuMemUnmap", 10020, 0, FN(cuMemUnmap)},
    {"cuMemSetAccess", 10020, 0, FN(cuMemSetAccess)},
    {"cuPointerGetAttribute", 4000, 0, FN(cuPointerGetAttribute)},
    {"cuMemcpyHtoD", 3020, 0, FN(cuMemcpyHtoD_v2)},
    {"cuMemcpyHtoD", 7000, 1, FN(cuMemcpyHtoD_v2_ptds)},
    {"cuMemcpyDtoH", 3020, 0, FN(cuMemcpyDtoH_v2)},
    {"cuMemcpyDtoH", 7000, 1, FN(cuMemcpyDtoH_v2_ptds)},
    {"cuMemcpyDtoD", 3020, 0, FN(cuMemcpyDtoD_v2)},
    {"cuMemcpyDtoD", 7000, 1, FN(cuMemcpyDtoD_v2_ptds)},
    {"cuMemcpy", 4000, 0, FN(cuMemcpy)},
    {"cuMemcpy", 7000, 1, FN(cuMemcpy_ptds)},
    {"cuMemsetD8", 3020, 0, FN(cuMemsetD8_v2)},
    {"cuMemsetD8", 7000, 1, FN(cuMemsetD8_v2_ptds)},
};
#undef FN

/* The newest variant the version allows; at one version the per-thread one wins. */
static CUresult lookup(const char *symbol, void **pfn, int version, cuuint64_t flags,
                       CUdriverProcAddressQueryResult *status)
{
    const cuuint64_t known =
        CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    if (!symbol || !pfn || version > CUDA_VERSION || (flags & ~known))
        return CUDA_ERROR_INVALID_VALUE;
    int per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    const struct proc *best = NULL;
    int named = 0;
    for (const struct proc *p = procs; p < procs + sizeof procs / sizeof procs[0]; p++) {
        if (strcmp(p->base, symbol))
            continue;
        named = 1;
        if (p->version <= version && (per_thread || !p->per_thread) &&
            (!best || p->version > best->version || (p->version == best->version && p->per_thread)))
            best = p;
    }
    *pfn = best ? (void *)best->fn : NULL;
    *status = best    ? CU_GET_PROC_ADDRESS_SUCCESS
              : named ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                      : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return best ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

static CUresult get_proc(const char *fn, const char *symbol, void **pfn, int version,
                         cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
    struct line l;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult rc = enter(&l, fn, CUDA_ERROR_UNKNOWN, 0);
    if (!rc)
        rc = lookup(symbol, pfn, version, flags, &status);
    if (symbolStatus && rc != CUDA_ERROR_INVALID_VALUE && rc != CUDA_ERROR_UNKNOWN)
        *symbolStatus = status;
    put_s(&l, "symbol", symbol, SIZE_MAX);
    put_i(&l, "version", version);
    put_u(&l, "flags", flags);
    if (symbolStatus)
        put_i(&l, "status", status);
    return leave(&l, rc);
}

EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                    cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
    CUdriverProcAddressQueryResult ignored;
    return get_proc("cuGetProcAddress_v2", symbol, pfn, cudaVersion, flags,
                    symbolStatus ? symbolStatus : &ignored);
}

EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    return get_proc("cuGetProcAddress", symbol, pfn, cudaVersion, flags, NULL);
}
