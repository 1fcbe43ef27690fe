"""F.interpolate (nearest, nearest-exact, linear, bilinear, bicubic, trilinear; size or
scale_factor; align_corners; up and down), scatter_reduce (sum, prod, mean, amax, amin, with and
without include_self, an index smaller than self), mode, and torch.detach."""

from cases import F, I
from fixture import T


def build(fam, rng):
    c = fam.case

    def x(shape, view=None, lo=-3.0, hi=3.0):
        return F(rng, shape, lo, hi, view)

    it = "interpolate"
    c("nearest_up", it, [x([1, 2, 3, 4])], args={"size": [5, 7]})
    c("nearest_scale", it, [x([2, 1, 5])], args={"scale_factor": 2.0})
    c("nearest_down", it, [x([1, 1, 7, 6])], args={"size": [3, 4]})
    c("nearest_exact", it, [x([1, 1, 5, 4])], args={"size": [3, 7], "mode": "nearest-exact"})
    c("linear", it, [x([2, 2, 6])], args={"size": 9, "mode": "linear"})
    c("linear_align", it, [x([1, 2, 5])], args={"size": 8, "mode": "linear", "align_corners": True})
    c("bilinear_up", it, [x([1, 2, 3, 4])], args={"size": [6, 5], "mode": "bilinear"})
    c("bilinear_down", it, [x([1, 1, 8, 7])], args={"size": [3, 4], "mode": "bilinear"})
    c("bilinear_scale", it, [x([1, 1, 3, 3])], args={"scale_factor": 1.5, "mode": "bilinear"})
    c("bilinear_align", it, [x([1, 2, 4, 3])], args={"size": [7, 5], "mode": "bilinear", "align_corners": True})
    c("bicubic", it, [x([1, 1, 4, 5])], args={"size": [7, 6], "mode": "bicubic"})
    c("bicubic_align", it, [x([1, 1, 4, 4])], args={"size": [6, 6], "mode": "bicubic", "align_corners": True})
    c("trilinear", it, [x([1, 1, 2, 3, 2])], args={"size": [3, 4, 3], "mode": "trilinear"})
    c("bad_mode_rank", it, [x([1, 2, 5])], args={"size": [4, 4], "mode": "bilinear"}, error="TorchError")
    c("both_given", it, [x([1, 2, 5])], args={"size": 4, "scale_factor": 2.0}, error="TorchError")

    sr = "scatter_reduce"
    idx = T([0, 2, 0, 1, 2], "int64", [5])
    for red in ("sum", "prod", "mean", "amax", "amin"):
        for inc in (True, False):
            c(f"{red}_{'self' if inc else 'noself'}", sr, [x([4]), idx, x([5])],
              args={"dim": 0, "reduce": red, "include_self": inc})
    c("2d_dim1", sr, [x([2, 4]), T([1, 1, 0, 3, 0, 2], "int64", [2, 3]), x([2, 3])],
      args={"dim": 1, "reduce": "amax"})
    c("smaller_index", sr, [x([3, 4]), T([2, 0, 1, 2], "int64", [2, 2]), x([3, 3])],
      args={"dim": 0, "reduce": "sum"})
    c("smaller_index_amin", sr, [x([3, 4]), T([2, 0, 1, 2], "int64", [2, 2]), x([3, 3])],
      args={"dim": 0, "reduce": "amin", "include_self": False})
    c("int_mean", sr, [I(rng, [4]), idx, I(rng, [5])], args={"dim": 0, "reduce": "mean"})
    # The core kernel: atomic reductions (many sources per place), every dtype, NaN, views.
    many = T(rng.integers(0, 3, 40).tolist(), "int64", [40])
    for red in ("prod", "amax", "amin", "mean"):
        c(f"{red}_contended", sr, [x([3], lo=0.5, hi=1.5), many, x([40], lo=0.5, hi=1.5)],
          args={"dim": 0, "reduce": red})
    for red in ("sum", "prod", "amax", "amin"):
        for dt in ("int32", "int64"):
            c(f"{red}_{dt}", sr, [I(rng, [2, 3], dt, -4, 5), T([2, 0, 2, 1, 1, 0], "int64", [2, 3]),
                                  I(rng, [2, 3], dt, -4, 5)], args={"dim": 1, "reduce": red, "include_self": red != "sum"})
        c(f"{red}_uint8", sr, [I(rng, [4], "uint8", 0, 9), idx, I(rng, [5], "uint8", 0, 9)],
          args={"dim": 0, "reduce": red, "include_self": False})
    nan = T([1.0, "nan", -2.0, 0.5, "inf", "-inf"], shape=[6])
    for red in ("amax", "amin", "prod", "sum"):
        c(f"{red}_nan_inf", sr, [x([3]), T([0, 1, 2, 0, 2, 1], "int64", [6]), nan],
          args={"dim": 0, "reduce": red})
    c("neg_dim", sr, [x([3, 4]), T([3, 0, 0, 1, 2, 3], "int64", [3, 2]), x([3, 2])],
      args={"dim": -1, "reduce": "amin", "include_self": False})
    c("transposed", sr, [x([4, 3], [("t", [])]), T([0, 2, 2, 1, 0, 0], "int64", [2, 3]),
                         x([3, 2], [("t", [])])], args={"dim": 0, "reduce": "prod"})
    c("rank0", sr, [x([]), T([0], "int64", []), x([])], args={"dim": 0, "reduce": "amax", "include_self": False})
    c("size0", sr, [x([3]), T([], "int64", [0]), x([0])], args={"dim": 0, "reduce": "amin"})
    c("prod_zeros", sr, [T([2.0, 0.0, 3.0], shape=[3]), T([0, 0, 1, 2, 2], "int64", [5]),
                         T([0.0, 1.5, -2.0, 0.0, 0.0], shape=[5])], args={"dim": 0, "reduce": "prod"})
    c("amax_ties", sr, [T([1.0, 2.0], shape=[2]), T([0, 0, 1], "int64", [3]), T([1.0, 0.5, 2.0], shape=[3])],
      args={"dim": 0, "reduce": "amax"})
    c("bad_reduce", sr, [x([3]), T([0], "int64", [1]), x([1])], args={"dim": 0, "reduce": "median"},
      error="TorchError")

    c("1d", "mode", [T([1.0, 2.0, 2.0, 1.0, 3.0], shape=[5])])
    c("rows", "mode", [T([3.0, 1.0, 3.0, 2.0, 5.0, 5.0, 4.0, 4.0], shape=[2, 4])], args={"dim": 1})
    c("dim0_keepdim", "mode", [I(rng, [6, 3], lo=0, hi=3)], args={"dim": 0, "keepdim": True})
    c("basic", "detach", [x([2, 3])])
