"""Byte counts as text: one formatter, the same as libplace's C place_size_str
(policy/base/fmt.c), so that placerun, place-report and libplace's own report never
disagree about a figure. tests/bats/units.bats compares the two."""

UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")


def size_str(n):
    """Binary units, one decimal: "512 B", "1.5 KiB", "12.3 MiB", "-2.0 GiB".

    As in C: the unit is the one whose range [unit, 1024 unit) holds |n|, the tenths are
    rounded half up from the integer itself (no float), and a value that rounds to 1024.0
    is 1.0 of the next unit; EiB is the largest unit."""
    sign = "-" if n < 0 else ""
    mag = abs(int(n))
    if mag < 1024:
        return f"{sign}{mag} B"
    u, unit = 1, 1024
    while u < len(UNITS) - 1 and mag >= unit * 1024:
        unit *= 1024
        u += 1
    tenths = (mag * 10 + unit // 2) // unit
    if tenths >= 10240 and u < len(UNITS) - 1:
        tenths, u = 10, u + 1
    return f"{sign}{tenths // 10}.{tenths % 10} {UNITS[u]}"
