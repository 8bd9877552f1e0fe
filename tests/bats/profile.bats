#!/usr/bin/env bats
# The profile: every allocation's site when a report is asked, sampled by bytes (exact with
# sample = all), named by the program's own frame past the allocation wrappers.

load helpers

# Runs twonew NODES BUFFERS KEPT with the LIBPLACE_* assignments before them, under a JSON
# report at $BATS_TEST_TMPDIR/report.json.
twonew() {
    local vars=()
    while [[ $1 == LIBPLACE_* ]]; do vars+=("$1") && shift; done
    rm -f "$BATS_TEST_TMPDIR/report.json"
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/report.json" \
        LIBPLACE_REPORT_FORMAT=json LIBPLACE_SITES=50 "${vars[@]}" "$PROGS/twonew" "$@"
    assert_success
    assert_output "$(($2 - $3))" # each buffer freed adds its one byte set to 1
    valid_report "$BATS_TEST_TMPDIR/report.json"
}

# The profile's row whose first frame's symbol holds $1, as "calls bytes live peak mean
# frames".
row() {
    /usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["profile"]
rows = [s for s in p["top"] if s["frames"] and sys.argv[2] in (s["frames"][0]["symbol"] or "")]
assert len(rows) == 1, rows
s = rows[0]
print(s["calls"], s["bytes"], s["live"], s["peak"], s["mean_size"], len(s["frames"]))' \
        "$BATS_TEST_TMPDIR/report.json" "$1"
}

@test "sample = all: two new[] sites and a strdup site, each its own row with exact figures" {
    twonew LIBPLACE_SAMPLE=all 1000 100 10
    run row make_nodes
    assert_output "1000 1024000 10240 1024000 1024 4"
    run row make_buffers
    assert_output "100 6553600 655360 6553600 65536 4"
    run row copy_names
    assert_output "1000 101000 1010 101000 101 4"
    # the wrappers themselves are no site's first frame
    run /usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["profile"]
assert p["sample"] == "all" and p["lost"] == 0
first = [s["frames"][0]["symbol"] or "" for s in p["top"] if s["frames"]]
assert not [f for f in first if "!_Zna" in f or "!_Znw" in f or "strdup" in f], first' \
        "$BATS_TEST_TMPDIR/report.json"
    assert_success
}

@test "sample = all: dram's bytes in use are exact, its allocations and frees too" {
    twonew LIBPLACE_SAMPLE=all 1000 100 10
    run /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
dram, p = r["nodes"][0], r["profile"]
# every live block is in the profile; dram counts usable sizes, a little more than asked
live = sum(s["live"] for s in p["top"])
assert live <= dram["in_use"] <= live + 16 * (dram["allocations"] - dram["frees"]), (live, dram)
assert dram["allocations"] >= 2100 and dram["allocations"] - dram["frees"] >= 30, dram' \
        "$BATS_TEST_TMPDIR/report.json"
    assert_success
}

@test "sampled by bytes (the default, 512K): the estimates are near the truth" {
    # 128 MiB in 64 KiB blocks: about 250 samples, so the estimates are within a few
    # per cent; the test allows 30% (five standard deviations)
    twonew 20000 2000 1000
    run /usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["profile"]
assert p["sample"] == 512 * 1024, p["sample"]
s = next(s for s in p["top"] if "make_buffers" in (s["frames"][0]["symbol"] or ""))
for key, truth in (("calls", 2000), ("bytes", 2000 * 65536), ("live", 1000 * 65536),
                   ("peak", 2000 * 65536)):
    assert abs(s[key] - truth) <= 0.3 * truth, (key, s[key], truth)
assert s["samples"] < 2000 and s["mean_size"] == 65536, s' "$BATS_TEST_TMPDIR/report.json"
    assert_success
}

@test "wrappers = *make_*: the program's own wrappers are skipped too, to their caller" {
    # globs match symbols as the report prints them: C++ names mangled (_Z10make_nodes...)
    twonew LIBPLACE_SAMPLE=all LIBPLACE_WRAPPERS='*make_*' 1000 100 10
    run /usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["profile"]
first = [s["frames"][0]["symbol"] or "" for s in p["top"] if s["frames"]]
assert not [f for f in first if "make_" in f], first
assert any("!main+" in f for f in first), first' "$BATS_TEST_TMPDIR/report.json"
    assert_success
}

@test "report_depth = 2 keeps two frames; the text report names each site's first frame" {
    policy "$BATS_TEST_TMPDIR/p.ini" '[libplace]' 'sample = all' 'report_depth = 2'
    twonew LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" 1000 100 10
    run row make_nodes
    assert_output "1000 1024000 10240 1024000 1024 2"
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT=stderr LIBPLACE_SAMPLE=all "$PROGS/twonew" 1000 100 10
    assert_success
    assert_line --partial "allocation sites, every allocation (sample = all)"
    assert_line --regexp 'libplace: +1000.0 KiB +1000 +10.0 KiB +1000.0 KiB +1.0 KiB  twonew!_Z10make_nodes'
}

@test "placed blocks are in the profile with their tier; their frees leave it" {
    arena_policy "$BATS_TEST_TMPDIR/p.ini" "1K..1K"
    twonew LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" LIBPLACE_SAMPLE=all 1000 100 10
    run /usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["profile"]
s = next(s for s in p["top"] if "make_nodes" in (s["frames"][0]["symbol"] or ""))
assert s["tiers"] == {"a": 1024000} and s["live"] == 10240, s
b = next(s for s in p["top"] if "make_buffers" in (s["frames"][0]["symbol"] or ""))
assert b["tiers"] == {"dram": 6553600}, b' "$BATS_TEST_TMPDIR/report.json"
    assert_success
}

@test "sample: bad values are refused with what is expected" {
    for v in 0 -1 lots; do
        run env LD_PRELOAD="$LIB" LIBPLACE_SAMPLE=$v LIBPLACE_REPORT=stderr /bin/true
        assert_equal "$status" 125 # on_error = abort: the program does not start
        assert_line --partial "LIBPLACE_SAMPLE"
        assert_line --partial "expected"
    done
}

@test "merge adds the processes' profiles site by site" {
    twonew LIBPLACE_SAMPLE=all 1000 100 10
    mv "$BATS_TEST_TMPDIR/report.json" "$BATS_TEST_TMPDIR/one.json"
    twonew LIBPLACE_SAMPLE=all 500 100 10
    run "$REPO/scripts/place-report" merge --force -o "$BATS_TEST_TMPDIR/m.json" \
        "$BATS_TEST_TMPDIR/one.json" "$BATS_TEST_TMPDIR/report.json"
    assert_success
    valid_report "$BATS_TEST_TMPDIR/m.json"
    mv "$BATS_TEST_TMPDIR/m.json" "$BATS_TEST_TMPDIR/report.json"
    run row make_nodes
    assert_output "1500 1536000 20480 1536000 1024 4"
}

@test "libplace's own allocations are not the program's: /bin/true counts none, whatever the policy starts" {
    # the policy file is parsed, site patterns resolved over every module, fork handlers
    # and a report signal installed: all of it allocates, with the guard up
    policy "$BATS_TEST_TMPDIR/p.ini" <<'INI'
[libplace]
report_signal = USR1
sample = all
[tier a]
kind = dram
[rule r]
size = 1M..
site = *
depth = 4
to = a
INI
    rm -f "$BATS_TEST_TMPDIR/report.json"
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" \
        LIBPLACE_REPORT="$BATS_TEST_TMPDIR/report.json" LIBPLACE_REPORT_FORMAT=json /bin/true
    assert_success
    run node dram allocations
    assert_output 0
    run node dram frees
    assert_output 0
}

@test "a site rule's misses: the blocks it does not take keep the program's sites in the profile" {
    # make_nodes' blocks are looked up by the rule and left to glibc, each on the program's
    # row; make_buffers' are placed
    twonew LIBPLACE_SAMPLE=all LIBPLACE_KIND_NODE=dram 'LIBPLACE_RULES=site=*make_buffers* depth=4 to=node' \
        1000 100 10
    run /usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["profile"]
first = [s["frames"][0]["symbol"] or "" for s in p["top"] if s["frames"]]
assert not [f for f in first if "libplace" in f], first
rows = {f: s for f, s in zip(first, [s for s in p["top"] if s["frames"]])}
nodes = [s for f, s in rows.items() if "make_nodes" in f]
buffers = [s for f, s in rows.items() if "make_buffers" in f]
assert len(nodes) == 1 and nodes[0]["calls"] == 1000 and list(nodes[0]["tiers"]) == ["dram"], nodes
assert len(buffers) == 1 and buffers[0]["calls"] == 100 and list(buffers[0]["tiers"]) == ["node"], buffers' \
        "$BATS_TEST_TMPDIR/report.json"
    assert_success
}

@test "profile rows a reader can tell apart: perl's allocation functions are wrappers, and rows that start alike name their callers" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT=stderr LIBPLACE_SAMPLE=64K \
        /usr/bin/perl -e 'my %w = map { $_ => "w$_" } 1 .. 100000; my $s = "x"; $s .= "y" x $_ for 1 .. 2000; print scalar(keys %w), "\n"'
    assert_success
    assert_output "100000"
    rows=$(printf '%s\n' "$stderr" | sed -n '/^libplace: allocation sites/,/^libplace: [a-z]/p' |
        grep -E '^libplace: +[0-9.]+ [KMG]?i?B +[0-9]+ ' | sed -E 's/^libplace:( +[^ ]+ [^ ]+| +[^ ]+){5} +//')
    [ "$(printf '%s\n' "$rows" | wc -l)" -ge 5 ] || { echo "$stderr"; return 1; }
    # no row's site is perl's allocation function itself, and no two rows read the same
    run grep -c 'safesys' <<<"$rows"
    assert_output 0
    [ -z "$(printf '%s\n' "$rows" | sort | uniq -d)" ] || { printf '%s\n' "$rows"; return 1; }
    # rows that share their first frame say which caller made them
    printf '%s\n' "$rows" | grep -q ' < ' || { printf '%s\n' "$rows"; return 1; }
}

@test "wrappers libplace knows by no name are found by their shape: a call to malloc whose block is returned, and a tail call" {
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/r.json" LIBPLACE_REPORT_FORMAT=json \
        LIBPLACE_SAMPLE=all "$PROGS/shaped"
    assert_success
    assert_output "400 blocks"
    run /usr/bin/python3 -c '
import json, sys
top = json.load(open(sys.argv[1]))["profile"]["top"]
for s in top:
    if s["calls"] == 200:
        print(s["frames"][0]["symbol"].split("+")[0])' "$BATS_TEST_TMPDIR/r.json"
    assert_success
    assert_line "shaped!from_checked"
    assert_line "shaped!from_tail"
    refute_output --partial "my_"
}
