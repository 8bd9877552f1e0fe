"""How a policy fits this machine: placerun --check's and --tiers' warnings. libplace
judges a policy by itself alone (a policy is written on one machine and run on others);
these say, before a run, what this machine will not give it. Each names where the tier or
its key was written, as libplace's errors do."""

from . import probe
from .probe import ranges
from .units import size_str

GPU_KINDS = ("device", "pinned", "managed")


def where(doc, tier, key=None):
    """Where tier's key (else the tier) was written; for a tier no section declares, the
    first rule whose chain names it."""
    at = tier.get("at", {})
    if key and key in at:
        return at[key]
    if "tier" in at:
        return at["tier"]
    for rule in doc.get("rules", []):
        if tier["name"] in rule.get("chain", []):
            return rule["at"]
    return doc.get("file") or "the policy"


def capacity(tier, m):
    """(bytes the tier's memory holds on this machine, what that is), or None."""
    nodes, gpus = m["nodes"], m["gpus"]

    def total(ids):
        sizes = [nodes[n]["total"] for n in ids if n in nodes]
        return sum(s for s in sizes if s) if sizes and all(sizes) else None

    kind = tier["kind"]
    if kind == "numa":
        ids = [n for n in tier.get("nodes", []) if n in nodes]
        return total(ids), f"node{'s' if len(ids) != 1 else ''} {ranges(ids)}"
    if kind == "hbw" and m["hbw"]["nodes"]:
        return total(m["hbw"]["nodes"]), f"HBW node{'s' if len(m['hbw']['nodes']) != 1 else ''} " \
            f"{ranges(m['hbw']['nodes'])}"
    if kind == "device":
        gpu = next((g for g in gpus.get("devices", []) if g["index"] == tier.get("device")), None)
        return (gpu["memory"], f"GPU {gpu['index']}") if gpu and gpu.get("memory") else None
    if kind in ("dram", "pinned", "managed"):
        return total(list(nodes)), "this machine's memory"
    # symmetric: its limit is a share of the SHMEM library's heap (SHMEM_SYMMETRIC_SIZE),
    # which is set per job, not read off this machine
    return None


def machine(doc):
    """probe.machine(), asking memkind and the CUDA driver only for a policy with tiers
    they serve."""
    kinds = {t["kind"] for t in doc.get("tiers", [])}
    return probe.machine(memkind="hbw" in kinds, cuda=bool(kinds & set(GPU_KINDS)))


def weight_warnings(doc, t, m):
    """A weighted interleave that will leave its tier unavailable here: weights = bandwidth
    over a node the firmware gives no figure, an hbw tier's weights naming a node that is
    not HBW."""
    weights = t.get("weights")
    if t.get("policy") != "weighted_interleave" or weights is None:
        return []
    hbw = m["hbw"]["nodes"] or []
    if weights == "bandwidth":
        spread = t.get("nodes", []) if t["kind"] == "numa" else hbw
        nodes = [n for n in spread
                 if n in m["nodes"] and not m["nodes"][n].get("access", {}).get("read_bandwidth")]
        why = ("weights = bandwidth, but the firmware gives {} no read bandwidth (placerun "
               "--tiers shows what it gives)")
    else:
        nodes = [n for n in sorted(map(int, weights)) if t["kind"] == "hbw" and hbw and n not in hbw]
        why = f"weights name {{}}, not high-bandwidth memory here (HBW nodes: {ranges(hbw)})"
    if not nodes:
        return []
    named = f"node{'s' if len(nodes) > 1 else ''} {ranges(nodes)}"
    return [(where(doc, t, "weights"),
             f"tier {t['name']}: {why.format(named)}; the tier will be unavailable")]


def warnings(doc, m):
    """[(where, message)] for the policy described in doc (libplace's LIBPLACE_CHECK=json)
    against the machine m (probe.machine())."""
    out = []
    nodes, gpus = m["nodes"], m["gpus"]
    for t in doc.get("tiers", []):
        name, kind = t["name"], t["kind"]
        if kind == "numa":
            absent = [n for n in t.get("nodes", []) if n not in nodes]
            if absent:
                out.append((where(doc, t, "nodes"),
                            f"tier {name}: node{'s' if len(absent) > 1 else ''} {ranges(absent)} "
                            f"not on this machine (it has node{'s' if len(nodes) > 1 else ''} "
                            f"{ranges(nodes)})"))
        if kind == "hbw" and m["hbw"]["nodes"] == [] and m["hbw"]["memkind"].get("available") is not True:
            out.append((where(doc, t), f"tier {name}: memkind finds no high-bandwidth memory here "
                                       "(placerun --tiers says why); its allocations will take the "
                                       "rest of their chains"))
        out += weight_warnings(doc, t, m)
        hbw = m["hbw"]["nodes"] or []
        if kind == "hbw" and t.get("near") == "cpu" and len(hbw) == 1:
            out.append((where(doc, t, "near"),
                        f"tier {name}: near = cpu, but node {hbw[0]} is this machine's one HBW "
                        "node: every thread takes it"))
        if kind in GPU_KINDS:
            count = gpus.get("count")
            if count == 0:
                out.append((where(doc, t), f"tier {name}: no GPU here ({gpus['lines'][0]}); its "
                                           "allocations will take the rest of their chains"))
            elif kind == "device" and count is not None and t.get("device", 0) >= count:
                out.append((where(doc, t, "device"),
                            f"tier {name}: GPU {t.get('device', 0)} is not here (the driver sees "
                            f"{count} GPU{'s' if count > 1 else ''}, 0 to {count - 1})"))
        limit = t.get("limit") or 0
        held = capacity(t, m) if limit else None
        if held and held[0] is not None and limit > held[0]:
            # preferred and interleave take what the nodes lack from other nodes: the
            # limit is reached all the same, partly elsewhere
            after = ("the rest of what it takes comes from other nodes"
                     if t.get("policy") in ("preferred", "interleave")
                     else "the memory runs out before the limit is reached")
            out.append((where(doc, t, "limit"),
                        f"tier {name}: limit {size_str(limit)} is more than the "
                        f"{size_str(held[0])} of {held[1]}; {after}"))
    return out
