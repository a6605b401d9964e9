#!/usr/bin/env python3
"""One table of the GPU benchmarks: eagle (bench_gpu_ops) beside PyTorch and CuPy (gpu_peers.py).

    python3 bench/gpu_table.py results.jsonl [more.jsonl ...]   (or JSON lines on stdin)

Reads the JSON lines the three programs print (other lines are ignored) and prints one row per
case, size, dtype and TF32 setting, with each implementation's median time and the ratios
peer time / eagle time (higher is better for eagle), plus each one's figure of merit: GB/s
(and % of the device-to-device copy of the same run) for the memory-bound cases, TFLOP/s for
matmul, host submission us/op for the dispatch chain. The last column checks the GPU targets of
docs/performance.md where one applies (informative: never an error).

Times: median_us is the GPU time per op (CUDA events) for every case but dispatch_chain, where it
is the whole 10,000-op chain on the host clock with the final sync.
"""

import json
import sys

IMPLS = ("eagle", "torch", "cupy")
CASE_ORDER = (
    "dispatch_chain",
    "add",
    "broadcast_add",
    "reduce_sum_axis0",
    "reduce_sum_axis1",
    "softmax",
    "matmul",
    "cnn_step",
    "cnn_step_autotune",
    "cnn_step_nchw",
    "cnn_step_channels_last",  # PyTorch alone, in NHWC memory (bench/cnn_step_torch.py)
    "cnn_train_on_batch",
    "cnn_train_on_batch_autotune",
    "cnn_train_on_batch_nchw",
)


def load(paths):
    recs = []
    streams = [open(p, encoding="utf-8") for p in paths] if paths else [sys.stdin]
    for s in streams:
        for line in s:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(r, dict) and "case" in r and "impl" in r:
                # bench_cnn_step --device /GPU:0: the tape step is the peer of PyTorch's
                # hand-written step; train_on_batch (Keras's API) gets a row of its own.
                # With EAGLE_CUDNN_AUTOTUNE=1 (measured algorithms) the rows are cases of their own.
                tuned = "_autotune" if r.get("cudnn_autotune") else ""
                # With EAGLE_CUDNN_LAYOUT=nchw (cuDNN in NCHW, transposes around it) too.
                if r.get("cudnn_layout") == "nchw":
                    tuned += "_nchw"
                if r["impl"] == "eagle_tape":
                    r = dict(r, impl="eagle", case="cnn_step" + tuned, dtype="float32")
                elif r["impl"] == "eagle_keras":
                    r = dict(r, impl="eagle", case="cnn_train_on_batch" + tuned, dtype="float32")
                recs.append(r)
    return recs


def key_of(r):
    tf32 = r.get("tf32")
    return (r["case"], int(r.get("size", 0)), r.get("dtype", ""), tf32)


def sort_key(k):
    case, size, dtype, tf32 = k
    order = CASE_ORDER.index(case) if case in CASE_ORDER else len(CASE_ORDER)
    dtypes = {"float32": 0, "bfloat16": 1}
    return (
        order,
        case,
        size,
        dtypes.get(dtype, 2),
        dtype,
        {None: 0, False: 1, True: 2}.get(tf32, 3),
    )


def fmt_us(v):
    if v is None:
        return "-"
    return f"{v:.0f}" if v >= 1000 else f"{v:.2f}"


def fmt_size(case, size, r):
    if case == "matmul":
        return f"{size}^3"
    if r and r.get("shape"):
        return r["shape"]
    for e in range(40, 0, -1):
        if size == 1 << e and e >= 10:
            return f"2^{e}"
    return str(size)


def merit(r):
    if r is None:
        return "-"
    if r["case"] == "dispatch_chain" and r.get("host_us_per_op") is not None:
        return f"{r['host_us_per_op']:.2f}us/op"
    if r.get("tflops") is not None:
        return f"{r['tflops']:.1f}TF/s"
    if r.get("gbps") is not None:
        s = f"{r['gbps']:.0f}GB/s"
        if r.get("pct_of_copy") is not None:
            s += f" {r['pct_of_copy']:.0f}%"
        return s
    return "-"


def ratio(peer, mine):
    if peer is None or mine is None or not mine or peer.get("median_us") is None:
        return None
    if mine.get("median_us") in (None, 0):
        return None
    return peer["median_us"] / mine["median_us"]


def target(k, rows):
    """The GPU target of docs/performance.md for this row: (text, met) or None."""
    case, size, _, _ = k
    e, t = rows.get("eagle"), rows.get("torch")
    if e is None:
        return None
    if case == "dispatch_chain" and e.get("host_us_per_op") is not None:
        return ("submit<=3us", e["host_us_per_op"] <= 3.0)
    if case == "add" and size >= 1 << 26 and e.get("pct_of_copy") is not None:
        ok = e["pct_of_copy"] >= 90.0
        r = ratio(t, e)
        if r is not None:
            ok = ok and r >= 1.0
            return (">=90%copy,>=1.0x torch", ok)
        return (">=90%copy", ok)
    if case in ("broadcast_add", "reduce_sum_axis0", "reduce_sum_axis1", "softmax"):
        r = ratio(t, e)
        return None if r is None else (">=0.95x torch", r >= 0.95)
    if case == "matmul" and size >= 1024:
        r = ratio(t, e)
        return None if r is None else (">=1.0x torch", r >= 1.0)
    return None


def main(argv):
    recs = load(argv[1:])
    if not recs:
        print("gpu_table: no benchmark results (no JSON lines)")
        return 1
    table = {}
    gpus, impls_seen = set(), set()
    for r in recs:
        table.setdefault(key_of(r), {})[r["impl"]] = r
        impls_seen.add(r["impl"])
        if r.get("gpu"):
            gpus.add(r["gpu"])
    # eagle's step variants (autotune, NCHW) have no PyTorch row of their own: PyTorch's plain
    # step (NCHW, heuristics) is their peer.
    for (case, size, dtype, tf32), rows in table.items():
        if case.startswith("cnn_") and case != "cnn_step" and "torch" not in rows:
            plain = table.get(("cnn_step", size, dtype, tf32), {}).get("torch")
            if plain is not None and "eagle" in rows:
                rows["torch"] = plain

    header = [
        "case",
        "size",
        "dtype",
        "tf32",
        "eagle_us",
        "torch_us",
        "cupy_us",
        "torch/eagle",
        "cupy/eagle",
        "eagle",
        "torch",
        "cupy",
        "target",
    ]
    rows_out = []
    met = missed = 0
    for k in sorted(table, key=sort_key):
        rows = table[k]
        case, size, dtype, tf32 = k
        any_r = next(iter(rows.values()))
        cells = [
            case,
            fmt_size(case, size, any_r),
            dtype or "-",
            "-" if tf32 is None else ("on" if tf32 else "off"),
        ]
        cells += [fmt_us(rows[i]["median_us"]) if i in rows else "-" for i in IMPLS]
        for peer in ("torch", "cupy"):
            r = ratio(rows.get(peer), rows.get("eagle"))
            cells.append("-" if r is None else f"{r:.2f}x")
        cells += [merit(rows.get(i)) for i in IMPLS]
        t = target(k, rows)
        if t is None:
            cells.append("")
        else:
            cells.append(("ok " if t[1] else "MISS ") + t[0])
            met += t[1]
            missed += not t[1]
        rows_out.append(cells)

    widths = [max(len(header[c]), *(len(r[c]) for r in rows_out)) for c in range(len(header))]
    print(
        f"GPU benchmarks on {', '.join(sorted(gpus)) or 'unknown GPU'}: median time per op "
        "(dispatch_chain: whole chain); ratio = peer time / eagle time (higher is better for "
        "eagle)"
    )
    missing = [i for i in IMPLS if i not in impls_seen]
    if missing:
        print(f"no results from: {', '.join(missing)}")
    line = "  ".join(
        h.ljust(w) if c < 4 or c >= 9 else h.rjust(w)
        for c, (h, w) in enumerate(zip(header, widths))
    )
    print(line)
    print("-" * len(line))
    for r in rows_out:
        print(
            "  ".join(
                v.ljust(w) if c < 4 or c >= 9 else v.rjust(w)
                for c, (v, w) in enumerate(zip(r, widths))
            ).rstrip()
        )
    if met + missed:
        print(f"targets (docs/performance.md): {met} met, {missed} missed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
