"""The notebook's training (d2l.ai 12.5, ../shared/seed/multi_gpu_training_torch.txt) in the machine's PyTorch.

Its model, loss, get_params, allreduce, split_batch, train_batch, sgd and train, cell by cell, with two changes
forced by where it runs: Fashion-MNIST is read from the IDX files in --data (the machine has no network for
torchvision's download), and split_batch splits as torch.chunk does, which is what nn.parallel.scatter does but
on the processor too (scatter needs CUDA; the rehearsal runs on the processor). Prints the notebook's lines and
writes a JSON report; --load, --save and --save-init exchange parameters with ./lab as safetensors files (F32,
W1 b1 ... b4 in the notebook's shapes).

  python3 notebook.py --data DIR --report notebook.json                 the notebook's train(1, 256, 0.2)
  python3 notebook.py --data DIR --load init.safetensors --no-shuffle --train-samples 2560 --epochs 1 \\
      --save torch.safetensors                                          10 steps from a given start, in order
"""

import argparse
import gzip
import json
import os
import struct
import sys
import time

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F
from torch.utils import data

NAMES = ["W1", "b1", "W2", "b2", "W3", "b3", "W4", "b4"]


# --- Fashion-MNIST from IDX files (what torchvision.datasets.FashionMNIST reads) -------------------------------


def read_idx(path, dims):
    """An IDX file of unsigned bytes, raw or gzip-compressed, as a numpy array of the shape its header gives."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    zero, kind, ndim = struct.unpack(">HBB", raw[:4])
    if zero != 0 or kind != 0x08 or ndim != dims:
        sys.exit(f"error: {path} is not an IDX file of unsigned bytes with {dims} dimensions")
    shape = struct.unpack(">" + "I" * ndim, raw[4 : 4 + 4 * ndim])
    body = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if body.size != int(np.prod(shape)):
        sys.exit(f"error: {path} holds {body.size} bytes of data where its header says {shape}")
    return body.reshape(shape)


def idx_file(folder, name):
    for candidate in (name, name + ".gz"):
        if os.path.exists(os.path.join(folder, candidate)):
            return os.path.join(folder, candidate)
    sys.exit(f"error: {folder} has no {name} (raw or .gz): point --data at the Fashion-MNIST folder")


class FashionMNIST(data.Dataset):
    """Images as transforms.ToTensor() gives them (1x28x28 floats in [0, 1]), labels as ints."""

    def __init__(self, folder, train, limit):
        prefix = "train" if train else "t10k"
        self.images = torch.from_numpy(read_idx(idx_file(folder, f"{prefix}-images-idx3-ubyte"), 3)[:limit].copy())
        self.labels = read_idx(idx_file(folder, f"{prefix}-labels-idx1-ubyte"), 1)[:limit].astype(np.int64)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.images[i].unsqueeze(0).float().div(255), int(self.labels[i])


def load_data_fashion_mnist(args):
    """The notebook's loaders: shuffled training batches, test batches in order, 4 worker processes."""
    train_set = FashionMNIST(args.data, True, args.train_samples)
    test_set = FashionMNIST(args.data, False, args.test_samples)
    return (
        data.DataLoader(train_set, args.batch_size, shuffle=not args.no_shuffle, num_workers=args.workers),
        data.DataLoader(test_set, args.batch_size, shuffle=False, num_workers=args.workers),
    )


# --- Parameters as safetensors (the format ./lab --load/--save reads and writes) -------------------------------
# Debian's python3-torch, which stands in for the GPU machine's PyTorch in the rehearsal, has no safetensors
# package; the format is a little-endian u64 header length, a JSON header, then the tensors' bytes.


def load_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (length,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + length])
    body = raw[8 + length :]
    tensors = {}
    for name in NAMES:
        if name not in header or header[name]["dtype"] != "F32":
            sys.exit(f"error: {path} has no F32 tensor {name}: was it saved by ./lab train --save?")
        start, end = header[name]["data_offsets"]
        values = np.frombuffer(body[start:end], dtype="<f4").reshape(header[name]["shape"])
        tensors[name] = torch.from_numpy(values.copy())
    return [tensors[name] for name in NAMES]


def save_safetensors(path, params):
    header, chunks, offset = {}, [], 0
    for name, p in zip(NAMES, params):
        raw = p.detach().cpu().contiguous().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(p.shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


# --- The notebook ------------------------------------------------------------------------------------------------


def init_params():
    """The notebook's initialisation: N(0, 1) * 0.01 from torch's seed 0, biases zero."""
    scale = 0.01
    torch.random.manual_seed(0)
    W1 = torch.randn(size=(20, 1, 3, 3)) * scale
    b1 = torch.zeros(20)
    W2 = torch.randn(size=(50, 20, 5, 5)) * scale
    b2 = torch.zeros(50)
    W3 = torch.randn(size=(800, 128)) * scale
    b3 = torch.zeros(128)
    W4 = torch.randn(size=(128, 10)) * scale
    b4 = torch.zeros(10)
    return [W1, b1, W2, b2, W3, b3, W4, b4]


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


def get_params(params, device):
    new_params = [p.clone().to(device) for p in params]
    for p in new_params:
        p.requires_grad_()
    return new_params


def allreduce(data_):
    for i in range(1, len(data_)):
        data_[0][:] += data_[i].to(data_[0].device)
    for i in range(1, len(data_)):
        data_[i] = data_[0].to(data_[i].device)


def split_batch(X, y, devices):
    """Split `X` and `y` into multiple devices, in chunks as nn.parallel.scatter makes them."""
    assert X.shape[0] == y.shape[0]
    return (
        [x.to(d) for x, d in zip(X.chunk(len(devices)), devices)],
        [t.to(d) for t, d in zip(y.chunk(len(devices)), devices)],
    )


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = torch.argmax(y_hat, axis=1)
    cmp_ = y_hat.type(y.dtype) == y
    return float(cmp_.type(y.dtype).sum())


def evaluate_accuracy_gpu(net, data_iter, device):
    correct, count = 0.0, 0
    for X, y in data_iter:
        X, y = X.to(device), y.to(device)
        correct += accuracy(net(X), y)
        count += y.numel()
    return correct / count


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


def train_batch(X, y, device_params, devices, lr):
    X_shards, y_shards = split_batch(X, y, devices)
    losses = [
        loss(lenet(X_shard, device_W), y_shard).sum()
        for X_shard, y_shard, device_W in zip(X_shards, y_shards, device_params)
    ]
    for l in losses:
        l.backward()
    with torch.no_grad():
        for i in range(len(device_params[0])):
            allreduce([device_params[c][i].grad for c in range(len(devices))])
    ndata = X.shape[0]
    for param in device_params:
        sgd(param, lr, ndata)


def synchronize(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def train(args, params, devices):
    train_iter, test_iter = load_data_fashion_mnist(args)
    device_params = [get_params(params, d) for d in devices]
    epochs = []
    for epoch in range(args.epochs):
        start = time.time()
        for X, y in train_iter:
            train_batch(X, y, device_params, devices, args.lr)
            synchronize(devices[0])
        seconds = time.time() - start
        test_acc = evaluate_accuracy_gpu(lambda x: lenet(x, device_params[0]), test_iter, devices[0])
        epochs.append({"epoch": epoch + 1, "test_acc": test_acc, "wall_sec": seconds})
        print(f"epoch {epoch + 1}/{args.epochs}: test acc {test_acc:.3f}, {seconds:.2f} sec", flush=True)
    return device_params[0], epochs


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="the folder with the four Fashion-MNIST IDX files")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--num-gpus", type=int, default=1)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--lr", type=float, default=0.2)
    parser.add_argument("--workers", type=int, default=4, help="DataLoader worker processes (the notebook's 4)")
    parser.add_argument("--train-samples", type=int, default=None, help="the first N training images only")
    parser.add_argument("--test-samples", type=int, default=None, help="the first N test images only")
    parser.add_argument("--no-shuffle", action="store_true", help="keep the training set's order")
    parser.add_argument("--no-tf32", action="store_true", help="float32 convolutions in full float32 on CUDA")
    parser.add_argument("--load", help="start from these parameters instead of the notebook's initialisation")
    parser.add_argument("--save-init", help="write the starting parameters here")
    parser.add_argument("--save", help="write the trained parameters here")
    parser.add_argument("--report", help="write the epochs and the final line's figures here as JSON")
    args = parser.parse_args()
    if args.no_tf32:
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False

    params = load_safetensors(args.load) if args.load else init_params()
    if args.save_init:
        save_safetensors(args.save_init, params)
    devices = [torch.device(f"{args.device}:{i}") if args.device == "cuda" else torch.device(args.device)
               for i in range(args.num_gpus)]
    trained, epochs = train(args, params, devices)
    sec_per_epoch = sum(e["wall_sec"] for e in epochs) / len(epochs)
    print(f"test acc: {epochs[-1]['test_acc']:.2f}, {sec_per_epoch:.1f} sec/epoch on {str(devices)}")
    if args.save:
        save_safetensors(args.save, trained)
    if args.report:
        report = {
            "torch": torch.__version__,
            "device": torch.cuda.get_device_name(devices[0]) if args.device == "cuda" else "processor",
            "threads": torch.get_num_threads(),
            "config": {k: v for k, v in vars(args).items() if k not in ("report",)},
            "epochs": epochs,
            "final": {"test_acc": epochs[-1]["test_acc"], "wall_sec_per_epoch": sec_per_epoch},
        }
        with open(args.report + ".part", "w") as f:
            json.dump(report, f, indent=1)
        os.replace(args.report + ".part", args.report)


if __name__ == "__main__":
    main()
