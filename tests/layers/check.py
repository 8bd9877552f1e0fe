#!/usr/bin/env python3
"""The layers hold: every #include "..." in libplace's sources points down or sideways.

    shim -> engine -> site, tiers -> stats -> base; report reads engine, site, tiers and
    stats;
    config depends on base alone; nothing below shim/ includes shim/.

Also: no include cycle between files, and the report layer changes no counter (it calls
none of the stats layer's verbs). Given the build directory, the objects too (nm): no
object below shim/ references a symbol that an object of shim/ defines (a call that
resolves to libplace's own exported sigaction or free climbs back up, whatever the
includes say). Prints every offending line and exits 1; 0 when clean.

    tests/layers/check.py [TOP [BUILD]]
"""
import glob
import os
import re
import subprocess
import sys

TOP = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = sys.argv[2] if len(sys.argv) > 2 else None

# The folder a file lives in -> the folders it may include from (itself included).
ALLOWED = {
    "policy/base": {"policy/base"},
    "config": {"config", "policy/base"},
    "policy/stats": {"policy/stats", "policy/base", "config"},
    "policy/tiers": {"policy/tiers", "policy/stats", "policy/base", "config"},
    "policy/site": {"policy/site", "policy/stats", "policy/base", "config"},
    "policy/engine": {"policy/engine", "policy/site", "policy/tiers", "policy/stats",
                      "policy/base", "config"},
    "policy/report": {"policy/report", "policy/engine", "policy/site", "policy/tiers",
                      "policy/stats", "policy/base", "config"},
    "shim": {"shim", "policy/report", "policy/engine", "policy/site", "policy/tiers",
             "policy/stats", "policy/base", "config", "include"},
}
# The verbs by which counters change (policy/stats/counters.h, sites.h, threads.h).
WRITERS = re.compile(r"\bplace_(stats_(reserve|release|count|add|restart)|count_rule|count|"
                     r"tier_(reserve|commit|release|uncharge|charge))\s*\(")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ALLOWED_SUBDIRS = {"base", "stats", "tiers", "site", "engine", "report"}


def layer(path):
    d = os.path.dirname(path)
    for name in sorted(ALLOWED, key=len, reverse=True):
        if d == name or d.startswith(name + "/"):
            return name
    return None


def sources():
    for root in ["policy", "shim", "config", "include"]:
        for dirpath, _, files in os.walk(os.path.join(TOP, root)):
            for f in files:
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, f), TOP)


def symbols(obj):
    """The external symbols obj defines and those it references."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            used.add(f[1])
        elif len(f) == 3 and f[1] in "TDBRVW":
            defined.add(f[2])
    return defined, used


def climbs_to_shim(files):
    """Objects below shim/ that reference a symbol defined in shim/ (meson names each
    object after its source, slashes as underscores)."""
    objects = {f.replace("/", "_") + ".o": f for f in files if f.endswith(".c")}
    found = glob.glob(os.path.join(BUILD, "libplace_core.a.p", "*.o"))
    if not found:
        return [f"{BUILD}: no objects of libplace_core to read"]
    defined, used = {}, {}
    for obj in found:
        src = objects.get(os.path.basename(obj))
        if src:
            defined[src], used[src] = symbols(obj)
    shim = set().union(*(d for f, d in defined.items() if f.startswith("shim/")))
    return [f"{f}: references {', '.join(sorted(used[f] & shim))}, defined in shim/"
            for f in sorted(used) if not f.startswith("shim/") and used[f] & shim]


def main():
    problems = []
    graph = {}
    files = sorted(sources())
    for f in files:
        mine = layer(f)
        if f.startswith("policy/") and f.split("/")[1] not in ALLOWED_SUBDIRS:
            problems.append(f"{f}: policy/ holds only base, stats, tiers, site, engine and report")
        graph[f] = []
        with open(os.path.join(TOP, f)) as fh:
            for n, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if m:
                    target = os.path.normpath(os.path.join(os.path.dirname(f), m.group(1)))
                    graph[f].append((target, n))
                    theirs = layer(target) or os.path.dirname(target)
                    if mine and theirs not in ALLOWED[mine]:
                        problems.append(f"{f}:{n}: includes {target} ({theirs}), but {mine} may "
                                        f"include only {', '.join(sorted(ALLOWED[mine]))}")
                if mine == "policy/report" and f.endswith(".c") and WRITERS.search(line):
                    problems.append(f"{f}:{n}: the report changes a counter: {line.strip()}")
    # cycles: a depth-first search over the include graph
    state = {}

    def visit(f, stack):
        state[f] = 1
        for target, n in graph.get(f, []):
            if state.get(target) == 1:
                cycle = stack[stack.index(target):] + [target]
                problems.append(f"{f}:{n}: include cycle: {' -> '.join(cycle)}")
            elif target in graph and not state.get(target):
                visit(target, stack + [target])
        state[f] = 2

    for f in files:
        if not state.get(f):
            visit(f, [f])
    if BUILD:
        problems += climbs_to_shim(files)
    for p in problems:
        print(p)
    print(f"layers: {len(files)} files, {sum(len(v) for v in graph.values())} includes, "
          f"{len(problems)} problem{'s' if len(problems) != 1 else ''}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
