#!/usr/bin/python3
"""The notebook's host side, measured: what PyTorch's Python, dispatcher and autograd cost the host thread per
step of d2l §12.5's train_batch, and what its DataLoader costs per image, on this machine's processor.

Run with Debian's python3-torch and python3-torchvision (apt-get install python3-torch python3-torchvision):
    scripts/pytorch-host.py [--data /usr/share/datasets/fashion-mnist] [--repeats 200] [--parts all|data-parallel]
It prints the figures the sim backend's `pytorch` host model uses (backend-sim/.../HostModel.java), in µs.
`--parts data-parallel` times only nn.DataParallel's own Python (it needs no torchvision).

Shards of one image on CPU tensors keep the arithmetic small, so what is timed is the host's work: Python, the
dispatcher, autograd, allocation. On a GPU the same calls launch kernels instead; the launches themselves are
charged by the model separately.
"""
import argparse
import gzip
import os
import resource
import shutil
import statistics
import tempfile
import time

import threading

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils import data

from d2l_resnet import resnet18

torch.set_num_threads(1)
loss = nn.CrossEntropyLoss(reduction="none")


def lenet(X, params):  # the notebook's model, as it is written there
    h1 = F.avg_pool2d(F.relu(F.conv2d(input=X, weight=params[0], bias=params[1])), kernel_size=(2, 2), stride=(2, 2))
    h2 = F.avg_pool2d(F.relu(F.conv2d(input=h1, weight=params[2], bias=params[3])), kernel_size=(2, 2), stride=(2, 2))
    h2 = h2.reshape(h2.shape[0], -1)
    h3 = F.relu(torch.mm(h2, params[4]) + params[5])
    return torch.mm(h3, params[6]) + params[7]


def new_params():
    shapes = [(20, 1, 3, 3), (20,), (50, 20, 5, 5), (50,), (800, 128), (128,), (128, 10), (10,)]
    return [(torch.randn(s) * 0.01).requires_grad_() for s in shapes]


def allreduce(data_):  # the notebook's
    for i in range(1, len(data_)):
        data_[0][:] += data_[i].to(data_[0].device)
    for i in range(1, len(data_)):
        data_[i] = data_[0].to(data_[i].device)


def sgd(params, lr, batch_size):  # the notebook's
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


def median_us(work, repeats):
    """The median processor time of `work`: the time this thread ran, which other programs on a shared machine
    do not lengthen, as they lengthen the wall clock."""
    for _ in range(20):
        work()
    times = []
    for _ in range(repeats):
        start = time.thread_time()
        work()
        times.append(time.thread_time() - start)
    return statistics.median(times) * 1e6


def step_parts(repeats):
    """Per device: forward and loss, backward, SGD; per parameter and extra device: allreduce."""
    params = new_params()
    X, y = torch.rand(1, 1, 28, 28), torch.zeros(1, dtype=torch.long)
    forward = median_us(lambda: loss(lenet(X, params), y).sum(), repeats)
    box = {}

    def forward_backward():
        box["l"] = loss(lenet(X, params), y).sum()
        box["l"].backward()

    backward = median_us(forward_backward, repeats) - forward
    # SGD and the allreduce on parameters of one element each: their Python and dispatch cost is per tensor,
    # while on a GPU their arithmetic is the kernels' (a 400 KB temporary per call costs this processor page faults)
    ones = [torch.zeros(1, requires_grad=True) for _ in params]
    for p in ones:
        p.grad = torch.zeros(1)
    sgd_us = median_us(lambda: sgd(ones, 0.2, 1), repeats)
    grads = [[torch.zeros(1) for _ in params] for _ in range(3)]
    one = median_us(lambda: [allreduce([g[i] for g in grads[:2]]) for i in range(8)], repeats) / 8
    two = median_us(lambda: [allreduce([g[i] for g in grads[:3]]) for i in range(8)], repeats) / 8
    batch = torch.rand(256, 1, 28, 28)
    split = median_us(lambda: [s.to("cpu") for s in batch.chunk(2)], repeats) / 2
    return {
        "forward_us": forward,
        "backward_us": backward,
        "sgd_us": sgd_us,
        "allreduce_us_per_parameter_and_peer": two - one,
        "allreduce_us_per_parameter": 2 * one - two,
        "split_us_per_device": split,
    }


def fashion_mnist(source):
    """torchvision's FashionMNIST over the IDX files in `source`, unpacked into a temporary root."""
    import torchvision
    from torchvision import transforms

    root = tempfile.mkdtemp()
    raw = os.path.join(root, "FashionMNIST", "raw")
    os.makedirs(raw)
    for name in os.listdir(source):
        target = os.path.join(raw, name[:-3] if name.endswith(".gz") else name)
        opener = gzip.open if name.endswith(".gz") else open
        with opener(os.path.join(source, name), "rb") as f, open(target, "wb") as out:
            shutil.copyfileobj(f, out)
    return root, torchvision.datasets.FashionMNIST(root=root, train=True, transform=transforms.ToTensor())


def processor():
    """The processor these figures come from, as /proc/cpuinfo names it: model name, family and model."""
    fields = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
            if not line.strip():
                break
    return f"{fields.get('model name')}, family {fields.get('cpu family')}, model {fields.get('model')}"


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def loader_parts(source, images):
    """Per image, in processor time: the dataset's __getitem__ (a PIL image, then ToTensor), and that with the
    default collate into batches of 256, in one process; the notebook's DataLoader (batch 256, shuffled, 4 worker
    processes) split into its workers' processor time (their start, the images, collation into shared memory,
    sending the batches: read once they exit) and the host thread's (starting them, receiving the batches); and
    its wall time per image over `images` images, for comparison."""
    root, train = fashion_mnist(source)
    try:
        start = time.thread_time()
        for i in range(images):
            train[i]
        per_image = (time.thread_time() - start) / images * 1e6
        subset = data.Subset(train, range(images))
        start = time.thread_time()
        batches = sum(1 for _ in data.DataLoader(subset, 256, shuffle=False, num_workers=0))
        in_process = (time.thread_time() - start) * 1e6
        children, host, start = children_cpu(), time.thread_time(), time.perf_counter()
        sum(1 for _ in data.DataLoader(subset, 256, shuffle=True, num_workers=4))
        workers = (time.perf_counter() - start) * 1e6
        host = (time.thread_time() - host) * 1e6
        children = (children_cpu() - children) * 1e6
        return {
            "loader_us_per_image": in_process / images,
            "loader_4_workers_cpu_us_per_image": children / images,
            "loader_4_workers_host_us_per_image": host / images,
            "getitem_us_per_image": per_image,
            "loader_4_workers_us_per_image": workers / images,
            "batches": batches,
            "cores": os.cpu_count(),
        }
    finally:
        shutil.rmtree(root)


def data_parallel_parts(repeats):
    """nn.DataParallel's own Python per step and replica, on §12.6's d2l resnet18: replicate() copying every module
    for the replica (the tensors' broadcast is the GPUs' work), and parallel_apply() starting and joining a thread
    for it."""
    net = resnet18(10, 1)
    modules = list(net.modules())
    replicate = median_us(lambda: [m._replicate_for_data_parallel() for m in modules for _ in range(2)], repeats) / 2

    def threads():
        started = [threading.Thread(target=lambda: None) for _ in range(2)]
        for t in started:
            t.start()
        for t in started:
            t.join()

    return {
        "dataparallel_replicate_us_per_replica": replicate,
        "dataparallel_thread_us_per_replica": median_us(threads, repeats) / 2,
        "resnet18_modules": len(modules),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--images", type=int, default=10240)
    parser.add_argument("--parts", choices=["all", "data-parallel"], default="all")
    args = parser.parse_args()
    print(f"torch {torch.__version__}, 1 thread, {os.cpu_count()} cores")
    print(f"processor: {processor()}")
    parts = data_parallel_parts(args.repeats)
    if args.parts == "all":
        parts = {**step_parts(args.repeats), **loader_parts(args.data, args.images), **parts}
    for name, value in parts.items():
        print(f"{name:40s} {value:10.1f}" if isinstance(value, float) else f"{name:40s} {value:10d}")


if __name__ == "__main__":
    main()
