//! `RawTensor` methods of the convolution family: convolutions (and their transposes), pooling
//! and batch_norm; another `#[wasm_bindgen] impl` block, like `kernels.rs`. Per-dim arguments are
//! `Int32Array`s (one entry = every dim); optional tensors come with a `use_*` flag (pass any
//! handle when unused), as `layer_norm` does.

use wasm_bindgen::prelude::*;

use super::{dims, JsResult, RawTensor};
use crate::autograd::{conv as agc, pool};
use crate::tensor::conv::Padding;

fn opt(t: &RawTensor, used: bool) -> Option<&crate::tensor::Tensor> {
    Some(&t.t).filter(|_| used)
}

#[wasm_bindgen]
impl RawTensor {
    /// `F.conv{k}d` (k from the weight's rank); `padding_mode`: 0 = the sizes in `padding`,
    /// 1 = `'same'`, 2 = `'valid'`.
    #[allow(clippy::too_many_arguments)]
    pub fn conv(
        &self,
        weight: &RawTensor,
        bias: &RawTensor,
        use_bias: bool,
        stride: &[i32],
        padding: &[i32],
        padding_mode: u32,
        dilation: &[i32],
        groups: i32,
    ) -> JsResult<RawTensor> {
        let pad = match padding_mode {
            1 => Padding::Same,
            2 => Padding::Valid,
            _ => Padding::Explicit(dims(padding)),
        };
        RawTensor::timed("conv", || {
            agc::conv_nd(&self.t, &weight.t, opt(bias, use_bias), &dims(stride), &pad, &dims(dilation), groups as i64)
        })
    }

    /// `F.conv_transpose{k}d(x, weight, bias, stride, padding, output_padding, groups, dilation)`.
    #[allow(clippy::too_many_arguments)]
    pub fn conv_transpose(
        &self,
        weight: &RawTensor,
        bias: &RawTensor,
        use_bias: bool,
        stride: &[i32],
        padding: &[i32],
        output_padding: &[i32],
        groups: i32,
        dilation: &[i32],
    ) -> JsResult<RawTensor> {
        RawTensor::timed("conv_transpose", || {
            agc::conv_transpose_nd(
                &self.t,
                &weight.t,
                opt(bias, use_bias),
                &dims(stride),
                &dims(padding),
                &dims(output_padding),
                groups as i64,
                &dims(dilation),
            )
        })
    }

    /// Constant padding of the trailing dims: `pads` is F.pad's list (last dim first, `lo, hi`
    /// pairs; negative crops).
    pub fn pad_constant(&self, pads: &[i32], value: f64) -> JsResult<RawTensor> {
        let spec: Vec<(i64, i64, usize)> =
            pads.chunks(2).rev().map(|p| (p[0] as i64, p.get(1).copied().unwrap_or(0) as i64, 0)).collect();
        RawTensor::timed("constant_pad_nd", || agc::pad(&self.t, &spec, value))
    }

    /// `F.pad` with mode 1 = reflect, 2 = replicate, 3 = circular (`pads` as `pad_constant`).
    pub fn pad_mode(&self, pads: &[i32], mode: u32) -> JsResult<RawTensor> {
        RawTensor::timed("pad", || agc::pad_mode(&self.t, &dims(pads), mode))
    }

    /// `F.max_pool{k}d`, k = `kernel_size.length`; `stride` empty = the kernel size.
    pub fn max_pool(
        &self,
        kernel_size: &[i32],
        stride: &[i32],
        padding: &[i32],
        dilation: &[i32],
        ceil_mode: bool,
    ) -> JsResult<RawTensor> {
        RawTensor::timed("max_pool", || {
            pool::max_pool(&self.t, &dims(kernel_size), &dims(stride), &dims(padding), &dims(dilation), ceil_mode)
        })
    }

    /// `F.avg_pool{k}d`; `divisor_override` undefined = none.
    pub fn avg_pool(
        &self,
        kernel_size: &[i32],
        stride: &[i32],
        padding: &[i32],
        ceil_mode: bool,
        count_include_pad: bool,
        divisor_override: Option<i32>,
    ) -> JsResult<RawTensor> {
        RawTensor::timed("avg_pool", || {
            pool::avg_pool(
                &self.t,
                &dims(kernel_size),
                &dims(stride),
                &dims(padding),
                ceil_mode,
                count_include_pad,
                divisor_override.map(i64::from),
            )
        })
    }

    /// `F.adaptive_avg_pool{k}d`, k = `output_size.length`.
    pub fn adaptive_avg_pool(&self, output_size: &[i32]) -> JsResult<RawTensor> {
        RawTensor::timed("adaptive_avg_pool", || pool::adaptive_avg_pool(&self.t, &dims(output_size)))
    }

    /// `F.batch_norm`; the running statistics (when used) are updated in place in training.
    #[allow(clippy::too_many_arguments)]
    pub fn batch_norm(
        &self,
        running_mean: &RawTensor,
        use_running_mean: bool,
        running_var: &RawTensor,
        use_running_var: bool,
        weight: &RawTensor,
        use_weight: bool,
        bias: &RawTensor,
        use_bias: bool,
        training: bool,
        momentum: f64,
        eps: f64,
    ) -> JsResult<RawTensor> {
        RawTensor::timed("batch_norm", || {
            pool::batch_norm(
                &self.t,
                opt(running_mean, use_running_mean),
                opt(running_var, use_running_var),
                opt(weight, use_weight),
                opt(bias, use_bias),
                training,
                momentum,
                eps,
            )
        })
    }
}
