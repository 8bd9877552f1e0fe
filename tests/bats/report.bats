#!/usr/bin/env bats
# The exit report: where it goes, what it says, and what it never does to the program.

load helpers

report_of() { # the report of the process named $1 among the files of directory $2
    grep -l "^libplace: report of pid [0-9]* ($1)" "$2"/* | head -1
}

@test "LIBPLACE_REPORT=stderr: every line prefixed, stdout and exit status untouched" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT=stderr "$PROGS/forkexec"
    assert_equal "$status" 3
    assert_output "$("$PROGS/forkexec")"
    [ -n "$stderr" ]
    # four processes report: the parent, the exec'd child and the two forked children
    [ "$(grep -c '^libplace: report of pid' <<<"$stderr")" -eq 4 ]
    [ "$(grep -vc '^libplace: ' <<<"$stderr")" -eq 0 ]
    grep -q '^libplace: tier  *kind  *limit  *in use  *peak  *allocations  *frees$' <<<"$stderr"
    grep -Eq '^libplace: dram +dram +none +[0-9.]+ (B|KiB|MiB) +[0-9.]+ (B|KiB|MiB) +[0-9]+ +[0-9]+$' <<<"$stderr"
}

@test "the report reaches stderr even when the program closed it (coreutils do)" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT=stderr ls /
    assert_success
    grep -q '^libplace: report of pid [0-9]* (ls)' <<<"$stderr"
    # the copy of stderr sits on a high descriptor: the program's own open() calls get
    # the numbers they would without libplace
    opens='import os; print([os.open("/dev/null", os.O_RDONLY) for _ in range(5)])'
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT=stderr /usr/bin/python3 -c "$opens"
    assert_output "$(/usr/bin/python3 -c "$opens")"
    grep -q '^libplace: report of pid [0-9]* (python3)' <<<"$stderr"
}

@test "a report file per process, named by %p, with the process's own counts" {
    mkdir "$BATS_TEST_TMPDIR/r"
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/r/place-%p.txt" "$PROGS/forkexec"
    assert_equal "$status" 3
    [ "$(ls "$BATS_TEST_TMPDIR/r" | wc -l)" -eq 4 ]
    for f in "$BATS_TEST_TMPDIR"/r/place-*.txt; do
        pid=${f##*/place-}
        pid=${pid%.txt}
        grep -q "^libplace: report of pid $pid " "$f"
    done
    # the two forked children report counts of their own, not copies of their parent's
    [ "$(grep -l 'forked from pid' "$BATS_TEST_TMPDIR"/r/* | wc -l)" -eq 2 ]
    # child c allocated and freed 1000 blocks; its parent held 5000 more across the fork
    child_c=$(grep -l 'forked from pid' "$BATS_TEST_TMPDIR"/r/* | while read -r f; do
        read -r a fr < <(dram_counts "$f"); [ "$a" -ge 1000 ] && echo "$f"; done)
    [ -n "$child_c" ]
    read -r allocs frees < <(dram_counts "$child_c")
    [ "$allocs" -lt 1100 ] && [ "$frees" -ge 1000 ] && [ "$frees" -lt 1100 ]
}

@test "an existing report file is never overwritten; the report goes to stderr" {
    echo precious >"$BATS_TEST_TMPDIR/existing"
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/existing" /bin/echo out
    assert_success
    assert_output out
    assert_equal "$(cat "$BATS_TEST_TMPDIR/existing")" precious
    grep -q "^libplace: cannot create report $BATS_TEST_TMPDIR/existing: the file exists and libplace never overwrites one; the report follows on stderr$" <<<"$stderr"
    grep -q '^libplace: report of pid [0-9]* (echo)' <<<"$stderr"
}

@test "a symbolic link is not followed" {
    echo target >"$BATS_TEST_TMPDIR/target"
    ln -s "$BATS_TEST_TMPDIR/target" "$BATS_TEST_TMPDIR/link"
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/link" /bin/true
    assert_success
    assert_equal "$(cat "$BATS_TEST_TMPDIR/target")" target
    grep -q "^libplace: cannot create report $BATS_TEST_TMPDIR/link: it is a symbolic link, which libplace does not follow; the report follows on stderr$" <<<"$stderr"
}

@test "a report directory that does not exist: a clear line, the report on stderr, the program unharmed" {
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_REPORT=/nonexistent/dir/r-%p /usr/bin/python3 -c 'print("ok"); raise SystemExit(9)'
    assert_equal "$status" 9
    assert_output ok
    grep -Eq "^libplace: cannot create report /nonexistent/dir/r-[0-9]+: its directory does not exist; the report follows on stderr$" <<<"$stderr"
    grep -q '^libplace: report of pid [0-9]* (python3)' <<<"$stderr"
}

@test "%h, %r and %t expand in the report path" {
    mkdir "$BATS_TEST_TMPDIR/r"
    before=$(date -u +%s)
    run env LD_PRELOAD="$LIB" OMPI_COMM_WORLD_RANK=5 LIBPLACE_REPORT="$BATS_TEST_TMPDIR/r/%h.%r.%t.%%" /bin/true
    after=$(date -u +%s)
    assert_success
    run ls "$BATS_TEST_TMPDIR/r"
    assert_output --regexp "^$(hostname)\.5\.[0-9]{8}T[0-9]{6}Z\.%$"
    # %t is the start time in UTC
    stamp=$(sed -E 's/.*\.([0-9]{8}T[0-9]{6}Z)\..*/\1/' <<<"$output")
    t=$(date -u -d "${stamp:0:4}-${stamp:4:2}-${stamp:6:2} ${stamp:9:2}:${stamp:11:2}:${stamp:13:2}" +%s)
    [ "$t" -ge "$before" ] && [ "$t" -le "$after" ]
}

@test "%j, %q{NAME} and every launcher's rank variable expand in the report path" {
    mkdir "$BATS_TEST_TMPDIR/j"
    run env -u SLURM_JOB_ID -u PBS_JOBID -u LSB_JOBID -u FLUX_JOB_ID -u MY_RUN LD_PRELOAD="$LIB" \
        LIBPLACE_REPORT="$BATS_TEST_TMPDIR/j/%j.[%q{MY_RUN}]" /bin/true
    assert_success
    run env PBS_JOBID=77.server MY_RUN=a/b LD_PRELOAD="$LIB" \
        LIBPLACE_REPORT="$BATS_TEST_TMPDIR/j/%j.[%q{MY_RUN}]" /bin/true
    assert_success
    run ls "$BATS_TEST_TMPDIR/j"
    assert_output "77.server.[a_b]
nojob.[]"
    # the launchers' rank first, Slurm's last (srun also sets it for mpirun itself)
    for var in OMPI_COMM_WORLD_RANK PMIX_RANK PMI_RANK MV2_COMM_WORLD_RANK ALPS_APP_PE; do
        run env -u OMPI_COMM_WORLD_RANK SLURM_PROCID=9 "$var=3" LD_PRELOAD="$LIB" \
            LIBPLACE_REPORT="$BATS_TEST_TMPDIR/j/$var.%r" /bin/true
        assert_success
        [ -e "$BATS_TEST_TMPDIR/j/$var.3" ]
    done
}

@test "bytes now returns to what was live: a program that frees everything it made" {
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT="$BATS_TEST_TMPDIR/r" "$PROGS/dlopen_main" "$PROGS/libdlopen_lib.so"
    assert_success
    read -r allocs frees < <(dram_counts "$BATS_TEST_TMPDIR/r")
    [ "$allocs" -gt 5 ]
    # what is left is the libraries' own bookkeeping and stdout's buffer: a few blocks,
    # a few KiB
    [ $((allocs - frees)) -lt 20 ]
    grep -Eq '^libplace: dram +dram +none +[0-9.]+ (B|KiB) ' "$BATS_TEST_TMPDIR/r"
}

@test "a site's counts from threads that exited before the report are all in it" {
    # 8 threads one after another, each 100 blocks from thread_alloc: each hands its slot's
    # counts over as it exits
    local p=$BATS_TEST_TMPDIR/exited.ini
    policy "$p" "[tier node]" "kind = dram" "[rule w]" "site = thread_alloc" "to = node"
    run --separate-stderr env LD_PRELOAD="$LIB" LIBPLACE_POLICY="$p" LIBPLACE_REPORT=stderr "$PROGS/exited_sites"
    assert_success
    assert_output "8 threads"
    [[ "$stderr" =~ libplace:\ w\ +800\ +50\.0\ KiB\ +node ]]
    [[ "$stderr" =~ 50\.0\ KiB\ +800\ x\ +exited_sites!thread_alloc ]]
}

@test "a relative report path is taken from the directory the process started in" {
    mkdir -p "$BATS_TEST_TMPDIR/start%dir"
    cd "$BATS_TEST_TMPDIR/start%dir"
    run env LD_PRELOAD="$LIB" LIBPLACE_REPORT=rel-%p.txt /usr/bin/python3 -c 'import os; os.chdir("/"); print(os.getcwd())'
    assert_success
    assert_output /
    run ls "$BATS_TEST_TMPDIR/start%dir"
    assert_output --regexp '^rel-[0-9]+\.txt$'
}
