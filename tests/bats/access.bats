#!/usr/bin/env bats
# The access profile (profile = access): big blocks in mappings of their own, their
# accessed bits read every interval, and per site the bytes touched; the report's
# hottest sites per byte.

load helpers

# Runs PROGRAM ARGS under the access profile with the LIBPLACE_* assignments before it,
# JSON reports at $BATS_TEST_TMPDIR/reports/report-PID.json.
profiled() {
    local vars=()
    while [[ $1 == LIBPLACE_* ]]; do vars+=("$1") && shift; done
    rm -rf "$BATS_TEST_TMPDIR/reports"
    mkdir -p "$BATS_TEST_TMPDIR/reports"
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_PROFILE=access \
        LIBPLACE_REPORT="$BATS_TEST_TMPDIR/reports/report-%p.json" LIBPLACE_REPORT_FORMAT=json \
        "${vars[@]}" "$@"
}

# The access figures of the one report's hottest sites, one line each: "symbol<caller
# peak touched_mean touched_share heat", hottest first.
hottest() {
    /usr/bin/python3 - "$BATS_TEST_TMPDIR"/reports/*.json <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
a = r["profile"]["access"]
assert a["state"] == "on", a["state"]
for s in a["hottest"]:
    f = s["frames"]
    name = f[0]["symbol"].split("!")[1].split("+")[0]
    if name == "make_array":
        name += "<" + f[1]["symbol"].split("!")[1].split("+")[0]
    x = s["access"]
    print(name, x["peak"], x["touched_mean"], x["touched_share"], x["heat"])
EOF
}

@test "the swept arrays are the hottest per byte, the arrays written once the coldest" {
    run "$PROGS/hotcold" 400
    assert_success
    local expected=$output
    profiled "$PROGS/hotcold" 400
    assert_success
    assert_output "$expected"
    valid_report "$BATS_TEST_TMPDIR"/reports/*.json
    run hottest
    assert_success
    echo "$output"
    # the three swept blocks first (2, 32 and 64 MiB, in any order), then the rest
    run /usr/bin/python3 -c '
import sys
rows = [l.split() for l in sys.argv[1].splitlines()]
names = [r[0] for r in rows]
assert sorted(names[:3]) == ["alloc_hot_a", "alloc_hot_b", "make_array<alloc_pair_hot"], names
assert sorted(names[3:]) == ["alloc_cold_a", "alloc_cold_b", "make_array<alloc_pair_cold"], names
for name, peak, touched, share, heat in rows:
    hot = names.index(name) < 3
    # a swept block is touched whole nearly every interval; one written once, seldom
    assert (float(share) > 0.8) if hot else (float(share) < 0.5), (name, share)
    if name.startswith("alloc_hot"): # touched whole while live (but for the interval
        assert float(share) > 0.8, (name, share)  # its pages were being faulted in)
coldest_hot = min(float(r[4]) for r in rows[:3])
hottest_cold = max(float(r[4]) for r in rows[3:])
assert hottest_cold < coldest_hot / 2, rows' "$output"
    assert_success
}

@test "the report says what the figure means, how often it was read and what it cost" {
    profiled LIBPLACE_REPORT_FORMAT=text "$PROGS/hotcold" 200
    assert_success
    local report=("$BATS_TEST_TMPDIR"/reports/*)
    run cat "${report[@]}"
    assert_line --regexp "^libplace: hottest sites per byte, of 6 tracked \(blocks of 1.0 MiB or more, 6 blocks, 292.0 MiB at peak\), read [0-9]+ times every [0-9.]+ ms on average:$"
    assert_line --partial "touched: bytes of the site's blocks whose pages were accessed at least once in an interval, not a count of accesses"
    assert_line --regexp "^libplace:   the sampler took [0-9]+\.[0-9]{3} s of CPU$"
    assert_line --regexp "alloc_hot_b\+0x[0-9a-f]+ \(hotcold\+0x[0-9a-f]+\)$"
    assert_line --regexp "make_array\+0x[0-9a-f]+ \(hotcold\+0x[0-9a-f]+\) < alloc_pair_hot"
}

@test "tracked blocks act as glibc's: calloc, alignment, realloc across profile_min, threads, fork, own mappings" {
    run "$PROGS/access_edges"
    assert_success
    local expected=$output
    profiled "$PROGS/access_edges"
    assert_success
    assert_output "$expected"
    [ -z "$stderr" ]
    local reports=("$BATS_TEST_TMPDIR"/reports/*.json)
    [ "${#reports[@]}" -eq 2 ] # the program's, and its forked child's
    for r in "${reports[@]}"; do valid_report "$r"; done
    run /usr/bin/python3 - "${reports[@]}" <<'EOF'
import json, sys
for path in sys.argv[1:]:
    r = json.load(open(path))
    a = r["profile"]["access"]
    assert a["state"] == "on" and a["intervals"] >= 3, a
    # the block aligned to 64 KiB stays glibc's, and says so
    assert a["untracked"] == {"blocks": 1, "bytes": 2 << 20}, a["untracked"]
    sites = {s["frames"][0]["symbol"].split("!")[1].split("+")[0]: s["access"]
             for s in a["hottest"]}
    # every thread's blocks are tracked at their own site, and were swept while read
    assert sites["thread_main"]["blocks"] == 2 and sites["thread_main"]["touched_share"] > 0.5
    if r["forked_from"]:
        # the child's own block, swept for 400 ms, read by its own sampler
        child = [s for s in a["hottest"] if s["access"]["peak"] == 6 << 20]
        assert child and child[0]["access"]["touched_mean"] > 0, a["hottest"]
    else:
        # the program's own mapping is not tracked: 106 of its blocks are (100 in the
        # loop of big buffers), 15 MiB at most at once
        assert a["tracked"]["blocks"] == 106 and a["tracked"]["peak"] < 16 << 20, a["tracked"]
    assert a["tracked"]["live"] <= 9 << 20
EOF
    assert_success
}

@test "a program ended by SIGTERM has its access profile in the report" {
    run "$PROGS/access_edges" term
    assert_failure 143
    local expected=$output
    profiled "$PROGS/access_edges" term
    assert_failure 143
    assert_output "$expected"
    run /usr/bin/python3 - "$BATS_TEST_TMPDIR"/reports/*.json <<'EOF'
import json, sys
reports = [json.load(open(p)) for p in sys.argv[1:]]
ended = [r for r in reports if r["ended_by"]]
assert len(ended) == 1 and ended[0]["ended_by"] == "TERM", [r["ended_by"] for r in reports]
a = ended[0]["profile"]["access"]
assert a["intervals"] >= 3 and a["tracked"]["live"] > 0, a
EOF
    assert_success
}

@test "profile_min chooses the blocks tracked; a dry run tracks none and says why" {
    profiled LIBPLACE_PROFILE_MIN=40M "$PROGS/hotcold" 50
    assert_success
    run hottest
    assert_success
    run /usr/bin/python3 -c 'import sys; print(sorted(l.split()[0] for l in sys.argv[1].splitlines()))' "$output"
    assert_output "['alloc_cold_a', 'alloc_cold_b', 'alloc_hot_a']"
    profiled LIBPLACE_REPORT_FORMAT=text LIBPLACE_DRY_RUN=1 LIBPLACE_RULES='size=1M.. to=hbw,dram' \
        "$PROGS/hotcold" 20
    assert_success
    run cat "$BATS_TEST_TMPDIR"/reports/*
    assert_line "libplace: access profile unavailable: a dry run's blocks are planned, not tracked; sites ranked by bytes only"
}

@test "placerun --profile turns it on; render --libplace prints what libplace printed" {
    run "$PLACERUN" --profile -r "$BATS_TEST_TMPDIR/p.json" --lib "$LIB" "$PROGS/hotcold" 100
    assert_success
    valid_report "$BATS_TEST_TMPDIR/p.json"
    run "$REPO/scripts/place-report" render --libplace "$BATS_TEST_TMPDIR/p.json"
    assert_success
    assert_line --regexp "^libplace: hottest sites per byte, of 6 tracked"
    run "$PLACERUN" --profile --check /dev/null
    assert_failure 2
    assert_line --index 0 "placerun: --profile is for running a program; --check and --tiers run none"
}

@test "bad profile values are errors naming the variable and what was expected" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_PROFILE=sometimes /bin/true
    assert_failure 125
    [[ $stderr == *"LIBPLACE_PROFILE=sometimes: 'sometimes' is not accepted here; expected off or access"* ]]
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_PROFILE_MIN=1K /bin/true
    assert_failure 125
    [[ $stderr == *"LIBPLACE_PROFILE_MIN"*"'1K' is less than a page; expected a size of 4K or more"* ]]
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_PROFILE_INTERVAL=5ms /bin/true
    assert_failure 125
    [[ $stderr == *"LIBPLACE_PROFILE_INTERVAL"*"'5ms' is out of range; expected 10ms to 60s"* ]]
}

# In the test's directory: program $1 (of $PROGS) with its arguments profiled into
# profile.json, then advise's policy for 100 MiB of hbw into advised.ini, its table in
# $output.
advised() {
    cd "$BATS_TEST_TMPDIR"
    run "$PLACERUN" --profile -r profile.json --lib "$LIB" "$PROGS/$1" "${@:2}"
    assert_success
    run --separate-stderr env LIBPLACE_LIB="$LIB" "$REPO/scripts/place-report" advise profile.json \
        --fit hbw=100M -o advised.ini
    assert_success
    echo "$output"
}

# Program $1 with its arguments run under advised.ini, HBW on node 0, its JSON report
# placed.json, its profile exact (a 2 MiB block is sampled with probability 0.98 at the
# default rate: its row could be missing).
run_advised() {
    MEMKIND_HBW_NODES=0 LIBPLACE_SAMPLE=all run "$PLACERUN" -p advised.ini -r placed.json \
        --lib "$LIB" "$PROGS/$1" "${@:2}"
    assert_success
}

@test "the loop: profile, advise 100M of hbw, run placed: the hot sites in hbw, the cold in dram; the dry run holds" {
    advised hotcold 300
    # every access the fast tier can hold: the swept arrays (96 MiB) and both 2 MiB ones
    assert_line "hbw: 4 sites, 100.0 MiB of 100.0 MiB"
    assert_line --regexp "^the fast tiers would serve ([6-9][0-9]|100)\.[0-9]% of the bytes touched per interval .*; a size rule of the same capacity \(first come, first served\) would serve [1-4][0-9]\.[0-9]%$"
    assert_line "  placerun -p advised.ini --dry-run=fold -r check.json -- hotcold ARGS..."
    run_advised hotcold 50
    run /usr/bin/python3 - placed.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
where = {}
for s in r["profile"]["top"]:
    f = s["frames"]
    if not f or not (f[0]["symbol"] or "").startswith("hotcold!"):
        continue  # a block of the C library's, sampled by chance
    name = f[0]["symbol"].split("!")[1].split("+")[0]
    if name == "make_array":
        name += "<" + f[1]["symbol"].split("!")[1].split("+")[0]
    where[name] = sorted(s["tiers"])
print(sorted(where.items()))
hbw = [n for n in r["nodes"] if n["name"] == "hbw"][0]
assert hbw["refused"] == 0 and hbw["peak"] <= hbw["limit"], hbw
PY
    assert_success
    assert_output "[('alloc_cold_a', ['dram']), ('alloc_cold_b', ['dram']), ('alloc_hot_a', ['hbw']), ('alloc_hot_b', ['hbw']), ('make_array<alloc_pair_cold', ['hbw']), ('make_array<alloc_pair_hot', ['hbw'])]"
    # the check advise names: a folded dry run under the policy, read back
    run "$PLACERUN" -p advised.ini --dry-run=fold -r check.json --lib "$LIB" "$PROGS/hotcold" 5
    assert_success
    run "$REPO/scripts/place-report" advise --check check.json
    assert_success
    assert_line --partial "the plan holds"
}

@test "two ranks' profiles merge by site: each rank's room is capacity over the ranks per node" {
    cd "$BATS_TEST_TMPDIR"
    for rank in 0 1; do
        run "$PLACERUN" --profile -r "rank$rank.json" --lib "$LIB" "$PROGS/hotcold" 150
        assert_success
    done
    run --separate-stderr env LIBPLACE_LIB="$LIB" "$REPO/scripts/place-report" advise rank0.json \
        rank1.json --fit hbw=200M --ranks-per-node 2 -o job.ini
    assert_success
    assert_line "advice for hotcold from 2 reports (rank0.json, rank1.json), merged by site: bytes and accesses summed, room the most one process held"
    assert_line "fast tiers per rank (capacity / 2 ranks per node), filled in this order: hbw 100.0 MiB"
    assert_line "hbw: 4 sites, 100.0 MiB of 100.0 MiB"
    # one row a site: the two runs' sites are the same frames
    [ "$(grep -c '^hotcold!' <<<"$output")" -eq 6 ]
    grep -qx 'limit = 100M' job.ini
    # merge keeps the access profile: the job's blocks, its sites hottest first
    run "$REPO/scripts/place-report" merge rank0.json rank1.json -o job.json
    assert_success
    valid_report job.json
    run /usr/bin/python3 - job.json <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["profile"]["access"]
ranks = [json.load(open(f"rank{k}.json"))["profile"]["access"] for k in (0, 1)]
assert a["tracked"]["blocks"] == 12 and a["intervals"] == sum(r["intervals"] for r in ranks), a
hot = a["hottest"]
assert len(hot) == 6 and all(s["access"]["blocks"] == 2 for s in hot), hot
assert [s["access"]["heat"] for s in hot] == sorted((s["access"]["heat"] for s in hot), reverse=True)
PY
    assert_success
}

@test "sites never live together share the fast tier's room" {
    advised phases 100
    # the phase ranked second (their heats differ by the clock) shares the first's room
    assert_line --regexp '^phases!alloc_phase_(one|two)\+0x[0-9a-f]+ < phases!main\+0x[0-9a-f]+ .* hbw +hottest per byte that fits; sharing room in hbw with sites never live at once$'
    assert_line --regexp '^phases!alloc_cold\+0x[0-9a-f]+ < .* dram +no room left in hbw \(needs 64.0 MiB, 36.0 MiB free while it is live\)$'
    assert_line "hbw: 2 sites, 64.0 MiB of 100.0 MiB at most at once (128.0 MiB in all)"
    run_advised phases 10
    run /usr/bin/python3 - placed.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
hbw = [n for n in r["nodes"] if n["name"] == "hbw"][0]
print(hbw["allocations"], hbw["peak"], hbw["refused"])
PY
    assert_output "2 67108864 0"
}

@test "past 8192 tracked blocks live, the rest stay glibc's, counted: the program keeps its mappings" {
    local py='l = [bytearray(8192) for _ in range(10000)]; print(len(l), sum(map(len, l)))'
    profiled LIBPLACE_PROFILE_MIN=4K LIBPLACE_REPORT_FORMAT=json /usr/bin/env PYTHONMALLOC=malloc \
        /usr/bin/python3 -c "$py"
    assert_success
    assert_output "10000 81920000"
    run /usr/bin/python3 - "$BATS_TEST_TMPDIR"/reports/*.json <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["profile"]["access"]
assert a["untracked"]["blocks"] >= 10000 - 8192, a["untracked"]
assert 8192 <= a["tracked"]["blocks"] and a["tracked"]["peak"] <= 8192 * (8192 + 4096), a["tracked"]
PY
    assert_success
}

@test "CPython's own regression tests pass under the access profile, every block of 64 KiB or more tracked" {
    local tests=(test_bytes test_list test_dict test_array test_memoryview test_mmap test_pickle
        test_json test_re test_sort test_set test_deque test_zlib test_struct test_io)
    profiled LIBPLACE_PROFILE_MIN=64K /usr/bin/env PYTHONMALLOC=malloc /usr/bin/python3 -m test \
        -j2 "${tests[@]}"
    assert_success
    assert_line "All ${#tests[@]} tests OK."
    # the worker processes tracked blocks too, each with its own sampler
    run /usr/bin/python3 - "$BATS_TEST_TMPDIR"/reports/*.json <<'PY'
import json, sys
access = [json.load(open(p))["profile"]["access"] for p in sys.argv[1:]]
busy = [a for a in access if a["tracked"]["blocks"] >= 10 and a["intervals"] >= 1]
assert len(busy) >= 2, [(a["tracked"]["blocks"], a["intervals"]) for a in access]
PY
    assert_success
}

@test "a program that closes every descriptor and takes them all: the sampler never touches its files" {
    export T=$BATS_TEST_TMPDIR
    local py='
import os, time
keep = bytearray(8 << 20)  # tracked: the sampler starts, its descriptors among the highest
time.sleep(0.3)
os.closerange(3, 64)
path = os.environ["T"] + "/f"
with open(path, "w") as f:
    f.write("x" * 100)
fds = []
while True:
    try:
        fds.append(os.open(path, os.O_RDONLY))
    except OSError:
        break
for fd in fds:
    os.lseek(fd, 7, os.SEEK_SET)
for _ in range(6):
    keep[::4096] = b"\x01" * len(keep[::4096])
    time.sleep(0.1)
print(len(fds) > 40, [fd for fd in fds if os.lseek(fd, 0, os.SEEK_CUR) != 7])'
    profiled /bin/sh -c 'ulimit -n 64 && exec /usr/bin/env PYTHONMALLOC=malloc /usr/bin/python3 -c "$0"' "$py"
    assert_success
    assert_output "True []"
}
