"""matmul in all of PyTorch's rank combinations: dot, mm, vector-matrix, matrix-vector, batched,
broadcast batch dims; non-contiguous operands, size 0, integer dtypes, NaN/±inf; shape errors."""

from cases import INF, NAN, F, I
from fixture import T


def build(fam, rng):
    c = fam.case

    def x(shape, view=None):
        return F(rng, shape, view=view)

    c("dot", "matmul", [x([3]), x([3])])
    c("mm", "matmul", [x([2, 3]), x([3, 4])])
    c("mm_square", "matmul", [x([4, 4]), x([4, 4])])
    c("mm_inner1", "matmul", [x([3, 1]), x([1, 2])])
    c("vec_mat", "matmul", [x([3]), x([3, 4])])
    c("mat_vec", "matmul", [x([2, 3]), x([3])])
    c("bmm", "matmul", [x([2, 2, 3]), x([2, 3, 4])])
    c("broadcast_batch", "matmul", [x([2, 1, 3, 4]), x([5, 4, 2])])
    c("batch_mat", "matmul", [x([2, 3, 4]), x([4, 5])])
    c("mat_batch", "matmul", [x([3, 4]), x([2, 4, 5])])
    c("vec_batch", "matmul", [x([3]), x([2, 3, 4])])
    c("batch_vec", "matmul", [x([2, 3, 4]), x([4])])
    c("batch1_broadcast", "matmul", [x([1, 2, 3]), x([4, 3, 2])])
    c("4d", "matmul", [x([2, 2, 2, 3]), x([2, 2, 3, 2])])
    # Sizes that are not multiples of common tile widths (8, 16, 32).
    c("mm_17x33x19", "matmul", [x([17, 33]), x([33, 19])])
    c("dot_300", "matmul", [x([300]), x([300])])
    # Non-contiguous operands.
    c("lhs_transposed", "matmul", [x([3, 2], [("t", [])]), x([3, 4])])
    c("rhs_transposed", "matmul", [x([2, 3]), x([4, 3], [("t", [])])])
    c("both_transposed", "matmul", [x([3, 2], [("t", [])]), x([4, 3], [("t", [])])])
    c("batch_permuted", "matmul", [x([3, 2, 4], [("permute", [1, 0, 2])]), x([2, 4, 2])])
    c("batch_transposed_last", "matmul",
      [x([2, 3, 4]), x([2, 5, 4], [("transpose", [1, 2])])])
    c("expanded_batch", "matmul", [x([1, 2, 3], [("expand", [4, 2, 3])]), x([4, 3, 2])])
    c("expanded_rows", "matmul", [x([1, 3], [("expand", [2, 3])]), x([3, 2])])
    c("vec_transposed_mat", "matmul", [x([3]), x([4, 3], [("t", [])])])
    # Size 0: an empty inner dimension gives zeros.
    c("inner0", "matmul", [x([2, 0]), x([0, 3])])
    c("rows0", "matmul", [x([0, 3]), x([3, 2])])
    c("cols0", "matmul", [x([2, 3]), x([3, 0])])
    c("dot0", "matmul", [x([0]), x([0])])
    c("batch0", "matmul", [x([0, 2, 3]), x([3, 2])])
    c("nonfinite", "matmul", [T([1.0, INF, 0.0, 2.0, NAN, 1.0], shape=[2, 3]),
                              T([0.0, 1.0, 1.0, 1.0, 2.0, -INF], shape=[3, 2])])
    c("int64", "matmul", [I(rng, [2, 3], "int64"), I(rng, [3, 2], "int64")])
    c("int32", "matmul", [I(rng, [2, 3]), I(rng, [3, 4])])
    c("int32_dot", "matmul", [I(rng, [5]), I(rng, [5])])
    c("int64_batched", "matmul", [I(rng, [2, 2, 3], "int64"), I(rng, [3, 2], "int64")])
    # Errors, with PyTorch's wording.
    c("mm_mismatch", "matmul", [x([2, 3]), x([4, 5])], error="ShapeError")
    c("dot_mismatch", "matmul", [x([3]), x([4])], error="ShapeError")
    c("vec_mat_mismatch", "matmul", [x([3]), x([4, 5])], error="ShapeError")
    c("mat_vec_mismatch", "matmul", [x([2, 3]), x([4])], error="ShapeError")
    c("bmm_mismatch", "matmul", [x([2, 2, 3]), x([2, 4, 5])], error="ShapeError")
    c("batch_broadcast_mismatch", "matmul", [x([2, 2, 3]), x([3, 3, 5])], error="ShapeError")
    c("rank0", "matmul", [x([]), x([3])], error="ShapeError")
    c("mixed_dtypes", "matmul", [x([2, 3]), I(rng, [3, 2], "int64")], error="DTypeError")
