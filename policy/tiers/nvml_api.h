/* The part of NVML (libnvidia-ml.so.1) that libplace and its fake NVML use, declared from
 * NVML's documented API: the CUDA toolkit ships no nvml.h. The exported names are
 * nvml.h's: nvmlInit_v2, nvmlDeviceGetCount_v2 and nvmlDeviceGetHandleByIndex_v2 are what
 * its macros nvmlInit, nvmlDeviceGetCount and nvmlDeviceGetHandleByIndex stand for. */
#ifndef PLACE_NVML_API_H
#define PLACE_NVML_API_H

typedef struct nvmlDevice_st *nvmlDevice_t;

typedef enum nvmlReturn_enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
    NVML_ERROR_UNKNOWN = 999
} nvmlReturn_t;

typedef struct nvmlMemory_st {
    unsigned long long total, free, used; /* used counts the driver's reserve too */
} nvmlMemory_t;

typedef struct nvmlMemory_v2_st {
    unsigned int version; /* nvmlMemory_v2 */
    unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;

#define NVML_STRUCT_VERSION(data, ver)                                                             \
    (unsigned int)(sizeof(nvml##data##_v##ver##_t) | ((unsigned)(ver) << 24U))
#define nvmlMemory_v2 NVML_STRUCT_VERSION(Memory, 2)

/* nvmlInitWithFlags: succeed when no GPU is found; do not attach the GPUs. */
#define NVML_INIT_FLAG_NO_GPUS 1
#define NVML_INIT_FLAG_NO_ATTACH 2

/* "GPU-" and the 16 bytes of cuDeviceGetUuid as 8-4-4-4-12 hex digits, and a NUL. */
#define NVML_DEVICE_UUID_BUFFER_SIZE 80

nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlInit(void); /* the v1 entry point, which nvml.h's nvmlInit no longer names */
nvmlReturn_t nvmlInitWithFlags(unsigned int flags);
nvmlReturn_t nvmlShutdown(void);
const char *nvmlErrorString(nvmlReturn_t result);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory);

#endif
