#!/usr/bin/env bats
# Programs that make life hard for a preloaded library: the program must not notice.

load helpers

@test "another library's fork handler allocates while libplace holds its fork-time lock" {
    same_with_and_without "timeout 20 $PROGS/atfork_main"
    run cat "$BATS_TEST_TMPDIR/counting.out"
    assert_output "child exited 4"
}

@test "a report to a pipe nobody reads any more does not kill the program with SIGPIPE" {
    run bash -c "LD_PRELOAD='$LIB' LIBPLACE_REPORT=stderr sleep 0.3 2>&1 | true; echo \${PIPESTATUS[0]}"
    assert_output 0
    # the warning comes at start: the reader is gone before the program starts
    run bash -c "(sleep 0.3; LD_PRELOAD='$LIB' LIBPLACE_REPROT=typo exec /bin/true) 2>&1 | true; echo \${PIPESTATUS[0]}"
    assert_output 0
}

@test "a report file past the file size limit does not kill the program with SIGXFSZ" {
    run bash -c "ulimit -f 0; LD_PRELOAD='$LIB' LIBPLACE_REPORT='$BATS_TEST_TMPDIR/big' /bin/echo fine; echo status \$?"
    assert_line fine
    assert_line "status 0"
    [ -f "$BATS_TEST_TMPDIR/big" ] # libplace did try to write its report there
}

@test "with stderr closed at start, the report never lands in a file the program opened" {
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT=stderr bash -c "exec 2>&-; exec '$PROGS/write_file' '$BATS_TEST_TMPDIR/data'"
    assert_success
    assert_equal "$(cat "$BATS_TEST_TMPDIR/data")" DATA
}

@test "a program that puts a file of its own on the descriptor of libplace's stderr copy" {
    # the copy sits on the highest descriptor the limit allows, up to 4095
    fd=$(($(ulimit -n) < 4096 ? $(ulimit -n) - 1 : 4095))
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT=stderr "$PROGS/write_file" "$BATS_TEST_TMPDIR/mine" "$fd"
    assert_success
    assert_equal "$(cat "$BATS_TEST_TMPDIR/mine")" DATA
    # the report went to fd 2, which was still the same stderr
    grep -q '^libplace: report of pid [0-9]* (write_file)' <<<"$stderr"
}

@test "a program that closes stderr and reopens fd 2 on a file of its own" {
    # bash is the program here: named, as shells write no report by default
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT=stderr LIBPLACE_REPORT_ONLY=bash \
        bash -c "exec 2>&- 2>'$BATS_TEST_TMPDIR/err'; echo mine >&2"
    assert_success
    grep -q '^libplace: report of pid [0-9]* (bash)' <<<"$stderr" # the copy held the old stderr
    assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" mine
}

@test "a program that sets TZ after start sees its own time zone (%t in the report path)" {
    same_with_and_without "$PROGS/tz"
    run cat "$BATS_TEST_TMPDIR/counting.out"
    assert_output "hour=9 zone=JST"
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/r-%t-%p" "$PROGS/tz"
    assert_output "hour=9 zone=JST"
}
