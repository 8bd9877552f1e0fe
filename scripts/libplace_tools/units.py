"""Byte counts as text: one formatter, the same as libplace's C place_size_str
(policy/base/fmt.c), so that placerun, place-report and libplace's own report never
disagree about a figure. tests/bats/units.bats compares the two. And sizes as a policy
writes them, read and written.
"""

import re

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


# The policy's SIZES (libplace.policy(5)): digits, then K, M, G or T in either case, alone
# or with B or iB after it, each a power of 1024.
SIZE = re.compile(r"([0-9]+)(?:([KMGT])(?:I?B)?)?", re.IGNORECASE)
SIZE_MAX = (1 << 63) - 1  # libplace counts bytes in signed 64-bit counters


def parse_size(text):
    """Bytes of a size written as a policy writes it ("16G", "512MiB", "4096"), or None
    when it is not one: a fraction, another unit, more than SIZE_MAX."""
    m = SIZE.fullmatch(text.strip())
    if m is None:
        return None
    n = int(m.group(1)) << (10 * ("KMGT".index(m.group(2).upper()) + 1) if m.group(2) else 0)
    return n if n <= SIZE_MAX else None


def size_text(n):
    """n as a policy writes it, exact: "16G" where whole GiB, else a smaller unit, else bytes."""
    for shift, unit in ((40, "T"), (30, "G"), (20, "M"), (10, "K")):
        if n and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return str(n)
