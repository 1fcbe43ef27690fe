"""where(cond, a, b) and masked_fill(mask, value): broadcasting of all three operands, scalars on
either side (PyTorch's promotion: int scalars with int tensors stay int, a float scalar makes a
float result), bool/int/float operands, non-contiguous views, NaN/inf values, and the errors for
non-bool conditions and masks and for shape mismatches."""

from cases import INF, NAN, B, F, I
from fixture import S, T


def build(fam, rng):
    c = fam.case

    def x(shape, view=None):
        return F(rng, shape, view=view)

    w = "where"
    c("same_shape", w, [B(rng, [2, 3]), x([2, 3]), x([2, 3])])
    c("broadcast_cond", w, [B(rng, [3]), x([2, 3]), x([2, 3])])
    c("broadcast_all", w, [B(rng, [2, 1, 1]), x([1, 3, 1]), x([4])])
    c("scalar_other", w, [B(rng, [2, 3]), x([2, 3]), S(0)])
    c("scalar_input", w, [B(rng, [2, 3]), S(1.5), x([2, 3])])
    c("scalars_int", w, [B(rng, [4]), S(1), S(0)])
    c("scalars_float", w, [B(rng, [4]), S(1.5), S(0)])
    c("scalars_bool", w, [B(rng, [4]), S(True), S(False)])
    c("int_tensor_float_scalar", w, [B(rng, [4]), I(rng, [4], "int64"), S(2.5)])
    c("int32_int_scalar", w, [B(rng, [4]), I(rng, [4]), S(5)])
    c("int_float_tensors", w, [B(rng, [2, 3]), I(rng, [2, 3], "int64"), x([2, 3])])
    c("rank0_float_int", w, [B(rng, [3]), T(1.0, shape=[]), I(rng, [3], "int64")])
    c("bool_tensors", w, [B(rng, [5]), B(rng, [5]), B(rng, [5])])
    c("nonfinite", w, [T([1, 0, 1, 0], "bool"), T([NAN, NAN, INF, -INF]), T([1.0, 2.0, NAN, 3.0])])
    c("uint8_cond", w, [I(rng, [4], "uint8", 0, 2), x([4]), x([4])])
    c("transposed", w, [B(rng, [3, 2], [("t", [])]), x([3, 2], [("t", [])]), x([2, 3])])
    c("expanded", w, [B(rng, [3, 1], [("expand", [3, 4])]), x([4]), x([3, 4])])
    c("rank0", w, [T(True, "bool", []), T(2.0, shape=[]), T(3.0, shape=[])])
    c("size0", w, [B(rng, [0, 3]), x([3]), x([0, 3])])
    c("long_1000", w, [B(rng, [1000]), x([1000]), x([1000])])
    c("float_cond", w, [x([3]), x([3]), x([3])], error="DTypeError")
    c("shape_mismatch", w, [B(rng, [4]), x([2, 3]), x([2, 3])], error="ShapeError")
    mf = "masked_fill"
    c("float", mf, [x([2, 3]), B(rng, [2, 3])], args={"value": 5})
    c("broadcast_mask", mf, [x([2, 3]), B(rng, [3])], args={"value": -1.5})
    c("broadcast_self", mf, [I(rng, [3], "int64"), B(rng, [2, 3])], args={"value": 7})
    c("int_float_value", mf, [I(rng, [4], "int64"), B(rng, [4])], args={"value": 2.5})
    c("nan_value", mf, [x([4]), B(rng, [4])], args={"value": NAN})
    c("inf_value", mf, [x([4]), B(rng, [4])], args={"value": -INF})
    c("bool_self", mf, [B(rng, [4]), B(rng, [4])], args={"value": 0})
    c("transposed", mf, [x([3, 2], [("t", [])]), B(rng, [2, 3])], args={"value": 0})
    c("rank0", mf, [T(2.0, shape=[]), T(True, "bool", [])], args={"value": 1})
    c("size0", mf, [x([0, 3]), B(rng, [3])], args={"value": 1})
    c("long_1000", mf, [x([1000]), B(rng, [1000])], args={"value": 0})
    c("int_mask", mf, [x([3]), I(rng, [3], "int64")], args={"value": 1}, error="DTypeError")
    c("uint8_mask", mf, [x([3]), I(rng, [3], "uint8", 0, 2)], args={"value": 1}, error="DTypeError")
    c("shape_mismatch", mf, [x([2, 3]), B(rng, [4])], args={"value": 1}, error="ShapeError")
