//! The math of the op table's CPU kernels (the twins of `shaders/math.wgsl`), one definition for
//! both float widths: a function written once over `F` (`both_widths!`, the width's float type),
//! or an f64 function whose float32 kernel is its value rounded (the oracle should be at least as
//! exact as the GPU kernels it checks), with f64-accurate algorithms for float64 tensors.

/// Defines each function twice from one body: over f32 (the first name) and over f64 (the
/// second), `F` naming the width's float type inside the body.
macro_rules! both_widths {
    ($($(#[$doc:meta])* fn $name:ident / $name64:ident ($($a:ident),*) $body:block)*) => {
        $(
            $(#[$doc])*
            pub fn $name($($a: f32),*) -> f32 {
                #[allow(dead_code)]
                type F = f32;
                $body
            }
            $(#[$doc])*
            pub fn $name64($($a: f64),*) -> f64 {
                #[allow(dead_code)]
                type F = f64;
                $body
            }
        )*
    };
}

pub fn rsqrt(x: f64) -> f64 {
    1.0 / x.sqrt()
}

/// erfinv: Giles' single-precision approximation as the starting point, then Newton's method
/// on f64 erf / erfc (each step squares the relative error: 1e-7, 1e-14, below f64's ulp).
pub fn erfinv(x: f64) -> f64 {
    if x.is_nan() || x.abs() > 1.0 {
        return f64::NAN;
    }
    if x.abs() == 1.0 {
        return x * f64::INFINITY;
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
    // The residual erf(y) - x; for |x| ≥ 1/2 as (1 - |x|) - erfc(|y|) (1 - |x| is exact there),
    // which keeps its digits where erf(y) and x agree to most of theirs.
    // Past float32's range (1 - |x| < 1e-7) the starting point is rougher: the steps go on until
    // they stop shrinking (rounding noise) or reach a few ulps of y.
    let (a, mut last) = (x.abs(), f64::INFINITY);
    for _ in 0..64 {
        let err = if a >= 0.5 { x.signum() * ((1.0 - a) - libm::erfc(y.abs())) } else { libm::erf(y) - x };
        let step = err / (std::f64::consts::FRAC_2_SQRT_PI * (-y * y).exp());
        y -= step;
        if step.abs() <= 4.0 * f64::EPSILON * y.abs() || step.abs() >= last {
            break;
        }
        last = step.abs();
    }
    y
}

/// ψ(x) as PyTorch defines it: -inf at +0, +inf at -0, NaN at negative integers and -inf. The
/// reflection ψ(x) = ψ(1 - x) - π / tan(π x) takes the tangent of the fractional part (exact in
/// f64, where π x is not); the recurrence ψ(x) = ψ(x + 1) - 1/x lifts x to 10 or more, where the
/// asymptotic series ln x - 1/(2x) - Σ B₂ₖ / (2k x²ᵏ), to x⁻¹⁴, is below f64's ulp off.
pub fn digamma(x: f64) -> f64 {
    if x == 0.0 {
        return if x.is_sign_negative() { f64::INFINITY } else { f64::NEG_INFINITY };
    }
    if x.is_nan() || x == f64::NEG_INFINITY || (x < 0.0 && x.trunc() == x) {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return f64::INFINITY;
    }
    if x < 0.0 {
        return digamma(1.0 - x) - std::f64::consts::PI / (std::f64::consts::PI * x.fract()).tan();
    }
    let (mut x, mut acc) = (x, 0.0);
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    // -B₂ₖ / (2k), k = 1…7.
    const C: [f64; 7] =
        [-1.0 / 12.0, 1.0 / 120.0, -1.0 / 252.0, 1.0 / 240.0, -1.0 / 132.0, 691.0 / 32760.0, -1.0 / 12.0];
    let z = 1.0 / (x * x);
    let series = C.iter().rev().fold(0.0, |s, &c| s * z + c) * z;
    acc + x.ln() - 0.5 / x + series
}

/// ψ'(x), `polygamma(1, x)`, as PyTorch computes it (its CPU kernel is the reference): for
/// x < 1/2 the reflection ψ'(x) = π² / sin²(π x) - ψ'(1 - x), with sin of the rounded product
/// π·x as PyTorch takes it (at a non-positive integer that product is not a multiple of π, so
/// the value is huge but finite; +inf at 0); six steps of the recurrence ψ'(x) = ψ'(x + 1) +
/// 1/x², then the asymptotic series 1/x + 1/(2x²) + 1/(6x³) - 1/(30x⁵) + 1/(42x⁷).
pub fn trigamma(x: f64) -> f64 {
    // -inf: NaN, as PyTorch (the reflection has no limit there).
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    let (mut x, mut acc, mut sgn) = (x, 0.0, 1.0);
    if x < 0.5 {
        let s = (std::f64::consts::PI * x).sin();
        acc = -std::f64::consts::PI * std::f64::consts::PI / (s * s);
        sgn = -1.0;
        x = 1.0 - x;
    }
    for _ in 0..6 {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    acc += (1.0 + 1.0 / (2.0 * x) + z * (1.0 / 6.0 - z * (1.0 / 30.0 - z * (1.0 / 42.0)))) / x;
    sgn * acc
}

/// `trigamma` of a float32: PyTorch computes it in float32, so below 1/2 the reflection term
/// π² / sin²(π x) is taken from the float32 product π·x (its sine correctly rounded, as the C
/// library's `sinf`) and float32 arithmetic; near and at the poles that product's rounding decides
/// the value. The rest, ψ'(1 - x), is the f64 `trigamma` rounded.
pub fn trigamma32(x: f32) -> f32 {
    if x.is_nan() || x >= 0.5 || x == f32::NEG_INFINITY {
        return trigamma(x as f64) as f32;
    }
    let pi = std::f32::consts::PI;
    let s = ((pi * x) as f64).sin() as f32;
    pi * pi / (s * s) - trigamma(1.0 - x as f64) as f32
}

pub fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        x.exp() / (1.0 + x.exp())
    }
}
pub fn logsigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}
/// `softplus` (beta 1, threshold 20).
pub fn softplus(x: f64) -> f64 {
    if x > 20.0 || x.is_nan() {
        x
    } else {
        x.exp().ln_1p()
    }
}
pub fn silu(x: f64) -> f64 {
    x * sigmoid(x)
}
pub fn gelu(x: f64) -> f64 {
    0.5 * x * (1.0 + libm::erf(x * std::f64::consts::FRAC_1_SQRT_2))
}
pub fn mish(x: f64) -> f64 {
    x * softplus(x).tanh()
}
pub fn selu(x: f64) -> f64 {
    1.0507009873554805 * if x > 0.0 || x.is_nan() { x } else { 1.6732632423543772 * x.exp_m1() }
}
/// `elu` (alpha 1; `celu` with alpha 1 is the same function).
pub fn elu(x: f64) -> f64 {
    if x > 0.0 || x.is_nan() {
        x
    } else {
        x.exp_m1()
    }
}
pub fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        return 1.0;
    }
    let px = std::f64::consts::PI * x;
    px.sin() / px
}
pub fn logit(x: f64) -> f64 {
    (x / (1.0 - x)).ln()
}
pub fn xlogy(x: f64, y: f64) -> f64 {
    if y.is_nan() {
        y
    } else if x == 0.0 {
        0.0
    } else {
        x * y.ln()
    }
}
/// log(eᵃ + eᵇ), NaN propagating, an infinite maximum kept.
pub fn logaddexp(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    if m.is_infinite() {
        return m;
    }
    m + (-(a - b).abs()).exp().ln_1p()
}
/// log₂(2ᵃ + 2ᵇ), as `logaddexp`.
pub fn logaddexp2(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    if m.is_infinite() {
        return m;
    }
    m + (-(a - b).abs()).exp2().ln_1p() / std::f64::consts::LN_2
}

both_widths! {
    /// PyTorch's sign: 0 for ±0 and NaN.
    fn sign / sign64 (x) {
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
    /// NaN stays NaN, as in PyTorch.
    fn relu6 / relu6_64 (x) {
        x.clamp(0.0, 6.0)
    }
    fn hardsigmoid / hardsigmoid64 (x) {
        (x + 3.0).clamp(0.0, 6.0) / 6.0
    }
    fn hardswish / hardswish64 (x) {
        x * (x + 3.0).clamp(0.0, 6.0) / 6.0
    }
    /// NaN when either is NaN.
    fn maximum / maximum64 (a, b) {
        if a.is_nan() || b.is_nan() {
            F::NAN
        } else {
            a.max(b)
        }
    }
    fn minimum / minimum64 (a, b) {
        if a.is_nan() || b.is_nan() {
            F::NAN
        } else {
            a.min(b)
        }
    }
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

/// The modified Bessel functions of the first kind of order 0 and 1, `I_order(|x|)` (I1 odd),
/// scaled by e^-|x| when `scaled`. Below 30 the power series Σ (x/2)^(2k+order) / (k! (k+order)!),
/// whose terms are all positive (no cancellation: f64's ulp per term); from 30 the asymptotic
/// series e^x / sqrt(2πx) · Σ (-1)ᵏ aₖ / xᵏ, aₖ = Π_{j≤k} (4 order² - (2j-1)²) / (k! 8ᵏ), summed to
/// its smallest term, which is below e^-60 there. NaN stays NaN; ±inf is NaN unscaled (e^x · 0,
/// as PyTorch computes it) and 0 scaled.
fn bessel_i(order: u8, x: f64, scaled: bool) -> f64 {
    let a = x.abs();
    let nu = order as f64;
    let v = if a.is_nan() {
        a
    } else if a.is_infinite() {
        if scaled {
            0.0
        } else {
            f64::NAN
        }
    } else if a < 30.0 {
        let q = 0.25 * a * a;
        let mut term = if order == 0 { 1.0 } else { 0.5 * a };
        let mut sum = term;
        let mut k = 1.0f64;
        while term > sum * 1e-17 {
            term *= q / (k * (k + nu));
            sum += term;
            k += 1.0;
        }
        if scaled {
            sum * (-a).exp()
        } else {
            sum
        }
    } else {
        let mu = 4.0 * nu * nu;
        let (mut term, mut sum, mut k) = (1.0f64, 1.0f64, 1.0f64);
        loop {
            let next = -term * (mu - (2.0 * k - 1.0).powi(2)) / (k * 8.0 * a);
            if next.abs() >= term.abs() || next.abs() < sum.abs() * 1e-17 {
                break;
            }
            sum += next;
            term = next;
            k += 1.0;
        }
        let p = sum / (2.0 * std::f64::consts::PI * a).sqrt();
        if scaled {
            p
        } else {
            // e^a split in two so that the product stays finite as long as the result is.
            p * (0.5 * a).exp() * (0.5 * a).exp()
        }
    };
    if order == 1 && x < 0.0 {
        -v
    } else {
        v
    }
}

pub fn i0(x: f64) -> f64 {
    bessel_i(0, x, false)
}
pub fn i0e(x: f64) -> f64 {
    bessel_i(0, x, true)
}
pub fn i1(x: f64) -> f64 {
    bessel_i(1, x, false)
}
pub fn i1e(x: f64) -> f64 {
    bessel_i(1, x, true)
}
