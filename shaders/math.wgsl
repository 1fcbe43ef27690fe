// Special functions for the op table (f32 unless named _i32). Each has a CPU twin in
// src/ops/math.rs. Builtins are used only where they are accurate on every adapter; specials
// (NaN, ±inf, ±0) are decided by bit tests, since Tint may assume finite math.

const LN2: f32 = 0.6931471805599453;
const PI: f32 = 3.141592653589793;

fn expm1_f32(x: f32) -> f32 {
    if (isnan_f32(x)) { return x; }
    if (x < -17.0) { return -1.0; }
    // Near 0 a series (exp(x) - 1 would cancel); elsewhere the subtraction loses < 3e-6.
    if (abs(x) < 0.05) { return x * (1.0 + x * (0.5 + x * (0.16666666666666666 + x * (0.041666666666666664 + x * 0.008333333333333333)))); }
    return exp_f32(x) - 1.0;
}

fn log1p_f32(x: f32) -> f32 {
    if (isnan_f32(x)) { return x; }
    if (x < -1.0) { return nan_like(x); }
    if (x == -1.0) { return inf_like(-1.0 - abs(x)); }
    // Near 0 a series: WGSL bounds log's error only absolutely near 1.
    if (abs(x) < 0.05) { return x * (1.0 + x * (-0.5 + x * (0.3333333333333333 + x * (-0.25 + x * (0.2 + x * -0.16666666666666666))))); }
    return log_f32(1.0 + x);
}

fn log2_f32(x: f32) -> f32 { return log_f32(x) * 1.4426950408889634; }
fn log10_f32(x: f32) -> f32 { return log_f32(x) * 0.4342944819032518; }

fn exp2_f32(x: f32) -> f32 {
    if (isnan_f32(x)) { return x; }
    if (x >= 128.0) { return inf_like(1.0 + abs(x)); }
    if (x < -150.0) { return 0.0; }
    return exp2(x);
}

fn rsqrt_f32(x: f32) -> f32 {
    if (isnan_f32(x) || x < 0.0) { return nan_like(x); }
    if (x == 0.0) { return inf_like(x); } // -0 gives -inf, as PyTorch
    if (isinf_f32(x)) { return 0.0; }
    return 1.0 / sqrt(x);
}

fn sinh_f32(x: f32) -> f32 {
    if (isnan_f32(x)) { return x; }
    let ax = abs(x);
    var r: f32;
    if (ax > 20.0) {
        r = exp_f32(ax - LN2); // e^x / 2 without overflowing e^x first
    } else {
        let e = expm1_f32(ax);
        r = 0.5 * (e + e / (e + 1.0));
    }
    return select(r, -r, x < 0.0);
}

fn cosh_f32(x: f32) -> f32 {
    if (isnan_f32(x)) { return x; }
    let ax = abs(x);
    if (ax > 20.0) { return exp_f32(ax - LN2); }
    let e = exp(ax);
    return 0.5 * (e + 1.0 / e);
}

fn tan_f32(x: f32) -> f32 { return sincos_f32(x, false) / sincos_f32(x, true); }

fn asinh_f32(x: f32) -> f32 {
    if (isnan_f32(x) || isinf_f32(x)) { return x; }
    let ax = abs(x);
    var r: f32;
    if (ax > 1e8) {
        r = log(ax) + LN2;
    } else {
        r = log1p_f32(ax + ax * ax / (1.0 + sqrt(1.0 + ax * ax)));
    }
    return select(r, -r, x < 0.0);
}

fn acosh_f32(x: f32) -> f32 {
    if (isnan_f32(x) || x < 1.0) { return nan_like(x); }
    if (isinf_f32(x)) { return x; }
    if (x > 1e8) { return log(x) + LN2; }
    let t = x - 1.0;
    return log1p_f32(t + sqrt(2.0 * t + t * t));
}

fn atanh_f32(x: f32) -> f32 {
    if (isnan_f32(x) || abs(x) > 1.0) { return nan_like(x); }
    if (abs(x) == 1.0) { return inf_like(x); }
    return 0.5 * log1p_f32(2.0 * x / (1.0 - x));
}

// atan on [-1, 1] by a minimax polynomial after halving the argument twice is overkill; the
// classic reduction to [0, tan(π/12)] keeps the error near 1 ulp.
fn atan_f32(x: f32) -> f32 {
    if (isnan_f32(x)) { return x; }
    var ax = abs(x);
    var offset = 0.0;
    var invert = false;
    if (ax > 1.0) { ax = 1.0 / ax; invert = true; }
    if (ax > 0.2679491924311227) { // tan(π/12)
        ax = (ax * 1.7320508075688772 - 1.0) / (ax + 1.7320508075688772);
        offset = 0.5235987755982988; // π/6
    }
    let z = ax * ax;
    var r = offset + ax * (1.0 + z * (-0.33333333333 + z * (0.2 + z * (-0.14285714 + z * (0.11111111 + z * -0.0909090909)))));
    if (invert) { r = 1.5707963267948966 - r; }
    return select(r, -r, x < 0.0);
}

fn asin_f32(x: f32) -> f32 {
    if (isnan_f32(x) || abs(x) > 1.0) { return nan_like(x); }
    return atan2_f32(x, sqrt((1.0 - x) * (1.0 + x)));
}

fn acos_f32(x: f32) -> f32 {
    if (isnan_f32(x) || abs(x) > 1.0) { return nan_like(x); }
    return atan2_f32(sqrt((1.0 - x) * (1.0 + x)), x);
}

fn signbit_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x80000000u) != 0u; }
fn signbit_i32(x: i32) -> bool { return x < 0; }

// C99 atan2, including signed zeros and infinities.
fn atan2_f32(y: f32, x: f32) -> f32 {
    if (isnan_f32(x) || isnan_f32(y)) { return nan_like(x + y); }
    let neg_x = signbit_f32(x);
    if (y == 0.0) {
        let r = select(0.0, PI, neg_x);
        return select(r, -r, signbit_f32(y));
    }
    if (isinf_f32(x)) {
        if (isinf_f32(y)) {
            let r = select(0.7853981633974483, 2.356194490192345, neg_x);
            return select(r, -r, y < 0.0);
        }
        let r = select(0.0, PI, neg_x);
        return select(r, -r, y < 0.0);
    }
    if (x == 0.0 || isinf_f32(y)) { return select(1.5707963267948966, -1.5707963267948966, y < 0.0); }
    let base = atan_f32(abs(y / x));
    var r = select(base, PI - base, x < 0.0);
    return select(r, -r, y < 0.0);
}

// erf without a division or a branch (scripts/fit-erf.py fits the coefficients): z·P(z²) for
// |z| <= 0.5 and ±(1 - erfc) beyond, erfc(|z|) = exp(Q(|z|)); both are computed and one is
// selected, so warps with inputs on both sides do not run both paths one after the other.
// Float32 evaluation: 8.7e-8 absolute, 1.7e-7 relative error.
const ERF_C: f32 = 0.5;

fn erf_small(z: f32) -> f32 {
    let t = z * z;
    return z * (1.1283791065216064 + t * (-0.37612608075141907 + t * (0.11282823234796524
        + t * (-0.026757188141345978 + t * 0.004717998206615448))));
}

// erfc(a) for ERF_C < a (Q is fitted on [0.5, 4]); 0 from 4 on, where erfc < 2^-25.
fn erfc_big(a: f32) -> f32 {
    let t = min(a, 4.0);
    let q = 5.052521373727359e-05 + t * (-1.1288186311721802 + t * (-0.6349841952323914
        + t * (-0.10619284212589264 + t * (0.023565169423818588 + t * (-0.0034963316284120083
        + t * (0.0002765760291367769 + t * -5.74752630200237e-06))))));
    return select(exp(q), 0.0, a >= 4.0);
}

// NaN stays NaN through the polynomial (NaN > ERF_C is false).
fn erf_f32(x: f32) -> f32 {
    let e = 1.0 - erfc_big(abs(x));
    return select(erf_small(x), select(e, -e, x < 0.0), abs(x) > ERF_C);
}

// erfc(x) for x >= 0: the Chebyshev fit of Numerical Recipes' erfcc, fractional error < 1.2e-7
// everywhere (so the tail keeps its relative accuracy).
fn erfc_tail(ax: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.5 * ax);
    let p = -ax * ax - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806
        + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
    return t * exp_f32(p);
}

fn erfc_f32(x: f32) -> f32 {
    if (isnan_f32(x)) { return x; }
    if (x < 0.5) { return 1.0 - erf_f32(x); }
    return erfc_tail(x);
}

// Giles' single-precision erfinv (2010).
fn erfinv_f32(x: f32) -> f32 {
    if (isnan_f32(x) || abs(x) > 1.0) { return nan_like(x); }
    if (abs(x) == 1.0) { return inf_like(x); }
    var w = -log((1.0 - x) * (1.0 + x));
    var p: f32;
    if (w < 5.0) {
        w = w - 2.5;
        p = 2.81022636e-08;
        p = 3.43273939e-07 + p * w;
        p = -3.5233877e-06 + p * w;
        p = -4.39150654e-06 + p * w;
        p = 0.00021858087 + p * w;
        p = -0.00125372503 + p * w;
        p = -0.00417768164 + p * w;
        p = 0.246640727 + p * w;
        p = 1.50140941 + p * w;
    } else {
        w = sqrt(w) - 3.0;
        p = -0.000200214257;
        p = 0.000100950558 + p * w;
        p = 0.00134934322 + p * w;
        p = -0.00367342844 + p * w;
        p = 0.00573950773 + p * w;
        p = -0.0076224613 + p * w;
        p = 0.00943887047 + p * w;
        p = 1.00167406 + p * w;
        p = 2.83297682 + p * w;
    }
    return p * x;
}

// log|Γ(x)| for x > 0: shift to x >= 8 by the recurrence, then Stirling's series (stable in f32,
// unlike Lanczos sums, whose terms cancel).
fn lgamma_pos(x0: f32) -> f32 {
    var x = x0;
    var prod = 1.0;
    while (x < 8.0) {
        prod *= x;
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    let series = (0.083333333333 - z * (0.0027777777778 - z * 0.00079365079365)) / x;
    return (x - 0.5) * log(x) - x + 0.9189385332046727 + series - log(prod);
}

fn lgamma_f32(x: f32) -> f32 {
    if (isnan_f32(x)) { return x; }
    if (isinf_f32(x)) { return inf_like(1.0); }
    if (x == 1.0 || x == 2.0) { return 0.0; }
    if (x >= 0.5) { return lgamma_pos(x); }
    if (floor(x) == x) { return inf_like(1.0); } // poles at 0, -1, -2, ...
    let s = abs(sincos_f32(PI * x, false));
    return log(PI / s) - lgamma_pos(1.0 - x);
}

// ψ(x): recurrence up to x >= 6, then the asymptotic series; reflection for x < 0.
fn digamma_f32(x0: f32) -> f32 {
    if (isnan_f32(x0)) { return x0; }
    if (x0 == 0.0) { return inf_like(-x0); } // -inf at +0, +inf at -0, as PyTorch
    if (isinf_f32(x0)) { return select(x0, nan_like(x0), x0 < 0.0); }
    var x = x0;
    var acc = 0.0;
    if (x < 0.0) {
        if (floor(x) == x) { return nan_like(x); }
        // ψ(1 - x) - ψ(x) = π cot(πx)
        acc = -PI / tan_f32(PI * x);
        x = 1.0 - x;
    }
    while (x < 6.0) {
        acc -= 1.0 / x;
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    return acc + log(x) - 0.5 / x - z * (0.083333333333 - z * (0.0083333333333 - z * 0.0039682539683));
}

// sin(p) of an f32 p, reduced exactly: k = round(p / π), r = p - k·π with k split into a
// multiple of 4096 and the rest (12 bits each) and π into three 12-bit parts and an f32 tail, so
// every product is exact, summed with each rounding error carried (TwoSum); sin(p) = (-1)^k sin(r).
// Exact for |p / π| < 2²⁴; beyond, `sincos_f32`'s reduction.
fn sin_exact_f32(p: f32) -> f32 {
    let k = round(p * 0.3183098861837907);
    if (abs(k) >= 16777216.0) { return sincos_f32(p, false); }
    let kh = round(k * 0.000244140625) * 4096.0;
    let kl = k - kh;
    var terms = array<f32, 7>(-kh * 3.1416015625, -kl * 3.1416015625, kh * 8.907169103622437e-06,
        kl * 8.907169103622437e-06, kh * 1.7412276065442711e-09, kl * 1.7412276065442711e-09,
        -k * 1.2446743939339977e-13);
    var s = p;
    var e = 0.0;
    for (var i = 0; i < 7; i++) {
        let t = terms[i];
        let u = s + t;
        let b = u - s;
        e += (s - (u - b)) + (t - b);
        s = u;
    }
    let v = sincos_f32(s + e, false);
    return select(v, -v, (i32(k) & 1) != 0);
}

// ψ'(x) (polygamma(1, x)): recurrence up to x >= 6, then the asymptotic series; reflection
// ψ'(1 - x) + ψ'(x) = π² / sin²(πx) below 1/2, with sin of the f32 product π·x as PyTorch takes
// it (at a non-positive integer that product is not a multiple of π: a huge finite value, +inf
// at 0).
fn trigamma_f32(x0: f32) -> f32 {
    if (isnan_f32(x0)) { return x0; }
    // -inf: NaN, as PyTorch (the reflection has no limit there).
    if (isinf_f32(x0) && x0 < 0.0) { return nan_like(x0); }
    var x = x0;
    var acc = 0.0;
    var sgn = 1.0;
    if (x < 0.5) {
        let s = sin_exact_f32(PI * x);
        acc = PI * PI / (s * s);
        sgn = -1.0;
        x = 1.0 - x;
    }
    var r = 0.0;
    while (x < 6.0) {
        r += 1.0 / (x * x);
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    r += 1.0 / x + 0.5 * z + z / x * (0.16666666666666666 - z * (0.03333333333333333 - z * (0.023809523809523808 - z * 0.03333333333333333)));
    return acc + sgn * r;
}

fn sigmoid_log_f32(x: f32) -> f32 { // logsigmoid
    if (isnan_f32(x)) { return x; }
    if (x >= 0.0) { return -log1p_f32(exp_f32(-x)); }
    return x - log1p_f32(exp_f32(x));
}

fn softplus_f32(x: f32) -> f32 {
    if (x > 20.0 || isnan_f32(x)) { return x; }
    return log1p_f32(exp_f32(x));
}

// gelu = x/2 · (1 + erf(x/√2)), 1 + erf from erf's pieces: 1 + z·P(z²) near 0, 2 - erfc or erfc
// beyond (for x < 0 without the cancellation of 1 + erf). -inf gives NaN, as PyTorch.
fn gelu_f32(x: f32) -> f32 {
    let z = x * 0.7071067811865476;
    let a = abs(z);
    let e = erfc_big(a);
    return 0.5 * x * select(1.0 + erf_small(z), select(2.0 - e, e, z < 0.0), a > ERF_C);
}

fn selu_f32(x: f32) -> f32 {
    return 1.0507009873554805 * select(1.6732632423543772 * expm1_f32(x), x, x > 0.0 || isnan_f32(x));
}

fn elu_f32(x: f32) -> f32 { return select(expm1_f32(x), x, x > 0.0 || isnan_f32(x)); }

fn relu6_f32(x: f32) -> f32 { return select(select(x, 0.0, x < 0.0), 6.0, x > 6.0); }
fn relu6_i32(x: i32) -> i32 { return clamp(x, 0, 6); }

fn hardsigmoid_f32(x: f32) -> f32 { return relu6_f32(x + 3.0) / 6.0; }

fn sinc_f32(x: f32) -> f32 {
    if (x == 0.0) { return 1.0; }
    let px = PI * x;
    return sincos_f32(px, false) / px;
}

fn logit_f32(x: f32) -> f32 { return log_f32(x / (1.0 - x)); }

fn truthy_f32(x: f32) -> bool { return x != 0.0 || isnan_f32(x); }
fn truthy_i32(x: i32) -> bool { return x != 0; }

fn isinf_i32(x: i32) -> bool { return false; }
fn isfinite_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u; }
fn isfinite_i32(x: i32) -> bool { return true; }

fn ceil_i32(x: i32) -> i32 { return x; }
fn ceil_f32(x: f32) -> f32 { return ceil(x); }
fn floor_i32(x: i32) -> i32 { return x; }
fn floor_f32(x: f32) -> f32 { return floor(x); }
fn round_i32(x: i32) -> i32 { return x; }
fn round_f32(x: f32) -> f32 { return round(x); }
fn trunc_i32(x: i32) -> i32 { return x; }
fn trunc_f32(x: f32) -> f32 { return trunc(x); }
fn sign_i32(x: i32) -> i32 { return sign(x); }
fn sign_f32(x: f32) -> f32 { return select(sign(x), 0.0, isnan_f32(x)); } // sign(NaN) = 0, as PyTorch

fn hypot_f32(a: f32, b: f32) -> f32 {
    if (isinf_f32(a) || isinf_f32(b)) { return inf_like(1.0); }
    if (isnan_f32(a) || isnan_f32(b)) { return nan_like(a + b); }
    let m = max(abs(a), abs(b));
    if (m == 0.0) { return 0.0; }
    let x = a / m;
    let y = b / m;
    return m * sqrt(x * x + y * y);
}

fn xlogy_f32(x: f32, y: f32) -> f32 {
    if (isnan_f32(y)) { return y; }
    if (x == 0.0) { return 0.0; }
    return x * log_f32(y);
}

fn logaddexp_f32(a: f32, b: f32) -> f32 {
    if (isnan_f32(a) || isnan_f32(b)) { return nan_like(a + b); }
    let m = max(a, b);
    if (isinf_f32(m)) { return m; }
    return m + log1p_f32(exp_f32(-abs(a - b)));
}

fn logaddexp2_f32(a: f32, b: f32) -> f32 {
    if (isnan_f32(a) || isnan_f32(b)) { return nan_like(a + b); }
    let m = max(a, b);
    if (isinf_f32(m)) { return m; }
    return m + log1p_f32(exp2_f32(-abs(a - b))) * 1.4426950408889634;
}

fn copysign_f32(a: f32, b: f32) -> f32 {
    return bitcast<f32>((bitcast<u32>(a) & 0x7fffffffu) | (bitcast<u32>(b) & 0x80000000u));
}

// C's nextafterf, on the bits: the neighbour of `a` toward `b`; `b` when they are equal (±0
// included), NaN when either is. Ordered as sign-magnitude integers, so that subnormal operands
// keep their order where an adapter flushes them in float comparisons.
fn nextafter_f32(a: f32, b: f32) -> f32 {
    let ua = bitcast<u32>(a);
    let ub = bitcast<u32>(b);
    let ma = ua & 0x7fffffffu;
    let mb = ub & 0x7fffffffu;
    if (ma > 0x7f800000u || mb > 0x7f800000u) { return nan_like(a); }
    if (ua == ub || (ma == 0u && mb == 0u)) { return b; }
    if (ma == 0u) { return bitcast<f32>((ub & 0x80000000u) | 1u); }
    let neg = (ua >> 31u) == 1u;
    let ka = select(i32(ma), -i32(ma), neg);
    let kb = select(i32(mb), -i32(mb), (ub >> 31u) == 1u);
    // Toward a larger key is away from zero for a positive `a`, toward it for a negative one.
    return bitcast<f32>(select(ua - 1u, ua + 1u, (kb > ka) != neg));
}

// Exact fmod (C's): long division on the mantissas; a - b·trunc(a/b) loses the remainder when
// the quotient rounds.
fn fmod_f32(a: f32, b: f32) -> f32 {
    if (isinf_f32(a) || isnan_f32(a) || isnan_f32(b) || b == 0.0) { return nan_like(a + b); }
    if (isinf_f32(b)) { return a; }
    let sx = bitcast<u32>(a) & 0x80000000u;
    let ux = bitcast<u32>(a) & 0x7fffffffu;
    let uy = bitcast<u32>(b) & 0x7fffffffu;
    if (ux < uy) { return a; }
    var ex = i32(ux >> 23u);
    let ey = i32(uy >> 23u);
    if (ey == 0) { return a - b * trunc(a / b); } // subnormal divisor: adapters flush these anyway
    var mx = (ux & 0x7fffffu) | 0x800000u;
    let my = (uy & 0x7fffffu) | 0x800000u;
    for (; ex > ey; ex--) {
        if (mx >= my) { mx -= my; }
        if (mx == 0u) { return bitcast<f32>(sx); }
        mx <<= 1u;
    }
    if (mx >= my) { mx -= my; }
    if (mx == 0u) { return bitcast<f32>(sx); }
    while (mx < 0x800000u) {
        mx <<= 1u;
        ex--;
    }
    if (ex <= 0) { return bitcast<f32>(sx); } // would be subnormal: flushed, as the adapter would
    return bitcast<f32>(sx | (u32(ex) << 23u) | (mx & 0x7fffffu));
}
fn fmod_i32(a: i32, b: i32) -> i32 { return select(a % b, 0, b == 0); }

fn remainder_f32(a: f32, b: f32) -> f32 {
    let r = fmod_f32(a, b);
    if (isinf_f32(b) && !isnan_f32(a) && !isinf_f32(a)) {
        return select(a, b, a != 0.0 && signbit_f32(a) != signbit_f32(b));
    }
    return select(r, r + b, r != 0.0 && ((r < 0.0) != (b < 0.0)));
}
fn remainder_i32(a: i32, b: i32) -> i32 {
    if (b == 0) { return 0; }
    let r = a % b;
    return select(r, r + b, r != 0 && ((r < 0) != (b < 0)));
}

// PyTorch's div_floor for floats, step for step (so NaN/inf/signed-zero results agree).
fn floor_divide_f32(a: f32, b: f32) -> f32 {
    if (b == 0.0) { return a / b; }
    let m = fmod_f32(a, b);
    var d = (a - m) / b;
    if (m != 0.0 && ((b < 0.0) != (m < 0.0))) { d -= 1.0; }
    if (d == 0.0) { return copysign_f32(0.0, a / b); }
    let f = floor(d);
    return select(f, f + 1.0, d - f > 0.5);
}
fn floor_divide_i32(a: i32, b: i32) -> i32 {
    if (b == 0) { return 0; }
    let q = a / b;
    return select(q, q - 1, (a % b != 0) && ((a < 0) != (b < 0)));
}

// Modified Bessel functions of the first kind I0, I1 and their scaled forms e^-|x| I (i0, i0e,
// i1, i1e), Abramowitz & Stegun 9.8.1–9.8.4 (relative error below 6e-7): a polynomial in
// (x/3.75)² below 3.75, e^|x| / sqrt(|x|) times a polynomial in 3.75/|x| above (e^|x| applied
// in two halves, so I0(90) ≈ 1.2e38 does not overflow on the way). src/ops/math.rs is the twin.
fn bessel_i_f32(order: u32, x: f32, scaled: bool) -> f32 {
    if (isnan_f32(x)) { return x; }
    let a = abs(x);
    var v: f32;
    if (a < 3.75) {
        let t = (a / 3.75) * (a / 3.75);
        if (order == 0u) {
            v = 1.0 + t * (3.5156229 + t * (3.0899424 + t * (1.2067492 + t * (0.2659732 + t * (0.0360768 + t * 0.0045813)))));
        } else {
            v = a * (0.5 + t * (0.87890594 + t * (0.51498869 + t * (0.15084934 + t * (0.02658733 + t * (0.00301532 + t * 0.00032411))))));
        }
        if (scaled) { v *= exp_f32(-a); }
    } else if (isinf_f32(a)) {
        // ±inf: NaN unscaled (e^x · 0, as PyTorch computes it), 0 scaled.
        v = select(nan_like(a), 0.0, scaled);
    } else {
        let t = 3.75 / a;
        if (order == 0u) {
            v = 0.39894228 + t * (0.01328592 + t * (0.00225319 + t * (-0.00157565 + t * (0.00916281 + t * (-0.02057706 + t * (0.02635537 + t * (-0.01647633 + t * 0.00392377)))))));
        } else {
            v = 0.39894228 + t * (-0.03988024 + t * (-0.00362018 + t * (0.00163801 + t * (-0.01031555 + t * (0.02282967 + t * (-0.02895312 + t * (0.01787654 + t * -0.00420059)))))));
        }
        v /= sqrt(a);
        if (!scaled) {
            let h = exp_f32(0.5 * a);
            v = (v * h) * h;
        }
    }
    return select(v, -v, order == 1u && x < 0.0);
}
