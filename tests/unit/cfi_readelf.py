#!/usr/bin/env python3
"""site/cfi.c against binutils: every row of the unwind tables of the libraries named,
as `readelf --debug-dump=frames-interp` reads them, turned into the rule cfi.c should
give at the row's first, middle and last byte; tests/unit/cfi_check (in this process's
libraries, loaded where they are) compares.

    cfi_readelf.py CFI_CHECK LIBRARY...
"""
import os
import re
import subprocess
import sys
import tempfile

KNOWN, CFA_BP, BP_SAVED, OUTERMOST = 1, 2, 4, 8


def rule_of(row):
    """The rule site/cfi.h packs for a readelf row, 0 for one the walker does not read."""
    m = re.match(r"^(rsp|rbp)([+-]\d+)$", row["CFA"])
    if not m:
        return 0
    if row.get("rsp", "u") not in ("u", "s"):
        return 0  # the caller's stack pointer is not the CFA
    rule = KNOWN | (int(m.group(2)) & 0xFFFFFFFF) << 32
    if m.group(1) == "rbp":
        rule |= CFA_BP
    ra, bp = row.get("ra", "?"), row.get("rbp", "u")
    if ra == "u":
        return rule | OUTERMOST
    if ra != "c-8":
        return 0
    if bp in ("u", "s"):
        return rule
    m = re.match(r"^c([+-]\d+)$", bp)
    if not m or int(m.group(1)) > -16:
        return 0
    return rule | BP_SAVED | (int(m.group(1)) & 0xFFFF) << 16


def rows(library):
    """(offset, rule) at each row's first, middle and last byte."""
    # readelf says 1 of a library without .debug_frame, whatever it printed of .eh_frame:
    # the rows counted in main() tell
    out = subprocess.run(["readelf", "--debug-dump=frames-interp", library],
                         capture_output=True, text=True).stdout.splitlines()
    k = 0
    while k < len(out):
        m = re.match(r"^[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ FDE cie=\S+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", out[k])
        k += 1
        if not m or k >= len(out) or not out[k].strip().startswith("LOC"):
            continue
        lo, hi = int(m.group(1), 16), int(m.group(2), 16)
        head = out[k].split()
        k += 1
        table = []
        while k < len(out) and re.match(r"^[0-9a-f]{16} ", out[k]):
            # a rule "in another register" is printed "r10 (r10)": one column
            table.append(dict(zip(head, re.sub(r"(r\d+) \((\w+)\)", r"\1(\2)", out[k]).split())))
            k += 1
        for n, row in enumerate(table):
            start = int(row["LOC"], 16)
            end = int(table[n + 1]["LOC"], 16) if n + 1 < len(table) else hi
            for pc in sorted({start, (start + end) // 2, end - 1}):
                if start <= pc < end:
                    yield pc, rule_of(row)


def main():
    check, libraries = sys.argv[1], sys.argv[2:]
    status = 0
    for library in libraries:
        with tempfile.NamedTemporaryFile("w", suffix=".rows") as f:
            n = 0
            for pc, rule in rows(library):
                f.write(f"{pc:x} {rule:x}\n")
                n += 1
            f.flush()
            if n < 1000:
                print(f"cfi_readelf: {library}: only {n} rows read", file=sys.stderr)
                status = 1
            status |= subprocess.run([check, library, f.name]).returncode
    return status


if __name__ == "__main__":
    sys.exit(main())
