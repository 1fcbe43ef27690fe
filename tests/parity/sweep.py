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
    for name, shape, view in LAYOUTS:
        sw.case(op, name, [sw.f(shape, view=view)], tol=tol)
    sw.case(op, "special", [T(SPECIALS[:5])], tol=tol)
    sw.case(op, "large", [T(LARGE)], tol=tol)
    for dt in INT_DTYPES:
        sw.case(op, dt, [sw.i([2, 3], dt)], tol=tol)
        sw.case(op, f"{dt}_sliced", [sw.i([2, 5], dt, [("slice", [1, 1, 5, 2])])], tol=tol)


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


SAMPLERS = {"unary": unary, "binary": binary, "reduce": reduce, "rowwise": rowwise,
            "clamp": clamp}
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
    for name, entry in schema_entries():
        sampler = SAMPLERS.get(entry["samples"])
        if sampler is None:
            UNSWEPT[name] = f"no sampler `{entry['samples']}` yet"
            continue
        if not dispatches(name, ts):
            if not dispatches(name, not ts):
                UNSWEPT[name] = "no fixture dispatch (fixture.call) for it yet"
            continue
        UNSWEPT.pop(name, None)
        t = entry.get("tol")
        sampler(sw, name, (t["rtol"], t["atol"]) if t else None)
