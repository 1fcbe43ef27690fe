"""unique (flattened and along a dim, inverse and counts, NaN, bool, rank 0, size 0) and
unique_consecutive (the same options), on the device's sort, scan and scatter kernels."""

from cases import NAN, B, F, I
from fixture import T


def build(fam, rng):
    c = fam.case
    u, uc = "unique", "unique_consecutive"
    both = {"return_inverse": True, "return_counts": True}
    c("ints_both", u, [I(rng, [3, 5], lo=-2, hi=3)], args=both)
    c("int64_inverse", u, [I(rng, [12], "int64", lo=0, hi=5)], args={"return_inverse": True})
    c("floats_counts", u, [T([0.5, -1.0, 0.5, 2.0, -0.0, 0.0, 2.0], shape=[7])], args={"return_counts": True})
    c("nan_each_distinct", u, [T([1.0, NAN, 1.0, NAN, -2.0], shape=[5])], args=both)
    c("bool", u, [B(rng, [9])], args=both)
    c("uint8", u, [I(rng, [8], "uint8", 0, 4)])
    c("rank0", u, [T([3.5], shape=[])], args=both)
    c("size0", u, [T([], shape=[0])], args=both)
    c("transposed", u, [I(rng, [3, 4], lo=0, hi=3, view=[("t", [])])], args=both)
    rows = T([1, 2, 0, 1, 2, 0, 0, 1, 5, 1, 2, 0, 0, 1, 4], "int64", [5, 3])
    c("dim0", u, [rows], args={"dim": 0, **both})
    c("dim1", u, [T([1, 0, 1, 2, 2, 3, 1, 2, 0, 1, 0, 0], "int32", [3, 4])], args={"dim": 1, **both})
    c("dim_neg_3d", u, [I(rng, [2, 3, 2], lo=0, hi=2)], args={"dim": -1, **both})
    c("dim_floats", u, [T([0.5, 1.0, 0.5, 1.0, -1.0, 2.0, 0.5, 0.75], shape=[4, 2])], args={"dim": 0, **both})
    c("dim_size0", u, [T([], shape=[0, 3])], args={"dim": 0, **both})
    c("ints_both", uc, [T([1, 1, 2, 2, 3, 1, 1, 2], "int64", [8])], args=both)
    c("floats", uc, [T([0.5, 0.5, NAN, NAN, 1.0, 1.0, -1.0], shape=[7])], args=both)
    c("2d_flat", uc, [T([1, 1, 2, 2, 2, 3], "int32", [2, 3])], args={"return_inverse": True})
    c("plain", uc, [F(rng, [6], -1.0, 1.0)])
    c("dim0", uc, [rows], args={"dim": 0, **both})
    c("dim1", uc, [T([1, 1, 2, 0, 0, 3, 1, 1, 2, 0, 0, 3], "int64", [2, 6])], args={"dim": 1, **both})
    c("rank0", uc, [T([2], "int64", [])], args=both)
    c("size0", uc, [T([], "int64", [0])], args=both)
    c("bool", uc, [T([1, 1, 0, 1, 0, 0], "bool", [6])], args=both)
