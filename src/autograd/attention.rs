//! Scaled-dot-product attention as one autograd node: `softmax(Q Kᵀ · scale) V`, optionally
//! causal (query `i` attending to keys `j ≤ i`, PyTorch's `is_causal`, top-left aligned).
//!
//! The backend's one-pass kernel runs the forward where it has one (`attention_fused`: the
//! `L × S` scores and probabilities never exist) and the backward then recomputes `P`, as
//! PyTorch's fused attention does, rather than holding it from the forward: from 512 MiB of
//! scores in the backend's two backward kernels (`Tensor::attention_backward_fused`: nothing
//! `L × S` is made), below that or where the backend has no such kernel as
//! `exp(S + mask − lse)`, the score product's epilogue (a causal mask leaf added), in pieces past
//! a byte budget (`recompute`). Otherwise the probabilities come from products and a softmax
//! (the causal row kernel: no mask tensor) and are kept for the backward. Either way the
//! softmax's backward is the `dO Vᵀ` product's epilogue, from each row's `dO · O`, and causal
//! products skip what causality makes zero or unneeded (`Tri`: the scores' tiles above the
//! diagonal, the probabilities' zero half in `P V` and the backward's products). With
//! `create_graph` the backward is composed of differentiable ops instead.

use super::kernels::{causal_softmax, node, softmax};
use super::ops as o;
use super::{is_grad_enabled, needs_grad};
use crate::backend::tuning::{ATTENTION_BACKWARD_BUDGET, ATTENTION_BACKWARD_KERNELS_FROM};
use crate::backend::Tri;
use crate::bail;
use crate::engine;
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
        let (q2, k2, v2, y2, saved_y) = (q.clone(), k.clone(), v.clone(), y.clone(), y.clone());
        let name = if causal { "CausalAttentionBackward0" } else { "AttentionBackward0" };
        // The output is saved too (each row's `dO · O`): writing into it is a version error.
        node(name, &[q, k, v], &[q, k, v, &saved_y], &mut y, move |g| {
            if is_grad_enabled() {
                let (dq, dk, dv) = composed(&q2, &k2, &v2, scale, causal, mask.as_ref(), g)?;
                return sums(&[(&dq, &q2), (&dk, &k2), (&dv, &v2)]);
            }
            // Each row's `Σ_j P_ij dP_ij`, the softmax backward's dot, is `dO · O` (FlashAttention-2):
            // `dS = P ⊙ (dP − dot)` is then the `dO Vᵀ` product's epilogue, no `dP` tensor.
            let dot = g.binary(Op::Mul, &y2)?.sum(&[-1], true)?;
            let (dq, dk, dv) = match &saved {
                Saved::Probs(p, qs) => products(p, qs, &k2, &v2, g, &dot, scale, tri),
                Saved::Lse(lse) => {
                    // Large scores (or past what one binding holds): the backend's kernels where
                    // it has them, nothing `L × S`.
                    let n = q2.ndim();
                    let scores = (q2.shape()[..n - 1].iter().product::<usize>() * k2.shape()[n - 2]) as u64
                        * q2.dtype.word_bytes();
                    let from = match engine::tuning(|t| t.attention_backward_kernels_from) {
                        u64::MAX => u64::MAX,
                        b => b.min(q2.backend().capabilities().max_tensor_bytes),
                    };
                    if scores >= from {
                        let m = mask.as_ref();
                        if let Some((dq, dk, dv)) =
                            q2.attention_backward_fused(&k2, &v2, g, lse, &dot, scale, causal, m)?
                        {
                            return sums(&[(&dq, &q2), (&dk, &k2), (&dv, &v2)]);
                        }
                    }
                    let limit = engine::tuning(|t| t.attention_backward_budget)
                        .min(q2.backend().capabilities().max_tensor_bytes);
                    let (q, k, v, g, lse) = (q2.clone(), k2.clone(), v2.clone(), g.clone(), lse.clone());
                    recompute(&Inputs { q, k, v, g, lse, dot }, mask.as_ref(), scale, causal, limit)
                }
            }?;
            sums(&[(&dq, &q2), (&dk, &k2), (&dv, &v2)])
        });
    }
    Ok(y)
}

/// Each gradient summed to its input's shape (batch dims broadcast).
fn sums(grads: &[(&Tensor, &Tensor)]) -> Result<Vec<Option<Tensor>>> {
    grads.iter().map(|(g, x)| Ok(Some(o::sum_to(g, x.shape())?))).collect()
}

/// What the backward keeps from the forward: the probabilities and the scaled queries, or (the
/// forward was one kernel) each query row's log-sum-exp `(…, L, 1)`.
enum Saved {
    Probs(Tensor, Tensor),
    Lse(Tensor),
}

/// Sets the size of one `L × S` tensor (bytes) from which attention's backward after a
/// one-kernel forward runs the backend's backward kernels rather than products (0: the default,
/// 512 MiB, or the largest tensor a binding holds if less; 1: always where the backend has them;
/// `u64::MAX`: never, the products in pieces past the budget).
pub fn set_attention_backward_kernels_from(bytes: u64) {
    engine::tune(|t| {
        t.attention_backward_kernels_from = if bytes == 0 { ATTENTION_BACKWARD_KERNELS_FROM } else { bytes }
    });
}

/// Sets the bytes of one `L × S` tensor (scores, probabilities, their gradients) the attention
/// backward makes at once after a one-kernel forward (0: the default, 1 GiB); larger problems
/// run in pieces of batch entries or query rows. The backend's binding limit caps it.
pub fn set_attention_backward_budget(bytes: u64) {
    engine::tune(|t| t.attention_backward_budget = if bytes == 0 { ATTENTION_BACKWARD_BUDGET } else { bytes });
}

/// What the forward's products leave to the backward: `dV = Pᵀ dO`, `dS = P ⊙ (dO Vᵀ − dot)`
/// (the softmax's backward as the product's epilogue; 0 above a causal diagonal, where `P` is),
/// `dQ = dS K · scale`, `dK = dSᵀ (Q · scale)`.
#[allow(clippy::too_many_arguments)]
fn products(
    p: &Tensor,
    qs: &Tensor,
    k: &Tensor,
    v: &Tensor,
    g: &Tensor,
    dot: &Tensor,
    scale: f64,
    tri: impl Fn(Tri) -> Tri,
) -> Result<(Tensor, Tensor, Tensor)> {
    let dp = g.matmul_tri_fusable(&v.transpose(-2, -1)?, tri(Tri::LowerOut))?;
    let ds = dp.binary(Op::Sub, dot)?.binary(Op::Mul, p)?;
    let dv = p.transpose(-2, -1)?.matmul_tri(g, tri(Tri::LowerAT))?;
    let dq = ds.matmul_tri(k, tri(Tri::LowerA))?.binary_scalar(Op::Mul, scale, false)?;
    let dk = ds.transpose(-2, -1)?.matmul_tri(qs, tri(Tri::LowerAT))?;
    Ok((dq, dk, dv))
}

/// The backward's inputs after a one-kernel forward: `q (…, L, E)`, `k`, `v`, `g = dO`, each
/// query row's log-sum-exp `lse (…, L, 1)` and `dot = Σ dO ⊙ O (…, L, 1)`, all of the same
/// batch dims.
struct Inputs {
    q: Tensor,
    k: Tensor,
    v: Tensor,
    g: Tensor,
    lse: Tensor,
    dot: Tensor,
}

/// The gradients after a one-kernel forward, `P = exp(S + mask − lse)` recomputed as the score
/// product's epilogue. Where one `L × S` tensor would pass `limit` bytes (memory, or a binding
/// too small for it: 12 heads × 8,192² floats are 3.2 GB) the batch entries run in groups, and
/// where a single entry's scores pass it, its query rows run in chunks (the keys' gradients
/// summed over them), so the backward's working set stays near `limit` per tensor — as the
/// forward never makes `L × S` at all.
fn recompute(
    x: &Inputs,
    mask: Option<&Tensor>,
    scale: f64,
    causal: bool,
    limit: u64,
) -> Result<(Tensor, Tensor, Tensor)> {
    let n = x.q.ndim();
    let (l, s) = (x.q.shape()[n - 2], x.k.shape()[n - 2]);
    let batch = &x.q.shape()[..n - 2];
    let entry = (l * s) as u64 * x.q.dtype.word_bytes();
    let bytes = entry * batch.iter().product::<usize>() as u64;
    if bytes <= limit {
        return recompute_whole(x, mask, scale, causal);
    }
    let Some(d) = batch.iter().position(|&b| b > 1) else {
        return recompute_rows(x, mask, scale, causal, limit);
    };
    // Split the outermost batch dim of more than one entry into the largest groups that fit; an
    // entry still too large splits again (the next dim, or rows). Only one entry of each outer
    // dim is then cut, so the epilogue's leaves (`lse`, `dot`, a mask) keep batch strides that
    // step flatly (`fusion::flat_batches`).
    let size = batch[d];
    let step = ((limit / (bytes / size as u64)) as usize).clamp(1, size);
    let (mut dq, mut dk, mut dv) = (vec![], vec![], vec![]);
    for start in (0..size).step_by(step) {
        let len = step.min(size - start);
        let cut = |t: &Tensor| t.narrow(d as i64, start as i64, len as i64);
        // A mask's dims align from the right; one of size 1 there broadcasts whole.
        let m = match mask {
            Some(m) if m.ndim() + d >= n && m.shape()[m.ndim() + d - n] == size => {
                Some(m.narrow((m.ndim() + d - n) as i64, start as i64, len as i64)?)
            }
            m => m.cloned(),
        };
        let part =
            Inputs { q: cut(&x.q)?, k: cut(&x.k)?, v: cut(&x.v)?, g: cut(&x.g)?, lse: cut(&x.lse)?, dot: cut(&x.dot)? };
        let (a, b, c) = recompute(&part, m.as_ref(), scale, causal, limit)?;
        dq.push(a);
        dk.push(b);
        dv.push(c);
    }
    let cat = |ts: &[Tensor]| Tensor::cat(&ts.iter().collect::<Vec<_>>(), d as i64);
    Ok((cat(&dq)?, cat(&dk)?, cat(&dv)?))
}

fn recompute_whole(x: &Inputs, mask: Option<&Tensor>, scale: f64, causal: bool) -> Result<(Tensor, Tensor, Tensor)> {
    let tri = move |t: Tri| if causal { t } else { Tri::None };
    let qs = x.q.binary_scalar(Op::Mul, scale, false)?;
    let s = qs.matmul_tri_fusable(&x.k.transpose(-2, -1)?, tri(Tri::LowerOut))?;
    let s = match mask {
        Some(m) => s.binary(Op::Add, m)?,
        None if causal => {
            let n = s.ndim();
            s.binary(Op::Add, &causal_mask(s.shape()[n - 2], s.shape()[n - 1], 0, &s)?)?
        }
        None => s,
    };
    let p = s.binary(Op::Sub, &x.lse)?.unary(Op::Exp)?;
    products(&p, &qs, &x.k, &x.v, &x.g, &x.dot, scale, tri)
}

/// One batch entry whose `L × S` passes `limit`: query rows in chunks of `limit` bytes of
/// scores (a multiple of 64 rows where that many fit). A causal chunk reads only the keys its
/// last row sees, its mask offset by its first row; the keys' gradients are summed over chunks.
fn recompute_rows(
    x: &Inputs,
    mask: Option<&Tensor>,
    scale: f64,
    causal: bool,
    limit: u64,
) -> Result<(Tensor, Tensor, Tensor)> {
    let n = x.q.ndim();
    let (l, s) = (x.q.shape()[n - 2], x.k.shape()[n - 2]);
    let row = s as u64 * x.q.dtype.word_bytes();
    let mut chunk = (limit / row).max(1) as usize;
    if chunk >= 64 {
        chunk -= chunk % 64;
    }
    let (mut dq, mut dk, mut dv) = (vec![], None::<Tensor>, None::<Tensor>);
    for r0 in (0..l).step_by(chunk) {
        let rows = chunk.min(l - r0);
        let keys = if causal { (r0 + rows).min(s) } else { s };
        let cut = |t: &Tensor| t.narrow(-2, r0 as i64, rows as i64);
        let part = Inputs {
            q: cut(&x.q)?,
            k: x.k.narrow(-2, 0, keys as i64)?,
            v: x.v.narrow(-2, 0, keys as i64)?,
            g: cut(&x.g)?,
            lse: cut(&x.lse)?,
            dot: cut(&x.dot)?,
        };
        let m = match mask {
            Some(m) if m.ndim() >= 2 && m.shape()[m.ndim() - 2] == l && l > 1 => Some(cut(m)?),
            Some(m) => Some(m.clone()),
            None if causal => Some(causal_mask(rows, keys, r0, &x.q)?),
            None => None,
        };
        let (a, b, c) = recompute_whole(&part, m.as_ref(), scale, false)?;
        dq.push(a);
        // Keys past this chunk's last row get nothing from it: its gradients pad with zeros.
        let grow = |t: Tensor| -> Result<Tensor> {
            if keys == s {
                return Ok(t);
            }
            let mut rest = t.shape().to_vec();
            rest[n - 2] = s - keys;
            Tensor::cat(&[&t, &Tensor::full(&rest, 0.0, t.dtype, t.device())?], -2)
        };
        let add = |acc: Option<Tensor>, t: Tensor| -> Result<Option<Tensor>> {
            let t = grow(t)?;
            Ok(Some(match acc {
                Some(a) => a.binary(Op::Add, &t)?,
                None => t,
            }))
        };
        dk = add(dk, b)?;
        dv = add(dv, c)?;
    }
    let (Some(dk), Some(dv)) = (dk, dv) else {
        bail!(Torch, "attention backward: no query rows to chunk");
    };
    Ok((Tensor::cat(&dq.iter().collect::<Vec<_>>(), -2)?, dk, dv))
}

/// `(rows, keys)` of 0 where query `row0 + i` may see key `j` (`j ≤ row0 + i`) and -inf
/// elsewhere, on `like`'s device.
fn causal_mask(rows: usize, keys: usize, row0: usize, like: &Tensor) -> Result<Tensor> {
    use crate::dtype::{DType, ScalarKind};
    use crate::tensor::TensorOrScalar::Scalar;
    let (r0, dev) = (row0 as f64, like.device());
    let i = Tensor::arange(r0, r0 + rows as f64, 1.0, DType::Float32, dev)?.unsqueeze(1)?;
    let j = Tensor::arange(0.0, keys as f64, 1.0, DType::Float32, dev)?.unsqueeze(0)?;
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
