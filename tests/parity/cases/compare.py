"""Comparisons eq, ne, lt, le, gt, ge: results are bool; operands promote first."""

from cases import INF, NAN, B, F, I
from fixture import S, T

SPECIALS = [NAN, INF, -INF, 0.0, -0.0, 1.0]


def build(fam, rng):
    c = fam.case
    for op in ("eq", "ne", "lt", "le", "gt", "ge"):
        # Small integral-valued floats so that equal pairs occur.
        def x(shape, view=None):
            return I(rng, shape, "int32", -2, 3, view) | {"dtype": "float32"}

        c("same_shape", op, [x([2, 3]), x([2, 3])])
        c("broadcast", op, [x([3, 1]), x([1, 4])])
        c("rank0", op, [x([]), x([2, 2])])
        c("size0", op, [x([0, 2]), x([2])])
        c("transposed", op, [x([3, 2], [("t", [])]), x([2, 3])])
        c("expanded", op, [x([2, 1], [("expand", [2, 3])]), x([3])])
        c("scalar_int", op, [x([2, 3]), S(1)])
        c("scalar_float", op, [F(rng, [2, 3]), S(0.5)])
        c("scalar_nan", op, [F(rng, [3]), S(NAN)])
        c("scalar_inf", op, [F(rng, [3]), S(INF)])
        pairs = [[a, b] for a in SPECIALS for b in SPECIALS]
        c("nonfinite", op, [T([p[0] for p in pairs]), T([p[1] for p in pairs])])
        c("int32", op, [I(rng, [2, 3], lo=-2, hi=3), I(rng, [2, 3], lo=-2, hi=3)])
        c("int32_int64", op, [I(rng, [4], lo=-2, hi=3), I(rng, [4], "int64", -2, 3)])
        c("int_float", op, [T([1, 2, 3], "int32"), T([1.0, 2.5, 2.5])])
        c("int_scalar_float", op, [T([1, 2, 3], "int64"), S(2.5)])
        c("uint8", op, [I(rng, [4], "uint8", 0, 3), I(rng, [4], "uint8", 0, 3)])
        c("bool", op, [T([1, 1, 0, 0], "bool"), T([1, 0, 1, 0], "bool")])
        c("bool_int", op, [B(rng, [4]), I(rng, [4], lo=-1, hi=3)])
        c("broadcast_mismatch", op, [x([3]), x([4])], error="ShapeError")
