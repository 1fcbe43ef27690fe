//! `RawTensor` methods of the hand-written kernel families (reductions beyond sum/mean, row-wise
//! NN kernels, where/masked_fill, joining and indexing); a second `#[wasm_bindgen] impl` block
//! so these families grow without touching the core methods in `mod.rs`. Dims are `Int32Array`s
//! (empty = all dims), tuple results are arrays of handles.

use wasm_bindgen::prelude::*;

use super::{dims, shape_of, JsResult, RawTensor};
use crate::autograd::kernels as agk;
use crate::dtype::ScalarKind;
use crate::tensor::{ScatterReduce, Tensor, TensorOrScalar};

fn pair(r: crate::Result<(Tensor, Tensor)>) -> JsResult<Vec<RawTensor>> {
    super::js(r).map(|(a, b)| vec![RawTensor::wrap(a), RawTensor::wrap(b)])
}

#[wasm_bindgen]
impl RawTensor {
    pub fn prod(&self, dims_: &[i32], keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::timed("prod", || agk::prod(&self.t, &dims(dims_), keepdim))
    }

    pub fn amax(&self, dims_: &[i32], keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::timed("amax", || agk::amax(&self.t, &dims(dims_), keepdim))
    }

    pub fn amin(&self, dims_: &[i32], keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::timed("amin", || agk::amin(&self.t, &dims(dims_), keepdim))
    }

    /// `t.max()` over every element.
    pub fn max_all(&self) -> JsResult<RawTensor> {
        RawTensor::timed("max", || agk::max_all(&self.t))
    }

    pub fn min_all(&self) -> JsResult<RawTensor> {
        RawTensor::timed("min", || agk::min_all(&self.t))
    }

    /// `t.max(dim, keepdim)`: `[values, indices]`.
    pub fn max_dim(&self, dim: i32, keepdim: bool) -> JsResult<Vec<RawTensor>> {
        pair(agk::extreme_dim(&self.t, dim as i64, keepdim, true))
    }

    pub fn min_dim(&self, dim: i32, keepdim: bool) -> JsResult<Vec<RawTensor>> {
        pair(agk::extreme_dim(&self.t, dim as i64, keepdim, false))
    }

    /// `t.argmax(dim, keepdim)`; `dim` undefined reduces the flattened tensor.
    pub fn argmax(&self, dim: Option<i32>, keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::op(self.t.argmax(dim.map(i64::from), keepdim))
    }

    pub fn argmin(&self, dim: Option<i32>, keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::op(self.t.argmin(dim.map(i64::from), keepdim))
    }

    pub fn all(&self, dims_: &[i32], keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::op(self.t.all(&dims(dims_), keepdim))
    }

    pub fn any(&self, dims_: &[i32], keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::op(self.t.any(&dims(dims_), keepdim))
    }

    pub fn count_nonzero(&self, dims_: &[i32]) -> JsResult<RawTensor> {
        RawTensor::op(self.t.count_nonzero(&dims(dims_)))
    }

    pub fn var(&self, dims_: &[i32], correction: f64, keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::timed("var", || agk::var(&self.t, &dims(dims_), correction, keepdim))
    }

    pub fn std(&self, dims_: &[i32], correction: f64, keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::timed("std", || agk::std(&self.t, &dims(dims_), correction, keepdim))
    }

    pub fn logsumexp(&self, dims_: &[i32], keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::timed("logsumexp", || agk::logsumexp(&self.t, &dims(dims_), keepdim))
    }

    /// `torch.linalg.vector_norm(t, p, dim, keepdim)`; `p` may be ±Infinity.
    pub fn norm(&self, p: f64, dims_: &[i32], keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::timed("norm", || agk::norm(&self.t, p, &dims(dims_), keepdim))
    }

    pub fn softmax(&self, dim: i32) -> JsResult<RawTensor> {
        RawTensor::timed("softmax", || agk::softmax(&self.t, dim as i64))
    }

    pub fn log_softmax(&self, dim: i32) -> JsResult<RawTensor> {
        RawTensor::timed("log_softmax", || agk::log_softmax(&self.t, dim as i64))
    }

    /// Softmax over the last dim of `(…, L, S)` scores, query `i` keeping keys `j ≤ i` (attention's
    /// `is_causal`): one kernel, no mask tensor.
    pub fn causal_softmax(&self) -> JsResult<RawTensor> {
        RawTensor::timed("causal_softmax", || agk::causal_softmax(&self.t))
    }

    /// `F.scaled_dot_product_attention(self, k, v, is_causal, scale)` without a mask or dropout,
    /// as one node (on WebGPU a one-pass forward kernel, no `L × S` scores).
    pub fn attention(&self, k: &RawTensor, v: &RawTensor, scale: f64, causal: bool) -> JsResult<RawTensor> {
        RawTensor::timed("attention", || {
            crate::autograd::attention::attention(&self.t, &k.t, &v.t, scale, causal, None)
        })
    }

    /// `F.scaled_dot_product_attention(self, k, v, attn_mask=mask, scale)` with a float mask added
    /// to the scores (not differentiated) and no dropout, as one node (see `attention`).
    pub fn attention_masked(&self, k: &RawTensor, v: &RawTensor, mask: &RawTensor, scale: f64) -> JsResult<RawTensor> {
        RawTensor::timed("attention", || {
            crate::autograd::attention::attention(&self.t, &k.t, &v.t, scale, false, Some(&mask.t))
        })
    }

    /// `F.layer_norm(t, normalized_shape, weight, bias, eps)`; `weight`/`bias` count only when
    /// `use_weight`/`use_bias` (pass any handle otherwise).
    #[allow(clippy::too_many_arguments)]
    pub fn layer_norm(
        &self,
        normalized_shape: &[i32],
        weight: &RawTensor,
        use_weight: bool,
        bias: &RawTensor,
        use_bias: bool,
        eps: f64,
    ) -> JsResult<RawTensor> {
        let (w, b) = (Some(&weight.t).filter(|_| use_weight), Some(&bias.t).filter(|_| use_bias));
        RawTensor::op(shape_of(normalized_shape).and_then(|s| agk::layer_norm(&self.t, &s, w, b, eps)))
    }

    /// `F.rms_norm(t, normalized_shape, weight, eps)`; `eps` undefined: float32's epsilon.
    pub fn rms_norm(
        &self,
        normalized_shape: &[i32],
        weight: &RawTensor,
        use_weight: bool,
        eps: Option<f64>,
    ) -> JsResult<RawTensor> {
        let w = Some(&weight.t).filter(|_| use_weight);
        RawTensor::op(shape_of(normalized_shape).and_then(|s| agk::rms_norm(&self.t, &s, w, eps)))
    }

    /// `F.nll_loss(self, target, weight, ignore_index, reduction)` for `(C)` / `(N, C)`
    /// log-probabilities: one forward kernel and one backward kernel. `weight` counts only when
    /// `use_weight` (pass any handle otherwise); `reduction` is "none", "sum" or "mean".
    pub fn nll_loss(
        &self,
        target: &RawTensor,
        weight: &RawTensor,
        use_weight: bool,
        ignore_index: f64,
        reduction: &str,
    ) -> JsResult<RawTensor> {
        use crate::ops::loss::NllReduction;
        let w = Some(&weight.t).filter(|_| use_weight);
        RawTensor::timed("nll_loss", || {
            let r = match reduction {
                "none" => NllReduction::None,
                "sum" => NllReduction::Sum,
                "mean" => NllReduction::Mean,
                _ => crate::bail!(Torch, "{reduction} is not a valid value for reduction"),
            };
            crate::ops::loss::autograd::nll_loss(&self.t, &target.t, w, ignore_index as i64, r)
        })
    }

    /// `torch.where(self, x, y)` of two tensors (`self` is the condition).
    pub fn where_tensors(&self, x: &RawTensor, y: &RawTensor) -> JsResult<RawTensor> {
        RawTensor::timed("where", || agk::where_(&self.t, TensorOrScalar::Tensor(&x.t), TensorOrScalar::Tensor(&y.t)))
    }

    /// `torch.where(self, t, value)` (`scalar_first`: `where(self, value, t)`); `kind` of the
    /// scalar: 0 bool, 1 int, 2 float.
    pub fn where_scalar(&self, t: &RawTensor, value: f64, kind: u32, scalar_first: bool) -> JsResult<RawTensor> {
        let (t, s) = (TensorOrScalar::Tensor(&t.t), TensorOrScalar::Scalar(value, scalar_kind(kind)));
        let (x, y) = if scalar_first { (s, t) } else { (t, s) };
        RawTensor::timed("where", || agk::where_(&self.t, x, y))
    }

    /// `torch.where(self, a, b)` of two scalars.
    pub fn where_scalars(&self, a: f64, a_kind: u32, b: f64, b_kind: u32) -> JsResult<RawTensor> {
        let (x, y) = (TensorOrScalar::Scalar(a, scalar_kind(a_kind)), TensorOrScalar::Scalar(b, scalar_kind(b_kind)));
        RawTensor::timed("where", || agk::where_(&self.t, x, y))
    }

    pub fn masked_fill(&self, mask: &RawTensor, value: f64) -> JsResult<RawTensor> {
        RawTensor::timed("masked_fill", || agk::masked_fill(&self.t, &mask.t, value))
    }

    /// PyTorch's precondition on values (`Tensor::check_values`): every value in `[lo, hi]` (NaN
    /// fails) unless it is `except`, else an error of class `kind` ("IndexError", else a
    /// TorchError) with `low` / `high` (below / above; `{}` is the value): thrown here on the
    /// CPU, by the next read or sync on WebGPU.
    pub fn check_values(
        &self,
        lo: f64,
        hi: f64,
        except: Option<f64>,
        kind: &str,
        low: &str,
        high: &str,
    ) -> JsResult<()> {
        let kind = match kind {
            "IndexError" => crate::error::ErrorKind::Index,
            _ => crate::error::ErrorKind::Torch,
        };
        let message = crate::backend::CheckMessage { kind, low: low.to_string(), high: high.to_string() };
        super::js(self.t.check_values(lo, hi, except, &message))
    }

    pub fn index_select(&self, dim: i32, index: &RawTensor) -> JsResult<RawTensor> {
        RawTensor::timed("index_select", || agk::index_select(&self.t, dim as i64, &index.t))
    }

    /// `torch.flip(self, [dim])` for a wrapped `dim`: a gather by host-made reversed positions,
    /// which need no bounds check on the device (`index_select` checks a user's index).
    pub fn flip(&self, dim: u32) -> JsResult<RawTensor> {
        RawTensor::timed("flip", || {
            if dim as usize >= self.t.ndim() {
                crate::bail!(
                    Index,
                    "Dimension out of range (expected to be in range of [{}, {}], but got {dim})",
                    -(self.t.ndim() as i64),
                    self.t.ndim() as i64 - 1
                );
            }
            agk::flip(&self.t, dim as usize)
        })
    }

    pub fn gather(&self, dim: i32, index: &RawTensor) -> JsResult<RawTensor> {
        RawTensor::timed("gather", || agk::gather(&self.t, dim as i64, &index.t))
    }

    /// `torch.take_along_dim(self, indices, dim)`; `dim` undefined: the flattened tensor.
    pub fn take_along_dim(&self, indices: &RawTensor, dim: Option<i32>) -> JsResult<RawTensor> {
        RawTensor::timed("take_along_dim", || agk::take_along_dim(&self.t, &indices.t, dim.map(i64::from)))
    }

    /// `t.scatter(dim, index, src)`.
    pub fn scatter(&self, dim: i32, index: &RawTensor, src: &RawTensor) -> JsResult<RawTensor> {
        RawTensor::timed("scatter", || agk::scatter(&self.t, dim as i64, &index.t, &src.t))
    }

    /// `t.scatter(dim, index, value)`.
    pub fn scatter_value(&self, dim: i32, index: &RawTensor, value: f64) -> JsResult<RawTensor> {
        RawTensor::timed("scatter", || agk::scatter_value(&self.t, dim as i64, &index.t, value))
    }

    pub fn scatter_add(&self, dim: i32, index: &RawTensor, src: &RawTensor) -> JsResult<RawTensor> {
        RawTensor::timed("scatter_add", || agk::scatter_add(&self.t, dim as i64, &index.t, &src.t))
    }

    /// `t.scatter_reduce(dim, index, src, reduce, include_self)`; `reduce` is one of "sum",
    /// "prod", "mean", "amax", "amin".
    pub fn scatter_reduce(
        &self,
        dim: i32,
        index: &RawTensor,
        src: &RawTensor,
        reduce: &str,
        include_self: bool,
    ) -> JsResult<RawTensor> {
        RawTensor::timed("scatter_reduce", || {
            let r = ScatterReduce::parse(reduce)?;
            crate::autograd::scatter_reduce::scatter_reduce(&self.t, dim as i64, &index.t, &src.t, r, include_self)
        })
    }

    /// `torch.poisson(self)`: a draw per element (its gradient is zero).
    pub fn poisson(&self) -> JsResult<RawTensor> {
        RawTensor::timed("poisson", || agk::poisson(&self.t))
    }

    /// `torch.cat(list, dim)`.
    pub fn cat(list: &RawTensorList, dim: i32) -> JsResult<RawTensor> {
        RawTensor::timed("cat", || agk::cat(&list.0.iter().collect::<Vec<_>>(), dim as i64))
    }

    /// `torch.stack(list, dim)`.
    pub fn stack(list: &RawTensorList, dim: i32) -> JsResult<RawTensor> {
        RawTensor::timed("stack", || agk::stack(&list.0.iter().collect::<Vec<_>>(), dim as i64))
    }
}

fn scalar_kind(k: u32) -> ScalarKind {
    match k {
        0 => ScalarKind::Bool,
        1 => ScalarKind::Int,
        _ => ScalarKind::Float,
    }
}

/// A list of tensors for `cat`/`stack` (`Vec<RawTensor>` parameters would take the JS handles'
/// ownership): `push` keeps another view of each tensor; `free()` when done.
#[wasm_bindgen]
#[derive(Default)]
pub struct RawTensorList(Vec<Tensor>);

#[wasm_bindgen]
impl RawTensorList {
    #[wasm_bindgen(constructor)]
    pub fn new() -> RawTensorList {
        RawTensorList::default()
    }

    pub fn push(&mut self, t: &RawTensor) {
        self.0.push(t.t.clone());
    }
}

impl RawTensorList {
    pub(crate) fn tensors(&self) -> &[Tensor] {
        &self.0
    }
}
