#!/usr/bin/python3
"""PyTorch as the referee of ./lab train: d2l §12.5's train_batch, as the notebook writes it, on the processor.

Run with Debian's python3-torch (apt-get install python3-torch); nothing else is needed:
    scripts/pytorch-referee.py --load init.safetensors --save torch.safetensors --devices 3 \\
        [--images 2560] [--batch-size 256] [--lr 0.2] [--data /usr/share/datasets/fashion-mnist]
It starts from the parameters in --load (W1 b1 … W4 b4, as ./lab train --save writes them), trains on the first
--images training images in their order (as ./lab train --no-shuffle), one pass, batches of --batch-size split
over --devices "devices", and writes device 0's parameters to --save. lessons' PyTorchRefereeTest compares them
with ./lab train's.

The devices are separate copies of the parameters on the processor, so no GPU is needed: the notebook's
nn.parallel.scatter splits a batch as torch.chunk does (chunks of ceil(n/k) rows: 256 over 3 is 86, 86, 84), and
its allreduce adds every copy's gradient onto copy 0's in order, then copies the sum back. One deliberate
difference: the notebook's allreduce rebinds data[i] to the copy, so copies 1…k−1 would keep their own gradient;
here it is written into them (data[i][:] = ...), as ./lab train does and as the notebook means.

Float32 throughout, one thread (the same bits every run), and oneDNN held to its SSE4.1 convolutions
(DNNL_MAX_CPU_ISA, set before torch is imported), as lessons/pom.xml holds DJL's libtorch: with its AVX2 ones on an AMD
Zen 3, libtorch's updates came 3.2e-3 from ours.
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


def train_batch(X, y, device_params, devices, lr):
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
    for param in device_params:
        sgd(param, lr, ndata)


# The files: safetensors in and out, Fashion-MNIST's IDX files

def read_safetensors(path):
    """The F32 tensors of a safetensors file by name: an 8-byte little-endian header length, a JSON header
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
    header, offset = {"__metadata__": {"format": "pt", "producer": "scripts/pytorch-referee.py"}}, 0
    for name, t in named:
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + 4 * t.numel()]}
        offset += 4 * t.numel()
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for _, t in named:
            values = t.detach().flatten().tolist()  # float32 to Python's float and back: exact
            f.write(struct.pack(f"<{len(values)}f", *values))


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--load", required=True, help="the initial parameters (safetensors)")
    parser.add_argument("--save", required=True, help="where device 0's trained parameters go (safetensors)")
    parser.add_argument("--devices", type=int, required=True)
    parser.add_argument("--images", type=int, default=2560)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--lr", type=float, default=0.2)
    parser.add_argument("--data")
    args = parser.parse_args()

    loaded = read_safetensors(args.load)
    params = [loaded[name] for name in NAMES]
    folder = data_dir(args.data)
    images = read_idx(folder, "train-images-idx3-ubyte")[: args.images]
    labels = read_idx(folder, "train-labels-idx1-ubyte")[: args.images]
    X = (images.to(torch.float32) / 255).reshape(-1, 1, 28, 28)  # transforms.ToTensor(): pixel / 255
    y = labels.to(torch.int64)

    devices = list(range(args.devices))
    device_params = [get_params(params, d) for d in devices]
    for start in range(0, X.shape[0], args.batch_size):  # DataLoader(shuffle=False), the last batch kept
        train_batch(X[start:start + args.batch_size], y[start:start + args.batch_size], device_params, devices,
                    args.lr)
    write_safetensors(args.save, list(zip(NAMES, device_params[0])))
    print(f"torch {torch.__version__}: {X.shape[0]} images, batch {args.batch_size}, lr {args.lr},"
          f" {args.devices} devices")


if __name__ == "__main__":
    main()
