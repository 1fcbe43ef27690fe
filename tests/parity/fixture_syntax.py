"""The PyTorch side of webtorch's small languages: einops patterns (the real `einops` package on
torch tensors), index expressions (`x[...]` and `x[...] = v`) and tensor expressions
(`torch.$("x @ w + b", ...)`, written here as the Python expression). `fixture.call()` hands
these ops here; tests/parity/syntax.mjs makes the same calls on webtorch. The fixtures live in
fixtures/ts/ (the native runner does not load them).

Ops and args (inputs are the case's tensors, in order):
- `rearrange`, `einops_repeat`: `pattern`, `lengths` (axis lengths, possibly empty), `list`
  (true: the inputs as a list of tensors).
- `einops_reduce`: the same plus `reduction`.
- `pack`: `pattern`; the result is the packed tensor (the packed shapes are checked by the
  `unpack` cases, whose `ps` are what pack returns).
- `unpack`: `ps`, `pattern`; a tuple of tensors.
- `getitem`: `x[items]` (webtorch: `x.index(...items)`, or `await x.index_async(...)` with
  `mask`). `items` is the index as a list: integers, slice strings (`"1:-1:2"`), `"..."`, `null`,
  `{"t": k}` (the case's input k, an index tensor or mask), `{"list": [...]}` (a Python list).
- `setitem`: `y = x.clone(); y[items] = value; y` (webtorch: `y.set(items, value)`): `value` is
  the last input, or `args.value` (a number).
- `expr`: `torch.$(expr, values)` with `values` the inputs named by `names`, in order (webtorch
  parses the expression; here Python evaluates it, names resolving to the inputs, then to
  `torch.*` and `torch.nn.functional.*`).
"""

import einops
import torch


def _lengths(a):
    return a.get("lengths", {})


def _src(x, a):
    return list(x) if a.get("list") else x[0]


def _item(x, it):
    if isinstance(it, dict):
        return x[it["t"]] if "t" in it else list(it["list"])
    if it == "...":
        return Ellipsis
    if isinstance(it, str):
        parts = [int(p) if p.strip() else None for p in it.split(":")]
        return slice(*parts)
    return it


def _index(x, a):
    return tuple(_item(x, it) for it in a["items"])


def _setitem(x, a):
    y = x[0].clone()
    y[_index(x, a)] = a["value"] if "value" in a else x[-1]
    return y


class _Names(dict):
    """The namespace of an expression: the inputs, then torch's functions (never Python's)."""

    def __missing__(self, name):
        if name in ("true", "false"):
            return name == "true"
        fn = getattr(torch, name, None) or getattr(torch.nn.functional, name)
        return fn


def _expr(x, a):
    names = _Names(zip(a["names"], x))
    return eval(a["expr"], {"__builtins__": {}}, names)  # noqa: S307 — fixture tooling only


CALLS = {
    "rearrange": lambda x, a: einops.rearrange(_src(x, a), a["pattern"], **_lengths(a)),
    "einops_reduce": lambda x, a: einops.reduce(_src(x, a), a["pattern"], a["reduction"],
                                                **_lengths(a)),
    "einops_repeat": lambda x, a: einops.repeat(_src(x, a), a["pattern"], **_lengths(a)),
    "pack": lambda x, a: einops.pack(list(x), a["pattern"])[0],
    "unpack": lambda x, a: tuple(einops.unpack(x[0], [tuple(p) for p in a["ps"]], a["pattern"])),
    "getitem": lambda x, a: x[0][_index(x, a)],
    "setitem": _setitem,
    "expr": _expr,
}
SYNTAX_OPS = set(CALLS)
# Reductions sum in a different order than a float64 reference; rearrange/repeat/pack only move
# values.
SYNTAX_TOL = {"einops_reduce": (1e-5, 1e-5), "expr": (1e-5, 1e-5)}


def call_syntax(op, inputs, a):
    return CALLS[op](inputs, a)
