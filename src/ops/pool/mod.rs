//! The pooling family's one-kernel route: 2-D float32 max pooling with indices and its input
//! gradient, on devices whose capabilities take the families' one-kernel routes
//! (`Backend::capabilities`); elsewhere `autograd/pool.rs` composes max pooling of windows and
//! `max(dim)`. This file holds the kernels' descriptions and the entry; `max_pool2d.rs` the
//! programs and their dispatch; `max_pool2d.wgsl` and `max_pool2d_backward.wgsl` their WGSL and
//! `cpu.rs` their CPU twins.

mod cpu;
pub mod max_pool2d;

use crate::backend::{BufId, Operand};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// The shape of a 2-D max pooling over `[N, C, H, W]` (`MaxPool2d`): the windows of `kernel`
/// taps `dilation` apart, `stride` apart, from `-pad` on; `out_hw` as PyTorch's
/// `pooling_output_shape` gave it (ceil_mode included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolGeometry {
    /// `[N, C, H, W]` of the input.
    pub input: [usize; 4],
    pub out_hw: [usize; 2],
    pub kernel: [usize; 2],
    pub stride: [usize; 2],
    pub pad: [usize; 2],
    pub dilation: [usize; 2],
}

/// A float32 2-D max pooling, PyTorch's `max_pool2d_with_indices`: `out[n, c, oh, ow]` is the
/// largest of the window's in-bounds values (NaN if any is NaN: a NaN replaces the running
/// maximum, a tie keeps the first), `idx` its position `h·W + w` in the plane (int64 words).
/// `x` strides are `[n, c, h, w]`; `out` and `idx` are contiguous `[N, C, oh, ow]`; `idx` is
/// written only with `indices`.
#[derive(Clone, Debug)]
pub struct MaxPool2d {
    pub g: PoolGeometry,
    pub x: Operand,
    pub out: BufId,
    pub idx: BufId,
    pub indices: bool,
}

/// `MaxPool2d`'s input gradient: `out[n, c, h, w] = Σ grad[n, c, oh, ow]` over the windows whose
/// `idx` is `h·W + w`, in increasing `(oh, ow)` (one invocation per input element, no atomics).
/// `grad` strides are `[n, c, oh, ow]`; `idx` and `out` are contiguous.
#[derive(Clone, Debug)]
pub struct MaxPool2dBackward {
    pub g: PoolGeometry,
    pub grad: Operand,
    pub idx: BufId,
    pub out: BufId,
}

impl Tensor {
    /// 2-D max pooling of an `[N, C, H, W]` float32 tensor in one kernel (`MaxPool2d`), or `None`
    /// where the device composes it instead: the values `[N, C, oh, ow]` and, with `indices`,
    /// each one's position `h·W + w` in its plane (int64).
    pub fn max_pool2d_direct(&self, g: &PoolGeometry, indices: bool) -> Result<Option<(Tensor, Option<Tensor>)>> {
        if self.shape() != g.input || self.dtype != DType::Float32 || self.numel() == 0 {
            return Ok(None);
        }
        let be = self.backend();
        if !be.capabilities().fused_kernels {
            return Ok(None);
        }
        let shape = [g.input[0], g.input[1], g.out_hw[0], g.out_hw[1]];
        let out = Tensor::empty_on(be, &shape, DType::Float32)?;
        // Without indices the kernel still binds a (one-word) buffer there.
        let idx = Tensor::empty_on(be, if indices { &shape[..] } else { &[1] }, DType::Int64)?;
        let k = MaxPool2d {
            g: g.clone(),
            x: self.operand_with(&self.layout.strides)?,
            out: out.buf()?,
            idx: idx.buf()?,
            indices,
        };
        max_pool2d::forward(&**be, &k)?;
        Ok(Some((out, indices.then_some(idx))))
    }

    /// `max_pool2d_direct`'s input gradient: `self` the output's gradient `[N, C, oh, ow]`,
    /// `idx` the forward's indices; `[N, C, H, W]`.
    pub fn max_pool2d_backward_direct(&self, idx: &Tensor, g: &PoolGeometry) -> Result<Tensor> {
        let be = self.backend();
        let out = Tensor::empty_on(be, &g.input, DType::Float32)?;
        let idx = idx.contiguous()?;
        let k = MaxPool2dBackward {
            g: g.clone(),
            grad: self.operand_with(&self.layout.strides)?,
            idx: idx.buf()?,
            out: out.buf()?,
        };
        max_pool2d::backward(&**be, &k)?;
        Ok(out)
    }
}
