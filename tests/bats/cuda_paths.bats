#!/usr/bin/env bats
# What a GPU's limit means on every path a program has to the GPU's memory, against the
# fake driver and the fake NVML (tests/fakecuda): NVML's answers agree with cuMemGetInfo's,
# stream-ordered pools' blocks count on their pool's GPU and pools are trimmed when the
# GPU is full, cuMemCreate counts by its location and once however often it is mapped.

load helpers
load fakecuda

@test "NVML answers within a GPU's limit as cuMemGetInfo does, found by UUID, linked or dlopened" {
    # CUDA device 0 is NVML's index 1: the fake numbers them in reverse, as PCI order may
    export FAKECUDA_DEVICES=2 FAKECUDA_MEM=64M FAKENVML_RESERVED=1M LIBPLACE_LIMIT_DEVICE0=16M
    for prog in nvml_loader nvml_linked; do
        run --separate-stderr placed "$FAKE/$prog" 8M
        assert_success
        assert_output "cuda free=8388608 total=16777216
gpu 0 nvml=1 total=16777216 free=8388608 used=8388608
gpu 0 v2 total=16777216 reserved=0 free=8388608 used=8388608
gpu 1 nvml=0 total=67108864 free=66060288 used=1048576
gpu 1 v2 total=67108864 reserved=1048576 free=66060288 used=0
v2 bad version: 25"
    done
    # at the limit free is 0, never less
    export LIBPLACE_LIMIT_DEVICE0=8M
    run --separate-stderr placed "$FAKE/nvml_linked" 8M
    assert_success
    assert_line "cuda free=0 total=8388608"
    assert_line "gpu 0 nvml=1 total=8388608 free=0 used=8388608"
    assert_line "gpu 0 v2 total=8388608 reserved=0 free=0 used=8388608"
}

@test "NVML's own figures while the program has not started CUDA: libplace never starts it for a query" {
    export FAKECUDA_DEVICES=1 FAKECUDA_MEM=64M LIBPLACE_LIMIT_DEVICE0=16M
    cat >"$BATS_TEST_TMPDIR/query.py" <<'PY'
import ctypes, sys
class Mem(ctypes.Structure):
    _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong),
                ("used", ctypes.c_ulonglong)]
nvml = ctypes.CDLL("libnvidia-ml.so.1")   # as pynvml does: dlopen, then dlsym
def total():
    h, m = ctypes.c_void_p(), Mem()
    assert nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(h)) == 0
    assert nvml.nvmlDeviceGetMemoryInfo(h, ctypes.byref(m)) == 0
    return m.total
assert nvml.nvmlInit_v2() == 0
print("before cuInit", total())
if sys.argv[1] == "start":
    cuda = ctypes.CDLL("libcuda.so.1")
    assert cuda.cuInit(0) == 0
    print("after cuInit", total())
PY
    run --separate-stderr placed python3 "$BATS_TEST_TMPDIR/query.py" query
    assert_success
    assert_output "before cuInit 67108864"
    [ "$(calls cuInit)" -eq 0 ]
    run --separate-stderr placed python3 "$BATS_TEST_TMPDIR/query.py" start
    assert_success
    assert_output "before cuInit 67108864
after cuInit 16777216"
}

@test "a pool's blocks count on their GPU; past its limit the call is refused and the block handed back, never spilled" {
    export LIBPLACE_RULES='api=cuda size=1.. to=device0,managed' LIBPLACE_LIMIT_DEVICE0=2M
    run --separate-stderr placed "$FAKE/cuda_linked" pool 3 1M
    assert_failure 1
    assert_line "block 1 kind=device"
    assert_line "block 1 data ok"
    assert_line "block 2 failed: CUDA_ERROR_OUT_OF_MEMORY (2)"
    [ "$(calls cuMemAllocFromPoolAsync rc=0)" -eq 3 ]
    [ "$(calls cuMemAllocManaged)" -eq 0 ]
    # the refused block went back to its pool, and everything was freed
    [ "$(calls cuMemFreeAsync rc=0)" -eq 3 ]
    [ "$(node device0 allocations)" -eq 2 ]
    [ "$(node device0 refused)" -eq 1 ]
    [ "$(node device0 in_use)" -eq 0 ]
    # found through cuGetProcAddress, from the default pool, the per-thread variant included
    rm -f "$LIBPLACE_REPORT"
    run --separate-stderr placed "$FAKE/cuda_loader" pool 3 1M
    assert_failure 1
    assert_line "block 1 data ok"
    assert_line "block 2 failed: CUDA_ERROR_OUT_OF_MEMORY (2)"
    [ "$(calls cuMemAllocFromPoolAsync_ptsz rc=0)" -eq 1 ]
    [ "$(node device0 refused)" -eq 1 ]
}

@test "a GPU full of what its pools keep unused: the pools are trimmed and the allocation made" {
    # the default pool keeps 4M freed (release threshold UINT64_MAX), on a GPU of 5M
    export FAKECUDA_MEM=5M
    run --separate-stderr "$FAKE/cuda_linked" trim 4 1M
    assert_failure 1
    assert_line "block 1 failed: CUDA_ERROR_OUT_OF_MEMORY (2)"
    # a report alone changes nothing: the program fails as it does without libplace
    run --separate-stderr placed "$FAKE/cuda_linked" trim 4 1M
    assert_failure 1
    [ "$(calls cuMemPoolTrimTo)" -eq 0 ]
    # a policy that places or limits GPU memory trims
    rm -f "$LIBPLACE_REPORT"
    LIBPLACE_LIMIT_DEVICE0=5M run --separate-stderr placed "$FAKE/cuda_linked" trim 4 1M
    assert_success
    for k in 0 1 2 3; do assert_line "block $k data ok"; done
    refute_line --partial failed
    [ "$(calls cuMemPoolTrimTo 'keep=0 reserved=0 rc=0')" -ge 1 ]
    [ "$(node device0 reclaimed_bytes)" -eq 4194304 ]
}

@test "cuMemCreate's memory counts once however often it is mapped, until its handle is released and its last mapping gone" {
    export LIBPLACE_LIMIT_DEVICE0=6M
    run --separate-stderr placed "$FAKE/cuda_linked" vmm 3M
    assert_success
    # 3M is one 4M handle, mapped twice and released at once: 4M held until the last unmap
    assert_output "released
info free=2097152 total=6291456
vmm data ok
info free=2097152 total=6291456
info free=6291456 total=6291456
done"
    [ "$(calls cuMemMap rc=0)" -eq 2 ]
    [ "$(node device0 allocations)" -eq 1 ]
    [ "$(node device0 peak)" -eq 4194304 ]
    [ "$(node device0 in_use)" -eq 0 ]
    export LIBPLACE_LIMIT_DEVICE0=3M
    run --separate-stderr placed "$FAKE/cuda_linked" vmm 3M
    assert_failure
    assert_output --partial "CUDA_ERROR_OUT_OF_MEMORY"
}

@test "cuMemCreate in host memory counts in the pinned tier, never in a GPU's" {
    export LIBPLACE_LIMIT_DEVICE0=1M LIBPLACE_LIMIT_PINNED=64M
    run --separate-stderr placed "$FAKE/cuda_linked" hostcreate 2M
    assert_success
    assert_line "hostcreate host data ok"
    assert_line "hostcreate host_numa data ok"
    [ "$(node pinned allocations)" -eq 2 ]
    [ "$(node pinned in_use)" -eq 0 ]
    [ "$(node device0 allocations)" -eq 0 ]
}

@test "pools, virtual memory and NVML without a limit: the program sees what it sees without libplace" {
    export FAKECUDA_DEVICES=2 FAKECUDA_MEM=16M FAKENVML_RESERVED=1M
    same_with_and_without "'$FAKE/cuda_linked' pool 3 1M; '$FAKE/cuda_linked' async 4 1M; FAKECUDA_MEM=5M '$FAKE/cuda_linked' trim 4 1M; '$FAKE/cuda_linked' vmm 3M; '$FAKE/cuda_linked' hostcreate 2M; '$FAKE/nvml_loader' 4M; '$FAKE/nvml_linked'"
}

@test "tests/gpu/paths, the GPU machine's checks of these paths, passes on the fake driver" {
    mkdir -p "$BATS_TEST_TMPDIR/logs"
    run --separate-stderr "$BATS_TEST_DIRNAME/../gpu/paths" "$LIB" "$FAKE" "$BATS_TEST_TMPDIR/logs"
    assert_success
    [ "$(grep -c '^ok - ' <<<"$output")" -eq 6 ]
    refute_output --partial "not ok"
}
