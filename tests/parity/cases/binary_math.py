"""Binary math: atan2, hypot, xlogy, logaddexp, logaddexp2, copysign (float32 results) and fmod,
remainder, floor_divide (the promoted dtype: integers stay integers) — broadcasting, scalars on
either side, promotion, non-contiguous operands, rank 0, size 0, NaN/±inf/±0 grids.

A scalar operand means what a Python scalar means to PyTorch; where PyTorch has no scalar
overload (atan2, hypot, logaddexp, logaddexp2; copysign and fmod on the left) the fixture
promotes it as a wrapped number (fixture._binary_math)."""

from cases import INF, NAN, B, F, I, binary_common, pairs
from fixture import S, T

SPECIALS = [NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 2.5]

# Per op: x range, y range; `ints`: what integer operands do — "float" (promote to float32),
# "same" (keep the integer dtype; 0 divisors raise), "error" (PyTorch refuses integer dtypes);
# `wide`: (x, y) pairs where a naive formula overflows or underflows inside.
OPS = {
    "atan2": dict(x=(-3.0, 3.0), y=(-3.0, 3.0), ints="float",
                  wide=[(1e30, 1e-30), (-1e30, 1e-30), (1e-30, -1e30), (3e38, 3e38), (1.0, 1e30)]),
    # NOTE: hypot(1e-20, 1e-20): x² is below the float32 normals, so x*x + y*y flushes to 0 on
    # GPUs; hypot(3e38, 3e38) overflows x² but not the result... which is still inf (4.2e38).
    "hypot": dict(x=(-3.0, 3.0), y=(-3.0, 3.0), ints="error",
                  wide=[(1e20, 1e20), (1e-20, 1e-20), (3e38, 3e38), (3e38, 1.0), (2e38, 1e38),
                        (1e-30, 1.0), (-3.0, 4.0)]),
    "xlogy": dict(x=(-3.0, 3.0), y=(0.01, 9.0), ints="float",
                  wide=[(0.0, 0.0), (0.0, -1.0), (0.0, INF), (1e30, 1e30), (-3e38, 1e-30),
                        (1e-30, 3e38)]),
    "logaddexp": dict(x=(-5.0, 5.0), y=(-5.0, 5.0), ints="error",
                      wide=[(100.0, 100.0), (-100.0, -100.0), (1000.0, 0.0), (-1000.0, -1000.0),
                            (88.0, 88.0), (89.0, 89.0), (3e38, 3e38), (1e-7, -1e-7)]),
    "logaddexp2": dict(x=(-5.0, 5.0), y=(-5.0, 5.0), ints="error",
                       wide=[(100.0, 100.0), (-100.0, -100.0), (1000.0, 0.0),
                             (-1000.0, -1000.0), (127.0, 127.0), (128.0, 128.0), (3e38, 3e38)]),
    "copysign": dict(x=(-3.0, 3.0), y=(-3.0, 3.0), ints="float", wide=[(3e38, -1e-30)]),
    "fmod": dict(x=(-9.0, 9.0), y=(0.5, 3.0), ints="same",
                 wide=[(1e30, 3.0), (3e38, 1e-3), (1e-30, 1e30), (-7.5, 1e-30)]),
    "remainder": dict(x=(-9.0, 9.0), y=(0.5, 3.0), ints="same",
                      wide=[(1e30, 3.0), (3e38, 1e-3), (1e-30, 1e30), (-1e-30, 1e30)]),
    "floor_divide": dict(x=(-9.0, 9.0), y=(0.5, 3.0), ints="same",
                         wide=[(1e30, 3.0), (3e38, 0.5), (1e-30, 1e30), (-1e-30, 1e30)]),
    # ±0, the smallest subnormal and normal, the largest finite float, equal operands.
    "nextafter": dict(x=(-3.0, 3.0), y=(-3.0, 3.0), ints="error",
                      wide=[(0.0, 1.0), (-0.0, -1.0), (1e-45, 0.0), (-1e-45, 1.0),
                            (1.1754944e-38, 0.0), (3.4028235e38, INF), (-3.4028235e38, 0.0),
                            (2.5, 2.5), (0.0, -0.0)]),
}
# Quotients that are inexact in float32: 1 / 0.1f rounds to 10 but the true quotient is
# 9.99999985, so floor_divide is 9 and the remainder 0.09999999 (floor(a / b) gives 10 and ~0).
INEXACT = ([1.0, -1.0, 0.3, 7.0, 0.7, 5.0], [0.1, 0.1, 0.1, 0.7, 0.1, -0.3])


def build(fam, rng):
    c = fam.case
    for op, spec in OPS.items():
        (lo, hi), (ylo, yhi) = spec["x"], spec["y"]
        binary_common(c, rng, op, lo, hi, ylo, yhi)
        xs, ys = pairs(SPECIALS)
        c("nonfinite", op, [T(xs), T(ys)])
        wx, wy = zip(*spec["wide"])
        c("wide", op, [T(list(wx)), T(list(wy))])
        divides = op in ("fmod", "remainder", "floor_divide")
        if divides:
            # Signs: C's fmod takes the dividend's, Python's remainder the divisor's.
            c("negative_divisor", op, [F(rng, [2, 3], -9.0, 9.0), F(rng, [3], -3.0, -0.5)])
            c("inexact_quotient", op, [T(INEXACT[0]), T(INEXACT[1])])

        # Scalars on either side.
        c("scalar_float", op, [F(rng, [2, 3], lo, hi), S(-1.5 if not divides else 1.5)])
        c("scalar_int", op, [F(rng, [2, 3], lo, hi), S(2)])
        c("scalar_nan", op, [F(rng, [3], lo, hi), S(NAN)])
        c("reverse_scalar_float", op, [S(2.5), F(rng, [2, 3], ylo, yhi)])
        c("reverse_scalar_int", op, [S(-3), F(rng, [2, 3], ylo, yhi)])
        c("scalar_noncontiguous", op, [F(rng, [3, 2], lo, hi, [("t", [])]), S(0.75)])

        # Dtypes. Integer divisors stay nonzero here; division by zero has its own cases below.
        ints = spec["ints"]
        err = "DTypeError" if ints == "error" else None
        nz = dict(lo=1, hi=9)
        c("int32_int32", op, [I(rng, [2, 3], lo=-9, hi=10), I(rng, [2, 3], **nz)], error=err)
        c("int64_int32", op, [I(rng, [2, 3], "int64", -9, 10), I(rng, [3], **nz)], error=err)
        c("uint8_uint8", op, [I(rng, [4], "uint8", 0, 255), I(rng, [4], "uint8", 1, 20)],
          error=err)
        c("int_negative", op, [T([-7, 7, -7, 7, 0, -1], "int32"), T([2, 2, -2, -2, 3, 5], "int32")],
          error=err)
        c("int32_float32", op, [I(rng, [2, 3], lo=-9, hi=10), F(rng, [3], ylo, yhi)])
        c("float32_int64", op, [F(rng, [2, 3], lo, hi), I(rng, [2, 3], "int64", **nz)])
        c("int32_scalar_int", op, [I(rng, [3], lo=-9, hi=10), S(3)], error=err)
        c("int32_scalar_float", op, [I(rng, [3], lo=-9, hi=10), S(2.5)])
        c("reverse_scalar_int_int64", op, [S(7), I(rng, [3], "int64", **nz)], error=err)
        c("int32_rank0_int64", op, [I(rng, [3], lo=-9, hi=10), I(rng, [], "int64", **nz)],
          error=err)
        c("int_noncontiguous", op, [I(rng, [3, 2], view=[("t", [])], lo=-9, hi=10),
                                    I(rng, [2, 1], **nz)], error=err)
        # bool promotes to float32 for float ops; fmod/remainder/floor_divide refuse bool.
        boolerr = "DTypeError" if ints != "float" else None
        c("bool_bool", op, [T([1, 1, 0, 0], "bool"), T([1, 0, 1, 1], "bool")], error=boolerr)
        c("bool_float32", op, [B(rng, [4]), F(rng, [4], ylo, yhi)])
        if divides:
            # PyTorch checks integer divisors: RuntimeError("ZeroDivisionError"). A tensor
            # divisor's zeros are a value check (on WebGPU raised with the first read).
            c("int_by_scalar_zero", op, [T([1, -1, 6], "int64"), S(0)], error="TorchError")
            for dt in ("int64", "int32", "uint8"):
                c(f"{dt}_by_tensor_zero", op, [T([1, 5, 6], dt), T([2, 0, 1], dt)], error="TorchError")
            # (A scalar 0.0 would read as the integer 0 in JavaScript, so a float tensor.)
            c("int_by_float_zero", op, [T([1, -1, 0], "int32"), T([0.0, -0.0, 0.0])])
