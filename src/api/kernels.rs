//! `RawTensor` methods of the hand-written kernel families (reductions beyond sum/mean, row-wise
//! NN kernels, where/masked_fill, joining and indexing); a second `#[wasm_bindgen] impl` block
//! so these families grow without touching the core methods in `tensor.rs`. Dims are `Int32Array`s
//! (empty = all dims), tuple results are arrays of handles.

use wasm_bindgen::prelude::*;

use super::{dims, JsResult, RawTensor};

fn pair(r: crate::Result<(crate::tensor::Tensor, crate::tensor::Tensor)>) -> JsResult<Vec<RawTensor>> {
    super::js(r).map(|(a, b)| vec![RawTensor::wrap(a), RawTensor::wrap(b)])
}

#[wasm_bindgen]
impl RawTensor {
    pub fn prod(&self, dims_: &[i32], keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::op(self.t.prod(&dims(dims_), keepdim))
    }

    pub fn amax(&self, dims_: &[i32], keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::op(self.t.amax(&dims(dims_), keepdim))
    }

    pub fn amin(&self, dims_: &[i32], keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::op(self.t.amin(&dims(dims_), keepdim))
    }

    /// `t.max()` over every element.
    pub fn max_all(&self) -> JsResult<RawTensor> {
        RawTensor::op(self.t.max_all())
    }

    pub fn min_all(&self) -> JsResult<RawTensor> {
        RawTensor::op(self.t.min_all())
    }

    /// `t.max(dim, keepdim)`: `[values, indices]`.
    pub fn max_dim(&self, dim: i32, keepdim: bool) -> JsResult<Vec<RawTensor>> {
        pair(self.t.max_dim(dim as i64, keepdim))
    }

    pub fn min_dim(&self, dim: i32, keepdim: bool) -> JsResult<Vec<RawTensor>> {
        pair(self.t.min_dim(dim as i64, keepdim))
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
        RawTensor::op(self.t.var(&dims(dims_), correction, keepdim))
    }

    pub fn std(&self, dims_: &[i32], correction: f64, keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::op(self.t.std(&dims(dims_), correction, keepdim))
    }

    pub fn logsumexp(&self, dims_: &[i32], keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::op(self.t.logsumexp(&dims(dims_), keepdim))
    }

    /// `torch.linalg.vector_norm(t, p, dim, keepdim)`; `p` may be ±Infinity.
    pub fn norm(&self, p: f64, dims_: &[i32], keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::op(self.t.norm(p, &dims(dims_), keepdim))
    }
}
