"""place-report merge: the reports of one job's processes as one report, valid against
the schema. A merged report is a report of the version read with one key more, "merged": the
processes it sums ({"pid", "rank", "host", "program", "hash", "ended_by", "forked_from"}
each). Its "symmetric", when the processes used OpenSHMEM's symmetric heap, is of its own
shape: the PEs' heaps side by side ({"pes", "divergent", "suggested_size"})."""

from .report import (EXIT_USAGE, LIBRARY_HEAP_FIELDS, NODE_COUNTERS, START_FORMAT, TIMELINE_MAX,
                     VERSION, Failure, parse_start, plural, rank_order, say, symmetric_majority)

def check_policies(reports, force):
    hashes = {}
    for name, doc in reports:
        hashes.setdefault(doc["policy"]["hash"], []).append(name)
    if len(hashes) == 1:
        return

    def files(names):
        return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")

    listing = "; ".join(f"hash {h} in {files(n)}" for h, n in hashes.items())
    if not force:
        raise Failure(f"the reports come from different policies ({listing}): their figures "
                      "do not add up; --force merges them anyway", EXIT_USAGE)
    say(f"warning: merging reports of different policies ({listing}); "
        f"the merged report carries the policy of {reports[0][0]}")


def check_ranks(reports, force):
    """Each rank once: a second process claiming a rank is a launcher or a helper the job
    ran with the rank's environment (a forked child shares its parent's rank and is not a
    second claim, nor is one process's report given twice)."""
    claims = {}
    for name, doc in reports:
        for e in merged_inputs([doc]):
            if e.get("rank") is not None and e.get("forked_from") is None:
                processes = claims.setdefault(e["rank"], {})
                processes.setdefault((e.get("host"), e.get("pid")),
                                     f"{name} (pid {e.get('pid')}, {e.get('program')})")
    twice = {rank: list(p.values()) for rank, p in claims.items() if len(p) > 1}
    if not twice:
        return
    listing = "; ".join(f"rank {rank}: {', '.join(names)}" for rank, names in twice.items())
    if not force:
        raise Failure(f"more than one process claims a rank ({listing}): a launcher or a helper "
                      "the job ran wrote one (report_only = PROGRAM in the policy keeps them "
                      "quiet); --force merges them anyway", EXIT_USAGE)
    say(f"warning: merging reports that claim the same rank ({listing})")


def agreed(docs, key):
    """The value every process has for key, or None when they differ."""
    values = {d.get(key) for d in docs}
    return values.pop() if len(values) == 1 else None


def joined_distinct(entries, key, docs):
    """'solver' when every process agrees, else 'solver, python3': taken from the processes
    (the entries of `merged`), so that merging merged reports does not repeat names."""
    values = [e[key] for e in entries if isinstance(e.get(key), str)] or [d[key] for d in docs]
    return ", ".join(dict.fromkeys(values))


def merge(reports, force):
    """One report for the processes of one job, valid against the schema. The process
    figures are summed; see merge_node for what that means for peak, limit and timeline."""
    check_policies(reports, force)
    check_ranks(reports, force)
    docs = [doc for _, doc in reports]
    starts = [parse_start(d["start"]) for d in docs]
    first_start = min(starts)
    # each process's timeline counts from its own start: shift it onto the earliest one
    shifts = [(s - first_start).total_seconds() for s in starts]
    inputs = merged_inputs(docs)
    return {
        "schema": "libplace-report",
        "version": VERSION,
        "pid": docs[0]["pid"],
        "forked_from": None,
        "program": joined_distinct(inputs, "program", docs),
        "host": joined_distinct(inputs, "host", docs),
        "rank": None,
        "start": first_start.strftime(START_FORMAT),
        "seconds": round(max(shift + d["seconds"] for shift, d in zip(shifts, docs)), 6),
        "signal": agreed(docs, "signal"),
        "ended_by": agreed(docs, "ended_by"),
        "threads": {k: sum(d["threads"][k] for d in docs) for k in ("allocating", "at_exit")},
        "policy": dict(docs[0]["policy"]),
        "nodes": merge_nodes(docs, shifts),
        "rules": merge_rules(docs),
        "sites": merge_sites(docs),
        **({"profile": merge_profiles(docs)} if any("profile" in d for d in docs) else {}),
        **({"symmetric": merge_symmetric(docs)} if any("symmetric" in d for d in docs)
           else {}),
        "merged": inputs,
    }


def merged_inputs(docs):
    entries = []
    for d in docs:
        if isinstance(d.get("merged"), list):  # merging merged reports: list the processes
            entries.extend(e for e in d["merged"] if isinstance(e, dict))
        else:
            entries.append({"pid": d["pid"], "rank": d["rank"], "host": d["host"],
                            "program": d["program"], "hash": d["policy"]["hash"],
                            "ended_by": d.get("ended_by"), "forked_from": d.get("forked_from")})
    return entries


def by_name(items, key):
    """{key: [item, ...]} in the order keys first appear; key is a field's name or a
    function of the item."""
    groups = {}
    for item in items:
        groups.setdefault(key(item) if callable(key) else item[key], []).append(item)
    return groups


def merge_nodes(docs, shifts):
    """Nodes matched by name, in the order they first appear (dram first, as in a report)."""
    groups = {}
    for shift, d in zip(shifts, docs):
        for node in d["nodes"]:
            groups.setdefault(node["name"], []).append((shift, d["host"], node))
    return [merge_node(name, group) for name, group in groups.items()]


def merge_node(name, group):
    nodes = [n for _, _, n in group]
    merged = {
        "name": name,
        "kind": nodes[0]["kind"],
        # processes of one job share a policy, so one limit per process; should they differ,
        # the largest says the most about what any process was allowed
        "limit": max(n["limit"] for n in nodes),
        **node_availability(nodes),
        # a sum of peaks: the processes need not have peaked at the same moment, so this
        # is an upper bound of the job's peak (the timeline has the real sum over time);
        # overflow_peak, a sum among NODE_COUNTERS, is one in the same way
        "peak": sum(n["peak"] for n in nodes),
        "in_use": sum(n["in_use"] for n in nodes),
        # blocks threads' caches hold: counted against the limit, not in use
        "cached": sum(n.get("cached", 0) for n in nodes),
        "wait_seconds": round(sum(n["wait_seconds"] for n in nodes), 6),
        "machine": machine_memory(group),
        "timeline": decimate(sum_timelines([(shift, n["timeline"]) for shift, _, n in group])),
    }
    for key in NODE_COUNTERS:
        merged[key] = sum(n[key] for n in nodes)
    for key in ("reclaim_min", "reclaim_target"):
        values = {n[key] for n in nodes if key in n}
        if len(values) == 1:
            merged[key] = values.pop()
    if any("planned" in n for n in nodes):
        merged["planned"] = any(n.get("planned", False) for n in nodes)
    heaps = by_name([h for n in nodes for h in n.get("library_heaps", [])], "owner")
    if heaps:
        # every PE of an NVSHMEM job keeps its own heap: the job's is their sum, by library
        merged["library_heaps"] = [
            {"owner": owner, **{key: sum(h[key] for h in held)
                                for key, _, _ in LIBRARY_HEAP_FIELDS if key != "owner"}}
            for owner, held in heaps.items()]
    return merged


def node_availability(nodes):
    missing = [n for n in nodes if not n["available"]]
    if not missing:
        return {"available": True, "unavailable": None}
    reasons = "; ".join(dict.fromkeys(n["unavailable"] or "no reason given" for n in missing))
    if len(missing) < len(nodes):
        reasons += f" (in {len(missing)} of {len(nodes)} processes)"
    return {"available": False, "unavailable": reasons}


def machine_memory(group):
    """The machines' memory for the tier: counted once per host, since every process on a
    host sees the same memory; null when any host's is unknown."""
    per_host = {}
    for _, host, node in group:
        per_host.setdefault(host, node["machine"])
    if any(m is None for m in per_host.values()):
        return None
    return {k: sum(m[k] for m in per_host.values()) for k in ("total", "free")}


def sum_timelines(series):
    """The sum of step functions given as (shift, [[t, bytes], ...]): each is 0 before its
    first point and holds each value until its next point (and its last one after)."""
    deltas = {}
    for shift, timeline in series:
        previous = 0
        for t, value in timeline:
            at = round(shift + t, 6)
            deltas[at] = deltas.get(at, 0) + value - previous
            previous = value
    points, total = [], 0
    for at in sorted(deltas):
        total += deltas[at]
        if not points or total != points[-1][1]:  # an unchanged value adds nothing to a step
            points.append([at, total])
    return points


def decimate(points, limit=TIMELINE_MAX):
    """At most `limit` points that keep the shape: the first and last, and the lowest and
    highest of each of equal runs between, so no peak disappears (plain sampling would)."""
    if len(points) <= limit:
        return points
    inner = list(range(1, len(points) - 1))
    runs = (limit - 2) // 2
    keep = {0, len(points) - 1}
    for r in range(runs):
        run = inner[r * len(inner) // runs:(r + 1) * len(inner) // runs]
        if run:
            keep.add(min(run, key=lambda i: points[i][1]))
            keep.add(max(run, key=lambda i: points[i][1]))
    return [points[i] for i in sorted(keep)]


def merge_rules(docs):
    groups = by_name([r for d in docs for r in d["rules"]], "name")
    merged = []
    for name, rules in groups.items():
        m = {"name": name, "hits": sum(r["hits"] for r in rules),
             "bytes": sum(r["bytes"] for r in rules), "chain": list(rules[0]["chain"]),
             "on_full": rules[0]["on_full"]}
        patterns = {}  # each resolved when some process's modules named it
        for r in rules:
            for site in r.get("sites", []):
                patterns[site["pattern"]] = patterns.get(site["pattern"], False) or site["resolved"]
        if patterns:
            m["sites"] = [{"pattern": p, "resolved": v} for p, v in patterns.items()]
        merged.append(m)
    return merged


def merge_sites(docs):
    # the null site (what did not fit a process's table) is one group of its own
    groups = by_name([s for d in docs for s in d["sites"]["top"]], "site")
    top = [merge_site(sites) for sites in groups.values()]
    top.sort(key=lambda s: -s["bytes"])  # stable: ties keep the order they came in
    named = sum(1 for key in groups if key is not None)
    # processes of one program share most sites, so a sum of totals would overcount: the
    # most any one process saw, or the distinct sites listed, is a lower bound
    total = max([d["sites"]["total"] for d in docs] + [named])
    return {"total": total, "top": top}


def merge_site(sites):
    tiers = {}
    for s in sites:
        for name, t in s["tiers"].items():
            into = tiers.setdefault(name, {"allocations": 0, "bytes": 0})
            into["allocations"] += t["allocations"]
            into["bytes"] += t["bytes"]
    first = sites[0]
    merged = {k: first[k] for k in ("site", "symbol", "module", "offset", "rule")}
    for key in ("allocations", "bytes", "fallbacks"):
        merged[key] = sum(s[key] for s in sites)
    merged["tiers"] = tiers
    return merged


def merge_profiles(docs):
    """The processes' profiles as one, a site being its frames: estimates add up, and so
    do peaks (each process's own: a bound on the job's). Processes sampled at different
    rates still add up (each estimate is unbiased); the rate shown is the first's."""
    profiles = [d["profile"] for d in docs if "profile" in d]
    # the site without frames (what did not fit a process's table) is a group of its own
    groups = by_name([s for p in profiles for s in p["top"]],
                     lambda s: tuple(f["site"] for f in s["frames"]))
    top = sorted((merge_profile_site(sites) for sites in groups.values()),
                 key=lambda s: -s["bytes"])
    named = sum(1 for frames in groups if frames)
    merged = {"sample": profiles[0]["sample"], "lost": sum(p["lost"] for p in profiles),
              "total": max([p["total"] for p in profiles] + [named]), "top": top}
    accesses = [p["access"] for p in profiles if "access" in p]
    if accesses:
        merged["access"] = merge_access(accesses)
    return merged


def merge_profile_site(sites):
    merged = {"frames": sites[0]["frames"]}
    for key in ("samples", "calls", "bytes", "live", "peak"):
        merged[key] = sum(s[key] for s in sites)
    merged["mean_size"] = round(merged["bytes"] / merged["calls"]) if merged["calls"] else 0
    tiers = {}
    for s in sites:
        for name, n in s["tiers"].items():
            tiers[name] = tiers.get(name, 0) + n
    merged["tiers"] = tiers
    accessed = [s["access"] for s in sites if "access" in s]
    if accessed:
        merged["access"] = merge_site_access(accessed)
    return merged


HOTTEST = 32  # the sites libplace lists hottest per byte


def merge_access(accesses):
    """The processes' access profiles as one: counts and bytes add up (peaks too: a bound
    on the job's), the hottest sites are merged by frames and ranked again."""
    on = [a for a in accesses if a["state"] == "on"]
    if not on:
        return accesses[0]
    intervals = sum(a["intervals"] for a in on)
    groups = by_name([s for a in on for s in a["hottest"]],
                     lambda s: tuple(f["site"] for f in s["frames"]))
    hottest = sorted((merge_profile_site(sites) for sites in groups.values()),
                     key=lambda s: -s["access"]["heat"])[:HOTTEST]
    return {"state": "on", "min": min(a["min"] for a in on), "interval_ms": on[0]["interval_ms"],
            "interval_mean_ms": round(sum(a["interval_mean_ms"] * a["intervals"] for a in on)
                                      / intervals, 3) if intervals else 0,
            "intervals": intervals,
            "tracked": {k: sum(a["tracked"][k] for a in on) for k in ("blocks", "live", "peak")},
            "untracked": {k: sum(a["untracked"][k] for a in on) for k in ("blocks", "bytes")},
            "written": any(a["written"] for a in on),
            "cost_ms": round(sum(a["cost_ms"] for a in on), 3), "meaning": on[0]["meaning"],
            "hottest": hottest}


def merge_site_access(accessed):
    """One site's access figures over the processes: bytes add up, shares are of the
    bytes together, its span is the union of theirs."""
    merged = {"blocks": sum(a["blocks"] for a in accessed),
              "first_ms": min(a["first_ms"] for a in accessed),
              "last_ms": None if any(a["last_ms"] is None for a in accessed)
              else max(a["last_ms"] for a in accessed)}
    for key in ("peak", "live_mean", "touched_mean", "touched_peak"):
        merged[key] = sum(a[key] for a in accessed)
    live = merged["live_mean"]
    merged["touched_share"] = round(min(merged["touched_mean"] / live, 1), 3) if live else 0
    written = [a for a in accessed if a["written_share"] is not None]
    written_live = sum(a["live_mean"] for a in written)
    merged["written_share"] = (round(sum(a["written_share"] * a["live_mean"] for a in written)
                                     / written_live, 3) if written_live else None)
    merged["heat"] = round(merged["touched_mean"] / merged["peak"], 3) if merged["peak"] else 0
    return merged


# -- the symmetric heap ------------------------------------------------------------------

DIVERGENT_NAMED = 8  # PEs a warning names; the merged report lists them all


def merge_symmetric(docs):
    """The PEs' symmetric heaps side by side, in rank order: every PE of an OpenSHMEM job
    must make the same symmetric allocations, so these are compared, not summed. A PE
    whose decisions (digest and calls) are not the most PEs' is divergent, and said so;
    the merge goes on, as the figures still add up. Processes without a symmetric heap
    (a launcher, a helper) are not PEs."""
    pes = sorted(symmetric_pes(docs), key=lambda pe: (rank_order(pe["rank"]), pe["pid"]))
    most = symmetric_majority(pes)
    divergent = [pe for pe in pes if (pe["digest"], pe["calls"]) != most]
    if divergent:
        warn_divergent(divergent, most, len(pes))
    return {"pes": pes, "divergent": [pe["rank"] for pe in divergent],
            # what SHMEM_SYMMETRIC_SIZE must be for every PE, as the job sets one for all
            "suggested_size": max(pe["suggested_size"] for pe in pes)}


def symmetric_pes(docs):
    pes = []
    for d in docs:
        if "symmetric" not in d:
            continue
        if "merged" in d:  # merging merged reports: their PEs
            pes.extend(d["symmetric"]["pes"])
            continue
        heap = d["symmetric"]
        pes.append({"rank": d["rank"], "pid": d["pid"],
                    **{k: heap[k] for k in ("calls", "digest", "peak", "suggested_size",
                                            "refused", "unbindable", "bound")}})
    return pes


def warn_divergent(divergent, most, count):
    digest, calls = most

    def one(pe):
        name = f"PE {pe['rank']}" if pe["rank"] is not None else "a PE without a rank"
        refused = (f", {pe['refused']} refused by its symmetric tier's limit"
                   if pe["refused"] else "")
        return (f"{name} (pid {pe['pid']}) made {plural(pe['calls'], 'call')}, "
                f"decisions {pe['digest']}{refused}")

    listing = "; ".join(one(pe) for pe in divergent[:DIVERGENT_NAMED])
    if len(divergent) > DIVERGENT_NAMED:
        listing += f"; and {len(divergent) - DIVERGENT_NAMED} more PEs (symmetric.divergent)"
    say(f"warning: the PEs' symmetric heaps differ: {listing}; {count - len(divergent)} of "
        f"{plural(count, 'PE')} made {plural(calls, 'call')}, decisions {digest}: every PE "
        "must make the same symmetric allocations, and a limit reached on one PE only is "
        "the usual cause")
