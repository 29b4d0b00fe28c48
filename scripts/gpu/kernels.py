"""The notebook's training step on one device, kernel by kernel: what each kernel PyTorch launches takes on the
device (CUPTI's timestamps, through torch.profiler), per step of batch 256, beside the step's wall time. These
are the measurements the sim backend's profile of that GPU is checked against (README, "GPU day";
docs/performance-log.md, "The first GPU"): its per-kernel times are what the profile simulates, and the step's wall
time over its kernels' sum shows how much of the notebook's epoch is the host's.

The step is the notebook's train_batch (scripts/gpu/notebook.py) on a fixed random batch, so that no DataLoader
runs beside it. On the processor (the rehearsal) the operators' own processor time stands in for the kernels'.

  python3 kernels.py --device cuda --report kernels.json
"""

import argparse
import json
import os
import time

import torch
from torch.profiler import ProfilerActivity, profile

import notebook


def device_us(event, on_gpu):
    """An averaged event's own time on the device (on the processor: its own processor time), in µs."""
    if not on_gpu:
        return event.self_cpu_time_total
    for name in ("self_device_time_total", "self_cuda_time_total"):  # PyTorch 2 renamed it
        value = getattr(event, name, None)
        if value:
            return value
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--warmup", type=int, default=20, help="steps run first, untimed")
    parser.add_argument("--steps", type=int, default=50, help="steps timed, then as many profiled")
    parser.add_argument("--report", help="write the figures here as JSON")
    args = parser.parse_args()
    on_gpu = args.device == "cuda"
    device = torch.device("cuda:0" if on_gpu else "cpu")
    devices = [device]
    params = [notebook.get_params(notebook.init_params(), device)]
    generator = torch.Generator().manual_seed(1)
    X = torch.rand(args.batch_size, 1, 28, 28, generator=generator)
    y = torch.randint(0, 10, (args.batch_size,), generator=generator)

    def step():
        notebook.train_batch(X, y, params, devices, 0.2)
        notebook.synchronize(device)

    for _ in range(args.warmup):
        step()
    start = time.perf_counter()
    for _ in range(args.steps):
        step()
    wall_us = (time.perf_counter() - start) / args.steps * 1e6
    with profile(activities=[ProfilerActivity.CUDA if on_gpu else ProfilerActivity.CPU]) as prof:
        for _ in range(args.steps):
            step()

    kernels = []
    for event in prof.key_averages():
        total = device_us(event, on_gpu)
        if total > 0:
            kernels.append({"kernel": event.key, "launches_per_step": event.count / args.steps,
                            "us_per_step": total / args.steps, "us_per_launch": total / event.count})
    kernels.sort(key=lambda k: -k["us_per_step"])
    device_total = sum(k["us_per_step"] for k in kernels)
    launches = sum(k["launches_per_step"] for k in kernels)
    name = torch.cuda.get_device_name(device) if on_gpu else "processor"
    print(f"{name}, PyTorch {torch.__version__}, batch {args.batch_size}, {args.steps} steps")
    print(f"{'µs/step':>9} {'launches':>8} {'µs/launch':>9}  kernel")
    for k in kernels:
        print(f"{k['us_per_step']:9.1f} {k['launches_per_step']:8.1f} {k['us_per_launch']:9.2f}  {k['kernel'][:100]}")
    print(f"step: {wall_us / 1000:.3f} ms wall, {device_total / 1000:.3f} ms on the device in {launches:.0f} launches")
    if args.report:
        report = {"torch": torch.__version__, "device": name, "batch_size": args.batch_size, "steps": args.steps,
                  "wall_us_per_step": wall_us, "device_us_per_step": device_total,
                  "launches_per_step": launches, "kernels": kernels}
        with open(args.report + ".part", "w") as f:
            json.dump(report, f, indent=1)
        os.replace(args.report + ".part", args.report)


if __name__ == "__main__":
    main()
