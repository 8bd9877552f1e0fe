#!/usr/bin/env bats
# The fake NVML (tests/fakecuda/fakenvml.c, a libnvidia-ml.so.1 that reports the fake CUDA
# driver's devices) as nvml_loader (dlopen and dlsym, as pynvml does) and nvml_linked
# (-lnvidia-ml) see it: devices matched by UUID in the reverse of CUDA's order, memory in
# use as the fake driver charges it, v1 and v2 of the memory query, the documented errors.

load helpers

FAKE=$BUILD/tests/fakecuda

setup() {
    [ -x "$FAKE/nvml_loader" ] || skip "built without cuda.h: no fake NVML"
    export LD_LIBRARY_PATH=$FAKE FAKECUDA_LOG=$BATS_TEST_TMPDIR/driver.log
    export FAKECUDA_DEVICES=2 FAKECUDA_MEM=64M FAKENVML_RESERVED=1M
}

@test "both programs match the devices by UUID and read what the driver has in use" {
    for prog in nvml_loader nvml_linked; do
        run --separate-stderr "$FAKE/$prog" 8M
        assert_success
        assert_output "cuda free=58720256 total=67108864
gpu 0 nvml=1 total=67108864 free=57671680 used=9437184
gpu 0 v2 total=67108864 reserved=1048576 free=57671680 used=8388608
gpu 1 nvml=0 total=67108864 free=66060288 used=1048576
gpu 1 v2 total=67108864 reserved=1048576 free=66060288 used=0
v2 bad version: 25"
    done
    grep -q '^nvmlDeviceGetUUID index=1 dev=0 length=80 uuid=GPU-facec0da-0000-4000-8000-000000000000 rc=0$' "$FAKECUDA_LOG"
    grep -q '^nvmlDeviceGetMemoryInfo_v2 index=0 dev=1 version=16777256 total=0 reserved=0 free=0 used=0 rc=25$' "$FAKECUDA_LOG"
    [ "$(grep -c '^nvmlShutdown refs=0 rc=0$' "$FAKECUDA_LOG")" -eq 2 ]
}

@test "an injected failure is NVML_ERROR_UNKNOWN: in nvmlInit setup fails, in a query the call" {
    FAKENVML_FAIL=nvmlInit run --separate-stderr "$FAKE/nvml_loader"
    assert_failure 3
    assert_output "cuda free=67108864 total=67108864
nvmlInit_v2 failed: Unknown Error (999)"
    FAKENVML_FAIL=nvmlDeviceGetMemoryInfo_v2 run --separate-stderr "$FAKE/nvml_linked"
    assert_failure 2
    assert_line "gpu 1 nvml=0 total=67108864 free=66060288 used=1048576"
    assert_line "nvmlDeviceGetMemoryInfo_v2 failed: Unknown Error (999)"
}

@test "a reserve larger than the total, or a malformed one, fails nvmlInit" {
    FAKENVML_RESERVED=65M run --separate-stderr "$FAKE/nvml_linked"
    assert_failure 3
    FAKENVML_RESERVED=1Q run --separate-stderr "$FAKE/nvml_linked"
    assert_failure 3
}

@test "one device, no reserve: NVML index 0 is CUDA device 0 and free is the driver's" {
    unset FAKENVML_RESERVED
    FAKECUDA_DEVICES=1 run --separate-stderr "$FAKE/nvml_loader" 4M
    assert_success
    assert_line "cuda free=62914560 total=67108864"
    assert_line "gpu 0 nvml=0 total=67108864 free=62914560 used=4194304"
    assert_line "gpu 0 v2 total=67108864 reserved=0 free=62914560 used=4194304"
}
