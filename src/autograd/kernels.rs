//! Differentiable versions of the hand-written kernel families (reductions, row-wise NN kernels,
//! where/masked_fill, indexing and joining), with their backward rules side by side. Like
//! `ops.rs`, rules are written with differentiable ops.

use super::ops::{self as o, first, reduced, unreduce};
use super::{needs_grad, record};
use crate::dtype::ScalarKind;
use crate::error::Result;
use crate::ops::Op;
use crate::tensor::{Tensor, TensorOrScalar};

fn zeros_like(x: &Tensor) -> Result<Tensor> {
    Tensor::full(x.shape(), 0.0, x.dtype, x.device())
}

/// `where(cond, g, 0)`.
fn keep(cond: &Tensor, g: &Tensor) -> Result<Tensor> {
    where_(cond, TensorOrScalar::Tensor(g), TensorOrScalar::Scalar(0.0, ScalarKind::Float))
}

fn float_mask(cond: &Tensor, like: &Tensor) -> Result<Tensor> {
    o::to_dtype(cond, like.dtype)
}

/// Records a one-output node whose backward maps `g` to one gradient per input.
pub(crate) fn node(
    name: &str,
    inputs: &[&Tensor],
    saved: &[&Tensor],
    y: &mut Tensor,
    f: impl Fn(&Tensor) -> Result<Vec<Option<Tensor>>> + 'static,
) {
    record(name, inputs, saved, &mut [y], Box::new(move |g| f(first(g)?)));
}

/// Spreads `g` evenly over the elements equal to the (unreduced) extreme `y` (amax, max()).
fn evenly(x: &Tensor, y: &Tensor, g: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    let yu = unreduce(y, x.shape(), dims, keepdim)?;
    let mask = float_mask(&x.binary(Op::Eq, &yu.detach())?, g)?;
    let count = o::sum(&mask, dims, true)?;
    let gu = unreduce(g, x.shape(), dims, keepdim)?;
    o::div(&o::mul(&gu, &mask)?, &unreduce(&count, x.shape(), dims, true)?)
}

pub fn prod(x: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    let mut y = x.prod(dims, keepdim)?;
    if needs_grad(&[x]) {
        let (xs, ys, d) = (x.clone(), y.detach(), dims.to_vec());
        node(if dims.is_empty() { "ProdBackward0" } else { "ProdBackward1" }, &[x], &[x], &mut y, move |g| {
            // A zero gets the product of the others when it is the only zero, else 0.
            let zero = xs.binary_scalar(Op::Eq, 0.0, false)?;
            let one_or_x = where_(&zero, TensorOrScalar::Scalar(1.0, ScalarKind::Int), TensorOrScalar::Tensor(&xs))?;
            let others = o::unary(&one_or_x, Op::Positive)?.prod(&d, true)?;
            let count = float_mask(&zero, &xs)?.sum(&d, true)?;
            let single = count.binary_scalar(Op::Eq, 1.0, false)?;
            let at_zero = keep(&single, &others)?;
            let gu = unreduce(g, xs.shape(), &d, keepdim)?;
            let yu = unreduce(&ys, xs.shape(), &d, keepdim)?;
            let ratio = o::div(&yu, &xs)?;
            let at_zero = o::expand(&at_zero, &xs.shape().iter().map(|&s| s as i64).collect::<Vec<_>>())?;
            let local = where_(&zero, TensorOrScalar::Tensor(&at_zero), TensorOrScalar::Tensor(&ratio))?;
            Ok(vec![Some(o::mul(&gu, &local)?)])
        });
    }
    Ok(y)
}

fn extreme(x: &Tensor, dims: &[i64], keepdim: bool, name: &str, y: Tensor) -> Result<Tensor> {
    let mut y = y;
    if needs_grad(&[x]) {
        let (xs, ys, d) = (x.clone(), y.detach(), dims.to_vec());
        node(name, &[x], &[x], &mut y, move |g| Ok(vec![Some(evenly(&xs, &ys, g, &d, keepdim)?)]));
    }
    Ok(y)
}

pub fn amax(x: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    extreme(x, dims, keepdim, "AmaxBackward0", x.amax(dims, keepdim)?)
}
pub fn amin(x: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    extreme(x, dims, keepdim, "AminBackward0", x.amin(dims, keepdim)?)
}
pub fn max_all(x: &Tensor) -> Result<Tensor> {
    extreme(x, &[], false, "MaxBackward1", x.max_all()?)
}
pub fn min_all(x: &Tensor) -> Result<Tensor> {
    extreme(x, &[], false, "MinBackward1", x.min_all()?)
}

/// `max(dim)`/`min(dim)`: the gradient goes to the index each value came from.
pub fn extreme_dim(x: &Tensor, dim: i64, keepdim: bool, max: bool) -> Result<(Tensor, Tensor)> {
    let (mut v, i) = if max { x.max_dim(dim, keepdim)? } else { x.min_dim(dim, keepdim)? };
    if needs_grad(&[x]) {
        let (xs, idx) = (x.clone(), i.clone());
        node(if max { "MaxBackward0" } else { "MinBackward0" }, &[x], &[], &mut v, move |g| {
            let (g, idx) = if keepdim || xs.ndim() == 0 {
                (g.clone(), idx.clone())
            } else {
                (o::unsqueeze(g, dim)?, idx.unsqueeze(dim)?)
            };
            // Recorded under create_graph (the second derivative gathers at the same indices).
            Ok(vec![Some(scatter(&zeros_like(&xs)?, dim, &idx, &g)?)])
        });
    }
    Ok((v, i))
}

fn count(x: &Tensor, dims: &[i64]) -> Result<f64> {
    Ok(reduced(dims, x.ndim())?.iter().filter_map(|&d| x.shape().get(d)).product::<usize>() as f64)
}

pub fn var(x: &Tensor, dims: &[i64], correction: f64, keepdim: bool) -> Result<Tensor> {
    let mut y = x.var(dims, correction, keepdim)?;
    if needs_grad(&[x]) {
        let (xs, d) = (x.clone(), dims.to_vec());
        let n = count(x, dims)?;
        node("VarBackward0", &[x], &[x], &mut y, move |g| {
            let centered = o::sub(&xs, &o::mean(&xs, &d, true)?)?;
            let gu = unreduce(g, xs.shape(), &d, keepdim)?;
            Ok(vec![Some(o::mul(&gu, &o::scale(&centered, 2.0 / (n - correction))?)?)])
        });
    }
    Ok(y)
}

pub fn std(x: &Tensor, dims: &[i64], correction: f64, keepdim: bool) -> Result<Tensor> {
    let mut y = x.std(dims, correction, keepdim)?;
    if needs_grad(&[x]) {
        let (xs, ys, d) = (x.clone(), y.detach(), dims.to_vec());
        let n = count(x, dims)?;
        node("StdBackward0", &[x], &[x], &mut y, move |g| {
            let centered = o::sub(&xs, &o::mean(&xs, &d, true)?)?;
            // 0 where the std is 0 (a constant slice), as PyTorch defines it, not 0/0.
            let gs = where_(
                &ys.binary_scalar(Op::Eq, 0.0, false)?,
                TensorOrScalar::Scalar(0.0, ScalarKind::Float),
                TensorOrScalar::Tensor(&o::div(g, &ys)?),
            )?;
            let gu = unreduce(&gs, xs.shape(), &d, keepdim)?;
            Ok(vec![Some(o::mul(&gu, &o::scale(&centered, 1.0 / (n - correction))?)?)])
        });
    }
    Ok(y)
}

pub fn logsumexp(x: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    let mut y = x.logsumexp(dims, keepdim)?;
    if needs_grad(&[x]) {
        let (xs, ys, d) = (x.clone(), y.detach(), dims.to_vec());
        node("LogsumexpBackward0", &[x], &[x], &mut y, move |g| {
            let w = o::unary(&o::sub(&xs, &unreduce(&ys, xs.shape(), &d, keepdim)?)?, Op::Exp)?;
            Ok(vec![Some(o::mul(&unreduce(g, xs.shape(), &d, keepdim)?, &w)?)])
        });
    }
    Ok(y)
}

pub fn norm(x: &Tensor, p: f64, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    let mut y = x.norm(p, dims, keepdim)?;
    if needs_grad(&[x]) {
        let (xs, ys, d) = (x.clone(), y.detach(), dims.to_vec());
        node("NormBackward1", &[x], &[x], &mut y, move |g| {
            let gu = unreduce(g, xs.shape(), &d, keepdim)?;
            let yu = unreduce(&ys, xs.shape(), &d, keepdim)?;
            let local = if p == 0.0 {
                zeros_like(&xs)?
            } else if p == 1.0 {
                o::unary(&xs, Op::Sign)?
            } else if p.is_infinite() {
                let ax = o::unary(&xs, Op::Abs)?;
                let e = evenly(&ax, &ys, &Tensor::full(ys.shape(), 1.0, ys.dtype, ys.device())?, &d, keepdim)?;
                o::mul(&o::unary(&xs, Op::Sign)?, &e)?
            } else {
                // x |x|^(p-2) / ‖x‖^(p-1), and 0 where the norm is 0.
                let ax = o::unary(&xs, Op::Abs)?;
                let num = o::mul(&xs, &o::binary_scalar(&ax, Op::Pow, p - 2.0, false, ScalarKind::Float)?)?;
                let den = o::binary_scalar(&yu, Op::Pow, p - 1.0, false, ScalarKind::Float)?;
                let zero = yu.binary_scalar(Op::Eq, 0.0, false)?;
                keep(&o::unary(&zero, Op::LogicalNot)?, &o::div(&num, &den)?)?
            };
            Ok(vec![Some(o::mul(&gu, &local)?)])
        });
    }
    Ok(y)
}

/// softmax (`log = false`) or log_softmax with its backward rule. The node keeps the output for
/// the one-kernel rule (`Tensor::softmax_backward`); with `create_graph` the rule is composed of
/// differentiable ops from the input instead, so it can be differentiated again.
fn softmax_node(x: &Tensor, dim: i64, log: bool) -> Result<Tensor> {
    let mut y = if log { x.log_softmax(dim)? } else { x.softmax(dim)? };
    if needs_grad(&[x]) {
        let (xs, ys, saved_y) = (x.clone(), y.clone(), y.clone());
        let name = if log { "LogSoftmaxBackward0" } else { "SoftmaxBackward0" };
        node(name, &[x], &[x, &saved_y], &mut y, move |g| {
            if !crate::autograd::is_grad_enabled() {
                return Ok(vec![Some(ys.softmax_backward(g, dim, log)?)]);
            }
            let s = softmax(&xs, dim)?;
            Ok(vec![Some(if log {
                o::sub(g, &o::mul(&s, &o::sum(g, &[dim], true)?)?)?
            } else {
                let dot = o::sum(&o::mul(g, &s)?, &[dim], true)?;
                o::mul(&s, &o::sub(g, &dot)?)?
            })])
        });
    }
    Ok(y)
}

pub fn softmax(x: &Tensor, dim: i64) -> Result<Tensor> {
    softmax_node(x, dim, false)
}

pub fn log_softmax(x: &Tensor, dim: i64) -> Result<Tensor> {
    softmax_node(x, dim, true)
}

/// Attention's causal softmax over the last dim of `(…, L, S)` scores (`Tensor::causal_softmax`);
/// its gradient is softmax's, since the excluded entries are 0 (with `create_graph`: softmax of
/// the scores with `-inf` past the diagonal, composed).
pub fn causal_softmax(x: &Tensor) -> Result<Tensor> {
    let mut y = x.causal_softmax()?;
    if needs_grad(&[x]) {
        let (xs, ys, saved_y) = (x.clone(), y.clone(), y.clone());
        node("CausalSoftmaxBackward0", &[x], &[x, &saved_y], &mut y, move |g| {
            if !crate::autograd::is_grad_enabled() {
                return Ok(vec![Some(ys.softmax_backward(g, -1, false)?)]);
            }
            let n = xs.ndim();
            let (l, s) = (xs.shape()[n - 2], xs.shape()[n - 1]);
            let dev = xs.device();
            let rows = Tensor::arange(0.0, l as f64, 1.0, crate::dtype::DType::Int32, dev)?.reshape(&[l as i64, 1])?;
            let cols = Tensor::arange(0.0, s as f64, 1.0, crate::dtype::DType::Int32, dev)?;
            let after = cols.binary(Op::Gt, &rows)?;
            let masked = where_(
                &after,
                TensorOrScalar::Scalar(f64::NEG_INFINITY, ScalarKind::Float),
                TensorOrScalar::Tensor(&xs),
            )?;
            let p = softmax(&masked, -1)?;
            let dot = o::sum(&o::mul(g, &p)?, &[-1], true)?;
            Ok(vec![Some(o::mul(&p, &o::sub(g, &dot)?)?)])
        });
    }
    Ok(y)
}

/// The normalized dims (the last `k`) as negative dim indices.
fn last_dims(k: usize) -> Vec<i64> {
    (1..=k as i64).map(|i| -i).collect()
}

pub fn layer_norm(
    x: &Tensor,
    normalized: &[usize],
    w: Option<&Tensor>,
    b: Option<&Tensor>,
    eps: f64,
) -> Result<Tensor> {
    let mut y = x.layer_norm(normalized, w, b, eps)?;
    let inputs: Vec<&Tensor> = [Some(x), w, b].into_iter().flatten().collect();
    if needs_grad(&inputs) {
        let (xs, ws, bs) = (x.clone(), w.cloned(), b.cloned());
        let d = last_dims(normalized.len());
        node("NativeLayerNormBackward0", &inputs, &inputs, &mut y, move |g| {
            let mu = o::mean(&xs, &d, true)?;
            let var = var(&xs, &d, 0.0, true)?;
            let rstd = o::unary(&o::add_scalar(&var, eps)?, Op::Rsqrt)?;
            let xhat = o::mul(&o::sub(&xs, &mu)?, &rstd)?;
            let gx = match &ws {
                Some(w) => o::mul(g, w)?,
                None => g.clone(),
            };
            let a = o::mean(&gx, &d, true)?;
            let bterm = o::mul(&xhat, &o::mean(&o::mul(&gx, &xhat)?, &d, true)?)?;
            let grad_x = o::mul(&rstd, &o::sub(&o::sub(&gx, &a)?, &bterm)?)?;
            let mut out = vec![Some(grad_x)];
            if let Some(w) = &ws {
                out.push(Some(o::sum_to(&o::mul(g, &xhat)?, w.shape())?));
            }
            if let Some(b) = &bs {
                out.push(Some(o::sum_to(g, b.shape())?));
            }
            Ok(out)
        });
    }
    Ok(y)
}

pub fn rms_norm(x: &Tensor, normalized: &[usize], w: Option<&Tensor>, eps: Option<f64>) -> Result<Tensor> {
    let mut y = x.rms_norm(normalized, w, eps)?;
    let inputs: Vec<&Tensor> = [Some(x), w].into_iter().flatten().collect();
    if needs_grad(&inputs) {
        let (xs, ws) = (x.clone(), w.cloned());
        let d = last_dims(normalized.len());
        let eps = eps.unwrap_or(crate::tensor::rms_norm_eps(xs.dtype));
        node("RmsNormBackward0", &inputs, &inputs, &mut y, move |g| {
            let inv = o::unary(&o::add_scalar(&o::mean(&o::unary(&xs, Op::Square)?, &d, true)?, eps)?, Op::Rsqrt)?;
            let xhat = o::mul(&xs, &inv)?;
            let gx = match &ws {
                Some(w) => o::mul(g, w)?,
                None => g.clone(),
            };
            let grad_x = o::mul(&inv, &o::sub(&gx, &o::mul(&xhat, &o::mean(&o::mul(&gx, &xhat)?, &d, true)?)?)?)?;
            let mut out = vec![Some(grad_x)];
            if let Some(w) = &ws {
                out.push(Some(o::sum_to(&o::mul(g, &xhat)?, w.shape())?));
            }
            Ok(out)
        });
    }
    Ok(y)
}

/// `torch.where(cond, a, b)`: the gradient goes to the side each element came from.
pub fn where_(cond: &Tensor, a: TensorOrScalar, b: TensorOrScalar) -> Result<Tensor> {
    let mut y = Tensor::where_(cond, a, b)?;
    let sides: Vec<&Tensor> = [a, b]
        .iter()
        .filter_map(|s| match s {
            TensorOrScalar::Tensor(t) => Some(*t),
            TensorOrScalar::Scalar(..) => None,
        })
        .collect();
    if needs_grad(&sides) {
        let c = cond.clone();
        let (ta, tb) = (sides_of(a), sides_of(b));
        node("WhereBackward0", &sides, &[], &mut y, move |g| {
            let mut out = vec![];
            if let Some(s) = &ta {
                out.push(Some(o::sum_to(&keep(&c, g)?, s)?));
            }
            if let Some(s) = &tb {
                out.push(Some(o::sum_to(&keep(&o::unary(&c, Op::LogicalNot)?, g)?, s)?));
            }
            Ok(out)
        });
    }
    Ok(y)
}

fn sides_of(s: TensorOrScalar) -> Option<Vec<usize>> {
    match s {
        TensorOrScalar::Tensor(t) => Some(t.shape().to_vec()),
        TensorOrScalar::Scalar(..) => None,
    }
}

pub fn masked_fill(x: &Tensor, mask: &Tensor, value: f64) -> Result<Tensor> {
    let mut y = x.masked_fill(mask, value)?;
    if needs_grad(&[x]) {
        let (m, shape) = (mask.clone(), x.shape().to_vec());
        node("MaskedFillBackward0", &[x], &[], &mut y, move |g| {
            Ok(vec![Some(o::sum_to(&keep(&o::unary(&m, Op::LogicalNot)?, g)?, &shape)?)])
        });
    }
    Ok(y)
}

/// `index` reshaped to lie along `dim` of `like` and expanded over its other dims.
fn along(index: &Tensor, dim: i64, like: &Tensor) -> Result<Tensor> {
    let d = crate::shape::wrap_dim(dim, like.ndim())?;
    let mut shape = vec![1i64; like.ndim().max(1)];
    shape[d] = index.numel() as i64;
    let full: Vec<i64> = like.shape().iter().map(|&s| s as i64).collect();
    index.reshape(&shape)?.expand(&full)
}

pub fn index_select(x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    let mut y = x.index_select(dim, index)?;
    if needs_grad(&[x]) {
        let (xs, idx) = (x.clone(), index.clone());
        node("IndexSelectBackward0", &[x], &[], &mut y, move |g| {
            if xs.ndim() == 0 {
                return Ok(vec![Some(g.reshape(&[])?)]);
            }
            Ok(vec![Some(zeros_like(&xs)?.scatter_add(dim, &along(&idx, dim, g)?, g)?)])
        });
    }
    Ok(y)
}

/// `x` reversed along `dim` (`torch.flip(x, [dim])`); its gradient is the gradient reversed.
pub fn flip(x: &Tensor, dim: usize) -> Result<Tensor> {
    let mut y = x.flip_dim(dim)?;
    if needs_grad(&[x]) {
        node("FlipBackward0", &[x], &[], &mut y, move |g| Ok(vec![Some(flip(g, dim)?)]));
    }
    Ok(y)
}

pub fn gather(x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    let mut y = x.gather(dim, index)?;
    if needs_grad(&[x]) {
        let (xs, idx) = (x.clone(), index.clone());
        node("GatherBackward0", &[x], &[], &mut y, move |g| {
            Ok(vec![Some(zeros_like(&xs)?.scatter_add(dim, &idx, g)?)])
        });
    }
    Ok(y)
}

pub fn take_along_dim(x: &Tensor, indices: &Tensor, dim: Option<i64>) -> Result<Tensor> {
    let mut y = x.take_along_dim(indices, dim)?;
    if needs_grad(&[x]) {
        let (xs, idx) = (x.clone(), indices.clone());
        node("TakeAlongDimBackward0", &[x], &[], &mut y, move |g| {
            let grad = match dim {
                None => {
                    let flat = zeros_like(&xs)?.reshape(&[-1])?;
                    let shape: Vec<i64> = xs.shape().iter().map(|&s| s as i64).collect();
                    flat.scatter_add(0, &idx.reshape(&[-1])?, &g.reshape(&[-1])?)?.reshape(&shape)?
                }
                Some(d) => {
                    // Broadcast the indices to the gradient's shape; sum the gradient down to
                    // the input's shape off `dim`.
                    let full: Vec<i64> = g.shape().iter().map(|&s| s as i64).collect();
                    let idx = idx.expand(&full)?;
                    let mut target: Vec<usize> = xs.shape().to_vec();
                    let dd = crate::shape::wrap_dim(d, xs.ndim())?;
                    target[dd] = xs.shape()[dd];
                    let mut big = g.shape().to_vec();
                    big[dd] = xs.shape()[dd];
                    let z = Tensor::full(&big, 0.0, g.dtype, g.device())?;
                    o::sum_to(&z.scatter_add(d, &idx, g)?, &target)?
                }
            };
            Ok(vec![Some(grad)])
        });
    }
    Ok(y)
}

/// `torch.poisson(x)`: draws whose gradient is zero (PyTorch's PoissonBackward0).
pub fn poisson(x: &Tensor) -> Result<Tensor> {
    let mut y = x.poisson()?;
    if needs_grad(&[x]) {
        node("PoissonBackward0", &[x], &[], &mut y, move |g| Ok(vec![Some(zeros_like(g)?)]));
    }
    Ok(y)
}

pub fn scatter(x: &Tensor, dim: i64, index: &Tensor, src: &Tensor) -> Result<Tensor> {
    let mut y = x.scatter(dim, index, src)?;
    if needs_grad(&[x, src]) {
        let idx = index.clone();
        node("ScatterBackward0", &[x, src], &[], &mut y, move |g| {
            Ok(vec![Some(g.scatter_value(dim, &idx, 0.0)?), Some(gather(g, dim, &idx)?)])
        });
    }
    Ok(y)
}

pub fn scatter_value(x: &Tensor, dim: i64, index: &Tensor, value: f64) -> Result<Tensor> {
    let mut y = x.scatter_value(dim, index, value)?;
    if needs_grad(&[x]) {
        let idx = index.clone();
        node("ScatterBackward1", &[x], &[], &mut y, move |g| Ok(vec![Some(g.scatter_value(dim, &idx, 0.0)?)]));
    }
    Ok(y)
}

pub fn scatter_add(x: &Tensor, dim: i64, index: &Tensor, src: &Tensor) -> Result<Tensor> {
    let mut y = x.scatter_add(dim, index, src)?;
    if needs_grad(&[x, src]) {
        let idx = index.clone();
        node("ScatterAddBackward0", &[x, src], &[], &mut y, move |g| {
            Ok(vec![Some(g.clone()), Some(gather(g, dim, &idx)?)])
        });
    }
    Ok(y)
}

pub fn cat(ts: &[&Tensor], dim: i64) -> Result<Tensor> {
    let mut y = Tensor::cat(ts, dim)?;
    if needs_grad(ts) {
        let shapes: Vec<Vec<usize>> = ts.iter().map(|t| t.shape().to_vec()).collect();
        let d = if y.ndim() == 0 { 0 } else { crate::shape::wrap_dim(dim, y.ndim())? };
        node("CatBackward0", ts, &[], &mut y, move |g| {
            let mut start = 0i64;
            let mut out = vec![];
            for s in &shapes {
                // PyTorch skips 1-D empty inputs when concatenating.
                if s.len() == 1 && s[0] == 0 && g.ndim() != 1 {
                    out.push(Some(Tensor::full(s, 0.0, g.dtype, g.device())?));
                    continue;
                }
                let len = s[d] as i64;
                out.push(Some(o::narrow(g, d as i64, start, len)?));
                start += len;
            }
            Ok(out)
        });
    }
    Ok(y)
}

pub fn stack(ts: &[&Tensor], dim: i64) -> Result<Tensor> {
    let mut y = Tensor::stack(ts, dim)?;
    if needs_grad(ts) {
        let n = ts.len();
        let d = crate::shape::wrap_dim(dim, y.ndim())? as i64;
        node("StackBackward0", ts, &[], &mut y, move |g| {
            (0..n).map(|i| Ok(Some(o::select(g, d, i as i64)?))).collect()
        });
    }
    Ok(y)
}
