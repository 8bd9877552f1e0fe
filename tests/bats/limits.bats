#!/usr/bin/env bats
# Limits on a node, and what happens when it is full (on_full), checked against the
# blocks themselves: tests/progs/limits asks libplace (include/libplace.h) which node
# holds each block and sums their usable sizes on its own. The node is a tier of kind
# dram with a limit: an arena of its own, so this runs on any machine.

load helpers

# A policy with node capped (limit $1) and rule big (on_full $2, more keys in $3, the size
# window $4, 64K.. by default).
capped_policy() {
    policy "$BATS_TEST_TMPDIR/p.ini" <<INI
[libplace]
report = $BATS_TEST_TMPDIR/report.json
report_format = json
[tier capped]
kind = dram
limit = $1
[rule waiter]
site = waiter
depth = 3
size = 64K..
to = capped, dram
on_full = wait
wait = 5s
[rule big]
size = ${4:-64K..}
to = capped, dram
on_full = $2
$3
INI
}


@test "8 threads freeing each other's blocks never pass the limit, and every counter balances" {
    capped_policy 8M fallback
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" "$PROGS/limits" threads 8 5000
    assert_success
    # over: times the blocks in capped summed past the limit; tracked: the blocks' sum at
    # the end; used and peak: libplace's own counters
    assert_output "over 0 tracked 0 used 0 peak $((8 << 20)) limit $((8 << 20))"
    valid_report "$BATS_TEST_TMPDIR/report.json"
    [ "$(node capped allocations)" = "$(node capped frees)" ]
    [ "$(node capped in_use)" = 0 ]
    [ "$(node capped refused)" -gt 0 ]
    [ "$(node capped fallbacks_out)" = "$(node dram fallbacks_in)" ]
    # a refused request that the tier's reclaim (its thread's cache flushed), or another
    # thread's free, made room for by its retry is served there; the rest went down the chain
    [ "$(node capped fallbacks_out)" -le "$(node capped refused)" ]
}

@test "on_full = wait: a thread waits until another frees, then gets the node" {
    capped_policy 8M fallback
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" "$PROGS/limits" wait 300
    assert_success
    assert_line "capped holds 32 blocks, available 0"
    assert_line --regexp '^waited (2[5-9][0-9]|[3-9][0-9][0-9]|[0-9]{4}) ms, got capped$'
    [ "$(node capped waits)" = 1 ]
    /usr/bin/python3 -c 'import sys; assert 0.25 <= float(sys.argv[1]) < 5' "$(node capped wait_seconds)"
}

@test "on_full = wait times out into the rest of the chain; a node without a limit never waits" {
    capped_policy 1M wait "wait = 50ms"
    # a second thread lives meanwhile: a process with one thread never waits (reliability.bats)
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" "$PROGS/limits" fill $((256 << 10)) 6 idle
    assert_success
    assert_output "0 capped
1 capped
2 capped
3 capped
4 dram
5 dram
used 1048576 limit 1048576 available 0"
    [ "$(node capped waits)" = 2 ]
    /usr/bin/python3 -c 'import sys; assert 0.1 <= float(sys.argv[1]) < 1' "$(node capped wait_seconds)"
    [ "$(node capped fallbacks_out)" = 2 ]
}

@test "on_full = overflow charges the node past its limit and counts the overflow" {
    capped_policy 1M overflow
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" "$PROGS/limits" fill $((256 << 10)) 6
    assert_success
    assert_line "5 capped"
    assert_line "used $((6 << 18)) limit 1048576 available 0"
    # two allocations went past the limit, and the node at most 512 KiB past it
    [ "$(node capped overflows)" = 2 ]
    [ "$(node capped overflow_peak)" = $((2 << 18)) ]
    [ "$(node capped peak)" = $((6 << 18)) ]
}

@test "on_full = fail: NULL and ENOMEM once the node is full, counted as failures" {
    capped_policy 1M fail
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" "$PROGS/limits" fill $((256 << 10)) 6
    assert_success
    assert_line "3 capped"
    assert_line "4 Cannot allocate memory"
    assert_line "5 Cannot allocate memory"
    [ "$(node capped failures)" = 2 ]
}

@test "LIBPLACE_LIMIT_<NODE> overrides the policy's limit" {
    capped_policy 1M fallback
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" LIBPLACE_LIMIT_CAPPED=512K \
        "$PROGS/limits" fill $((256 << 10)) 3
    assert_success
    assert_output "0 capped
1 capped
2 dram
used 524288 limit 524288 available 0"
}

@test "a limit that does not parse is named with what was expected" {
    capped_policy 1M fallback
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" LIBPLACE_LIMIT_CAPPED=lots "$PROGS/limits" api
    assert_equal "$status" 125
    assert_output ""
    assert_equal "${stderr_lines[0]}" "libplace: LIBPLACE_LIMIT_CAPPED=lots: 'lots' is not a size; expected a size such as 4096, 64K, 1M or 2G"
}

@test "the API answers 'not loaded' without libplace, and reports on demand with it" {
    run "$PROGS/limits" api
    assert_success
    assert_output "loaded 0 used -1 limit -1 nosuch -1 report -1"
    capped_policy 1M fallback
    cd "$BATS_TEST_TMPDIR"
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" "$PROGS/limits" api
    assert_success
    assert_output --regexp '^loaded 1 used [0-9]+ limit 1048576 nosuch -2 report 0$'
    # the report asked for is its own file, beside the one at exit
    valid_report "$BATS_TEST_TMPDIR/report.json.1"
    valid_report "$BATS_TEST_TMPDIR/report.json"
}

@test "place_account, place_unaccount, place_wait_available and totals: StarPU's accounting through libplace.h" {
    run "$PROGS/limits" account
    assert_success
    # without libplace, every call answers PLACE_NOT_LOADED (-1)
    [ "$(grep -c -- '-1' <<<"$output")" -eq 12 ]
    capped_policy 1M fallback
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" "$PROGS/limits" account
    assert_success
    assert_output "all 1, limit of all 0
account 512K: 0, used 524288
account 768K: -3
overflow 768K: 0, used 1310720
unaccount 768K: 0, used 524288
wait 768K 50 ms: -4
wait 2M: -3
account 2M waiting: -3
wait 768K until a thread gives 512K back: 0, after it
account 256K waiting, full: 0, after the give-back, used 262144
wait 1 byte, no time, with room: 0
no such node: -2 -2 -2"
    # accounted bytes are the node's like any block: the report counts them
    [ "$(node capped allocations)" -eq 4 ]
    [ "$(node capped frees)" -eq 3 ]
    [ "$(node capped overflows)" -eq 1 ]
    [ "$(node capped in_use)" -eq 262144 ]
}

@test "a report on a signal, while the program runs, into a file of its own" {
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/r.%p" LIBPLACE_REPORT_SIGNAL=USR1 \
        /usr/bin/python3 -c 'import os, signal; os.kill(os.getpid(), signal.SIGUSR1); print(os.getpid())'
    assert_success
    pid=$output
    grep -q "^libplace: report of pid $pid (python3), asked for by SIGUSR1" "$BATS_TEST_TMPDIR/r.$pid.1"
    grep -q "^libplace: report of pid $pid (python3), .* at exit" "$BATS_TEST_TMPDIR/r.$pid"
}

@test "report_children = no: forked children write no report of their own" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT=stderr LIBPLACE_REPORT_CHILDREN=no "$PROGS/forkexec"
    assert_equal "$status" 3
    # the parent and the exec'd program (a new process image, not a fork) report
    [ "$(grep -c '^libplace: report of pid' <<<"$stderr")" -eq 2 ]
}

@test "a forked child reports its own counts from the fork, not a copy of its parent's" {
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/r.%p.json" LIBPLACE_REPORT_FORMAT=json \
        /usr/bin/python3 -c '
import os, sys
x = [bytearray(1000) for i in range(20000)]
pid = os.fork()
if pid == 0:
    sys.exit(0)
os.waitpid(pid, 0)'
    assert_success
    /usr/bin/python3 - "$BATS_TEST_TMPDIR" <<'PY'
import glob, json, sys
reports = [json.load(open(f)) for f in glob.glob(sys.argv[1] + "/r.*.json")]
assert len(reports) == 2, reports
child = next(r for r in reports if r["forked_from"])
parent = next(r for r in reports if not r["forked_from"])
dram = lambda r: next(n for n in r["nodes"] if n["name"] == "dram")
assert dram(parent)["allocations"] > 20000
assert dram(child)["allocations"] < 1000, dram(child)
PY
}

@test "two MPI ranks under mpirun write two reports, and place-report merges them" {
    command -v mpirun || fail "openmpi-bin is not installed (scripts/setup installs it)"
    capped_policy 1M fallback
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 run timeout 120 mpirun --oversubscribe -np 2 \
        -x LD_PRELOAD="$LIB" -x LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" \
        -x LIBPLACE_REPORT="$BATS_TEST_TMPDIR/rank%r.json" \
        "$PROGS/limits" fill $((256 << 10)) 6
    assert_success
    valid_report "$BATS_TEST_TMPDIR/rank0.json"
    valid_report "$BATS_TEST_TMPDIR/rank1.json"
    run "$REPO/scripts/place-report" merge "$BATS_TEST_TMPDIR/rank0.json" "$BATS_TEST_TMPDIR/rank1.json" \
        -o "$BATS_TEST_TMPDIR/merged.json"
    assert_success
    valid_report "$BATS_TEST_TMPDIR/merged.json"
    cp "$BATS_TEST_TMPDIR/merged.json" "$BATS_TEST_TMPDIR/report.json"
    [ "$(node capped allocations)" = 8 ]
    [ "$(node capped fallbacks_out)" = 4 ]
}

@test "memkind is loaded at an hbw tier's first use, to find its nodes, and by no other tier" {
    arena_policy "$BATS_TEST_TMPDIR/a.ini" 64K..
    maps='b = [bytearray(1 << 20) for _ in range(4)]; print(open("/proc/self/maps").read())'
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/a.ini" \
        LIBPLACE_REPORT="$BATS_TEST_TMPDIR/report.json" LIBPLACE_REPORT_FORMAT=json \
        /usr/bin/python3 -c "$maps"
    assert_success
    refute_output --partial "libmemkind.so"
    [ "$(node a allocations)" -ge 4 ] # the large blocks were the arena's
    run env LD_PRELOAD="$LIB" LIBPLACE_RULES="size=1M.. to=hbw" MEMKIND_HBW_NODES=0 \
        /usr/bin/python3 -c "$maps"
    assert_success
    assert_output --partial "libmemkind.so"
    # no block of 1 MiB or more: the tier is never used, and memkind never loaded
    run env LD_PRELOAD="$LIB" LIBPLACE_RULES="size=1M.. to=hbw" MEMKIND_HBW_NODES=0 \
        /usr/bin/python3 -c 'print(open("/proc/self/maps").read())'
    assert_success
    assert_output --partial "libplace.so"
    refute_output --partial "libmemkind.so"
}

@test "memalign with an alignment glibc rounds up is served by the node; an aligned block never passes the limit" {
    capped_policy 1M fail
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" "$PROGS/limits" align
    assert_success
    assert_output "memalign 4: aligned capped
memalign 24: aligned capped
memalign 64: aligned capped
memalign 8192: aligned capped
aligned_alloc 8192: capped, used within limit"
    [ "$(node capped in_use)" = 0 ]
}

@test "on_full = wait does not wait for a request larger than the limit itself" {
    capped_policy 1M wait "wait = 5s"
    SECONDS=0
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" "$PROGS/limits" fill $((2 << 20)) 2
    assert_success
    assert_line "0 dram"
    [ "$SECONDS" -lt 4 ]
    [ "$(node capped waits)" = 0 ]
}

@test "realloc keeps every usable byte, in a dry run too" {
    run env LD_PRELOAD="$LIB" LIBPLACE_DRY_RUN=1 LIBPLACE_RULES="size=64K.. to=hbw" "$PROGS/limits" grow
    assert_success
    assert_output "kept every usable byte"
    capped_policy 1M fallback
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" "$PROGS/limits" grow
    assert_success
    assert_output "kept every usable byte"
}

@test "reports on signals while threads allocate: no hang, every report written" {
    run timeout 120 env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/s" LIBPLACE_REPORT_SIGNAL=USR1 \
        LIBPLACE_RULES="size=256K.. to=dram" "$PROGS/limits" spin 30
    assert_success
    assert_output "spun"
    # signals that arrive while one is handled may merge: at least one, at most 30
    n=$(ls "$BATS_TEST_TMPDIR"/s.* | wc -l)
    [ "$n" -ge 1 ]
    [ "$n" -le 30 ]
    for f in "$BATS_TEST_TMPDIR"/s.*; do grep -q "asked for by SIGUSR1" "$f"; done
    grep -q "report of pid .* at exit" "$BATS_TEST_TMPDIR/s"
}

@test "report_children = no gives a forked child's signal back its own meaning" {
    run "$PROGS/limits" childsig
    assert_output "child killed by signal 10"
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT=stderr LIBPLACE_REPORT_SIGNAL=USR1 LIBPLACE_REPORT_CHILDREN=no \
        "$PROGS/limits" childsig
    assert_line "child killed by signal 10"
}

@test "a JSON report is valid UTF-8 whatever the program's name" {
    cp "$PROGS/limits" "$BATS_TEST_TMPDIR/$(printf 'li\xffmits')"
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/r.json" LIBPLACE_REPORT_FORMAT=json \
        "$BATS_TEST_TMPDIR/$(printf 'li\xffmits')" api
    assert_success
    valid_report "$BATS_TEST_TMPDIR/r.json"
    /usr/bin/python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["program"] == "li\ufffdmits"' "$BATS_TEST_TMPDIR/r.json"
}

# small: blocks of the small classes, which the arena's per-thread caches hand out and
# take back (a cached block counts against the limit: held by a thread all the same)
@test "stress: 8 threads, realloc, cross-thread frees and forks, every on_full: limits hold, counters balance" {
    local mode iters sizes window limit
    for sizes in large small; do for mode in fallback wait overflow; do
        iters=3000
        extra=""
        [ "$mode" = wait ] && iters=400 && extra="wait = 5ms" # a wait takes its time
        window=64K.. limit=$((8 << 20))
        # small: a window libc's own blocks stay out of (a thread's DTV is ~300 bytes),
        # and a limit the 64 blocks the threads trade reach
        [ "$sizes" = small ] && iters=$((iters * 20)) && window=1025..4000 && limit=$((128 << 10))
        capped_policy "$limit" "$mode" "$extra" "$window"
        run timeout 120 env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" \
            "$PROGS/limits" stress 8 "$iters" "$sizes"
        assert_success
        # every block freed, by the program's count and by libplace's; every child that
        # forked found the node as its parent left it
        assert_line --regexp "^over [0-9]+ tracked 0 used 0 peak [0-9]+ limit $limit\$"
        assert_line --regexp '^forks [1-9][0-9]* failed 0$'
        if [ "$mode" != overflow ]; then # only overflow may pass the limit
            assert_line --regexp '^over 0 '
            [ "$(node capped peak)" -le $limit ]
            [ "$(node capped overflow_peak)" = 0 ]
        else # a level, not a sum over the thousands of allocations that went past it
            [ "$(node capped overflows)" -gt 0 ]
            [ "$(node capped overflow_peak)" = $(($(node capped peak) - limit)) ]
        fi
        valid_report "$BATS_TEST_TMPDIR/report.json"
        [ "$(node capped allocations)" = "$(node capped frees)" ]
        [ "$(node capped in_use)" = 0 ]
        rm -f "$BATS_TEST_TMPDIR"/report.json*
    done; done
}

@test "realloc grows an arena's large block in place, within the tier's limit, every byte kept" {
    run "$PROGS/grow"
    assert_success
    assert_output --partial "intact 1"
    arena_policy "$BATS_TEST_TMPDIR/a.ini" 64K..
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/a.ini" "$PROGS/grow"
    assert_success
    assert_output "moves 0 intact 1" # 128 KiB to 64 MiB, never copied
    # with a limit the growth past it is refused in place, and the buffer moves to dram
    policy "$BATS_TEST_TMPDIR/capped.ini" '[tier a]' 'kind = dram' 'limit = 8M' '[rule placed]' \
        'size = 64K..' 'to = a, dram'
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/capped.ini" \
        LIBPLACE_REPORT="$BATS_TEST_TMPDIR/report.json" LIBPLACE_REPORT_FORMAT=json "$PROGS/grow"
    assert_success
    assert_output --regexp '^moves [1-9][0-9]* intact 1$'
    [ "$(node a peak)" -le $((8 << 20)) ]
    [ "$(node a peak)" -ge $((4 << 20)) ]
}
