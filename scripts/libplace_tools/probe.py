"""The machine, as placerun --tiers shows it, in the manner of `numactl --hardware`: the
NUMA nodes from sysfs; the high-bandwidth nodes as memkind finds them; what libmemkind's
hbw_check_available() and the CUDA driver (libcuda.so.1) answer. The libraries are asked
in a child process (in_child), so one that crashes or hangs costs a line, not the listing."""

import ctypes
import errno
import json
import os
import re
import signal
import sys

from .units import size_str

NODE_DIR = "/sys/devices/system/node"
NO_HBW = "none (no HBW node: set MEMKIND_HBW_NODES or use a machine with HMAT bandwidth attributes)"
PROBE_SECONDS = 60  # a library that has not answered by then is not waited for


def ranges(numbers):
    """[0, 1, 2, 5] as "0-2,5", the way sysfs writes a list."""
    out, numbers = [], sorted(set(numbers))
    k = 0
    while k < len(numbers):
        j = k
        while j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1:
            j += 1
        out.append(str(numbers[k]) if j == k else f"{numbers[k]}-{numbers[j]}")
        k = j + 1
    return ",".join(out)


def parse_list(text):
    """"0-2,5" as [0, 1, 2, 5]; None if it is not such a list."""
    out = []
    for part in text.strip().split(","):
        m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
        if not m:
            return None
        lo, hi = int(m.group(1)), int(m.group(2) if m.group(2) is not None else m.group(1))
        if hi < lo or hi - lo > 1 << 16:
            return None
        out.extend(range(lo, hi + 1))
    return out


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def meminfo(path, prefix=""):
    """MemTotal, MemFree, ... of a meminfo file, in bytes ("Node 0 MemTotal: 123 kB")."""
    out = {}
    for line in (read_text(path) or "").splitlines():
        m = re.fullmatch(re.escape(prefix) + r"\s*(\w+):\s+(\d+)(?:\s+kB)?\s*", line)
        if m:
            out[m.group(1)] = int(m.group(2)) * (1024 if line.rstrip().endswith("kB") else 1)
    return out


TIER_DIR = "/sys/devices/virtual/memory_tiering"
# HMAT's figures for a node's nearest initiators (access class 0), as the kernel gives them
ACCESS = (("read_bandwidth", "MB/s"), ("write_bandwidth", "MB/s"), ("read_latency", "ns"),
          ("write_latency", "ns"))


def access(node):
    """What the firmware (ACPI HMAT) says of node's memory as its nearest CPUs reach it:
    {"read_bandwidth": MB/s, ..., "read_latency": ns, ...}, each None when not given."""
    d = os.path.join(NODE_DIR, f"node{node}", "access0", "initiators")
    out = {}
    for key, _ in ACCESS:
        text = (read_text(os.path.join(d, key)) or "").strip()
        out[key] = int(text) if text.isdigit() and int(text) > 0 else None
    return out


def memory_tiers():
    """{node: its memory tier's number} from the kernel's memory tiering (Linux 6.1 and
    later: a lower number is a faster tier), empty when it has none."""
    out = {}
    try:
        names = os.listdir(TIER_DIR)
    except OSError:
        return out
    for name in names:
        m = re.fullmatch(r"memory_tier(\d+)", name)
        listed = parse_list(read_text(os.path.join(TIER_DIR, name, "nodelist")) or "") if m else None
        for n in listed or []:
            out[n] = int(m.group(1))
    return out


def kinds(nodes, hbw):
    """What each node's memory is, as far as sysfs tells: DRAM with CPUs; HBM when it is
    high-bandwidth as hbw_nodes finds it (MEMKIND_HBW_NODES, else more HMAT read bandwidth
    than every CPU node: what libplace's hbw tier takes, before memkind's own answer);
    CXL or far memory when it has no CPUs and less bandwidth; memory-only when nothing
    tells. Adds "kind" and "why" to each node."""
    cpu = [nodes[n]["access"]["read_bandwidth"] for n in nodes
           if nodes[n]["cpus"] and nodes[n]["access"]["read_bandwidth"]]
    for n, node in nodes.items():
        bw = node["access"]["read_bandwidth"]
        if n in (hbw or []):
            node["kind"], node["why"] = "HBM", (
                "named in MEMKIND_HBW_NODES" if os.environ.get("MEMKIND_HBW_NODES")
                else f"no CPUs, read bandwidth {bw} MB/s above the CPU nodes' {max(cpu)} MB/s")
        elif node["cpus"]:
            node["kind"], node["why"] = "DRAM", "has CPUs"
        elif bw and cpu and bw < min(cpu):
            node["kind"], node["why"] = "CXL or far memory", \
                f"no CPUs, read bandwidth {bw} MB/s below the CPU nodes' {min(cpu)} MB/s"
        else:
            node["kind"], node["why"] = "memory-only", \
                "no CPUs; the firmware gives no bandwidth to tell HBM, CXL or GPU memory apart"


def numa_nodes():
    """{node: {"cpus": [...], "total": bytes or None, "free": ..., "distance": [...],
    "access": HMAT's figures, "tier": its memory tier or None}}, or None without
    /sys/devices/system/node."""
    try:
        names = os.listdir(NODE_DIR)
    except OSError:
        return None
    ids = sorted(int(n[4:]) for n in names if re.fullmatch(r"node\d+", n))
    if not ids:
        return None
    nodes, tiers = {}, memory_tiers()
    for n in ids:
        d = os.path.join(NODE_DIR, f"node{n}")
        cpus = parse_list(read_text(os.path.join(d, "cpulist")) or "") or []
        info = meminfo(os.path.join(d, "meminfo"), f"Node {n}")
        distance = (read_text(os.path.join(d, "distance")) or "").split()
        nodes[n] = {"cpus": cpus, "total": info.get("MemTotal"), "free": info.get("MemFree"),
                    "distance": [int(x) for x in distance if x.isdigit()], "access": access(n),
                    "tier": tiers.get(n)}
    return nodes


def print_nodes(nodes, numa):
    """The nodes of machine(), as numactl --hardware lists them; without NUMA, the one
    node machine() made of the whole machine."""
    ids = sorted(nodes)
    if numa:
        print(f"available: {len(ids)} node{'' if len(ids) == 1 else 's'} ({ranges(ids)})")
    else:
        print(f"available: 1 node (0) (no {NODE_DIR}: no NUMA here, so all memory is one node)")
    for n in ids:
        node = nodes[n]
        print(f"node {n} cpus: {ranges(node['cpus']) if node['cpus'] else 'none'}")
        for key, word in (("total", "size"), ("free", "free")):
            print(f"node {n} {word}: {size_str(node[key]) if node[key] is not None else 'unknown'}")
        if not numa:
            continue
        given = [f"{key.replace('_', ' ')} {node['access'][key]} {unit}" for key, unit in ACCESS
                 if node["access"][key]]
        print(f"node {n} access: {', '.join(given) + ' (HMAT)' if given else 'unknown (no HMAT figures)'}")
        print(f"node {n} memory tier: {node['tier'] if node['tier'] is not None else 'none (no memory tiering)'}")
        print(f"node {n} kind: {node['kind']} ({node['why']})")
    if not numa:
        return
    print("node distances:")
    width = max(4, max(len(str(n)) for n in ids) + 1,
                max((len(str(x)) + 1 for n in ids for x in nodes[n]["distance"]), default=0))
    print("node " + "".join(f"{n:>{width}}" for n in ids))
    for n in ids:
        row = nodes[n]["distance"]
        cells = "".join(f"{x:>{width}}" for x in row) if row else " unknown"
        print(f"{n:>4}:" + cells)


def hbw_nodes(nodes):
    """The HBW nodes as memkind finds them: (the node list, or None when it cannot be told;
    a line to print)."""
    value = os.environ.get("MEMKIND_HBW_NODES")
    if value:
        listed = parse_list(value)
        if listed is None:
            return None, f"{value} (from MEMKIND_HBW_NODES, as libnuma reads that: not a plain node list)"
        absent = [n for n in listed if nodes is not None and n not in nodes]
        note = f"; {'node' if len(absent) == 1 else 'nodes'} {ranges(absent)} not on this machine" \
            if absent else ""
        return sorted(set(listed)), f"{ranges(listed)} (from MEMKIND_HBW_NODES{note})"
    if not nodes:
        return [], NO_HBW
    bandwidth = {n: nodes[n]["access"]["read_bandwidth"] for n in nodes
                 if nodes[n]["access"]["read_bandwidth"]}
    cpu = [bandwidth[n] for n in nodes if nodes[n]["cpus"] and n in bandwidth]
    if not cpu:
        return [], NO_HBW
    fast = sorted(n for n in bandwidth if bandwidth[n] > max(cpu))
    if not fast:
        return [], NO_HBW
    return fast, (f"{ranges(fast)} (from HMAT: read bandwidth "
                  + ", ".join(f"node {n} {bandwidth[n]} MB/s" for n in fast)
                  + f", against {max(cpu)} MB/s for the CPU nodes)")


def in_child(probe, library):
    """probe() -> {"lines": [...], ...}, asked in a forked child: a library that crashes,
    aborts or hangs takes the child with it, and its state stays out of placerun. Its
    answer, or {"lines": [what went wrong]}."""
    sys.stdout.flush()
    sys.stderr.flush()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        status = 0
        try:
            os.close(r)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            signal.alarm(PROBE_SECONDS)
            try:
                answer = probe()
            except Exception as e:  # never a traceback
                answer = {"lines": [f"{probe.__name__} failed: {e}"]}
            data = json.dumps(answer).encode()
            while data:
                data = data[os.write(w, data):]
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    os.close(w)
    chunks = []
    with os.fdopen(r, "rb") as f:
        chunks.append(f.read())
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGALRM:
            return {"lines": [f"{library} gave no answer in {PROBE_SECONDS} s"]}
        return {"lines": [f"asking {library} killed the process that asked: signal {sig}, "
                          f"{signal.Signals(sig).name}"]}
    try:
        answer = json.loads(b"".join(chunks))
        if os.WEXITSTATUS(status) == 0 and isinstance(answer, dict):
            return answer
    except ValueError:
        pass
    return {"lines": [f"the process that asked {library} exited with status "
                      f"{os.WEXITSTATUS(status)}, no answer"]}


def load_error(e):
    """Why dlopen refused name: "not found" when it is nowhere, else ld.so's words."""
    text = str(e)
    if "cannot open shared object file" in text and "No such file" in text:
        return "not found"
    return f"does not load ({text})"


def memkind_probe():
    """{"available": whether hbw_check_available() said yes, or None unasked; "lines"}"""
    try:
        memkind = ctypes.CDLL("libmemkind.so.0")
    except OSError as e:
        return {"available": None, "lines": [
            f"memkind: libmemkind.so.0 {load_error(e)}, so hbw_check_available() was not asked"]}
    try:
        check = memkind.hbw_check_available
    except AttributeError:
        return {"available": None, "lines": ["memkind: libmemkind.so.0 has no hbw_check_available()"]}
    check.argtypes = []
    check.restype = ctypes.c_int
    rc = check()
    if rc == 0:
        return {"available": True, "lines": [
            "memkind: hbw_check_available() = 0: memkind has high-bandwidth memory to give"]}
    name = errno.errorcode.get(rc)
    return {"available": False, "lines": [f"memkind: hbw_check_available() = {rc}{f' ({name})' if name else ''}: "
                                          "memkind finds no high-bandwidth memory"]}


def loaded_path(prefix):
    """Where the library whose file name starts with prefix was mapped from."""
    for line in (read_text("/proc/self/maps") or "").splitlines():
        fields = line.split(None, 5)
        if len(fields) == 6 and os.path.basename(fields[5]).startswith(prefix):
            return fields[5]
    return None


# cuInit's usual failures, named when the driver cannot name them (a stub cannot)
CUDA_ERRORS = {3: "CUDA_ERROR_NOT_INITIALIZED", 34: "CUDA_ERROR_STUB_LIBRARY",
               46: "CUDA_ERROR_DEVICE_UNAVAILABLE", 100: "CUDA_ERROR_NO_DEVICE",
               101: "CUDA_ERROR_INVALID_DEVICE", 304: "CUDA_ERROR_OPERATING_SYSTEM",
               800: "CUDA_ERROR_NOT_PERMITTED", 802: "CUDA_ERROR_SYSTEM_NOT_READY",
               803: "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
               804: "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", 999: "CUDA_ERROR_UNKNOWN"}


def cuda_probe():
    """{"count": the GPUs the driver sees (None: it could not say), "devices": [{"index",
    "name", "memory"}], "lines"}"""
    def none(count, line):
        return {"count": count, "devices": [], "lines": [line]}

    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        why = load_error(e)
        if why == "not found":
            return none(0, "GPUs: none (no CUDA driver: libcuda.so.1 not found)")
        return none(0, f"GPUs: none (no CUDA driver: libcuda.so.1 {why})")
    where = loaded_path("libcuda.so") or "libcuda.so.1"
    c_int_p = ctypes.POINTER(ctypes.c_int)

    def fn(name, *argtypes):
        try:
            f = getattr(cuda, name)
        except AttributeError:
            return None
        f.argtypes = list(argtypes)
        f.restype = ctypes.c_int
        return f

    get_name = fn("cuGetErrorName", ctypes.c_int, ctypes.POINTER(ctypes.c_char_p))
    get_string = fn("cuGetErrorString", ctypes.c_int, ctypes.POINTER(ctypes.c_char_p))

    def error(code):
        said = []
        for f in (get_name, get_string):
            s = ctypes.c_char_p()
            ok = f is not None and f(code, ctypes.byref(s)) == 0 and s.value
            said.append(s.value.decode(errors="replace") if ok else None)
        name = said[0] or CUDA_ERRORS.get(code)
        return f"error {code}" + (f" {name}" if name else "") + (f": {said[1]}" if said[1] else "")

    class Missing(LookupError):
        pass

    def call(name, *args):
        f = getattr(cuda, name, None)
        if f is None:
            raise Missing(f"{where} has no {name}: not a CUDA driver?")
        rc = f(*args)
        if rc != 0:
            raise LookupError(f"{name} failed: {error(rc)}")

    fn("cuInit", ctypes.c_uint)
    fn("cuDriverGetVersion", c_int_p)
    fn("cuDeviceGetCount", c_int_p)
    fn("cuDeviceGet", c_int_p, ctypes.c_int)
    fn("cuDeviceGetName", ctypes.c_char_p, ctypes.c_int, ctypes.c_int)
    fn("cuDeviceTotalMem_v2", ctypes.POINTER(ctypes.c_size_t), ctypes.c_int)
    fn("cuDeviceGetAttribute", c_int_p, ctypes.c_int, ctypes.c_int)
    fn("cuDeviceGetPCIBusId", ctypes.c_char_p, ctypes.c_int, ctypes.c_int)

    version = ctypes.c_int()
    driver = where
    try:
        call("cuDriverGetVersion", ctypes.byref(version))
        driver = f"CUDA driver {version.value // 1000}.{version.value % 1000 // 10}, {where}"
    except LookupError:
        pass
    try:
        call("cuInit", 0)
    except Missing as e:
        return none(0, f"GPUs: none ({e})")
    except LookupError as e:
        return none(0, f"GPUs: none ({e}; {driver})")
    count = ctypes.c_int()
    try:
        call("cuDeviceGetCount", ctypes.byref(count))
    except Missing as e:
        return none(None, f"GPUs: unknown ({e})")
    except LookupError as e:
        return none(None, f"GPUs: unknown ({e}; {driver})")
    if count.value <= 0:
        return none(0, f"GPUs: none (the CUDA driver sees no device; {driver})")
    lines, devices = [f"GPUs: {count.value} ({driver})"], []
    for k in range(count.value):
        device, parts = ctypes.c_int(), []
        try:
            call("cuDeviceGet", ctypes.byref(device), k)
        except LookupError as e:
            lines.append(f"gpu {k}: {e}")
            continue
        name = ctypes.create_string_buffer(256)
        gpu = {"index": k, "name": None, "memory": None}
        devices.append(gpu)
        try:
            call("cuDeviceGetName", name, len(name), device)
            gpu["name"] = name.value.decode(errors="replace") or "unnamed"
            parts.append(gpu["name"])
        except LookupError as e:
            parts.append(str(e))
        total = ctypes.c_size_t()
        try:
            call("cuDeviceTotalMem_v2", ctypes.byref(total), device)
            gpu["memory"] = total.value
            parts.append(f"memory {size_str(total.value)}")
        except LookupError as e:
            parts.append(str(e))
        major, minor = ctypes.c_int(), ctypes.c_int()
        try:  # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, _MINOR
            call("cuDeviceGetAttribute", ctypes.byref(major), 75, device)
            call("cuDeviceGetAttribute", ctypes.byref(minor), 76, device)
            parts.append(f"compute capability {major.value}.{minor.value}")
        except LookupError:
            pass
        bus = ctypes.create_string_buffer(32)
        try:
            call("cuDeviceGetPCIBusId", bus, len(bus), device)
            if bus.value:
                parts.append(f"PCI {bus.value.decode(errors='replace')}")
        except LookupError:
            pass
        lines.append(f"gpu {k}: " + ", ".join(parts))
    return {"count": count.value, "devices": devices, "lines": lines}


def machine(memkind=True, cuda=True):
    """What this machine offers: {"numa": whether sysfs lists nodes, "nodes": {node: as
    numa_nodes}, "hbw": {"nodes", "said", "memkind"}, "gpus": cuda_probe's answer}. Without
    NUMA in sysfs, all memory is one node 0. memkind and the CUDA driver are asked only
    when wanted (each loads a library in a child): unasked, they answer nothing."""
    nodes = numa_nodes()
    numa = nodes is not None
    if not numa:
        info = meminfo("/proc/meminfo")
        cpus = parse_list(read_text("/sys/devices/system/cpu/online") or "") \
            or list(range(os.cpu_count() or 1))
        nodes = {0: {"cpus": cpus, "total": info.get("MemTotal"), "free": info.get("MemFree"),
                     "distance": []}}
    hbw, said = hbw_nodes(nodes if numa else None)
    if numa:
        kinds(nodes, hbw)
    return {"numa": numa, "nodes": nodes,
            "hbw": {"nodes": hbw, "said": said,
                    "memkind": in_child(memkind_probe, "libmemkind.so.0") if memkind
                    else {"available": None, "lines": []}},
            "gpus": in_child(cuda_probe, "libcuda.so.1") if cuda
            else {"count": None, "devices": [], "lines": []}}


def machine_json(m):
    """machine() as JSON-ready data: node numbers as fields, not keys."""
    return {"numa": m["numa"],
            "nodes": [dict(node=n, **m["nodes"][n]) for n in sorted(m["nodes"])],
            "hbw": {"nodes": m["hbw"]["nodes"], "said": m["hbw"]["said"],
                    "memkind_available": m["hbw"]["memkind"].get("available"),
                    "memkind_said": m["hbw"]["memkind"]["lines"]},
            "gpus": {"count": m["gpus"].get("count"), "devices": m["gpus"].get("devices", []),
                     "said": m["gpus"]["lines"]}}


def print_machine(m):
    """What this machine offers, each part followed by a blank line: the nodes, the HBW
    nodes and memkind's answer, the GPUs."""
    print_nodes(m["nodes"], m["numa"])
    print()
    print(f"HBW nodes: {m['hbw']['said']}")
    for line in m["hbw"]["memkind"]["lines"]:
        print(line if line.startswith("memkind") else f"memkind: {line}")
    print()
    for line in m["gpus"]["lines"]:
        print(line if line.startswith(("GPUs", "gpu ")) else f"GPUs: unknown ({line})")
    print()
