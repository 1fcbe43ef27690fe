"""The TS layer's sorting-based ops (topk, kthvalue, median, nanmedian, quantile, nanquantile,
msort, bucketize, histc, and the value-dependent unique/nonzero/masked_select) and its pointwise
composites and reorderings (clamp family, lerp, addcmul/addcdiv, nan_to_num, flip family, roll,
rot90, tril/triu). Inputs for index-returning ops have distinct values: PyTorch leaves the index of
tied medians/k-th values unspecified."""

import numpy as np

from cases import INF, NAN, B, F, I
from fixture import T


def distinct(rng, shape, view=None):
    """A float32 input with pairwise distinct values."""
    n = int(np.prod(shape)) if shape else 1
    vals = (rng.permutation(n * 3)[:n] - n * 1.5) / 4
    return T(vals.tolist(), "float32", shape, view)


def build(fam, rng):
    c = fam.case

    def x(shape, view=None, lo=-3.0, hi=3.0):
        return F(rng, shape, lo, hi, view)

    c("1d", "topk", [distinct(rng, [8])], args={"k": 3})
    c("smallest", "topk", [distinct(rng, [3, 6])], args={"k": 2, "dim": 1, "largest": False})
    c("dim0", "topk", [distinct(rng, [5, 3])], args={"k": 5, "dim": 0})
    c("k0", "topk", [distinct(rng, [4])], args={"k": 0})
    c("transposed", "topk", [distinct(rng, [4, 3], [("t", [])])], args={"k": 2})
    c("k_too_big", "topk", [x([3])], args={"k": 4}, error="TorchError")
    c("1d", "kthvalue", [distinct(rng, [7])], args={"k": 3})
    c("dim0_keepdim", "kthvalue", [distinct(rng, [5, 3])], args={"k": 5, "dim": 0, "keepdim": True})
    c("k_out_of_range", "kthvalue", [x([3])], args={"k": 4}, error="TorchError")
    for op in ("median", "nanmedian"):
        c("all_odd", op, [distinct(rng, [7])])
        c("all_even", op, [distinct(rng, [2, 4])])
        c("dim1", op, [distinct(rng, [3, 5])], args={"dim": 1})
        c("dim0_keepdim", op, [distinct(rng, [4, 3])], args={"dim": 0, "keepdim": True})
        c("nan_all", op, [T([1.0, NAN, 3.0, -2.0, 5.0], shape=[5])])
        c("nan_rows", op, [T([1.0, NAN, 3.0, 0.5, -2.0, 5.0, 4.0, 2.5], shape=[2, 4])], args={"dim": 1})
    for op in ("quantile", "nanquantile"):
        c("scalar_q", op, [x([9])], args={"q": 0.3})
        c("dim1", op, [x([3, 7])], args={"q": 0.75, "dim": 1})
        c("keepdim", op, [x([3, 7])], args={"q": 0.5, "dim": 0, "keepdim": True})
        c("tensor_q", op, [x([2, 6]), T([0.0, 0.25, 0.9, 1.0], shape=[4])], args={"dim": 1})
        for interp in ("lower", "higher", "nearest", "midpoint"):
            c(f"interp_{interp}", op, [x([10])], args={"q": 0.35, "interpolation": interp})
        c("nan", op, [T([1.0, NAN, 3.0, 0.5, -2.0, 5.0, 4.0, 2.5], shape=[2, 4])], args={"q": 0.4, "dim": 1})
        c("q_out_of_range", op, [x([5])], args={"q": 1.5}, error="TorchError")
    c("2d", "msort", [x([4, 3])])
    bounds = T([-1.0, 0.0, 0.5, 2.0], shape=[4])
    c("left", "bucketize", [x([3, 4]), bounds])
    c("right", "bucketize", [T([-1.0, 0.0, 0.25, 2.0, 3.0], shape=[5]), bounds], args={"right": True})
    c("default", "histc", [x([20])], args={"bins": 5})
    c("range", "histc", [x([30])], args={"bins": 4, "min": -1.0, "max": 1.0})
    c("edges", "histc", [T([0.0, 1.0, 2.0, 2.0, -1.0, 3.0], shape=[6])], args={"bins": 4, "min": 0.0, "max": 2.0})
    c("bad_bins", "histc", [x([5])], args={"bins": -1}, error="TorchError")
    c("floats", "unique", [T([2.0, 1.0, 2.0, -3.0, 1.0, 0.5], shape=[2, 3])])
    c("inverse_counts", "unique", [I(rng, [10], lo=0, hi=4)], args={"return_inverse": True, "return_counts": True})
    c("2d", "nonzero", [T([0.0, 1.5, 0.0, -2.0, 3.0, 0.0], shape=[2, 3])])
    c("bool_3d", "nonzero", [B(rng, [2, 2, 3])])
    c("broadcast", "masked_select", [x([2, 3]), B(rng, [3])])

    c("both", "clamp", [x([3, 4])], args={"min": -1.0, "max": 1.5})
    c("min_only", "clamp", [x([5])], args={"min": 0.0})
    c("max_only", "clamp", [x([5])], args={"max": 0.0})
    c("min_gt_max", "clamp", [x([5])], args={"min": 1.0, "max": -1.0})
    c("nan", "clamp", [T([NAN, -INF, INF, 0.5], shape=[4])], args={"min": -1.0, "max": 1.0})
    c("int", "clamp", [I(rng, [6])], args={"min": -2, "max": 3})
    c("tensors", "clamp", [x([2, 3]), x([3]), x([2, 1], lo=1.0, hi=3.0)])
    c("transposed", "clamp", [x([3, 2], [("t", [])])], args={"min": -0.5, "max": 0.5})
    c("basic", "clamp_min", [x([5])], args={"min": 0.2})
    c("basic", "clamp_max", [x([5])], args={"max": 0.2})
    c("scalar_low", "lerp", [x([4]), x([4])], args={"weight": 0.25})
    c("scalar_high", "lerp", [x([4]), x([4])], args={"weight": 0.8})
    c("tensor_weight", "lerp", [x([2, 3]), x([3]), x([2, 3], lo=0.0, hi=1.0)])
    c("basic", "addcmul", [x([2, 3]), x([2, 3]), x([3])], args={"value": 0.5})
    c("default_value", "addcmul", [x([4]), x([4]), x([4])])
    c("basic", "addcdiv", [x([2, 3]), x([2, 3]), x([3], lo=0.5, hi=2.0)], args={"value": -2.0})
    c("default", "nan_to_num", [T([NAN, 0.25, -2.0, 1.5], shape=[4])])
    c("custom", "nan_to_num", [T([NAN, INF, -INF, 1.5], shape=[4])], args={"nan": 1.0, "posinf": 9.0, "neginf": -9.0})
    c("int", "nan_to_num", [I(rng, [4])])
    c("one_dim", "flip", [x([2, 3])], args={"dims": [1]})
    c("two_dims", "flip", [x([2, 3, 4])], args={"dims": [0, -1]})
    c("repeated", "flip", [x([2, 3])], args={"dims": [0, 0]}, error="TorchError")
    c("2d", "fliplr", [x([2, 3])])
    c("2d", "flipud", [x([2, 3])])
    c("flat", "roll", [x([2, 3])], args={"shifts": 2})
    c("dim", "roll", [x([3, 4])], args={"shifts": -1, "dims": 1})
    c("dims", "roll", [x([3, 4])], args={"shifts": [1, 5], "dims": [0, 1]})
    c("misaligned", "roll", [x([3, 4])], args={"shifts": [1, 2], "dims": [0]}, error="TorchError")
    for k in (1, 2, 3, -1):
        c(f"k{k}", "rot90", [x([2, 3])], args={"k": k})
    c("dims", "rot90", [x([2, 3, 4])], args={"k": 1, "dims": [1, 2]})
    c("same_dims", "rot90", [x([2, 3])], args={"dims": [0, 0]}, error="TorchError")
    for op in ("tril", "triu"):
        c("square", op, [x([4, 4])])
        c("wide_diag1", op, [x([3, 5])], args={"diagonal": 1})
        c("batched_neg", op, [x([2, 3, 3])], args={"diagonal": -1})
        c("int", op, [I(rng, [3, 3])])
        c("rank1", op, [x([3])], error="TorchError")
