#!/usr/bin/env bats
# LIBPLACE_* variables with bad values: one clear line, and the program runs untouched.

load helpers

bad_value() { # $1 the value of LIBPLACE_REPORT
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$1" /usr/bin/python3 -c 'print("output"); raise SystemExit(7)'
    assert_equal "$status" 7
    assert_output output
    # exactly one line from libplace, naming the variable, the value and the expected form
    [ "$(wc -l <<<"$stderr")" -eq 1 ]
    assert_equal "$stderr" "libplace: LIBPLACE_REPORT='$1' is not valid: expected $2; running the program untouched"
}

@test "an empty report path" {
    bad_value "" "stderr or a file path, where %p is the pid, %h the host, %r the MPI rank, %t the start time and %% a percent sign"
}

@test "an unknown %-token in the report path" {
    bad_value "/tmp/r-%q" "stderr or a file path, where %p is the pid, %h the host, %r the MPI rank, %t the start time and %% a percent sign"
}

@test "a lone % at the end of the report path" {
    bad_value "/tmp/r%" "stderr or a file path, where %p is the pid, %h the host, %r the MPI rank, %t the start time and %% a percent sign"
}

@test "stdout as the report destination" {
    bad_value stdout "stderr or a file path (stdout is not offered: the report would mix into the program's own output)"
}

@test "a misspelt variable is named, with the known ones, and the program runs" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPROT=stderr /bin/echo hi
    assert_success
    assert_output hi
    assert_equal "$stderr" "libplace: LIBPLACE_REPROT is not a libplace variable and is ignored (known: LIBPLACE_REPORT)"
}

@test "no LIBPLACE_ variable: libplace says nothing at all" {
    run --separate-stderr env LD_PRELOAD="$LIB" /bin/echo hi
    assert_success
    assert_output hi
    assert_equal "$stderr" ""
}
