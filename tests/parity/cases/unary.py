"""Unary math: neg, exp, relu, abs, sqrt, log, sigmoid, tanh, square, sin, cos — domains, NaN/±inf,
integer and bool inputs, rank 0, size 0, non-contiguous views."""

from cases import INF, NAN, B, F, I
from fixture import T

# Random input range per op: (lo, hi). sqrt/log get positive inputs (their negatives are NaN,
# covered by the specials).
RANGE = {"sqrt": (0.0, 9.0), "log": (0.01, 9.0), "exp": (-9.0, 9.0), "sin": (-7.0, 7.0),
         "cos": (-7.0, 7.0)}
SPECIALS = [NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-30, -1e-30, 1e30, 3.4e38]
# NOTE: WGSL only bounds sin/cos error inside [-pi, pi]; huge arguments are their own case so a
# backend's range reduction shows up by name instead of failing "specials".
HUGE = [1e30, 3.4e38]
# Wider values, where each op has its own edge (overflow, saturation, denormals, large arguments).
WIDE = {
    "exp": [-104.0, -88.0, -20.0, 20.0, 88.0, 88.7, 89.0],
    "log": [2e-38, 1e-10, 1e10, 3e38],
    "sqrt": [2e-38, 1e-10, 2.0, 1e10, 3e38],
    "sigmoid": [-100.0, -30.0, -10.0, 10.0, 17.0, 30.0, 100.0],
    "tanh": [-100.0, -10.0, -0.001, 0.001, 9.0, 10.0, 100.0],
    "sin": [3.14159265, -3.14159265, 6.28318531, 10.0, 100.0],
    "cos": [3.14159265, -3.14159265, 6.28318531, 10.0, 100.0],
    "square": [1e-18, -1e20, 1.8e19, 2e19],  # 1e-18² is still a normal float32
}
INT_OUT = {"neg", "relu", "abs", "square"}  # ops that keep an integer dtype


def build(fam, rng):
    c = fam.case
    for op in ("neg", "exp", "relu", "abs", "sqrt", "log", "sigmoid", "tanh", "square", "sin",
               "cos"):
        lo, hi = RANGE.get(op, (-3.0, 3.0))

        def x(shape, view=None):
            return F(rng, shape, lo, hi, view)

        c("2d", op, [x([2, 3])])
        c("1d_long", op, [x([37])])
        c("rank0", op, [x([])])
        c("size0", op, [x([0])])
        c("size0_2d", op, [x([2, 0])])
        c("transposed", op, [x([3, 2], [("transpose", [0, 1])])])
        c("permuted", op, [x([2, 3, 4], [("permute", [2, 0, 1])])])
        c("expanded", op, [x([3, 1], [("expand", [2, 3, 4])])])
        if op in ("sin", "cos"):
            c("specials", op, [T([v for v in SPECIALS if v not in HUGE])])
            c("huge", op, [T(HUGE)])
        else:
            c("specials", op, [T(SPECIALS)])
        if op in WIDE:
            c("wide", op, [T(WIDE[op])])
        # Integer inputs: neg/relu/abs/square stay integral, the rest compute in float32.
        ilo = 0 if op in ("sqrt", "log") else -9
        c("int32", op, [I(rng, [2, 3], lo=ilo)])
        c("int64", op, [I(rng, [4], "int64", lo=ilo)])
        if op not in ("neg", "relu"):
            c("uint8", op, [I(rng, [4], "uint8", 0, 20)])
        if op not in INT_OUT:
            c("bool", op, [B(rng, [4])])
    c("bool", "neg", [B(rng, [3])], error="DTypeError")
    c("bool", "relu", [B(rng, [3])], error="DTypeError")
