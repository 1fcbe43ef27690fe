"""PyTorch's values for tests/node/reduce_accuracy.test.mjs: long float32 sums, means, var/std,
nll_loss, layer_norm and softmax statistics. Inputs are built from exact operations (integer
arange and remainder, then float multiplies by powers of two and correctly rounded adds) that
the test repeats in webtorch, so no large fixture is needed.

    .venv-torch/bin/python tests/node/reduce_accuracy.py > tests/node/reduce_accuracy.json
    npx prettier --write tests/node/reduce_accuracy.json
"""

import json

import torch
import torch.nn.functional as F


def scrambled(n):
    """The test's `scrambled(n)`: a deterministic permutation-like pattern of 0..10006."""
    i = torch.arange(n)
    return ((i % 10007) * 7919 % 10007).float()


def noisy(n):
    """Values in [0.1, 2.55): `scrambled(n) * 2^-12 + 0.1`."""
    return scrambled(n) * 2.0**-12 + 0.1


def offset(n):
    """`1e4` plus a multiple of 2^-8 from 0 to 999 / 256 (a float32 mean of 10^6 of them is exact
    in any summation order that keeps PyTorch's accuracy)."""
    return (torch.arange(n) % 1000).float() * 2.0**-8 + 1e4


def offset_fine(n):
    """`1e4` plus a multiple of 2^-10 (float32's spacing there) from 0 to 16: a mean off by a few
    spacings shows in the variance."""
    return (torch.arange(n) % 17).float() * 2.0**-10 + 1e4


def logits(n):
    """`scrambled(n) * 2^-10`: values from 0 to 9.77."""
    return scrambled(n) * 2.0**-10


def picks(t, idx):
    return [t.reshape(-1)[i].item() for i in idx]


IDX = [0, 1, 4999, 999_998, 999_999]


def f(t):
    return t.item()


out = {
    "full_0.1_1e6_sum": f(torch.full([1_000_000], 0.1).sum()),
    "full_0.1_1e6_mean": f(torch.full([1_000_000], 0.1).mean()),
    "full_0.1_1e7_sum": f(torch.full([10_000_000], 0.1).sum()),
    "noisy_1e7_sum": f(noisy(10_000_000).sum()),
    "noisy_1e6_mean_dim0": f(noisy(1_000_000).reshape(-1, 1).mean(0)),
    "offset_1e6_var": f(offset(1_000_000).var()),
    "offset_1e6_std": f(offset(1_000_000).std()),
    "offset_fine_1e6_var": f(offset_fine(1_000_000).var()),
    "offset_fine_1e6_std": f(offset_fine(1_000_000).std()),
    "full_0.1_1e6_var": f(torch.full([1_000_000], 0.1).var()),
    "full_7_1e5_var": f(torch.full([100_000], 7.0).var()),
    "full_7_1e5_std_dim0": f(torch.full([100_000, 1], 7.0).std(0)),
    "nll_loss_1e6_sum": f(
        F.nll_loss(
            noisy(1_000_000).reshape(-1, 1),
            torch.zeros(1_000_000, dtype=torch.long),
            reduction="sum",
        )
    ),
    # mean/var/std/norm of one row of 10^7 (CPU) or 10^6 (WebGPU, where SwiftShader is slow;
    # both split the row across workgroups there), and var of four rows. PyTorch's float32 norm
    # of 10^7 values is 2.5e-4 off its float64 result (a plain sum of squares); webtorch is held
    # to the float64 one there.
    **{
        f"noisy_{tag}_{what}": v
        for tag, n in [("1e6", 1_000_000), ("1e7", 10_000_000)]
        for what, v in [
            ("mean", f(noisy(n).mean())),
            ("var", f(noisy(n).var())),
            ("std", f(noisy(n).std())),
            ("norm", f(noisy(n).double().norm().float())),
            ("var_rows", noisy(n).reshape(4, -1).var(1).tolist()),
        ]
    },
    "layer_norm_700": picks(F.layer_norm(torch.full([2, 700], 0.1), [700]), [0, 699, 1399]),
    "picked": IDX,
    # PyTorch's float32 softmax adds a long row's exponentials along vector lanes in order, 4e-5
    # off its float64 result at 10^6 elements; webtorch is held to the float64 result instead.
    "softmax": picks(F.softmax(logits(1_000_000).double(), 0).float(), IDX),
    "log_softmax": picks(F.log_softmax(logits(1_000_000).double(), 0).float(), IDX),
    "logsumexp_1e6": f(torch.logsumexp(logits(1_000_000), 0)),
}
print(json.dumps(out, indent=1))
