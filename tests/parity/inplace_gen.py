"""Fixtures for tests/node/inplace_methods.test.mjs and tests/node/index_names.test.mjs.

Each case names a Tensor method (or torch function), its inputs as nested lists with dtypes, and
PyTorch's result; in-place cases with a `grad` also hold the gradients of `sum(result * w)` with
respect to the (float) self and tensor arguments, the in-place method applied to `self * 1`.

    .venv-torch/bin/python tests/parity/inplace_gen.py
"""

import json
import math
from pathlib import Path

import torch

OUT = Path(__file__).parent / "fixtures"


def T(data, dtype="float32"):
    return {"t": data, "dtype": dtype}


def I(data):
    return T(data, "int64")


def B(data):
    return T(data, "bool")


def build(v):
    if isinstance(v, dict) and "t" in v:
        return torch.tensor(v["t"], dtype=getattr(torch, v["dtype"]))
    return v


def listify(r):
    if isinstance(r, torch.Tensor):
        return {"t": r.tolist(), "dtype": str(r.dtype).replace("torch.", "")}
    if isinstance(r, (tuple, list)):
        return [listify(x) for x in r]
    return r


M34S = [[x + 0.125 for x in row] for row in [[1.5, -2.0, 0.25, 3.0], [0.5, 1.0, -1.5, 2.0], [4.0, -0.75, 2.5, -3.0]]]
M34 = [[1.5, -2.0, 0.25, 3.0], [0.5, 1.0, -1.5, 2.0], [4.0, -0.75, 2.5, -3.0]]

INPLACE = [
    ("masked_fill_", T(M34), [B([[True, False, True, False]] * 3), 2.5], {}),
    ("masked_fill_", T(M34), [B([True, False, False, True]), T(-1.0)], {}),
    ("index_add_", T(M34), [0, I([2, 0]), T([[1.0, 2, 3, 4], [5, 6, 7, 8]])], {"alpha": 2}),
    ("index_copy_", T(M34), [1, I([3, 0]), T([[1.0, 2], [3, 4], [5, 6]])], {}),
    ("index_fill_", T(M34), [1, I([1, 2]), -7.0], {}),
    ("index_reduce_", T(M34), [0, I([0, 2, 0]), T([[2.0, 2, 2, 2], [3, 3, 3, 3], [1, -1, 0.5, 4]]), "prod"], {}),
    ("index_reduce_", T(M34), [0, I([0, 2, 0]), T([[2.0, 2, 2, 2], [3, 3, 3, 3], [1, -1, 0.5, 4]]), "mean"], {"include_self": False}),
    ("index_reduce_", T(M34), [1, I([0, 0, 3, 1]), T(M34), "amax"], {}),
    ("index_reduce_", T(M34), [1, I([0, 0, 3, 1]), T(M34S), "amin"], {"include_self": False}),
    ("scatter_reduce_", T(M34), [1, I([[0, 0, 1, 1]] * 3), T(M34), "sum"], {}),
    ("scatter_reduce_", T(M34), [1, I([[0, 0, 1, 1]] * 3), T(M34S), "amax"], {"include_self": False}),
    ("masked_scatter_", T(M34), [B([[True, False, True, False]] * 3), T([[9.0] * 4] * 3)], {}),
    ("lerp_", T(M34), [T([[1.0, 1, 1, 1]] * 3), 0.25], {}),
    ("lerp_", T(M34), [T([[1.0, 1, 1, 1]] * 3), T([0.5, 0.1, 0.9, 2.0])], {}),
    ("clamp_min_", T(M34), [0.5], {}),
    ("clamp_max_", T(M34), [T([1.0, 0.0, 1.0, 0.0])], {}),
    ("addcmul_", T(M34), [T([1.0, 2, 3, 4]), T([[0.5], [1.5], [-1.0]])], {"value": 0.5}),
    ("addcdiv_", T(M34), [T([1.0, 2, 3, 4]), T([[0.5], [1.5], [-1.0]])], {"value": -2}),
    ("nan_to_num_", T([1.0, math.nan, math.inf, -math.inf]), [], {"nan": 0.5, "posinf": 7.0}),
    ("ldexp_", T(M34), [I([1, 0, -2, 3])], {}),
    ("heaviside_", T([-1.0, 0.0, 2.0, 0.0]), [T([0.5, 0.25, 0.5, 0.75])], {}),
    ("tril_", T(M34), [], {"diagonal": 1}),
    ("triu_", T(M34), [-1], {}),
    ("cumsum_", T(M34), [1], {}),
    ("cumprod_", T(M34), [0], {}),
    ("addmm_", T([[1.0, 2], [3, 4]]), [T([[1.0, 0.5, 2], [0, 1, -1]]), T([[1.0, 2], [3, 4], [-1, 0.5]])], {"beta": 0.5, "alpha": 2}),
    ("addmv_", T([1.0, -1]), [T([[1.0, 0.5, 2], [0, 1, -1]]), T([2.0, 1, 0.5])], {}),
    ("addr_", T([[1.0, 2, 3], [3, 4, 5]]), [T([1.0, -1]), T([2.0, 1, 0.5])], {"alpha": 3}),
    ("baddbmm_", T([[[1.0, 2], [3, 4]]]), [T([[[1.0, 0.5], [0, 1]]]), T([[[1.0, 2], [3, 4]]])], {"beta": 2}),
    ("addbmm_", T([[1.0, 2], [3, 4]]), [T([[[1.0, 0.5], [0, 1]], [[2.0, 1], [1, 1]]]), T([[[1.0, 2], [3, 4]], [[0.5, 1], [1, 0]]])], {}),
    ("gcd_", I([12, -18, 0, 7, 0, 2**30 + 6]), [I([8, 12, 5, 0, 0, 2**29 + 4])], {}),
    ("lcm_", I([12, -18, 0, 7, 4]), [I([8, 12, 5, 0, -6])], {}),
    ("gcd_", T([12, 18], "int32"), [T([8, -27], "int32")], {}),
]

# Error cases: PyTorch's message.
ERRORS = [
    ("addcmul_", T([1.0, 2, 3]), [T([[1.0, 1, 1], [2, 2, 2]]), T([1.0, 2, 3])], {}),
    ("addcdiv_", T([1, 2], "int64"), [T([1.0, 2.0]), T([1.0, 2.0])], {}),
    ("cumsum_", T([1.0, 2]), [0], {"dtype": "int64"}),
    ("gcd_", T([1.0, 2]), [T([1.0, 2])], {}),
    ("index_add_", T([1.0, 2, 3]), [0, I([0]), T([1.0, 2])], {}),
    ("uniform_", T([1, 2], "int64"), [], {}),
    ("normal_", T([1.0, 2]), [0, -1], {}),
    ("bernoulli_", T([1.0, 2]), [1.5], {}),
    ("exponential_", T([1.0, 2]), [-1.0], {}),
    ("geometric_", T([1.0, 2]), [1.5], {}),
    ("uniform_", T([1.0, 2]), [3, 2], {}),
]


def run_method(name, self_t, args, kw):
    kw = {k: (getattr(torch, v) if k == "dtype" else v) for k, v in kw.items()}
    return getattr(self_t, name)(*args, **kw)


def case(name, self_spec, args, kw):
    self_t = build(self_spec)
    targs = [build(a) for a in args]
    out = run_method(name, self_t.clone(), [a.clone() if isinstance(a, torch.Tensor) else a for a in targs], kw)
    c = {"method": name, "self": self_spec, "args": args, "kw": kw, "out": listify(out)}
    floats = self_t.is_floating_point() and name not in ("nan_to_num_",)
    if floats:
        x = self_t.clone().requires_grad_(True)
        ga = [a.clone().requires_grad_(True) if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in targs]
        y = x * 1
        r = run_method(name, y, ga, kw)
        assert r is y
        w = torch.arange(1, r.numel() + 1, dtype=r.dtype).reshape(r.shape) / 4
        try:
            (r * w).sum().backward()
        except RuntimeError as e:
            c["grad_error"] = str(e).split("\n")[0]
            return c
        c["grad"] = listify(x.grad)
        c["arg_grads"] = [listify(a.grad) if isinstance(a, torch.Tensor) and a.grad is not None else None for a in ga]
    return c


def error(name, self_spec, args, kw):
    try:
        run_method(name, build(self_spec), [build(a) for a in args], kw)
    except Exception as e:  # noqa: BLE001 - the message is the fixture
        return {"method": name, "self": self_spec, "args": args, "kw": kw, "error": str(e).split("\n")[0]}
    raise AssertionError(f"{name} did not raise")


FUNCS = [
    ("gcd", [I([12, -18, 0, 7, 0, -5]), I([8, 12, 5, 0, 0, 10])], {}),
    ("gcd", [T([255, 12, 0], "uint8"), T([15, 255, 0], "uint8")], {}),
    ("gcd", [T([2**31 - 1, -(2**30), 1836311903], "int32"), T([2**30 + 2, 6, 1134903170], "int32")], {}),
    ("lcm", [I([12, -18, 0, 7, 4, -3]), I([8, 12, 5, 0, -6, -7])], {}),
    ("lcm", [T([[2], [3]], "int32"), T([4, 9, 5], "int32")], {}),
    ("frexp", [T([0.0, -0.0, 3.0, -3.0, 0.1, 1.0, 8.0, 1e30, -1e-30, 3.4e38, 1.2e-38, math.inf, -math.inf, math.nan])], {}),
    ("cumulative_trapezoid", [T([1.0, 2, 4, 8])], {}),
    ("cumulative_trapezoid", [T([[1.0, 2, 4], [3, 3, 3]])], {"dx": 0.5}),
    ("cumulative_trapezoid", [T([[1.0, 2, 4], [3, 3, 3]])], {"dim": 0}),
    ("cumulative_trapezoid", [T([1.0, 2, 4]), T([0.0, 1, 3])], {}),
    ("cumulative_trapezoid", [T([[1.0, 2, 4], [3, 3, 3]]), T([[0.0, 1, 3], [1, 2, 2.5]])], {}),
    ("cumulative_trapezoid", [I([1, 2, 4])], {}),
    ("index_reduce", [T(M34), 0, I([0, 2, 0]), T([[2.0, 2, 2, 2], [3, 3, 3, 3], [1, -1, 0.5, 4]]), "prod"], {}),
    ("index_reduce", [T(M34), 1, I([3, 3, 0, 1]), T(M34), "mean"], {"include_self": False}),
    ("var", [T([1.5, 2, 4, 8])], {}),
    ("std", [T(M34), 1], {"correction": 0}),
]

FUNC_GRADS = [
    ("frexp", [T([3.0, -0.1, 8.0, 0.75])], {}),
    ("cumulative_trapezoid", [T([[1.0, 2, 4], [3, 3, 3]]), T([[0.0, 1, 3], [1, 2, 2.5]])], {}),
    ("index_reduce", [T(M34), 0, I([0, 2, 0]), T([[2.0, 2, 2, 2], [3, 3, 3, 3], [1, -1, 0.5, 4]]), "prod"], {}),
]

FUNC_ERRORS = [
    ("gcd", [T([1.0]), T([2.0])], {}),
    ("lcm", [T([1.0]), T([2.0])], {}),
    ("frexp", [I([1, 2])], {}),
    ("index_reduce", [T(M34), 0, I([0, 1]), T(M34), "prod"], {}),
    ("index_reduce", [T(M34), 0, I([0, 1, 2]), T(M34), "sum"], {}),
]


def func_case(name, args, kw, grad=False):
    targs = [build(a) for a in args]
    c = {"fn": name, "args": args, "kw": kw}
    if not grad:
        c["out"] = listify(getattr(torch, name)(*targs, **kw))
        return c
    ga = [a.clone().requires_grad_(True) if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in targs]
    r = getattr(torch, name)(*ga, **kw)
    r0 = r[0] if isinstance(r, tuple) else r
    w = torch.arange(1, r0.numel() + 1, dtype=r0.dtype).reshape(r0.shape) / 4
    (r0 * w).sum().backward()
    c["out"] = listify(r0)
    c["arg_grads"] = [listify(a.grad) if isinstance(a, torch.Tensor) and a.grad is not None else None for a in ga]
    return c


def func_error(name, args, kw):
    try:
        getattr(torch, name)(*[build(a) for a in args], **kw)
    except Exception as e:  # noqa: BLE001 - the message is the fixture
        return {"fn": name, "args": args, "kw": kw, "error": str(e).split("\n")[0]}
    raise AssertionError(f"{name} did not raise")


def uniform_generator():
    g = torch.Generator().manual_seed(1234)
    return {"seed": 1234, "from": -2.0, "to": 3.0, "n": 8, "out": torch.empty(8).uniform_(-2.0, 3.0, generator=g).tolist()}


def dumps(obj):
    """JSON with the non-finite numbers as the strings "nan", "inf", "-inf" (JSON has none)."""
    text = json.dumps(obj, indent=1, allow_nan=True)
    return text.replace("-Infinity", '"-inf"').replace("Infinity", '"inf"').replace("NaN", '"nan"') + "\n"


def main():
    inplace = {
        "torch": torch.__version__,
        "cases": [case(*c) for c in INPLACE],
        "errors": [error(*c) for c in ERRORS],
        "uniform_generator": uniform_generator(),
    }
    names = {
        "torch": torch.__version__,
        "cases": [func_case(*c) for c in FUNCS] + [func_case(*c, grad=True) for c in FUNC_GRADS],
        "errors": [func_error(*c) for c in FUNC_ERRORS],
    }
    (OUT / "inplace_methods.json").write_text(dumps(inplace))
    (OUT / "index_names.json").write_text(dumps(names))


if __name__ == "__main__":
    main()
