"""The PyTorch calls of the convolution family (convolutions and their transposes, pooling,
batch_norm, F.pad): `fixture.call()` hands these ops here; tests/parity/conv.mjs and
tests/parity/conv.rs make the same calls on webtorch.

batch_norm's running statistics are not inputs (a runner would make them leaves that require
grad): the args `running_mean`/`running_var` are fill values of fresh `[C]` tensors, and the
result is the tuple (y, running_mean, running_var) after the call, so the in-place update is
checked too."""

import torch

F = torch.nn.functional

CONV_OPS = {"conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "max_pool1d",
            "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
            "batch_norm", "pad"}

# Float32 tolerances (fixture.TOL's convention): sums of products as matmul's; max pooling and
# padding select elements (exact); batch_norm as layer_norm.
CONV_TOL = {
    **{op: (1e-5, 1e-5) for op in ("conv1d", "conv2d", "conv3d", "conv_transpose1d",
                                   "conv_transpose2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d")},
    "avg_pool1d": (1e-6, 1e-6), "avg_pool2d": (1e-6, 1e-6),
    "batch_norm": (1e-4, 1e-5),
}

# These cases are small images: gradients are checked up to this many float32 input elements.
CONV_MAX_GRAD_ELEMENTS = 400


def _kw(a, keys):
    return {k: a[k] for k in keys if k in a}


def call_conv(op, inputs, a):
    x = inputs[0]
    if op.startswith("conv"):
        bias = inputs[2] if len(inputs) > 2 else None
        keys = ("stride", "padding", "output_padding", "groups", "dilation") if "transpose" in op \
            else ("stride", "padding", "dilation", "groups")
        return getattr(F, op)(x, inputs[1], bias, **_kw(a, keys))
    if op.startswith("max_pool"):
        return getattr(F, op)(x, a["kernel_size"], **_kw(a, ("stride", "padding", "dilation", "ceil_mode")))
    if op.startswith("avg_pool"):
        keys = ("stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")
        return getattr(F, op)(x, a["kernel_size"], **_kw(a, keys))
    if op.startswith("adaptive_avg_pool"):
        return getattr(F, op)(x, a["output_size"])
    if op == "pad":
        return F.pad(x, a["pad"], **_kw(a, ("mode", "value")))
    if op == "batch_norm":
        rest = iter(inputs[1:])
        w = next(rest) if a.get("weight") else None
        b = next(rest) if a.get("bias") else None
        c = x.shape[1]
        rm = torch.full((c,), a["running_mean"], dtype=x.dtype) if "running_mean" in a else None
        rv = torch.full((c,), a["running_var"], dtype=x.dtype) if "running_var" in a else None
        y = F.batch_norm(x, rm, rv, w, b, **_kw(a, ("training", "momentum", "eps")))
        return (y, rm, rv) if rm is not None else y
    raise ValueError(f"unknown op {op}")
