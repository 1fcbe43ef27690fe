"""The sweep's samplers for the convolution family (tests/parity/sweep.py registers them):
convolutions and their transposes, max/average pooling, adaptive pooling, max unpooling,
`F.pad`/`constant_pad_nd` and `F.interpolate`.

Each op draws from its own generator (seeded from its name), so these cases do not move other
samplers' inputs. Shapes stay small: the core ops' gradients are checked up to 400 input
elements, the TS layer's up to 64 (fixture_grad). A sampler may name a case's op differently from
its entry (`max_pool2d_with_indices` for `max_pool2d(..., return_indices=True)`, a TS-layer call):
each case goes to the fixture file of its op (`Sweep.case`), so such samplers run in both builds.
"""

import math

import numpy as np
import torch

from fixture import T

NAN, INF = math.nan, math.inf
F = torch.nn.functional
SPECIALS = [NAN, INF, -INF, -0.0, 0.0, 1.0]


def _rng(op):
    return np.random.default_rng(sum(ord(c) * 31**i for i, c in enumerate(op)) % 2**32)


def _dims(op):
    return int(op.rstrip("d")[-1])


def _spatial(k, n):
    return [n] * k


# The layouts and variants the 1-D and 2-D cases cover already: the 3-D ops (slow on a software
# GPU) leave them out.
SKIP_3D = {"transposed", "sliced", "dilation", "weight_transposed", "ceil_padding", "exclude_pad_ceil",
           "dilation_ceil", "divides", "none_entry", "int_size", "uint8", "channel_mismatch"}


def conv(sw, op, tol):
    """conv{k}d / conv_transpose{k}d: stride, padding ('same'/'valid' too), dilation, groups,
    no bias, the input's layouts, 0-size, unbatched, specials, large values, dtypes, mismatches."""
    k = _dims(op)
    tr = "transpose" in op
    n = {1: 6, 2: 4, 3: 3}[k]
    ks = {1: 3, 2: 2, 3: 2}[k]
    sp, kk = _spatial(k, n), _spatial(k, ks)
    cin, cout = 2, 3
    w = sw.f([cin, cout] + kk if tr else [cout, cin] + kk)
    b = sw.f([cout])
    x = sw.f

    def c(name, inputs, **args):
        if k < 3 or name not in SKIP_3D:
            sw.case(op, name, inputs, args, tol=tol)

    c("contiguous", [x([2, cin] + sp), w, b])
    c("no_bias", [x([2, cin] + sp), w])
    c("stride_padding", [x([1, cin] + sp), w, b], stride=2, padding=1)
    c("dilation", [x([1, cin] + _spatial(k, n + 1)), w, b], dilation=2)
    if tr:
        c("output_padding", [x([1, cin] + sp), w, b], stride=2, output_padding=1)
        c("output_padding_too_big", [x([1, cin] + sp), w, b], stride=2, output_padding=2)
    else:
        c("padding_same", [x([1, cin] + sp), w, b], padding="same", dilation=2)
        c("padding_valid", [x([1, cin] + sp), w, b], padding="valid")
    wg = sw.f([4, 1] + kk)
    c("groups", [x([1, 4] + sp), wg, sw.f([4 if not tr else 2])], groups=2)
    # Layouts: channels and the last spatial dim swapped back, a stepped slice, an expanded batch.
    c("transposed", [x([1] + sp[:-1] + [n, cin] if k > 1 else [1, n, cin],
                       view=[("transpose", [1, k + 1])]), w, b])
    c("sliced", [x([1, cin] + sp[:-1] + [2 * n], view=[("slice", [k + 1, 0, 2 * n, 2])]), w, b])
    c("weight_transposed", [x([1, cin] + sp),
                            sw.f(([cout, cin] if tr else [cin, cout]) + kk,
                                 view=[("transpose", [0, 1])]), b])
    c("size0", [x([0, cin] + sp), w, b])
    c("unbatched", [x([cin] + sp), w, b])
    xs = sw.f([1, cin] + sp)
    xs["data"][: len(SPECIALS)] = T(SPECIALS)["data"]
    c("special", [xs, w, b])
    c("int64", [sw.i([1, cin] + sp, "int64"), sw.i(w["shape"], "int64")])
    c("channel_mismatch", [x([1, cin + 1] + sp), w, b])


# The pooling cases also run with return_indices (max_pool{k}d_with_indices).
WITH_INDICES = {"contiguous", "stride_padding", "ceil_padding", "dilation", "unbatched", "special",
                "nan_window", "neg_inf_padding", "ties", "int64", "bool", "rank_too_low",
                "window_too_big", "size0"}


def pool(sw, op, tol):
    """max_pool{k}d / avg_pool{k}d: stride, padding, dilation (max), ceil_mode, count_include_pad
    and divisor_override (avg), the layouts, 0-size, unbatched, specials, ties, dtypes, bad
    windows; max pooling's return_indices as `max_pool{k}d_with_indices`."""
    k = _dims(op)
    is_max = op.startswith("max")
    n = {1: 7, 2: 5, 3: 4}[k]
    sp = _spatial(k, n)
    x = sw.f

    def c(name, inputs, **args):
        if k == 3 and name in SKIP_3D:
            return
        sw.case(op, name, inputs, args, tol=tol)
        if is_max and name in WITH_INDICES:
            sw.case(f"{op}_with_indices", name, inputs, args)

    c("contiguous", [x([2, 2] + sp)], kernel_size=2)
    c("stride_padding", [x([1, 2] + sp)], kernel_size=3, stride=1, padding=1)
    c("ceil_mode", [x([1, 2] + sp)], kernel_size=2, stride=2, ceil_mode=True)
    c("ceil_padding", [x([1, 1] + sp)], kernel_size=3, stride=2, padding=1, ceil_mode=True)
    if is_max:
        c("dilation", [x([1, 2] + sp)], kernel_size=2, dilation=2, padding=1)
        c("dilation_ceil", [x([1, 1] + sp)], kernel_size=2, stride=2, dilation=2, ceil_mode=True)
    else:
        c("exclude_pad", [x([1, 2] + sp)], kernel_size=3, stride=2, padding=1,
          count_include_pad=False)
        c("exclude_pad_ceil", [x([1, 1] + sp)], kernel_size=2, stride=2, padding=1,
          ceil_mode=True, count_include_pad=False)
        if k > 1:
            c("divisor_override", [x([1, 2] + sp)], kernel_size=2, divisor_override=3)
    c("transposed", [x([1] + sp[:-1] + [n, 2], view=[("transpose", [1, k + 1])])],
      kernel_size=2)
    c("sliced", [x([1, 2] + sp[:-1] + [2 * n], view=[("slice", [k + 1, 1, 2 * n, 2])])],
      kernel_size=2)
    c("size0", [x([0, 2] + sp)], kernel_size=2)
    c("unbatched", [x([2] + sp)], kernel_size=2)
    xs = sw.f([1, 2] + sp)
    xs["data"][: 2 * len(SPECIALS)] = T(SPECIALS + SPECIALS[::-1])["data"]
    c("special", [xs], kernel_size=2)
    c("nan_window", [T([NAN, 1.0, NAN, 2.0] + [0.5] * (n**k - 4), shape=[1, 1] + sp)],
      kernel_size=n)
    c("neg_inf_padding", [T([-INF] * n**k, shape=[1, 1] + sp)], kernel_size=3, padding=1)
    c("ties", [T([1.0] * (2 * n**k), shape=[1, 2] + sp)], kernel_size=3, stride=2, padding=1)
    for dt in ("int64", "uint8", "bool"):
        c(dt, [sw.i([1, 2] + sp, dt)], kernel_size=2)
    c("pad_too_big", [x([1, 2] + sp)], kernel_size=2, padding=2)
    c("window_too_big", [x([1, 2] + sp)], kernel_size=n + 1)
    c("rank_too_low", [x(sp[-1:] if k > 1 else [n])], kernel_size=2)


def adaptive(sw, op, tol):
    """adaptive_avg/max_pool{k}d: output sizes dividing the input and not, larger than it, 1,
    None entries, the layouts, 0-size, unbatched, specials, ties, dtypes; max's return_indices."""
    k = _dims(op)
    is_max = "max" in op
    n = {1: 7, 2: 5, 3: 4}[k]
    sp = _spatial(k, n)
    x = sw.f
    one = lambda v: v if k == 1 else [v] * k

    def c(name, inputs, out):
        if k == 3 and name in SKIP_3D:
            return
        sw.case(op, name, inputs, {"output_size": out}, tol=tol)
        if is_max and name in ("contiguous", "larger", "unbatched", "special", "ties", "int64",
                               "size0"):
            sw.case(op, f"{name}_indices", inputs, {"output_size": out, "return_indices": True},
                    tol=tol)

    c("contiguous", [x([2, 2] + sp)], one(3))
    c("divides", [x([1, 2] + _spatial(k, 4))], one(2))
    c("larger", [x([1, 1] + _spatial(k, 3))], one(4))
    if k > 1:
        c("none_entry", [x([1, 2] + sp)], [None] + [2] * (k - 1))
        c("int_size", [x([1, 2] + sp)], 2)
    c("transposed", [x([1] + sp[:-1] + [n, 2], view=[("transpose", [1, k + 1])])], one(3))
    c("size0", [x([0, 2] + sp)], one(2))
    c("unbatched", [x([2] + sp)], one(3))
    xs = sw.f([1, 2] + sp)
    xs["data"][: 2 * len(SPECIALS)] = T(SPECIALS + SPECIALS[::-1])["data"]
    c("special", [xs], one(3))
    c("ties", [T([1.0] * (2 * n**k), shape=[1, 2] + sp)], one(3))
    for dt in ("int64", "bool"):
        c(dt, [sw.i([1, 2] + sp, dt)], one(3))
    c("negative_size", [x([1, 2] + sp)], one(-1))
    c("rank_too_low", [x([n])], one(2))


def unpool(sw, op, tol):
    """max_unpool{k}d of max_pool{k}d's (values, indices): default and given output sizes
    (with batch and channel dims too), stride and padding, the values' layouts, unbatched,
    specials, bad indices (dtype, shape, range) and a bad output size."""
    k = _dims(op)
    n = {1: 8, 2: 4, 3: 4}[k]
    sp = _spatial(k, n)

    def pooled(shape, kernel, **pargs):
        xin = torch.tensor(np.round(sw.rng.uniform(-3, 3, math.prod(shape)), 2),
                           dtype=torch.float32).reshape(shape)
        v, i = getattr(F, f"max_pool{k}d")(xin, kernel, return_indices=True, **pargs)
        return (T(v.reshape(-1).tolist(), "float32", list(v.shape)),
                T(i.reshape(-1).tolist(), "int64", list(i.shape)))

    def c(name, inputs, **args):
        sw.case(op, name, inputs, args, tol=tol)

    v, i = pooled([2, 2] + sp, 2)
    c("contiguous", [v, i], kernel_size=2)
    c("output_size", [v, i], kernel_size=2, output_size=_spatial(k, n + 1))
    c("output_size_bad", [v, i], kernel_size=2, output_size=_spatial(k, n + 2))
    c("output_size_length", [v, i], kernel_size=2, output_size=[n] * (k + 1))
    v2, i2 = pooled([1, 2] + sp, 3, stride=2, padding=1)
    c("stride_padding", [v2, i2], kernel_size=3, stride=2, padding=1, output_size=sp)
    vu, iu = pooled([2] + sp, 2)
    c("unbatched", [vu, iu], kernel_size=2)
    vs = dict(v, data=T((SPECIALS * 64)[: len(v["data"])])["data"])
    c("special", [vs, i], kernel_size=2)
    c("values_transposed", [dict(v, view=[("transpose", [0, 1])]), dict(i, view=[("transpose", [0, 1])])],
      kernel_size=2)
    c("int32_indices", [v, dict(i, dtype="int32")], kernel_size=2)
    c("indices_shape", [v, T(i["data"][:-2], "int64", [len(i["data"]) - 2])], kernel_size=2)
    bad = list(i["data"])
    bad[3] = n**k + 5
    c("index_out_of_range", [v, dict(i, data=bad)], kernel_size=2)
    c("int64_values", [dict(v, data=[round(a) for a in v["data"]], dtype="int64"), i],
      kernel_size=2)


def pad(sw, op, tol):
    """F.pad / constant_pad_nd: each mode on 1-, 2- and 3-D padding, negative (cropping) pads,
    a fill value, the layouts, 0-size, specials, every dtype, bad pads."""
    modes = ["constant", "reflect", "replicate", "circular"] if op == "pad" else ["constant"]

    def c(name, inputs, **args):
        if op == "constant_pad_nd":
            args.pop("mode", None)
        sw.case(op, name, inputs, args, tol=tol)

    for m in modes:
        c(f"{m}_1d", [sw.f([2, 2, 5])], pad=[2, 1], mode=m)
        c(f"{m}_2d", [sw.f([1, 2, 4, 4])], pad=[1, 2, 2, 0], mode=m)
        c(f"{m}_3d", [sw.f([1, 1, 3, 3, 3])], pad=[1, 1, 0, 2, 1, 0], mode=m)
        c(f"{m}_negative", [sw.f([1, 2, 5])], pad=[-1, 2], mode=m)
        c(f"{m}_transposed", [sw.f([1, 5, 2], view=[("transpose", [1, 2])])], pad=[2, 2], mode=m)
    c("value", [sw.f([2, 3])], pad=[1, 1], value=2.5)
    c("value_nan", [sw.f([2, 3])], pad=[0, 1, 1, 0], value=NAN)
    c("pad_leading_dim", [sw.f([2, 3])], pad=[0, 0, 1, 1])
    c("expanded", [sw.f([1, 3], view=[("expand", [2, 3])])], pad=[1, 2])
    c("size0", [sw.f([0, 3])], pad=[1, 1])
    c("special", [T(SPECIALS, shape=[1, 2, 3])], pad=[1, 1])
    c("large", [sw.f([2, 3], -1e4, 1e4)], pad=[2, 0])
    c("sliced", [sw.f([1, 2, 10], view=[("slice", [2, 0, 10, 2])])], pad=[1, 2])
    for dt in ("int64", "uint8", "bool"):
        c(f"{dt}_value", [sw.i([2, 3], dt)], pad=[1, 1], value=1)
    if op == "pad":
        c("reflect_int64", [sw.i([1, 2, 4], "int64")], pad=[1, 2], mode="reflect")
        c("reflect_too_big", [sw.f([1, 2, 3])], pad=[3, 0], mode="reflect")
        c("circular_too_big", [sw.f([1, 2, 3])], pad=[4, 0], mode="circular")
        c("bad_mode", [sw.f([1, 2, 3])], pad=[1, 1], mode="wrap")
    c("odd_length", [sw.f([2, 3])], pad=[1])
    c("too_long", [sw.f([3])], pad=[1, 1, 1, 1])


def interpolate(sw, op, tol):
    """F.interpolate: each mode at the ranks it takes, size and scale_factor, align_corners,
    recompute_scale_factor, antialias, the layouts, 0-size, specials, dtypes, bad arguments."""

    def c(name, inputs, **args):
        sw.case(op, name, inputs, args, tol=tol)

    x1, x2, x3 = sw.f([1, 2, 5]), sw.f([1, 2, 3, 4]), sw.f([1, 1, 2, 3, 3])
    for m in ("nearest", "nearest-exact", "area"):
        c(f"{m}_1d", [x1], size=8, mode=m)
        c(f"{m}_2d_down", [x2], size=[2, 3], mode=m)
    c("nearest_3d", [x3], scale_factor=1.5, mode="nearest")
    c("linear", [x1], size=8, mode="linear")
    c("linear_align", [x1], size=8, mode="linear", align_corners=True)
    c("bilinear", [x2], scale_factor=[1.5, 2.0], mode="bilinear")
    c("bilinear_align", [x2], size=[5, 3], mode="bilinear", align_corners=True)
    c("bilinear_down", [x2], scale_factor=0.5, mode="bilinear")
    c("bicubic", [x2], size=[5, 6], mode="bicubic")
    c("trilinear", [x3], scale_factor=2, mode="trilinear")
    c("recompute_scale", [x2], scale_factor=1.7, mode="bilinear", recompute_scale_factor=True)
    c("no_recompute_nearest", [x1], scale_factor=1.7, mode="nearest",
      recompute_scale_factor=False)
    c("antialias_bilinear", [sw.f([1, 1, 6, 6])], size=[3, 4], mode="bilinear", antialias=True)
    c("antialias_bicubic", [sw.f([1, 1, 6, 6])], size=[3, 4], mode="bicubic", antialias=True)
    # antialias: the filter widened by the scale when downsampling (a window of up to
    # 2 * ceil(support) + 1 taps, cut and renormalized at the borders), PyTorch's own windows when
    # upsampling, a dim of unchanged size left as it is; align_corners and explicit scales.
    for m in ("bilinear", "bicubic"):
        c(f"antialias_{m}_heavy", [sw.f([1, 2, 16, 11])], size=[3, 2], mode=m, antialias=True)
        c(f"antialias_{m}_down", [sw.f([1, 1, 4, 16])], size=[3, 3], mode=m, antialias=True)
        c(f"antialias_{m}_scale", [sw.f([1, 1, 7, 9])], scale_factor=[0.3, 0.45], mode=m,
          antialias=True, align_corners=True)
        c(f"antialias_{m}_up", [sw.f([1, 2, 3, 4])], size=[7, 6], mode=m, antialias=True)
        c(f"antialias_{m}_up_align", [sw.f([1, 1, 4, 3])], scale_factor=[1.5, 2.7], mode=m,
          antialias=True, align_corners=True)
        c(f"antialias_{m}_mixed", [sw.f([1, 3, 5, 12])], size=[9, 5], mode=m, antialias=True)
        c(f"antialias_{m}_same_h", [sw.f([1, 1, 6, 8])], size=[6, 3], mode=m, antialias=True)
        # A scale that leaves a size unchanged: PyTorch copies that dim, yet its backward goes
        # through the scale's windows.
        c(f"antialias_{m}_same_h_scaled", [sw.f([1, 2, 3, 8])], scale_factor=[1.3, 0.5], mode=m,
          antialias=True)
        c(f"antialias_{m}_special", [T(SPECIALS * 4, shape=[1, 1, 4, 6])], size=[2, 3], mode=m,
          antialias=True)
    c("antialias_linear_3d_input", [x1], size=3, mode="linear", antialias=True)
    c("antialias_nearest", [x2], size=[2, 2], mode="nearest", antialias=True)
    c("antialias_int64", [sw.i([1, 1, 4, 4], "int64")], size=[2, 2], mode="bilinear",
      antialias=True)
    # uint8 bilinear/bicubic: PyTorch's fixed-point kernels (int16 weights, a rounding shift and a
    # saturation after each pass), over the whole 0..255 range; up to 4 channels PyTorch takes
    # its vectorized kernel, more channels its generic one: both counts.
    def u8(shape):
        return T(sw.rng.integers(0, 256, math.prod(shape)).tolist(), "uint8", shape)

    # Width 1 where PyTorch's kernels get it right (webtorch refuses the shapes where they do
    # not: tests/node/interpolate.test.mjs): uint8 of up to 4 channels, and an unchanged height.
    c("uint8_bilinear_width1_c4", [u8([1, 4, 5, 6])], size=[7, 1], mode="bilinear")
    c("antialias_bicubic_width1_same_h", [sw.f([1, 1, 5, 8])], size=[5, 1], mode="bicubic",
      antialias=True)
    for m in ("bilinear", "bicubic"):
        for ch in (3, 5):
            c(f"uint8_{m}_up_c{ch}", [u8([1, ch, 4, 5])], size=[9, 7], mode=m)
            c(f"uint8_{m}_down_c{ch}", [u8([2, ch, 9, 8])], scale_factor=[0.45, 0.7], mode=m)
            c(f"uint8_{m}_align_c{ch}", [u8([1, ch, 5, 6])], size=[8, 4], mode=m,
              align_corners=True)
            c(f"uint8_{m}_antialias_c{ch}", [u8([1, ch, 12, 9])], size=[5, 4], mode=m,
              antialias=True)
            c(f"uint8_{m}_antialias_up_c{ch}", [u8([1, ch, 3, 4])], scale_factor=[2.0, 1.5],
              mode=m, antialias=True, align_corners=True)
    c("transposed", [sw.f([1, 4, 3, 2], view=[("transpose", [1, 3])])], size=[5, 5],
      mode="bilinear")
    c("sliced", [sw.f([1, 2, 3, 8], view=[("slice", [3, 0, 8, 2])])], size=[4, 6],
      mode="nearest")
    c("expanded", [sw.f([1, 2, 3, 4], view=[("expand", [2, 2, 3, 4])])], size=[4, 4],
      mode="bicubic")
    c("size0", [sw.f([0, 2, 3, 4])], size=[5, 5], mode="bilinear")
    c("special", [T(SPECIALS * 2, shape=[1, 2, 2, 3])], size=[3, 4], mode="bilinear")
    c("int64_nearest", [sw.i([1, 2, 3, 4], "int64")], size=[5, 5], mode="nearest")
    c("uint8_bilinear", [sw.i([1, 2, 3, 4], "uint8")], size=[5, 5], mode="bilinear")
    c("int64_bilinear", [sw.i([1, 2, 3, 4], "int64")], size=[5, 5], mode="bilinear")
    c("size_and_scale", [x2], size=[5, 5], scale_factor=2.0)
    c("neither", [x2])
    c("bilinear_3d_input", [x1], size=8, mode="bilinear")
    c("bad_mode", [x2], size=[5, 5], mode="cubic")


def error_class(err):
    """The webtorch class of PyTorch's error here: these ops' bad windows, sizes and paddings are
    argument errors (TorchError, which the runner's check also accepts for a subclass), not the
    operand-shape mismatches ShapeError stands for (sweep.error_class reads "size" as one)."""
    if err["type"] == "IndexError":
        return "IndexError"
    if "not implemented for" in err["message"]:
        return "DTypeError"
    if err["class"] == "ShapeError" and ("shape" in err["message"] or "channels" in err["message"]):
        return "ShapeError"
    return "TorchError"


class _OpSweep:
    """`sw` for one op: its own generator; cases of ops the other build owns are left to it."""

    def __init__(self, sw, op, ts):
        self.sw, self.rng, self.ts = sw, _rng(op), ts

    def case(self, op, name, inputs, args=None, tol=None):
        import fixture
        if (op in fixture.COMPOSITE_OPS) != self.ts:
            return
        cases = self.sw.fam.cases
        n = len(cases)
        self.sw.case(op, name, inputs, args, tol)
        if len(cases) > n and "error" in cases[-1]:
            cases[-1]["error"]["class"] = error_class(cases[-1]["error"])

    def f(self, *a, **kw):
        return self._with(self.sw.f, *a, **kw)

    def i(self, *a, **kw):
        return self._with(self.sw.i, *a, **kw)

    def _with(self, fn, *a, **kw):
        rng = self.sw.rng
        self.sw.rng = self.rng
        try:
            return fn(*a, **kw)
        finally:
            self.sw.rng = rng


def _per_op(sampler):
    def run(sw, op, tol, ts=False):
        sampler(_OpSweep(sw, op, ts), op, tol)
    run.both_builds = True
    return run


SAMPLERS = {name: _per_op(fn) for name, fn in {
    "conv": conv, "pool": pool, "adaptive_pool": adaptive, "unpool": unpool, "pad": pad,
    "interpolate": interpolate}.items()}
