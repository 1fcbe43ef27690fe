"""The parity sweep's samplers for the matrix products (`matmul`), batch/group/instance norm
(`norm`), the losses and distances with per-op targets (`loss_nn`) and the grid and patch ops
(`sampling`): sweep.py adds SAMPLERS to its own. Each sampler knows its ops' argument shapes:
valid operands in the layouts the op admits (contiguous, transposed, sliced with a step,
expanded, 0-size, size-1), special values, each reduction and option, the dtypes, and the
shape/dtype errors PyTorch raises (recorded as the expected error).
"""

import math
import zlib

import numpy as np

from fixture import S, T  # noqa: F401

NAN, INF = math.nan, math.inf
SPECIALS = [NAN, INF, -INF, -0.0, 0.0, 1.0]
TR = [("t", [])]


def _sl(dim, n):
    """Every other element of a dim of size n (a slice with step 2)."""
    return [("slice", [dim, 0, n, 2])]


# ---- matrix products ----------------------------------------------------------------------

def matmul(sw, op, tol):
    f, i = sw.f, sw.i

    def c(name, *inputs, **args):
        sw.case(op, name, list(inputs), args, tol=tol)

    if op == "matmul":
        c("1d_1d", f([3]), f([3]))
        c("1d_2d", f([3]), f([3, 4]))
        c("2d_1d", f([2, 3]), f([3]))
        c("2d_2d", f([2, 3]), f([3, 4]))
        c("transposed", f([3, 2], view=TR), f([4, 3], view=TR))
        c("sliced", f([2, 6], view=_sl(1, 6)), f([6, 4], view=_sl(0, 6)))
        c("batched_broadcast", f([2, 1, 2, 3]), f([3, 3, 4]))
        c("1d_3d", f([3]), f([2, 3, 4]))
        c("expanded", f([1, 2, 3], view=[("expand", [2, 2, 3])]), f([2, 3, 4]))
        c("size0_inner", f([2, 0]), f([0, 4]))
        c("size0_batch", f([0, 2, 3]), f([3, 4]))
        c("special", T(SPECIALS, shape=[2, 3]), f([3, 2]))
        c("large", f([2, 3], -1e4, 1e4), f([3, 2], -1e3, 1e3))
        for dt in ("int32", "int64", "uint8", "bool"):
            c(dt, i([2, 3], dt), i([3, 2], dt))
        c("int32_float32", i([2, 3], "int32"), f([3, 2]))
        c("mismatch", f([2, 3]), f([4, 2]))
        c("rank0", f([]), f([3]))
    elif op == "mm":
        c("contiguous", f([2, 3]), f([3, 4]))
        c("transposed", f([3, 2], view=TR), f([4, 3], view=TR))
        c("sliced", f([4, 3], view=_sl(0, 4)), f([3, 8], view=_sl(1, 8)))
        c("expanded", f([1, 3], view=[("expand", [2, 3])]), f([3, 2]))
        c("size0_inner", f([2, 0]), f([0, 3]))
        c("size1", f([1, 3]), f([3, 1]))
        c("special", T(SPECIALS, shape=[2, 3]), f([3, 2]))
        c("int64", i([2, 3], "int64"), i([3, 2], "int64"))
        c("int32_float32", i([2, 3], "int32"), f([3, 2]))
        c("mismatch", f([2, 3]), f([2, 3]))
        c("rank1", f([3]), f([3, 2]))
    elif op == "bmm":
        c("contiguous", f([2, 2, 3]), f([2, 3, 4]))
        c("transposed", f([2, 3, 2], view=[("transpose", [1, 2])]), f([2, 3, 4]))
        c("expanded", f([1, 2, 3], view=[("expand", [2, 2, 3])]), f([2, 3, 2]))
        c("size0", f([0, 2, 3]), f([0, 3, 4]))
        c("size0_inner", f([2, 2, 0]), f([2, 0, 3]))
        c("special", T(SPECIALS * 2, shape=[2, 2, 3]), f([2, 3, 1]))
        c("int32", i([2, 2, 3], "int32"), i([2, 3, 2], "int32"))
        c("batch_mismatch", f([2, 2, 3]), f([3, 3, 4]))
        c("rank2", f([2, 3]), f([3, 4]))
    elif op == "mv":
        c("contiguous", f([2, 3]), f([3]))
        c("transposed", f([3, 2], view=TR), f([3]))
        c("sliced", f([2, 3]), f([6], view=_sl(0, 6)))
        c("expanded", f([2, 3]), f([1], view=[("expand", [3])]))
        c("size0", f([0, 3]), f([3]))
        c("size0_inner", f([2, 0]), f([0]))
        c("special", T(SPECIALS, shape=[2, 3]), f([3]))
        c("int64", i([2, 3], "int64"), i([3], "int64"))
        c("mismatch", f([2, 3]), f([4]))
    elif op in ("dot", "vdot"):
        c("contiguous", f([4]), f([4]))
        c("sliced", f([8], view=_sl(0, 8)), f([4]))
        c("expanded", f([1], view=[("expand", [4])]), f([4]))
        c("size0", f([0]), f([0]))
        c("special", T(SPECIALS), T([1.0, 2.0, 0.5, -1.0, 3.0, 0.0]))
        c("large", f([4], -1e4, 1e4), f([4], -1e3, 1e3))
        for dt in ("int32", "int64", "uint8"):
            c(dt, i([4], dt), i([4], dt))
        c("int32_float32", i([4], "int32"), f([4]))
        c("mismatch", f([3]), f([4]))
        c("rank2", f([2, 2]), f([2, 2]))
    elif op == "inner":
        c("1d", f([3]), f([3]))
        c("2d", f([2, 3]), f([4, 3]))
        c("transposed", f([3, 2], view=TR), f([2, 3]))
        c("3d_1d", f([2, 2, 3]), f([3]))
        c("scalar", f([]), f([2, 3]))
        c("size0", f([0, 3]), f([2, 3]))
        c("special", T(SPECIALS, shape=[2, 3]), f([2, 3]))
        c("int64", i([2, 3], "int64"), i([2, 3], "int64"))
        c("mismatch", f([2, 3]), f([2, 4]))
    elif op == "outer":
        c("contiguous", f([3]), f([4]))
        c("sliced", f([6], view=_sl(0, 6)), f([2]))
        c("size0", f([0]), f([3]))
        c("special", T(SPECIALS), T([1.0, -2.0]))
        for dt in ("int32", "int64", "bool"):
            c(dt, i([3], dt), i([2], dt))
        c("int64_float32", i([3], "int64"), f([2]))
    elif op == "kron":
        c("2d", f([2, 3]), f([2, 2]))
        c("1d_2d", f([3]), f([2, 2]))
        # Not transposed: PyTorch's kron raises a view error for a transposed operand.
        c("sliced", f([4, 3], view=_sl(0, 4)), f([2, 2]))
        c("3d", f([2, 1, 2]), f([1, 2, 2]))
        c("size0", f([0, 2]), f([2, 2]))
        c("special", T(SPECIALS, shape=[2, 3]), f([2]))
        for dt in ("int64", "bool"):
            c(dt, i([2, 2], dt), i([2, 2], dt))
        c("int32_float32", i([2, 2], "int32"), f([2]))
    elif op in ("addmm", "addmv", "addr", "baddbmm", "addbmm"):
        shapes = {  # input (full and broadcast), the two operands
            "addmm": ([2, 4], [4], [2, 3], [3, 4]),
            "addmv": ([2], [1], [2, 3], [3]),
            "addr": ([2, 3], [3], [2], [3]),
            "baddbmm": ([2, 2, 4], [4], [2, 2, 3], [2, 3, 4]),
            "addbmm": ([2, 4], [4], [2, 2, 3], [2, 3, 4]),
        }[op]
        full, bcast, s1, s2 = shapes
        c("contiguous", f(full), f(s1), f(s2))
        c("broadcast", f(bcast), f(s1), f(s2))
        c("alpha_beta", f(full), f(s1), f(s2), alpha=0.5, beta=2.0)
        nan_in = T([NAN] * math.prod(full), shape=full)
        c("beta0_nan_input", nan_in, f(s1), f(s2), beta=0.0)
        c("beta0_nan_input_int", nan_in, f(s1), f(s2), beta=0)
        c("alpha0", f(full), f(s1), f(s2), alpha=0.0)
        if len(s1) == 2:
            c("transposed", f(full), f(s1[::-1], view=TR), f(s2))
        elif len(s1) == 3:
            c("transposed", f(full), f([2, 3, 2], view=[("transpose", [1, 2])]), f(s2))
        else:
            c("sliced", f(full), f([s1[0] * 2], view=_sl(0, s1[0] * 2)), f(s2))
        c("special", T((SPECIALS * 4)[:math.prod(full)], shape=full), f(s1), f(s2))
        c("int64", i(full, "int64"), i(s1, "int64"), i(s2, "int64"))
        c("int64_float_alpha", i(full, "int64"), i(s1, "int64"), i(s2, "int64"), alpha=0.5)
        c("int32_float32", i(full, "int32"), f(s1), f(s2))
        c("mismatch", f(full), f(s1), f([5] + s2[1:] if len(s2) > 1 else [5]))
    elif op == "cross":
        c("contiguous", f([2, 3]), f([2, 3]))
        c("dim0", f([3, 2]), f([3, 2]), dim=0)
        c("transposed", f([3, 2], view=TR), f([2, 3]))
        c("broadcast", f([2, 1, 3]), f([4, 3]))
        c("size0", f([0, 3]), f([0, 3]))
        c("special", T(SPECIALS, shape=[2, 3]), f([2, 3]))
        c("int64", i([2, 3], "int64"), i([2, 3], "int64"))
        c("not_3", f([2, 4]), f([2, 4]))
        c("dim_not_3", f([3, 2]), f([3, 2]), dim=1)
    elif op == "dist":
        for p in (1, 0, INF, 3.0):
            c(f"p_{p}", f([2, 3]), f([2, 3]), p=p)
        c("broadcast", f([2, 3]), f([3]))
        c("transposed", f([3, 2], view=TR), f([2, 3]))
        c("size0", f([0, 3]), f([0, 3]))
        c("special", T(SPECIALS, shape=[2, 3]), f([2, 3]))
        c("int64", i([2, 3], "int64"), i([2, 3], "int64"))
        c("mismatch", f([2, 3]), f([4]))
    elif op == "cdist":
        for p in (2.0, 1.0, 0.0, INF, 3.0):
            c(f"p_{p}", f([3, 2]), f([4, 2]), p=p)
        c("batched", f([2, 3, 2]), f([2, 4, 2]))
        c("transposed", f([2, 3], view=TR), f([4, 2]))
        c("size0", f([0, 2]), f([4, 2]))
        c("special", T(SPECIALS, shape=[3, 2]), f([2, 2]))
        c("int64", i([3, 2], "int64"), i([4, 2], "int64"))
        c("mismatch", f([3, 2]), f([4, 3]))
    elif op == "chain_matmul":
        c("three", f([2, 3]), f([3, 4]), f([4, 2]))
        c("two", f([2, 3]), f([3, 2]))
        c("four", f([2, 3]), f([3, 2]), f([2, 2]), f([2, 3]))
        c("transposed", f([3, 2], view=TR), f([3, 4]), f([4, 2]))
        c("size0", f([2, 0]), f([0, 3]), f([3, 2]))
        c("int64", i([2, 3], "int64"), i([3, 2], "int64"), i([2, 2], "int64"))
        c("mismatch", f([2, 3]), f([2, 3]), f([3, 2]))
    elif op == "tensordot":
        c("dims1", f([2, 3]), f([3, 4]), dims=1)
        c("dims2", f([2, 3, 4]), f([3, 4, 2]), dims=2)
        c("dims0", f([2]), f([3]), dims=0)
        c("dim_lists", f([2, 3, 4]), f([4, 2, 3]), dims=[[0, 2], [1, 0]])
        c("transposed", f([3, 2], view=TR), f([3, 4]), dims=1)
        c("size0", f([0, 3]), f([3, 2]), dims=1)
        c("int64", i([2, 3], "int64"), i([3, 2], "int64"), dims=1)
        c("mismatch", f([2, 3]), f([4, 2]), dims=1)
    elif op == "einsum":
        def e(name, eq, *inputs):
            c(name, *inputs, equation=eq)

        e("matmul", "ij,jk->ik", f([2, 3]), f([3, 4]))
        e("implicit_output", "ij,jk", f([2, 3]), f([3, 4]))
        e("transposed", "ij,jk->ik", f([3, 2], view=TR), f([4, 3], view=TR))
        e("sliced", "ij,jk->ki", f([2, 6], view=_sl(1, 6)), f([6, 4], view=_sl(0, 6)))
        e("expanded", "bij,bjk->bik", f([1, 2, 3], view=[("expand", [2, 2, 3])]), f([2, 3, 2]))
        e("batch", "bij,bjk->bik", f([2, 2, 3]), f([2, 3, 2]))
        e("trace", "ii", f([3, 3]))
        e("diagonal", "ii->i", f([3, 3]))
        e("batch_diagonal", "bii->bi", f([2, 3, 3]))
        e("outer", "i,j->ij", f([3]), f([2]))
        e("dot", "i,i", f([4]), f([4]))
        e("sum_all", "ij->", f([2, 3]))
        e("permute", "ijk->kji", f([2, 3, 2]))
        e("ellipsis", "...ij,...jk->...ik", f([2, 2, 3]), f([3, 2]))
        e("ellipsis_broadcast", "...ij,...jk", f([2, 1, 2, 3]), f([3, 3, 2]))
        e("broadcast_size1", "ij,ij->ij", f([1, 3]), f([2, 3]))
        e("repeated_in_both", "iij,jk->ik", f([2, 2, 3]), f([3, 2]))
        e("three_operands", "ij,jk,kl->il", f([2, 3]), f([3, 2]), f([2, 2]))
        e("rank0", ",i->i", f([]), f([3]))
        e("size0", "ij,jk->ik", f([2, 0]), f([0, 3]))
        e("special", "ij,jk->ik", T(SPECIALS, shape=[2, 3]), f([3, 2]))
        e("large", "ij,jk->ik", f([2, 3], -1e4, 1e4), f([3, 2], -1e3, 1e3))
        e("int64", "ij,jk->ik", i([2, 3], "int64"), i([3, 2], "int64"))
        e("int32_float32", "ij,jk->ik", i([2, 3], "int32"), f([3, 2]))
        e("mismatch", "ij,jk->ik", f([2, 3]), f([4, 2]))
        e("operand_count", "ij,jk->ik", f([2, 3]))
        e("bad_output", "ij->k", f([2, 3]))
    elif op == "cartesian_prod":
        c("two", f([2]), f([3]))
        c("three", f([2]), f([2]), f([2]))
        c("one", f([3]))
        c("sliced", f([4], view=_sl(0, 4)), f([2]))
        c("size0", f([0]), f([2]))
        c("int64", i([2], "int64"), i([3], "int64"))
        c("bool", i([2], "bool"), i([2], "bool"))
        c("int64_float32", i([2], "int64"), f([2]))


# ---- batch / group / instance norm ----------------------------------------------------------

def norm(sw, op, tol):
    f, i = sw.f, sw.i

    def c(name, *inputs, **args):
        sw.case(op, name, list(inputs), args, tol=tol)

    if op == "group_norm":
        w, b = f([4]), f([4])
        c("contiguous", f([2, 4, 3]), w, b, num_groups=2)
        c("no_affine", f([2, 4, 3]), num_groups=2)
        c("one_group", f([2, 4, 3]), w, b, num_groups=1)
        c("transposed", f([2, 3, 4], view=[("transpose", [1, 2])]), w, b, num_groups=2)
        c("4d", f([2, 4, 2, 2]), w, b, num_groups=2)
        c("2d", f([2, 4]), w, b, num_groups=2)
        c("size0", f([0, 4, 3]), w, b, num_groups=2)
        c("eps", f([2, 4, 3]), w, b, num_groups=2, eps=0.5)
        c("special", T(SPECIALS * 4, shape=[2, 4, 3]), w, b, num_groups=2)
        c("indivisible", f([2, 4, 3]), w, b, num_groups=3)
        c("int64", i([2, 4, 3], "int64"), num_groups=2)
    elif op == "batch_norm":
        w, b = f([3]), f([3])
        aff = {"weight": True, "bias": True}
        st = {"running_mean": 0.5, "running_var": 2.0}
        c("eval", f([2, 3, 2]), w, b, **aff, **st)
        c("eval_no_affine", f([2, 3]), **st)
        c("train_stats", f([2, 3, 2]), w, b, **aff, **st, training=True)
        c("train_momentum", f([4, 3]), **st, training=True, momentum=0.5)
        c("train_no_stats", f([2, 3, 2]), w, b, **aff, training=True)
        c("train_transposed", f([2, 3, 2], view=[("transpose", [1, 2])]), **st, training=True)
        c("eval_sliced", f([2, 3, 4], view=_sl(2, 4)), w, b, **aff, **st)
        c("4d_train", f([2, 3, 2, 2]), w, b, **aff, training=True, eps=0.1)
        c("size1_train", f([1, 3]), training=True)
        c("special", T(SPECIALS * 2, shape=[4, 3]), w, b, **aff, training=True)
        c("channel_mismatch", f([2, 4]), **st)
        c("int64", i([2, 3], "int64"), **st)
    elif op == "instance_norm":
        w, b = f([3]), f([3])
        kw = {"kw_inputs": ["weight", "bias"]}
        st = {"running_mean": 0.5, "running_var": 2.0}
        c("contiguous", f([2, 3, 4]))
        c("affine", f([2, 3, 4]), w, b, **kw)
        c("transposed", f([2, 4, 3], view=[("transpose", [1, 2])]), w, b, **kw)
        c("4d", f([2, 3, 2, 2]), w, b, **kw)
        c("running_stats", f([2, 3, 4]), **st, momentum=0.5)
        c("eval_stats", f([2, 3, 4]), w, b, **kw, **st, use_input_stats=False)
        c("eps", f([1, 3, 4]), eps=0.5)
        c("special", T(SPECIALS * 4, shape=[2, 3, 4]))
        c("one_element", f([2, 3, 1]))
        c("int64", i([2, 3, 4], "int64"))


# ---- losses and distances with per-op targets ------------------------------------------------

REDUCTIONS = ("none", "mean", "sum")


def loss_nn(sw, op, tol):
    f, i = sw.f, sw.i
    rng = sw.rng

    def c(name, *inputs, **args):
        sw.case(op, name, list(inputs), args, tol=tol)

    def sign(shape, view=None):
        return T((rng.integers(0, 2, math.prod(shape)) * 2 - 1).tolist(), "float32", shape, view)

    def reductions(make, **args):
        for red in REDUCTIONS:
            c(red, *make(), reduction=red, **args)
        c("bad_reduction", *make(), reduction="avg", **args)

    if op == "soft_margin_loss":
        reductions(lambda: (f([2, 3]), sign([2, 3])))
        c("transposed", f([3, 2], view=TR), sign([2, 3]))
        c("sliced", f([2, 6], view=_sl(1, 6)), sign([2, 3]))
        c("size0", f([0, 3]), sign([0, 3]), reduction="sum")
        c("special", T(SPECIALS, shape=[2, 3]), sign([2, 3]), reduction="none")
        c("large", f([2, 3], -30.0, 30.0), sign([2, 3]), reduction="none")
        c("mismatch", f([2, 3]), sign([3]))
        c("int64", i([2, 3], "int64"), i([2, 3], "int64"))
        c("int64_input", i([2, 3], "int64"), sign([2, 3]))
        c("int64_target", f([2, 3]), i([2, 3], "int64"))
    elif op == "kl_div":
        lp = lambda shape=(2, 3), view=None: f(list(shape), -3.0, -0.1, view=view)  # noqa: E731
        tgt = lambda shape=(2, 3): f(list(shape), 0.0, 1.0)  # noqa: E731
        reductions(lambda: (lp(), tgt()))
        c("batchmean", lp(), tgt(), reduction="batchmean")
        c("log_target", lp(), f([2, 3], -3.0, 0.0), log_target=True, reduction="sum")
        c("log_target_none", lp(), f([2, 3], -3.0, 0.0), log_target=True, reduction="none")
        c("transposed", lp((3, 2), TR), tgt())
        c("broadcast", lp(), tgt((3,)), reduction="none")
        c("zero_target", lp(), T([0.0, 0.5, 0.0, 1.0, 0.0, 0.25], shape=[2, 3]), reduction="none")
        c("size0", lp((0, 3)), tgt((0, 3)), reduction="sum")
        c("special", T(SPECIALS, shape=[2, 3]), tgt(), reduction="none")
        c("int64", i([2, 3], "int64"), i([2, 3], "int64"))
        c("int64_target", lp(), i([2, 3], "int64"))
    elif op in ("binary_cross_entropy", "binary_cross_entropy_with_logits"):
        logits = op.endswith("logits")
        x = (lambda s=(2, 3), v=None: f(list(s), -4.0, 4.0, view=v)) if logits else \
            (lambda s=(2, 3), v=None: f(list(s), 0.05, 0.95, view=v))
        tgt = lambda s=(2, 3): f(list(s), 0.0, 1.0)  # noqa: E731
        reductions(lambda: (x(), tgt()))
        c("weight", x(), tgt(), f([3], 0.5, 2.0), kw_inputs=["weight"])
        c("weight_none", x(), tgt(), f([2, 3], 0.5, 2.0), kw_inputs=["weight"], reduction="none")
        if logits:
            c("pos_weight", x(), tgt(), f([3], 0.5, 3.0), kw_inputs=["pos_weight"])
            c("pos_weight_weight", x(), tgt(), f([2, 1], 0.5, 2.0), f([3], 0.5, 3.0),
              kw_inputs=["weight", "pos_weight"], reduction="none")
            c("large", f([2, 3], -200.0, 200.0), tgt(), reduction="none")
        else:
            # log(0) is clamped at -100.
            c("at_0_and_1", T([0.0, 1.0, 0.0, 1.0, 0.5, 1.0], shape=[2, 3]),
              T([0.0, 1.0, 1.0, 0.0, 0.5, 0.25], shape=[2, 3]), reduction="none")
            c("out_of_range", T([1.5, 0.5]), T([1.0, 0.0]))
        c("transposed", x((3, 2), TR), tgt())
        c("sliced", x((2, 6), _sl(1, 6)), tgt())
        c("size0", x((0, 3)), tgt((0, 3)), reduction="sum")
        c("special", T([NAN, 0.5, 0.25, 0.75, INF if logits else 0.5, -INF if logits else 0.5],
                       shape=[2, 3]), tgt(), reduction="none")
        c("mismatch", x(), tgt((3,)))
        c("int64", i([2, 3], "int64"), i([2, 3], "int64"))
        c("int64_target", x(), i([2, 3], "int64"))
    elif op == "poisson_nll_loss":
        reductions(lambda: (f([2, 3], -2.0, 2.0), f([2, 3], 0.0, 4.0)))
        rate = lambda: f([2, 3], 0.1, 3.0)  # noqa: E731
        c("not_log_input", rate(), f([2, 3], 0.0, 4.0), log_input=False)
        c("full", f([2, 3]), f([2, 3], 0.0, 4.0), full=True, reduction="none")
        c("full_not_log", rate(), T([0.0, 1.0, 2.0, 3.0, 4.0, 0.5], shape=[2, 3]),
          log_input=False, full=True, reduction="none")
        c("eps", rate(), f([2, 3], 0.0, 4.0), log_input=False, eps=0.5)
        c("transposed", f([3, 2], view=TR), f([2, 3], 0.0, 4.0))
        c("size0", f([0, 3]), f([0, 3]), reduction="sum")
        c("special", T(SPECIALS, shape=[2, 3]), f([2, 3], 0.0, 4.0), reduction="none")
        c("int64", i([2, 3], "int64"), i([2, 3], "int64"))
    elif op == "gaussian_nll_loss":
        var = lambda s=(2, 3): f(list(s), 0.1, 2.0)  # noqa: E731
        reductions(lambda: (f([2, 3]), f([2, 3]), var()))
        c("full", f([2, 3]), f([2, 3]), var(), full=True)
        c("var_one_fewer_dim", f([2, 3]), f([2, 3]), var((2,)), reduction="none")
        c("var_last_dim_1", f([2, 3]), f([2, 3]), var((2, 1)), reduction="none")
        c("eps", f([2, 3]), f([2, 3]), T([0.0, 1e-8, 0.5, 1.0, 2.0, 0.0], shape=[2, 3]),
          eps=0.01, reduction="none")
        c("transposed", f([3, 2], view=TR), f([2, 3]), var())
        c("negative_var", f([2, 3]), f([2, 3]), f([2, 3], -1.0, -0.1))
        c("nan_var", f([2, 3]), f([2, 3]), T([NAN, 1.0, 0.5, 2.0, NAN, 1.0], shape=[2, 3]),
          reduction="none")
        c("var_mismatch", f([2, 3]), f([2, 3]), var((3, 3)))
        c("size0", f([0, 3]), f([0, 3]), var((0, 3)), reduction="sum")
        c("int64", i([2, 3], "int64"), i([2, 3], "int64"), i([2, 3], "int64", nonzero=True))
        # An integer var: PyTorch checks its sign, then cannot clamp it in place (two errors,
        # in that order).
        xt = (T([0.5, -1.0, 2.0, 0.0, 1.0, -2.0], shape=[2, 3]), T([1.0, 0.0, 2.0, -1.0, 0.5, 1.0], shape=[2, 3]))
        c("int64_var", *xt, T([1, 2, 3, 1, 2, 3], "int64", shape=[2, 3]))
        c("int64_negative_var", *xt, T([1, -2, 3, 1, 2, 3], "int64", shape=[2, 3]))
    elif op == "margin_ranking_loss":
        reductions(lambda: (f([4]), f([4]), sign([4])))
        c("margin", f([2, 3]), f([2, 3]), sign([2, 3]), margin=0.5, reduction="none")
        c("broadcast", f([2, 3]), f([3]), sign([1, 3]), reduction="none")
        c("transposed", f([3, 2], view=TR), f([2, 3]), sign([2, 3]))
        c("size0", f([0]), f([0]), sign([0]), reduction="sum")
        c("special", T(SPECIALS), f([6]), sign([6]), reduction="none")
        c("int64", i([4], "int64"), i([4], "int64"), i([4], "int64"))
        c("mismatch", f([4]), f([4]), sign([3]))
    elif op == "hinge_embedding_loss":
        reductions(lambda: (f([2, 3]), sign([2, 3])))
        c("margin", f([2, 3]), sign([2, 3]), margin=0.5, reduction="none")
        c("other_targets", f([2, 3]), T([1.0, -1.0, 0.0, 2.0, 1.0, -1.0], shape=[2, 3]),
          reduction="none")
        c("transposed", f([3, 2], view=TR), sign([2, 3]))
        c("broadcast", f([2, 3]), sign([3]), reduction="none")
        c("size0", f([0, 3]), sign([0, 3]), reduction="sum")
        c("special", T(SPECIALS, shape=[2, 3]), sign([2, 3]), reduction="none")
        c("int64", i([2, 3], "int64"), i([2, 3], "int64"))
    elif op == "cosine_embedding_loss":
        reductions(lambda: (f([3, 4]), f([3, 4]), sign([3])))
        c("margin", f([3, 4]), f([3, 4]), sign([3]), margin=0.25, reduction="none")
        c("rank1", f([4]), f([4]), sign([]))
        c("transposed", f([4, 3], view=TR), f([3, 4]), sign([3]))
        c("zero_vector", T([0.0] * 4 + [1.0, 2.0, 3.0, 4.0], shape=[2, 4]), f([2, 4]),
          T([1.0, -1.0]), reduction="none")
        c("size0", f([0, 4]), f([0, 4]), sign([0]), reduction="sum")
        c("mismatch", f([3, 4]), f([3, 4]), sign([2]))
        c("int64", i([3, 4], "int64"), i([3, 4], "int64"), i([3], "int64"))
    elif op == "multilabel_soft_margin_loss":
        bits = lambda s=(2, 3): T(rng.integers(0, 2, math.prod(s)).tolist(), "float32", list(s))  # noqa: E731
        reductions(lambda: (f([2, 3]), bits()))
        c("weight", f([2, 3]), bits(), f([3], 0.5, 2.0), kw_inputs=["weight"], reduction="none")
        c("transposed", f([3, 2], view=TR), bits())
        c("rank1", f([3]), bits((3,)), reduction="none")
        c("size0", f([0, 3]), bits((0, 3)), reduction="sum")
        c("special", T(SPECIALS, shape=[2, 3]), bits(), reduction="none")
        c("int64", i([2, 3], "int64"), i([2, 3], "int64"))
    elif op == "multilabel_margin_loss":
        tgt = T([2, 0, -1, 1, -1, 0], "int64", [2, 3])
        reductions(lambda: (f([2, 3]), tgt))
        c("transposed", f([3, 2], view=TR), tgt)
        c("rank1", f([4]), T([3, 0, -1, 1], "int64"), reduction="none")
        c("all_labels", f([2, 3]), T([0, 1, 2, 2, 1, 0], "int64", [2, 3]), reduction="none")
        c("no_labels", f([2, 3]), T([-1, 0, 1, 0, 1, 2], "int64", [2, 3]), reduction="none")
        c("special", T(SPECIALS, shape=[2, 3]), tgt, reduction="none")
        c("shape_mismatch", f([2, 3]), T([0, 1], "int64", [2, 1]))
        c("float_target", f([2, 3]), f([2, 3]))
    elif op == "multi_margin_loss":
        tgt = T([1, 0, 3], "int64")
        reductions(lambda: (f([3, 4]), tgt))
        c("p2", f([3, 4]), tgt, p=2)
        c("margin", f([3, 4]), tgt, margin=0.5, reduction="none")
        c("weight", f([3, 4]), tgt, f([4], 0.5, 2.0), kw_inputs=["weight"], reduction="none")
        c("transposed", f([4, 3], view=TR), tgt)
        c("rank1", f([4]), T([2], "int64"))
        c("special", T(SPECIALS * 2, shape=[3, 4]), tgt, reduction="none")
        c("p3", f([3, 4]), tgt, p=3)
        c("out_of_range", f([3, 4]), T([1, 4, 0], "int64"))
        c("int32_target", f([3, 4]), T([1, 0, 3], "int32"))
    elif op in ("triplet_margin_loss", "triplet_margin_with_distance_loss"):
        reductions(lambda: (f([3, 4]), f([3, 4]), f([3, 4])))
        c("margin", f([3, 4]), f([3, 4]), f([3, 4]), margin=2.5, reduction="none")
        c("swap", f([3, 4]), f([3, 4]), f([3, 4]), swap=True, reduction="none")
        if op == "triplet_margin_loss":
            c("p1", f([3, 4]), f([3, 4]), f([3, 4]), p=1.0, reduction="none")
            c("eps", f([3, 4]), f([3, 4]), f([3, 4]), eps=0.5, reduction="none")
        else:
            c("margin_negative", f([3, 4]), f([3, 4]), f([3, 4]), margin=-0.5)
        c("rank1", f([4]), f([4]), f([4]))
        c("transposed", f([4, 3], view=TR), f([3, 4]), f([3, 4]))
        c("broadcast", f([3, 4]), f([1, 4]), f([3, 4]), reduction="none")
        c("size0", f([0, 4]), f([0, 4]), f([0, 4]), reduction="sum")
        c("mismatch", f([3, 4]), f([3, 4]), f([3, 5]))
        c("int64", i([3, 4], "int64"), i([3, 4], "int64"), i([3, 4], "int64"))
    elif op == "ctc_loss":
        def lp(t, n, k):
            return T(_log_softmax(rng.uniform(-2, 2, (t, n, k))), "float32", [t, n, k])
        tg = T([1, 2, 2, 1, 3, 0], "int64", [2, 3])
        il, tl = T([5, 4], "int64"), T([3, 2], "int64")
        reductions(lambda: (lp(5, 2, 4), tg, il, tl))
        c("blank", lp(5, 2, 4), T([0, 2, 2, 0, 3, 1], "int64", [2, 3]), il, tl, blank=1)
        c("concatenated", lp(5, 2, 4), T([1, 2, 2, 1, 3], "int64"), il, tl)
        c("unbatched", T(_log_softmax(rng.uniform(-2, 2, (5, 4))), "float32", [5, 4]),
          T([1, 2], "int64"), T([5], "int64", []), T([2], "int64", []))
        c("impossible", lp(2, 2, 4), T([1, 1, 1, 2, 2, 2], "int64", [2, 3]), T([2, 2], "int64"),
          T([3, 3], "int64"), reduction="none")
        c("zero_infinity", lp(2, 2, 4), T([1, 1, 1, 2, 0, 0], "int64", [2, 3]),
          T([2, 2], "int64"), T([3, 1], "int64"), zero_infinity=True, reduction="none")
        c("empty_target", lp(4, 2, 4), tg, T([4, 3], "int64"), T([0, 2], "int64"),
          reduction="none")
        c("int32_targets", lp(5, 2, 4), T([1, 2, 2, 1, 3, 0], "int32", [2, 3]), il, tl)
    elif op == "pairwise_distance":
        for p in (2.0, 1.0, INF, 0.0):
            c(f"p_{p}", f([3, 4]), f([3, 4]), p=p)
        c("keepdim", f([3, 4]), f([3, 4]), keepdim=True)
        c("eps", f([3, 4]), f([3, 4]), eps=0.5)
        c("broadcast", f([3, 4]), f([4]))
        c("rank1", f([4]), f([4]))
        c("transposed", f([4, 3], view=TR), f([3, 4]))
        c("size0", f([0, 4]), f([0, 4]))
        c("special", T(SPECIALS * 2, shape=[3, 4]), f([3, 4]))
        c("mismatch", f([3, 4]), f([3, 5]))
        c("int64", i([3, 4], "int64"), i([3, 4], "int64"))
    elif op == "cosine_similarity":
        c("contiguous", f([3, 4]), f([3, 4]))
        c("dim0", f([3, 4]), f([3, 4]), dim=0)
        c("broadcast", f([3, 4]), f([1, 4]))
        c("transposed", f([4, 3], view=TR), f([3, 4]))
        c("zero_vector", T([0.0] * 4 + [1.0, 2.0, 3.0, 4.0], shape=[2, 4]), f([2, 4]))
        c("eps", f([3, 4], -0.01, 0.01), f([3, 4], -0.01, 0.01), eps=0.1)
        c("size0", f([0, 4]), f([0, 4]))
        c("special", T(SPECIALS * 2, shape=[3, 4]), f([3, 4]))
        c("large", f([3, 4], -1e4, 1e4), f([3, 4], -1e4, 1e4))
        c("mismatch", f([3, 4]), f([3, 5]))
        c("int64", i([3, 4], "int64"), i([3, 4], "int64"))


def _log_softmax(x):
    m = x.max(-1, keepdims=True)
    return np.round(x - m - np.log(np.exp(x - m).sum(-1, keepdims=True)), 3).reshape(-1).tolist()


# ---- grid and patch ops -------------------------------------------------------------------

def sampling(sw, op, tol):
    f, i = sw.f, sw.i

    def c(name, *inputs, **args):
        sw.case(op, name, list(inputs), args, tol=tol)

    if op in ("pixel_shuffle", "pixel_unshuffle"):
        up = op == "pixel_shuffle"
        key = "upscale_factor" if up else "downscale_factor"
        shp = [1, 8, 2, 3] if up else [1, 2, 4, 6]
        c("contiguous", f(shp), **{key: 2})
        c("batched", f([2] + shp), **{key: 2})
        c("transposed", f(shp[:2] + shp[2:][::-1], view=[("transpose", [2, 3])]), **{key: 2})
        c("factor1", f(shp), **{key: 1})
        c("3d", f(shp[1:]), **{key: 2})
        c("size0", f([0] + shp[1:]), **{key: 2})
        c("special", T(SPECIALS * 8, shape=shp), **{key: 2})
        for dt in ("int64", "bool"):
            c(dt, i(shp, dt), **{key: 2})
        c("indivisible", f(shp), **{key: 3})
        c("rank2", f([4, 4]), **{key: 2})
    elif op == "unfold":
        c("contiguous", f([1, 2, 3, 3]), kernel_size=2)
        c("stride_padding", f([1, 1, 4, 4]), kernel_size=[2, 3], stride=2, padding=1)
        c("dilation", f([2, 1, 4, 4]), kernel_size=2, dilation=2)
        c("transposed", f([1, 2, 4, 3], view=[("transpose", [2, 3])]), kernel_size=2)
        c("unbatched", f([2, 3, 3]), kernel_size=2)
        c("size0", f([0, 1, 3, 3]), kernel_size=2)
        c("special", T(SPECIALS * 3, shape=[1, 2, 3, 3]), kernel_size=2)
        c("int64", i([1, 1, 3, 3], "int64"), kernel_size=2)
        c("too_large", f([1, 1, 2, 2]), kernel_size=3)
        c("rank5", f([1, 1, 1, 3, 3]), kernel_size=2)
    elif op == "fold":
        c("contiguous", f([1, 8, 4]), output_size=3, kernel_size=2)
        c("no_overlap", f([1, 4, 4]), output_size=4, kernel_size=2, stride=2)
        c("padding", f([1, 4, 9]), output_size=[3, 3], kernel_size=2, padding=1)
        c("dilation", f([2, 4, 4]), output_size=4, kernel_size=2, dilation=2)
        c("transposed", f([1, 4, 8], view=[("transpose", [1, 2])]), output_size=3, kernel_size=2)
        c("unbatched", f([4, 4]), output_size=3, kernel_size=2)
        c("size0", f([0, 4, 4]), output_size=3, kernel_size=2)
        c("special", T(SPECIALS * 2, shape=[1, 4, 3]), output_size=[2, 4], kernel_size=2)
        c("int64", i([1, 4, 4], "int64"), output_size=3, kernel_size=2)
        c("wrong_blocks", f([1, 4, 5]), output_size=3, kernel_size=2)
        c("wrong_channels", f([1, 5, 4]), output_size=3, kernel_size=2)
    elif op == "grid_sample":
        x = lambda: f([1, 2, 3, 4])  # noqa: E731
        g = lambda s=(1, 2, 3, 2), lo=-1.2, hi=1.2: f(list(s), lo, hi)  # noqa: E731
        # Each mode with each padding mode, align_corners alternating (both for each mode).
        for k, (mode, pad) in enumerate((m, p) for m in ("bilinear", "nearest")
                                        for p in ("zeros", "border", "reflection")):
            ac = k % 2 == 1
            c(f"{mode}_{pad}_{'ac' if ac else 'noac'}", x(), g(), mode=mode, padding_mode=pad,
              align_corners=ac)
        c("batched", f([2, 1, 3, 3]), g((2, 2, 2, 2)), align_corners=False)
        c("far_outside", x(), g(lo=-3.5, hi=3.5), padding_mode="reflection",
          align_corners=False)
        c("transposed", f([1, 2, 4, 3], view=[("transpose", [2, 3])]), g(), align_corners=True)
        c("5d", f([1, 1, 2, 3, 2]), f([1, 2, 2, 2, 3], -1.0, 1.0), align_corners=False)
        c("special_grid", x(), T([NAN, 0.0, INF, 0.5, -0.25, 0.25] * 2, shape=[1, 2, 3, 2]),
          align_corners=False)
        c("size0", f([0, 2, 3, 4]), g((0, 2, 3, 2)), align_corners=False)
        c("bicubic", x(), g(), mode="bicubic", align_corners=False)
        c("bad_mode", x(), g(), mode="linear")
        c("batch_mismatch", x(), g((2, 2, 3, 2)), align_corners=False)
        c("int64", i([1, 2, 3, 4], "int64"), g(), align_corners=False)
    elif op == "affine_grid":
        th = lambda n=1: f([n, 2, 3], -1.0, 1.0)  # noqa: E731
        c("contiguous", th(), size=[1, 1, 2, 3], align_corners=False)
        c("align_corners", th(2), size=[2, 3, 3, 2], align_corners=True)
        c("default", th(), size=[1, 1, 2, 2])
        c("size1", th(), size=[1, 1, 1, 3], align_corners=False)
        c("transposed", f([1, 3, 2], view=[("transpose", [1, 2])]), size=[1, 1, 2, 3],
          align_corners=False)
        c("3d", f([1, 3, 4]), size=[1, 1, 2, 2, 3], align_corners=False)
        c("special", T(SPECIALS, shape=[1, 2, 3]), size=[1, 1, 2, 2], align_corners=False)
        c("batch_mismatch", th(2), size=[1, 1, 2, 2], align_corners=False)
        c("bad_theta", f([1, 3, 3]), size=[1, 1, 2, 2], align_corners=False)
        c("int64", i([1, 2, 3], "int64"), size=[1, 1, 2, 2], align_corners=False)


def _own_rng(sampler):
    """The sampler with a generator seeded from the op's name: adding or editing one op's cases
    changes no other op's values (the other samplers share the family's generator)."""
    def run(sw, op, tol):
        sampler(type(sw)(sw.fam, np.random.default_rng(zlib.crc32(op.encode()))), op, tol)
    return run


SAMPLERS = {k: _own_rng(v) for k, v in
            {"matmul": matmul, "norm": norm, "loss_nn": loss_nn, "sampling": sampling}.items()}
