# Shared by the bats suites: where the build is, and the comparison of a run without
# libplace against runs under it.

REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
BUILD=$(cd "${BUILD_DIR:-$REPO/build}" && pwd)
LIB=$BUILD/libplace.so
PROGS=$BUILD/tests/progs

bats_require_minimum_version 1.5.0

# The suites set the LIBPLACE_* variables they test; none may leak in from the caller.
while read -r name; do unset "$name"; done < <(compgen -e | grep '^LIBPLACE_' || true)

load /usr/lib/bats/bats-support/load
load /usr/lib/bats/bats-assert/load

setup_file() {
    [ -f "$LIB" ] || {
        echo "libplace.so not built at $LIB (meson setup build && ninja -C build)" >&2
        return 1
    }
}

run_variant() {
    local t=$BATS_TEST_TMPDIR
    case $1 in
    without) env -u LD_PRELOAD -u LIBPLACE_REPORT bash -c "cd '$t/work' && $2" ;;
    with) env -u LIBPLACE_REPORT LD_PRELOAD="$LIB" bash -c "cd '$t/work' && $2" ;;
    counting) env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$t/reports/report-%p" bash -c "cd '$t/work' && $2" ;;
    esac
}

# Runs the shell snippet $1 three times in a fresh directory $BATS_TEST_TMPDIR/work (the
# same path each time, so output that names it matches): without libplace, under it, and
# under it with the exit report written to files. stdout, stderr and the exit status
# must be the same all three times. The reports of the last run are left in
# $BATS_TEST_TMPDIR/reports.
same_with_and_without() {
    local script=$1 t=$BATS_TEST_TMPDIR variant
    rm -rf "$t/reports"
    mkdir -p "$t/reports"
    for variant in without with counting; do
        rm -rf "$t/work"
        mkdir "$t/work"
        # not `set -e`'s business: a program's own non-zero status is part of what is compared
        if run_variant "$variant" "$script" >"$t/$variant.out" 2>"$t/$variant.err" </dev/null; then
            echo 0 >"$t/$variant.status"
        else
            echo $? >"$t/$variant.status"
        fi
    done
    for variant in with counting; do
        cmp -s "$t/without.out" "$t/$variant.out" || {
            echo "stdout differs ($variant):"
            diff "$t/without.out" "$t/$variant.out" | head -20
            return 1
        }
        cmp -s "$t/without.err" "$t/$variant.err" || {
            echo "stderr differs ($variant):"
            diff "$t/without.err" "$t/$variant.err" | head -20
            return 1
        }
        cmp -s "$t/without.status" "$t/$variant.status" || {
            echo "exit status differs ($variant): $(cat "$t/without.status") vs $(cat "$t/$variant.status")"
            return 1
        }
    done
    # the report files prove the shim was really there
    [ -n "$(ls "$t/reports")" ] || {
        echo "no report was written: was libplace loaded?"
        return 1
    }
}

# The dram row of a report file: allocations, frees (the numbers only).
dram_counts() {
    awk '$2 == "dram" && $3 == "dram" && $NF ~ /^[0-9]+$/ { print $(NF - 1), $NF }' "$1"
}
