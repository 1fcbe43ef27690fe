//! Differentiable ops: each runs the engine op (`tensor/`) and records its backward when a
//! gradient is needed. The API layer and the backward rules call these, never the raw ops, so a
//! backward pass is itself differentiable.

use super::{needs_grad, record, rules};
use crate::dtype::{DType, ScalarKind};
use crate::error::Result;
use crate::ops::{Op, ResultKind};
use crate::shape::wrap_dim;
use crate::tensor::Tensor;

/// PyTorch's grad_fn name for an op-table row.
fn node_name(op: Op) -> String {
    let name = match op {
        Op::Square => "pow",
        _ => op.info().name,
    };
    let camel: String = name
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
        })
        .collect();
    format!("{camel}Backward0")
}

pub(super) fn first(g: &[Option<Tensor>]) -> Result<&Tensor> {
    g[0].as_ref().ok_or_else(|| crate::err!(Torch, "backward called without a gradient"))
}

/// A rank-0 tensor standing for a Python scalar operand (it promotes like one).
pub fn scalar_tensor(value: f64, kind: ScalarKind, like: &Tensor) -> Result<Tensor> {
    let dtype = match kind {
        ScalarKind::Bool => DType::Bool,
        ScalarKind::Int => DType::Int64,
        // PyTorch wraps a Python float as a double: exact beside float64 (a float scalar never
        // widens another dtype, so float32 serves there).
        ScalarKind::Float if like.dtype == DType::Float64 => DType::Float64,
        ScalarKind::Float => DType::Float32,
    };
    Tensor::full(&[], value, dtype, like.device())
}

pub fn unary(x: &Tensor, op: Op) -> Result<Tensor> {
    let mut y = x.unary(op)?;
    if needs_grad(&[x]) && op.info().kind != ResultKind::Bool {
        let xs = x.clone();
        // NOTE: relu's rule reads only the sign of x, which relu_ leaves unchanged.
        let saved: &[&Tensor] = if matches!(op, Op::Neg | Op::Positive | Op::Relu) { &[] } else { &[x] };
        record(
            &node_name(op),
            &[x],
            saved,
            &mut [&mut y],
            Box::new(move |g| Ok(vec![rules::unary(op, &xs, first(g)?)?])),
        );
    }
    Ok(y)
}

/// Gradients of a broadcast binary op, summed back to each input's shape.
fn binary_node(op: Op, name: String, a: &Tensor, b: &Tensor, y: &mut Tensor) {
    let (ac, bc) = (a.clone(), b.clone());
    let saved: Vec<&Tensor> = match op {
        Op::Add | Op::Sub => vec![],
        Op::Mul => [(a, b.requires_grad()), (b, a.requires_grad())].into_iter().filter(|p| p.1).map(|p| p.0).collect(),
        _ => vec![a, b],
    };
    record(
        &name,
        &[a, b],
        &saved,
        &mut [y],
        Box::new(move |g| {
            let (ga, gb) = rules::binary(op, &ac, &bc, first(g)?)?;
            // Summed to each input's shape and, where the op promoted (float32 with float64),
            // cast back to its dtype, as PyTorch's engine does.
            let back = |t: Tensor, x: &Tensor| -> Result<Tensor> {
                let t = sum_to(&t, x.shape())?;
                if t.dtype != x.dtype && x.dtype.is_float() {
                    to_dtype(&t, x.dtype)
                } else {
                    Ok(t)
                }
            };
            let ga = match ga {
                Some(t) if ac.requires_grad() => Some(back(t, &ac)?),
                _ => None,
            };
            let gb = match gb {
                Some(t) if bc.requires_grad() => Some(back(t, &bc)?),
                _ => None,
            };
            Ok(vec![ga, gb])
        }),
    );
}

pub fn binary(a: &Tensor, b: &Tensor, op: Op) -> Result<Tensor> {
    let mut y = a.binary(op, b)?;
    if needs_grad(&[a, b]) && op.info().kind != ResultKind::Bool {
        let name = if op == Op::Pow { "PowBackward1".to_string() } else { node_name(op) };
        binary_node(op, name, a, b, &mut y);
    }
    Ok(y)
}

pub fn binary_scalar(x: &Tensor, op: Op, value: f64, reverse: bool, kind: ScalarKind) -> Result<Tensor> {
    let mut y = x.binary_scalar_kind(op, value, reverse, kind)?;
    if needs_grad(&[x]) && op.info().kind != ResultKind::Bool {
        let s = scalar_tensor(value, kind, x)?;
        let xs = x.clone();
        let reads_x = !matches!((op, reverse), (Op::Add | Op::Sub | Op::Mul, _) | (Op::Div, false));
        let saved: &[&Tensor] = if reads_x { &[x] } else { &[] };
        record(
            &node_name(op),
            &[x],
            saved,
            &mut [&mut y],
            Box::new(move |g| {
                let g = first(g)?;
                let grad = if reverse { rules::binary(op, &s, &xs, g)?.1 } else { rules::binary(op, &xs, &s, g)?.0 };
                Ok(vec![grad])
            }),
        );
    }
    Ok(y)
}

/// `add`/`sub` with `alpha` (`a ± alpha * b`), composed so that it differentiates.
pub fn add_alpha(a: &Tensor, b: &Tensor, op: Op, alpha: f64) -> Result<Tensor> {
    if alpha == 1.0 {
        return binary(a, b, op);
    }
    a.add_alpha(op, b, alpha)?; // PyTorch's dtype checks, before recording anything
    binary(a, &binary_scalar(b, Op::Mul, alpha, false, ScalarKind::of(alpha))?, op)
}

pub fn add_alpha_scalar(x: &Tensor, op: Op, value: f64, alpha: f64) -> Result<Tensor> {
    x.add_alpha_scalar(op, value, alpha)?;
    binary_scalar(x, op, value * alpha, false, ScalarKind::of(value * alpha))
}

pub fn add(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(a, b, Op::Add)
}
pub fn sub(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(a, b, Op::Sub)
}
pub fn mul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(a, b, Op::Mul)
}
pub fn div(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(a, b, Op::Div)
}
pub fn scale(x: &Tensor, s: f64) -> Result<Tensor> {
    binary_scalar(x, Op::Mul, s, false, ScalarKind::Float)
}
pub fn add_scalar(x: &Tensor, s: f64) -> Result<Tensor> {
    binary_scalar(x, Op::Add, s, false, ScalarKind::Float)
}

/// Sums `g` down to `shape` (the inverse of broadcasting `shape` up to `g.shape()`).
pub fn sum_to(g: &Tensor, shape: &[usize]) -> Result<Tensor> {
    if g.shape() == shape {
        return Ok(g.clone());
    }
    let lead = g.ndim() - shape.len();
    let mut dims: Vec<i64> = (0..lead as i64).collect();
    for (i, &s) in shape.iter().enumerate() {
        if s == 1 && g.shape()[lead + i] != 1 {
            dims.push((lead + i) as i64);
        }
    }
    let summed = if dims.is_empty() { g.clone() } else { sum(g, &dims, true)? };
    reshape(&summed, &shape.iter().map(|&s| s as i64).collect::<Vec<_>>())
}

/// The dims a reduction over `dims` (empty = all) of a rank-`n` tensor removes, sorted.
pub(super) fn reduced(dims: &[i64], n: usize) -> Result<Vec<usize>> {
    let mut d: Vec<usize> =
        if dims.is_empty() { (0..n).collect() } else { dims.iter().map(|&d| wrap_dim(d, n)).collect::<Result<_>>()? };
    d.sort_unstable();
    d.dedup();
    Ok(d)
}

/// `g` (the gradient of a reduction) broadcast back over the reduced dims of `shape`.
pub(super) fn unreduce(g: &Tensor, shape: &[usize], dims: &[i64], keepdim: bool) -> Result<Tensor> {
    let mut g = g.clone();
    if !keepdim && !shape.is_empty() {
        for d in reduced(dims, shape.len())? {
            g = unsqueeze(&g, d as i64)?;
        }
    }
    expand(&g, &shape.iter().map(|&s| s as i64).collect::<Vec<_>>())
}

pub fn sum(x: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    let mut y = x.sum(dims, keepdim)?;
    if needs_grad(&[x]) {
        let (shape, dims_v) = (x.shape().to_vec(), dims.to_vec());
        let name = if dims.is_empty() { "SumBackward0" } else { "SumBackward1" };
        record(
            name,
            &[x],
            &[],
            &mut [&mut y],
            Box::new(move |g| Ok(vec![Some(unreduce(first(g)?, &shape, &dims_v, keepdim)?)])),
        );
    }
    Ok(y)
}

pub fn mean(x: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor> {
    let mut y = x.mean(dims, keepdim)?;
    if needs_grad(&[x]) {
        let (shape, dims_v) = (x.shape().to_vec(), dims.to_vec());
        let count: usize = reduced(dims, shape.len())?.iter().filter_map(|&d| shape.get(d)).product();
        let name = if dims.is_empty() { "MeanBackward0" } else { "MeanBackward1" };
        record(
            name,
            &[x],
            &[],
            &mut [&mut y],
            Box::new(move |g| {
                let g = scale(first(g)?, 1.0 / count as f64)?;
                Ok(vec![Some(unreduce(&g, &shape, &dims_v, keepdim)?)])
            }),
        );
    }
    Ok(y)
}

pub fn matmul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if !needs_grad(&[a, b]) {
        return a.matmul_fusable(b);
    }
    let mut y = a.matmul(b)?;
    {
        let name = match (a.ndim(), b.ndim()) {
            (1, 1) => "DotBackward0",
            (2, 1) => "MvBackward0",
            (2, 2) => "MmBackward0",
            _ => "BmmBackward0",
        };
        let (ac, bc) = (a.clone(), b.clone());
        record(
            name,
            &[a, b],
            &[a, b],
            &mut [&mut y],
            Box::new(move |g| {
                let (ga, gb) = rules::matmul(&ac, &bc, first(g)?)?;
                Ok(vec![ga.filter(|_| ac.requires_grad()), gb.filter(|_| bc.requires_grad())])
            }),
        );
    }
    Ok(y)
}

/// A view op: `f` makes the view, `back` maps the view's gradient to the input's.
fn view_op(
    x: &Tensor,
    name: &str,
    f: impl FnOnce(&Tensor) -> Result<Tensor>,
    back: impl Fn(&Tensor) -> Result<Tensor> + 'static,
) -> Result<Tensor> {
    let mut y = f(x)?;
    if needs_grad(&[x]) {
        record(name, &[x], &[], &mut [&mut y], Box::new(move |g| Ok(vec![Some(back(first(g)?)?)])));
    }
    Ok(y)
}

fn shape_i64(x: &Tensor) -> Vec<i64> {
    x.shape().iter().map(|&s| s as i64).collect()
}

pub fn reshape(x: &Tensor, shape: &[i64]) -> Result<Tensor> {
    let s = shape_i64(x);
    view_op(x, "ViewBackward0", |x| x.reshape(shape), move |g| reshape(g, &s))
}

pub fn view(x: &Tensor, shape: &[i64]) -> Result<Tensor> {
    let s = shape_i64(x);
    view_op(x, "ViewBackward0", |x| x.view(shape), move |g| reshape(g, &s))
}

pub fn permute(x: &Tensor, dims: &[i64]) -> Result<Tensor> {
    let n = x.ndim();
    let wrapped: Vec<usize> = dims.iter().map(|&d| wrap_dim(d, n)).collect::<Result<_>>()?;
    let mut inverse = vec![0i64; wrapped.len()];
    for (i, &d) in wrapped.iter().enumerate() {
        if d < inverse.len() {
            inverse[d] = i as i64;
        }
    }
    view_op(x, "PermuteBackward0", |x| x.permute(dims), move |g| permute(g, &inverse))
}

pub fn transpose(x: &Tensor, d0: i64, d1: i64) -> Result<Tensor> {
    view_op(x, "TransposeBackward0", |x| x.transpose(d0, d1), move |g| transpose(g, d0, d1))
}

pub fn t(x: &Tensor) -> Result<Tensor> {
    view_op(x, "TBackward0", |x| x.t(), t)
}

pub fn expand(x: &Tensor, sizes: &[i64]) -> Result<Tensor> {
    let s = x.shape().to_vec();
    view_op(x, "ExpandBackward0", |x| x.expand(sizes), move |g| sum_to(g, &s))
}

pub fn unsqueeze(x: &Tensor, dim: i64) -> Result<Tensor> {
    let d = wrap_dim(dim, x.ndim() + 1)? as i64;
    view_op(x, "UnsqueezeBackward0", |x| x.unsqueeze(dim), move |g| squeeze_dim(g, d))
}

pub fn squeeze_dim(x: &Tensor, dim: i64) -> Result<Tensor> {
    let s = shape_i64(x);
    view_op(x, "SqueezeBackward1", |x| x.squeeze_dim(dim), move |g| reshape(g, &s))
}

pub fn contiguous(x: &Tensor) -> Result<Tensor> {
    if x.layout.is_contiguous() {
        return Ok(x.alias());
    }
    clone(x)
}

pub fn clone(x: &Tensor) -> Result<Tensor> {
    view_op(x, "CloneBackward0", |x| x.deep_clone(), |g| Ok(g.clone()))
}

pub fn to_dtype(x: &Tensor, dtype: DType) -> Result<Tensor> {
    if dtype == x.dtype {
        return Ok(x.alias());
    }
    let from = x.dtype;
    view_op(x, "ToCopyBackward0", |x| x.to_dtype(dtype), move |g| to_dtype(g, from))
}

/// PyTorch's `can_cast`: an in-place result may not move to a lower category (float → int,
/// int → bool).
fn check_cast(from: DType, to: DType) -> Result<()> {
    let cat = |d: DType| {
        if d.is_float() {
            2
        } else if d == DType::Bool {
            0
        } else {
            1
        }
    };
    if cat(from) > cat(to) {
        crate::bail!(
            DType,
            "result type {} can't be cast to the desired output type {}",
            from.scalar_name(),
            to.scalar_name()
        );
    }
    Ok(())
}

/// An in-place op: `x` becomes `result` (computed from `x` by differentiable ops).
pub fn inplace(x: &mut Tensor, result: Tensor) -> Result<()> {
    check_cast(result.dtype, x.dtype)?;
    let mut value = to_dtype(&result, x.dtype)?;
    drop(result);
    let fits = value.ndim() <= x.ndim()
        && value.shape().iter().rev().zip(x.shape().iter().rev()).all(|(&v, &s)| v == s || v == 1);
    if !fits {
        crate::bail!(Shape, "output with shape {:?} doesn't match the broadcast shape {:?}", x.shape(), value.shape());
    }
    if value.shape() != x.shape() {
        let shape: Vec<i64> = x.shape().iter().map(|&s| s as i64).collect();
        value = expand(&value, &shape)?;
    }
    super::assign_owned(x, value)
}

/// `x.copy_(src)`: `src` broadcast to `x`'s shape and cast to its dtype (differentiable).
pub fn copy_(x: &mut Tensor, src: &Tensor) -> Result<()> {
    let shape: Vec<i64> = x.shape().iter().map(|&s| s as i64).collect();
    let mut value = expand(&to_dtype(src, x.dtype)?, &shape)?;
    if super::is_grad_enabled() && x.requires_grad() && x.view_base().is_none() {
        // NOTE: the old values are overwritten, so their gradient is zero (PyTorch's
        // CopyBackwards), not the upstream: `where(true, value, x)` keeps x in the graph with a
        // zero gradient (and the result requiring grad when src does not). A view's write is
        // its base's CopySlices, which does the same.
        let all = Tensor::full(x.shape(), 1.0, DType::Bool, x.device())?;
        value = super::kernels::where_(
            &all,
            crate::tensor::TensorOrScalar::Tensor(&value),
            crate::tensor::TensorOrScalar::Tensor(x),
        )?;
    }
    super::assign(x, &value)
}

/// Every storage position of `layout`'s elements, in row-major order.
fn positions(layout: &crate::shape::Layout) -> Result<Vec<usize>> {
    crate::engine::check_host_alloc("as_strided", layout.numel(), 8, 2)?;
    let mut pos = vec![layout.offset];
    for (&size, &stride) in layout.shape.iter().zip(&layout.strides) {
        pos = pos.iter().flat_map(|&p| (0..size).map(move |i| p + i * stride)).collect();
    }
    Ok(pos)
}

/// Where the elements of `view` and of `x` sit in their shared storage, as index tensors into a
/// storage-sized buffer (`extent` words from the lowest position either reaches): `(extent, view's,
/// x's)`, each in row-major element order.
fn storage_indices(view: &crate::shape::Layout, x: &Tensor) -> Result<(usize, Tensor, Tensor)> {
    let (ypos, xpos) = (positions(view)?, positions(&x.layout)?);
    let lo = ypos.iter().chain(&xpos).copied().min().unwrap_or(0);
    let extent = ypos.iter().chain(&xpos).copied().max().map_or(0, |hi| hi + 1 - lo);
    let index = |p: &[usize]| {
        let v: Vec<f64> = p.iter().map(|&q| (q - lo) as f64).collect();
        Tensor::from_f64(&v, &[v.len()], DType::Int64, x.device())
    };
    Ok((extent, index(&ypos)?, index(&xpos)?))
}

/// `x.as_strided(size, stride, offset)`: a view of x's storage. Its gradient (PyTorch's, for an
/// input whose elements do not overlap): the upstream added into the storage at the viewed
/// positions (overlapping ones add up), read back at x's own positions.
pub fn as_strided(x: &Tensor, size: &[usize], stride: &[usize], offset: Option<usize>) -> Result<Tensor> {
    let mut y = x.as_strided(size, stride, offset)?;
    if needs_grad(&[x]) && y.numel() > 0 && x.numel() > 0 {
        let (extent, yi, xi) = storage_indices(&y.layout, x)?;
        let shape: Vec<i64> = x.shape().iter().map(|&s| s as i64).collect();
        record(
            "AsStridedBackward0",
            &[x],
            &[],
            &mut [&mut y],
            Box::new(move |g| {
                let g = first(g)?;
                let z = Tensor::full(&[extent], 0.0, g.dtype, g.device())?;
                let storage = super::kernels::scatter_add(&z, 0, &yi, &reshape(g, &[-1])?)?;
                Ok(vec![Some(reshape(&super::kernels::index_select(&storage, 0, &xi)?, &shape)?)])
            }),
        );
    }
    Ok(y)
}

/// `view`'s layout relative to `base`'s first element, for applying to any tensor of `base`'s
/// shape and row-major order (the base itself, or a gradient of it); `None` where no such layout
/// exists (a base that is not contiguous, or a view reaching below it): those go by storage
/// positions, as PyTorch's as_strided backward does.
fn relative_layout(base: &Tensor, view: &crate::shape::Layout) -> Option<crate::shape::Layout> {
    (base.layout.is_contiguous() && view.offset >= base.layout.offset).then(|| crate::shape::Layout {
        shape: view.shape.clone(),
        strides: view.strides.clone(),
        offset: view.offset - base.layout.offset,
    })
}

/// The elements of `t` (contiguous, of the base's shape) at `rel` (a `relative_layout`).
fn at_relative(t: &Tensor, rel: &crate::shape::Layout) -> Result<Tensor> {
    let t = if t.layout.is_contiguous() { t.alias() } else { t.deep_clone()? };
    let mut l = rel.clone();
    l.offset += t.layout.offset;
    Ok(t.with_layout_pub(l))
}

/// `base`'s elements at `view`'s layout, as a view op of `base` (differentiable; how a view of a
/// base whose history changed takes the new history).
pub(crate) fn view_through(base: &Tensor, view: &crate::shape::Layout) -> Result<Tensor> {
    match relative_layout(base, view) {
        Some(rel) => picking(base, "AsStridedBackward0", std::rc::Rc::new(move |t: &Tensor| at_relative(t, &rel))),
        None => as_strided(base, &view.shape, &view.strides, Some(view.offset)),
    }
}

/// PyTorch's CopySlices: `base` after `value` (of the view's shape) was written at `view`'s
/// elements. Its gradient goes to the old `base` outside those elements and to `value` inside.
pub(crate) fn copy_slices(base: &Tensor, view: &crate::shape::Layout, value: &Tensor) -> Result<Tensor> {
    let Some(rel) = relative_layout(base, view) else {
        return copy_slices_by_position(base, view, value);
    };
    let mut out = base.clone();
    let (shape, device) = (base.shape().to_vec(), base.device());
    record(
        "CopySlices",
        &[base, value],
        &[],
        &mut [&mut out],
        Box::new(move |g| {
            let g = first(g)?;
            let region = Tensor::full(&shape, 0.0, DType::Bool, device)?;
            at_relative(&region, &rel)?.assign_(&Tensor::full(&[], 1.0, DType::Bool, device)?)?;
            let outside = super::kernels::where_(
                &region,
                crate::tensor::TensorOrScalar::Scalar(0.0, ScalarKind::Float),
                crate::tensor::TensorOrScalar::Tensor(g),
            )?;
            let inside = picking(
                g,
                "AsStridedBackward0",
                std::rc::Rc::new({
                    let rel = rel.clone();
                    move |t: &Tensor| at_relative(t, &rel)
                }),
            )?;
            Ok(vec![Some(outside), Some(inside)])
        }),
    );
    Ok(out)
}

/// `copy_slices` over a base with no `relative_layout` (not contiguous, or not dense): the
/// upstream is laid out at the base's storage positions, the view's positions are read from
/// there for `value` and zeroed for the old base (PyTorch's CopySlices on strided storage).
fn copy_slices_by_position(base: &Tensor, view: &crate::shape::Layout, value: &Tensor) -> Result<Tensor> {
    let mut out = base.clone();
    if !needs_grad(&[base, value]) || base.numel() == 0 {
        return Ok(out);
    }
    let (extent, yi, xi) = storage_indices(view, base)?;
    let (shape, view_shape) = (base.shape().to_vec(), view.shape.clone());
    record(
        "CopySlices",
        &[base, value],
        &[],
        &mut [&mut out],
        Box::new(move |g| {
            let g = first(g)?;
            let flat = |t: &Tensor, to: &[usize]| reshape(t, &to.iter().map(|&s| s as i64).collect::<Vec<_>>());
            let z = Tensor::full(&[extent], 0.0, g.dtype, g.device())?;
            let storage = super::kernels::scatter_add(&z, 0, &xi, &reshape(g, &[-1])?)?;
            let inside = flat(&super::kernels::index_select(&storage, 0, &yi)?, &view_shape)?;
            let cleared = super::kernels::scatter_value(&storage, 0, &yi, 0.0)?;
            let outside = flat(&super::kernels::index_select(&cleared, 0, &xi)?, &shape)?;
            Ok(vec![Some(outside), Some(inside)])
        }),
    );
    Ok(out)
}

/// A view that picks some elements of `x` (narrow, select, slice, diagonal): its gradient is
/// zeros with `g` written through the same view (recorded for second derivatives: `picking`).
fn picking_view(x: &Tensor, name: &'static str, f: impl Fn(&Tensor) -> Result<Tensor> + 'static) -> Result<Tensor> {
    picking(x, name, std::rc::Rc::new(f))
}

type Pick = std::rc::Rc<dyn Fn(&Tensor) -> Result<Tensor>>;

/// `picking_view` with the view shared: the backward (the upstream written into zeros at the
/// picked positions) is itself recorded when the backward is (`create_graph`), its own backward
/// picking again — so second derivatives pass through narrow, select, slice and diagonal.
fn picking(x: &Tensor, name: &'static str, f: Pick) -> Result<Tensor> {
    let mut y = f(x)?;
    if needs_grad(&[x]) {
        let (shape, device) = (x.shape().to_vec(), x.device());
        record(
            name,
            &[x],
            &[],
            &mut [&mut y],
            Box::new(move |g| {
                let g = first(g)?;
                let mut z = Tensor::full(&shape, 0.0, g.dtype, device)?;
                f(&z)?.assign_(g)?;
                if needs_grad(&[g]) {
                    let pick = f.clone();
                    record(
                        &format!("{}Backward0", name.trim_end_matches('0')),
                        &[g],
                        &[],
                        &mut [&mut z],
                        Box::new(move |gz| Ok(vec![Some(picking(first(gz)?, name, pick.clone())?)])),
                    );
                }
                Ok(vec![Some(z)])
            }),
        );
    }
    Ok(y)
}

pub fn narrow(x: &Tensor, dim: i64, start: i64, length: i64) -> Result<Tensor> {
    picking_view(x, "NarrowBackward0", move |t| t.narrow(dim, start, length))
}

pub fn select(x: &Tensor, dim: i64, index: i64) -> Result<Tensor> {
    picking_view(x, "SelectBackward0", move |t| t.select(dim, index))
}

pub fn slice(x: &Tensor, dim: i64, start: Option<i64>, end: Option<i64>, step: i64) -> Result<Tensor> {
    picking_view(x, "SliceBackward0", move |t| t.slice(dim, start, end, step))
}

pub fn diagonal(x: &Tensor, offset: i64, d1: i64, d2: i64) -> Result<Tensor> {
    picking_view(x, "DiagonalBackward0", move |t| t.diagonal(offset, d1, d2))
}

pub fn movedim(x: &Tensor, source: &[i64], destination: &[i64]) -> Result<Tensor> {
    // movedim is a permutation: the one that moves an index tensor's dims tells which.
    let n = x.ndim();
    let probe = crate::shape::Layout { shape: vec![1; n], strides: (0..n).collect(), offset: 0 };
    let moved = x.with_layout_pub(probe).movedim(source, destination)?;
    let perm: Vec<i64> = moved.layout.strides.iter().map(|&d| d as i64).collect();
    permute(x, &perm)
}

pub fn flatten(x: &Tensor, start: i64, end: i64) -> Result<Tensor> {
    let target: Vec<i64> = x.flatten(start, end)?.shape().iter().map(|&s| s as i64).collect();
    reshape(x, &target)
}

pub fn unflatten(x: &Tensor, dim: i64, sizes: &[i64]) -> Result<Tensor> {
    let target: Vec<i64> = x.unflatten(dim, sizes)?.shape().iter().map(|&s| s as i64).collect();
    reshape(x, &target)
}

pub fn squeeze_all(x: &Tensor) -> Result<Tensor> {
    let target: Vec<i64> = x.shape().iter().filter(|&&s| s != 1).map(|&s| s as i64).collect();
    reshape(x, &target)
}
