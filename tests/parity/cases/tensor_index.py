"""PyTorch's `x[...]` and `x[...] = v` (fixture_syntax.py): integers, slices with steps and
negative bounds, `...`, `None`, index tensors and lists (adjacent, apart, broadcast, with `None`
between), boolean masks, non-contiguous and integer inputs, and PyTorch's IndexErrors."""

from cases import B, F, I
from fixture import T


def build(fam, rng):
    c = fam.case

    def x(shape, view=None):
        return F(rng, shape, view=view)

    def idx(data, shape=None, dtype="int64"):
        return T(data, dtype, shape or [len(data)])

    def g(name, inputs, items, error=None, mask=False):
        c(name, "getitem", inputs, args={"items": items, **({"mask": True} if mask else {})},
          error=error)

    t = {"t": 1}
    g("int", [x([3, 4])], [1])
    g("neg_int", [x([3, 4])], [-1])
    g("to_rank0", [x([5])], [2])
    g("two_ints", [x([2, 3, 4])], [1, -2])
    g("slice_from", [x([5, 2])], ["1:"])
    g("slice_to_neg", [x([5, 2])], [":-1"])
    g("slice_step_neg_bounds", [x([7, 2])], ["1:-1:2"])
    g("step_only", [x([3, 7])], [":", "::3"])
    g("neg_start", [x([6])], ["-3:"])
    g("past_end", [x([4, 2])], ["2:10"])
    g("empty", [x([4, 2])], ["3:1"])
    g("colon", [x([2, 3])], [":"])
    g("ellipsis", [x([2, 3, 4])], ["...", 0])
    g("ellipsis_middle", [x([2, 3, 4, 2])], [1, "...", "1:"])
    g("ellipsis_alone", [x([2, 3])], ["..."])
    g("none_front", [x([2, 3])], [None])
    g("none_middle", [x([2, 3])], [":", None, ":"])
    g("none_end", [x([2, 3])], ["...", None])
    g("mixed", [x([4, 5, 6])], [None, "1:3", -1, None, "::2"])
    g("transposed", [x([4, 3], [("t", [])])], ["1:", 2])
    g("int_input", [I(rng, [3, 4], "int64")], ["::2", 1])
    g("tensor", [x([5, 2]), idx([4, 0, -1])], [t])
    g("tensor_2d", [x([5, 3]), idx([0, 1, 4, 2], [2, 2])], [t])
    g("tensor_int32", [x([5]), idx([3, 3, 1], dtype="int32")], [t])
    g("tensor_dim1", [x([2, 5, 3]), idx([4, 0])], [":", t])
    g("tensor_rank0", [x([3, 4]), idx([2], [])], [t])
    g("list", [x([4, 3])], [{"list": [3, 0, 0]}])
    g("list_dim1", [x([2, 4])], [":", {"list": [1, -1]}])
    g("two_adjacent", [x([3, 4, 2]), idx([0, 2], [2, 1]), idx([1, 3, 0])], [{"t": 1}, {"t": 2}])
    g("two_adjacent_inner", [x([2, 3, 4]), idx([0, 2]), idx([1, 3])], [":", {"t": 1}, {"t": 2}])
    g("two_apart", [x([3, 2, 4]), idx([0, 2]), idx([1, 3])], [{"t": 1}, ":", {"t": 2}])
    g("apart_by_none", [x([3, 4]), idx([0, 2]), idx([1, 3])], [{"t": 1}, None, {"t": 2}])
    g("tensor_and_int", [x([3, 2, 4]), idx([0, 2])], [{"t": 1}, ":", 1])
    g("int_between_tensors", [x([2, 3, 4, 5]), idx([0, 2]), idx([1, 4])],
      [":", {"t": 1}, 0, {"t": 2}])
    g("tensor_and_slice", [x([4, 5]), idx([3, 0])], [t, "1:4"])
    g("tensor_ellipsis", [x([2, 3, 4]), idx([1, 0, 1])], ["...", t])
    g("mask_full", [x([3, 4]), B(rng, [3, 4])], [t], mask=True)
    g("mask_rows", [x([4, 3]), T([1, 0, 1, 1], "bool", [4])], [t], mask=True)
    g("mask_dim1", [x([2, 4]), T([0, 1, 1, 0], "bool", [4])], [":", t], mask=True)
    g("mask_then_slice", [x([3, 4]), T([1, 0, 1], "bool", [3])], [t, "1:"], mask=True)
    g("mask_none_true", [x([3, 2]), T([0, 0, 0], "bool", [3])], [t], mask=True)
    g("out_of_range", [x([3, 4])], [3], error="IndexError")
    g("out_of_range_neg", [x([3, 4])], [":", -5], error="IndexError")
    g("too_many", [x([3, 4])], [0, 0, 0], error="IndexError")
    # PyTorch (unlike NumPy) takes several ellipses: the first stands for the dims, the others none.
    g("two_ellipses", [x([2, 3, 4])], ["...", None, "..."])
    g("no_broadcast", [x([3, 4]), idx([0, 1]), idx([0, 1, 2])], [{"t": 1}, {"t": 2}],
      error="IndexError")
    g("mask_mismatch", [x([3, 4]), T([1, 0], "bool", [2])], [t], error="IndexError", mask=True)
    g("float_index", [x([3]), T([0.0, 1.0], "float32", [2])], [t], error="IndexError")
    g("step_zero", [x([3])], ["::0"], error="TorchError")

    def s(name, inputs, items, value=None, error=None):
        c(name, "setitem", inputs, args={"items": items, **({} if value is None else {"value": value})},
          error=error)

    s("int_scalar", [x([3, 4])], [1], value=2.5)
    s("slice_tensor", [x([3, 4]), x([4])], ["1:"])
    s("step_slice", [x([6, 2]), x([3, 1])], ["::2"])
    s("ellipsis_col", [x([2, 3, 4]), x([2, 3])], ["...", -1])
    s("none", [x([2, 3]), x([1, 3])], [0, None])
    s("tensor_rows", [x([4, 3]), idx([2, 0]), x([2, 3])], [{"t": 1}], )
    s("tensor_scalar", [x([4, 3]), idx([2, -3])], [":", {"t": 1}], value=-1.5)
    s("two_tensors", [x([3, 4]), idx([0, 2]), idx([1, 3]), x([2])], [{"t": 1}, {"t": 2}])
    s("two_apart", [x([3, 2, 4]), idx([0, 2]), idx([1, 3]), x([2, 2])], [{"t": 1}, ":", {"t": 2}])
    s("list", [x([4, 2]), x([2])], [{"list": [0, 3]}])
    s("mask_scalar", [x([3, 4]), B(rng, [3, 4])], [{"t": 1}], value=0)
    s("mask_rows_tensor", [x([3, 2]), T([1, 0, 1], "bool", [3]), x([2])], [{"t": 1}])
    s("int_value_cast", [x([2, 3]), I(rng, [3], "int64")], [0])
    s("int_tensor_input", [I(rng, [3, 3], "int64")], ["1:", 1], value=7)
    s("shape_mismatch", [x([3, 4]), idx([0, 1]), x([3])], [{"t": 1}, 0], error="TorchError")
