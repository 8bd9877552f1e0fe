#!/usr/bin/env bats
# OpenSHMEM's symmetric heap under libplace (issue 15): Open MPI's oshmem, two PEs.
#
# Every run passes `--mca memory ^patcher`: Open MPI 4.1.4's memory patcher segfaults in
# shmem_finalize on this machine with or without libplace, and without it the job would
# end with status 139 whatever libplace does.

load helpers

setup() {
    command -v oshrun || fail "openmpi-bin is not installed (scripts/setup installs it)"
    [ -x "$PROGS/shmem_blocks" ] || fail "shmem_blocks was not built (libopenmpi-dev gives oshcc)"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_memory=^patcher
}

# Two PEs of shmem_blocks under libplace, reports at $BATS_TEST_TMPDIR/pe%r.json; the
# arguments are more oshrun options (-x VAR...).
two_pes() {
    run --separate-stderr timeout 120 oshrun --oversubscribe -np 2 -x LD_PRELOAD="$LIB" \
        -x LIBPLACE_REPORT="$BATS_TEST_TMPDIR/pe%r.json" -x LIBPLACE_REPORT_FORMAT=json "$@" \
        "$PROGS/shmem_blocks"
}

# Field $2 of PE $1's symmetric section, as python prints it.
heap() {
    /usr/bin/python3 -c '
import json, sys
print(json.load(open(sys.argv[1]))["symmetric"][sys.argv[2]])' "$BATS_TEST_TMPDIR/pe$1.json" "$2"
}

@test "every PE's symmetric blocks are counted exactly, through each entry point" {
    two_pes
    assert_success
    for pe in 0 1; do
        valid_report "$BATS_TEST_TMPDIR/pe$pe.json"
        cp "$BATS_TEST_TMPDIR/pe$pe.json" "$BATS_TEST_TMPDIR/report.json"
        # 4 MiB, 8000 B, 3 MiB and 1 MiB, then the 4 MiB block grown to 6 MiB
        [ "$(node symmetric allocations)" = 5 ]
        [ "$(node symmetric frees)" = 5 ]
        [ "$(node symmetric peak)" = $(((6 << 20) + 8000 + (3 << 20) + (1 << 20))) ]
        [ "$(node symmetric in_use)" = 0 ]
        [ "$(heap $pe calls)" = 5 ]
        [ "$(heap $pe suggested_size)" = $((12 << 20)) ]
    done
    # without a rule the kernel's default policy holds every block
    [ "$(grep -c 'policy default' <<<"$output")" = 8 ]
    [ "$(heap 0 digest)" = "$(heap 1 digest)" ]
}

@test "a shmem rule binds the blocks' whole pages to hbw, in place" {
    two_pes -x MEMKIND_HBW_NODES=0 -x LIBPLACE_RULES='api=shmem size=1M.. to=hbw'
    assert_success
    # memkind finds node 0 as HBW here; hbw's policy is preferred. The 8000-byte block is
    # under the rule's window, and keeps the default.
    for pe in 0 1; do
        assert_line "pe $pe malloc+realloc 6291456 policy preferred nodes 0x1 pages 1535/1535 on node 0"
        assert_line "pe $pe calloc 8000 policy default nodes 0 pages 1/1 on node 0"
        assert_line "pe $pe align 3145728 policy preferred nodes 0x1 pages 768/768 on node 0"
        assert_line "pe $pe shmalloc 1048576 policy preferred nodes 0x1 pages 255/255 on node 0"
        /usr/bin/python3 - "$BATS_TEST_TMPDIR/pe$pe.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["symmetric"]["bound"] == [{"tier": "hbw", "blocks": 0, "bytes": 0, "binds": 4}], r["symmetric"]
rule = next(x for x in r["rules"] if x["name"])
assert rule["hits"] == 4, rule
PY
    done
}

@test "a numa tier binds them with its own policy" {
    policy "$BATS_TEST_TMPDIR/p.ini" '[tier near]' 'kind = numa' 'nodes = 0' '[rule heap]' 'api = shmem' \
        'size = 2M..' 'to = near'
    two_pes -x LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini"
    assert_success
    assert_line --partial "pe 0 malloc+realloc 6291456 policy bind nodes 0x1"
    assert_line --partial "pe 1 align 3145728 policy bind nodes 0x1"
    assert_line --partial "pe 0 shmalloc 1048576 policy default"
}

@test "a limit on one PE only makes its decisions differ, and merge flags that PE" {
    # PE 1's hbw tier holds 5 MiB: the 3 MiB and the grown 6 MiB blocks find it full. Each
    # of oshrun's app contexts takes its own -x.
    local each=(-x LD_PRELOAD="$LIB" -x LIBPLACE_REPORT="$BATS_TEST_TMPDIR/pe%r.json"
        -x LIBPLACE_REPORT_FORMAT=json -x MEMKIND_HBW_NODES=0
        -x LIBPLACE_RULES='api=shmem size=1M.. to=hbw')
    run --separate-stderr timeout 120 oshrun --oversubscribe -np 1 "${each[@]}" \
        "$PROGS/shmem_blocks" : -np 1 "${each[@]}" -x LIBPLACE_LIMIT_HBW=5M "$PROGS/shmem_blocks"
    assert_success
    assert_line --partial "pe 1 align 3145728 policy default"
    assert_line --partial "pe 0 align 3145728 policy preferred"
    [ "$(heap 0 digest)" != "$(heap 1 digest)" ]
    run --separate-stderr "$REPO/scripts/place-report" merge "$BATS_TEST_TMPDIR/pe0.json" \
        "$BATS_TEST_TMPDIR/pe1.json" -o "$BATS_TEST_TMPDIR/merged.json"
    assert_success
    [[ "$stderr" == *"PE 1"* ]] || fail "merge did not name PE 1: $stderr"
    valid_report "$BATS_TEST_TMPDIR/merged.json"
    /usr/bin/python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["symmetric"]["divergent"] == ["1"]' "$BATS_TEST_TMPDIR/merged.json"
}

@test "the symmetric tier's limit refuses a block as a full heap would" {
    two_pes -x LIBPLACE_LIMIT_SYMMETRIC=8M
    assert_failure
    # 4 MiB + 8000 B + 3 MiB fit; the 1 MiB shmalloc does not
    [[ "$stderr" == *"pe 0: a symmetric allocation failed"* ]] || fail "$stderr"
    [ "$(heap 0 refused)" = 1 ]
}

@test "shmem chains take hbw, numa and symmetric tiers only; other rules no symmetric tier" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_RULES='api=shmem to=dram' true
    assert_failure 125 # a policy with errors: the program is not run
    [[ "$stderr" == *"to: dram is dram memory, which a symmetric heap's pages cannot be bound to"* ]] ||
        fail "$stderr"
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_RULES='size=1M.. to=symmetric' true
    assert_failure 125
    [[ "$stderr" == *"expected api = shmem for a chain with a symmetric tier"* ]] || fail "$stderr"
}
