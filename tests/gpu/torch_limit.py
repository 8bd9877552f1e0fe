#!/usr/bin/env python3
"""PyTorch under a libplace device limit (run by tests/gpu/run).

    torch_limit.py LIMIT_MIB          under libplace with LIBPLACE_LIMIT_DEVICE0=LIMIT_MIB M
                                      and LIBPLACE_RULES='api=cuda size=1.. to=device0, managed'
    torch_limit.py LIMIT_MIB --plain  the same tensors without libplace (a baseline: only the
                                      results and "every tensor on the device" are checked)

Allocates 12 float32 tensors of 3/16 of the limit each (2.25 times the limit in all),
then adds them up and multiplies a slice of the last one by a matrix of ones, and checks
both results exactly (small integers: exact in float32 and TF32).

Under libplace it checks:
- torch.cuda.mem_get_info(): total <= the limit, at the start, after each tensor and at
  the end;
- free + torch.cuda.memory_reserved() <= total whenever what torch has reserved still
  fits in the limit (once reserved passes the limit, torch holds managed memory that
  libplace does not count against device0, and the sum cannot stay under total);
- at the end, free < one tensor's size: device0 is full, which is why later tensors spilled;
- a tensor whose segment begins past the limit is managed memory
  (cuPointerGetAttribute CU_POINTER_ATTRIBUTE_IS_MANAGED), one that ends within it is not.

Prints one line per check, "ok - torch: ..." or "not ok - torch: ...", and exits 1 if
any failed (2 on a usage error).
"""

import ctypes
import os
import sys

MIB = 1 << 20
CU_POINTER_ATTRIBUTE_IS_MANAGED = 8

failed = 0


def check(cond, what):
    global failed
    if cond:
        print(f"ok - torch: {what}", flush=True)
    else:
        failed += 1
        print(f"not ok - torch: {what}", flush=True)


def note(what):
    print(f"# torch: {what}", flush=True)


def main():
    args = sys.argv[1:]
    plain = "--plain" in args
    args = [a for a in args if a != "--plain"]
    if len(args) != 1 or not args[0].isdigit() or int(args[0]) < 64:
        print("usage: torch_limit.py LIMIT_MIB [--plain]  (LIMIT_MIB >= 64)", file=sys.stderr)
        return 2
    limit = int(args[0]) * MIB

    import torch

    note(f"torch {torch.__version__}, CUDA {torch.version.cuda}, "
         f"PYTORCH_CUDA_ALLOC_CONF={os.environ.get('PYTORCH_CUDA_ALLOC_CONF', '')}, "
         f"{'without libplace' if plain else 'under libplace, device0 limit %d MiB' % (limit // MIB)}")
    dev = torch.device("cuda:0")
    torch.zeros(1, device=dev)  # the context, and torch's first small segment
    torch.cuda.synchronize()
    note(f"device 0 {torch.cuda.get_device_name(0)}")

    try:
        libcuda = ctypes.CDLL("libcuda.so.1")
        get_attr = libcuda.cuPointerGetAttribute
        get_attr.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64]
        get_attr.restype = ctypes.c_int
    except (OSError, AttributeError) as e:
        get_attr = None
        note(f"cannot load cuPointerGetAttribute from libcuda.so.1: {e}")

    def is_managed(t):
        if get_attr is None:
            return None
        out = ctypes.c_uint64(0)
        rc = get_attr(ctypes.addressof(out), CU_POINTER_ATTRIBUTE_IS_MANAGED, t.data_ptr())
        return None if rc != 0 else out.value != 0

    def info(when):
        free, total = torch.cuda.mem_get_info(0)
        reserved = torch.cuda.memory_reserved(0)
        note(f"{when}: mem_get_info free {free // MIB} MiB total {total // MIB} MiB, "
             f"memory_reserved {reserved // MIB} MiB")
        return free, total, reserved

    free, total, reserved = info("start")
    if not plain:
        check(total <= limit, f"at the start mem_get_info total {total // MIB} MiB <= limit {limit // MIB} MiB")
        check(free + reserved <= total,
              f"at the start free {free // MIB} + reserved {reserved // MIB} MiB <= total {total // MIB} MiB")

    count = 12
    step = (limit * 3 // 16) // (2 * MIB) * (2 * MIB)  # torch rounds large blocks to 2 MiB
    n = step // 4
    tensors, placement = [], []
    total_bad = sum_bad = 0
    for i in range(count):
        before = torch.cuda.memory_reserved(0)
        t = torch.full((n,), float(i % 7 + 1), dtype=torch.float32, device=dev)
        torch.cuda.synchronize()
        after = torch.cuda.memory_reserved(0)
        tensors.append(t)
        m = is_managed(t)
        placement.append((i, before, after, m))
        free, total, reserved = info(f"tensor {i} ({step // MIB} MiB, managed={m})")
        if not plain:
            if total > limit:
                total_bad += 1
            if reserved <= total and free + reserved > total:
                sum_bad += 1
                note(f"tensor {i}: free {free} + reserved {reserved} > total {total}")

    if not plain:
        check(total_bad == 0, f"mem_get_info total <= limit after each of {count} tensors")
        check(sum_bad == 0, "free + memory_reserved <= total after each tensor while reserved fits in the limit")
        check(free < step, f"at the end free {free // MIB} MiB < one tensor ({step // MIB} MiB): device0 is full")
        spilled = [p for p in placement if p[1] + step > limit]
        inside = [p for p in placement if p[2] <= limit]
        check(len(spilled) > 0, f"{len(spilled)} of {count} tensors begin past the limit")
        check(all(p[3] is True for p in spilled),
              "every tensor past the limit is managed memory: "
              + " ".join(f"{p[0]}:{p[3]}" for p in spilled))
        check(len(inside) > 0 and all(p[3] is False for p in inside),
              "every tensor within the limit is device memory: "
              + " ".join(f"{p[0]}:{p[3]}" for p in inside))
    else:
        check(all(p[3] is False for p in placement),
              f"without libplace all {count} tensors ({count * step // MIB} MiB) are device memory")

    # Computations over every tensor, the spilled ones included.
    acc = torch.zeros(n, dtype=torch.float32, device=dev)
    for t in tensors:
        acc += t
    want = float(sum(i % 7 + 1 for i in range(count)))
    bad = int((acc != want).sum().item())
    check(bad == 0, f"sum of {count} tensors of {n} floats is {want:g} everywhere ({bad} elements differ)")

    k, cols = 1024, 64
    rows = min(4096, n // k)
    a = tensors[-1][: rows * k].view(rows, k)
    b = torch.ones(k, cols, dtype=torch.float32, device=dev)
    c = a @ b
    want_mm = float(k * ((count - 1) % 7 + 1))
    bad = int((c != want_mm).sum().item())
    check(bad == 0, f"({rows}x{k}) @ ones({k}x{cols}) on the last tensor is {want_mm:g} everywhere ({bad} differ)")

    del tensors, acc, a, b, c, t
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    info("after empty_cache")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
