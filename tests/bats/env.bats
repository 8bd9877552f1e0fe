#!/usr/bin/env bats
# LIBPLACE_* variables with bad values: every error named with its variable, then on_error:
# by default the program does not start (status 125); with passthrough it runs untouched.

load helpers

PROGRAM=(/usr/bin/python3 -c 'print("output"); raise SystemExit(7)')

bad_value() { # $1 the value of LIBPLACE_REPORT, $2 the problem libplace names
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$1" "${PROGRAM[@]}"
    assert_equal "$status" 125
    assert_output ""
    assert_equal "$stderr" "libplace: LIBPLACE_REPORT=$1: $2
libplace: policy not loaded (1 error): the program does not start (on_error = abort; on_error = passthrough runs it untouched)"

    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$1" LIBPLACE_ON_ERROR=passthrough "${PROGRAM[@]}"
    assert_equal "$status" 7
    assert_output output
    assert_equal "$stderr" "libplace: LIBPLACE_REPORT=$1: $2
libplace: policy not loaded (1 error): running the program untouched (on_error = passthrough)"
}

TEMPLATE="not a usable report path; expected stderr or a file path, where %p is the pid, %h the host, %r the MPI rank, %j the job id, %q{NAME} the variable NAME, %t the start time and %% a percent sign"

@test "an empty report path" {
    bad_value "" "$TEMPLATE"
}

@test "an unknown %-token in the report path" {
    bad_value "/tmp/r-%z" "$TEMPLATE"
}

@test "%q without a variable's name in braces" {
    for v in "/tmp/r-%q" "/tmp/r-%q{" "/tmp/r-%q{}" "/tmp/r-%q{1A}" "/tmp/r-%q{A-B}" "/tmp/r-%qA"; do
        bad_value "$v" "$TEMPLATE"
    done
}

@test "a lone % at the end of the report path" {
    bad_value "/tmp/r%" "$TEMPLATE"
}

@test "stdout as the report destination" {
    bad_value stdout "stdout is not offered, as the report would mix into the program's own output; expected stderr or a file path"
}

@test "a misspelt variable is named, with the known ones, and the program runs" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPROT=stderr /bin/echo hi
    assert_success
    assert_output hi
    assert_equal "$stderr" "libplace: LIBPLACE_REPROT is not a libplace variable and is ignored (known: LIBPLACE_POLICY, LIBPLACE_INLINE_POLICY, LIBPLACE_RULES, LIBPLACE_CHECK, LIBPLACE_REPORT_PID, LIBPLACE_REPORT, LIBPLACE_REPORT_FORMAT, LIBPLACE_REPORT_SIGNAL, LIBPLACE_REPORT_CHILDREN, LIBPLACE_REPORT_ON_FATAL, LIBPLACE_REPORT_ONLY, LIBPLACE_VERIFY, LIBPLACE_ON_ERROR, LIBPLACE_DRY_RUN, LIBPLACE_FOLD_MIN, LIBPLACE_SITES, LIBPLACE_SAMPLE, LIBPLACE_REPORT_DEPTH, LIBPLACE_WRAPPERS, LIBPLACE_HEAPS, LIBPLACE_PROFILE, LIBPLACE_PROFILE_MIN, LIBPLACE_PROFILE_INTERVAL, LIBPLACE_<KEY>_<TIER> with KEY one of KIND, LIMIT, POLICY, PAGESIZE, NODES, DEVICE, CHUNK_INITIAL, CHUNK_MAX, CHUNK_GROWTH, LOCATION, RECLAIM_MIN, RECLAIM_TARGET, SCOPE, WEIGHTS, NEAR)"
}

@test "no LIBPLACE_ variable: libplace says nothing at all" {
    run --separate-stderr env LD_PRELOAD="$LIB" /bin/echo hi
    assert_success
    assert_output hi
    assert_equal "$stderr" ""
}
