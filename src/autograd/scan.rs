//! Differentiable scans and sorts. `cumsum`'s gradient is the reversed cumulative sum of `g`;
//! `cumprod` and `logcumsumexp` use exact pairwise forms over an `[n, n]` matrix per row (correct
//! with zeros and without overflow, at O(n²) memory per row); the values of `cummax`/`cummin`/
//! `sort` are gathers of the input at the kernels' indices, so their gradients are scatters.

use super::kernels::{gather, node, where_};
use super::needs_grad;
use super::ops as o;
use crate::dtype::{DType, ScalarKind};
use crate::error::Result;
use crate::ops::Op;
use crate::shape::wrap_dim;
use crate::tensor::{Tensor, TensorOrScalar};

use super::kernels::flip;

/// A `[n, n]` bool mask over (k, i) where `rule(k, i)` holds.
fn pair_mask(n: usize, device: crate::backend::Device, rule: impl Fn(usize, usize) -> bool) -> Result<Tensor> {
    let words: Vec<u32> = (0..n * n).map(|p| rule(p / n, p % n) as u32).collect();
    Tensor::from_words(&words, &[n, n], DType::Bool, device)
}

/// Σ_{i ≥ k} of `m[.., k, i]` (the upper triangle of the last two dims, summed over `i`).
fn sum_upper(m: &Tensor, n: usize) -> Result<Tensor> {
    let upper = pair_mask(n, m.device(), |k, i| i >= k)?;
    let z = TensorOrScalar::Scalar(0.0, ScalarKind::Float);
    o::sum(&where_(&upper, TensorOrScalar::Tensor(m), z)?, &[-1], false)
}

pub fn cumsum(x: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    let mut y = x.cumsum(dim, dtype)?;
    if needs_grad(&[x]) {
        let (d, xd) = (wrap_dim(dim, x.ndim().max(1))?, x.dtype);
        node("CumsumBackward0", &[x], &[], &mut y, move |g| {
            if g.ndim() == 0 {
                return Ok(vec![Some(o::to_dtype(g, xd)?)]);
            }
            let r = flip(&cumsum(&flip(g, d)?, d as i64, None)?, d)?;
            Ok(vec![Some(o::to_dtype(&r, xd)?)])
        });
    }
    Ok(y)
}

pub fn cumprod(x: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    let mut y = x.cumprod(dim, dtype)?;
    if needs_grad(&[x]) {
        let xs = x.clone();
        let d = wrap_dim(dim, x.ndim().max(1))?;
        node("CumprodBackward0", &[x], &[x], &mut y, move |g| {
            if g.ndim() == 0 {
                return Ok(vec![Some(o::to_dtype(g, xs.dtype)?)]);
            }
            // dL/dx_k = Σ_{i≥k} g_i Π_{j≤i, j≠k} x_j: row k of Z is x with x_k replaced by 1.
            let n = xs.shape()[d];
            let xm = o::movedim(&o::to_dtype(&xs, g.dtype)?, &[d as i64], &[-1])?;
            let gm = o::movedim(g, &[d as i64], &[-1])?;
            let diag = pair_mask(n, xs.device(), |k, j| k == j)?;
            let one = TensorOrScalar::Scalar(1.0, ScalarKind::Float);
            let z = where_(&diag, one, TensorOrScalar::Tensor(&o::unsqueeze(&xm, -2)?))?;
            let c = cumprod(&z, -1, None)?;
            let r = sum_upper(&o::mul(&c, &o::unsqueeze(&gm, -2)?)?, n)?;
            Ok(vec![Some(o::to_dtype(&o::movedim(&r, &[-1], &[d as i64])?, xs.dtype)?)])
        });
    }
    Ok(y)
}

pub fn logcumsumexp(x: &Tensor, dim: i64) -> Result<Tensor> {
    let mut y = x.logcumsumexp(dim)?;
    if needs_grad(&[x]) {
        let (xs, ys) = (x.clone(), y.detach());
        let d = wrap_dim(dim, x.ndim().max(1))?;
        node("LogcumsumexpBackward0", &[x], &[x], &mut y, move |g| {
            if g.ndim() == 0 {
                return Ok(vec![Some(g.clone())]);
            }
            // dL/dx_k = Σ_{i≥k} g_i exp(x_k - y_i), and x_k <= y_i there: no overflow.
            let n = xs.shape()[d];
            let xm = o::movedim(&xs, &[d as i64], &[-1])?;
            let ym = o::movedim(&ys, &[d as i64], &[-1])?;
            let gm = o::movedim(g, &[d as i64], &[-1])?;
            let w = o::unary(&o::sub(&o::unsqueeze(&xm, -1)?, &o::unsqueeze(&ym, -2)?)?, Op::Exp)?;
            let r = sum_upper(&o::mul(&w, &o::unsqueeze(&gm, -2)?)?, n)?;
            Ok(vec![Some(o::movedim(&r, &[-1], &[d as i64])?)])
        });
    }
    Ok(y)
}

/// `torch.cummax` (`max`) / `torch.cummin`: (values, int64 indices).
pub fn cumextreme(x: &Tensor, dim: i64, max: bool) -> Result<(Tensor, Tensor)> {
    let idx = x.cumextreme_indices(dim, max)?;
    let values = if x.ndim() == 0 { x.clone() } else { gather(x, dim, &idx)? };
    Ok((values, idx))
}

/// `torch.kthvalue(t, k, dim, keepdim)`: (values, int64 indices), the indices PyTorch's CPU
/// quickselect picks among equal values; values gathered, so they carry gradients.
pub fn kthvalue(x: &Tensor, k: usize, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    let idx = x.kthvalue_indices(k, dim)?;
    if x.ndim() == 0 {
        return Ok((x.clone(), idx));
    }
    let values = gather(x, dim, &idx)?;
    if keepdim {
        return Ok((values, idx));
    }
    Ok((o::squeeze_dim(&values, dim)?, o::squeeze_dim(&idx, dim)?))
}

/// `torch.sort(t, dim, descending)`: (values, int64 indices); stable.
pub fn sort(x: &Tensor, dim: i64, descending: bool) -> Result<(Tensor, Tensor)> {
    let idx = x.sort_indices(dim, descending)?;
    let values = if x.ndim() == 0 { x.clone() } else { gather(x, dim, &idx)? };
    Ok((values, idx))
}
