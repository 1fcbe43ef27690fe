"""Indexing and joining: index_select, gather, take_along_dim (int64 and int32 indices, repeated
indices, negative dims, non-contiguous inputs and indices, rank 0, size 0, every dtype) and
cat/stack (dims, negative dims, dtype promotion, legacy 1-D empty inputs, views), with PyTorch's
errors. Out-of-range indices are not cases: webtorch reads them as 0 (tensor/indexing.rs)."""

from cases import B, F, I
from fixture import T


def build(fam, rng):
    c = fam.case

    def x(shape, view=None):
        return F(rng, shape, view=view)

    def idx(values, shape=None, dtype="int64", view=None):
        return T(values, dtype, shape or [len(values)], view)

    isel = "index_select"
    c("dim0", isel, [x([4, 3]), idx([2, 0, 2])], args={"dim": 0})
    c("dim1", isel, [x([4, 3]), idx([1, 1])], args={"dim": 1})
    c("dim_neg1_3d", isel, [x([2, 3, 4]), idx([3, 0, 1, 2, 3])], args={"dim": -1})
    c("int32_index", isel, [x([4, 3]), idx([3, 1], dtype="int32")], args={"dim": 0})
    c("int_self", isel, [I(rng, [3, 4], "int64"), idx([0, 3])], args={"dim": 1})
    c("bool_self", isel, [B(rng, [3, 4]), idx([2])], args={"dim": 0})
    c("transposed", isel, [x([3, 4], [("t", [])]), idx([2, 0])], args={"dim": 1})
    c("rank0_index", isel, [x([4, 3]), T(2, "int64", [])], args={"dim": 0})
    c("rank0_self", isel, [x([]), idx([0])], args={"dim": 0})
    c("empty_index", isel, [x([4, 3]), idx([])], args={"dim": 0})
    c("embedding_like", isel, [x([10, 4]), idx([9, 0, 4, 4, 7, 1])], args={"dim": 0})
    c("float_index", isel, [x([4, 3]), T([0.0, 1.0])], args={"dim": 0}, error="DTypeError")
    c("matrix_index", isel, [x([4, 3]), idx([0, 1], [1, 2])], args={"dim": 0}, error="IndexError")
    c("rank0_two_values", isel, [x([]), idx([0, 0])], args={"dim": 0}, error="TorchError")
    c("dim_out_of_range", isel, [x([4, 3]), idx([0])], args={"dim": 2}, error="IndexError")
    g = "gather"
    c("dim1", g, [x([3, 4]), idx([0, 3, 3, 1, 2, 2, 0, 0, 1], [3, 3])], args={"dim": 1})
    c("dim0", g, [x([3, 4]), idx([2, 0, 1, 1, 0, 2, 2, 2], [2, 4])], args={"dim": 0})
    c("dim_neg1_3d", g, [x([2, 3, 4]), idx([3, 0, 1, 2, 1, 1], [2, 3, 1])], args={"dim": -1})
    c("int32_index", g, [x([3, 4]), idx([1, 2, 3], [3, 1], dtype="int32")], args={"dim": 1})
    c("int_self", g, [I(rng, [3, 4]), idx([1, 0, 3], [3, 1])], args={"dim": 1})
    c("transposed", g, [x([4, 3], [("t", [])]), idx([3, 2, 1, 0, 0, 1], [3, 2])], args={"dim": 1})
    c("transposed_index", g, [x([3, 3]), idx([0, 1, 2, 2, 1, 0, 1, 1, 1], [3, 3], view=[("t", [])])],
      args={"dim": 0})
    c("rank0", g, [x([]), T(0, "int64", [])], args={"dim": 0})
    c("size0", g, [x([3, 4]), idx([], [3, 0])], args={"dim": 1})
    c("float_index", g, [x([3, 4]), T([0.0], shape=[1, 1])], args={"dim": 1}, error="DTypeError")
    c("rank_mismatch", g, [x([3, 4]), idx([0, 1])], args={"dim": 1}, error="ShapeError")
    c("index_too_large", g, [x([2, 3]), idx([0] * 8, [2, 4])], args={"dim": 0}, error="ShapeError")
    t = "take_along_dim"
    c("dim1", t, [x([3, 4]), idx([3, 0, 1], [3, 1])], args={"dim": 1})
    c("broadcast", t, [x([3, 4]), idx([0, 2], [1, 2])], args={"dim": 1})
    c("broadcast_self", t, [x([1, 4]), idx([0, 0, 0, 0, 0, 0], [3, 2])], args={"dim": 1})
    c("flat", t, [x([3, 4]), idx([11, 0, 5])])
    c("argmax_like", t, [x([3, 4]), idx([1, 3, 0], [3, 1])], args={"dim": -1})
    c("int32_indices", t, [x([3, 4]), idx([1], [1, 1], dtype="int32")], args={"dim": 1},
      error="DTypeError")
    c("rank_mismatch", t, [x([3, 4]), idx([1])], args={"dim": 1}, error="ShapeError")
    c("broadcast_mismatch", t, [x([2, 3]), idx([0, 1], [1, 2])], args={"dim": 0}, error="ShapeError")
    for op in ("cat", "stack"):
        c("dim0", op, [x([2, 3]), x([2, 3])], args={"dim": 0})
        c("dim1", op, [x([2, 3]), x([2, 3]), x([2, 3])], args={"dim": 1})
        c("dim_neg1", op, [x([2, 3]), x([2, 3])], args={"dim": -1})
        c("default_dim", op, [x([2, 3]), x([2, 3])])
        c("one", op, [x([2, 3])], args={"dim": 0})
        c("promote", op, [I(rng, [2, 3]), x([2, 3]), B(rng, [2, 3])], args={"dim": 1})
        c("int", op, [I(rng, [2, 2], "int64"), I(rng, [2, 2], "int64")], args={"dim": 0})
        c("bool", op, [B(rng, [3]), B(rng, [3])], args={"dim": 0})
        c("transposed", op, [x([3, 2], [("t", [])]), x([2, 3])], args={"dim": 1})
        c("expanded", op, [x([1, 3], [("expand", [2, 3])]), x([2, 3])], args={"dim": 0})
        c("size0", op, [x([2, 0]), x([2, 0])], args={"dim": 1})
        c("long_1000", op, [x([1000]), x([1000])], args={"dim": 0})
        c("empty_list", op, [], args={"dim": 0}, error="TorchError")
    c("different_sizes", "cat", [x([2, 3]), x([4, 3]), x([1, 3])], args={"dim": 0})
    c("legacy_empty", "cat", [x([2, 3]), x([0]), x([1, 3])], args={"dim": 0})
    c("all_legacy_empty", "cat", [x([0]), x([0])])
    c("rank0", "cat", [x([]), x([2])], error="TorchError")
    c("rank_mismatch", "cat", [x([2, 3]), x([3])], error="ShapeError")
    c("size_mismatch", "cat", [x([2, 3]), x([2, 4])], args={"dim": 0}, error="ShapeError")
    c("dim_out_of_range", "cat", [x([2, 3]), x([2, 3])], args={"dim": 2}, error="IndexError")
    c("rank0", "stack", [x([]), x([])], args={"dim": 0})
    c("dim2", "stack", [x([2, 3]), x([2, 3])], args={"dim": 2})
    c("size_mismatch", "stack", [x([2, 3]), x([2, 4])], error="ShapeError")
    c("dim_out_of_range", "stack", [x([2, 3]), x([2, 3])], args={"dim": 3}, error="IndexError")
    # scatter: no repeated indices (which write wins is unspecified); scatter_add sums repeats.
    sc = "scatter"
    c("dim1", sc, [x([3, 4]), idx([0, 3, 1, 2, 2, 0], [3, 2]), x([3, 2])], args={"dim": 1})
    c("dim0", sc, [x([3, 4]), idx([2, 0, 1, 1], [1, 4]), x([2, 5])], args={"dim": 0})
    c("value", sc, [x([3, 4]), idx([1, 3], [2, 1])], args={"dim": 1, "value": 2.5})
    c("value_int_self", sc, [I(rng, [3, 4], "int64"), idx([1, 3], [2, 1])], args={"dim": 1, "value": 2.5})
    c("int32_index", sc, [x([3, 4]), idx([3, 1, 0], [3, 1], dtype="int32"), x([3, 1])], args={"dim": 1})
    c("bool", sc, [B(rng, [2, 3]), idx([2, 0], [2, 1]), B(rng, [2, 1])], args={"dim": 1})
    c("transposed", sc, [x([4, 3], [("t", [])]), idx([3, 0, 2, 1], [2, 2]), x([2, 2], [("t", [])])],
      args={"dim": 1})
    c("rank0", sc, [x([]), T(0, "int64", []), x([])], args={"dim": 0})
    c("empty_index", sc, [x([3, 4]), idx([], [3, 0]), x([3, 2])], args={"dim": 1})
    c("float_index", sc, [x([3, 4]), T([0.0], shape=[1, 1]), x([1, 1])], args={"dim": 1},
      error="DTypeError")
    c("dtype_mismatch", sc, [x([3, 4]), idx([0], [1, 1]), I(rng, [1, 1], "int64")], args={"dim": 1},
      error="DTypeError")
    c("rank_mismatch", sc, [x([3, 4]), idx([0, 1]), x([2])], args={"dim": 1}, error="ShapeError")
    c("index_too_large", sc, [x([3, 4]), idx([0] * 10, [2, 5]), x([2, 2])], args={"dim": 1},
      error="ShapeError")
    sa = "scatter_add"
    c("dim1", sa, [x([3, 4]), idx([0, 0, 1, 2, 2, 2], [3, 2]), x([3, 2])], args={"dim": 1})
    c("dim0_repeats", sa, [x([3, 4]), idx([0] * 8 + [2] * 4, [3, 4]), x([3, 4])], args={"dim": 0})
    c("int", sa, [I(rng, [2, 3], "int64"), idx([0, 0, 0, 1], [2, 2]), I(rng, [2, 2], "int64")],
      args={"dim": 1})
    c("histogram", sa, [T([0.0] * 5), idx([int(v) for v in rng.integers(0, 5, 300)]),
                         T([1.0] * 300)], args={"dim": 0})
    c("bool", sa, [B(rng, [2, 3]), idx([0, 0, 2, 2], [2, 2]), B(rng, [2, 2])], args={"dim": 1})
