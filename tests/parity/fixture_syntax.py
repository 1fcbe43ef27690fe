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
"""

import einops


def _lengths(a):
    return a.get("lengths", {})


def _src(x, a):
    return list(x) if a.get("list") else x[0]


CALLS = {
    "rearrange": lambda x, a: einops.rearrange(_src(x, a), a["pattern"], **_lengths(a)),
    "einops_reduce": lambda x, a: einops.reduce(_src(x, a), a["pattern"], a["reduction"],
                                                **_lengths(a)),
    "einops_repeat": lambda x, a: einops.repeat(_src(x, a), a["pattern"], **_lengths(a)),
    "pack": lambda x, a: einops.pack(list(x), a["pattern"])[0],
    "unpack": lambda x, a: tuple(einops.unpack(x[0], [tuple(p) for p in a["ps"]], a["pattern"])),
}
SYNTAX_OPS = set(CALLS)
# Reductions sum in a different order than a float64 reference; rearrange/repeat/pack only move
# values.
SYNTAX_TOL = {"einops_reduce": (1e-5, 1e-5)}


def call_syntax(op, inputs, a):
    return CALLS[op](inputs, a)
