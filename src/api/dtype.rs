//! Dtype promotion for the TS layer: `torch.promote_types` and `torch.result_type` answer from
//! the same rules the ops use (crate::dtype), so the two layers cannot disagree.

use wasm_bindgen::prelude::*;

use crate::dtype::{self, DType, Priority};
use crate::error::Error;

/// `torch.promote_types(a, b)` on dtype codes.
#[wasm_bindgen]
pub fn promote_types(a: u32, b: u32) -> Result<u32, JsValue> {
    Ok(dtype::promote_types(code(a)?, code(b)?).code())
}

/// `torch.result_type` of operands given as pairs of a dtype code and a priority (0: a tensor
/// with dims, 1: a zero-dim tensor, 2: a scalar, whose dtype is its kind's default).
#[wasm_bindgen]
pub fn result_type(operands: &[u32]) -> Result<u32, JsValue> {
    let mut list = Vec::with_capacity(operands.len() / 2);
    for pair in operands.chunks(2) {
        let priority = match pair.get(1) {
            Some(0) => Priority::Dimensioned,
            Some(1) => Priority::ZeroDim,
            _ => Priority::Scalar,
        };
        list.push((code(pair[0])?, priority));
    }
    dtype::result_type(&list).map(DType::code).ok_or_else(|| {
        super::to_js(Error::new(crate::error::ErrorKind::Torch, "result_type() needs at least one operand"))
    })
}

fn code(c: u32) -> Result<DType, JsValue> {
    DType::from_code(c).map_err(super::to_js)
}
