"""The PyTorch calls of the torch.nn.functional ops the parity sweep's loss, norm and sampling
families cover (tests/parity/sweep_nn.py): fixture_composites.py merges them into its CALLS, and
tests/parity/nn_calls.mjs makes the same calls on webtorch.

One convention for all of them: `F.<op>(*inputs, **args)`, where the last inputs are passed by
keyword instead when `args["kw_inputs"]` names them (`["weight", "pos_weight"]`), and every other
arg is a keyword argument. instance_norm's running statistics are not inputs (a runner would make
them leaves that require grad, which PyTorch's in-place update refuses): as for batch_norm
(fixture_conv.py), the args `running_mean`/`running_var` are fill values of fresh `[C]` tensors,
and the result is `(y, running_mean, running_var)` after the call, so the update is checked too.
"""

import torch

F = torch.nn.functional

NN_OPS = (
    "soft_margin_loss", "kl_div", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "poisson_nll_loss", "gaussian_nll_loss", "margin_ranking_loss", "hinge_embedding_loss",
    "cosine_embedding_loss", "multilabel_soft_margin_loss", "multilabel_margin_loss",
    "multi_margin_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss", "ctc_loss",
    "pairwise_distance", "cosine_similarity", "pixel_shuffle", "pixel_unshuffle", "unfold", "fold",
    "grid_sample", "affine_grid", "instance_norm",
)


# Inputs PyTorch does not differentiate (it refuses a backward where they require grad): op ->
# positional indices; keyword tensors (`weight`, `pos_weight`) never. They are detached, so their
# expected gradient is None (a runner checks nothing for them).
NO_GRAD = {"soft_margin_loss": (1,)}


def call_nn(op, x, a):
    a = dict(a)
    names = a.pop("kw_inputs", [])
    pos = list(x[:len(x) - len(names)])
    kw = {k: t.detach() for k, t in zip(names, x[len(x) - len(names):])}
    for k in NO_GRAD.get(op, ()):
        pos[k] = pos[k].detach()
    if op == "instance_norm":
        c = pos[0].shape[1]
        stats = {k: torch.full((c,), a.pop(k), dtype=pos[0].dtype)
                 for k in ("running_mean", "running_var") if k in a}
        y = F.instance_norm(*pos, **kw, **stats, **a)
        return (y, stats["running_mean"], stats["running_var"]) if stats else y
    return getattr(F, op)(*pos, **kw, **a)


NN_CALLS = {op: (lambda op: lambda x, a: call_nn(op, x, a))(op) for op in NN_OPS}

R5 = (1e-5, 1e-5)
# Float32 tolerances (fixture.TOL's convention): sums and logs of a few terms; the layout ops
# (pixel_shuffle, unfold, fold without overlap) move elements; grid_sample interpolates.
NN_TOL = {
    **{op: R5 for op in NN_OPS},
    "pixel_shuffle": (0.0, 0.0), "pixel_unshuffle": (0.0, 0.0), "unfold": (0.0, 0.0),
    "instance_norm": (1e-4, 1e-5),
}
