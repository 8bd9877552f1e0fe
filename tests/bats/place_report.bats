#!/usr/bin/env bats
# place-report, the reader of libplace's JSON reports: render, merge, compare, plot; the
# fixtures (tests/data/reports) against the schema; bad input and usage errors.
#
# It needs no build of libplace, so it does not load helpers (whose setup_file wants one).

REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
PLACE_REPORT=$REPO/scripts/place-report
DATA=$REPO/tests/data/reports
PY=/usr/bin/python3

bats_require_minimum_version 1.5.0

load /usr/lib/bats/bats-support/load
load /usr/lib/bats/bats-assert/load
load json


# -- the fixtures --------------------------------------------------------------------------

@test "every fixture validates against the schema" {
    run valid_report "$DATA"/*.json
    assert_success
    [ "$(ls "$DATA"/*.json | wc -l)" -ge 4 ]
    # what the other tests rely on: two ranks of one job under one policy, another policy
    with_json '
assert d["policy"]["hash"] == d2["policy"]["hash"] != d3["policy"]["hash"]
assert (d["rank"], d2["rank"]) == ("0", "1")
hbw = [n for n in d["nodes"] if n["name"] == "hbw"][0]
assert hbw["limit"] == 64 << 20 and hbw["fallbacks_out"] > 0
assert any(not n["available"] for n in d["nodes"])' "$DATA/rank0.json" "$DATA/rank1.json" "$DATA/other.json"
}

# -- render ------------------------------------------------------------------------------

@test "render: header, node table, unavailable node, rules and top sites" {
    run --separate-stderr "$PLACE_REPORT" render "$DATA/rank0.json"
    assert_success
    assert_equal "$stderr" ""
    assert_line --regexp '^program +solver$'
    assert_line --regexp '^pid +48211$'
    assert_line --regexp '^host +node017$'
    assert_line --regexp '^rank +0$'
    assert_line "hbw: 97.7% of its pages on its nodes (a sample of 1024 of 4096 resident pages, move_pages)"
    assert_line --regexp '^start +2026-11-21 05:43:00 UTC$'
    assert_line --regexp '^seconds +42\.72$'
    assert_line --regexp '^threads +9 allocating, 1 at exit$'
    assert_line --regexp '^policy +/home/ana/runs/hbw\.ini, 2 rules, hash 3f1c9a0b7e2d4c51$'
    assert_line --regexp '^dry run +no$'
    assert_line --regexp '^node +kind +limit +in use +peak +allocations +frees +refused +fallbacks out +fallbacks in +waits +overflow +failures +reclaimed +skipped$'
    assert_line --regexp '^dram +dram +none +312\.4 MiB +1\.4 GiB +1205308 +1204900 +0 +0 +37 +0 +0 B +0 +0 B +0$'
    assert_line --regexp '^hbw +hbw +64\.0 MiB +55\.8 MiB +63\.5 MiB +414 +403 +37 +37 +0 +0 +0 B +0 +0 B +0$'
    assert_line --regexp '^gpu +device +none +0 B +0 B( +0){6} +0 B +0 +0 B +24$'
    assert_line "gpu is unavailable: no CUDA support in this build of libplace"
    assert_line --regexp '^rule +hits +bytes asked +chain +on_full$'
    assert_line --regexp '^big +450 +1\.1 GiB +hbw, dram +fallback$'
    assert_line --regexp '^staging +24 +96\.0 MiB +gpu, dram +fallback$'
    assert_line "top 5 sites by bytes asked, of 24:"
    assert_line --regexp '^900\.0 MiB +300 +24 +big +hbw 828\.0 MiB / dram 72\.0 MiB +solver!assemble_matrix\+0x5e$'
    assert_line --regexp '^ *8\.0 MiB +4 +0 +- +dram 6\.0 MiB / hbw 2\.0 MiB +\(sites that did not fit the table\)$'
    # the columns line up: every row of the node table is as long as its header
    widths=$(sed -n '/^node /,/^$/p' <<<"$output" | grep -v 'is unavailable' | grep . |
        awk '{ print length($0) }' | sort -u | wc -l)
    [ "$widths" -le 3 ] # rstripped rows may end before the last header's width
}

@test "render: a forked child's dry run outside MPI, its report asked for by a signal" {
    run --separate-stderr "$PLACE_REPORT" render "$DATA/forked.json"
    assert_success
    assert_line --regexp '^pid +4133 \(forked from pid 4100\)$'
    assert_line --regexp '^rank +none \(not an MPI process\)$'
    assert_line --regexp '^policy +no file \+ inline rules \(LIBPLACE_RULES\), 1 rule, hash 0c5e2b7a9d13f846$'
    assert_line --regexp '^dry run +yes'
    assert_line --regexp '^signal +SIGUSR1 asked for this report$'
    assert_line "hbw is unavailable: no high-bandwidth memory on this machine; the dry run planned for it"
    assert_line "top 1 site by bytes asked, of 1:"
}

@test "render reads standard input for -" {
    run --separate-stderr "$PLACE_REPORT" render - <"$DATA/rank1.json"
    assert_success
    assert_line --regexp '^pid +48212$'
}

@test "render: file:line from addr2line for a module that exists; --no-lines and no addr2line skip it" {
    command -v gcc >/dev/null && command -v objdump >/dev/null || skip "no gcc or objdump"
    cd "$BATS_TEST_TMPDIR"
    printf '#include <stdlib.h>\nvoid *grab(size_t n)\n{\n    return malloc(n);\n}\nint main(void)\n{\n    free(grab(10));\n    return 0;\n}\n' >prog.c
    gcc -g -O0 -o prog prog.c
    # the return address of main's call to grab, as libplace records a site: line 8
    ret=$(objdump -d prog | awk '/call.*<grab>/ { getline; sub(":", "", $1); print $1; exit }')
    [ -n "$ret" ]
    with_json "
top = d['sites']['top']
top[0].update(module='$BATS_TEST_TMPDIR/prog', offset=0x$ret)
top[1].update(module='$BATS_TEST_TMPDIR/prog', offset=0x$ret, symbol=None, site='prog+0x$ret')
top[2].update(module='$BATS_TEST_TMPDIR/missing', offset=0x$ret)
json.dump(d, open('lines.json', 'w'))" "$DATA/rank0.json"
    run --separate-stderr "$PLACE_REPORT" render lines.json
    assert_success
    assert_equal "$stderr" ""
    assert_line --regexp "solver!assemble_matrix\+0x5e at $BATS_TEST_TMPDIR/prog\.c:8$"
    assert_line --regexp "prog\+0x$ret \(main at $BATS_TEST_TMPDIR/prog\.c:8\)$"
    assert_line --regexp 'solver!halo_exchange\+0x33$'
    run --separate-stderr "$PLACE_REPORT" render --no-lines lines.json
    assert_success
    refute_output --partial "prog.c"
    mkdir empty
    run --separate-stderr env PATH="$BATS_TEST_TMPDIR/empty" "$PLACE_REPORT" render lines.json
    assert_success
    assert_equal "$stderr" ""
    refute_output --partial "prog.c"
    assert_line --regexp 'solver!assemble_matrix\+0x5e$'
}

# -- merge -------------------------------------------------------------------------------

@test "merge: two ranks make one report that validates, with their figures summed" {
    cd "$BATS_TEST_TMPDIR"
    run --separate-stderr "$PLACE_REPORT" merge "$DATA/rank0.json" "$DATA/rank1.json"
    assert_success
    assert_equal "$stderr" ""
    printf '%s\n' "$output" >merged.json
    run valid_report merged.json
    assert_success
    # exact figures, worked out by hand from the two fixtures
    with_json '
nodes = {n["name"]: n for n in d["nodes"]}
assert [n["name"] for n in d["nodes"]] == ["dram", "hbw", "gpu"]
assert (d["pid"], d["rank"], d["program"], d["host"]) == (48211, None, "solver", "node017, node018")
assert d["start"] == "20261121T054300Z" and d["seconds"] == 42.902, (d["start"], d["seconds"])
assert d["threads"] == {"allocating": 18, "at_exit": 2}
assert d["merged"] == [
    {"pid": 48211, "rank": "0", "host": "node017", "program": "solver", "hash": "3f1c9a0b7e2d4c51",
     "ended_by": None, "forked_from": None},
    {"pid": 48212, "rank": "1", "host": "node018", "program": "solver", "hash": "3f1c9a0b7e2d4c51",
     "ended_by": "SEGV", "forked_from": None}]
assert d["ended_by"] is None  # the two ended differently
assert (nodes["dram"]["allocations"], nodes["dram"]["frees"]) == (2411593, 2410750)
assert (nodes["hbw"]["allocations"], nodes["hbw"]["frees"]) == (829, 807)
assert nodes["hbw"]["limit"] == 67108864
assert nodes["hbw"]["peak"] == 133169152 and nodes["hbw"]["in_use"] == 116038420
assert (nodes["hbw"]["fallbacks_out"], nodes["dram"]["fallbacks_in"]) == (78, 78)
assert nodes["gpu"]["skipped"] == 48 and nodes["gpu"]["available"] is False
assert nodes["gpu"]["unavailable"] == "no CUDA support in this build of libplace"
rules = {r["name"]: r for r in d["rules"]}
assert (rules["big"]["hits"], rules["big"]["bytes"]) == (905, 2367160320)
assert rules["staging"]["hits"] == 48
top = d["sites"]["top"]
assert [s["bytes"] for s in top] == sorted((s["bytes"] for s in top), reverse=True)
site = {s["site"]: s for s in top}["solver+0x4a3f0"]
assert (site["allocations"], site["fallbacks"]) == (600, 51)
assert site["tiers"] == {"hbw": {"allocations": 549, "bytes": 1727004672},
                         "dram": {"allocations": 51, "bytes": 160432128}}
assert len(top) == 6 and d["sites"]["total"] == 25
' merged.json
    # and in general: every counter is the sum of the inputs; each timeline ends at the
    # summed in_use (a step function holds its last value)
    with_json '
for name in ("dram", "hbw", "gpu"):
    m, a, b = ([n for n in x["nodes"] if n["name"] == name][0] for x in (d, d2, d3))
    for k in ("allocations", "frees", "refused", "fallbacks_out", "fallbacks_in", "waits",
              "overflows", "overflow_peak", "failures", "reclaimed_bytes", "skipped", "in_use", "peak"):
        assert m[k] == a[k] + b[k], (name, k)
    if m["timeline"]:
        assert m["timeline"][-1][1] == m["in_use"], name
        assert [t for t, _ in m["timeline"]] == sorted(t for t, _ in m["timeline"])
' merged.json "$DATA/rank0.json" "$DATA/rank1.json"
    # -o writes the same report to a file
    run "$PLACE_REPORT" merge -o out.json "$DATA/rank0.json" "$DATA/rank1.json"
    assert_success
    assert_output ""
    cmp out.json merged.json
}

@test "merge refuses reports of different policies (exit 2); --force merges them" {
    run --separate-stderr "$PLACE_REPORT" merge "$DATA/rank0.json" "$DATA/other.json"
    assert_equal "$status" 2
    assert_output ""
    [[ $stderr == "place-report: the reports come from different policies ("*"3f1c9a0b7e2d4c51"*"a81d44c09b3e7f12"*"--force"* ]]
    [[ $stderr == *"$DATA/other.json"* ]]
    run --separate-stderr "$PLACE_REPORT" merge --force "$DATA/rank0.json" "$DATA/other.json"
    assert_success
    [[ $stderr == "place-report: warning: merging reports of different policies"* ]]
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/forced.json"
    run valid_report "$BATS_TEST_TMPDIR/forced.json"
    assert_success
    # a merged report merges again: its processes are listed, not the merged report
    run --separate-stderr "$PLACE_REPORT" merge --force "$BATS_TEST_TMPDIR/forced.json" "$DATA/rank1.json"
    assert_success
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/again.json"
    with_json 'assert [e["pid"] for e in d["merged"]] == [48211, 51877, 48212], d["merged"]' \
        "$BATS_TEST_TMPDIR/again.json"
}

@test "merge keeps timelines to 512 points without losing their peaks" {
    cd "$BATS_TEST_TMPDIR"
    # four ranks with 512 points each; rank 2 has one spike
    with_json '
import random
rng = random.Random(7)
for k in range(4):
    tl, t = [], 0.0
    for i in range(512):
        t += rng.uniform(0.01, 0.08)
        tl.append([round(t, 3), rng.randint(0, 1 << 20) + (1 << 30 if (k, i) == (2, 300) else 0)])
    d["nodes"][0]["timeline"] = tl
    d["nodes"][0]["in_use"] = tl[-1][1]
    d["pid"], d["rank"] = 100 + k, str(k)
    json.dump(d, open(f"r{k}.json", "w"))' "$DATA/rank0.json"
    run --separate-stderr "$PLACE_REPORT" merge r0.json r1.json r2.json r3.json
    assert_success
    printf '%s\n' "$output" >merged.json
    run valid_report merged.json
    assert_success
    with_json '
tl = d["nodes"][0]["timeline"]
assert 256 < len(tl) <= 512, len(tl)
assert max(v for _, v in tl) >= 1 << 30
assert tl[-1][1] == d["nodes"][0]["in_use"]' merged.json
}

# -- compare -----------------------------------------------------------------------------

@test "compare: both runs' figures, differences and ratios; changes over 10% marked" {
    run --separate-stderr "$PLACE_REPORT" compare "$DATA/rank0.json" "$DATA/other.json"
    assert_success
    assert_equal "$stderr" ""
    assert_line "A  $DATA/rank0.json: solver, pid 48211 on node017, rank 0, started 2026-11-21 05:43:00 UTC"
    assert_line "B  $DATA/other.json: solver, pid 51877 on node017, rank 0, started 2026-11-22 09:15:12 UTC"
    assert_line "the policies differ: hash 3f1c9a0b7e2d4c51 (A), a81d44c09b3e7f12 (B)"
    assert_line --regexp '^wall seconds +42\.72 +38\.16 +-4\.55 +0\.89x +\*$'
    assert_line "node hbw (hbw)"
    assert_line --regexp '^  limit +64\.0 MiB +128\.0 MiB +\+64\.0 MiB +2\.00x +\*$'
    assert_line --regexp '^  peak +63\.5 MiB +127\.5 MiB +\+64\.0 MiB +2\.01x +\*$'
    assert_line --regexp '^  fallbacks out +37 +0 +-37 +0\.00x +\*$'
    assert_line --regexp '^  allocations +414 +416 +\+2 +1\.00x$'
    assert_line --regexp '^  allocations +1205308 +1207262 +\+1954 +1\.00x$'
    assert_line "rule big (to hbw, dram)"
    assert_line --regexp '^  hits +450 +415 +-35 +0\.92x$'
    assert_line --regexp '^  bytes asked +96\.0 MiB +96\.0 MiB +0 B +1\.00x$'
}

@test "compare: a node or rule only one run has is marked as such" {
    run --separate-stderr "$PLACE_REPORT" compare "$DATA/forked.json" "$DATA/rank0.json"
    assert_success
    assert_line "node gpu (device) (only in B)"
    assert_line --regexp '^  skipped +- +24 +- +- +\*$'
    assert_line "rule rule1 (to hbw, dram) (only in A)"
}

# -- plot --------------------------------------------------------------------------------

@test "plot: an SVG that is well-formed XML, one line per node, the names, the limit dashed" {
    cd "$BATS_TEST_TMPDIR"
    run --separate-stderr "$PLACE_REPORT" plot "$DATA/rank0.json" -o chart.svg
    assert_success
    assert_output ""
    assert_equal "$stderr" ""
    "$PY" -c '
import sys, xml.etree.ElementTree as ET
ns = {"svg": "http://www.w3.org/2000/svg"}
root = ET.parse("chart.svg").getroot()
paths = root.findall(".//svg:path[@class=\"series\"]", ns)
assert [p.get("data-node") for p in paths] == ["dram", "hbw", "gpu"], paths
texts = " ".join("".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text"))
for word in ("dram (dram)", "hbw (hbw)", "gpu (device)", "hbw limit 64 MiB", "10 s", "1 GiB",
             "solver, pid 48211 on node017, rank 0"):
    assert word in texts, word
# only hbw has a limit: one dashed line, in the colour of the hbw line
limits = root.findall(".//svg:line[@class=\"limit\"]", ns)
assert len(limits) == 1 and limits[0].get("stroke-dasharray")
assert limits[0].get("stroke") == paths[1].get("stroke") != paths[0].get("stroke")'
    # a title of the caller's, with characters XML must escape
    run "$PLACE_REPORT" plot "$DATA/forked.json" -o t.svg --title 'dry run: <python3> & "numpy"'
    assert_success
    "$PY" -c '
import xml.etree.ElementTree as ET
root = ET.parse("t.svg").getroot()
assert any("".join(t.itertext()) == "dry run: <python3> & \"numpy\"" for t in root.iter("{http://www.w3.org/2000/svg}text"))'
}

@test "plot: a PNG through rsvg-convert; without it, a clear error and exit 1" {
    command -v rsvg-convert >/dev/null || fail "no rsvg-convert (librsvg2-bin; scripts/setup installs it)"
    cd "$BATS_TEST_TMPDIR"
    run --separate-stderr "$PLACE_REPORT" plot "$DATA/rank0.json" -o chart.png
    assert_success
    assert_equal "$("$PY" -c 'print(open("chart.png", "rb").read(8) == b"\x89PNG\r\n\x1a\n")')" True
    mkdir empty
    run --separate-stderr env PATH="$BATS_TEST_TMPDIR/empty" "$PLACE_REPORT" plot "$DATA/rank0.json" -o none.png
    assert_equal "$status" 1
    [[ $stderr == "place-report: rsvg-convert not found"*"librsvg2-bin"* ]]
    [ ! -e none.png ]
}

# -- bad input and usage -----------------------------------------------------------------

@test "input that is not a libplace report: exit 2, a message naming the file, no traceback" {
    cd "$BATS_TEST_TMPDIR"
    echo 'not json' >text.json
    echo '{"schema": "something-else", "version": 1}' >schema.json
    echo '{"schema": "libplace-report", "version": 3}' >version.json
    with_json 'del d["nodes"][1]["peak"]; json.dump(d, open("nopeak.json", "w"))' "$DATA/rank0.json"
    for bad in text.json schema.json version.json nopeak.json missing.json; do
        for command in render "plot -o x.svg" "compare $DATA/rank0.json" "merge $DATA/rank0.json"; do
            run --separate-stderr "$PLACE_REPORT" $command "$bad"
            assert_equal "$status" 2
            assert_output ""
            [[ $stderr == "place-report: $bad: "* ]]
            [[ $stderr != *Traceback* ]]
        done
    done
    run --separate-stderr "$PLACE_REPORT" render text.json
    assert_equal "$stderr" "place-report: text.json: not JSON: Expecting value at line 1 column 1"
    run --separate-stderr "$PLACE_REPORT" render schema.json
    assert_equal "$stderr" 'place-report: schema.json: not a libplace report (expected "schema": "libplace-report")'
    run --separate-stderr "$PLACE_REPORT" render version.json
    assert_equal "$stderr" "place-report: version.json: a libplace report of version 3; place-report reads version 2"
    run --separate-stderr "$PLACE_REPORT" render nopeak.json
    assert_equal "$stderr" "place-report: nopeak.json: not a valid libplace report: nodes[1]: no 'peak'"
    run --separate-stderr "$PLACE_REPORT" render missing.json
    assert_equal "$stderr" "place-report: missing.json: cannot read: No such file or directory"
    run --separate-stderr "$PLACE_REPORT" render - <text.json
    assert_equal "$status" 2
    assert_equal "$stderr" "place-report: <stdin>: not JSON: Expecting value at line 1 column 1"
}

# Writes the hostile inputs of the next test into the current directory, each made from
# rank0.json by one change (or none of it): NAME.json, and NAME.why, the part of the
# message that names the field (or what is wrong with the file).
make_hostile_reports() {
    "$PY" - "$DATA/rank0.json" <<'PY'
import copy, json, sys
base = json.load(open(sys.argv[1]))

def report(name, why, change=None, text=None):
    if text is None:
        doc = copy.deepcopy(base)
        change(doc)
        text = json.dumps(doc).encode()
    open(name + ".json", "wb").write(text)
    open(name + ".why", "w").write(why)

def setter(path, value):
    def change(doc):
        for key in path[:-1]:
            doc = doc[key]
        doc[path[-1]] = value
    return change

def delete(path):
    def change(doc):
        for key in path[:-1]:
            doc = doc[key]
        del doc[path[-1]]
    return change

report("missing-key", "nodes[2]: no 'peak'", delete(["nodes", 2, "peak"]))
report("missing-top", "the report: no 'sites'", delete(["sites"]))
report("string-number", 'nodes[2].peak: expected a signed 64-bit integer, got the string "12"',
       setter(["nodes", 2, "peak"], "12"))
report("bool-number", "rules[0].hits: expected an unsigned 64-bit integer, got true",
       setter(["rules", 0, "hits"], True))
report("digits-400", "nodes[0].allocations: expected an unsigned 64-bit integer, got an integer of 400 digits",
       setter(["nodes", 0, "allocations"], int("9" * 400)))
report("digits-400-seconds", "seconds: expected a number of seconds from 0 to 9.223e+09, got an integer of 400 digits",
       setter(["seconds"], int("9" * 400)))
report("counter-past-64-bits", "sites.top[0].bytes: expected an unsigned 64-bit integer, got 18446744073709551616",
       setter(["sites", "top", 0, "bytes"], 1 << 64))
report("negative-count", "threads.at_exit: expected an unsigned 64-bit integer, got -1",
       setter(["threads", "at_exit"], -1))
# JSON's 1e400 is read as infinity
report("infinite", "nodes[0].wait_seconds: expected a number of seconds from 0 to 9.223e+09, got a number out of range",
       text=json.dumps(base).replace('"wait_seconds": 0.0', '"wait_seconds": 1e400', 2).encode())
report("digits-5000", "a number of more than 4300 digits",
       text=json.dumps(base).replace('"pid": 48211', '"pid": ' + "1" * 5000).encode())
report("list-for-object", "threads: expected an object, got an array", setter(["threads"], [9, 1]))
report("object-for-list", "nodes: expected an array, got an object", setter(["nodes"], {"dram": {}}))
report("node-not-object", "nodes[1]: expected an object, got an array", setter(["nodes", 1], []))
report("timeline-point", "nodes[0].timeline[3]: expected [seconds, bytes], got an array",
       setter(["nodes", 0, "timeline", 3], [1.0]))
report("timeline-bytes", "nodes[0].timeline[0][1]: expected a signed 64-bit integer, got null",
       setter(["nodes", 0, "timeline", 0, 1], None))
report("verified-part", "nodes[1].verified: no 'placed'", delete(["nodes", 1, "verified", "placed"]))
report("verified-type", 'nodes[1].verified.looked: expected an unsigned 64-bit integer, got the string "1024"',
       setter(["nodes", 1, "verified", "looked"], "1024"))
report("verified-node", 'nodes[1].verified.by_node.hbw: expected a node number as the key',
       setter(["nodes", 1, "verified", "by_node"], {"hbw": 1000}))
report("verified-node-pages", 'nodes[1].verified.by_node.1: expected an unsigned 64-bit integer, got -3',
       setter(["nodes", 1, "verified", "by_node"], {"1": -3}))
report("reclaim-list", "nodes[1].reclaim_min: expected an integer from 0 to 100, got an array",
       setter(["nodes", 1, "reclaim_min"], [10]))
report("merged-entry", "merged[0].host: expected a string, got an object",
       setter(["merged"], [{"pid": 1, "host": {"name": "x"}}]))
report("chain-entry", "rules[1].chain[0]: expected a string, got 7", setter(["rules", 1, "chain"], [7]))
report("tier-figures", 'sites.top[0].tiers["a\\nb"]: expected an object, got 1',
       setter(["sites", "top", 0, "tiers"], {"a\nb": 1}))
# the access profile: its state, and a site's figures
profile = {"sample": "all", "lost": 0, "total": 1, "top": []}
report("access-state", 'profile.access.state: expected "on" or "unavailable: WHY", got the string "off"',
       setter(["profile"], dict(profile, access={"state": "off"})))
report("access-part", "profile.access: no 'interval_mean_ms'",
       setter(["profile"], dict(profile, access={"state": "on", "min": 1, "interval_ms": 100})))
site = {"frames": [], "samples": 1, "calls": 1, "bytes": 1, "live": 0, "peak": 1, "mean_size": 1,
        "tiers": {}, "access": {"blocks": 1, "first_ms": 0, "last_ms": None, "peak": 1, "live_mean": 1, "touched_mean": 1, "touched_peak": 1,
                                "touched_share": 1.5, "written_share": None, "heat": 1}}
report("access-share", "profile.top[0].access.touched_share: expected a number from 0 to 1, got 1.5",
       setter(["profile"], dict(profile, top=[site])))
report("lone-surrogate", 'program: expected a string, got a string that is not valid Unicode ("\\ud800x")',
       text=json.dumps(base).replace('"program": "solver"', '"program": "\\ud800x"').encode())
report("no-nodes", "nodes: empty", setter(["nodes"], []))
report("bad-start", "start: expected a UTC time like 20261121T054300Z, got the string \"20261399T999999Z\"",
       setter(["start"], "20261399T999999Z"))
report("invalid-utf8", "not JSON (not UTF-8 text)",
       text=json.dumps(base).replace("node017", "node\udcff").encode("utf-8", "surrogateescape"))
report("truncated", "not JSON: it ends before its JSON does", text=json.dumps(base, indent=1).encode()[:3000])
report("garbage", "not JSON: Expecting value", text=b"\x7fELF\x02\x01\x01")
report("empty", "empty, not a libplace report", text=b"")
report("blank", "empty, not a libplace report", text=b" \n\t\n")
report("not-a-report", 'not a libplace report (expected "schema": "libplace-report")', text=b'{"nodes": []}')
report("a-list", 'not a libplace report (expected "schema": "libplace-report")', text=b"[1, 2, 3]")
report("version-huge", "a libplace report of version an integer of 400 digits",
       text=b'{"schema": "libplace-report", "version": ' + b"7" * 400 + b"}")
PY
    mkdir directory.json
    echo "cannot read: Is a directory" >directory.why
}

@test "hostile input: every subcommand says what is wrong in one line naming the file and the field, exit 2, no traceback" {
    cd "$BATS_TEST_TMPDIR"
    make_hostile_reports
    good=$DATA/rank0.json
    [ "$(ls ./*.why | wc -l)" -ge 30 ]
    for why in *.why; do
        bad=${why%.why}.json
        expected=$(cat "$why")
        # the file first and second, alone and with a good report; plot both ways
        for command in "render" "render --no-lines" "plot -o x.svg" "plot -o x.png" "merge" \
            "merge --force $good" "merge -o m.json" "compare $good" "compare" \
            "advise --fit hbw=1G -o p.ini" "advise --check"; do
            if [ "$command" = compare ]; then
                args=(compare "$bad" "$good")
            elif [ "$command" = "merge --force $good" ]; then
                args=(merge --force "$good" "$bad")
            else
                # shellcheck disable=SC2206
                args=($command "$bad")
            fi
            run --separate-stderr "$PLACE_REPORT" "${args[@]}"
            [ "$status" -eq 2 ] && [ "${#stderr_lines[@]}" -eq 1 ] &&
                [[ $stderr == "place-report: $bad: "*"$expected"* ]] &&
                [[ $stderr$output != *Traceback* ]] && [ -z "$output" ] || {
                echo "place-report ${args[*]}: status $status"
                echo "stderr: $stderr"
                echo "expected: place-report: $bad: ...$expected..."
                return 1
            }
        done
        [ ! -e m.json ]
        [ ! -e x.svg ]
        [ ! -e p.ini ]
    done
    # standard input too
    run --separate-stderr "$PLACE_REPORT" render - <truncated.json
    assert_equal "$status" 2
    [[ $stderr == "place-report: <stdin>: not JSON: it ends before its JSON does, at line "*" (a truncated file?)" ]]
    # a file name that holds a newline is still one line
    cp digits-400.json $'two\nlines.json'
    run --separate-stderr "$PLACE_REPORT" render $'two\nlines.json'
    assert_equal "$status" 2
    assert_equal "$stderr" "place-report: two\\nlines.json: not a valid libplace report: $(cat digits-400.why)"
}

@test "hostile input: a device that never ends, standard input or output closed, a full disk" {
    cd "$BATS_TEST_TMPDIR"
    run --separate-stderr "$PLACE_REPORT" render /dev/zero
    assert_equal "$status" 2
    assert_equal "$stderr" "place-report: /dev/zero: not a libplace report: larger than 64 MiB"
    run --separate-stderr bash -c "'$PLACE_REPORT' render - <&-"
    assert_equal "$status" 2
    assert_equal "$stderr" "place-report: <stdin>: cannot read: standard input is closed"
    for command in "render" "merge" "compare $DATA/rank0.json"; do
        # shellcheck disable=SC2086
        run --separate-stderr bash -c "'$PLACE_REPORT' $command '$DATA/rank1.json' >&-"
        assert_equal "$status" 1
        assert_equal "$stderr" "place-report: <stdout>: cannot write: standard output is closed"
        if [ -w /dev/full ]; then
            # shellcheck disable=SC2086
            run --separate-stderr bash -c "'$PLACE_REPORT' $command '$DATA/rank1.json' >/dev/full"
            assert_equal "$status" 1
            assert_equal "$stderr" "place-report: <stdout>: cannot write: No space left on device"
        fi
    done
}

@test "valid but odd reports: no nodes' timelines, no sites or rules, zero and tiny times, extreme counters, odd names" {
    cd "$BATS_TEST_TMPDIR"
    "$PY" - "$DATA/rank0.json" <<'PY'
import copy, json, sys
base = json.load(open(sys.argv[1]))

def write(name, doc):
    json.dump(doc, open(name + ".json", "w"))

d = copy.deepcopy(base)
for n in d["nodes"]:
    n["timeline"] = []
write("no-timelines", d)
d = copy.deepcopy(base)
d["rules"], d["sites"] = [], {"total": 0, "top": []}
write("no-sites", d)
d = copy.deepcopy(base)
d["nodes"] = d["nodes"][:1]
write("dram-only", d)
for name, seconds in (("zero-seconds", 0), ("tiny-seconds", 5e-324)):
    d = copy.deepcopy(base)
    d["seconds"] = seconds
    for n in d["nodes"]:
        n["timeline"] = [[0, 0]] if seconds == 0 else []
    write(name, d)
d = copy.deepcopy(base)
d["seconds"] = 9.2e9
for n in d["nodes"]:
    for k in ("allocations", "frees", "refused", "limit", "waits"):
        n[k] = (1 << 64) - 1
    n["in_use"], n["peak"] = -(1 << 63), (1 << 63) - 1
    n["timeline"] = [[0, (1 << 63) - 1], [9.2e9, -(1 << 63)]]
d["rules"][0]["hits"] = (1 << 64) - 1
write("extremes", d)
d = copy.deepcopy(base)
d["program"], d["host"], d["rank"] = "a\x01<b>&\x7f", "h\u00e9\u65e5\nx", "\t"
d["nodes"][1]["name"] = "hbw\x02\"'"
d["sites"]["top"][0]["tiers"] = {"": {"allocations": 0, "bytes": 0}}
d["sites"]["top"][0]["module"] = "/dev/null\u0000x"
d["merged"] = []
write("odd-names", d)
PY
    for f in no-timelines no-sites dram-only zero-seconds tiny-seconds extremes odd-names; do
        for args in "render $f.json" "render --no-lines $f.json" "plot $f.json -o $f.svg" \
            "merge $f.json $f.json" "compare $f.json $DATA/rank0.json" "compare $DATA/rank0.json $f.json"; do
            # shellcheck disable=SC2086
            run --separate-stderr "$PLACE_REPORT" $args
            [ "$status" -eq 0 ] && [ -z "$stderr" ] || {
                echo "place-report $args: status $status: $stderr"
                return 1
            }
        done
        "$PY" -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' "$f.svg"
        "$PLACE_REPORT" merge "$f.json" -o "merged-$f.json"
        # a merge of one report is that report, valid as it was
        valid_report "$f.json" "merged-$f.json"
    done
}

@test "usage errors exit 2 with a place-report: message; --help exits 0" {
    for args in "" "frobnicate" "render" "render a.json b.json" "render --bogus $DATA/rank0.json" \
        "merge" "compare $DATA/rank0.json" "plot $DATA/rank0.json" \
        "plot $DATA/rank0.json -o chart.gif" "merge - -"; do
        run --separate-stderr "$PLACE_REPORT" $args
        assert_equal "$status" 2
        assert_output ""
        [[ $stderr == "place-report: "* ]]
    done
    for args in "--help" "-h" "render --help" "merge -h" "compare --help" "plot --help"; do
        run --separate-stderr "$PLACE_REPORT" $args
        assert_success
        [[ $output == "usage: place-report"* ]]
    done
}
