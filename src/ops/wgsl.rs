//! WGSL text helpers shared by the op families' programs and the WebGPU backend's own kernels:
//! filling a template's named holes (`/*{{NAME}}*/`) and the dtype conversions the templates
//! splice in. Plain strings: nothing here depends on a GPU API.

use crate::dtype::{Compute, DType};

/// Every kernel's prelude: the uniform slot and `m(i)`, the NaN/inf helpers, the half roundings.
pub const COMMON: &str = include_str!("../../shaders/common.wgsl");
/// The special functions of the op table (`ops/math.rs` has their CPU twins).
pub const MATH: &str = include_str!("../../shaders/math.wgsl");

/// `template` with its holes filled, after the common helpers.
pub fn fill(template: &str, holes: &[(&str, &str)]) -> String {
    let mut s = template.to_string();
    for (name, value) in holes {
        s = s.replace(&format!("/*{{{{{name}}}}}*/"), value);
    }
    debug_assert!(!s.contains("/*{{"), "unfilled hole in:\n{s}");
    format!("{COMMON}\n{s}")
}

/// The WGSL element type a dtype is stored as.
pub fn storage_type(d: DType) -> &'static str {
    match d {
        DType::Float32 | DType::Float16 | DType::BFloat16 => "f32",
        DType::Int32 | DType::Int64 => "i32",
        DType::UInt8 | DType::Bool => "u32",
        // No WGSL kernel sees float64 (the WebGPU backend refuses it); WGSL has no f64, so a
        // kernel that did would fail to compile rather than compute.
        DType::Float64 => "f64",
    }
}

/// `v` (of compute type `c`) converted to `out`'s storage type (twin of `store` in `cpu/mod.rs`).
pub fn store(v: &str, c: Compute, out: DType) -> String {
    match (c, out) {
        (Compute::F32, DType::Float32) | (Compute::I32, DType::Int32 | DType::Int64) => v.to_string(),
        (Compute::I32, DType::Float32) => format!("f32({v})"),
        // Half types are f32 words holding values rounded to the type (dtype.rs).
        (Compute::F32, DType::Float16) => format!("round_f16({v})"),
        (Compute::F32, DType::BFloat16) => format!("round_bf16({v})"),
        (Compute::I32, DType::Float16) => format!("round_f16(f32({v}))"),
        (Compute::I32, DType::BFloat16) => format!("round_bf16(f32({v}))"),
        (Compute::F32, DType::Int32 | DType::Int64) => format!("i32({v})"),
        (Compute::F32, DType::UInt8) => format!("u32(i32({v})) & 255u"),
        (Compute::I32, DType::UInt8) => format!("u32({v}) & 255u"),
        // NaN is truthy; `isnan_f32` keeps compilers that assume no NaNs honest.
        (Compute::F32, DType::Bool) => format!("select(0u, 1u, {v} != 0.0 || isnan_f32({v}))"),
        (_, DType::Bool) => format!("select(0u, 1u, {v} != {}(0))", c.wgsl()),
        (Compute::U32, _) => format!("{}({v})", storage_type(out)),
        (Compute::F64, _) | (_, DType::Float64) => format!("f64({v})"),
    }
}

/// `x` (stored as `d`) converted to compute type `c`.
pub fn load(x: &str, d: DType, c: Compute) -> String {
    if storage_type(d) == c.wgsl() {
        x.to_string()
    } else {
        format!("{}({x})", c.wgsl())
    }
}
