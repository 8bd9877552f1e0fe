/* fakenvml: a test double of NVML, built as libnvidia-ml.so.1 from shim/nvml_api.h (NVML's
 * documented declarations; the CUDA toolkit here ships no nvml.h).
 *
 * It answers the device queries a placement tool makes (how many GPUs, which is which, how
 * much memory each has free) for the fake CUDA driver's devices (fakecuda.c), so that
 * libplace's use of NVML can be tested where there is no GPU. It does not link the fake
 * driver: a program may load either library without the other, as with the real ones. What
 * a device has in use it asks the fake driver at each query, through the driver's non-API
 * hook fakecuda_usage, found in the libcuda.so.1 already loaded (dlopen with RTLD_NOLOAD);
 * when no fake driver is loaded, or it has not been initialised, nothing is in use.
 * Nothing is printed; what a test wants to know it reads from the log.
 *
 * NVML numbers the devices in the reverse of CUDA's order: NVML index i is CUDA device
 * n-1-i. The real NVML orders devices by PCI bus id and CUDA by speed (unless
 * CUDA_DEVICE_ORDER=PCI_BUS_ID), so a tool that takes NVML index i for CUDA device i is
 * wrong on some machines; with this fake it is wrong on every machine with two devices or
 * more. The devices are matched by UUID: nvmlDeviceGetUUID gives
 *   GPU-facec0da-0000-4000-8000-0000000000DD
 * that is, the bytes of the fake driver's cuDeviceGetUuid as 8-4-4-4-12 lowercase hex
 * digits, DD the CUDA device's number.
 *
 * Environment (read at the first call, with the fake driver's code, fakelog.h):
 *   FAKECUDA_DEVICES=N    devices (0..8, default 1); NVML index i is CUDA device N-1-i
 *   FAKECUDA_MEM=SIZE     each device's total memory: bytes, optional K/M/G/T (x1024), default 1G
 *   FAKENVML_RESERVED=SIZE
 *                         each device's memory the driver keeps for itself (nvmlMemory_v2_t's
 *                         reserved), bytes with K/M/G/T, default 0; at most FAKECUDA_MEM
 *   FAKENVML_FAIL=NAME[,NAME...]
 *                         those entry points answer NVML_ERROR_UNKNOWN without doing
 *                         anything. A NAME is an exact entry point (nvmlDeviceGetMemoryInfo_v2)
 *                         or a base name, which covers its variants (nvmlDeviceGetMemoryInfo:
 *                         nvmlDeviceGetMemoryInfo and nvmlDeviceGetMemoryInfo_v2; nvmlInit:
 *                         nvmlInit and nvmlInit_v2). nvmlErrorString cannot fail.
 *   FAKECUDA_LOG=PATH     every call appends one line to PATH (see below): the same log as
 *                         the fake driver's, each library with its own O_APPEND descriptor.
 * A malformed FAKECUDA_DEVICES, FAKECUDA_MEM or FAKENVML_RESERVED, a reserve larger than
 * the total, or a FAKENVML_FAIL of 1024 characters or more, makes the nvmlInit entry points
 * answer NVML_ERROR_UNKNOWN.
 *
 * Memory, for a device whose CUDA device has U bytes in use (fakecuda_usage: device memory
 * and cuMemCreate handles, as the fake driver charges them), total T, reserve R:
 *   nvmlDeviceGetMemoryInfo_v2  total=T reserved=R used=U free=T-R-U
 *   nvmlDeviceGetMemoryInfo     total=T used=R+U free=T-R-U
 * (v1's used counts the reserve, as the real v1 does); a free that would be negative is 0.
 * The fake driver knows nothing of the reserve: its cuMemGetInfo says T-U free, and it
 * lets U grow past T-R, when v1's used exceeds the total (it is not capped).
 *
 * The log: one line per call of an exported function, written with one write(2) to a file
 * opened with O_APPEND, so lines of threads, of forked children and of the fake driver
 * never interleave:
 *   NAME key=value ... rc=N
 * NAME is the exact entry point called. Inputs come first, then outputs, then rc, the
 * nvmlReturn_t in decimal. Numbers are decimal (sizes in bytes, versions and flags too).
 * A call on a device says index=I (its NVML index, -1 for a handle not from this library)
 * and dev=D (the CUDA device that index stands for, -1 for none); outputs are 0, and a
 * string empty, when nothing came back. refs is the count of initialisations after the
 * call. The lines:
 *   nvmlInit_v2 refs=1 rc=0
 *   nvmlInit refs=1 rc=0
 *   nvmlInitWithFlags flags=1 refs=1 rc=0
 *   nvmlShutdown refs=0 rc=0
 *   nvmlDeviceGetCount_v2 count=2 rc=0
 *   nvmlDeviceGetHandleByIndex_v2 index=0 dev=1 rc=0
 *   nvmlDeviceGetHandleByUUID uuid=GPU-facec0da-0000-4000-8000-000000000001 index=0 dev=1 rc=0
 *   nvmlDeviceGetUUID index=0 dev=1 length=80 uuid=GPU-facec0da-0000-4000-8000-000000000001 rc=0
 *   nvmlDeviceGetMemoryInfo index=0 dev=1 total=67108864 free=66060288 used=1048576 rc=0
 *   nvmlDeviceGetMemoryInfo_v2 index=0 dev=1 version=33554472 total=67108864 reserved=1048576
 *       free=66060288 used=0 rc=0                         (one line, wrapped here)
 *   nvmlErrorString result=7
 * (nvmlErrorString's line alone has no rc: it returns a string). A string argument has its
 * blanks and control characters written as '?'.
 *
 * Choices where the documentation leaves room, or where this double is simpler:
 * - Initialisation is counted, as documented: each successful nvmlInit* adds one, each
 *   nvmlShutdown takes one away; at 0 every other call (but nvmlErrorString) answers
 *   NVML_ERROR_UNINITIALIZED, nvmlShutdown included.
 * - With FAKECUDA_DEVICES=0, nvmlInit_v2 and nvmlInit answer NVML_ERROR_DRIVER_NOT_LOADED
 *   (without a GPU the kernel driver does not load); nvmlInitWithFlags with
 *   NVML_INIT_FLAG_NO_GPUS succeeds, and the count is 0. Other flags are taken and ignored.
 * - Handles are the addresses of a static table: the same for the life of the process,
 *   valid again after a shutdown and a new init. Anything else is NVML_ERROR_INVALID_ARGUMENT.
 * - nvmlDeviceGetUUID wants room for the UUID and its NUL (41 bytes), else
 *   NVML_ERROR_INSUFFICIENT_SIZE; nvmlDeviceGetHandleByUUID matches the whole string
 *   exactly, else NVML_ERROR_NOT_FOUND.
 * - nvmlDeviceGetMemoryInfo_v2 with a version other than nvmlMemory_v2 answers
 *   NVML_ERROR_ARGUMENT_VERSION_MISMATCH and writes nothing.
 * - nvmlErrorString answers the codes this fake returns with NVML's wording and any other
 *   code with "Unknown Error".
 * - The fake driver's hook is looked up at each memory query until found, then kept (with
 *   the dlopen reference that pins the driver). A lookup that fails may allocate (dlerror's
 *   message); nothing else here does.
 *
 * The parsing of the environment, the FAIL list's matching and the writing of log lines are
 * fakelog.h's, shared with the fake driver (fakecuda.c).
 *
 * No malloc and no stdio inside, nor in fakelog.h: libplace may call NVML from within its
 * malloc. */
#include "nvml_api.h"

#include "fakelog.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

enum { MAX_DEVICES = 8, UUID_LEN = 40 };

struct nvmlDevice_st {
    int index;
};

typedef int (*usage_fn)(int dev, size_t *used, size_t *total);

static struct {
    pthread_mutex_t lock;
    int refs; /* atomic: read without the lock */
    int ndev, bad_config, log_fd;
    size_t total, reserved;
    char fail[1024];
    struct nvmlDevice_st dev[MAX_DEVICES];
    usage_fn usage; /* atomic */
} g = {.lock = PTHREAD_MUTEX_INITIALIZER, .log_fd = -1};

static pthread_once_t once = PTHREAD_ONCE_INIT;

/* ---- configuration ---- */

static void configure(void)
{
    size_t n;
    g.bad_config |= env_size("FAKECUDA_DEVICES", 1, MAX_DEVICES, &n);
    g.ndev = (int)n;
    for (int i = 0; i < MAX_DEVICES; i++)
        g.dev[i].index = i;
    g.bad_config |= env_size("FAKECUDA_MEM", 1u << 30, SIZE_MAX, &g.total);
    g.bad_config |= env_size("FAKENVML_RESERVED", 0, g.total, &g.reserved);
    g.bad_config |= env_list("FAKENVML_FAIL", g.fail, sizeof g.fail);
    g.log_fd = log_open();
}

/* ---- the log (fakelog.h) ---- */

static int refs(void)
{
    return __atomic_load_n(&g.refs, __ATOMIC_ACQUIRE);
}

/* Opens an entry point's line. Returns NVML_ERROR_UNKNOWN when FAKENVML_FAIL names the entry
 * point, else NVML_ERROR_UNINITIALIZED when it needs nvmlInit and NVML is not initialised,
 * else NVML_SUCCESS. */
static nvmlReturn_t enter(struct line *l, const char *name, int needs_init)
{
    pthread_once(&once, configure);
    line_open(l, g.log_fd, name);
    return listed(g.fail, name)    ? NVML_ERROR_UNKNOWN
           : needs_init && !refs() ? NVML_ERROR_UNINITIALIZED
                                   : NVML_SUCCESS;
}

static nvmlReturn_t leave(struct line *l, nvmlReturn_t rc)
{
    put_i(l, "rc", rc);
    line_write(l);
    return rc;
}

/* ---- devices ---- */

/* The NVML index of handle h, or -1 when h is not one of this library's devices. */
static int index_of(nvmlDevice_t h)
{
    for (int i = 0; i < g.ndev; i++)
        if (h == &g.dev[i])
            return i;
    return -1;
}

/* The CUDA device that NVML index i stands for: the reverse order. */
static int cuda_dev(int i)
{
    return i < 0 ? -1 : g.ndev - 1 - i;
}

/* "GPU-" and the fake driver's UUID bytes for CUDA device dev, 8-4-4-4-12, and a NUL. */
static void format_uuid(char out[UUID_LEN + 1], int dev)
{
    static const unsigned char head[16] = {0xfa, 0xce, 0xc0, 0xda, 0, 0, 0x40, 0, 0x80};
    unsigned char bytes[16];
    memcpy(bytes, head, sizeof bytes);
    bytes[15] = (unsigned char)dev;
    char *p = out;
    memcpy(p, "GPU-", 4);
    p += 4;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            *p++ = '-';
        *p++ = "0123456789abcdef"[bytes[i] >> 4];
        *p++ = "0123456789abcdef"[bytes[i] & 15];
    }
    *p = 0;
}

/* The fake driver's fakecuda_usage, when a fake driver is loaded. Once found it is kept,
 * with the dlopen reference, which keeps the driver loaded. */
static usage_fn find_usage(void)
{
    usage_fn fn = __atomic_load_n(&g.usage, __ATOMIC_ACQUIRE);
    if (fn)
        return fn;
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return NULL;
    void *sym = dlsym(h, "fakecuda_usage");
    if (!sym) { /* a real driver, or a fake that predates the hook */
        dlclose(h);
        return NULL;
    }
    memcpy(&fn, &sym, sizeof fn);
    usage_fn none = NULL;
    if (!__atomic_compare_exchange_n(&g.usage, &none, fn, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        dlclose(h); /* another thread kept its reference first */
    return fn;
}

/* What the fake driver has charged to CUDA device dev; 0 without a fake driver, or before
 * its cuInit. */
static size_t in_use(int dev)
{
    usage_fn fn = find_usage();
    size_t used = 0, total = 0;
    if (!fn || fn(dev, &used, &total))
        return 0;
    return used;
}

/* ---- initialisation ---- */

static nvmlReturn_t init(const char *name, int with_flags, unsigned int flags)
{
    struct line l;
    nvmlReturn_t rc = enter(&l, name, 0);
    if (with_flags)
        put_u(&l, "flags", flags);
    if (!rc)
        rc = g.bad_config                                   ? NVML_ERROR_UNKNOWN
             : !g.ndev && !(flags & NVML_INIT_FLAG_NO_GPUS) ? NVML_ERROR_DRIVER_NOT_LOADED
                                                            : NVML_SUCCESS;
    pthread_mutex_lock(&g.lock);
    if (!rc)
        __atomic_store_n(&g.refs, g.refs + 1, __ATOMIC_RELEASE);
    put_i(&l, "refs", g.refs);
    pthread_mutex_unlock(&g.lock);
    return leave(&l, rc);
}

EXPORT nvmlReturn_t nvmlInit_v2(void)
{
    return init("nvmlInit_v2", 0, 0);
}

EXPORT nvmlReturn_t nvmlInit(void)
{
    return init("nvmlInit", 0, 0);
}

EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
    return init("nvmlInitWithFlags", 1, flags);
}

EXPORT nvmlReturn_t nvmlShutdown(void)
{
    struct line l;
    nvmlReturn_t rc = enter(&l, "nvmlShutdown", 0);
    pthread_mutex_lock(&g.lock);
    if (!rc && !g.refs)
        rc = NVML_ERROR_UNINITIALIZED;
    if (!rc)
        __atomic_store_n(&g.refs, g.refs - 1, __ATOMIC_RELEASE);
    put_i(&l, "refs", g.refs);
    pthread_mutex_unlock(&g.lock);
    return leave(&l, rc);
}

EXPORT const char *nvmlErrorString(nvmlReturn_t result)
{
    struct line l;
    enter(&l, "nvmlErrorString", 0);
    put_i(&l, "result", result);
    line_write(&l);
    switch (result) {
    case NVML_SUCCESS:
        return "Success";
    case NVML_ERROR_UNINITIALIZED:
        return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT:
        return "Invalid Argument";
    case NVML_ERROR_NOT_FOUND:
        return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE:
        return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED:
        return "Driver Not Loaded";
    case NVML_ERROR_ARGUMENT_VERSION_MISMATCH:
        return "Argument version mismatch";
    default:
        return "Unknown Error";
    }
}

/* ---- devices ---- */

EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
    struct line l;
    nvmlReturn_t rc = enter(&l, "nvmlDeviceGetCount_v2", 1);
    if (!rc && !deviceCount)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (!rc)
        *deviceCount = (unsigned)g.ndev;
    put_i(&l, "count", rc ? 0 : g.ndev);
    return leave(&l, rc);
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    struct line l;
    nvmlReturn_t rc = enter(&l, "nvmlDeviceGetHandleByIndex_v2", 1);
    if (!rc && (!device || index >= (unsigned)g.ndev))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (!rc)
        *device = &g.dev[index];
    put_u(&l, "index", index);
    put_i(&l, "dev", rc ? -1 : cuda_dev((int)index));
    return leave(&l, rc);
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
    struct line l;
    nvmlReturn_t rc = enter(&l, "nvmlDeviceGetHandleByUUID", 1);
    int found = -1;
    if (!rc && (!uuid || !device))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; !rc && found < 0 && i < g.ndev; i++) {
        char s[UUID_LEN + 1];
        format_uuid(s, cuda_dev(i));
        if (!strcmp(uuid, s))
            found = i;
    }
    if (!rc && found < 0)
        rc = NVML_ERROR_NOT_FOUND;
    if (!rc)
        *device = &g.dev[found];
    put_s(&l, "uuid", uuid, UUID_LEN + 8);
    put_i(&l, "index", found);
    put_i(&l, "dev", cuda_dev(found));
    return leave(&l, rc);
}

/* Opens the line of a call on a device: checks the handle, logs index and dev; then checks
 * that the call's output, out, is not NULL. */
static nvmlReturn_t device_call(struct line *l, const char *name, nvmlDevice_t device,
                                const void *out, int *i)
{
    nvmlReturn_t rc = enter(l, name, 1);
    *i = index_of(device);
    if (!rc && *i < 0)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    put_i(l, "index", *i);
    put_i(l, "dev", cuda_dev(*i));
    if (!rc && !out)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    return rc;
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
    struct line l;
    int i;
    nvmlReturn_t rc = device_call(&l, "nvmlDeviceGetUUID", device, uuid, &i);
    char s[UUID_LEN + 1] = "";
    if (!rc && length < sizeof s)
        rc = NVML_ERROR_INSUFFICIENT_SIZE;
    if (!rc) {
        format_uuid(s, cuda_dev(i));
        memcpy(uuid, s, sizeof s);
    }
    put_u(&l, "length", length);
    put_s(&l, "uuid", s, sizeof s);
    return leave(&l, rc);
}

/* Both memory queries: the v2 (v2 set, mem an nvmlMemory_v2_t) counts the reserve apart,
 * checks the struct's version first and logs it; v1 (mem an nvmlMemory_t) has no reserve
 * field, and its used is everything not free to allocate, the reserve too. */
static nvmlReturn_t memory_info(const char *name, nvmlDevice_t device, void *mem, int v2)
{
    struct line l;
    int i;
    nvmlReturn_t rc = device_call(&l, name, device, mem, &i);
    nvmlMemory_v2_t *m2 = v2 ? mem : NULL;
    nvmlMemory_t *m1 = v2 ? NULL : mem;
    unsigned long long total = 0, reserved = 0, free_ = 0, used = 0;
    if (v2) {
        put_u(&l, "version", m2 ? m2->version : 0);
        if (!rc && m2->version != nvmlMemory_v2)
            rc = NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    }
    if (!rc) {
        size_t u = in_use(cuda_dev(i)), room = g.total - g.reserved;
        total = g.total;
        reserved = g.reserved;
        free_ = u < room ? room - u : 0;
        used = v2 ? u : reserved + u;
    }
    if (!rc && m1)
        m1->total = total, m1->free = free_, m1->used = used;
    if (!rc && m2)
        m2->total = total, m2->reserved = reserved, m2->free = free_, m2->used = used;
    put_u(&l, "total", total);
    if (v2)
        put_u(&l, "reserved", reserved);
    put_u(&l, "free", free_);
    put_u(&l, "used", used);
    return leave(&l, rc);
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *mem)
{
    return memory_info("nvmlDeviceGetMemoryInfo", device, mem, 0);
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *mem)
{
    return memory_info("nvmlDeviceGetMemoryInfo_v2", device, mem, 1);
}
