"""PyTorch CUDA reference for bench/run.mjs: the same workloads (same names, same figures), fp32.

    python3 bench/torch_bench.py --out bench/results/<machine> [--quick]

Matmul is timed with TF32 off (the fp32 comparison) and again with TF32 on (reported beside it,
never compared). Timing: CUDA events around a batch of calls after warm-up, median of repeats.
Writes <out>/torch.json; bench/lib/report.mjs merges it with webgpu.json.
"""

import argparse
import datetime
import json
import math
import os
import statistics
import time

import torch

# fp32 peak FLOP/s and memory bandwidth by device name (vendor data sheets, SXM parts).
PEAKS = {
    "H200": {"tflops": 67.0, "gbs": 4800.0},
    "H100": {"tflops": 67.0, "gbs": 3350.0},
}


def timed(fn, reps=7, min_ms=25.0, sync=True):
    """Median ms per call of fn() over `reps` batches; each batch is long enough to hide launch jitter."""
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    inner = 1
    while True:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(inner):
            fn()
        end.record()
        torch.cuda.synchronize()
        ms = start.elapsed_time(end)
        if ms >= min_ms or inner >= 4096:
            break
        inner = min(4096, inner * max(2, math.ceil(min_ms / max(ms, 0.01))))
    per = []
    for _ in range(reps):
        start.record()
        for _ in range(inner):
            fn()
        end.record()
        torch.cuda.synchronize()
        per.append(start.elapsed_time(end) / inner)
    return statistics.median(per), inner


def wall(fn, reps=7):
    """Median wall-clock ms of fn() (which synchronises itself), for host-cost workloads."""
    for _ in range(3):
        fn()
    per = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        per.append((time.perf_counter() - t) * 1e3)
    return statistics.median(per)


def model_workloads(quick, dev, g, add):
    """Attention, layer_norm, conv2d, the MLP Adam step and the transformer block (run.mjs's)."""
    F = torch.nn.functional
    tfl = (lambda flop, ms: flop / (ms * 1e-3) / 1e9) if quick else (lambda flop, ms: flop / (ms * 1e-3) / 1e12)
    unit = "GFLOP/s" if quick else "TFLOP/s"
    h, l, e = (2, 128, 64) if quick else (12, 1024, 64)
    q, k, v = (torch.randn(h, l, e, device=dev, generator=g) for _ in range(3))
    eager = lambda: torch.softmax(q @ k.transpose(-2, -1) * (e ** -0.5), -1) @ v
    add(f"attention {h}×{l}×{e}", unit, tfl(4 * h * l * l * e, timed(eager)[0]),
        note="eager: matmul, scale, softmax, matmul")
    results_extra = {"lib": "pytorch-sdpa", "workload": f"attention {h}×{l}×{e}", "unit": unit,
                     "value": tfl(4 * h * l * l * e, timed(lambda: F.scaled_dot_product_attention(q, k, v))[0])}
    add_raw(results_extra)
    r, c = (512, 768) if quick else (8192, 768)
    x = torch.randn(r, c, device=dev, generator=g)
    w, b = torch.randn(c, device=dev, generator=g), torch.randn(c, device=dev, generator=g)
    add(f"layer_norm {r}×{c} rows", "GB/s", 8 * r * c / (timed(lambda: F.layer_norm(x, (c,), w, b))[0] * 1e-3) / 1e9)
    n, ci, hh, ww, o = (2, 16, 28, 28, 16) if quick else (32, 64, 56, 56, 64)
    xi = torch.randn(n, ci, hh, ww, device=dev, generator=g)
    wt = torch.randn(o, ci, 3, 3, device=dev, generator=g)
    conv_flop = 2 * n * o * hh * ww * ci * 9
    for tf32 in (True, False):
        torch.backends.cudnn.allow_tf32 = tf32
        ms = timed(lambda: F.conv2d(xi, wt, None, 1, 1))[0]
        if tf32:
            conv_tf32 = tfl(conv_flop, ms)
    torch.backends.cudnn.allow_tf32 = False
    add(f"conv2d {n}×{ci}×{hh}×{ww} 3×3→{o}", unit, tfl(conv_flop, ms), tf32=conv_tf32, note="cuDNN, TF32 off")

    bsz = 100 if quick else 1000
    mlp = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 128),
                              torch.nn.ReLU(), torch.nn.Linear(128, 10)).to(dev)
    opt = torch.optim.Adam(mlp.parameters(), lr=1e-3)
    xb = torch.randn(bsz, 784, device=dev, generator=g)
    yb = torch.arange(bsz, device=dev) * 7 % 10

    def mlp_step():
        opt.zero_grad()
        loss = F.cross_entropy(mlp(xb), yb)
        loss.backward()
        opt.step()

    add(f"MLP 784-256-128-10 Adam step, batch {bsz}", "ms", timed(mlp_step)[0], note="eager, Adam foreach (default)")

    bb, ll, d, nh, ff = (1, 64, 64, 4, 256) if quick else (8, 1024, 768, 12, 3072)
    block = torch.nn.TransformerEncoderLayer(d, nh, ff, dropout=0.0, activation="gelu", batch_first=True,
                                             norm_first=True).to(dev)
    xs = torch.randn(bb, ll, d, device=dev, generator=g)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(ll, device=dev)

    def block_step():
        block.zero_grad()
        out = block(xs, src_mask=mask, is_causal=True)
        out.square().mean().backward()

    torch.backends.cuda.matmul.allow_tf32 = False
    add(f"transformer block fwd+bwd {bb}×{ll}×{d}", "ms", timed(block_step, reps=5)[0],
        note="eager nn.TransformerEncoderLayer (pre-norm, GELU, causal mask, is_causal), TF32 off")
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    tf = timed(block_step, reps=5)[0]
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    add_raw({"lib": "pytorch-tf32", "workload": f"transformer block fwd+bwd {bb}×{ll}×{d}", "unit": "ms", "value": tf})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="bench/results/local")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    dev = torch.device("cuda")
    name = torch.cuda.get_device_name(0)
    peak = next((v for k, v in PEAKS.items() if k in name), {})
    results = []

    global add_raw
    add_raw = results.append

    def add(workload, unit, value, **extra):
        results.append({"lib": "pytorch", "workload": workload, "unit": unit, "value": value, **extra})
        print(f"{workload:28s} pytorch  {value:10.3f} {unit}", flush=True)

    g = torch.Generator(device=dev).manual_seed(0)
    squares = [128, 256] if args.quick else [256, 512, 1024, 2048, 4096]
    shapes = [(n, n, n) for n in squares]
    if not args.quick:
        shapes += [(8192, 3072, 768), (8192, 768, 3072)]
    for m, n, k in shapes:
        a = torch.randn(m, k, device=dev, generator=g)
        b = torch.randn(k, n, device=dev, generator=g)
        label = f"matmul {m}³" if m == n == k else f"matmul {m}×{n}×{k}"
        tflops = {}
        for tf32 in (False, True):
            torch.backends.cuda.matmul.allow_tf32 = tf32
            ms, inner = timed(lambda: a @ b)
            tflops[tf32] = 2 * m * n * k / (ms * 1e-3) / 1e12
        torch.backends.cuda.matmul.allow_tf32 = False
        add(label, "TFLOP/s", tflops[False], tf32=tflops[True])

    n = 1 << 20 if args.quick else 1 << 24
    big = "1M" if args.quick else "16M"
    x = torch.randn(n, device=dev, generator=g)
    y = torch.randn(n, device=dev, generator=g)
    gbs = lambda nbytes, ms: nbytes / (ms * 1e-3) / 1e9
    add(f"add {big}", "GB/s", gbs(12 * n, timed(lambda: x + y)[0]))
    add(f"gelu {big}", "GB/s", gbs(8 * n, timed(lambda: torch.nn.functional.gelu(x))[0]))
    chain = lambda: torch.relu(torch.tanh(x * y + x) * 0.5 - 0.25)
    add(f"6-op chain {big}", "GB/s", gbs(12 * n, timed(chain)[0]), note="eager: 6 kernels")
    try:
        fused = torch.compile(lambda a, b: torch.relu(torch.tanh(a * b + a) * 0.5 - 0.25))
        fused(x, y)
        results.append({"lib": "pytorch-compile", "workload": f"6-op chain {big}", "unit": "GB/s",
                        "value": gbs(12 * n, timed(lambda: fused(x, y))[0])})
    except Exception as e:  # torch.compile needs a compiler toolchain; optional
        print(f"torch.compile unavailable: {e}".splitlines()[0])
    add(f"sum {big}", "GB/s", gbs(4 * n, timed(lambda: x.sum())[0]))
    r = c = 512 if args.quick else 4096
    s = torch.randn(r, c, device=dev, generator=g)
    add(f"softmax {r}×{c} rows", "GB/s", gbs(8 * r * c, timed(lambda: torch.softmax(s, -1))[0]))

    model_workloads(args.quick, dev, g, add)

    tiny = torch.randn(64, device=dev, generator=g)

    def tiny_chain():
        t = tiny
        for _ in range(1000):
            t = t + 0.001
        torch.cuda.synchronize()

    add("1,000 chained tiny adds", "µs/op", wall(tiny_chain))  # ms per 1000 ops == µs per op
    w8 = torch.eye(8, device=dev)
    t8 = tiny.reshape(8, 8)

    def tiny_mm():
        t = t8
        for _ in range(1000):
            t = t @ w8
        torch.cuda.synchronize()

    add("1,000 chained tiny matmuls", "µs/op", wall(tiny_mm))
    add("tiny op + read-back", "µs", 1e3 * wall(lambda: (tiny + 1).cpu(), reps=51))

    meta = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "device": name,
        "peak": peak,
        "tf32_compared": False,
    }
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "torch.json"), "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)
    print(f"wrote {args.out}/torch.json")


if __name__ == "__main__":
    main()
