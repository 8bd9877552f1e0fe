// spill: K arrays of N floats from cudaMalloc, K-1 inputs and one output;
// out[j] = sum over i of (i + 1) * in_i[j], computed by a kernel and checked on the host
// exactly (every value is a small integer, so float arithmetic is exact in any order).
//
//   spill N [K]      N floats per array (N >= 1), K arrays (2..32, default 3)
//   spill --probe    print the device and its memory; exit 0 if CUDA works, 3 if not
//
// It prints where each array lives (cudaPointerGetAttributes: device, managed, host or
// unregistered) and cudaMemGetInfo before and after allocating, in lines that
// tests/gpu/run reads:
//
//   spill: array 3 805306368 bytes managed 0x7f1234000000
//   spill: memory allocated free 123 total 456 bytes (0 MiB free of 0 MiB)
//   spill: 201326592 elements, result ok
//
// Exit status: 0 right result; 1 wrong result or a CUDA error; 2 a cudaMalloc failed with
// cudaErrorMemoryAllocation (reported, the arrays already allocated freed); 3 --probe
// found no working CUDA device; 64 usage.
//
// Built twice by tests/gpu/run: nvcc's default (static cudart) and -cudart shared, with
// -DSPILL_CUDART='"static"' or '"shared"' to say which.

#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#ifndef SPILL_CUDART
#define SPILL_CUDART "unknown"
#endif

enum { MAX_ARRAYS = 32, FILL_MOD = 251 };

struct inputs {
    const float *in[MAX_ARRAYS];
    int n;
};

#define CK(call)                                                                              \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            fprintf(stderr, "spill: %s failed: %s: %s (line %d)\n", #call, cudaGetErrorName(e_), \
                    cudaGetErrorString(e_), __LINE__);                                        \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

static float in_value(int i, size_t j) { return (float)((j + 7u * (size_t)i) % FILL_MOD); }

__global__ void fill(float *a, size_t n, int i)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
        a[j] = (float)((j + 7u * (size_t)i) % FILL_MOD);
}

__global__ void fill_nan(float *a, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
        a[j] = __int_as_float(0x7fc00000);
}

__global__ void weighted_sum(float *out, inputs ins, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) {
        float s = 0.0f;
        for (int i = 0; i < ins.n; i++)
            s += (float)(i + 1) * ins.in[i][j];
        out[j] = s;
    }
}

static const char *where(const void *p)
{
    cudaPointerAttributes a;
    memset(&a, 0, sizeof a);
    cudaError_t e = cudaPointerGetAttributes(&a, p);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return "unknown";
    }
    switch (a.type) {
    case cudaMemoryTypeDevice:
        return "device";
    case cudaMemoryTypeManaged:
        return "managed";
    case cudaMemoryTypeHost:
        return "host";
    case cudaMemoryTypeUnregistered:
        return "unregistered";
    default:
        return "unknown";
    }
}

static void meminfo(const char *when)
{
    size_t freeb = 0, total = 0;
    CK(cudaMemGetInfo(&freeb, &total));
    printf("spill: memory %s free %zu total %zu bytes (%zu MiB free of %zu MiB)\n", when, freeb,
           total, freeb >> 20, total >> 20);
}

static int probe(void)
{
    int rt = 0, drv = 0, count = 0;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count < 1) {
        printf("spill: no usable CUDA device: %s (cudart %s %d, driver supports CUDA %d)\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "no device", SPILL_CUDART, rt, drv);
        return 3;
    }
    cudaDeviceProp prop;
    e = cudaGetDeviceProperties(&prop, 0);
    size_t freeb = 0, total = 0;
    if (e == cudaSuccess)
        e = cudaMemGetInfo(&freeb, &total);
    if (e != cudaSuccess) {
        printf("spill: CUDA device 0 does not work: %s: %s (cudart %s %d, driver supports CUDA "
               "%d)\n",
               cudaGetErrorName(e), cudaGetErrorString(e), SPILL_CUDART, rt, drv);
        return 3;
    }
    printf("spill: probe ok: device 0 %s, sm_%d%d, %d devices, cudart %s %d, driver CUDA %d\n",
           prop.name, prop.major, prop.minor, count, SPILL_CUDART, rt, drv);
    printf("spill: probe memory free %zu total %zu bytes\n", freeb, total);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 2 && strcmp(argv[1], "--probe") == 0)
        return probe();
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: spill N [K] | spill --probe\n");
        return 64;
    }
    char *end;
    errno = 0;
    unsigned long long nl = strtoull(argv[1], &end, 10);
    long kl = argc == 3 ? strtol(argv[2], NULL, 10) : 3;
    if (errno || *end || nl == 0 || kl < 2 || kl > MAX_ARRAYS) {
        fprintf(stderr, "spill: bad arguments: N must be >= 1, K in 2..%d\n", MAX_ARRAYS);
        return 64;
    }
    const size_t n = (size_t)nl, bytes = n * sizeof(float);
    const int k = (int)kl;

    int rt = 0, drv = 0;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    cudaDeviceProp prop;
    CK(cudaSetDevice(0));
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("spill: cudart %s, runtime %d, driver %d, device 0 %s (sm_%d%d)\n", SPILL_CUDART, rt,
           drv, prop.name, prop.major, prop.minor);
    printf("spill: %d arrays of %zu floats (%zu MiB each, %zu MiB in all)\n", k, n, bytes >> 20,
           ((size_t)k * bytes) >> 20);
    CK(cudaFree(0));
    meminfo("start");

    std::vector<float *> a((size_t)k, nullptr);
    for (int i = 0; i < k; i++) {
        cudaError_t e = cudaMalloc((void **)&a[(size_t)i], bytes);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            printf("spill: cudaMalloc of array %d (%zu bytes) failed: %s: %s\n", i, bytes,
                   cudaGetErrorName(e), cudaGetErrorString(e));
            for (int j = 0; j < i; j++) {
                printf("spill: array %d %zu bytes %s %p\n", j, bytes, where(a[(size_t)j]),
                       (void *)a[(size_t)j]);
                CK(cudaFree(a[(size_t)j]));
            }
            // The context must still work after a refused allocation.
            meminfo("after-failure");
            return e == cudaErrorMemoryAllocation ? 2 : 1;
        }
    }
    for (int i = 0; i < k; i++)
        printf("spill: array %d %zu bytes %s %p\n", i, bytes, where(a[(size_t)i]),
               (void *)a[(size_t)i]);
    meminfo("allocated");

    // Array 0 by cudaMemcpy from the host, the other inputs by a kernel, the output set
    // to NaN first so that an element the kernel did not write cannot pass.
    std::vector<float> host(n);
    for (size_t j = 0; j < n; j++)
        host[j] = in_value(0, j);
    CK(cudaMemcpy(a[0], host.data(), bytes, cudaMemcpyHostToDevice));
    const int threads = 256;
    const int blocks = prop.multiProcessorCount * 8;
    for (int i = 1; i < k - 1; i++)
        fill<<<blocks, threads>>>(a[(size_t)i], n, i);
    fill_nan<<<blocks, threads>>>(a[(size_t)k - 1], n);
    CK(cudaGetLastError());

    inputs ins;
    memset(&ins, 0, sizeof ins);
    ins.n = k - 1;
    for (int i = 0; i < k - 1; i++)
        ins.in[i] = a[(size_t)i];
    weighted_sum<<<blocks, threads>>>(a[(size_t)k - 1], ins, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());

    std::fill(host.begin(), host.end(), -1.0f);
    CK(cudaMemcpy(host.data(), a[(size_t)k - 1], bytes, cudaMemcpyDeviceToHost));
    // The expected value depends on j only through j % FILL_MOD.
    float want_of[FILL_MOD];
    for (size_t r = 0; r < FILL_MOD; r++) {
        want_of[r] = 0.0f;
        for (int i = 0; i < k - 1; i++)
            want_of[r] += (float)(i + 1) * in_value(i, r);
    }
    int rc = 0;
    for (size_t j = 0; j < n; j++) {
        float want = want_of[j % FILL_MOD];
        if (host[j] != want) {
            printf("spill: %zu elements, first mismatch at element %zu: got %.9g, expected %.9g\n",
                   n, j, (double)host[j], (double)want);
            rc = 1;
            break;
        }
    }
    if (!rc)
        printf("spill: %zu elements, result ok\n", n);
    for (int i = 0; i < k; i++)
        CK(cudaFree(a[(size_t)i]));
    return rc;
}
