//! int64 without silent wrap. webtorch stores int64 as 32-bit words (docs/dtypes.md): a result
//! that leaves the 32-bit range cannot be stored, and PyTorch would hold it exactly, so it must
//! raise rather than wrap. Each int64 op that can leave the range is shadowed by the same op in
//! float32: without overflow the two agree to float32's rounding (a relative 2⁻²⁰ at most for
//! these ops, under 2¹² at 2³¹); a wrapped result differs from the shadow by a multiple of 2³²
//! less that rounding. The comparison is a value check (`Tensor::check_values`): on the CPU it
//! raises at the call; on a GPU, at the next read or sync, so no wrapped value is ever read.

use super::fusion::Operand;
use super::{Tensor, TensorOrScalar};
use crate::backend::{CheckMessage, Func};
use crate::dtype::{Compute, DType};
use crate::error::{ErrorKind, Result};
use crate::ops::Op;

/// Whether `op` on int64 operands can give a value outside the 32-bit range.
pub(crate) fn can_leave_range(op: Op) -> bool {
    matches!(op, Op::Add | Op::Sub | Op::Mul | Op::Neg | Op::Abs | Op::Square | Op::Pow | Op::FloorDivide)
}

fn message() -> CheckMessage {
    CheckMessage::new(
        ErrorKind::Overflow,
        "int64 result out of range: webtorch stores int64 as 32-bit integers, and this result does not fit (between -2147483648 and 2147483647)",
    )
}

/// Runs `f` with every elementwise op fused whatever its size, so that a result, its shadow and
/// their comparison are one kernel (then the check's, then the result's read of it) rather than a
/// dispatch each.
pub(crate) fn fused<R>(f: impl FnOnce() -> Result<R>) -> Result<R> {
    let prev = crate::engine::tune(|t| std::mem::replace(&mut t.fusion_min_size, 0));
    let r = f();
    crate::engine::tune(|t| t.fusion_min_size = prev);
    r
}

/// `result`, the int64 value of `func(args)`, checked: where it is not what float32 computes for
/// it (it wrapped), the call raises on the CPU, and on a GPU every read of it (or of anything
/// computed from it) raises.
pub(crate) fn checked_elementwise(result: Tensor, args: &[Operand<'_>], func: Func) -> Result<Tensor> {
    let shape = result.shape().to_vec();
    let shadow = super::elementwise::elementwise_op(result.backend(), args, func, Compute::F32, DType::Float32, shape)?;
    checked_against(result, &shadow, &shadow)
}

/// `result` checked against its float32 `shadow`: they may differ by the shadow's rounding,
/// relative to `scale` (`|shadow|` for one op, the sum of magnitudes for a sum).
pub(crate) fn checked_against(result: Tensor, shadow: &Tensor, scale: &Tensor) -> Result<Tensor> {
    let diff = result.to_dtype(DType::Float32)?.binary(Op::Sub, shadow)?.unary(Op::Abs)?;
    let slack = scale.unary(Op::Abs)?.binary_scalar(Op::Mul, 2f64.powi(-14), false)?;
    // Where the slack itself reaches 2³⁰ (magnitudes beyond 2⁴⁴) a wrap could hide in it: that
    // fails too.
    let excess =
        diff.binary(Op::Sub, &slack)?.binary(Op::Maximum, &slack.binary_scalar(Op::Sub, 2f64.powi(30), false)?)?;
    // NaN (an infinite shadow against a wrapped value) fails the check too.
    excess.check_values(f64::NEG_INFINITY, 256.0, None, &message())?;
    // A GPU check marks the checked buffer, and reads of what is computed from it raise: the
    // result is made to read it.
    let seen = excess.unary(Op::Isfinite)?;
    Tensor::where_(&seen, TensorOrScalar::Tensor(&result), TensorOrScalar::Tensor(&result))
}

/// A float → int64 cast of values outside the 32-bit range (or NaN) raises, where PyTorch
/// would hold them.
pub(crate) fn check_cast(x: &Tensor) -> Result<()> {
    let m = CheckMessage::new(
        ErrorKind::Overflow,
        "value cannot be converted to type int64_t (webtorch stores int64 as 32-bit) without overflow: {}",
    );
    // (2147483520 is the largest float32 below 2³¹.)
    x.check_values(-2147483648.0, 2147483520.0, None, &m)
}

/// An int64 sum or product (`op` of `x` computed as `f`, in int64) checked against the same in
/// float32 (`f` of `x` as float32); a sum's rounding is relative to the sum of magnitudes.
pub(crate) fn checked_accumulation(
    result: Tensor,
    x: &Tensor,
    sum: bool,
    f: impl Fn(&Tensor) -> Result<Tensor>,
) -> Result<Tensor> {
    // Bools sum to at most their count, uint8 to 255 times it: within range below 2³¹ / 255
    // elements, nothing to check.
    let bound = match x.dtype {
        DType::Bool => Some(1),
        DType::UInt8 if sum => Some(255),
        _ => None,
    };
    if bound.is_some_and(|b| (x.numel() as u64).saturating_mul(b) <= i32::MAX as u64) {
        return Ok(result);
    }
    fused(|| {
        let xf = x.to_dtype(DType::Float32)?;
        let shadow = f(&xf)?;
        let scale = if sum { f(&xf.unary(Op::Abs)?)? } else { shadow.clone() };
        checked_against(result, &shadow, &scale)
    })
}
