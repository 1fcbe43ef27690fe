"""Building blocks of the parity fixtures: input specs, the op dispatch, the JSON encoding.

A case is written once, as data (`case(...)` in tests/parity/cases/*.py); `finish()` runs it through
real PyTorch and fills in `out` or `error`. The dispatch in `call()` is the reference for what each
`op` + `args` means; tests/parity/run.mjs and the Rust runner make the same calls on webtorch.
The schema is documented in tests/parity/README.md.
"""

import json
import math
import operator

import numpy as np
import torch

from fixture_composites import COMPOSITE_OPS, COMPOSITE_TOL, call_composite
from fixture_conv import CONV_OPS, CONV_TOL, call_conv
from fixture_kernels import KERNEL_OPS, KERNEL_TOL, call_kernel
from fixture_syntax import SYNTAX_OPS, SYNTAX_TOL, call_syntax

DTYPES = {
    "float32": torch.float32,
    "int32": torch.int32,
    "int64": torch.int64,
    "uint8": torch.uint8,
    "bool": torch.bool,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
}
# Half types: webtorch stores them as float32 words rounded to the type and computes in float32, as
# PyTorch's CPU kernels do; expected values are PyTorch's own half results, within about one unit
# in the last place of the type by default (a float32 result one ulp away can round either way).
HALF = {"float16", "bfloat16"}
HALF_TOL = {"float16": (1e-3, 1e-7), "bfloat16": (8e-3, 1e-7)}
DTYPE_NAMES = {v: k for k, v in DTYPES.items()}

# Unary op-table rows: `torch.<op>(x)`, or `torch.nn.functional.<op>(x)` for NN_FUNCTIONAL.
UNARY = [
    "neg", "exp", "relu", "abs", "sqrt", "log", "sigmoid", "tanh", "square", "sin", "cos",
    # unary_math
    "acos", "asin", "atan", "acosh", "asinh", "atanh", "sinh", "cosh", "tan", "expm1", "log1p",
    "log2", "log10", "exp2", "rsqrt", "reciprocal", "erf", "erfc", "erfinv", "lgamma", "digamma",
    "trigamma", "deg2rad", "rad2deg", "sinc", "logit", "i0", "special_i0e", "special_i1",
    "special_i1e",
    # rounding
    "ceil", "floor", "round", "trunc", "sign", "positive", "frac",
    # activations
    "silu", "gelu", "mish", "softplus", "logsigmoid", "softsign", "tanhshrink", "hardsigmoid",
    "hardswish", "selu", "elu", "celu", "relu6",
    # logical
    "isnan", "isinf", "isfinite", "signbit", "logical_not", "bitwise_not",
]
# Activations PyTorch has only in torch.nn.functional (webtorch: torch.<op>(t) and t.<op>() too).
# Their arguments stay at PyTorch's defaults (gelu approximate='none', softplus beta=1 threshold=20,
# elu/celu alpha=1).
NN_FUNCTIONAL = {
    "silu", "gelu", "mish", "softplus", "logsigmoid", "softsign", "tanhshrink", "hardsigmoid",
    "hardswish", "selu", "elu", "celu", "relu6",
}
BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum"]
COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"]
# Binary op-table rows of binary_math / logical: `torch.<op>(x, y)`.
BINARY_MATH = [
    "atan2", "hypot", "xlogy", "logaddexp", "logaddexp2", "copysign", "fmod", "remainder",
    "floor_divide", "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or",
    "logical_xor",
]
BINARY_MATH += ["nextafter"]
# Ops whose float32 result is defined by float32 itself (the neighbouring float32), so no float64
# run is its reference: PyTorch's float32 result is the fixture.
OWN_WIDTH = {"nextafter"}
# Of those, the ones with a PyTorch overload taking a Python scalar on that side. For the others
# a scalar operand means what it means for `add`: a wrapped number, promoted with
# torch.result_type (webtorch accepts a scalar on either side of every binary row).
SCALAR_RHS = {"xlogy", "copysign", "fmod", "remainder", "floor_divide", "bitwise_and",
              "bitwise_or", "bitwise_xor"}
SCALAR_LHS = {"xlogy", "remainder", "floor_divide", "bitwise_and", "bitwise_or", "bitwise_xor"}
# Ops whose scalar-first form (`2 - t`, `2 ** t`) exists in PyTorch: Python's reflected operators.
REFLECTED = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "div": operator.truediv,
    "pow": operator.pow,
}

# Per-op tolerances for float32 results, |actual - expected| <= atol + rtol * |expected|.
# Integer and bool results are always exact. NOTE: WGSL's accuracy for exp/log/pow/tanh is a few
# ULP growing with |x| (exp: 3 + 2|x| ULP), hence 1e-5 rather than 1e-6 for those.
EXACT = (0.0, 0.0)
TOL = {
    "add": EXACT, "sub": EXACT, "mul": EXACT, "neg": EXACT, "relu": EXACT, "abs": EXACT,
    "maximum": EXACT, "minimum": EXACT, "square": EXACT,
    "div": (1e-6, 1e-6), "sqrt": (1e-6, 1e-6),
    "exp": (1e-5, 1e-6), "log": (1e-5, 1e-6), "pow": (1e-5, 1e-6),
    "sigmoid": (1e-5, 1e-6), "tanh": (1e-5, 1e-6),
    "sin": (1e-5, 1e-5), "cos": (1e-5, 1e-5),
    "sum": (1e-5, 1e-5), "mean": (1e-5, 1e-5), "matmul": (1e-5, 1e-5),
    # arange computes start + i * step; a float32 implementation may round differently.
    "arange": (1e-6, 1e-6),
    # Exact in real arithmetic, so the float32 result is exact too.
    "ceil": EXACT, "floor": EXACT, "round": EXACT, "trunc": EXACT, "sign": EXACT,
    "positive": EXACT, "frac": EXACT, "copysign": EXACT, "relu6": EXACT, "floor_divide": EXACT,
    # The neighbouring float: exact bits.
    "nextafter": EXACT,
    # One or two rounded operations (a reciprocal, a constant factor, a + 3 then / 6, fmod's
    # remainder plus the divisor).
    "reciprocal": (1e-6, 1e-6), "rsqrt": (1e-6, 1e-6), "deg2rad": (1e-6, 1e-6),
    "rad2deg": (1e-6, 1e-6), "softsign": (1e-6, 1e-6), "hardsigmoid": (1e-6, 1e-6),
    "hardswish": (1e-6, 1e-6), "fmod": (1e-6, 1e-6), "remainder": (1e-6, 1e-6),
    # The exp/log family, as exp and log.
    "expm1": (1e-5, 1e-6), "log1p": (1e-5, 1e-6), "log2": (1e-5, 1e-6), "log10": (1e-5, 1e-6),
    "exp2": (1e-5, 1e-6), "sinh": (1e-5, 1e-6), "cosh": (1e-5, 1e-6),
    # Transcendental-heavy (several builtins chained, or series/rational approximations).
    **{op: (1e-5, 1e-5) for op in (
        "acos", "asin", "atan", "tan", "acosh", "asinh", "atanh", "erf", "erfc", "erfinv",
        "lgamma", "digamma", "trigamma", "i0", "special_i0e", "special_i1", "special_i1e", "sinc", "logit", "silu", "gelu", "mish", "softplus", "logsigmoid",
        "tanhshrink", "selu", "elu", "celu", "atan2", "hypot", "xlogy", "logaddexp",
        "logaddexp2")},
}

TOL.update(KERNEL_TOL)
TOL.update(CONV_TOL)
TOL.update(COMPOSITE_TOL)
TOL.update(SYNTAX_TOL)


def T(data, dtype="float32", shape=None, view=None):
    """A tensor input: flat row-major `data` of the base tensor, then optional view steps
    (("transpose", [d0, d1]), ("permute", dims), ("expand", shape), ("t", []))."""
    data = np.asarray(data).reshape(-1).tolist() if not isinstance(data, list) else _flatten(data)
    if shape is None:
        shape = [len(data)]
    assert math.prod(shape) == len(data), (shape, len(data))
    spec = {"data": [_enc_elem(x, dtype) for x in data], "shape": list(shape), "dtype": dtype}
    if view:
        spec["view"] = [[name, list(a)] for name, a in view]
    return spec


def S(x):
    """A Python scalar operand (number or bool); nan/inf are written as strings."""
    return {"scalar": _enc_scalar(x)}


def _flatten(xs):
    out = []
    for x in xs:
        out.extend(_flatten(x) if isinstance(x, (list, tuple)) else [x])
    return out


def _enc_scalar(x):
    """Scalars and args keep Python's int/float spelling (2 vs 2.0); non-finite become strings."""
    if isinstance(x, bool) or isinstance(x, int):
        return x
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return x
    if isinstance(x, (list, tuple)):
        return [_enc_scalar(v) for v in x]
    if isinstance(x, dict):
        return {k: _enc_scalar(v) for k, v in x.items()}
    return x


def _enc_elem(x, dtype):
    """One element of a tensor's data: float32 as its shortest round-trip decimal (integral values
    without '.0'), ints as ints, bools as 0/1."""
    if dtype == "bool":
        return int(bool(x))
    if dtype not in ("float32", "float16", "bfloat16"):
        return int(x)
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    f = float(str(np.float32(x)))
    if f.is_integer() and abs(f) < 2**53 and not (f == 0 and math.copysign(1, f) < 0):
        return int(f)
    return f


def dec(x):
    """Inverse of the string encoding of non-finite numbers (recursive; `dtype` stays a name)."""
    if isinstance(x, list):
        return [dec(v) for v in x]
    if isinstance(x, dict):
        return {k: v if k == "dtype" else dec(v) for k, v in x.items()}
    if isinstance(x, str):
        # Other strings are names (`padding="same"`, `mode="reflect"`).
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(x, x)
    return x


def build_input(inp, f64=False, leaves=None):
    """A tensor spec or scalar as PyTorch sees it. f64: float32 tensors as float64 copies.
    leaves: a list to which the base tensor (before the view steps) is appended, as a leaf that
    requires grad."""
    if "scalar" in inp:
        return dec(inp["scalar"])
    dtype = DTYPES[inp["dtype"]]
    t = torch.tensor(dec(inp["data"]), dtype=dtype).reshape(inp["shape"])
    if f64 and dtype == torch.float32:
        t = t.double()
    if leaves is not None:
        t.requires_grad_()
        leaves.append(t)
    for name, a in inp.get("view", []):
        if name == "transpose":
            t = t.transpose(*a)
        elif name == "permute":
            t = t.permute(a)
        elif name == "expand":
            t = t.expand(a)
        elif name == "t":
            t = t.t()
        elif name == "slice":
            t = t[(slice(None),) * a[0] + (slice(a[1], a[2], a[3]),)]
        else:
            raise ValueError(f"unknown view step {name}")
    return t


def call(op, inputs, args):
    """The PyTorch call a case stands for. run.mjs mirrors this function op by op."""
    kw = {"dtype": DTYPES[args["dtype"]]} if "dtype" in args else {}
    a = dec(args)
    if op in ("tensor", "as_tensor"):
        return getattr(torch, op)(a["data"], **kw)
    if op in ("zeros", "ones"):
        return getattr(torch, op)(a["shape"], **kw)
    if op == "full":
        return torch.full(a["shape"], a["fill_value"], **kw)
    if op == "arange":
        return torch.arange(*[a[k] for k in ("start", "end", "step") if k in a], **kw)
    if op in COMPOSITE_OPS:
        return call_composite(op, inputs, a)
    if op in CONV_OPS:
        return call_conv(op, inputs, a)
    if op in SYNTAX_OPS:
        return call_syntax(op, inputs, a)
    if op in KERNEL_OPS:
        return call_kernel(op, inputs, a)
    x = inputs[0]
    if op in BINARY or op in COMPARE:
        y = inputs[1]
        if not isinstance(x, torch.Tensor):
            return REFLECTED[op](x, y)
        extra = {"alpha": a["alpha"]} if "alpha" in a else {}
        return getattr(torch, op)(x, y, **extra)
    if op in BINARY_MATH:
        return _binary_math(op, x, inputs[1])
    if op == "trigamma":
        # PyTorch spells it polygamma(1, x); webtorch has the op-table row torch.trigamma.
        return torch.polygamma(1, x)
    if op.startswith("special_"):
        # The core's rows for torch.special.i0e/i1/i1e (webtorch: torch.special.<name> too).
        return getattr(torch.special, op[len("special_"):])(x)
    if op in UNARY:
        return getattr(torch.nn.functional if op in NN_FUNCTIONAL else torch, op)(x)
    if op in ("sum", "mean"):
        red = {}
        if "dim" in a:
            red["dim"] = a["dim"]
        if "dims" in a:
            red["dim"] = tuple(a["dims"])
        if "keepdim" in a:
            red["keepdim"] = a["keepdim"]
        return getattr(x, op)(**red)
    if op == "matmul":
        return torch.matmul(x, inputs[1])
    if op in ("reshape", "view", "expand"):
        return getattr(x, op)(a["shape"])
    if op == "transpose":
        return x.transpose(a["dim0"], a["dim1"])
    if op == "permute":
        return x.permute(a["dims"])
    if op in ("t", "contiguous"):
        return getattr(x, op)()
    if op == "to":
        return x.to(DTYPES[a["dtype"]])
    raise ValueError(f"unknown op {op}")


def _binary_math(op, x, y):
    fn = getattr(torch, op)
    x_scalar, y_scalar = not isinstance(x, torch.Tensor), not isinstance(y, torch.Tensor)
    if not (x_scalar or y_scalar) or op in (SCALAR_LHS if x_scalar else SCALAR_RHS):
        return fn(x, y)
    # No scalar overload in PyTorch (atan2(t, 2) is a TypeError): the scalar as a wrapped number,
    # which is what PyTorch does where the overload exists — both operands in the promoted dtype.
    t, s = (y, x) if x_scalar else (x, y)
    rt = torch.result_type(t, s)
    t, s = t.to(rt), torch.tensor(s, dtype=rt)
    return fn(s, t) if x_scalar else fn(t, s)


def _outcome(case, js=False, f64=False):
    """Runs a case's call; returns ("out", tensor) or ("error", exception).
    js: read every integral float literal as an int, as JavaScript numbers force."""
    text = json.dumps({"inputs": case["inputs"], "args": case["args"]})
    parsed = json.loads(text, parse_float=_js_float if js else float)
    inputs = [build_input(i, f64) for i in parsed["inputs"]]
    try:
        return "out", call(case["op"], inputs, parsed["args"])
    except Exception as e:  # noqa: BLE001 — every PyTorch error is a fixture outcome
        return "error", e


def _js_float(s):
    f = float(s)
    # -0.0 stays a float: JSON.parse keeps the sign, which matters for 1 / -0.
    return int(f) if f.is_integer() and str(f) != "-0.0" else f


def _enc_tensor(t):
    dtype = DTYPE_NAMES[t.dtype]
    flat = t.detach().contiguous().reshape(-1).tolist()
    return {"shape": list(t.shape), "dtype": dtype, "data": [_enc_elem(x, dtype) for x in flat]}


ERROR_CLASSES = {"TorchError", "ShapeError", "DTypeError", "IndexError", "EinopsError"}


def finish(case, error_class=None):
    """Fills in out/error and tol from PyTorch, checking that the case is sound:
    - the result must not depend on `2` vs `2.0` (JavaScript cannot tell them apart);
    - for float32 results the values are the float64 computation rounded to float32 (a correctly
      rounded reference), and PyTorch's own float32 result must pass the case's tolerance."""
    kind, res = _outcome(case)
    js_kind, js_res = _outcome(case, js=True)
    name = case["name"]
    if kind == "error":
        # A case states the webtorch class it expects, so no case errors by accident.
        assert error_class in ERROR_CLASSES, f"{name}: PyTorch raised {type(res).__name__}: {res}"
        assert js_kind == "error" and str(js_res) == str(res), f"{name}: JS reading differs"
        case["error"] = {"type": type(res).__name__, "class": error_class, "message": str(res)}
        case["tol"] = {"rtol": 0.0, "atol": 0.0}
        return case
    assert error_class is None, f"{name}: expected an error, got {res}"
    if isinstance(res, tuple):
        return _finish_tuple(case, res, js_res)
    out = _enc_tensor(res)
    assert js_kind == "out" and _enc_tensor(js_res) == out, f"{name}: JS reading differs"
    rtol, atol = case.pop("tol", None) or TOL.get(case["op"], EXACT)
    if out["dtype"] in HALF:
        rtol, atol = case.get("tol_half") or HALF_TOL[out["dtype"]]
        case.pop("tol_half", None)
    elif out["dtype"] != "float32":
        rtol, atol = EXACT
    elif case["op"] not in OWN_WIDTH and any(i.get("dtype") == "float32" for i in case["inputs"]):
        ref_kind, ref = _outcome(case, f64=True)
        assert ref_kind == "out", f"{name}: float64 run failed: {ref}"
        ref = ref.to(torch.float32)
        ok = torch.allclose(res, ref, rtol=rtol, atol=atol, equal_nan=True)
        assert ok, f"{name}: PyTorch float32 misses the float64 reference by more than tol\n{res}\n{ref}"
        assert list(ref.shape) == out["shape"]
        out = dict(out, data=_enc_tensor(ref)["data"])
    case["out"] = out
    case["tol"] = {"rtol": rtol, "atol": atol}
    return case


def _finish_tuple(case, res, js_res):
    """A tuple result (`max(dim)` -> values, indices): `out` is the list of its tensors. Each
    float32 element is checked against the float64 reference as single results are."""
    name = case["name"]
    outs = [_enc_tensor(r) for r in res]
    assert [_enc_tensor(r) for r in js_res] == outs, f"{name}: JS reading differs"
    rtol, atol = case.pop("tol", None) or TOL.get(case["op"], EXACT)
    if any(o["dtype"] == "float32" for o in outs):
        ref_kind, ref = _outcome(case, f64=True)
        assert ref_kind == "out", f"{name}: float64 run failed: {ref}"
        for k, (r, f) in enumerate(zip(res, ref)):
            if outs[k]["dtype"] == "float32":
                f = f.to(torch.float32)
                assert torch.allclose(r, f, rtol=rtol, atol=atol, equal_nan=True), f"{name}[{k}]: float32 misses"
                outs[k] = dict(outs[k], data=_enc_tensor(f)["data"])
    case["out"] = outs
    case["tol"] = {"rtol": rtol, "atol": atol}
    return case


class Family:
    """The cases of one fixture file."""

    def __init__(self, name):
        self.name = name
        self.cases = []

    def case(self, name, op, inputs=(), args=None, tol=None, error=None):
        """error: expected webtorch error class when the case must fail (its message and PyTorch
        type come from PyTorch itself)."""
        c = {"name": f"{op}/{name}", "op": op, "inputs": list(inputs), "args": _enc_scalar(args or {})}
        if tol is not None:
            c["tol"] = tol
        self.cases.append(finish(c, error))

    def dumps(self):
        keys = ("name", "op", "inputs", "args", "out", "error", "tol", "grad")
        rows = [
            json.dumps({k: c[k] for k in keys if k in c}, separators=(",", ":"), allow_nan=False)
            for c in self.cases
        ]
        return "[\n" + ",\n".join(rows) + "\n]\n"
