//! The loss family: `F.nll_loss` as two kernels (`NllLoss`, `NllLossBackward`) instead of a
//! one-hot product and its reductions, which took ~9 dispatches forward and ~8 backward, most of
//! the host time of a small training step. Inputs `(C)` or `(N, C)`, with PyTorch's checks and
//! messages; `ignore_index` rows count for nothing.
//!
//! This file holds the rules and the entries (`Tensor::nll_loss`, `Tensor::nll_loss_backward`);
//! `autograd.rs` the autograd node; `nll.rs` the kernels' descriptions, programs and dispatches;
//! `nll_loss.wgsl` and `nll_loss_backward.wgsl` their WGSL and `cpu.rs` their CPU twins.

pub mod autograd;
mod cpu;
pub mod nll;

pub use nll::{NllLoss, NllLossBackward, NllReduction, NllRows};

use crate::backend::{CheckMessage, Operand};
use crate::bail;
use crate::dtype::DType;
use crate::error::{ErrorKind, Result};
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// The (row, class) strides of `(C)` or `(N, C)` input, and the row count.
fn rows_of(input: &Tensor) -> (usize, [usize; 2]) {
    let s = &input.layout.strides;
    match input.ndim() {
        1 => (1, [0, s[0]]),
        _ => (input.shape()[0], [s[0], s[1]]),
    }
}

/// A vector (or scalar) read one word per row: its stride, 0 for a scalar.
fn vector(t: &Tensor) -> Result<Operand> {
    let stride = t.layout.strides.first().copied().unwrap_or(0);
    t.operand_with(&[stride])
}

/// The rows both nll_loss kernels read: the targets and weights as vectors.
fn nll_rows(
    target: &Tensor,
    weight: Option<&Tensor>,
    n: usize,
    c: usize,
    ignore_index: i64,
    reduction: NllReduction,
) -> Result<NllRows> {
    Ok(NllRows { target: vector(target)?, weight: weight.map(vector).transpose()?, n, c, ignore_index, reduction })
}

impl Tensor {
    /// Checks `nll_loss`'s arguments as PyTorch does; returns the class count.
    fn check_nll(&self, target: &Tensor, weight: Option<&Tensor>) -> Result<usize> {
        if !self.dtype.is_float() {
            bail!(DType, "\"nll_loss_forward_out_frame\" not implemented for '{}'", self.dtype.scalar_name());
        }
        if self.ndim() == 0 || self.ndim() > 2 {
            bail!(Shape, "input tensor should be 1D or 2D");
        }
        if target.ndim() > 1 {
            bail!(Shape, "0D or 1D target tensor expected, multi-target not supported");
        }
        if self.ndim() == 2 && target.ndim() == 1 && self.shape()[0] != target.shape()[0] {
            bail!(
                Shape,
                "Expected input batch_size ({}) to match target batch_size ({}).",
                self.shape()[0],
                target.shape()[0]
            );
        }
        if (self.ndim() == 1) != (target.ndim() == 0) {
            bail!(
                Shape,
                "size mismatch (got input: {}, target: {})",
                fmt_shape(self.shape()),
                fmt_shape(target.shape())
            );
        }
        if !matches!(target.dtype, DType::Int64 | DType::Int32 | DType::UInt8) {
            bail!(DType, "expected target dtype to be Long or Byte, but got {}", target.dtype.scalar_name());
        }
        let c = self.shape()[self.ndim() - 1];
        crate::tensor::check_same_device(self, target)?;
        if let Some(w) = weight {
            if w.ndim() != 1 || w.numel() != c {
                bail!(
                    Shape,
                    "weight tensor should be defined either for all {c} classes or no classes but got weight tensor of shape: {}",
                    fmt_shape(w.shape())
                );
            }
            if !w.dtype.is_float() {
                bail!(DType, "expected weight to be a float tensor, but got {}", w.dtype.scalar_name());
            }
            crate::tensor::check_same_device(self, w)?;
        }
        Ok(c)
    }

    /// `F.nll_loss(self, target, weight, ignore_index, reduction)` of log-probabilities `(C)` or
    /// `(N, C)` at class indices `target` (`()` or `(N)`): the loss (`(N)` for `None`, else a
    /// scalar) and, for `Sum`/`Mean`, the total weight Σ weight[target] of the counted rows
    /// (PyTorch's `total_weight`, which the backward of `Mean` divides by). A target outside
    /// `[0, C)` other than `ignore_index` raises PyTorch's IndexError (on a device, at the next
    /// read or sync).
    pub fn nll_loss(
        &self,
        target: &Tensor,
        weight: Option<&Tensor>,
        ignore_index: i64,
        reduction: NllReduction,
    ) -> Result<(Tensor, Option<Tensor>)> {
        let c = self.check_nll(target, weight)?;
        // The device-side check reads int32/int64 words; a Byte target (which PyTorch takes) is
        // checked through an int32 copy (its words already hold 0–255, the kernels read it as is).
        let widened = if target.dtype == DType::UInt8 { Some(target.to_dtype(DType::Int32)?) } else { None };
        widened.as_ref().unwrap_or(target).check_values(
            0.0,
            c as f64 - 1.0,
            Some(ignore_index as f64),
            &CheckMessage::new(ErrorKind::Index, "Target {} is out of bounds."),
        )?;
        let (n, strides) = rows_of(self);
        let shape: &[usize] = match (reduction, self.ndim()) {
            (NllReduction::None, 2) => &[n],
            (NllReduction::None, _) => &[],
            _ => &[2],
        };
        // The kernel writes float32, or float64 (with float64 weights) for float64 inputs.
        let (out_dtype, weight) = wide_weights(self.dtype, weight)?;
        let out = Tensor::empty_on(self.backend(), shape, out_dtype)?;
        if out.numel() > 0 {
            // The checked tensor, so that the loss depends on its check (the same words as `target`).
            let rows = nll_rows(widened.as_ref().unwrap_or(target), weight.as_ref(), n, c, ignore_index, reduction)?;
            nll::forward(&**self.backend(), &NllLoss { input: self.operand_with(&strides)?, rows, out: out.buf()? })?;
        }
        // The kernel writes float32; half inputs get their loss rounded to their dtype.
        let round = |t: Tensor| if self.dtype == out_dtype { Ok(t) } else { t.to_dtype(self.dtype) };
        match reduction {
            NllReduction::None => Ok((round(out)?, None)),
            _ => Ok((round(out.select(0, 0)?)?, Some(out.select(0, 1)?))),
        }
    }

    /// `nll_loss`'s gradient with respect to `input` for the loss gradient `self` (shaped like
    /// the loss): zeros of `input`'s shape but `-weight[t]·g` at each counted (row, target),
    /// `g / total_weight` for `Mean` (`total_weight` from the forward). One kernel.
    pub fn nll_loss_backward(
        &self,
        input: &Tensor,
        target: &Tensor,
        weight: Option<&Tensor>,
        total_weight: Option<&Tensor>,
        ignore_index: i64,
        reduction: NllReduction,
    ) -> Result<Tensor> {
        let c = input.check_nll(target, weight)?;
        if !self.dtype.is_float() {
            bail!(DType, "nll_loss_backward: expected a float gradient, but got {}", self.dtype.scalar_name());
        }
        let (n, _) = rows_of(input);
        let rows = if reduction == NllReduction::None { n } else { 1 };
        if self.numel() != rows || (reduction == NllReduction::Mean && total_weight.is_none()) {
            bail!(Shape, "nll_loss_backward: grad_output of shape {} does not match the loss", fmt_shape(self.shape()));
        }
        let (out_dtype, weight) = wide_weights(input.dtype, weight)?;
        let out = Tensor::empty_on(input.backend(), input.shape(), out_dtype)?;
        // The float64 kernel reads the loss gradient and the total weight as float64 too.
        let as_out = |t: &Tensor| if t.dtype == out_dtype { Ok(t.clone()) } else { t.to_dtype(out_dtype) };
        let grad_t = as_out(self)?;
        let total_weight = total_weight.map(as_out).transpose()?;
        if out.numel() > 0 {
            // A scalar gradient (sum/mean) is read at stride 0 by every row.
            let grad = if reduction == NllReduction::None { vector(&grad_t)? } else { grad_t.operand_with(&[0])? };
            nll::backward(
                &**input.backend(),
                &NllLossBackward {
                    grad,
                    total_weight: total_weight.as_ref().map(|t| t.operand_with(&[0])).transpose()?,
                    rows: nll_rows(target, weight.as_ref(), n, c, ignore_index, reduction)?,
                    out: out.buf()?,
                },
            )?;
        }
        if input.dtype == out_dtype {
            Ok(out)
        } else {
            out.to_dtype(input.dtype)
        }
    }
}

/// The dtype `nll_loss`'s kernels write for an input of `dtype` — float64 for float64 (the CPU's
/// f64 variant, whose weights are float64 too), else float32 — and the weights as they read them.
fn wide_weights(dtype: DType, weight: Option<&Tensor>) -> Result<(DType, Option<Tensor>)> {
    if dtype != DType::Float64 {
        return Ok((DType::Float32, weight.cloned()));
    }
    let weight = weight.map(|w| if w.dtype == DType::Float64 { Ok(w.clone()) } else { w.to_dtype(DType::Float64) });
    Ok((DType::Float64, weight.transpose()?))
}
