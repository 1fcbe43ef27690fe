//! `torch.where(cond, a, b)` and `masked_fill`: a three-operand elementwise node (`Func::Where`),
//! so they fuse with their neighbours like any op-table row. Broadcasting of all three operands
//! and PyTorch's promotion of `a` and `b` (scalars promote as wrapped numbers).

use super::elementwise::{check_same_device, elementwise_op};
use super::fusion::Operand;
use super::Tensor;
use crate::backend::Func;
use crate::bail;
use crate::dtype::{promote_tensors, promote_types, promote_with_scalar, Compute, DType, ScalarKind};
use crate::error::Result;
use crate::shape::broadcast_shapes;

/// An operand of `where`: a tensor or a Python scalar of a kind.
#[derive(Clone, Copy, Debug)]
pub enum TensorOrScalar<'a> {
    Tensor(&'a Tensor),
    Scalar(f64, ScalarKind),
}

impl TensorOrScalar<'_> {
    fn operand(&self) -> Operand<'_> {
        match *self {
            TensorOrScalar::Tensor(t) => Operand::Tensor(t),
            TensorOrScalar::Scalar(x, _) => Operand::Scalar(x),
        }
    }
}

/// The dtype of a Python scalar on its own (`torch.where(c, 1, 0)` is int64).
fn scalar_dtype(k: ScalarKind) -> DType {
    match k {
        ScalarKind::Bool => DType::Bool,
        ScalarKind::Int => DType::Int64,
        ScalarKind::Float => DType::Float32,
    }
}

/// `torch.result_type(a, b)` for tensors and scalars.
fn result_type(a: TensorOrScalar, b: TensorOrScalar) -> DType {
    use TensorOrScalar::*;
    match (a, b) {
        (Tensor(x), Tensor(y)) => promote_tensors(x.dtype, x.ndim() == 0, y.dtype, y.ndim() == 0),
        (Tensor(x), Scalar(_, k)) | (Scalar(_, k), Tensor(x)) => promote_with_scalar(x.dtype, k),
        (Scalar(_, j), Scalar(_, k)) => promote_types(scalar_dtype(j), scalar_dtype(k)),
    }
}

impl Tensor {
    /// `torch.where(cond, a, b)`: `a` where `cond` is true, else `b` (bool or uint8 `cond`).
    pub fn where_(cond: &Tensor, a: TensorOrScalar, b: TensorOrScalar) -> Result<Tensor> {
        if !matches!(cond.dtype, DType::Bool | DType::UInt8) {
            bail!(
                DType,
                "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
                cond.dtype.scalar_name()
            );
        }
        let mut shape = vec![];
        for x in [a, b] {
            if let TensorOrScalar::Tensor(t) = x {
                check_same_device(cond, t)?;
                shape = broadcast_shapes(&shape, t.shape())?;
            }
        }
        let shape = broadcast_shapes(cond.shape(), &shape)?;
        let out = result_type(a, b);
        let compute = if out.is_float() { Compute::float_for(out) } else { Compute::I32 };
        let args = [Operand::Tensor(cond), a.operand(), b.operand()];
        elementwise_op(cond.backend(), &args, Func::Where, compute, out, shape)
    }

    /// `t.masked_fill(mask, value)`: `value` (cast to `t`'s dtype) where `mask` is true.
    pub fn masked_fill(&self, mask: &Tensor, value: f64) -> Result<Tensor> {
        if mask.dtype != DType::Bool {
            let name = match mask.dtype {
                DType::Float32 => "float",
                DType::Int32 => "int",
                DType::Int64 => "long int",
                DType::UInt8 => "unsigned char",
                DType::Bool => "bool",
                DType::Float16 => "c10::Half",
                DType::BFloat16 => "c10::BFloat16",
                DType::Float64 => "double",
            };
            bail!(DType, "masked_fill_ only supports boolean masks, but got mask with dtype {name}");
        }
        check_same_device(self, mask)?;
        let shape = broadcast_shapes(mask.shape(), self.shape())?;
        let compute = self.dtype.compute_for_cast();
        let args = [Operand::Tensor(mask), Operand::Scalar(value), Operand::Tensor(self)];
        elementwise_op(self.backend(), &args, Func::Where, compute, self.dtype, shape)
    }
}
