#!/usr/bin/env bats
# Hostile and odd input (issue 18): a policy that is not a regular file, holds NUL bytes,
# is empty or is writable by anyone; sizes past what the counters hold; and a
# set-user-ID program, under which every LIBPLACE_* variable is ignored.

load helpers

ABORTS="libplace: policy not loaded (1 error): the program does not start (on_error = abort; on_error = passthrough runs it untouched)"

teardown() {
    # the set-user-ID test's copy of libplace in a system directory, whatever happened
    rm -f /usr/lib/x86_64-linux-gnu/libplace-setuid-test.so
    [ -z "${SETUID_WORK:-}" ] || rm -rf "$SETUID_WORK"
}

@test "a FIFO as the policy is refused at once, named, and never waited on" {
    mkfifo "$BATS_TEST_TMPDIR/policy.fifo"
    run --separate-stderr timeout 10 env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/policy.fifo" /bin/echo hi
    assert_equal "$status" 125 # not 124: timeout did not have to end it
    assert_output ""
    assert_equal "$stderr" "libplace: $BATS_TEST_TMPDIR/policy.fifo: not a regular file (a FIFO); expected a policy file
$ABORTS"
}

@test "a directory or a device as the policy is named with what it is" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR" /bin/echo hi
    assert_equal "$status" 125
    assert_equal "${stderr_lines[0]}" "libplace: $BATS_TEST_TMPDIR: not a regular file (a directory); expected a policy file"
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY=/dev/zero /bin/echo hi
    assert_equal "$status" 125
    assert_equal "${stderr_lines[0]}" "libplace: /dev/zero: not a regular file (a character device); expected a policy file"
}

@test "/proc/self/environ (size 0 in stat, NUL bytes inside) is read to its end and refused with file and line" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY=/proc/self/environ SECRET_TOKEN=hunter2 /bin/echo hi
    assert_equal "$status" 125
    assert_output ""
    assert_equal "$stderr" "libplace: /proc/self/environ:1: the line holds a NUL byte; expected a text file (a policy file is text, as [rule NAME] and key = value lines)
$ABORTS"
}

@test "a NUL byte later in a policy names its line" {
    printf '[rule a]\nto = dram\n; a comment\nsize = 1M..\0\n' >"$BATS_TEST_TMPDIR/nul.ini"
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/nul.ini" /bin/echo hi
    assert_equal "$status" 125
    assert_equal "${stderr_lines[0]}" "libplace: $BATS_TEST_TMPDIR/nul.ini:4: the line holds a NUL byte; expected a text file (a policy file is text, as [rule NAME] and key = value lines)"
}

@test "an empty policy (nothing, or only comments and blank lines) is an error naming the file" {
    for text in '' '; nothing yet\n\n# still nothing\n'; do
        printf "$text" >"$BATS_TEST_TMPDIR/empty.ini"
        run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/empty.ini" /bin/echo hi
        assert_equal "$status" 125
        assert_output ""
        assert_equal "$stderr" "libplace: $BATS_TEST_TMPDIR/empty.ini: the policy is empty; expected at least a [libplace], [tier NAME] or [rule NAME] section
$ABORTS"
    done
    # a [libplace] section alone is a policy: a report, nothing placed
    policy "$BATS_TEST_TMPDIR/report.ini" '[libplace]' 'report = stderr'
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/report.ini" /bin/echo hi
    assert_success
    assert_output hi
    [[ "$stderr" == *"libplace: "* ]]
}

@test "an empty value says what was expected, with examples" {
    policy "$BATS_TEST_TMPDIR/p.ini" '[rule a]' 'size =' 'to = dram'
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" /bin/echo hi
    assert_equal "$status" 125
    assert_equal "${stderr_lines[0]}" "libplace: $BATS_TEST_TMPDIR/p.ini:2: size = : no window; expected MIN..MAX with either end left out, as 1M.. for 1M and above, ..64K for up to 64K or 4K..64K"
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_RULES="to=hbw" LIBPLACE_LIMIT_HBW= /bin/echo hi
    assert_equal "$status" 125
    assert_equal "${stderr_lines[0]}" "libplace: LIBPLACE_LIMIT_HBW=: no size; expected a size such as 4096, 64K, 1M or 2G"
}

@test "a limit past INT64_MAX bytes is refused with the real maximum; the largest reads back as itself" {
    capped() { # $1 the limit
        policy "$BATS_TEST_TMPDIR/p.ini" '[tier capped]' 'kind = dram' "limit = $1" '[rule big]' \
            'size = 64K..' 'to = capped, dram'
    }
    cd "$BATS_TEST_TMPDIR"
    for limit in 9000P 16E 8E 9223372036854775808; do
        capped "$limit"
        run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" "$PROGS/limits" api
        assert_equal "$status" 125
        assert_equal "${stderr_lines[0]}" "libplace: $BATS_TEST_TMPDIR/p.ini:3: limit = $limit: '$limit' is too large; expected a size of at most 9223372036854775807 (8E - 1 byte), such as 4096, 64K, 1M or 2G"
    done
    capped 1M
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" LIBPLACE_LIMIT_CAPPED=9000P "$PROGS/limits" api
    assert_equal "$status" 125
    assert_equal "${stderr_lines[0]}" "libplace: LIBPLACE_LIMIT_CAPPED=9000P: '9000P' is too large; expected a size of at most 9223372036854775807 (8E - 1 byte), such as 4096, 64K, 1M or 2G"
    for limit in 9223372036854775807:9223372036854775807 7E:$((7 << 60)); do
        capped "${limit%:*}"
        run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/p.ini" "$PROGS/limits" api
        assert_success
        assert_output --regexp "^loaded 1 used [0-9]+ limit ${limit#*:} nosuch -2 report 0$"
    done
}

@test "a policy anyone may write is used, with one warning naming the file and the fix" {
    policy "$BATS_TEST_TMPDIR/open.ini" '[libplace]' "report = $BATS_TEST_TMPDIR/report.txt" \
        '[rule big]' 'size = 1M..' 'to = dram'
    chmod 666 "$BATS_TEST_TMPDIR/open.ini"
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/open.ini" /bin/echo hi
    assert_success
    assert_output hi
    assert_equal "$stderr" "libplace: $BATS_TEST_TMPDIR/open.ini: the policy file is writable by other users (mode 0666): anyone could change what this program does; chmod o-w $BATS_TEST_TMPDIR/open.ini"
    [ -s "$BATS_TEST_TMPDIR/report.txt" ]
    # writable by its owner and group only: nothing to say
    rm "$BATS_TEST_TMPDIR/report.txt"
    chmod 664 "$BATS_TEST_TMPDIR/open.ini"
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$BATS_TEST_TMPDIR/open.ini" /bin/echo hi
    assert_success
    assert_equal "$stderr" ""
}

# glibc, in secure-execution mode, preloads only set-user-ID libraries from its system
# directories, by bare name: libplace is copied there for this test alone (teardown removes
# it). The program is a copy of tests/progs/setuid_probe, set-user-ID nobody, run as root:
# euid != ruid, so the kernel sets AT_SECURE. setuid_probe prints AT_SECURE and which file
# defines place_api in the process (ld.so may name it through /lib, which merged-/usr
# systems link to /usr/lib): the test fails, rather than passing vacuously, unless
# both show that this really was a secure-mode process with libplace loaded.
@test "a set-user-ID program: every LIBPLACE_* variable is ignored, without a word" {
    [ "$(id -u)" = 0 ] || skip "needs root to make a set-user-ID program"
    local libdir=/usr/lib/x86_64-linux-gnu
    [ -d "$libdir" ] || skip "no $libdir (glibc's system library directory on x86-64 Debian)"
    SETUID_WORK=$(mktemp -d /tmp/libplace-setuid.XXXXXX)
    if findmnt -no OPTIONS --target "$SETUID_WORK" | grep -qw nosuid; then
        skip "/tmp is mounted nosuid"
    fi
    chmod 755 "$SETUID_WORK"
    mkdir -m 1777 "$SETUID_WORK/reports" # where nobody could create the report
    install -m 4755 "$LIB" "$libdir/libplace-setuid-test.so"
    install -m 4755 -o nobody "$PROGS/setuid_probe" "$SETUID_WORK/probe"
    # a file only nobody may read: what a confused program could be made to quote
    printf 'nobody:SECRET-TOKEN:19000::::::\n' >"$SETUID_WORK/secret"
    chown nobody "$SETUID_WORK/secret"
    chmod 600 "$SETUID_WORK/secret"

    for policy in /etc/shadow "$SETUID_WORK/secret"; do
        run --separate-stderr env LD_PRELOAD=libplace-setuid-test.so LIBPLACE_POLICY="$policy" \
            LIBPLACE_REPORT="$SETUID_WORK/reports/report-%p" LIBPLACE_RULES="to=hbw" \
            LIBPLACE_CHECK=1 LIBPLACE_NO_SUCH_VARIABLE=1 "$SETUID_WORK/probe"
        assert_success
        assert_equal "$stderr" ""
        assert_line "secure 1 ruid 0 euid $(id -u nobody)"
        assert_line --regexp "^place_api (/usr)?/lib/x86_64-linux-gnu/libplace-setuid-test.so$"
        assert_line "loaded 1"
        assert_line ran
        [ -z "$(ls -A "$SETUID_WORK/reports")" ]
    done

    # the same process, not set-user-ID: the same library, the variables read (the
    # contrast that shows the copy in the system directory is a working libplace)
    install -m 755 "$PROGS/setuid_probe" "$SETUID_WORK/plain"
    run --separate-stderr env LD_PRELOAD=libplace-setuid-test.so LIBPLACE_POLICY="$SETUID_WORK/secret" "$SETUID_WORK/plain"
    assert_equal "$status" 125
    [[ "$stderr" == *"SECRET-TOKEN"* ]]
    run --separate-stderr env LD_PRELOAD=libplace-setuid-test.so LIBPLACE_REPORT="$SETUID_WORK/reports/report-%p" "$SETUID_WORK/plain"
    assert_success
    assert_line "secure 0 ruid 0 euid 0"
    assert_line --regexp "^place_api (/usr)?/lib/x86_64-linux-gnu/libplace-setuid-test.so$"
    [ -n "$(ls -A "$SETUID_WORK/reports")" ]
}
