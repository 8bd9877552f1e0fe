"""place-report plot: each node's memory in use over time, with its limit, as SVG or
(through rsvg-convert) PNG."""

import math
import re
import shutil
import subprocess
from xml.sax import saxutils

from .report import Failure, printable, who
from .units import UNITS, size_str

# Colours that stay apart for common colour blindness (Okabe-Ito), darkest first.
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#F0E442"]
WIDTH, HEIGHT = 960, 540
LEFT, RIGHT, TOP, BOTTOM = 90, 230, 56, 64  # room for tick labels, legend, title, axis title
FONT = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"
# A limit far above what was used would flatten every line: it is left off the scale.
LIMIT_SCALE_MAX = 4
# What XML 1.0 has no place for (control characters, lone surrogates): a report's names or
# a --title holding one would make the SVG malformed, or not writable as UTF-8.
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def escape(text):
    return saxutils.escape(NOT_XML.sub("\ufffd", text))


def quoteattr(text):
    return saxutils.quoteattr(NOT_XML.sub("\ufffd", text))


def time_ticks(t_max):
    """Round steps of 1, 2 or 5 times a power of ten, at most 8 of them, none past t_max:
    the axis ends where the report does rather than at the next round number."""
    raw = t_max / 8
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    count = math.floor(t_max / step + 1e-9)
    return [i * step for i in range(count + 1)]


def byte_ticks(y_max):
    """Steps of a power of two in binary units (64 KiB, 256 MiB, 2 GiB), 3 to 6 of them above
    0: such steps also fall on round numbers of the next unit (768 MiB, 1 GiB, 1.25 GiB),
    where decimal steps would not (1000 KiB, 1.17 MiB)."""
    raw = max(y_max / 6, 1)
    step = 1 << math.ceil(math.log2(raw))
    count = max(1, math.ceil(y_max / step - 1e-9))
    return [i * step for i in range(count + 1)]


def tick_bytes(n):
    """An axis label: the largest unit that keeps the number at least 1, no '.0'."""
    unit = 0
    while unit < len(UNITS) - 1 and n >= 1024 ** (unit + 1):
        unit += 1
    value = n / 1024 ** unit
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return f"{text} {UNITS[unit]}"


def tick_seconds(t, ticks):
    """As many decimals as the step between ticks needs: 0.5 s, 2 s, 0.002 s."""
    step = ticks[1] - ticks[0] if len(ticks) > 1 else t or 1
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    return f"{t:.{decimals}f} s"


def default_title(doc):
    if isinstance(doc.get("merged"), list):
        return f"{doc['program']}: {len(doc['merged'])} processes, memory in use per node"
    return f"{who(doc)}: memory in use per node"


def series_of(doc):
    """Per node: its points, ending at the report (a step holds its value until then). A
    node without a timeline never held memory: it is drawn along 0, so every node shows."""
    end = max([doc["seconds"]] + [n["timeline"][-1][0] for n in doc["nodes"] if n["timeline"]])
    if end < 1e-6:  # none, or too short for ticks a float can space
        end = 1.0
    series = []
    for node in doc["nodes"]:
        points = [tuple(p) for p in node["timeline"]] or [(0.0, 0)]
        band = node.get("band")
        if not isinstance(band, list) or len(band) != len(node["timeline"]):
            band = [(v, v) for _, v in points]  # a report without one, or a merged one
        series.append((node, points, [tuple(b) for b in band]))
    return series, end


class Frame:
    """The plot area and its scales: seconds to x, bytes to y (in SVG, y grows downwards)."""

    def __init__(self, t_end, y_max):
        self.left, self.top = LEFT, TOP
        self.width, self.height = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
        self.right, self.bottom = self.left + self.width, self.top + self.height
        self.t_end, self.y_max = t_end, y_max

    def x(self, t):
        return self.left + t / self.t_end * self.width

    def y(self, v):
        return self.bottom - max(v, 0) / self.y_max * self.height


def plot_svg(doc, title):
    series, t_end = series_of(doc)
    used = max(max(hi for _, hi in band) for _, _, band in series)
    on_scale = [n["limit"] for n, _, _ in series
                if n["limit"] and n["limit"] <= LIMIT_SCALE_MAX * max(used, 1)]
    y_ticks = byte_ticks(max([used, 1] + on_scale) * 1.05)
    frame = Frame(t_end, y_ticks[-1])
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family={quoteattr(FONT)} font-size="12">',
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
           f'<text x="{frame.left + frame.width / 2:.1f}" y="30" text-anchor="middle" '
           f'font-size="16" font-weight="bold">{escape(title)}</text>']
    out += axes_svg(frame, time_ticks(t_end), y_ticks)
    # in a merged report the limit is each process's, and the lines are sums
    per_process = " per process" if isinstance(doc.get("merged"), list) else ""
    for i, (node, points, band) in enumerate(series):
        out += node_svg(frame, node, points, band, PALETTE[i % len(PALETTE)], per_process)
    out += legend_svg(series, on_scale)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def axes_svg(frame, x_ticks, y_ticks):
    f = frame
    out = ['<g class="axes" stroke="#dddddd" stroke-width="1">']
    out += [f'<line x1="{f.left}" y1="{f.y(v):.1f}" x2="{f.right}" y2="{f.y(v):.1f}"/>'
            for v in y_ticks]
    out += [f'<line x1="{f.x(t):.1f}" y1="{f.top}" x2="{f.x(t):.1f}" y2="{f.bottom}"/>'
            for t in x_ticks]
    out.append(f'<rect x="{f.left}" y="{f.top}" width="{f.width}" height="{f.height}" '
               'fill="none" stroke="#333333"/>')
    out.append("</g>")
    out += [f'<text x="{f.left - 8}" y="{f.y(v) + 4:.1f}" text-anchor="end">{tick_bytes(v)}</text>'
            for v in y_ticks]
    out += [f'<text x="{f.x(t):.1f}" y="{f.bottom + 18}" text-anchor="middle">'
            f'{tick_seconds(t, x_ticks)}</text>' for t in x_ticks]
    middle_x, middle_y = f.left + f.width / 2, f.top + f.height / 2
    out.append(f'<text x="{middle_x:.1f}" y="{HEIGHT - 18}" text-anchor="middle">'
               'time since start</text>')
    out.append(f'<text x="20" y="{middle_y:.1f}" text-anchor="middle" '
               f'transform="rotate(-90 20 {middle_y:.1f})">memory in use</text>')
    return out


def step_path(frame, points):
    """A step function: each value holds until the next point, the last until the end."""
    t0, v0 = points[0]
    d = [f"M{frame.x(t0):.1f},{frame.y(v0):.1f}"]
    for t, v in points[1:]:
        d.append(f"H{frame.x(t):.1f}V{frame.y(v):.1f}")
    d.append(f"H{frame.x(max(frame.t_end, points[-1][0])):.1f}")
    return "".join(d)


def band_svg(frame, node, points, band, colour):
    """Each point's band, the least and most in use since the point before, as a pale box
    over that interval: a burst between two points shows as one."""
    boxes = []
    for (t0, _), (t1, _), (lo, hi) in zip(points, points[1:], band[1:]):
        if hi > lo:
            top, bottom = frame.y(hi), frame.y(lo)
            boxes.append(f'<rect x="{frame.x(t0):.1f}" y="{top:.1f}" '
                         f'width="{max(frame.x(t1) - frame.x(t0), 1):.1f}" '
                         f'height="{max(bottom - top, 1):.1f}"/>')
    if not boxes:
        return []
    return [f'<g class="band" data-node={quoteattr(node["name"])} fill="{colour}" '
            'fill-opacity="0.25">'] + boxes + ["</g>"]


def node_svg(frame, node, points, band, colour, per_process):
    f = frame
    out = band_svg(f, node, points, band, colour)
    out += [f'<path class="series" data-node={quoteattr(node["name"])} d="{step_path(f, points)}" '
           f'fill="none" stroke="{colour}" stroke-width="2" stroke-linejoin="round"/>']
    limit = node["limit"]
    if limit and limit <= f.y_max:
        y = f.y(limit)
        out.append(f'<line class="limit" x1="{f.left}" y1="{y:.1f}" x2="{f.right}" y2="{y:.1f}" '
                   f'stroke="{colour}" stroke-width="1.5" stroke-dasharray="6,4"/>')
        label = f"{node['name']} limit {tick_bytes(limit)}{per_process}"
        # on a white box, so that a line running through it does not hide it; SVG cannot
        # measure text, so the box is as wide as the label's characters at the font's average
        width = len(label) * 6.8 + 8
        out.append(f'<rect x="{f.right - 2 - width:.1f}" y="{y - 18:.1f}" width="{width:.1f}" '
                   'height="16" fill="white" fill-opacity="0.85"/>')
        out.append(f'<text x="{f.right - 6}" y="{y - 6:.1f}" text-anchor="end" '
                   f'fill="{colour}">{escape(label)}</text>')
    return out


def legend_svg(series, on_scale):
    lx, top = WIDTH - RIGHT + 20, TOP + 8
    out = ['<g class="legend">']
    for i, (node, _, _) in enumerate(series):
        colour = PALETTE[i % len(PALETTE)]
        out.append(f'<line x1="{lx}" y1="{top + 6}" x2="{lx + 24}" y2="{top + 6}" '
                   f'stroke="{colour}" stroke-width="3"/>')
        out.append(f'<text x="{lx + 32}" y="{top + 10}" font-weight="bold">'
                   f'{escape(node["name"])} ({escape(node["kind"])})</text>')
        for line in legend_details(node, on_scale):
            top += 16
            out.append(f'<text x="{lx + 32}" y="{top + 10}" fill="#555555">{escape(line)}</text>')
        top += 28
    out.append("</g>")
    return out


def legend_details(node, on_scale):
    """The lines under a node's name: short, as the legend is narrow."""
    if not node["available"] and not node.get("planned"):
        return ["unavailable"]
    lines = ["planned (dry run)"] if not node["available"] else []
    lines.append(f"peak {size_str(node['peak'])}")
    if node["limit"]:
        off = "" if node["limit"] in on_scale else " (off the scale)"
        lines.append(f"limit {size_str(node['limit'])}{off}")
    return lines


def write_png(path, svg):
    converter = shutil.which("rsvg-convert")
    if converter is None:
        raise Failure("rsvg-convert not found, so no PNG: install it (Debian: apt-get install "
                      "librsvg2-bin) or write an .svg")
    try:
        proc = subprocess.run([converter, "--format=png", "--output", path],
                              input=svg.encode("utf-8"), capture_output=True, check=False)
    except OSError as e:
        raise Failure(f"cannot run {converter}: {e.strerror or e}") from None
    if proc.returncode != 0:
        detail = " ".join(proc.stderr.decode("utf-8", "replace").split())  # one line
        raise Failure(f"{printable(path)}: rsvg-convert failed: {detail or f'status {proc.returncode}'}")
