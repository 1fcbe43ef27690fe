//! `scatter_reduce` (sum, prod, mean, amax, amin; `include_self`) on the `Scatter` kernel: the
//! reductions run atomically on the GPU (compare-exchange loops on the words where WGSL has no
//! atomic for them). Without `include_self` the scattered-to places first get the reduction's
//! identity (one more scatter), so only the sources count there, as in PyTorch.

use super::Tensor;
use crate::backend::ScatterOp;
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::Op;

/// The reductions of `scatter_reduce`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterReduce {
    Sum,
    Prod,
    Mean,
    Amax,
    Amin,
}

impl ScatterReduce {
    /// PyTorch's names (`"sum"`, `"prod"`, `"mean"`, `"amax"`, `"amin"`, and the `"max"`,
    /// `"min"` it also accepts for the last two), or its error.
    pub fn parse(name: &str) -> Result<ScatterReduce> {
        Ok(match name {
            "sum" => ScatterReduce::Sum,
            "prod" => ScatterReduce::Prod,
            "mean" => ScatterReduce::Mean,
            "amax" | "max" => ScatterReduce::Amax,
            "amin" | "min" => ScatterReduce::Amin,
            _ => bail!(Torch, "reduce argument must be either sum, prod, mean, amax or amin, got {name}"),
        })
    }

    fn op(self) -> ScatterOp {
        match self {
            ScatterReduce::Sum | ScatterReduce::Mean => ScatterOp::Add,
            ScatterReduce::Prod => ScatterOp::Prod,
            ScatterReduce::Amax => ScatterOp::Max,
            ScatterReduce::Amin => ScatterOp::Min,
        }
    }

    /// The value that leaves any other unchanged under the reduction, in `dtype`.
    fn identity(self, dtype: DType) -> f64 {
        let (lowest, highest) = match dtype {
            DType::Bool => (0.0, 1.0),
            DType::UInt8 => (0.0, 255.0),
            // int64 is stored as checked 32-bit (docs/dtypes.md).
            DType::Int32 | DType::Int64 => (i32::MIN as f64, i32::MAX as f64),
            DType::Float32 | DType::Float16 | DType::BFloat16 | DType::Float64 => (f64::NEG_INFINITY, f64::INFINITY),
        };
        match self {
            ScatterReduce::Sum | ScatterReduce::Mean => 0.0,
            ScatterReduce::Prod => 1.0,
            ScatterReduce::Amax => lowest,
            ScatterReduce::Amin => highest,
        }
    }
}

impl Tensor {
    /// `t.scatter_reduce(dim, index, src, reduce, include_self)`: `src` reduced into a copy of
    /// `t` at `index` along `dim`; an integer mean rounds down, as PyTorch's.
    pub fn scatter_reduce(
        &self,
        dim: i64,
        index: &Tensor,
        src: &Tensor,
        reduce: ScatterReduce,
        include_self: bool,
    ) -> Result<Tensor> {
        let base =
            if include_self { self.clone() } else { self.scatter_value(dim, index, reduce.identity(self.dtype))? };
        let out = base.scatter_impl(dim, index, Some(src), 0.0, reduce.op())?;
        if reduce != ScatterReduce::Mean {
            return Ok(out);
        }
        let count = self.scatter_count(dim, index, include_self)?;
        let op = if self.dtype.is_float() { Op::Div } else { Op::FloorDivide };
        out.binary(op, &count.binary_scalar(Op::Maximum, 1.0, false)?)
    }

    /// How many values each place of a `scatter_reduce` result takes in (self's own one with
    /// `include_self`), in self's dtype.
    pub fn scatter_count(&self, dim: i64, index: &Tensor, include_self: bool) -> Result<Tensor> {
        let ones = Tensor::full(index.shape(), 1.0, self.dtype, self.device())?;
        let start = Tensor::full(self.shape(), if include_self { 1.0 } else { 0.0 }, self.dtype, self.device())?;
        start.scatter_add(dim, index, &ones)
    }
}
