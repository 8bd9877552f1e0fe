"""Reading libplace's JSON reports (docs/report.schema.json, version 2), and what the
outputs of place-report's commands share: its messages, the text helpers.

Python 3 standard library only, so that it runs wherever libplace's reports land
(cluster login nodes rarely have matplotlib). A REPORT of `-` is standard input."""

import datetime
import json
import os
import re
import sys

from .units import size_str

NAME = "place-report"
VERSION = 2  # of the reports read and written: 2 has overflows and overflow_peak, not overflow_bytes
EXIT_INPUT = 1      # an output that cannot be written, a tool that cannot run
EXIT_MALFORMED = 2  # a report that cannot be read or is not a valid libplace report
EXIT_USAGE = 2
STDIN = "-"
TIMELINE_MAX = 512  # the schema's maxItems for a node's timeline
START_FORMAT = "%Y%m%dT%H%M%SZ"


class Failure(Exception):
    """What the user is told, and the status to leave with; raised wherever the problem is
    found and printed once by main(), so no traceback ever reaches the user."""

    def __init__(self, message, status=EXIT_INPUT):
        super().__init__(message)
        self.status = status


def say(message):
    sys.stderr.write(f"{NAME}: {message}\n")
    sys.stderr.flush()


# -- reading reports ---------------------------------------------------------------------

# Far more than any report takes (its timelines run to 512 points, its sites to a top
# table): a larger input is not a report, and reading it whole (/dev/zero) would not end.
INPUT_MAX = 64 << 20


def printable(text):
    """text for a one-line message: control characters (a newline in a file name, a key)
    and what cannot be written (lone surrogates) as escapes."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def display_name(path):
    return "<stdin>" if path == STDIN else printable(path)


def read_bytes(path):
    name = display_name(path)
    try:
        if path == STDIN:
            if sys.stdin is None:
                raise Failure(f"{name}: cannot read: standard input is closed", EXIT_MALFORMED)
            data = sys.stdin.buffer.read(INPUT_MAX + 1)
        else:
            with open(path, "rb") as f:
                data = f.read(INPUT_MAX + 1)
    except OSError as e:
        raise Failure(f"{name}: cannot read: {e.strerror or e}", EXIT_MALFORMED) from None
    if len(data) > INPUT_MAX:
        raise Failure(f"{name}: not a libplace report: larger than {INPUT_MAX >> 20} MiB",
                      EXIT_MALFORMED)
    return data


def _reject_constant(name):
    # Python's json takes NaN and Infinity, which are not JSON and which no writer of
    # reports produces: refuse them here rather than carry them into sums.
    raise ValueError(f"{name} is not a JSON value")


def parse_json(name, data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Failure(f"{name}: not JSON (not UTF-8 text)", EXIT_MALFORMED) from None
    if not text.strip():
        raise Failure(f"{name}: empty, not a libplace report", EXIT_MALFORMED)
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        if e.pos >= len(text.rstrip()):
            raise Failure(f"{name}: not JSON: it ends before its JSON does, at line {e.lineno} "
                          f"column {e.colno} (a truncated file?)", EXIT_MALFORMED) from None
        raise Failure(f"{name}: not JSON: {e.msg} at line {e.lineno} column {e.colno}",
                      EXIT_MALFORMED) from None
    except ValueError as e:  # a constant above; an integer of more than 4300 digits
        if "digits" in str(e):
            raise Failure(f"{name}: not JSON this program can read: a number of more than "
                          f"4300 digits", EXIT_MALFORMED) from None
        raise Failure(f"{name}: not JSON: {printable(str(e))}", EXIT_MALFORMED) from None
    except RecursionError:
        raise Failure(f"{name}: not JSON this program can read: nested too deeply",
                      EXIT_MALFORMED) from None


def load_report(path):
    """The report in PATH as a dict, checked to have every shape the subcommands rely on.
    Every subcommand reads its reports here: what passes check_report cannot make one
    fail later, and what does not is one message naming the file and the field."""
    name = display_name(path)
    doc = parse_json(name, read_bytes(path))
    if not isinstance(doc, dict) or doc.get("schema") != "libplace-report":
        raise Failure(f'{name}: not a libplace report (expected "schema": "libplace-report")',
                      EXIT_MALFORMED)
    version = doc.get("version")
    if version != VERSION or isinstance(version, bool):
        shown = json.dumps(version) if _is_number(version) and len(str(version)) < 24 \
            else describe(version)
        raise Failure(f"{name}: a libplace report of version {shown}; "
                      f"place-report reads version {VERSION}", EXIT_MALFORMED)
    try:
        check_report(doc)
    except ShapeError as e:
        raise Failure(f"{name}: not a valid libplace report: {e}", EXIT_MALFORMED) from None
    except RecursionError:  # a deeply nested value where a flat one belongs
        raise Failure(f"{name}: not a valid libplace report: nested too deeply",
                      EXIT_MALFORMED) from None
    return doc


def load_reports(paths):
    if paths.count(STDIN) > 1:
        raise Failure("standard input (-) can be given once", EXIT_USAGE)
    return [(display_name(p), load_report(p)) for p in paths]


# -- the shape of a report ---------------------------------------------------------------
#
# Not a full schema validator (that would need jsonschema, not in the standard library):
# only the keys the subcommands use, with their types and ranges, so that a hand-edited,
# truncated or hostile report gets a message naming the key instead of a traceback. The
# ranges are those of what libplace writes: counters are unsigned 64-bit, byte figures
# that can go negative signed 64-bit, times at most what 64-bit nanoseconds hold; within
# them, every sum, ratio and float the subcommands compute stays finite. Strings must be
# Unicode that can be written out (JSON's \ud800 escapes can make lone surrogates).
# Unknown keys are ignored, as the schema asks of readers.

class ShapeError(Exception):
    pass


INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1
COUNT_MAX = (1 << 64) - 1
PID_MAX = (1 << 31) - 1
SECONDS_MAX = INT_MAX / 1e9  # 64-bit nanoseconds: 292 years


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _in(low, high):
    return lambda v: _is_int(v) and low <= v <= high


def _is_seconds(v):
    # a JSON number like 1e400 is read as infinity, and no check of NaN is >= 0
    return _is_number(v) and 0 <= v <= SECONDS_MAX


def _is_amount(v):
    # a mean of bytes, or milliseconds: a float, finite (1e400 reads as infinity)
    return _is_number(v) and 0 <= v <= COUNT_MAX


def _is_share(v):
    return _is_number(v) and 0 <= v <= 1


def _is_text(v):
    if not isinstance(v, str):
        return False
    try:
        v.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _is_start(v):
    try:
        return isinstance(v, str) and bool(re.fullmatch(r"[0-9]{8}T[0-9]{6}Z", v)) \
            and parse_start(v) is not None
    except ValueError:
        return False


TYPES = {
    "int": (_in(INT_MIN, INT_MAX), "a signed 64-bit integer"),
    "count": (_in(0, COUNT_MAX), "an unsigned 64-bit integer"),
    "pid": (_in(1, PID_MAX), "a process id (an integer from 1 to 2^31 - 1)"),
    "percent": (_in(0, 100), "an integer from 0 to 100"),
    "seconds": (_is_seconds, f"a number of seconds from 0 to {SECONDS_MAX:.4g}"),
    "str": (_is_text, "a string"),
    "amount": (_is_amount, "a number from 0 to 2^64 - 1"),
    "share": (_is_share, "a number from 0 to 1"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "object": (lambda v: isinstance(v, dict), "an object"),
    "array": (lambda v: isinstance(v, list), "an array"),
    "start": (_is_start, "a UTC time like 20261121T054300Z"),
    "hash": (lambda v: isinstance(v, str) and bool(re.fullmatch(r"[0-9a-f]{16}", v)),
             "16 lower-case hex digits"),
}

# (key, type, required); a type ending in "?" may also be null.
TOP_FIELDS = [("pid", "pid", True), ("forked_from", "pid?", False), ("program", "str", True),
              ("host", "str", True), ("rank", "str?", True), ("start", "start", True),
              ("seconds", "seconds", True), ("signal", "str?", False),
              ("ended_by", "str?", False),
              ("threads", "object", True), ("policy", "object", True),
              ("nodes", "array", True), ("rules", "array", True), ("sites", "object", True),
              ("profile", "object", False), ("symmetric", "object", False),
              ("merged", "array", False)]
THREAD_FIELDS = [("allocating", "count", True), ("at_exit", "count", True)]
POLICY_FIELDS = [("file", "str?", True), ("inline_rules", "bool", True), ("rules", "count", True),
                 ("hash", "hash", True), ("dry_run", "bool", True),
                 ("fold_min", "count", False)]
NODE_COUNTERS = ["allocations", "frees", "refused", "fallbacks_out", "fallbacks_in", "waits",
                 "overflows", "overflow_peak", "failures", "reclaimed_bytes", "skipped"]
NODE_FIELDS = ([("name", "str", True), ("kind", "str", True), ("limit", "count", True),
                ("available", "bool", True), ("unavailable", "str?", True),
                ("planned", "bool", False), ("in_use", "int", True), ("peak", "int", True),
                ("cached", "count", False),
                ("wait_seconds", "seconds", True), ("machine", "object?", True),
                ("timeline", "array", True), ("band", "array", False),
                ("reclaim_min", "percent", False),
                ("reclaim_target", "percent", False), ("verified", "object?", False),
                ("library_heaps", "array", False), ("node_scope", "object", False),
                ("weights", "object", False), ("near", "object", False)]
               + [(k, "count", True) for k in NODE_COUNTERS])
# scope = node: the limit the machine's processes share, as it stood at the report
NODE_SCOPE_FIELDS = [("region", "str", True), ("in_use", "int", True), ("peak", "int", True),
                     ("processes", "count", True)]
# a GPU heap a library keeps (NVSHMEM's): its blocks, never what it hands out in them
LIBRARY_HEAP_FIELDS = [("owner", "str", True), ("blocks", "count", True), ("in_use", "int", True),
                       ("peak", "int", True)]
# the owner of every heap past a GPU's first three libraries' (the C side's PLACE_HEAP_OTHERS)
OTHER_LIBRARIES = "other libraries"
MACHINE_FIELDS = [("total", "count", True), ("free", "count", True)]
VERIFIED_FIELDS = [("resident", "count", True), ("looked", "count", True),
                   ("placed", "count", True), ("untouched", "count", False),
                   ("by_node", "object", False), ("exhaustive", "bool", True)]
RULE_FIELDS = [("name", "str", True), ("hits", "count", True), ("bytes", "count", True),
               ("chain", "array", True), ("on_full", "str", True)]
SITES_FIELDS = [("total", "count", True), ("top", "array", True)]
SITE_FIELDS = [("site", "str?", True), ("symbol", "str?", True), ("module", "str?", True),
               ("offset", "count?", True), ("rule", "str?", True), ("allocations", "count", True),
               ("bytes", "count", True), ("fallbacks", "count", True), ("tiers", "object", True)]
TIER_FIELDS = [("allocations", "count", True), ("bytes", "count", True)]
PROFILE_FIELDS = [("lost", "count", True), ("total", "count", True), ("top", "array", True)]
PROFILE_SITE_FIELDS = [("frames", "array", True), ("samples", "count", True),
                       ("calls", "count", True), ("bytes", "count", True), ("live", "count", True),
                       ("peak", "count", True), ("mean_size", "count", True),
                       ("tiers", "object", True)]
FRAME_FIELDS = [("site", "str", True), ("symbol", "str?", True)]
# the access profile (profile.access): all of it when its state is "on", else the state alone
ACCESS_FIELDS = [("min", "count", True), ("interval_ms", "count", True),
                 ("interval_mean_ms", "amount", True), ("intervals", "count", True),
                 ("tracked", "object", True), ("untracked", "object", True),
                 ("written", "bool", True), ("cost_ms", "amount", True), ("meaning", "str", True),
                 ("hottest", "array", True)]
TRACKED_FIELDS = [("blocks", "count", True), ("live", "count", True), ("peak", "count", True)]
UNTRACKED_FIELDS = [("blocks", "count", True), ("bytes", "count", True)]
SITE_ACCESS_FIELDS = [("blocks", "count", True), ("first_ms", "count", True),
                      ("last_ms", "count?", True), ("peak", "count", True),
                      ("live_mean", "count", True), ("touched_mean", "count", True),
                      ("touched_peak", "count", True),
                      ("touched_share", "share", True), ("written_share", "share?", True),
                      ("heat", "amount", True)]
# a merged report's processes (place-report merge writes all seven)
MERGED_FIELDS = [("pid", "pid", False), ("rank", "str?", False), ("host", "str", False),
                 ("program", "str", False), ("hash", "hash", False),
                 ("ended_by", "str?", False), ("forked_from", "pid?", False)]
# the symmetric heap of a process that made a SHMEM allocation call; peak and in_use are
# written signed, as a node's are
SYMMETRIC_FIELDS = [("tier", "str", True), ("calls", "count", True), ("digest", "hash", True),
                    ("refused", "count", True), ("unbindable", "count", True),
                    ("peak", "int", True), ("in_use", "int", True),
                    ("suggested_size", "count", True), ("bound", "array", True)]
BOUND_FIELDS = [("tier", "str", True), ("blocks", "count", True), ("bytes", "count", True),
                ("binds", "count", True)]
# a merged report's symmetric heaps: one entry per PE (place-report merge)
MERGED_SYMMETRIC_FIELDS = [("pes", "array", True), ("divergent", "array", True),
                           ("suggested_size", "count", True)]
PE_FIELDS = [("rank", "str?", True), ("pid", "pid", True), ("calls", "count", True),
             ("digest", "hash", True), ("peak", "int", True), ("suggested_size", "count", True),
             ("refused", "count", True), ("unbindable", "count", True),
             ("bound", "array", True)]


def describe(v):
    """A JSON value in a few words, for a message: 'the string "12"', 'an integer of 400
    digits', 'an array'."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        digits = len(str(abs(v)))
        return f"an integer of {digits} digits" if digits > 24 else str(v)
    if isinstance(v, float):
        return repr(v) if v == v and abs(v) != float("inf") else "a number out of range"
    if isinstance(v, str):
        shown = json.dumps(v[:24])  # one line, whatever it holds
        if not _is_text(v):
            return f"a string that is not valid Unicode ({shown})"
        return f"the string {shown}" + ("..." if len(v) > 24 else "")
    return "an array" if isinstance(v, list) else "an object"


def field(where, key):
    """where.key, with a key that is not a plain name quoted: nodes[1].peak,
    sites.top[0].tiers["a b"]."""
    if isinstance(key, int):
        return f"{where}[{key}]"
    if re.fullmatch(r"[A-Za-z0-9_-]+", key):
        return f"{where}.{key}" if where else key
    return f"{where}[{json.dumps(key)}]"


def check_value(value, kind, where):
    nullable = kind.endswith("?")
    if nullable and value is None:
        return
    test, expected = TYPES[kind.rstrip("?")]
    if not test(value):
        raise ShapeError(f"{where}: expected {expected}{' or null' if nullable else ''}, "
                         f"got {describe(value)}")


def check_fields(obj, fields, where):
    if not isinstance(obj, dict):
        raise ShapeError(f"{where}: expected an object, got {describe(obj)}")
    for key, kind, required in fields:
        if key not in obj:
            if required:
                raise ShapeError(f"{where or 'the report'}: no {key!r}")
            continue
        check_value(obj[key], kind, field(where, key))


def check_pairs(items, where, names, kinds):
    """Each of items a two-element list whose values are of kinds, named names in errors."""
    for j, pair in enumerate(items):
        at = f"{where}[{j}]"
        if not (isinstance(pair, list) and len(pair) == 2):
            raise ShapeError(f"{at}: expected [{names[0]}, {names[1]}], got {describe(pair)}")
        check_value(pair[0], kinds[0], f"{at}[0]")
        check_value(pair[1], kinds[1], f"{at}[1]")


def check_report(doc):
    check_fields(doc, TOP_FIELDS, "")
    check_fields(doc["threads"], THREAD_FIELDS, "threads")
    check_fields(doc["policy"], POLICY_FIELDS, "policy")
    if not doc["nodes"]:
        raise ShapeError("nodes: empty (dram is always there)")
    for i, node in enumerate(doc["nodes"]):
        where = f"nodes[{i}]"
        check_fields(node, NODE_FIELDS, where)
        if node["machine"] is not None:
            check_fields(node["machine"], MACHINE_FIELDS, f"{where}.machine")
        if node.get("verified") is not None:
            check_fields(node["verified"], VERIFIED_FIELDS, f"{where}.verified")
            for number, pages in node["verified"].get("by_node", {}).items():
                at = field(f"{where}.verified.by_node", number)
                if not (number.isascii() and number.isdigit()):
                    raise ShapeError(f"{at}: expected a node number as the key")
                check_value(pages, "count", at)
        for cpus, hbw in node.get("near", {}).items():  # near = cpu: CPU node -> HBW node
            at = field(f"{where}.near", cpus)
            if not (cpus.isascii() and cpus.isdigit()):
                raise ShapeError(f"{at}: expected a CPU node's number as the key")
            check_value(hbw, "count", at)
        for j, heap in enumerate(node.get("library_heaps", [])):
            check_fields(heap, LIBRARY_HEAP_FIELDS, f"{where}.library_heaps[{j}]")
        if "node_scope" in node:
            check_fields(node["node_scope"], NODE_SCOPE_FIELDS, f"{where}.node_scope")
        check_pairs(node["timeline"], f"{where}.timeline", ("seconds", "bytes"), ("seconds", "int"))
        if "band" in node:
            if len(node["band"]) != len(node["timeline"]):
                raise ShapeError(f"{where}.band: {len(node['band'])} entries for "
                                 f"{len(node['timeline'])} timeline points")
            check_pairs(node["band"], f"{where}.band", ("least", "most"), ("int", "int"))
    for i, rule in enumerate(doc["rules"]):
        check_fields(rule, RULE_FIELDS, f"rules[{i}]")
        for j, name in enumerate(rule["chain"]):
            check_value(name, "str", f"rules[{i}].chain[{j}]")
    check_fields(doc["sites"], SITES_FIELDS, "sites")
    for i, site in enumerate(doc["sites"]["top"]):
        where = f"sites.top[{i}]"
        check_fields(site, SITE_FIELDS, where)
        for tier, figures in site["tiers"].items():
            check_value(tier, "str", f"{where}.tiers (a node name)")
            check_fields(figures, TIER_FIELDS, field(f"{where}.tiers", tier))
    if "profile" in doc:
        check_profile(doc["profile"])
    for i, entry in enumerate(doc.get("merged", [])):
        check_fields(entry, MERGED_FIELDS, f"merged[{i}]")
    if "symmetric" in doc:
        # merge writes its own shape: the PEs side by side, not one heap
        if "merged" in doc:
            check_merged_symmetric(doc["symmetric"], doc["nodes"])
        else:
            check_symmetric(doc["symmetric"], doc["nodes"])


def check_profile(profile):
    check_fields(profile, PROFILE_FIELDS, "profile")
    sample = profile.get("sample")
    if sample != "all" and not (isinstance(sample, int) and not isinstance(sample, bool)
                                and sample >= 1):
        raise ShapeError(f"profile.sample: expected a positive integer or \"all\", "
                         f"got {describe(sample)}")
    for i, site in enumerate(profile["top"]):
        check_profile_site(site, f"profile.top[{i}]")
    if "access" in profile:
        check_access(profile["access"])


def check_profile_site(site, where):
    check_fields(site, PROFILE_SITE_FIELDS, where)
    for j, frame in enumerate(site["frames"]):
        check_fields(frame, FRAME_FIELDS, f"{where}.frames[{j}]")
    for tier, nbytes in site["tiers"].items():
        check_value(tier, "str", f"{where}.tiers (a node name)")
        check_value(nbytes, "count", field(f"{where}.tiers", tier))
    if "access" in site:
        check_fields(site["access"], SITE_ACCESS_FIELDS, f"{where}.access")


def check_access(access):
    check_fields(access, [("state", "str", True)], "profile.access")
    state = access["state"]
    if state != "on":
        if not state.startswith("unavailable: "):
            raise ShapeError(f'profile.access.state: expected "on" or "unavailable: WHY", '
                             f"got {describe(state)}")
        return
    check_fields(access, ACCESS_FIELDS, "profile.access")
    check_fields(access["tracked"], TRACKED_FIELDS, "profile.access.tracked")
    check_fields(access["untracked"], UNTRACKED_FIELDS, "profile.access.untracked")
    for i, site in enumerate(access["hottest"]):
        check_profile_site(site, f"profile.access.hottest[{i}]")


def check_symmetric(heap, nodes):
    check_fields(heap, SYMMETRIC_FIELDS, "symmetric")
    # the tiers it names are rows of the node table, where their figures are
    names = {n["name"] for n in nodes}
    if heap["tier"] not in names:
        raise ShapeError(f"symmetric.tier: {describe(heap['tier'])} names no node")
    check_bound(heap["bound"], names, "symmetric.bound")


def check_merged_symmetric(heaps, nodes):
    check_fields(heaps, MERGED_SYMMETRIC_FIELDS, "symmetric")
    if not heaps["pes"]:
        raise ShapeError("symmetric.pes: empty (merge lists every PE it merged)")
    names = {n["name"] for n in nodes}
    for i, pe in enumerate(heaps["pes"]):
        where = f"symmetric.pes[{i}]"
        check_fields(pe, PE_FIELDS, where)
        check_bound(pe["bound"], names, f"{where}.bound")
    for i, rank in enumerate(heaps["divergent"]):
        check_value(rank, "str?", f"symmetric.divergent[{i}]")


def check_bound(entries, names, where):
    for i, entry in enumerate(entries):
        check_fields(entry, BOUND_FIELDS, f"{where}[{i}]")
        if entry["tier"] not in names:
            raise ShapeError(f"{where}[{i}].tier: {describe(entry['tier'])} names no node")


def rank_order(rank):
    """A sort key of ranks: as numbers where they are ("2" before "10"), a process
    without one last. Compared as digits, not int(): a rank of 5000 digits is a string
    Python will not make a number of."""
    if rank is None:
        return (2, 0, "")
    if rank.isascii() and rank.isdigit():
        digits = rank.lstrip("0")
        return (0, len(digits), digits)
    return (1, 0, rank)


def symmetric_majority(pes):
    """The (digest, calls) the most PEs share, of PEs in rank order; of pairs as common,
    the lowest rank's."""
    counts = {}
    for pe in pes:
        key = (pe["digest"], pe["calls"])
        counts[key] = counts.get(key, 0) + 1
    return max(counts, key=counts.get)  # the first of equal counts: dicts keep their order


def parse_start(text):
    return datetime.datetime.strptime(text, START_FORMAT).replace(tzinfo=datetime.timezone.utc)


# -- formatting --------------------------------------------------------------------------

def signed_size(n):
    return ("+" if n > 0 else "") + size_str(n)


def seconds(v):
    # wall times are seconds long, waits can be milliseconds: keep three significant-ish digits
    if abs(v) >= 100:
        return f"{v:.1f}"
    return f"{v:.2f}" if abs(v) >= 1 else f"{v:.3f}"


def table(header, rows, align):
    """Aligned columns: `align` holds one 'l' or 'r' per column. A row of one cell is a
    section title, printed as it is and left out of the widths."""
    cells = [header] + [r for r in rows if len(r) > 1]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]

    def line(row):
        parts = [c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(row, widths, align)]
        return "  ".join(parts).rstrip()

    return [line(header)] + [r[0] if len(r) == 1 else line(r) for r in rows]


def plural(n, word):
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def start_text(start):
    return parse_start(start).strftime("%Y-%m-%d %H:%M:%S UTC")


def who(doc):
    """One process in a few words: 'solver, pid 4242 on node017, rank 0'."""
    text = f"{doc['program']}, pid {doc['pid']} on {doc['host']}"
    return text + (f", rank {doc['rank']}" if doc["rank"] is not None else "")


def limit_text(limit):
    return size_str(limit) if limit else "none"


def symmetric_size_text(size):
    """A SHMEM_SYMMETRIC_SIZE value: whole MiB, rounded up, as "6M"."""
    return f"{(size + (1 << 20) - 1) >> 20}M"


def emit(text):
    """text on standard output. A write that fails (a full disk, standard output closed) is
    a Failure; a reader that left (BrokenPipeError) is main's to handle."""
    if sys.stdout is None:  # started with descriptor 1 closed
        raise Failure("<stdout>: cannot write: standard output is closed")
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        # what stays in the buffer would fail again at exit, with a traceback of Python's own
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        raise Failure(f"<stdout>: cannot write: {e.strerror or e}") from None


def write_text(path, text):
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise Failure(f"{printable(path)}: cannot write: {e.strerror or e}") from None
