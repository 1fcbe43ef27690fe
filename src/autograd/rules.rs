//! Backward rules, side by side, written with differentiable ops (so they fuse, and so double
//! backward works). Rules recompute f(x) where they need it instead of saving outputs: a fused
//! kernel recomputes it for free, and no output is kept alive by its own grad_fn.
//! Each `match` lists every op: a new op-table row does not compile until it has a rule.

use super::ops::{self as o, binary_scalar as bs};
use crate::dtype::ScalarKind::Float;
use crate::error::Result;
use crate::ops::Op;
use crate::tensor::Tensor;

fn u(x: &Tensor, op: Op) -> Result<Tensor> {
    o::unary(x, op)
}
fn mul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    o::mul(a, b)
}
fn sc(x: &Tensor, s: f64) -> Result<Tensor> {
    o::scale(x, s)
}
/// `s - x`.
fn rsub(x: &Tensor, s: f64) -> Result<Tensor> {
    bs(x, Op::Sub, s, true, Float)
}
/// The float mask `cond` as 0/1 in `g`'s dtype.
fn mask(cond: Tensor, g: &Tensor) -> Result<Tensor> {
    o::to_dtype(&cond, g.dtype)
}
fn cmp(x: &Tensor, op: Op, s: f64) -> Result<Tensor> {
    x.binary_scalar(op, s, false)
}
fn zeros(g: &Tensor) -> Result<Tensor> {
    sc(g, 0.0)
}
/// `d`, with `value` where `x` is 0 (a derivative's limit there).
fn at_zero(x: &Tensor, d: &Tensor, value: f64) -> Result<Tensor> {
    let z = cmp(x, Op::Eq, 0.0)?;
    super::kernels::where_(
        &z,
        crate::tensor::TensorOrScalar::Scalar(value, Float),
        crate::tensor::TensorOrScalar::Tensor(d),
    )
}

/// `d`, with 0 where `cond` holds (a derivative PyTorch defines as 0 there, where the formula
/// would give NaN or inf).
fn zero_where(cond: &Tensor, d: &Tensor) -> Result<Tensor> {
    super::kernels::where_(
        cond,
        crate::tensor::TensorOrScalar::Scalar(0.0, Float),
        crate::tensor::TensorOrScalar::Tensor(d),
    )
}

/// The gradient of `op(x)` given the output gradient `g`.
pub(super) fn unary(op: Op, x: &Tensor, g: &Tensor) -> Result<Option<Tensor>> {
    use std::f64::consts::{LN_10, LN_2, PI};
    let two_over_sqrt_pi = std::f64::consts::FRAC_2_SQRT_PI;
    let r = match op {
        Op::Neg => o::scale(g, -1.0)?,
        Op::Exp => mul(g, &u(x, Op::Exp)?)?,
        // NOTE: PyTorch passes the gradient where the *output* is positive (0 at x = 0).
        Op::Relu => mul(g, &mask(cmp(x, Op::Gt, 0.0)?, g)?)?,
        Op::Abs => mul(g, &u(x, Op::Sign)?)?,
        Op::Square => mul(g, &sc(x, 2.0)?)?,
        Op::Ceil | Op::Floor | Op::Round | Op::Trunc | Op::Sign => zeros(g)?,
        Op::Positive | Op::Frac => g.clone(),
        Op::Sqrt => o::div(g, &sc(&u(x, Op::Sqrt)?, 2.0)?)?,
        Op::Log => o::div(g, x)?,
        Op::Sigmoid => {
            let s = u(x, Op::Sigmoid)?;
            mul(g, &mul(&s, &rsub(&s, 1.0)?)?)?
        }
        Op::Tanh => mul(g, &rsub(&u(&u(x, Op::Tanh)?, Op::Square)?, 1.0)?)?,
        Op::Sin => mul(g, &u(x, Op::Cos)?)?,
        Op::Cos => mul(g, &o::scale(&u(x, Op::Sin)?, -1.0)?)?,
        Op::Tan => mul(g, &o::add_scalar(&u(&u(x, Op::Tan)?, Op::Square)?, 1.0)?)?,
        Op::Asin => mul(g, &u(&rsub(&u(x, Op::Square)?, 1.0)?, Op::Rsqrt)?)?,
        Op::Acos => mul(g, &o::scale(&u(&rsub(&u(x, Op::Square)?, 1.0)?, Op::Rsqrt)?, -1.0)?)?,
        Op::Atan => o::div(g, &o::add_scalar(&u(x, Op::Square)?, 1.0)?)?,
        Op::Sinh => mul(g, &u(x, Op::Cosh)?)?,
        Op::Cosh => mul(g, &u(x, Op::Sinh)?)?,
        Op::Asinh => mul(g, &u(&o::add_scalar(&u(x, Op::Square)?, 1.0)?, Op::Rsqrt)?)?,
        Op::Acosh => mul(g, &u(&o::add_scalar(&u(x, Op::Square)?, -1.0)?, Op::Rsqrt)?)?,
        Op::Atanh => o::div(g, &rsub(&u(x, Op::Square)?, 1.0)?)?,
        Op::Expm1 => mul(g, &u(x, Op::Exp)?)?,
        Op::Exp2 => mul(g, &sc(&u(x, Op::Exp2)?, LN_2)?)?,
        Op::Log1p => o::div(g, &o::add_scalar(x, 1.0)?)?,
        Op::Log2 => o::div(g, &sc(x, LN_2)?)?,
        Op::Log10 => o::div(g, &sc(x, LN_10)?)?,
        Op::Rsqrt => mul(g, &sc(&bs(&u(x, Op::Rsqrt)?, Op::Pow, 3.0, false, Float)?, -0.5)?)?,
        Op::Reciprocal => mul(g, &o::scale(&u(&u(x, Op::Reciprocal)?, Op::Square)?, -1.0)?)?,
        Op::Erf => mul(g, &sc(&u(&o::scale(&u(x, Op::Square)?, -1.0)?, Op::Exp)?, two_over_sqrt_pi)?)?,
        Op::Erfc => mul(g, &sc(&u(&o::scale(&u(x, Op::Square)?, -1.0)?, Op::Exp)?, -two_over_sqrt_pi)?)?,
        Op::Erfinv => mul(g, &sc(&u(&u(&u(x, Op::Erfinv)?, Op::Square)?, Op::Exp)?, PI.sqrt() / 2.0)?)?,
        Op::Lgamma => mul(g, &u(x, Op::Digamma)?)?,
        Op::Digamma => mul(g, &u(x, Op::Trigamma)?)?,
        Op::Trigamma => return Err(super::no_grad_error("polygamma(2, ·)")),
        Op::Sinc => {
            // d/dx sin(πx)/(πx) = (cos(πx) - sinc(x)) / x, and 0 at x = 0 (evaluated at 1 there,
            // then masked, so no 0/0 appears).
            let nonzero = mask(cmp(x, Op::Ne, 0.0)?, g)?;
            let xs = o::add(x, &rsub(&nonzero, 1.0)?)?;
            let d = o::div(&o::sub(&u(&sc(&xs, PI)?, Op::Cos)?, &u(&xs, Op::Sinc)?)?, &xs)?;
            mul(g, &mul(&d, &nonzero)?)?
        }
        Op::Logit => o::div(g, &mul(x, &rsub(x, 1.0)?)?)?,
        Op::I0 => mul(g, &u(x, Op::SpecialI1)?)?,
        // i0e' = i1e - sign(x) i0e; i1' = i0 - i1 / x; i1e' = i0e - i1e (sign(x) + 1 / x); at 0
        // the last two are 1/2 (the limit; PyTorch's value).
        Op::SpecialI0e => mul(g, &o::sub(&u(x, Op::SpecialI1e)?, &mul(&u(x, Op::Sign)?, &u(x, Op::SpecialI0e)?)?)?)?,
        Op::SpecialI1 => {
            let d = o::sub(&u(x, Op::I0)?, &o::div(&u(x, Op::SpecialI1)?, x)?)?;
            mul(g, &at_zero(x, &d, 0.5)?)?
        }
        Op::SpecialI1e => {
            let k = o::add(&u(x, Op::Sign)?, &u(x, Op::Reciprocal)?)?;
            let d = o::sub(&u(x, Op::SpecialI0e)?, &mul(&u(x, Op::SpecialI1e)?, &k)?)?;
            mul(g, &at_zero(x, &d, 0.5)?)?
        }
        Op::Deg2rad => sc(g, PI / 180.0)?,
        Op::Rad2deg => sc(g, 180.0 / PI)?,
        Op::Silu => {
            let s = u(x, Op::Sigmoid)?;
            mul(g, &mul(&s, &o::add_scalar(&mul(x, &rsub(&s, 1.0)?)?, 1.0)?)?)?
        }
        Op::Gelu => {
            let cdf = sc(&o::add_scalar(&u(&sc(x, std::f64::consts::FRAC_1_SQRT_2)?, Op::Erf)?, 1.0)?, 0.5)?;
            let pdf = sc(&u(&sc(&u(x, Op::Square)?, -0.5)?, Op::Exp)?, 1.0 / (2.0 * PI).sqrt())?;
            mul(g, &o::add(&cdf, &mul(x, &pdf)?)?)?
        }
        Op::Mish => {
            let tsp = u(&u(x, Op::Softplus)?, Op::Tanh)?;
            let d = o::add(&tsp, &mul(&mul(x, &u(x, Op::Sigmoid)?)?, &rsub(&u(&tsp, Op::Square)?, 1.0)?)?)?;
            mul(g, &d)?
        }
        // softplus with threshold 20: the identity beyond it.
        Op::Softplus => {
            let s = u(x, Op::Sigmoid)?;
            let big = mask(cmp(x, Op::Gt, 20.0)?, g)?;
            mul(g, &o::add(&mul(&s, &rsub(&big, 1.0)?)?, &big)?)?
        }
        Op::Logsigmoid => mul(g, &u(&o::scale(x, -1.0)?, Op::Sigmoid)?)?,
        Op::Softsign => o::div(g, &u(&o::add_scalar(&u(x, Op::Abs)?, 1.0)?, Op::Square)?)?,
        Op::Tanhshrink => mul(g, &u(&u(x, Op::Tanh)?, Op::Square)?)?,
        Op::Hardsigmoid => {
            let inside = mask(cmp(&u(x, Op::Abs)?, Op::Lt, 3.0)?, g)?;
            // PyTorch's kernel multiplies by the float 1/6 (`1.0f / 6.0f`) in every dtype.
            mul(g, &sc(&inside, (1.0f32 / 6.0) as f64)?)?
        }
        Op::Hardswish => {
            // 0 at and below -3, x/3 + 1/2 strictly between, 1 from 3 on and at NaN (PyTorch's
            // conventions at the edges).
            let mid = zero_where(&cmp(x, Op::Le, -3.0)?, &o::add_scalar(&sc(x, 1.0 / 3.0)?, 0.5)?)?;
            let d = super::kernels::where_(
                &cmp(x, Op::Lt, 3.0)?,
                crate::tensor::TensorOrScalar::Tensor(&mid),
                crate::tensor::TensorOrScalar::Scalar(1.0, Float),
            )?;
            mul(g, &d)?
        }
        Op::Selu | Op::Elu | Op::Celu => {
            let (scale, alpha) = if op == Op::Selu { (1.0507009873554805, 1.6732632423543772) } else { (1.0, 1.0) };
            let pos = mask(cmp(x, Op::Gt, 0.0)?, g)?;
            // exp(min(x, 0)): the unused branch must not overflow to inf (0 · inf is NaN).
            let neg = sc(&u(&o::scale(&u(&o::scale(x, -1.0)?, Op::Relu)?, -1.0)?, Op::Exp)?, alpha)?;
            let d = o::add(&pos, &mul(&rsub(&pos, 1.0)?, &neg)?)?;
            mul(g, &sc(&d, scale)?)?
        }
        Op::Relu6 => {
            let inside = mul(&mask(cmp(x, Op::Gt, 0.0)?, g)?, &mask(cmp(x, Op::Lt, 6.0)?, g)?)?;
            mul(g, &inside)?
        }
        Op::BitwiseNot | Op::Isnan | Op::Isinf | Op::Isfinite | Op::Signbit | Op::LogicalNot => return Ok(None),
        Op::Add
        | Op::Sub
        | Op::Mul
        | Op::Div
        | Op::Maximum
        | Op::Minimum
        | Op::Pow
        | Op::Fmod
        | Op::Remainder
        | Op::FloorDivide
        | Op::BitwiseAnd
        | Op::BitwiseOr
        | Op::BitwiseXor
        | Op::Atan2
        | Op::Hypot
        | Op::Xlogy
        | Op::Logaddexp
        | Op::Logaddexp2
        | Op::Copysign
        | Op::Nextafter
        | Op::Eq
        | Op::Ne
        | Op::Lt
        | Op::Le
        | Op::Gt
        | Op::Ge
        | Op::LogicalAnd
        | Op::LogicalOr
        | Op::LogicalXor => crate::bail!(Torch, "{} is not a unary op", op.info().name),
    };
    Ok(Some(r))
}

type Pair = (Option<Tensor>, Option<Tensor>);

/// The gradients of `op(a, b)` (before summing over broadcast dims).
pub(super) fn binary(op: Op, a: &Tensor, b: &Tensor, g: &Tensor) -> Result<Pair> {
    let r = match op {
        Op::Add => (g.clone(), g.clone()),
        Op::Sub => (g.clone(), o::scale(g, -1.0)?),
        Op::Mul => (mul(g, b)?, mul(g, a)?),
        Op::Div => (o::div(g, b)?, o::scale(&o::div(&mul(g, a)?, &u(b, Op::Square)?)?, -1.0)?),
        Op::Maximum | Op::Minimum => {
            // Ties split the gradient evenly; each side loses it only where the other strictly
            // wins, so a NaN (no order) passes it to both sides, as PyTorch does.
            let (a_loses, b_loses) = if op == Op::Maximum { (Op::Lt, Op::Gt) } else { (Op::Gt, Op::Lt) };
            let half_tie = sc(&mask(a.binary(Op::Eq, b)?, g)?, 0.5)?;
            let ta = rsub(&o::add(&mask(a.binary(a_loses, b)?, g)?, &half_tie)?, 1.0)?;
            let tb = rsub(&o::add(&mask(a.binary(b_loses, b)?, g)?, &half_tie)?, 1.0)?;
            (mul(g, &ta)?, mul(g, &tb)?)
        }
        Op::Pow => {
            // PyTorch's conventions: d/da is 0 where b = 0 (also at a = 0); d/db = a^b log a is 0
            // where a = 0 and b >= 0 (and -inf or NaN where a = 0 and b < 0, as the formula gives).
            let da = mul(&mul(g, b)?, &o::binary(a, &o::add_scalar(b, -1.0)?, Op::Pow)?)?;
            let da = zero_where(&cmp(b, Op::Eq, 0.0)?, &da)?;
            let base_zero = cmp(a, Op::Eq, 0.0)?.binary(Op::LogicalAnd, &cmp(b, Op::Ge, 0.0)?)?;
            let db = mul(&mul(g, &o::binary(a, b, Op::Pow)?)?, &u(a, Op::Log)?)?;
            (da, zero_where(&base_zero, &db)?)
        }
        Op::Fmod => (g.clone(), mul(g, &o::scale(&u(&o::div(a, b)?, Op::Trunc)?, -1.0)?)?),
        // PyTorch differentiates remainder with its exact floor division.
        Op::Remainder => (g.clone(), mul(g, &o::scale(&a.binary(Op::FloorDivide, b)?, -1.0)?)?),
        Op::Atan2 => {
            // 0 for both at (0, 0), where the formula is 0/0 (PyTorch's value).
            let den = o::add(&u(a, Op::Square)?, &u(b, Op::Square)?)?;
            let origin = cmp(&den, Op::Eq, 0.0)?;
            let da = zero_where(&origin, &mul(g, &o::div(b, &den)?)?)?;
            let db = zero_where(&origin, &mul(g, &o::scale(&o::div(a, &den)?, -1.0)?)?)?;
            (da, db)
        }
        Op::Hypot => {
            let h = o::binary(a, b, Op::Hypot)?;
            (mul(g, &o::div(a, &h)?)?, mul(g, &o::div(b, &h)?)?)
        }
        Op::Xlogy => {
            let nz = mask(cmp(a, Op::Ne, 0.0)?, g)?;
            (mul(g, &o::binary(&nz, b, Op::Xlogy)?)?, mul(g, &o::div(a, b)?)?)
        }
        Op::Logaddexp | Op::Logaddexp2 => {
            let s = u(&o::sub(a, b)?, Op::Sigmoid)?;
            let s =
                if op == Op::Logaddexp2 { u(&sc(&o::sub(a, b)?, std::f64::consts::LN_2)?, Op::Sigmoid)? } else { s };
            (mul(g, &s)?, mul(g, &rsub(&s, 1.0)?)?)
        }
        Op::Copysign => {
            let ratio = mul(&u(a, Op::Sign)?, &u(&o::binary(&u(b, Op::Sign)?, b, Op::Copysign)?, Op::Sign)?)?;
            (mul(g, &ratio)?, zeros(g)?)
        }
        Op::FloorDivide => (zeros(g)?, zeros(g)?),
        // PyTorch's: `input`'s gradient passes where the result moved off `other` (where they are
        // equal the result is `other`), the step itself is not differentiated.
        Op::Nextafter => (mul(g, &mask(a.binary(Op::Ne, b)?, g)?)?, zeros(g)?),
        Op::BitwiseAnd
        | Op::BitwiseOr
        | Op::BitwiseXor
        | Op::Eq
        | Op::Ne
        | Op::Lt
        | Op::Le
        | Op::Gt
        | Op::Ge
        | Op::LogicalAnd
        | Op::LogicalOr
        | Op::LogicalXor => return Ok((None, None)),
        Op::Neg
        | Op::Exp
        | Op::Relu
        | Op::Abs
        | Op::Square
        | Op::Ceil
        | Op::Floor
        | Op::Round
        | Op::Trunc
        | Op::Sign
        | Op::Positive
        | Op::Frac
        | Op::BitwiseNot
        | Op::Sqrt
        | Op::Log
        | Op::Sigmoid
        | Op::Tanh
        | Op::Sin
        | Op::Cos
        | Op::Tan
        | Op::Asin
        | Op::Acos
        | Op::Atan
        | Op::Sinh
        | Op::Cosh
        | Op::Asinh
        | Op::Acosh
        | Op::Atanh
        | Op::Expm1
        | Op::Exp2
        | Op::Log1p
        | Op::Log2
        | Op::Log10
        | Op::Rsqrt
        | Op::Reciprocal
        | Op::Erf
        | Op::Erfc
        | Op::Erfinv
        | Op::Lgamma
        | Op::Digamma
        | Op::Trigamma
        | Op::Sinc
        | Op::Logit
        | Op::I0
        | Op::SpecialI0e
        | Op::SpecialI1
        | Op::SpecialI1e
        | Op::Deg2rad
        | Op::Rad2deg
        | Op::Silu
        | Op::Gelu
        | Op::Mish
        | Op::Softplus
        | Op::Logsigmoid
        | Op::Softsign
        | Op::Tanhshrink
        | Op::Hardsigmoid
        | Op::Hardswish
        | Op::Selu
        | Op::Elu
        | Op::Celu
        | Op::Relu6
        | Op::Isnan
        | Op::Isinf
        | Op::Isfinite
        | Op::Signbit
        | Op::LogicalNot => crate::bail!(Torch, "{} is not a binary op", op.info().name),
    };
    Ok((Some(r.0), Some(r.1)))
}

/// Gradients of `matmul(a, b)`, with PyTorch's 1-D promotion and batch broadcasting.
pub(super) fn matmul(a: &Tensor, b: &Tensor, g: &Tensor) -> Result<Pair> {
    let a2 = if a.ndim() == 1 { o::unsqueeze(a, 0)? } else { a.clone() };
    let b2 = if b.ndim() == 1 { o::unsqueeze(b, 1)? } else { b.clone() };
    let mut g2 = g.clone();
    if a.ndim() == 1 {
        g2 = o::unsqueeze(&g2, if b.ndim() == 1 { 0 } else { -2 })?;
    }
    if b.ndim() == 1 {
        g2 = o::unsqueeze(&g2, -1)?;
    }
    // NOTE: the gradient of a transposed matrix operand (`x @ w.t()`, F.linear) is computed in
    // that layout, `(gᵀ a)ᵀ` rather than `aᵀ g` (the same sums), so the leaf behind the view gets
    // a contiguous gradient — PyTorch's gradient layout contract — and the optimizer can copy it
    // as it is instead of running a kernel to make it contiguous.
    let transposed = |t: &Tensor| t.ndim() == 2 && t.layout.strides == [1, t.shape()[0]] && t.shape()[1] > 1;
    let plain = a2.ndim() == 2 && b2.ndim() == 2;
    let ga = if plain && transposed(&a2) {
        o::transpose(&o::matmul(&b2, &o::transpose(&g2, -2, -1)?)?, -2, -1)?
    } else {
        o::matmul(&g2, &o::transpose(&b2, -2, -1)?)?
    };
    let gb = if plain && transposed(&b2) {
        o::transpose(&o::matmul(&o::transpose(&g2, -2, -1)?, &a2)?, -2, -1)?
    } else {
        o::matmul(&o::transpose(&a2, -2, -1)?, &g2)?
    };
    let back = |t: Tensor, like: &Tensor, like2: &Tensor| -> Result<Tensor> {
        let t = o::sum_to(&t, like2.shape())?;
        o::reshape(&t, &like.shape().iter().map(|&s| s as i64).collect::<Vec<_>>())
    };
    Ok((Some(back(ga, a, &a2)?), Some(back(gb, b, &b2)?)))
}
