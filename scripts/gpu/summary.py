"""The GPU check's table (scripts/gpu/check.sh): every figure read from the steps' reports and outputs in the
results folder given, the ratios computed from them. A step that left nothing shows as 'missing'."""

import json
import os
import re
import sys

results = sys.argv[1]


def report(name):
    path = os.path.join(results, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def line(name, pattern):
    """The first line of a step's output that matches pattern, stripped."""
    path = os.path.join(results, name)
    if os.path.exists(path):
        with open(path, errors="replace") as f:
            for text in f:
                if re.search(pattern, text):
                    return text.strip()
    return "missing"


def training(name, report_):
    if report_ is None:
        return f"{name:<34} missing"
    final = report_["final"]
    return f"{name:<34} {final['wall_sec_per_epoch']:8.2f} sec/epoch   test acc {final['test_acc']:.3f}"


def kit():
    """JUnit's counts, or why there are none: its console prints them only when the whole run ends."""
    counts = [line("kit.txt", rf"tests {what}").strip("[] ") for what in ("successful", "failed")]
    if "missing" in counts:
        return "no counts: the kit did not finish (its step's exit status is in log.txt)"
    return " ".join(counts)


opencl, notebook, sim = report("opencl.json"), report("notebook.json"), report("sim.json")
kernels = report("kernels.json")
rows = [
    "GPU check" + (f": {notebook['device']}, PyTorch {notebook['torch']}" if notebook else ""),
    "conformance kit on opencl:0       " + kit(),
    "launch cost                       " + line("launch.txt", "per launch"),
    training("ours, --backend opencl", opencl),
]
if opencl:
    # the device's own times (OpenCL's profiling counters), over the run's epochs and evaluation
    longest = sorted(opencl["device_stats"][0]["kernels"], key=lambda k: -k["sec"])[:4]
    rows.append(f"{'  its longest kernels, s in all':<34} " + ", ".join(
        f"{k['kernel']} ({k['flops_per_launch']:,} FLOPs) {k['sec']:.2f}" for k in longest))
rows.append(training("the notebook in PyTorch", notebook))
if opencl and notebook:
    ratio = opencl["final"]["wall_sec_per_epoch"] / notebook["final"]["wall_sec_per_epoch"]
    rows.append(f"{'opencl / notebook':<34} {ratio:8.2f}")
rows.append("updates, opencl against PyTorch   " + line("compare.txt", "^updates from").split(": ", 1)[-1])
if sim:
    simulated = sim["sim"]["sec_per_epoch"]
    with_host = sim["sim"]["sec_per_epoch_with_pytorch_host"]  # null only on the sim's measured host profile
    rows.append(f"simulated {sim['sim']['description']}: {simulated:.4g} sec/epoch, GPU alone;"
                f" {with_host:.3g} with the notebook's host (sim's pytorch host model)")
    if notebook:
        # the notebook's epoch is its host's too: what the simulation with the host model is to be measured against
        measured = notebook["final"]["wall_sec_per_epoch"]
        rows.append(f"{'  with the host, against the notebook':<34} {(with_host - measured) / measured:+8.1%}")
    if kernels:
        steps = -(-sim["config"]["train_samples"] // sim["config"]["batch_size"])
        per_step = simulated / steps * 1e6
        measured = kernels["device_us_per_step"]
        rows.append(f"{'  a step, against its kernels':<34} {per_step:8.1f} µs simulated, {measured:.1f} measured:"
                    f" {(per_step - measured) / measured:+.1%}")
else:
    rows.append(f"{'simulated H200':<34} missing")
if kernels:
    rows.append(f"{'the notebook step, kernel by kernel':<34} {kernels['wall_us_per_step'] / 1000:8.3f} ms wall,"
                f" {kernels['device_us_per_step'] / 1000:.3f} ms of kernels in {kernels['launches_per_step']:.0f}"
                f" launches (batch {kernels['batch_size']})")
else:
    rows.append(f"{'the notebook step, kernel by kernel':<34} missing")
host = {part: line("host.txt", rf"^{part}_us ").split()[-1] for part in ("forward", "backward", "sgd")}
rows.append(f"{'the notebook host, µs per device':<34} " + ", ".join(f"{part} {us}" for part, us in host.items()))
rows.append(line("djl.txt", "^djl on CUDA"))
resnet_opencl, resnet_torch = report("resnet-opencl.json"), report("resnet-torch.json")
if resnet_opencl:
    # the second epoch's training loop over its steps: the first pays for compiling the kernels
    config = resnet_opencl["config"]
    steps = -(-config["train_samples"] // config["batch_size"])
    opencl_ms = resnet_opencl["epochs"][-1]["wall_sec"] / steps * 1e3
    rows.append(f"{'ResNet-18 step, opencl':<34} {opencl_ms:8.1f} ms at batch {config['batch_size']}")
else:
    rows.append(f"{'ResNet-18 step, opencl':<34} missing")
if resnet_torch:
    rows.append(f"{'ResNet-18 step, PyTorch (cuDNN)':<34} {resnet_torch['ms_per_step']:8.1f} ms at batch"
                f" {resnet_torch['batch_size']}")
    if resnet_opencl:
        rows.append(f"{'  opencl / PyTorch':<34} {opencl_ms / resnet_torch['ms_per_step']:8.2f}")
else:
    rows.append(f"{'ResNet-18 step, PyTorch (cuDNN)':<34} missing")
print("\n".join(rows))
