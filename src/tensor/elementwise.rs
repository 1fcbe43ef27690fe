//! Elementwise ops: dtype promotion and broadcasting, then one `Elementwise` kernel per op.

use super::Tensor;
use std::rc::Rc;

use super::fusion::{self, Operand};
use crate::backend::{Backend, CheckMessage, Func};
use crate::bail;
use crate::dtype::{promote_tensors, promote_with_scalar, Compute, DType, ScalarKind};
use crate::error::{ErrorKind, Result};
use crate::ops::table::Refuses;
use crate::ops::{Op, ResultKind};
use crate::shape::broadcast_shapes;

/// (compute type, result dtype) of `op` on inputs promoted to `promoted`, or PyTorch's error
/// when the op does not exist for that dtype (`bitwise_and` of floats, `frac` of ints).
fn result_types(op: Op, promoted: DType) -> Result<(Compute, DType)> {
    let info = op.info();
    let compute = match info.kind {
        ResultKind::Float | ResultKind::Same | ResultKind::Bool if promoted.is_float() => Compute::float_for(promoted),
        ResultKind::Float => Compute::F32,
        _ => Compute::I32,
    };
    let out = match info.kind {
        // PyTorch's square is pow(x, 2): a bool base with an integer exponent promotes to int64.
        ResultKind::Same if op == Op::Square && promoted == DType::Bool => DType::Int64,
        ResultKind::Same => promoted,
        ResultKind::Float if promoted.is_float() => promoted,
        ResultKind::Float => DType::Float32,
        ResultKind::Bool => DType::Bool,
    };
    match op.refuses() {
        Refuses::NonFloat(kernel) if !promoted.is_float() => {
            bail!(DType, "\"{kernel}\" not implemented for '{}'", promoted.scalar_name())
        }
        Refuses::Bool(kernel) if promoted == DType::Bool => bail!(DType, "\"{kernel}\" not implemented for 'Bool'"),
        Refuses::BoolSaying(msg) if promoted == DType::Bool => bail!(DType, "{msg}"),
        _ => {}
    }
    // float16/bfloat16 compute in f32, whose neighbouring value is not theirs.
    if op == Op::Nextafter && matches!(promoted, DType::Float16 | DType::BFloat16) {
        bail!(
            DType,
            "nextafter: webtorch computes {} in float32, whose next representable value is not {}'s; cast to float32 first",
            promoted.name(),
            promoted.name()
        );
    }
    if !info.supports(compute) {
        bail!(DType, "\"{}_cpu\" not implemented for '{}'", info.name, promoted.scalar_name());
    }
    Ok((compute, out))
}

/// PyTorch refuses `-` and `relu` on bools rather than guessing what was meant; `bools` counts
/// the bool operands (tensors or scalars) of `op`.
fn check_bool(op: Op, bools: usize) -> Result<()> {
    match (op, bools) {
        (_, 0) => Ok(()),
        (Op::Neg, _) => bail!(
            DType,
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        ),
        (Op::Relu, _) => bail!(DType, "Boolean inputs not supported for relu"),
        (Op::Sub, 2) => bail!(
            DType,
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."
        ),
        (Op::Sub, _) => bail!(
            DType,
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        ),
        _ => Ok(()),
    }
}

fn is_bool(d: DType) -> usize {
    (d == DType::Bool) as usize
}

/// `alpha` of `add`/`sub` must be integral when the result is.
fn check_alpha(result: DType, alpha: f64) -> Result<()> {
    if !result.is_float() && alpha.fract() != 0.0 {
        bail!(DType, "For integral input tensors, argument alpha must not be a floating point number.");
    }
    Ok(())
}

pub(crate) fn check_same_device(a: &Tensor, b: &Tensor) -> Result<()> {
    if a.device() != b.device() {
        bail!(
            Device,
            "Expected all tensors to be on the same device, but found at least two devices, {} and {}!",
            a.device().name(),
            b.device().name()
        );
    }
    Ok(())
}

/// Records `func(args)` over `shape` on `backend`: pending (fused later) on a fusing device when
/// the tensor is large enough, else dispatched now.
pub(crate) fn elementwise_op(
    backend: &Rc<dyn Backend>,
    args: &[Operand<'_>],
    func: Func,
    compute: Compute,
    out_dtype: DType,
    shape: Vec<usize>,
) -> Result<Tensor> {
    super::check_dtype_on(backend.device(), out_dtype)?;
    let n: usize = shape.iter().product();
    if n == 0 {
        return Tensor::empty_on(backend, &shape, out_dtype);
    }
    let (enabled, min_size) = crate::engine::tuning(|t| (t.fusion_enabled && !t.immediate, t.fusion_min_size));
    let fusing = backend.capabilities().fusion && enabled;
    let fuse = fusing && n >= min_size;
    let mut p = fusion::record(args, func, compute, out_dtype, &shape, fuse)?;
    if fuse && p.fits() {
        return Ok(Tensor::pending(backend, p, out_dtype));
    }
    if fuse {
        p = fusion::record(args, func, compute, out_dtype, &shape, false)?;
    }
    if fusing {
        fusion::with_config(|c| c.stats.bypasses += 1);
    }
    Tensor::computed(backend, p, out_dtype)
}

impl Tensor {
    /// `torch.result_type(self, other)`.
    pub fn result_type(&self, other: &Tensor) -> DType {
        promote_tensors(self.dtype, self.ndim() == 0, other.dtype, other.ndim() == 0)
    }

    fn ew(
        &self,
        args: &[Operand<'_>],
        func: Func,
        compute: Compute,
        out_dtype: DType,
        shape: Vec<usize>,
    ) -> Result<Tensor> {
        match (out_dtype, func) {
            (DType::Int64, Func::Op(op)) if super::int64::can_leave_range(op) => super::int64::fused(|| {
                let r = elementwise_op(self.backend(), args, func, compute, out_dtype, shape)?;
                super::int64::checked_elementwise(r, args, func)
            }),
            _ => elementwise_op(self.backend(), args, func, compute, out_dtype, shape),
        }
    }

    /// A unary op-table row.
    pub fn unary(&self, op: Op) -> Result<Tensor> {
        if op.info().arity() != 1 {
            bail!(Torch, "{}() takes two operands", op.info().name);
        }
        check_bool(op, is_bool(self.dtype))?;
        // NOTE: on bools, bitwise_not is logical_not (PyTorch's `~mask`).
        if op == Op::BitwiseNot && self.dtype == DType::Bool {
            return self.unary(Op::LogicalNot);
        }
        let (compute, out) = result_types(op, self.dtype)?;
        self.ew(&[Operand::Tensor(self)], Func::Op(op), compute, out, self.shape().to_vec())
    }

    /// A binary op-table row on two tensors (broadcast, promoted).
    pub fn binary(&self, op: Op, other: &Tensor) -> Result<Tensor> {
        if op.info().arity() != 2 {
            bail!(Torch, "{}() takes one operand", op.info().name);
        }
        check_same_device(self, other)?;
        check_bool(op, is_bool(self.dtype) + is_bool(other.dtype))?;
        let shape = broadcast_shapes(self.shape(), other.shape())?;
        let (compute, out) = result_types(op, self.result_type(other))?;
        let divisor;
        let other = if matches!(op, Op::Fmod | Op::Remainder | Op::FloorDivide) && compute == Compute::I32 {
            divisor = checked_divisor(other)?;
            &divisor
        } else {
            other
        };
        let args = [Operand::Tensor(self), Operand::Tensor(other)];
        self.ew(&args, Func::Op(op), compute, out, shape)
    }

    /// A binary op-table row with a scalar operand; `reverse` puts the scalar on the left.
    /// An integral `value` acts as a Python int (JS cannot tell `2` from `2.0`).
    pub fn binary_scalar(&self, op: Op, value: f64, reverse: bool) -> Result<Tensor> {
        self.binary_scalar_kind(op, value, reverse, ScalarKind::of(value))
    }

    /// `binary_scalar` with the scalar's Python kind given (a JS `true` is a bool scalar).
    pub fn binary_scalar_kind(&self, op: Op, value: f64, reverse: bool, kind: ScalarKind) -> Result<Tensor> {
        if op.info().arity() != 2 {
            bail!(Torch, "{}() takes one operand", op.info().name);
        }
        check_bool(op, is_bool(self.dtype) + (kind == ScalarKind::Bool) as usize)?;
        if op == Op::Pow && !reverse && !self.dtype.is_float() && kind == ScalarKind::Int && value < 0.0 {
            bail!(Torch, "Integers to negative integer powers are not allowed.");
        }
        let promoted = promote_with_scalar(self.dtype, kind);
        let (compute, out) = result_types(op, promoted)?;
        // PyTorch converts an integer scalar to the op's integer dtype, wrapping it: a uint8
        // tensor compared with -1 is compared with 255.
        let value = match (kind, promoted) {
            (ScalarKind::Int, DType::UInt8) => value.rem_euclid(256.0),
            (ScalarKind::Int, DType::Int32) => value as i64 as i32 as f64,
            _ => value,
        };
        // Python's integer division by zero (a tensor divisor: `checked_divisor`).
        if matches!(op, Op::Fmod | Op::Remainder | Op::FloorDivide)
            && compute == Compute::I32
            && value == 0.0
            && !reverse
        {
            bail!(Torch, "ZeroDivisionError");
        }
        let (t, s) = (Operand::Tensor(self), Operand::Scalar(value));
        let args = if reverse { [s, t] } else { [t, s] };
        self.ew(&args, Func::Op(op), compute, out, self.shape().to_vec())
    }

    /// `torch.add(self, other, alpha=…)` / `torch.sub(…)`: `self ± alpha * other`.
    pub fn add_alpha(&self, op: Op, other: &Tensor, alpha: f64) -> Result<Tensor> {
        if alpha == 1.0 {
            return self.binary(op, other);
        }
        check_alpha(self.result_type(other), alpha)?;
        check_bool(op, is_bool(self.dtype) + is_bool(other.dtype))?;
        self.binary(op, &other.binary_scalar(Op::Mul, alpha, false)?)
    }

    /// `add`/`sub` of a scalar with `alpha`: `self ± alpha * value`.
    pub fn add_alpha_scalar(&self, op: Op, value: f64, alpha: f64) -> Result<Tensor> {
        check_alpha(promote_with_scalar(self.dtype, ScalarKind::of(value)), alpha)?;
        self.binary_scalar(op, value * alpha, false)
    }

    /// `t.to(dtype)`: a converting copy (or `self` when the dtype already matches).
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        if dtype == self.dtype {
            return Ok(self.alias());
        }
        if dtype == DType::Int64 && self.dtype.is_float() {
            super::int64::check_cast(self)?;
        }
        let c = self.dtype.compute_for_cast();
        self.ew(&[Operand::Tensor(self)], Func::Cast, c, dtype, self.shape().to_vec())
    }

    /// `t.clone()`: a contiguous copy.
    pub fn deep_clone(&self) -> Result<Tensor> {
        let c = self.dtype.compute_for_cast();
        self.ew(&[Operand::Tensor(self)], Func::Cast, c, self.dtype, self.shape().to_vec())
    }

    /// `t.contiguous()`: `self` if already contiguous, else a copy.
    pub fn contiguous(&self) -> Result<Tensor> {
        if self.layout.is_contiguous() {
            return Ok(self.alias());
        }
        self.deep_clone()
    }
}

impl DType {
    /// The compute type a copy or cast reads this dtype in (exact for every value it holds).
    pub fn compute_for_cast(self) -> Compute {
        if self.is_float() {
            Compute::float_for(self)
        } else {
            Compute::I32
        }
    }
}

/// An integer divisor tensor checked for zeros, PyTorch's `ZeroDivisionError`: at the call on the
/// CPU backend; on WebGPU a value check whose failure comes with the first read of the result, as
/// the divisor the op reads is computed from the checked tensor (which carries its taint; adding
/// its zeros changes no value where the check passes).
fn checked_divisor(other: &Tensor) -> Result<Tensor> {
    // Checked as int32 where the devices' checks take no narrower integers (uint8).
    let word = if other.dtype == DType::UInt8 { DType::Int32 } else { other.dtype };
    let zeros = other.binary_scalar(Op::Eq, 0.0, false)?.to_dtype(word)?;
    zeros.check_values(0.0, 0.0, None, &CheckMessage::new(ErrorKind::Torch, "ZeroDivisionError"))?;
    other.binary(Op::Add, &zeros)?.to_dtype(other.dtype)
}
