"""Predicates, logical and bitwise ops: isnan, isinf, isfinite, signbit, logical_not,
logical_and/or/xor (bool results, any dtypes, NaN counts as true) and bitwise_not/and/or/xor
(integers and bool only; PyTorch refuses float)."""

from cases import INF, NAN, B, F, I, unary_common
from fixture import S, T

SPECIALS = [NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 3.4e38, -3.4e38, 1e-30, -1e-30]


def Z(rng, shape, view=None):
    """float32 values from {-1, 0, 1} (0 often, so truthiness varies)."""
    return I(rng, shape, "int32", -1, 2, view) | {"dtype": "float32"}


def build(fam, rng):
    c = fam.case
    for op in ("isnan", "isinf", "isfinite", "signbit", "logical_not"):
        unary_common(c, rng, op)
        c("specials", op, [T(SPECIALS)])
        c("specials_transposed", op, [T(SPECIALS + [2.5], shape=[3, 4], view=[("t", [])])])
        c("int32", op, [I(rng, [2, 3], lo=-2, hi=3)])
        c("int64", op, [I(rng, [4], "int64", -2, 3)])
        c("uint8", op, [I(rng, [4], "uint8", 0, 3)])
        c("bool", op, [B(rng, [4])])
    c("zeros_and_ones", "logical_not", [Z(rng, [2, 3])])

    op = "bitwise_not"
    c("int32", op, [I(rng, [2, 3], lo=-100, hi=100)])
    c("int32_extremes", op, [T([0, -1, 2147483647, -2147483648], "int32")])
    c("int64", op, [I(rng, [4], "int64", -100, 100)])
    c("uint8", op, [T([0, 1, 127, 128, 254, 255], "uint8")])
    c("bool", op, [T([1, 0, 1], "bool")])
    c("rank0", op, [I(rng, [])])
    c("size0", op, [I(rng, [2, 0])])
    c("transposed", op, [I(rng, [3, 2], view=[("transpose", [0, 1])])])
    c("expanded", op, [I(rng, [3, 1], view=[("expand", [2, 3, 2])])])
    c("float32", op, [F(rng, [3])], error="DTypeError")

    for op in ("logical_and", "logical_or", "logical_xor"):
        c("same_shape", op, [Z(rng, [2, 3]), Z(rng, [2, 3])])
        c("broadcast_col_row", op, [Z(rng, [3, 1]), Z(rng, [1, 4])])
        c("rank0_lhs", op, [Z(rng, []), Z(rng, [2, 3])])
        c("size0", op, [Z(rng, [0, 3]), Z(rng, [3])])
        c("transposed", op, [Z(rng, [3, 2], [("t", [])]), Z(rng, [2, 3])])
        c("expanded", op, [Z(rng, [3, 1], [("expand", [3, 4])]), Z(rng, [4])])
        ns = [NAN, INF, -INF, 0.0, -0.0, 0.5]
        c("nonfinite", op, [T([a for a in ns for _ in ns]), T([b for _ in ns for b in ns])])
        c("bool_bool", op, [T([1, 1, 0, 0], "bool"), T([1, 0, 1, 0], "bool")])
        c("int32_int64", op, [I(rng, [2, 3], lo=-2, hi=3), I(rng, [3], "int64", -1, 2)])
        c("uint8_bool", op, [I(rng, [4], "uint8", 0, 3), B(rng, [4])])
        c("int32_float32", op, [I(rng, [2, 3], lo=-1, hi=2), Z(rng, [2, 3])])
        c("scalar_int", op, [Z(rng, [2, 3]), S(0)])
        c("scalar_float", op, [I(rng, [3], lo=-1, hi=2), S(0.5)])
        c("scalar_bool", op, [B(rng, [4]), S(True)])
        c("reverse_scalar", op, [S(2), Z(rng, [2, 3])])
        c("broadcast_mismatch", op, [Z(rng, [2, 3]), Z(rng, [2])], error="ShapeError")

    for op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        def x(shape, view=None, dtype="int32"):
            return I(rng, shape, dtype, -100, 100, view)

        c("same_shape", op, [x([2, 3]), x([2, 3])])
        c("1d_long", op, [x([19]), x([19])])
        c("broadcast_col_row", op, [x([3, 1]), x([1, 4])])
        c("rank0_lhs", op, [x([]), x([2, 3])])
        c("size0", op, [x([0, 3]), x([3])])
        c("transposed", op, [x([3, 2], [("t", [])]), x([2, 3])])
        c("expanded", op, [x([3, 1], [("expand", [3, 4])]), x([4])])
        c("int32_extremes", op, [T([2147483647, -2147483648, -1, 0], "int32"),
                                 T([-1, -1, 2147483647, -2147483648], "int32")])
        c("int64", op, [x([2, 3], dtype="int64"), x([2, 3], dtype="int64")])
        c("int32_int64", op, [x([2, 3]), x([3], dtype="int64")])
        c("uint8", op, [T([0, 255, 170, 15], "uint8"), T([255, 255, 85, 240], "uint8")])
        c("uint8_int32", op, [T([0, 255, 170], "uint8"), T([-1, 256, 85], "int32")])
        c("bool_bool", op, [T([1, 1, 0, 0], "bool"), T([1, 0, 1, 0], "bool")])
        c("bool_int32", op, [T([1, 1, 0, 0], "bool"), T([3, 2, -1, 0], "int32")])
        c("scalar_int", op, [x([2, 3]), S(6)])
        c("scalar_negative", op, [x([3], dtype="int64"), S(-8)])
        c("scalar_bool", op, [T([1, 0, 1], "bool"), S(True)])
        c("bool_scalar_int", op, [T([1, 0, 1], "bool"), S(3)])
        c("reverse_scalar", op, [S(12), x([2, 3])])
        c("float32", op, [F(rng, [3]), x([3])], error="DTypeError")
        c("int_scalar_float", op, [x([3]), S(1.5)], error="DTypeError")
        c("broadcast_mismatch", op, [x([2, 3]), x([2])], error="ShapeError")
