"""The PyTorch calls of the hand-written kernel families (reductions beyond sum/mean, row-wise NN
kernels, where/masked_fill, joining and indexing): `fixture.call()` hands these ops here.
run.mjs and tests/parity.rs make the same calls on webtorch. Ops returning a tuple (`max(dim)`)
give a list of outputs (README: "Tuple results")."""

import torch

REDUCTIONS = {"prod", "amax", "amin", "max", "min", "argmax", "argmin", "all", "any", "var", "std",
              "logsumexp", "norm", "count_nonzero"}
ROWWISE = {"softmax", "log_softmax", "layer_norm", "rms_norm"}
CONDITIONAL = {"where", "masked_fill"}
INDEXING = {"index_select", "gather", "take_along_dim", "cat", "stack", "scatter", "scatter_add"}
SCANS = {"cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"}
SORTING = {"sort", "argsort", "searchsorted"}
KERNEL_OPS = REDUCTIONS | ROWWISE | CONDITIONAL | INDEXING | SCANS | SORTING

# Float32 tolerances (fixture.TOL's convention). max/min/amax/amin select an element: exact.
KERNEL_TOL = {
    "prod": (1e-5, 1e-6), "var": (1e-5, 1e-5), "std": (1e-5, 1e-5), "logsumexp": (1e-5, 1e-5),
    "norm": (1e-5, 1e-5), "softmax": (1e-5, 1e-6), "log_softmax": (1e-5, 1e-5),
    "layer_norm": (1e-4, 1e-5), "rms_norm": (1e-5, 1e-5), "scatter_add": (1e-5, 1e-5),
    # Parallel scans add in a different order than PyTorch's sequential loop.
    "cumsum": (1e-5, 1e-5), "cumprod": (1e-5, 1e-6), "logcumsumexp": (1e-5, 1e-5),
}


def _dim(a):
    """The `dim` keyword from the args: `dim` (int) or `dims` (tuple), or absent."""
    if "dim" in a:
        return {"dim": a["dim"]}
    if "dims" in a:
        return {"dim": tuple(a["dims"])}
    return {}


def _keep(a):
    return {"keepdim": a["keepdim"]} if "keepdim" in a else {}


def call_kernel(op, inputs, a):
    if op in ("cat", "stack"):
        # Every input is one tensor of the list.
        return getattr(torch, op)(list(inputs), **({"dim": a["dim"]} if "dim" in a else {}))
    x = inputs[0]
    if op in ("max", "min"):
        if "dim" not in a:
            return getattr(x, op)()
        return tuple(getattr(x, op)(a["dim"], **_keep(a)))
    if op in ("prod", "argmax", "argmin", "amax", "amin", "all", "any", "logsumexp"):
        return getattr(x, op)(**_dim(a), **_keep(a))
    if op in ("var", "std"):
        extra = {"correction": a["correction"]} if "correction" in a else {}
        return getattr(x, op)(**_dim(a), **extra, **_keep(a))
    if op == "norm":
        return x.norm(p=a.get("p", 2), **_dim(a), **_keep(a))
    if op == "count_nonzero":
        return torch.count_nonzero(x, **_dim(a))
    if op in ("softmax", "log_softmax"):
        return getattr(torch.nn.functional, op)(x, a["dim"])
    if op in ("layer_norm", "rms_norm"):
        # Optional affine parameters follow the input in order, as flagged by `weight`/`bias`.
        rest = iter(inputs[1:])
        w = next(rest) if a.get("weight") else None
        kw = {"eps": a["eps"]} if "eps" in a else {}
        if op == "rms_norm":
            return torch.nn.functional.rms_norm(x, a["normalized_shape"], w, **kw)
        b = next(rest) if a.get("bias") else None
        return torch.nn.functional.layer_norm(x, a["normalized_shape"], w, b, **kw)
    if op == "where":
        return torch.where(x, inputs[1], inputs[2])
    if op == "masked_fill":
        return x.masked_fill(inputs[1], a["value"])
    if op in ("index_select", "gather"):
        return getattr(x, op)(a["dim"], inputs[1])
    if op in ("scatter", "scatter_add"):
        # The source: a tensor input, or the `value` arg.
        return getattr(x, op)(a["dim"], inputs[1], inputs[2] if len(inputs) > 2 else a["value"])
    if op == "take_along_dim":
        return torch.take_along_dim(x, inputs[1], **({"dim": a["dim"]} if "dim" in a else {}))
    if op in ("cumsum", "cumprod"):
        kw = {"dtype": getattr(torch, a["out_dtype"])} if "out_dtype" in a else {}
        return getattr(torch, op)(x, a["dim"], **kw)
    if op == "logcumsumexp":
        return torch.logcumsumexp(x, a["dim"])
    if op in ("cummax", "cummin"):
        return tuple(getattr(torch, op)(x, a["dim"]))
    if op == "sort":
        # webtorch's sort is stable: ties keep their order (PyTorch's stable=True).
        return tuple(torch.sort(x, dim=a.get("dim", -1), descending=a.get("descending", False), stable=True))
    if op == "argsort":
        return torch.argsort(x, dim=a.get("dim", -1), descending=a.get("descending", False), stable=True)
    if op == "searchsorted":
        return torch.searchsorted(x, inputs[1], right=a.get("right", False), out_int32=a.get("out_int32", False))
    raise ValueError(f"unknown op {op}")
