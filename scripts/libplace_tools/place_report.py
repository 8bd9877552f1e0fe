"""place-report's command line: render, merge, compare, plot, advise."""

import argparse
import json
import os
import re
import sys

from . import VERSION
from .advise import advise
from .compare import compare
from .libplace_text import libplace_text
from .merge import merge
from .plot import default_title, plot_svg, write_png
from .render import render
from .report import (EXIT_INPUT, EXIT_USAGE, NAME, STDIN, Failure, emit, load_report,
                     load_reports, printable, say, write_text)

class Parser(argparse.ArgumentParser):
    """argparse, with the program's prefix on usage errors."""

    def error(self, message):
        sub = self.prog[len(NAME):].strip()
        sys.stderr.write(f"{NAME}: {sub + ': ' if sub else ''}{message}\n{self.format_usage()}")
        sys.exit(EXIT_USAGE)


def build_parser():
    """The parser, and each command's own (for its usage errors)."""
    parser = Parser(prog=NAME, allow_abbrev=False,
                    description="Read libplace's JSON placement reports (docs/report.schema.json, "
                                "version 2): print, merge, compare and chart them, and "
                                "advise a policy from them.",
                    epilog="A REPORT of - is standard input. Exit status: 0 done, 1 an output "
                           "that cannot be written, 2 a usage error, a report that cannot be "
                           "read or is not a valid libplace report, or a merge refused "
                           "(different policies, two reports of one rank).")
    parser.add_argument("--version", action="version", version=f"{NAME} {VERSION}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                     parser_class=Parser)

    p = commands.add_parser("render", allow_abbrev=False, help="print a report as text",
                            description="Print a report: header, nodes, rules, top sites "
                                        "(with file:line from addr2line where it can).")
    p.add_argument("report", metavar="REPORT")
    p.add_argument("--no-lines", action="store_true",
                   help="do not look sites up with addr2line")
    p.add_argument("--libplace", action="store_true",
                   help="print it as libplace's own text report of that run "
                        "(report_format = text), line for line")

    p = commands.add_parser("merge", allow_abbrev=False,
                            help="merge the reports of a job's processes into one",
                            description="Merge reports (an MPI job's ranks) into one report: "
                                        "counters summed per node, rule and site; a node's peak "
                                        "is the sum of the processes' peaks (an upper bound); its "
                                        "timeline the sum over time. OpenSHMEM PEs' symmetric "
                                        "heaps are set side by side, and a PE whose "
                                        "allocations differ from the most PEs' is warned "
                                        "about.")
    p.add_argument("reports", metavar="REPORT", nargs="+", help="a process's report")
    p.add_argument("-o", "--output", metavar="OUT", help="write here (default: stdout)")
    p.add_argument("--force", action="store_true",
                   help="merge reports of different policies (hashes), or two that claim "
                        "one rank, too")

    p = commands.add_parser("compare", allow_abbrev=False, help="compare two reports",
                            description="Compare two reports per node and per rule: figures, "
                                        "differences and ratios; * marks changes over 10%.")
    p.add_argument("a", metavar="A", help="the report to compare against (the baseline)")
    p.add_argument("b", metavar="B", help="the report compared with A")

    p = commands.add_parser("plot", allow_abbrev=False, help="chart memory in use over time",
                            description="Chart each node's memory in use over time, with its "
                                        "limit, as SVG or (through rsvg-convert) PNG.")
    p.add_argument("report", metavar="REPORT")
    p.add_argument("-o", "--output", metavar="OUT", required=True,
                   help="the chart: a name ending in .svg or .png")
    p.add_argument("--title", help="the chart's title (default: the process and host)")

    p = commands.add_parser("advise", allow_abbrev=False,
                            help="write a policy that puts the hottest sites in fast tiers",
                            description="Write a placement policy from profiled runs: the "
                                        "sites hottest per byte of room (bytes touched per "
                                        "interval over peak, from the access profile; else "
                                        "bytes allocated over peak, and it says so) packed "
                                        "into the --fit tiers in order, the rest left to "
                                        "dram; with a table of the choices. --check reads a "
                                        "dry run under that policy: exit 0 when every "
                                        "limited tier held, 1 when one did not.")
    p.add_argument("reports", metavar="REPORT", nargs="*",
                   help="a profiled run's report, or its ranks' (with --check: the dry run's)")
    p.add_argument("--fit", action="append", default=[], metavar="TIER=SIZE[,TIER=SIZE...]",
                   help="the fast tiers and their capacities, fastest first: a kind (hbw, "
                        "pinned, managed) or a tier of --policy")
    p.add_argument("--policy", metavar="BASE.ini",
                   help="a policy whose [libplace], tiers and rules the advice goes with "
                        "(its rules after the advised ones)")
    p.add_argument("-o", "--output", metavar="POLICY",
                   help="write the policy here, and the table to stdout (default: the "
                        "policy to stdout, the table to stderr)")
    p.add_argument("--ranks-per-node", type=int, default=1, metavar="N",
                   help="processes that share a node's fast memory: each gets capacity/N")
    p.add_argument("--check", action="store_true",
                   help="check a dry run's reports of the program under the advised policy")
    return parser, commands.choices


def run_render(args):
    doc = load_report(args.report)
    if not args.libplace:
        emit(render(doc, resolve_lines=not args.no_lines))
    elif "merged" in doc:
        raise Failure(f"{printable(args.report)}: a merged report has no text report of "
                      "libplace's own (it sums several processes); render it without --libplace",
                      EXIT_USAGE)
    else:
        emit(libplace_text(doc))


TIMELINE_POINT = re.compile(r"\[\s+(-?[0-9.eE+-]+),\s+(-?[0-9]+)\s+\]")


def report_json(doc):
    """Indented JSON, with each [seconds, bytes] pair on one line: timelines run to 512
    points, and four lines a point would bury the rest. Only timeline points are arrays of
    two numbers in a report."""
    return TIMELINE_POINT.sub(r"[\1, \2]", json.dumps(doc, indent=2)) + "\n"


def run_merge(args):
    merged = merge(load_reports(args.reports), args.force)
    text = report_json(merged)
    if args.output is None or args.output == STDIN:
        emit(text)
    else:
        write_text(args.output, text)


def run_compare(args):
    (a_name, a), (b_name, b) = load_reports([args.a, args.b])
    emit(compare(a_name, a, b_name, b))


def run_plot(args):
    extension = os.path.splitext(args.output)[1].lower()
    if extension not in (".svg", ".png"):
        raise Failure(f"plot: -o {printable(args.output)}: the name must end in .svg or .png",
                      EXIT_USAGE)
    doc = load_report(args.report)
    svg = plot_svg(doc, args.title if args.title is not None else default_title(doc))
    if extension == ".svg":
        write_text(args.output, svg)
    else:
        write_png(args.output, svg)


COMMANDS = {"render": run_render, "merge": run_merge, "compare": run_compare, "plot": run_plot,
            "advise": advise}


def main(argv):
    parser, commands = build_parser()
    # argparse leaves a command's unknown arguments to the top parser, whose usage line
    # would not show the command's own
    args, extra = parser.parse_known_args(argv)
    if extra:
        commands[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    if hasattr(sys.stdout, "reconfigure"):  # None when started with descriptor 1 closed
        # a report's names in a locale that cannot write them: escapes, not a traceback
        sys.stdout.reconfigure(errors="backslashreplace")
    args.argv = argv  # advise writes its command line into the policy
    try:
        status = COMMANDS[args.command](args)
    except Failure as e:
        say(str(e))
        return e.status
    except BrokenPipeError:
        # `place-report render r.json | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_INPUT
    return status or 0
