"""Binary arithmetic: add, sub, mul, div, pow, maximum, minimum — broadcasting, scalars on either
side, type promotion, alpha, non-contiguous operands, rank 0, size 0, NaN/±inf."""

from cases import INF, NAN, B, F, I
from fixture import S, T

SPECIALS = [NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 2.5]


def common(c, rng, op, lo=-3.0, hi=3.0, ylo=None, yhi=None):
    """The cases every float binary op gets; y's range defaults to x's."""
    ylo = lo if ylo is None else ylo
    yhi = hi if yhi is None else yhi

    def x(shape, view=None):
        return F(rng, shape, lo, hi, view)

    def y(shape, view=None):
        return F(rng, shape, ylo, yhi, view)

    c("same_shape", op, [x([2, 3]), y([2, 3])])
    c("broadcast_row", op, [x([2, 3]), y([3])])
    c("broadcast_col_row", op, [x([3, 1]), y([1, 4])])
    c("broadcast_3d", op, [x([2, 1, 3]), y([4, 1])])
    c("broadcast_lhs_smaller", op, [x([3]), y([2, 3])])
    c("rank0_lhs", op, [x([], ), y([2, 3])])
    c("rank0_rhs", op, [x([2, 2]), y([])])
    c("rank0_both", op, [x([]), y([])])
    c("size0", op, [x([0, 3]), y([3])])
    c("size0_broadcast", op, [x([2, 0]), y([2, 1])])
    c("transposed", op, [x([3, 2], [("transpose", [0, 1])]), y([2, 3])])
    c("both_transposed", op, [x([3, 2], [("t", [])]), y([3, 2], [("t", [])])])
    c("permuted", op, [x([2, 3, 4], [("permute", [2, 0, 1])]), y([4, 2, 3])])
    c("expanded", op, [x([3, 1], [("expand", [3, 4])]), y([3, 4])])
    c("expanded_rank0", op, [x([], [("expand", [2, 3])]), y([2, 3])])
    specials = [[a, b] for a in SPECIALS for b in SPECIALS]
    c("nonfinite", op, [T([p[0] for p in specials]), T([p[1] for p in specials])])
    c("broadcast_mismatch", op, [x([2, 3]), y([2, 4])], error="ShapeError")


def build(fam, rng):
    c = fam.case
    for op in ("add", "sub", "mul", "div"):
        pos = op == "div"  # keep divisors away from 0 in the random cases
        common(c, rng, op, ylo=0.5 if pos else None, yhi=3.0 if pos else None)
        c("scalar_int", op, [F(rng, [2, 3]), S(2)])
        c("scalar_float", op, [F(rng, [2, 3]), S(-1.5)])
        c("scalar_nan", op, [F(rng, [3]), S(NAN)])
        c("scalar_inf", op, [F(rng, [3]), S(INF)])
        c("reverse_scalar_int", op, [S(3), F(rng, [2, 3], 0.5, 3.0)])
        c("reverse_scalar_float", op, [S(2.5), F(rng, [2, 3], 0.5, 3.0)])
        c("scalar_rank0", op, [F(rng, []), S(0.5)])
        c("scalar_size0", op, [F(rng, [0, 2]), S(2)])
        c("scalar_noncontiguous", op, [F(rng, [3, 2], view=[("t", [])]), S(1.5)])
        # Type promotion (integer operands use nonzero values so div stays finite).
        nz = dict(lo=1, hi=9)
        c("int32_int32", op, [I(rng, [2, 3], **nz), I(rng, [2, 3], **nz)])
        c("int64_int64", op, [I(rng, [2, 3], "int64", **nz), I(rng, [3], "int64", **nz)])
        c("int32_int64", op, [I(rng, [2, 3], **nz), I(rng, [2, 3], "int64", **nz)])
        c("uint8_int32", op, [I(rng, [3], "uint8", 10, 20), I(rng, [3], **nz)])
        c("int64_float32", op, [I(rng, [2, 3], "int64"), F(rng, [2, 3], 0.5, 3.0)])
        # PyTorch refuses `-` with any bool operand.
        nobool = "DTypeError" if op == "sub" else None
        c("bool_int64", op, [B(rng, [4]), I(rng, [4], "int64", **nz)], error=nobool)
        c("bool_float32", op, [B(rng, [4]), F(rng, [4], 0.5, 3.0)], error=nobool)
        c("uint8_bool", op, [I(rng, [4], "uint8", 10, 20), T([1, 1, 1, 1], "bool")], error=nobool)
        # A rank-0 tensor promotes like a scalar: it can raise the category, never the width.
        c("int32_rank0_int64", op, [I(rng, [3], **nz), I(rng, [], "int64", **nz)])
        c("int32_rank0_float32", op, [I(rng, [3], **nz), F(rng, [], 0.5, 3.0)])
        c("rank0_int64_rank0_int32", op, [I(rng, [], "int64", **nz), I(rng, [], "int32", **nz)])
        c("int32_scalar_int", op, [I(rng, [3], **nz), S(2)])
        c("int32_scalar_float", op, [I(rng, [3], **nz), S(0.5)])
        c("int64_scalar_bool", op, [I(rng, [3], "int64", **nz), S(True)], error=nobool)
        c("bool_scalar_int", op, [B(rng, [3]), S(2)], error=nobool)
        c("bool_scalar_float", op, [B(rng, [3]), S(2.5)], error=nobool)
        c("uint8_scalar_int", op, [I(rng, [3], "uint8", 1, 50), S(3)])
        c("reverse_int_scalar_int32", op, [S(7), I(rng, [3], **nz)])
        c("int_noncontiguous", op, [I(rng, [3, 2], view=[("t", [])], **nz), I(rng, [2, 1], **nz)])
    # Integer arithmetic wraps as C does; int / int is true division into float32.
    c("uint8_wraps", "add", [T([200, 255, 1], "uint8"), T([100, 1, 2], "uint8")])
    c("uint8_wraps", "sub", [T([1, 0, 5], "uint8"), T([2, 1, 3], "uint8")])
    c("uint8_wraps", "mul", [T([20, 16, 3], "uint8"), T([20, 16, 5], "uint8")])
    c("int_negative", "mul", [T([-3, 4, -5], "int32"), T([2, -6, -7], "int32")])
    c("int_by_zero", "div", [T([1, -1, 0, 6], "int32"), T([0, 0, 0, 4], "int32")])
    c("int_exact", "div", [T([6, -9, 7], "int64"), T([3, 3, 2], "int64")])
    c("float_by_signed_zero", "div", [T([1.0, 1.0, -1.0, 0.0]), T([0.0, -0.0, 0.0, 0.0])])
    c("bool_bool", "add", [T([1, 1, 0, 0], "bool"), T([1, 0, 1, 0], "bool")])
    c("bool_bool", "mul", [T([1, 1, 0, 0], "bool"), T([1, 0, 1, 0], "bool")])
    c("bool_bool", "div", [T([1, 1, 0, 0], "bool"), T([1, 1, 1, 1], "bool")])
    c("bool_bool", "sub", [T([1, 0], "bool"), T([0, 1], "bool")], error="DTypeError")
    # alpha: add(x, y, alpha=a) = x + a*y. Two float operations (PyTorch fuses them into one
    # rounding; WGSL need not), so float cases allow an ULP or so.
    ulp = (1e-6, 1e-6)
    for op in ("add", "sub"):
        c("alpha_float", op, [F(rng, [2, 3]), F(rng, [2, 3])], args={"alpha": 2.5}, tol=ulp)
        c("alpha_int_on_float", op, [F(rng, [2, 3]), F(rng, [3])], args={"alpha": -2}, tol=ulp)
        c("alpha_int", op, [I(rng, [2, 3]), I(rng, [2, 3])], args={"alpha": 3})
        c("alpha_scalar_other", op, [F(rng, [3]), S(2)], args={"alpha": 3}, tol=ulp)
        c("alpha_noncontiguous", op, [F(rng, [3, 2], view=[("t", [])]), F(rng, [2, 1])],
          args={"alpha": 0.5}, tol=ulp)
        c("alpha_float_on_int", op, [I(rng, [3]), I(rng, [3])], args={"alpha": 2.5},
          error="DTypeError")

    # pow: bases kept positive for the random cases; signs and specials below.
    common(c, rng, "pow", 0.1, 3.0, -2.0, 2.0)
    for e in (2, 3, 0, -1, 0.5, -0.5, 1.5):
        c(f"scalar_exp_{e}", "pow", [F(rng, [2, 3], 0.1, 3.0), S(e)])
    c("scalar_exp_2_negative_base", "pow", [F(rng, [2, 3]), S(2)])
    c("reverse_scalar_base", "pow", [S(2), F(rng, [2, 3])])
    c("reverse_scalar_base_float", "pow", [S(0.5), F(rng, [2, 3])])
    c("negative_base_integral_exp", "pow", [T([-2.0, -2.0, -3.0, -0.5]), T([2.0, 3.0, -1.0, -2.0])])
    c("negative_base_fractional_exp", "pow", [T([-8.0, -1.0]), T([1 / 3, 0.5])])
    c("zero_base", "pow", [T([0.0, 0.0, 0.0, -0.0]), T([0.0, 2.0, -1.0, -1.0])])
    c("int_int", "pow", [T([2, -3, 5, 0, 1], "int64"), T([3, 3, 0, 2, 7], "int64")])
    c("int32_scalar_int", "pow", [I(rng, [4], lo=-5, hi=6), S(2)])
    c("int32_scalar_float", "pow", [I(rng, [4], lo=1, hi=6), S(0.5)])
    c("uint8_scalar_int", "pow", [T([2, 3, 16], "uint8"), S(2)])
    c("int_float_tensor", "pow", [T([2, 3], "int32"), T([2.0, 0.5])])
    c("int_negative_exp", "pow", [T([2, 3], "int64"), S(-1)], error="TorchError")

    for op in ("maximum", "minimum"):
        common(c, rng, op)
        c("int32", op, [I(rng, [2, 3]), I(rng, [2, 3])])
        c("int32_int64", op, [I(rng, [3]), I(rng, [3], "int64")])
        c("int_float", op, [I(rng, [3]), F(rng, [3])])
        c("uint8", op, [I(rng, [4], "uint8", 0, 255), I(rng, [4], "uint8", 0, 255)])
        c("bool", op, [T([1, 1, 0, 0], "bool"), T([1, 0, 1, 0], "bool")])
