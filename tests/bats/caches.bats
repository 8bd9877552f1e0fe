#!/usr/bin/env bats
# An arena's per-thread caches (policy/tiers/cache.h), checked against the blocks
# themselves through include/libplace.h: a block is always in the node its rule names,
# never handed out twice, never lost when its thread exits, and a forked child does not
# count what threads that did not follow it cached.

load helpers

setup() {
    policy "$BATS_TEST_TMPDIR/p.ini" <<INI
[libplace]
report = $BATS_TEST_TMPDIR/report.json
report_format = json
[tier a]
kind = dram
limit = 1M
[tier b]
kind = dram
[rule small]
size = 1025..2048
to = a
[rule larger]
size = 2049..4000
to = b
INI
}

@test "8 threads trading blocks of two cached tiers: each block in its rule's node, none handed out twice, none left" {
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" "$PROGS/caches" tiers 8 50000
    assert_success
    assert_output "wrong 0 changed 0 used a 0 b 0"
    # every thread's cache went back at its exit: nothing held, every block freed
    for n in a b; do
        [ "$(node $n allocations)" = "$(node $n frees)" ]
        [ "$(node $n in_use)" = 0 ]
        [ "$(node $n allocations)" -gt 100000 ]
    done
}

@test "the check can fail: without libplace every block is in the wrong node" {
    run "$PROGS/caches" tiers 2 10
    assert_output --regexp '^wrong 20 changed 0 '
}

@test "fork: the child does not count a cache whose thread did not follow it; the thread's exit gives it back" {
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" "$PROGS/caches" fork
    assert_success
    assert_line "parent: used 0, caches hold some 1"
    assert_line "child: used 0 held 0"
    assert_line "parent after the thread's exit: used 0 held 0"
}

@test "a report says what threads' caches hold apart from what is in use" {
    arena_policy "$BATS_TEST_TMPDIR/c.ini" 1025..2048
    # python3 keeps its thread alive while the report is written at exit: the main
    # thread's cache still holds the freed blocks
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/c.ini" LIBPLACE_REPORT=stderr \
        PYTHONMALLOC=malloc /usr/bin/python3 -c 'x = [bytes(1500) for _ in range(100)]; del x'
    assert_success
    assert_output --regexp "a: [0-9.]+ [KM]iB more in threads' caches"
}

@test "aligned blocks from the slabs: every alignment up to 64 KiB is honoured" {
    arena_policy "$BATS_TEST_TMPDIR/a.ini" 0..
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/a.ini" "$PROGS/caches" align
    assert_success
    assert_output "130 blocks, 0 misaligned, 130 in a"
}

@test "blocks past 8 KiB of one length after another reuse each other's pages: the resident set grows by about the largest four" {
    # 14 lengths of 12 to 64 KiB, four blocks at a time: glibc grows by 256 KiB; slabs of
    # their own per length held 2.2 MiB; kept runs merged before the top rises, ~0.3 MiB
    # (a report's first stack capture touches its own tables: measured without one)
    arena_policy "$BATS_TEST_TMPDIR/a.ini" 0..
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/a.ini" "$PROGS/lengths"
    assert_success
    [[ "$output" =~ ^grew\ ([0-9]+)\ KiB$ ]]
    [ "${BASH_REMATCH[1]}" -lt 768 ]
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/a.ini" LIBPLACE_REPORT=stderr "$PROGS/lengths"
    assert_success
    assert_output --regexp "libplace:  +[0-9.]+ MiB +168 x  lengths!main\+0x[0-9a-f]+ \(lengths\+0x[0-9a-f]+\)  placed -> a " # every block placed
}

@test "aligned blocks of 12 to 64 KiB freed and asked again reuse their pages" {
    # past the page, a run class's alignment is a large block's: its freed runs are kept
    # for their length, and merged before the top rises (257 MiB grew when they were not)
    arena_policy "$BATS_TEST_TMPDIR/a.ini" 0..
    for args in "65536 65536" "8192 12288" "16384 20480"; do
        run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/a.ini" "$PROGS/lengths" $args
        assert_success
        [[ "$output" =~ ^grew\ ([0-9]+)\ KiB$ ]]
        [ "${BASH_REMATCH[1]}" -lt 1024 ]
    done
}

@test "a class whose refill would touch fresh memory is lent a larger class's cached blocks: counted as theirs, never misaligned" {
    # 2000 bytes is class 2048; blocks of 2200 (class 2304) freed into the thread's bin are
    # lent to it; an aligned request skips those its alignment does not fit
    arena_policy "$BATS_TEST_TMPDIR/a.ini" 0..
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/a.ini" "$PROGS/caches" lend
    assert_success
    assert_output "usable 2304, used 2304, misaligned 0, then 0"
}
