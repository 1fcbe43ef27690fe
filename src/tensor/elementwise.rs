//! Elementwise ops: dtype promotion and broadcasting, then one `Elementwise` kernel per op.

use super::Tensor;
use crate::backend::{Elementwise, Func, Input};
use crate::bail;
use crate::dtype::{promote_types, promote_with_scalar, Compute, DType, ScalarKind};
use crate::error::Result;
use crate::ops::{Op, ResultKind};
use crate::shape::broadcast_shapes;

/// (compute type, result dtype) of `op` on inputs promoted to `promoted`.
fn result_types(op: Op, promoted: DType) -> (Compute, DType) {
    let info = op.info();
    let compute = match info.kind {
        ResultKind::Float => Compute::F32,
        _ if promoted.is_float() => Compute::F32,
        _ => Compute::I32,
    };
    let out = match info.kind {
        ResultKind::Same => promoted,
        ResultKind::Float => DType::Float32,
        ResultKind::Bool => DType::Bool,
    };
    (compute, out)
}

/// PyTorch refuses arithmetic `-` on bools rather than guessing between xor and a wrap.
fn check_bool(op: Op, dtypes: &[DType]) -> Result<()> {
    if dtypes.iter().all(|d| *d == DType::Bool) {
        match op {
            Op::Neg => bail!(
                DType,
                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
            ),
            Op::Sub => bail!(
                DType,
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."
            ),
            _ => {}
        }
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

impl Tensor {
    fn run_elementwise(
        &self,
        func: Func,
        compute: Compute,
        inputs: Vec<Input>,
        shape: Vec<usize>,
        out_dtype: DType,
    ) -> Result<Tensor> {
        let out = Tensor::empty_on(self.backend(), &shape, out_dtype)?;
        if out.numel() > 0 {
            self.backend().elementwise(&Elementwise {
                func,
                compute,
                inputs,
                shape,
                out: out.buf(),
                out_dtype,
            })?;
        }
        Ok(out)
    }

    /// A unary op-table row.
    pub fn unary(&self, op: Op) -> Result<Tensor> {
        if op.info().arity() != 1 {
            bail!(Torch, "{}() takes two operands", op.info().name);
        }
        check_bool(op, &[self.dtype])?;
        let (compute, out) = result_types(op, self.dtype);
        let shape = self.shape().to_vec();
        self.run_elementwise(
            Func::Op(op),
            compute,
            vec![Input::Tensor(self.operand(&shape))],
            shape,
            out,
        )
    }

    /// A binary op-table row on two tensors (broadcast, promoted).
    pub fn binary(&self, op: Op, other: &Tensor) -> Result<Tensor> {
        if op.info().arity() != 2 {
            bail!(Torch, "{}() takes one operand", op.info().name);
        }
        check_same_device(self, other)?;
        check_bool(op, &[self.dtype, other.dtype])?;
        let shape = broadcast_shapes(self.shape(), other.shape())?;
        let (compute, out) = result_types(op, promote_types(self.dtype, other.dtype));
        let inputs = vec![
            Input::Tensor(self.operand(&shape)),
            Input::Tensor(other.operand(&shape)),
        ];
        self.run_elementwise(Func::Op(op), compute, inputs, shape, out)
    }

    /// A binary op-table row with a scalar operand; `reverse` puts the scalar on the left.
    pub fn binary_scalar(&self, op: Op, value: f64, reverse: bool) -> Result<Tensor> {
        if op.info().arity() != 2 {
            bail!(Torch, "{}() takes one operand", op.info().name);
        }
        let kind = ScalarKind::of(value);
        let promoted = promote_with_scalar(self.dtype, kind);
        let (compute, out) = result_types(op, promoted);
        let shape = self.shape().to_vec();
        let t = Input::Tensor(self.operand(&shape));
        let inputs = if reverse {
            vec![Input::Scalar(value), t]
        } else {
            vec![t, Input::Scalar(value)]
        };
        self.run_elementwise(Func::Op(op), compute, inputs, shape, out)
    }

    /// `t.to(dtype)`: a converting copy (or `self` when the dtype already matches).
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        if dtype == self.dtype {
            return Ok(self.clone());
        }
        let shape = self.shape().to_vec();
        self.run_elementwise(
            Func::Cast,
            self.dtype.compute_for_cast(),
            vec![Input::Tensor(self.operand(&shape))],
            shape,
            dtype,
        )
    }

    /// `t.clone()`: a contiguous copy.
    pub fn deep_clone(&self) -> Result<Tensor> {
        let shape = self.shape().to_vec();
        self.run_elementwise(
            Func::Cast,
            self.dtype.compute_for_cast(),
            vec![Input::Tensor(self.operand(&shape))],
            shape,
            self.dtype,
        )
    }

    /// `t.contiguous()`: `self` if already contiguous, else a copy.
    pub fn contiguous(&self) -> Result<Tensor> {
        if self.layout.is_contiguous() {
            return Ok(self.clone());
        }
        self.deep_clone()
    }
}

impl DType {
    /// The compute type a copy or cast reads this dtype in (exact for every value it holds).
    pub fn compute_for_cast(self) -> Compute {
        if self.is_float() {
            Compute::F32
        } else {
            Compute::I32
        }
    }
}
