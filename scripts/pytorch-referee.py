#!/usr/bin/python3
"""PyTorch as the referee of ./lab train: d2l §12.5's train_batch, as the notebook writes it, on the processor.

Run with Debian's python3-torch (apt-get install python3-torch); nothing else is needed:
    scripts/pytorch-referee.py --load init.safetensors --save torch.safetensors --devices 3 \\
        [--images 2560] [--batch-size 256] [--steps N] [--lr 0.2] [--data /usr/share/datasets/fashion-mnist] \\
        [--optimizer sgd|adam|adamw [--momentum M] [--dampening D] [--nesterov] [--weight-decay W] \\
         [--betas B1,B2] [--eps E]] [--dtype float32|float64]
It starts from the parameters in --load (W1 b1 … W4 b4, as ./lab train --save writes them), trains on the first
--images training images in their order (as ./lab train --no-shuffle), one pass (or its first --steps batches),
batches of --batch-size split over --devices "devices", and writes device 0's parameters to --save. lessons'
PyTorchRefereeTest and OptimizerRefereeTest compare them with ./lab train's.

The devices are separate copies of the parameters on the processor, so no GPU is needed: the notebook's
nn.parallel.scatter splits a batch as torch.chunk does (chunks of ceil(n/k) rows: 256 over 3 is 86, 86, 84), and
its allreduce adds every copy's gradient onto copy 0's in order, then copies the sum back. One deliberate
difference: the notebook's allreduce rebinds data[i] to the copy, so copies 1…k−1 would keep their own gradient;
here it is written into them (data[i][:] = ...), as ./lab train does and as the notebook means.

Without --optimizer every copy takes the notebook's own step, d2l's sgd: p -= lr * grad / batch. With it, every copy
divides its summed gradient by the global batch (the gradient of the mean loss, as torch computes it) and steps
its own torch.optim optimizer (SGD, Adam or AdamW with the hyperparameters given, torch's defaults otherwise, but
lr 0.2 for sgd and 1e-3 for adam and adamw, as ./lab train's): the copies hold equal parameters and equal gradients,
so their optimizers hold equal state and take equal steps.

Float32 by default, one thread (the same bits every run), and oneDNN held to its SSE4.1 convolutions
(DNNL_MAX_CPU_ISA, set before torch is imported), as lessons/pom.xml holds DJL's libtorch: with its AVX2 ones on an AMD
Zen 3, libtorch's updates came 3.2e-3 from ours. --dtype float64 makes the parameters, the images, the model and the
optimizer's state float64 (the float64 reference run; oneDNN has no float64 convolution, so ATen's own runs) and
writes F64 tensors.
"""
import os

os.environ.setdefault("DNNL_MAX_CPU_ISA", "SSE41")

import argparse  # noqa: E402
import gzip  # noqa: E402
import json  # noqa: E402
import struct  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)

NAMES = ["W1", "b1", "W2", "b2", "W3", "b3", "W4", "b4"]


# The notebook's code, cell by cell

def lenet(X, params):
    h1_conv = F.conv2d(input=X, weight=params[0], bias=params[1])
    h1_activation = F.relu(h1_conv)
    h1 = F.avg_pool2d(input=h1_activation, kernel_size=(2, 2), stride=(2, 2))
    h2_conv = F.conv2d(input=h1, weight=params[2], bias=params[3])
    h2_activation = F.relu(h2_conv)
    h2 = F.avg_pool2d(input=h2_activation, kernel_size=(2, 2), stride=(2, 2))
    h2 = h2.reshape(h2.shape[0], -1)
    h3_linear = torch.mm(h2, params[4]) + params[5]
    h3 = F.relu(h3_linear)
    y_hat = torch.mm(h3, params[6]) + params[7]
    return y_hat


loss = nn.CrossEntropyLoss(reduction="none")


def get_params(params, device):  # a device is a copy here: clone() makes it
    new_params = [p.clone() for p in params]
    for p in new_params:
        p.requires_grad_()
    return new_params


def allreduce(data):
    for i in range(1, len(data)):
        data[0][:] += data[i]
    for i in range(1, len(data)):
        data[i][:] = data[0]  # the notebook's data[i] = ... would leave copy i's gradient as it was


def split_batch(X, y, devices):
    """nn.parallel.scatter's split of X and y over the devices: torch.chunk's."""
    assert X.shape[0] == y.shape[0]
    X_shards, y_shards = X.chunk(len(devices)), y.chunk(len(devices))
    if len(X_shards) != len(devices):
        raise SystemExit(f"a batch of {X.shape[0]} leaves devices without rows; give each device one")
    return X_shards, y_shards


def sgd(params, lr, batch_size):
    """Minibatch stochastic gradient descent."""
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


def train_batch(X, y, device_params, devices, lr, optimizers=None):
    X_shards, y_shards = split_batch(X, y, devices)
    # Loss is calculated separately on each device
    losses = [
        loss(lenet(X_shard, device_W), y_shard).sum()
        for X_shard, y_shard, device_W in zip(X_shards, y_shards, device_params)
    ]
    for l in losses:  # Back Propagation is performed separately on each device
        l.backward()
    # Sum all gradients from each device and broadcast them to all devices
    with torch.no_grad():
        for i in range(len(device_params[0])):
            allreduce([device_params[c][i].grad for c in range(len(devices))])
    # The model parameters are updated separately on each device
    ndata = X.shape[0]  # gradient is summed over the full minibatch
    if optimizers is None:
        for param in device_params:
            sgd(param, lr, ndata)
        return
    for param, optimizer in zip(device_params, optimizers):  # torch.optim's step on the mean loss's gradient
        with torch.no_grad():
            for p in param:
                p.grad /= ndata
        optimizer.step()
        optimizer.zero_grad()


def make_optimizer(args, params):
    """torch.optim's optimizer named by --optimizer over one copy's parameters; its single-tensor loops (foreach=False),
    as torch 1.13 takes on the processor by default and as later versions' default may not."""
    if args.optimizer == "sgd":
        return torch.optim.SGD(params, lr=args.lr, momentum=args.momentum, dampening=args.dampening,
                               nesterov=args.nesterov, weight_decay=args.weight_decay, foreach=False)
    make = torch.optim.Adam if args.optimizer == "adam" else torch.optim.AdamW
    return make(params, lr=args.lr, betas=args.betas, eps=args.eps, weight_decay=args.weight_decay, foreach=False)


# The files: safetensors in and out, Fashion-MNIST's IDX files

def read_safetensors(path):
    """The F32 tensors of a safetensors file by name, as float32: an 8-byte little-endian header length, a JSON header
    (dtype, shape, data_offsets per tensor), then the raw little-endian data."""
    with open(path, "rb") as f:
        raw = f.read()
    (length,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + length])
    data = raw[8 + length:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if entry["dtype"] != "F32":
            raise SystemExit(f"{path}: {name} is {entry['dtype']}; only F32 is read")
        start, end = entry["data_offsets"]
        values = torch.tensor(struct.unpack(f"<{(end - start) // 4}f", data[start:end]), dtype=torch.float32)
        tensors[name] = values.reshape(entry["shape"]) if entry["shape"] else values.reshape(())
    return tensors


def write_safetensors(path, named):
    """float32 tensors as F32, float64 ones as F64."""
    header, offset = {"__metadata__": {"format": "pt", "producer": "scripts/pytorch-referee.py"}}, 0
    for name, t in named:
        dtype, size = ("F64", 8) if t.dtype == torch.float64 else ("F32", 4)
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + size * t.numel()]}
        offset += size * t.numel()
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for _, t in named:
            values = t.detach().flatten().tolist()  # float32 or float64 to Python's float and back: exact
            f.write(struct.pack(f"<{len(values)}{'d' if t.dtype == torch.float64 else 'f'}", *values))


def data_dir(explicit):
    """The folder that ./lab train reads (core's DataLocator): --data, $FASHION_MNIST_DIR, the lab's cache, the
    Debian package's folder."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for d in [explicit, os.environ.get("FASHION_MNIST_DIR"), os.path.join(cache, "multigpu-lab", "fashion-mnist"),
              "/usr/share/datasets/fashion-mnist"]:
        if d and all(idx_path(d, name) for name in ["train-images-idx3-ubyte", "train-labels-idx1-ubyte"]):
            return d
    raise SystemExit("no Fashion-MNIST found (apt-get install dataset-fashion-mnist, or give --data)")


def idx_path(folder, name):
    """The file `name` in `folder`, raw or .gz, or None."""
    for path in [os.path.join(folder, name), os.path.join(folder, name + ".gz")]:
        if os.path.isfile(path):
            return path
    return None


def read_idx(folder, name):
    """An IDX file (raw or .gz) as a uint8 tensor of its shape."""
    path = idx_path(folder, name)
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        raw = f.read()
    (magic,) = struct.unpack(">I", raw[:4])
    if magic >> 8 != 0x08:
        raise SystemExit(f"{name}: not an IDX file of unsigned bytes")
    dims = struct.unpack(">" + "I" * (magic & 0xFF), raw[4:4 + 4 * (magic & 0xFF)])
    return torch.frombuffer(bytearray(raw[4 + 4 * len(dims):]), dtype=torch.uint8).reshape(dims)


def betas(text):
    b1, b2 = (float(b) for b in text.split(","))
    return b1, b2


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--load", required=True, help="the initial parameters (safetensors)")
    parser.add_argument("--save", required=True, help="where device 0's trained parameters go (safetensors)")
    parser.add_argument("--devices", type=int, required=True)
    parser.add_argument("--images", type=int, default=2560)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--steps", type=int, help="stop after this many batches (all of them by default)")
    parser.add_argument("--lr", type=float, help="0.2 without --optimizer and for sgd, 1e-3 for adam and adamw")
    parser.add_argument("--optimizer", choices=["sgd", "adam", "adamw"],
                        help="torch.optim's rule on the mean loss's gradient (the notebook's sgd when not given)")
    parser.add_argument("--momentum", type=float, help="sgd's (0)")
    parser.add_argument("--dampening", type=float, help="sgd's (0)")
    parser.add_argument("--nesterov", action="store_true", help="sgd's")
    parser.add_argument("--weight-decay", type=float, help="0 for sgd and adam, 0.01 for adamw")
    parser.add_argument("--betas", type=betas, help="adam's and adamw's (0.9,0.999)")
    parser.add_argument("--eps", type=float, help="adam's and adamw's (1e-8)")
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    parser.add_argument("--data")
    args = parser.parse_args()

    given = {name for name, value in [("--momentum", args.momentum), ("--dampening", args.dampening),
                                      ("--nesterov", args.nesterov or None), ("--weight-decay", args.weight_decay),
                                      ("--betas", args.betas), ("--eps", args.eps)] if value is not None}
    sgd_only, adam_only = {"--momentum", "--dampening", "--nesterov"}, {"--betas", "--eps"}
    if args.optimizer is None and given:
        parser.error(f"{', '.join(sorted(given))}: the notebook's sgd takes only --lr; name an --optimizer")
    if args.optimizer == "sgd" and given & adam_only:
        parser.error(f"{', '.join(sorted(given & adam_only))}: adam's and adamw's, not sgd's")
    if args.optimizer in ("adam", "adamw") and given & sgd_only:
        parser.error(f"{', '.join(sorted(given & sgd_only))}: sgd's, not {args.optimizer}'s")
    if args.lr is None:
        args.lr = 1e-3 if args.optimizer in ("adam", "adamw") else 0.2
    if args.weight_decay is None:
        args.weight_decay = 0.01 if args.optimizer == "adamw" else 0.0
    args.momentum = args.momentum or 0.0
    args.dampening = args.dampening or 0.0
    args.betas = args.betas or (0.9, 0.999)
    args.eps = 1e-8 if args.eps is None else args.eps
    return args


def main():
    args = parse_args()
    dtype = torch.float64 if args.dtype == "float64" else torch.float32

    loaded = read_safetensors(args.load)
    params = [loaded[name].to(dtype) for name in NAMES]
    folder = data_dir(args.data)
    images = read_idx(folder, "train-images-idx3-ubyte")[: args.images]
    labels = read_idx(folder, "train-labels-idx1-ubyte")[: args.images]
    X = (images.to(dtype) / 255).reshape(-1, 1, 28, 28)  # transforms.ToTensor(): pixel / 255
    y = labels.to(torch.int64)

    devices = list(range(args.devices))
    device_params = [get_params(params, d) for d in devices]
    optimizers = None if args.optimizer is None else [make_optimizer(args, p) for p in device_params]
    starts = list(range(0, X.shape[0], args.batch_size))[: args.steps]  # DataLoader(shuffle=False), the last kept
    for start in starts:
        train_batch(X[start:start + args.batch_size], y[start:start + args.batch_size], device_params, devices,
                    args.lr, optimizers)
    write_safetensors(args.save, list(zip(NAMES, device_params[0])))
    if optimizers is None:
        rule = f"the notebook's sgd, lr {args.lr}"
    elif args.optimizer == "sgd":
        rule = (f"torch.optim.SGD lr {args.lr} momentum {args.momentum} dampening {args.dampening}"
                f" nesterov {args.nesterov} weight decay {args.weight_decay}")
    else:
        rule = (f"torch.optim.{'Adam' if args.optimizer == 'adam' else 'AdamW'} lr {args.lr}"
                f" betas {args.betas[0]},{args.betas[1]} eps {args.eps} weight decay {args.weight_decay}")
    print(f"torch {torch.__version__} {args.dtype}: {len(starts)} batches of {args.batch_size} from"
          f" {X.shape[0]} images, {rule}, {args.devices} devices")


if __name__ == "__main__":
    main()
