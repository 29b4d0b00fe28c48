"""§12.6's training step in the machine's PyTorch: d2l's ResNet-18 (scripts/d2l_resnet.py) on one device, batch 256,
plain SGD at lr 0.1 on the mean cross-entropy, cuDNN choosing its algorithms as the book's runs let it. Timed after a
warm-up on a fixed random batch, so that no DataLoader runs beside it: the figure ResNet-18's step on --backend opencl
is set against in the GPU check (scripts/gpu/check.sh).

  python3 resnet.py --device cuda --report resnet.json
"""

import argparse
import json
import os
import sys
import time

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from d2l_resnet import resnet18  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--warmup", type=int, default=5, help="steps run first, untimed")
    parser.add_argument("--steps", type=int, default=20, help="steps timed")
    parser.add_argument("--report", help="write the figures here as JSON")
    args = parser.parse_args()
    device = torch.device("cuda:0" if args.device == "cuda" else "cpu")
    torch.manual_seed(1)
    net = resnet18(10, in_channels=1).to(device)
    net.train()
    trainer = torch.optim.SGD(net.parameters(), lr=0.1)
    loss = nn.CrossEntropyLoss()
    X = torch.rand(args.batch_size, 1, 28, 28, device=device)
    y = torch.randint(0, 10, (args.batch_size,), device=device)

    def step():
        trainer.zero_grad()
        loss(net(X), y).backward()
        trainer.step()

    def synchronize():
        if device.type == "cuda":
            torch.cuda.synchronize()

    for _ in range(args.warmup):
        step()
    synchronize()
    start = time.perf_counter()
    for _ in range(args.steps):
        step()
    synchronize()
    ms = (time.perf_counter() - start) / args.steps * 1e3
    name = torch.cuda.get_device_name(0) if device.type == "cuda" else "processor"
    print(f"ResNet-18 step in PyTorch {torch.__version__} on {name}: {ms:.2f} ms at batch {args.batch_size},"
          f" {args.batch_size / ms * 1e3:.0f} images/s")
    if args.report:
        with open(args.report, "w") as f:
            json.dump({"device": name, "torch": torch.__version__, "batch_size": args.batch_size, "ms_per_step": ms},
                      f)


if __name__ == "__main__":
    main()
