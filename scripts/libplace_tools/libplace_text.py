"""A process's JSON report as libplace's own text report of it (report_format = text),
line for line: what `place-report render --libplace` prints, and the sentences the
render's tables share with it. The library's walk (policy/report/walk*.c) is the
reference; tests/bats/report_layout.bats holds the two equal, byte for byte."""

import re

from .report import OTHER_LIBRARIES, limit_text, plural, symmetric_size_text
from .units import size_str

PREFIX = "libplace: "
LINE_MAX = 1022  # bytes, the prefix in: place_line (policy/base/out.c) cuts a line there
FOLD_BUFFER = 64 << 20  # PLACE_FOLD_BUFFER (policy/engine/fold.h)
STATS_BATCH = 1 << 20  # PLACE_STATS_BATCH (policy/stats/counters.h)


def process_lines(doc):
    forked_from, ended_by = doc.get("forked_from"), doc.get("ended_by")
    origin = f", forked from pid {forked_from}" if forked_from is not None else ""
    signal = ended_by or doc.get("signal")
    asked = ""
    if signal is not None:
        asked = f", {'ended by' if ended_by else 'asked for by'} SIG{signal}"
    threads = doc["threads"]
    return ["report of pid %d (%s)%s%s, %.3f s, allocations from %s (%d %s)"
            % (doc["pid"], doc["program"], origin, asked, doc["seconds"],
               plural(threads["allocating"], "thread"), threads["at_exit"],
               "running" if signal is not None else "at exit")]


def policy_lines(policy):
    if not policy["rules"]:
        return ["no rules: every allocation stays with its own allocator (glibc, the CUDA "
                "driver, the SHMEM library)"]
    file = policy["file"] or ""
    inline = ""
    if policy["inline_rules"]:
        inline = " after LIBPLACE_RULES" if file else "LIBPLACE_RULES"
    lines = ["policy %s%s, %s, text hash %s"
             % (file, inline, plural(policy["rules"], "rule"), policy["hash"])]
    if policy["dry_run"]:
        lines.append("DRY RUN: every tier the policy declares is planned for as if this machine "
                     "had it; the memory itself came from dram, and a planned tier's figures are "
                     "the bytes asked of it")
    if policy.get("fold_min"):
        lines.append("FOLDED: planned blocks of %s or more share one %s buffer, so they take "
                     "almost no memory; what the program wrote in them is garbage"
                     % (size_str(policy["fold_min"]), size_str(FOLD_BUFFER)))
    return lines


PRESSURE = ("refused", "fallbacks_in", "waits", "overflows", "failures", "reclaimed_bytes",
            "skipped")


def use_row(n):
    return "%-12s %-8s %10s %10s %10s %12d %12d" % (
        n["name"], n["kind"], limit_text(n["limit"]),
        size_str(n["in_use"]), size_str(n["peak"]), n["allocations"], n["frees"])


def pressure_row(n):
    return "%-12s %8d %8d %8d %7d %8s %10s %8d %10s %8d" % (
        n["name"], n["refused"], n["fallbacks_out"], n["fallbacks_in"], n["waits"],
        "%.3fs" % n["wait_seconds"], size_str(n["overflow_peak"]), n["failures"],
        size_str(n["reclaimed_bytes"]), n["skipped"])


def machine_line(n):
    if not n["available"] and not n.get("planned"):
        return "%s: unavailable: %s; %s skipped it" % (
            n["name"], n["unavailable"], plural(n["skipped"], "request"))
    if not n["available"]:
        return f"{n['name']}: planned (this machine: {n['unavailable']})"
    if n["machine"] is not None:
        return (f"{n['name']}: {size_str(n['machine']['total'])} on this machine, "
                f"{size_str(n['machine']['free'])} free")
    return None


def near_line(n):
    """near = cpu: the HBW node each CPU node's threads take."""
    taken = ", ".join(f"node {cpus}'s CPUs take node {hbw}"
                      for cpus, hbw in sorted(n["near"].items(), key=lambda kv: int(kv[0])))
    return (f"{n['name']}: near = cpu, each block on the node nearest the CPU that "
            f"allocates it: {taken}")


def node_scope_line(n):
    """scope = node: the machine's count beside this process's."""
    v = n["node_scope"]
    return (f"{n['name']}: limit {size_str(n['limit'])} shared by this machine's processes "
            f"(scope = node, /dev/shm{v['region']}): {size_str(v['in_use'])} in use by "
            f"{v['processes']} process{'' if v['processes'] == 1 else 'es'} now, "
            f"{size_str(v['peak'])} at peak")


def machine_lines(n):
    """A tier's lines of the machine's part, in libplace's order (weights are left out:
    whether they came from the firmware is not in the JSON)."""
    return [line for line in (machine_line(n), n.get("near") and near_line(n),
                              n.get("node_scope") and node_scope_line(n)) if line]


def heap_line(name, h):
    """A library's own heap in a tier: also the render's words for it."""
    others = h["owner"] == OTHER_LIBRARIES
    keeps = "keep heaps of their own" if others else "keeps a heap of its own"
    return ("%s: %s %s here: %s in %s now, %s at peak; the blocks handed out inside are "
            "not seen" % (name, h["owner"], keeps, size_str(h["in_use"]),
                          plural(h["blocks"], "block"), size_str(h["peak"])))


def node_shares(v):
    """Each node's share of the verified pages on a node, as ": node 0 75.1%, node 1 24.9%",
    when the share on the tier's nodes does not tell it all (the pages are on more than
    one node, or on some node not the tier's); "" otherwise, and for a report without
    by_node. Also the render's words."""
    by_node = v.get("by_node", {})
    written = v["looked"] - v.get("untouched", 0)
    if not by_node or len(by_node) < 2 and v["placed"] == written:
        return ""
    shares = []
    for node in sorted(by_node, key=int):
        permille = by_node[node] * 1000 // written
        shares.append("node %s %d.%d%%" % (node, permille // 10, permille % 10))
    return ": " + ", ".join(shares)


def verified_line(name, v):
    if not v["resident"]:
        return f"{name}: no resident pages at exit to check (move_pages)"
    untouched = v.get("untouched", 0)
    written = v["looked"] - untouched
    permille = v["placed"] * 1000 // written if written else 1000
    untouched = ("; %d of the %d looked at never written (the kernel's zero page, on no node), "
                 "not counted" % (untouched, v["looked"]) if untouched else "")
    every = v["exhaustive"]
    return "%s: %d.%d%% of %s%s on its nodes (move_pages)%s%s%s" % (
        name, permille // 10, permille % 10, "all " if every else "",
        plural(v["looked"] if every else v["resident"], "resident page"),
        "" if every or v["looked"] == v["resident"] else ", from a sample", node_shares(v),
        untouched)


def node_lines(doc):
    nodes = doc["nodes"]
    lines = ["%-12s %-8s %10s %10s %10s %12s %12s"
             % ("tier", "kind", "limit", "in use", "peak", "allocations", "frees")]
    lines += [use_row(n) for n in nodes]
    lines += ["%s: %s more in threads' caches (free blocks, counted against its limit)"
              % (n["name"], size_str(n["cached"])) for n in nodes if n.get("cached")]
    pressed = [n for n in nodes if any(n[key] for key in PRESSURE)]
    if pressed:
        lines.append("%-12s %8s %8s %8s %7s %8s %10s %8s %10s %8s"
                     % ("tier", "refused", "fb out", "fb in", "waits", "waited", "overflow",
                        "failures", "reclaimed", "skipped"))
        lines += [pressure_row(n) for n in pressed]
    lines += [line for n in nodes for line in machine_lines(n)]
    lines += [heap_line(n["name"], h) for n in nodes for h in n.get("library_heaps", [])]
    lines += [verified_line(n["name"], n["verified"]) for n in nodes if n.get("verified")]
    sample = profile_of(doc)["sample"]
    if sample == "all":
        lines.append("dram counts what glibc served; its peak is exact to within %s per thread"
                     % size_str(STATS_BATCH))
    else:
        lines.append("dram counts what glibc served: its allocations and frees exactly, its bytes "
                     "in use and peak estimated from allocations sampled every %s asked (sample = "
                     "all: exact)" % size_str(sample))
    return lines


def symmetric_lines(heap):
    """A process's symmetric heap: also the render's words for it."""
    lines = ["symmetric heap: %s, peak %s (SHMEM_SYMMETRIC_SIZE=%s would hold it), in use %s, "
             "decisions %s" % (plural(heap["calls"], "call"), size_str(heap["peak"]),
                               symmetric_size_text(heap["suggested_size"]),
                               size_str(heap["in_use"]), heap["digest"])]
    lines += ["symmetric heap: pages bound to %s: %s in all, %d now (%s)"
              % (b["tier"], plural(b["binds"], "block"), b["blocks"], size_str(b["bytes"]))
              for b in heap["bound"]]
    if heap["refused"] or heap["unbindable"]:
        lines.append("symmetric heap: %s refused by the symmetric tier's limit; %s refused by "
                     "the kernel (mbind)"
                     % (plural(heap["refused"], "call"), plural(heap["unbindable"], "binding")))
    return lines


def rule_lines(rules):
    if not rules:
        return []
    lines = ["%-20s %12s %14s  %s" % ("rule", "hits", "bytes asked", "chain")]
    for r in rules:
        chain = ", ".join(r["chain"])
        if r["on_full"] != "fallback":
            chain += f" (on_full = {r['on_full']})"
        lines.append("%-20s %12d %14s  %s" % (r["name"], r["hits"], size_str(r["bytes"]), chain))
    for r in rules:
        missing = [s["pattern"] for s in r.get("sites", []) if not s["resolved"]]
        cannot = ", so the rule cannot match" if len(missing) == len(r.get("sites", [])) else ""
        for p in missing:
            if re.fullmatch(r"[^*?[:]+\+0x[0-9a-f]+", p):  # MODULE+0xOFFSET, as values.c reads it
                lines.append("%s: site %s lies in no module loaded%s" % (r["name"], p, cannot))
            else:
                lines.append("%s: site %s names no function of the modules loaded%s (a stripped "
                             "module's static functions have no names: MODULE+0xOFFSET names "
                             "their code, as the sites table writes it)" % (r["name"], p, cannot))
    return lines


def where(frame):
    """A code address as the report names it: "symbol (site)", or the site."""
    return f"{frame['symbol']} ({frame['site']})" if frame["symbol"] else frame["site"]


def told_apart(row, rows):
    """How many of row's frames the text names: up to the first where it differs from each
    other row that starts alike (libplace's report/walk_sites.c)."""
    sites = [f["site"] for f in row["frames"]]
    need = 1
    for other in rows:
        if other is row:
            continue
        same = 0
        for a, b in zip(sites, [f["site"] for f in other["frames"]]):
            if a != b:
                break
            same += 1
        need = max(need, same + 1)
    return min(need, len(sites))


def caller(frame):
    """A caller: its function without the module, or its site."""
    symbol = frame["symbol"]
    return symbol.split("!", 1)[-1] if symbol else frame["site"]


def split(bytes_by_tier):
    """The tiers that got bytes, in the nodes' order: "name size, name size"."""
    return ", ".join(f"{name} {size_str(n)}" for name, n in bytes_by_tier.items() if n)


def site_lines(sites):
    top = sites["top"]
    if not top:
        return []
    lines = ["top %s by bytes asked, of %d:" % (plural(len(top), "site"), sites["total"])]
    for s in top:
        head = "  %10s %9d x  " % (size_str(s["bytes"]), s["allocations"])
        if s["site"] is None:  # every site that found the table full
            lines.append(head + "(other sites: the site table was full)")
            continue
        fell = f"; {s['fallbacks']} fell back" if s["fallbacks"] else ""
        tiers = split({name: t["bytes"] for name, t in s["tiers"].items()})
        lines.append(f"{head}{where(s)}  {s['rule'] or 'no rule'} -> {tiers}{fell}")
    return lines


def profile_lines(profile, first_node):
    top = profile["top"]
    if not top:
        return access_lines(profile["access"]) if "access" in profile else []
    if profile["sample"] == "all":
        title = "allocation sites, every allocation (sample = all)"
    else:
        title = ("allocation sites, sampled every %s asked on average (estimates; sample = all "
                 "counts every one)" % size_str(profile["sample"]))
    lines = [f"{title}, top {len(top)} of {profile['total']}:",
             "  %10s %10s %10s %10s %10s  %s"
             % ("bytes", "calls", "live", "peak", "mean",
                "site (first frame past the allocation wrappers < its callers, as far as rows "
                "differ)")]
    for s in top:
        frames = s["frames"]
        at = where(frames[0]) if frames else "(other sites: the profile's table was full)"
        at += "".join(" < " + caller(f) for f in frames[1:told_apart(s, top)])
        tiers = split(s["tiers"]) if s["tiers"].get(first_node, 0) < s["bytes"] else ""
        lines.append("  %10s %10d %10s %10s %10s  %s%s%s" % (
            size_str(s["bytes"]), s["calls"], size_str(s["live"]), size_str(s["peak"]),
            size_str(s["mean_size"]), at, " -> " if tiers else "", tiers))
    if "access" in profile:
        lines += access_lines(profile["access"])
    if profile["lost"]:
        lines.append("%d samples could not be kept (no memory for the table): their frees are "
                     "not seen, so live bytes are overstated" % profile["lost"])
    return lines


def access_lines(access):
    """The access profile's part: what its figure means, the hottest sites, its cost."""
    tracked, untracked = access["tracked"], access["untracked"]
    hot, lines = access["hottest"], []
    minimum = size_str(access["min"])
    if access["state"] != "on":
        lines.append(f"access profile {access['state']}; sites ranked by bytes only")
    elif not tracked["blocks"]:
        lines.append(f"access profile: no block of {minimum} or more was allocated, none "
                     "tracked (profile_min)")
    else:
        mean_us = round(access["interval_mean_ms"] * 1000)
        n = access["intervals"]
        lines += [
            f"hottest sites per byte, of {len(hot)} tracked (blocks of {minimum} or more, "
            f"{plural(tracked['blocks'], 'block')}, {size_str(tracked['peak'])} at peak), read "
            f"{n} time{'' if n == 1 else 's'} every {mean_us // 1000}.{mean_us % 1000 // 100} ms "
            "on average:",
            "  touched: bytes of the site's blocks whose pages were accessed at least once in an "
            "interval, not a count of accesses; "
            + ("written: of its live bytes, the share written in the intervals read for it "
               "(soft-dirty bits); 4 KiB" if access["written"]
               else "written: not read (no soft-dirty bits here); 4 KiB") + " pages",
            "  %10s %10s %10s %8s %8s  %s" % (
                "peak", "touched", "most", "share", "written",
                "site (touched: per interval on average, most: in one interval; share: of its "
                "live bytes)")]

    def percent(share):
        return "-" if share is None else f"{(round(share * 1000) + 5) // 10}%"

    for s in hot:
        a = s["access"]
        at = where(s["frames"][0]) + "".join(
            " < " + caller(f) for f in s["frames"][1:told_apart(s, hot)])
        lines.append("  %10s %10s %10s %8s %8s  %s" % (
            size_str(a["peak"]), size_str(a["touched_mean"]), size_str(a["touched_peak"]),
            percent(a["touched_share"]), percent(a["written_share"]), at))
    if tracked["blocks"]:
        cost_us = round(access["cost_ms"] * 1000)
        lines.append("  the sampler took %d.%03d s of CPU" % (cost_us // 1000000,
                                                           cost_us // 1000 % 1000))
    if untracked["blocks"]:
        lines.append(f"  {plural(untracked['blocks'], 'block')} of {minimum} or more "
                     f"({size_str(untracked['bytes'])}) stayed untracked: an alignment past a "
                     "page, 8192 tracked blocks live already, or no mapping for it")
    return lines


def profile_of(doc):
    """A report from before the profile had none: dram's figures were then exact."""
    return doc.get("profile", {"sample": "all", "lost": 0, "total": 0, "top": []})


def libplace_text(doc):
    """The text report libplace writes for the run that wrote doc (a process's report, not
    a merged one)."""
    lines = process_lines(doc) + policy_lines(doc["policy"]) + node_lines(doc)
    if "symmetric" in doc:
        lines += symmetric_lines(doc["symmetric"])
    lines += rule_lines(doc["rules"]) + site_lines(doc["sites"])
    lines += profile_lines(profile_of(doc), doc["nodes"][0]["name"] if doc["nodes"] else None)
    return "".join((PREFIX + line).encode()[:LINE_MAX].decode(errors="ignore") + "\n"
                   for line in lines)
