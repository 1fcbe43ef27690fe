//! The attention family's one-kernel routes: scaled dot-product attention's forward
//! (`forward.rs`: `attention.wgsl`, `attention_tiled.wgsl`) and backward (`backward.rs`:
//! `attention_backward.wgsl`) without `L × S` intermediates, on devices whose capabilities take
//! the families' one-kernel routes (`Backend::capabilities`) and for the shapes `supports` takes;
//! elsewhere `autograd/attention.rs` composes products and a softmax, which is also the CPU
//! backend's route, so these programs have no CPU twin. This file holds the kernels'
//! descriptions; the entries are `Tensor::attention_fused` and `attention_backward_fused`
//! (`tensor/linalg.rs`).

pub mod backward;
pub mod forward;

use crate::backend::{BufId, Operand, Words};
use crate::dtype::DType;
use crate::error::Result;

/// Attention without its `L × S` intermediates: for each of `batch` heads `b = (b0, b1)` with
/// `b1 < heads`, `out[b, i] = Σ_j p_ij v[b, j]` where `p_i = softmax_j(scale · q[b, i]·k[b, j])`
/// over keys `j < s` (and `j ≤ i` when `causal`). Each of `q`, `k`, `v` has strides `[b0, b1,
/// row]` with unit stride along its `e` (`ev`) columns; `out` is contiguous `[batch, l, ev]` and
/// `lse` `[batch, l]`: each row's `log Σ_j exp(scale · q·k_j)` over the keys it sees.
#[derive(Clone, Debug)]
pub struct Attention {
    pub shape: AttentionShape,
    pub lse: BufId,
    /// Added to the scaled scores before the softmax (`-inf`: not attended), read with strides
    /// `[b0, b1, row, col]` (0 where broadcast).
    pub mask: Option<Operand>,
    pub q: Operand,
    pub k: Operand,
    pub v: Operand,
    pub out: BufId,
    pub heads: usize,
    pub scale: f64,
    pub causal: bool,
}

/// Attention's gradients without its `L × S` intermediates, from the forward's row statistics:
/// for the heads of an `Attention` (the same shapes, strides and mask), with the output's
/// gradient `g` (strides as `q`'s, `ev` columns), each query row's log-sum-exp `lse` and
/// `dot = Σ g ⊙ out` (contiguous `[batch, l]` from their offsets), the probabilities
/// `p = exp(scale · q·k + mask − lse)` are recomputed and `dq = scale · Σ_j ds_ij k_j`,
/// `dk = scale · Σ_i ds_ij q_i`, `dv = Σ_i p_ij g_i` with `ds = p ⊙ (g·v_j − dot)`. `dq` is
/// contiguous `[batch, l, e]`; `dkv` holds `dk [batch, s, e]` then `dv [batch, s, ev]`.
#[derive(Clone, Debug)]
pub struct AttentionBackward {
    pub shape: AttentionShape,
    pub q: Operand,
    pub k: Operand,
    pub v: Operand,
    pub g: Operand,
    pub lse: Operand,
    pub dot: Operand,
    pub mask: Option<Operand>,
    pub dq: BufId,
    pub dkv: BufId,
    pub heads: usize,
    pub scale: f64,
    pub causal: bool,
}

/// The sizes of an `Attention`: `batch` heads of `l` queries and `s` keys, head dims `e` (queries
/// and keys) and `ev` (values); what `forward::supports` decides on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttentionShape {
    pub dtype: DType,
    pub batch: usize,
    pub l: usize,
    pub s: usize,
    pub e: usize,
    pub ev: usize,
    /// An additive float mask over the scores (`Attention::mask`).
    pub masked: bool,
}

/// The CPU side of the attention programs: never dispatched there (the CPU backend takes the
/// composed route), refused if it were.
fn no_cpu_twin(_: &mut Words) -> Result<()> {
    crate::bail!(Device, "attention's one-kernel route runs on GPUs; the CPU backend composes attention")
}
