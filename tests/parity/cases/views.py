"""Shape ops: reshape, view (-1 inference, errors on non-contiguous input), transpose, permute, t,
expand, contiguous. Outputs are the values in logical order, so a runner checks the strides too."""

from cases import F, I
from fixture import T


def build(fam, rng):
    c = fam.case

    def x(shape, view=None):
        return F(rng, shape, view=view)

    for op in ("reshape", "view"):
        c("2d_to_2d", op, [x([2, 3])], args={"shape": [3, 2]})
        c("flatten", op, [x([2, 3])], args={"shape": [6]})
        c("infer_last", op, [x([6])], args={"shape": [2, -1]})
        c("infer_first", op, [x([2, 3, 4])], args={"shape": [-1, 4]})
        c("infer_only", op, [x([2, 3])], args={"shape": [-1]})
        c("add_unit_dims", op, [x([2, 3])], args={"shape": [1, 2, 1, 3]})
        c("rank0_to_1", op, [x([])], args={"shape": [1]})
        c("rank0_infer", op, [x([])], args={"shape": [-1]})
        c("to_rank0", op, [x([1, 1])], args={"shape": []})
        c("size0", op, [x([0, 3])], args={"shape": [3, 0]})
        c("size0_infer", op, [x([0, 3])], args={"shape": [-1, 3]})
        c("int32", op, [I(rng, [2, 3])], args={"shape": [3, 2]})
        c("bool", op, [T([1, 0, 1, 1], "bool")], args={"shape": [2, 2]})
        c("numel_mismatch", op, [x([2, 3])], args={"shape": [4, 2]}, error="ShapeError")
        c("two_inferred", op, [x([2, 3])], args={"shape": [-1, -1]}, error="ShapeError")
        c("size0_ambiguous", op, [x([0])], args={"shape": [0, -1]}, error="ShapeError")
    # reshape copies when it has to; view refuses.
    c("transposed", "reshape", [x([3, 2], [("t", [])])], args={"shape": [6]})
    c("permuted", "reshape", [x([2, 3, 4], [("permute", [2, 0, 1])])], args={"shape": [4, 6]})
    c("expanded", "reshape", [x([3, 1], [("expand", [3, 4])])], args={"shape": [12]})
    c("transposed_compatible", "view", [x([3, 1], [("t", [])])], args={"shape": [3]})
    c("expanded_same_shape", "view", [x([1, 3], [("expand", [2, 3])])], args={"shape": [2, 3]})
    c("transposed", "view", [x([3, 2], [("t", [])])], args={"shape": [6]}, error="ShapeError")
    c("expanded", "view", [x([3, 1], [("expand", [3, 4])])], args={"shape": [12]},
      error="ShapeError")

    c("2d", "transpose", [x([2, 3])], args={"dim0": 0, "dim1": 1})
    c("3d_outer", "transpose", [x([2, 3, 4])], args={"dim0": 0, "dim1": 2})
    c("negative", "transpose", [x([2, 3, 4])], args={"dim0": -1, "dim1": -3})
    c("same_dim", "transpose", [x([2, 3])], args={"dim0": 1, "dim1": 1})
    c("rank0", "transpose", [x([])], args={"dim0": 0, "dim1": -1})
    c("size0", "transpose", [x([0, 3])], args={"dim0": 0, "dim1": 1})
    c("of_transposed", "transpose", [x([3, 2], [("t", [])])], args={"dim0": 0, "dim1": 1})
    c("int64", "transpose", [I(rng, [2, 3], "int64")], args={"dim0": 0, "dim1": 1})
    c("dim_out_of_range", "transpose", [x([2, 3])], args={"dim0": 0, "dim1": 2},
      error="IndexError")

    c("3d", "permute", [x([2, 3, 4])], args={"dims": [2, 0, 1]})
    c("negative", "permute", [x([2, 3, 4])], args={"dims": [-1, 0, -2]})
    c("identity", "permute", [x([2, 3])], args={"dims": [0, 1]})
    c("4d", "permute", [x([2, 1, 3, 2])], args={"dims": [3, 1, 0, 2]})
    c("rank0", "permute", [x([])], args={"dims": []})
    c("size0", "permute", [x([2, 0, 3])], args={"dims": [2, 1, 0]})
    c("of_expanded", "permute", [x([3, 1], [("expand", [3, 2])])], args={"dims": [1, 0]})
    c("uint8", "permute", [I(rng, [2, 3], "uint8", 0, 255)], args={"dims": [1, 0]})
    c("duplicate", "permute", [x([2, 3])], args={"dims": [0, 0]}, error="ShapeError")
    c("dim_out_of_range", "permute", [x([2, 3])], args={"dims": [0, 2]}, error="IndexError")

    c("2d", "t", [x([2, 3])])
    c("1d", "t", [x([3])])
    c("rank0", "t", [x([])])
    c("size0", "t", [x([0, 2])])
    c("3d", "t", [x([2, 3, 4])], error="ShapeError")

    c("col", "expand", [x([3, 1])], args={"shape": [3, 4]})
    c("new_leading", "expand", [x([3])], args={"shape": [2, 3]})
    c("keep_minus1", "expand", [x([3, 1])], args={"shape": [-1, 4]})
    c("rank0", "expand", [x([])], args={"shape": [2, 2]})
    c("same", "expand", [x([2, 3])], args={"shape": [2, 3]})
    c("to_size0", "expand", [x([1, 3])], args={"shape": [0, 3]})
    c("size0", "expand", [x([0, 1])], args={"shape": [0, 3]})
    c("of_transposed", "expand", [x([1, 3], [("t", [])])], args={"shape": [3, 2]})
    c("int32", "expand", [I(rng, [1, 2])], args={"shape": [3, 2]})
    c("mismatch", "expand", [x([2, 3])], args={"shape": [2, 4]}, error="ShapeError")

    c("transposed", "contiguous", [x([3, 2], [("t", [])])])
    c("permuted", "contiguous", [x([2, 3, 4], [("permute", [2, 0, 1])])])
    c("expanded", "contiguous", [x([3, 1], [("expand", [2, 3, 4])])])
    c("transposed_permuted", "contiguous",
      [x([2, 3, 4], [("permute", [1, 2, 0]), ("transpose", [0, 2])])])
    c("already", "contiguous", [x([2, 3])])
    c("rank0", "contiguous", [x([])])
    c("size0", "contiguous", [x([0, 2], [("t", [])])])
    c("int32_transposed", "contiguous", [I(rng, [3, 2], view=[("t", [])])])
    c("bool_expanded", "contiguous", [T([1, 0], "bool", [2, 1], [("expand", [2, 3])])])
