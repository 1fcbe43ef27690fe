"""The schema-driven parity sweep (fixtures/sweep.json): every schema entry tagged `samples:
<sampler>` gets the cases its sampler generates — layouts (contiguous, transposed, sliced with a
step, expanded, 0-size, size-1 dims, rank 0), special values (NaN, ±inf, -0), negative and large
values, and every dtype the fixtures know (float32, int32, int64, uint8, bool). PyTorch decides
each outcome: where it raises for a dtype, the case records the error (webtorch must raise a
TorchError subclass with the same message). Gradients are added by gen.py as for every family.

Run by gen.py through cases/sweep.py. Cases PyTorch itself cannot meet (its float32 result
outside the tolerance of the float64 reference) are left out and counted in DROPPED.
"""

import contextlib
import json
import math
import pathlib
import zlib

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
                func = entry["func"][0] if isinstance(entry["func"], list) else entry["func"]
                out.append((func.split("(")[0], entry))
    return out


def inplace_forms():
    """The in-place form of each swept op, for the runners' in-place pass (gen.py writes it into
    fixtures/index.json): op -> [method, kind]. An entry with `inplace: true` has `<op>_`; a
    separate `<op>_` entry (`threshold_`, `t_`) is the in-place form of `<op>` when `<op>` is
    swept. Kind `view` for views.yaml's in-place forms (they change the tensor's shape and
    strides, not its values), else `value` (the op's result written into the input)."""
    swept, own, separate = set(), {}, {}
    for path in sorted(SCHEMA.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        for entry in doc.get("ops", []) if isinstance(doc, dict) else []:
            if not isinstance(entry, dict) or "func" not in entry or entry.get("alias_of"):
                continue
            func = entry["func"][0] if isinstance(entry["func"], list) else entry["func"]
            name = func.split("(")[0]
            if entry.get("samples"):
                swept.add(name)
                if entry.get("inplace"):
                    own[name] = [name + "_", "value"]
            elif name.endswith("_") and not name.endswith("__"):
                separate[name[:-1]] = [name, "view" if path.stem == "views" else "value"]
    out = dict(own)
    for op, form in separate.items():
        if op in swept:
            out.setdefault(op, form)
    return dict(sorted(out.items()))


# PyTorch's names of the dtypes, as its "can't be cast" message spells them.
SCALAR_TYPE = {torch.float32: "Float", torch.float64: "Double", torch.float16: "Half",
               torch.bfloat16: "BFloat16", torch.int64: "Long", torch.int32: "Int",
               torch.uint8: "Byte", torch.bool: "Bool"}


def _write_back(self, res):
    """An in-place form PyTorch does not have (webtorch's `gelu_`, `trigamma_`): the op's result
    written into the input, under PyTorch's rule for what an in-place result may be cast to."""
    if not torch.can_cast(res.dtype, self.dtype):
        raise RuntimeError(f"result type {SCALAR_TYPE[res.dtype]} can't be cast to the "
                           f"desired output type {SCALAR_TYPE[self.dtype]}")
    return self.copy_(res)


@contextlib.contextmanager
def _inplace_calls(op, method):
    """While open, `torch.<op>(x, ...)`, `F.<op>(x, ...)` and `x.<op>(...)` call the in-place
    form instead (the Tensor method `method`, else the function of that name): fixture.call()
    then runs the in-place form of whatever call it makes for `op`."""
    def redirect(self, *a, **k):
        if hasattr(torch.Tensor, method):
            return getattr(self, method)(*a, **k)
        for ns in (torch, torch.nn.functional):
            if hasattr(ns, method):
                return getattr(ns, method)(self, *a, **k)
        return _write_back(self, next(f for ns, f in saved if f is not None)(self, *a, **k))
    saved = [(ns, ns.__dict__.get(op)) for ns in (torch, torch.nn.functional, torch.special)
             if hasattr(ns, op)]
    saved.append((torch.Tensor, torch.Tensor.__dict__.get(op)))
    try:
        for ns, _ in saved:
            setattr(ns, op, redirect)
        yield
    finally:
        for ns, f in saved:
            if f is None:
                delattr(ns, op)
            else:
                setattr(ns, op, f)


def _viewed(spec):
    return list(fixture.build_input(spec).shape)


def inplace_fixture(cases):
    """The in-place and async passes' data (fixtures/sweep_inplace.json; README: The sweep): each
    swept op's in-place form and Promise-returning form, and the sweep cases the in-place pass
    runs, with PyTorch's outcome of the in-place form on a copy of the first input: `[name]` when
    it writes the case's result (the runner expects the case's values and gradients), `[name,
    type, class, message]` when PyTorch raises. A case whose first input is not a tensor, whose
    result is a tuple or an error, or whose result PyTorch's in-place form does not reproduce
    (broadcast into the input, another dtype it casts to) is not in the list."""
    forms = inplace_forms()
    listed = []
    for c in cases:
        form = forms.get(c["op"])
        if not form or "/sweep_" not in c["name"] or "error" in c or not isinstance(c.get("out"), dict):
            continue
        self = c["inputs"][0] if c["inputs"] else {"scalar": 0}
        if "scalar" in self:
            continue
        method, kind = form
        if kind == "view" and self.get("view"):
            continue  # PyTorch's clone() of a view keeps its strides, which as_strided_ reads
        if kind == "value" and _viewed(self) != c["out"]["shape"]:
            continue
        inputs = [fixture.build_input(i) for i in c["inputs"]]
        inputs[0] = inputs[0].clone()
        args = dict(c["args"], inplace=True) if c["op"] == "index_put" else c["args"]
        try:
            with _inplace_calls(c["op"], method):
                res = fixture.call(c["op"], inputs, json.loads(json.dumps(args)))
            if res is not inputs[0] and c["op"] != "index_put":
                # The fixture's call is not the op's own (trigamma is polygamma(1, x) there).
                res = _write_back(inputs[0], res)
        except Exception as e:  # noqa: BLE001 — PyTorch's refusal is the expected outcome
            listed.append([c["name"], type(e).__name__, error_class(e), str(e)])
            continue
        out = c["out"]
        want = torch.tensor(fixture.dec(out["data"]), dtype=fixture.DTYPES[out["dtype"]])
        got = res.detach().reshape(-1)
        if (list(res.shape) != out["shape"] or fixture.DTYPE_NAMES[res.dtype] != out["dtype"]
                or not torch.allclose(got.double(), want.double(), rtol=c["tol"]["rtol"],
                                      atol=c["tol"]["atol"], equal_nan=True)):
            DROPPED[c["name"] + "/inplace"] = "PyTorch's in-place form differs from the case"
            continue
        listed.append([c["name"]])
    return {"inplace": forms, "async": async_forms(), "cases": listed}


def async_forms():
    """The Promise-returning form of each swept op (`masked_select_async`: a `<op>_async` schema
    entry), for the runners' pass that awaits it on the op's cases: op -> function name."""
    swept = {name for name, _ in schema_entries()}
    out = {}
    for path in sorted(SCHEMA.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        for entry in doc.get("ops", []) if isinstance(doc, dict) else []:
            if isinstance(entry, dict) and isinstance(entry.get("func"), str):
                name = entry["func"].split("(")[0]
                if name.endswith("_async") and name[: -len("_async")] in swept:
                    out[name[: -len("_async")]] = name
    return dict(sorted(out.items()))


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

    def case(self, op, name, inputs, args=None, tol=None, error=None):
        """One generated case; PyTorch decides between a result and an error. `error`: the
        webtorch class where error_class's reading of the message misses (an index out of
        bounds is a RuntimeError whose message names a size, not a shape error), or of a
        TypeError that is PyTorch refusing the values, not a missing overload (imag of a real
        tensor)."""
        c = {"name": f"{op}/sweep_{name}", "op": op, "inputs": list(inputs),
             "args": fixture._enc_scalar(args or {})}
        if tol is not None:
            c["tol"] = tol
        kind, res = fixture._outcome(c)
        if kind == "error" and isinstance(res, TypeError) and error is None:
            # No such overload in Python (maximum(t, 2.5)): webtorch's wrapped-number reading of
            # a scalar operand is defined by the binary_math fixtures, not by an error here.
            DROPPED[c["name"]] = f"PyTorch has no overload: {res}"
            return
        try:
            cls = (error or error_class(res)) if kind == "error" else None
            self.fam.cases.append(finish(c, cls))
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


# The index, selection, number and misc families: each op's cases from its own builder (valid
# index tensors, k/q values, shapes that fit), over the layouts the op admits, special values and
# each dtype. Indices are unique where PyTorch's result depends on the order of writes (scatter,
# index_copy, masked/select/slice scatters); values with ties check the index PyTorch picks.
def _ix(vals, shape=None, view=None, dt="int64"):
    return T(vals, dt, shape, view)


def _per_op(builders):
    """A sampler from per-op builders. Each op draws from its own generator (seeded by its name),
    so that its cases do not depend on, nor shift, the other entries' random data."""
    def sampler(sw, op, tol):
        own = Sweep(sw.fam, np.random.default_rng(zlib.crc32(op.encode())))

        def c(name, inputs, args=None, error=None):
            own.case(op, name, inputs, args, tol=tol, error=error)
        c.op = op
        builders[op](c, own)
    return sampler


def _layouts_23(sw):
    """The [2, 3] float32 operand in each layout that keeps that shape (one sliced layout: the
    other adds no new stride pattern to these ops)."""
    return [(name, sw.f(shape, view=view)) for name, shape, view in SAME_SHAPE
            if name != "sliced_offset"]


# Beside float32, the integer dtype and bool these builders try (the index family moves data
# without computing on it; the others' integer kernels are those of int64, whose int32/uint8
# forms the unary and binary sweeps cover): each more dtype compiles the op's kernels again on
# WebGPU, the cost that bounds this sweep.
_MOVED_DTYPES = ["int64", "bool"]


def _index_select(c, sw):
    idx = _ix([2, 0, 2])
    for name, x in _layouts_23(sw):
        c(name, [x, idx], {"dim": 1})
    c("dim0", [sw.f([2, 3]), _ix([1, 1, 0])], {"dim": 0})
    c("index_sliced", [sw.f([2, 3]), _ix([2, 9, 0, 9, 1], view=[("slice", [0, 0, 5, 2])])],
      {"dim": 1})
    c("index_int32", [sw.f([2, 3]), _ix([1, 2], dt="int32")], {"dim": 1})
    c("index_rank0", [sw.f([2, 3]), _ix([1], shape=[])], {"dim": 1})
    c("index_empty", [sw.f([2, 3]), _ix([], shape=[0])], {"dim": 1})
    c("size0", [sw.f([0, 3]), idx], {"dim": 1})
    c("rank0", [sw.f([]), _ix([0])], {"dim": 0})
    c("special", [T(SPECIALS, shape=[2, 3]), idx], {"dim": 1})
    c("out_of_range", [sw.f([2, 3]), _ix([0, 3])], {"dim": 1})
    c("negative_index", [sw.f([2, 3]), _ix([0, -1])], {"dim": 1})
    c("float_index", [sw.f([2, 3]), sw.f([2])], {"dim": 1})
    c("index_2d", [sw.f([2, 3]), _ix([0, 1], shape=[1, 2])], {"dim": 1})
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt), idx], {"dim": 1})


def _gather(c, sw):
    idx = _ix([2, 0, 1, 1], shape=[2, 2])
    for name, x in _layouts_23(sw):
        c(name, [x, idx], {"dim": 1})
    c("dim0", [sw.f([2, 3]), _ix([1, 0, 1, 0, 0, 1], shape=[2, 3])], {"dim": 0})
    c("index_transposed", [sw.f([2, 3]), _ix([0, 2, 1, 1], shape=[2, 2], view=[("t", [])])],
      {"dim": 1})
    c("index_expanded", [sw.f([2, 3]), _ix([2, 1], shape=[1, 2], view=[("expand", [2, 2])])],
      {"dim": 1})
    c("index_int32", [sw.f([2, 3]), _ix([1, 2], shape=[2, 1], dt="int32")], {"dim": 1})
    c("index_empty", [sw.f([2, 3]), _ix([], shape=[2, 0])], {"dim": 1})
    c("special", [T(SPECIALS, shape=[2, 3]), idx], {"dim": 1})
    c("out_of_range", [sw.f([2, 3]), _ix([0, 3], shape=[2, 1])], {"dim": 1}, error="TorchError")
    c("rank_mismatch", [sw.f([2, 3]), _ix([0, 1])], {"dim": 1})
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt), idx], {"dim": 1})


def _take_along_dim(c, sw):
    idx = _ix([2, 0, 1, 1], shape=[2, 2])
    for name, x in _layouts_23(sw):
        c(name, [x, idx], {"dim": 1})
    c("no_dim", [sw.f([2, 3]), _ix([5, 0, 3])])
    c("broadcast", [sw.f([2, 3]), _ix([2, 0], shape=[1, 2])], {"dim": 1})
    c("negative_dim", [sw.f([2, 3]), _ix([1, 0, 1], shape=[1, 3])], {"dim": -2})
    c("special", [T(SPECIALS, shape=[2, 3]), idx], {"dim": 1})
    c("index_int32", [sw.f([2, 3]), _ix([1, 2], shape=[2, 1], dt="int32")], {"dim": 1})
    c("float_index", [sw.f([2, 3]), sw.f([2, 1])], {"dim": 1})
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt), idx], {"dim": 1})


def _take(c, sw):
    idx = _ix([5, 0, -1, 3])
    for name, x in _layouts_23(sw):
        c(name, [x, idx])
    c("index_2d", [sw.f([2, 3]), _ix([0, 4, 2, 1], shape=[2, 2])])
    c("rank0", [sw.f([]), _ix([0, 0])])
    c("index_empty", [sw.f([2, 3]), _ix([], shape=[0])])
    c("special", [T(SPECIALS, shape=[2, 3]), idx])
    c("out_of_range", [sw.f([2, 3]), _ix([6])])
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt), idx])


# scatter targets: each row's indices distinct (PyTorch's scatter with duplicates is unordered).
_SC_IDX = [[2, 0], [1, 2]]


def _scatter(c, sw):
    idx = _ix(_SC_IDX, shape=[2, 2])
    for name, x in _layouts_23(sw):
        c(name, [x, idx, sw.f([2, 2])], {"dim": 1})
    c("value", [sw.f([2, 3]), idx], {"dim": 1, "value": 2.5})
    c("dim0", [sw.f([2, 3]), _ix([1, 0, 1], shape=[1, 3]), sw.f([2, 3])], {"dim": 0})
    c("src_larger", [sw.f([2, 3]), idx, sw.f([3, 4])], {"dim": 1})
    c("src_transposed", [sw.f([2, 3]), idx, sw.f([2, 2], view=[("t", [])])], {"dim": 1})
    c("index_empty", [sw.f([2, 3]), _ix([], shape=[2, 0]), sw.f([2, 2])], {"dim": 1})
    c("special", [sw.f([2, 3]), idx, T(SPECIALS[:4], shape=[2, 2])], {"dim": 1})
    c("out_of_range", [sw.f([2, 3]), _ix([0, 3], shape=[2, 1]), sw.f([2, 1])], {"dim": 1}, error="TorchError")
    c("dtype_mismatch", [sw.f([2, 3]), idx, sw.i([2, 2], "int64")], {"dim": 1})
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt), idx, sw.i([2, 2], dt)], {"dim": 1})


def _scatter_add(c, sw):
    idx = _ix([2, 0, 2, 1, 1, 1], shape=[2, 3])
    for name, x in _layouts_23(sw):
        c(name, [x, idx, sw.f([2, 3])], {"dim": 1})
    c("dim0", [sw.f([2, 3]), _ix([1, 1, 0], shape=[1, 3]), sw.f([1, 3])], {"dim": 0})
    c("src_larger", [sw.f([2, 3]), _ix([0, 0], shape=[2, 1]), sw.f([3, 4])], {"dim": 1})
    c("index_empty", [sw.f([2, 3]), _ix([], shape=[2, 0]), sw.f([2, 2])], {"dim": 1})
    c("special", [T(SPECIALS, shape=[2, 3]), idx, sw.f([2, 3])], {"dim": 1})
    c("out_of_range", [sw.f([2, 3]), _ix([3], shape=[1, 1]), sw.f([1, 1])], {"dim": 1}, error="TorchError")
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt), idx, sw.i([2, 3], dt)], {"dim": 1})


def _scatter_reduce(c, sw):
    idx = _ix([2, 0, 2, 1, 1, 1], shape=[2, 3])
    for name, x in _layouts_23(sw)[:3]:
        c(name, [x, idx, sw.f([2, 3])], {"dim": 1, "reduce": "sum"})
    for red in ("prod", "mean", "amax", "amin"):
        c(red, [sw.f([2, 3]), idx, sw.f([2, 3])], {"dim": 1, "reduce": red})
        c(f"{red}_exclude_self", [sw.f([2, 3]), idx, sw.f([2, 3])],
          {"dim": 1, "reduce": red, "include_self": False})
    c("special_amax", [T(SPECIALS, shape=[2, 3]), idx, T(SPECIALS[::-1], shape=[2, 3])],
      {"dim": 1, "reduce": "amax"})
    c("bad_reduce", [sw.f([2, 3]), idx, sw.f([2, 3])], {"dim": 1, "reduce": "max"})
    for dt in ("int32", "int64"):
        c(f"{dt}_mean", [sw.i([2, 3], dt), idx, sw.i([2, 3], dt)], {"dim": 1, "reduce": "mean"})
        c(f"{dt}_amin", [sw.i([2, 3], dt), idx, sw.i([2, 3], dt)],
          {"dim": 1, "reduce": "amin", "include_self": False})


def _index_add(c, sw):
    idx = _ix([2, 0, 2])
    for name, x in _layouts_23(sw):
        c(name, [x, idx, sw.f([2, 3])], {"dim": 1})
    c("alpha", [sw.f([2, 3]), idx, sw.f([2, 3])], {"dim": 1, "alpha": 2.5})
    c("dim0", [sw.f([2, 3]), _ix([1, 1, 0, 1]), sw.f([4, 3])], {"dim": 0})
    c("source_transposed", [sw.f([2, 3]), idx, sw.f([3, 2], view=[("t", [])])], {"dim": 1})
    c("index_int32", [sw.f([2, 3]), _ix([1], dt="int32"), sw.f([2, 1])], {"dim": 1})
    c("special", [T(SPECIALS, shape=[2, 3]), idx, sw.f([2, 3])], {"dim": 1})
    c("out_of_range", [sw.f([2, 3]), _ix([3]), sw.f([2, 1])], {"dim": 1}, error="TorchError")
    c("size_mismatch", [sw.f([2, 3]), idx, sw.f([2, 2])], {"dim": 1})
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt), idx, sw.i([2, 3], dt)], {"dim": 1})


def _index_copy(c, sw):
    idx = _ix([2, 0])
    for name, x in _layouts_23(sw):
        c(name, [x, idx, sw.f([2, 2])], {"dim": 1})
    c("dim0", [sw.f([2, 3]), _ix([1]), sw.f([1, 3])], {"dim": 0})
    c("index_int32", [sw.f([2, 3]), _ix([1], dt="int32"), sw.f([2, 1])], {"dim": 1})
    c("special", [sw.f([2, 3]), idx, T(SPECIALS[:4], shape=[2, 2])], {"dim": 1})
    c("out_of_range", [sw.f([2, 3]), _ix([3]), sw.f([2, 1])], {"dim": 1}, error="TorchError")
    c("size_mismatch", [sw.f([2, 3]), idx, sw.f([2, 3])], {"dim": 1})
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt), idx, sw.i([2, 2], dt)], {"dim": 1})


def _index_fill(c, sw):
    idx = _ix([2, 0])
    for name, x in _layouts_23(sw):
        c(name, [x, idx], {"dim": 1, "value": -1.5})
    c("dim0", [sw.f([2, 3]), _ix([1])], {"dim": 0, "value": 2})
    c("repeated", [sw.f([2, 3]), _ix([1, 1])], {"dim": 1, "value": 0.5})
    c("nan_value", [sw.f([2, 3]), idx], {"dim": 1, "value": NAN})
    c("size0", [sw.f([0, 3]), idx], {"dim": 1, "value": 1.0})
    c("out_of_range", [sw.f([2, 3]), _ix([3])], {"dim": 1, "value": 1.0})
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt), idx], {"dim": 1, "value": 1})
    c("int64_float_value", [sw.i([2, 3], "int64"), idx], {"dim": 1, "value": 2.5})


def _select_scatter(c, sw):
    for name, x in _layouts_23(sw):
        c(name, [x, sw.f([2])], {"dim": 1, "index": 1})
    c("dim0_negative", [sw.f([2, 3]), sw.f([3])], {"dim": 0, "index": -1})
    c("src_transposed", [sw.f([2, 3, 2]), sw.f([2, 2], view=[("t", [])])], {"dim": 1, "index": 2})
    c("special", [sw.f([2, 3]), T(SPECIALS[:3])], {"dim": 0, "index": 0})
    c("out_of_range", [sw.f([2, 3]), sw.f([2])], {"dim": 1, "index": 3})
    c("shape_mismatch", [sw.f([2, 3]), sw.f([3])], {"dim": 1, "index": 0})
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt), sw.i([2], dt)], {"dim": 1, "index": 0})


def _slice_scatter(c, sw):
    for name, x in _layouts_23(sw):
        c(name, [x, sw.f([2, 2])], {"dim": 1, "start": 0, "end": 3, "step": 2})
    c("dim0_default", [sw.f([2, 3]), sw.f([2, 3])])
    c("start_only", [sw.f([2, 3]), sw.f([1, 3])], {"dim": 0, "start": 1})
    c("negative", [sw.f([2, 3]), sw.f([2, 2])], {"dim": 1, "start": -2})
    c("empty", [sw.f([2, 3]), sw.f([2, 0])], {"dim": 1, "start": 1, "end": 1})
    c("special", [sw.f([2, 3]), T(SPECIALS[:3], shape=[1, 3])], {"dim": 0, "start": 1})
    c("shape_mismatch", [sw.f([2, 3]), sw.f([2, 3])], {"dim": 1, "start": 1})
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt), sw.i([2, 1], dt)], {"dim": 1, "start": 2})


def _diagonal_scatter(c, sw):
    for name, x in _layouts_23(sw):
        c(name, [x, sw.f([2])])
    c("offset", [sw.f([2, 3]), sw.f([2])], {"offset": 1})
    c("offset_negative", [sw.f([3, 3]), sw.f([1])], {"offset": -2})
    c("dims", [sw.f([2, 3, 2]), sw.f([3, 2])], {"dim1": 0, "dim2": 2})
    c("special", [sw.f([2, 3]), T([NAN, INF])])
    c("shape_mismatch", [sw.f([2, 3]), sw.f([3])])
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt), sw.i([2], dt)])


def _masked_scatter(c, sw):
    mask = _ix([1, 0, 1, 0, 1, 1], shape=[2, 3], dt="bool")
    for name, x in _layouts_23(sw):
        c(name, [x, mask, sw.f([5])])
    c("mask_broadcast", [sw.f([2, 3]), _ix([0, 1, 1], dt="bool"), sw.f([2, 3])])
    c("source_2d", [sw.f([2, 3]), mask, sw.f([2, 3])])
    c("none", [sw.f([2, 3]), _ix([0] * 6, shape=[2, 3], dt="bool"), sw.f([1])])
    c("special", [sw.f([2, 3]), mask, T(SPECIALS[:4])])
    c("short_source", [sw.f([2, 3]), mask, sw.f([3])])
    c("uint8_mask", [sw.f([2, 3]), _ix([1, 0, 1, 0, 1, 1], shape=[2, 3], dt="uint8"), sw.f([4])])
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt), mask, sw.i([4], dt)])


def _nonzero(c, sw):
    for name, shape, view in LAYOUTS:
        c(name, [T(sw.rng.integers(-1, 2, math.prod(shape)).astype(float).tolist(), "float32",
                   shape, view)])
    c("special", [T(SPECIALS, shape=[2, 3])])
    c("rank3", [_ix([0, 1, 1, 0, 0, 0, 1, 1], shape=[2, 2, 2], dt="bool")])
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 5], dt, [("slice", [1, 0, 5, 2])])])


def _index_put(c, sw):
    """`pattern`: 1 where the next index tensor (inputs 2…) goes, 0 for a whole dim. Without
    `accumulate`, indices are unique (PyTorch's result for repeated ones is unspecified)."""
    def put(name, inputs, pattern, **a):
        c(name, inputs, {"pattern": pattern, **a})

    for name, x in _layouts_23(sw):
        put(name, [x, sw.f([2]), _ix([1, -1]), _ix([2, 0])], [1, 1])
    put("rows", [sw.f([4, 3]), sw.f([2, 3]), _ix([3, 0])], [1])
    put("values_broadcast", [sw.f([4, 3]), sw.f([3]), _ix([2, 0])], [1])
    put("value_rank0", [sw.f([2, 3]), sw.f([]), _ix([1, 0]), _ix([2, 2])], [1, 1])
    put("values_transposed", [sw.f([3, 4]), sw.f([4, 2], view=[("t", [])]), _ix([2, 0])], [1])
    put("negative", [sw.f([5]), sw.f([3]), _ix([-1, 0, -3])], [1])
    put("whole_dim", [sw.f([2, 4]), sw.f([2, 2]), _ix([3, 1])], [0, 1])
    put("index_broadcast", [sw.f([3, 4]), sw.f([2, 3]), _ix([0, 2], shape=[2, 1]),
                            _ix([3, 0, 1])], [1, 1])
    put("index_sliced", [sw.f([5]), sw.f([3]), _ix([4, 9, 0, 9, 2], view=[("slice", [0, 0, 5, 2])])],
        [1])
    put("index_int32", [sw.f([4]), sw.f([2]), _ix([3, 1], dt="int32")], [1])
    put("index_empty", [sw.f([3]), sw.f([]), _ix([], shape=[0])], [1])
    put("mask", [sw.f([2, 3]), sw.f([3]), _ix([1, 0, 1, 0, 0, 1], shape=[2, 3], dt="bool")], [1])
    put("mask_rows", [sw.f([3, 2]), sw.f([2]), _ix([1, 0, 1], dt="bool")], [1])
    put("mask_value_rank0", [sw.f([2, 3], view=[("slice", [1, 0, 3, 1])]), sw.f([]),
                             _ix([0, 1, 1, 1, 0, 0], shape=[2, 3], dt="bool")], [1])
    put("mask_none", [sw.f([3]), sw.f([]), _ix([0, 0, 0], dt="bool")], [1])
    put("accumulate", [sw.f([2, 3]), sw.f([2]), _ix([1, 0]), _ix([2, 2])], [1, 1],
        accumulate=True)
    put("accumulate_repeated", [sw.f([4]), sw.f([5]), _ix([1, 3, 1, -3, 1])], [1],
        accumulate=True)
    put("accumulate_rows_repeated", [sw.f([3, 2]), sw.f([2]), _ix([2, 0, 2])], [1],
        accumulate=True)
    put("accumulate_mask", [sw.f([2, 3]), sw.f([3]),
                            _ix([1, 0, 1, 0, 0, 1], shape=[2, 3], dt="bool")], [1],
        accumulate=True)
    put("special", [T(SPECIALS, shape=[2, 3]), T([NAN, INF, -INF]), _ix([0, 1, 1]),
                    _ix([0, 1, 2])], [1, 1])
    put("special_accumulate", [T(SPECIALS, shape=[2, 3]), T([INF, -INF, NAN]), _ix([0, 0, 1]),
                               _ix([1, 1, 2])], [1, 1], accumulate=True)
    put("large", [T(LARGE, shape=[2, 3]), T([1e4, -1e4]), _ix([0, 1]), _ix([0, 0])], [1, 1],
        accumulate=True)
    put("size0", [sw.f([0, 3]), sw.f([3]), _ix([], shape=[0])], [1])
    put("out_of_range", [sw.f([3]), sw.f([1]), _ix([3])], [1], error="TorchError")
    put("float_index", [sw.f([3]), sw.f([1]), sw.f([1])], [1], error="IndexError")
    put("values_mismatch", [sw.f([4, 3]), sw.f([2]), _ix([0, 1])], [1])
    put("values_dtype", [sw.f([4, 3]), sw.i([3], "int64"), _ix([0, 1])], [1])
    put("mask_shape", [sw.f([2, 3]), sw.f([]), _ix([1, 0, 1], dt="bool")], [1], error="IndexError")
    for dt in _MOVED_DTYPES:
        put(dt, [sw.i([2, 3], dt), sw.i([2], dt), _ix([1, 0]), _ix([0, 2])], [1, 1])
        put(f"{dt}_accumulate", [sw.i([2, 3], dt), sw.i([3], dt), _ix([1, 1, 0]), _ix([0, 0, 2])],
            [1, 1], accumulate=True)


def _quantize(c, sw):
    """`quantize_per_tensor` (the integer representation) and `dequantize` (of the same
    quantization): each quantized dtype, rounding ties, saturation at the dtype's range."""
    q = lambda scale, zp, qd: {"scale": scale, "zero_point": zp, "qdtype": qd}
    for name, x in _layouts_23(sw):
        c(name, [x], q(0.1, 3, "quint8"))
    c("size0", [sw.f([0, 3])], q(0.1, 0, "qint8"))
    c("rank0", [sw.f([])], q(0.05, 0, "qint8"))
    c("qint8", [sw.f([2, 3])], q(0.02, -5, "qint8"))
    c("qint32", [sw.f([2, 3])], q(0.001, 7, "qint32"))
    c("ties", [T([0.25, 0.75, -0.25, -0.75, 1.25, 2.5])], q(0.5, 0, "qint8"))
    c("saturate", [T(LARGE)], q(0.5, 10, "quint8"))
    c("saturate_qint8", [T(LARGE)], q(1.0, 0, "qint8"))
    c("special", [T([INF, -INF, -0.0, 0.0, 1.0])], q(0.1, 2, "quint8"))


def _new_factory(c, sw):
    """`new_zeros`/`new_ones`/`new_full`: the input's dtype (or `dtype`), none of its values or
    layout."""
    fill = {"fill_value": 2.5} if c.op == "new_full" else {}
    for name, x in _layouts_23(sw):
        c(name, [x], {"size": [3, 1], **fill})
    c("size0", [sw.f([2, 3])], {"size": [0, 2], **fill})
    c("rank0", [sw.f([])], {"size": [], **fill})
    c("dtype", [sw.f([2])], {"size": [2], "dtype": "int64", **fill})
    c("negative", [sw.f([2])], {"size": [-1], **fill})
    for dt in INT_DTYPES:
        c(dt, [sw.i([2], dt)], {"size": [2, 2], **({"fill_value": 3} if fill else {})})


def _masked_select(c, sw):
    mask = _ix([1, 0, 1, 0, 1, 1], shape=[2, 3], dt="bool")
    for name, x in _layouts_23(sw):
        c(name, [x, mask])
    c("mask_broadcast", [sw.f([2, 3]), _ix([0, 1, 1], dt="bool")])
    c("input_broadcast", [sw.f([3]), mask])
    c("size0", [sw.f([0, 3]), _ix([1, 0, 1], dt="bool")])
    c("special", [T(SPECIALS, shape=[2, 3]), _ix([1] * 6, shape=[2, 3], dt="bool")])
    c("uint8_mask", [sw.f([2, 3]), _ix([1, 0, 1, 0, 1, 1], shape=[2, 3], dt="uint8")])
    c("mismatch", [sw.f([2, 3]), _ix([1, 0], dt="bool")])
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt), mask])


def _where(c, sw):
    cond = _ix([1, 0, 1, 0, 0, 1], shape=[2, 3], dt="bool")
    for name, x in _layouts_23(sw):
        c(name, [cond, x, sw.f([3])])
    c("cond_broadcast", [_ix([0, 1, 1], dt="bool"), sw.f([2, 3]), sw.f([2, 1])])
    c("cond_transposed", [_ix([1, 0, 1, 1, 0, 0], shape=[3, 2], dt="bool", view=[("t", [])]),
                          sw.f([2, 3]), sw.f([2, 3])])
    c("scalars", [cond, sw.f([2, 3]), S(-1.5)])
    c("scalar_first", [cond, S(2), sw.f([2, 3])])
    c("size0", [_ix([], shape=[0, 3], dt="bool"), sw.f([0, 3]), sw.f([3])])
    c("special", [cond, T(SPECIALS, shape=[2, 3]), T(SPECIALS[::-1], shape=[2, 3])])
    c("uint8_cond", [_ix([1, 0, 2], dt="uint8"), sw.f([3]), sw.f([3])])
    c("int32_float32", [cond, sw.i([2, 3], "int32"), sw.f([2, 3])])
    c("mismatch", [cond, sw.f([2, 3]), sw.f([2])])
    for dt in _MOVED_DTYPES:
        c(dt, [cond, sw.i([2, 3], dt), sw.i([2, 3], dt)])


def _masked_fill(c, sw):
    mask = _ix([1, 0, 1, 0, 0, 1], shape=[2, 3], dt="bool")
    for name, x in _layouts_23(sw):
        c(name, [x, mask], {"value": -2.5})
    c("mask_broadcast", [sw.f([2, 3]), _ix([0, 1, 1], dt="bool")], {"value": 1.0})
    c("mask_transposed", [sw.f([2, 3]), _ix([1, 0, 1, 1, 0, 0], shape=[3, 2], dt="bool",
                                             view=[("t", [])])], {"value": 0.5})
    c("nan_value", [sw.f([2, 3]), mask], {"value": NAN})
    c("inf_value", [sw.f([2, 3]), mask], {"value": -INF})
    c("size0", [sw.f([0, 3]), _ix([1, 0, 1], dt="bool")], {"value": 1.0})
    c("special", [T(SPECIALS, shape=[2, 3]), mask], {"value": 0.0})
    c("uint8_mask", [sw.f([2, 3]), _ix([1, 0, 1, 0, 0, 1], shape=[2, 3], dt="uint8")],
      {"value": 1.0})
    c("mismatch", [sw.f([2, 3]), _ix([1, 0], dt="bool")], {"value": 1.0})
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt), mask], {"value": 1})
    c("int64_float_value", [sw.i([2, 3], "int64"), mask], {"value": 2.5})


def _embedding_bag(c, sw):
    w = sw.f([5, 3])
    bags = _ix([0, 2, 4, 1, 1, 3], shape=[2, 3])
    for mode in ("sum", "mean", "max"):
        c(mode, [bags, w], {"mode": mode})
    c("weight_transposed", [bags, sw.f([3, 5], view=[("t", [])])])
    flat, offsets = _ix([4, 0, 2, 2, 1]), _ix([0, 2, 2])
    for mode in ("sum", "max"):
        c(f"offsets_{mode}", [flat, w, offsets], {"offsets": True, "mode": mode})
    c("include_last_offset", [flat, w, _ix([0, 2, 5])],
      {"offsets": True, "include_last_offset": True, "mode": "sum"})
    c("per_sample_weights", [flat, w, offsets, sw.f([5])],
      {"offsets": True, "mode": "sum", "per_sample_weights": True})
    c("special", [bags, T(SPECIALS * 2 + [1.0, 2.0, 3.0], shape=[5, 3])], {"mode": "sum"})
    c("int32", [_ix([0, 2, 4, 1, 1, 3], shape=[2, 3], dt="int32"), w])
    c("bad_mode", [bags, w], {"mode": "min"})
    c("float_input", [sw.f([2, 3]), w])


def _one_hot(c, sw):
    c("contiguous", [_ix([0, 2, 1, 3])], {"num_classes": 4})
    c("transposed", [_ix([0, 2, 1, 2, 2, 0], shape=[3, 2], view=[("t", [])])], {"num_classes": 3})
    c("sliced", [_ix([0, 9, 2, 9, 1], view=[("slice", [0, 0, 5, 2])])], {"num_classes": 3})
    c("inferred", [_ix([0, 2, 1], shape=[1, 3])])
    c("rank0", [_ix([1], shape=[])], {"num_classes": 2})
    c("size0", [_ix([], shape=[0])], {"num_classes": 3})
    c("out_of_range", [_ix([0, 3])], {"num_classes": 3})
    c("negative", [_ix([0, -1])], {"num_classes": 3})
    c("int32", [_ix([0, 1], dt="int32")], {"num_classes": 2})
    c("float", [sw.f([2])], {"num_classes": 2})


def _searchsorted(c, sw):
    seq = T([-2.0, -0.5, 0.0, 1.5, 3.0])
    vals = lambda shape, view=None: T(np.round(sw.rng.uniform(-3, 4, math.prod(shape)) * 2) / 2,
                                      "float32", shape, view)
    for name, shape, view in SAME_SHAPE:
        c(name, [seq, vals(shape, view)])
    c("right", [seq, T([-2.0, 0.0, 3.0, 5.0])], {"right": True})
    c("out_int32", [seq, T([-2.0, 0.0, 3.0])], {"out_int32": True})
    c("sequence_2d", [T([0.0, 1.0, 2.0, -1.0, 0.5, 4.0], shape=[2, 3]), T([0.5, 1.0, 0.5, 5.0],
                                                                         shape=[2, 2])])
    c("sequence_sliced", [T([0.0, 9.0, 1.0, 9.0, 2.0], view=[("slice", [0, 0, 5, 2])]),
                          T([1.0, 1.5])])
    c("special", [T([-INF, 0.0, 1.0, INF]), T([NAN, INF, -INF, -0.0])])
    c("size0", [seq, T([], shape=[0])])
    c("int64", [_ix([-3, 0, 0, 4, 7]), _ix([0, 5, -9, 4])])
    c("int32_float", [_ix([1, 2, 3], dt="int32"), T([2.5])])
    c("mismatch", [T([0.0, 1.0, 2.0, 3.0], shape=[2, 2]), T([0.5, 1.0, 2.0])])


def _bucketize(c, sw):
    bounds = T([-2.0, -0.5, 0.0, 1.5, 3.0])
    for name, x in _layouts_23(sw):
        c(name, [x, bounds])
    c("right", [T([-2.0, 0.0, 3.0, 5.0]), bounds], {"right": True})
    c("out_int32", [T([-2.0, 0.0, 3.0]), bounds], {"out_int32": True})
    c("rank0", [T([0.5], shape=[]), bounds])
    c("special", [T(SPECIALS), bounds])
    c("size0", [sw.f([0, 3]), bounds])
    c("int64", [_ix([0, 5, -9, 4]), _ix([-3, 0, 0, 4, 7])])
    c("boundaries_2d", [T([1.0]), T([0.0, 1.0, 2.0, 3.0], shape=[2, 2])])


def _bincount(c, sw):
    x = _ix([1, 4, 1, 0, 3, 1])
    c("contiguous", [x])
    c("sliced", [_ix([2, 7, 2, 7, 0], view=[("slice", [0, 0, 5, 2])])])
    c("weights", [x, sw.f([6])])
    c("minlength", [x], {"minlength": 8})
    c("size0", [_ix([], shape=[0])])
    c("size0_minlength", [_ix([], shape=[0])], {"minlength": 3})
    c("int32", [_ix([0, 2, 2], dt="int32")])
    c("uint8", [_ix([0, 2, 2], dt="uint8")])
    c("negative", [_ix([0, -1])])
    c("rank2", [_ix([0, 1], shape=[1, 2])])
    c("float", [sw.f([3], 0.0, 3.0)])
    c("weights_mismatch", [x, sw.f([4])])


def _index_reduce(c, sw):
    idx = _ix([2, 0, 2])
    for name, x in _layouts_23(sw)[:3]:
        c(name, [x, idx, sw.f([2, 3])], {"dim": 1, "reduce": "prod"})
    for red in ("mean", "amax", "amin"):
        c(red, [sw.f([2, 3]), idx, sw.f([2, 3])], {"dim": 1, "reduce": red})
    for red in ("prod", "mean", "amax", "amin"):
        c(f"{red}_exclude_self", [sw.f([2, 3]), idx, sw.f([2, 3])],
          {"dim": 1, "reduce": red, "include_self": False})
    c("dim0", [sw.f([2, 3]), _ix([1, 1]), sw.f([2, 3])], {"dim": 0, "reduce": "amax"})
    c("special", [T(SPECIALS, shape=[2, 3]), idx, sw.f([2, 3])], {"dim": 1, "reduce": "amin"})
    c("bad_reduce", [sw.f([2, 3]), idx, sw.f([2, 3])], {"dim": 1, "reduce": "sum"})
    for dt in ("int32", "int64"):
        c(f"{dt}_mean", [sw.i([2, 3], dt), idx, sw.i([2, 3], dt)], {"dim": 1, "reduce": "mean"})


def _unravel_index(c, sw):
    c("contiguous", [_ix([0, 5, 3, 11])], {"shape": [3, 4]})
    c("transposed", [_ix([0, 5, 3, 11, 7, 1], shape=[3, 2], view=[("t", [])])], {"shape": [3, 4]})
    c("rank0", [_ix([7], shape=[])], {"shape": [2, 2, 2]})
    c("one_dim", [_ix([0, 4])], {"shape": [5]})
    c("size0", [_ix([], shape=[0])], {"shape": [3, 4]})
    c("int32", [_ix([3, 5], dt="int32")], {"shape": [2, 3]})
    c("negative", [_ix([-1, 2])], {"shape": [2, 3]})
    c("out_of_range", [_ix([6])], {"shape": [2, 3]})
    c("float", [sw.f([2])], {"shape": [2, 3]})


# select family -----------------------------------------------------------------------------
_TIES = [1.0, 2.0, 1.0, 2.0, 0.5, 1.0]  # ties within each row of [2, 3] and along dim 0 of [3, 2]


def _topk(c, sw):
    for name, x in _layouts_23(sw):
        c(name, [x], {"k": 2})
    c("smallest", [sw.f([2, 3])], {"k": 2, "largest": False})
    c("dim0", [sw.f([3, 2])], {"k": 1, "dim": 0})
    c("ties", [T(_TIES, shape=[2, 3])], {"k": 2})
    c("ties_smallest", [T(_TIES, shape=[2, 3])], {"k": 2, "largest": False})
    c("k0", [sw.f([2, 3])], {"k": 0})
    c("size0", [sw.f([0, 3])], {"k": 1})
    c("rank0", [sw.f([])], {"k": 1})
    c("special", [T(SPECIALS, shape=[2, 3])], {"k": 2})
    c("k_too_large", [sw.f([2, 3])], {"k": 4})
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 5], dt, [("slice", [1, 0, 5, 2])])], {"k": 2})


def _kthvalue(c, sw):
    for name, x in _layouts_23(sw):
        c(name, [x], {"k": 2})
    c("dim0_keepdim", [sw.f([3, 2])], {"k": 1, "dim": 0, "keepdim": True})
    c("ties", [T(_TIES, shape=[2, 3])], {"k": 2})
    c("ties_dim0", [T(_TIES, shape=[3, 2])], {"k": 2, "dim": 0})
    # Rows long enough for several partition rounds of PyTorch's quickselect, with NaN.
    long_ties = [float((7 * i) % 4) if i % 11 else float("nan") for i in range(48)]
    c("ties_long", [T(long_ties, shape=[3, 16])], {"k": 6})
    c("ties_long_dim0", [T(long_ties, shape=[16, 3])], {"k": 9, "dim": 0})
    c("rank0", [sw.f([])], {"k": 1})
    c("special", [T(SPECIALS, shape=[2, 3])], {"k": 3})
    c("k_too_large", [sw.f([2, 3])], {"k": 4})
    for dt in INT_DTYPES[:3]:
        c(dt, [sw.i([2, 5], dt, [("slice", [1, 0, 5, 2])])], {"k": 2})
    c("bool", [sw.i([2, 3], "bool")], {"k": 2})


def _median(c, sw):
    for name, x in _layouts_23(sw):
        c(name, [x], {"dim": 1})
    c("all", [sw.f([2, 3])])
    c("all_even", [sw.f([2, 2])])
    c("dim0_keepdim", [sw.f([4, 2])], {"dim": 0, "keepdim": True})
    c("ties", [T(_TIES, shape=[2, 3])], {"dim": 1})
    c("ties_dim0", [T(_TIES + [1.0, 1.0], shape=[4, 2])], {"dim": 0})
    c("rank0", [sw.f([])], {"dim": 0})
    c("size0_all", [sw.f([0, 3])])
    c("special", [T(SPECIALS, shape=[2, 3])], {"dim": 1})
    c("special_all", [T([INF, 1.0, -INF, 0.0])])
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 5], dt, [("slice", [1, 0, 5, 2])])], {"dim": 1})


def _quantile(c, sw):
    for name, x in _layouts_23(sw)[:3]:
        c(name, [x], {"q": 0.25, "dim": 1})
    c("all", [sw.f([2, 3])], {"q": 0.5})
    c("q_tensor", [sw.f([2, 3]), T([0.0, 0.3, 1.0])], {"dim": 1, "keepdim": True})
    for mode in ("lower", "higher", "nearest", "midpoint"):
        c(mode, [sw.f([2, 4])], {"q": 0.4, "dim": 1, "interpolation": mode})
    c("special", [T(SPECIALS, shape=[2, 3])], {"q": 0.5, "dim": 1})
    c("size0", [sw.f([0])], {"q": 0.5})
    c("q_out_of_range", [sw.f([2, 3])], {"q": 1.5})
    c("bad_interpolation", [sw.f([2, 3])], {"q": 0.5, "interpolation": "cubic"})
    c("int64", [sw.i([2, 3], "int64")], {"q": 0.5})


def _mode(c, sw):
    for name, x in _layouts_23(sw):
        c(name, [x])
    c("ties", [T([1.0, 2.0, 2.0, 1.0, 3.0, 3.0, 0.0, 0.0, 0.0], shape=[3, 3])])
    c("ties_dim0_keepdim", [T(_TIES + [2.0, 1.0], shape=[4, 2])], {"dim": 0, "keepdim": True})
    c("rank0", [sw.f([])])
    # NaN is left out: PyTorch sorts with `<`, which NaN breaks (its index is arbitrary).
    c("special", [T([INF, INF, 1.0, -INF, -0.0, 0.0], shape=[2, 3])])
    for dt in _MOVED_DTYPES:
        c(dt, [T(sw.rng.integers(0, 2, 10).tolist(), dt, [2, 5], [("slice", [1, 0, 5, 2])])])


def _aminmax(c, sw):
    for name, x in _layouts_23(sw):
        c(name, [x])
    c("dim1", [sw.f([2, 3])], {"dim": 1})
    c("dim0_keepdim", [sw.f([2, 3])], {"dim": 0, "keepdim": True})
    c("rank0", [sw.f([])])
    c("size0", [sw.f([0, 3])])
    c("size0_dim", [sw.f([0, 3])], {"dim": 1})
    c("special", [T(SPECIALS, shape=[2, 3])], {"dim": 1})
    c("special_inf", [T([INF, -INF, 1.0])])
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 5], dt, [("slice", [1, 0, 5, 2])])])


def _unique(c, sw):
    rep = lambda shape, view=None: T(sw.rng.integers(-2, 3, math.prod(shape)).astype(float).tolist(),
                                     "float32", shape, view)
    for name, shape, view in SAME_SHAPE:
        c(name, [rep(shape, view)])
    c("inverse_counts", [rep([2, 4])], {"return_inverse": True, "return_counts": True})
    c("dim0", [T([1, 2, 1, 2, 0, 1], shape=[3, 2])], {"dim": 0, "return_inverse": True,
                                                       "return_counts": True})
    c("size0", [sw.f([0, 3])])
    c("rank0", [sw.f([])], {"return_inverse": True})
    c("special", [T([NAN, 1.0, INF, -0.0, 0.0, INF, -INF, 1.0])], {"return_counts": True})
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 5], dt, [("slice", [1, 0, 5, 2])])], {"return_inverse": True})


def _histc(c, sw):
    for name, x in _layouts_23(sw):
        c(name, [x], {"bins": 4, "min": -2.0, "max": 2.0})
    c("auto_range", [sw.f([2, 3])], {"bins": 5})
    c("default_bins", [sw.f([6])])
    c("edges", [T([-1.0, 0.0, 1.0, 0.5, -0.5, 2.0])], {"bins": 4, "min": -1.0, "max": 1.0})
    c("constant", [T([2.0, 2.0, 2.0])], {"bins": 3})
    c("size0", [sw.f([0])], {"bins": 3})
    c("special", [T([INF, -INF, 0.5, 1.0])], {"bins": 2, "min": 0.0, "max": 1.0})
    c("nan", [T([NAN, 0.5])], {"bins": 2})
    c("min_above_max", [sw.f([3])], {"bins": 2, "min": 1.0, "max": 0.0})
    c("int64", [sw.i([2, 3], "int64")], {"bins": 3})


def _histogram(c, sw):
    """`bins` an int (input 0 alone) or a tensor of edges (input 1, `bins_tensor`); `weight` the
    last input when `weight` is set."""
    w = lambda n: sw.f([n], 0.0, 2.0)
    for name, x in _layouts_23(sw):
        c(name, [x], {"bins": 4, "range": [-2.0, 2.0]})
    c("auto_range", [sw.f([2, 3])], {"bins": 5})
    c("default_bins", [sw.f([6])])
    c("edges", [T([-1.0, 0.0, 1.0, 0.5, -0.5, 2.0])], {"bins": 4, "range": [-1.0, 1.0]})
    c("constant", [T([2.0, 2.0, 2.0])], {"bins": 3})
    c("size0", [sw.f([0])], {"bins": 3})
    c("rank0", [sw.f([])], {"bins": 2})
    c("special", [T([INF, -INF, 0.5, 1.0])], {"bins": 2, "range": [0.0, 1.0]})
    c("large", [T(LARGE)], {"bins": 3})
    c("bins_tensor", [sw.f([2, 3]), T([-3.0, -1.0, 0.0, 0.5, 3.0])], {"bins_tensor": True})
    c("bins_tensor_sliced", [sw.f([6]), T([-3.0, 9.0, -1.0, 9.0, 1.0, 9.0, 3.0], view=[("slice", [0, 0, 7, 2])])],
      {"bins_tensor": True})
    c("weight", [sw.f([2, 3]), sw.f([2, 3], 0.0, 2.0)], {"bins": 3, "weight": True})
    c("weight_density", [sw.f([6]), w(6)], {"bins": 3, "range": [-3.0, 3.0], "weight": True,
                                           "density": True})
    c("density", [sw.f([2, 3])], {"bins": 4, "density": True})
    c("density_bins_tensor", [sw.f([6]), T([-3.0, 0.0, 1.0, 3.0])], {"bins_tensor": True,
                                                                       "density": True})
    c("weight_mismatch", [sw.f([6]), w(5)], {"bins": 3, "weight": True})
    c("bad_range", [sw.f([3])], {"bins": 2, "range": [1.0, 0.0]})
    c("int64", [sw.i([2, 3], "int64")], {"bins": 3})


# number family -----------------------------------------------------------------------------
def _gcd_lcm(c, sw):
    ints = lambda shape, dt="int64", view=None: T(sw.rng.integers(-12, 13, math.prod(shape)).tolist(),
                                                  dt, shape, view)
    c("contiguous", [ints([2, 3]), ints([2, 3])])
    c("transposed", [ints([3, 2], view=[("t", [])]), ints([3])])
    c("sliced", [ints([2, 5], view=[("slice", [1, 0, 5, 2])]), ints([2, 1])])
    c("rank0", [ints([]), ints([2])])
    c("zeros", [_ix([0, 0, 6, -6]), _ix([0, 4, 0, 0])])
    c("large", [_ix([2147483647, 1 << 30, 65536, 46340]), _ix([1, 1 << 20, 1 << 16, 2])])
    for dt in ("uint8",):
        c(dt, [T(sw.rng.integers(0, 20, 6).tolist(), dt, [2, 3]),
               T(sw.rng.integers(0, 20, 6).tolist(), dt, [2, 3])])
    c("bool", [sw.i([3], "bool"), sw.i([3], "bool")])
    c("float", [sw.f([3]), sw.f([3])])


def _frexp(c, sw):
    for name, shape, view in LAYOUTS:
        c(name, [sw.f(shape, -100.0, 100.0, view=view)])
    c("special", [T(SPECIALS[:5] + [0.5, -1.0, 2.0])])
    c("large", [T([1e30, -3e38, 1e-30, 1.5e-38, 65504.0, 0.75])])
    for dt in INT_DTYPES:
        c(dt, [sw.i([2, 3], dt)])


# misc family --------------------------------------------------------------------------------
def _clamp_min_max(key):
    def build(c, sw):
        for name, shape, view in LAYOUTS:
            c(name, [sw.f(shape, view=view)], {key: 0.5})
        c("special", [T(SPECIALS)], {key: 0.0})
        c("nan_bound", [sw.f([2, 3])], {key: NAN})
        c("inf_bound", [sw.f([2, 3])], {key: -INF})
        c("large", [T(LARGE)], {key: 100.0})
        for dt in _MOVED_DTYPES:
            c(dt, [sw.i([2, 3], dt)], {key: 1})
            c(f"{dt}_float_bound", [sw.i([2, 3], dt)], {key: 1.5})
    return build


def _lerp(c, sw):
    for name, x in _layouts_23(sw):
        c(name, [x, sw.f([3]), sw.f([2, 3], 0.0, 1.0)])
    c("scalar_weight", [sw.f([2, 3]), sw.f([2, 3])], {"weight": 0.25})
    c("weight_above_half", [sw.f([2, 3]), sw.f([2, 3])], {"weight": 0.75})
    c("extrapolate", [sw.f([2, 3]), sw.f([2, 3])], {"weight": -1.5})
    c("size0", [sw.f([0, 3]), sw.f([3])], {"weight": 0.5})
    c("special", [T(SPECIALS), T([1.0, 1.0, -INF, 0.0, 2.0, NAN])], {"weight": 0.5})
    c("large", [T(LARGE), T(LARGE[::-1])], {"weight": 0.3})
    c("mismatch", [sw.f([2, 3]), sw.f([4])], {"weight": 0.5})
    c("int64", [sw.i([2, 3], "int64"), sw.i([2, 3], "int64")], {"weight": 0.5})
    c("float_int", [sw.f([2, 3]), sw.i([2, 3], "int32")], {"weight": 0.5})


def _addc(c, sw):
    for name, x in _layouts_23(sw):
        c(name, [x, sw.f([3]), sw.f([2, 1], 0.5, 2.0)])
    c("value", [sw.f([2, 3]), sw.f([2, 3]), sw.f([2, 3], 0.5, 2.0)], {"value": -0.5})
    c("size0", [sw.f([0, 3]), sw.f([3]), sw.f([3], 0.5, 2.0)])
    c("special", [T(SPECIALS), T([1.0] * 6), T([1.0, 0.0, -0.0, 2.0, INF, NAN])])
    c("large", [T(LARGE), T(LARGE[::-1]), T([2.0] * 6)])
    c("mismatch", [sw.f([2, 3]), sw.f([4]), sw.f([2, 3])])
    c("int64", [sw.i([2, 3], "int64"), sw.i([2, 3], "int64"), sw.i([2, 3], "int64", nonzero=True)])
    c("int64_value", [sw.i([2, 3], "int64"), sw.i([2, 3], "int64"),
                      sw.i([2, 3], "int64", nonzero=True)], {"value": 2})
    c("int_float", [sw.i([2, 3], "int32"), sw.f([2, 3]), sw.f([2, 3], 0.5, 2.0)])


def _isclose(c, sw):
    for name, x in _layouts_23(sw):
        c(name, [x, sw.f([3])])
    near = [1.0, 1.0, 100.0, 0.0, 1e-9, -2.0]
    c("near", [T(near), T([1.0 + 1e-6, 1.001, 100.001, 1e-7, 0.0, -2.00001])])
    c("tolerances", [T(near), T([1.1, 1.01, 101.0, 0.05, 0.1, -2.2])], {"rtol": 0.05, "atol": 0.01})
    c("special", [T(SPECIALS), T([NAN, INF, INF, 0.0, -0.0, NAN])])
    c("equal_nan", [T(SPECIALS), T([NAN, INF, INF, 0.0, -0.0, NAN])], {"equal_nan": True})
    c("size0", [sw.f([0, 3]), sw.f([3])])
    c("int64", [sw.i([2, 3], "int64"), sw.i([2, 3], "int64")])
    c("bool", [sw.i([2, 3], "bool"), sw.i([2, 3], "bool")])
    c("int_float", [sw.i([2, 3], "int32"), sw.f([2, 3])])
    c("mismatch", [sw.f([2, 3]), sw.f([4])])


def _isin(c, sw):
    vals = lambda shape, view=None: T(sw.rng.integers(-3, 4, math.prod(shape)).astype(float)
                                      .tolist(), "float32", shape, view)
    test = T([-1.0, 2.0, 0.0, 2.0])
    for name, shape, view in SAME_SHAPE:
        c(name, [vals(shape, view), test])
    c("invert", [vals([2, 3]), test], {"invert": True})
    c("test_2d", [vals([4]), T([1.0, 3.0, -3.0, 0.0], shape=[2, 2])])
    c("size0", [sw.f([0, 3]), test])
    c("special", [T(SPECIALS), T([NAN, INF, 0.0])])
    c("int64", [sw.i([2, 3], "int64"), _ix([1, -2, 5])])
    c("int_float", [sw.i([2, 3], "int32"), T([1.0, 2.5])])
    c("bool", [sw.i([2, 3], "bool"), _ix([1], dt="bool")])


def _diff(c, sw):
    for name, shape, view in LAYOUTS[:-1]:
        c(name, [sw.f(shape, view=view)])
    c("rank0", [sw.f([])])
    c("n2_dim0", [sw.f([4, 3])], {"n": 2, "dim": 0})
    c("n_large", [sw.f([2, 3])], {"n": 5})
    c("prepend_append", [sw.f([2, 3]), sw.f([2, 1]), sw.f([2, 2])], {"prepend": True,
                                                                   "append": True})
    c("special", [T(SPECIALS)])
    c("large", [T(LARGE)])
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt)])


def _trapezoids(c, sw):
    for name, shape, view in LAYOUTS[:-1]:
        c(name, [sw.f(shape, view=view)])
    c("dx", [sw.f([2, 3])], {"dx": 0.5})
    c("dim0", [sw.f([3, 2])], {"dim": 0})
    c("x", [sw.f([2, 3]), T([0.0, 0.5, 2.0])])
    c("x_2d", [sw.f([2, 3]), sw.f([2, 3])])
    c("size1_dim", [sw.f([2, 1])])
    c("rank0", [sw.f([])])
    c("special", [T(SPECIALS)])
    c("x_mismatch", [sw.f([2, 3]), T([0.0, 1.0])])
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt)])


def _cov_corr(c, sw):
    for name, x in _layouts_23(sw)[:4]:
        c(name, [x])
    c("rank1", [sw.f([5])])
    c("one_observation", [sw.f([3, 1])])
    c("size0", [sw.f([2, 0])])
    c("special", [T([1.0, 2.0, INF, 0.5, NAN, 1.0], shape=[2, 3])])
    c("constant_row", [T([2.0, 2.0, 2.0, 1.0, 0.5, 3.0], shape=[2, 3])])
    c("rank3", [sw.f([2, 2, 2])])
    for dt in ("int64", "bool"):
        c(dt, [sw.i([2, 3], dt)])


def _cov(c, sw):
    _cov_corr(c, sw)
    c("correction0", [sw.f([2, 4])], {"correction": 0})
    c("correction2", [sw.f([2, 4])], {"correction": 2})


def _combinations(c, sw):
    c("contiguous", [sw.f([4])])
    c("sliced", [sw.f([6], view=[("slice", [0, 0, 6, 2])])])
    c("r3", [sw.f([4])], {"r": 3})
    c("with_replacement", [sw.f([3])], {"with_replacement": True})
    c("r1", [sw.f([3])], {"r": 1})
    c("r_too_large", [sw.f([2])], {"r": 3})
    c("size0", [sw.f([0])])
    c("special", [T(SPECIALS[:4])])
    c("rank2", [sw.f([2, 2])])
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([3], dt)])


def _meshgrid(c, sw):
    c("ij", [sw.f([2]), sw.f([3])], {"indexing": "ij"})
    c("xy", [sw.f([2]), sw.f([3])], {"indexing": "xy"})
    c("three", [sw.f([2]), sw.f([3]), sw.f([1])], {"indexing": "ij"})
    c("sliced", [sw.f([6], view=[("slice", [0, 0, 6, 2])]), sw.f([2])], {"indexing": "xy"})
    c("rank0", [sw.f([]), sw.f([2])], {"indexing": "ij"})
    c("size0", [sw.f([0]), sw.f([2])], {"indexing": "ij"})
    c("one", [sw.f([3])], {"indexing": "ij"})
    c("mixed_dtypes", [sw.f([2]), sw.i([2], "int64")], {"indexing": "ij"})
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2], dt), sw.i([3], dt)], {"indexing": "xy"})


def _row_stack(c, sw):
    for name, x in _layouts_23(sw):
        c(name, [x, sw.f([3])])
    c("rank1", [sw.f([3]), sw.f([3])])
    c("rank0", [sw.f([]), sw.f([])])
    c("size0", [sw.f([0, 3]), sw.f([3])])
    c("special", [T(SPECIALS, shape=[2, 3]), T(LARGE[:3])])
    c("promote", [sw.i([3], "int32"), sw.f([3])])
    c("mismatch", [sw.f([2, 3]), sw.f([4])])
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt), sw.i([3], dt)])


def _prelu(c, sw):
    for name, shape, view in LAYOUTS[:-1]:
        c(name, [sw.f(shape, view=view), T([0.25])])
    c("rank0", [sw.f([]), T([0.25])])
    c("per_channel", [sw.f([2, 3, 2]), T([0.1, -0.5, 2.0])])
    c("per_channel_rank1", [sw.f([3]), T([0.1, -0.5, 2.0])])
    c("special", [T(SPECIALS), T([0.5])])
    c("large", [T(LARGE), T([0.01])])
    c("channel_mismatch", [sw.f([2, 3]), T([0.1, 0.2])])
    c("int64", [sw.i([2, 3], "int64"), _ix([2])])


def _as_strided(c, sw):
    for name, x in _layouts_23(sw):
        # An expanded input's storage holds 3 elements: PyTorch refuses the 4th.
        c(name, [x], {"size": [2, 2], "stride": [1, 2]}, error="TorchError")
    c("offset", [sw.f([2, 3])], {"size": [2], "stride": [2], "storage_offset": 1})
    c("overlapping", [sw.f([2, 3])], {"size": [3, 2], "stride": [1, 1]})
    c("zero_stride", [sw.f([2, 3])], {"size": [2, 3], "stride": [0, 1]})
    c("size0", [sw.f([2, 3])], {"size": [0, 2], "stride": [1, 1]})
    c("special", [T(SPECIALS, shape=[2, 3])], {"size": [3], "stride": [2]})
    c("out_of_bounds", [sw.f([2, 3])], {"size": [4], "stride": [2]}, error="TorchError")
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 3], dt)], {"size": [2, 2], "stride": [2, 1]})


def _as_shape_of(target_shape):
    def build(c, sw):
        for name, x in _layouts_23(sw):
            c(name, [x, sw.f(target_shape)])
        c("size0", [sw.f([0, 3]), sw.f([3, 0])])
        c("rank0", [sw.f([]), sw.f([1, 1])])
        c("special", [T(SPECIALS, shape=[2, 3]), sw.f(target_shape)])
        c("mismatch", [sw.f([2, 3]), sw.f([4])])
        for dt in _MOVED_DTYPES:
            c(dt, [sw.i([2, 3], dt), sw.i(target_shape, "int64")])
    return build


def _type_as(c, sw):
    for name, x in _layouts_23(sw):
        c(name, [x, _ix([1])])
    c("special_to_int32", [T(LARGE), _ix([1], dt="int32")])
    c("special_to_bool", [T(SPECIALS), _ix([1], dt="bool")])
    c("float_to_uint8", [T([0.0, 1.5, 200.7, 255.0]), _ix([1], dt="uint8")])
    c("size0", [sw.f([0, 3]), _ix([1], dt="int32")])
    c("same", [sw.f([2, 3]), sw.f([1])])
    for dt in _MOVED_DTYPES:
        c(f"{dt}_to_float", [sw.i([2, 3], dt), sw.f([1])])
        c(f"{dt}_to_int64", [sw.i([2, 3], dt), _ix([1])])


def _dsplit(c, sw):
    for name, x in [("contiguous", sw.f([2, 2, 4])),
                    ("transposed", sw.f([2, 4, 2], view=[("transpose", [1, 2])])),
                    ("sliced", sw.f([2, 2, 8], view=[("slice", [2, 0, 8, 2])]))]:
        c(name, [x], {"sections": 2})
    c("indices", [sw.f([1, 2, 5])], {"sections": [1, 3]})
    c("size0", [sw.f([0, 2, 4])], {"sections": 2})
    c("uneven", [sw.f([1, 2, 3])], {"sections": 2})
    c("rank2", [sw.f([2, 3])], {"sections": 3})
    c("special", [T(SPECIALS, shape=[1, 3, 2])], {"sections": 2})
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([1, 2, 4], dt)], {"sections": 2})


def _swapdims(c, sw):
    for name, x in _layouts_23(sw):
        c(name, [x], {"dim0": 0, "dim1": 1})
    c("rank3", [sw.f([2, 3, 2])], {"dim0": -1, "dim1": 0})
    c("same", [sw.f([2, 3])], {"dim0": 1, "dim1": 1})
    c("size0", [sw.f([0, 3])], {"dim0": 0, "dim1": 1})
    c("rank0", [sw.f([])], {"dim0": 0, "dim1": -1})
    c("special", [T(SPECIALS, shape=[2, 3])], {"dim0": 0, "dim1": 1})
    c("dim_out_of_range", [sw.f([2, 3])], {"dim0": 0, "dim1": 2})
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 5], dt, [("slice", [1, 0, 5, 2])])], {"dim0": 0, "dim1": 1})


def _real_conj(c, sw, error=None):
    for name, shape, view in LAYOUTS:
        c(name, [sw.f(shape, view=view)], error=error)
    c("special", [T(SPECIALS)], error=error)
    for dt in _MOVED_DTYPES:
        c(dt, [sw.i([2, 5], dt, [("slice", [1, 0, 5, 2])])], error=error)


def _normalize(c, sw):
    for name, shape, view in LAYOUTS[:-1]:
        c(name, [sw.f(shape, view=view)])
    c("dim0", [sw.f([2, 3])], {"dim": 0})
    c("p1", [sw.f([2, 3])], {"p": 1.0, "dim": -1})
    c("p_inf", [sw.f([2, 3])], {"p": INF})
    c("eps", [T([0.0, 0.0, 0.0, 1e-3, 0.0, 2e-3], shape=[2, 3])], {"eps": 0.01})
    c("zero_row", [T([0.0, 0.0, 0.0, 3.0, 4.0, 0.0], shape=[2, 3])])
    c("special", [T(SPECIALS, shape=[2, 3])])
    c("dim_out_of_range", [sw.f([2, 3])], {"dim": 2})
    c("int64", [sw.i([2, 3], "int64")])


INDEX_OPS = {
    "unravel_index": _unravel_index, "index_select": _index_select, "gather": _gather,
    "take_along_dim": _take_along_dim, "take": _take, "scatter": _scatter,
    "scatter_add": _scatter_add, "scatter_reduce": _scatter_reduce, "index_add": _index_add,
    "index_copy": _index_copy, "index_fill": _index_fill, "select_scatter": _select_scatter,
    "slice_scatter": _slice_scatter, "diagonal_scatter": _diagonal_scatter,
    "masked_scatter": _masked_scatter, "nonzero": _nonzero, "argwhere": _nonzero,
    "masked_select": _masked_select, "where": _where, "masked_fill": _masked_fill,
    "embedding_bag": _embedding_bag, "one_hot": _one_hot, "searchsorted": _searchsorted,
    "bucketize": _bucketize, "bincount": _bincount, "index_reduce": _index_reduce,
    "index_put": _index_put,
}
SELECT_OPS = {
    "topk": _topk, "kthvalue": _kthvalue, "median": _median, "nanmedian": _median,
    "quantile": _quantile, "nanquantile": _quantile, "mode": _mode, "aminmax": _aminmax,
    "unique": _unique, "unique_consecutive": _unique, "histc": _histc,
    "histogram": _histogram,
}
NUMBER_OPS = {"gcd": _gcd_lcm, "lcm": _gcd_lcm, "frexp": _frexp}
MISC_OPS = {
    "combinations": _combinations, "meshgrid": _meshgrid, "row_stack": _row_stack,
    "prelu": _prelu, "clamp_min": _clamp_min_max("min"), "clamp_max": _clamp_min_max("max"),
    "lerp": _lerp, "addcmul": _addc, "addcdiv": _addc, "isclose": _isclose, "isin": _isin,
    "diff": _diff, "trapezoid": _trapezoids, "cumulative_trapezoid": _trapezoids, "cov": _cov,
    "corrcoef": _cov_corr, "as_strided": _as_strided, "expand_as": _as_shape_of([2, 2, 3]),
    "view_as": _as_shape_of([3, 2]), "reshape_as": _as_shape_of([6]), "dsplit": _dsplit,
    "swapdims": _swapdims, "real": _real_conj, "imag": lambda c, sw: _real_conj(c, sw, error="TorchError"), "conj": _real_conj,
    "conj_physical": _real_conj, "type_as": _type_as, "normalize": _normalize,
    "quantize_per_tensor": _quantize, "dequantize": _quantize, "new_zeros": _new_factory,
    "new_ones": _new_factory, "new_full": _new_factory,
}


def factory(sw, op, tol):
    """`tensor`/`as_tensor` (dtype inference from nested data, an explicit dtype's conversion,
    ragged data) and `arange` (int64 or float32 by its arguments, PyTorch's length rule for float
    steps, negative steps, empty ranges, bad steps and bounds): the fixtures' creation calls with
    no tensor input."""
    def c(name, tol_=tol, **a):
        sw.case(op, name, [], a, tol=tol_)

    if op in ("tensor", "as_tensor"):
        c("float_2d", data=[[1.5, -2.0], [0.25, 3.0]])
        c("int", data=[1, 2, -3])
        c("bool", data=[True, False, True])
        c("int_and_float", data=[1, 2.5, -3])
        c("bool_and_int", data=[True, 2, False])
        c("rank0_float", data=3.5)
        c("rank0_int", data=-7)
        c("rank0_bool", data=True)
        c("empty", data=[])
        c("empty_rows", data=[[], []])
        c("nested_3d", data=[[[1, 2]], [[3, 4]], [[5, 6]]])
        c("special", data=[NAN, INF, -INF, -0.0, 0.5])
        c("large", data=[1e4, -123.5, 3.4e38, 1e-30])
        c("int_as_float32", data=[[1, -2], [3, 4]], dtype="float32")
        c("float_as_int64", data=[1.75, -1.75, 0.5], dtype="int64")
        c("float_as_int32", data=[[2.5], [-9.25]], dtype="int32")
        c("as_bool", data=[0, 2, -1, 0.5], dtype="bool")
        c("as_uint8", data=[0, 7, 255], dtype="uint8")
        c("ragged", data=[[1, 2], [3]])
    elif op == "arange":
        c("end", end=5)
        c("end_float", end=2.5)
        c("start_end", start=-3, end=4)
        c("step", start=1, end=10, step=3)
        c("float_step", start=0, end=1, step=0.25)
        c("float_step_length", start=1, end=1.3, step=0.1)
        c("float_step_short", start=0, end=0.3, step=0.1)
        c("float_start", start=-1.5, end=2, step=1)
        c("negative_step", start=5, end=0, step=-1)
        c("negative_float_step", start=1, end=-1, step=-0.5)
        c("empty", start=2, end=2)
        c("empty_float", start=0.5, end=0.5, step=0.25)
        c("end_zero", end=0)
        c("large", start=-1e4, end=1e4, step=2500.5)
        c("dtype_float32", end=4, dtype="float32")
        c("dtype_int64_float_step", start=0, end=2, step=0.5, dtype="int64")
        c("dtype_int32", start=-2, end=3, dtype="int32")
        c("step_zero", start=0, end=3, step=0)
        c("wrong_sign", start=5, end=2)
        c("nan_end", end=NAN)
        c("inf_end", start=0, end=INF)
    elif op in ("zeros", "ones"):
        c("shape", shape=[2, 3])
        c("size0", shape=[0, 3])
        c("rank0", shape=[])
        for dt in ("int32", "int64", "uint8", "bool"):
            c(dt, shape=[2], dtype=dt)
        c("negative", shape=[2, -1])
    elif op == "full":
        c("float", shape=[2, 3], fill_value=2.5)
        c("int", shape=[2], fill_value=3)
        c("bool", shape=[2], fill_value=True)
        c("special", shape=[3], fill_value=NAN)
        c("inf", shape=[1, 2], fill_value=-INF)
        c("size0", shape=[0], fill_value=1.5)
        c("rank0", shape=[], fill_value=-7)
        c("int_as_float32", shape=[2], fill_value=4, dtype="float32")
        c("bool_as_int64", shape=[2], fill_value=True, dtype="int64")
        c("float_as_int64", shape=[2], fill_value=1.75, dtype="int64")
    elif op in ("linspace", "logspace"):
        c("steps5", start=-1.5, end=2, steps=5)
        c("steps1", start=3, end=7, steps=1)
        c("steps0", start=0, end=1, steps=0)
        c("reversed", start=2, end=-2, steps=4)
        c("int64", start=0, end=9, steps=4, dtype="int64")
        c("negative_steps", start=0, end=1, steps=-1)
        if op == "logspace":
            c("base2", start=-2, end=3, steps=6, base=2.0)
    elif op == "eye":
        c("square", n=3)
        c("wide", n=2, m=4)
        c("size0", n=0)
        c("int64", n=2, dtype="int64")
        c("bool", n=2, m=3, dtype="bool")
        c("negative", n=-1)
    elif op in ("tril_indices", "triu_indices"):
        c("square", row=3, col=3)
        c("wide_offset", row=2, col=4, offset=1)
        c("negative_offset", row=4, col=3, offset=-2)
        c("size0", row=0, col=3)
    elif op.endswith("_window"):
        c("n5", n=5)
        c("symmetric", n=6, periodic=False)
        c("n1", n=1)
        c("n0", n=0)
        if op == "kaiser_window":
            c("beta", n=5, beta=4.5)


factory.ts_only = True

SAMPLERS = {"unary": unary, "binary": binary, "reduce": reduce, "rowwise": rowwise,
            "clamp": clamp, "shape": shape_op, "join": join, "linear": linear,
            "bilinear": bilinear, "embedding": embedding, "layer_norm": norm_layer,
            "rms_norm": norm_layer, "attention": attention, "loss": loss,
            "class_loss": class_loss, "factory": factory}
SAMPLERS.update({"index": _per_op(INDEX_OPS), "select": _per_op(SELECT_OPS),
                 "number": _per_op(NUMBER_OPS), "misc": _per_op(MISC_OPS)})
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
        if getattr(sampler, "ts_only", False):
            # The creation functions' argument handling (dtype inference, conversions, ragged
            # data) is the TS layer's: their cases go to the TS file, which the JS runner reads.
            if ts:
                sampler(sw, name, (entry["tol"]["rtol"], entry["tol"]["atol"]) if entry.get("tol") else None)
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


# The samplers of the matrix products, batch/group/instance norm, the losses with per-op targets
# and the grid and patch ops (matmul, norm, loss_nn, sampling) live in sweep_nn.py.
from sweep_nn import SAMPLERS as NN_SAMPLERS  # noqa: E402

SAMPLERS.update(NN_SAMPLERS)
