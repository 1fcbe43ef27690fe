//! The convolution descriptors of the backend contract (`Backend::conv2d_row`, `conv2d`): the geometry a backend decides on before anything is allocated, and
//! the kernels' buffers and options.

use super::{BufId, Operand};
use crate::dtype::DType;

/// The shape of a 2-D convolution (or of its weight gradient), all a backend needs to say
/// whether it has a kernel for it (`Backend::conv2d_row`) before the caller allocates anything.
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
    /// `Backend::conv2d_row` asked for, `Cg·kh·kw` or more (the weight's extra columns zero).
    pub row: usize,
    /// The weight gradient's slices of the output positions and images per block
    /// (`Backend::conv2d_splits`): `out` holds `[⌈N / images⌉ · splits, O, row]`, one block per
    /// chunk of images and slice, for the caller to sum. 1 and 1 for the forward.
    pub splits: usize,
    pub images: usize,
}
