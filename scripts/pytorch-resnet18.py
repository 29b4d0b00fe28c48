#!/usr/bin/python3
"""PyTorch as the referee of ./lab train --model resnet18: d2l §12.6's ResNet-18 and its data parallelism, on the processor.

Run with Debian's python3-torch (apt-get install python3-torch); nothing else is needed:
    scripts/pytorch-resnet18.py --load init.safetensors --save torch.safetensors --devices 2 --batchnorm local \\
        [--images 64] [--batch-size 32] [--steps N] [--lr 0.1] [--dtype float32|float64] [--data DIR]
    scripts/pytorch-resnet18.py --evaluate trained.safetensors [--test-images 256] [--data DIR]
The first form starts from the state in --load (parameters and buffers under d2l's state_dict names, as ./lab train
--model resnet18 --save writes them), trains on the first --images training images in their order (as ./lab train
--no-shuffle), one pass (or its first --steps batches) of --batch-size, with plain SGD on the mean cross-entropy, as
§12.6's train does, and writes the whole state_dict to --save. The second loads a state into the model, evaluates it
on the first --test-images test images and prints how many it classifies right.

d2l's resnet18 is written out in scripts/d2l_resnet.py with d2l's module names (d2l's package is not installed here). The devices are
the processor: nn.DataParallel needs CUDA, so its arithmetic is written out (--batchnorm local): each step every
device but the first gets a deep copy of the model (device 0's replica is the model itself, as DataParallel's
broadcast leaves the source device's tensors in place, so the running statistics kept are device 0's), the batch is
split as torch.chunk splits it, each copy normalises with its own shard's statistics, the outputs are gathered and the
mean loss is taken over the whole batch, and every copy's gradients are added onto the model's in device order.
nn.SyncBatchNorm refuses processor tensors, so its arithmetic is written out too (--batchnorm sync): the whole batch
goes through the model at once, as on one device, but every BatchNorm takes its statistics as SyncBatchNorm does, the
devices' per-channel sums added: each shard's Σx, then each shard's Σ(x − mean)² around the whole batch's mean.
One device over the whole batch is the same up to float32's rounding; for a tensor that learns little in one step
(the last block's β), that rounding is the device split's, so float32 PyTorch is held to the same split as ours.

Float32 by default, one thread, deterministic algorithms, and oneDNN held to its SSE4.1 kernels (DNNL_MAX_CPU_ISA, as
scripts/pytorch-referee.py, whose file helpers this script uses). --dtype float64 runs the model, the images and the
state in float64 and writes F64 tensors.
"""
import os

os.environ.setdefault("DNNL_MAX_CPU_ISA", "SSE41")

import argparse  # noqa: E402
import copy  # noqa: E402
import types  # noqa: E402
import importlib.util  # noqa: E402

import torch  # noqa: E402
from torch import nn  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "referee", os.path.join(os.path.dirname(os.path.abspath(__file__)), "pytorch-referee.py"))
referee = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(referee)

from d2l_resnet import resnet18  # noqa: E402


loss = nn.CrossEntropyLoss()


def synchronize_batch_norms(net, devices):
    """Every BatchNorm2d of net taking its training statistics as nn.SyncBatchNorm over `devices` does: the shards'
    per-channel sums added."""
    def forward(bn, x):
        if not bn.training:
            return nn.BatchNorm2d.forward(bn, x)
        count = x.shape[0] * x.shape[2] * x.shape[3]
        shards = x.chunk(devices)
        mean = sum(s.sum(dim=(0, 2, 3)) for s in shards) / count
        centred = [s - mean[None, :, None, None] for s in shards]
        var = sum((c * c).sum(dim=(0, 2, 3)) for c in centred) / count
        with torch.no_grad():
            bn.running_mean.mul_(1 - bn.momentum).add_(bn.momentum * mean)
            bn.running_var.mul_(1 - bn.momentum).add_(bn.momentum * var * count / (count - 1))
            bn.num_batches_tracked += 1
        scale = bn.weight / torch.sqrt(var + bn.eps)
        return (x - mean[None, :, None, None]) * scale[None, :, None, None] + bn.bias[None, :, None, None]

    for module in net.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.forward = types.MethodType(forward, module)


def data_parallel_step(net, X, y, trainer, devices, batchnorm):
    """One of §12.6's steps, trainer.zero_grad(); loss(net(X), y).backward(); trainer.step(), with net wrapped in
    nn.DataParallel over `devices` (local statistics) or in nn.SyncBatchNorm's (one device over the whole batch)."""
    trainer.zero_grad()
    if batchnorm == "sync" or devices == 1:
        loss(net(X), y).backward()
    else:
        X_shards, y_shards = X.chunk(devices), y.chunk(devices)
        replicas = [net] + [copy.deepcopy(net) for _ in X_shards[1:]]
        outputs = torch.cat([replica(X_shard) for replica, X_shard in zip(replicas, X_shards)])
        loss(outputs, torch.cat(y_shards)).backward()
        with torch.no_grad():
            for p, *copies in zip(net.parameters(), *(r.parameters() for r in replicas[1:])):
                for c in copies:
                    p.grad += c.grad
    trainer.step()


def read_state(path, dtype):
    """A state_dict from a safetensors file: F32 tensors in `dtype`, I64 ones (num_batches_tracked) as int64."""
    import json
    import struct
    with open(path, "rb") as f:
        raw = f.read()
    (length,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + length])
    data = raw[8 + length:]
    state = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        start, end = entry["data_offsets"]
        if entry["dtype"] == "F32":
            t = torch.tensor(struct.unpack(f"<{(end - start) // 4}f", data[start:end]), dtype=torch.float32).to(dtype)
        elif entry["dtype"] == "I64":
            t = torch.tensor(struct.unpack(f"<{(end - start) // 8}q", data[start:end]), dtype=torch.int64)
        else:
            raise SystemExit(f"{path}: {name} is {entry['dtype']}; F32 and I64 are read")
        state[name] = t.reshape(entry["shape"])
    return state


def images(folder, kind, count, dtype):
    prefix = "train" if kind == "train" else "t10k"
    X = referee.read_idx(folder, f"{prefix}-images-idx3-ubyte")[:count]
    y = referee.read_idx(folder, f"{prefix}-labels-idx1-ubyte")[:count]
    return (X.to(dtype) / 255).reshape(-1, 1, 28, 28), y.to(torch.int64)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--load", help="the initial state (safetensors)")
    parser.add_argument("--save", help="where the trained state_dict goes (safetensors)")
    parser.add_argument("--devices", type=int, default=1)
    parser.add_argument("--batchnorm", choices=["local", "sync"], default="local")
    parser.add_argument("--images", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--steps", type=int, help="stop after this many batches (all of them by default)")
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    parser.add_argument("--evaluate", help="a trained state (safetensors) to evaluate instead of training")
    parser.add_argument("--test-images", type=int, default=256)
    parser.add_argument("--data")
    args = parser.parse_args()
    if args.evaluate is None and (args.load is None or args.save is None):
        parser.error("training needs --load and --save (or give --evaluate FILE)")
    return args


def main():
    args = parse_args()
    dtype = torch.float64 if args.dtype == "float64" else torch.float32
    folder = referee.data_dir(args.data)
    net = resnet18(10, in_channels=1).to(dtype)
    if args.evaluate is not None:
        net.load_state_dict(read_state(args.evaluate, dtype))
        net.eval()
        X, y = images(folder, "test", args.test_images, dtype)
        with torch.no_grad():
            correct = int((net(X).argmax(dim=1) == y).sum())
        print(f"torch {torch.__version__}: {correct} of {X.shape[0]} test images right")
        return
    net.load_state_dict(read_state(args.load, dtype))
    net.train()
    if args.batchnorm == "sync" and args.devices > 1:
        synchronize_batch_norms(net, args.devices)
    X, y = images(folder, "train", args.images, dtype)
    trainer = torch.optim.SGD(net.parameters(), args.lr)
    starts = list(range(0, X.shape[0], args.batch_size))[: args.steps]  # DataLoader(shuffle=False), the last kept
    for start in starts:
        data_parallel_step(net, X[start:start + args.batch_size], y[start:start + args.batch_size], trainer,
                           args.devices, args.batchnorm)
    referee.write_safetensors(args.save, [(name, t.to(dtype)) for name, t in net.state_dict().items()])
    print(f"torch {torch.__version__} {args.dtype}: {len(starts)} batches of {args.batch_size} from {X.shape[0]}"
          f" images, SGD lr {args.lr}, {args.devices} devices, {args.batchnorm} BatchNorm,"
          f" {sum(p.numel() for p in net.parameters())} parameters")


if __name__ == "__main__":
    main()
