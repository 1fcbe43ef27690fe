"""Fits the coefficients of the float32 erf used by the WebGPU kernels (`erf_small` and
`erfc_big` in shaders/math.wgsl, behind `erf_f32` and `gelu_f32`; the CPU backend computes erf in
float64) and checks the gelu built on it against PyTorch's float32 gelu. FIT_C, FIT_P and
FIT_Q override the split point and the two degrees (defaults: the kernel's 0.5, 5, 8).

erf(z) = z·P(z²) for |z| ≤ C, and sign(z)·(1 − exp(Q(|z|))) beyond (|z| clamped to 4, where
erfc < 2^-25 so the result rounds to ±1; the kernel takes erfc = 0 from there). P is fitted for
relative error, Q (≈ log erfc) for absolute error of erf (weight erfc). Both are minimax by Lawson's iteratively reweighted least
squares in float64 on Chebyshev nodes; the coefficients are then rounded to float32 and the
float32 evaluation (Horner with FMA, as GPUs contract it) is checked.

    .venv-torch/bin/python scripts/fit-erf.py          # prints the errors and the WGSL constants
"""

import os

import numpy as np
import torch
from scipy.special import erf, erfc

C = float(os.environ.get("FIT_C", 0.5))  # |z| at which the exp form takes over
DEG_P = int(os.environ.get("FIT_P", 5))  # coefficients of P (in z²)
DEG_Q = int(os.environ.get("FIT_Q", 8))  # coefficients of Q (in |z|)
TOP = 4.0


def cheb(a, b, n=6000):
    k = np.arange(n)
    return (a + b) / 2 + (b - a) / 2 * np.cos(np.pi * (k + 0.5) / n)


def lawson(target, basis, xs, weight, iters=300):
    """Coefficients minimising max |weight·(basis·c − target)| over xs, and that maximum."""
    a = basis(xs)
    lam = np.full(len(xs), 1.0 / len(xs))
    for _ in range(iters):
        s = np.sqrt(lam) * weight
        c, *_ = np.linalg.lstsq(a * s[:, None], s * target, rcond=None)
        e = np.abs(weight * (a @ c - target))
        lam = lam * e
        lam /= lam.sum()
    return c, e.max()


def fit():
    zs = cheb(1e-6, C)
    p, ep = lawson(erf(zs) / zs, lambda z: np.stack([z ** (2 * i) for i in range(DEG_P)], 1), zs, zs / erf(zs))
    zs = cheb(C, TOP)
    q, eq = lawson(np.log(erfc(zs)), lambda z: np.stack([z**i for i in range(DEG_Q)], 1), zs, erfc(zs))
    print(f"float64 fit: P relative error {ep:.2e}, Q absolute error of erf {eq:.2e}")
    return p.astype(np.float32), q.astype(np.float32)


def f32(x):
    return np.asarray(x, dtype=np.float64).astype(np.float32)


def fma(a, b, c):
    """float32 fused multiply-add (the float64 product of two float32 values is exact)."""
    return f32(a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64))


def horner(coefs, t):
    acc = np.full_like(t, coefs[-1])
    for c in coefs[-2::-1]:
        acc = fma(acc, t, np.full_like(t, c))
    return acc


def tail(a, q):
    """erfc(a) for a > C: exp(Q(a)), 0 from TOP on (exp correctly rounded)."""
    e = f32(np.exp(horner(q, np.minimum(a, np.float32(TOP))).astype(np.float64)))
    return np.where(a >= np.float32(TOP), np.float32(0), e)


def erf_fit(z, p, q):
    """The kernel's float32 erf, operation by operation (exp correctly rounded)."""
    z = f32(z)
    a = np.abs(z)
    small = f32(z * horner(p, f32(z * z)))
    e = tail(a, q)
    big = f32(np.float32(1) - e)
    big = np.where(z < 0, -big, big)
    return np.where(a > np.float32(C), big, small)


def gelu_fit(x, p, q):
    """The kernel's gelu: 1 + erf from the pieces (2 − erfc or erfc beyond C, no cancellation)."""
    x = f32(x)
    z = f32(x * np.float32(0.7071067811865476))
    a = np.abs(z)
    small = f32(np.float32(1) + f32(z * horner(p, f32(z * z))))
    e = tail(a, q)
    big = np.where(z < 0, e, f32(np.float32(2) - e))
    return f32(f32(np.float32(0.5) * x) * np.where(a > np.float32(C), big, small))


def main():
    p, q = fit()
    z = f32(np.linspace(-6, 6, 400001))
    ez = erf_fit(z, p, q).astype(np.float64) - erf(z.astype(np.float64))
    print(f"float32 erf: max absolute error {np.abs(ez).max():.2e}, "
          f"relative {np.abs(ez / np.where(z == 0, 1, erf(z.astype(np.float64)))).max():.2e}")
    # The grid of the Rust test (tests/gelu.rs): x_i = -12 + 24 i / 200000 in float64, then float32.
    x = f32(-12 + 24 * np.arange(200001) / 200000)
    ref = torch.nn.functional.gelu(torch.from_numpy(x)).numpy().astype(np.float64)
    g = gelu_fit(x, p, q).astype(np.float64)
    big = np.abs(ref) > 0.1
    print(f"gelu vs PyTorch float32: max absolute {np.abs(g - ref).max():.2e}, "
          f"relative where |gelu| > 0.1 {np.abs((g - ref)[big] / ref[big]).max():.2e}")
    name = lambda c: f"{float(c)!r}"
    print("P:", ", ".join(name(c) for c in p))
    print("Q:", ", ".join(name(c) for c in q))


if __name__ == "__main__":
    main()
