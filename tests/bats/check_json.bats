#!/usr/bin/env bats
# LIBPLACE_CHECK=json: libplace writes the checked policy as one JSON object on stdout,
# valid against scripts/libplace_tools/policy.schema.json, with errors too; the text form
# (LIBPLACE_CHECK=1) is unchanged.

load helpers

# Runs python code ($1) with the JSON of file $2 as `d` (with_json), its tiers and rules
# by name; it prints what is compared.
show() {
    with_json "tier = {t['name']: t for t in d['tiers']}
rule = {r['name']: r for r in d['rules']}
$1" "$2"
}

# libplace's check of the policy the environment ($@, VAR=VALUE words) names: stdout to
# $BATS_TEST_TMPDIR/out.json, stderr to err, the status in $status.
check_json() {
    local t=$BATS_TEST_TMPDIR
    status=0
    env "$@" LIBPLACE_CHECK=json LD_PRELOAD="$LIB" /bin/sh -c 'exit 97' >"$t/out.json" 2>"$t/err" ||
        status=$?
}

@test "every example policy: valid JSON on stdout, ok, nothing on stderr, status 0" {
    for f in "$REPO"/config/examples/*.ini; do
        check_json LIBPLACE_POLICY="$f"
        assert_equal "$status" 0
        assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" ""
        valid_policy "$BATS_TEST_TMPDIR/out.json"
        run show 'print(d["ok"], d["errors"], d["file"], d["tiers"][0]["name"])' "$BATS_TEST_TMPDIR/out.json"
        assert_output "True 0 $f dram"
    done
}

@test "tiers and rules as libplace reads them: the kind's keys only, bytes, overrides, inline rules" {
    cd "$BATS_TEST_TMPDIR"
    policy pol.ini <<'INI'
[libplace]
report = r-%p.json
report_format = json
report_signal = USR1
dry_run = yes

[tier fast]
kind = hbw
limit = 12G
pagesize = 2M

[tier far]
kind = numa
nodes = 2-3,5
policy = interleave

[rule big]
size = 1M..64M
site = *dgemm* | libsolver.so:* | solver+0x4A3F0
depth = 6
to = fast, far, dram
on_full = wait
wait = 2s
INI
    check_json LIBPLACE_POLICY=pol.ini LIBPLACE_LIMIT_FAR=1G \
        LIBPLACE_RULES='size=..4K to=pinned,dram api=any; name=gpu to=managed api=cuda'
    assert_equal "$status" 0
    valid_policy out.json
    run show '
print(d["ok"], d["file"], d["inline_rules"], d["report"], d["report_format"], d["report_signal"],
      d["dry_run"], d["on_error"])
for t in d["tiers"]:
    print(t["name"], " ".join(f"{k}={v}" for k, v in t.items() if k not in ("name", "at")))
for r in d["rules"]:
    print(r["name"], " ".join(f"{k}={v}" for k, v in r.items() if k not in ("name", "at")))
print(d["tiers"][2]["at"], [r["at"] for r in d["rules"]])' out.json
    assert_output "True pol.ini True r-%p.json json USR1 True abort
dram kind=dram declared=False limit=0 reclaim_min=0 reclaim_target=0 scope=process
fast kind=hbw declared=True limit=12884901888 policy=preferred pagesize=2M reclaim_min=0 reclaim_target=0 scope=process near=first
far kind=numa declared=True limit=1073741824 policy=interleave nodes=[2, 3, 5] reclaim_min=0 reclaim_target=0 scope=process near=first
pinned kind=pinned declared=False limit=0 chunk_initial=2097152 chunk_max=268435456 chunk_growth=2 reclaim_min=0 reclaim_target=0 scope=process
managed kind=managed declared=False limit=0 chunk_initial=2097152 chunk_max=268435456 chunk_growth=2 location=None reclaim_min=0 reclaim_target=0 scope=process
rules-1 api=['malloc', 'cuda'] size_min=0 size_max=4096 sites=[] depth=4 chain=['pinned', 'dram'] on_full=fallback wait_ms=None
gpu api=['cuda'] size_min=0 size_max=None sites=[] depth=4 chain=['managed'] on_full=fallback wait_ms=None
big api=['malloc'] size_min=1048576 size_max=67108864 sites=['*dgemm*', 'libsolver.so:*', 'solver+0x4a3f0'] depth=6 chain=['fast', 'far', 'dram'] on_full=wait wait_ms=2000
{'tier': 'pol.ini:12', 'kind': 'pol.ini:13', 'limit': 'LIBPLACE_LIMIT_FAR=1G', 'policy': 'pol.ini:15', 'nodes': 'pol.ini:14'} ['LIBPLACE_RULES rule 1', 'LIBPLACE_RULES rule 2', 'pol.ini:17']"
}

@test "a policy with errors: still one valid JSON object, ok false and the count; the errors on stderr; status 1" {
    cd "$BATS_TEST_TMPDIR"
    policy bad.ini '[rule big]' 'to = nowhere' 'size = 1X..'
    check_json LIBPLACE_POLICY=bad.ini
    assert_equal "$status" 1
    valid_policy out.json
    run show 'print(d["ok"], d["errors"], d["file"], [r["name"] for r in d["rules"]])' out.json
    assert_output "False 2 bad.ini ['big']"
    run cat err
    assert_line --partial "libplace: bad.ini:3: size = 1X..: 'X' is not a size unit"
    assert_line --partial "libplace: bad.ini:2: to: no tier named 'nowhere'"
    refute_output --partial '{'
    # a file that cannot be read: its name, no rules
    check_json LIBPLACE_POLICY="$BATS_TEST_TMPDIR/none.ini"
    assert_equal "$status" 1
    valid_policy out.json
    run show 'print(d["ok"], d["errors"], d["file"], d["tiers"][0]["name"], d["rules"])' out.json
    assert_output "False 1 $BATS_TEST_TMPDIR/none.ini dram []"
}

@test "no policy: dram alone, no file, no report; LIBPLACE_CHECK=1 keeps its text and writes no JSON" {
    check_json LIBPLACE_RULES=' '
    assert_equal "$status" 0
    valid_policy "$BATS_TEST_TMPDIR/out.json"
    run show 'print(d["file"], d["report"], [t["name"] for t in d["tiers"]], d["rules"])' "$BATS_TEST_TMPDIR/out.json"
    assert_output "None None ['dram'] []"
    cd "$BATS_TEST_TMPDIR"
    policy pol.ini '[tier fast]' 'kind = hbw' 'limit = 1G' '[rule r]' 'size = 1M..' 'to = fast'
    for on in 1 yes; do
        run --separate-stderr env LIBPLACE_POLICY=pol.ini LIBPLACE_CHECK=$on LD_PRELOAD="$LIB" /bin/true
        assert_success
        assert_output ""
        assert_equal "$stderr" "libplace: pol.ini: no errors; tiers: dram (dram), fast (hbw, limit 1073741824); rules: r; report: none"
    done
}
