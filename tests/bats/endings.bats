#!/usr/bin/env bats
# A report whatever the ending: a signal whose default action ends the program writes the
# report in its handler, and the program then ends as it would have without libplace.

load helpers

# Starts "$PROGS/endings $MODE" (default: wait) in the background under the report
# settings of the environment given as arguments, waits for it to say it allocated, and
# sends it signal $SIG; its exit status is left in $BATS_TEST_TMPDIR/status.
kill_waiting() {
    local t=$BATS_TEST_TMPDIR
    rm -f "$t/out"
    env "$@" "$PROGS/endings" "${MODE:-wait}" >"$t/out" &
    local pid=$! n=0
    until grep -q allocated "$t/out" 2>/dev/null; do
        kill -0 "$pid" 2>/dev/null || return 1 # it ended by itself
        sleep 0.05
        n=$((n + 1))
        [ "$n" -lt 400 ] || { kill -KILL "$pid"; return 1; }
    done
    kill -"$SIG" "$pid"
    local status=0
    wait "$pid" || status=$?
    echo "$status" >"$t/status"
}

@test "a fault or abort() writes the report first; output and status unchanged under every placing policy" {
    local how sig
    for how in segv abort fpe rethrow; do
        case $how in segv | rethrow) sig=SEGV ;; abort) sig=ABRT ;; fpe) sig=FPE ;; esac
        # exec: no shell between to print its own line about the signal
        same_under_policies "ulimit -c 0; exec '$PROGS/endings' $how" \
            "^libplace: report of pid [0-9]+ \(endings\), ended by SIG$sig, "
    done
    # the program's own handler ran first, then the default action (SA_RESETHAND kept)
    grep -qx handled "$BATS_TEST_TMPDIR/dry.out"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/dry.status")" 139
}

@test "kill -TERM and -HUP: the report says so, with the placed blocks; the status is the signal's" {
    local t=$BATS_TEST_TMPDIR
    arena_policy "$t/p.ini" 4K..4K
    for SIG in TERM HUP; do
        kill_waiting
        local plain
        plain=$(cat "$t/status")
        kill_waiting LD_PRELOAD="$LIB" LIBPLACE_POLICY="$t/p.ini" LIBPLACE_REPORT="$t/$SIG.txt"
        assert_equal "$(cat "$t/status")" "$plain"
        grep -Eq "^libplace: report of pid [0-9]+ \(endings\), ended by SIG$SIG, .* \(1 running\)$" "$t/$SIG.txt"
        # the 1000 blocks and stdout's buffer
        grep -Eq '^libplace: a +dram +none +3.9 MiB +3.9 MiB +1001 +0$' "$t/$SIG.txt"
    done
    [ "$plain" -eq 129 ]
    SIG=TERM kill_waiting LD_PRELOAD="$LIB" LIBPLACE_POLICY="$t/p.ini" LIBPLACE_REPORT="$t/r.json" \
        LIBPLACE_REPORT_FORMAT=json
    valid_report "$t/r.json"
    /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["ended_by"] == "TERM" and r["signal"] is None, r
assert next(n for n in r["nodes"] if n["name"] == "a")["allocations"] == 1001' "$t/r.json"
    run "$REPO/scripts/place-report" render "$t/r.json"
    assert_success
    assert_line --regexp '^ended by +SIGTERM: the report was written in its handler$'
}

@test "a handler of the program's decides: it runs, reads itself back, and the report comes at exit" {
    local t=$BATS_TEST_TMPDIR
    SIG=INT MODE=keepint kill_waiting LD_PRELOAD="$LIB" LIBPLACE_REPORT="$t/r.txt"
    assert_equal "$(cat "$t/status")" 3
    grep -qx "own handler kept" "$t/out"
    grep -Eq '^libplace: report of pid [0-9]+ \(endings\), [0-9.]+ s, .* at exit\)$' "$t/r.txt"
    # an ignored signal stays ignored
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$t/i.txt" "$PROGS/endings" ignore
    assert_equal "$status" 4
    assert_line ignored
    grep -q 'at exit)$' "$t/i.txt"
}

@test "python3: an uncaught KeyboardInterrupt, and SIGTERM while threads allocate" {
    local t=$BATS_TEST_TMPDIR
    arena_policy "$t/p.ini" 0..
    # Python's own SIGINT handler raises KeyboardInterrupt; uncaught, Python puts the
    # default action back and kills itself with SIGINT: that ending writes the report
    local py='import os, signal; print("before", flush=True); os.kill(os.getpid(), signal.SIGINT)'
    run --separate-stderr /usr/bin/python3 -c "$py"
    local plain=$status out=$output
    [ "$plain" -eq 130 ]
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$t/p.ini" LIBPLACE_REPORT="$t/int.txt" \
        /usr/bin/python3 -c "$py"
    assert_equal "$status" "$plain"
    assert_equal "$output" "$out"
    grep -q 'KeyboardInterrupt' <<<"$stderr"
    grep -Eq '^libplace: report of pid [0-9]+ \(python3\), ended by SIGINT, ' "$t/int.txt"
    py='
import os, signal, threading, time
def churn():
    while True:
        [bytearray(n) for n in range(1, 2000, 7)]
for _ in range(3):
    threading.Thread(target=churn, daemon=True).start()
time.sleep(0.3)
os.kill(os.getpid(), signal.SIGTERM)'
    for k in 1 2 3; do
        rm -f "$t/term.txt"
        run timeout 60 env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$t/p.ini" LIBPLACE_REPORT="$t/term.txt" \
            /usr/bin/python3 -c "$py"
        assert_equal "$status" 143
        grep -Eq '^libplace: report of pid [0-9]+ \(python3\), ended by SIGTERM, .*allocations from [4-9] threads' "$t/term.txt"
    done
}

@test "report_on_fatal = no: a fault leaves no report, as before" {
    local t=$BATS_TEST_TMPDIR
    policy "$t/p.ini" '[libplace]' "report = $t/r.txt" 'report_on_fatal = no'
    run bash -c "ulimit -c 0; LD_PRELOAD='$LIB' LIBPLACE_POLICY='$t/p.ini' exec '$PROGS/endings' segv"
    assert_equal "$status" 139
    assert_output allocated
    [ ! -e "$t/r.txt" ]
    # and on: the same run reports
    run bash -c "ulimit -c 0; LD_PRELOAD='$LIB' LIBPLACE_POLICY='$t/p.ini' LIBPLACE_REPORT_ON_FATAL=yes exec '$PROGS/endings' segv"
    assert_equal "$status" 139
    grep -q 'ended by SIGSEGV' "$t/r.txt"
}
