"""float16 and bfloat16: casts with rounding edges (ties to even, overflow to inf, subnormals, NaN),
elementwise math and promotion with float32 / integers / scalars, reductions, matmul, softmax,
layer_norm, scans, sorts, where and gathers — each on half inputs, compared with PyTorch's own
half results (fixture.HALF_TOL: about one unit in the last place)."""

import numpy as np

from cases import INF, NAN, B, I
from fixture import T


def H(rng, shape, dtype="float16", lo=-3.0, hi=3.0, view=None):
    """A half input: uniform values rounded to two decimals, then to the type."""
    import torch
    n = int(np.prod(shape)) if shape else 1
    vals = torch.tensor(np.round(rng.uniform(lo, hi, n), 2).tolist()).to(getattr(torch, dtype)).float().tolist()
    return T(vals, dtype, shape, view)


def build(fam, rng):
    c = fam.case
    edges16 = [1.0, 0.1, 1 / 3, 65504.0, 65519.0, 65520.0, -70000.0, 1e-8, 3e-8, 6e-8, 3e-5,
               -2.5e-6, 2049.0, 2051.0, NAN, INF, -INF, -0.0]
    c("f32_to_f16_edges", "to", [T(edges16, shape=[len(edges16)])], args={"dtype": "float16"})
    edgesbf = [1.0, 0.1, 1 / 3, 3.38e38, 3.4e38, 1e-40, -1e-39, 257.0, 259.0, 1.00390625, NAN, INF, -0.0]
    c("f32_to_bf16_edges", "to", [T(edgesbf, shape=[len(edgesbf)])], args={"dtype": "bfloat16"})
    c("int_to_f16", "to", [I(rng, [6], lo=-3000, hi=3000)], args={"dtype": "float16"})
    for dt in ("float16", "bfloat16"):
        def x(shape, view=None, lo=-3.0, hi=3.0):
            return H(rng, shape, dt, lo, hi, view)
        c(f"{dt}_to_f32", "to", [x([5])], args={"dtype": "float32"})
        c(f"{dt}_to_int32", "to", [x([5])], args={"dtype": "int32"})
        for op in ("add", "mul", "sub"):
            c(f"{dt}_same", op, [x([2, 3]), x([2, 3])])
        c(f"{dt}_broadcast", "add", [x([2, 3]), x([3])])
        c(f"{dt}_div", "div", [x([4]), x([4], lo=0.5, hi=3.0)])
        c(f"{dt}_with_f32", "add", [x([3]), T([0.1, 0.2, 0.3], shape=[3])])
        c(f"{dt}_with_int", "mul", [x([3]), I(rng, [3])])
        c(f"{dt}_scalar_float", "mul", [x([4]), {"scalar": 2.5}])
        c(f"{dt}_zero_dim_promotes_int", "add", [I(rng, [4]), x([])])
        for op in ("exp", "sin", "sqrt", "tanh", "relu", "sigmoid"):
            c(f"{dt}", op, [x([6], lo=0.1 if op == "sqrt" else -3.0)])
        c(f"{dt}_gelu", "gelu", [x([6])])
        c(f"{dt}_transposed", "neg", [x([3, 2], [("t", [])])])
        c(f"{dt}_all", "sum", [x([3, 4])])
        c(f"{dt}_dim", "sum", [x([3, 4])], args={"dim": 1})
        c(f"{dt}_long", "sum", [x([300], lo=0.0, hi=1.0)])
        c(f"{dt}_dim", "mean", [x([3, 4])], args={"dim": 0})
        c(f"{dt}_dim", "amax", [x([3, 4])], args={"dim": 1})
        c(f"{dt}_dim", "prod", [x([2, 4], lo=0.5, hi=1.5)], args={"dim": 1})
        c(f"{dt}_2d", "matmul", [x([3, 5]), x([5, 4])])
        c(f"{dt}_row", "softmax", [x([2, 5])], args={"dim": 1})
        c(f"{dt}_affine", "layer_norm", [x([2, 6]), x([6]), x([6])],
          args={"normalized_shape": [6], "weight": True, "bias": True})
        c(f"{dt}_dim1", "cumsum", [x([2, 5])], args={"dim": 1})
        c(f"{dt}_1d", "sort", [x([9])])
        c(f"{dt}_tensors", "where", [B(rng, [4]), x([4]), x([4])])
        c(f"{dt}_dim0", "index_select", [x([4, 2]), T([3, 0, 0], "int64", [3])], args={"dim": 0})
    c("f16_bf16", "add", [H(rng, [3]), H(rng, [3], "bfloat16")])
