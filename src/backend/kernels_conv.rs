//! The convolution descriptors of the backend contract (`Kernel::Conv2d`): the geometry whose
//! route is decided from the device's `Capabilities` before anything is allocated, and the
//! kernel's buffers and options.

use super::{webgpu, BufId, Capabilities, Operand};
use crate::dtype::DType;

/// The shape of a 2-D convolution (or of its weight gradient), all the route decision needs to
/// say whether a device's kernel takes it (`direct_row`) before the caller allocates anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvGeometry {
    pub dtype: DType,
    /// The weight's gradient (per image) rather than the output.
    pub weight_grad: bool,
    /// `[N, C, H, W]` of the input.
    pub input: [usize; 4],
    /// Output channels and groups.
    pub o: usize,
    pub groups: usize,
    /// Kernel height and width.
    pub kernel: [usize; 2],
    pub stride: [usize; 2],
    pub pad: [usize; 2],
    pub dilation: [usize; 2],
    /// Output height and width.
    pub out_hw: [usize; 2],
}

impl ConvGeometry {
    /// `Cg·kh·kw`: the values of one output channel's weight.
    pub fn weight_row(&self) -> usize {
        self.input[1] / self.groups * self.kernel[0] * self.kernel[1]
    }

    /// The row stride the direct kernels want for this geometry on a device (`Cg·kh·kw` or
    /// more: the caller pads the weight's rows, or sizes the weight gradient's, with zeros), or
    /// `None` where they do not take it (the caller then takes the im2col route). The direct
    /// kernels are the WebGPU ones (`webgpu/conv.rs`, whose tile choice decides); a device
    /// without the one-kernel routes composes.
    pub fn direct_row(&self, caps: &Capabilities) -> Option<usize> {
        caps.fused_kernels.then(|| webgpu::conv::row(self, wg_limit(caps))).flatten()
    }

    /// How the weight gradient of a geometry `direct_row` took (with its `row`) is cut into
    /// blocks, `(images, splits)`: chunks of `images` images summed in one block, slices of the
    /// output positions; `Kernel::Conv2d` then writes `[⌈N / images⌉ · splits, O, row]`.
    pub fn weight_grad_blocks(&self, row: usize, caps: &Capabilities) -> (usize, usize) {
        if caps.fused_kernels {
            webgpu::conv::splits(self, row, wg_limit(caps))
        } else {
            (1, 1)
        }
    }
}

/// The workgroup memory limit as the WebGPU kernels' choices take it (a `u32` there).
fn wg_limit(caps: &Capabilities) -> u32 {
    u32::try_from(caps.workgroup_storage_bytes).unwrap_or(u32::MAX)
}

/// A float32 2-D convolution read straight from its input (implicit GEMM): per image and group,
/// `out[n, g·Og + o, l] = Σ_k w[g·Og + o, k] · x[n, g·Cg + c, y, x]`, with `k = (c, i, j)` over
/// `Cg × kh × kw`, `l = (oy, ox)` over the output positions, `y = oy·stride[0] + i·dilation[0] −
/// pad[0]` (zero outside the input) and likewise `x`. `x` strides are `[n, c, h, w]`; `w` is
/// contiguous `[O, row]` from `w_offset` (a multiple of 4); `out` is contiguous `[N, O, oh, ow]`.
///
/// With `weight_grad`, the weight's gradient per image instead: `w` holds the output's gradient
/// `dy` (contiguous `[N, O, oh·ow]` from `w_offset`) and `out[n, g·Og + o, k] = Σ_l dy[n, g·Og +
/// o, l] · x[n, g·Cg + c, y, x]` (contiguous `[N, O, row]`; the caller sums over `n`).
#[derive(Clone, Debug)]
pub struct Conv2d {
    pub g: ConvGeometry,
    pub x: Operand,
    pub w: BufId,
    pub w_offset: usize,
    pub out: BufId,
    /// The row stride of the weight (forward) or of `out` (weight gradient): what
    /// `ConvGeometry::direct_row` asked for, `Cg·kh·kw` or more (the weight's extra columns zero).
    pub row: usize,
    /// The weight gradient's slices of the output positions and images per block
    /// (`ConvGeometry::weight_grad_blocks`): `out` holds `[⌈N / images⌉ · splits, O, row]`, one block per
    /// chunk of images and slice, for the caller to sum. 1 and 1 for the forward.
    pub splits: usize,
    pub images: usize,
}
