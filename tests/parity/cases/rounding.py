"""Rounding and sign: ceil, floor, round (half to even), trunc, sign, positive keep their dtype
(integers stay integers; PyTorch refuses bool except for sign); frac is float-only."""

from cases import INF, NAN, B, I, unary_common
from fixture import T

SPECIALS = [NAN, INF, -INF, 0.0, -0.0]
# Halves (round ties to even: 0.5 → 0, 2.5 → 2, -0.5 → -0), values just off a half or an
# integer, and magnitudes where every float32 is already an integer (2^23 + 1, 1e30).
EDGES = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.49999997, 0.50000006, 1.0000001,
         -0.9999999, 0.1, -0.1, 8388609.0, -8388609.0, 1e30, -3.4e38]


def build(fam, rng):
    c = fam.case
    for op in ("ceil", "floor", "round", "trunc", "sign", "positive", "frac"):
        unary_common(c, rng, op, -5.0, 5.0)
        c("specials", op, [T(SPECIALS + EDGES)])
        if op == "frac":
            # PyTorch's frac is float-only.
            c("int32", op, [I(rng, [3])], error="DTypeError")
            c("bool", op, [B(rng, [3])], error="DTypeError")
            continue
        c("int32", op, [I(rng, [2, 3])])
        c("int64", op, [I(rng, [4], "int64")])
        c("int64_transposed", op, [I(rng, [3, 2], "int64", view=[("t", [])])])
        c("uint8", op, [I(rng, [4], "uint8", 0, 255)])
        # sign(bool) is the identity; the others refuse bool.
        c("bool", op, [B(rng, [4])], error=None if op == "sign" else "DTypeError")
