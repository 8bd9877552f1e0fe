#include "nvml.h"

#include <dlfcn.h>
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

/* Asked anew at each query, a UUID from NVML and one from the driver for each GPU: NVML's
 * memory queries are a monitor's, seconds apart, and a cache would need a lock that a
 * fork could catch held. */
int place_nvml_cuda_device(nvmlDevice_t device)
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

