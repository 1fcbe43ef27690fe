"""Reductions beyond sum/mean: prod, amax/amin, max/min (all, and with dim: values + indices),
argmax/argmin (first occurrence, NaN wins), all/any, count_nonzero, var/std (correction),
logsumexp, norm (p = 2, 1, inf, -inf, 0, 3). Dim lists, keepdim, negative dims, integer and bool
inputs, rank 0, size 0 and PyTorch's errors for reductions without an identity, non-contiguous
inputs, NaN/±inf, and rows longer than a 256-wide workgroup."""

from cases import INF, NAN, B, F, I
from fixture import T


def build(fam, rng):
    c = fam.case

    def x(shape, view=None, lo=-3.0, hi=3.0):
        return F(rng, shape, lo, hi, view)

    special = T([1.0, NAN, INF, -INF, 2.0, INF, 0.5, -1.0, 3.0, -INF, -2.0, 0.0], shape=[4, 3])
    ties = T([1, 3, 3, 2, 0, 0, -1, 5, 5], "int32", [3, 3])
    # Shape cases every dim-list reduction gets.
    for op in ("prod", "amax", "amin", "all", "any", "logsumexp", "count_nonzero"):
        keep = op != "count_nonzero"
        kd = {"keepdim": True} if keep else {}
        lo = 0.5 if op == "prod" else -3.0
        hi = 1.5 if op == "prod" else 3.0
        if op not in ("logsumexp",) and op != "prod":
            c("all_2d", op, [x([2, 3], lo=lo, hi=hi)])
        c("dim1", op, [x([2, 3], lo=lo, hi=hi)], args={"dim": 1})
        c("dim_neg2_keepdim" if keep else "dim_neg2", op, [x([2, 3], lo=lo, hi=hi)], args={"dim": -2, **kd})
        c("rank0", op, [x([], lo=lo, hi=hi)], args={"dim": 0})
        c("transposed", op, [x([3, 4], [("t", [])], lo=lo, hi=hi)], args={"dim": 0})
        c("long_1000", op, [x([2, 1000], lo=0.99 if op == "prod" else lo, hi=1.01 if op == "prod" else hi)],
          args={"dim": 1})
        c("nonfinite", op, [special], args={"dim": 1})
        c("dim_out_of_range", op, [x([2, 3])], args={"dim": 2}, error="IndexError")
        if op not in ("prod",):
            c("dims_0_2", op, [x([2, 3, 4], lo=lo, hi=hi)], args={"dims": [0, 2], **kd})
            c("dims_repeated", op, [x([2, 3])], args={"dims": [1, -1]}, error="TorchError")
        if op not in ("logsumexp",):
            c("int32", op, [I(rng, [3, 4], lo=-3, hi=4)], args={"dim": 1})
            c("bool", op, [B(rng, [3, 4])], args={"dim": 0})
            c("uint8", op, [I(rng, [2, 5], "uint8", 0, 4)], args={"dim": 1})
    # Values with an identity over empty dims; without one, PyTorch's errors.
    c("size0", "prod", [x([0])])
    c("size0_dim", "prod", [x([2, 0])], args={"dim": 1})
    c("all_dims_int64", "prod", [I(rng, [2, 3], "int64", -3, 4)])
    c("size0_dim", "all", [x([2, 0])], args={"dim": 1})
    c("size0_dim", "any", [x([2, 0])], args={"dim": 1})
    c("size0_dim", "logsumexp", [x([2, 0])], args={"dim": 1})
    c("size0", "count_nonzero", [x([0, 3])])
    c("int32", "logsumexp", [I(rng, [3, 4])], args={"dim": 1})
    c("all_inf", "logsumexp", [T([INF, INF, -INF, -INF, 1.0, INF], shape=[3, 2])], args={"dim": 1})
    c("large", "logsumexp", [T([1000.0, 1000.0, -1000.0, 0.0], shape=[2, 2])], args={"dim": 1})
    for op in ("amax", "amin"):
        c("size0_all", op, [x([0])], error="TorchError")
        c("size0_dim", op, [x([2, 0])], args={"dim": 1}, error="IndexError")
        c("size0_kept", op, [x([2, 0])], args={"dim": 0})
        c("ties_int", op, [ties], args={"dim": 1})
    # max/min: all elements, or (values, indices) along a dim.
    for op in ("max", "min"):
        c("all", op, [x([3, 4])])
        c("all_int", op, [I(rng, [5])])
        c("all_bool", op, [B(rng, [5])])
        c("all_nan", op, [T([1.0, NAN, 3.0])])
        c("all_size0", op, [x([0])], error="TorchError")
        c("dim1", op, [x([3, 4])], args={"dim": 1})
        c("dim0_keepdim", op, [x([3, 4])], args={"dim": 0, "keepdim": True})
        c("dim_neg1", op, [x([2, 3, 4])], args={"dim": -1})
        c("ties", op, [ties], args={"dim": 1})
        c("nonfinite", op, [special], args={"dim": 1})
        c("transposed", op, [x([3, 4], [("t", [])])], args={"dim": 1})
        c("long_1000", op, [x([2, 1000])], args={"dim": 1})
        c("rank0", op, [x([])], args={"dim": 0})
        c("size0_dim", op, [x([2, 0])], args={"dim": 1}, error="IndexError")
        c("size0_kept", op, [x([2, 0])], args={"dim": 0})
        c("dim_out_of_range", op, [x([2, 3])], args={"dim": -3}, error="IndexError")
    for op in ("argmax", "argmin"):
        c("all", op, [x([3, 4])])
        c("all_keepdim", op, [x([3, 4])], args={"keepdim": True})
        c("dim1", op, [x([3, 4])], args={"dim": 1})
        c("dim0_keepdim", op, [x([3, 4])], args={"dim": 0, "keepdim": True})
        c("ties", op, [ties], args={"dim": 1})
        c("ties_all", op, [ties])
        c("nan_first", op, [T([1.0, NAN, 3.0, NAN, -INF, INF])])
        c("nonfinite", op, [special], args={"dim": 1})
        c("transposed_all", op, [x([3, 4], [("t", [])])])
        c("long_1000", op, [x([1000])])
        c("uint8", op, [I(rng, [3, 4], "uint8", 0, 5)], args={"dim": 0})
        c("rank0", op, [x([])])
        c("bool", op, [B(rng, [4])], error="DTypeError")
        c("size0", op, [x([0])], error="IndexError")
        c("size0_dim", op, [x([2, 0])], args={"dim": 1}, error="IndexError")
    # var / std.
    for op in ("var", "std"):
        c("all", op, [x([3, 4])])
        c("dim1", op, [x([3, 4])], args={"dim": 1})
        c("dims_keepdim", op, [x([2, 3, 4])], args={"dims": [0, 2], "keepdim": True})
        c("correction0", op, [x([3, 4])], args={"dim": 0, "correction": 0})
        c("correction2", op, [x([3, 5])], args={"dim": 1, "correction": 2})
        c("correction_past_n", op, [x([2, 2])], args={"dim": 1, "correction": 3})
        c("single", op, [x([3, 1])], args={"dim": 1})
        c("offset_values", op, [x([4, 50], lo=1000.0, hi=1001.0)], args={"dim": 1})
        c("long_1000", op, [x([1000])])
        c("nonfinite", op, [special], args={"dim": 1})
        c("transposed", op, [x([3, 4], [("t", [])])], args={"dim": 0})
        c("size0", op, [x([0])])
        c("int", op, [I(rng, [3])], error="DTypeError")
    # norms.
    for p in (2, 1, "inf", "-inf", 0, 3, 0.5):
        name = {"inf": "inf", "-inf": "neginf"}.get(p, str(p).replace(".", "_"))
        pv = {"inf": INF, "-inf": -INF}.get(p, p)
        c(f"p{name}_all", "norm", [x([3, 4])], args={"p": pv})
        c(f"p{name}_dim1", "norm", [x([3, 4])], args={"p": pv, "dim": 1})
        c(f"p{name}_nonfinite", "norm", [special], args={"p": pv, "dim": 1})
    c("default", "norm", [x([5])])
    c("dims_keepdim", "norm", [x([2, 3, 4])], args={"dims": [0, 2], "keepdim": True})
    c("transposed", "norm", [x([3, 4], [("t", [])])], args={"dim": 0})
    c("long_1000", "norm", [x([1000])])
    c("size0", "norm", [x([0])])
    c("size0_inf", "norm", [x([0])], args={"p": INF}, error="TorchError")
    c("size0_dim_inf", "norm", [x([2, 0])], args={"p": INF, "dim": 1}, error="TorchError")
    c("int", "norm", [I(rng, [3], "int64")], error="DTypeError")
