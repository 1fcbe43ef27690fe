"""Activations (torch.nn.functional in PyTorch; in webtorch also torch.<op>(t) and t.<op>()) at
their default arguments: silu, gelu (approximate='none'), mish, softplus (beta=1, threshold=20),
logsigmoid, softsign, tanhshrink, hardsigmoid, hardswish, selu, elu and celu (alpha=1), relu6.

PyTorch refuses integer inputs for most of them (only softsign and tanhshrink promote to float32,
and relu6 = hardtanh(0, 6) keeps the integer dtype) and bool for all; those refusals are error
cases with PyTorch's messages."""

from cases import INF, NAN, B, I, unary_common
from fixture import T

# Per op: random range; `edges`: kinks and switch points, added to NaN, ±inf, ±0; `wide`: large
# arguments (overflow inside naive formulas: exp(100), softplus's threshold); `tiny`: small
# arguments where exp(x) - 1 instead of expm1 loses the digits (atol 0). Values whose result would
# be a float32 denormal (softplus(-100) = 3.7e-44, silu(-100)) are left out: GPUs flush those.
OPS = {
    "silu": dict(edges=[1.0, -1.0], wide=[-80.0, -30.0, 30.0, 80.0, 3e38]),
    # NOTE: no ±inf for gelu: PyTorch's own float32 gelu(inf) is nan on its vectorized path and
    # inf on its scalar path (rank 0), float64 gives inf; gelu(-inf) = -inf * 0 is nan. For the same
    # reason no 3e38: its float32 x * (1 + erf) / 2 overflows to inf.
    "gelu": dict(edges=[1.0, -1.0], wide=[-12.0, -8.0, 8.0, 30.0, 1e30], inf=False),
    "mish": dict(edges=[1.0, -1.0], wide=[-80.0, -30.0, 20.0, 30.0, 80.0, 3e38]),
    "softplus": dict(edges=[1.0, -1.0], wide=[-80.0, -30.0, 19.99, 20.0, 20.01, 30.0, 100.0, 3e38]),
    "logsigmoid": dict(edges=[1.0, -1.0], wide=[-100.0, -30.0, 20.0, 30.0, 80.0, -3e38]),
    "softsign": dict(edges=[1.0, -1.0], wide=[1e10, -1e10, 3e38, -3e38]),
    "tanhshrink": dict(edges=[1.0, -1.0], wide=[10.0, -10.0, 100.0, -100.0]),
    "hardsigmoid": dict(edges=[3.0, -3.0, 2.99, -2.99, 1.0]),
    "hardswish": dict(edges=[3.0, -3.0, 2.99, -2.99, 1.0]),
    "selu": dict(edges=[1.0, -1.0], wide=[-100.0, -20.0, 100.0, 3e38], tiny=[-1e-6, -1e-3]),
    "elu": dict(edges=[1.0, -1.0], wide=[-100.0, -20.0, 100.0, 3e38], tiny=[-1e-6, -1e-3]),
    "celu": dict(edges=[1.0, -1.0], wide=[-100.0, -20.0, 100.0, 3e38], tiny=[-1e-6, -1e-3]),
    "relu6": dict(r=(-3.0, 9.0), edges=[6.0, 5.99, 6.01, -1.0], wide=[1e30, -1e30]),
}
# relu6 is hardtanh: integers keep their dtype. softsign/tanhshrink promote. The rest refuse.
INT_SAME = {"relu6"}
INT_FLOAT = {"softsign", "tanhshrink"}


def build(fam, rng):
    c = fam.case
    for op, spec in OPS.items():
        lo, hi = spec.get("r", (-5.0, 5.0))
        unary_common(c, rng, op, lo, hi)
        nonfinite = [NAN, INF, -INF] if spec.get("inf", True) else [NAN]
        c("specials", op, [T(nonfinite + [0.0, -0.0] + spec["edges"])])
        if "wide" in spec:
            c("wide", op, [T(spec["wide"])])
        if "tiny" in spec:
            c("tiny", op, [T(spec["tiny"])], tol=(1e-5, 0.0))
        if op in INT_SAME or op in INT_FLOAT:
            c("int32", op, [I(rng, [2, 3])])
            c("int64", op, [I(rng, [4], "int64")])
            c("uint8", op, [I(rng, [4], "uint8", 0, 20)])
        else:
            c("int32", op, [I(rng, [3])], error="DTypeError")
            c("int64", op, [I(rng, [3], "int64")], error="DTypeError")
        c("bool", op, [B(rng, [3])], error="DTypeError")
