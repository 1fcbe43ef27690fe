//! CPU twins of `shaders/math.wgsl`: the special functions of the op table, computed in f64 and
//! rounded to f32 (the oracle should be at least as exact as the GPU kernels it checks).

fn d(f: fn(f64) -> f64) -> impl Fn(f32) -> f32 {
    move |x| f(x as f64) as f32
}

pub fn expm1(x: f32) -> f32 {
    d(f64::exp_m1)(x)
}
pub fn log1p(x: f32) -> f32 {
    d(f64::ln_1p)(x)
}
pub fn log2(x: f32) -> f32 {
    d(f64::log2)(x)
}
pub fn log10(x: f32) -> f32 {
    d(f64::log10)(x)
}
pub fn exp2(x: f32) -> f32 {
    d(f64::exp2)(x)
}
pub fn rsqrt(x: f32) -> f32 {
    (1.0 / (x as f64).sqrt()) as f32
}
pub fn sinh(x: f32) -> f32 {
    d(f64::sinh)(x)
}
pub fn cosh(x: f32) -> f32 {
    d(f64::cosh)(x)
}
pub fn tan(x: f32) -> f32 {
    d(f64::tan)(x)
}
pub fn asinh(x: f32) -> f32 {
    d(f64::asinh)(x)
}
pub fn acosh(x: f32) -> f32 {
    d(f64::acosh)(x)
}
pub fn atanh(x: f32) -> f32 {
    d(f64::atanh)(x)
}
pub fn erf(x: f32) -> f32 {
    libm::erf(x as f64) as f32
}
pub fn erfc(x: f32) -> f32 {
    libm::erfc(x as f64) as f32
}

/// erfinv by Newton's method on f64 erf from Giles' starting point.
pub fn erfinv(x: f32) -> f32 {
    let x = x as f64;
    if x.is_nan() || x.abs() > 1.0 {
        return f32::NAN;
    }
    if x.abs() == 1.0 {
        return (x * f64::INFINITY) as f32;
    }
    let mut w = -((1.0 - x) * (1.0 + x)).ln();
    let mut p;
    if w < 5.0 {
        w -= 2.5;
        p = 2.81022636e-08;
        for c in [
            3.43273939e-07,
            -3.5233877e-06,
            -4.39150654e-06,
            0.00021858087,
            -0.00125372503,
            -0.00417768164,
            0.246640727,
            1.50140941,
        ] {
            p = c + p * w;
        }
    } else {
        w = w.sqrt() - 3.0;
        p = -0.000200214257;
        for c in [
            0.000100950558,
            0.00134934322,
            -0.00367342844,
            0.00573950773,
            -0.0076224613,
            0.00943887047,
            1.00167406,
            2.83297682,
        ] {
            p = c + p * w;
        }
    }
    let mut y = p * x;
    for _ in 0..2 {
        let err = libm::erf(y) - x;
        y -= err / (std::f64::consts::FRAC_2_SQRT_PI * (-y * y).exp());
    }
    y as f32
}

pub fn lgamma(x: f32) -> f32 {
    libm::lgamma(x as f64) as f32
}

/// ψ(x) as PyTorch defines it: -inf at +0, +inf at -0, NaN at negative integers.
pub fn digamma(x: f32) -> f32 {
    let mut x = x as f64;
    if x == 0.0 {
        return if x.is_sign_negative() { f32::INFINITY } else { f32::NEG_INFINITY };
    }
    if x.is_nan() || x == f64::NEG_INFINITY || (x < 0.0 && x.floor() == x) {
        return f32::NAN;
    }
    if x == f64::INFINITY {
        return f32::INFINITY;
    }
    let mut acc = 0.0;
    if x < 0.0 {
        acc = -std::f64::consts::PI / (std::f64::consts::PI * x).tan();
        x = 1.0 - x;
    }
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    (acc + x.ln() - 0.5 / x - z * (1.0 / 12.0 - z * (1.0 / 120.0 - z * (1.0 / 252.0 - z * (1.0 / 240.0 - z / 132.0)))))
        as f32
}

/// ψ'(x), `polygamma(1, x)`.
pub fn trigamma(x: f32) -> f32 {
    let mut x = x as f64;
    // -inf: NaN, as PyTorch (the reflection has no limit there).
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f32::NAN;
    }
    let (mut acc, mut sgn) = (0.0, 1.0);
    if x < 0.5 {
        if x.floor() == x {
            return f32::INFINITY;
        }
        let s = (std::f64::consts::PI * x).sin();
        acc = std::f64::consts::PI * std::f64::consts::PI / (s * s);
        sgn = -1.0;
        x = 1.0 - x;
    }
    let mut r = 0.0;
    while x < 10.0 {
        r += 1.0 / (x * x);
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    r += 1.0 / x + 0.5 * z + z / x * (1.0 / 6.0 - z * (1.0 / 30.0 - z * (1.0 / 42.0 - z / 30.0)));
    (acc + sgn * r) as f32
}

pub fn sigmoid(x: f32) -> f32 {
    sigmoid64(x as f64) as f32
}
pub fn sigmoid64(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        x.exp() / (1.0 + x.exp())
    }
}
pub fn logsigmoid(x: f32) -> f32 {
    let x = x as f64;
    (if x >= 0.0 { -(-x).exp().ln_1p() } else { x - x.exp().ln_1p() }) as f32
}
pub fn softplus(x: f32) -> f32 {
    if x > 20.0 || x.is_nan() {
        x
    } else {
        (x as f64).exp().ln_1p() as f32
    }
}
pub fn silu(x: f32) -> f32 {
    (x as f64 * sigmoid(x) as f64) as f32
}
pub fn gelu(x: f32) -> f32 {
    let x = x as f64;
    (0.5 * x * (1.0 + libm::erf(x * std::f64::consts::FRAC_1_SQRT_2))) as f32
}
pub fn mish(x: f32) -> f32 {
    (x as f64 * (softplus(x) as f64).tanh()) as f32
}
pub fn selu(x: f32) -> f32 {
    let x = x as f64;
    (1.0507009873554805 * if x > 0.0 || x.is_nan() { x } else { 1.6732632423543772 * x.exp_m1() }) as f32
}
pub fn elu(x: f32) -> f32 {
    if x > 0.0 || x.is_nan() {
        x
    } else {
        expm1(x)
    }
}
pub fn relu6(x: f32) -> f32 {
    x.clamp(0.0, 6.0) // NaN stays NaN, as in PyTorch
}
pub fn hardsigmoid(x: f32) -> f32 {
    relu6(x + 3.0) / 6.0
}
pub fn hardswish(x: f32) -> f32 {
    x * relu6(x + 3.0) / 6.0
}
pub fn sinc(x: f32) -> f32 {
    if x == 0.0 {
        return 1.0;
    }
    let px = std::f64::consts::PI * x as f64;
    (px.sin() / px) as f32
}
pub fn logit(x: f32) -> f32 {
    let x = x as f64;
    (x / (1.0 - x)).ln() as f32
}
/// PyTorch's sign: 0 for ±0 and NaN.
pub fn sign(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else if x.is_nan() {
        0.0
    } else {
        x
    }
}
pub fn truthy(x: f32) -> bool {
    x != 0.0
}
pub fn atan2(y: f32, x: f32) -> f32 {
    (y as f64).atan2(x as f64) as f32
}
pub fn hypot(a: f32, b: f32) -> f32 {
    (a as f64).hypot(b as f64) as f32
}
pub fn xlogy(x: f32, y: f32) -> f32 {
    if y.is_nan() {
        y
    } else if x == 0.0 {
        0.0
    } else {
        (x as f64 * (y as f64).ln()) as f32
    }
}
pub fn logaddexp(a: f32, b: f32) -> f32 {
    let (a, b) = (a as f64, b as f64);
    let m = a.max(b);
    if a.is_nan() || b.is_nan() {
        return f32::NAN;
    }
    if m.is_infinite() {
        return m as f32;
    }
    (m + (-(a - b).abs()).exp().ln_1p()) as f32
}
pub fn logaddexp2(a: f32, b: f32) -> f32 {
    let (a, b) = (a as f64, b as f64);
    let m = a.max(b);
    if a.is_nan() || b.is_nan() {
        return f32::NAN;
    }
    if m.is_infinite() {
        return m as f32;
    }
    (m + (-(a - b).abs()).exp2().ln_1p() / std::f64::consts::LN_2) as f32
}
pub fn fmod(a: f32, b: f32) -> f32 {
    a % b
}
/// PyTorch's `remainder` (the sign of the divisor) and `div_floor` for floats, in f32 and, for
/// float64 tensors, in f64: one definition for both widths.
macro_rules! python_division {
    ($t:ty, $remainder:ident, $floor_divide:ident) => {
        pub fn $remainder(a: $t, b: $t) -> $t {
            let r = a % b;
            if b.is_infinite() && a.is_finite() {
                return if a != 0.0 && a.is_sign_negative() != b.is_sign_negative() { b } else { a };
            }
            if r != 0.0 && (r < 0.0) != (b < 0.0) {
                r + b
            } else {
                r
            }
        }
        pub fn $floor_divide(a: $t, b: $t) -> $t {
            if b == 0.0 {
                return a / b;
            }
            let m = a % b;
            let mut d = (a - m) / b;
            if m != 0.0 && (b < 0.0) != (m < 0.0) {
                d -= 1.0;
            }
            if d == 0.0 {
                return (0.0 as $t).copysign(a / b);
            }
            let f = d.floor();
            if d - f > 0.5 {
                f + 1.0
            } else {
                f
            }
        }
    };
}
python_division!(f32, remainder, floor_divide);
python_division!(f64, remainder64, floor_divide64);
/// `softplus` (beta 1, threshold 20) in f64.
pub fn softplus64(x: f64) -> f64 {
    if x > 20.0 || x.is_nan() {
        x
    } else {
        x.exp().ln_1p()
    }
}
/// `elu` (alpha 1) in f64.
pub fn elu64(x: f64) -> f64 {
    if x > 0.0 || x.is_nan() {
        x
    } else {
        x.exp_m1()
    }
}
/// `relu6` in f64 (NaN stays NaN).
pub fn relu6_64(x: f64) -> f64 {
    x.clamp(0.0, 6.0)
}
/// `logaddexp` (`base2`: `logaddexp2`) in f64.
pub fn logaddexp64(a: f64, b: f64, base2: bool) -> f64 {
    let m = a.max(b);
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    if m.is_infinite() {
        return m;
    }
    let d = -(a - b).abs();
    if base2 {
        m + d.exp2().ln_1p() / std::f64::consts::LN_2
    } else {
        m + d.exp().ln_1p()
    }
}
pub fn fmod_i(a: i32, b: i32) -> i32 {
    if b == 0 {
        0
    } else {
        a.wrapping_rem(b)
    }
}
pub fn remainder_i(a: i32, b: i32) -> i32 {
    if b == 0 {
        return 0;
    }
    let r = a.wrapping_rem(b);
    if r != 0 && (r < 0) != (b < 0) {
        r + b
    } else {
        r
    }
}
pub fn floor_divide_i(a: i32, b: i32) -> i32 {
    if b == 0 {
        return 0;
    }
    let q = a.wrapping_div(b);
    if a.wrapping_rem(b) != 0 && (a < 0) != (b < 0) {
        q - 1
    } else {
        q
    }
}

// Modified Bessel functions of the first kind, I0 and I1, and their exponentially scaled forms
// (Abramowitz & Stegun 9.8.1–9.8.4; relative error below 6e-7): a polynomial in (x/3.75)² below
// 3.75, e^|x| / sqrt(|x|) times a polynomial in 3.75/|x| above. The same formulas as the WGSL
// (math.wgsl), in f64.
const I0_SMALL: [f64; 7] = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813];
const I1_SMALL: [f64; 7] = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532, 0.00032411];
const I0_LARGE: [f64; 9] =
    [0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706, 0.02635537, -0.01647633, 0.00392377];
const I1_LARGE: [f64; 9] =
    [0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555, 0.02282967, -0.02895312, 0.01787654, -0.00420059];

fn poly(c: &[f64], t: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &k| acc * t + k)
}

/// `I_order(|x|)`, scaled by e^-|x| when `scaled`; NaN stays NaN.
fn bessel_i(order: u8, x: f32, scaled: bool) -> f32 {
    let a = (x as f64).abs();
    let (small, large) = if order == 0 { (&I0_SMALL, &I0_LARGE) } else { (&I1_SMALL, &I1_LARGE) };
    let v = if a < 3.75 {
        let t = a / 3.75;
        let p = poly(small, t * t) * if order == 0 { 1.0 } else { a };
        if scaled {
            p * (-a).exp()
        } else {
            p
        }
    } else if a.is_infinite() {
        // NaN unscaled (e^x · 0, as PyTorch computes it), 0 scaled.
        if scaled {
            0.0
        } else {
            f64::NAN
        }
    } else {
        let p = poly(large, 3.75 / a) / a.sqrt();
        if scaled {
            p
        } else {
            p * a.exp()
        }
    };
    let v = v as f32;
    if order == 1 && x < 0.0 {
        -v
    } else {
        v
    }
}

pub fn i0(x: f32) -> f32 {
    bessel_i(0, x, false)
}
pub fn i0e(x: f32) -> f32 {
    bessel_i(0, x, true)
}
pub fn i1(x: f32) -> f32 {
    bessel_i(1, x, false)
}
pub fn i1e(x: f32) -> f32 {
    bessel_i(1, x, true)
}
