"""Row-wise NN kernels: softmax and log_softmax along any dim (rank 0, non-contiguous inputs,
±inf and NaN rows, large logits, rows past a 256-wide workgroup), layer_norm and rms_norm
(normalized_shape of one or more dims, with and without weight/bias, eps) and their errors."""

from cases import INF, NAN, F, I
from fixture import T


def build(fam, rng):
    c = fam.case

    def x(shape, view=None, lo=-3.0, hi=3.0):
        return F(rng, shape, lo, hi, view)

    special = T([1.0, NAN, 2.0, INF, 1.0, 0.5, -INF, -INF, -INF, -INF, 0.0, 1.0], shape=[4, 3])
    for op in ("softmax", "log_softmax"):
        c("dim1", op, [x([3, 4])], args={"dim": 1})
        c("dim0", op, [x([3, 4])], args={"dim": 0})
        c("dim_neg1_3d", op, [x([2, 3, 4])], args={"dim": -1})
        c("dim1_3d", op, [x([2, 3, 4])], args={"dim": 1})
        c("rank0", op, [x([])], args={"dim": 0})
        c("1d", op, [x([7])], args={"dim": 0})
        c("transposed", op, [x([3, 4], [("t", [])])], args={"dim": 1})
        c("expanded", op, [x([1, 4], [("expand", [3, 4])])], args={"dim": 0})
        c("large_logits", op, [T([1000.0, 999.0, -1000.0, 50.0, 51.0, 52.0], shape=[2, 3])], args={"dim": 1})
        c("nonfinite", op, [special], args={"dim": 1})
        c("long_1000", op, [x([2, 1000])], args={"dim": 1})
        c("size0", op, [x([0, 3])], args={"dim": 1})
        c("dim_out_of_range", op, [x([2, 3])], args={"dim": 2}, error="IndexError")
        c("int", op, [I(rng, [3], "int64")], args={"dim": 0}, error="DTypeError")
    ln = "layer_norm"
    c("last", ln, [x([3, 4])], args={"normalized_shape": [4]})
    c("two_dims", ln, [x([2, 3, 4])], args={"normalized_shape": [3, 4]})
    c("weight_bias", ln, [x([3, 5]), x([5]), x([5])],
      args={"normalized_shape": [5], "weight": True, "bias": True})
    c("weight_only", ln, [x([3, 5]), x([5])], args={"normalized_shape": [5], "weight": True})
    c("bias_only", ln, [x([3, 5]), x([5])], args={"normalized_shape": [5], "bias": True})
    c("eps", ln, [x([2, 4])], args={"normalized_shape": [4], "eps": 0.1})
    c("constant_rows", ln, [T([2.0] * 8, shape=[2, 4])], args={"normalized_shape": [4]})
    c("transposed", ln, [x([4, 3], [("t", [])])], args={"normalized_shape": [4]})
    # float32 holds x - mean to ~1e-5 absolute here (|x| ~ 100, std ~ 0.3): PyTorch's own error.
    c("offset_values", ln, [x([2, 64], lo=100.0, hi=101.0)], args={"normalized_shape": [64]},
      tol=(1e-3, 1e-3))
    c("long_1000", ln, [x([2, 1000])], args={"normalized_shape": [1000]})
    c("1d", ln, [x([6])], args={"normalized_shape": [6]})
    c("size0", ln, [x([0, 4])], args={"normalized_shape": [4]})
    c("shape_mismatch", ln, [x([2, 4])], args={"normalized_shape": [3]}, error="ShapeError")
    c("too_many_dims", ln, [x([2, 4])], args={"normalized_shape": [5, 2, 4]}, error="ShapeError")
    c("weight_mismatch", ln, [x([2, 4]), x([3])], args={"normalized_shape": [4], "weight": True},
      error="ShapeError")
    c("bias_mismatch", ln, [x([2, 4]), x([3])], args={"normalized_shape": [4], "bias": True},
      error="ShapeError")
    c("empty_normalized", ln, [x([2, 4])], args={"normalized_shape": []}, error="ShapeError")
    c("int", ln, [I(rng, [2, 3], "int64")], args={"normalized_shape": [3]}, error="DTypeError")
    rn = "rms_norm"
    c("last", rn, [x([3, 4])], args={"normalized_shape": [4]})
    c("two_dims", rn, [x([2, 3, 4])], args={"normalized_shape": [3, 4]})
    c("weight", rn, [x([3, 5]), x([5])], args={"normalized_shape": [5], "weight": True})
    c("eps", rn, [x([2, 4])], args={"normalized_shape": [4], "eps": 0.5})
    c("zeros", rn, [T([0.0] * 4, shape=[1, 4])], args={"normalized_shape": [4]})
    c("transposed", rn, [x([4, 3], [("t", [])])], args={"normalized_shape": [4]})
    c("long_1000", rn, [x([2, 1000])], args={"normalized_shape": [1000]})
    c("shape_mismatch", rn, [x([2, 4])], args={"normalized_shape": [3]}, error="ShapeError")
    c("weight_mismatch", rn, [x([2, 4]), x([3])], args={"normalized_shape": [4], "weight": True},
      error="ShapeError")
    c("int", rn, [I(rng, [2, 3], "int64")], args={"normalized_shape": [3]}, error="DTypeError")
