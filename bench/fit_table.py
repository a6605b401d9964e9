"""The table of bench_fit_epoch beside bench/fit_peers.py (issue 17 §5), for bench/compare: one
epoch of the seed CNN's fit on Fashion-MNIST at batch 32 and 128, and each process's peak memory.

Times are seconds per epoch (the median of the timed epochs); in brackets peer time / eagle time
(higher is better for eagle). Memory: max RSS of the process (getrusage), and in brackets how much
it grew during fit (max RSS minus the resident set just before fit).
"""

# (impl, column title): bench/fit_peers.py's implementations and the library each needs.
PEERS = [("keras", "Keras fit (TF-CPU)"), ("torch", "PyTorch loop"), ("jax_jit", "JAX jit loop")]
LIBRARY = {"keras": "tensorflow", "torch": "torch", "jax_jit": "jax"}
BATCHES = [32, 128]


def rows(records):
    """[{batch, eagle, peers: {impl: record}, target, met}] for the batches eagle ran."""
    by = {}
    for r in records:
        if r.get("case") == "fit_epoch":
            by[(r["size"], r["impl"])] = r
    out = []
    for b in BATCHES:
        e = by.get((b, "eagle"))
        if e is None:
            continue
        peers = {impl: by[(b, impl)] for impl, _ in PEERS if (b, impl) in by}
        met, target = [], ">= 1.2x Keras fit"
        if "keras" in peers:
            ratio = peers["keras"]["median_us"] / e["median_us"]
            met.append(("yes" if ratio >= 1.2 else "no") + f" vs Keras ({ratio:.2f}x)")
        if b == 32:
            target += "; ahead of PyTorch"
            if "torch" in peers:
                ratio = peers["torch"]["median_us"] / e["median_us"]
                met.append(("yes" if ratio > 1 else "no") + f" vs PyTorch ({ratio:.2f}x)")
        out.append({"batch": b, "eagle": e, "peers": peers, "target": target,
                    "met": "; ".join(met) or "-"})
    return out


def _memory(r):
    grew = r["max_rss_mb"] - r["rss_before_fit_mb"]
    text = f"{r['max_rss_mb']:.0f} MB (+{grew:.0f})"
    if "tf_memory_info_peak_mb" in r:
        text += f", TF allocator peak {r['tf_memory_info_peak_mb']:.0f} MB"
    return text


def header():
    return (["batch", "epoch: eagle"] + [name for _, name in PEERS] +
            ["target", "met", "peak memory: eagle"] + [name for _, name in PEERS])


def cells(row):
    e = row["eagle"]
    times, memory = [], []
    for impl, _ in PEERS:
        p = row["peers"].get(impl)
        times.append("-" if p is None else
                     f"{p['median_us'] / 1e6:.2f} s ({p['median_us'] / e['median_us']:.2f}x)")
        memory.append("-" if p is None else _memory(p))
    return ([str(row["batch"]), f"{e['median_us'] / 1e6:.2f} s"] + times +
            [row["target"], row["met"], _memory(e)] + memory)


def describe(row):
    """Epochs and images behind a row, for the line under the table."""
    e = row["eagle"]
    return (f"batch {row['batch']}: {e['train_size']} images ({e['steps_per_epoch']} steps), "
            f"{e['warmup_epochs']} warm-up epoch(s), then the median of {e['reps']} timed")
