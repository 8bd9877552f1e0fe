// staging: host-to-device cudaMemcpy throughput from a malloc'd buffer and from a
// cudaMallocHost buffer of the same size, for a few sizes.
//
//   staging [REPS [MIB...]]     default: 10 copies each of 64 MiB and 256 MiB
//
// For each size both buffers are filled (so no page is first touched while timed), copied
// twice to warm up, then copied REPS times, alternating malloc and cudaMallocHost, each copy
// timed with a pair of cudaEvents. One line per case, the median first:
//
//   staging malloc 256MiB 12.34 GB/s (best 12.80 GB/s, 10 copies, buffer unregistered)
//   staging cudaMallocHost 256MiB 24.51 GB/s (best 24.90 GB/s, 10 copies, buffer host)
//   staging ratio 256MiB malloc/cudaMallocHost 0.50
//   staging check 256MiB ok
//
// "buffer" is what cudaPointerGetAttributes says of the buffer: unregistered for ordinary
// pageable memory, host for page-locked memory (what libplace's pinned tier hands out).
// "check" copies the malloc'd buffer's data back from the device and compares it byte for
// byte. GB/s are 10^9 bytes per second. Exit status 0, or 1 on a CUDA error or a mismatch.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call)                                                                              \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            fprintf(stderr, "staging: %s failed: %s: %s (line %d)\n", #call,                \
                    cudaGetErrorName(e_), cudaGetErrorString(e_), __LINE__);                  \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

static const char *kind_of(const void *p)
{
    cudaPointerAttributes a;
    memset(&a, 0, sizeof a);
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return "unknown";
    }
    switch (a.type) {
    case cudaMemoryTypeHost:
        return "host";
    case cudaMemoryTypeDevice:
        return "device";
    case cudaMemoryTypeManaged:
        return "managed";
    case cudaMemoryTypeUnregistered:
        return "unregistered";
    default:
        return "unknown";
    }
}

static float time_copy(void *dst, const void *src, size_t bytes, cudaEvent_t t0, cudaEvent_t t1)
{
    CK(cudaEventRecord(t0));
    CK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
    CK(cudaEventRecord(t1));
    CK(cudaEventSynchronize(t1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, t0, t1));
    return ms;
}

static void report(const char *what, size_t mib, std::vector<float> ms, const char *kind,
                   double *median_out)
{
    std::sort(ms.begin(), ms.end());
    size_t m = ms.size();
    double med = m % 2 ? ms[m / 2] : (ms[m / 2 - 1] + ms[m / 2]) / 2.0;
    double gb = (double)(mib << 20) / 1e9;
    double median = gb / (med / 1e3), best = gb / ((double)ms[0] / 1e3);
    printf("staging %s %zuMiB %.2f GB/s (best %.2f GB/s, %zu copies, buffer %s)\n", what, mib,
           median, best, m, kind);
    *median_out = median;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int reps = argc > 1 ? atoi(argv[1]) : 10;
    std::vector<size_t> sizes;
    for (int i = 2; i < argc; i++)
        sizes.push_back((size_t)strtoull(argv[i], NULL, 10));
    if (sizes.empty())
        sizes = {64, 256};
    if (reps < 1 || std::find(sizes.begin(), sizes.end(), (size_t)0) != sizes.end()) {
        fprintf(stderr, "usage: staging [REPS [MIB...]]\n");
        return 64;
    }
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("staging: device 0 %s, %d copies per case\n", prop.name, reps);
    cudaEvent_t t0, t1;
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));

    int rc = 0;
    for (size_t mib : sizes) {
        size_t bytes = mib << 20;
        unsigned char *pageable = (unsigned char *)malloc(bytes);
        if (!pageable) {
            fprintf(stderr, "staging: malloc(%zu) failed\n", bytes);
            return 1;
        }
        unsigned char *pinned = nullptr;
        CK(cudaMallocHost((void **)&pinned, bytes));
        void *dev = nullptr;
        CK(cudaMalloc(&dev, bytes));
        for (size_t j = 0; j < bytes; j++)
            pageable[j] = (unsigned char)(j * 131u + mib);
        memset(pinned, 0x5a, bytes);
        const char *kp = kind_of(pageable), *kh = kind_of(pinned);

        for (int w = 0; w < 2; w++) {
            time_copy(dev, pageable, bytes, t0, t1);
            time_copy(dev, pinned, bytes, t0, t1);
        }
        std::vector<float> ms_pageable, ms_pinned;
        for (int r = 0; r < reps; r++) {
            ms_pageable.push_back(time_copy(dev, pageable, bytes, t0, t1));
            ms_pinned.push_back(time_copy(dev, pinned, bytes, t0, t1));
        }
        double gp = 0, gh = 0;
        report("malloc", mib, ms_pageable, kp, &gp);
        report("cudaMallocHost", mib, ms_pinned, kh, &gh);
        printf("staging ratio %zuMiB malloc/cudaMallocHost %.2f\n", mib, gh > 0 ? gp / gh : 0.0);

        // The data must have arrived: copy the malloc'd buffer's bytes back and compare.
        CK(cudaMemcpy(dev, pageable, bytes, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(pinned, dev, bytes, cudaMemcpyDeviceToHost));
        if (memcmp(pinned, pageable, bytes) != 0) {
            size_t j = 0;
            while (pinned[j] == pageable[j])
                j++;
            printf("staging check %zuMiB MISMATCH at byte %zu: %u, expected %u\n", mib, j,
                   pinned[j], pageable[j]);
            rc = 1;
        } else {
            printf("staging check %zuMiB ok\n", mib);
        }
        CK(cudaFree(dev));
        CK(cudaFreeHost(pinned));
        free(pageable);
    }
    CK(cudaEventDestroy(t0));
    CK(cudaEventDestroy(t1));
    return rc;
}
