"""Unary math with float32 results (integer and bool inputs promote to float32): inverse trig,
hyperbolic, the exp/log family, reciprocals, erf/erfc/erfinv, lgamma/digamma, angle conversion,
sinc, logit — over each op's domain, its edges and poles, NaN/±inf, wide and tiny arguments."""

from cases import INF, NAN, B, I, unary_common
from fixture import T

# Per op: random range (lo, hi); `edges`: domain edges and exact points, added to NaN, ±inf, ±0;
# `wide`: large arguments (overflow, saturation, naive formulas that overflow inside); `tiny`:
# small arguments where a naive formula loses every digit (asinh(x) = log(x + sqrt(x² + 1)) gives
# 0, exp(x) - 1 gives 1e-6 ± 6e-8) — checked with atol 0 so the relative error shows; `ints`:
# range of the integer inputs.
OPS = {
    "acos": dict(r=(-1.0, 1.0), edges=[1.0, -1.0, 0.5, -0.5, 1.0001, -1.5, 2.0], ints=(-1, 2)),
    "asin": dict(r=(-1.0, 1.0), edges=[1.0, -1.0, 0.5, -0.5, 1.0001, -1.5, 2.0], ints=(-1, 2),
                 tiny=[1e-6, -1e-6, 1e-20]),
    "atan": dict(r=(-5.0, 5.0), edges=[1.0, -1.0], wide=[1e10, -1e10, 1e30, 3.4e38, -3.4e38],
                 tiny=[1e-6, -1e-6, 1e-20]),
    "acosh": dict(r=(1.0, 10.0), edges=[1.0, 0.5, -1.0, 1.0001, 2.0], wide=[1e10, 1e30, 3e38],
                  ints=(0, 10)),
    "asinh": dict(r=(-5.0, 5.0), edges=[1.0, -1.0], wide=[1e10, -1e10, 3e38, -3e38],
                  tiny=[1e-6, -1e-6, 1e-3, 1e-20]),
    "atanh": dict(r=(-0.99, 0.99), edges=[1.0, -1.0, 1.5, -2.0, 0.5], wide=[0.9999, -0.99999],
                  tiny=[1e-6, -1e-6, 1e-3, 1e-20], ints=(-1, 2)),
    "sinh": dict(r=(-5.0, 5.0), wide=[20.0, -20.0, 88.0, 89.0, 90.0, -90.0],
                 tiny=[1e-6, -1e-6, 1e-3, 1e-20]),
    "cosh": dict(r=(-5.0, 5.0), wide=[20.0, -20.0, 88.0, 89.0, 90.0, -90.0]),
    # NOTE: tan is steep near ±pi/2 (1.5 is 0.07 away); 10 and 100 need range reduction.
    "tan": dict(r=(-1.4, 1.4), edges=[1.0, -1.0, 1.5, -1.5], wide=[10.0, -10.0, 100.0],
                tiny=[1e-6, -1e-6, 1e-20]),
    "expm1": dict(r=(-5.0, 5.0), wide=[-100.0, -20.0, 20.0, 88.0, 88.7, 89.0],
                  tiny=[1e-6, -1e-6, 1e-3, -1e-3, 1e-20]),
    "log1p": dict(r=(-0.99, 9.0), edges=[-1.0, -2.0, -0.5, 1.0], wide=[1e10, 3e38],
                  tiny=[1e-6, -1e-6, 1e-3, -1e-3, 1e-20], ints=(-2, 10)),
    "log2": dict(r=(0.01, 9.0), edges=[-1.0, 1.0, 2.0, 1024.0, 0.125],
                 wide=[2e-38, 1e-10, 1e10, 3e38], ints=(0, 10), uint8=True),
    "log10": dict(r=(0.01, 9.0), edges=[-1.0, 1.0, 10.0, 1000.0, 0.001],
                  wide=[2e-38, 1e-10, 1e10, 3e38], ints=(0, 10)),
    # exp2(-126) is the smallest normal float32; exp2(-200) underflows to an exact 0.
    "exp2": dict(r=(-9.0, 9.0), edges=[1.0, -1.0, 10.0, -3.0],
                 wide=[-126.0, -200.0, 127.0, 127.9, 128.0, 200.0], uint8=True),
    "rsqrt": dict(r=(0.01, 9.0), edges=[-1.0, 1.0, 4.0, 0.25], wide=[2e-38, 1e-10, 1e10, 3e38],
                  ints=(0, 10)),
    # 1/3e38 would be denormal (GPUs flush those), so the wide values stop at 1e30.
    "reciprocal": dict(r=(-3.0, 3.0), edges=[1.0, -1.0, 3.0, 0.1], wide=[1e-30, -1e-30, 1e30],
                       uint8=True),
    "erf": dict(r=(-3.0, 3.0), wide=[4.0, -4.0, 10.0, -10.0, 100.0], tiny=[1e-7, -1e-7, 1e-20]),
    # erfc's tail: erfc(9) = 4.1e-37 is still normal; erfc(100) underflows to an exact 0.
    "erfc": dict(r=(-3.0, 3.0), wide=[-4.0, -10.0, 100.0], tail=[2.0, 4.0, 5.0, 7.0, 9.0]),
    "erfinv": dict(r=(-0.99, 0.99), edges=[1.0, -1.0, 1.5, -2.0, 0.5],
                   wide=[0.999, -0.9999, 0.99999], tiny=[1e-7, -1e-7, 1e-20], ints=(-1, 2)),
    "lgamma": dict(r=(-4.0, 6.0), edges=[1.0, 2.0, -1.0, -2.0, 0.5, -0.5, 3.0],
                   wide=[1e10, 1e30, 3e38, -100.5, 1e-20]),
    "digamma": dict(r=(-4.0, 6.0), edges=[1.0, -1.0, -2.0, 0.5, -0.5, 1.4616321],
                    wide=[1e10, 1e30, -100.5, 1e-20]),
    # Not at the poles (negative integers), where PyTorch's float32 result is not the float64 one.
    "trigamma": dict(r=(0.1, 6.0), edges=[1.0, 0.5, -0.5, -1.5, 3.0],
                     wide=[1e10, 1e30, -100.5, 1e-20], ints=(1, 10)),
    "deg2rad": dict(r=(-360.0, 360.0), edges=[180.0, 90.0, -45.0], wide=[1e30, 3e38]),
    "rad2deg": dict(r=(-7.0, 7.0), edges=[3.14159265, -1.0], wide=[1e30, 3e38], uint8=True),
    "sinc": dict(r=(-3.0, 3.0), edges=[1.0, -1.0, 0.5, 2.0, 1e-5], wide=[100.5, 1e4]),
    "logit": dict(r=(0.01, 0.99), edges=[1.0, 0.5, -0.5, 1.5, 0.999, 0.001], ints=(0, 2)),
    # Bessel I0, I1 and the scaled forms (torch.special.*): both sides of the approximations'
    # switch at 3.75; wide arguments up to overflow (I0(100) is inf in float32).
    **{op: dict(r=(-6.0, 6.0), edges=[3.75, -3.75, 3.7, 1.0, -2.0], wide=[20.0, -35.0, 60.0, 88.0, 100.0])
       for op in ("i0", "special_i0e", "special_i1", "special_i1e")},
}


def build(fam, rng):
    c = fam.case
    for op, spec in OPS.items():
        lo, hi = spec["r"]
        unary_common(c, rng, op, lo, hi)
        c("specials", op, [T([NAN, INF, -INF, 0.0, -0.0] + spec.get("edges", []))])
        if "wide" in spec:
            c("wide", op, [T(spec["wide"])])
        if "tiny" in spec:
            c("tiny", op, [T(spec["tiny"])], tol=(1e-5, 0.0))
        if "tail" in spec:
            c("tail", op, [T(spec["tail"])], tol=(1e-5, 0.0))
        ilo, ihi = spec.get("ints", (-9, 10))
        c("int32", op, [I(rng, [2, 3], "int32", ilo, ihi)])
        c("int64", op, [I(rng, [4], "int64", ilo, ihi)])
        if spec.get("uint8"):
            c("uint8", op, [I(rng, [4], "uint8", max(ilo, 0), 20)])
        c("bool", op, [B(rng, [4])])
