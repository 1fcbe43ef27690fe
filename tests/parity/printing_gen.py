"""Writes fixtures/printing.json: PyTorch's exact repr() of tensors, which `await t.format()` must
reproduce character for character (tests/node/printing.test.mjs).

    .venv-torch/bin/python tests/parity/printing_gen.py

Each case stores the tensor's values (float32-exact; "nan"/"inf"/"-inf" as strings), shape and
dtype, the print options in force (None: the defaults), how it was made for autograd (`grad`: a
leaf with requires_grad, or one op applied to such a leaf, so that the repr shows grad_fn), and
the repr PyTorch printed.
"""

import json
import math
import os

import torch

DTYPES = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int32": torch.int32,
    "int64": torch.int64,
    "uint8": torch.uint8,
    "bool": torch.bool,
}

# grad: how the printed tensor is made from a leaf `x` (requires_grad=True) holding the values.
GRAD_OPS = {
    "leaf": lambda x: x,
    "add": lambda x: x + 1,
    "mul": lambda x: x * 2,
    "sum": lambda x: x.sum(),
    "exp": lambda x: x.exp(),
}


def enc(v):
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


cases = []


def case(name, t, options=None, grad=None, parameter=False):
    """Records `t` (built in PyTorch) and its repr under `options`."""
    dtype = next(k for k, v in DTYPES.items() if v == t.dtype)
    values = t.detach().reshape(-1)
    values = values.float().tolist() if t.dtype.is_floating_point else values.tolist()
    shown = t
    if grad is not None:
        x = t.detach().clone().requires_grad_(True)
        shown = GRAD_OPS[grad](x)
    if parameter:
        shown = torch.nn.Parameter(t.detach().clone())
    torch.set_printoptions(profile="default")
    if options:
        torch.set_printoptions(**options)
    text = repr(shown)
    torch.set_printoptions(profile="default")
    # Values 0, 1, 2, ... are stored as {"arange": true} (the big summarised cases).
    arange = t.numel() > 100 and values == list(range(t.numel()))
    cases.append(
        {
            "name": name,
            "values": {"arange": True} if arange else [enc(v) for v in values],
            "shape": list(t.shape),
            "dtype": dtype,
            "options": options,
            "grad": grad,
            "parameter": parameter,
            "repr": text,
        }
    )


def r(*shape, seed=0, scale=1.0, grid=0):
    """Seeded normal values; `grid`: rounded to multiples of 1/grid (short in JSON, for big cases)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=g) * scale
    return (x * grid).round() / grid if grid else x


T = torch.tensor
nan, inf = float("nan"), float("inf")

# floats: fixed point, int mode, widths, signs
case("matrix_int_mode", T([[1.0, 2.0], [3.0, 4.0]]))
case("vector_fixed", T([1.5, -2.25, 3.125]))
case("negatives_aligned", T([[-1.5, 2.0], [3.0, -40.25]]))
case("scalar_float", T(3.5))
case("scalar_int_mode", T(-3.0))
case("zeros", torch.zeros(2, 3))
case("negative_zero", T([-0.0, 1.0]))
case("negative_zero_fixed", T([-0.0, 1.5]))
case("rounding_ties_p2", T([0.125, 0.375, 2.5, -0.625]), {"precision": 2})
case("randn_2x3", r(2, 3, seed=1))
case("cube_3d", r(2, 2, 3, seed=2))
case("four_d", torch.arange(24.0).reshape(2, 3, 2, 2))
# scientific notation: small, large, wide ratio; int mode with sci
case("sci_small", T([1e-5, 1.0]))
case("sci_large", T([1.5e10, 1.0]))
case("sci_int_mode", T([1e9, 2e9, 3.0]))
case("sci_ratio", T([1.0, 2000.5]))
case("no_sci_ratio_1000", T([1.0, 1000.0]))
case("sci_above_1e8", T([123456789.0]))
case("sci_tiny_mixed", r(3, 2, seed=3, scale=1e-6))
# non-finite
case("nan_and_value", T([nan, 1.5]))
case("infs_int_mode", T([inf, -inf, 1.0]))
case("only_nonfinite", T([nan, inf, -inf]))
case("nan_width", T([[nan, 100.25], [-3.0, 0.0]]))
# integers and bools
case("int64_vector", T([1, 2, 3]))
case("int64_widths", T([[-100, 2], [3, 45678]]))
case("int32_suffix", T([1, -2, 3], dtype=torch.int32))
case("uint8_suffix", T([0, 7, 255], dtype=torch.uint8))
case("bool_matrix", T([[True, False], [False, True]]))
case("scalar_int", T(5))
case("scalar_bool", T(True))
case("int32_scalar", T(7, dtype=torch.int32))
# float16/bfloat16 values (rounded by PyTorch, stored exactly)
case("float16", T([0.1, 1.5, -2.0], dtype=torch.float16))
case("bfloat16", T([0.1, 1.5, 300.0], dtype=torch.bfloat16))
# empty tensors
case("empty_1d", torch.zeros(0))
case("empty_2d", torch.zeros(0, 3))
case("empty_int64", torch.zeros(2, 0, dtype=torch.int64))
case("empty_bool_1d", torch.zeros(0, dtype=torch.bool))
# line wrapping and the suffix going to its own line
case("wrap_1d", r(30, seed=4))
case("wrap_rows", r(3, 12, seed=5))
case("wrap_ints", torch.arange(-20, 20, dtype=torch.int64) * 1000)
case("suffix_newline", torch.arange(10, 22, dtype=torch.int32) * 100000)
# summarisation
case("summary_1d_float", torch.arange(2000.0))
case("summary_1d_int", torch.arange(1001))
case("summary_2d", r(40, 40, seed=6, grid=256))
case("summary_3d", r(20, 10, 10, seed=7, grid=256))
case("summary_rows_only", r(1001, 2, seed=8, grid=256))
# print options
case("precision_2", r(2, 3, seed=9), {"precision": 2})
case("precision_8", r(2, 2, seed=10), {"precision": 8})
case("precision_0", T([1.25, 2.5, 3.75]), {"precision": 0})
case("threshold_5", torch.arange(10), {"threshold": 5})
case("threshold_5_2d", torch.arange(30.0).reshape(5, 6), {"threshold": 5})
case("edgeitems_1", r(10, 10, seed=11), {"threshold": 10, "edgeitems": 1})
case("edgeitems_0", torch.arange(10.0), {"threshold": 5, "edgeitems": 0})
case("edgeitems_0_2d", torch.arange(30).reshape(5, 6), {"threshold": 5, "edgeitems": 0})
case("linewidth_40", r(16, seed=12), {"linewidth": 40})
case("linewidth_40_suffix", T([1, 2, 3, 4, 5, 6, 7, 8], dtype=torch.int32), {"linewidth": 30})
case("sci_mode_true", T([1.5, 2.0, 300.0]), {"sci_mode": True})
case("sci_mode_false", T([1e-6, 1e9]), {"sci_mode": False})
case("sci_mode_false_tiny", T([1e-6, 1.0]), {"sci_mode": False})
case("profile_short", r(3, 3, seed=13), {"profile": "short"})
case("profile_short_summary", torch.arange(2000.0).reshape(40, 50), {"profile": "short"})
case("profile_full", torch.arange(1200), {"profile": "full"})
case("profile_full_precision", T([1.0 / 3.0, 2.0]), {"profile": "full", "precision": 6})
# autograd
case("requires_grad", T([1.0, 2.0]), grad="leaf")
case("grad_fn_add", T([[1.0, 2.0], [3.0, 4.0]]), grad="add")
case("grad_fn_mul", T([1.5, -2.0]), grad="mul")
case("grad_fn_sum", T([1.0, 2.0, 3.5]), grad="sum")
case("grad_fn_exp", T([0.0, 1.0]), grad="exp")
case("grad_fn_newline", r(6, seed=14), {"linewidth": 60}, grad="add")
case("parameter", T([1.0, 2.0]), parameter=True)

out = os.path.join(os.path.dirname(__file__), "fixtures", "printing.json")
with open(out, "w") as f:
    # One case a line: compact, and a diff shows which cases changed.
    f.write('{"torch": %s, "cases": [\n' % json.dumps(torch.__version__))
    f.write(",\n".join(json.dumps(c) for c in cases))
    f.write("\n]}\n")
print(f"{len(cases)} cases -> {out}")
