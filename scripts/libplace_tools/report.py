"""Reading libplace's JSON reports (docs/report.schema.json, version 1), and what the
outputs of place-report's commands share: its messages, the text helpers.

Python 3 standard library only, so that it runs wherever libplace's reports land
(cluster login nodes rarely have matplotlib). A REPORT of `-` is standard input."""

import datetime
import json
import re
import sys

from .units import size_str

NAME = "place-report"
EXIT_INPUT = 1
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

def display_name(path):
    return "<stdin>" if path == STDIN else path


def read_bytes(path):
    if path == STDIN:
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise Failure(f"{path}: cannot read: {e.strerror or e}") from None


def _reject_constant(name):
    # Python's json takes NaN and Infinity, which are not JSON and which no writer of
    # reports produces: refuse them here rather than carry them into sums.
    raise ValueError(f"{name} is not a JSON value")


def parse_json(name, data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Failure(f"{name}: not JSON (not UTF-8 text)") from None
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise Failure(f"{name}: not JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except ValueError as e:
        raise Failure(f"{name}: not JSON: {e}") from None
    except RecursionError:
        raise Failure(f"{name}: not JSON this program can read: nested too deeply") from None


def load_report(path):
    """The report in PATH as a dict, checked to have every shape the subcommands rely on."""
    name = display_name(path)
    doc = parse_json(name, read_bytes(path))
    if not isinstance(doc, dict) or doc.get("schema") != "libplace-report":
        raise Failure(f'{name}: not a libplace report (expected "schema": "libplace-report")')
    version = doc.get("version")
    if version != 1 or isinstance(version, bool):
        raise Failure(f"{name}: a libplace report of version {json.dumps(version)}; "
                      "place-report reads version 1")
    try:
        check_report(doc)
    except ShapeError as e:
        raise Failure(f"{name}: not a valid libplace report: {e}") from None
    return doc


def load_reports(paths):
    if paths.count(STDIN) > 1:
        raise Failure("standard input (-) can be given once", EXIT_USAGE)
    return [(display_name(p), load_report(p)) for p in paths]


# -- the shape of a report ---------------------------------------------------------------
#
# Not a full schema validator (that would need jsonschema, not in the standard library):
# only the keys and types the subcommands use, so that a hand-edited or truncated report
# gets a message naming the key instead of a traceback. Unknown keys are ignored, as the
# schema asks of readers.

class ShapeError(Exception):
    pass


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_start(v):
    try:
        return isinstance(v, str) and bool(re.fullmatch(r"[0-9]{8}T[0-9]{6}Z", v)) \
            and parse_start(v) is not None
    except ValueError:
        return False


TYPES = {
    "int": (_is_int, "an integer"),
    "count": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    "seconds": (lambda v: _is_number(v) and v >= 0, "a number >= 0"),
    "str": (lambda v: isinstance(v, str), "a string"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "object": (lambda v: isinstance(v, dict), "an object"),
    "array": (lambda v: isinstance(v, list), "an array"),
    "start": (_is_start, "a UTC time like 20261121T054300Z"),
    "hash": (lambda v: isinstance(v, str) and bool(re.fullmatch(r"[0-9a-f]{16}", v)),
             "16 lower-case hex digits"),
}

# (key, type, required); a type ending in "?" may also be null.
TOP_FIELDS = [("pid", "int", True), ("forked_from", "int?", False), ("program", "str", True),
              ("host", "str", True), ("rank", "str?", True), ("start", "start", True),
              ("seconds", "seconds", True), ("signal", "str?", False),
              ("threads", "object", True), ("policy", "object", True),
              ("nodes", "array", True), ("rules", "array", True), ("sites", "object", True)]
THREAD_FIELDS = [("allocating", "count", True), ("at_exit", "count", True)]
POLICY_FIELDS = [("file", "str?", True), ("inline_rules", "bool", True), ("rules", "count", True),
                 ("hash", "hash", True), ("dry_run", "bool", True)]
NODE_COUNTERS = ["allocations", "frees", "refused", "fallbacks_out", "fallbacks_in", "waits",
                 "overflow_bytes", "failures", "reclaimed_bytes", "skipped"]
NODE_FIELDS = ([("name", "str", True), ("kind", "str", True), ("limit", "count", True),
                ("available", "bool", True), ("unavailable", "str?", True),
                ("planned", "bool", False), ("in_use", "int", True), ("peak", "int", True),
                ("wait_seconds", "seconds", True), ("machine", "object?", True),
                ("timeline", "array", True)]
               + [(k, "count", True) for k in NODE_COUNTERS])
MACHINE_FIELDS = [("total", "count", True), ("free", "count", True)]
RULE_FIELDS = [("name", "str", True), ("hits", "count", True), ("bytes", "count", True),
               ("chain", "array", True), ("on_full", "str", True)]
SITES_FIELDS = [("total", "count", True), ("top", "array", True)]
SITE_FIELDS = [("site", "str?", True), ("symbol", "str?", True), ("module", "str?", True),
               ("offset", "int?", True), ("rule", "str?", True), ("allocations", "count", True),
               ("bytes", "count", True), ("fallbacks", "count", True), ("tiers", "object", True)]
TIER_FIELDS = [("allocations", "count", True), ("bytes", "count", True)]


def check_fields(obj, fields, where):
    if not isinstance(obj, dict):
        raise ShapeError(f"{where}: expected an object")
    for key, kind, required in fields:
        if key not in obj:
            if required:
                raise ShapeError(f"{where}: no {key!r}")
            continue
        value = obj[key]
        nullable = kind.endswith("?")
        if nullable and value is None:
            continue
        test, expected = TYPES[kind.rstrip("?")]
        if not test(value):
            expected += " or null" if nullable else ""
            raise ShapeError(f"{where}{'.' if where else ''}{key}: {json.dumps(value)[:40]} "
                             f"is not {expected}")


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
        for j, point in enumerate(node["timeline"]):
            if not (isinstance(point, list) and len(point) == 2 and _is_number(point[0])
                    and point[0] >= 0 and _is_int(point[1])):
                raise ShapeError(f"{where}.timeline[{j}]: expected [seconds, bytes]")
    for i, rule in enumerate(doc["rules"]):
        check_fields(rule, RULE_FIELDS, f"rules[{i}]")
        if not all(isinstance(t, str) for t in rule["chain"]):
            raise ShapeError(f"rules[{i}].chain: expected node names")
    check_fields(doc["sites"], SITES_FIELDS, "sites")
    for i, site in enumerate(doc["sites"]["top"]):
        check_fields(site, SITE_FIELDS, f"sites.top[{i}]")
        for tier, figures in site["tiers"].items():
            check_fields(figures, TIER_FIELDS, f"sites.top[{i}].tiers.{tier}")


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


def write_text(path, text):
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise Failure(f"{path}: cannot write: {e.strerror or e}") from None
