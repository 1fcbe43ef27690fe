"""The PyTorch calls of the composite ops that webtorch's TS layer builds from core ops (views and
splits, joins, linear algebra, einsum, composites, activations with arguments, scatter-based
indexing, factories): `fixture.call()` hands these ops here; tests/parity/composites.mjs makes the
same calls on webtorch. Their fixtures live in fixtures/ts/ (index fixtures/ts/index.json), which
the JS runner loads and the native Rust runner does not (it runs core ops only).

Ops returning a list of tensors (`split`, `unbind`, …) give a tuple of outputs (README: "Tuple
results"). `float_power` is compared as float32: PyTorch computes it in float64, webtorch in
float32 (documented)."""

import torch

from fixture_nn import NN_CALLS, NN_TOL
from fixture_conv import CONV_TS_CALLS

F = torch.nn.functional


def _opt(a, *keys):
    return {k: a[k] for k in keys if k in a}


def _dt(a):
    from fixture import DTYPES
    return {"dtype": DTYPES[a["dtype"]]} if "dtype" in a else {}


def _tuple(r):
    return tuple(r)


# The losses' keyword arguments the fixtures set.
LOSS_ARGS = ("reduction", "beta", "delta", "ignore_index")
# op -> (inputs, args) -> result. Positional args follow PyTorch's order; keys absent use defaults.
CALLS = {
    # views and splits
    "narrow": lambda x, a: torch.narrow(x[0], a["dim"], a["start"], a["length"]),
    "narrow_copy": lambda x, a: torch.narrow_copy(x[0], a["dim"], a["start"], a["length"]),
    "select": lambda x, a: torch.select(x[0], a["dim"], a["index"]),
    "diagonal": lambda x, a: torch.diagonal(x[0], **_opt(a, "offset", "dim1", "dim2")),
    "movedim": lambda x, a: torch.movedim(x[0], a["source"], a["destination"]),
    "flatten": lambda x, a: torch.flatten(x[0], **_opt(a, "start_dim", "end_dim")),
    "unflatten": lambda x, a: torch.unflatten(x[0], a["dim"], a["sizes"]),
    "squeeze": lambda x, a: torch.squeeze(x[0], **({"dim": a["dim"]} if "dim" in a else {})),
    "unsqueeze": lambda x, a: torch.unsqueeze(x[0], a["dim"]),
    "swapaxes": lambda x, a: torch.swapaxes(x[0], a["axis0"], a["axis1"]),
    "ravel": lambda x, a: torch.ravel(x[0]),
    "broadcast_to": lambda x, a: torch.broadcast_to(x[0], a["shape"]),
    "expand_as": lambda x, a: x[0].expand_as(x[1]),
    "broadcast_tensors": lambda x, a: tuple(torch.broadcast_tensors(*x)),
    "atleast_1d": lambda x, a: torch.atleast_1d(x[0]),
    "atleast_2d": lambda x, a: torch.atleast_2d(x[0]),
    "atleast_3d": lambda x, a: torch.atleast_3d(x[0]),
    "split": lambda x, a: tuple(torch.split(x[0], a["split_size"], **_opt(a, "dim"))),
    "chunk": lambda x, a: tuple(torch.chunk(x[0], a["chunks"], **_opt(a, "dim"))),
    "tensor_split": lambda x, a: tuple(torch.tensor_split(x[0], a["sections"], **_opt(a, "dim"))),
    "unbind": lambda x, a: tuple(torch.unbind(x[0], **_opt(a, "dim"))),
    "hsplit": lambda x, a: tuple(torch.hsplit(x[0], a["sections"])),
    "vsplit": lambda x, a: tuple(torch.vsplit(x[0], a["sections"])),
    "dsplit": lambda x, a: tuple(torch.dsplit(x[0], a["sections"])),
    # joins and repeats
    "hstack": lambda x, a: torch.hstack(list(x)),
    "vstack": lambda x, a: torch.vstack(list(x)),
    "dstack": lambda x, a: torch.dstack(list(x)),
    "column_stack": lambda x, a: torch.column_stack(list(x)),
    "repeat": lambda x, a: x[0].repeat(*a["sizes"]),
    "tile": lambda x, a: torch.tile(x[0], a["dims"]),
    "repeat_interleave": lambda x, a: torch.repeat_interleave(x[0], a["repeats"], **_opt(a, "dim")),
    "block_diag": lambda x, a: torch.block_diag(*x),
    "cartesian_prod": lambda x, a: torch.cartesian_prod(*x),
    # linear algebra
    "mm": lambda x, a: torch.mm(x[0], x[1]),
    "bmm": lambda x, a: torch.bmm(x[0], x[1]),
    "mv": lambda x, a: torch.mv(x[0], x[1]),
    "dot": lambda x, a: torch.dot(x[0], x[1]),
    "vdot": lambda x, a: torch.vdot(x[0], x[1]),
    "inner": lambda x, a: torch.inner(x[0], x[1]),
    "outer": lambda x, a: torch.outer(x[0], x[1]),
    "addmm": lambda x, a: torch.addmm(x[0], x[1], x[2], **_opt(a, "beta", "alpha")),
    "addmv": lambda x, a: torch.addmv(x[0], x[1], x[2], **_opt(a, "beta", "alpha")),
    "addr": lambda x, a: torch.addr(x[0], x[1], x[2], **_opt(a, "beta", "alpha")),
    "baddbmm": lambda x, a: torch.baddbmm(x[0], x[1], x[2], **_opt(a, "beta", "alpha")),
    "addbmm": lambda x, a: torch.addbmm(x[0], x[1], x[2], **_opt(a, "beta", "alpha")),
    "kron": lambda x, a: torch.kron(x[0], x[1]),
    "tensordot": lambda x, a: torch.tensordot(x[0], x[1], dims=a["dims"]),
    "trace": lambda x, a: torch.trace(x[0]),
    "diag": lambda x, a: torch.diag(x[0], **_opt(a, "diagonal")),
    "diagflat": lambda x, a: torch.diagflat(x[0], **_opt(a, "offset")),
    "diag_embed": lambda x, a: torch.diag_embed(x[0], **_opt(a, "offset", "dim1", "dim2")),
    "chain_matmul": lambda x, a: torch.linalg.multi_dot(list(x)) if len(x) > 1 else x[0].clone(),
    "einsum": lambda x, a: torch.einsum(a["equation"], *x),
    "cross": lambda x, a: torch.linalg.cross(x[0], x[1], **_opt(a, "dim")),
    "cdist": lambda x, a: torch.cdist(x[0], x[1], **_opt(a, "p")),
    "dist": lambda x, a: torch.dist(x[0], x[1], **_opt(a, "p")),
    "adjoint": lambda x, a: torch.adjoint(x[0]),
    # composites
    "isclose": lambda x, a: torch.isclose(x[0], x[1], **_opt(a, "rtol", "atol", "equal_nan")),
    "isneginf": lambda x, a: torch.isneginf(x[0]),
    "isposinf": lambda x, a: torch.isposinf(x[0]),
    "isreal": lambda x, a: torch.isreal(x[0]),
    "isin": lambda x, a: torch.isin(x[0], x[1], **_opt(a, "invert")),
    "fmax": lambda x, a: torch.fmax(x[0], x[1]),
    "fmin": lambda x, a: torch.fmin(x[0], x[1]),
    "heaviside": lambda x, a: torch.heaviside(x[0], x[1]),
    "true_divide": lambda x, a: torch.true_divide(x[0], x[1]),
    # div and round with their options (the op-table rows div and round take none).
    "div_rounding": lambda x, a: torch.div(x[0], x[1], rounding_mode=a["rounding_mode"]),
    "round_decimals": lambda x, a: torch.round(x[0], decimals=a["decimals"]),
    "float_power": lambda x, a: torch.float_power(x[0], x[1]).float(),
    "ldexp": lambda x, a: torch.ldexp(x[0], x[1]),
    "nansum": lambda x, a: torch.nansum(x[0], **_opt(a, "dim", "keepdim")),
    "nanmean": lambda x, a: torch.nanmean(x[0], **_opt(a, "dim", "keepdim")),
    "aminmax": lambda x, a: tuple(torch.aminmax(x[0], **_opt(a, "dim", "keepdim"))),
    "var_mean": lambda x, a: tuple(torch.var_mean(x[0], **_opt(a, "dim", "correction", "keepdim"))),
    "std_mean": lambda x, a: tuple(torch.std_mean(x[0], **_opt(a, "dim", "correction", "keepdim"))),
    "diff": lambda x, a: torch.diff(x[0], **_opt(a, "n", "dim"),
                                    **({"prepend": x[1]} if a.get("prepend") else {}),
                                    **({"append": x[-1]} if a.get("append") else {})),
    "trapezoid": lambda x, a: torch.trapezoid(x[0], *x[1:], **_opt(a, "dx", "dim")),
    "angle": lambda x, a: torch.angle(x[0]),
    "take": lambda x, a: torch.take(x[0], x[1]),
    # activations
    "hardshrink": lambda x, a: F.hardshrink(x[0], **_opt(a, "lambd")),
    "softshrink": lambda x, a: F.softshrink(x[0], **_opt(a, "lambd")),
    "threshold": lambda x, a: F.threshold(x[0], a["threshold"], a["value"]),
    "glu": lambda x, a: F.glu(x[0], **_opt(a, "dim")),
    "prelu": lambda x, a: F.prelu(x[0], x[1]),
    "leaky_relu": lambda x, a: F.leaky_relu(x[0], **_opt(a, "negative_slope")),
    "hardtanh": lambda x, a: F.hardtanh(x[0], **_opt(a, "min_val", "max_val")),
    "rrelu": lambda x, a: F.rrelu(x[0], **_opt(a, "lower", "upper")),
    # scatter-based indexing
    "index_add": lambda x, a: torch.index_add(x[0], a["dim"], x[1], x[2], **_opt(a, "alpha")),
    "index_copy": lambda x, a: torch.index_copy(x[0], a["dim"], x[1], x[2]),
    "index_fill": lambda x, a: torch.index_fill(x[0], a["dim"], x[1], a["value"]),
    "select_scatter": lambda x, a: torch.select_scatter(x[0], x[1], a["dim"], a["index"]),
    "slice_scatter": lambda x, a: torch.slice_scatter(x[0], x[1], **_opt(a, "dim", "start", "end", "step")),
    "diagonal_scatter": lambda x, a: torch.diagonal_scatter(x[0], x[1], **_opt(a, "offset", "dim1", "dim2")),
    "bitwise_left_shift": lambda x, a: torch.bitwise_left_shift(x[0], x[1]),
    "bitwise_right_shift": lambda x, a: torch.bitwise_right_shift(x[0], x[1]),
    "unravel_index": lambda x, a: tuple(torch.unravel_index(x[0], tuple(a["shape"]))),
    "combinations": lambda x, a: torch.combinations(x[0], **_opt(a, "r", "with_replacement")),
    "cov": lambda x, a: torch.cov(x[0], **_opt(a, "correction")),
    "corrcoef": lambda x, a: torch.corrcoef(x[0]),
    "imag": lambda x, a: torch.imag(x[0]),
    # factories (no inputs)
    "zeros_like": lambda x, a: torch.zeros_like(x[0], **_dt(a)),
    "ones_like": lambda x, a: torch.ones_like(x[0], **_dt(a)),
    "full_like": lambda x, a: torch.full_like(x[0], a["fill_value"], **_dt(a)),
    "linspace": lambda x, a: torch.linspace(a["start"], a["end"], a["steps"], **_dt(a)),
    "logspace": lambda x, a: torch.logspace(a["start"], a["end"], a["steps"], **_opt(a, "base"), **_dt(a)),
    "eye": lambda x, a: torch.eye(a["n"], *([a["m"]] if "m" in a else []), **_dt(a)),
    "tril_indices": lambda x, a: torch.tril_indices(a["row"], a["col"], **_opt(a, "offset")),
    "triu_indices": lambda x, a: torch.triu_indices(a["row"], a["col"], **_opt(a, "offset")),
    "hann_window": lambda x, a: torch.hann_window(a["n"], **_opt(a, "periodic")),
    "hamming_window": lambda x, a: torch.hamming_window(a["n"], **_opt(a, "periodic")),
    "blackman_window": lambda x, a: torch.blackman_window(a["n"], **_opt(a, "periodic")),
    "bartlett_window": lambda x, a: torch.bartlett_window(a["n"], **_opt(a, "periodic")),
    "kaiser_window": lambda x, a: torch.kaiser_window(a["n"], a.get("periodic", True), a.get("beta", 12.0)),
    # sorting-based (sorting.ts); ties avoided in the inputs where PyTorch's index choice is
    # unspecified (median/kthvalue pick by nth_element)
    "topk": lambda x, a: tuple(torch.topk(x[0], a["k"], **_opt(a, "dim", "largest"))),
    "kthvalue": lambda x, a: tuple(torch.kthvalue(x[0], a["k"], **_opt(a, "dim", "keepdim"))),
    "median": lambda x, a: (torch.median(x[0]) if "dim" not in a
                            else tuple(torch.median(x[0], a["dim"], **_opt(a, "keepdim")))),
    "nanmedian": lambda x, a: (torch.nanmedian(x[0]) if "dim" not in a
                               else tuple(torch.nanmedian(x[0], a["dim"], **_opt(a, "keepdim")))),
    "quantile": lambda x, a: torch.quantile(x[0], x[1] if len(x) > 1 else a["q"],
                                            **_opt(a, "dim", "keepdim", "interpolation")),
    "nanquantile": lambda x, a: torch.nanquantile(x[0], x[1] if len(x) > 1 else a["q"],
                                                  **_opt(a, "dim", "keepdim", "interpolation")),
    "msort": lambda x, a: torch.msort(x[0]),
    "bucketize": lambda x, a: torch.bucketize(x[0], x[1], **_opt(a, "right", "out_int32")),
    "histc": lambda x, a: torch.histc(x[0], **_opt(a, "bins", "min", "max")),
    "histogram": lambda x, a: tuple(torch.histogram(
        x[0], x[1] if a.get("bins_tensor") else a.get("bins", 100), **_opt(a, "range", "density"),
        weight=x[-1] if a.get("weight") else None)),
    "unique": lambda x, a: (lambda r: tuple(r) if isinstance(r, tuple) else r)(
        torch.unique(x[0], **_opt(a, "return_inverse", "return_counts", "dim"))),
    "unique_consecutive": lambda x, a: (lambda r: tuple(r) if isinstance(r, tuple) else r)(
        torch.unique_consecutive(x[0], **_opt(a, "return_inverse", "return_counts", "dim"))),
    "nonzero": lambda x, a: torch.nonzero(x[0]),
    "masked_select": lambda x, a: torch.masked_select(x[0], x[1]),
    # pointwise composites and reorderings (pointwise.ts)
    "clamp": lambda x, a: torch.clamp(x[0], *(x[1:] if len(x) > 1 else (a.get("min"), a.get("max")))),
    "clamp_min": lambda x, a: torch.clamp_min(x[0], a["min"]),
    "clamp_max": lambda x, a: torch.clamp_max(x[0], a["max"]),
    "lerp": lambda x, a: torch.lerp(x[0], x[1], x[2] if len(x) > 2 else a["weight"]),
    "addcmul": lambda x, a: torch.addcmul(x[0], x[1], x[2], **_opt(a, "value")),
    "addcdiv": lambda x, a: torch.addcdiv(x[0], x[1], x[2], **_opt(a, "value")),
    "nan_to_num": lambda x, a: torch.nan_to_num(x[0], **_opt(a, "nan", "posinf", "neginf")),
    "flip": lambda x, a: torch.flip(x[0], a["dims"]),
    "fliplr": lambda x, a: torch.fliplr(x[0]),
    "flipud": lambda x, a: torch.flipud(x[0]),
    "roll": lambda x, a: torch.roll(x[0], a["shifts"], **_opt(a, "dims")),
    "rot90": lambda x, a: torch.rot90(x[0], **_opt(a, "k", "dims")),
    "tril": lambda x, a: torch.tril(x[0], **_opt(a, "diagonal")),
    "triu": lambda x, a: torch.triu(x[0], **_opt(a, "diagonal")),
    # nn/functional/interpolate.ts, ops/scatter.ts, mode (ops/reductions.ts), detach (ops/ops.ts)
    "interpolate": lambda x, a: F.interpolate(x[0], **_opt(a, "size", "scale_factor", "mode", "align_corners",
                                                                 "recompute_scale_factor", "antialias")),
    "scatter_reduce": lambda x, a: torch.scatter_reduce(x[0], a["dim"], x[1], x[2], a["reduce"],
                                                        **_opt(a, "include_self")),
    "mode": lambda x, a: tuple(torch.mode(x[0], **_opt(a, "dim", "keepdim"))),
    "detach": lambda x, a: torch.detach(x[0]),
    # the seeds' remaining ops: NumPy-style aliases (ops/aliases.ts), resize_, …
    **{op: (lambda op: lambda x, a: _alias(op, x, a))(op) for op in (
        "absolute", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "divide",
        "multiply", "subtract", "negative", "fix")},
    "resize_": lambda x, a: x[0].clone().resize_(a["sizes"]),
    "as_strided": lambda x, a: torch.as_strided(x[0], a["size"], a["stride"], a.get("storage_offset", 0)),
    "copy_": lambda x, a: x[0].clone().copy_(x[1]),
    "clone": lambda x, a: torch.clone(x[0]),
    "slice": lambda x, a: torch.ops.aten.slice(x[0], a["dim"], a.get("start"), a.get("end"), a.get("step", 1)),
    "scaled_dot_product_attention": lambda x, a: F.scaled_dot_product_attention(
        x[0], x[1], x[2], attn_mask=x[3] if len(x) > 3 else None, is_causal=a.get("is_causal", False),
        scale=a.get("scale")),
    "group_norm": lambda x, a: F.group_norm(x[0], a["num_groups"], x[1] if len(x) > 1 else None,
                                            x[2] if len(x) > 2 else None, eps=a.get("eps", 1e-5)),
    "embedding": lambda x, a: F.embedding(x[0], x[1]),
    "linear": lambda x, a: F.linear(*x),
    "bilinear": lambda x, a: F.bilinear(*x),
    "softmin": lambda x, a: F.softmin(x[0], a["dim"]),
    # losses (nn/functional/losses.ts, loss_composites.ts)
    **{op: (lambda op: lambda x, a: getattr(F, op)(x[0], x[1], **_opt(a, *LOSS_ARGS)))(op)
       for op in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "nll_loss",
                  "cross_entropy")},
    "quantize_per_tensor": lambda x, a: _quantize(x, a).int_repr().to(torch.int32),
    "dequantize": lambda x, a: _quantize(x, a).dequantize(),
    # index_put.ts
    "index_put": lambda x, a: _index_put(x, a),
    "masked_scatter": lambda x, a: (x[0].clone().masked_scatter_(x[1], x[2]) if a.get("inplace")
                                    else torch.masked_scatter(x[0], x[1], x[2])),
    # the sweep's index, select, number and misc families (tests/parity/sweep.py)
    "argwhere": lambda x, a: torch.argwhere(x[0]),
    "embedding_bag": lambda x, a: F.embedding_bag(
        x[0], x[1], x[2] if a.get("offsets") else None, **_opt(a, "mode", "include_last_offset"),
        per_sample_weights=x[-1] if a.get("per_sample_weights") else None),
    "one_hot": lambda x, a: F.one_hot(x[0], **_opt(a, "num_classes")),
    "bincount": lambda x, a: torch.bincount(x[0], x[1] if len(x) > 1 else None, **_opt(a, "minlength")),
    "index_reduce": lambda x, a: torch.index_reduce(x[0], a["dim"], x[1], x[2], a["reduce"],
                                                    **_opt(a, "include_self")),
    "gcd": lambda x, a: torch.gcd(x[0], x[1]),
    "lcm": lambda x, a: torch.lcm(x[0], x[1]),
    "frexp": lambda x, a: tuple(torch.frexp(x[0])),
    "meshgrid": lambda x, a: tuple(torch.meshgrid(*x, **_opt(a, "indexing"))),
    "row_stack": lambda x, a: torch.row_stack(list(x)),
    "view_as": lambda x, a: x[0].view_as(x[1]),
    "reshape_as": lambda x, a: x[0].reshape_as(x[1]),
    "type_as": lambda x, a: x[0].type_as(x[1]),
    "swapdims": lambda x, a: torch.swapdims(x[0], a["dim0"], a["dim1"]),
    "real": lambda x, a: torch.real(x[0]),
    "conj": lambda x, a: torch.conj(x[0]),
    "conj_physical": lambda x, a: torch.conj_physical(x[0]),
    "normalize": lambda x, a: F.normalize(x[0], **_opt(a, "p", "dim", "eps")),
    "new_zeros": lambda x, a: x[0].new_zeros(a["size"], **_dt(a)),
    "new_ones": lambda x, a: x[0].new_ones(a["size"], **_dt(a)),
    "new_full": lambda x, a: x[0].new_full(a["size"], a["fill_value"], **_dt(a)),
    "cumulative_trapezoid": lambda x, a: torch.cumulative_trapezoid(x[0], *x[1:], **_opt(a, "dx", "dim")),
}


def _alias(op, x, a):
    """An alias (`torch.absolute`, …); `inplace`: its `_` method on a clone."""
    if a.get("inplace"):
        y = x[0].clone()
        getattr(y, op + "_")(*x[1:])
        return y
    return getattr(torch, op)(*x, **_opt(a, "alpha"))


def _quantize(x, a):
    qd = {"quint8": torch.quint8, "qint8": torch.qint8, "qint32": torch.qint32}[a["qdtype"]]
    # float32 in: the float64 reference run then quantizes the same values (PyTorch quantizes
    # float32 only).
    return torch.quantize_per_tensor(x[0].float(), a["scale"], a["zero_point"], qd)


def _index_put(x, a):
    """`a["pattern"]`: 1 where the index list holds the next index tensor (inputs 2…), 0 for None
    (a whole dim); `inplace`: `index_put_` on a clone."""
    rest = iter(x[2:])
    idx = [next(rest) if p else None for p in a["pattern"]]
    acc = a.get("accumulate", False)
    if a.get("inplace"):
        y = x[0].clone()
        torch.ops.aten.index_put_(y, idx, x[1], acc)
        return y
    return torch.ops.aten.index_put(x[0], idx, x[1], acc)

# The torch.nn.functional ops of the parity sweep's loss, norm and sampling families.
CALLS.update(NN_CALLS)
# The convolution family's TS-only ops (fixture_conv.py).
CALLS.update(CONV_TS_CALLS)
COMPOSITE_OPS = set(CALLS)

R5 = (1e-5, 1e-5)
R6 = (1e-6, 1e-6)
COMPOSITE_TOL = {
    **{op: R5 for op in ("mm", "bmm", "mv", "dot", "vdot", "inner", "addmm", "addmv", "baddbmm",
                         "addbmm", "tensordot", "trace", "chain_matmul", "einsum", "cdist", "dist",
                         "nansum", "nanmean", "var_mean", "std_mean", "trapezoid", "glu",
                         "float_power", "logspace", "hann_window", "hamming_window",
                         "blackman_window", "kaiser_window", "addr", "cross", "diff", "cov", "corrcoef")},
    **{op: R5 for op in ("quantile", "nanquantile", "lerp", "addcdiv", "interpolate", "scatter_reduce")},
    # PyTorch may fuse value * t1 * t2 with an FMA: one rounding fewer.
    "addcmul": R6,
    **{op: R6 for op in ("linspace", "bartlett_window", "true_divide", "ldexp", "softshrink",
                         "prelu", "leaky_relu", "rrelu", "index_add", "kron", "outer")},
    "index_put": R6,
    **{op: R6 for op in ("divide", "dequantize")},
    # The quotient rounded is exact; round(x, decimals) divides back by 10^d (one rounding).
    "div_rounding": (0.0, 0.0),
    "round_decimals": R6,
    **{op: R5 for op in ("scaled_dot_product_attention", "group_norm", "linear", "bilinear",
                         "softmin", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
                         "nll_loss", "cross_entropy")},
    **{op: R5 for op in ("arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2")},
    # the sweep's additions: a sum of products (embedding_bag, the trapezoid rules), a norm's
    # quotient; index_reduce's prod and mean round like scatter_reduce's; bincount's weighted sums.
    **{op: R5 for op in ("embedding_bag", "cumulative_trapezoid", "normalize", "index_reduce",
                         "bincount")},
    # histogram's edges (min + i * step) and its density's quotient.
    "histogram": R6,
}


COMPOSITE_TOL.update(NN_TOL)


def call_composite(op, inputs, a):
    return CALLS[op](inputs, a)
