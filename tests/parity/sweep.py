"""The schema-driven parity sweep (fixtures/sweep.json): every schema entry tagged `samples:
<sampler>` gets the cases its sampler generates — layouts (contiguous, transposed, sliced with a
step, expanded, 0-size, size-1 dims, rank 0), special values (NaN, ±inf, -0), negative and large
values, and every dtype the fixtures know (float32, int32, int64, uint8, bool). PyTorch decides
each outcome: where it raises for a dtype, the case records the error (webtorch must raise a
TorchError subclass with the same message). Gradients are added by gen.py as for every family.

Run by gen.py through cases/sweep.py. Cases PyTorch itself cannot meet (its float32 result
outside the tolerance of the float64 reference) are left out and counted in DROPPED.
"""

import math
import pathlib

import numpy as np
import torch
import yaml

import fixture
from fixture import S, T, finish

SCHEMA = pathlib.Path(__file__).resolve().parents[2] / "schema"
NAN, INF = math.nan, math.inf
# Case name -> why the sweep left it out (gen.py prints the count).
DROPPED = {}


def schema_entries():
    """(name, entry) for every schema entry with a `samples` field, in file order."""
    out = []
    for path in sorted(SCHEMA.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        for entry in doc.get("ops", []) if isinstance(doc, dict) else []:
            if isinstance(entry, dict) and entry.get("samples"):
                out.append((entry["func"].split("(")[0], entry))
    return out


def error_class(e):
    """The webtorch class a PyTorch exception maps to (tests/parity/README.md, Errors)."""
    msg = str(e)
    if isinstance(e, IndexError):
        return "IndexError"
    if isinstance(e, NotImplementedError) or "not implemented for" in msg or "dtype" in msg.lower():
        return "DTypeError"
    if "shape" in msg or "size" in msg or "broadcast" in msg:
        return "ShapeError"
    return "TorchError"


class Sweep:
    def __init__(self, fam, rng):
        self.fam, self.rng = fam, rng

    def case(self, op, name, inputs, args=None, tol=None):
        """One generated case; PyTorch decides between a result and an error."""
        c = {"name": f"{op}/sweep_{name}", "op": op, "inputs": list(inputs),
             "args": fixture._enc_scalar(args or {})}
        if tol is not None:
            c["tol"] = tol
        kind, res = fixture._outcome(c)
        if kind == "error" and isinstance(res, TypeError):
            # No such overload in Python (maximum(t, 2.5)): webtorch's wrapped-number reading of
            # a scalar operand is defined by the binary_math fixtures, not by an error here.
            DROPPED[c["name"]] = f"PyTorch has no overload: {res}"
            return
        try:
            self.fam.cases.append(finish(c, error_class(res) if kind == "error" else None))
        except AssertionError as e:
            DROPPED[c["name"]] = str(e).splitlines()[0]

    def f(self, shape, lo=-3.0, hi=3.0, view=None):
        n = math.prod(shape)
        return T(np.round(self.rng.uniform(lo, hi, n), 2).tolist(), "float32", shape, view)

    def i(self, shape, dtype, view=None, nonzero=False):
        n = math.prod(shape)
        if dtype == "bool":
            return T(self.rng.integers(0, 2, n).tolist(), "bool", shape, view)
        lo, hi = (0, 20) if dtype == "uint8" else (-9, 10)
        v = self.rng.integers(lo, hi, n)
        if nonzero:
            v = np.where(v == 0, 1, v)
        return T(v.tolist(), dtype, shape, view)


# Layouts as (name, base shape, view steps): each gives a [2, 3] (or otherwise small) operand.
LAYOUTS = [
    ("contiguous", [2, 3], None),
    ("transposed", [3, 2], [("t", [])]),
    ("sliced", [2, 5], [("slice", [1, 0, 5, 2])]),
    ("sliced_offset", [4, 3], [("slice", [0, 1, 4, 2])]),
    ("expanded", [1, 3], [("expand", [2, 3])]),
    ("size0", [0, 3], None),
    ("size1", [1, 3, 1], None),
    ("rank0", [], None),
]
INT_DTYPES = ["int32", "int64", "uint8", "bool"]
SPECIALS = [NAN, INF, -INF, -0.0, 0.0, 1.0]
LARGE = [-1e4, -123.5, -20.25, 20.25, 123.5, 1e4]


def unary(sw, op, tol):
    a = UNARY_ARGS.get(op)
    for name, shape, view in LAYOUTS:
        sw.case(op, name, [sw.f(shape, view=view)], a, tol=tol)
    sw.case(op, "special", [T(SPECIALS[:5])], a, tol=tol)
    sw.case(op, "large", [T(LARGE)], a, tol=tol)
    for dt in INT_DTYPES:
        sw.case(op, dt, [sw.i([2, 3], dt)], a, tol=tol)
        sw.case(op, f"{dt}_sliced", [sw.i([2, 5], dt, [("slice", [1, 1, 5, 2])])], a, tol=tol)


def binary(sw, op, tol):
    for name, shape, view in LAYOUTS:
        y_shape = [2, 1, 1] if name == "size1" else ([] if name == "rank0" else [3])
        sw.case(op, name, [sw.f(shape, view=view), sw.f(y_shape)], tol=tol)
    sw.case(op, "both_views", [sw.f([3, 2], view=[("t", [])]),
                               sw.f([2, 6], view=[("slice", [1, 1, 6, 2])])], tol=tol)
    sw.case(op, "scalar_rhs", [sw.f([2, 3]), S(2.5)], tol=tol)
    sw.case(op, "int_scalar_rhs", [sw.f([2, 3]), S(2)], tol=tol)
    xs = [a for a in SPECIALS for _ in SPECIALS]
    ys = [b for _ in SPECIALS for b in SPECIALS]
    sw.case(op, "special", [T(xs, shape=[6, 6]), T(ys, shape=[6, 6])], tol=tol)
    sw.case(op, "large", [T(LARGE), T(LARGE[::-1])], tol=tol)
    for dt in INT_DTYPES:
        sw.case(op, dt, [sw.i([2, 3], dt), sw.i([2, 3], dt, nonzero=True)], tol=tol)
        sw.case(op, f"{dt}_sliced", [sw.i([2, 5], dt, [("slice", [1, 0, 5, 2])]),
                                     sw.i([3], dt, nonzero=True)], tol=tol)
    sw.case(op, "int32_float32", [sw.i([2, 3], "int32"), sw.f([2, 3], 0.5, 3.0)], tol=tol)
    sw.case(op, "int64_scalar", [sw.i([2, 3], "int64"), S(3)], tol=tol)
    sw.case(op, "mismatch", [sw.f([2, 3]), sw.f([4])], tol=tol)


def reduce(sw, op, tol):
    extra = {"var": {"correction": 0}, "std": {"correction": 0}, "norm": {"p": 1}}.get(op, {})

    def r(name, x, **args):
        sw.case(op, name, [x], dict(extra, **args), tol=tol)

    # max/min/argmax/argmin take one dim (not a list); logsumexp needs a dim.
    one_dim = op in ("max", "min", "argmax", "argmin", "logsumexp")
    if op != "logsumexp":
        r("all", sw.f([2, 3]))
    r("dim1", sw.f([2, 3]), dim=1)
    r("dim0_keepdim", sw.f([2, 3]), dim=0, keepdim=True)
    r("dim_neg", sw.f([2, 3, 2]), dim=-1)
    if not one_dim:
        r("dims", sw.f([2, 3, 2]), dims=[0, 2])
    for name, shape, view in LAYOUTS[1:]:
        x = sw.f(shape, view=view)
        r(name, x, **({} if name == "rank0" else {"dim": 1}))
    r("size0_all", sw.f([0, 3]), **({"dim": 0} if op == "logsumexp" else {}))
    r("special", T(SPECIALS, shape=[2, 3]), dim=1)
    r("special_inf", T([INF, 1.0, -INF, -INF, 2.0, INF], shape=[2, 3]), dim=1)
    r("large", T(LARGE, shape=[2, 3]), dim=1)
    r("dim_out_of_range", sw.f([2, 3]), dim=2)
    if op == "norm":
        r("p_inf", sw.f([2, 3]), p=INF, dim=1)
        r("p2", sw.f([2, 3]), p=2, dim=1)
    for dt in INT_DTYPES:
        if op != "logsumexp":
            r(dt, sw.i([2, 3], dt))
        r(f"{dt}_dim1", sw.i([2, 5], dt, [("slice", [1, 0, 5, 2])]), dim=1)


def rowwise(sw, op, tol):
    for name, shape, view in LAYOUTS:
        sw.case(op, name, [sw.f(shape, view=view)], {"dim": 0 if name == "rank0" else -1}, tol=tol)
    sw.case(op, "dim0", [sw.f([2, 3])], {"dim": 0}, tol=tol)
    sw.case(op, "special", [T(SPECIALS, shape=[2, 3])], {"dim": 1}, tol=tol)
    sw.case(op, "large", [T(LARGE, shape=[2, 3])], {"dim": 1}, tol=tol)
    sw.case(op, "dim_out_of_range", [sw.f([2, 3])], {"dim": 2}, tol=tol)
    for dt in INT_DTYPES:
        sw.case(op, dt, [sw.i([2, 3], dt)], {"dim": 1}, tol=tol)


def clamp(sw, op, tol):
    bounds = {"min": -1.0, "max": 1.5}
    for name, shape, view in LAYOUTS:
        sw.case(op, name, [sw.f(shape, view=view)], bounds, tol=tol)
    sw.case(op, "min_only", [sw.f([2, 3])], {"min": 0.25}, tol=tol)
    sw.case(op, "max_only", [sw.f([2, 3])], {"max": 0.25}, tol=tol)
    sw.case(op, "min_above_max", [sw.f([2, 3])], {"min": 1.0, "max": -1.0}, tol=tol)
    sw.case(op, "tensor_bounds", [sw.f([2, 3]), sw.f([3], -2.0, -0.5), sw.f([2, 1], 0.5, 2.0)],
            tol=tol)
    sw.case(op, "special", [T(SPECIALS)], bounds, tol=tol)
    sw.case(op, "nan_bound", [sw.f([2, 3])], {"min": NAN}, tol=tol)
    sw.case(op, "large", [T(LARGE)], {"min": -100.0, "max": 1e4}, tol=tol)
    sw.case(op, "no_bounds", [sw.f([2, 3])], tol=tol)
    for dt in INT_DTYPES:
        sw.case(op, dt, [sw.i([2, 3], dt)], {"min": -2, "max": 5}, tol=tol)
        sw.case(op, f"{dt}_float_bounds", [sw.i([2, 3], dt)], {"min": -2.5, "max": 5.5}, tol=tol)


# The [2, 3] operand in each layout that keeps its shape (the family samplers whose ops take
# shape-dependent arguments), then the shape-changing ones those arguments still fit.
SAME_SHAPE = [(n, s, v) for n, s, v in LAYOUTS if n in
              ("contiguous", "transposed", "sliced", "sliced_offset", "expanded")]
# Arguments of the ops whose sampler needs some: the unary family's activations with parameters,
# and the view/shape family's (each fits a [2, 3], [0, 3] and [1, 3] input).
UNARY_ARGS = {
    "leaky_relu": {"negative_slope": 0.2}, "hardtanh": {"min_val": -0.5, "max_val": 2.0},
    "hardshrink": {"lambd": 0.75}, "softshrink": {"lambd": 0.75},
    "threshold": {"threshold": 0.5, "value": -2.0}, "rrelu": {"lower": 0.1, "upper": 0.3},
}
SHAPE_ARGS = {
    "reshape": {"shape": [3, -1]}, "view": {"shape": [-1]}, "expand": {"shape": [2, -1, 3]},
    "permute": {"dims": [1, 0]}, "transpose": {"dim0": 0, "dim1": -1}, "t": {},
    "narrow": {"dim": 1, "start": 1, "length": 2},
    "narrow_copy": {"dim": 1, "start": 1, "length": 2}, "select": {"dim": 1, "index": -1},
    "diagonal": {"offset": 1}, "movedim": {"source": 0, "destination": 1},
    "flatten": {}, "unflatten": {"dim": 1, "sizes": [3, 1]}, "squeeze": {}, "unsqueeze": {"dim": 1},
    "swapaxes": {"axis0": 0, "axis1": 1}, "ravel": {}, "broadcast_to": {"shape": [2, 2, 3]},
    "split": {"split_size": 2, "dim": 1}, "chunk": {"chunks": 2, "dim": 1},
    "tensor_split": {"sections": 2, "dim": 1}, "unbind": {"dim": 1}, "hsplit": {"sections": 3},
    "vsplit": {"sections": [1]}, "flip": {"dims": [0, 1]}, "fliplr": {}, "flipud": {},
    "roll": {"shifts": 1}, "rot90": {}, "tril": {}, "triu": {"diagonal": 1},
    "repeat": {"sizes": [2, 1]}, "tile": {"dims": [2]},
    "repeat_interleave": {"repeats": 2, "dim": 1},
    "atleast_1d": {}, "atleast_2d": {}, "atleast_3d": {}, "adjoint": {}, "diag": {},
    "diagflat": {}, "diag_embed": {}, "trace": {}, "msort": {}, "clone": {}, "detach": {},
    "contiguous": {}, "zeros_like": {}, "ones_like": {}, "full_like": {"fill_value": 2.5},
}


def shape_op(sw, op, tol):
    """View and reordering ops: the [2, 3] layouts, 0-size and size-1 inputs, specials (the
    values pass through), every dtype."""
    a = SHAPE_ARGS[op]
    for name, shape, view in SAME_SHAPE:
        sw.case(op, name, [sw.f(shape, view=view)], a, tol=tol)
    sw.case(op, "size0", [sw.f([0, 3])], a, tol=tol)
    sw.case(op, "size1", [sw.f([1, 3])], a, tol=tol)
    sw.case(op, "special", [T(SPECIALS, shape=[2, 3])], a, tol=tol)
    for dt in INT_DTYPES:
        sw.case(op, f"{dt}_sliced", [sw.i([2, 5], dt, [("slice", [1, 1, 5, 2])])], a, tol=tol)


def join(sw, op, tol):
    """Ops over a list of tensors: layouts on either side, 0-size, mixed dtypes (promotion),
    mismatched shapes."""
    a = {"dim": 1} if op in ("cat", "stack", "concat") else {}
    for name, shape, view in SAME_SHAPE:
        sw.case(op, name, [sw.f(shape, view=view), sw.f([2, 3])], a, tol=tol)
    sw.case(op, "three", [sw.f([2, 3]), sw.f([3, 2], view=[("t", [])]), sw.f([2, 3])], a, tol=tol)
    sw.case(op, "size0", [sw.f([2, 0]) if a else sw.f([0, 3]), sw.f([2, 3])], a, tol=tol)
    sw.case(op, "one", [sw.f([2, 3])], a, tol=tol)
    sw.case(op, "rank1", [sw.f([3]), sw.f([3])], a, tol=tol)
    sw.case(op, "special", [T(SPECIALS, shape=[2, 3]), T(LARGE, shape=[2, 3])], a, tol=tol)
    sw.case(op, "int32_float32", [sw.i([2, 3], "int32"), sw.f([2, 3])], a, tol=tol)
    sw.case(op, "bool_int64", [sw.i([2, 3], "bool"), sw.i([2, 3], "int64")], a, tol=tol)
    sw.case(op, "mismatch", [sw.f([2, 3]), sw.f([3, 4])], a, tol=tol)
    for dt in INT_DTYPES:
        sw.case(op, dt, [sw.i([2, 5], dt, [("slice", [1, 1, 5, 2])]), sw.i([2, 3], dt)], a,
                tol=tol)


def linear(sw, op, tol):
    w, b = sw.f([4, 3]), sw.f([4])
    for name, shape, view in LAYOUTS:
        sw.case(op, name, [sw.f(shape, view=view), w, b], tol=tol)
    sw.case(op, "no_bias", [sw.f([2, 3]), w], tol=tol)
    sw.case(op, "weight_transposed", [sw.f([2, 3]), sw.f([3, 4], view=[("t", [])]), b], tol=tol)
    sw.case(op, "batched", [sw.f([2, 2, 3]), w, b], tol=tol)
    sw.case(op, "rank1", [sw.f([3]), w, b], tol=tol)
    sw.case(op, "special", [T(SPECIALS, shape=[2, 3]), w, b], tol=tol)
    sw.case(op, "mismatch", [sw.f([2, 5]), w, b], tol=tol)
    sw.case(op, "int32", [sw.i([2, 3], "int32"), w, b], tol=tol)
    sw.case(op, "int64_all", [sw.i([2, 3], "int64"), sw.i([4, 3], "int64"), sw.i([4], "int64")],
            tol=tol)


def bilinear(sw, op, tol):
    w, b = sw.f([2, 3, 4]), sw.f([2])
    for name, shape, view in SAME_SHAPE:
        sw.case(op, name, [sw.f(shape, view=view), sw.f([2, 4]), w, b], tol=tol)
    sw.case(op, "no_bias", [sw.f([2, 3]), sw.f([2, 4]), w], tol=tol)
    sw.case(op, "size0", [sw.f([0, 3]), sw.f([0, 4]), w, b], tol=tol)
    sw.case(op, "batched", [sw.f([2, 1, 3]), sw.f([2, 1, 4]), w, b], tol=tol)
    sw.case(op, "special", [T(SPECIALS, shape=[2, 3]), sw.f([2, 4]), w, b], tol=tol)
    sw.case(op, "mismatch", [sw.f([2, 3]), sw.f([3, 4]), w, b], tol=tol)
    sw.case(op, "int64", [sw.i([2, 3], "int64"), sw.f([2, 4]), w, b], tol=tol)


def embedding(sw, op, tol):
    w = sw.f([5, 3])
    idx = lambda shape, dt="int64", view=None: T(
        sw.rng.integers(0, 5, math.prod(shape)).tolist(), dt, shape, view)
    sw.case(op, "contiguous", [idx([2, 3]), w], tol=tol)
    sw.case(op, "index_transposed", [idx([3, 2], view=[("t", [])]), w], tol=tol)
    sw.case(op, "index_sliced", [idx([2, 5], view=[("slice", [1, 0, 5, 2])]), w], tol=tol)
    sw.case(op, "weight_transposed", [idx([4]), sw.f([3, 5], view=[("t", [])])], tol=tol)
    sw.case(op, "size0", [idx([0]), w], tol=tol)
    sw.case(op, "rank0", [idx([]), w], tol=tol)
    sw.case(op, "repeated", [T([1, 1, 4, 1], "int64"), w], tol=tol)
    sw.case(op, "special", [T([0, 1], "int64"), T(SPECIALS, shape=[2, 3])], tol=tol)
    sw.case(op, "int32_index", [idx([2, 3], "int32"), w], tol=tol)
    sw.case(op, "out_of_range", [T([0, 5], "int64"), w], tol=tol)
    sw.case(op, "negative_index", [T([0, -1], "int64"), w], tol=tol)
    sw.case(op, "float_index", [sw.f([2]), w], tol=tol)


def norm_layer(sw, op, tol):
    """layer_norm / rms_norm over the last dim (or two), with and without affine parameters."""
    bias = op == "layer_norm"

    def n(name, x, shape, affine=True, **extra):
        a = {"normalized_shape": shape, **extra}
        inputs = [x]
        if affine:
            a["weight"] = True
            inputs.append(sw.f(shape))
            if bias:
                a["bias"] = True
                inputs.append(sw.f(shape))
        sw.case(op, name, inputs, a, tol=tol)

    for name, shape, view in SAME_SHAPE:
        n(name, sw.f(shape, view=view), [3])
    n("no_affine", sw.f([2, 3]), [3], affine=False)
    n("two_dims", sw.f([2, 2, 3]), [2, 3])
    n("size0", sw.f([0, 3]), [3])
    n("size1", sw.f([2, 1]), [1])
    n("eps", sw.f([2, 3]), [3], eps=0.5)
    n("constant_rows", T([2.0] * 6, shape=[2, 3]), [3])
    n("special", T(SPECIALS, shape=[2, 3]), [3])
    n("large", T(LARGE, shape=[2, 3]), [3])
    n("mismatch", sw.f([2, 3]), [2])
    n("int64", sw.i([2, 3], "int64"), [3], affine=False)


def attention(sw, op, tol):
    q, k, v = sw.f([2, 3, 4]), sw.f([2, 5, 4]), sw.f([2, 5, 2])
    sw.case(op, "contiguous", [q, k, v], tol=tol)
    sw.case(op, "transposed", [sw.f([2, 4, 3], view=[("transpose", [1, 2])]), k, v], tol=tol)
    sw.case(op, "key_sliced", [q, sw.f([2, 5, 8], view=[("slice", [2, 0, 8, 2])]), v], tol=tol)
    sw.case(op, "expanded", [sw.f([1, 3, 4], view=[("expand", [2, 3, 4])]), k, v], tol=tol)
    sw.case(op, "causal", [q, sw.f([2, 3, 4]), sw.f([2, 3, 2])], {"is_causal": True}, tol=tol)
    sw.case(op, "scale", [q, k, v], {"scale": 0.25}, tol=tol)
    sw.case(op, "bool_mask", [q, k, v, T([1, 0, 1, 1, 0] * 3, "bool", [3, 5])], tol=tol)
    sw.case(op, "float_mask", [q, k, v, sw.f([3, 5])], tol=tol)
    sw.case(op, "four_dims", [sw.f([1, 2, 3, 4]), sw.f([1, 2, 5, 4]), sw.f([1, 2, 5, 2])], tol=tol)
    sw.case(op, "size0", [sw.f([2, 0, 4]), k, v], tol=tol)
    sw.case(op, "large", [sw.f([2, 3, 4], -50.0, 50.0), k, v], tol=tol)
    sw.case(op, "mismatch", [q, sw.f([2, 5, 3]), v], tol=tol)
    sw.case(op, "int64", [sw.i([2, 3, 4], "int64"), k, v], tol=tol)


def loss(sw, op, tol):
    """Elementwise losses: layouts, each reduction, specials, broadcasting and dtypes."""
    for name, shape, view in LAYOUTS:
        # The target: contiguous, of the input's (viewed) shape.
        sw.case(op, name, [sw.f(shape, view=view), sw.f([2, 3] if view else shape)], tol=tol)
    for red in ("none", "sum"):
        sw.case(op, red, [sw.f([2, 3]), sw.f([2, 3])], {"reduction": red}, tol=tol)
    sw.case(op, "size0_sum", [sw.f([0, 3]), sw.f([0, 3])], {"reduction": "sum"}, tol=tol)
    sw.case(op, "special", [T(SPECIALS, shape=[2, 3]), sw.f([2, 3])], {"reduction": "none"},
            tol=tol)
    sw.case(op, "large", [T(LARGE), T(LARGE[::-1])], tol=tol)
    sw.case(op, "bad_reduction", [sw.f([2, 3]), sw.f([2, 3])], {"reduction": "avg"}, tol=tol)
    sw.case(op, "mismatch", [sw.f([2, 3]), sw.f([4])], tol=tol)
    if op in ("smooth_l1_loss", "huber_loss"):
        key = "beta" if op == "smooth_l1_loss" else "delta"
        sw.case(op, key, [sw.f([2, 3]), sw.f([2, 3])], {key: 0.5, "reduction": "none"}, tol=tol)
    for dt in ("int64", "bool"):
        sw.case(op, dt, [sw.i([2, 3], dt), sw.i([2, 3], dt)], tol=tol)
    sw.case(op, "int64_target", [sw.f([2, 3]), sw.i([2, 3], "int64")], tol=tol)


def class_loss(sw, op, tol):
    """nll_loss / cross_entropy: class-index targets in each layout, reductions, ignore_index,
    K-dim inputs, bad targets."""
    x = sw.f([3, 4], -3.0, 0.0)
    tgt = lambda shape, view=None, dt="int64": T(
        sw.rng.integers(0, 4, math.prod(shape)).tolist(), dt, shape, view)
    sw.case(op, "contiguous", [x, tgt([3])], tol=tol)
    sw.case(op, "transposed", [sw.f([4, 3], -3.0, 0.0, view=[("t", [])]), tgt([3])], tol=tol)
    sw.case(op, "sliced", [x, tgt([6], view=[("slice", [0, 0, 6, 2])])], tol=tol)
    sw.case(op, "rank1", [sw.f([4], -3.0, 0.0), tgt([])], tol=tol)
    sw.case(op, "kdim", [sw.f([2, 4, 3], -3.0, 0.0), tgt([2, 3])], tol=tol)
    for red in ("none", "sum"):
        sw.case(op, red, [x, tgt([3])], {"reduction": red}, tol=tol)
    sw.case(op, "ignore_index", [x, T([1, -100, 2], "int64")], tol=tol)
    sw.case(op, "ignore_index_set", [x, T([1, 3, 3], "int64")], {"ignore_index": 3}, tol=tol)
    sw.case(op, "all_ignored", [x, T([-100] * 3, "int64")], tol=tol)
    sw.case(op, "size0", [sw.f([0, 4]), tgt([0])], {"reduction": "sum"}, tol=tol)
    sw.case(op, "special", [T(SPECIALS[:4] + [0.5] * 8, shape=[3, 4]), tgt([3])],
            {"reduction": "none"}, tol=tol)
    sw.case(op, "out_of_range", [x, T([0, 4, 1], "int64")], tol=tol)
    sw.case(op, "int32_target", [x, tgt([3], dt="int32")], tol=tol)
    sw.case(op, "mismatch", [x, tgt([2])], tol=tol)
    if op == "cross_entropy":
        sw.case(op, "probabilities", [x, sw.f([3, 4], 0.0, 1.0)], tol=tol)


SAMPLERS = {"unary": unary, "binary": binary, "reduce": reduce, "rowwise": rowwise,
            "clamp": clamp, "shape": shape_op, "join": join, "linear": linear,
            "bilinear": bilinear, "embedding": embedding, "layer_norm": norm_layer,
            "rms_norm": norm_layer, "attention": attention, "loss": loss,
            "class_loss": class_loss}
# The convolution family's samplers (sweep_conv.py).
from sweep_conv import SAMPLERS as CONV_SAMPLERS  # noqa: E402

SAMPLERS.update(CONV_SAMPLERS)
# Schema entries whose sampler is not written yet or whose op the fixtures cannot call:
# name -> why (the coverage matrix lists them).
UNSWEPT = {}


def dispatches(op, ts):
    """Whether fixture.call() knows `op`: as a core op (its own, kernel and conv families) for
    fixtures/sweep.json, which the native runner loads too, or as a TS-layer composite for
    fixtures/ts/sweep_ts.json (`ts`)."""
    if (op in fixture.COMPOSITE_OPS or op in fixture.SYNTAX_OPS) != ts:
        return False
    try:
        fixture.call(op, [torch.zeros(2, 3)], {"dim": 1})
    except ValueError as e:
        return not str(e).startswith("unknown op")
    except Exception:  # noqa: BLE001 — a PyTorch error: the op is known, its args are not these
        return True
    return True


def build(fam, rng, ts=False):
    """The sweep's cases of the core ops, or (`ts`) of the TS layer's composites."""
    sw = Sweep(fam, rng)
    seen = set()
    for name, entry in schema_entries():
        # One op under several namespaces (torch.erf and torch.special.erf, torch.layer_norm
        # and nn.functional.layer_norm) is one set of cases.
        if name in seen:
            continue
        seen.add(name)
        sampler = SAMPLERS.get(entry["samples"])
        if sampler is None:
            UNSWEPT[name] = f"no sampler `{entry['samples']}` yet"
            continue
        if getattr(sampler, "both_builds", False):
            # Its cases may go to either file (sweep_conv.py): each goes to its own op's.
            if dispatches(name, ts) or dispatches(name, not ts):
                UNSWEPT.pop(name, None)
                t = entry.get("tol")
                sampler(sw, name, (t["rtol"], t["atol"]) if t else None, ts)
            else:
                UNSWEPT[name] = "no fixture dispatch (fixture.call) for it yet"
            continue
        if not dispatches(name, ts):
            if not dispatches(name, not ts):
                UNSWEPT[name] = "no fixture dispatch (fixture.call) for it yet"
            continue
        UNSWEPT.pop(name, None)
        t = entry.get("tol")
        sampler(sw, name, (t["rtol"], t["atol"]) if t else None)
