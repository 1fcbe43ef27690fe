"""PyTorch's ResNet-18 training step on the shapes of bench/resnetprobe.mjs (batch 32, 224×224,
SGD with momentum, fp32 with TF32 off; cuDNN's autotuner off, as PyTorch's default, and on).
Figures for bench/KERNELS.md, never asserted.

    python3 bench/resnet_torch.py [--batch 32]
"""
import argparse
import time

import torch
from torch import nn

F = nn.functional


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = (nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
                     if stride != 1 or cin != cout else None)

    def forward(self, x):
        y = self.bn2(self.conv2(self.bn1(self.conv1(x)).relu()))
        return (y + (self.down(x) if self.down is not None else x)).relu()


class ResNet18(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.pool = nn.MaxPool2d(3, 2, 1)
        blocks, cin = [], 64
        for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
            blocks += [Block(cin, cout, stride), Block(cout, cout, 1)]
            cin = cout
        self.layers = nn.Sequential(*blocks)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        y = self.pool(self.bn1(self.conv1(x)).relu())
        return self.fc(F.adaptive_avg_pool2d(self.layers(y), 1).flatten(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=32)
    args = ap.parse_args()
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    model = ResNet18().to(dev).train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(args.batch, 3, 224, 224, device=dev)
    y = torch.randint(0, 1000, (args.batch,), device=dev)

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    for bench in (False, True):
        torch.backends.cudnn.benchmark = bench
        for _ in range(5):
            step()
        torch.cuda.synchronize()
        ts = []
        for _ in range(7):
            t0 = time.perf_counter()
            for _ in range(8):
                step()
            torch.cuda.synchronize()
            ts.append((time.perf_counter() - t0) / 8)
        print(f"ResNet-18 training step, batch {args.batch}, 224×224, PyTorch (cudnn.benchmark={bench}): "
              f"{sorted(ts)[3] * 1e3:.2f} ms", flush=True)


if __name__ == "__main__":
    main()
