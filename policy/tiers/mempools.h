/* The driver's stream-ordered memory pools (cuMemAllocAsync's, cudaMallocAsync's,
 * cuMemPoolCreate's) as libplace sees them: which GPU a pool's blocks are on, and the
 * memory pools keep unused when a GPU runs out.
 *
 * A pool gives freed blocks back to the GPU only at a synchronisation, and one whose
 * release threshold is high (PyTorch's and RAPIDS' asynchronous allocators set it so)
 * keeps them for good: memory that cuMemAlloc, cuMemCreate and the other pools cannot
 * have. So when the driver says a GPU is out of memory, its pools are trimmed
 * (cuMemPoolTrimTo, which frees only what no block uses, as NVIDIA advises programs that
 * mix allocators to do) and the call made once more; what they gave back counts as the
 * GPU tier's reclaimed bytes. */
#ifndef PLACE_MEMPOOLS_H
#define PLACE_MEMPOOLS_H

#include <cuda.h>
#include <stdbool.h>

#include "../base/hidden.h"

/* Whether pools are trimmed: only where a policy places or limits memory (set once at
 * start). A report alone changes nothing the program sees, its failures included. */
extern PLACE_HIDDEN bool place_mempools_trimming;

/* The GPU of pool, whose block d is: known from an earlier block, else asked of the
 * driver for d (-1 when it cannot say, or d is 0: no block to ask of). */
int place_mempool_device(CUmemoryPool pool, CUdeviceptr d);

/* cuMemPoolDestroy's pool, forgotten (its handle may come back as another GPU's pool). */
void place_mempool_destroyed(CUmemoryPool pool);

/* Trims every pool of GPU dev that libplace knows (its default and current pools, and
 * those it has seen blocks of): whether they gave memory back (never when not
 * place_mempools_trimming). */
bool place_mempools_trim(int dev);

#endif
