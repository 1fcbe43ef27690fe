//! `F.nll_loss`'s two kernels: their descriptions (`NllLoss`, `NllLossBackward`), their programs
//! (`nll_loss.wgsl`, `nll_loss_backward.wgsl`, with their CPU twins in `cpu.rs`) and the
//! dispatches that run them.

use crate::backend::program::{grid, groups_for, put, Dispatch, Program, WG};
use crate::backend::{Backend, BufId, Operand};
use crate::error::Result;
use crate::ops::wgsl::fill;

const NLL_LOSS: &str = include_str!("nll_loss.wgsl");
const NLL_LOSS_BACKWARD: &str = include_str!("nll_loss_backward.wgsl");

/// How `nll_loss` reduces its per-row losses (PyTorch's `reduction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NllReduction {
    None,
    Sum,
    Mean,
}

/// What `F.nll_loss`'s kernels share: `n` rows of `c` classes, each row's class `target[i]`
/// (`target` strides cover `[n]`; int32/int64/uint8 storage) weighted by `weight[t]` (strides
/// cover `[c]`, any float storage; absent = all 1). A row whose target is `ignore_index` or lies
/// outside `0..c` counts for nothing (a kernel cannot throw: the caller checked the targets).
#[derive(Clone, Debug)]
pub struct NllRows {
    pub target: Operand,
    pub weight: Option<Operand>,
    pub n: usize,
    pub c: usize,
    pub ignore_index: i64,
    pub reduction: NllReduction,
}

/// `F.nll_loss` forward over `input`'s log-probabilities (strides cover `[n, c]`): row i's loss
/// is `-weight[t] · input[i, t]` with `t = target[i]`, 0 (with weight 0) for rows that do not
/// count. `out` (float32, contiguous): `None` → the `n` losses; `Sum` / `Mean` → two words, the
/// reduced loss and the total weight Σ weight[t] (`NllLossBackward`'s divisor for `Mean`;
/// `Mean` is the sum over the total, NaN when both are 0, as PyTorch).
#[derive(Clone, Debug)]
pub struct NllLoss {
    pub input: Operand,
    pub rows: NllRows,
    pub out: BufId,
}

/// `F.nll_loss`'s gradient with respect to its input: `out` (float32, contiguous `[n, c]`) is 0
/// except at (i, target[i]) for rows that count, where it is `-weight[t] · s` with
/// `s = grad[i]` (`None`; `grad` strides cover `[n]`), `grad[0]` (`Sum`) or
/// `grad[0] / total_weight[0]` (`Mean`; `total_weight` is the forward's second word).
#[derive(Clone, Debug)]
pub struct NllLossBackward {
    pub grad: Operand,
    pub total_weight: Option<Operand>,
    pub rows: NllRows,
    pub out: BufId,
}

/// The forward, every reduction: one invocation per row ('none'), or the one workgroup that
/// reduces them ('sum', 'mean'). Writes `out`; reads the input, the targets and the weights.
pub static FORWARD: Program = Program {
    name: "nll_loss",
    wgsl: |_| fill(NLL_LOSS, &[]),
    label: |v| format!("webtorch:nll_loss:{}", if v == 1 { "float64" } else { "float32" }),
    writes: 1,
    writes_whole_output: false,
    cpu: super::cpu::forward,
};

/// The input gradient, one invocation per element. Writes `out`; reads the loss gradient, the
/// targets, the weights and the total weight.
pub static BACKWARD: Program = Program {
    name: "nll_loss_backward",
    wgsl: |_| fill(NLL_LOSS_BACKWARD, &[]),
    label: |v| format!("webtorch:nll_loss_backward:{}", if v == 1 { "float64" } else { "float32" }),
    writes: 1,
    writes_whole_output: false,
    cpu: super::cpu::backward,
};

/// Runs the forward (uniform words: the header of `nll_loss.wgsl`).
pub fn forward(backend: &dyn Backend, k: &NllLoss) -> Result<()> {
    let r = &k.rows;
    let reduce = r.reduction != NllReduction::None;
    let groups = if reduce { 1 } else { groups_for(r.n)? };
    let (gx, gy) = grid(groups);
    let mut meta = [0u32; 16];
    put(&mut meta, 0, &[r.n, r.c])?;
    let w = rows_uniforms(&mut meta, r, &k.input)?;
    put(&mut meta, 4, &[k.input.offset, k.input.strides[0], k.input.strides[1]])?;
    put(&mut meta, 11, &[reduction_word(r.reduction), (gx * WG) as usize])?;
    backend.dispatch(&Dispatch {
        program: &FORWARD,
        variant: float64_variant(k.input.dtype),
        buffers: &[k.out, k.input.buf, r.target.buf, w.buf],
        uniforms: &meta,
        groups: (gx, gy, 1),
    })
}

/// Runs the input gradient (uniform words: the header of `nll_loss_backward.wgsl`).
pub fn backward(backend: &dyn Backend, k: &NllLossBackward) -> Result<()> {
    let r = &k.rows;
    let (gx, gy) = grid(groups_for(r.n * r.c)?);
    let mut meta = [0u32; 16];
    put(&mut meta, 0, &[r.n * r.c, r.c])?;
    let w = rows_uniforms(&mut meta, r, &k.grad)?;
    put(&mut meta, 4, &[k.grad.offset, k.grad.strides[0], reduction_word(r.reduction)])?;
    let total = k.total_weight.as_ref().unwrap_or(&k.grad);
    put(&mut meta, 11, &[total.offset, (gx * WG) as usize])?;
    backend.dispatch(&Dispatch {
        program: &BACKWARD,
        variant: float64_variant(k.grad.dtype),
        buffers: &[k.out, k.grad.buf, r.target.buf, w.buf, total.buf],
        uniforms: &meta,
        groups: (gx, gy, 1),
    })
}

/// The uniform words both kernels read alike (2: ignore_index, 3: weighted, 7–8: target offset
/// and stride, 9–10: weight's); returns the operand bound as the weight (`absent`, unread, when
/// there is none).
fn rows_uniforms<'a>(meta: &mut [u32], r: &'a NllRows, absent: &'a Operand) -> Result<&'a Operand> {
    meta[2] = ignore_word(r.ignore_index, r.c);
    meta[3] = r.weight.is_some() as u32;
    put(meta, 7, &[r.target.offset, r.target.strides[0]])?;
    let w = r.weight.as_ref().unwrap_or(absent);
    put(meta, 9, &[w.offset, w.strides[0]])?;
    Ok(w)
}

/// The ignore_index word: an index outside `0..c` matches no class the kernels count (they skip
/// out-of-range targets anyway), so -1 stands for all of them.
fn ignore_word(ignore_index: i64, c: usize) -> u32 {
    match usize::try_from(ignore_index) {
        Ok(i) if i < c => i as u32,
        _ => -1i32 as u32,
    }
}

/// The programs' variant: 1 for float64 (CPU-only; every float operand and the output are
/// float64), else 0 (float32 results).
fn float64_variant(dtype: crate::dtype::DType) -> u32 {
    (dtype == crate::dtype::DType::Float64) as u32
}

fn reduction_word(r: NllReduction) -> usize {
    match r {
        NllReduction::None => 0,
        NllReduction::Sum => 1,
        NllReduction::Mean => 2,
    }
}
