#!/usr/bin/env bats
# place-report advise: a policy that puts the sites hottest per byte into the fast tiers,
# from the fixtures' access profiles (tests/data/reports/hotcold-*.json: two ranks of a run
# whose hot sites are compute_flux's and make_array's called by setup_field, and whose
# cold ones read_mesh, alloc_checkpoint and make_array's called by setup_halo); advice by
# bytes without an access profile; --check of a dry run's report; bad input.
#
# It needs no build of libplace, so it does not load helpers (whose setup_file wants one);
# the tests that run libplace's check, or a program under the advice, skip without one.

REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
PLACE_REPORT=$REPO/scripts/place-report
PLACERUN=$REPO/scripts/placerun
DATA=$REPO/tests/data/reports
HOT=$DATA/hotcold-access.json
RANK1=$DATA/hotcold-rank1.json
BUILD=${BUILD_DIR:-$REPO/build}

bats_require_minimum_version 1.5.0

load /usr/lib/bats/bats-support/load
load /usr/lib/bats/bats-assert/load
load json

setup() {
    cd "$BATS_TEST_TMPDIR"
    # libplace's check is asked only where a test says so
    export LIBPLACE_LIB=$BATS_TEST_TMPDIR/no-libplace.so
}

# Where the policy $1 sends each site of the reports after it, as libplace's rules would
# (the first rule whose size window holds the site's blocks and whose patterns match one
# of its first `depth` frames, by fnmatch as libplace's globs), one line a site:
# "FUNCTION<CALLER TIER". Then, per report and tier with a limit, "room TIER BYTES LIMIT":
# the rooms (peaks in whole pages) of the sites the tier takes, and its limit in bytes.
placed() {
    /usr/bin/python3 - "$@" <<'PY'
import configparser, fnmatch, json, re, sys

UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
def size(text):
    m = re.fullmatch(r"([0-9]+)([KMGT]?)", text.strip())
    return int(m.group(1)) * UNITS[m.group(2)]

ini = configparser.ConfigParser(delimiters=("=",), inline_comment_prefixes=(";",),
                                interpolation=None, default_section="\0")
ini.read(sys.argv[1])
rules, limits = [], {}
for name in ini.sections():
    keys = ini[name]
    if name.startswith("rule "):
        low = keys.get("size", "..").split("..")[0]
        rules.append(([p.strip() for p in keys.get("site", "*").split("|")],
                      int(keys.get("depth", "4")), size(low) if low else 0,
                      keys["to"].split(",")[0].strip()))
    elif name.startswith("tier ") and "limit" in keys:
        limits[name[5:]] = size(keys["limit"])

def function(frame):
    return frame["symbol"] and re.sub(r"\+0x[0-9a-f]+$", "", frame["symbol"].split("!")[-1])

def matches(pattern, frame):
    module = frame["site"].split("+0x")[0]
    if "+0x" in pattern and not re.search(r"[*?\[:]", pattern):
        return pattern == frame["site"]
    mglob, _, fglob = pattern.rpartition(":")
    return (function(frame) is not None and fnmatch.fnmatchcase(module, mglob or "*")
            and fnmatch.fnmatchcase(function(frame), fglob))

def tier(site):
    for patterns, depth, low, to in rules:
        if site["mean_size"] >= low and any(matches(p, f) for p in patterns
                                            for f in site["frames"][:depth]):
            return to
    return "dram"

def rows(doc):
    profile = doc["profile"]
    found = {tuple(f["site"] for f in s["frames"]): s for s in profile["top"]}
    for s in profile.get("access", {}).get("hottest", []):
        found.setdefault(tuple(f["site"] for f in s["frames"]), s)
    return [s for s in found.values() if s["frames"]]

seen = {}
for path in sys.argv[2:]:
    rooms = {}
    for s in rows(json.load(open(path))):
        t = tier(s)
        rooms[t] = rooms.get(t, 0) + -(-s["peak"] // 4096) * 4096
        seen["<".join(function(f) or f["site"] for f in s["frames"][:2])] = t
    for t, limit in limits.items():
        print("room", t, rooms.get(t, 0), limit)
for name, t in sorted(seen.items()):
    print(name, t)
PY
}

# -- advice by accesses ----------------------------------------------------------------------

@test "advise --fit hbw=100M: the two hot sites, 96 MiB, and rules that take them and no cold one" {
    run --separate-stderr "$PLACE_REPORT" advise "$HOT" --fit hbw=100M -o hbw.ini
    assert_success
    assert_equal "$stderr" ""
    assert_line "advice for solver from $HOT"
    assert_line --regexp '^solver!compute_flux\+0x5e < solver!timestep\+0x88 +64\.0 MiB +64\.0 MiB +63\.0 MiB +0\.984 +hbw +hottest per byte that fits$'
    assert_line --regexp '^solver!make_array\+0x1c < solver!setup_field\+0x40 +32\.0 MiB +32\.0 MiB +31\.0 MiB +0\.969 +hbw +hottest per byte that fits$'
    assert_line --regexp '^solver!make_array\+0x1c < solver!setup_halo\+0x22 .* dram +no room left in hbw \(needs 16\.0 MiB, 4\.0 MiB free while it is live\)$'
    assert_line --regexp '^solver!read_mesh\+0x77 < solver!main\+0x1d0 .* dram +no room left in hbw \(needs 128\.0 MiB, 4\.0 MiB free while it is live\)$'
    assert_line --regexp '^solver!alloc_checkpoint\+0x31 .* dram +never touched$'
    assert_line --regexp '^solver!parse_input\+0x12 .* - +- +dram +no access figures \(blocks under 1\.0 MiB are not tracked\)$'
    assert_line "hbw: 2 sites, 96.0 MiB of 100.0 MiB"
    # the size rule fills hbw with alloc_checkpoint's and setup_halo's big cold blocks
    assert_line "the fast tiers would serve 98.4% of the bytes touched per interval (95.5 MiB); a size rule of the same capacity (first come, first served) would serve 0.2%"
    assert_line "  placerun -p hbw.ini --dry-run=fold -r check.json -- solver ARGS..."
    assert_line "  place-report advise --check check.json"
    # the policy: the tier, and the shared first frame told apart by its caller at depth 2
    run grep -v '^#' hbw.ini
    assert_output "
[libplace]

[tier hbw]
kind = hbw
limit = 100M

[rule hbw-depth1]
site = solver:compute_flux
depth = 1
size = 1M..
to = hbw, dram

[rule hbw-depth2]
site = solver:setup_field
depth = 2
size = 1M..
to = hbw, dram"
    run grep -c '^#   solver!' hbw.ini
    assert_output 2
    grep -qx "#   place-report advise $HOT --fit hbw=100M -o hbw.ini" hbw.ini
    run placed hbw.ini "$HOT"
    assert_output "room hbw 100663296 104857600
alloc_checkpoint<main dram
compute_flux<timestep hbw
libgfortran.so.5+0x1f2a0<write_output dram
make_array<setup_field hbw
make_array<setup_halo dram
parse_input<main dram
read_mesh<main dram"
}

@test "advise: the rooms in a tier never pass its capacity, whatever the capacity" {
    for fit in 4K 1M 16M 31M 32M 50M 96M 100M 112M 200M 239M 240M 400M 1G 1T; do
        run --separate-stderr "$PLACE_REPORT" advise "$HOT" --fit "hbw=$fit" -o hbw.ini
        assert_success
        run placed hbw.ini "$HOT"
        assert_success
        room=$(awk '$1 == "room" && $2 == "hbw" { print $3, $4 }' <<<"$output")
        [ -n "$room" ]
        read -r used limit <<<"$room"
        [ "$used" -le "$limit" ] || fail "hbw=$fit: $used bytes placed, over the limit $limit"
    done
    # nothing fits: no rule, every site in dram, and the table says why
    run --separate-stderr "$PLACE_REPORT" advise "$HOT" --fit hbw=1M -o hbw.ini
    assert_line "hbw: 0 sites, 0 B of 1.0 MiB"
    assert_line --regexp 'compute_flux.* dram +no room left in hbw \(needs 64\.0 MiB, 1\.0 MiB free while it is live\)$'
    run grep -c '^\[rule' hbw.ini
    assert_output 0
    # all of it: the two hot, then setup_halo's 16 MiB, then read_mesh's 128 MiB
    run --separate-stderr "$PLACE_REPORT" advise "$HOT" --fit hbw=1T -o hbw.ini
    assert_line "hbw: 4 sites, 240.0 MiB of 1.0 TiB"
    assert_line "the fast tiers would serve 100.0% of the bytes touched per interval (95.5 MiB); a size rule of the same capacity (first come, first served) would serve 100.0%"
}

@test "advise: tiers filled in the order given, each rule to its tier" {
    cat >cxl.ini <<'EOF'
[tier cxl]
kind = numa
nodes = 2-3
EOF
    run --separate-stderr "$PLACE_REPORT" advise "$HOT" --fit hbw=70M,cxl=40M --policy cxl.ini -o both.ini
    assert_success
    assert_line "fast tiers, filled in this order: hbw 70.0 MiB, cxl 40.0 MiB"
    assert_line --regexp 'compute_flux.* hbw +hottest per byte that fits$'
    assert_line --regexp 'setup_field.* cxl +hottest per byte that fits; no room left in hbw \(needs 32\.0 MiB, 6\.0 MiB free while it is live\)$'
    assert_line --regexp 'setup_halo.* dram +no room left in hbw \(needs 16\.0 MiB, 6\.0 MiB free while it is live\); no room left in cxl \(needs 16\.0 MiB, 8\.0 MiB free while it is live\)$'
    run placed both.ini "$HOT"
    assert_line "compute_flux<timestep hbw"
    assert_line "make_array<setup_field cxl"
    assert_line "make_array<setup_halo dram"
    # hbw's rule before cxl's
    run grep '^\[rule' both.ini
    assert_output "[rule hbw-depth1]
[rule cxl-depth2]"
}

@test "advise: two ranks merged by site; --ranks-per-node 2 halves each capacity" {
    run --separate-stderr "$PLACE_REPORT" advise "$HOT" "$RANK1" --fit hbw=200M --ranks-per-node 2 -o job.ini
    assert_success
    assert_line --partial "from 2 reports ($HOT, $RANK1), merged by site"
    assert_line "fast tiers per rank (capacity / 2 ranks per node), filled in this order: hbw 100.0 MiB"
    # bytes and bytes touched summed; room the most one rank held (rank 1's 33 MiB)
    assert_line --regexp '^solver!make_array\+0x1c < solver!setup_field\+0x40 +65\.0 MiB +33\.0 MiB +62\.5 MiB +1\.894 +hbw '
    assert_line "hbw: 2 sites, 97.0 MiB of 100.0 MiB"
    assert_line "  placerun -p job.ini --dry-run=fold -r 'check%r.json' -- solver ARGS..."
    grep -qx 'limit = 100M' job.ini
    grep -q '^# Limits are per process: each --fit capacity over 2 ranks per node' job.ini
    run placed job.ini "$HOT" "$RANK1"
    assert_line "room hbw 100663296 104857600"
    assert_line "room hbw 101711872 104857600"
    assert_line "make_array<setup_halo dram"
    # the whole 200M for each rank takes setup_halo's blocks too
    run --separate-stderr "$PLACE_REPORT" advise "$HOT" "$RANK1" --fit hbw=200M -o job.ini
    assert_line "hbw: 3 sites, 113.0 MiB of 200.0 MiB"
    # a merged report's peaks are sums: refused
    "$PLACE_REPORT" merge "$HOT" "$RANK1" -o merged.json
    run --separate-stderr "$PLACE_REPORT" advise merged.json --fit hbw=200M
    assert_failure 2
    assert_equal "$stderr" "place-report: merged.json: a merged report, whose peaks are sums over its processes; advise reads the ranks' own reports and finds each rank's room itself"
}

@test "advise: a site whose frames are all another's, cold, stays in dram; the rest are packed again" {
    # a hot site whose frames are the first two of setup_halo's: every pattern that names
    # it names the cold one too
    with_json '
hottest = d["profile"]["access"]["hottest"]
halo = next(s for s in hottest if "setup_halo" in s["frames"][1]["symbol"])
twin = json.loads(json.dumps(halo))
twin["frames"] = twin["frames"][:2]
twin.update(peak=8 << 20, bytes=8 << 20)
twin["access"].update(peak=8 << 20, touched_mean=8 << 20, heat=1.0)
hottest.insert(0, twin)
json.dump(d, open("twin.json", "w"))' "$HOT"
    # room for it and the other two hot ones, not for the cold one beside them
    run --separate-stderr "$PLACE_REPORT" advise twin.json --fit hbw=110M -o twin.ini
    assert_success
    assert_line --regexp '^solver!make_array\+0x1c < solver!setup_halo\+0x22 +8\.0 MiB .* dram +no site pattern tells it apart from the sites out of hbw$'
    run placed twin.ini twin.json
    assert_line "compute_flux<timestep hbw"
    assert_line "make_array<setup_field hbw"
    refute_line --regexp 'setup_halo hbw'
}

@test "advise: past libplace's 63 site patterns, the coldest sites stay in dram and say why" {
    with_json '
top = d["profile"]["access"]["hottest"]
one = top[0]
for k in range(70):
    s = json.loads(json.dumps(one))
    s["frames"] = [{"site": f"solver+0x{0x90000 + 16 * k:x}", "symbol": f"solver!kernel{k}+0x10"}]
    s.update(peak=1 << 20, bytes=1 << 20, calls=1, mean_size=1 << 20)
    s["access"].update(peak=1 << 20, touched_mean=(1 << 20) - 1000 * k)
    top.append(s)
json.dump(d, open("many.json", "w"))' "$HOT"
    run --separate-stderr "$PLACE_REPORT" advise many.json --fit hbw=1G -o many.ini
    assert_success
    # the hottest 63: 61 kernels, compute_flux's and setup_field's
    assert_line "hbw: 63 sites, 157.0 MiB of 1.0 GiB"
    # 70 kernels, the two hot sites and two cold ones that fit: 74, less 63
    assert_line "11 sites with room in the tiers left in dram: no room in the policy (libplace takes at most 63 site patterns in a policy)"
    patterns=$(grep '^site = ' many.ini | sed 's/^site = //' | tr '|' '\n' | wc -l)
    [ "$patterns" -eq 63 ]
    run ! grep -q '^site = .\{994\}' many.ini # every line within libplace's 1000 characters
}

# -- advice by bytes -------------------------------------------------------------------------

@test "advise: a report without an access profile gives advice by bytes allocated, and says so" {
    run --separate-stderr "$PLACE_REPORT" advise "$DATA/noaccess.json" --fit hbw=100M -o bytes.ini
    assert_success
    assert_line "no access profile: advice by bytes allocated, not by accesses (the run profiled no accesses); ranked by bytes allocated over room (peak, whole pages)"
    assert_line --regexp '^site < its caller +bytes +peak +heat +tier +why$'
    assert_line --regexp '^solver!exchange_buffers\+0x10 < solver!main\+0x200 +10\.0 GiB +8\.0 MiB +1280\.0 +hbw +most allocated per byte that fits$'
    assert_line --regexp '^solver!read_mesh\+0x77 .* dram +no room left in hbw \(needs 512\.0 MiB, 28\.0 MiB free while it is live\)$'
    assert_line --partial "of the bytes allocated (10.8 GiB)"
    grep -q '^# no access profile: advice by bytes allocated, not by accesses' bytes.ini
    run ! grep -q '^size' bytes.ini # no tracked blocks: no size window
    run placed bytes.ini "$DATA/noaccess.json"
    assert_line "exchange_buffers<main hbw"
    assert_line "compute_flux<timestep hbw"
    assert_line "read_mesh<main dram"
    # an access profile that could not run is no access profile either
    with_json '
d["profile"]["access"] = {"state": "unavailable: no /proc/self/clear_refs"}
json.dump(d, open("unavailable.json", "w"))' "$DATA/noaccess.json"
    run --separate-stderr "$PLACE_REPORT" advise unavailable.json --fit hbw=100M -o bytes.ini
    assert_success
    assert_line --partial "no access profile: advice by bytes allocated, not by accesses (access profiling was unavailable: no /proc/self/clear_refs)"
    # nor is one that tracked no block
    with_json '
d["profile"]["access"]["tracked"]["blocks"] = 0
d["profile"]["access"]["hottest"] = []
for s in d["profile"]["top"]:
    s.pop("access", None)
json.dump(d, open("untracked.json", "w"))' "$HOT"
    run --separate-stderr "$PLACE_REPORT" advise untracked.json --fit hbw=100M -o bytes.ini
    assert_line --partial "(no block of 1.0 MiB or more was tracked)"
}

# -- a base policy ---------------------------------------------------------------------------

@test "advise --policy: its [libplace], its numa tier with the --fit limit, its rules after the advised ones" {
    cat >base.ini <<'EOF'
; the CXL memory of this machine
[libplace]
report_depth = 6
wrappers = my_alloc*

[tier cxl]
kind = numa
nodes = 2-3   ; the CXL nodes
limit = 64G

[tier far]
kind = numa
nodes = 1

[rule staging]
size = 256M..
site = *stage* | libio.so*:*
to = far, dram
EOF
    run --separate-stderr "$PLACE_REPORT" advise "$HOT" --fit cxl=100M --policy base.ini -o cxl.ini
    assert_success
    run grep -v '^#' cxl.ini
    assert_output "
[libplace]
report_depth = 6
wrappers = my_alloc*

[tier cxl]
kind = numa
nodes = 2-3
limit = 100M

[tier far]
kind = numa
nodes = 1

[rule cxl-depth1]
site = solver:compute_flux
depth = 1
size = 1M..
to = cxl, dram

[rule cxl-depth2]
site = solver:setup_field
depth = 2
size = 1M..
to = cxl, dram

[rule staging]
size = 256M..
site = *stage* | libio.so*:*
to = far, dram"
    grep -q "^# Its \[libplace\], its tiers and its rules are base.ini's" cxl.ini
    # a kind the base does not declare is a tier of its own
    run --separate-stderr "$PLACE_REPORT" advise "$HOT" --fit hbw=64M,cxl=1G --policy base.ini -o two.ini
    assert_success
    grep -q '^\[tier hbw\]$' two.ini
    # a rule of the base's name: the advised one takes another
    printf '[rule hbw-depth1]\nto = dram\n' >>base.ini
    run --separate-stderr "$PLACE_REPORT" advise "$HOT" --fit hbw=100M --policy base.ini -o three.ini
    assert_success
    run grep '^\[rule' three.ini
    assert_output "[rule advised2]
[rule hbw-depth2]
[rule staging]
[rule hbw-depth1]"
}

# -- libplace's check, and a program under the advice -------------------------------------------

@test "advise: libplace checks the policy, when it is found; and says so when it is not" {
    run --separate-stderr "$PLACE_REPORT" advise "$HOT" --fit hbw=100M -o hbw.ini
    assert_line "policy not checked: libplace.so not found (looked in $BATS_TEST_TMPDIR/no-libplace.so; LIBPLACE_LIB names it)"
    [ -f "$BUILD/libplace.so" ] || skip "libplace.so not built at $BUILD"
    export LIBPLACE_LIB=$BUILD/libplace.so
    run --separate-stderr "$PLACE_REPORT" advise "$HOT" "$RANK1" --fit hbw=100M -o hbw.ini
    assert_success
    assert_line "policy checked by libplace ($BUILD/libplace.so): no errors"
    run --separate-stderr "$PLACERUN" --check hbw.ini
    assert_success
    # a base policy with an error is the user's: named, status 2
    printf '[tier cxl]\nkind = numa\n' >bad.ini
    run --separate-stderr "$PLACE_REPORT" advise "$HOT" --fit cxl=100M --policy bad.ini
    assert_failure 2
    assert_equal "${stderr_lines[0]}" "place-report: bad.ini: libplace's check finds errors in it:"
    assert_equal "${stderr_lines[1]}" "libplace: bad.ini:1: [tier cxl] has no nodes; expected nodes = LIST, as 1 or 2-3"
}

@test "advise, by bytes, of a real run: the dry run under the advice places what it chose, and --check agrees" {
    [ -f "$BUILD/libplace.so" ] || skip "libplace.so not built at $BUILD"
    export LIBPLACE_LIB=$BUILD/libplace.so
    LIBPLACE_SAMPLE=all "$PLACERUN" -r run.json -- "$BUILD/tests/progs/twonew" 1000 100 10 >/dev/null
    # make_buffers' 6.4 MiB does not fit in 2M; make_nodes' and copy_names' blocks do
    run --separate-stderr "$PLACE_REPORT" advise run.json --fit hbw=2M -o twonew.ini
    assert_success
    assert_line --regexp '_Z12make_buffers.* dram +no room left in hbw'
    assert_line --regexp '_Z10make_nodes.* hbw +most allocated per byte that fits$'
    LIBPLACE_SAMPLE=all "$PLACERUN" -p twonew.ini --dry-run=fold -r check.json -- "$BUILD/tests/progs/twonew" 1000 100 10 >/dev/null
    with_json '
tiers = {s["frames"][0]["symbol"].split("!")[1].split("+")[0]: s["tiers"] for s in d["profile"]["top"] if s["frames"]}
assert set(tiers["_Z12make_buffersRSt6vectorIPcSaIS0_EEi"]) == {"dram"}, tiers
assert set(tiers["_Z10make_nodesRSt6vectorIPiSaIS0_EEi"]) == {"hbw"}, tiers' check.json
    run --separate-stderr "$PLACE_REPORT" advise --check check.json
    assert_success
    assert_line "the plan holds: every tier's peak is within its limit, and nothing was refused"
}

# -- --check ---------------------------------------------------------------------------------

@test "advise --check: a dry run within its limits is 0, one whose tier refused requests 1" {
    run --separate-stderr "$PLACE_REPORT" advise --check "$DATA/dryrun-fits.json"
    assert_success
    assert_line --regexp '^hbw +hbw +96\.0 MiB +100\.0 MiB +0 +0 +fits$'
    assert_line "the plan holds: every tier's peak is within its limit, and nothing was refused"
    run --separate-stderr "$PLACE_REPORT" advise --check "$DATA/dryrun-over.json"
    assert_failure 1
    assert_line --regexp '^hbw +hbw +99\.0 MiB +100\.0 MiB +3 +3 +refused requests$'
    assert_line "the plan does not hold: hbw refused 3 requests (its limit was reached: those blocks went down the chain)"
    # a peak past the limit (on_full = overflow), in one of two processes
    with_json '
hbw = next(n for n in d["nodes"] if n["name"] == "hbw")
hbw.update(peak=120 << 20, overflows=2, overflow_peak=20 << 20)
json.dump(d, open("overflow.json", "w"))' "$DATA/dryrun-fits.json"
    run --separate-stderr "$PLACE_REPORT" advise --check "$DATA/dryrun-fits.json" overflow.json
    assert_failure 1
    assert_line "overflow.json:"
    assert_line "the plan does not hold: hbw's peak, 120.0 MiB, is over its limit of 100.0 MiB in overflow.json"
    # a report with no limited tier checks nothing
    with_json '
for n in d["nodes"]:
    n["limit"] = 0
json.dump(d, open("unlimited.json", "w"))' "$DATA/dryrun-fits.json"
    run --separate-stderr "$PLACE_REPORT" advise --check unlimited.json
    assert_failure 1
    assert_line --partial "no tier has a limit (was it run under the advised policy?)"
}

# -- bad input -------------------------------------------------------------------------------

@test "advise: bad input is one line naming what was expected, status 2" {
    "$PLACE_REPORT" merge "$HOT" "$RANK1" -o merged.json
    with_json '
d["profile"]["access"]["hottest"][0]["access"]["touched_mean"] = "lots"
json.dump(d, open("badaccess.json", "w"))' "$HOT"
    while IFS='|' read -r args message; do
        # shellcheck disable=SC2086 # the arguments are words
        run --separate-stderr "$PLACE_REPORT" advise $args
        assert_failure 2
        assert_output ""
        assert_equal "$stderr" "place-report: $message"
    done <<EOF
$HOT --fit fast=1G|advise: --fit fast: no such tier; expected a kind (hbw, pinned, managed), or a tier of --policy BASE.ini (a numa tier of CXL nodes, say)
$HOT --fit numa=1G|advise: --fit numa: no such tier, and a numa tier needs its nodes: declare it in a policy ([tier NAME] kind = numa, nodes = ...) and give that with --policy
$HOT --fit dram=1G|advise: --fit dram: dram is where the rest goes, and takes no limit; expected a fast tier
$HOT --fit hbw=1.5G|advise: --fit 'hbw=1.5G': '1.5G' is not a size; expected digits and K, M, G or T, as 16G or 512M (whole numbers, libplace.policy(5) SIZES)
$HOT --fit hbw=16Q|advise: --fit 'hbw=16Q': '16Q' is not a size; expected digits and K, M, G or T, as 16G or 512M (whole numbers, libplace.policy(5) SIZES)
$HOT --fit hbw=0|advise: --fit 'hbw=0': a capacity of 0 holds nothing; expected a size above 0
$HOT --fit hbw|advise: --fit 'hbw': expected TIER=SIZE, as hbw=16G
$HOT --fit hbw=1G,hbw=2G|advise: --fit: hbw given twice
$HOT|advise: --fit TIER=SIZE is required, as --fit hbw=16G
--fit hbw=1G|advise: no REPORT given (the profiled run's, or its ranks')
$HOT --fit hbw=1G --ranks-per-node 0|advise: --ranks-per-node: expected a whole number from 1
missing.json --fit hbw=1G|missing.json: cannot read: No such file or directory
$DATA/rank0.json --fit hbw=1G|$DATA/rank0.json: the report has no profile; advise reads the profile's sites (a JSON report of libplace has one: report_format = json)
badaccess.json --fit hbw=1G|badaccess.json: not a valid libplace report: profile.access.hottest[0].access.touched_mean: expected an unsigned 64-bit integer, got the string "lots"
$HOT --fit hbw=1G --policy missing.ini|missing.ini: cannot read: No such file or directory
$HOT --fit hbw=1G --policy -|advise: --policy -: give the base policy as a file
--check $DATA/dryrun-fits.json --fit hbw=1G|advise: --check takes the dry run's reports alone
--check|advise: --check needs the dry run's reports (CHECK_REPORT...)
--check merged.json|merged.json: a merged report, whose peaks are sums over its processes; check the processes' own reports
EOF
    # a base policy: a tier it does not declare, one no malloc fills, a section it cannot have
    printf '[tier gpu]\nkind = device\n' >gpu.ini
    run --separate-stderr "$PLACE_REPORT" advise "$HOT" --fit cxl=1G --policy gpu.ini
    assert_failure 2
    assert_equal "$stderr" "place-report: advise: --fit cxl: gpu.ini declares no [tier cxl]; expected a tier it declares (gpu) or a kind (hbw, pinned, managed)"
    run --separate-stderr "$PLACE_REPORT" advise "$HOT" --fit gpu=1G --policy gpu.ini
    assert_failure 2
    assert_equal "$stderr" "place-report: advise: --fit gpu: gpu.ini's tier gpu is of kind device, which no malloc rule can fill; expected an hbw, numa, pinned, managed or named dram tier"
    printf '[tiers x]\nkind = hbw\n' >section.ini
    run --separate-stderr "$PLACE_REPORT" advise "$HOT" --fit hbw=1G --policy section.ini
    assert_failure 2
    assert_equal "$stderr" "place-report: section.ini: [tiers x] is not a section of a policy; expected [libplace], [tier NAME] or [rule NAME]"
    printf '[tier x]\nkind = hbw\nkind = numa\n' >twice.ini
    run --separate-stderr "$PLACE_REPORT" advise "$HOT" --fit hbw=1G --policy twice.ini
    assert_failure 2
    assert_equal "$stderr" "place-report: twice.ini: not a policy place-report can read: While reading from 'twice.ini' [line 3]: option 'kind' in section 'tier x' already exists"
    # argparse's own: a usage line
    run --separate-stderr "$PLACE_REPORT" advise "$HOT" --fit hbw=1G --ranks-per-node two
    assert_failure 2
    [[ $stderr == *"usage: place-report advise"* ]]
}

@test "advise: every fixture of this suite validates against the schema, access profile and all" {
    run valid_report "$HOT" "$RANK1" "$DATA/noaccess.json" "$DATA/dryrun-fits.json" "$DATA/dryrun-over.json"
    assert_success
    with_json '
a = d["profile"]["access"]
assert a["state"] == "on" and a["tracked"]["blocks"] == 15 and len(a["hottest"]) == 5
assert all("access" in s for s in a["hottest"])' "$HOT"
}
