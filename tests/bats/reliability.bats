#!/usr/bin/env bats
# What a hostile test suite found under placing policies (issue 18): hangs, crashes and
# lost output, wrong figures; each case fails on the tree before its fix.

load helpers

ALL=("[tier node]" "kind = dram" "[rule all]" "size = 0.." "to = node")

@test "a site rule never deadlocks a thread that asks for its own attributes (HotSpot's first call)" {
    local want
    want=$("$PROGS/selfattr")
    for depth in 1 2 4; do
        run timeout 30 env LD_PRELOAD="$LIB" LIBPLACE_RULES="site=* depth=$depth to=dram" "$PROGS/selfattr"
        assert_success
        assert_output "$want"
    done
}

@test "site capture in a signal handler on an alternate stack the program malloc'd" {
    run timeout 30 env LD_PRELOAD="$LIB" LIBPLACE_RULES="site=* depth=4 to=dram" "$PROGS/selfattr" altstack
    assert_success
    assert_output "handled 100 signals on the alternate stack"
}

@test "a signal handler that allocates while the program frees placed blocks (arena, dry run)" {
    local want p=$BATS_TEST_TMPDIR/all.ini
    want=$("$PROGS/sigalloc" 1500000 noalloc)
    policy "$p" "${ALL[@]}"
    run timeout 120 env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$p" "$PROGS/sigalloc" 1500000
    assert_success
    assert_output "$want"
    run timeout 120 env LD_PRELOAD="$LIB" LIBPLACE_DRY_RUN=1 LIBPLACE_RULES="size=0.. to=hbw" \
        "$PROGS/sigalloc" 1500000
    assert_success
    assert_output "$want"
}

@test "a dry run that plans everything in a limited hbw tier, and a signal handler that allocates: it ends (a thread waited for a dry map stripe it held)" {
    local want p=$BATS_TEST_TMPDIR/dry.ini k
    want=$("$PROGS/sigalloc" 1500000 noalloc)
    policy "$p" "[libplace]" "dry_run = yes" "[tier fast]" "kind = hbw" "limit = 16M" \
        "[rule all]" "size = 0.." "to = fast, dram"
    for k in 1 2 3; do
        run timeout 60 env LD_PRELOAD="$LIB" MEMKIND_HBW_NODES=0 LIBPLACE_POLICY="$p" \
            "$PROGS/sigalloc" 1500000
        assert_success
        assert_output "$want"
    done
}

@test "a signal handler that allocates and frees blocks of the thread's own cache while it uses it: none handed out twice, none lost" {
    arena_policy "$BATS_TEST_TMPDIR/cache.ini" 1025..2048
    run timeout 120 env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/cache.ini" "$PROGS/sigcache" 100000
    assert_success
    assert_output "duplicates 0, node holds the handler's block: 1"
}

@test "a dlopened library that frees and allocates in its destructor at exit: no crash, output kept" {
    local p=$BATS_TEST_TMPDIR/all.ini want
    policy "$p" "${ALL[@]}"
    want=$("$PROGS/dlopen_main" "$PROGS/libdlopen_lib.so" keep | cat; echo "status ${PIPESTATUS[0]}")
    run bash -c "LD_PRELOAD='$LIB' LIBPLACE_POLICY='$p' '$PROGS/dlopen_main' '$PROGS/libdlopen_lib.so' keep | cat
        echo \"status \${PIPESTATUS[0]}\""
    assert_output "$want"
}

@test "threads still allocating placed blocks while the main thread exits: status and output kept" {
    local p=$BATS_TEST_TMPDIR/all.ini k
    policy "$p" "${ALL[@]}"
    for k in $(seq 1 15); do
        run bash -c "LD_PRELOAD='$LIB' LIBPLACE_POLICY='$p' '$PROGS/exit_threads' 3000 | wc -l
            echo \"status \${PIPESTATUS[0]}\""
        assert_output "3000
status 5"
    done
}

@test "threads that allocate under a site rule after libplace dropped their memo of stacks" {
    # from a destructor of a key made after libplace's memo key, which runs after it: each
    # lookup finds no table (the memo's generation is 0 then, and a lookup tests nothing
    # else), is walked anew and taken
    local want p=$BATS_TEST_TMPDIR/late.ini
    want=$("$PROGS/late_sites")
    policy "$p" "[tier node]" "kind = dram" "[rule late]" "site = site_alloc" "depth = 2" "to = node"
    run --separate-stderr timeout 60 env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$p" LIBPLACE_REPORT=stderr \
        "$PROGS/late_sites"
    assert_success
    assert_output "$want"
    # 4 threads, each 1 block before its exit and 64 in the destructor, all placed (the
    # peak depends on how the threads overlap)
    [[ "$stderr" =~ libplace:\ node\ +dram\ +none\ +0\ B\ +[0-9.]+\ [KM]?i?B\ +260\ +260 ]]
    [[ "$stderr" =~ libplace:\ late\ +260\  ]]
}

@test "realloc keeps a placed block in its tier while it has room, whoever calls" {
    local p=$BATS_TEST_TMPDIR/hot.ini
    policy "$p" "[tier node]" "kind = dram" "[rule hot]" "size = 0.." "site = hot_*" "to = node"
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$p" "$PROGS/realloc_keep"
    assert_success
    assert_output "allocated: node
grown: node
shrunk: node
contents: kept"
}

@test "on_full = wait in a single-threaded program goes on at once, and says why once" {
    local p=$BATS_TEST_TMPDIR/wait.ini
    policy "$p" "[tier node]" "kind = dram" "limit = 1M" "[rule big]" "size = 64K.." "to = node, dram" \
        "on_full = wait" "wait = 2s"
    # 200 blocks of 100 KB against a 1 MiB node: waiting 2 s for each refused one would take
    # six minutes; nothing but this thread could free anything
    run timeout 60 env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$p" perl -e '
        my @keep = map { "x" x 100000 } 1 .. 200; print scalar(@keep), " blocks\n";'
    assert_success
    assert_line "200 blocks"
    assert_equal "$(grep -c 'on_full = wait, but this process has one thread' <<<"$output")" 1
}

@test "a report names every thread that allocated, and only those, placed or not" {
    local p=$BATS_TEST_TMPDIR/all.ini
    policy "$p" "${ALL[@]}"
    env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$p" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/r.txt" "$PROGS/threads" >/dev/null
    env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/pass.txt" "$PROGS/threads" >/dev/null
    # four producers and the main thread allocate; the consumer only deletes (its frees
    # give it a slot of its own, not a place among the threads that allocated)
    run grep -o 'allocations from [0-9]* threads' "$BATS_TEST_TMPDIR/r.txt" "$BATS_TEST_TMPDIR/pass.txt"
    assert_output "$BATS_TEST_TMPDIR/r.txt:allocations from 5 threads
$BATS_TEST_TMPDIR/pass.txt:allocations from 5 threads"
}

@test "the report's row of sites that found the site table full is whole" {
    local d=$BATS_TEST_TMPDIR
    # 5000 call sites, more than the table's 4096 entries hold
    {
        echo '#include <stdlib.h>'
        for k in $(seq 0 4999); do echo "__attribute__((noinline)) void *f$k(void) { return malloc(24); }"; done
        echo 'int main(void) {'
        for k in $(seq 0 4999); do echo "free(f$k());"; done
        echo 'return 0; }'
    } >"$d/sites.c"
    gcc -O1 -fno-builtin -o "$d/sites" "$d/sites.c"
    LD_PRELOAD="$LIB" LIBPLACE_RULES="size=0.. to=dram" LIBPLACE_REPORT="$d/r.txt" "$d/sites"
    run grep 'other sites' "$d/r.txt"
    assert_success
    assert_output --regexp '^libplace: +[0-9.]+ (B|KiB|MiB) +[0-9]+ x  \(other sites: the site table was full\)$'
    run grep -c '[^[:print:]]' "$d/r.txt"
    assert_output 0
}

@test "a report to /dev/null is discarded; a directory as the report path is said to be one" {
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT=/dev/null "$PROGS/free_null"
    assert_success
    refute_output --partial "libplace:"
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$BATS_TEST_TMPDIR" "$PROGS/free_null"
    assert_success
    assert_line --partial "cannot create report $BATS_TEST_TMPDIR: it is a directory"
}

@test "another malloc ahead of libplace, or AddressSanitizer behind it, is said once" {
    local d=$BATS_TEST_TMPDIR asan
    asan=$(gcc -print-file-name=libasan.so)
    printf '#include <stdio.h>\n#include <stdlib.h>\nint main(void) { free(malloc(10)); puts("ran"); return 0; }\n' >"$d/a.c"
    gcc -fsanitize=address -o "$d/a" "$d/a.c"
    run env LD_PRELOAD="$asan:$LIB" LIBPLACE_RULES="size=0.. to=dram" "$d/a"
    assert_success
    assert_line --partial "malloc is $asan's, ahead of libplace"
    run env ASAN_OPTIONS=verify_asan_link_order=0 LD_PRELOAD="$LIB" LIBPLACE_RULES="size=0.. to=dram" "$d/a"
    assert_success
    assert_equal "$(grep -c 'AddressSanitizer runs behind libplace' <<<"$output")" 1
    # nothing is said when libplace is the program's allocator
    run env LD_PRELOAD="$LIB" LIBPLACE_RULES="size=0.. to=dram" "$PROGS/free_null"
    refute_output --partial "ahead of libplace"
}

@test "a SIGSEGV handler on an alternate stack allocates after a stack overflow, under site rules" {
    local depth
    for depth in 2 4 8; do
        run timeout 30 env LD_PRELOAD="$LIB" LIBPLACE_RULES="site=* depth=$depth to=dram" \
            "$PROGS/selfattr" overflow
        assert_success
        assert_output "the stack overflowed and the handler allocated"
    done
}

@test "a child forked while its parent writes a report exits, and writes its own" {
    run timeout 60 env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/r-%p" "$PROGS/limits" forkreport 100
    assert_success
    assert_output "100 of 100 children exited"
    [ "$(ls "$BATS_TEST_TMPDIR" | grep -c '^r-')" -ge 101 ] # each child's, and the parent's
}

@test "realloc in a full node: a shrink stays, a growth goes down the chain, counted once" {
    local p=$BATS_TEST_TMPDIR/p.ini
    policy "$p" '[libplace]' "report = $BATS_TEST_TMPDIR/r.json" 'report_format = json' '[tier capped]' \
        'kind = dram' 'limit = 1M' '[rule big]' 'size = 64K..' 'to = capped, dram'
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$p" "$PROGS/limits" shrink
    assert_success
    assert_output "shrunk: capped, same block 1, errno 0
grown: dram"
    # the shrink's new block and the growth were each refused once; only the growth left
    run /usr/bin/python3 -c '
import json, sys
for n in json.load(open(sys.argv[1]))["nodes"]:
    print(n["name"], n["refused"], n["fallbacks_out"], n["fallbacks_in"])' "$BATS_TEST_TMPDIR/r.json"
    assert_output "dram 0 0 1
capped 2 1 0"
}

@test "a report to a device that cannot be opened (no controlling terminal) follows on stderr" {
    run setsid env LD_PRELOAD="$LIB" LIBPLACE_REPORT=/dev/tty "$PROGS/free_null"
    assert_success
    assert_line --partial "libplace: cannot write report /dev/tty: "
    assert_line --partial "libplace: report of pid"
}
