"""index_put (integer indices: broadcasting, negative, adjacent and apart, whole dims between;
boolean masks alone, over several dims, after a whole dim, beside integer indices; accumulate with
repeated indices; in place) and masked_scatter, with PyTorch's errors."""

from cases import F, I
from fixture import T


def build(fam, rng):
    c = fam.case

    def x(shape, view=None):
        return F(rng, shape, -3.0, 3.0, view)

    def L(data, shape=None, dtype="int64"):
        return T(data, dtype, shape or [len(data)])

    def M(data, shape=None):
        return T([bool(v) for v in data], "bool", shape or [len(data)])

    ip = "index_put"
    c("ints_1d_negative", ip, [x([5]), x([3]), L([0, 3, -1])], args={"pattern": [1]})
    c("rows", ip, [x([4, 3]), x([2, 3]), L([2, 0])], args={"pattern": [1]})
    c("rows_broadcast_values", ip, [x([4, 3]), x([3]), L([3, 1])], args={"pattern": [1]})
    c("two_adjacent", ip, [x([3, 4, 2]), x([3, 2]), L([0, 2, 1]), L([3, 0, -4])], args={"pattern": [1, 1]})
    c("broadcast_indices", ip, [x([4, 5]), x([3]), L([1, 3], [2, 1]), L([0, 4, 2])],
      args={"pattern": [1, 1]})
    c("apart", ip, [x([2, 3, 4]), x([2, 3]), L([0, 1]), L([1, 2])], args={"pattern": [1, 0, 1]})
    c("whole_dim_first", ip, [x([3, 4]), x([3, 2]), L([0, 2])], args={"pattern": [0, 1]})
    c("middle_dim", ip, [x([2, 4, 3]), x([2, 1, 3]), L([3])], args={"pattern": [0, 1]})
    c("index_2d", ip, [x([5, 2]), x([2, 2, 2]), L([0, 4, 2, 1], [2, 2])], args={"pattern": [1]})
    c("rank0_value", ip, [x([3, 4]), x([]), L([1, 2]), L([0, 3])], args={"pattern": [1, 1]})
    c("rank0_index", ip, [x([3, 4]), x([4]), L([2], [])], args={"pattern": [1]})
    c("empty_index", ip, [x([3, 4]), x([]), L([], [0])], args={"pattern": [1]})
    c("int32_index", ip, [x([4]), x([2]), L([3, 0], dtype="int32")], args={"pattern": [1]})
    c("transposed_self", ip, [x([4, 3], [("transpose", [0, 1])]), x([2, 4]), L([2, 0])], args={"pattern": [1]})
    c("transposed_values", ip, [x([3, 4]), x([4, 2], [("t", [])]), L([1, 2])], args={"pattern": [1]})
    c("nan_inf_values", ip, [x([4]), T(["nan", "inf", "-inf"], shape=[3]), L([0, 1, 3])], args={"pattern": [1]})
    c("int_self", ip, [I(rng, [4, 2]), I(rng, [2, 2]), L([3, 1])], args={"pattern": [1]})
    c("acc_repeated", ip, [x([5]), x([4]), L([1, 1, 3, 1])], args={"pattern": [1], "accumulate": True})
    c("acc_rows", ip, [x([3, 4]), x([3, 4]), L([0, 2, 0])], args={"pattern": [1], "accumulate": True})
    c("acc_two", ip, [x([3, 3]), x([4]), L([0, 0, 2, 0]), L([1, 1, 2, 1])],
      args={"pattern": [1, 1], "accumulate": True})
    c("acc_int", ip, [I(rng, [4]), I(rng, [3]), L([2, 2, 0])], args={"pattern": [1], "accumulate": True})
    c("inplace", ip, [x([4, 3]), x([2, 3]), L([1, 3])], args={"pattern": [1], "inplace": True})
    c("inplace_acc", ip, [x([4, 3]), x([3]), L([1, 1])], args={"pattern": [1], "accumulate": True, "inplace": True})
    # masks (PyTorch: the indices of the true elements)
    m34 = [1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1]
    c("mask_scalar", ip, [x([3, 4]), x([]), M(m34, [3, 4])], args={"pattern": [1]})
    c("mask_values", ip, [x([3, 4]), x([sum(m34)]), M(m34, [3, 4])], args={"pattern": [1]})
    c("mask_rows", ip, [x([3, 4]), x([2, 4]), M([1, 0, 1])], args={"pattern": [1]})
    c("mask_rows_broadcast", ip, [x([3, 4]), x([4]), M([0, 1, 1])], args={"pattern": [1]})
    c("mask_after_whole", ip, [x([3, 4]), x([3, 2]), M([0, 1, 0, 1])], args={"pattern": [0, 1]})
    c("mask_2d_of_3d", ip, [x([2, 3, 4]), x([3, 4]), M([1, 0, 1, 0, 0, 1], [2, 3])], args={"pattern": [1]})
    c("mask_none_true", ip, [x([2, 3]), x([]), M([0, 0])], args={"pattern": [1]})
    c("mask_transposed_self", ip, [x([4, 3], [("t", [])]), x([2, 4]), M([1, 1, 0])], args={"pattern": [1]})
    c("mask_acc", ip, [x([3, 4]), x([sum(m34)]), M(m34, [3, 4])], args={"pattern": [1], "accumulate": True})
    c("mask_with_ints", ip, [x([3, 4]), x([2]), M([1, 0, 1]), L([3, 0])], args={"pattern": [1, 1]})
    c("mask_with_ints_after", ip, [x([3, 4]), x([3]), L([2, 0, 2]), M([0, 1, 1, 1])], args={"pattern": [1, 1]})
    c("mask_inplace", ip, [x([3, 4]), x([sum(m34)]), M(m34, [3, 4])], args={"pattern": [1], "inplace": True})
    # a mask beside one-element integer indices (the count is the mask's: no read back)
    c("mask_with_scalar_index", ip, [x([3, 4]), x([2]), M([1, 0, 1]), T([2], "int64", [])], args={"pattern": [1, 1]})
    c("mask_with_scalar_index_broadcast", ip, [x([3, 4]), x([]), M([0, 1, 1]), L([-1])],
      args={"pattern": [1, 1]})
    c("scalar_index_then_mask", ip, [x([3, 4, 2]), x([3, 2]), T([1], "int64", []), M([1, 1, 0, 1])],
      args={"pattern": [1, 1]})
    c("mask_scalar_index_apart", ip, [x([3, 2, 4]), x([2, 2]), M([1, 0, 1]), T([3], "int64", [])],
      args={"pattern": [1, 0, 1]})
    c("mask_with_column_index", ip, [x([3, 4]), x([3, 2]), M([0, 1, 1]), L([1, 2, 3], [3, 1])],
      args={"pattern": [1, 1]})
    c("mask_with_column_index_broadcast", ip, [x([3, 4]), x([2]), M([1, 0, 1]), L([0, 3], [2, 1])],
      args={"pattern": [1, 1]})
    c("column_index_then_mask_3d", ip, [x([2, 3, 4]), x([2, 1, 3]), L([1, 0], [2, 1]), M([1, 0, 1, 1])],
      args={"pattern": [0, 1, 1]})
    c("mask_column_index_apart_acc", ip, [x([3, 2, 4]), x([2, 2, 2]), M([1, 0, 1]), L([0, 3], [2, 1])],
      args={"pattern": [1, 0, 1], "accumulate": True})
    c("mask2d_scalar_index_acc", ip, [x([2, 3, 4]), x([3]), M([1, 0, 1, 0, 0, 1], [2, 3]), L([0], [])],
      args={"pattern": [1, 1], "accumulate": True})
    # a 0-dim mask beside other indices: true keeps their put (false puts nothing, as Python's
    # x[False, i] = v does; aten.index_put itself ignores the mask there, so no fixture)
    c("mask0d_true_with_ints", ip, [x([3, 4]), x([2, 4]), T([True], "bool", []), L([2, 0])], args={"pattern": [1, 1]})
    # errors
    c("too_many", ip, [x([4, 3]), x([]), L([0]), L([0]), L([0])], args={"pattern": [1, 1, 1]}, error="IndexError")
    c("float_index", ip, [x([4, 3]), x([]), T([0.0], shape=[1])], args={"pattern": [1]}, error="IndexError")
    c("mask_shape", ip, [x([4, 3]), x([]), M([1, 0, 1])], args={"pattern": [1]}, error="IndexError")
    c("indices_mismatch", ip, [x([4, 3]), x([]), L([0, 1]), L([0, 1, 2])], args={"pattern": [1, 1]},
      error="IndexError")
    c("values_mismatch", ip, [x([4, 3]), x([2]), L([0, 1])], args={"pattern": [1]}, error="ShapeError")
    c("values_dtype", ip, [x([4, 3]), I(rng, [3], "int64"), L([0, 1])], args={"pattern": [1]}, error="DTypeError")

    ms = "masked_scatter"
    c("full_mask", ms, [x([3, 4]), M(m34, [3, 4]), x([12])])
    c("short_mask_rows", ms, [x([3, 4]), M([1, 0, 0, 1]), x([2, 5])])
    c("broadcast_both", ms, [x([1, 4]), M([1, 0, 1], [3, 1]), x([9])])
    c("transposed", ms, [x([4, 3], [("t", [])]), M(m34, [3, 4]), x([3, 4], [("t", [])])])
    c("rank0", ms, [x([]), M([1], []), x([2])])
    c("size0", ms, [x([0, 3]), M([0, 1, 1]), x([0])])
    c("int", ms, [I(rng, [2, 3]), M([1, 1, 0, 0, 1, 0], [2, 3]), I(rng, [4])])
    c("inplace", ms, [x([2, 3]), M([0, 1, 1]), x([5])], args={"inplace": True})
    c("float_mask", ms, [x([3]), x([3]), x([3])], error="DTypeError")
    c("dtype_mismatch", ms, [x([3]), M([1, 0, 1]), I(rng, [3], "int64")], error="DTypeError")
