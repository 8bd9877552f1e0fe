#!/usr/bin/env bats
# The report of the program placerun ran, when that program is a wrapper script that runs
# helpers before it execs the real one (pyenv's shims, conda's, environment modules',
# Spack's): the program keeps placerun's pid through the execs, and the report path is
# that process's report (LIBPLACE_REPORT_PID). The helpers, and the programs the program
# runs, report beside it, and only if they placed anything.

load helpers

PY=/usr/bin/python3

# Holds 16 blocks of 1 MiB from malloc itself (not Python's allocator, whose choice of
# malloc or mmap is its own), and prints its pid: the report's must be the same.
APP='
import ctypes, os
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
blocks = [libc.malloc(1 << 20) for _ in range(16)]
print(os.getpid())'

setup() {
    export LIBPLACE_LIB=$LIB
    # pyenv's shim in short: bash, through env, runs helpers, then execs the program
    mkdir "$BATS_TEST_TMPDIR/bin"
    cat >"$BATS_TEST_TMPDIR/bin/python3" <<EOF
#!/usr/bin/env bash
program=\$(basename "\$0")
here=\$(readlink -f "\$0")
exec $PY "\$@"
EOF
    chmod +x "$BATS_TEST_TMPDIR/bin/python3"
    WRAPPED=("env" "PATH=$BATS_TEST_TMPDIR/bin:$PATH")
    mkdir "$BATS_TEST_TMPDIR/out"
    cd "$BATS_TEST_TMPDIR/out"
}

# The files in the current directory, sorted, on one line.
files() {
    ls | LC_ALL=C sort | tr '\n' ' '
}

# JSON report $1 is python3's, of pid $3, not forked, with the app's 16 blocks or more in
# node $2.
programs_report() {
    local program rpid forked allocs
    run whose "$1" "$2"
    read -r program rpid forked allocs <<<"$output"
    assert_equal "$program $rpid $forked" "python3 $3 None"
    [ "$allocs" -ge 16 ]
}

# Prints "PROGRAM PID FORKED_FROM ALLOCATIONS-IN-NODE-$2" of JSON report $1.
whose() {
    with_json "n = {x['name']: x for x in d['nodes']}
print(d['program'], d['pid'], d['forked_from'], n['$2']['allocations'] if '$2' in n else '-')" "$1"
}

@test "-r FILE and a wrapper script: FILE is the program's report; the helpers, which placed nothing, write none" {
    run --separate-stderr "${WRAPPED[@]}" "$PLACERUN" -r out.json -- python3 -c "$APP"
    assert_success
    local pid=$output
    # nothing on stderr: no "the file exists", no report there
    assert_equal "$stderr" ""
    assert_equal "$(files)" "out.json "
    programs_report out.json dram "$pid"
    valid_report out.json
}

@test "--membind and a wrapper script: FILE is the program's; the helpers placed too, and report beside it" {
    run --separate-stderr "${WRAPPED[@]}" "$PLACERUN" --membind=0 -r out.json -- python3 -c "$APP"
    assert_success
    local pid=$output f
    assert_equal "$stderr" ""
    programs_report out.json membind "$pid"
    # one file each, named by program and pid, which say whose it is
    [[ $(files) =~ ^out\.basename-[0-9]+\.json\ out\.json\ out\.readlink-[0-9]+\.json\ $ ]] || {
        files
        false
    }
    for f in out.basename-*.json out.readlink-*.json; do
        run whose "$f" membind
        read -r program rpid forked allocs <<<"$output"
        assert_equal "$f" "out.$program-$rpid.json"
        [ "$allocs" -gt 0 ]
    done
    valid_report out*.json
}

@test "--membind with a window only the program's blocks reach: the helpers write nothing" {
    run --separate-stderr "${WRAPPED[@]}" "$PLACERUN" --membind=0:1M.. -r out.json -- python3 -c "$APP"
    assert_success
    local pid=$output
    assert_equal "$stderr" ""
    assert_equal "$(files)" "out.json "
    programs_report out.json membind "$pid"
}

@test "reports on stderr: the program's, and the helpers' only when they placed anything" {
    run --separate-stderr "${WRAPPED[@]}" "$PLACERUN" -- python3 -c "$APP"
    assert_success
    assert_equal "$(grep '^libplace: report of' <<<"$stderr" | sed 's/), .*/)/')" \
        "libplace: report of pid $output (python3)"
    run --separate-stderr "${WRAPPED[@]}" "$PLACERUN" --membind=0 -- python3 -c "$APP"
    assert_success
    assert_equal "$(sed -n 's/^libplace: report of pid [0-9]* (\([^)]*\)).*/\1/p' <<<"$stderr" | LC_ALL=C sort | tr '\n' ' ')" \
        "basename python3 readlink "
}

@test "the program's forked child reports beside FILE, not over it" {
    run --separate-stderr "${WRAPPED[@]}" "$PLACERUN" -r out.json -- python3 -c '
import os
child = os.fork()
if child == 0:
    raise SystemExit(0)  # an ordinary exit: the child writes its report
os.waitpid(child, 0)
print(os.getpid(), child)'
    assert_success
    assert_equal "$stderr" ""
    read -r pid child <<<"$output"
    assert_equal "$(files)" "out.json out.python3-$child.json "
    run whose out.json dram
    assert_equal "${output% *}" "python3 $pid None"
    run whose "out.python3-$child.json" dram
    assert_equal "${output% *}" "python3 $child $pid"
}

@test "a path with %p: each process's own file, the helpers' too, as without placerun" {
    run --separate-stderr "${WRAPPED[@]}" "$PLACERUN" -r 'r-%p.json' -- python3 -c "$APP"
    assert_success
    assert_equal "$stderr" ""
    assert_equal "$(for f in r-*.json; do whose "$f" dram | cut -d' ' -f1; done | LC_ALL=C sort | tr '\n' ' ')" \
        "basename python3 readlink "
    run whose "r-$output.json" dram
    assert_equal "${output%% *}" python3
}

@test "timeout hands FILE on: the program it starts writes it" {
    run --separate-stderr "$PLACERUN" -r out.json -- timeout 60 "$PY" -c "$APP"
    assert_success
    assert_equal "$stderr" ""
    assert_equal "$(files)" "out.json "
    local pid=$output
    run whose out.json dram
    assert_equal "${output% *}" "python3 $pid None"
}

@test "the program ends as a bash that ran the real one without exec: FILE gets no report, and libplace says so" {
    run --separate-stderr "$PLACERUN" -r out.json -- bash -c "$PY -c 'print(1)'; true"
    assert_success
    assert_output 1
    assert_equal "$(files)" ""
    [[ $stderr == "libplace: no report in $BATS_TEST_TMPDIR/out/out.json: process "[0-9]*" (LIBPLACE_REPORT_PID) ended as bash, a shell, which writes none, and the programs it ran report beside that path only if they placed anything; exec the program from the script, or put %p in the report path for every process's report" ]]
}

@test "LIBPLACE_REPORT_PID that is not a process id: the program does not start" {
    local v
    for v in "" x 12x 0 -3 99999999999; do
        run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT=stderr LIBPLACE_REPORT_PID="$v" /bin/echo hi
        assert_equal "$status" 125
        assert_output ""
        assert_equal "${stderr_lines[0]}" "libplace: LIBPLACE_REPORT_PID=$v: expected a process id, the process whose report the report path names (placerun sets it to the program's)"
    done
}

@test "placerun -- mpirun: the ranks report to their rank's path, mpirun and its helpers to none" {
    command -v mpirun || fail "openmpi-bin is not installed (scripts/setup installs it)"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        run --separate-stderr timeout 120 "$PLACERUN" -r 'rank%r.json' -- \
        mpirun --oversubscribe -np 2 "$PY" -c 'print(1)'
    assert_success
    assert_equal "$(files)" "rank0.json rank1.json "
    assert_equal "$(whose rank0.json dram | cut -d' ' -f1)" python3
}

@test "a timeout the program runs passes the claim on: FILE stays the program's, and timeout's command reports beside it" {
    run --separate-stderr "$PLACERUN" --membind=0 -r out.json -- "$PY" -c "
import os, subprocess
subprocess.run(['timeout', '60', '$PY', '-c', '''$APP'''], stdout=subprocess.DEVNULL, check=True)
print(os.getpid())"
    assert_success
    assert_equal "$stderr" ""
    programs_report out.json membind "$output"
    [[ $(files) =~ ^out\.json\ out\.python3-[0-9]+\.json\ $ ]] || {
        files
        false
    }
}

@test "an outer placerun's LIBPLACE_REPORT_PID does not reach what this one starts (a static program's children)" {
    [ -x /bin/busybox ] || skip "no static busybox"
    run --separate-stderr env LIBPLACE_REPORT_PID=1 "$PLACERUN" -r out.json -- \
        /bin/busybox sh -c 'echo "pid=${LIBPLACE_REPORT_PID:-none}"'
    assert_success
    assert_output "pid=none"
}
