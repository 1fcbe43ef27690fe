//! Reductions over dim lists: the input is viewed as `kept dims ++ reduced dims` (a permutation,
//! no copy) and each backend reduces the trailing group.

use super::Tensor;
use crate::backend::{Reduce, ReduceOp};
use crate::bail;
use crate::dtype::{Compute, DType};
use crate::error::Result;
use crate::shape::{coalesce, wrap_dim};

impl Tensor {
    /// Which dims `dims` names (empty = all), validated and deduplicated as PyTorch does.
    fn reduced_dims(&self, dims: &[i64]) -> Result<Vec<bool>> {
        let n = self.ndim();
        let mut mask = vec![dims.is_empty(); n];
        for &d in dims {
            let w = wrap_dim(d, n)?;
            if n == 0 {
                continue;
            }
            if mask[w] {
                bail!(Torch, "dim {w} appears multiple times in the list of dims");
            }
            mask[w] = true;
        }
        Ok(mask)
    }

    fn reduce(&self, op: ReduceOp, dims: &[i64], keepdim: bool, out_dtype: DType) -> Result<Tensor> {
        let mask = self.reduced_dims(dims)?;
        let (mut outer, mut outer_st, mut inner, mut inner_st) = (vec![], vec![], vec![], vec![]);
        let mut out_shape = vec![];
        for (d, &reduced) in mask.iter().enumerate() {
            let (s, st) = (self.layout.shape[d], self.layout.strides[d]);
            if reduced {
                inner.push(s);
                inner_st.push(st);
                if keepdim {
                    out_shape.push(1);
                }
            } else {
                outer.push(s);
                outer_st.push(st);
                out_shape.push(s);
            }
        }
        let out = Tensor::empty_on(self.backend(), &out_shape, out_dtype)?;
        if out.numel() == 0 {
            return Ok(out);
        }
        let (outer, outer_st) = coalesce(&outer, &[outer_st]);
        let (inner, inner_st) = coalesce(&inner, &[inner_st]);
        let mut input = self.operand(self.shape())?;
        input.strides = outer_st[0].iter().chain(&inner_st[0]).copied().collect();
        let compute = if out_dtype.is_float() { Compute::F32 } else { Compute::I32 };
        self.backend().reduce(&Reduce { op, compute, input, outer, inner, out: out.buf()?, out_dtype })?;
        Ok(out)
    }

    /// `t.sum(dim, keepdim)`; integers and bools sum to int64, as in PyTorch.
    pub fn sum(&self, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        let out = if self.dtype.is_float() { self.dtype } else { DType::Int64 };
        self.reduce(ReduceOp::Sum, dims, keepdim, out)
    }

    /// `t.mean(dim, keepdim)`; floating inputs only, as in PyTorch.
    pub fn mean(&self, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        if !self.dtype.is_float() {
            bail!(
                DType,
                "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {}",
                self.dtype.scalar_name()
            );
        }
        self.reduce(ReduceOp::Mean, dims, keepdim, self.dtype)
    }
}
