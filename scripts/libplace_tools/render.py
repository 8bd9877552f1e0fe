"""place-report render: a report as text, with file:line of its sites from addr2line."""

import os
import re
import subprocess

from .libplace_text import heap_line, node_shares, symmetric_lines
from .report import (limit_text, plural, seconds, start_text, symmetric_majority,
                     symmetric_size_text, table)
from .units import size_str

def dry_run_text(policy):
    """The header's "dry run" field."""
    if not policy["dry_run"]:
        return "no"
    text = "yes: tiers were planned for, all memory came from dram"
    if policy.get("fold_min"):
        text += (f"; folded: planned blocks of {size_str(policy['fold_min'])} or more shared "
                 "one buffer, their contents garbage")
    return text


def header_lines(doc):
    pid = str(doc["pid"])
    if doc.get("forked_from") is not None:
        pid += f" (forked from pid {doc['forked_from']})"
    policy = doc["policy"]
    source = policy["file"] if policy["file"] is not None else "no file"
    if policy["inline_rules"]:
        source += " + inline rules (LIBPLACE_RULES)"
    threads = doc["threads"]
    fields = [
        ("program", doc["program"]),
        ("pid", pid),
        ("host", doc["host"]),
        ("rank", rank_text(doc)),
        ("start", start_text(doc["start"])),
        ("seconds", seconds(doc["seconds"])),
        ("threads", f"{threads['allocating']} allocating, {threads['at_exit']} at exit"),
        ("policy", f"{source}, {plural(policy['rules'], 'rule')}, hash {policy['hash']}"),
        ("dry run", dry_run_text(policy)),
    ]
    if doc.get("signal") is not None:
        fields.append(("signal", f"{doc['signal']} asked for this report"))
    if doc.get("ended_by") is not None:
        fields.append(("ended by", f"SIG{doc['ended_by']}: the report was written in its handler"))
    if isinstance(doc.get("merged"), list):
        fields.append(("merged", merged_text(doc["merged"])))
    width = max(len(k) for k, _ in fields)
    return [f"{k.ljust(width)}  {v}" for k, v in fields]


def merged_text(entries, shown=8):
    def one(e):
        if not isinstance(e, dict):
            return "?"
        where = f" on {e['host']}" if e.get("host") is not None else ""
        rank = f"rank {e['rank']}" if e.get("rank") is not None else "no rank"
        end = f", ended by SIG{e['ended_by']}" if e.get("ended_by") is not None else ""
        return f"pid {e.get('pid')} ({rank}{where}{end})"

    text = f"{plural(len(entries), 'report')}: " + ", ".join(one(e) for e in entries[:shown])
    if len(entries) > shown:
        text += f", and {len(entries) - shown} more"
    return text


def rank_text(doc):
    if doc["rank"] is not None:
        return doc["rank"]
    return "none (a merged report)" if isinstance(doc.get("merged"), list) \
        else "none (not an MPI process)"


def waits_text(node):
    if node["waits"] == 0 and node["wait_seconds"] == 0:
        return "0"
    return f"{node['waits']} ({seconds(node['wait_seconds'])} s)"


def overflow_text(node):
    """How far past its limit the node went at most, and how many allocations went past."""
    if node["overflows"] == 0 and node["overflow_peak"] == 0:
        return size_str(0)
    return f"{size_str(node['overflow_peak'])} ({plural(node['overflows'], 'allocation')})"


def node_lines(doc):
    header = ["node", "kind", "limit", "in use", "peak", "allocations", "frees", "refused",
              "fallbacks out", "fallbacks in", "waits", "overflow", "failures", "reclaimed",
              "skipped"]
    rows = [[n["name"], n["kind"], limit_text(n["limit"]), size_str(n["in_use"]),
             size_str(n["peak"]), str(n["allocations"]), str(n["frees"]), str(n["refused"]),
             str(n["fallbacks_out"]), str(n["fallbacks_in"]), waits_text(n),
             overflow_text(n), str(n["failures"]), size_str(n["reclaimed_bytes"]),
             str(n["skipped"])]
            for n in doc["nodes"]]
    lines = table(header, rows, "ll" + "r" * (len(header) - 2))
    for n in doc["nodes"]:
        if not n["available"]:
            reason = n["unavailable"] or "no reason given"
            planned = "; the dry run planned for it" if n.get("planned") else ""
            lines.append(f"{n['name']} is unavailable: {reason}{planned}")
    # in the text report's order: the heaps libraries keep, then the kernel's verdicts
    lines += [heap_line(n["name"], h) for n in doc["nodes"] for h in n.get("library_heaps", [])]
    for n in doc["nodes"]:
        v = n.get("verified")
        if isinstance(v, dict) and v.get("looked"):
            untouched = v.get("untouched", 0)
            written = v["looked"] - untouched
            share = 100.0 * v["placed"] / written if written > 0 else 100.0
            how = "all" if v.get("exhaustive") else f"a sample of {v['looked']} of"
            zero = (f"; {untouched} never written (the kernel's zero page), not counted"
                    if untouched else "")
            lines.append(f"{n['name']}: {share:.1f}% of its pages on its nodes "
                         f"({how} {v['resident']} resident pages, move_pages){node_shares(v)}"
                         f"{zero}")
    if isinstance(doc.get("merged"), list):
        lines.append("peak of a merged report: the sum of each process's peak (an upper bound)")
    return lines


PES_SHOWN = 16  # rows of a merged report's PE table, every divergent PE aside


def merged_symmetric_lines(heaps):
    """A merged report's PEs, one row each: the divergent ones all, the agreeing ones up
    to PES_SHOWN rows, as thousands of PEs that agree say no more than a few."""
    pes = heaps["pes"]
    most = symmetric_majority(pes)
    differs = [(pe["digest"], pe["calls"]) != most for pe in pes]
    divergent = [i for i, d in enumerate(differs) if d]
    agreeing = [i for i, d in enumerate(differs) if not d]
    shown = sorted(divergent + agreeing[:max(PES_SHOWN - len(divergent), 0)])
    rows = []
    for i in shown:
        pe = pes[i]
        binds = ", ".join(f"{b['tier']} {b['binds']}" for b in pe["bound"]) or "-"
        rows.append([pe["rank"] if pe["rank"] is not None else "-", str(pe["pid"]),
                     str(pe["calls"]), size_str(pe["peak"]), str(pe["refused"]),
                     str(pe["unbindable"]), binds, pe["digest"], "differs" if differs[i] else ""])
    title = (f"symmetric heap of {plural(len(pes), 'PE')} "
             f"(SHMEM_SYMMETRIC_SIZE={symmetric_size_text(heaps['suggested_size'])} would hold "
             "each one's):")
    header = ["PE", "pid", "calls", "peak", "refused", "unbindable", "binds", "decisions", ""]
    lines = [title] + table(header, rows, "rrrrrrlll")
    if len(shown) < len(pes):
        lines.append(f"and {plural(len(pes) - len(shown), 'PE')} more, as the most PEs")
    digest, calls = most
    if divergent:
        lines.append(f"{plural(len(divergent), 'PE')} of {len(pes)} made other symmetric "
                     f"allocations than the most PEs' ({plural(calls, 'call')}, decisions "
                     f"{digest}): every PE must make the same symmetric allocations; a limit "
                     "reached on one PE only is the usual cause")
    else:
        lines.append(f"every PE made the same symmetric allocations ({plural(calls, 'call')}, "
                     f"decisions {digest})")
    return lines


def rule_lines(doc):
    if not doc["rules"]:
        return ["rules: none"]
    rows = [[r["name"], str(r["hits"]), size_str(r["bytes"]), ", ".join(r["chain"]), r["on_full"]]
            for r in doc["rules"]]
    return table(["rule", "hits", "bytes asked", "chain", "on_full"], rows, "lrrll")


def tiers_text(tiers):
    """Where a site's bytes went, largest first: 'hbw 3.0 MiB / dram 1.0 MiB'."""
    ordered = sorted(tiers.items(), key=lambda kv: -kv[1]["bytes"])
    return " / ".join(f"{name} {size_str(t['bytes'])}" for name, t in ordered) or "-"


def site_lines(doc, locations):
    sites = doc["sites"]
    top = sites["top"]
    if not top:
        return [f"sites: none listed, of {sites['total']}"]
    rows = []
    for s in top:
        where = s["symbol"] or s["site"] or "(sites that did not fit the table)"
        found = locations.get((s["module"], s["offset"]))
        if found:
            function, place = found
            where += f" at {place}" if s["symbol"] else f" ({function} at {place})"
        rows.append([size_str(s["bytes"]), str(s["allocations"]), str(s["fallbacks"]),
                     s["rule"] or "-", tiers_text(s["tiers"]), where])
    title = f"top {plural(len(top), 'site')} by bytes asked, of {sites['total']}:"
    header = ["bytes", "allocations", "fallbacks", "rule", "tiers", "site"]
    return [title] + table(header, rows, "rrrlll")


def profile_lines(doc):
    profile = doc["profile"]
    top = profile["top"]
    every = ("every allocation" if profile["sample"] == "all"
             else f"sampled every {size_str(profile['sample'])} asked on average (estimates)")
    if not top:
        return [f"allocation sites, {every}: none"]
    rows = []
    for s in top:
        frames = s["frames"]
        where = (frames[0]["symbol"] or frames[0]["site"]) if frames else \
            "(other sites: the profile's table was full)"
        if len(frames) > 1:
            where += " < " + (frames[1]["symbol"] or frames[1]["site"])
        tiers = " / ".join(f"{name} {size_str(n)}"
                           for name, n in sorted(s["tiers"].items(), key=lambda kv: -kv[1]))
        rows.append([size_str(s["bytes"]), str(s["calls"]), size_str(s["live"]),
                     size_str(s["peak"]), size_str(s["mean_size"]), tiers or "-", where])
    title = f"allocation sites, {every}, top {len(top)} of {profile['total']}:"
    header = ["bytes", "calls", "live", "peak", "mean", "tiers", "site < its caller"]
    return [title] + table(header, rows, "rrrrrll")


def access_lines(access):
    """The access profile: the sites hottest per byte, and what the figures mean."""
    if access["state"] != "on":
        return [f"access profile {access['state']}"]
    tracked, hot = access["tracked"], access["hottest"]
    if not hot:
        return [f"access profile: no block of {size_str(access['min'])} or more was tracked"]

    def percent(share):
        return "-" if share is None else f"{round(share * 100)}%"

    rows = []
    for s in hot:
        a, frames = s["access"], s["frames"]
        where = (frames[0]["symbol"] or frames[0]["site"]) + (
            " < " + (frames[1]["symbol"] or frames[1]["site"]) if len(frames) > 1 else "")
        rows.append([size_str(a["peak"]), size_str(a["touched_mean"]),
                     size_str(a["touched_peak"]), percent(a["touched_share"]),
                     percent(a["written_share"]), f"{a['heat']:.3f}", where])
    title = (f"hottest sites per byte ({plural(tracked['blocks'], 'block')} of "
             f"{size_str(access['min'])} or more tracked, {size_str(tracked['peak'])} at peak; "
             f"{access['intervals']} intervals of {access['interval_mean_ms']:.0f} ms on average; "
             f"the sampler took {access['cost_ms'] / 1000:.3f} s of CPU):")
    header = ["peak", "touched", "most", "share", "written", "heat", "site < its caller"]
    notes = ["touched: bytes whose pages were accessed at least once in an interval (mean "
             "over the run), not a count of accesses; heat: touched over peak"]
    return [title] + table(header, rows, "rrrrrrl") + notes


def render(doc, resolve_lines):
    locations = source_locations(doc["sites"]["top"]) if resolve_lines else {}
    sections = [header_lines(doc), node_lines(doc)]
    if "symmetric" in doc:
        # a merged report's is the PEs side by side (merge.py), a process's its own heap
        sections.append(merged_symmetric_lines(doc["symmetric"]) if "merged" in doc
                        else symmetric_lines(doc["symmetric"]))
    sections += [rule_lines(doc), site_lines(doc, locations)]
    if "profile" in doc:
        sections.append(profile_lines(doc))
        if "access" in doc["profile"]:
            sections.append(access_lines(doc["profile"]["access"]))
    return "\n\n".join("\n".join(s) for s in sections) + "\n"


# -- file:line of sites, through addr2line -----------------------------------------------

ADDRESS_LINE = re.compile(r"0x[0-9a-fA-F]+$")


def source_locations(sites):
    """{(module, offset): (function, "file:line")} for the sites addr2line can place. One
    addr2line per module, as starting it (and reading the module's DWARF) is the cost."""
    by_module = {}
    for s in sites:
        module, offset = s["module"], s["offset"]
        if module and offset and offset > 0 and os.path.isfile(module):
            by_module.setdefault(module, set()).add(offset)
    found = {}
    for module, offsets in by_module.items():
        ordered = sorted(offsets)
        for offset, place in zip(ordered, addr2line(module, ordered)):
            if place:
                found[(module, offset)] = place
    return found


def addr2line(module, offsets):
    """(function, "file:line") or None per offset, in order; all None when addr2line is
    missing or fails, since a report is readable without lines."""
    # an offset is a return address: the call itself is the instruction before it
    addresses = [f"0x{o - 1:x}" for o in offsets]
    try:
        proc = subprocess.run(["addr2line", "-e", module, "-a", "-f", "-C", "-i", *addresses],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              errors="replace", timeout=120, check=False)
    except (OSError, subprocess.SubprocessError):
        return [None] * len(offsets)
    if proc.returncode != 0:
        return [None] * len(offsets)
    records = split_addr2line(proc.stdout.splitlines())
    if len(records) != len(offsets):
        return [None] * len(offsets)
    return [first_real_location(r) for r in records]


def split_addr2line(lines):
    """With -a every address opens its record, followed by (function, location) pairs, one
    per inlining level with -i, innermost first. A function name never looks like 0x..."""
    records = []
    i = 0
    while i < len(lines):
        if ADDRESS_LINE.match(lines[i]):
            records.append([])
            i += 1
        elif records and i + 1 < len(lines):
            records[-1].append((lines[i], lines[i + 1]))
            i += 2
        else:
            return []  # not the shape -a -f prints: use none of it
    return records


def first_real_location(pairs):
    for function, location in pairs:
        location = location.split(" (discriminator")[0]
        if not location.startswith("??") and not location.endswith((":0", ":?")):
            return function, location
    return None
