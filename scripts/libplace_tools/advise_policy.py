"""place-report advise's policy: site patterns that take exactly the chosen sites, the
base policy they go in front of, and the policy's text (libplace.policy(5)).

A rule of depth d takes a block when any of its first d frames matches any of its
patterns; so a site's pattern is one that matches a frame of it within d and no frame
within d of any site that must not go where it goes. The policy format's limits are
libplace's (config/policy.h, config/parse.c); advice that would pass them says so."""

import configparser
import re

from .report import EXIT_USAGE, Failure, display_name, printable, read_bytes

MAX_RULES = 64      # PLACE_MAX_RULES
MAX_PATTERNS = 63   # PLACE_MAX_PATTERNS, over all rules
PATTERN_MAX = 256   # PLACE_PATTERN_MAX: a pattern is shorter (its NUL fits)
LINE_MAX = 1000     # the parser's LINE_MAX_CHARS
MAX_DEPTH = 16      # PLACE_MAX_DEPTH
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,30}")  # a tier's or rule's NAME

# The names a pattern is made of, when they mean only what they say: no glob character
# (a function or module named with one would match others), nothing the policy's syntax
# reads (| ; # : =), no whitespace. A frame whose names hold others gets no pattern.
EXACT = re.compile(r"([A-Za-z0-9_.+-]+)\+0x[0-9a-fA-F]+")  # MODULE+0xOFFSET, MODULE a file name
FUNCTION = re.compile(r"[A-Za-z0-9_.$@]+")  # a symbol as the ELF table has it (C++ mangled)


def function_of(frame):
    """The function of a frame's symbol ("solver!compute+0x5e" or "compute"), or None."""
    symbol = frame["symbol"]
    if symbol is None:
        return None
    name = re.sub(r"\+0x[0-9a-fA-F]+$", "", symbol.split("!", 1)[-1])
    return name or None


def patterns_of(frame):
    """The patterns that name a frame, most preferred first: MODULE:FUNCTION (a function
    names every return address in it, so it holds when code moves), then the exact
    MODULE+0xOFFSET the report gives. Only patterns that match nothing by accident."""
    exact = EXACT.fullmatch(frame["site"])
    if exact is None or "+0x" in exact.group(1):  # libplace reads to the first +0x
        return []
    found = []
    function = function_of(frame)
    if function is not None and FUNCTION.fullmatch(function):
        found.append(f"{exact.group(1)}:{function}")
    found.append(frame["site"])
    return [p for p in found if len(p) < PATTERN_MAX]


def choose_patterns(sites):
    """{site: (pattern, depth)} for each site that has a tier, and the sites no pattern
    tells apart from those that go elsewhere. Only a site's frame d is new at depth d: a
    pattern that matched another site's frame within d - 1 still does within d."""
    named = {id(s): [set(patterns_of(f)) for f in s.frames] for s in sites}
    chosen, apart = {}, []
    for s in sites:
        if s.tier is None:
            continue
        others = [named[id(o)] for o in sites if o.tier != s.tier]
        found = None
        for d, frame in enumerate(s.frames[:MAX_DEPTH], 1):
            for pattern in patterns_of(frame):
                if not any(pattern in f for o in others for f in o[:d]):
                    found = (pattern, d)
                    break
            if found:
                break
        if found:
            chosen[id(s)] = found
        else:
            apart.append(s)
    return chosen, apart


def advised_rules(sites, chosen, tiers, taken):
    """The rules: one per tier and depth, fastest tier and smallest depth first, split
    where a site line would pass LINE_MAX. [(name, tier, depth, patterns, sites)]; names
    are not among taken (the base policy's)."""
    groups = {}
    for s in sites:
        if id(s) in chosen:
            pattern, depth = chosen[id(s)]
            group = groups.setdefault((s.tier, depth), {})
            group.setdefault(pattern, []).append(s)
    rules = []
    for tier in tiers:
        for depth in sorted(d for t, d in groups if t == tier):
            parts = [[]]
            for pattern, served in groups[(tier, depth)].items():
                if parts[-1] and len(site_line(parts[-1] + [(pattern, served)])) > LINE_MAX:
                    parts.append([])
                parts[-1].append((pattern, served))
            for k, part in enumerate(parts, 1):
                name = rule_name(f"{tier}-depth{depth}" + (f"-{k}" if len(parts) > 1 else ""),
                                 taken)
                taken.add(name)
                rules.append((name, tier, depth, [p for p, _ in part],
                              [s for _, served in part for s in served]))
    return rules


def site_line(part):
    return "site = " + " | ".join(p for p, _ in part)


def rule_name(wanted, taken):
    """wanted, if it is a NAME no other rule has; else advised2, advised3, ..."""
    if NAME.fullmatch(wanted) and wanted not in taken:
        return wanted
    k = 2
    while f"advised{k}" in taken:
        k += 1
    return f"advised{k}"


def over_limits(rules, base):
    """What of libplace's limits the policy would pass, in words, or None."""
    count = len(rules) + (len(base.rules) if base else 0)
    patterns = sum(len(r[3]) for r in rules) + (base.patterns() if base else 0)
    if count > MAX_RULES:
        return f"libplace takes at most {MAX_RULES} rules in a policy"
    if patterns > MAX_PATTERNS:
        return f"libplace takes at most {MAX_PATTERNS} site patterns in a policy"
    return None


# -- the base policy ---------------------------------------------------------------------

class Base:
    """A policy file given with --policy, as its sections: [libplace]'s keys, the tiers
    and the rules, each [(key, value)] in the file's order (its comments are not kept)."""

    def __init__(self, path):
        self.path = path
        self.name = display_name(path)
        self.settings = None
        self.tiers = {}
        self.rules = {}
        parser = configparser.ConfigParser(
            delimiters=("=",), comment_prefixes=("#", ";"), inline_comment_prefixes=(";",),
            strict=True, empty_lines_in_values=False, interpolation=None,
            default_section="\0")
        parser.optionxform = str  # keys as written: libplace's are lower case
        text = read_bytes(path).decode("utf-8", errors="replace")
        # libplace reads no continuation lines: an indented line is a line of its own
        text = "\n".join(line.lstrip() for line in text.splitlines())
        try:
            parser.read_string(text, source=self.name)
        except configparser.Error as e:
            raise Failure(f"{self.name}: not a policy place-report can read: "
                          f"{' '.join(str(e).split())}", EXIT_USAGE) from None
        for section in parser.sections():
            keys = list(parser.items(section))
            kind, _, name = section.partition(" ")
            if section == "libplace":
                self.settings = keys
            elif kind == "tier" and NAME.fullmatch(name):
                self.tiers[name] = keys
            elif kind == "rule" and NAME.fullmatch(name):
                self.rules[name] = keys
            else:
                raise Failure(f"{self.name}: [{printable(section)}] is not a section of a "
                              "policy; expected [libplace], [tier NAME] or [rule NAME]",
                              EXIT_USAGE)

    def kind(self, tier):
        return dict(self.tiers[tier]).get("kind", tier)

    def patterns(self):
        return sum(len(dict(keys).get("site", "").split("|"))
                   for keys in self.rules.values() if dict(keys).get("site"))


# -- the policy's text -------------------------------------------------------------------

def section(title, keys):
    return [f"[{title}]"] + [f"{k} = {v}" for k, v in keys]


def policy_text(header, tiers, rules, base, size_min, describe):
    """The policy: header (comment lines), [libplace], the advised tiers (tiers:
    [(name, [(key, value)])]) and the base's others, the advised rules, each with the
    sites it serves in a comment (describe(site) says it), then the base's rules."""
    lines = [f"# {h}" for h in header] + [""]
    if base and base.settings is not None:
        lines += section("libplace", base.settings)
    else:
        lines += ["# a wrappers key of the profiled run's policy belongs here too: frames",
                  "# are counted past the wrappers, and the rules' depths with them",
                  "[libplace]"]
    advised = {name for name, _ in tiers}
    for name, keys in tiers:
        lines += [""] + section(f"tier {name}", keys)
    for name, keys in (base.tiers.items() if base else []):
        if name not in advised:
            lines += [""] + section(f"tier {name}", keys)
    for name, tier, depth, patterns, served in rules:
        frame = "the innermost frame" if depth == 1 else f"the first {depth} frames"
        lines += ["", f"# to {tier}, matched in {frame}:"]
        lines += [f"#   {describe(s)}" for s in served]
        keys = [("site", " | ".join(patterns)), ("depth", depth)]
        if size_min:
            keys.append(("size", f"{size_min}.."))
        lines += section(f"rule {name}", keys + [("to", f"{tier}, dram")])
    if base and base.rules:
        lines += ["", f"# the rules of {printable(base.name)}, after the advised ones"]
        for name, keys in base.rules.items():
            lines += section(f"rule {name}", keys) + [""]
        lines.pop()
    return "\n".join(lines) + "\n"
