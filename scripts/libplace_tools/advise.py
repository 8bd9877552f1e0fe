"""place-report advise: a placement policy from a profiled run, which puts the sites that
are hottest per byte of room into the fast tiers, packed greedily within their
capacities; and --check, which reads the dry run of the program under it.

A site is a profile row's frames. Its heat is the bytes its blocks had touched per
interval (the access profile's touched_mean) over its room: the most bytes of its
tracked blocks live at once (of all its blocks, without access figures), rounded up to
a page. A site holds its room while it is live, from its first tracked block to when
they were last all freed: sites never live together share room. Without an access
profile there is nothing touched to rank by, and the advice ranks by bytes allocated
over room instead, and says so."""

import math
import os
import shlex
import sys
import textwrap
from dataclasses import dataclass, field

from . import policy as libplace_policy
from .advise_policy import (NAME, Base, advised_rules, choose_patterns, over_limits,
                            policy_text)
from .report import (EXIT_INPUT, EXIT_USAGE, STDIN, Failure, emit, load_reports, plural,
                     printable, table, write_text)
from .units import parse_size, size_str, size_text

PAGE = 4096
SHOWN = 20  # rows of the table; the rest in one line
# kinds a --fit may name without a base policy: those a chain names undeclared (hbw,
# pinned, managed); numa needs nodes, dram is where the rest goes, device and symmetric
# take no malloc
FIT_KINDS = ("hbw", "pinned", "managed")
NO_MALLOC = ("device", "symmetric")
DRAM = "dram is where the rest goes, and takes no limit; expected a fast tier"
# the sentence both outputs carry when there is no access profile
BY_BYTES = "no access profile: advice by bytes allocated, not by accesses"
HEADER_WIDTH = 86  # the policy's comment lines, "# " before them
NO_POLICY_ROOM = "no room in the policy"  # a site libplace's limits leave out


@dataclass
class Site:
    frames: list
    bytes: int = 0
    calls: int = 0
    peak: int = 0          # the most any one process held at once
    tracked_peak: int = None  # the same of its tracked blocks: the room a size = MIN.. rule needs
    first_ms: int = None   # its first tracked block, since the run's start (the earliest rank's)
    last_ms: int = None    # its tracked bytes last back to none (None: live at the end)
    touched: float = None  # bytes touched per interval, summed over the processes
    tier: str = None       # None: dram
    why: str = ""
    traffic: float = field(default=None, init=False)  # what heat counts: touched, or bytes

    @property
    def room(self):
        """A rank's room: of its tracked blocks when it has any (the rule takes those
        alone), else of all its blocks."""
        peak = self.peak if self.tracked_peak is None else self.tracked_peak
        return max(PAGE, -(-peak // PAGE) * PAGE)

    @property
    def heat(self):
        return (self.traffic or 0) / self.room

    @property
    def mean_size(self):
        return self.bytes / self.calls if self.calls else 0

    def span(self):
        """When it holds room, [first, last): from its first tracked block to when its
        tracked bytes were last back to none (a millisecond at least: a block freed in
        the millisecond another is allocated shares none of it); the whole run without
        access figures."""
        first = 0 if self.first_ms is None else self.first_ms
        last = math.inf if self.first_ms is None or self.last_ms is None else self.last_ms
        return first, max(last, first + 1)

    def key(self):
        return tuple(f["site"] for f in self.frames)

    def name(self):
        """The innermost frame, and its caller, as render's profile table writes them."""
        if not self.frames:
            return "(other sites: the profile's table was full)"
        text = " < ".join(f["symbol"] or f["site"] for f in self.frames[:2])
        return printable(text)


# -- the inputs --------------------------------------------------------------------------

def parse_fit(values):
    """[(tier, bytes)] of --fit's TIER=SIZE lists, in the order given."""
    fits = []
    for value in values:
        for item in value.split(","):
            name, eq, size = (part.strip() for part in item.partition("="))
            shown = printable(item.strip())
            if not eq or not name or not size:
                raise Failure(f"advise: --fit {shown!r}: expected TIER=SIZE, as hbw=16G",
                              EXIT_USAGE)
            if not NAME.fullmatch(name):
                raise Failure(f"advise: --fit {shown!r}: {printable(name)!r} is not a tier "
                              "name; expected a letter, then letters, digits, _ or -",
                              EXIT_USAGE)
            n = parse_size(size)
            if n is None:
                raise Failure(f"advise: --fit {shown!r}: {printable(size)!r} is not a size; "
                              "expected digits and K, M, G or T, as 16G or 512M (whole "
                              "numbers, libplace.policy(5) SIZES)", EXIT_USAGE)
            if n == 0:
                raise Failure(f"advise: --fit {shown!r}: a capacity of 0 holds nothing; "
                              "expected a size above 0", EXIT_USAGE)
            if name in (f for f, _ in fits):
                raise Failure(f"advise: --fit: {name} given twice", EXIT_USAGE)
            fits.append((name, n))
    return fits


def fit_tiers(fits, base, ranks):
    """[(name, capacity per rank, its section's keys)]: a base policy's tier of that name
    with its limit set, or a tier of the kind the name is."""
    tiers = []
    for name, size in fits:
        per_rank = size // ranks
        if per_rank == 0:
            raise Failure(f"advise: --fit {name}={size}: less than a byte for each of "
                          f"{ranks} ranks", EXIT_USAGE)
        limit = size_text(per_rank)
        if name == "dram":
            raise Failure(f"advise: --fit dram: {DRAM}", EXIT_USAGE)
        if base and name in base.tiers:
            kind = base.kind(name)
            if kind in NO_MALLOC:
                raise Failure(f"advise: --fit {name}: {base.name}'s tier {name} is of kind "
                              f"{printable(kind)}, which no malloc rule can fill; expected "
                              "an hbw, numa, pinned, managed or named dram tier", EXIT_USAGE)
            keys = [(k, limit if k == "limit" else v) for k, v in base.tiers[name]]
            if "limit" not in dict(keys):
                keys.append(("limit", limit))
        elif name in FIT_KINDS:
            keys = [("kind", name), ("limit", limit)]
        else:
            raise Failure(f"advise: --fit {name}: {unknown_tier(name, base)}", EXIT_USAGE)
        tiers.append((name, per_rank, keys))
    return tiers


def unknown_tier(name, base):
    declared = f"{base.name} declares no [tier {name}]" if base else "no such tier"
    if name == "numa":
        return (f"{declared}, and a numa tier needs its nodes: declare it in a policy "
                "([tier NAME] kind = numa, nodes = ...) and give that with --policy")
    kinds = f"a kind ({', '.join(FIT_KINDS)})"
    if base:
        listed = f"a tier it declares ({', '.join(base.tiers)}) or " if base.tiers else ""
        return f"{declared}; expected {listed}{kinds}"
    return (f"{declared}; expected {kinds}, or a tier of --policy BASE.ini (a numa tier of "
            "CXL nodes, say)")


def read_reports(paths):
    reports = load_reports(paths)
    for name, doc in reports:
        if "merged" in doc:
            raise Failure(f"{name}: a merged report, whose peaks are sums over its processes; "
                          "advise reads the ranks' own reports and finds each rank's room "
                          "itself", EXIT_USAGE)
        if "profile" not in doc:
            raise Failure(f"{name}: the report has no profile; advise reads the profile's "
                          "sites (a JSON report of libplace has one: report_format = json)",
                          EXIT_USAGE)
    return reports


def access_profile(doc):
    """The report's access profile when the sampler ran, else None."""
    access = doc["profile"].get("access")
    return access if access is not None and access["state"] == "on" else None


def report_rows(doc):
    """{frames: row} of one report: the profile's top, with access.hottest's rows added
    (and their access figures taking the place of top's)."""
    rows = {tuple(f["site"] for f in r["frames"]): r for r in doc["profile"]["top"]}
    access = access_profile(doc)
    for r in access["hottest"] if access else []:
        key = tuple(f["site"] for f in r["frames"])
        if key not in rows:
            rows[key] = r
        elif "access" in r:
            rows[key] = dict(rows[key], access=r["access"])
    return rows


def gather(reports):
    """The sites of all processes, merged by frames: bytes, calls and accesses add up, a
    site's room is the most any one process held (each process gets the policy)."""
    sites = {}
    for _, doc in reports:
        tracked = access_profile(doc) is not None
        for key, row in report_rows(doc).items():
            s = sites.setdefault(key, Site(row["frames"]))
            s.bytes += row["bytes"]
            s.calls += row["calls"]
            s.peak = max(s.peak, row["peak"])
            if tracked and "access" in row:
                s.touched = (s.touched or 0) + row["access"]["touched_mean"]
                s.tracked_peak = max(s.tracked_peak or 0, row["access"]["peak"])
                first, last = row["access"]["first_ms"], row["access"]["last_ms"]
                if s.first_ms is None:
                    s.first_ms, s.last_ms = first, last
                else:  # the ranks' spans together
                    s.first_ms = min(s.first_ms, first)
                    s.last_ms = None if None in (s.last_ms, last) else max(s.last_ms, last)
    return list(sites.values())


def no_access_reason(reports, sites):
    """Why the advice cannot go by accesses, or None when it can."""
    profiles = [(name, doc["profile"].get("access")) for name, doc in reports]
    states = [a["state"] for _, a in profiles if a is not None and a["state"] != "on"]
    running = [a for _, a in profiles if a is not None and a["state"] == "on"]
    if not running:
        if states:
            return f"access profiling was {printable(states[0])}"
        return ("the run profiled no accesses" if len(reports) == 1
                else "no run profiled accesses")
    if not any(a["tracked"]["blocks"] for a in running):
        return f"no block of {size_str(min(a['min'] for a in running))} or more was tracked"
    if not any(s.touched is not None for s in sites):
        return "no site has access figures"
    return None


# -- the packing -------------------------------------------------------------------------

def ranked(sites):
    """Hottest per byte first; of equal heat, the most traffic, then the frames. Sites
    with no figure to rank by (no access figures, no frames) come last."""
    return sorted(sites, key=lambda s: (not rankable(s), -s.heat, -(s.traffic or 0), s.key()))


def rankable(s):
    return s.traffic is not None and bool(s.frames)


def held_while(chosen, s):
    """The most room the chosen sites hold at once while s is live: sites never live
    together share room (the step function of their spans peaks at some span's start)."""
    lo, hi = s.span()
    points = [lo] + [c.span()[0] for c in chosen if lo <= c.span()[0] < hi]
    return max(sum(c.room for c in chosen if c.span()[0] <= t < c.span()[1]) for t in points)


def pack(sites, tiers, by_access, size_min, held_out):
    """Each site's tier (None: dram) and why, the hottest first, each into the first tier
    with room left for it while it is live; held_out: {id(site): why} of sites kept out
    of every tier."""
    chosen = {name: [] for name, _, _ in tiers}
    fits = "hottest per byte that fits" if by_access else "most allocated per byte that fits"
    for s in ranked(sites):
        s.tier = None
        if id(s) in held_out:
            s.why = held_out[id(s)]
        elif not s.frames:
            s.why = "no frames to name it by"
        elif by_access and s.touched is None:
            s.why = f"no access figures (blocks under {size_str(size_min)} are not tracked)"
        elif s.traffic == 0:
            s.why = "never touched" if by_access else "nothing allocated"
        else:
            short = []
            for name, capacity, _ in tiers:
                free = capacity - held_while(chosen[name], s)
                if s.room <= free:
                    shared = sum(c.room for c in chosen[name]) + s.room > capacity
                    chosen[name].append(s)
                    s.tier = name
                    if shared:
                        short.append(f"sharing room in {name} with sites never live at once")
                    break
                short.append(f"no room left in {name} (needs {size_str(s.room)}, "
                             f"{size_str(free)} free while it is live)")
            s.why = "; ".join(([fits] if s.tier else []) + short)


def size_rule_served(sites, capacity):
    """What a size rule of that capacity would serve (memkind's autohbw: every block of
    the profile's minimum or more): the sites in the order the program first allocated
    them, each while the capacity holds its room as the sites taken before it hold theirs;
    the largest blocks first where the profile has no such order."""
    taken = []
    order = (lambda s: (s.first_ms, s.key())) if all(s.first_ms is not None for s in sites) \
        else (lambda s: (-s.mean_size, -s.room, s.key()))
    for s in sorted(sites, key=order):
        if s.room <= capacity - held_while(taken, s):
            taken.append(s)
    return sum(s.traffic or 0 for s in taken)


def advise_sites(sites, tiers, by_access, size_min, base):
    """Packs the sites and finds the rules that take them. A site whose frames no pattern
    tells apart from those that stay out, or that the policy's limits leave no room for
    (the coldest first), is kept out, and the rest packed again."""
    held_out = {}
    while True:
        pack(sites, tiers, by_access, size_min, held_out)
        chosen, apart = choose_patterns(sites)
        for s in apart:
            held_out[id(s)] = f"no site pattern tells it apart from the sites out of {s.tier}"
        if apart:
            continue
        taken = set(base.rules) if base else set()
        rules = advised_rules(sites, chosen, [name for name, _, _ in tiers], taken)
        over = over_limits(rules, base)
        if over is None:
            return rules
        coldest = [s for s in ranked(sites) if s.tier is not None][-1]
        held_out[id(coldest)] = f"{NO_POLICY_ROOM} ({over})"


# -- the outputs -------------------------------------------------------------------------

def heat_text(heat):
    return f"{heat:.3f}" if heat < 10 else f"{heat:.1f}"


def site_table(sites, by_access):
    """The sites, hottest first: without an access profile, no column of bytes touched."""
    rows = []
    order = ranked(sites)
    for s in order[:SHOWN]:
        touched = [size_str(s.touched) if s.touched is not None else "-"] if by_access else []
        rows.append([s.name(), size_str(s.bytes), size_str(s.peak)] + touched
                    + [heat_text(s.heat) if rankable(s) else "-", s.tier or "dram", s.why])
    header = (["site < its caller", "bytes", "peak"] + (["touched"] if by_access else [])
              + ["heat", "tier", "why"])
    lines = table(header, rows, "lrr" + ("r" if by_access else "") + "rll")
    if len(order) > SHOWN:
        lines.append(f"{len(order) - SHOWN} more")
    return lines


def header_lines(reports, tiers, ranks, by_access, why_not, size_min):
    names = ", ".join(printable(n) for n, _ in reports[:4]) + (
        f" and {len(reports) - 4} more" if len(reports) > 4 else "")
    program = printable(reports[0][1]["program"])
    if len(reports) > 1:
        lines = [f"advice for {program} from {plural(len(reports), 'report')} ({names}), "
                 "merged by site: bytes and accesses summed, room the most one process held"]
    else:
        lines = [f"advice for {program} from {names}"]
    if by_access:
        access = next(access_profile(d) for _, d in reports if access_profile(d))
        lines.append(f"ranked by heat: bytes touched per interval ({access['interval_mean_ms']:g} "
                     f"ms, mean over the run) over room (peak, whole pages); blocks of "
                     f"{size_str(size_min)} or more are tracked")
    else:
        lines.append(f"{BY_BYTES} ({why_not}); ranked by bytes allocated over room (peak, "
                     "whole pages)")
    if by_access:
        lines.append("the tracked blocks' bytes and peaks are exact (each one is counted)")
    elif any(d["profile"]["sample"] != "all" for _, d in reports):
        lines.append("bytes and peaks are the profile's estimates (sampled): leave some room")
    per = f" per rank (capacity / {ranks} ranks per node)" if ranks > 1 else ""
    lines.append(f"fast tiers{per}, filled in this order: "
                 + ", ".join(f"{name} {size_str(capacity)}" for name, capacity, _ in tiers))
    return lines


def summary_lines(sites, tiers, by_access):
    lines = []
    for name, capacity, _ in tiers:
        placed = [s for s in sites if s.tier == name]
        at_once = max([held_while(placed, s) for s in placed] or [0])
        lines.append(f"{name}: {plural(len(placed), 'site')}, "
                     f"{size_str(at_once)} of {size_str(capacity)}"
                     + (f" at most at once ({size_str(sum(s.room for s in placed))} in all)"
                        if at_once < sum(s.room for s in placed) else ""))
    lines.append(f"dram: {plural(sum(1 for s in sites if s.tier is None), 'site')}")
    # the coldest sites, below the table's rows: say so here
    left = [s.why for s in sites if s.why.startswith(NO_POLICY_ROOM)]
    if left:
        lines.append(f"{plural(len(left), 'site')} with room in the tiers left in dram: "
                     f"{left[0]}")
    total = sum(s.traffic or 0 for s in sites)
    what = "bytes touched per interval" if by_access else "bytes allocated"
    if total == 0:
        return lines + [f"no {what}: the fast tiers would serve nothing"]
    served = sum(s.traffic for s in sites if s.tier is not None)
    by_size = size_rule_served(sites, sum(capacity for _, capacity, _ in tiers))
    lines.append(f"the fast tiers would serve {100 * served / total:.1f}% of the {what} "
                 f"({size_str(total)}); a size rule of the same capacity (first come, first "
                 f"served) would serve {100 * by_size / total:.1f}%")
    return lines


def check_lines(reports, output):
    program = shlex.quote(reports[0][1]["program"])
    policy = shlex.quote(output) if output not in (None, STDIN) else "POLICY"
    if len(reports) > 1:
        return ["check the plan with a folded dry run, as the job runs (add the program's own "
                "arguments):",
                f"  placerun -p {policy} --dry-run=fold -r 'check%r.json' -- {program} ARGS...",
                "  place-report advise --check check*.json"]
    return ["check the plan with a folded dry run (add the program's own arguments):",
            f"  placerun -p {policy} --dry-run=fold -r check.json -- {program} ARGS...",
            "  place-report advise --check check.json"]


def describe(by_access):
    def one(s):
        figure = (f"{size_str(s.touched)} touched per interval" if by_access
                  else f"{size_str(s.bytes)} allocated")
        return f"{s.name()}: peak {size_str(s.peak)}, {figure}"
    return one


def policy_header(argv, reports, tiers, ranks, by_access, why_not, size_min, base):
    """The policy's opening comment: how it was made, from what, and what it assumes."""
    ranking = "hottest" if by_access else "most allocated"
    made = (f"Advised by place-report advise: the sites {ranking} per byte of room go to "
            + ", then ".join(name for name, _, _ in tiers) + ", each while it has room.")
    command = "place-report " + " ".join(shlex.quote(a) for a in argv)
    sources = [f"{printable(n)} ({printable(d['program'])}"
               + (f", rank {printable(d['rank'])}" if d["rank"] is not None else "") + ")"
               for n, d in reports[:4]]
    paragraphs = ["From " + ", ".join(sources)
                  + (f" and {len(reports) - 4} more reports" if len(reports) > 4 else "") + "."]
    if by_access:
        paragraphs.append("Heat: bytes touched per interval over room; the rules take blocks of "
                          f"{size_str(size_min)} or more, the access profile's tracked ones.")
    else:
        paragraphs.append(f"{BY_BYTES} ({why_not}).")
    if ranks > 1:
        paragraphs.append(f"Limits are per process: each --fit capacity over {ranks} ranks "
                          "per node.")
    if base:
        paragraphs.append(f"Its [libplace], its tiers and its rules are "
                          f"{printable(base.name)}'s.")
    # the command on a line of its own, whatever its length, so that it can be copied
    return (textwrap.wrap(made, HEADER_WIDTH) + [f"  {printable(command)}"]
            + [line for p in paragraphs for line in textwrap.wrap(p, HEADER_WIDTH)])


# -- libplace's own check ----------------------------------------------------------------

def find_library():
    """libplace.so, and where it was looked for."""
    if os.environ.get("LIBPLACE_LIB"):
        paths = [os.environ["LIBPLACE_LIB"]]
    else:
        home = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        paths = libplace_policy.library_paths(home)
    found = next((os.path.abspath(p) for p in paths if os.path.isfile(p)), None)
    return found, paths


def libplace_check(lib, name, env_policy):
    """libplace's verdict on a policy: (status, what it said). env_policy sets it:
    LIBPLACE_POLICY or LIBPLACE_INLINE_POLICY. No other LIBPLACE_* variable goes along,
    as the check is of the policy alone."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LIBPLACE_")}
    env.update(env_policy)
    try:
        rc, _, said = libplace_policy.run_check(libplace_policy.check_env(env, lib), lib,
                                                capture=True)
    except libplace_policy.NotChecked as e:
        return None, f"{name} not checked by libplace: {e}"
    return rc, said.strip()


def checked(text, base):
    """A line saying libplace's check passed the policy, or why it was not asked. Errors
    are a Failure: of the base policy, the user's to fix; of the advice, place-report's."""
    lib, paths = find_library()
    if lib is None:
        return (f"policy not checked: libplace.so not found (looked in {', '.join(paths)}; "
                "LIBPLACE_LIB names it)")
    if base:
        rc, said = libplace_check(lib, base.name, {"LIBPLACE_POLICY": base.path})
        if rc is None:
            return said
        if rc != 0:
            raise Failure(f"{base.name}: libplace's check finds errors in it:\n{said}",
                          EXIT_USAGE)
    rc, said = libplace_check(lib, "the policy", {"LIBPLACE_INLINE_POLICY": text})
    if rc is None:
        return said
    if rc != 0:
        raise Failure(f"the advised policy fails libplace's check ({lib}), a fault of "
                      f"place-report advise:\n{said}", EXIT_INPUT)
    return f"policy checked by libplace ({lib}): no errors"


# -- the command -------------------------------------------------------------------------

def advise(args):
    if args.check:
        if args.fit or args.policy or args.output or args.ranks_per_node != 1:
            raise Failure("advise: --check takes the dry run's reports alone", EXIT_USAGE)
        if not args.reports:
            raise Failure("advise: --check needs the dry run's reports (CHECK_REPORT...)",
                          EXIT_USAGE)
        return check_plan(args.reports)
    if not args.reports:
        raise Failure("advise: no REPORT given (the profiled run's, or its ranks')", EXIT_USAGE)
    if not args.fit:
        raise Failure("advise: --fit TIER=SIZE is required, as --fit hbw=16G", EXIT_USAGE)
    if args.ranks_per_node < 1:
        raise Failure("advise: --ranks-per-node: expected a whole number from 1", EXIT_USAGE)
    if args.policy == STDIN:
        # libplace's check reads it by name, and a REPORT may be standard input
        raise Failure("advise: --policy -: give the base policy as a file", EXIT_USAGE)
    base = Base(args.policy) if args.policy else None
    tiers = fit_tiers(parse_fit(args.fit), base, args.ranks_per_node)
    reports = read_reports(args.reports)
    sites = gather(reports)
    why_not = no_access_reason(reports, sites)
    by_access = why_not is None
    size_min = min((access_profile(d)["min"] for _, d in reports if access_profile(d)),
                   default=0) if by_access else 0
    for s in sites:
        s.traffic = s.touched if by_access else s.bytes
    rules = advise_sites(sites, tiers, by_access, size_min, base)
    header = policy_header(args.argv, reports, tiers, args.ranks_per_node, by_access,
                           why_not, size_min, base)
    text = policy_text(header, [(name, keys) for name, _, keys in tiers], rules, base,
                       size_text(size_min) if size_min else None, describe(by_access))
    verdict = checked(text, base)
    sections = [header_lines(reports, tiers, args.ranks_per_node, by_access, why_not, size_min),
                site_table(sites, by_access), summary_lines(sites, tiers, by_access),
                [verdict], check_lines(reports, args.output)]
    shown = "\n\n".join("\n".join(s) for s in sections) + "\n"
    if args.output is None or args.output == STDIN:
        emit(text)
        sys.stderr.write(shown)
    else:
        write_text(args.output, text)
        emit(shown)
    return 0


def check_plan(paths):
    """The dry run's verdict: each limited tier's peak against its limit, and what it
    refused. 0 when every one held, 1 with what did not."""
    failed = []
    lines = []
    for name, doc in load_reports(paths):
        if "merged" in doc:
            raise Failure(f"{name}: a merged report, whose peaks are sums over its processes; "
                          "check the processes' own reports", EXIT_USAGE)
        limited = [n for n in doc["nodes"] if n["limit"]]
        if len(paths) > 1:
            lines.append(f"{name}:")
        if not limited:
            failed.append(f"{name}: no tier has a limit (was it run under the advised policy?)")
            continue
        rows = []
        for n in limited:
            over = n["peak"] > n["limit"]
            verdict = "over its limit" if over else "refused requests" if n["refused"] else "fits"
            rows.append([n["name"], n["kind"], size_str(n["peak"]), size_str(n["limit"]),
                         str(n["refused"]), str(n["fallbacks_out"]), verdict])
            if over:
                failed.append(f"{n['name']}'s peak, {size_str(n['peak'])}, is over its limit "
                              f"of {size_str(n['limit'])}" + in_name(name, paths))
            if n["refused"]:
                failed.append(f"{n['name']} refused {plural(n['refused'], 'request')} (its "
                              "limit was reached: those blocks went down the chain)"
                              + in_name(name, paths))
        lines += table(["tier", "kind", "peak", "limit", "refused", "fallbacks out", ""],
                       rows, "llrrrrl")
        if not doc["policy"]["dry_run"]:
            lines.append("(not a dry run: the figures are of real memory)")
    if failed:
        lines.append("the plan does not hold: " + "; ".join(failed))
    else:
        lines.append("the plan holds: every tier's peak is within its limit, and nothing was "
                     "refused")
    emit("\n".join(lines) + "\n")
    return 1 if failed else 0


def in_name(name, paths):
    return f" in {name}" if len(paths) > 1 else ""
