"""Reductions sum and mean: all dims, one dim, dim lists, negative dims, keepdim, integer inputs
(sum -> int64; mean errors), rank 0, size 0 (sum = 0, mean = nan), non-contiguous inputs, NaN/±inf,
and lengths that cross a 256-wide workgroup."""

from cases import INF, NAN, B, F, I
from fixture import T


def build(fam, rng):
    c = fam.case
    for op in ("sum", "mean"):
        def x(shape, view=None):
            return F(rng, shape, view=view)

        c("all_1d", op, [x([5])])
        c("all_2d", op, [x([2, 3])])
        c("dim0", op, [x([2, 3])], args={"dim": 0})
        c("dim1", op, [x([2, 3])], args={"dim": 1})
        c("dim_neg1", op, [x([2, 3])], args={"dim": -1})
        c("dim_neg2_keepdim", op, [x([2, 3])], args={"dim": -2, "keepdim": True})
        c("dim1_keepdim", op, [x([2, 3, 4])], args={"dim": 1, "keepdim": True})
        c("keepdim_false", op, [x([2, 3])], args={"dim": 1, "keepdim": False})
        c("dims_list_one", op, [x([2, 3])], args={"dims": [1]})
        c("dims_all", op, [x([2, 3])], args={"dims": [0, 1]})
        c("dims_0_2", op, [x([2, 3, 4])], args={"dims": [0, 2]})
        c("dims_neg_unsorted", op, [x([2, 3, 4])], args={"dims": [-1, 0]})
        c("dims_keepdim", op, [x([2, 3, 4])], args={"dims": [0, 2], "keepdim": True})
        c("dims_all_keepdim", op, [x([2, 3])], args={"dims": [0, 1], "keepdim": True})
        c("dim_size1", op, [x([3, 1])], args={"dim": 1})
        c("rank0", op, [x([])])
        c("rank0_dim0", op, [x([])], args={"dim": 0})
        c("rank0_dim_neg1_keepdim", op, [x([])], args={"dim": -1, "keepdim": True})
        c("size0", op, [x([0])])
        c("size0_2d", op, [x([2, 0])])
        c("size0_reduced_dim", op, [x([2, 0])], args={"dim": 1})
        c("size0_kept_dim", op, [x([2, 0])], args={"dim": 0})
        c("size0_keepdim", op, [x([0, 3])], args={"dim": 0, "keepdim": True})
        c("transposed_dim0", op, [x([3, 2], [("t", [])])], args={"dim": 0})
        c("transposed_all", op, [x([3, 2], [("t", [])])])
        c("permuted_dims", op, [x([2, 3, 4], [("permute", [1, 2, 0])])], args={"dims": [0, 2]})
        c("expanded", op, [x([3, 1], [("expand", [3, 4])])], args={"dim": 1})
        c("expanded_all", op, [x([1, 4], [("expand", [5, 4])])])
        c("nonfinite", op, [T([1.0, NAN, INF, -INF, 2.0, INF, 0.5, 0.5, 3.0], shape=[3, 3])],
          args={"dim": 1})
        c("inf_minus_inf", op, [T([INF, -INF])])
        c("long_257", op, [x([257])])
        c("long_1000", op, [x([1000])])
        c("rows_3x300", op, [x([3, 300])], args={"dim": 1})
        c("cols_300x3", op, [x([300, 3])], args={"dim": 0})
        c("dim_out_of_range", op, [x([2, 3])], args={"dim": 2}, error="IndexError")
        c("dim_out_of_range_neg", op, [x([2, 3])], args={"dim": -3}, error="IndexError")
        c("rank0_dim1", op, [x([])], args={"dim": 1}, error="IndexError")
        c("dims_repeated", op, [x([2, 3])], args={"dims": [0, 0]}, error="TorchError")
        c("dims_repeated_neg", op, [x([2, 3])], args={"dims": [1, -1]}, error="TorchError")
    # Integer inputs: sum accumulates in int64; mean has no integer result and errors.
    c("int32", "sum", [I(rng, [2, 3])])
    c("int32_dim", "sum", [I(rng, [2, 3])], args={"dim": 1})
    c("int64", "sum", [I(rng, [4, 2], "int64")], args={"dim": 0, "keepdim": True})
    c("int64_long", "sum", [I(rng, [1000], "int64", -1000, 1000)])
    c("uint8", "sum", [I(rng, [3, 100], "uint8", 0, 255)], args={"dim": 1})
    c("bool", "sum", [B(rng, [2, 5])])
    c("bool_dim", "sum", [B(rng, [2, 5])], args={"dim": 1})
    c("int_size0", "sum", [I(rng, [0])])
    c("int_noncontiguous", "sum", [I(rng, [3, 2], view=[("t", [])])], args={"dim": 1})
    c("int32", "mean", [I(rng, [2, 3])], error="DTypeError")
    c("int64_dim", "mean", [I(rng, [2, 3], "int64")], args={"dim": 1}, error="DTypeError")
    c("bool", "mean", [B(rng, [3])], error="DTypeError")
