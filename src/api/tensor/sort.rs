//! `RawTensor` methods for scans, sorts and binary searches (`autograd/scan.rs`). A dtype
//! argument of -1 means "not given".

use wasm_bindgen::prelude::*;

use super::{super::js, JsResult, RawTensor};
use crate::autograd::scan as ags;
use crate::dtype::DType;

fn opt_dtype(code: i32) -> crate::Result<Option<DType>> {
    if code < 0 {
        Ok(None)
    } else {
        DType::from_code(code as u32).map(Some)
    }
}

fn pair(r: crate::Result<(crate::tensor::Tensor, crate::tensor::Tensor)>) -> JsResult<Vec<RawTensor>> {
    js(r).map(|(a, b)| vec![RawTensor::wrap(a), RawTensor::wrap(b)])
}

#[wasm_bindgen]
impl RawTensor {
    /// `torch.cumsum(t, dim, dtype)`.
    pub fn cumsum(&self, dim: i32, dtype: i32) -> JsResult<RawTensor> {
        RawTensor::timed("cumsum", || ags::cumsum(&self.t, dim as i64, opt_dtype(dtype)?))
    }

    /// `torch.cumprod(t, dim, dtype)`.
    pub fn cumprod(&self, dim: i32, dtype: i32) -> JsResult<RawTensor> {
        RawTensor::timed("cumprod", || ags::cumprod(&self.t, dim as i64, opt_dtype(dtype)?))
    }

    pub fn logcumsumexp(&self, dim: i32) -> JsResult<RawTensor> {
        RawTensor::timed("logcumsumexp", || ags::logcumsumexp(&self.t, dim as i64))
    }

    /// `torch.cummax(t, dim)`: `[values, indices]`.
    pub fn cummax(&self, dim: i32) -> JsResult<Vec<RawTensor>> {
        pair(ags::cumextreme(&self.t, dim as i64, true))
    }

    /// `torch.cummin(t, dim)`: `[values, indices]`.
    pub fn cummin(&self, dim: i32) -> JsResult<Vec<RawTensor>> {
        pair(ags::cumextreme(&self.t, dim as i64, false))
    }

    /// `torch.sort(t, dim, descending)` (stable): `[values, indices]`.
    pub fn sort(&self, dim: i32, descending: bool) -> JsResult<Vec<RawTensor>> {
        pair(ags::sort(&self.t, dim as i64, descending))
    }

    /// `torch.kthvalue(t, k, dim, keepdim)` (`k` checked by the caller): `[values, indices]`.
    pub fn kthvalue(&self, k: u32, dim: i32, keepdim: bool) -> JsResult<Vec<RawTensor>> {
        pair(ags::kthvalue(&self.t, k as usize, dim as i64, keepdim))
    }

    /// `torch.searchsorted(self, values, right, out_int32)`.
    pub fn searchsorted(&self, values: &RawTensor, right: bool, out_int32: bool) -> JsResult<RawTensor> {
        RawTensor::timed("searchsorted", || self.t.searchsorted(&values.t, right, out_int32))
    }
}
