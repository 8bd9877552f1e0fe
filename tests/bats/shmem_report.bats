#!/usr/bin/env bats
# OpenSHMEM's symmetric heap in the tools: place-report render and merge of reports with a
# "symmetric" section (the fixtures tests/data/reports/shmem-*.json: two PEs that agree,
# and PE 1 again with a block its symmetric tier's limit refused), their validation, and
# the policy schema and placerun --check for a symmetric tier and an api = shmem rule.
#
# tests/bats/shmem.bats runs real PEs under oshrun; these need no SHMEM library. The
# place-report tests need no build either; helpers is loaded for the policy's check.

load helpers

PLACE_REPORT=$REPO/scripts/place-report
DATA=$REPO/tests/data/reports
PY=/usr/bin/python3

# Writes PE $3 (pid $4) as file $2, from fixture $1 with its rank and pid changed.
pe_as() {
    with_json "
d['rank'], d['pid'] = '$3', $4
json.dump(d, open('$2', 'w'))" "$1"
}

# -- render ------------------------------------------------------------------------------

@test "render: a PE's symmetric heap, in the words of libplace's text report" {
    run --separate-stderr "$PLACE_REPORT" render --no-lines "$DATA/shmem-pe0.json"
    assert_success
    assert_equal "$stderr" ""
    assert_line --regexp '^symmetric +symmetric +6\.0 MiB +0 B +5\.0 MiB +5 +5 +0 '
    assert_line "symmetric heap: 5 calls, peak 5.0 MiB (SHMEM_SYMMETRIC_SIZE=6M would hold it), in use 0 B, decisions 3a7c0e19b54d82f6"
    assert_line "symmetric heap: pages bound to hbw: 3 blocks in all, 0 now (0 B)"
    # nothing refused: no line for it
    refute_line --partial "refused by"
    run --separate-stderr "$PLACE_REPORT" render --no-lines "$DATA/shmem-pe1-diverged.json"
    assert_success
    assert_line "symmetric heap: 5 calls, peak 4.0 MiB (SHMEM_SYMMETRIC_SIZE=5M would hold it), in use 0 B, decisions c41f9e07a2d85b3e"
    assert_line "symmetric heap: 1 call refused by the symmetric tier's limit; 0 bindings refused by the kernel (mbind)"
    # a report without the section has none of it
    run --separate-stderr "$PLACE_REPORT" render --no-lines "$DATA/rank0.json"
    assert_success
    refute_output --partial "symmetric heap"
}

# -- merge -------------------------------------------------------------------------------

# place-report merge of the reports after $1 into $1, which succeeds (stderr is the test's to check)
merged() {
    local out=$1
    shift
    run --separate-stderr "$PLACE_REPORT" merge "$@" -o "$out"
    assert_success
}

@test "merge: two PEs that agree, side by side by rank; nothing flagged; the larger suggested size" {
    cd "$BATS_TEST_TMPDIR"
    # given in the reverse order: the PEs come out by rank
    merged merged.json "$DATA/shmem-pe1.json" "$DATA/shmem-pe0.json"
    assert_equal "$stderr" ""
    valid_report merged.json
    with_json '
s = d["symmetric"]
assert s["divergent"] == [], s["divergent"]
assert s["suggested_size"] == 7 << 20, s  # PE 1 asks more than PE 0 (6 MiB)
assert [(p["rank"], p["pid"]) for p in s["pes"]] == [("0", 7301), ("1", 7302)], s["pes"]
assert s["pes"][0] == {"rank": "0", "pid": 7301, "calls": 5, "digest": "3a7c0e19b54d82f6",
                       "peak": 5243680, "suggested_size": 6 << 20, "refused": 0, "unbindable": 0,
                       "bound": [{"tier": "hbw", "blocks": 0, "bytes": 0, "binds": 3}]}, s["pes"][0]
# the symmetric node is a node like the others: summed
sym = [n for n in d["nodes"] if n["name"] == "symmetric"][0]
assert (sym["kind"], sym["allocations"], sym["peak"]) == ("symmetric", 10, 5243680 + 6292256)
' merged.json
    run --separate-stderr "$PLACE_REPORT" render --no-lines merged.json
    assert_success
    assert_line "symmetric heap of 2 PEs (SHMEM_SYMMETRIC_SIZE=7M would hold each one's):"
    assert_line --regexp '^PE +pid +calls +peak +refused +unbindable +binds +decisions$'
    assert_line --regexp '^ 0 +7301 +5 +5\.0 MiB +0 +0 +hbw 3 +3a7c0e19b54d82f6$'
    assert_line --regexp '^ 1 +7302 +5 +6\.0 MiB +0 +0 +hbw 3 +3a7c0e19b54d82f6$'
    assert_line "every PE made the same symmetric allocations (5 calls, decisions 3a7c0e19b54d82f6)"
}

@test "merge: a PE whose decisions differ is warned about and listed; the merge goes on" {
    cd "$BATS_TEST_TMPDIR"
    merged merged.json "$DATA/shmem-pe0.json" "$DATA/shmem-pe1-diverged.json"
    assert_equal "$stderr" "place-report: warning: the PEs' symmetric heaps differ: PE 1 (pid 7302) made 5 calls, decisions c41f9e07a2d85b3e, 1 refused by its symmetric tier's limit; 1 of 2 PEs made 5 calls, decisions 3a7c0e19b54d82f6: every PE must make the same symmetric allocations, and a limit reached on one PE only is the usual cause"
    valid_report merged.json
    with_json '
s = d["symmetric"]
assert s["divergent"] == ["1"], s["divergent"]
assert s["suggested_size"] == 6 << 20, s["suggested_size"]
assert [p["refused"] for p in s["pes"]] == [0, 1]' merged.json
    run --separate-stderr "$PLACE_REPORT" render --no-lines merged.json
    assert_success
    assert_line --regexp '^ 0 +7301 +5 +5\.0 MiB +0 +0 +hbw 3 +3a7c0e19b54d82f6$'
    assert_line --regexp '^ 1 +7302 +5 +4\.0 MiB +1 +0 +hbw 3 +c41f9e07a2d85b3e +differs$'
    assert_line "1 PE of 2 made other symmetric allocations than the most PEs' (5 calls, decisions 3a7c0e19b54d82f6): every PE must make the same symmetric allocations; a limit reached on one PE only is the usual cause"
    # a merged report merges again: its PEs are kept, and compared again
    merged again.json merged.json
    [[ $stderr == *"PE 1 (pid 7302) made 5 calls, decisions c41f9e07a2d85b3e"* ]]
    with_json 'assert d["symmetric"] == d2["symmetric"], d["symmetric"]' again.json merged.json
}

@test "merge: the most PEs' decisions are the reference, rank 0's only on a tie" {
    cd "$BATS_TEST_TMPDIR"
    # rank 0 is the one that differs from ranks 1 and 2
    pe_as "$DATA/shmem-pe1-diverged.json" r0.json 0 100
    pe_as "$DATA/shmem-pe0.json" r1.json 1 101
    pe_as "$DATA/shmem-pe0.json" r2.json 2 102
    merged merged.json r2.json r0.json r1.json
    [[ $stderr == *"PE 0 (pid 100) made 5 calls, decisions c41f9e07a2d85b3e"*"; 2 of 3 PEs made 5 calls, decisions 3a7c0e19b54d82f6: "* ]]
    with_json 'assert d["symmetric"]["divergent"] == ["0"], d["symmetric"]' merged.json
    # one each: rank 0's are the reference; ranks sort as numbers, 10 after 2
    pe_as "$DATA/shmem-pe1-diverged.json" r10.json 10 110
    merged tie.json r10.json r2.json
    [[ $stderr == *"PE 10 (pid 110) made"* ]]
    with_json '
s = d["symmetric"]
assert [p["rank"] for p in s["pes"]] == ["2", "10"] and s["divergent"] == ["10"], s' tie.json
}

@test "merge: reports without a symmetric heap are not PEs, and add no section" {
    cd "$BATS_TEST_TMPDIR"
    merged plain.json "$DATA/rank0.json" "$DATA/rank1.json"
    with_json 'assert "symmetric" not in d' plain.json
    # a launcher's report beside the PEs (another rank, no SHMEM call)
    with_json '
d["rank"], d["pid"] = "2", 7400
del d["symmetric"]
json.dump(d, open("launcher.json", "w"))' "$DATA/shmem-pe0.json"
    merged merged.json "$DATA/shmem-pe0.json" "$DATA/shmem-pe1.json" launcher.json
    assert_equal "$stderr" ""
    with_json 'assert [p["rank"] for p in d["symmetric"]["pes"]] == ["0", "1"], d["symmetric"]' merged.json
}

# -- malformed sections ------------------------------------------------------------------

@test "a malformed symmetric section: exit 2, a message naming the key, for every command" {
    cd "$BATS_TEST_TMPDIR"
    "$PY" - "$DATA/shmem-pe0.json" <<'PY'
import copy, json, sys
base = json.load(open(sys.argv[1]))

def bad(name, change):
    doc = copy.deepcopy(base)
    change(doc["symmetric"])
    json.dump(doc, open(name + ".json", "w"))

bad("digest", lambda s: s.update(digest="3A7C0E19B54D82FZ"))
bad("short", lambda s: s.update(digest="3a7c0e19"))
bad("calls", lambda s: s.update(calls="5"))
bad("tier", lambda s: s.update(tier="heap"))
bad("bound", lambda s: s["bound"][0].update(tier="fast"))
bad("binds", lambda s: s["bound"][0].pop("binds"))
PY
    declare -A why=(
        [digest]='symmetric.digest: expected 16 lower-case hex digits, got the string "3A7C0E19B54D82FZ"'
        [short]='symmetric.digest: expected 16 lower-case hex digits, got the string "3a7c0e19"'
        [calls]='symmetric.calls: expected an unsigned 64-bit integer, got the string "5"'
        [tier]='symmetric.tier: the string "heap" names no node'
        [bound]='symmetric.bound[0].tier: the string "fast" names no node'
        [binds]="symmetric.bound[0]: no 'binds'"
    )
    for name in "${!why[@]}"; do
        for command in "render" "merge $DATA/shmem-pe1.json"; do
            # shellcheck disable=SC2086
            run --separate-stderr "$PLACE_REPORT" $command "$name.json"
            assert_equal "$status" 2
            assert_output ""
            assert_equal "$stderr" "place-report: $name.json: not a valid libplace report: ${why[$name]}"
        done
    done
    # a merged report's section is checked as merge writes it
    "$PLACE_REPORT" merge "$DATA/shmem-pe0.json" "$DATA/shmem-pe1.json" -o merged.json
    with_json 'd["symmetric"]["pes"][1]["digest"] = "x"; json.dump(d, open("merged-digest.json", "w"))' merged.json
    with_json 'd["symmetric"]["pes"] = []; json.dump(d, open("merged-empty.json", "w"))' merged.json
    run --separate-stderr "$PLACE_REPORT" render merged-digest.json
    assert_equal "$status" 2
    assert_equal "$stderr" 'place-report: merged-digest.json: not a valid libplace report: symmetric.pes[1].digest: expected 16 lower-case hex digits, got the string "x"'
    run --separate-stderr "$PLACE_REPORT" render merged-empty.json
    assert_equal "$status" 2
    assert_equal "$stderr" "place-report: merged-empty.json: not a valid libplace report: symmetric.pes: empty (merge lists every PE it merged)"
}

# -- the policy ----------------------------------------------------------------------------

@test "LIBPLACE_CHECK=json: a symmetric tier and an api = shmem rule fit the policy schema; --check does not weigh the heap's limit" {
    cd "$BATS_TEST_TMPDIR"
    policy shmem.ini <<'INI'
[tier heap]
kind = symmetric
limit = 64T
[tier near]
kind = numa
nodes = 0
[rule halo]
api = shmem
size = 1M..
to = near, heap
INI
    env LIBPLACE_POLICY=shmem.ini LIBPLACE_CHECK=json LD_PRELOAD="$LIB" /bin/sh -c 'exit 97' >check.json
    valid_policy check.json
    with_json '
heap = {t["name"]: t for t in d["tiers"]}["heap"]
assert heap["kind"] == "symmetric" and "reclaim_min" not in heap, heap
assert d["rules"][0]["api"] == ["shmem"], d["rules"]' check.json
    # 64 TiB is more than any machine here: not a warning for a share of the SHMEM heap
    run --separate-stderr "$PLACERUN" --lib "$LIB" --check shmem.ini
    assert_success
    [[ $stderr == "libplace: shmem.ini: no errors; tiers: "*"heap (symmetric"* ]]
    [[ $stderr != *"tier heap:"* ]]
}
