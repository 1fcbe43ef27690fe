"""cuDNN's conv2d on the shapes of bench/convprobe.mjs (3×3, stride 1, padding 1, NCHW, TF32
off): the forward, and the forward with the input's or the weight's gradient, in TFLOP/s
(FLOPs as convprobe counts them). Figures for bench/KERNELS.md, never asserted.

    python3 bench/conv_torch.py [--out dir] [--depthwise | --window]
"""
import argparse
import json
import os
import time

import torch

F = torch.nn.functional
# (N, C, H, W, O, k, groups), padding k // 2.
SHAPES = [(32, 64, 56, 56, 64, 3, 1), (32, 128, 28, 28, 128, 3, 1), (32, 256, 14, 14, 256, 3, 1),
          (8, 64, 56, 56, 64, 3, 1), (32, 3, 224, 224, 64, 3, 1)]
DEPTHWISE = [(32, 144, 56, 56, 144, 3, 144), (32, 96, 56, 56, 96, 7, 96)]
# convprobe.mjs --window: (N, C, H, W, O, k, groups, stride).
WINDOW = [(32, 3, 224, 224, 64, 3, 1, 1), (32, 3, 224, 224, 64, 7, 1, 2), (32, 4, 112, 112, 32, 3, 1, 1),
          (32, 8, 112, 112, 32, 3, 1, 1), (32, 16, 112, 112, 32, 3, 1, 1), (32, 144, 56, 56, 144, 3, 144, 1),
          (32, 144, 56, 56, 144, 3, 144, 2), (32, 96, 56, 56, 96, 7, 96, 1), (32, 32, 112, 112, 64, 3, 32, 1),
          (32, 128, 56, 56, 128, 3, 1, 2), (32, 256, 56, 56, 512, 1, 1, 2)]


def timed(f, n=20, reps=7):
    f()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        torch.cuda.synchronize()
        ts.append((time.perf_counter() - t0) / n)
    return sorted(ts)[len(ts) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--depthwise", action="store_true")
    ap.add_argument("--window", action="store_true")
    args = ap.parse_args()
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    rows = []
    shapes = WINDOW if args.window else [(*s, 1) for s in (DEPTHWISE if args.depthwise else SHAPES)]
    for n, c, h, w_, o, k, g, st in shapes:
        x = torch.randn(n, c, h, w_, device=dev, requires_grad=True)
        w = torch.randn(o, c // g, k, k, device=dev, requires_grad=True)
        oh, ow = ((d + 2 * (k // 2) - k) // st + 1 for d in (h, w_))
        gy = torch.randn(n, o, oh, ow, device=dev)
        flop = 2 * n * o * oh * ow * c * k * k // g
        conv = lambda: F.conv2d(x, w, None, st, k // 2, 1, g)
        parts = {
            "fwd": (conv, 1),
            "dx": (lambda: torch.autograd.grad(conv(), [x], gy), 2),
            "dw": (lambda: torch.autograd.grad(conv(), [w], gy), 2),
        }
        for part, (f, mult) in parts.items():
            s = timed(f)
            rows.append({"part": part, "dims": [n, c, h, w_, o, k, g, st], "ms": s * 1e3,
                         "tflops": mult * flop / s / 1e12})
            print(f"{part} {n}×{c}×{h}×{w_} {k}×{k}→{o} g{g} s{st}: {mult * flop / s / 1e12:.3f} TFLOP/s", flush=True)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        name = "conv_torch_window.json" if args.window else "conv_torch_depthwise.json" if args.depthwise else "conv_torch.json"
        with open(os.path.join(args.out, name), "w") as fh:
            json.dump({"device": torch.cuda.get_device_name(0), "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
