"""PyTorch's float64 values for tests/node/float64.test.mjs: values that need f64 precision
(1 + 1e-12, π, 1e300, sums of 10^6 values float32 cannot hold), unary math and binary ops on
inputs where f32 and f64 differ, reductions, matmul, softmax, indexing, casts, the promotion of
float64 with every dtype, and float64 gradients. The test runs the same programs by name.

Writes tests/parity/fixtures/float64.json: {"cases": {case: {"inputs": [{data, shape, dtype}],
"out": flat values, "shape", "dtype": the result's, "grads": [flat gradient or null, one per
input], "upstream": the flat gradient given to backward or null, "tol": the relative tolerance
where not the default}}, "promotion": {case: dtype}, "optim": {"w", "c", "steps", "cases":
{optimizer: {"options", "out": the parameters after the steps}}}}, one entry a line; non-finite values as
"nan", "inf", "-inf". JSON numbers are printed by Python's repr, which round-trips every f64.

Also writes tests/parity/fixtures/float64.safetensors (safetensors.torch.save_file): "x", the
"roundtrip" case's input, and "m", the 3×4 matrix the cases use.

Run: .venv-torch/bin/python tests/parity/float64_gen.py
"""

import json
import math
from pathlib import Path

import torch
import torch.nn.functional as F
from safetensors.torch import save_file

OUT = Path(__file__).parent / "fixtures" / "float64.json"
INF, NAN = math.inf, math.nan


def f64(*data):
    return torch.tensor(data, dtype=torch.float64)


# Inputs where float32 rounding shows: 1 + 1e-12 is 1 in float32, 0.1 is not 0.1 in either.
GRID = f64(0.1, 0.5, 1 + 1e-12, 2.0, 10.5, 0.3333333333333333, 1e-8)
SIGNED = f64(-3.25, -0.7, -1e-9, 0.0, 0.25, 1 + 1e-12, 7.5)
UNIT = f64(-0.999, -0.5, 1e-10, 0.3, 0.75, 0.9999999)
M = torch.arange(12, dtype=torch.float64).reshape(3, 4) / 7 + 1e-12
N = torch.arange(8, dtype=torch.float64).reshape(4, 2) / 3 - 1


def big(n):
    """The test's `big(n)`: arange(n) · 0.1 + 1e-7 in float64 (float32 cannot hold them)."""
    return torch.arange(n, dtype=torch.float64) * 0.1 + 1e-7


# name: (inputs, program). Float inputs get gradients; the upstream is 0.5 … 1.5 over the output.
CASES = {
    "roundtrip": ([f64(1 + 1e-12, math.pi, 1e300, -0.1, 5e-324, -0.0, INF, NAN)], lambda x: x.clone()),
    "add_tiny": ([f64(1.0, 1e16), f64(1e-12, 2.0)], torch.add),
    "sub": ([SIGNED, GRID], torch.sub),
    "mul": ([SIGNED, GRID], torch.mul),
    "div": ([SIGNED, GRID], torch.div),
    "pow": ([GRID, f64(2.5, -1.5, 3.0, 0.5, 1.25, 10.0, 0.1)], torch.pow),
    "pow_scalar": ([GRID], lambda x: x.pow(1.5)),
    "add_scalar": ([GRID], lambda x: x + 1e-13),
    "mul_scalar": ([GRID], lambda x: x * 0.1),
    "rsub_scalar": ([GRID], lambda x: 1 - x),
    "maximum": ([SIGNED, f64(0, 0, 0, NAN, 1, 1, 1)], torch.maximum),
    "atan2": ([SIGNED, GRID], torch.atan2),
    "hypot": ([SIGNED, GRID], torch.hypot),
    "fmod": ([SIGNED, f64(1.5, 0.3, 0.7, 1, 0.1, 0.5, 2)], torch.fmod),
    "remainder": ([SIGNED, f64(1.5, 0.3, -0.7, 1, 0.1, -0.5, 2)], torch.remainder),
    # No derivative in PyTorch: detached.
    "floor_divide": ([SIGNED, f64(1.5, 0.3, -0.7, 1, 0.1, -0.5, 2)], lambda x, y: torch.floor_divide(x.detach(), y.detach())),
    "logaddexp": ([SIGNED, GRID], torch.logaddexp),
    "logaddexp2": ([SIGNED, GRID], torch.logaddexp2),
    "gelu": ([SIGNED], F.gelu),
    "softplus": ([f64(-3.25, -0.7, 0.0, 1 + 1e-12, 19.5, 20.5)], F.softplus),
    "mish": ([SIGNED], F.mish),
    "elu": ([SIGNED], F.elu),
    "selu": ([SIGNED], F.selu),
    "celu": ([SIGNED], F.celu),
    "relu6": ([f64(-1.0, 0.5, 1 + 1e-12, 6.0000001, 5.9999999)], F.relu6),
    "hardsigmoid": ([f64(-3.5, -2.9999999, 0.1, 1 + 1e-12, 2.9999999, 4)], F.hardsigmoid),
    "hardswish": ([f64(-3.5, -2.9999999, 0.1, 1 + 1e-12, 2.9999999, 4)], F.hardswish),
    "logit": ([f64(0.1, 0.5, 0.9999999, 1e-10, 0.3333333333333333)], torch.logit),
    "sinc": ([f64(0.0, 1e-9, 0.5, 1 + 1e-12, -2.25)], torch.sinc),
    "exp": ([SIGNED], torch.exp),
    "log": ([GRID], torch.log),
    "log2": ([GRID], torch.log2),
    "log10": ([GRID], torch.log10),
    "log1p": ([GRID], torch.log1p),
    "expm1": ([SIGNED], torch.expm1),
    "sqrt": ([GRID], torch.sqrt),
    "rsqrt": ([GRID], torch.rsqrt),
    "sin": ([SIGNED], torch.sin),
    "cos": ([SIGNED], torch.cos),
    "tan": ([SIGNED], torch.tan),
    "tanh": ([SIGNED], torch.tanh),
    "sinh": ([SIGNED], torch.sinh),
    "asin": ([UNIT], torch.asin),
    "atan": ([SIGNED], torch.atan),
    "atanh": ([UNIT], torch.atanh),
    "sigmoid": ([SIGNED], torch.sigmoid),
    "silu": ([SIGNED], F.silu),
    "logsigmoid": ([SIGNED], F.logsigmoid),
    "erf": ([SIGNED], torch.erf),
    "abs_neg_square": ([SIGNED], lambda x: (-x).abs() + x.square()),
    "reciprocal": ([GRID], torch.reciprocal),
    "floor_round": ([f64(2.5, 3.5, -2.5, 1 + 1e-12, -0.5000000001)], lambda x: x.floor() + x.round() * 10),
    "eq_tiny": ([f64(1 + 1e-12, 1.0), f64(1.0, 1.0)], torch.eq),
    "gt_scalar": ([f64(1 + 1e-12, 1.0, 0.5)], lambda x: x > 1),
    "where": ([f64(1 + 1e-12, 1.0, 0.5), f64(1e-15, 2, 3)], lambda x, y: torch.where(x > 1, x, y)),
    "sum": ([M], lambda x: x.sum()),
    "sum_dim": ([M], lambda x: x.sum(1)),
    "mean_dim": ([M], lambda x: x.mean(0)),
    "prod": ([GRID], lambda x: x.prod()),
    "max": ([SIGNED], lambda x: x.max()),
    "min_dim": ([M], lambda x: x.min(1)[0]),
    "argmax": ([f64(1.0, 1 + 1e-12, 1 + 1e-13)], lambda x: x.argmax()),
    "amax": ([M], lambda x: x.amax(0)),
    "var": ([M], lambda x: x.var(1)),
    "std": ([f64(1e8, 1e8 + 1e-4, 1e8 + 2e-4, 1e8 + 5e-4)], lambda x: x.std()),
    "logsumexp": ([M], lambda x: x.logsumexp(1)),
    "norm": ([M], lambda x: x.norm()),
    "cumsum": ([M], lambda x: x.cumsum(1)),
    "cumprod": ([GRID], lambda x: x.cumprod(0)),
    "logcumsumexp": ([M], lambda x: x.logcumsumexp(0)),
    "cummax": ([f64(1.0, 1 + 1e-12, 1 + 1e-13, 3.0, NAN, 2.0)], lambda x: x.cummax(0)[0]),
    "cummin_indices": ([f64(1.0, 1 - 1e-16, 1 + 1e-13, 1.0, -2.0)], lambda x: x.cummin(0)[1]),
    "argmin_dim": ([M], lambda x: x.argmin(1)),
    "any_all": ([f64(0.0, 1e-300, 0.0)], lambda x: torch.stack([x.any(), x.all()])),
    "rms_norm": ([M], lambda x: F.rms_norm(x, [4])),
    "scatter_add": ([GRID], lambda x: torch.zeros(3, dtype=torch.float64).scatter_add(0, torch.tensor([0, 2, 0, 1, 2, 0, 1]), x)),
    "conv2d": ([M.reshape(1, 1, 3, 4), N.reshape(1, 1, 2, 4)[..., :2, :2]], lambda x, w: F.conv2d(x, w)),
    "max_pool2d": ([M.reshape(1, 1, 3, 4)], lambda x: F.max_pool2d(x, 2, 1)),
    "matmul": ([M, N], torch.matmul),
    "mv": ([M, f64(0.1, 0.2, 0.3, 1e-12)], torch.mv),
    "bmm": ([M.reshape(1, 3, 4).repeat(2, 1, 1), N.reshape(1, 4, 2).repeat(2, 1, 1)], torch.bmm),
    "softmax": ([M], lambda x: torch.softmax(x, 1)),
    "log_softmax": ([M], lambda x: torch.log_softmax(x, 0)),
    "layer_norm": ([M], lambda x: F.layer_norm(x, [4])),
    "transpose_contiguous": ([M], lambda x: x.t().contiguous() * 1),
    "slice_step": ([M], lambda x: x[:, 1::2] * 1),
    "index_select": ([M], lambda x: x.index_select(1, torch.tensor([3, 0]))),
    "gather": ([M], lambda x: x.gather(1, torch.tensor([[1], [0], [3]]))),
    "cat_stack": ([GRID, GRID], lambda x, y: torch.cat([x, y * 2]) + torch.stack([x, y]).sum(0).repeat(2)),
    "expand_reshape": ([f64(0.1, 1 + 1e-12)], lambda x: x.reshape(2, 1).expand(2, 3).reshape(6) * 1),
    "to_float32": ([f64(1 + 1e-12, 0.1, 1e300, 16777217)], lambda x: x.float()),
    "to_int64": ([f64(2.9, -2.9, 1e9 + 0.5)], lambda x: x.long()),
    "to_bool": ([f64(0.0, 1e-300, NAN)], lambda x: x.bool()),
    "from_int32": ([torch.tensor([2147483647, -5], dtype=torch.int32)], lambda x: x.double() / 3),
    "from_float32": ([torch.tensor([0.1, 1e30], dtype=torch.float32)], lambda x: x.double()),
    "float32_plus_float64": ([torch.tensor([0.1, 2.5]), f64(1e-12, 0.1)], torch.add),
    "int_plus_float64": ([torch.tensor([3, -4]), f64(1e-12, 0.1)], torch.add),
    "grad_exp_sin": ([SIGNED], lambda x: x.exp() * x.sin()),
    "grad_div_log": ([GRID, SIGNED], lambda x, y: y / x + x.log()),
    "grad_matmul": ([M, N], lambda a, b: (a @ b).tanh()),
    "grad_softmax": ([M], lambda x: torch.softmax(x * 2, 1)),
    "grad_log_softmax": ([M], lambda x: torch.log_softmax(x, 1)),
    "grad_mean_std": ([M], lambda x: x.mean(1) + x.std(1)),
    "grad_max_sum": ([M], lambda x: x.amax(1) + x.sum(1)),
    "grad_sigmoid_pow": ([GRID], lambda x: torch.sigmoid(x).pow(3)),
}

# The float64 kernels of the special functions, the sort family, nll_loss and searchsorted,
# forward and backward. Values apart by 1e-12 (one in float32) test that they order in f64.
GAMMA_IN = f64(0.1, 0.5, 1 + 1e-12, 2.5, 10.5, -0.5, -2.7, 30.2, 1e-5, 100.3)
BESSEL_IN = f64(-40.5, -3.0, -0.5, 0.0, 1e-3, 0.7, 3.75, 12.0, 29.9, 30.1, 75.0)
ERFINV_IN = f64(-0.9999999999, -0.999, -0.5, 1e-10, 0.3, 0.75, 0.9999999, 0.999999999999)
SORT_IN = f64(3.0, 1 + 1e-12, 1.0, NAN, -INF, 1 + 2e-12, 1e-300, -2.5, 1.0, 7.25)
SORTED = f64(-1.0, 1.0, 1 + 1e-12, 1 + 2e-12, 5.0)
POLES = f64(0.0, -1.0, -2.0, -7.0, -30.0, -1e6)
TIES = f64(1.0, 2.0, 1.0, 2.0, 0.5, 1.0, 1.0, NAN, 1.0, 2.0, 1.0, 1.0)
LOGP = torch.log_softmax(M, 1)
TARGET = torch.tensor([1, 0, 3])
IMG = (torch.arange(35, dtype=torch.float64) * 0.7).sin().reshape(1, 1, 5, 7) + 1e-12
# name: (inputs, program, relative tolerance): special functions to 1e-12 of PyTorch's.
CASES_TOL = {
    "lgamma": ([GAMMA_IN], torch.lgamma, 1e-12),
    "digamma": ([GAMMA_IN], torch.digamma, 1e-12),
    "trigamma": ([GAMMA_IN], lambda x: torch.polygamma(1, x.detach()), 1e-12),
    # At the poles: the reflection through the rounded product π·x, huge but finite (+inf at 0).
    "trigamma_poles": ([POLES], lambda x: torch.polygamma(1, x.detach()), 1e-12),
    "erfinv": ([ERFINV_IN], torch.erfinv, 1e-12),
    "i0": ([BESSEL_IN], torch.i0, 1e-12),
    "i0e": ([BESSEL_IN], torch.special.i0e, 1e-12),
    "i1": ([BESSEL_IN], torch.special.i1, 1e-12),
    "i1e": ([BESSEL_IN], torch.special.i1e, 1e-12),
    "sort": ([SORT_IN], lambda x: torch.sort(x, stable=True)[0], 0),
    "sort_indices": ([SORT_IN], lambda x: torch.sort(x, descending=True, stable=True)[1], 0),
    "argsort_2d": ([M.flip(1) - M], lambda x: torch.argsort(x, dim=1, stable=True), 0),
    "topk": ([SORT_IN], lambda x: x.topk(3)[0], 0),
    "kthvalue": ([SORT_IN], lambda x: x.kthvalue(3)[0], 0),
    # Among equal values, the index PyTorch's CPU quickselect leaves at position k.
    "kthvalue_ties": ([TIES], lambda x: x.kthvalue(5)[1], 0),
    "median": ([GAMMA_IN], lambda x: x.median(), 0),
    "quantile": ([GAMMA_IN], lambda x: torch.quantile(x, f64(0.3, 0.5, 0.95)), 4e-15),
    "quantile_scalar": ([GAMMA_IN], lambda x: torch.quantile(x, 0.3), 4e-15),
    "nanquantile_scalar": ([SORT_IN], lambda x: torch.nanquantile(x, 0.7), 4e-15),
    "unique": ([SORT_IN], lambda x: torch.unique(x.detach()), 0),
    "searchsorted": ([SORTED, SORT_IN], lambda s, v: torch.searchsorted(s.detach(), v.detach()), 0),
    "nll_loss": ([LOGP, TARGET, f64(0.5, 1 + 1e-12, 2.0, 0.25)], lambda x, t, w: F.nll_loss(x, t, weight=w.detach()), 4e-15),
    "nll_loss_none": ([LOGP, TARGET], lambda x, t: F.nll_loss(x, t, reduction="none"), 4e-15),
    "cross_entropy": ([M, TARGET], F.cross_entropy, 4e-15),
    # interpolate's antialiased windows and weights in float64 (nn/functional/interpolate.ts).
    "interpolate_aa_bilinear": ([IMG], lambda x: F.interpolate(x, size=[3, 2], mode="bilinear", antialias=True), 1e-13),
    "interpolate_aa_bicubic": ([IMG], lambda x: F.interpolate(x, scale_factor=[1.5, 0.4], mode="bicubic", antialias=True,
                                                              align_corners=True), 1e-13),
}

# torch.optim on float64 parameters: three steps of each optimizer (its options as given, JSON
# for both sides) on `optim_loss`; the parameters after them.
OPTIM_W = f64(1.5, -2.0, 0.3 + 1e-12, 4.0)
OPTIM_C = f64(0.5, 1.0, 2.0, 0.1)
OPTIMS = {
    "SGD": {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01},
    "Adam": {"lr": 0.01, "amsgrad": True, "weight_decay": 0.05},
    "AdamW": {"lr": 0.01, "weight_decay": 0.1},
    "Adamax": {"lr": 0.02},
    "NAdam": {"lr": 0.01},
    "RAdam": {"lr": 0.01, "weight_decay": 0.02},
    "RMSprop": {"lr": 0.01, "centered": True, "momentum": 0.5},
    "Adagrad": {"lr": 0.1, "lr_decay": 0.01},
    "Adadelta": {"lr": 1.0},
    "ASGD": {"lr": 0.01, "t0": 1},
    "Rprop": {"lr": 0.01},
}


def optim_loss(w):
    """The test's loss: Σ c·w² + Σ sin(w)."""
    return (w * w * OPTIM_C).sum() + w.sin().sum()


def optim_cases():
    out = {}
    for name, options in OPTIMS.items():
        w = OPTIM_W.clone().requires_grad_()
        opt = getattr(torch.optim, name)([w], **options)
        for _ in range(3):
            opt.zero_grad()
            optim_loss(w).backward()
            opt.step()
        out[name] = {"options": options, "out": enc(w)}
    return {"w": enc(OPTIM_W), "c": enc(OPTIM_C), "steps": 3, "cases": out}


DTYPES = ["float32", "int32", "int64", "uint8", "bool", "float16", "bfloat16", "float64"]


def promotion():
    """The result dtype of float64 with each dtype: tensor with tensor, with a 0-dim tensor each
    way, and a float64 tensor with Python scalars; a 0-dim float64 with a float32 tensor."""
    out = {}
    d64 = torch.ones(2, dtype=torch.float64)
    z64 = torch.ones((), dtype=torch.float64)
    for name in DTYPES:
        d = getattr(torch, name)
        t = torch.ones(2, dtype=d)
        z = torch.ones((), dtype=d)
        out[f"tensor_{name}"] = str(torch.result_type(d64, t)).removeprefix("torch.")
        out[f"zerodim_{name}"] = str(torch.result_type(d64, z)).removeprefix("torch.")
        out[f"{name}_with_zerodim"] = str(torch.result_type(t, z64)).removeprefix("torch.")
    for s, v in [("int", 2), ("float", 0.5), ("bool", True)]:
        out[f"scalar_{s}"] = str(torch.result_type(d64, v)).removeprefix("torch.")
    out["float32_with_scalar_float"] = str(torch.result_type(torch.ones(2), 0.1)).removeprefix("torch.")
    return out


def enc(t):
    return [v if math.isfinite(v) else str(v) for v in t.detach().reshape(-1).double().tolist()]


def run(inputs, program):
    leaves = [t.clone().requires_grad_(t.is_floating_point()) for t in inputs]
    out = program(*leaves)
    grads = [None] * len(leaves)
    upstream = None
    if out.requires_grad:
        n = out.numel()
        upstream = torch.linspace(0.5, 1.5, n, dtype=torch.float64) if n > 1 else torch.ones(n, dtype=torch.float64)
        out.backward(upstream.reshape(out.shape).to(out.dtype))
        grads = [enc(x.grad) if x.grad is not None else None for x in leaves]
        upstream = enc(upstream)
    return {
        "inputs": [{"data": enc(t), "shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch.")} for t in inputs],
        "out": enc(out),
        "shape": list(out.shape),
        "dtype": str(out.dtype).removeprefix("torch."),
        "grads": grads,
        "upstream": upstream,
    }


def main():
    torch.set_num_threads(1)
    cases = {name: run(*spec) for name, spec in CASES.items()}
    for name, (inputs, program, tol) in CASES_TOL.items():
        cases[name] = {**run(inputs, program), "tol": tol}
    big_n = 10**6
    cases["sum_big"] = {"out": enc(big(big_n).sum().reshape(1)), "n": big_n}
    cases["mean_big"] = {"out": enc(big(big_n).mean().reshape(1)), "n": big_n}
    lines = [f"{json.dumps(name)}: {json.dumps(case)}" for name, case in cases.items()]
    promo = json.dumps(promotion())
    optim = json.dumps(optim_cases())
    OUT.write_text(
        '{\n"promotion": ' + promo + ',\n"optim": ' + optim + ',\n"cases": {\n' + ",\n".join(lines) + "\n}\n}\n"
    )
    x = CASES["roundtrip"][0][0]
    save_file({"x": x, "m": M}, str(OUT.with_suffix(".safetensors")))
    print(f"{len(cases)} cases → {OUT}")


if __name__ == "__main__":
    main()
