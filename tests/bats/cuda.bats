#!/usr/bin/env bats
# CUDA: libplace's driver-level interposition, device limits and spills, and the pinned
# and managed tiers, against tests/fakecuda (a libcuda.so.1 built from cuda.h that runs
# on host memory and logs every call it gets). Programs: cuda_linked calls the driver
# by symbol (-lcuda); cuda_loader finds it as the CUDA runtime does (dlopen, dlsym of
# cuGetProcAddress_v2, lookups by name, version and flags). There is no GPU here:
# tests/gpu runs the same paths on a real one.

load helpers
load fakecuda

@test "device allocations past a device limit spill to managed memory, which the program uses alike" {
    export LIBPLACE_RULES='api=cuda size=1.. to=device0,managed' LIBPLACE_LIMIT_DEVICE0=4M
    run --separate-stderr placed "$FAKE/cuda_linked" alloc 8 1M
    assert_success
    for k in 0 1 2 3; do assert_line "block $k kind=device"; done
    for k in 4 5 6 7; do assert_line "block $k kind=managed"; done
    refute_line --partial WRONG
    # the limit is what cuMemGetInfo reports as the device's size
    assert_line "info free=4194304 total=4194304"
    [ "$(calls cuMemAlloc_v2 rc=0)" -eq 4 ]
    [ "$(calls cuMemAllocManaged rc=0)" -ge 1 ]
    [ "$(node device0 allocations)" -eq 4 ]
    [ "$(node device0 peak)" -eq 4194304 ]
    [ "$(node device0 fallbacks_out)" -eq 4 ]
    [ "$(node managed fallbacks_in)" -eq 4 ]
    [ "$(node managed frees)" -eq 4 ]
    [ "$(node device0 in_use)" -eq 0 ]
}

@test "the chain goes on to mapped pinned memory, then answers CUDA_ERROR_OUT_OF_MEMORY" {
    export LIBPLACE_RULES='api=cuda size=1.. to=device0,managed,pinned' LIBPLACE_LIMIT_DEVICE0=2M \
        LIBPLACE_LIMIT_MANAGED=2M LIBPLACE_LIMIT_PINNED=2M
    run --separate-stderr placed "$FAKE/cuda_linked" alloc 8 1M
    assert_failure 1
    assert_line "block 1 kind=device"
    assert_line "block 3 kind=managed"
    assert_line "block 4 kind=host"
    assert_line "block 5 kind=host"
    assert_line "block 5 data ok"
    assert_line "block 6 failed: CUDA_ERROR_OUT_OF_MEMORY (2)"
    # pinned chunks are page-locked portable and mapped, and reached by their device address
    [ "$(calls cuMemHostRegister_v2 'flags=3 rc=0')" -ge 1 ]
    [ "$(calls cuMemHostGetDevicePointer_v2 rc=0)" -ge 1 ]
    [ "$(node pinned fallbacks_in)" -eq 2 ]
    [ "$(node pinned refused)" -eq 1 ]
}

@test "a device limit alone (LIBPLACE_LIMIT_DEVICE0, no rule) makes the device that small" {
    export LIBPLACE_LIMIT_DEVICE0=3M
    run --separate-stderr placed "$FAKE/cuda_linked" alloc 4 1M
    assert_failure 1
    assert_line "block 2 kind=device"
    assert_line "block 3 failed: CUDA_ERROR_OUT_OF_MEMORY (2)"
    # before anything was allocated, and after everything was freed
    assert_line "info free=3145728 total=3145728"
    [ "$(calls cuMemAlloc_v2)" -eq 3 ]
    [ "$(node device0 refused)" -eq 1 ]
}

@test "cuMemGetInfo stays consistent: free plus what the device tier holds never passes total" {
    export LIBPLACE_LIMIT_DEVICE0=8M
    run --separate-stderr placed "$FAKE/cuda_loader" info
    assert_success
    assert_line "info free=8388608 total=8388608"
    # a limit larger than the device: said once, and the device is the limit
    export LIBPLACE_LIMIT_DEVICE0=64G FAKECUDA_MEM=16M
    run --separate-stderr placed "$FAKE/cuda_linked" alloc 2 1M
    assert_success
    assert_line "info free=16777216 total=16777216"
    assert_equal "$(grep -c 'more than GPU 0 has' <<<"$stderr")" 1
}

@test "without a limit or a rule the program sees exactly what the driver says, and the report counts the GPU" {
    same_with_and_without "'$FAKE/cuda_linked' alloc 3 1M; '$FAKE/cuda_linked' pitch 1000 10; '$FAKE/cuda_linked' host 1M; '$FAKE/cuda_linked' managed 1M; '$FAKE/cuda_linked' create 3M; FAKECUDA_MEM=2M '$FAKE/cuda_linked' alloc 3 1M"
}

@test "the CUDA runtime's way in: dlsym and cuGetProcAddress hand out libplace's functions by name, version and flags" {
    run --separate-stderr placed "$FAKE/cuda_loader" lookup
    assert_success
    assert_line "dlsym cuGetProcAddress_v2 -> libplace.so cuGetProcAddress_v2"
    assert_line "cuGetProcAddress 13000 0 -> libplace.so cuGetProcAddress_v2"
    assert_line "cuGetProcAddress 11030 0 -> libplace.so cuGetProcAddress"
    assert_line "cuMemAlloc 13000 0 -> libplace.so cuMemAlloc_v2"
    assert_line "cuMemAllocAsync 13000 0 -> libplace.so cuMemAllocAsync"
    assert_line "cuMemAllocAsync 13000 2 -> libplace.so cuMemAllocAsync_ptsz"
    assert_line "cuMemFreeAsync 13000 2 -> libplace.so cuMemFreeAsync_ptsz"
    assert_line "cuMemGetInfo 13000 0 -> libplace.so cuMemGetInfo_v2"
    assert_line "cuMemHostRegister 13000 0 -> libplace.so cuMemHostRegister_v2"
    assert_line "cuMemCreate 13000 0 -> libplace.so cuMemCreate"
    assert_line "cuMemMap 13000 0 -> libplace.so cuMemMap"
    assert_line "cuMemUnmap 13000 0 -> libplace.so cuMemUnmap"
    assert_line "cuMemAllocFromPoolAsync 13000 0 -> libplace.so cuMemAllocFromPoolAsync"
    assert_line "cuMemAllocFromPoolAsync 13000 2 -> libplace.so cuMemAllocFromPoolAsync_ptsz"
    assert_line "cuMemPoolDestroy 13000 0 -> libplace.so cuMemPoolDestroy"
    assert_line "via-self cuMemAlloc 13000 0 -> libplace.so cuMemAlloc_v2"
    # older versions' variants (32-bit sizes) and calls libplace does not wrap: the driver's
    assert_line "cuMemAlloc 3000 0 -> libcuda.so.1 cuMemAlloc"
    assert_line "cuMemGetInfo 3000 0 -> libcuda.so.1 cuMemGetInfo"
    assert_line "via-v1 cuMemAlloc 3000 0 -> libcuda.so.1 cuMemAlloc"
    assert_line "cuMemcpyHtoD 13000 0 -> libcuda.so.1 cuMemcpyHtoD_v2"
    assert_line "cuCtxGetCurrent 13000 0 -> libcuda.so.1 cuCtxGetCurrent"
    assert_line "cuNoSuchFunction 13000 0 -> not found (status 1)"
    # without the shim every answer is the driver's (the fake binds its own symbols)
    run --separate-stderr "$FAKE/cuda_loader" lookup
    refute_output --partial libplace
}

@test "functions found through cuGetProcAddress place and spill, the per-thread stream variant included" {
    export LIBPLACE_RULES='api=cuda size=1.. to=device0,managed' LIBPLACE_LIMIT_DEVICE0=2M
    run --separate-stderr placed "$FAKE/cuda_loader" async 4 1M
    assert_success
    assert_line "block 1 kind=device"
    assert_line "block 2 kind=managed"
    assert_line "block 3 kind=managed"
    # each device block came from the variant the program looked up
    [ "$(calls cuMemAllocAsync 'rc=0')" -eq 1 ]
    [ "$(calls cuMemAllocAsync_ptsz 'rc=0')" -eq 1 ]
    # a spilled block freed on a stream waits for it
    [ "$(calls cuStreamSynchronize)" -eq 2 ]
    [ "$(node managed fallbacks_in)" -eq 2 ]
}

@test "a pitched allocation spills with a pitch of whole 512-byte rows" {
    export LIBPLACE_RULES='api=cuda size=1.. to=device0,managed' LIBPLACE_LIMIT_DEVICE0=1K
    run --separate-stderr placed "$FAKE/cuda_linked" pitch 1000 10
    assert_success
    assert_line "pitch=1024 kind=managed"
}

@test "malloc'd buffers in pinned memory: page-locked chunks that grow, data intact, counted" {
    export LIBPLACE_RULES='size=1M.. to=pinned' LIBPLACE_CHUNK_INITIAL_PINNED=2M LIBPLACE_CHUNK_MAX_PINNED=8M
    run --separate-stderr placed "$FAKE/cuda_linked" malloc 6 1M
    assert_success
    assert_line "block 0 kind=host"
    assert_line "block 5 kind=host"
    assert_line "block 5 data ok"
    # chunks of 2M, then 4M, each page-locked once, portable and mapped
    [ "$(calls cuMemHostRegister_v2 'size=2097152 flags=3 rc=0')" -eq 1 ]
    [ "$(calls cuMemHostRegister_v2 'size=4194304 flags=3 rc=0')" -eq 1 ]
    [ "$(node pinned allocations)" -eq 6 ]
    [ "$(node pinned frees)" -eq 6 ]
}

@test "a program that never uses CUDA gets pinned memory too, and a request above chunk_max its own chunk" {
    export LIBPLACE_RULES='size=1M.. to=pinned' LIBPLACE_CHUNK_MAX_PINNED=4M
    same_with_and_without "/usr/bin/python3 -c 'b = bytearray(16 << 20); b[-1] = 7; print(sum(b))'"
    # libplace needed a context: it took the device's primary one, as the runtime would
    [ "$(calls cuDevicePrimaryCtxRetain rc=0)" -ge 1 ]
    [ "$(calls cuMemHostRegister_v2 'size=16781312 flags=3 rc=0')" -ge 1 ]
    [ "$(calls cuMemHostUnregister rc=0)" -ge 1 ]
}

@test "managed memory for malloc, with cuMemAdvise's preferred location from the policy" {
    policy "$BATS_TEST_TMPDIR/p.ini" <<INI
[tier unified]
kind = managed
location = device0
[rule big]
size = 1M..
to = unified
INI
    export LIBPLACE_POLICY=$BATS_TEST_TMPDIR/p.ini
    run --separate-stderr placed "$FAKE/cuda_linked" malloc 3 1M
    assert_success
    assert_line "block 0 kind=managed"
    assert_line "block 2 data ok"
    # SET_PREFERRED_LOCATION (3) on a device (1), GPU 0
    [ "$(calls cuMemAdvise_v2 'advice=3 loc_type=1 loc_id=0 rc=0')" -ge 1 ]
    [ "$(node unified allocations)" -eq 3 ]
    sed -i 's/location = device0/location = host/' "$BATS_TEST_TMPDIR/p.ini"
    rm -f "$LIBPLACE_REPORT"
    run --separate-stderr placed "$FAKE/cuda_linked" malloc 1 1M
    assert_success
    [ "$(calls cuMemAdvise_v2 'advice=3 loc_type=2 ')" -ge 1 ]
}

@test "memory the program pins or allocates managed itself is counted in the policy's tier of that kind" {
    export LIBPLACE_RULES='size=64M.. to=pinned,managed'
    run --separate-stderr placed "$FAKE/cuda_linked" host 1M
    assert_success
    [ "$(node pinned allocations)" -eq 2 ]
    [ "$(node pinned frees)" -eq 2 ]
    rm -f "$LIBPLACE_REPORT"
    run --separate-stderr placed "$FAKE/cuda_linked" managed 1M
    assert_success
    [ "$(node managed allocations)" -eq 1 ]
    [ "$(node managed frees)" -eq 1 ]
}

@test "cuMemCreate counts against its GPU's limit and is refused past it" {
    export LIBPLACE_LIMIT_DEVICE0=2M
    run --separate-stderr placed "$FAKE/cuda_linked" create 3M
    assert_failure
    assert_output --partial "CUDA_ERROR_OUT_OF_MEMORY"
    # the driver's handle was given back
    [ "$(calls cuMemRelease rc=0)" -eq 1 ]
    export LIBPLACE_LIMIT_DEVICE0=8M
    rm -f "$LIBPLACE_REPORT"
    run --separate-stderr placed "$FAKE/cuda_linked" create 3M
    assert_success
    [ "$(node device0 allocations)" -eq 1 ]
    [ "$(node device0 in_use)" -eq 0 ]
}

# libsymheap (tests/fakecuda/symheap.c) keeps a GPU heap as NVSHMEM does: cuMemCreate
# chunks of the granularity (2 MiB), reached through cuGetProcAddress. NVSHMEM itself is
# not packaged here; the same code that knows it by name knows libsymheap through `heaps`.
heap_of() {
    with_json "hs = next(n for n in d['nodes'] if n['name'] == 'device0').get('library_heaps')
print('; '.join('%s %d %d %d' % (h['owner'], h['blocks'], h['in_use'], h['peak'])
                for h in hs) if hs else 'none')" "$LIBPLACE_REPORT"
}

@test "a library's GPU heap is counted on its GPU and named, with its blocks inside said unseen" {
    export LIBPLACE_HEAPS='libsymheap.so*'
    run --separate-stderr placed "$FAKE/cuda_heap" 3 1 2097152
    assert_success
    assert_line "heap grew by 3 chunks of 2097152: ok (0)"
    # three heap chunks, one given back, and the program's own block, which is not the heap's
    [ "$(node device0 allocations)" -eq 4 ]
    [ "$(node device0 frees)" -eq 1 ]
    [ "$(node device0 in_use)" -eq $((6 << 20)) ]
    assert_equal "$(heap_of)" "libsymheap.so 2 4194304 6291456"
    valid_report "$LIBPLACE_REPORT"
    run --separate-stderr "$REPO/scripts/place-report" render "$LIBPLACE_REPORT"
    assert_success
    assert_line "device0: libsymheap.so keeps a heap of its own here: 4.0 MiB in 2 blocks now, 6.0 MiB at peak; the blocks handed out inside are not seen"
    # two processes (two PEs): the job's heaps are their sums, by library
    mv "$LIBPLACE_REPORT" "$BATS_TEST_TMPDIR/pe0.json"
    LIBPLACE_HEAPS='libsymheap.so*,main' run --separate-stderr placed "$FAKE/cuda_heap" 1 0 2097152
    assert_success
    assert_equal "$(heap_of)" "libsymheap.so 1 2097152 2097152; main 1 2097152 2097152"
    run --separate-stderr "$REPO/scripts/place-report" merge -o "$BATS_TEST_TMPDIR/job.json" \
        "$BATS_TEST_TMPDIR/pe0.json" "$LIBPLACE_REPORT"
    assert_success
    LIBPLACE_REPORT=$BATS_TEST_TMPDIR/job.json
    assert_equal "$(heap_of)" "libsymheap.so 3 6291456 8388608; main 1 2097152 2097152"
    valid_report "$LIBPLACE_REPORT"
    LIBPLACE_REPORT=$BATS_TEST_TMPDIR/report.json
    rm "$LIBPLACE_REPORT"
    LIBPLACE_REPORT_FORMAT=text run --separate-stderr placed "$FAKE/cuda_heap" 3 1 0
    assert_success
    assert_equal "$(grep -c "^libplace: device0: libsymheap.so keeps a heap of its own here: 4.0 MiB in 2 blocks now, 6.0 MiB at peak; the blocks handed out inside are not seen$" "$LIBPLACE_REPORT")" 1
}

@test "heaps names a library by a function of it too (a static NVSHMEM is in the program); unnamed, a heap is plain GPU memory" {
    export LIBPLACE_HEAPS='symheap_gr*'
    run --separate-stderr placed "$FAKE/cuda_heap" 2 0 2097152
    assert_success
    assert_equal "$(heap_of)" "symheap_grow 2 4194304 4194304"
    rm "$LIBPLACE_REPORT"
    # the program's file name is no library's: its own blocks stay plain GPU memory
    LIBPLACE_HEAPS='cuda_heap*' run --separate-stderr placed "$FAKE/cuda_heap" 2 0 2097152
    assert_success
    assert_equal "$(heap_of)" "none"
    rm "$LIBPLACE_REPORT"
    unset LIBPLACE_HEAPS
    run --separate-stderr placed "$FAKE/cuda_heap" 2 0 2097152
    assert_success
    assert_equal "$(heap_of)" "none"
    [ "$(node device0 in_use)" -eq $((6 << 20)) ]
}

@test "a heap's chunk past its GPU's limit is refused as the GPU would refuse it, and the heap stays exact" {
    export LIBPLACE_HEAPS='libsymheap.so*' LIBPLACE_LIMIT_DEVICE0=5M
    run --separate-stderr placed "$FAKE/cuda_heap" 3 0 0
    assert_failure 1
    assert_line "heap grew by 3 chunks of 2097152: refused (2)"
    [ "$(calls cuMemRelease rc=0)" -eq 1 ]
    [ "$(node device0 refused)" -eq 1 ]
    assert_equal "$(heap_of)" "libsymheap.so 2 4194304 4194304"
}

@test "heaps: a bad value is an error naming the key" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_HEAPS='lib[x' /bin/true
    assert_failure 125
    assert_equal "${stderr_lines[0]%%:*}" "libplace"
    [[ "$stderr" == *"LIBPLACE_HEAPS"*"expected library file names or function names, or globs of them"* ]]
}

@test "no CUDA driver at all: the CUDA tiers are unavailable, the program runs, the report says why" {
    unset LD_LIBRARY_PATH
    export LIBPLACE_RULES='size=1M.. to=pinned'
    run --separate-stderr placed /usr/bin/python3 -c 'b = bytearray(4 << 20); print(len(b))'
    assert_success
    assert_output "4194304"
    assert_equal "$(grep -c 'skips tier pinned: no CUDA driver' <<<"$stderr")" 1
    [[ "$(node pinned unavailable)" == "no CUDA driver (libcuda.so.1: cannot open shared object file"* ]]
    [ "$(node pinned skipped)" -ge 1 ]
}

@test "no CUDA driver, a pinned rule, a program that sets its locale: it runs to its end" {
    # grep's setlocale allocates while it holds glibc's locale lock; libplace's failed
    # dlopen of libcuda.so.1 there once asked dlerror, whose gettext released that lock,
    # and grep hung at its next multibyte call
    unset LD_LIBRARY_PATH
    run --separate-stderr timeout 60 env LD_PRELOAD="$LIB" LIBPLACE_RULES='to=pinned,dram' \
        LC_ALL=C.UTF-8 grep -c L <<<$'L\nx\nL'
    assert_success
    assert_output 2
    assert_equal "${stderr_lines[0]}" "libplace: rule rules-1 skips tier pinned: no CUDA driver (libcuda.so.1 does not load)"
}

@test "a driver that fails: cuInit's error named, refusals counted and said once, defined error codes only" {
    export LIBPLACE_RULES='size=1M.. to=pinned'
    run --separate-stderr env FAKECUDA_FAIL=cuInit LD_PRELOAD="$LIB" /usr/bin/python3 -c 'print(len(bytearray(4 << 20)))'
    assert_success
    assert_output "4194304"
    [[ "$(node pinned unavailable)" == *"cuInit said CUDA_ERROR_NO_DEVICE (100)"* ]]
    rm -f "$LIBPLACE_REPORT"
    # page-locking refused: the blocks go on to dram, counted
    run --separate-stderr env FAKECUDA_FAIL=cuMemHostRegister LD_PRELOAD="$LIB" "$FAKE/cuda_linked" malloc 3 1M
    assert_success
    assert_line "block 2 kind=pageable"
    assert_equal "$(grep -c 'tier pinned: the CUDA driver refused page-locking a chunk' <<<"$stderr")" 1
    [ "$(node pinned fallbacks_out)" -eq 3 ]
    [ "$(node dram fallbacks_in)" -eq 3 ]
    rm -f "$LIBPLACE_REPORT"
    # managed refused at the end of a device chain: the program gets out of memory
    export LIBPLACE_RULES='api=cuda size=1.. to=device0,managed' LIBPLACE_LIMIT_DEVICE0=1M
    run --separate-stderr env FAKECUDA_FAIL=cuMemAllocManaged LD_PRELOAD="$LIB" "$FAKE/cuda_linked" alloc 2 1M
    assert_failure 1
    assert_line "block 1 failed: CUDA_ERROR_OUT_OF_MEMORY (2)"
}

@test "a device that does not exist: the tier is skipped with the reason, the chain goes on" {
    export LIBPLACE_RULES='api=cuda size=1.. to=device3,managed'
    run --separate-stderr placed "$FAKE/cuda_linked" alloc 2 1M
    assert_success
    assert_line "block 0 kind=managed"
    assert_equal "$(grep -c 'skips tier device3: GPU 3 does not exist (the CUDA driver reports 1)' <<<"$stderr")" 1
    [ "$(node device3 skipped)" -eq 2 ]
    # the GPU the policy does not name has a tier of its own in the report
    [ "$(node device0 allocations)" -eq 0 ]
}

@test "a policy's CUDA mistakes are errors with file:line" {
    policy "$BATS_TEST_TMPDIR/p.ini" <<INI
[rule gpu]
api = cuda
to = dram
[tier pool]
kind = device
chunk_max = 8M
INI
    run env LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" LD_PRELOAD="$LIB" true
    assert_failure 125
    assert_line --partial "p.ini:3: to: dram is host memory the GPU cannot reach; expected device, managed or pinned tiers in the chain of an api = cuda rule"
    assert_line --partial "p.ini:6: chunk_max: not a key of device tiers; expected it only on tiers of kind pinned or managed"
}

@test "dlsym through the shim answers as glibc would, RTLD_NEXT from the caller's object included" {
    run "$PROGS/rtld_next"
    assert_success
    assert_output "RTLD_NEXT malloc is RTLD_DEFAULT's: yes"
    # under the shim the object after the program is libplace, whose malloc comes first;
    # a dlsym that asked glibc from inside libplace would get libc's instead
    run placed "$PROGS/rtld_next"
    assert_success
    assert_output "RTLD_NEXT malloc is RTLD_DEFAULT's: yes"
}

@test "with nothing asked of it, libplace makes no CUDA call of its own" {
    unset LIBPLACE_REPORT LIBPLACE_REPORT_FORMAT
    "$FAKE/cuda_linked" host 1M >/dev/null
    cut -d' ' -f1 "$FAKECUDA_LOG" >"$BATS_TEST_TMPDIR/without"
    rm "$FAKECUDA_LOG"
    placed "$FAKE/cuda_linked" host 1M >/dev/null
    cut -d' ' -f1 "$FAKECUDA_LOG" >"$BATS_TEST_TMPDIR/with"
    run diff "$BATS_TEST_TMPDIR/without" "$BATS_TEST_TMPDIR/with"
    assert_success
    # a report is something asked: then the GPU is counted, which takes a look at it
    rm "$FAKECUDA_LOG"
    LIBPLACE_REPORT=$BATS_TEST_TMPDIR/r.txt placed "$FAKE/cuda_linked" host 1M >/dev/null
    grep -q '^cuDeviceGetCount ' "$FAKECUDA_LOG"
}
