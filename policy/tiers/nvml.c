#include "nvml.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "../base/lib.h"
#include "driver.h"

static const char soname[] = "libnvidia-ml.so.1";

/* Looked up in the loaded library only: libplace never loads NVML itself. */
void *place_nvml_sym(const char *name)
{
    void *h = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
    void *fn = h ? place_real_dlsym(h, name) : NULL;
    if (h)
        dlclose(h); /* the program's own load keeps it, and fn, loaded */
    return fn;
}

bool place_nvml_owns(const void *fn)
{
    return place_lib_owns(soname, fn);
}

static int hex(char c)
{
    int l = c | 0x20;
    return c >= '0' && c <= '9' ? c - '0' : l >= 'a' && l <= 'f' ? l - 'a' + 10 : -1;
}

/* NVML's "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (or "MIG-..." for a MIG instance,
 * which CUDA then sees as a device of that UUID) into its 16 bytes. */
static bool parse_uuid(const char *s, unsigned char out[16])
{
    while (*s && *s != '-')
        s++;
    int n = 0;
    for (; *s && n < 32; s++) {
        if (*s == '-')
            continue;
        int v = hex(*s);
        if (v < 0)
            return false;
        out[n / 2] = (unsigned char)(n % 2 ? out[n / 2] | v : v << 4);
        n++;
    }
    return n == 32 && !*s;
}

enum { KNOWN = 64 };

/* NVML's handles are stable for the process: each one's CUDA device is found once, and
 * slots are filled in order, under a lock (a miss is rare), read without one. */
static struct {
    _Atomic(nvmlDevice_t) nvml;
    _Atomic int cuda;
} known[KNOWN];

static int find(nvmlDevice_t device)
{
    nvmlReturn_t (*uuid_of)(nvmlDevice_t, char *, unsigned) = place_nvml_sym("nvmlDeviceGetUUID");
    char text[NVML_DEVICE_UUID_BUFFER_SIZE];
    unsigned char want[16];
    if (!uuid_of || uuid_of(device, text, sizeof text) != NVML_SUCCESS || !parse_uuid(text, want))
        return -1;
    for (int d = 0; d < place_cu.devices; d++) {
        CUdevice dev;
        CUuuid u;
        if (place_cu.DeviceGet(&dev, d) == CUDA_SUCCESS &&
            place_cu.DeviceGetUuid(&u, dev) == CUDA_SUCCESS &&
            __builtin_memcmp(u.bytes, want, sizeof want) == 0)
            return d;
    }
    return -1;
}

int place_nvml_cuda_device(nvmlDevice_t device)
{
    static pthread_mutex_t adding = PTHREAD_MUTEX_INITIALIZER;
    int i = 0, d;
    for (; i < KNOWN && atomic_load(&known[i].nvml); i++)
        if (atomic_load(&known[i].nvml) == device)
            return atomic_load(&known[i].cuda);
    pthread_mutex_lock(&adding);
    for (; i < KNOWN && atomic_load(&known[i].nvml) && atomic_load(&known[i].nvml) != device; i++)
        ;
    if (i < KNOWN && atomic_load(&known[i].nvml)) { /* another thread added it */
        d = atomic_load(&known[i].cuda);
    } else if (d = find(device), i < KNOWN) {
        /* the device before the handle: a reader that finds the handle finds its device */
        atomic_store(&known[i].cuda, d);
        atomic_store(&known[i].nvml, device);
    }
    pthread_mutex_unlock(&adding);
    return d;
}
