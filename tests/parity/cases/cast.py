"""to(dtype): float -> int truncates toward zero, anything -> bool is `!= 0` (NaN is true),
int -> uint8 wraps modulo 256, and casts of non-contiguous, rank-0 and size-0 tensors."""

from cases import INF, NAN, B, F, I
from fixture import T

DTS = ("float32", "int32", "int64", "uint8", "bool")


def build(fam, rng):
    c = fam.case
    trunc = T([-2.5, -1.7, -0.5, -0.0, 0.0, 0.5, 1.7, 2.999, 100.25, -100.25])
    c("float32_int32", "to", [trunc], args={"dtype": "int32"})
    c("float32_int64", "to", [trunc], args={"dtype": "int64"})
    c("float32_uint8", "to", [T([0.0, 0.5, 1.7, 254.9, 255.0])], args={"dtype": "uint8"})
    c("float32_bool", "to", [T([0.0, -0.0, 0.1, -2.0, NAN, INF, -INF, 1e-30])],
      args={"dtype": "bool"})
    c("float32_float32", "to", [F(rng, [2, 3])], args={"dtype": "float32"})
    c("int32_float32", "to", [I(rng, [2, 3], lo=-100, hi=100)], args={"dtype": "float32"})
    c("int32_int64", "to", [I(rng, [4], lo=-100, hi=100)], args={"dtype": "int64"})
    c("int64_int32", "to", [I(rng, [4], "int64", -100, 100)], args={"dtype": "int32"})
    c("int64_float32", "to", [T([-2147483648, 2147483647, 16777217, -5], "int64")],
      args={"dtype": "float32"})
    c("int32_uint8_wraps", "to", [T([0, 255, 256, 300, -1, -256], "int32")],
      args={"dtype": "uint8"})
    c("int64_bool", "to", [T([0, 1, -1, 7], "int64")], args={"dtype": "bool"})
    c("uint8_float32", "to", [T([0, 1, 128, 255], "uint8")], args={"dtype": "float32"})
    c("uint8_int32", "to", [T([0, 1, 128, 255], "uint8")], args={"dtype": "int32"})
    c("uint8_bool", "to", [T([0, 1, 128, 255], "uint8")], args={"dtype": "bool"})
    for dt in DTS:
        c(f"bool_{dt}", "to", [T([1, 0, 1], "bool")], args={"dtype": dt})
    c("transposed", "to", [F(rng, [3, 2], -9, 9, [("t", [])])], args={"dtype": "int32"})
    c("expanded", "to", [I(rng, [2, 1], view=[("expand", [2, 3])])], args={"dtype": "float32"})
    c("permuted_bool", "to", [B(rng, [2, 3, 2], [("permute", [2, 1, 0])])],
      args={"dtype": "float32"})
    c("rank0", "to", [F(rng, [], -9, 9)], args={"dtype": "int64"})
    c("size0", "to", [F(rng, [0, 3])], args={"dtype": "bool"})
