#!/usr/bin/env bats
# One byte formatter: placerun and place-report print sizes with libplace_tools.units,
# which must say what libplace's own place_size_str (policy/base/fmt.c) says, to the
# character, so that a figure reads the same in a report and in the tools.

load helpers

PY=/usr/bin/python3

# The values compared: every edge where the C code changes its mind (a unit's start, the
# rounding of the tenths, the step to the next unit at 1023.95), both signs, the ends of
# int64_t, and a seeded spread of the rest.
VALUES='
import random
units = [1024 ** u for u in range(7)]
values = {0, 1, 9, 10, 99, 100, 1023, 1024, 1025, 1535, 1536, 1537, 10 * 1024 * 1024 - 1,
          2 ** 40, 2 ** 62, 2 ** 63 - 1}
for unit in units[1:]:
    for mag in (unit, 1024 * unit, unit + unit // 20, 1023 * unit + 95 * unit // 100,
                (10239 * unit + unit // 2) // 10, (10235 * unit) // 10, 1024 * unit - 1):
        values.update(m for m in (mag - 1, mag, mag + 1) if 0 <= m < 2 ** 63)
r = random.Random(12)
for bits in range(1, 64):
    values.update(r.getrandbits(bits) for _ in range(8))
values |= {-v for v in values} | {-(2 ** 63)}
print("\n".join(str(v) for v in sorted(values) if -(2 ** 63) <= v < 2 ** 63))'

# the Python formatter, as the scripts reach it: from scripts/, under -I
PYTHON_SIDE='
import sys
sys.path.insert(0, sys.argv[1])
from libplace_tools.units import size_str
print("\n".join(size_str(int(v)) for v in sys.argv[2:]))'

@test "the Python tools format byte counts exactly as libplace's C place_size_str" {
    [ -x "$PROGS/size_str" ] # built with the tests: its absence is a failure
    mapfile -t values < <("$PY" -c "$VALUES")
    [ "${#values[@]}" -gt 500 ]
    "$PROGS/size_str" "${values[@]}" >"$BATS_TEST_TMPDIR/c"
    "$PY" -I -c "$PYTHON_SIDE" "$REPO/scripts" "${values[@]}" >"$BATS_TEST_TMPDIR/py"
    paste -d '\t' <(printf '%s\n' "${values[@]}") "$BATS_TEST_TMPDIR/c" "$BATS_TEST_TMPDIR/py" |
        awk -F '\t' '$2 != $3 { print "bytes " $1 ": C says \"" $2 "\", Python \"" $3 "\""; bad = 1 }
                     END { exit bad }'
    [ "$(wc -l <"$BATS_TEST_TMPDIR/c")" -eq "${#values[@]}" ]
    # and a few by heart, so that the two cannot agree on something else
    run "$PROGS/size_str" 0 512 1023 1024 1536 1048575 12897485 1073741824 -2147483648
    assert_output "0 B
512 B
1023 B
1.0 KiB
1.5 KiB
1.0 MiB
12.3 MiB
1.0 GiB
-2.0 GiB"
}

@test "placerun and place-report have no byte formatter of their own" {
    # the one formatter is units.size_str; a second would drift from C again
    run grep -rnE '"(KiB|MiB|GiB)"' "$REPO/scripts/placerun" "$REPO/scripts/place-report" \
        "$REPO/scripts/libplace_tools" --include='*.py' --include=placerun --include=place-report
    assert_output --regexp "^$REPO/scripts/libplace_tools/units.py:"
    [ "${#lines[@]}" -eq 1 ]
}
