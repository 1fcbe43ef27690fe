"""The remaining ops of the seeds' lists: NumPy-style aliases (absolute … fix), resize_ (shrinking
or keeping the size of a contiguous tensor: PyTorch leaves grown elements uninitialized),
quantize_per_tensor (int_repr) and dequantize for quint8/qint8/qint32, with rounding ties and
clamping."""

from cases import F
from fixture import T


def build(fam, rng):
    c = fam.case

    def x(shape, view=None, lo=-3.0, hi=3.0):
        return F(rng, shape, lo, hi, view)

    for op in ("absolute", "arccos", "arcsin", "arctan", "negative", "fix"):
        c("basic", op, [x([2, 3], lo=-0.99, hi=0.99)])
        c("transposed", op, [x([3, 2], [("t", [])], lo=-0.99, hi=0.99)])
    c("basic", "arccosh", [x([4], lo=1.0, hi=5.0)])
    c("basic", "arcsinh", [x([4])])
    for op in ("arctan2", "divide", "multiply", "subtract"):
        c("broadcast", op, [x([2, 3]), x([3], lo=0.5, hi=2.0)])
    c("alpha", "subtract", [x([3]), x([3])], args={"alpha": 2})
    c("inplace", "subtract", [x([2, 2]), x([2])], args={"inplace": True})
    c("inplace", "negative", [x([4])], args={"inplace": True})

    r = "resize_"
    c("shrink", r, [x([2, 3])], args={"sizes": [5]})
    c("same_numel", r, [x([2, 3])], args={"sizes": [3, 2]})
    c("to_rank0", r, [x([4])], args={"sizes": []})
    c("to_empty", r, [x([4])], args={"sizes": [0, 2]})
    c("negative", r, [x([4])], args={"sizes": [-1]}, error="TorchError")

    q = "quantize_per_tensor"
    ties = T([0.25, 0.75, -0.25, -0.75, 1.25, 0.0, 100.0, -100.0, 0.3, -0.31], shape=[10])
    for dt, zp in (("quint8", 10), ("qint8", -3), ("qint32", 7)):
        c(f"ties_{dt}", q, [ties], args={"scale": 0.5, "zero_point": zp, "qdtype": dt})
        c(f"random_{dt}", q, [x([3, 4])], args={"scale": 0.05, "zero_point": zp, "qdtype": dt})
        c(f"{dt}", "dequantize", [x([2, 5])], args={"scale": 0.1, "zero_point": zp, "qdtype": dt})
    c("transposed", q, [x([3, 2], [("t", [])])], args={"scale": 0.02, "zero_point": 0, "qdtype": "qint8"})

    # seed 003's remaining rows: the webtorch function each maps to, against PyTorch.
    c("offset", "as_strided", [x([12])], args={"size": [3, 2], "stride": [2, 3], "storage_offset": 1})
    c("overlapping", "as_strided", [x([6])], args={"size": [4, 3], "stride": [1, 1]})
    c("broadcast_cast", "copy_", [x([2, 3]), T([1, -2, 3], "int64", [3])])
    c("transposed_src", "copy_", [x([2, 3]), x([3, 2], [("t", [])])])
    c("transposed", "clone", [x([3, 4], [("t", [])])])
    c("rank0", "clone", [x([])])
    c("step", "slice", [x([4, 7])], args={"dim": 1, "start": 1, "end": 6, "step": 2})
    c("negative", "slice", [x([5, 3])], args={"dim": -2, "start": -4, "end": -1})
    c("past_end", "slice", [x([5])], args={"dim": 0, "start": 3, "end": 100})
    sd = "scaled_dot_product_attention"
    c("basic", sd, [x([2, 3, 4]), x([2, 5, 4]), x([2, 5, 2])])
    c("causal", sd, [x([1, 2, 4, 3]), x([1, 2, 4, 3]), x([1, 2, 4, 3])], args={"is_causal": True})
    c("bool_mask", sd, [x([2, 3, 4]), x([2, 5, 4]), x([2, 5, 2]),
                        T([1, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0, 0, 1, 1, 1], "bool", [3, 5])])
    c("float_mask_scale", sd, [x([3, 4]), x([5, 4]), x([5, 2]), x([3, 5])], args={"scale": 0.3})
    gn = "group_norm"
    c("affine", gn, [x([2, 6, 3]), x([6]), x([6])], args={"num_groups": 3})
    c("plain_4d", gn, [x([1, 4, 2, 2])], args={"num_groups": 2})
    c("one_group", gn, [x([3, 2, 5])], args={"num_groups": 1, "eps": 0.01})
    c("rows", "embedding", [T([0, 3, 1, 3], "int64", [2, 2]), x([4, 3])])
    c("flat", "embedding", [T([2, 2, 0], "int64", [3]), x([3, 5])])
