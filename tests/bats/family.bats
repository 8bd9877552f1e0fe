#!/usr/bin/env bats
# The malloc family at its edges, under the shim, against glibc without it.

load helpers

@test "every family member at its edges gives glibc's answers" {
    same_with_and_without "$PROGS/edge"
    # and the edges were really reached: the program printed what it checks
    run cat "$BATS_TEST_TMPDIR/with.out"
    assert_line "malloc(0): non-null 1, distinct 1, usable 24"
    assert_line "calloc overflow: (nil) errno ENOMEM"
    assert_line "reallocarray overflow: (nil) errno ENOMEM, old intact"
    assert_line "errno after successful malloc/free: 777"
    assert_line "posix_memalign(24): rc 22 aligned 0"
    assert_line "realloc of memalign keeps contents 1"
    assert_line "realloc(p, 0): (nil)"
}

@test "20 million free(NULL) cost no memory" {
    run env LD_PRELOAD="$LIB" "$PROGS/free_null"
    assert_success
    assert_output "rss grew no"
    # and with counting on (the report itself cannot be written there, and says so)
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT=/dev/null/none "$PROGS/free_null"
    assert_line "rss grew no"
    assert_line --partial "libplace: cannot create report /dev/null/none"
    # and none of them is counted as a free
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/r" "$PROGS/free_null"
    assert_success
    read -r allocs frees < <(dram_counts "$BATS_TEST_TMPDIR/r")
    [ "$frees" -le "$allocs" ] || { echo "$allocs allocations, $frees frees"; return 1; }
}

@test "C++ new and delete reach libplace, on every thread" {
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/r" "$PROGS/threads"
    assert_success
    read -r allocs frees < <(dram_counts "$BATS_TEST_TMPDIR/r")
    # 4 threads x 50000 nodes, each a new'd Node and its vector (and most a string)
    [ "$allocs" -ge 400000 ] || { echo "only $allocs allocations counted"; return 1; }
    # everything the threads made was deleted, on whichever thread
    [ $((allocs - frees)) -lt 100 ] || { echo "$allocs allocations, $frees frees"; return 1; }
    grep -q "5 threads" "$BATS_TEST_TMPDIR/r" || grep -q "6 threads" "$BATS_TEST_TMPDIR/r"
}

@test "a thread still alive at exit is counted: its allocations and frees are in the report" {
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/r" "$PROGS/live_counts"
    assert_success
    read -r allocs frees < <(dram_counts "$BATS_TEST_TMPDIR/r")
    # the worker made 100000 blocks and freed 60000 of them; the main thread adds a few
    [ "$allocs" -ge 100000 ] && [ "$allocs" -lt 101000 ] || { echo "$allocs allocations"; return 1; }
    [ "$frees" -ge 60000 ] && [ "$frees" -lt 61000 ] || { echo "$frees frees"; return 1; }
}

@test "glibc's own names (__libc_malloc, ...) are libplace's: a block placed by one name is freed by the other" {
    arena_policy "$BATS_TEST_TMPDIR/p.ini" 0..
    run env LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" LD_PRELOAD="$LIB" "$PROGS/libc_names"
    assert_success
    for call in __libc_malloc malloc __libc_calloc __libc_realloc __libc_memalign __libc_valloc __libc_pvalloc; do
        assert_line "$call: ok, node a"
    done
    # without a policy they are glibc's, through libplace's pass-through path
    run env LD_PRELOAD="$LIB" "$PROGS/libc_names"
    assert_success
    assert_line "__libc_malloc: ok, node dram"
    assert_line "malloc: ok, node dram"
}

@test "the exported symbols are exactly the malloc family (and glibc's __libc_ names for it), the CUDA, NVML and OpenSHMEM entry points, dlsym, sigaction, signal and libplace.h's" {
    run bash -c "nm -D --defined-only '$LIB' | awk '{ print \$3 }' | LC_ALL=C sort | tr '\n' ' '"
    assert_output "__libc_calloc __libc_free __libc_malloc __libc_memalign __libc_pvalloc __libc_realloc __libc_valloc aligned_alloc calloc cuGetProcAddress cuGetProcAddress_v2 cuMemAllocAsync cuMemAllocAsync_ptsz cuMemAllocFromPoolAsync cuMemAllocFromPoolAsync_ptsz cuMemAllocHost_v2 cuMemAllocManaged cuMemAllocPitch_v2 cuMemAlloc_v2 cuMemCreate cuMemFreeAsync cuMemFreeAsync_ptsz cuMemFreeHost cuMemFree_v2 cuMemGetInfo_v2 cuMemHostAlloc cuMemHostRegister_v2 cuMemHostUnregister cuMemMap cuMemPoolDestroy cuMemRelease cuMemUnmap cudaFree cudaFreeHost cudaHostAlloc cudaMalloc cudaMallocHost cudaMallocManaged dlsym free malloc malloc_usable_size memalign nvmlDeviceGetMemoryInfo nvmlDeviceGetMemoryInfo_v2 pipe pipe2 place_api posix_memalign pvalloc realloc reallocarray shfree shmalloc shmem_align shmem_calloc shmem_free shmem_malloc shmem_malloc_with_hints shmem_realloc shmemalign shrealloc sigaction signal valloc "
}
