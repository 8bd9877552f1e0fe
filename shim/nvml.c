/* NVML's memory queries, answered within a GPU tier's limit as cuMemGetInfo is: vLLM,
 * Ray and monitoring agents size their caches from NVML, and a limit the CUDA query keeps
 * but NVML does not is one the program walks past.
 *
 * Programs reach NVML by symbol (-lnvidia-ml: these exports come first) or through
 * dlopen("libnvidia-ml.so.1") and dlsym (pynvml, PyTorch), which shim/dlsym.c answers
 * with these wrappers when the symbol is NVML's own. */
#include <stdint.h>
#include <string.h>

#include "../policy/base/guard.h"
#include "../policy/engine/cuda_path.h"
#include "../policy/tiers/nvml.h"
#include "dlsym.h"
#include "export.h"

enum { N_INFO, N_INFO_V2, NVML_ENTRIES };

static struct {
    const char *name;
    void *wrapper;
    _Atomic(void *) next;
} entries[NVML_ENTRIES] = {
    [N_INFO] = {"nvmlDeviceGetMemoryInfo", nvmlDeviceGetMemoryInfo},
    [N_INFO_V2] = {"nvmlDeviceGetMemoryInfo_v2", nvmlDeviceGetMemoryInfo_v2},
};

static void *next(int e)
{
    void *fn = atomic_load_explicit(&entries[e].next, memory_order_acquire);
    if (!fn) {
        fn = place_nvml_sym(entries[e].name);
        atomic_store_explicit(&entries[e].next, fn, memory_order_release);
    }
    return fn;
}

void *place_nvml_dlsym(void *handle, const char *name)
{
    for (int e = 0; e < NVML_ENTRIES; e++) {
        if (strcmp(name, entries[e].name) != 0)
            continue;
        void *fn = place_real_dlsym(handle, name);
        if (!fn || !place_nvml_owns(fn))
            return NULL;
        void *none = NULL;
        atomic_compare_exchange_strong(&entries[e].next, &none, fn);
        return entries[e].wrapper;
    }
    return NULL;
}

/* NVML's own answer to query e. */
static nvmlReturn_t answer(int e, nvmlDevice_t device, void *memory)
{
    nvmlReturn_t (*fn)(nvmlDevice_t, void *) = next(e);
    if (!fn)
        return NVML_ERROR_UNINITIALIZED;
    uint8_t was = place_guard_enter();
    nvmlReturn_t rc = fn(device, memory);
    place_guard_leave(was);
    return rc;
}

/* That answer's total and free brought within the device's limit: whether they were. */
static bool fitted(nvmlDevice_t device, unsigned long long *total, unsigned long long *free)
{
    uint64_t t = *total, f = *free;
    uint8_t was = place_guard_enter();
    bool fit = place_cuda_nvml_fit(device, &t, &f);
    place_guard_leave(was);
    if (fit)
        *total = t, *free = f;
    return fit;
}

PLACE_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
    nvmlReturn_t rc = answer(N_INFO, device, memory);
    /* v1's used is everything not free, the driver's reserve included */
    if (rc == NVML_SUCCESS && fitted(device, &memory->total, &memory->free))
        memory->used = memory->total - memory->free;
    return rc;
}

PLACE_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
    nvmlReturn_t rc = answer(N_INFO_V2, device, memory);
    /* total is still reserve, free and used; the driver's reserve is not the program's, so
     * what the limit leaves short of free is used first */
    if (rc == NVML_SUCCESS && fitted(device, &memory->total, &memory->free)) {
        unsigned long long taken = memory->total - memory->free;
        if (memory->used > taken)
            memory->used = taken;
        memory->reserved = taken - memory->used;
    }
    return rc;
}
