"""Gradient data for the parity fixtures: `add_grad(case)` runs a finished case's forward again
with every float32 input's base tensor as a leaf that requires grad, calls `out.backward(upstream)`
and records `case["grad"] = {"out", "inputs", "tol"}` (README: "Gradients"). gen.py applies it to
every case of every family, so a new cases module gets gradients without asking for them.

Expected gradients are the float64 computation (float64 leaves holding the same values, the same
upstream) rounded to float32. PyTorch's own float32 gradients must stay within half the tolerance
of them (GRAD_MARGIN), or the case gets no `grad` and gen.py says so.
"""

import json
import math
import zlib

import numpy as np
import torch

from fixture import _enc_elem, build_input, call, dec
from fixture_conv import CONV_MAX_GRAD_ELEMENTS, CONV_OPS

# Gradient tolerances, |got - want| <= atol + rtol * |want|. 1e-6 where every gradient element is
# the upstream itself, a 0/±1 mask or a small multiple of it, a sum of a few such terms (expand,
# broadcast) or one more rounded product (mul, square); GRAD_DEFAULT (1e-5) for the rest — div,
# sqrt, the transcendentals, sum/mean/matmul (summation order), the reductions and row-wise kernels.
# Nothing looser than 1e-4, and each one looser than GRAD_DEFAULT says why.
GRAD_FINE = (1e-6, 1e-6)
GRAD_DEFAULT = (1e-5, 1e-5)
GRAD_TOL = {
    **{op: GRAD_FINE for op in (
        "add", "sub", "neg", "relu", "abs", "maximum", "minimum", "mul", "square", "positive",
        "ceil", "floor", "round", "trunc", "sign", "frac", "copysign", "relu6", "fmod",
        "remainder", "hardsigmoid", "hardswish",
        "reshape", "view", "expand", "transpose", "permute", "t", "contiguous", "to",
        "amax", "amin", "max", "min",
        # Selections and copies: each gradient element is an upstream element or a sum of a few.
        "where", "masked_fill", "cat", "stack", "index_select", "gather", "narrow", "select",
        "squeeze", "unsqueeze", "flatten", "clone", "flip", "roll", "repeat", "tile")},
    # The backward is exp(x - out) * grad with `out` rounded to float32: for out ≈ 1000 (the `large`
    # case) that rounding alone is 3e-5 relative.
    "logsumexp": (1e-4, 1e-5),
}

# PyTorch's float32 gradient may use at most this share of the tolerance: a gradient PyTorch itself
# barely reaches (trigamma next to a pole, say) is one that another correct implementation misses.
GRAD_MARGIN = 0.5

# A case with more than this many elements over its float32 inputs gets no gradient, nor does one
# named `1d_long`: those exist for the forward kernels' vector tails and tiling (`long_1000`,
# `dot_300`, `mm_17x33x19`, the elementwise `1d_long`, `offset_values`, …), and their gradients
# would cost more of the fixtures' size than all the others.
MAX_GRAD_ELEMENTS = 64
NO_GRAD_NAMES = {"1d_long"}
# Ops webtorch differentiates nowhere (the core refuses with PyTorch's "not implemented" error):
# trigamma's derivative is polygamma(2, ·), which has no op-table row.
NO_DERIVATIVE_OPS = {"trigamma"}

# What PyTorch refused: (exception type, first line of its message) -> case names; gen.py prints it.
REFUSED = {}
# Case name -> the share of its tolerance PyTorch's float32 gradient used (gen.py --grad-margins).
MARGINS = {}

# Outcomes of add_grad other than "grad", counted by gen.py.
SKIPS = ("error", "not float", "no float input", "empty", "too big", "non-finite", "no derivative",
         "no grad", "float32 misses")


def upstream_for(case, shape):
    """The deterministic upstream gradient, seeded from the case name alone: nonzero multiples of
    0.1 in [-1, 1] (short in JSON; a zero would hide the gradient of its element)."""
    rng = np.random.default_rng(zlib.crc32(case["name"].encode()))
    n = math.prod(shape)
    k = rng.integers(1, 11, n) * rng.choice([-1, 1], n)
    return [_enc_elem(v / 10, "float32") for v in k.tolist()]


def _run(case, upstream, f64):
    """Builds the leaves, runs the op and backward; returns (out, [grad or None per input])."""
    parsed = json.loads(json.dumps({"inputs": case["inputs"], "args": case["args"]}))
    leaves, inputs = [], []
    for spec in parsed["inputs"]:
        leaf = []
        inputs.append(build_input(spec, f64, leaf if spec.get("dtype") == "float32" else None))
        leaves.append(leaf[0] if leaf else None)
    out = call(case["op"], inputs, parsed["args"])
    if isinstance(out, tuple):
        out = out[0]  # a tuple result (`max(dim)`): the gradient flows from result 0, the values
    g = torch.tensor(dec(upstream), dtype=out.dtype).reshape(out.shape)
    out.backward(g)
    return out, [None if t is None else t.grad for t in leaves]


def _finite(values):
    return all(not isinstance(v, str) for v in values)


def add_grad(case):
    """Adds `grad` to a finished case when it qualifies; returns "grad" or why not (see SKIPS)."""
    if "error" in case:
        return "error"
    out = case["out"][0] if isinstance(case["out"], list) else case["out"]
    if out["dtype"] != "float32":
        return "not float"
    specs = [s for s in case["inputs"] if s.get("dtype") == "float32"]
    if not specs:
        return "no float input"
    if not out["data"] or any(not s["data"] for s in specs):
        return "empty"
    limit = CONV_MAX_GRAD_ELEMENTS if case["op"] in CONV_OPS else MAX_GRAD_ELEMENTS
    if sum(len(s["data"]) for s in specs) > limit or case["name"].split("/")[-1] in NO_GRAD_NAMES:
        return "too big"
    if not _finite(out["data"]) or not all(_finite(s.get("data", [s.get("scalar")])) for s in case["inputs"]):
        return "non-finite"
    if case["op"] in NO_DERIVATIVE_OPS:
        return "no derivative"
    upstream = upstream_for(case, out["shape"])
    try:
        res32, g32 = _run(case, upstream, f64=False)
        _, g64 = _run(case, upstream, f64=True)
    except Exception as e:  # noqa: BLE001 — PyTorch refusing the backward: no derivative to test
        REFUSED.setdefault((type(e).__name__, str(e).splitlines()[0]), []).append(case["name"])
        return "no derivative"
    assert list(res32.shape) == out["shape"], case["name"]
    if all(g is None for g in g32):
        return "no grad"
    rtol, atol = GRAD_TOL.get(case["op"], GRAD_DEFAULT)
    grads, worst = [], 0.0
    for k, (a, b) in enumerate(zip(g32, g64)):
        if a is None:
            grads.append(None)
            continue
        ref = b.to(torch.float32)
        if not (bool(torch.isfinite(ref).all()) and bool(torch.isfinite(a).all())):
            return "non-finite"
        share = ((a.double() - ref.double()).abs() / (atol + rtol * ref.double().abs())).max().item()
        if share > GRAD_MARGIN:
            print(f"  {case['name']}: no grad: PyTorch's float32 grad of input {k} uses {share:.3g} "
                  f"of its tolerance (rtol {rtol}, atol {atol}) against the float64 reference")
            return "float32 misses"
        worst = max(worst, share)
        grads.append([_enc_elem(v, "float32") for v in ref.reshape(-1).tolist()])
    case["grad"] = {"out": upstream, "inputs": grads, "tol": {"rtol": rtol, "atol": atol}}
    MARGINS[case["name"]] = worst
    return "grad"
