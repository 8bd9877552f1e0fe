# Shared by install.bats and package.bats: what an install of libplace holds, and its
# placerun at work. Both take the install directories from $bindir, $libdir, $datadir,
# $includedir, $libexecdir and $mandir (absolute paths on the target, without the
# DESTDIR or the unpacked root that holds them).

# The files an install in root $1 must hold: says which are missing or wrong.
check_layout() {
    local r=$1 tools=$1$datadir/libplace f page bad=()
    for f in "$libdir/libplace.so" "$libdir/pkgconfig/libplace.pc" "$includedir/libplace.h" \
        "$datadir/libplace/libplace_tools/installed.py" \
        "$datadir/libplace/libplace_tools/policy.schema.json" \
        "$datadir/bash-completion/completions/placerun" \
        "$datadir/bash-completion/completions/place-report"; do
        [ -f "$r$f" ] || bad+=("$f: missing")
    done
    # the package, as it is in the tree, module for module
    for f in "$REPO"/scripts/libplace_tools/*.py; do
        [ -f "$tools/libplace_tools/${f##*/}" ] || bad+=("$datadir/libplace/libplace_tools/${f##*/}: missing")
    done
    [ -z "$(find "$tools" -name __pycache__)" ] || bad+=("$datadir/libplace: holds a __pycache__")
    for f in "$datadir/libplace/placerun" "$datadir/libplace/place-report" "$libexecdir/libplace/numa-vm"; do
        [ -f "$r$f" ] && [ -x "$r$f" ] || bad+=("$f: missing or not executable")
    done
    # a command in bindir: a relative link to the script beside its package
    for f in placerun place-report; do
        if [ ! -L "$r$bindir/$f" ]; then
            bad+=("$bindir/$f: not a link")
        elif [[ $(readlink "$r$bindir/$f") == /* ]]; then
            bad+=("$bindir/$f: links to an absolute path, $(readlink "$r$bindir/$f")")
        elif [ "$(readlink -f "$r$bindir/$f")" != "$(readlink -f "$tools/$f")" ]; then
            bad+=("$bindir/$f: links to $(readlink "$r$bindir/$f"), not to $datadir/libplace/$f")
        fi
    done
    # dh_installman compresses them
    for page in placerun.1 place-report.1 libplace.policy.5 libplace.7; do
        f=$mandir/man${page##*.}/$page
        [ -f "$r$f" ] || [ -f "$r$f.gz" ] || bad+=("$f: missing")
    done
    [ ${#bad[@]} -eq 0 ] || {
        echo "the install in $r:"
        printf '  %s\n' "${bad[@]}"
        return 1
    }
}

# Root $1's placerun runs programs under root $1's libplace.so: LD_PRELOAD names it,
# and a run with an inline rule writes a JSON report that root $1's place-report reads
# back, the rule's hit counted.
check_placerun() {
    local r=$1 t=$BATS_TEST_TMPDIR
    run --separate-stderr "$r$bindir/placerun" -- /bin/sh -c 'printf %s "$LD_PRELOAD"'
    assert_success
    assert_output "$r$libdir/libplace.so"
    run --separate-stderr "$r$bindir/placerun" -- /bin/true
    assert_success
    grep -q '^libplace: report of pid [0-9]* (true)' <<<"$stderr"
    LIBPLACE_REPORT_FORMAT=json run --separate-stderr "$r$bindir/placerun" \
        --rule 'size=1M.. to=hbw,dram' -r "$t/report-%p.json" -- \
        /usr/bin/python3 -c 'b = bytearray(4 << 20); print(len(b))'
    assert_success
    assert_output 4194304
    run "$r$bindir/place-report" render --no-lines "$t"/report-*.json
    assert_success
    assert_line --regexp '^program +python3$'
    run /usr/bin/python3 -c '
import json, sys
print(json.load(open(sys.argv[1]))["rules"][0]["hits"])' "$t"/report-*.json
    assert_output 1
}
