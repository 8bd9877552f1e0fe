"""place-report compare: two reports side by side, per node and per rule."""

from .report import limit_text, seconds, signed_size, start_text, table, who
from .units import size_str

CHANGE_MARK = 0.10  # compare marks figures that moved by more than this fraction


def ratio_cells(a, b, diff_text):
    """B-A, B/A and the mark of a change larger than CHANGE_MARK, for one figure present in
    one run or both (None where absent)."""
    if a is None or b is None:
        return ["-", "-", "*"]
    if a == 0:
        return [diff_text(b - a), "-", "*" if b != 0 else ""]
    changed = abs(b - a) > CHANGE_MARK * abs(a)
    return [diff_text(b - a), f"{b / a:.2f}x", "*" if changed else ""]


def figure_row(label, a, b, show, diff_text):
    return ([label, show(a) if a is not None else "-", show(b) if b is not None else "-"]
            + ratio_cells(a, b, diff_text))


def count_diff(d):
    return f"{d:+d}"


def seconds_diff(d):
    return ("+" if d > 0 else "") + seconds(d)


NODE_FIGURES = [("limit", "limit", limit_text, signed_size),
                ("peak", "peak", size_str, signed_size),
                ("in use", "in_use", size_str, signed_size),
                ("allocations", "allocations", str, count_diff),
                ("refused", "refused", str, count_diff),
                ("fallbacks out", "fallbacks_out", str, count_diff),
                ("fallbacks in", "fallbacks_in", str, count_diff),
                ("waits", "waits", str, count_diff),
                ("wait seconds", "wait_seconds", seconds, seconds_diff),
                ("overflows", "overflows", str, count_diff),
                ("overflow peak", "overflow_peak", size_str, signed_size),
                ("skipped", "skipped", str, count_diff)]
RULE_FIGURES = [("hits", "hits", str, count_diff),
                ("bytes asked", "bytes", size_str, signed_size)]


def section_rows(title, a, b, figures):
    """The section's figures, less those that are 0 (or absent) in both runs: they say
    nothing, and most figures of most nodes are 0."""
    rows = []
    for label, key, show, diff_text in figures:
        va, vb = a[key] if a else None, b[key] if b else None
        if va or vb:
            rows.append(figure_row("  " + label, va, vb, show, diff_text))
    return [[title]] + (rows or [["  (every figure 0)"]])


def paired(a_items, b_items):
    """(name, a or None, b or None) for each name of either list, A's order first."""
    a_named = {i["name"]: i for i in a_items}
    b_named = {i["name"]: i for i in b_items}
    names = list(dict.fromkeys([i["name"] for i in a_items] + [i["name"] for i in b_items]))
    return [(n, a_named.get(n), b_named.get(n)) for n in names]


def compare(a_name, a, b_name, b):
    lines = [f"A  {a_name}: {who(a)}, started {start_text(a['start'])}",
             f"B  {b_name}: {who(b)}, started {start_text(b['start'])}"]
    if a["policy"]["hash"] != b["policy"]["hash"]:
        lines.append(f"the policies differ: hash {a['policy']['hash']} (A), "
                     f"{b['policy']['hash']} (B)")
    rows = [figure_row("wall seconds", a["seconds"], b["seconds"], seconds, seconds_diff)]
    for name, na, nb in paired(a["nodes"], b["nodes"]):
        kind = (na or nb)["kind"]
        only = " (only in A)" if nb is None else " (only in B)" if na is None else ""
        rows += section_rows(f"node {name} ({kind}){only}", na, nb, NODE_FIGURES)
    for name, ra, rb in paired(a["rules"], b["rules"]):
        chain = ", ".join((ra or rb)["chain"])
        only = " (only in A)" if rb is None else " (only in B)" if ra is None else ""
        rows += section_rows(f"rule {name} (to {chain}){only}", ra, rb, RULE_FIGURES)
    lines.append("")
    lines += table(["", "A", "B", "B-A", "B/A", ""], rows, "lrrrrl")
    lines.append("")
    lines.append(f"* a change of more than {CHANGE_MARK:.0%}, or a figure only one run has; "
                 "figures 0 in both runs are left out")
    return "\n".join(lines) + "\n"
