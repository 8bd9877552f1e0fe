#!/usr/bin/env bats
# mimalloc-bench's workloads (bench/mimalloc-bench) as a correctness test of placement:
# under bench/peers --quick every workload runs with every allocation placed in an arena
# (placed) and in hbw (MEMKIND_HBW_NODES=0), and must exit 0 and print what it prints
# under glibc alone. About 40 s on a 2-core machine.

load helpers

PEERS=$REPO/bench/peers
WORKLOADS=(alloc-test1 barnes cache-scratch1 cache-scratchN cache-thrash1 cache-thrashN cfrac
    espresso glibc-simple glibc-thread larsonN larsonN-sized malloc-large mleak10 mleak100
    mstressN rptestN xmalloc-testN)

@test "every mimalloc-bench workload placed in an arena and in hbw: exit 0, glibc's output" {
    [ -x "$BUILD/bench/mimalloc-bench/cfrac" ] || {
        echo "mimalloc-bench's workloads not built in $BUILD (ninja -C $BUILD)"
        return 1
    }
    run -0 "$PEERS" --build "$BUILD" --quick --variants glibc,placed,hbw
    refute_output --partial FAIL
    assert_output --regexp $'\nplaced: time geomean [0-9.]+x, worst .* failures 0\n'
    assert_output --regexp $'\nhbw: time geomean [0-9.]+x, worst .* failures 0\n'
    # each workload a row with a figure of glibc's and ratios for both variants
    local w
    for w in "${WORKLOADS[@]}"; do
        assert_output --regexp $'\n'"$w"' +[0-9.]+ s +[0-9.]+ MiB +[0-9.]+x +[0-9.]+x +[0-9.]+x +[0-9.]+x'$'\n'
    done
}

# The test above can fail: a preloaded library standing in for libplace.so that kills
# cfrac and adds a line to espresso's output makes bench/peers report both and exit 1.
@test "a workload that crashes or prints otherwise under placement is a failure" {
    local fake=$BATS_TEST_TMPDIR/build
    mkdir -p "$fake"
    ln -s "$BUILD/bench" "$fake/bench"
    cat >"$BATS_TEST_TMPDIR/bad.c" <<'EOF'
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <errno.h>
__attribute__((constructor)) static void bad(void)
{
    const char *name = program_invocation_short_name;
    if (strcmp(name, "cfrac") == 0)
        raise(SIGSEGV);
    if (strcmp(name, "espresso") == 0)
        printf("placed\n");
}
EOF
    cc -shared -fPIC -D_GNU_SOURCE -o "$fake/libplace.so" "$BATS_TEST_TMPDIR/bad.c"
    run -1 "$PEERS" --build "$fake" --quick --variants glibc,placed --only cfrac,espresso
    assert_output --partial "FAILED cfrac under placed: exit status 139"
    assert_output --partial "FAILED espresso under placed: output differs from glibc's"
    assert_output --partial "placed: time geomean nanx, worst nanx (-), RSS geomean nanx, failures 2 (cfrac, espresso)"
    assert_output --partial "reproduce: LD_PRELOAD=$fake/libplace.so LIBPLACE_POLICY="
}
