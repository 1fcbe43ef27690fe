//! `F.nll_loss` as one autograd node over the fused kernels (`mod.rs`).
//!
//! NOTE: the backward kernel's result is linear in the loss gradient `g` and does not depend on
//! the input's values, so its own derivative (needed with `create_graph`) is zero with respect
//! to the input and, with respect to `g`, is nll_loss itself applied to the incoming gradient
//! (PyTorch's `nll_loss_backward` derivative): double backward is exact, not an approximation.

use super::NllReduction;
use crate::autograd::kernels::node;
use crate::autograd::needs_grad;
use crate::error::Result;
use crate::tensor::Tensor;

/// `F.nll_loss(x, target, weight, ignore_index, reduction)` with its backward rule
/// (`NllLossBackward0`). No gradient flows to `target` or `weight`, as in PyTorch.
pub fn nll_loss(
    x: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    ignore_index: i64,
    reduction: NllReduction,
) -> Result<Tensor> {
    let (mut y, total) = x.nll_loss(target, weight, ignore_index, reduction)?;
    if needs_grad(&[x]) {
        let (xs, t, w) = (x.detach(), target.clone(), weight.cloned());
        let saved: Vec<&Tensor> = std::iter::once(target).chain(weight).collect();
        node("NllLossBackward0", &[x], &saved, &mut y, move |g| {
            Ok(vec![Some(nll_loss_backward(g, &xs, &t, w.as_ref(), total.as_ref(), ignore_index, reduction)?)])
        });
    }
    Ok(y)
}

/// The input gradient for loss gradient `g`, itself differentiable in `g` (see the NOTE).
fn nll_loss_backward(
    g: &Tensor,
    x: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    total: Option<&Tensor>,
    ignore_index: i64,
    reduction: NllReduction,
) -> Result<Tensor> {
    let mut gx = g.nll_loss_backward(x, target, weight, total, ignore_index, reduction)?;
    if needs_grad(&[g]) {
        let (t, w) = (target.clone(), weight.cloned());
        node("NllLossBackwardBackward0", &[g], &[], &mut gx, move |gg| {
            Ok(vec![Some(nll_loss(gg, &t, w.as_ref(), ignore_index, reduction)?)])
        });
    }
    Ok(gx)
}
