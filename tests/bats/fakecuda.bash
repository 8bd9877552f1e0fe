# What the CUDA tests share: the fake driver and NVML (tests/fakecuda) on the loader's path,
# their call log, and a JSON report per test.

FAKE=$BUILD/tests/fakecuda

setup() {
    [ -x "$FAKE/cuda_linked" ] || skip "built without cuda.h: no fake CUDA driver"
    export LD_LIBRARY_PATH=$FAKE FAKECUDA_LOG=$BATS_TEST_TMPDIR/driver.log
    export LIBPLACE_REPORT=$BATS_TEST_TMPDIR/report.json LIBPLACE_REPORT_FORMAT=json
}

# under the shim
placed() {
    LD_PRELOAD=$LIB "$@"
}

# How many calls of the driver's entry point $1 the log has (with $2 in the line, if given).
calls() {
    grep -c "^$1 .*${2:-}" "$FAKECUDA_LOG" || true
}
