# Shared by the bats suites: where the build is, and the comparison of a run without
# libplace against runs under it.

REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
BUILD=$(cd "${BUILD_DIR:-$REPO/build}" && pwd)
LIB=$BUILD/libplace.so
PROGS=$BUILD/tests/progs
PLACERUN=$REPO/scripts/placerun

bats_require_minimum_version 1.5.0

# The suites set the LIBPLACE_* variables they test; none may leak in from the caller.
while read -r name; do unset "$name"; done < <(compgen -e | grep '^LIBPLACE_' || true)

load /usr/lib/bats/bats-support/load
load /usr/lib/bats/bats-assert/load
load json

setup_file() {
    [ -f "$LIB" ] || {
        echo "libplace.so not built at $LIB (meson setup build && ninja -C build)" >&2
        return 1
    }
}

# Field $2 of node $1 in the JSON report $BATS_TEST_TMPDIR/report.json, as python prints it.
node() {
    /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(next(n for n in r["nodes"] if n["name"] == sys.argv[2])[sys.argv[3]])' \
        "$BATS_TEST_TMPDIR/report.json" "$1" "$2"
}

# Writes the policy file $1: the further arguments are its lines, one each, or without
# them the lines on stdin, as a heredoc gives them.
policy() {
    local file=$1
    shift
    if [ $# -gt 0 ]; then
        printf '%s\n' "$@" >"$file"
    else
        cat >"$file"
    fi
}

# A policy in file $1 that sends sizes $2 to a tier "a" of kind dram: an arena, whose
# small blocks the per-thread caches serve.
arena_policy() {
    policy "$1" '[tier a]' 'kind = dram' '[rule placed]' "size = $2" 'to = a'
}

# A policy in file $1: a JSON report at $BATS_TEST_TMPDIR/report.json, a tier "a" of kind
# dram, and for each further argument NAME:SITE[:DEPTH] a rule sending that site to a.
site_policy() {
    local file=$1 rule name site depth
    local lines=('[libplace]' "report = $BATS_TEST_TMPDIR/report.json" 'report_format = json'
        '[tier a]' 'kind = dram')
    shift
    for rule in "$@"; do
        IFS=: read -r name site depth <<<"$rule"
        lines+=("[rule $name]" "site = $site")
        [ -z "$depth" ] || lines+=("depth = $depth")
        lines+=('to = a')
    done
    policy "$file" "${lines[@]}"
}

run_variant() {
    local t=$BATS_TEST_TMPDIR
    case $1 in
    without) env -u LD_PRELOAD -u LIBPLACE_REPORT bash -c "cd '$t/work' && $2" ;;
    with) env -u LIBPLACE_REPORT LD_PRELOAD="$LIB" bash -c "cd '$t/work' && $2" ;;
    counting) env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$t/reports/report-%p" bash -c "cd '$t/work' && $2" ;;
    esac
}

# Whether run $2 agrees with run $1 ($BATS_TEST_TMPDIR/NAME.out, NAME.$3 for stderr,
# NAME.status): says what differs when it does not.
runs_agree() {
    local t=$BATS_TEST_TMPDIR a=$1 b=$2 err=$3
    cmp -s "$t/$a.out" "$t/$b.out" || {
        echo "stdout differs ($b):"
        diff "$t/$a.out" "$t/$b.out" | head -20
        return 1
    }
    cmp -s "$t/$a.$err" "$t/$b.$err" || {
        echo "stderr differs ($b):"
        diff "$t/$a.$err" "$t/$b.$err" | head -20
        return 1
    }
    cmp -s "$t/$a.status" "$t/$b.status" || {
        echo "exit status differs ($b): $(cat "$t/$a.status") vs $(cat "$t/$b.status")"
        return 1
    }
}

# Runs the shell snippet $1 three times in a fresh directory $BATS_TEST_TMPDIR/work (the
# same path each time, so output that names it matches): without libplace, under it, and
# under it with the exit report written to files. stdout, stderr and the exit status
# must be the same all three times. The reports of the last run are left in
# $BATS_TEST_TMPDIR/reports.
same_with_and_without() {
    local script=$1 t=$BATS_TEST_TMPDIR variant
    rm -rf "$t/reports"
    mkdir -p "$t/reports"
    for variant in without with counting; do
        rm -rf "$t/work"
        mkdir "$t/work"
        # not `set -e`'s business: a program's own non-zero status is part of what is compared
        if run_variant "$variant" "$script" >"$t/$variant.out" 2>"$t/$variant.err" </dev/null; then
            echo 0 >"$t/$variant.status"
        else
            echo $? >"$t/$variant.status"
        fi
    done
    for variant in with counting; do
        runs_agree without "$variant" err || return 1
    done
    # the report files prove the shim was really there
    [ -n "$(ls "$t/reports")" ] || {
        echo "no report was written: was libplace loaded?"
        return 1
    }
}

# The dram row of a report file: allocations, frees (the numbers only).
dram_counts() {
    awk '$2 == "dram" && $3 == "dram" && $NF ~ /^[0-9]+$/ { print $(NF - 1), $NF }' "$1"
}

# The placing policies real programs must run under unchanged: everything in a node of
# its own; site rules of depth 1 and 4, and one of depth 8 that walks; a limited node
# that falls back, waits or overflows; a dry run planning for an HBW tier this machine
# lacks; small blocks placed while the access profile tracks every block of 64 KiB or
# more that stays glibc's. Written into $BATS_TEST_TMPDIR/policies, one NAME.ini each.
PLACING_POLICIES="all site1 site4 walk8 fallback wait overflow dry profile"
write_placing_policies() {
    local d=$BATS_TEST_TMPDIR/policies node=('[tier node]' 'kind = dram')
    mkdir -p "$d"
    policy "$d/all.ini" "${node[@]}" '[rule all]' 'size = 0..' 'to = node'
    policy "$d/site1.ini" "${node[@]}" '[rule s]' 'size = 0..' 'site = *' 'depth = 1' 'to = node'
    policy "$d/site4.ini" "${node[@]}" '[rule s]' 'size = 0..' 'site = *' 'depth = 4' 'to = node'
    # a pattern the first frame seldom matches: every other stack is walked 8 frames deep
    # (or handed to libunwind), and a block is placed when main or libc's start is there
    policy "$d/walk8.ini" "${node[@]}" '[rule s]' 'size = 0..' 'site = *main*' 'depth = 8' 'to = node'
    policy "$d/fallback.ini" "${node[@]}" 'limit = 4M' '[rule all]' 'size = 0..' 'to = node, dram'
    policy "$d/wait.ini" "${node[@]}" 'limit = 32M' '[rule all]' 'size = 0..' 'to = node, dram' \
        'on_full = wait' 'wait = 5ms'
    policy "$d/overflow.ini" "${node[@]}" 'limit = 4M' '[rule all]' 'size = 0..' 'to = node' \
        'on_full = overflow'
    policy "$d/dry.ini" '[libplace]' 'dry_run = yes' '[tier fast]' 'kind = hbw' 'limit = 64M' \
        '[rule big]' 'size = 256..' 'to = fast, dram'
    policy "$d/profile.ini" '[libplace]' 'profile = access' 'profile_min = 64K' "${node[@]}" \
        '[rule small]' 'size = 0..4K' 'to = node'
}

# Runs the shell snippet $1 without libplace, then under each placing policy with a
# report file, in a fresh $BATS_TEST_TMPDIR/work each time: stdout and the exit status
# must be the same every time, and stderr too once libplace's own lines are set aside.
# Some process of each run must have placed blocks in the policy's node (its report says
# so), or the run proved nothing; and with $2, some report of each run has a line
# matching that extended regular expression.
same_under_policies() {
    local script=$1 line=${2:-} t=$BATS_TEST_TMPDIR policy status
    write_placing_policies
    for policy in without $PLACING_POLICIES; do
        rm -rf "$t/work" "$t/reports"
        mkdir "$t/work" "$t/reports"
        status=0
        if [ "$policy" = without ]; then
            env -u LD_PRELOAD bash -c "cd '$t/work' && $script" >"$t/$policy.out" 2>"$t/$policy.err" \
                </dev/null || status=$?
        else
            env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$t/policies/$policy.ini" \
                LIBPLACE_REPORT="$t/reports/report-%p" bash -c "cd '$t/work' && $script" \
                >"$t/$policy.out" 2>"$t/$policy.err" </dev/null || status=$?
        fi
        grep -v '^libplace: ' "$t/$policy.err" >"$t/$policy.err.program" || true
        echo "$status" >"$t/$policy.status"
        [ "$policy" = without ] && continue
        runs_agree without "$policy" err.program || return 1
        awk '$1 == "libplace:" && ($2 == "node" || $2 == "fast") && $(NF - 1) > 0 { found = 1 }
             END { exit !found }' "$t"/reports/* || {
            echo "under $policy no process placed a block (reports: $(ls "$t/reports" | wc -l))"
            return 1
        }
        [ -z "$line" ] || grep -Eq "$line" "$t"/reports/* || {
            echo "under $policy no report has a line matching: $line"
            return 1
        }
    done
}
