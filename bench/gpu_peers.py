#!/usr/bin/env python3
"""The peers of bench/gpu_ops.cpp: the same GPU cases, timed the same way, with PyTorch or CuPy.

    python3 bench/gpu_peers.py --impl torch|cupy [--quick] [--reps N] [--warmup N] [--filter T]

One library per process (run the script twice for both). Prints one JSON line per case, in the
format of bench/gpu_ops.cpp with "impl": "torch" or "cupy", then a short table. Cases, sizes and
timing follow gpu_ops.cpp (see its header): GPU time per op from CUDA events recorded on the
library's current stream around the region, host time per op around the same region with the
final synchronize; median of 30 repetitions (10 with --quick) after a warm-up. Every result is
checked on the host in double precision (sampled entries for matmul) with the tolerances of
docs/performance.md (1e-5 float32, 1e-3 TF32, 1e-2 bfloat16); a mismatch fails the case and the
exit status is 1. When the library (or a CUDA GPU for it) is missing: a message, no JSON lines,
exit status 0.

TF32: PyTorch through torch.backends.cuda.matmul.fp32_precision ("tf32" or "ieee"; allow_tf32
before PyTorch 2.9); CuPy through its cuBLAS compute
type for float32 (cupy._core._routines_linalg.set_compute_type, what CUPY_TF32=1 selects), read
back and recorded. bfloat16 with CuPy needs ml_dtypes and a CuPy that accepts its dtype; where it
does not, that case is skipped with a message. Softmax with CuPy is cupyx.scipy.special.softmax
(several kernels), the nearest thing it has.
"""

import argparse
import json
import math
import os
import sys
import time

try:
    import numpy as np
except ImportError:  # reported by main(): no library, no results
    np = None

CHAIN_OPS = 10000
TOL_F32, TOL_TF32, TOL_BF16 = 1e-5, 1e-3, 1e-2


class CaseFailed(Exception):
    pass


failures = 0


def fail(msg):
    global failures
    failures += 1
    print(f"CHECK FAILED: {msg}", file=sys.stderr, flush=True)
    raise CaseFailed(msg)


def rel_err(got, want):
    got = np.asarray(got, dtype=np.float64).ravel()
    want = np.asarray(want, dtype=np.float64).ravel()
    if got.shape != want.shape:
        return math.inf
    den = float(np.sqrt(np.sum(want * want)))
    num = float(np.sqrt(np.sum((got - want) ** 2)))
    return num / den if den > 0 else num


def require_close(err, tol, what):
    if not err < tol:
        fail(f"{what}: relative error {err:.3g} (tolerance {tol:g})")


def summarize(values):
    v = sorted(values)
    n = len(v)
    med = v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])
    return {"median_us": med, "min_us": v[0], "max_us": v[-1], "reps": n}


def inner_for_bytes(nbytes):
    return int(min(4096, max(1, math.floor((1 << 30) / nbytes))))


# ---- The libraries ---------------------------------------------------------------------------
class Torch:
    name = "torch"

    def __init__(self):
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        self.t = torch
        self.dev = torch.device("cuda:0")
        torch.cuda.set_device(0)
        self.gpu = torch.cuda.get_device_name(0)
        self.version = torch.__version__
        self.bf16 = torch.bfloat16

    def uniform(self, shape, lo, hi, seed):
        g = self.t.Generator(device=self.dev)
        g.manual_seed(seed)
        x = self.t.rand(shape, generator=g, device=self.dev, dtype=self.t.float32)
        return x * (hi - lo) + lo

    def to_numpy(self, x):
        return x.float().cpu().numpy()

    def relu(self, x):
        return self.t.relu(x)

    def sum(self, x, axis):
        return self.t.sum(x, dim=axis)

    def softmax(self, x):
        return self.t.softmax(x, dim=-1)

    def matmul(self, a, b):
        return self.t.matmul(a, b)

    def to_bf16(self, x):
        return x.to(self.t.bfloat16)

    def set_tf32(self, on):
        m = self.t.backends.cuda.matmul
        if hasattr(m, "fp32_precision"):  # PyTorch >= 2.9; allow_tf32 is its deprecated form
            m.fp32_precision = "tf32" if on else "ieee"
            return {"fp32_precision": m.fp32_precision}
        m.allow_tf32 = on
        return {"allow_tf32": m.allow_tf32}

    def empty_like(self, x):
        return self.t.empty_like(x)

    def copy(self, dst, src):
        dst.copy_(src)  # a cudaMemcpyAsync device to device for contiguous float32 tensors

    def event(self):
        return self.t.cuda.Event(enable_timing=True)

    def record(self, ev):
        ev.record()  # on the current stream

    def elapsed_ms(self, a, b):
        return a.elapsed_time(b)

    def sync(self):
        self.t.cuda.synchronize()

    def sync_event(self, ev):
        ev.synchronize()


class Cupy:
    name = "cupy"

    def __init__(self):
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device")
        self.cp = cupy
        cupy.cuda.Device(0).use()
        props = cupy.cuda.runtime.getDeviceProperties(0)
        name = props["name"]
        self.gpu = name.decode() if isinstance(name, bytes) else str(name)
        self.version = cupy.__version__
        self.bf16 = None
        try:
            import ml_dtypes

            self.bf16 = ml_dtypes.bfloat16
        except ImportError:
            pass
        self.softmax_impl = None
        try:
            from cupyx.scipy.special import softmax

            self.softmax_impl = softmax
        except ImportError:
            pass

    def uniform(self, shape, lo, hi, seed):
        rs = self.cp.random.RandomState(seed)
        return rs.uniform(lo, hi, size=shape, dtype=self.cp.float32)

    def to_numpy(self, x):
        h = self.cp.asnumpy(x)
        return h.astype(np.float32) if h.dtype != np.float32 else h

    def relu(self, x):
        return self.cp.maximum(x, 0)

    def sum(self, x, axis):
        return self.cp.sum(x, axis=axis)

    def softmax(self, x):
        if self.softmax_impl is None:
            raise CaseFailed("no cupyx.scipy.special.softmax")
        return self.softmax_impl(x, axis=-1)

    def matmul(self, a, b):
        return self.cp.matmul(a, b)

    def to_bf16(self, x):
        if self.bf16 is None:
            raise NotImplementedError("ml_dtypes is not installed")
        return x.astype(self.bf16)

    def set_tf32(self, on):
        # CuPy's float32 GEMM compute type (what CUPY_TF32=1 selects at the first matmul); the
        # enum's values are 1 (DEFAULT: no TF32) and 7 (TF32) where the names are not exported.
        try:
            from cupy._core import _routines_linalg as la

            want = (
                getattr(la, "COMPUTE_TYPE_TF32", 7)
                if on
                else getattr(la, "COMPUTE_TYPE_DEFAULT", 1)
            )
            la.set_compute_type(np.float32, want)
            got = la.get_compute_type(np.float32)
        except Exception as e:  # noqa: BLE001 - a CuPy without this private switch
            raise NotImplementedError(f"cannot set CuPy's compute type ({e})") from e
        if got != want:
            raise NotImplementedError(f"CuPy kept compute type {got}, not {want}")
        return {"cupy_compute_type": la.compute_type_to_str(got)}

    def empty_like(self, x):
        return self.cp.empty_like(x)

    def copy(self, dst, src):
        rt = self.cp.cuda.runtime
        rt.memcpyAsync(
            dst.data.ptr,
            src.data.ptr,
            src.nbytes,
            rt.memcpyDeviceToDevice,
            self.cp.cuda.get_current_stream().ptr,
        )

    def event(self):
        return self.cp.cuda.Event()

    def record(self, ev):
        ev.record(self.cp.cuda.get_current_stream())

    def elapsed_ms(self, a, b):
        return self.cp.cuda.get_elapsed_time(a, b)

    def sync(self):
        self.cp.cuda.runtime.deviceSynchronize()

    def sync_event(self, ev):
        ev.synchronize()


# ---- Timing ------------------------------------------------------------------------------------
class Timer:
    def __init__(self, lib):
        self.lib = lib
        self.start = lib.event()
        self.stop = lib.event()

    def time(self, f, inner):
        lib = self.lib
        lib.sync()
        t0 = time.perf_counter()
        lib.record(self.start)
        for _ in range(inner):
            f()
        lib.record(self.stop)
        t1 = time.perf_counter()
        lib.sync()
        lib.sync_event(self.stop)
        t2 = time.perf_counter()
        gpu_us = 1e3 * lib.elapsed_ms(self.start, self.stop) / inner
        return gpu_us, 1e6 * (t2 - t0) / inner, 1e6 * (t1 - t0) / inner

    def measure(self, fns, inner, warmup, reps):
        for _ in range(warmup):
            for f in fns:
                self.time(f, inner)
        samples = [[] for _ in fns]
        for _ in range(reps):
            for k, f in enumerate(fns):
                samples[k].append(self.time(f, inner))
        out = []
        for s in samples:
            out.append(
                {
                    "gpu": summarize([x[0] for x in s]),
                    "host": summarize([x[1] for x in s]),
                    "submit": summarize([x[2] for x in s]),
                }
            )
        return out


# ---- Output ------------------------------------------------------------------------------------
records = []


def emit(rec):
    print(json.dumps(rec), flush=True)
    records.append(rec)


def base(lib, case, size, dtype):
    return {"case": case, "impl": lib.name, "size": size, "dtype": dtype}


def with_timings(rec, t, inner):
    rec.update(t["gpu"])
    rec["host_median_us"] = t["host"]["median_us"]
    rec["inner"] = inner
    return rec


def run_case(name, body):
    try:
        body()
    except CaseFailed:
        print(f"case {name}: FAILED", file=sys.stderr, flush=True)
    except Exception as e:  # noqa: BLE001 - a library error fails the case, not the run
        global failures
        failures += 1
        print(f"CHECK FAILED: case {name}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)


# ---- The cases ---------------------------------------------------------------------------------
def dispatch_chain(lib, timer, opt):
    for n in (1, 1024, 65536):
        if not opt.selected("dispatch_chain", n):
            continue

        def body(n=n):
            x0 = lib.uniform((n,), 0.0, 1.0, 1)
            y = lib.uniform((n,), -0.25, 0.75, 2)
            z = lib.uniform((n,), 0.9, 1.0, 3)
            out = {}

            def chain():
                x = x0
                for i in range(CHAIN_OPS):
                    r = i % 3
                    if r == 0:
                        x = x + y
                    elif r == 1:
                        x = x * z
                    else:
                        x = lib.relu(x)
                out["x"] = x

            t = timer.measure([chain], 1, opt.warmup, opt.reps)[0]
            hx, hy, hz = lib.to_numpy(x0), lib.to_numpy(y), lib.to_numpy(z)
            want = hx.copy()
            zero = np.float32(0)
            for i in range(CHAIN_OPS):
                r = i % 3
                if r == 0:
                    want = want + hy
                elif r == 1:
                    want = want * hz
                else:
                    want = np.maximum(want, zero)
            err = rel_err(lib.to_numpy(out["x"]), want)
            require_close(err, TOL_F32, f"dispatch chain, {n} elements")
            rec = base(lib, "dispatch_chain", n, "float32")
            rec.update(t["host"])
            rec["ops"] = CHAIN_OPS
            rec["host_us_per_op"] = t["submit"]["median_us"] / CHAIN_OPS
            rec["total_us_per_op"] = t["host"]["median_us"] / CHAIN_OPS
            rec["gpu_us_per_op"] = t["gpu"]["median_us"] / CHAIN_OPS
            rec["rel_err"] = err
            rec["gpu"] = lib.gpu
            emit(rec)

        run_case(f"dispatch_chain/{n}", body)


def add(lib, timer, opt):
    for log2n in (12, 20, 26 if opt.quick else 28):
        n = 1 << log2n
        if not opt.selected("add", n):
            continue

        def body(n=n, log2n=log2n):
            a = lib.uniform((n,), -1.0, 1.0, 11)
            b = lib.uniform((n,), -1.0, 1.0, 12)
            dst = lib.empty_like(a)
            nbytes = 4 * n
            add_bytes, copy_bytes = 3.0 * nbytes, 2.0 * nbytes
            inner = inner_for_bytes(add_bytes)
            out = {}

            def run_add():
                out["z"] = a + b

            def run_copy():
                lib.copy(dst, a)

            t = timer.measure([run_add, run_copy], inner, opt.warmup, opt.reps)
            ha, hb = lib.to_numpy(a), lib.to_numpy(b)
            err = rel_err(lib.to_numpy(out["z"]), ha.astype(np.float64) + hb.astype(np.float64))
            require_close(err, TOL_F32, f"add 2^{log2n}")
            if not np.array_equal(lib.to_numpy(dst), ha):
                fail("the device-to-device copy's result")
            gbps = add_bytes / (t[0]["gpu"]["median_us"] * 1e3)
            copy_gbps = copy_bytes / (t[1]["gpu"]["median_us"] * 1e3)
            rec = with_timings(base(lib, "add", n, "float32"), t[0], inner)
            rec.update(
                {
                    "bytes": add_bytes,
                    "gbps": gbps,
                    "copy_median_us": t[1]["gpu"]["median_us"],
                    "copy_gbps": copy_gbps,
                    "pct_of_copy": 100.0 * gbps / copy_gbps,
                    "rel_err": err,
                    "gpu": lib.gpu,
                }
            )
            emit(rec)

        run_case(f"add/{n}", body)


def row_ops(lib, timer, opt):
    n = 4096
    nn = n * n
    names = ("broadcast_add", "reduce_sum_axis0", "reduce_sum_axis1", "softmax")
    if not any(opt.selected(c, nn) for c in names):
        return
    x = lib.uniform((n, n), -1.0, 1.0, 31)
    v = lib.uniform((n,), -1.0, 1.0, 32)
    hx = lib.to_numpy(x).astype(np.float64)
    hv = lib.to_numpy(v).astype(np.float64)
    mat, row = 4.0 * nn, 4.0 * n

    def softmax_ref():
        e = np.exp(hx - hx.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    ops = [
        ("broadcast_add", "[4096,4096]+[4096]", 2 * mat + row, lambda: x + v, lambda: hx + hv),
        (
            "reduce_sum_axis0",
            "[4096,4096]",
            mat + row,
            lambda: lib.sum(x, 0),
            lambda: hx.sum(axis=0),
        ),
        (
            "reduce_sum_axis1",
            "[4096,4096]",
            mat + row,
            lambda: lib.sum(x, 1),
            lambda: hx.sum(axis=1),
        ),
        ("softmax", "[4096,4096]", 2 * mat, lambda: lib.softmax(x), softmax_ref),
    ]
    for name, shape, nbytes, run, ref in ops:
        if not opt.selected(name, nn):
            continue

        def body(name=name, shape=shape, nbytes=nbytes, run=run, ref=ref):
            inner = inner_for_bytes(nbytes)
            out = {}

            def f():
                out["y"] = run()

            t = timer.measure([f], inner, opt.warmup, opt.reps)[0]
            err = rel_err(lib.to_numpy(out["y"]), ref())
            require_close(err, TOL_F32, name)
            rec = with_timings(base(lib, name, nn, "float32"), t, inner)
            rec.update(
                {
                    "shape": shape,
                    "bytes": nbytes,
                    "gbps": nbytes / (t["gpu"]["median_us"] * 1e3),
                    "rel_err": err,
                    "gpu": lib.gpu,
                }
            )
            if name == "softmax" and lib.name == "cupy":
                rec["note"] = "cupyx.scipy.special.softmax"
            emit(rec)

        run_case(name, body)


def matmul(lib, timer, opt):
    rng = np.random.default_rng(7)
    for n in (1024, 4096, 8192):
        if not opt.selected("matmul", n):
            continue
        a = lib.uniform((n, n), -1.0, 1.0, 41)
        b = lib.uniform((n, n), -1.0, 1.0, 42)
        picks = [(0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1)]
        picks += [tuple(p) for p in rng.integers(0, n, size=(252, 2))]
        rows = np.array([p[0] for p in picks])
        cols = np.array([p[1] for p in picks])
        for dtype, tf32, tol in (
            ("float32", False, TOL_F32),
            ("float32", True, TOL_TF32),
            ("bfloat16", False, TOL_BF16),
        ):
            label = f"matmul/{n} {dtype}" + (
                (" tf32 on" if tf32 else " tf32 off") if dtype == "float32" else ""
            )

            def body(n=n, dtype=dtype, tf32=tf32, tol=tol, label=label):
                bf16 = dtype == "bfloat16"
                if bf16:
                    try:
                        xa, xb = lib.to_bf16(a), lib.to_bf16(b)
                        lib.matmul(xa[:8, :8], xb[:8, :8])
                    except Exception as e:  # noqa: BLE001
                        print(
                            f"# {lib.name}: skipping {label}: no bfloat16 matmul "
                            f"({type(e).__name__}: {e})",
                            flush=True,
                        )
                        return
                else:
                    xa, xb = a, b
                try:
                    tf32_state = lib.set_tf32(tf32) if not bf16 else {}
                except NotImplementedError as e:
                    print(f"# {lib.name}: skipping {label}: {e}", flush=True)
                    return
                inner = max(1, (2048**3) // (n**3))
                out = {}

                def f():
                    out["c"] = lib.matmul(xa, xb)

                t = timer.measure([f], inner, opt.warmup, opt.reps)[0]
                ha = lib.to_numpy(xa).astype(np.float64)
                hb = lib.to_numpy(xb).astype(np.float64)
                hc = lib.to_numpy(out["c"])
                want = np.einsum("ik,ki->i", ha[rows, :], hb[:, cols])
                err = rel_err(hc[rows, cols], want)
                require_close(err, tol, label)
                rec = base(lib, "matmul", n, dtype)
                if not bf16:
                    rec["tf32"] = tf32
                with_timings(rec, t, inner)
                rec.update(
                    {
                        "tflops": 2.0 * n**3 / (t["gpu"]["median_us"] * 1e6),
                        "rel_err": err,
                        "tolerance": tol,
                        "checked_entries": len(picks),
                    }
                )
                rec.update(tf32_state)
                rec["gpu"] = lib.gpu
                emit(rec)

            run_case(label, body)
        try:
            lib.set_tf32(False)
        except NotImplementedError:
            pass


# ---- Main --------------------------------------------------------------------------------------
class Options:
    def __init__(self, args):
        self.quick = args.quick
        self.reps = args.reps or (10 if args.quick else 30)
        self.warmup = args.warmup or (1 if args.quick else 2)
        self.filter = args.filter or ""

    def selected(self, name, size):
        return not self.filter or self.filter in name or f"{name}/{size}" == self.filter


def print_table(lib, opt):
    cols = [
        ("case", "case", 17, None),
        ("size", "size", 10, None),
        ("dtype", "dtype", 9, None),
        ("tf32", "tf32", 5, None),
        ("median_us", "median_us", 11, 2),
        ("host_us", "host_median_us", 10, 2),
        ("GB/s", "gbps", 8, 1),
        ("%copy", "pct_of_copy", 6, 1),
        ("TFLOP/s", "tflops", 8, 1),
        ("submit/op", "host_us_per_op", 9, 2),
        ("total/op", "total_us_per_op", 9, 2),
    ]
    print(
        f"\n{lib.name} {lib.version} on {lib.gpu}: median of {opt.reps} reps; us = GPU time per "
        "op (CUDA events), host = host time per op with the sync; dispatch_chain: us = whole chain"
    )
    print(" ".join(f"{h:>{w}}" for h, _, w, _ in cols))
    for r in records:
        cells = []
        for _, key, w, prec in cols:
            v = r.get(key)
            if v is None:
                s = "-"
            elif isinstance(v, bool):
                s = "true" if v else "false"
            elif prec is not None and isinstance(v, (int, float)):
                s = f"{v:.{prec}f}"
            else:
                s = str(v)
            cells.append(f"{s:>{w}}")
        print(" ".join(cells))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--impl", choices=("torch", "cupy"), required=True)
    p.add_argument("--quick", action="store_true", help="10 reps, add at 2^26 instead of 2^28")
    p.add_argument("--reps", type=int, default=0)
    p.add_argument("--warmup", type=int, default=0)
    p.add_argument("--filter", default="", help='cases whose name contains T, or "<case>/<size>"')
    args = p.parse_args()
    opt = Options(args)

    if os.environ.get("NVIDIA_TF32_OVERRIDE") not in (None, ""):
        print(
            f"# note: NVIDIA_TF32_OVERRIDE={os.environ['NVIDIA_TF32_OVERRIDE']} overrides the "
            "TF32 settings",
            flush=True,
        )
    if np is None:
        print(f"# numpy is not installed: no {args.impl} results", flush=True)
        return 0
    try:
        lib = Torch() if args.impl == "torch" else Cupy()
    except Exception as e:  # noqa: BLE001 - ImportError, no driver, no GPU: nothing to compare
        print(f"# {args.impl} is not usable here ({type(e).__name__}: {e}); no results", flush=True)
        return 0
    print(
        f"# {lib.name} {lib.version} on {lib.gpu}, {opt.reps} reps, warm-up {opt.warmup}"
        + (", --quick" if opt.quick else ""),
        flush=True,
    )

    timer = Timer(lib)
    dispatch_chain(lib, timer, opt)
    add(lib, timer, opt)
    row_ops(lib, timer, opt)
    matmul(lib, timer, opt)
    print_table(lib, opt)
    if failures:
        print(f"{failures} check(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
