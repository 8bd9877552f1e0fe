"""placerun's command line: run a program under libplace (exec'd, so its exit status,
signals and stdio are the program's own), check a policy with libplace's own check, or
list the tiers (the machine as probe finds it, the policy as libplace reads it)."""

import errno
import json
import os
import re
import signal
import struct
import sys

from . import VERSION
from . import fit, probe
from . import policy as libplace_policy
from .units import size_str

NAME = "placerun"

# Exit statuses of placerun itself (a program that runs has its own).
EXIT_USAGE = 2
EXIT_SETUP = 125  # libplace.so not found: the program did not start (as libplace's on_error = abort)
EXIT_NOEXEC = 126
EXIT_NOTFOUND = 127

USAGE = (
    "usage: placerun [-p POLICY|-] [-r REPORT] [--rule RULE]... [--membind|--preferred|--interleave=NODES] "
    "[--weighted-interleave=NODE:WEIGHT,...] "
    "[--hbw] [--pinned] [--dry-run[=fold]] [--verify] [--profile] [--lib PATH] [--] PROGRAM [ARGS...] | "
    "placerun --check POLICY | placerun --tiers [--json] [-p POLICY] (placerun --help for more)"
)

HELP = """\
usage: placerun [OPTIONS] [--] PROGRAM [ARGS...]
       placerun --check POLICY
       placerun [-p POLICY] [--rule RULE]... --check
       placerun --tiers [--json] [-p POLICY] [--rule RULE]...

Run PROGRAM under libplace (LD_PRELOAD=libplace.so) and report where its memory went.

options:
  -p, --policy POLICY   the policy file (LIBPLACE_POLICY); - reads it from standard
                        input (passed on in LIBPLACE_INLINE_POLICY; the program's
                        standard input is then what is left of it)
  -r, --report REPORT   where the report goes: stderr or a path, %p the pid, %h the
                        host, %r the MPI rank, %j the job id, %q{NAME} the variable
                        NAME, %t the start time (LIBPLACE_REPORT). A path ending in
                        .json gets JSON, any other text.
                        Default: $LIBPLACE_REPORT if set, else the policy's
                        report key if it has one, else stderr
  --format text|json    the report's format, whatever -r's extension
                        (LIBPLACE_REPORT_FORMAT)
  --rule RULE           an inline rule, like 'size=1M.. to=hbw,dram'; repeat it for
                        more, tried in the order given and before the policy's rules
                        (LIBPLACE_RULES; replaces an inherited one)
  --dry-run[=fold]      plan instead of place: decide and count, but take all memory
                        from dram (LIBPLACE_DRY_RUN=1); =fold backs big planned blocks
                        with one small shared buffer, their contents garbage
  --profile             profile accesses as well as bytes: every block of profile_min
                        (1 MiB) or more that no rule places is tracked for how often
                        it is touched, and the report ranks the sites hottest per byte
                        (LIBPLACE_PROFILE=access); place-report advise reads it.
                        Use a JSON report: -r profile.json
  --verify              check every resident page of each tier that binds memory to
                        nodes, not a sample, and report the result (LIBPLACE_VERIFY=all)
  --check               check the policy and rules, print every error (or a summary)
                        and exit 1 on errors, 0 otherwise; then warn of what this
                        machine lacks (nodes, HBW, GPUs, memory under a limit); runs no
                        program
  --tiers               print what this machine offers, and run no program: NUMA nodes
                        (CPUs, size, free, distances), HBW nodes as memkind finds them
                        (MEMKIND_HBW_NODES, else HMAT bandwidth; hbw_check_available()),
                        GPUs through the CUDA driver (libcuda.so.1), and the tiers and
                        limits of the policy (-p, --rule, LIBPLACE_POLICY, LIBPLACE_RULES,
                        LIBPLACE_LIMIT_<TIER>) as libplace's check reads them. Exit 1
                        if the policy has errors
  --json                with --tiers: the same as one JSON object
  --lib PATH            the libplace.so to use. Default: $LIBPLACE_LIB, else the
                        build or install next to placerun
  -h, --help            this help
  --version             placerun's version

one-liners, in numactl's words (each an inline rule, tried in the order given with
--rule's, before the policy's rules; WINDOW is a size window MIN..MAX, as 1M.. or
4K..64K, every size when left out):
  --membind=NODES[:WINDOW]     to a numa tier on NODES, policy bind
  --preferred=NODES[:WINDOW]   to a numa tier on NODES, policy preferred
  --interleave=NODES[:WINDOW]  to a numa tier on NODES, policy interleave
  --weighted-interleave=NODE:WEIGHT,...[:WINDOW]
                        to a numa tier on those nodes, each taking its weight's share of
                        the pages (policy weighted_interleave; numactl 2.0.19's
                        --weighted-interleave, on any kernel)
                        NODES as numactl writes them: 1, 0-2, 0,2, all, !LIST (all but
                        LIST), +LIST (counted among the nodes this process may use).
                        The tier is called membind, preferred or interleave (membind2,
                        ... for a second one), set up through LIBPLACE_KIND_<TIER>,
                        LIBPLACE_NODES_<TIER> and LIBPLACE_POLICY_<TIER>
  --hbw[=WINDOW]        to hbw, then dram
  --pinned[=WINDOW]     to pinned CUDA host memory, then dram

PROGRAM is found in PATH as a shell would find it, and exec'd with libplace.so in front
of any LD_PRELOAD it had; options stop at PROGRAM. Other LIBPLACE_* variables in the
environment (LIBPLACE_LIMIT_HBW=8G, LIBPLACE_ON_ERROR=passthrough, ...) pass through.

The report is PROGRAM's own (it keeps placerun's pid), also when PROGRAM is a wrapper
script that execs the real program (pyenv's, conda's, Spack's): the programs run besides
(the script's basename and readlink, the program's own) report beside a path without %p,
as out.json -> out.NAME-PID.json, and only if they placed anything; the program's forked
children beside it too (LIBPLACE_REPORT_PID).

exit status: PROGRAM's own; 125 if the policy has errors (the program does not start)
or libplace.so is not found or does not load as libplace (it is tried first, in a
child: not an ELF shared object, another machine's, a library it needs missing, not
libplace at all); 126 if PROGRAM cannot be executed; 127 if it is not
found; 2 for a usage error. With --check and --tiers: 0 (no errors), 1 (errors).

See placerun(1), libplace.policy(5).
"""


def say(message):
    sys.stderr.write(f"{NAME}: {message}\n")
    sys.stderr.flush()


def usage_error(message):
    say(message)
    sys.stderr.write(USAGE + "\n")
    sys.stderr.flush()
    sys.exit(EXIT_USAGE)


class Options:
    def __init__(self):
        self.policy = None
        self.policy_text = None  # -p -: the policy read from stdin
        self.report = None
        self.format = None
        self.rules = []  # --rule's and the one-liners', in the order given (LIBPLACE_RULES)
        self.tiers_env = {}  # the one-liners' numa tiers, as LIBPLACE_<KEY>_<TIER> variables
        self.dry_run = None  # None, "1" or "fold"
        self.json = False
        self.check = False
        self.tiers = False
        self.verify = False
        self.profile = False
        self.lib = None
        self.lib_source = None  # "--lib", "LIBPLACE_LIB" or None (found next to placerun)
        self.help = False
        self.version = False
        self.positional = []  # PROGRAM [ARGS...], or the POLICY of --check
        self.home = None  # the directory of placerun's real file


# numactl's options: each a numa tier of that policy on the nodes, and a rule to it
NUMA_ONE_LINERS = {"--membind": "bind", "--preferred": "preferred", "--interleave": "interleave",
                   "--weighted-interleave": "weighted_interleave"}
# the tier each optional-window one-liner sends its window to, dram behind it
TIER_ONE_LINERS = {"--hbw": "hbw", "--pinned": "pinned"}


def window_words(window, option):
    """size=WINDOW for a rule, or nothing for every size. The window is libplace's to
    judge; what would break the rule's words is placerun's."""
    if window is None or window == "":
        return ""
    if any(c in window for c in " \t\n;="):
        usage_error(f"{option}: {window!r} is not a size window; expected MIN..MAX, as 1M.. or 4K..64K")
    return f" size={window}"


def rule_name(o, base):
    """base, or base2, base3, ... when the one-liners already made one of that name."""
    taken = {r.split()[0][5:] for r in o.rules if r.startswith("name=")}
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}{k}"
    return name


def add_numa(o, option, value):
    """--membind=NODES[:MIN..MAX] and its kind: a numa tier and a rule of one name;
    --weighted-interleave=NODE:WEIGHT,...[:MIN..MAX] names its nodes by their weights."""
    weighted = option == "--weighted-interleave"
    if weighted:
        # the weights have colons of their own: a window is the part after the last one
        head, _, tail = value.rpartition(":")
        weights, window = (head, tail) if ".." in tail else (value, "")
        nodes = ",".join(w.partition(":")[0] for w in weights.split(","))
        example = f"{option}=0:3,1:1 or {option}=0:3,1:1:1M.."
    else:
        nodes, _, window = value.partition(":")
        example = f"{option}=1 or {option}=0-1:1M.."
    if not nodes:
        usage_error(f"{option} needs nodes, as {example}")
    if any(c in value for c in " \t\n;="):
        usage_error(f"{option}: {value!r} is not a node list; expected numactl's syntax, as {example}")
    name = rule_name(o, option[2:].replace("-", "_"))
    words = window_words(window, option)
    var = name.upper()
    o.tiers_env.update({f"LIBPLACE_KIND_{var}": "numa", f"LIBPLACE_NODES_{var}": nodes,
                        f"LIBPLACE_POLICY_{var}": NUMA_ONE_LINERS[option]})
    if weighted:
        o.tiers_env[f"LIBPLACE_WEIGHTS_{var}"] = weights
    o.rules.append(f"name={name}{words} to={name}")


def add_tier(o, option, window):
    """--hbw[=MIN..MAX], --pinned[=MIN..MAX]: the window to that tier, then dram."""
    tier = TIER_ONE_LINERS[option]
    o.rules.append(f"name={rule_name(o, tier)}{window_words(window, option)} to={tier},dram")


def parse(argv):
    """Options come first; `--` or the first argument that is not an option ends them."""
    o = Options()
    with_value = {"-p": "policy", "--policy": "policy", "-r": "report", "--report": "report",
                  "--rule": "rule", "--lib": "lib", "--format": "format",
                  **{k: "numa" for k in NUMA_ONE_LINERS}}
    flags = {"--check": "check", "--tiers": "tiers", "--verify": "verify", "--json": "json",
             "--profile": "profile",
             "-h": "help", "--help": "help", "--version": "version"}
    optional = {"--dry-run": "dry_run", **{k: "tier" for k in TIER_ONE_LINERS}}
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            break
        if not arg.startswith("-") or arg == "-":
            i -= 1
            break
        name, value = arg, None
        if arg.startswith("--") and "=" in arg:
            name, value = arg.split("=", 1)
        elif len(arg) > 2 and not arg.startswith("--") and arg[:2] in with_value:
            name, value = arg[:2], arg[2:]  # -pPOLICY
        if name in flags:
            if value is not None:
                usage_error(f"{name} takes no value")
            setattr(o, flags[name], True)
        elif name in optional:
            if optional[name] == "tier":
                add_tier(o, name, value)
            elif value not in (None, "fold"):
                usage_error(f"--dry-run={value}: expected --dry-run or --dry-run=fold")
            else:
                o.dry_run = value or "1"
        elif name in with_value:
            if value is None:
                if i >= len(argv):
                    usage_error(f"{name} needs an argument")
                value = argv[i]
                i += 1
            key = with_value[name]
            if key == "rule":
                o.rules.append(value)
            elif key == "numa":
                add_numa(o, name, value)
            elif key == "format" and value not in ("text", "json"):
                usage_error(f"--format {value}: expected text or json")
            else:
                setattr(o, key, value)
        else:
            usage_error(f"unknown option {arg!r}")
    o.positional = argv[i:]
    if o.json and not o.tiers:
        usage_error("--json is for --tiers (the report's format is --format json)")
    return o


def take_stdin_policy(o):
    """-p -: the policy's text, for LIBPLACE_INLINE_POLICY, read once the command line
    has passed its checks (--help does not wait for standard input)."""
    if o.policy != "-":
        return
    o.policy = None
    try:
        data = sys.stdin.buffer.read()
    except (OSError, AttributeError) as e:
        say(f"-p -: cannot read the policy from standard input ({e})")
        sys.exit(EXIT_SETUP)
    if b"\0" in data:
        say("-p -: standard input holds a NUL byte; expected a policy (text)")
        sys.exit(EXIT_SETUP)
    # it travels as LIBPLACE_INLINE_POLICY=TEXT, and the kernel takes no variable longer
    # than MAX_ARG_STRLEN (128 KiB) into a program's environment
    room = 128 * 1024 - len("LIBPLACE_INLINE_POLICY=") - 1
    if len(data) > room:
        say(f"-p -: the policy on standard input is {len(data)} bytes, and a policy from "
            f"standard input holds at most {room}; expected a shorter one, or -p FILE")
        sys.exit(EXIT_SETUP)
    o.policy_text = data.decode(errors="surrogateescape")


def find_lib(o):
    """--lib, $LIBPLACE_LIB, then the build or install around this script's real location."""
    if o.lib is not None:
        candidates, source = [o.lib], "--lib"
    elif os.environ.get("LIBPLACE_LIB"):
        candidates, source = [os.environ["LIBPLACE_LIB"]], "LIBPLACE_LIB"
    else:
        candidates, source = libplace_policy.library_paths(o.home), None
    o.lib_source = source
    for c in candidates:
        if os.path.isfile(c):
            lib = os.path.abspath(c)
            # ld.so splits LD_PRELOAD at spaces and colons
            if any(ch in lib for ch in " :\t\n"):
                say(f"{lib}: a path with a space or a colon cannot go into LD_PRELOAD; "
                    "copy or link libplace.so to a plain path and give it with --lib")
                sys.exit(EXIT_SETUP)
            return lib
    if source:
        say(f"{source}: {candidates[0]}: no such file; expected the path of libplace.so")
    else:
        say("libplace.so not found; looked in " + ", ".join(candidates)
            + " (build it, or give it with --lib PATH or LIBPLACE_LIB)")
    sys.exit(EXIT_SETUP)



def build_env(o, lib, policy, check=None):
    """The program's environment; with check ("1" or "json"), that of libplace's check."""
    env = dict(os.environ)
    env.pop("LIBPLACE_LIB", None)  # placerun's, not libplace's: libplace would warn about it
    env.pop("LIBPLACE_CHECK", None)
    env.pop("LIBPLACE_REPORT_PID", None)  # an outer placerun's: only this one's program reports
    if policy is not None:
        env["LIBPLACE_POLICY"] = policy
        env.pop("LIBPLACE_INLINE_POLICY", None)
    if o.policy_text is not None:
        env["LIBPLACE_INLINE_POLICY"] = o.policy_text
        env.pop("LIBPLACE_POLICY", None)
    if o.rules:
        env["LIBPLACE_RULES"] = "; ".join(o.rules)
    env.update(o.tiers_env)
    if o.dry_run:
        env["LIBPLACE_DRY_RUN"] = o.dry_run
    if o.verify and not check:
        env["LIBPLACE_VERIFY"] = "all"
    if o.profile and not check:
        env["LIBPLACE_PROFILE"] = "access"
    if o.report is not None:
        env["LIBPLACE_REPORT"] = o.report
    form = o.format
    if form is None and o.report is not None and o.report != "stderr":
        form = "json" if o.report.lower().endswith(".json") else "text"
    if form is not None:
        env["LIBPLACE_REPORT_FORMAT"] = form
    if check:
        return libplace_policy.check_env(env, lib, check)
    # One child with lib preloaded: that it loads and is libplace (ld.so only warns about
    # an LD_PRELOAD it cannot load, and the program would run without it); and, when the
    # report's destination is the policy's to say, libplace is asked, so that the one
    # parser judges the file.
    ask = "LIBPLACE_REPORT" not in env and bool(env.get("LIBPLACE_POLICY")
                                                 or env.get("LIBPLACE_INLINE_POLICY"))
    rc, out, said = libplace_policy.probe(env, lib, policy=ask)
    if not libplace_policy.loaded(rc):
        refuse_lib(o, lib, rc, said)
    if "LIBPLACE_REPORT" not in env and not (ask and libplace_policy.names_report(rc, out)):
        env["LIBPLACE_REPORT"] = "stderr"
    previous = [p for p in env.get("LD_PRELOAD", "").replace(" ", ":").split(":") if p]
    previous = [p for p in previous if not same_file(p, lib)]
    env["LD_PRELOAD"] = ":".join([lib] + previous)
    return env


ELF_MACHINES = {3: "i386", 8: "MIPS", 20: "PowerPC", 21: "PowerPC64", 22: "s390", 40: "ARM",
                62: "x86-64", 183: "AArch64", 243: "RISC-V", 258: "LoongArch"}


def elf_ident(path):
    """(class, byte order, type, machine) of an ELF file; None if it is not one. Raises
    OSError."""
    with open(path, "rb") as f:
        head = f.read(20)
    if len(head) < 20 or head[:4] != b"\x7fELF":
        return None
    e_type, e_machine = struct.unpack_from("<HH" if head[5] == 1 else ">HH", head, 16)
    return head[4], head[5], e_type, e_machine


def elf_target(ident):
    cls, data, _, machine = ident
    bits = {1: "32-bit", 2: "64-bit"}.get(cls, f"class {cls}")
    order = {1: "little-endian", 2: "big-endian"}.get(data, f"byte order {data}")
    return f"{ELF_MACHINES.get(machine, f'machine {machine}')} {bits} {order}"


def why_not_libplace(lib, rc, said):
    """Why lib, preloaded into /bin/sh under LIBPLACE_CHECK, did not check as libplace does
    (status rc, ld.so's words in said, if captured): a phrase."""
    if rc is None:
        return said.strip() or "it could not be tried"
    if rc < 0:
        return f"loading it kills the program (signal {-rc}, {signal.Signals(-rc).name})"
    try:
        ident = elf_ident(lib)
    except OSError as e:
        return f"cannot read it ({(e.strerror or str(e)).lower()})"
    if ident is None:
        return "not an ELF shared object"
    if ident[2] != 3:  # ET_DYN
        return "an ELF file, but not a shared object"
    try:
        own = elf_ident("/proc/self/exe")
    except OSError:
        own = None
    if own and (own[0], own[1], own[3]) != (ident[0], ident[1], ident[3]):
        return f"built for {elf_target(ident)}, not for this machine ({elf_target(own)})"
    m = re.search(r"error while loading shared libraries: ([^:]+): ([^\n]*)", said)
    if m:
        return f"a library it needs does not load: {m.group(1)} ({m.group(2).strip()})"
    m = re.search(r"cannot be preloaded \((.*)\): ignored", said)
    if m:
        return f"ld.so cannot preload it ({m.group(1)})"
    if rc == libplace_policy.CHECK_SENTINEL:  # it loaded; libplace's constructor did not run
        try:
            with open(lib, "rb") as f:
                has_api = b"\0place_api\0" in f.read()
        except OSError:
            has_api = False
        if not has_api:
            return "not libplace (it loads, but has no place_api)"
        return "it loads, but libplace did not start in it (LIBPLACE_CHECK had no effect)"
    lines = [line for line in said.splitlines() if line.strip()]
    return lines[0].strip() if lines else f"loading it ends the program with status {rc}"


def refuse_lib(o, lib, rc, said):
    """lib does not load as libplace: one line, and the program does not start."""
    where = f"{o.lib_source}: " if o.lib_source else ""
    say(f"{where}{lib}: {why_not_libplace(lib, rc, said)}; expected the path of libplace.so")
    sys.exit(EXIT_SETUP)


def same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def has_policy(o):
    """Whether a run of o has a policy other than -p POLICY."""
    return bool(o.policy_text is not None or o.rules
                or any(os.environ.get(v) is not None
                       for v in ("LIBPLACE_POLICY", "LIBPLACE_INLINE_POLICY", "LIBPLACE_RULES")))


def check_usage(o):
    if o.policy is not None and o.positional:
        usage_error("--check takes one policy: -p POLICY or a POLICY argument, not both")
    if len(o.positional) > 1:
        usage_error("--check takes one POLICY and runs no program")
    policy = o.policy if o.policy is not None else (o.positional[0] if o.positional else None)
    if policy is None and not has_policy(o):
        usage_error("--check needs a policy (POLICY, -p POLICY) or --rule")
    o.policy = policy  # a POLICY argument is -p's, "-" (standard input) included




def run_check(o, lib, policy, form="1"):
    """libplace's check of the policy: its exit status (0 no errors, 1 errors), and with
    form "json" what it wrote on stdout and stderr (else both are placerun's own). If
    libplace did not load or the check died, placerun says so and exits."""
    env = build_env(o, lib, policy, check=form)
    try:
        return libplace_policy.run_check(env, lib, capture=form == "json")
    except libplace_policy.NotChecked as e:
        sys.stderr.write(e.said)
        if e.rc is not None:
            say(f"{e}: {why_not_libplace(lib, e.rc, e.said)}")
        else:
            say(str(e))
        sys.exit(128 + e.sig if e.sig else EXIT_SETUP)


def check(o, lib, policy):
    """libplace's check, then, for a policy without errors, how it fits this machine."""
    rc, _, _ = run_check(o, lib, policy)
    if rc == 0:
        _, out, _ = run_check(o, lib, policy, form="json")
        doc = libplace_policy.read(out)
        if isinstance(doc, dict):
            print_warnings(fit.warnings(doc, fit.machine(doc)))
    sys.exit(rc)


def print_warnings(found):
    for at, message in found:
        say(f"{at}: warning: {message}")


def resolve(program, path_var):
    """The file exec would run, like execvp: (path, None) or (None, (status, message))."""
    if "/" in program:
        candidates = [program]
    else:
        if path_var is None:
            path_var = os.defpath
        candidates = [os.path.join(d or ".", program) for d in path_var.split(":")]
    denied = None
    for c in candidates:
        if not os.path.exists(c):
            continue
        if os.path.isdir(c):
            denied = denied or (EXIT_NOEXEC, f"{program}: is a directory")
        elif not os.access(c, os.X_OK):
            denied = denied or (EXIT_NOEXEC, f"{program}: permission denied")
        else:
            return c, None
    if denied:
        return None, denied
    if "/" in program:
        return None, (EXIT_NOTFOUND, f"{program}: no such file or directory")
    return None, (EXIT_NOTFOUND, f"{program}: command not found")


def elf_is_static(path):
    """True for an ELF executable without a PT_INTERP program header (static, also
    static-pie); False for a dynamic one, a script or anything unreadable."""
    try:
        with open(path, "rb") as f:
            ident = f.read(64)
            if len(ident) < 52 or ident[:4] != b"\x7fELF":
                return False
            cls, data = ident[4], ident[5]
            end = "<" if data == 1 else ">"
            if cls == 2:
                e_phoff, = struct.unpack_from(end + "Q", ident, 32)
                e_shoff, = struct.unpack_from(end + "Q", ident, 40)
                e_phentsize, e_phnum = struct.unpack_from(end + "HH", ident, 54)
            elif cls == 1:
                e_phoff, e_shoff = struct.unpack_from(end + "II", ident, 28)
                e_phentsize, e_phnum = struct.unpack_from(end + "HH", ident, 42)
            else:
                return False
            e_type, = struct.unpack_from(end + "H", ident, 16)
            if e_type not in (2, 3):  # ET_EXEC, ET_DYN
                return False
            if e_phnum == 0xFFFF and e_shoff:  # PN_XNUM: the count is section 0's sh_info
                f.seek(e_shoff + (44 if cls == 2 else 28))
                e_phnum, = struct.unpack(end + "I", f.read(4))
            if e_phentsize < 4 or e_phnum == 0:
                return e_phnum == 0
            f.seek(e_phoff)
            table = f.read(e_phentsize * e_phnum)
            for k in range(min(e_phnum, len(table) // e_phentsize)):
                p_type, = struct.unpack_from(end + "I", table, k * e_phentsize)
                if p_type == 3:  # PT_INTERP
                    return False
            return True
    except (OSError, struct.error):
        return False


def run(o, lib):
    program, args = o.positional[0], o.positional[1:]
    env = build_env(o, lib, o.policy)
    path, problem = resolve(program, os.environ.get("PATH"))
    if problem:
        status, message = problem
        say(message)
        sys.exit(status)
    if elf_is_static(path):
        # Still run with the environment: the programs it starts are dynamic, likely,
        # and get libplace.
        say(f"{program} is statically linked; libplace cannot act on a static binary "
            "(it runs without libplace; programs it starts are placed)")
    else:
        # The report is the program's: this process's, as the program keeps placerun's
        # pid through every exec (a wrapper script's included). The helpers such a script
        # runs first, and the programs the program runs, report beside it (libplace.7).
        env["LIBPLACE_REPORT_PID"] = str(os.getpid())
    # Python ignores SIGPIPE and SIGXFSZ; an ignored signal stays ignored across exec.
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execve(path, [program] + args, env)
    except OSError as e:
        if e.errno == errno.ENOEXEC:  # no #! line: a shell script, as execvp runs it
            try:
                os.execve("/bin/sh", ["/bin/sh", path] + args, env)
            except OSError as e2:
                e = e2
        if e.errno == errno.ENOENT:  # the file is there: its #! interpreter is not
            say(f"{program}: bad interpreter (the one its #! line or ELF header names is not there)")
        else:
            say(f"{program}: {e.strerror.lower() if e.strerror else e}")
        sys.exit(EXIT_NOEXEC)




# -- --tiers ------------------------------------------------------------------------------

def policy_tiers(o):
    """Check the policy with libplace, as --check does; exit 1 with its errors. None without
    a policy, else the policy as libplace describes it (policy.schema.json), or the text it
    gave instead."""
    if o.policy is None and not has_policy(o):
        return None
    rc, out, said = run_check(o, find_lib(o), o.policy, form="json")
    sys.stderr.write(said)  # the errors; or libplace's warnings (an unknown variable, ...)
    if rc != 0:
        sys.exit(rc)
    doc = libplace_policy.read(out)
    return doc if doc is not None else (out or said).strip()


def print_policy(doc):
    if doc is None:
        print("policy: no policy: every allocation stays in dram")
        return
    if isinstance(doc, str):
        print(f"policy: libplace's check said: {doc}")
        return
    source, rules, report = libplace_policy.summary(doc)
    print(f"policy: {source} (rules: {rules}; report: {report})")
    rows = [("tier", "kind", "limit")]
    for name, kind, limit in libplace_policy.tiers(doc):
        text = size_str(limit) if limit is not None else "none"
        var = "LIBPLACE_LIMIT_" + name.upper().replace("-", "_")
        if limit is not None and os.environ.get(var) is not None:
            text += f" ({var})"
        rows.append((name, kind, text))
    w0 = max(len(r[0]) for r in rows) + 2
    w1 = max(len(r[1]) for r in rows) + 2
    for name, kind, limit in rows:
        print(f"{name:<{w0}}{kind:<{w1}}{limit}".rstrip())


def tiers(o):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `placerun --tiers | head` ends quietly
    policy = policy_tiers(o)  # first: a policy with errors stops here, exit 1
    m = probe.machine()
    found = fit.warnings(policy, m) if isinstance(policy, dict) else []
    if o.json:
        json.dump({"machine": probe.machine_json(m), "policy": policy,
                   "warnings": [{"at": at, "message": text} for at, text in found]},
                  sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        probe.print_machine(m)
        print_policy(policy)
        print_warnings(found)
    sys.stdout.flush()
    return 0


def main(argv, home):
    """placerun ARGV...; home is the directory placerun's real file is in, where the
    build or install is looked for libplace.so."""
    o = parse(argv)
    o.home = home
    if o.help:
        sys.stdout.write(HELP)
        return 0
    if o.version:
        print(f"placerun {VERSION}")
        return 0
    for flag, given in (("--verify", o.verify), ("--profile", o.profile)):
        if given and (o.check or o.tiers):
            usage_error(f"{flag} is for running a program; --check and --tiers run none")
    if o.tiers:
        if o.check:
            usage_error("--tiers and --check: one or the other")
        if o.positional:
            usage_error("--tiers runs no program and takes no argument (a policy: -p POLICY)")
        take_stdin_policy(o)
        return tiers(o)
    if o.check:
        check_usage(o)
        take_stdin_policy(o)
        check(o, find_lib(o), o.policy)
    if not o.positional:
        usage_error("no PROGRAM to run (or --check to check a policy, --tiers to see the tiers)")
    take_stdin_policy(o)
    run(o, find_lib(o))
    return 0
