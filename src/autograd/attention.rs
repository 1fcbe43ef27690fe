//! Scaled-dot-product attention as one autograd node: `softmax(Q Kᵀ · scale) V`, optionally
//! causal (query `i` attending to keys `j ≤ i`, PyTorch's `is_causal`, top-left aligned).
//!
//! The backend's one-pass kernel runs the forward where it has one (`attention_fused`: the
//! `L × S` scores and probabilities never exist) and the backward then recomputes `P`, as
//! PyTorch's fused attention does, rather than holding it from the forward. Otherwise the
//! probabilities come from products and a softmax and are kept for the backward. Causal products
//! skip what causality makes zero or unneeded (`Tri`: the
//! scores' tiles above the diagonal, the probabilities' zero half in `P V` and the backward's
//! four products) and the softmax is the causal row kernel, so no mask tensor is made, read or
//! added. With `create_graph` the backward is composed of differentiable ops instead.

use super::kernels::{causal_softmax, node, softmax};
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
    attention(q, k, v, scale, true, None)
}

/// `F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal, scale=scale)`
/// without dropout (see `causal_attention` for the shapes): `mask` a float tensor added to the
/// scaled scores (-inf: not attended), broadcasting to `(…, L, S)`, not differentiated (a mask
/// that needs a gradient is composed by the caller); at most one of `mask` and `causal`.
pub fn attention(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    scale: f64,
    causal: bool,
    mask: Option<&Tensor>,
) -> Result<Tensor> {
    if q.ndim() < 2 || k.ndim() < 2 || v.ndim() < 2 {
        bail!(
            Shape,
            "attention expects query, key and value of at least 2 dims, but got {}, {} and {}",
            fmt_shape(q.shape()),
            fmt_shape(k.shape()),
            fmt_shape(v.shape())
        );
    }
    if k.shape()[k.ndim() - 2] != v.shape()[v.ndim() - 2] {
        bail!(
            Shape,
            "attention: key {} and value {} must have the same sequence length",
            fmt_shape(k.shape()),
            fmt_shape(v.shape())
        );
    }
    if causal && mask.is_some() {
        bail!(Torch, "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
    }
    let mask = mask.cloned();
    // The products' triangular structure (`Tri::None` throughout when not causal).
    let tri = move |t: Tri| if causal { t } else { Tri::None };
    let m2 = mask.clone();
    let probs = move |qs: &Tensor, k: &Tensor| -> Result<Tensor> {
        let s = qs.matmul_tri(&k.transpose(-2, -1)?, tri(Tri::LowerOut))?;
        match (&m2, causal) {
            (Some(m), _) => s.binary(Op::Add, m)?.softmax(-1),
            (None, true) => s.causal_softmax(),
            (None, false) => s.softmax(-1),
        }
    };
    let grad = needs_grad(&[q, k, v]);
    // The one-pass kernel where the backend has it; its backward recomputes the probabilities
    // (as PyTorch's fused attention does) instead of holding `L × S` of them until then: from the
    // forward's row log-sum-exps, `P = exp(S − lse)` is the score product's epilogue (a causal
    // mask added), with no softmax pass.
    let (mut y, saved) = match q.attention_fused(k, v, scale, causal, mask.as_ref())? {
        Some((y, lse)) => (y, Saved::Lse(lse.unsqueeze(-1)?)),
        None => {
            let qs = q.binary_scalar(Op::Mul, scale, false)?;
            let p = probs(&qs, k)?;
            (p.matmul_tri(v, tri(Tri::LowerA))?, Saved::Probs(p, qs))
        }
    };
    if grad {
        let (q2, k2, v2) = (q.clone(), k.clone(), v.clone());
        let name = if causal { "CausalAttentionBackward0" } else { "AttentionBackward0" };
        node(name, &[q, k, v], &[q, k, v], &mut y, move |g| {
            let (dq, dk, dv) = if is_grad_enabled() {
                composed(&q2, &k2, &v2, scale, causal, mask.as_ref(), g)?
            } else {
                let (p, qs) = match &saved {
                    Saved::Probs(p, qs) => (p.clone(), qs.clone()),
                    Saved::Lse(lse) => {
                        let qs = q2.binary_scalar(Op::Mul, scale, false)?;
                        let s = qs.matmul_tri_fusable(&k2.transpose(-2, -1)?, tri(Tri::LowerOut))?;
                        let s = match &mask {
                            Some(m) => s.binary(Op::Add, m)?,
                            None if causal => s.binary(Op::Add, &causal_mask(&s)?)?,
                            None => s,
                        };
                        (s.binary(Op::Sub, lse)?.unary(Op::Exp)?, qs)
                    }
                };
                let dp = g.matmul_tri(&v2.transpose(-2, -1)?, tri(Tri::LowerOut))?;
                let ds = p.softmax_backward(&dp, -1, false)?;
                let dv = p.transpose(-2, -1)?.matmul_tri(g, tri(Tri::LowerAT))?;
                let dq = ds.matmul_tri(&k2, tri(Tri::LowerA))?.binary_scalar(Op::Mul, scale, false)?;
                let dk = ds.transpose(-2, -1)?.matmul_tri(&qs, tri(Tri::LowerAT))?;
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

/// What the backward keeps from the forward: the probabilities and the scaled queries, or (the
/// forward was one kernel) each query row's log-sum-exp `(…, L, 1)`.
enum Saved {
    Probs(Tensor, Tensor),
    Lse(Tensor),
}

/// `(L, S)` of 0 where query `i` may see key `j` (`j ≤ i`) and -inf elsewhere, for scores `s`
/// `(…, L, S)` on its device.
fn causal_mask(s: &Tensor) -> Result<Tensor> {
    use crate::dtype::{DType, ScalarKind};
    use crate::tensor::TensorOrScalar::Scalar;
    let n = s.ndim();
    let (l, k) = (s.shape()[n - 2], s.shape()[n - 1]);
    let i = Tensor::arange(0.0, l as f64, 1.0, DType::Float32, s.device())?.unsqueeze(1)?;
    let j = Tensor::arange(0.0, k as f64, 1.0, DType::Float32, s.device())?.unsqueeze(0)?;
    let hidden = j.binary(Op::Gt, &i)?;
    Tensor::where_(&hidden, Scalar(f64::NEG_INFINITY, ScalarKind::Float), Scalar(0.0, ScalarKind::Float))
}

/// The backward rule in differentiable ops (for `create_graph`), the probabilities recomputed.
fn composed(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    scale: f64,
    causal: bool,
    mask: Option<&Tensor>,
    g: &Tensor,
) -> Result<(Tensor, Tensor, Tensor)> {
    let qs = o::scale(q, scale)?;
    let s = o::matmul(&qs, &o::transpose(k, -2, -1)?)?;
    let p = match mask {
        Some(m) => softmax(&o::add(&s, m)?, -1)?,
        None if causal => causal_softmax(&s)?,
        None => softmax(&s, -1)?,
    };
    let dp = o::matmul(g, &o::transpose(v, -2, -1)?)?;
    let dot = o::sum(&o::mul(&dp, &p)?, &[-1], true)?;
    let ds = o::mul(&p, &o::sub(&dp, &dot)?)?;
    let dv = o::matmul(&o::transpose(&p, -2, -1)?, g)?;
    let dq = o::scale(&o::matmul(&ds, k)?, scale)?;
    let dk = o::matmul(&o::transpose(&ds, -2, -1)?, &qs)?;
    Ok((dq, dk, dv))
}
