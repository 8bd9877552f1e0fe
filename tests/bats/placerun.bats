#!/usr/bin/env bats
# placerun, the command line: the environment it gives the program, that it execs the
# program (status, signals and stdio are the program's), --check, usage errors, where
# it finds libplace.so, and static programs.

load helpers

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
    policy pol.ini '[libplace]' 'report = from-policy-%p.txt   ; a file'
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
    policy bad.ini '[rule big]' 'to = dram' 'size = 1X..'
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

# placerun ARGS (split on spaces) must fail as a usage error: status 2, nothing on
# stdout, one line saying what is wrong and a usage line on stderr.
usage_error() {
    # shellcheck disable=SC2086
    run --separate-stderr "$PLACERUN" $1
    assert_equal "$status" 2
    assert_output ""
    [ "${#stderr_lines[@]}" -eq 2 ] || {
        echo "placerun $1: $stderr"
        return 1
    }
    [[ ${stderr_lines[0]} == "placerun: "* ]]
    [[ ${stderr_lines[1]} == "usage: placerun "* ]]
}

@test "usage errors: one line saying what is wrong, a usage line, status 2" {
    for args in "--bogus -- /bin/true" "-p" "--rule" "" "-r x" "--check" "--check a.ini b.ini" \
        "-p a.ini --check b.ini" "--dry-run=yes -- /bin/true"; do
        usage_error "$args"
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
    # an install: bin/placerun with its package beside it, and lib/libplace.so, called
    # through a symbolic link
    mkdir -p "$t/inst/bin" "$t/inst/lib" "$t/elsewhere"
    cp "$PLACERUN" "$t/inst/bin/placerun"
    cp -r "$REPO/scripts/libplace_tools" "$t/inst/bin/"
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

# placerun ARGS... must refuse to run its program because the library is not one that
# loads as libplace: status 125, the program not started, one line on stderr naming the
# library and what $1 (a pattern) says is wrong with it.
refuses_lib() {
    local why=$1
    shift
    rm -f "$BATS_TEST_TMPDIR/ran"
    run --separate-stderr "$@" -- /bin/sh -c "touch '$BATS_TEST_TMPDIR/ran'"
    assert_equal "$status" 125
    assert_output ""
    [ ! -e "$BATS_TEST_TMPDIR/ran" ] || {
        echo "the program ran: $*"
        return 1
    }
    [ "${#stderr_lines[@]}" -eq 1 ] || {
        echo "not one line: $stderr"
        return 1
    }
    [[ $stderr == "placerun: "$why"; expected the path of libplace.so" ]] || {
        echo "unexpected: $stderr"
        return 1
    }
}

@test "a library that does not load as libplace: refused with why, status 125, the program does not run" {
    t=$BATS_TEST_TMPDIR
    cp /etc/passwd "$t/text.so"
    : >"$t/empty.so"
    # libplace.so for another machine (e_machine AArch64) and needing a library that is nowhere
    $PY - "$LIB" "$t" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
open(sys.argv[2] + "/arm.so", "wb").write(data[:18] + bytes([183, 0]) + data[20:])
assert b"\0libc.so.6\0" in data
open(sys.argv[2] + "/needs.so", "wb").write(data.replace(b"\0libc.so.6\0", b"\0libq.so.6\0"))
PY
    refuses_lib "--lib: /etc/passwd: not an ELF shared object" "$PLACERUN" --lib /etc/passwd
    refuses_lib "--lib: $t/text.so: not an ELF shared object" "$PLACERUN" --lib "$t/text.so"
    refuses_lib "--lib: $t/empty.so: not an ELF shared object" "$PLACERUN" --lib "$t/empty.so"
    refuses_lib "--lib: $t/arm.so: built for AArch64 64-bit little-endian, not for this machine (*)" "$PLACERUN" --lib "$t/arm.so"
    refuses_lib "--lib: $t/needs.so: a library it needs does not load: libq.so.6 (cannot open shared object file*)" "$PLACERUN" --lib "$t/needs.so"
    # real shared objects that are not libplace: the C library's libm, a library of the tests
    libm=$($PY -c 'import ctypes.util, os; n = ctypes.util.find_library("m"); print(n or "")')
    libm=$(ldconfig -p 2>/dev/null | awk -v n="$libm" '$1 == n && /x86-64|64bit|AArch64/ { print $NF; exit }')
    [ -z "$libm" ] || refuses_lib "--lib: $libm: not libplace (it loads, but has no place_api)" "$PLACERUN" --lib "$libm"
    refuses_lib "--lib: $PROGS/libatfork_lib.so: not libplace (it loads, but has no place_api)" "$PLACERUN" --lib "$PROGS/libatfork_lib.so"
    # LIBPLACE_LIB, and the library found next to placerun, are tried the same way
    refuses_lib "LIBPLACE_LIB: $t/text.so: not an ELF shared object" env LIBPLACE_LIB="$t/text.so" "$PLACERUN"
    mkdir -p "$t/inst/bin" "$t/inst/lib"
    cp "$PLACERUN" "$t/inst/bin/placerun"
    cp -r "$REPO/scripts/libplace_tools" "$t/inst/bin/"
    cp "$PROGS/libatfork_lib.so" "$t/inst/lib/libplace.so"
    refuses_lib "$t/inst/lib/libplace.so: not libplace (it loads, but has no place_api)" env -u LIBPLACE_LIB "$t/inst/bin/placerun"
    # with a policy that names its report (libplace is asked where the report goes): the same
    policy "$t/pol.ini" '[libplace]' "report = $t/r-%p"
    refuses_lib "--lib: $t/text.so: not an ELF shared object" "$PLACERUN" -p "$t/pol.ini" --lib "$t/text.so"
    # and --check says why nothing was checked
    run --separate-stderr "$PLACERUN" --lib "$PROGS/libatfork_lib.so" --check "$t/pol.ini"
    assert_equal "$status" 125
    assert_equal "$stderr" "placerun: $PROGS/libatfork_lib.so did not load, so nothing was checked: not libplace (it loads, but has no place_api)"
    # the real one still runs the program, under libplace
    run --separate-stderr "$PLACERUN" --lib "$LIB" -r "$t/ok-%p" -- /bin/sh -c "touch '$t/ran'"
    assert_success
    [ -e "$t/ran" ]
    grep -q '^libplace: report of pid' "$t"/ok-*
}

# -- --tiers ---------------------------------------------------------------------------

# placerun --tiers without a GPU driver in its way: the machine's own ld.so.cache only.
tiers() {
    env -u LD_LIBRARY_PATH -u MEMKIND_HBW_NODES "$PLACERUN" --tiers "$@"
}

@test "--tiers: this machine's nodes with their CPUs, memory and distances; no GPU; no policy" {
    run --separate-stderr tiers
    assert_success
    assert_equal "$stderr" ""
    nodes=/sys/devices/system/node
    if [ -d "$nodes/node0" ]; then
        assert_line --regexp '^available: [0-9]+ nodes? \(0[-,0-9]*\)$'
        assert_line "node 0 cpus: $(cat "$nodes/node0/cpulist")"
        assert_line --regexp '^node 0 access: (read bandwidth [0-9]+ MB/s.* \(HMAT\)|unknown \(no HMAT figures\))$'
        assert_line --regexp '^node 0 memory tier: ([0-9]+|none \(no memory tiering\))$'
        assert_line --regexp '^node 0 kind: (DRAM \(has CPUs\)|HBM .*)$'
        assert_line "node distances:"
        assert_line --regexp "^ +0:( +[0-9]+)+$"
    else
        assert_line --regexp "^available: 1 node \(0\) \(no $nodes: "
    fi
    assert_line --regexp '^node 0 size: [0-9.]+ (B|KiB|MiB|GiB|TiB)$'
    assert_line --regexp '^node 0 free: [0-9.]+ (B|KiB|MiB|GiB|TiB)$'
    # memkind's view, whatever it is here, and libmemkind's answer or its absence
    assert_line --regexp '^HBW nodes: '
    assert_line --regexp '^memkind: (hbw_check_available\(\) = |libmemkind.so.0 not found)'
    if ! /sbin/ldconfig -p | grep -q 'libcuda\.so\.1 '; then
        assert_line "GPUs: none (no CUDA driver: libcuda.so.1 not found)"
    else
        assert_line --regexp '^GPUs: '
    fi
    assert_line "policy: no policy: every allocation stays in dram"
    # placerun needs no libplace.so for that
    run --separate-stderr env LIBPLACE_LIB="$BATS_TEST_TMPDIR/nowhere.so" "$PLACERUN" --tiers
    assert_success
}

@test "--tiers: MEMKIND_HBW_NODES names the HBW nodes, as memkind takes them" {
    run --separate-stderr env -u LD_LIBRARY_PATH MEMKIND_HBW_NODES=0 "$PLACERUN" --tiers
    assert_success
    assert_line "HBW nodes: 0 (from MEMKIND_HBW_NODES)"
    # memkind, if it is here, agrees: node 0 is HBW to it now
    assert_line --regexp '^memkind: (hbw_check_available\(\) = 0: |libmemkind.so.0 not found)'
    if [ ! -e /sys/devices/system/node/node7 ] && [ -d /sys/devices/system/node/node0 ]; then
        run --separate-stderr env -u LD_LIBRARY_PATH MEMKIND_HBW_NODES=0,7 "$PLACERUN" --tiers
        assert_success
        assert_line "HBW nodes: 0,7 (from MEMKIND_HBW_NODES; node 7 not on this machine)"
    fi
}

@test "--tiers -p: the policy's tiers and limits as libplace reads them, LIBPLACE_LIMIT_<TIER> included" {
    cd "$BATS_TEST_TMPDIR"
    # a dram-kind tier with a limit; where libplace does not take that yet, an hbw one
    policy pol.ini '[tier scratch]' 'kind = dram' 'limit = 64M' '[rule r]' 'size = 1M..' 'to = scratch'
    tier=scratch kind=dram
    if ! "$PLACERUN" --check pol.ini 2>/dev/null; then
        policy pol.ini '[tier fast]' 'kind = hbw' 'limit = 64M' '[rule r]' 'size = 1M..' \
            'to = fast, dram'
        tier=fast kind=hbw
    fi
    run --separate-stderr tiers -p pol.ini
    assert_success
    assert_equal "$stderr" ""
    assert_line "policy: pol.ini (rules: r; report: none)"
    assert_line --regexp '^tier +kind +limit$'
    assert_line --regexp '^dram +dram +none$'
    assert_line --regexp "^$tier +$kind +64\.0 MiB$"
    # the environment's limit is libplace's to apply; --rule and LIBPLACE_POLICY count too
    var=LIBPLACE_LIMIT_${tier^^}
    run --separate-stderr env "$var=1G" LIBPLACE_POLICY=pol.ini "$PLACERUN" --tiers --rule 'size=..4K to=hbw'
    assert_success
    assert_line "policy: pol.ini (rules: rules-1, r; report: none)"
    assert_line --regexp "^$tier +$kind +1\.0 GiB \($var\)$"
    assert_line --regexp '^hbw +hbw +none$'
}

@test "--tiers with a policy that has errors: libplace's errors on stderr, nothing else, status 1" {
    cd "$BATS_TEST_TMPDIR"
    policy bad.ini '[rule big]' 'to = dram' 'size = 1X..'
    run --separate-stderr tiers -p bad.ini
    assert_equal "$status" 1
    assert_output ""
    [[ $stderr == *"bad.ini:3: size = 1X..: 'X' is not a size unit"* ]]
    run --separate-stderr env LIBPLACE_RULES='size=1X.. to=dram' "$PLACERUN" --tiers
    assert_equal "$status" 1
    [[ $stderr == *"LIBPLACE_RULES rule 1: size = 1X..:"* ]]
    # and a libplace.so that does not load: nothing was checked
    echo "not a library" >libfake.so
    run --separate-stderr "$PLACERUN" --lib libfake.so --tiers -p bad.ini
    assert_equal "$status" 125
    assert_output ""
    [[ $stderr == *"placerun: $BATS_TEST_TMPDIR/libfake.so did not load, so nothing was checked"* ]]
}

@test "--tiers: the GPUs as libcuda.so.1 reports them, found through LD_LIBRARY_PATH; its failures are one line" {
    t=$BATS_TEST_TMPDIR
    mkdir -p "$t/cuda" "$t/crash" "$t/other"
    cat >"$t/cuda.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int cuInit(unsigned flags) { const char *e = getenv("FAKE_CUINIT"); (void)flags; return e ? atoi(e) : 0; }
int cuDriverGetVersion(int *v) { *v = 12040; return 0; }
int cuDeviceGetCount(int *n) { *n = 2; return 0; }
int cuDeviceGet(int *d, int i) { *d = i; return 0; }
int cuDeviceGetName(char *s, int len, int d) { snprintf(s, (size_t)len, "Fake GPU %d", d); return 0; }
int cuDeviceTotalMem_v2(size_t *b, int d) { *b = (size_t)(80 + d) << 30; return 0; }
int cuGetErrorName(int e, const char **s) { if (e != 100) return 1; *s = "CUDA_ERROR_NO_DEVICE"; return 0; }
C
    printf 'int cuInit(unsigned f) { (void)f; return *(volatile int *)0; }\n' >"$t/crash.c"
    printf 'int not_cuda;\n' >"$t/other.c"
    for lib in cuda crash other; do
        gcc -shared -fPIC -o "$t/$lib/libcuda.so.1" "$t/$lib.c" 2>/dev/null || skip "gcc cannot build a shared library here"
    done
    run --separate-stderr env LD_LIBRARY_PATH="$t/cuda" "$PLACERUN" --tiers
    assert_success
    assert_equal "$stderr" ""
    assert_line "GPUs: 2 (CUDA driver 12.4, $t/cuda/libcuda.so.1)"
    assert_line "gpu 0: Fake GPU 0, memory 80.0 GiB"
    assert_line "gpu 1: Fake GPU 1, memory 81.0 GiB"
    # cuInit fails: its code and name, no traceback
    run --separate-stderr env LD_LIBRARY_PATH="$t/cuda" FAKE_CUINIT=100 "$PLACERUN" --tiers
    assert_success
    assert_equal "$stderr" ""
    assert_line "GPUs: none (cuInit failed: error 100 CUDA_ERROR_NO_DEVICE; CUDA driver 12.4, $t/cuda/libcuda.so.1)"
    # a driver that crashes takes only the process that asked it; one that is no driver
    run --separate-stderr env LD_LIBRARY_PATH="$t/crash" "$PLACERUN" --tiers
    assert_success
    assert_line "GPUs: unknown (asking libcuda.so.1 killed the process that asked: signal 11, SIGSEGV)"
    assert_line "policy: no policy: every allocation stays in dram"
    run --separate-stderr env LD_LIBRARY_PATH="$t/other" "$PLACERUN" --tiers
    assert_success
    assert_line "GPUs: none ($t/other/libcuda.so.1 has no cuInit: not a CUDA driver?)"
}

# -- --verify --------------------------------------------------------------------------

@test "--verify: the program runs with LIBPLACE_VERIFY=all and keeps its exit status" {
    r=$BATS_TEST_TMPDIR/r-%p
    run --separate-stderr "$PLACERUN" --verify -r "$r" -- /bin/sh -c 'echo "verify=$LIBPLACE_VERIFY"; exit 7'
    assert_equal "$status" 7
    assert_output "verify=all"
    run --separate-stderr "$PLACERUN" --verify --dry-run -r "$r" -- /bin/sh -c 'echo "$LIBPLACE_VERIFY $LIBPLACE_DRY_RUN"'
    assert_success
    assert_output "all 1"
    # without --verify, placerun sets none
    run --separate-stderr "$PLACERUN" -r "$r" -- /bin/sh -c 'echo "verify=${LIBPLACE_VERIFY-unset}"'
    assert_success
    assert_output "verify=unset"
}

@test "--tiers and --verify: usage errors, and --help tells of both" {
    for args in "--tiers --check" "--tiers -- /bin/true" "--tiers pol.ini" "--verify --check x.ini" \
        "--verify --tiers" "--verify" "--tiers=yes" "--verify=all -- /bin/true"; do
        usage_error "$args"
        [[ ${stderr_lines[1]} == "usage: placerun "*"--verify"*"placerun --tiers"* ]]
    done
    run --separate-stderr "$PLACERUN" --help
    assert_success
    assert_line --regexp '^  --verify +check every resident page'
    assert_line --partial "(LIBPLACE_VERIFY=all)"
    assert_line --partial "placerun --tiers [--json] [-p POLICY]"
    assert_line --regexp '^  --tiers +'
}

# -- one-liners, -p -, the report's format, --tiers --json, --check on this machine ------

# The tests whose expected text is this machine's as CI has it: one NUMA node, no CUDA
# driver.
one_plain_node() {
    local nodes
    nodes=$(find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' | wc -l)
    [ "$nodes" -le 1 ] || skip "the expected text is a one-node machine's (this one has $nodes)"
    ! ldconfig -p | grep -q 'libcuda\.so\.1 ' || skip "the expected text is a machine's without a CUDA driver"
}

@test "one-liners: the rules and tiers each builds, in the order given with --rule's" {
    run --separate-stderr "$PLACERUN" -r "$BATS_TEST_TMPDIR/r-%p" --membind=0:1K.. --hbw=1M.. \
        --rule 'size=1..8 to=dram' --pinned --interleave=0,1 --membind=all -- /usr/bin/env
    assert_success
    output=$(sed -n 's/^LIBPLACE_RULES=//p' <<<"$output"; grep '^LIBPLACE_[KNP]' <<<"$output" | LC_ALL=C sort)
    assert_output "name=membind size=1K.. to=membind; name=hbw size=1M.. to=hbw,dram; size=1..8 to=dram; name=pinned to=pinned,dram; name=interleave to=interleave; name=membind2 to=membind2
LIBPLACE_KIND_INTERLEAVE=numa
LIBPLACE_KIND_MEMBIND2=numa
LIBPLACE_KIND_MEMBIND=numa
LIBPLACE_NODES_INTERLEAVE=0,1
LIBPLACE_NODES_MEMBIND2=all
LIBPLACE_NODES_MEMBIND=0
LIBPLACE_POLICY_INTERLEAVE=interleave
LIBPLACE_POLICY_MEMBIND2=bind
LIBPLACE_POLICY_MEMBIND=bind"
}

@test "--weighted-interleave: the weights' nodes, the weights and the window; --check warns of a node this machine lacks" {
    run --separate-stderr "$PLACERUN" --weighted-interleave=0:5,1:1:64M.. --weighted-interleave=0:1 -- /usr/bin/env
    assert_success
    output=$(sed -n 's/^LIBPLACE_RULES=//p' <<<"$output"; grep '^LIBPLACE_[KNPW]' <<<"$output" | LC_ALL=C sort)
    assert_output "name=weighted_interleave size=64M.. to=weighted_interleave; name=weighted_interleave2 to=weighted_interleave2
LIBPLACE_KIND_WEIGHTED_INTERLEAVE2=numa
LIBPLACE_KIND_WEIGHTED_INTERLEAVE=numa
LIBPLACE_NODES_WEIGHTED_INTERLEAVE2=0
LIBPLACE_NODES_WEIGHTED_INTERLEAVE=0,1
LIBPLACE_POLICY_WEIGHTED_INTERLEAVE2=weighted_interleave
LIBPLACE_POLICY_WEIGHTED_INTERLEAVE=weighted_interleave
LIBPLACE_WEIGHTS_WEIGHTED_INTERLEAVE2=0:1
LIBPLACE_WEIGHTS_WEIGHTED_INTERLEAVE=0:5,1:1"
    one_plain_node
    run --separate-stderr "$PLACERUN" --check --weighted-interleave=0:5,7:1
    assert_success
    assert_equal "${stderr_lines[1]}" "placerun: LIBPLACE_NODES_WEIGHTED_INTERLEAVE=0,7: warning: tier weighted_interleave: node 7 not on this machine (it has node 0)"
    run --separate-stderr "$PLACERUN" --weighted-interleave=0:x -- /bin/true
    assert_equal "$status" 125
    assert_equal "${stderr_lines[0]}" "libplace: LIBPLACE_WEIGHTS_WEIGHTED_INTERLEAVE=0:x: '0:x' is not NODE:WEIGHT; expected NODE:WEIGHT pairs, as 0:3,1:1 (nodes 0 to 63, weights 1 to 255), or bandwidth"
}

@test "--check warns of weights and near = cpu this machine cannot honour: no HMAT figure, weights naming a node that is not HBW, one HBW node" {
    one_plain_node
    [ ! -e /sys/devices/system/node/node0/access0/initiators/read_bandwidth ] || skip "the expected text is a machine's without HMAT"
    policy "$BATS_TEST_TMPDIR/w.ini" '[tier wide]' 'kind = numa' 'nodes = 0' 'policy = weighted_interleave' \
        'weights = bandwidth' '[tier fast]' 'kind = hbw' 'policy = weighted_interleave' 'weights = 0:1,1:1' \
        '[tier near]' 'kind = hbw' 'near = cpu' '[rule all]' 'to = wide, fast, near'
    MEMKIND_HBW_NODES=0 run --separate-stderr "$PLACERUN" --check -p "$BATS_TEST_TMPDIR/w.ini"
    assert_success
    assert_equal "$(grep -c warning <<<"$stderr")" 3
    grep -qx "placerun: $BATS_TEST_TMPDIR/w.ini:5: warning: tier wide: weights = bandwidth, but the firmware gives node 0 no read bandwidth (placerun --tiers shows what it gives); the tier will be unavailable" <<<"$stderr"
    grep -qx "placerun: $BATS_TEST_TMPDIR/w.ini:9: warning: tier fast: weights name node 1, not high-bandwidth memory here (HBW nodes: 0); the tier will be unavailable" <<<"$stderr"
    grep -qx "placerun: $BATS_TEST_TMPDIR/w.ini:12: warning: tier near: near = cpu, but node 0 is this machine's one HBW node: every thread takes it" <<<"$stderr"
}

@test "--membind places for real: the window's blocks in the numa tier, every resident page on node 0" {
    run --separate-stderr "$PLACERUN" --membind=0:64K.. --verify -r "$BATS_TEST_TMPDIR/r.json" -- \
        $PY -c '
import ctypes
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
# never freed: live, and resident, when libplace checks their pages at exit
blocks = [libc.malloc(1 << 20) for _ in range(8)]
for b in blocks:
    ctypes.memset(b, 1, 1 << 20)
print(len(blocks))'
    assert_success
    assert_output 8
    valid_report "$BATS_TEST_TMPDIR/r.json"
    run $PY -c '
import json, sys
r = json.load(open(sys.argv[1]))
n = next(n for n in r["nodes"] if n["name"] == "membind")
v = n["verified"]
# untouched: pages of the tier the kernel never populated, on no node; every other page
# looked at on node 0, the one node of this machine
print(n["kind"], n["allocations"] >= 8, v["placed"] >= 8 * 256, v["placed"] + v["untouched"] == v["looked"],
      v["by_node"] == {"0": v["looked"] - v["untouched"]})' \
        "$BATS_TEST_TMPDIR/r.json"
    assert_output "numa True True True True"
}

@test "one-liners: numactl's node syntax judged by libplace, usage errors by placerun" {
    one_plain_node
    run --separate-stderr "$PLACERUN" --membind='!0' -- /bin/true
    assert_equal "$status" 125
    assert_equal "${stderr_lines[0]}" "libplace: LIBPLACE_NODES_MEMBIND=!0: '!0' leaves none of the nodes this process may use (0); expected a list that keeps at least one"
    run --separate-stderr "$PLACERUN" --preferred=+1 -- /bin/true
    assert_equal "$status" 125
    assert_equal "${stderr_lines[0]}" "libplace: LIBPLACE_NODES_PREFERRED=+1: '+1' counts past the node this process may use (0); expected +N with N below 1"
    run --separate-stderr "$PLACERUN" --hbw=1X.. -- /bin/true
    assert_equal "$status" 125
    assert_equal "${stderr_lines[0]}" "libplace: LIBPLACE_RULES rule 1: size = 1X..: 'X' is not a size unit; expected a size such as 4096, 64K, 1M or 2G"
    for args in "--membind" "--membind=" "--membind=:1M.." "--hbw=1M..;x" "--interleave=0,1=2" \
        "--format xml" "--json -- /bin/true" "--dry-run=yes"; do
        usage_error "$args"
    done
}

@test "-p -: the policy from standard input, in LIBPLACE_INLINE_POLICY; errors name it and the line" {
    policy=$(printf '[libplace]\nreport = %s\nreport_format = json\n[rule big]\nsize = 64K..\nto = hbw, dram\n' "$BATS_TEST_TMPDIR/r.json")
    # the report is the program's, the process placerun ran: the shell's last command,
    # exec'd; cat, which the shell runs first, placed nothing and writes none
    run --separate-stderr "$PLACERUN" -p - -- /bin/sh -c 'cat; exec /bin/echo "[${LIBPLACE_POLICY-unset}]"' <<<"$policy"
    assert_success
    # placerun read all of standard input: the program gets what is left, nothing
    assert_output "[unset]"
    [ "$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["policy"]["rules"])' "$BATS_TEST_TMPDIR/r.json")" = 1 ]
    run --separate-stderr "$PLACERUN" -p - --check <<<"$policy"
    assert_success
    [[ ${stderr_lines[0]} == *"libplace: LIBPLACE_INLINE_POLICY: no errors; tiers: dram (dram), hbw (hbw); rules: big"* ]]
    run --separate-stderr "$PLACERUN" -p - -- /bin/true <<<$'[rule big]\nsise = 1M..\nto = hbw'
    assert_equal "$status" 125
    assert_equal "${stderr_lines[0]}" "libplace: LIBPLACE_INLINE_POLICY:2: sise = 1M..: sise is not a key of [rule big]; expected one of api, size, site, depth, to, on_full, wait"
    run --separate-stderr env LIBPLACE_POLICY=/dev/null LIBPLACE_INLINE_POLICY=x LD_PRELOAD="$LIB" LIBPLACE_CHECK=1 /bin/true
    assert_failure
    assert_equal "${stderr_lines[0]}" "libplace: LIBPLACE_INLINE_POLICY: set with LIBPLACE_POLICY; expected one policy, a file or a text"
}

@test "-r: a .json path gets JSON that place-report reads, another path text; --format decides over both" {
    t=$BATS_TEST_TMPDIR
    "$PLACERUN" -r "$t/a.json" -- /bin/true
    "$PLACERUN" -r "$t/b.txt" -- /bin/true
    "$PLACERUN" -r "$t/c.txt" --format json -- /bin/true
    policy "$t/p.ini" '[libplace]' 'report_format = json'
    "$PLACERUN" -p "$t/p.ini" -r "$t/d.report" -- /bin/true
    run "$REPO/scripts/place-report" render "$t/a.json"
    assert_success
    assert_line --partial "true"
    valid_report "$t/c.txt"
    grep -q '^libplace: report of pid' "$t/b.txt"
    grep -q '^libplace: report of pid' "$t/d.report"
}

@test "--tiers --json: the machine, the policy as libplace reads it, the warnings, as one JSON object" {
    one_plain_node
    policy "$BATS_TEST_TMPDIR/p.ini" '[tier far]' 'kind = numa' 'nodes = 0,7' '[rule a]' 'to = far'
    run --separate-stderr "$PLACERUN" --tiers --json -p "$BATS_TEST_TMPDIR/p.ini" --hbw=1G..
    assert_success
    run $PY -c '
import json, sys
d = json.loads(sys.stdin.read())
m = d["machine"]
print(sorted(n["node"] for n in m["nodes"]) == sorted(int(x[4:]) for x in __import__("os").listdir("/sys/devices/system/node") if x[4:].isdigit()))
print(all(n["total"] > 0 for n in m["nodes"]), m["gpus"]["count"], m["hbw"]["nodes"])
print([t["name"] for t in d["policy"]["tiers"]], [r["name"] for r in d["policy"]["rules"]])
for w in d["warnings"]: print(w["at"], w["message"][:23])' <<<"$output"
    assert_output "True
True 0 []
['dram', 'far', 'hbw'] ['hbw', 'a']
$BATS_TEST_TMPDIR/p.ini:3 tier far: node 7 not on
LIBPLACE_RULES rule 1 tier hbw: memkind finds"
}

@test "--check against this machine: absent nodes, HBW and GPUs, limits above memory: warnings at file:line, status 0" {
    one_plain_node
    t=$BATS_TEST_TMPDIR
    policy "$t/p.ini" <<'INI'
[tier far]
kind = numa
nodes = 5-6
limit = 900G
[tier fast]
kind = hbw
[tier gpu]
kind = device
device = 3
[tier near]
kind = numa
nodes = 0
[rule a]
api = any
to = far, fast, gpu, near
INI
    total=$(($(awk '/MemTotal/ {print $4}' /sys/devices/system/node/node0/meminfo) * 1024))
    run --separate-stderr "$PLACERUN" --check "$t/p.ini"
    assert_success
    assert_equal "${stderr_lines[1]}" "placerun: $t/p.ini:3: warning: tier far: nodes 5-6 not on this machine (it has node 0)"
    assert_equal "${stderr_lines[2]}" "placerun: $t/p.ini:5: warning: tier fast: memkind finds no high-bandwidth memory here (placerun --tiers says why); its allocations will take the rest of their chains"
    assert_equal "${stderr_lines[3]}" "placerun: $t/p.ini:7: warning: tier gpu: no GPU here (GPUs: none (no CUDA driver: libcuda.so.1 not found)); its allocations will take the rest of their chains"
    [ "${#stderr_lines[@]}" -eq 4 ] || { echo "$stderr"; false; }
    # a limit above its nodes' memory; a GPU index the driver does not have
    policy "$t/q.ini" <<INI
[tier near]
kind = numa
nodes = 0
limit = $((total + 4096))
[tier gpu]
kind = device
device = 3
[rule a]
api = any
to = near, gpu
INI
    mkdir "$t/cuda"
    printf 'int cuInit(unsigned f) { (void)f; return 0; }\nint cuDeviceGetCount(int *n) { *n = 2; return 0; }\n' >"$t/cuda.c"
    gcc -shared -fPIC -o "$t/cuda/libcuda.so.1" "$t/cuda.c"
    run --separate-stderr env LD_LIBRARY_PATH="$t/cuda" "$PLACERUN" --check "$t/q.ini"
    assert_success
    [[ ${stderr_lines[1]} == "placerun: $t/q.ini:4: warning: tier near: limit "*" is more than the "*" of node 0; the memory runs out before the limit is reached" ]]
    assert_equal "${stderr_lines[2]}" "placerun: $t/q.ini:7: warning: tier gpu: GPU 3 is not here (the driver sees 2 GPUs, 0 to 1)"
    # a machine that has what the policy asks: no warning
    run --separate-stderr "$PLACERUN" --check --membind=0 --rule 'size=1M.. to=dram'
    assert_success
    [ "${#stderr_lines[@]}" -eq 1 ]
}
