//! Causal scaled-dot-product attention as one autograd node: `softmax(Q Kᵀ · scale) V` with query
//! `i` attending to keys `j ≤ i` (PyTorch's `is_causal`, top-left aligned). The products skip
//! what causality makes zero or unneeded (`Tri`: the scores' tiles above the diagonal, the
//! probabilities' zero half in `P V` and the backward's four products) and the softmax is the
//! causal row kernel, so no mask tensor is made, read or added. With `create_graph` the backward
//! is composed of differentiable ops instead.

use super::kernels::{causal_softmax, node};
use super::ops as o;
use super::{is_grad_enabled, needs_grad};
use crate::backend::Tri;
use crate::bail;
use crate::error::Result;
use crate::ops::Op;
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// `F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale)` for `q (…, L, E)`,
/// `k (…, S, E)` and `v (…, S, Ev)`, batch dims broadcasting as in `matmul`.
pub fn causal_attention(q: &Tensor, k: &Tensor, v: &Tensor, scale: f64) -> Result<Tensor> {
    if q.ndim() < 2 || k.ndim() < 2 || v.ndim() < 2 {
        bail!(
            Shape,
            "causal attention expects query, key and value of at least 2 dims, but got {}, {} and {}",
            fmt_shape(q.shape()),
            fmt_shape(k.shape()),
            fmt_shape(v.shape())
        );
    }
    if k.shape()[k.ndim() - 2] != v.shape()[v.ndim() - 2] {
        bail!(
            Shape,
            "causal attention: key {} and value {} must have the same sequence length",
            fmt_shape(k.shape()),
            fmt_shape(v.shape())
        );
    }
    let qs = q.binary_scalar(Op::Mul, scale, false)?;
    let p = qs.matmul_tri(&k.transpose(-2, -1)?, Tri::LowerOut)?.causal_softmax()?;
    let mut y = p.matmul_tri(v, Tri::LowerA)?;
    if needs_grad(&[q, k, v]) {
        let (q2, k2, v2) = (q.clone(), k.clone(), v.clone());
        node("CausalAttentionBackward0", &[q, k, v], &[q, k, v], &mut y, move |g| {
            let (dq, dk, dv) = if is_grad_enabled() {
                composed(&q2, &k2, &v2, scale, g)?
            } else {
                let dp = g.matmul_tri(&v2.transpose(-2, -1)?, Tri::LowerOut)?;
                let ds = p.softmax_backward(&dp, -1, false)?;
                let dv = p.transpose(-2, -1)?.matmul_tri(g, Tri::LowerAT)?;
                let dq = ds.matmul_tri(&k2, Tri::LowerA)?.binary_scalar(Op::Mul, scale, false)?;
                let dk = ds.transpose(-2, -1)?.matmul_tri(&qs, Tri::LowerAT)?;
                (dq, dk, dv)
            };
            Ok(vec![
                Some(o::sum_to(&dq, q2.shape())?),
                Some(o::sum_to(&dk, k2.shape())?),
                Some(o::sum_to(&dv, v2.shape())?),
            ])
        });
    }
    Ok(y)
}

/// The backward rule in differentiable ops (for `create_graph`), the probabilities recomputed.
fn composed(q: &Tensor, k: &Tensor, v: &Tensor, scale: f64, g: &Tensor) -> Result<(Tensor, Tensor, Tensor)> {
    let qs = o::scale(q, scale)?;
    let p = causal_softmax(&o::matmul(&qs, &o::transpose(k, -2, -1)?)?)?;
    let dp = o::matmul(g, &o::transpose(v, -2, -1)?)?;
    let dot = o::sum(&o::mul(&dp, &p)?, &[-1], true)?;
    let ds = o::mul(&p, &o::sub(&dp, &dot)?)?;
    let dv = o::matmul(&o::transpose(&p, -2, -1)?, g)?;
    let dq = o::scale(&o::matmul(&ds, k)?, scale)?;
    let dk = o::matmul(&o::transpose(&ds, -2, -1)?, &qs)?;
    Ok((dq, dk, dv))
}
