#!/usr/bin/env bats
# Reports from the program, not its launchers: mpirun, timeout and the shells of wrapper
# scripts write none; report_only names the processes that do; place-report merge refuses
# two reports claiming one rank.

load helpers

reporters() { # the process names of the reports in directory $1, sorted, one line
    sed -n 's/^libplace: report of pid [0-9]* (\([^)]*\)).*/\1/p' "$1"/* | LC_ALL=C sort | tr '\n' ' '
}

@test "a wrapper script's shells and timeout write no report; the programs they run do" {
    local t=$BATS_TEST_TMPDIR
    mkdir "$t/r"
    # bash -c with two commands forks for the first; timeout forks and waits
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$t/r/%p" \
        bash -c 'ls / >/dev/null; timeout 60 /usr/bin/python3 -c "print(1)"'
    assert_success
    assert_output 1
    assert_equal "$(reporters "$t/r")" "ls python3 "
}

@test "report_only: only the processes it names or globs write a report" {
    local t=$BATS_TEST_TMPDIR only
    for only in python3 'ba*' 'nothing, ls' 'py*,ls'; do
        rm -rf "$t/r" && mkdir "$t/r"
        # true: bash waits for python3 and exits itself (it would exec a last command)
        run env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$t/r/%p" LIBPLACE_REPORT_ONLY="$only" \
            bash -c 'ls / >/dev/null; /usr/bin/python3 -c "print(1)"; true'
        assert_success
        case $only in
        python3) assert_equal "$(reporters "$t/r")" "python3 " ;;
        ba*) assert_equal "$(reporters "$t/r")" "bash " ;;
        nothing*) assert_equal "$(reporters "$t/r")" "ls " ;;
        *) assert_equal "$(reporters "$t/r")" "ls python3 " ;;
        esac
    done
    # and from the policy file
    policy "$t/p.ini" '[libplace]' "report = $t/r/%p" 'report_only = ls'
    rm -rf "$t/r" && mkdir "$t/r"
    run env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$t/p.ini" bash -c 'ls / >/dev/null; /usr/bin/python3 -c "print(1)"'
    assert_equal "$(reporters "$t/r")" "ls "
}

@test "report_only that is not a list of process names says what was expected" {
    local v
    for v in "" "a,,b" "/usr/bin/ls" "ls,"; do
        run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT=stderr LIBPLACE_REPORT_ONLY="$v" /bin/echo hi
        assert_equal "$status" 125
        assert_output ""
        [[ $stderr == "libplace: LIBPLACE_REPORT_ONLY=$v: expected process names or globs separated by commas, as the report's first line names the process (solver, python3*), at most 255 characters"$'\n'* ]]
    done
}

@test "LD_PRELOAD set outside mpirun: exactly two rank reports, none from mpirun or timeout" {
    command -v mpirun || fail "openmpi-bin is not installed (scripts/setup installs it)"
    local t=$BATS_TEST_TMPDIR
    mkdir "$t/r"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 LD_PRELOAD="$LIB" \
        LIBPLACE_REPORT="$t/r/rank%r-%p.json" LIBPLACE_REPORT_FORMAT=json \
        run bash -c "timeout 120 mpirun --oversubscribe -np 2 /usr/bin/python3 -c 'print(1)' >'$t/out'"
    assert_success
    # each rank prints "1\n": all four bytes, in whatever order mpirun forwarded them
    # (on a busy machine the two lines once came out as "11")
    [ "$(tr -d '\n' <"$t/out")" = 11 ] && [ "$(wc -c <"$t/out")" -eq 4 ] || { od -c "$t/out"; false; }
    [ "$(ls "$t/r" | wc -l)" -eq 2 ] || { ls "$t/r"; false; }
    ls "$t/r"/rank0-*.json "$t/r"/rank1-*.json
    run "$REPO/scripts/place-report" merge "$t"/r/*.json
    assert_success
}

@test "merge refuses two reports that claim one rank (exit 2); --force merges them" {
    local t=$BATS_TEST_TMPDIR data=$REPO/tests/data/reports
    # a helper the job ran with rank 0's environment
    /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["pid"], d["program"] = 48300, "readlink"
json.dump(d, open(sys.argv[2], "w"))' "$data/rank0.json" "$t/helper.json"
    run --separate-stderr "$REPO/scripts/place-report" merge "$data/rank0.json" "$data/rank1.json" "$t/helper.json"
    assert_equal "$status" 2
    assert_output ""
    assert_equal "$stderr" "place-report: more than one process claims a rank (rank 0: $data/rank0.json (pid 48211, solver), $t/helper.json (pid 48300, readlink)): a launcher or a helper the job ran wrote one (report_only = PROGRAM in the policy keeps them quiet); --force merges them anyway"
    run --separate-stderr "$REPO/scripts/place-report" merge --force "$data/rank0.json" "$data/rank1.json" "$t/helper.json"
    assert_success
    [[ $stderr == "place-report: warning: merging reports that claim the same rank (rank 0: "* ]]
    # a forked child shares its parent's rank: not a second claim
    /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["pid"], d["forked_from"] = 48301, 48211
json.dump(d, open(sys.argv[2], "w"))' "$data/rank0.json" "$t/child.json"
    run "$REPO/scripts/place-report" merge "$data/rank0.json" "$t/child.json"
    assert_success
}
