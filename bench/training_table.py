#!/usr/bin/env python3
"""The training table of issues 16, 17 and 18, shared by bench/training_compare.sh and bench/compare:
eagle's bench_mlp_step, bench_cnn_step and bench_tape_overhead beside bench/training_peers.py, and
bench_strategy_step (the seed CNN step through MirroredStrategy) beside bench/strategy_peers.py.

    bench/training_table.py FILE.jsonl     # the Markdown table of training_compare.sh's rounds

Each row: the case, eagle's median, each peer's median with its ratio peer time / eagle time
(higher is better for eagle) and the issue's target. With several rounds (training_compare.sh) a
case's number is the median of its per-round medians.
"""

import json
import statistics
import sys
from collections import defaultdict

# (impl, column title): the peers' implementations of bench/training_peers.py.
PEERS = [("tf_eager", "TF eager"), ("tf_function", "TF tf.function"),
         ("keras", "Keras train_on_batch"), ("keras_eager", "Keras run_eagerly"),
         ("jax", "JAX"), ("jax_jit", "JAX jit"), ("torch", "PyTorch"),
         ("tf_mirrored", "TF MirroredStrategy (tf.function)")]
# The cases each peer process runs (training_peers.py --case), and the library it needs.
PEER_CASES = {"tf_eager": ("mlp,tape", "tensorflow"), "tf_function": ("mlp", "tensorflow"),
              "keras": ("cnn", "tensorflow"), "keras_eager": ("cnn", "tensorflow"),
              "jax": ("mlp", "jax"), "jax_jit": ("mlp,cnn", "jax"), "torch": ("", "torch")}
EAGLE_PROGRAMS = ["mlp_step", "cnn_step", "tape_overhead", "strategy_step"]
CASES = ("mlp_step", "cnn_step", "tape_overhead", "strategy_step")
CHAIN_OPS = 3000  # bench/tape_overhead.cpp's chain


class Medians:
    """Median over rounds of each (case, size, impl)'s median_us."""

    def __init__(self, records):
        self.per_round = defaultdict(list)
        self.versions = {}
        self.absent = set()
        for r in records:
            if r.get("absent"):
                self.absent.add(r["impl"])
                continue
            if r.get("case") not in CASES:
                continue
            impl = r["impl"]
            if r["case"] == "tape_overhead" and impl == "untaped":
                continue
            self.per_round[(r["case"], r["size"], impl)].append(r["median_us"])
            if "version" in r:
                key = impl.split("_")[0] if impl.startswith("tf_eager") else impl
                self.versions[key] = r["version"]

    def __call__(self, case, size, impl):
        v = self.per_round.get((case, size, impl))
        return statistics.median(v) if v else None


def rows(med):
    """[{label, case, size, eagle_us, peers: {impl: us}, target, met}] in the table's order."""
    out = []

    def row(label, case, size, eagle_us, peer_us, target="", met=""):
        out.append({"label": label, "case": case, "size": size, "eagle_us": eagle_us,
                    "peers": {k: v for k, v in peer_us.items() if v is not None},
                    "target": target, "met": met})

    for b in (1, 32, 512):
        e = med("mlp_step", b, "eagle")
        if e is None:
            continue
        p = {k: med("mlp_step", b, k) for k in ("tf_eager", "tf_function", "jax", "jax_jit",
                                                 "torch")}
        required = {k: v for k, v in p.items() if v is not None and k != "tf_function"}
        if b < 512:
            target = "ahead of TF eager, JAX, JAX jit, PyTorch"
            met = "yes" if required and all(v > e for v in required.values()) else "no"
        else:
            target = ">= 0.9x the best"
            met = "-"
            if required:
                best = min(required.values())
                met = ("yes" if best / e >= 0.9 else "no") + f" ({best / e:.2f}x the best)"
        row(f"MLP step, batch {b}", "mlp_step", b, e, p, target, met)

    taped, backward = med("tape_overhead", 1, "taped"), med("tape_overhead", 1, "backward")
    tf_taped = med("tape_overhead", 1, "tf_eager_taped")
    tf_backward = med("tape_overhead", 1, "tf_eager_backward")
    if taped is not None and backward is not None:
        for label, e, t in (("tape chain forward, per op", taped, tf_taped),
                            ("tape backward, per recorded op", backward, tf_backward)):
            row(label, "tape_overhead", 1, e / CHAIN_OPS,
                {"tf_eager": t / CHAIN_OPS if t else None})
        if tf_taped is not None and tf_backward is not None:
            ratio = (tf_taped + tf_backward) / (taped + backward)
            row("tape forward + backward, per op", "tape_overhead", 1,
                (taped + backward) / CHAIN_OPS, {"tf_eager": (tf_taped + tf_backward) / CHAIN_OPS},
                ">= 20x tf.GradientTape", "yes" if ratio >= 20 else "no")

    for b in (32, 128):
        p = {k: med("cnn_step", b, k) for k in ("keras", "keras_eager", "jax_jit", "torch")}
        for impl, how in (("eagle_keras", "eagle train_on_batch"), ("eagle_tape", "eagle tape")):
            e = med("cnn_step", b, impl)
            if e is None:
                continue
            keras = p["keras"]
            met = []
            if keras is not None:
                met.append(("yes" if keras / e >= 1.2 else "no") + f" vs Keras ({keras / e:.2f}x)")
            if b == 32:
                target = "ahead of PyTorch; epoch >= 1.2x TF-CPU"
                met.append("PyTorch " + ("absent" if p["torch"] is None else
                                         "yes" if p["torch"] > e else "no"))
            else:
                target = "epoch >= 1.2x TF-CPU"
            row(f"CNN step, batch {b} ({how})", "cnn_step", b, e, p, target, "; ".join(met))

    strategy_rows(med, row)
    return out


def strategy_rows(med, row):
    """Issue 18 §4: bench_strategy_step's cases beside bench/strategy_peers.py's."""
    def s(impl):
        return med("strategy_step", 128, impl)

    plain, one, two = s("plain"), s("mirrored_1"), s("mirrored_2")
    if plain is not None:
        row("CNN step 128, plain (strategy_step)", "strategy_step", 128, plain,
            {"tf_function": s("tf_plain")})
    if one is not None:
        met = "-"
        if plain is not None:
            overhead = one / plain - 1
            met = ("yes" if overhead <= 0.10 else "no") + f" ({overhead * 100:+.1f}%)"
        row("CNN step 128, MirroredStrategy, 1 replica", "strategy_step", 128, one,
            {"tf_mirrored": s("tf_mirrored_1")}, "<= 10% over plain", met)
    if two is not None:
        met = "-"
        if one is not None:
            met = ("yes" if one / two >= 1.6 else "no") + f" ({one / two:.2f}x 1 replica)"
        row("CNN step 128, MirroredStrategy, 2 logical CPUs x 1 thread", "strategy_step", 128,
            two, {"tf_mirrored": s("tf_mirrored_2")}, ">= 1.6x 1 replica's steps/s", met)
    for impl, label in (("mirrored_2_shared", "2 logical CPUs x all threads"),
                        ("plain_1thread", "plain, 1 thread"),
                        ("half_1thread", "plain, batch 64, 1 thread (one replica's share)")):
        if s(impl) is not None:
            row(f"CNN step 128, {label}", "strategy_step", 128, s(impl), {})


def fmt_time(us):
    if us is None:
        return "-"
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.1f} us"


def cells(r):
    """The row's cells: case, eagle, one per peer of PEERS, target, met."""
    peer_cells = []
    for k, _ in PEERS:
        v = r["peers"].get(k)
        peer_cells.append("-" if v is None else f"{fmt_time(v)} ({v / r['eagle_us']:.2f}x)")
    return [r["label"], fmt_time(r["eagle_us"])] + peer_cells + [r["target"], r["met"]]


def markdown(table_rows):
    lines = ["| case | eagle | " + " | ".join(name for _, name in PEERS) + " | target | met |",
             "|" + " --- |" * (len(PEERS) + 4)]
    lines += ["| " + " | ".join(cells(r)) + " |" for r in table_rows]
    return "\n".join(lines)


def main(path):
    with open(path) as f:
        med = Medians(json.loads(line) for line in f if line.startswith("{"))
    print(markdown(rows(med)))
    print()
    print("Medians of the per-round medians; in brackets peer time / eagle time (higher is "
          "better for eagle).")
    if med.absent:
        print("Absent (not importable): " + ", ".join(sorted(med.absent)) + ".")
    print("Versions: " + "; ".join(sorted(set(med.versions.values()))) + ".")


if __name__ == "__main__":
    main(sys.argv[1])
