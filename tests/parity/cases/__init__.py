"""Fixture families, one module and one fixtures/<name>.json each. Random inputs come from one
seeded generator per family and are rounded to two decimals, so files stay small and stable."""

import math

import numpy as np

from fixture import T

FAMILIES = ["creation", "arith", "unary", "compare", "reduce", "matmul", "views", "cast",
            "unary_math", "rounding", "activations", "binary_math", "logical", "reduce_more", "nn", "conditional", "indexing", "conv", "scan_sort", "half",
            "sweep"]
# Composites of the TS layer (fixture_composites.py): written to fixtures/ts/, which the native
# Rust runner does not load.
TS_FAMILIES = ["shapes_more", "linalg", "composites", "sorting_ts", "resize_scatter", "index_put",
               "einops", "tensor_index", "unique", "expr", "seed_ops", "sweep_ts"]

NAN, INF = math.nan, math.inf


def rng_for(family):
    """One generator per family, seeded from its name: adding a case to one family leaves the
    others' inputs untouched."""
    return np.random.default_rng(sum(ord(c) * 31**i for i, c in enumerate(family)) % 2**32)


def F(rng, shape, lo=-3.0, hi=3.0, view=None):
    """A float32 input of the given base shape with values uniform in [lo, hi)."""
    n = math.prod(shape)
    return T(np.round(rng.uniform(lo, hi, n), 2).tolist(), "float32", shape, view)


def I(rng, shape, dtype="int32", lo=-9, hi=10, view=None):
    """An integer input (int32, int64 or uint8) with values in [lo, hi)."""
    n = math.prod(shape)
    return T(rng.integers(lo, hi, n).tolist(), dtype, shape, view)


def B(rng, shape, view=None):
    """A bool input."""
    n = math.prod(shape)
    return T(rng.integers(0, 2, n).tolist(), "bool", shape, view)


def unary_common(c, rng, op, lo=-3.0, hi=3.0):
    """The shape cases every elementwise unary op gets, with random float32 values in [lo, hi):
    2-d, a longer odd 1-d (past a vec4 or 8-wide step, with a tail), rank 0, size 0, transposed
    and expanded views."""

    def x(shape, view=None):
        return F(rng, shape, lo, hi, view)

    c("2d", op, [x([2, 3])])
    c("1d_long", op, [x([19])])
    c("rank0", op, [x([])])
    c("size0", op, [x([2, 0])])
    c("transposed", op, [x([3, 2], [("transpose", [0, 1])])])
    c("expanded", op, [x([3, 1], [("expand", [2, 3, 2])])])


def binary_common(c, rng, op, lo=-3.0, hi=3.0, ylo=None, yhi=None):
    """The shape cases every elementwise binary op gets (float32 operands, y's range defaulting
    to x's): broadcasting both ways, rank 0, size 0, non-contiguous operands, a shape mismatch."""
    ylo = lo if ylo is None else ylo
    yhi = hi if yhi is None else yhi

    def x(shape, view=None):
        return F(rng, shape, lo, hi, view)

    def y(shape, view=None):
        return F(rng, shape, ylo, yhi, view)

    c("same_shape", op, [x([2, 3]), y([2, 3])])
    c("1d_long", op, [x([19]), y([19])])
    c("broadcast_row", op, [x([2, 3]), y([3])])
    c("broadcast_col_row", op, [x([3, 1]), y([1, 4])])
    c("broadcast_lhs_smaller", op, [x([3]), y([2, 1, 3])])
    c("rank0_lhs", op, [x([]), y([2, 3])])
    c("rank0_both", op, [x([]), y([])])
    c("size0", op, [x([0, 3]), y([3])])
    c("transposed", op, [x([3, 2], [("t", [])]), y([2, 3])])
    c("expanded", op, [x([3, 1], [("expand", [3, 4])]), y([4], [("expand", [3, 4])])])
    c("broadcast_mismatch", op, [x([2, 3]), y([4])], error="ShapeError")


def pairs(values):
    """Every ordered pair of `values`, as two flat lists (x, y)."""
    return [a for a in values for _ in values], [b for _ in values for b in values]
