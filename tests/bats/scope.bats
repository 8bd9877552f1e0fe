#!/usr/bin/env bats
# scope = node: one limit for every process of the machine (per user, per job) that
# declares a tier of that name so, kept in shared memory (policy/tiers/shared.h). The
# processes are tests/progs/hold, which places blocks, says which node holds each and what
# the shared tier has available, holds them a while and frees them. Each test is a job of
# its own (SLURM_JOB_ID), so that its region is its own: /dev/shm/libplace-UID-shared-JOB.

load helpers

setup() {
    export SLURM_JOB_ID="bats$$-$BATS_TEST_NUMBER"
    region=/dev/shm/libplace-$(id -u)-shared-$SLURM_JOB_ID
    policy "$BATS_TEST_TMPDIR/p.ini" <<INI
[libplace]
report = $BATS_TEST_TMPDIR/report-%p.json
report_format = json
[tier shared]
kind = dram
limit = 64M
scope = node
[rule big]
size = 1M..
to = shared, dram
INI
    export LIBPLACE_POLICY=$BATS_TEST_TMPDIR/p.ini
}

teardown() {
    # every holder started in the background is gone by now, or is stopped here
    [ -z "${holder:-}" ] || { kill -9 "$holder" && wait "$holder"; } 2>/dev/null || true
    rm -f "$region"
}

placed() {
    LD_PRELOAD=$LIB "$@"
}

# hold_in_background OUT ARGS...: a holder whose output goes to OUT, once it holds.
hold_in_background() {
    local out=$1
    shift
    # a simple command, so that $! is the holder itself, not a shell around it
    env LD_PRELOAD="$LIB" "$PROGS/hold" "$@" >"$out" 2>&1 &
    holder=$!
    for _ in $(seq 100); do
        grep -q holding "$out" && return 0
        sleep 0.1
    done
    echo "the holder never held: $(cat "$out")"
    return 1
}

# The pid of the newest report, that of the last process run to its end.
newest_report() {
    local f
    f=$(ls -t "$BATS_TEST_TMPDIR"/report-*.json | head -n 1)
    f=${f##*/report-}
    echo "${f%.json}"
}

# A figure of process $1's report: node NAME's FIELD (or node_scope's, as scope.FIELD).
figure() {
    with_json "n = next(n for n in d['nodes'] if n['name'] == '$2')
f = '$3'
print(n['node_scope'][f[6:]] if f.startswith('scope.') else n[f])" "$BATS_TEST_TMPDIR/report-$1.json"
}

@test "two processes placing 48 MiB each under one 64 MiB node-wide limit hold 64 MiB there together" {
    hold_in_background "$BATS_TEST_TMPDIR/a.out" 16M 3 30000
    assert_equal "$(grep -c 'node=shared' "$BATS_TEST_TMPDIR/a.out")" 3
    run --separate-stderr placed "$PROGS/hold" 16M 3 10
    assert_success
    assert_line "parent block 0 node=shared"
    assert_line "parent block 1 node=dram"
    assert_line "parent block 2 node=dram"
    assert_line "parent holding, shared has 0 available"
    # the report gives the machine's figure beside the process's own
    local pid
    pid=$(newest_report)
    [ "$(figure "$pid" shared peak)" -eq $((16 << 20)) ]
    [ "$(figure "$pid" shared scope.peak)" -eq $((64 << 20)) ]
    [ "$(figure "$pid" shared scope.in_use)" -eq $((48 << 20)) ]
    [ "$(figure "$pid" shared scope.processes)" -eq 2 ]
    [ "$(figure "$pid" shared refused)" -eq 2 ]
    # another job's processes keep a limit of their own
    SLURM_JOB_ID=other$$ run --separate-stderr placed "$PROGS/hold" 16M 3 10
    assert_line "parent block 2 node=shared"
    rm -f "/dev/shm/libplace-$(id -u)-shared-other$$"
}

@test "a holder killed with SIGKILL: the next process that finds no room frees its bytes and gets its 48 MiB" {
    hold_in_background "$BATS_TEST_TMPDIR/a.out" 16M 3 30000
    { kill -9 "$holder" && wait "$holder"; } 2>/dev/null || true
    run --separate-stderr placed "$PROGS/hold" 16M 3 10
    assert_success
    for k in 0 1 2; do assert_line "parent block $k node=shared"; done
    assert_line "parent holding, shared has 16777216 available"
}

@test "a forked child counts its own blocks in a slot of its own, given back when it ends" {
    run --separate-stderr placed "$PROGS/hold" 16M 3 10 fork
    assert_success
    assert_line "parent holding, shared has 16777216 available"
    assert_line "child block 0 node=shared"
    assert_line "child holding, shared has 0 available"
    # the child's bytes left with it; the parent's it inherited stayed its parent's
    assert_line "after child holding, shared has 16777216 available"
    # every process that ended gave its slot back
    run --separate-stderr placed "$PROGS/hold" 16M 4 10
    for k in 0 1 2 3; do assert_line "parent block $k node=shared"; done
}

@test "a fork leaves the parent's count alone: other threads' cached blocks, which the child gives back, stay the parent's" {
    cat >>"$BATS_TEST_TMPDIR/p.ini" <<'INI'
[rule small]
size = 1..4K
to = shared, dram
INI
    run --separate-stderr placed "$PROGS/hold" 16M 1 10 forks
    assert_success
    local before
    before=$(sed -n 's/^before forks holding, shared has \([0-9]*\) available$/\1/p' <<<"$output")
    [ -n "$before" ]
    [ "$(grep -c "^after a fork holding, shared has $before available\$" <<<"$output")" -eq 5 ]
}

@test "on_full = wait waits for room another process frees, woken across processes" {
    cat >>"$BATS_TEST_TMPDIR/p.ini" <<'INI'
on_full = wait
wait = 10s
INI
    hold_in_background "$BATS_TEST_TMPDIR/a.out" 16M 3 1500
    run --separate-stderr placed "$PROGS/hold" 32M 1 10
    assert_success
    assert_line "parent block 0 node=shared"
    [ "$(figure "$(newest_report)" shared waits)" -eq 1 ]
    grep -q done "$BATS_TEST_TMPDIR/a.out"
}

@test "two users share nothing: each has a region of its own (and the tier can come from the environment)" {
    [ "$(id -u)" -eq 0 ] || skip "needs root, to run a process as another user"
    command -v setpriv >/dev/null || skip "no setpriv"
    local nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    "${nobody[@]}" test -r "$LIB" -a -x "$PROGS/hold" || skip "the build is not readable by uid 65534"
    hold_in_background "$BATS_TEST_TMPDIR/a.out" 16M 3 30000
    run "${nobody[@]}" env -u LIBPLACE_POLICY LD_PRELOAD="$LIB" LIBPLACE_RULES='size=1M.. to=shared,dram' \
        LIBPLACE_KIND_SHARED=dram LIBPLACE_LIMIT_SHARED=64M LIBPLACE_SCOPE_SHARED=node \
        "$PROGS/hold" 16M 3 10
    assert_success
    for k in 0 1 2; do assert_line "parent block $k node=shared"; done
    [ -f "/dev/shm/libplace-65534-shared-$SLURM_JOB_ID" ]
    rm -f "/dev/shm/libplace-65534-shared-$SLURM_JOB_ID"
}

@test "a region another user could write is refused: the tier is unavailable, the report says why" {
    install -m 0666 /dev/null "$region"
    run --separate-stderr placed "$PROGS/hold" 16M 1 10
    assert_success
    assert_line "parent block 0 node=dram"
    [[ "$(figure "$(newest_report)" shared unavailable)" == *"is not this user's alone (owner $(id -u), others may open it; remove it)"* ]]
}
