#!/usr/bin/env python3
"""The seed CNN's training step in PyTorch on a CUDA GPU: the peer of `bench_cnn_step --device
/GPU:0` (bench/cnn_step.cpp), for scripts/gpu_check.sh's table.

    python3 bench/cnn_step_torch.py [--quick] [--reps N] [--warmup N]

The model of seed 003 (samples/README.md): Conv2D(32, 3, relu) -> MaxPool 2 -> Conv2D(64, 3,
relu) -> MaxPool 2 -> Conv2D(64, 3, relu) -> Flatten -> Dense(64, relu) -> Dense(10); softmax
cross-entropy on the logits, Adam (Keras's defaults: lr 0.001, eps 1e-7), batch 32 and 128,
inputs uniform in [0, 1),
labels uniform in [0, 10). PyTorch eager, as a user writes it: NCHW (PyTorch's default layout),
cuDNN's benchmark mode off, PyTorch's default TF32 settings (stated in the record). Then the same
with the model and input in `channels_last` (NHWC memory, eagle's and TensorFlow's layout), case
cnn_step_channels_last: beside the NCHW row it says how much of a gap to eagle's NHWC step is
cuDNN's layout rather than eagle's own kernels. Each step ends
with the loss read back (`.item()`, a sync), as eagle's GPU step ends; the time is the host clock
around the step, median over the repetitions. Prints one JSON line per batch size.
"""

import argparse
import json
import statistics
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=0)
    ap.add_argument("--warmup", type=int, default=0)
    args = ap.parse_args()
    reps = args.reps or (10 if args.quick else 30)
    warmup = args.warmup or (3 if args.quick else 5)

    try:
        import torch
        from torch import nn
    except ImportError as e:
        print(f"# torch not available: {e}")
        return 0
    if not torch.cuda.is_available():
        print("# torch: no CUDA device")
        return 0
    dev = torch.device("cuda:0")
    name = torch.cuda.get_device_name(dev)

    for layout, batch in [(l, b) for l in ("nchw", "channels_last") for b in (32, 128)]:
        torch.manual_seed(batch)
        model = nn.Sequential(
            nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(64, 64, 3), nn.ReLU(), nn.Flatten(),
            nn.Linear(64 * 3 * 3, 64), nn.ReLU(), nn.Linear(64, 10),
        ).to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
        loss_fn = nn.CrossEntropyLoss()
        x = torch.rand(batch, 1, 28, 28, device=dev)
        if layout == "channels_last":
            model = model.to(memory_format=torch.channels_last)
            x = x.contiguous(memory_format=torch.channels_last)
        y = torch.randint(0, 10, (batch,), device=dev)

        def step():
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            return loss.item()

        first = step()
        for _ in range(warmup):
            step()
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            step()
            times.append((time.perf_counter() - t0) * 1e6)
        last = step()
        if not last < first:
            print(f"# torch cnn_step/{batch} {layout}: the loss did not fall ({first} -> {last})")
            return 1
        case = "cnn_step" if layout == "nchw" else "cnn_step_channels_last"
        print(json.dumps({
            "case": case, "impl": "torch", "size": batch, "dtype": "float32", "layout": layout,
            "median_us": statistics.median(times), "min_us": min(times), "max_us": max(times),
            "reps": reps, "first_loss": first, "last_loss": last, "gpu": name,
            "torch": torch.__version__,
            "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
            "matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
        }))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
