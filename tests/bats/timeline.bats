#!/usr/bin/env bats
# The timeline keeps bursts: every change while the table has room, and past that each
# point's band, the least and most in use since the point before; place-report plot draws it.

load helpers

# Runs bursts with arguments $@ under a JSON report at $BATS_TEST_TMPDIR/report.json.
bursts() {
    rm -f "$BATS_TEST_TMPDIR/report.json"
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/report.json" LIBPLACE_REPORT_FORMAT=json \
        "$PROGS/bursts" "$@"
    assert_success
    valid_report "$BATS_TEST_TMPDIR/report.json"
}

@test "40 bursts of 64 MiB, 1 ms each in 11 ms: the timeline shows 40 bursts, and nothing held between" {
    bursts 40 1000 10000
    /usr/bin/python3 -c '
import json, sys
dram = json.load(open(sys.argv[1]))["nodes"][0]
big = 64 << 20
held = [b >= big for _, b in dram["timeline"]]
runs = sum(1 for k, h in enumerate(held) if h and (k == 0 or not held[k - 1]))
assert runs == 40, (runs, dram["timeline"])
assert min(b for _, b in dram["timeline"][1:]) < big // 64  # freed between bursts
assert len(dram["band"]) == len(dram["timeline"])
assert all(lo <= b <= hi for (lo, hi), (_, b) in zip(dram["band"], dram["timeline"]))' \
        "$BATS_TEST_TMPDIR/report.json"
}

@test "3000 bursts, more than the table holds: the bands keep every burst the points miss; the plot draws them" {
    bursts 3000 0 300
    /usr/bin/python3 -c '
import json, sys
dram = json.load(open(sys.argv[1]))["nodes"][0]
big = 64 << 20
tl, band = dram["timeline"], dram["band"]
assert len(tl) <= 512 and len(band) == len(tl)
# a point taken as a burst ends shows none; the band of every point but the first and
# the last (after the last burst) holds one
missed = sum(1 for (_, b), (lo, hi) in zip(tl[1:], band[1:]) if b < big and hi >= big)
assert missed > len(tl) // 4, (missed, len(tl))
assert all(hi >= big for _, hi in band[2:-1]), band' "$BATS_TEST_TMPDIR/report.json"
    cd "$BATS_TEST_TMPDIR"
    run "$REPO/scripts/place-report" plot report.json -o plot.svg
    assert_success
    /usr/bin/python3 -c '
import sys, xml.etree.ElementTree as ET
svg = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
bands = [g for g in svg.iter(ns + "g") if g.get("class") == "band" and g.get("data-node") == "dram"]
assert len(bands) == 1 and len(list(bands[0])) > 100, [len(list(g)) for g in bands]' plot.svg
}

@test "a placed tier's timeline shows its bursts too, whatever kind serves them: dram, hbw, numa, pinned, managed; the plot draws them" {
    FAKE=$BUILD/tests/fakecuda
    for kind in dram hbw numa pinned managed; do
        case $kind in
        numa) extra="nodes = 0" ;;
        pinned | managed)
            [ -x "$FAKE/cuda_linked" ] || { echo "# no fake CUDA driver: $kind skipped" >&3; continue; }
            extra="" ;;
        *) extra="" ;;
        esac
        policy "$BATS_TEST_TMPDIR/p.ini" "[tier a]" "kind = $kind" ${extra:+"$extra"} "[rule big]" "size = 1M.." "to = a"
        rm -f "$BATS_TEST_TMPDIR/report.json"
        run env LD_PRELOAD="$LIB" LD_LIBRARY_PATH="$FAKE" MEMKIND_HBW_NODES=0 \
            LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/report.json" \
            LIBPLACE_REPORT_FORMAT=json "$PROGS/bursts" 40 1000 10000
        assert_success
        valid_report "$BATS_TEST_TMPDIR/report.json"
        /usr/bin/python3 -c '
import json, sys
a = next(n for n in json.load(open(sys.argv[1]))["nodes"] if n["name"] == "a")
big = 64 << 20
assert a["allocations"] == 40 and a["peak"] >= big, (sys.argv[2], a["allocations"], a["peak"])
held = [b >= big for _, b in a["timeline"]]
runs = sum(1 for k, h in enumerate(held) if h and (k == 0 or not held[k - 1]))
assert runs == 40, (sys.argv[2], runs, a["timeline"])
assert len(a["band"]) == len(a["timeline"])
assert all(lo <= b <= hi for (lo, hi), (_, b) in zip(a["band"], a["timeline"]))' \
            "$BATS_TEST_TMPDIR/report.json" "$kind"
        (cd "$BATS_TEST_TMPDIR" && "$REPO/scripts/place-report" plot report.json -o plot.svg)
        /usr/bin/python3 -c '
import re, sys, xml.etree.ElementTree as ET
svg = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
path = next(p for p in svg.iter(ns + "path") if p.get("data-node") == "a")
ys = [float(y) for y in re.findall(r"V([0-9.]+)", path.get("d"))]
assert len(ys) >= 80 and len(set(ys)) >= 2, (sys.argv[2], path.get("d")[:200])' \
            "$BATS_TEST_TMPDIR/plot.svg" "$kind"
    done
}
