#!/usr/bin/env bats
# placerun, the command line: the environment it gives the program, that it execs the
# program (status, signals and stdio are the program's), --check, usage errors, where
# it finds libplace.so, and static programs.

load helpers

PLACERUN=$REPO/scripts/placerun
PY=/usr/bin/python3

setup() {
    # the build under test, also when BUILD_DIR puts it elsewhere than ../build
    export LIBPLACE_LIB=$LIB
}

# -- running a program ---------------------------------------------------------------

@test "the program's exit status and stdout pass through; the report is on stderr" {
    run --separate-stderr "$PLACERUN" -- $PY -c 'print("x"); raise SystemExit(7)'
    assert_equal "$status" 7
    assert_output x
    grep -q '^libplace: report of pid [0-9]* (python3)' <<<"$stderr"
    [ "$(grep -vc '^libplace: ' <<<"$stderr")" -eq 0 ]
}

@test "options end at PROGRAM: its own options are its own, with or without --" {
    run --separate-stderr "$PLACERUN" -r "$BATS_TEST_TMPDIR/r-%p" /bin/echo -p --rule -r
    assert_success
    assert_output "-p --rule -r"
    assert_equal "$stderr" ""
    run --separate-stderr "$PLACERUN" -r "$BATS_TEST_TMPDIR/s-%p" -- /bin/echo -- --check
    assert_success
    assert_output "-- --check"
}

@test "-r FILE writes the report to the file, and nothing to stderr" {
    cd "$BATS_TEST_TMPDIR"
    run --separate-stderr "$PLACERUN" -r report.txt -- /bin/echo hi
    assert_success
    assert_output hi
    assert_equal "$stderr" ""
    # the report names echo, not python3: placerun replaced itself with the program
    head -n 1 report.txt | grep -q '^libplace: report of pid [0-9]* (echo)'
}

@test "the program is exec'd: same pid, its signals and SIGPIPE as without placerun" {
    r=$BATS_TEST_TMPDIR/r-%p
    # the program's parent is placerun's parent
    run bash -c "'$PLACERUN' -r '$r' -- /bin/sh -c 'echo \$PPID'; echo \$\$"
    assert_success
    assert_equal "${lines[0]}" "${lines[1]}"
    # killed by a signal: the caller sees the signal
    run "$PLACERUN" -r "$r" -- /bin/sh -c 'kill -TERM $$'
    assert_equal "$status" 143
    # SIGPIPE is the default again (python ignores it, and exec would keep that)
    run bash -c "'$PLACERUN' -r '$r' -- yes | head -n 1; echo \${PIPESTATUS[0]}"
    assert_output "y
141"
    # stdin is the program's
    run bash -c "echo abc | '$PLACERUN' -r '$r' -- tr a-z A-Z"
    assert_output ABC
}

@test "the environment: -p, --rule (joined with ;), --dry-run, the report; LIBPLACE_LIB and LIBPLACE_CHECK are not passed on" {
    show='import os
for k in ["LIBPLACE_POLICY", "LIBPLACE_RULES", "LIBPLACE_DRY_RUN", "LIBPLACE_REPORT", "LIBPLACE_LIB", "LIBPLACE_CHECK"]:
    print(k, os.environ.get(k))'
    policy=$REPO/config/examples/hbw-big-arrays.ini
    run --separate-stderr env LIBPLACE_CHECK=1 "$PLACERUN" -p "$policy" --rule 'size=1M.. to=hbw,dram' \
        --rule='size=..64K to=dram' --dry-run -r "$BATS_TEST_TMPDIR/r-%p" -- $PY -c "$show"
    assert_success
    assert_equal "$stderr" ""
    assert_output "LIBPLACE_POLICY $policy
LIBPLACE_RULES size=1M.. to=hbw,dram; size=..64K to=dram
LIBPLACE_DRY_RUN 1
LIBPLACE_REPORT $BATS_TEST_TMPDIR/r-%p
LIBPLACE_LIB None
LIBPLACE_CHECK None"
    ls "$BATS_TEST_TMPDIR"/r-* >/dev/null
}

@test "the default report is stderr, unless the policy or the environment says where" {
    cd "$BATS_TEST_TMPDIR"
    printf '[libplace]\nreport = from-policy-%%p.txt   ; a file\n' >pol.ini
    run --separate-stderr "$PLACERUN" -p pol.ini -- /bin/echo hi
    assert_success
    assert_output hi
    assert_equal "$stderr" ""
    grep -q '^libplace: report of pid [0-9]* (echo)' from-policy-*.txt
    run --separate-stderr env LIBPLACE_REPORT="$BATS_TEST_TMPDIR/from-env-%p.txt" "$PLACERUN" -- /bin/echo hi
    assert_success
    assert_equal "$stderr" ""
    grep -q '^libplace: report of pid [0-9]* (echo)' from-env-*.txt
    # -r wins over both
    run --separate-stderr env LIBPLACE_REPORT=from-env-2.txt "$PLACERUN" -p pol.ini -r stderr -- /bin/echo hi
    assert_success
    grep -q '^libplace: report of pid [0-9]* (echo)' <<<"$stderr"
}

@test "LD_PRELOAD already set is kept, after libplace; libplace is not added twice" {
    other=$PROGS/libatfork_lib.so
    [ -f "$other" ] || skip "no $other in this build"
    show='import os
print(os.environ["LD_PRELOAD"])
maps = open("/proc/self/maps").read()
print("libplace.so" in maps, "libatfork_lib.so" in maps)'
    run --separate-stderr env LD_PRELOAD="$other" "$PLACERUN" -r "$BATS_TEST_TMPDIR/r-%p" -- $PY -c "$show"
    assert_success
    assert_output "$LIB:$other
True True"
    run --separate-stderr env LD_PRELOAD="$other $LIB" "$PLACERUN" -r "$BATS_TEST_TMPDIR/s-%p" -- $PY -c "$show"
    assert_success
    assert_output "$LIB:$other
True True"
}

@test "a policy with errors: the program does not start, status 125" {
    run --separate-stderr "$PLACERUN" --rule 'size=1X.. to=dram' -- $PY -c 'print("x")'
    assert_equal "$status" 125
    assert_output ""
    [[ $stderr == *"libplace: LIBPLACE_RULES rule 1: size = 1X..:"* ]]
}

@test "a missing program: 127; one that cannot be executed: 126" {
    run -127 --separate-stderr "$PLACERUN" -- no-such-program-anywhere
    assert_equal "$status" 127
    assert_equal "$stderr" "placerun: no-such-program-anywhere: command not found"
    run -127 --separate-stderr "$PLACERUN" -- "$BATS_TEST_TMPDIR/missing"
    assert_equal "$status" 127
    assert_equal "$stderr" "placerun: $BATS_TEST_TMPDIR/missing: no such file or directory"
    echo 'exit 0' >"$BATS_TEST_TMPDIR/noexec"
    chmod 644 "$BATS_TEST_TMPDIR/noexec"
    # root, too, needs an x bit to execute a file
    run --separate-stderr "$PLACERUN" -- "$BATS_TEST_TMPDIR/noexec"
    assert_equal "$status" 126
    assert_equal "$stderr" "placerun: $BATS_TEST_TMPDIR/noexec: permission denied"
    run --separate-stderr "$PLACERUN" -- "$BATS_TEST_TMPDIR"
    assert_equal "$status" 126
}

@test "scripts run: with a #! line, and without one (through /bin/sh, as execvp does)" {
    t=$BATS_TEST_TMPDIR
    printf '#!/bin/sh\necho "script $1"; exit 3\n' >"$t/with"
    printf 'echo "bare $1"; exit 4\n' >"$t/bare"
    chmod +x "$t/with" "$t/bare"
    run --separate-stderr "$PLACERUN" -r "$t/r-%p" -- "$t/with" a
    assert_equal "$status" 3
    assert_output "script a"
    assert_equal "$stderr" ""
    run --separate-stderr "$PLACERUN" -r "$t/s-%p" -- "$t/bare" b
    assert_equal "$status" 4
    assert_output "bare b"
    assert_equal "$stderr" ""
}

@test "a statically linked program: a warning, and it runs with its own status" {
    t=$BATS_TEST_TMPDIR
    printf '#include <stdio.h>\nint main(void) { puts("static"); return 5; }\n' >"$t/static.c"
    gcc -static -o "$t/static" "$t/static.c" 2>/dev/null || skip "gcc -static does not link here (no libc.a?)"
    run --separate-stderr "$PLACERUN" -- "$t/static"
    assert_equal "$status" 5
    assert_output static
    assert_equal "$stderr" "placerun: $t/static is statically linked; libplace cannot act on a static binary (it runs without libplace; programs it starts are placed)"
    # a dynamic one gets no such warning (a static-pie neither would nor does have PT_INTERP)
    run --separate-stderr "$PLACERUN" -r "$t/r-%p" -- /bin/true
    assert_success
    assert_equal "$stderr" ""
}

# -- --check ---------------------------------------------------------------------------

@test "--check: every example policy has no errors" {
    for f in "$REPO"/config/examples/*.ini; do
        run --separate-stderr "$PLACERUN" --check "$f"
        assert_success
        assert_output ""
        [[ $stderr == "libplace: $f: no errors; tiers: "* ]] || {
            echo "$f: $stderr"
            return 1
        }
    done
}

@test "--check: a policy with an error, named by file and line, status 1" {
    cd "$BATS_TEST_TMPDIR"
    printf '[rule big]\nto = dram\nsize = 1X..\n' >bad.ini
    for form in "--check bad.ini" "-p bad.ini --check" "--check -p bad.ini"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$PLACERUN" $form
        assert_equal "$status" 1
        assert_output ""
        [[ $stderr == *"bad.ini:3: size = 1X..:"* ]]
    done
}

@test "--check with only --rule, and a file that cannot be read" {
    run --separate-stderr "$PLACERUN" --check --rule 'size=1M.. to=hbw,dram'
    assert_success
    [[ $stderr == "libplace: "*"no errors; "*"rules: rules-1"* ]]
    run --separate-stderr "$PLACERUN" --rule 'size=1X.. to=dram' --check
    assert_equal "$status" 1
    [[ $stderr == *"LIBPLACE_RULES rule 1: size = 1X..:"* ]]
    run --separate-stderr "$PLACERUN" --check "$BATS_TEST_TMPDIR/none.ini"
    assert_equal "$status" 1
    [[ $stderr == *"none.ini: cannot open it"* ]]
}

@test "--check with a library that does not load says nothing was checked" {
    echo "not a library" >"$BATS_TEST_TMPDIR/libfake.so"
    run --separate-stderr "$PLACERUN" --lib "$BATS_TEST_TMPDIR/libfake.so" --check "$REPO/config/examples/hbw-big-arrays.ini"
    assert_equal "$status" 125
    [[ $stderr == *"placerun: $BATS_TEST_TMPDIR/libfake.so did not load, so nothing was checked"* ]]
}

# -- usage -------------------------------------------------------------------------------

@test "usage errors: one line saying what is wrong, a usage line, status 2" {
    for args in "--bogus -- /bin/true" "-p" "--rule" "" "-r x" "--check" "--check a.ini b.ini" \
        "-p a.ini --check b.ini" "--dry-run=yes -- /bin/true"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$PLACERUN" $args
        assert_equal "$status" 2
        assert_output ""
        [ "${#stderr_lines[@]}" -eq 2 ] || {
            echo "placerun $args: $stderr"
            return 1
        }
        [[ ${stderr_lines[0]} == "placerun: "* ]]
        [[ ${stderr_lines[1]} == "usage: placerun "* ]]
    done
}

@test "--help and --version go to stdout, status 0" {
    run --separate-stderr "$PLACERUN" --help
    assert_success
    assert_line --index 0 --partial "usage: placerun"
    assert_equal "$stderr" ""
    run --separate-stderr "$PLACERUN" -h
    assert_success
    run --separate-stderr "$PLACERUN" --version
    assert_success
    assert_output --regexp '^placerun [0-9]+\.[0-9]+\.[0-9]+$'
}

# -- finding libplace.so --------------------------------------------------------------

@test "libplace.so: --lib, else LIBPLACE_LIB, else next to placerun's real location" {
    t=$BATS_TEST_TMPDIR
    # an install: bin/placerun and lib/libplace.so, called through a symbolic link
    mkdir -p "$t/inst/bin" "$t/inst/lib" "$t/elsewhere"
    cp "$PLACERUN" "$t/inst/bin/placerun"
    ln -s "$t/inst/bin/placerun" "$t/elsewhere/placerun"
    run --separate-stderr env -u LIBPLACE_LIB "$t/elsewhere/placerun" -- /bin/true
    assert_equal "$status" 125
    # (the last place is lib/<this machine's multiarch triplet>/libplace.so)
    [[ $stderr == "placerun: libplace.so not found; looked in $t/inst/build/libplace.so, $t/inst/lib/libplace.so, $t/inst/lib/"*"-linux-gnu/libplace.so (build it, or give it with --lib PATH or LIBPLACE_LIB)" ]]
    cp "$LIB" "$t/inst/lib/libplace.so"
    run --separate-stderr env -u LIBPLACE_LIB "$t/elsewhere/placerun" -- $PY -c 'import os; print(os.environ["LD_PRELOAD"])'
    assert_success
    assert_output "$t/inst/lib/libplace.so"
    # LIBPLACE_LIB and --lib come first; a relative --lib is made absolute
    run --separate-stderr env LIBPLACE_LIB="$LIB" "$t/elsewhere/placerun" -r "$t/r-%p" -- $PY -c 'import os; print(os.environ["LD_PRELOAD"])'
    assert_output "$LIB"
    cd "$t/inst"
    run --separate-stderr env LIBPLACE_LIB="$LIB" "$t/elsewhere/placerun" --lib lib/libplace.so -r "$t/s-%p" -- $PY -c 'import os; print(os.environ["LD_PRELOAD"])'
    assert_output "$t/inst/lib/libplace.so"
    run --separate-stderr "$PLACERUN" --lib "$t/nowhere.so" -- /bin/true
    assert_equal "$status" 125
    assert_equal "$stderr" "placerun: --lib: $t/nowhere.so: no such file; expected the path of libplace.so"
}
