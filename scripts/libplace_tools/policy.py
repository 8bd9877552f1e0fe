"""libplace's own check of a policy: the one parser judges the file, the inline rules and
the LIBPLACE_* variables, and the tools read its verdict.

libplace checks in its constructor when LIBPLACE_CHECK is set, and exits 0 (no errors) or
1 before main. LIBPLACE_CHECK=1 prints the errors, or a one-line summary, on stderr (what
placerun --check shows); LIBPLACE_CHECK=json also writes the policy as one JSON object on
stdout (policy.schema.json), which is what the tools read.
"""

import json
import os
import signal
import subprocess
import sysconfig

# What the program of a check exits with if its main ever runs: libplace did not load.
CHECK_SENTINEL = 97
SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "policy.schema.json")


class NotChecked(Exception):
    """libplace did not check the policy: it did not load, /bin/sh did not run, or the
    check died of signal `sig`. `said` is what the check wrote on stderr, when that
    was captured; `rc` is CHECK_SENTINEL when lib did not load or is not libplace."""

    def __init__(self, message, said="", sig=None, rc=None):
        super().__init__(message)
        self.said = said
        self.sig = sig
        self.rc = rc


def library_paths(home):
    """Where libplace.so is looked for when no one names it: the libdir of the install
    around home (the directory of the tools' real files), the build of the source tree
    home is in, the usual libdirs under home's parent."""
    top = os.path.dirname(home)
    multiarch = sysconfig.get_config_var("MULTIARCH") or "x86_64-linux-gnu"
    dirs = [os.path.join(top, "build"), os.path.join(top, "lib"), os.path.join(top, "lib", multiarch)]
    if multiarch != "x86_64-linux-gnu":
        dirs.append(os.path.join(top, "lib", "x86_64-linux-gnu"))
    try:  # meson install writes it: this install's libdir, wherever that is
        from .installed import LIBDIR
        dirs.insert(0, os.path.join(home, LIBDIR))
    except ModuleNotFoundError:
        pass
    return [os.path.join(d, "libplace.so") for d in dirs]


def check_env(env, lib, form="1"):
    """env with libplace preloaded to check in FORM ("1": text, "json")."""
    return dict(env, LIBPLACE_CHECK=form, LD_PRELOAD=lib)


def run_check(env, lib, capture=False):
    """Runs the check env asks for: (status, stdout, stderr), the streams as text when
    captured, else "" (they are placerun's own then). Raises NotChecked."""
    pipe = subprocess.PIPE if capture else None
    try:
        proc = subprocess.run(["/bin/sh", "-c", f"exit {CHECK_SENTINEL}"], env=env,
                              stdout=pipe, stderr=pipe)
    except OSError as e:
        raise NotChecked(f"cannot run /bin/sh for the check: {e.strerror}") from None
    out = proc.stdout.decode(errors="replace") if capture else ""
    said = proc.stderr.decode(errors="replace") if capture else ""
    rc = proc.returncode
    # libplace validates in its constructor and exits 0 or 1 before main; if main runs
    # anyway, libplace did not load (ld.so said why) and nothing was checked.
    if rc == CHECK_SENTINEL:
        raise NotChecked(f"{lib} did not load, so nothing was checked", said, rc=rc)
    if rc < 0:
        raise NotChecked(f"the check died of signal {-rc} ({signal.Signals(-rc).name})", said, -rc)
    return rc, out, said


def read(out):
    """The policy libplace described on stdout, or None if that is not its JSON (a libplace
    too old to know LIBPLACE_CHECK=json prints only the text summary)."""
    try:
        doc = json.loads(out)
    except ValueError:
        return None
    if not isinstance(doc, dict) or doc.get("schema") != "libplace-policy" \
            or doc.get("version") != 1 or not isinstance(doc.get("tiers"), list):
        return None
    return doc


def probe(env, lib, policy=True):
    """One child, /bin/sh with lib preloaded under LIBPLACE_CHECK=json and its report
    unset: (status, stdout, stderr). A libplace that loads checks and exits 0 or 1 before
    main; CHECK_SENTINEL means the shell's main ran: lib did not load (ld.so said why on
    stderr) or is not libplace. With policy false, no LIBPLACE_* variable of env goes
    with it: only whether lib loads is asked, and no policy file is read."""
    if not policy:
        env = {k: v for k, v in env.items() if not k.startswith("LIBPLACE_")}
    env = check_env(env, lib, "json")
    env.pop("LIBPLACE_REPORT", None)
    try:
        proc = subprocess.run(["/bin/sh", "-c", f"exit {CHECK_SENTINEL}"], env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    except OSError as e:
        return None, "", f"cannot run /bin/sh: {e.strerror}"
    return proc.returncode, proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace")


def loaded(rc):
    """Whether the probe's status says libplace loaded and checked (0 or 1)."""
    return rc in (0, 1)


def names_report(rc, out):
    """Whether the policy the probe (policy=True) checked gives a report destination itself
    (its report key, LIBPLACE_REPORT aside). A policy with errors: yes, as the run itself
    will say what is wrong; so does a check that cannot be read."""
    doc = read(out) if rc == 0 else None
    return doc is None or doc.get("report") is not None


def summary(doc):
    """The policy in the words of libplace's text summary: (where it comes from, its
    rules, its report)."""
    rules = ", ".join(r["name"] for r in doc.get("rules", []))
    return (doc.get("file") or "the policy", rules or "none (everything stays in dram)",
            doc.get("report") or "none")


def tiers(doc):
    """[(name, kind, limit in bytes or None)] of the policy's tiers."""
    return [(t["name"], t["kind"], t.get("limit") or None) for t in doc["tiers"]]
