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

    c("1d", "mode", [T([1.0, 2.0, 2.0, 1.0, 3.0], shape=[5])])
    c("rows", "mode", [T([3.0, 1.0, 3.0, 2.0, 5.0, 5.0, 4.0, 4.0], shape=[2, 4])], args={"dim": 1})
    c("dim0_keepdim", "mode", [I(rng, [6, 3], lo=0, hi=3)], args={"dim": 0, "keepdim": True})
    c("basic", "detach", [x([2, 3])])
