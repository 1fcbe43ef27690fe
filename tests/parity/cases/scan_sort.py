"""Scans (cumsum, cumprod, logcumsumexp, cummax, cummin), stable sorts (sort, argsort) and
searchsorted: every dim incl. negative ones, rank 0, size 0, non-contiguous inputs, integer and
bool inputs (cumsum/cumprod widen to int64), NaN/±inf, ties, and rows past one 256-wide chunk."""

from cases import INF, NAN, B, F, I
from fixture import T


def build(fam, rng):
    c = fam.case

    def x(shape, view=None, lo=-3.0, hi=3.0):
        return F(rng, shape, lo, hi, view)

    for op in ("cumsum", "cumprod", "logcumsumexp"):
        lo, hi = (0.5, 1.5) if op == "cumprod" else (-3.0, 3.0)
        c("1d", op, [x([7], lo=lo, hi=hi)], args={"dim": 0})
        c("dim0", op, [x([3, 4], lo=lo, hi=hi)], args={"dim": 0})
        c("dim1", op, [x([3, 4], lo=lo, hi=hi)], args={"dim": 1})
        c("dim_neg", op, [x([2, 3, 4], lo=lo, hi=hi)], args={"dim": -2})
        c("rank0", op, [x([], lo=lo, hi=hi)], args={"dim": 0})
        c("size0", op, [x([2, 0], lo=lo, hi=hi)], args={"dim": 1})
        c("transposed", op, [x([3, 4], [("t", [])], lo=lo, hi=hi)], args={"dim": 1})
        c("expanded", op, [x([1, 4], [("expand", [3, 4])], lo=lo, hi=hi)], args={"dim": 0})
        c("long_600", op, [x([2, 600], lo=0.99 if op == "cumprod" else lo, hi=1.01 if op == "cumprod" else hi)],
          args={"dim": 1})
        c("nonfinite", op, [T([1.0, NAN, 2.0, INF, -INF, 3.0, 0.5, -INF], shape=[2, 4])], args={"dim": 1})
        c("dim_out_of_range", op, [x([2, 3])], args={"dim": 2}, error="IndexError")
    c("with_zeros", "cumprod", [T([2.0, 0.0, 3.0, -1.5, 0.0, 4.0], shape=[6])], args={"dim": 0})
    c("int32", "cumsum", [I(rng, [3, 5])], args={"dim": 1})
    c("int64", "cumsum", [I(rng, [4, 3], "int64")], args={"dim": 0})
    c("uint8", "cumsum", [I(rng, [10], "uint8", 0, 255)], args={"dim": 0})
    c("bool", "cumsum", [B(rng, [2, 6])], args={"dim": 1})
    c("int32_to_float", "cumsum", [I(rng, [5])], args={"dim": 0, "out_dtype": "float32"})
    c("float_to_int", "cumsum", [x([5])], args={"dim": 0, "out_dtype": "int32"})
    c("int32", "cumprod", [I(rng, [2, 5], lo=-3, hi=4)], args={"dim": 1})
    c("int32", "logcumsumexp", [I(rng, [5])], args={"dim": 0}, error="TorchError")
    c("large", "logcumsumexp", [T([1000.0, 1000.5, -1000.0, 999.0], shape=[4])], args={"dim": 0})

    for op in ("cummax", "cummin"):
        c("1d", op, [x([9])], args={"dim": 0})
        c("dim0", op, [x([3, 4])], args={"dim": 0})
        c("dim_neg", op, [x([2, 3, 4])], args={"dim": -1})
        c("rank0", op, [x([])], args={"dim": 0})
        c("size0", op, [x([0, 3])], args={"dim": 0})
        c("transposed", op, [x([3, 4], [("t", [])])], args={"dim": 1})
        c("ties", op, [T([1.0, 3.0, 3.0, 1.0, 3.0, 0.0, 0.0], shape=[7])], args={"dim": 0})
        c("nan", op, [T([1.0, NAN, 5.0, NAN, -2.0, INF, -INF, 2.0], shape=[8])], args={"dim": 0})
        c("long_600", op, [x([600])], args={"dim": 0})
        c("int32", op, [I(rng, [3, 6])], args={"dim": 1})
        c("uint8", op, [I(rng, [8], "uint8", 0, 255)], args={"dim": 0})
        c("bool", op, [B(rng, [8])], args={"dim": 0})

    for op in ("sort", "argsort"):
        c("1d", op, [x([9])])
        c("dim0", op, [x([4, 3])], args={"dim": 0})
        c("desc", op, [x([3, 5])], args={"dim": 1, "descending": True})
        c("dim_neg", op, [x([2, 3, 4])], args={"dim": -2})
        c("rank0", op, [x([])], args={"dim": 0})
        c("size0", op, [x([2, 0])])
        c("transposed", op, [x([3, 4], [("t", [])])], args={"dim": 1})
        c("expanded", op, [x([1, 5], [("expand", [3, 5])])], args={"dim": 1, "descending": True})
        c("ties", op, [T([2.0, 1.0, 2.0, 1.0, 0.0, 2.0, 1.0], shape=[7])])
        c("ties_desc", op, [T([2.0, 1.0, 2.0, 1.0, 0.0, 2.0, 1.0], shape=[7])], args={"descending": True})
        c("nonfinite", op, [T([1.0, NAN, -INF, 2.0, INF, NAN, 0.0, -1.0], shape=[8])])
        c("nonfinite_desc", op, [T([1.0, NAN, -INF, 2.0, INF, NAN, 0.0, -1.0], shape=[8])],
          args={"descending": True})
        c("neg_zero", op, [T([0.0, -0.0, 1.0, -0.0], shape=[4])])
        c("long_1000", op, [x([2, 1000])])
        c("pow2_512", op, [x([512])])
        c("int32", op, [I(rng, [3, 7])], args={"dim": 1})
        c("int64_desc", op, [I(rng, [9], "int64")], args={"descending": True})
        c("uint8", op, [I(rng, [9], "uint8", 0, 255)])
        c("bool", op, [B(rng, [9])])
        c("dim_out_of_range", op, [x([2, 3])], args={"dim": 2}, error="IndexError")

    s = "searchsorted"
    sorted_1d = T([-2.0, -1.0, 0.0, 0.0, 1.5, 3.0], shape=[6])
    c("1d", s, [sorted_1d, x([10])])
    c("1d_right", s, [sorted_1d, T([-2.0, 0.0, 0.0, 3.0, 4.0, -5.0, 1.5], shape=[7])], args={"right": True})
    c("1d_left_ties", s, [sorted_1d, T([-2.0, 0.0, 0.0, 3.0, 4.0, -5.0, 1.5], shape=[7])])
    c("values_2d", s, [sorted_1d, x([3, 4])])
    c("batched", s, [T([0.0, 1.0, 2.0, -1.0, 5.0, 6.0], shape=[2, 3]), x([2, 4])])
    c("nan", s, [T([0.0, 1.0, NAN], shape=[3]), T([NAN, 0.5, INF, -INF], shape=[4])])
    c("nan_right", s, [T([0.0, 1.0, NAN], shape=[3]), T([NAN, 0.5, INF, -INF], shape=[4])], args={"right": True})
    c("int32", s, [T([1, 3, 5, 7], "int32", [4]), I(rng, [6])])
    c("int_values_float_seq", s, [sorted_1d, I(rng, [5])])
    c("out_int32", s, [sorted_1d, x([4])], args={"out_int32": True})
    c("empty_values", s, [sorted_1d, x([0])])
    c("empty_seq", s, [T([], shape=[0]), x([3])])
    c("mismatch", s, [T([0.0, 1.0, 2.0, 3.0], shape=[2, 2]), x([3, 2])], error="TorchError")
