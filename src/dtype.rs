//! Data types, their storage, and PyTorch's type promotion.
//!
//! Storage: every dtype is stored as one 32-bit word per element, so one kernel family serves them
//! all. `float16` and `bfloat16` are stored as f32 words holding values already rounded to the
//! type (every kernel computes in f32 and rounds when it stores, as PyTorch computes half types in
//! float32 internally): their results equal PyTorch's, their memory is that of float32
//! (docs/dtypes.md). `int64` is an API dtype stored as a checked 32-bit integer (values
//! outside ±2³¹ are rejected when data enters, see docs/dtypes.md); `uint8` and `bool` are stored
//! as `u32` words holding 0..=255 and 0/1. `float64` exists on the CPU backend only (WebGPU has
//! no f64): two words per element, low word first (the f64's bits), computed in f64; the WebGPU
//! backend refuses it when a tensor would be made (docs/dtypes.md).

use crate::error::Result;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    Float32 = 0,
    Int32 = 1,
    Int64 = 2,
    UInt8 = 3,
    Bool = 4,
    Float16 = 5,
    BFloat16 = 6,
    Float64 = 7,
}

/// The arithmetic a kernel does for a dtype: the WGSL type it computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Compute {
    F32,
    I32,
    U32,
    /// f64 (the CPU backend only: no WGSL kernel computes in it).
    F64,
}

impl Compute {
    pub fn wgsl(self) -> &'static str {
        match self {
            Compute::F32 => "f32",
            Compute::I32 => "i32",
            Compute::U32 => "u32",
            Compute::F64 => "f64",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Compute::F32 | Compute::F64)
    }

    /// The floating compute type of a result stored as `dtype`: f64 for float64, else f32.
    pub fn float_for(dtype: DType) -> Compute {
        if dtype == DType::Float64 {
            Compute::F64
        } else {
            Compute::F32
        }
    }
}

impl DType {
    pub const ALL: [DType; 8] = [
        DType::Float32,
        DType::Int32,
        DType::Int64,
        DType::UInt8,
        DType::Bool,
        DType::Float16,
        DType::BFloat16,
        DType::Float64,
    ];

    pub fn from_code(code: u32) -> Result<DType> {
        match DType::ALL.get(code as usize) {
            Some(d) => Ok(*d),
            None => crate::bail!(DType, "unknown dtype code {code}"),
        }
    }

    pub fn code(self) -> u32 {
        self as u32
    }

    /// PyTorch's spelling, as in `torch.float32`.
    pub fn name(self) -> &'static str {
        match self {
            DType::Float32 => "float32",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::UInt8 => "uint8",
            DType::Bool => "bool",
            DType::Float16 => "float16",
            DType::BFloat16 => "bfloat16",
            DType::Float64 => "float64",
        }
    }

    /// The name PyTorch's C++ kernels use in messages ("not implemented for 'Long'").
    pub fn scalar_name(self) -> &'static str {
        match self {
            DType::Float32 => "Float",
            DType::Int32 => "Int",
            DType::Int64 => "Long",
            DType::UInt8 => "Byte",
            DType::Bool => "Bool",
            DType::Float16 => "Half",
            DType::BFloat16 => "BFloat16",
            DType::Float64 => "Double",
        }
    }

    pub fn compute(self) -> Compute {
        match self {
            DType::Float32 | DType::Float16 | DType::BFloat16 => Compute::F32,
            DType::Int32 | DType::Int64 => Compute::I32,
            DType::UInt8 | DType::Bool => Compute::U32,
            DType::Float64 => Compute::F64,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::Float32 | DType::Float16 | DType::BFloat16 | DType::Float64)
    }

    /// Rounds an f32 to this dtype's precision (identity for float32): what storing does.
    pub fn round_f32(self, x: f32) -> f32 {
        match self {
            DType::Float16 => half::f16::from_f32(x).to_f32(),
            DType::BFloat16 => half::bf16::from_f32(x).to_f32(),
            _ => x,
        }
    }

    pub fn is_int(self) -> bool {
        matches!(self, DType::Int32 | DType::Int64 | DType::UInt8)
    }

    /// Bytes one element takes in storage.
    pub const fn word_bytes(self) -> u64 {
        self.words() as u64 * 4
    }

    /// Storage words one element takes: 2 for float64, else 1.
    pub const fn words(self) -> usize {
        match self {
            DType::Float64 => 2,
            _ => 1,
        }
    }
}

/// Element `at` of a word buffer of float64 (two words an element, low first): the one reader of
/// that layout, for the CPU backend and the families' CPU twins.
pub fn f64_at(words: &[u32], at: usize) -> f64 {
    f64::from_bits(words[2 * at] as u64 | (words[2 * at + 1] as u64) << 32)
}

/// Writes element `at` of a word buffer of float64 (`f64_at`'s layout).
pub fn set_f64(words: &mut [u32], at: usize, v: f64) {
    words[2 * at] = v.to_bits() as u32;
    words[2 * at + 1] = (v.to_bits() >> 32) as u32;
}

/// `torch.promote_types(a, b)`.
pub fn promote_types(a: DType, b: DType) -> DType {
    use DType::*;
    if a == b {
        return a;
    }
    match (a, b) {
        (Float64, _) | (_, Float64) => Float64,
        (Float32, _) | (_, Float32) | (Float16, BFloat16) | (BFloat16, Float16) => Float32,
        (Float16, _) | (_, Float16) => Float16,
        (BFloat16, _) | (_, BFloat16) => BFloat16,
        (Int64, _) | (_, Int64) => Int64,
        (Int32, _) | (_, Int32) => Int32,
        (UInt8, _) | (_, UInt8) => UInt8,
        _ => Bool,
    }
}

/// The kind of a Python scalar operand (`t + 2`, `t * 0.5`, `t & True`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarKind {
    Bool,
    Int,
    Float,
}

impl ScalarKind {
    /// The kind of a JS number: integral values act as Python ints.
    pub fn of(value: f64) -> ScalarKind {
        if value.fract() == 0.0 && value.is_finite() {
            ScalarKind::Int
        } else {
            ScalarKind::Float
        }
    }

    fn default_dtype(self) -> DType {
        match self {
            ScalarKind::Bool => DType::Bool,
            ScalarKind::Int => DType::Int64,
            ScalarKind::Float => DType::Float32,
        }
    }
}

/// PyTorch's `combine_categories`: operands of lower priority (zero-dim tensors below dimensioned
/// ones, Python scalars below both) change the result only when of a higher category
/// (bool < integer < float) than `higher`.
pub fn combine_categories(higher: DType, lower: DType) -> DType {
    if higher.is_float() {
        higher
    } else if higher == DType::Bool || lower.is_float() {
        promote_types(higher, lower)
    } else {
        higher
    }
}

/// `torch.result_type(tensor, scalar)`.
pub fn promote_with_scalar(t: DType, s: ScalarKind) -> DType {
    combine_categories(t, s.default_dtype())
}

/// `torch.result_type(a, b)` of two tensors: a zero-dim tensor yields to a dimensioned one.
pub fn promote_tensors(a: DType, a_zero_dim: bool, b: DType, b_zero_dim: bool) -> DType {
    match (a_zero_dim, b_zero_dim) {
        (true, false) => combine_categories(b, a),
        (false, true) => combine_categories(a, b),
        _ => promote_types(a, b),
    }
}

/// How much an operand of `torch.result_type` counts: dimensioned tensors decide, zero-dim tensors
/// and then Python scalars count only when of a higher category (`combine_categories`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Priority {
    Dimensioned,
    ZeroDim,
    Scalar,
}

/// `torch.result_type` of any operands: each dtype with its priority (a scalar's dtype is its
/// kind's default: bool, int64 or float32). `None` when there are none.
pub fn result_type(operands: &[(DType, Priority)]) -> Option<DType> {
    let level = |p: Priority| operands.iter().filter(|(_, q)| *q == p).map(|(d, _)| *d).reduce(promote_types);
    let mut out: Option<DType> = None;
    for p in [Priority::Dimensioned, Priority::ZeroDim, Priority::Scalar] {
        out = match (out, level(p)) {
            (Some(hi), Some(lo)) => Some(combine_categories(hi, lo)),
            (hi, lo) => hi.or(lo),
        };
    }
    out
}

/// A JS number as `dtype`'s storage bits (`to_word`, and the f64's bits for float64).
pub fn to_elem(x: f64, dtype: DType) -> Result<u64> {
    if dtype == DType::Float64 {
        return Ok(x.to_bits());
    }
    to_word(x, dtype).map(u64::from)
}

/// A JS number as `dtype`'s storage word (a one-word dtype); integer dtypes reject values they
/// cannot hold.
pub fn to_word(x: f64, dtype: DType) -> Result<u32> {
    let int_range = |lo: f64, hi: f64, name: &str| -> Result<i64> {
        if x.is_nan() || x < lo || x > hi {
            crate::bail!(Torch, "value cannot be converted to type {name} without overflow");
        }
        Ok(x.trunc() as i64)
    };
    Ok(match dtype {
        DType::Float32 | DType::Float16 | DType::BFloat16 => dtype.round_f32(x as f32).to_bits(),
        DType::Int32 => int_range(i32::MIN as f64, i32::MAX as f64, "int32_t")? as i32 as u32,
        // int64 is stored in 32 bits (docs/dtypes.md): out-of-range values are an error, not a wrap.
        DType::Int64 => {
            int_range(i32::MIN as f64, i32::MAX as f64, "int64_t (webtorch stores int64 as 32-bit)")? as i32 as u32
        }
        DType::UInt8 => (int_range(-(2f64.powi(63)), 2f64.powi(63), "uint8_t")? as u32) & 255,
        DType::Bool => (x != 0.0) as u32,
        DType::Float64 => crate::bail!(Torch, "internal: a float64 is two storage words (to_elem)"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_follows_pytorch() {
        assert_eq!(promote_types(DType::Int32, DType::Int64), DType::Int64);
        assert_eq!(promote_types(DType::Bool, DType::UInt8), DType::UInt8);
        assert_eq!(promote_types(DType::UInt8, DType::Int32), DType::Int32);
        assert_eq!(promote_types(DType::Int64, DType::Float32), DType::Float32);
        assert_eq!(promote_with_scalar(DType::Int32, ScalarKind::Int), DType::Int32);
        assert_eq!(promote_with_scalar(DType::Int32, ScalarKind::Float), DType::Float32);
        assert_eq!(promote_with_scalar(DType::Bool, ScalarKind::Int), DType::Int64);
        assert_eq!(promote_with_scalar(DType::Float32, ScalarKind::Float), DType::Float32);
        assert_eq!(promote_types(DType::Float16, DType::BFloat16), DType::Float32);
        assert_eq!(promote_types(DType::Float16, DType::Int64), DType::Float16);
        assert_eq!(promote_types(DType::BFloat16, DType::Float32), DType::Float32);
        assert_eq!(promote_with_scalar(DType::BFloat16, ScalarKind::Float), DType::BFloat16);
        assert_eq!(promote_tensors(DType::Int32, false, DType::Float16, true), DType::Float16);
        use Priority::*;
        assert_eq!(result_type(&[(DType::Int32, Dimensioned), (DType::Int64, Scalar)]), Some(DType::Int32));
        assert_eq!(result_type(&[(DType::Int32, Dimensioned), (DType::Float32, Scalar)]), Some(DType::Float32));
        assert_eq!(result_type(&[(DType::UInt8, ZeroDim), (DType::Int64, Scalar)]), Some(DType::UInt8));
        assert_eq!(result_type(&[(DType::Bool, ZeroDim), (DType::Int64, Scalar)]), Some(DType::Int64));
        assert_eq!(result_type(&[(DType::Int64, Scalar), (DType::Float32, Scalar)]), Some(DType::Float32));
        assert_eq!(result_type(&[]), None);
        // float64 wins over every dtype; a float scalar or zero-dim float64 does not widen float32.
        for d in DType::ALL {
            assert_eq!(promote_types(d, DType::Float64), DType::Float64);
        }
        assert_eq!(promote_with_scalar(DType::Float32, ScalarKind::Float), DType::Float32);
        assert_eq!(promote_with_scalar(DType::Float64, ScalarKind::Int), DType::Float64);
        assert_eq!(promote_tensors(DType::Float32, false, DType::Float64, true), DType::Float32);
        assert_eq!(promote_tensors(DType::Int32, false, DType::Float64, true), DType::Float64);
    }
}
