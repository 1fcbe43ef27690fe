"""PyTorch's scaled_dot_product_attention (CUDA, float32, TF32 off, no gradients) on the shapes
of bench/attnprobe.mjs, in TFLOP/s as attnprobe counts them, with the peak memory of one call.
Figures for bench/KERNELS.md, never asserted.

    python3 bench/attn_torch.py [--out dir] [--mask] [--train]

--mask: attnprobe's BERT-like rows (a float key-padding mask hiding each sequence's last eighth).
--train: forward and backward from a random output gradient (FLOPs 3.5× the forward's).
"""
import argparse
import json
import os
import time

import torch

F = torch.nn.functional
# (B, H, L, S, E, causal)
SHAPES = [(1, 12, 1024, 1024, 64, False), (8, 12, 1024, 1024, 64, True), (1, 12, 4096, 4096, 64, True),
          (1, 12, 8192, 8192, 64, True), (1, 32, 2048, 2048, 128, True)]
MASKED = [(32, 12, 128, 128, 64, False), (8, 12, 512, 512, 64, False), (1, 12, 1024, 1024, 64, False)]


def timed(f, n=10, reps=7):
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
    ap.add_argument("--mask", action="store_true")
    ap.add_argument("--train", action="store_true")
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    rows = []
    with torch.set_grad_enabled(args.train):
        for b, h, l, s, e, causal in MASKED if args.mask else SHAPES:
            q, k, v = (torch.randn(b, h, n, e, device=dev, requires_grad=args.train) for n in (l, s, s))
            g = torch.randn(b, h, l, e, device=dev)
            pad = None
            if args.mask:
                hide = torch.arange(s, device=dev) >= s * 7 // 8
                pad = torch.zeros(s, device=dev).masked_fill(hide, float("-inf")).reshape(1, 1, 1, s).expand(b, 1, 1, s).contiguous()
            sdpa = lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=pad, is_causal=causal)

            def f():
                if not args.train:
                    return sdpa()
                q.grad = k.grad = v.grad = None
                sdpa().backward(g)

            flop = (3.5 if args.train else 1) * 4 * b * h * l * s * e / (2 if causal else 1)
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            base = torch.cuda.memory_allocated()
            f()
            torch.cuda.synchronize()
            peak = torch.cuda.max_memory_allocated() - base
            t = timed(f)
            rows.append({"dims": [b, h, l, s, e, causal], "ms": t * 1e3, "tflops": flop / t / 1e12, "peak_extra_bytes": peak})
            print(f"{b}×{h}×{l}×{s}×{e}{' causal' if causal else ''}{' train' if args.train else ''}: {flop / t / 1e12:.2f} TFLOP/s, "
                  f"{peak / 2**20:.0f} MiB above the inputs", flush=True)
            del q, k, v, g
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        name = "attn_torch" + ("_mask" if args.mask else "") + ("_train" if args.train else "") + ".json"
        with open(os.path.join(args.out, name), "w") as fh:
            json.dump({"device": torch.cuda.get_device_name(), "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
