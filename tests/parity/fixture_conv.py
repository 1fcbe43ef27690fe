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


# The convolution family's ops the TS layer composes or only it calls (the native runner has no
# entry for them): fixture_composites adds these to its calls, so their cases go to fixtures/ts/.
# `max_pool{k}d_with_indices` is PyTorch's F.max_pool{k}d_with_indices (return_indices=True).
def _max_pool_indices(k):
    return lambda x, a: getattr(F, f"max_pool{k}d")(
        x[0], a["kernel_size"], return_indices=True,
        **_kw(a, ("stride", "padding", "dilation", "ceil_mode")))


def _unpool(k):
    return lambda x, a: getattr(F, f"max_unpool{k}d")(
        x[0], x[1], a["kernel_size"], **_kw(a, ("stride", "padding", "output_size")))


CONV_TS_CALLS = {
    "conv_transpose3d": lambda x, a: F.conv_transpose3d(
        x[0], x[1], x[2] if len(x) > 2 else None,
        **_kw(a, ("stride", "padding", "output_padding", "groups", "dilation"))),
    "max_pool3d": lambda x, a: F.max_pool3d(
        x[0], a["kernel_size"], **_kw(a, ("stride", "padding", "dilation", "ceil_mode"))),
    "avg_pool3d": lambda x, a: F.avg_pool3d(
        x[0], a["kernel_size"],
        **_kw(a, ("stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"))),
    "adaptive_avg_pool3d": lambda x, a: F.adaptive_avg_pool3d(x[0], a["output_size"]),
    **{f"adaptive_max_pool{k}d": (lambda k: lambda x, a: getattr(F, f"adaptive_max_pool{k}d")(
        x[0], a["output_size"], **_kw(a, ("return_indices",))))(k) for k in (1, 2, 3)},
    **{f"max_pool{k}d_with_indices": _max_pool_indices(k) for k in (1, 2, 3)},
    **{f"max_unpool{k}d": _unpool(k) for k in (1, 2, 3)},
    "constant_pad_nd": lambda x, a: torch.constant_pad_nd(x[0], a["pad"], **_kw(a, ("value",))),
}
CONV_TOL.update({op: (1e-5, 1e-5) for op in ("conv_transpose3d", "adaptive_avg_pool3d")})
CONV_TOL.update({"avg_pool3d": (1e-6, 1e-6)})
