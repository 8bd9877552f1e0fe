#!/usr/bin/env bats
# One layout of the text report: what `place-report render --libplace` makes of a JSON
# report is the text libplace writes for the same figures, byte for byte, so that the
# library's walk (policy/report/walk*.c) and place-report's reading of it
# (scripts/libplace_tools/libplace_text.py) cannot drift apart.

load helpers

PLACE_REPORT=$REPO/scripts/place-report
SAMPLE=$BUILD/tests/report_sample

@test "a made-up snapshot that reaches every line and key: render --libplace of its JSON is its text" {
    cd "$BATS_TEST_TMPDIR"
    for snapshot in full exit plain; do
        "$SAMPLE" json $snapshot >$snapshot.json
        "$SAMPLE" text $snapshot >$snapshot.txt
        valid_report $snapshot.json
        "$PLACE_REPORT" render --libplace $snapshot.json >$snapshot.rendered
        diff $snapshot.txt $snapshot.rendered || fail "$snapshot: the layouts differ (< libplace, > place-report)"
    done
    # every part of the text is there to compare
    [ "$(wc -l <full.txt)" -ge 40 ]
    grep -q '^libplace: tier  *refused' full.txt
    grep -q '^libplace: symmetric heap: 1 call refused' full.txt
    grep -q '^libplace: 7 samples could not be kept' full.txt
    grep -q '^libplace: big: site libfoo.so:fo?_init names no function of the modules loaded (a stripped' full.txt
    grep -q '^libplace: halo: site app+0x12ab lies in no module loaded, so the rule cannot match$' full.txt
}

# The reports of $PROGS/sites under one policy, once as text and once as JSON, into
# r.text and r.json: the same run twice, each the same as the other but for the pid,
# the time and the machine's free memory. Addresses fixed (setarch -R), so that sites
# with equal bytes come out of the tables in the same order.
two_reports() {
    printf '[libplace]\nsample = all\n[tier a]\nkind = dram\nlimit = 64K\n[rule big]\nsize = 1K..\nto = a, dram\n[rule site]\nsite = *exe_alloc*\nto = a\non_full = overflow\n' >p.ini
    for format in text json; do
        setarch -R env LD_PRELOAD="$LIB" LIBPLACE_POLICY=p.ini LIBPLACE_REPORT="$PWD/r.$format" \
            LIBPLACE_REPORT_FORMAT=$format "$PROGS/sites" "$PROGS/libsites_plugin.so" >/dev/null
    done
}

# What differs between two runs of one program, made the same.
same_run() {
    sed -E 's/^(libplace: report of pid )[0-9]+ (.*), [0-9]+\.[0-9]{3} s,/\1PID \2, SECONDS s,/; s/(on this machine, ).* free$/\1FREE free/'
}

@test "a real run: render --libplace of its JSON report is its text report" {
    setarch -R true 2>/dev/null || skip "setarch -R is not allowed here"
    cd "$BATS_TEST_TMPDIR"
    two_reports
    valid_report r.json
    "$PLACE_REPORT" render --libplace r.json >r.rendered
    diff <(same_run <r.text) <(same_run <r.rendered) || fail "the layouts differ (< libplace, > place-report)"
    # the run reaches the tables and notes a run on this machine can have
    grep -q '^libplace: tier  *refused' r.text
    grep -q 'on_full = overflow' r.text
    grep -q 'fell back$' r.text
    grep -q '^libplace: allocation sites, every allocation' r.text
}

@test "render --libplace: a merged report is refused, as libplace never wrote one" {
    cd "$BATS_TEST_TMPDIR"
    "$PLACE_REPORT" merge "$REPO/tests/data/reports/rank0.json" "$REPO/tests/data/reports/rank1.json" -o merged.json
    run --separate-stderr "$PLACE_REPORT" render --libplace merged.json
    assert_equal "$status" 2
    assert_output ""
    assert_equal "$stderr" "place-report: merged.json: a merged report has no text report of libplace's own (it sums several processes); render it without --libplace"
}
