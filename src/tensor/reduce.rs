//! Reductions over dim lists: the input is viewed as `kept dims ++ reduced dims` (a permutation,
//! no copy) and each backend reduces the trailing group (`backend::Reduce`). PyTorch's dtype
//! rules and messages per op: sum/prod accumulate integers in int64; mean/var/std/norm want
//! floats; max/min/argmax/argmin have no identity, so an empty reduced dim is an error.

use super::{fusion, Pending, Tensor};
use crate::backend::{Kernel, Operand, Prologue, Reduce, ReduceOp};
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
        self.reduce_with(op, dims, keepdim, out_dtype, 0.0)
    }

    fn reduce_with(&self, op: ReduceOp, dims: &[i64], keepdim: bool, out_dtype: DType, param: f64) -> Result<Tensor> {
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
        let (raw_outer, raw_inner) = (outer.clone(), inner.clone());
        let (outer, outer_st) = coalesce(&outer, &[outer_st]);
        let (inner, inner_st) = coalesce(&inner, &[inner_st]);
        // Floats compute in f32 (integer logsumexp too), float64 in f64; integers and bools in i32.
        let compute = if self.dtype == DType::Float64 || out_dtype == DType::Float64 {
            Compute::F64
        } else if self.dtype.is_float() || out_dtype.is_float() {
            Compute::F32
        } else {
            Compute::I32
        };
        // A long reduction into few outputs would run on few workgroups: split it in two passes
        // (chunks of `len`, then the chunks), each output still the same sum or mean. The
        // longest chunks that still give ≥ 1,024 of them (about one wave of 256-invocation
        // workgroups on a large GPU): long chunks spend less of the first pass in its tree
        // (bench/KERNELS.md: 16M floats in 1,024 chunks of 16,384, not 4,096 of 4,096).
        let n_out: usize = outer.iter().product();
        let split = match (op, &inner[..]) {
            (ReduceOp::Sum | ReduceOp::Mean, [r]) if n_out < 1024 && *r >= 1 << 16 => {
                let lens = [16384, 8192, 4096, 2048, 1024, 512, 256];
                let divides = |len: &usize| r % len == 0;
                lens.into_iter()
                    .find(|len| divides(len) && n_out * (r / len) >= 1024)
                    .or_else(|| lens.into_iter().rev().find(divides))
            }
            _ => None,
        };
        if let Some(p) = fusion::reduction_prologue(self) {
            let dims = (raw_outer, raw_inner);
            if let Some(out) = self.reduce_fused(&p, op, &mask, dims, out.clone(), (compute, param), split)? {
                return Ok(out);
            }
        }
        let mut input = self.operand(self.shape())?;
        input.strides = outer_st[0].iter().chain(&inner_st[0]).copied().collect();
        if let Some(len) = split {
            let (r, s) = (inner[0], inner_st[0][0]);
            let chunks = r / len;
            let mut mid_shape = outer.clone();
            mid_shape.push(chunks);
            // Partial results stay float32 for half outputs (PyTorch accumulates them in f32).
            let mid_dtype = if out_dtype.is_float() { DType::Float32 } else { out_dtype };
            let mid = Tensor::empty_on(self.backend(), &mid_shape, mid_dtype)?;
            let mut first = input.clone();
            first.strides = outer_st[0].iter().copied().chain([len * s, s]).collect();
            let k = Reduce {
                op,
                compute,
                input: first,
                outer: mid_shape.clone(),
                inner: vec![len],
                out: mid.buf()?,
                out_dtype,
                param,
                prologue: None,
            };
            self.backend().launch(Kernel::Reduce(&k))?;
            let mut second = mid.operand(&mid_shape)?;
            second.strides = crate::shape::contiguous_strides(&mid_shape);
            let k = Reduce {
                op,
                compute,
                input: second,
                outer,
                inner: vec![chunks],
                out: out.buf()?,
                out_dtype,
                param,
                prologue: None,
            };
            self.backend().launch(Kernel::Reduce(&k))?;
            return Ok(out);
        }
        let k = Reduce { op, compute, input, outer, inner, out: out.buf()?, out_dtype, param, prologue: None };
        self.backend().launch(Kernel::Reduce(&k))?;
        Ok(out)
    }

    /// One kernel computing the pending expression `p` (this tensor's value) and reducing it:
    /// each leaf is read with its strides split into kept and reduced dims like the input's.
    /// A two-pass reduction (`split`: chunks of that length) fuses `p` into its first pass when
    /// every leaf reads the reduced dims as one strided run; else `None` (the caller computes
    /// `p` first).
    #[allow(clippy::too_many_arguments)]
    fn reduce_fused(
        &self,
        p: &Pending,
        op: ReduceOp,
        mask: &[bool],
        (outer, inner): (Vec<usize>, Vec<usize>),
        out: Tensor,
        (compute, param): (Compute, f64),
        split: Option<usize>,
    ) -> Result<Option<Tensor>> {
        let part = |strides: &[usize], reduced: bool| -> Vec<usize> {
            strides.iter().zip(mask).filter(|(_, &m)| m == reduced).map(|(&s, _)| s).collect()
        };
        let outer_sts: Vec<Vec<usize>> = p.leaves.iter().map(|l| part(&l.strides, false)).collect();
        let inner_sts: Vec<Vec<usize>> = p.leaves.iter().map(|l| part(&l.strides, true)).collect();
        let (outer, outer_sts) = coalesce(&outer, &outer_sts);
        let (inner, mut inner_sts) = coalesce(&inner, &inner_sts);
        let (mut outer, mut inner) = (outer, inner);
        let mut mid = None;
        if let Some(len) = split {
            let [r] = inner[..] else { return Ok(None) };
            // First pass: [outer.., chunks] outputs of `len` elements each, into float32 partials.
            let chunks = r / len;
            outer.push(chunks);
            inner = vec![len];
            inner_sts = inner_sts.iter().map(|st| vec![len * st[0], st[0]]).collect();
            let mid_dtype = if out.dtype.is_float() { DType::Float32 } else { out.dtype };
            mid = Some(Tensor::empty_on(self.backend(), &outer, mid_dtype)?);
        }
        let outer_sts: Vec<Vec<usize>> = if split.is_some() {
            // The chunk dim's stride sits first in `inner_sts` (moved to the outer side).
            outer_sts.iter().zip(&inner_sts).map(|(o, i)| o.iter().chain(&i[..1]).copied().collect()).collect()
        } else {
            outer_sts
        };
        let inner_sts: Vec<Vec<usize>> =
            if split.is_some() { inner_sts.iter().map(|i| i[1..].to_vec()).collect() } else { inner_sts };
        let leaves = p
            .leaves
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let strides = outer_sts[i].iter().chain(&inner_sts[i]).copied().collect::<Vec<_>>();
                l.tensor.operand_with(&strides)
            })
            .collect::<Result<Vec<_>>>()?;
        let input = Operand { dtype: self.dtype, ..leaves[0].clone() };
        let first_out = mid.as_ref().unwrap_or(&out);
        let k = Reduce {
            op,
            compute,
            input,
            outer: outer.clone(),
            inner,
            out: first_out.buf()?,
            out_dtype: out.dtype,
            param,
            prologue: Some(Prologue { nodes: p.nodes.clone(), leaves }),
        };
        self.backend().launch(Kernel::Reduce(&k))?;
        fusion::count_reduction(&p.nodes, &format!("{op:?}").to_lowercase());
        if let Some(mid) = mid {
            // Second pass: the chunks' results, as in the unfused two-pass reduction.
            let chunks = outer.pop().expect("the chunk dim");
            let mut second = mid.operand(mid.shape())?;
            second.strides = crate::shape::contiguous_strides(mid.shape());
            let k = Reduce {
                op,
                compute,
                input: second,
                outer,
                inner: vec![chunks],
                out: out.buf()?,
                out_dtype: out.dtype,
                param,
                prologue: None,
            };
            self.backend().launch(Kernel::Reduce(&k))?;
        }
        Ok(Some(out))
    }

    /// PyTorch's error for reductions without an identity (max, amax, argmax, inf norms) when a
    /// reduced dim is empty; `dims` empty = all dims.
    /// `specify`: PyTorch's wording (and RuntimeError) of max/amax/amin for a missing dim, else
    /// argmax's IndexError.
    fn check_nonempty(&self, name: &str, dims: &[i64], specify: bool) -> Result<()> {
        if self.numel() != 0 {
            return Ok(());
        }
        if dims.is_empty() && specify {
            bail!(
                Torch,
                "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
            );
        }
        if dims.is_empty() {
            bail!(Index, "{name}(): Expected reduction dim to be specified for input.numel() == 0.");
        }
        for &d in dims {
            let w = wrap_dim(d, self.ndim())?;
            if self.ndim() > 0 && self.shape()[w] == 0 {
                bail!(Index, "{name}(): Expected reduction dim {w} to have non-zero size.");
            }
        }
        Ok(())
    }

    /// `t.sum(dim, keepdim)`; integers and bools sum to int64, as in PyTorch.
    pub fn sum(&self, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        if self.dtype.is_float() {
            return self.reduce(ReduceOp::Sum, dims, keepdim, self.dtype);
        }
        let r = self.reduce(ReduceOp::Sum, dims, keepdim, DType::Int64)?;
        super::int64::checked_accumulation(r, self, true, |x| x.reduce(ReduceOp::Sum, dims, keepdim, DType::Float32))
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

    /// `t.prod(dim, keepdim)`; integers and bools multiply in int64.
    pub fn prod(&self, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        if self.dtype.is_float() {
            return self.reduce(ReduceOp::Prod, dims, keepdim, self.dtype);
        }
        let r = self.reduce(ReduceOp::Prod, dims, keepdim, DType::Int64)?;
        super::int64::checked_accumulation(r, self, false, |x| x.reduce(ReduceOp::Prod, dims, keepdim, DType::Float32))
    }

    /// `t.amax(dim, keepdim)` (`amin` with `max = false`): NaN propagates.
    pub fn amax(&self, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        self.check_nonempty("amax", dims, true)?;
        self.reduce(ReduceOp::Max, dims, keepdim, self.dtype)
    }

    pub fn amin(&self, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        self.check_nonempty("amin", dims, true)?;
        self.reduce(ReduceOp::Min, dims, keepdim, self.dtype)
    }

    /// `t.max()` over every element.
    pub fn max_all(&self) -> Result<Tensor> {
        self.extreme_all("max", ReduceOp::Max)
    }

    pub fn min_all(&self) -> Result<Tensor> {
        self.extreme_all("min", ReduceOp::Min)
    }

    fn extreme_all(&self, name: &str, op: ReduceOp) -> Result<Tensor> {
        self.check_nonempty(name, &[], true)?;
        self.reduce(op, &[], false, self.dtype)
    }

    /// `t.max(dim, keepdim)`: (values, indices), the index of the first maximum (NaN first).
    pub fn max_dim(&self, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
        self.extreme_dim("max", ReduceOp::Max, ReduceOp::ArgMax, dim, keepdim)
    }

    pub fn min_dim(&self, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
        self.extreme_dim("min", ReduceOp::Min, ReduceOp::ArgMin, dim, keepdim)
    }

    fn extreme_dim(
        &self,
        name: &str,
        op: ReduceOp,
        arg: ReduceOp,
        dim: i64,
        keepdim: bool,
    ) -> Result<(Tensor, Tensor)> {
        self.check_nonempty(name, &[dim], false)?;
        let values = self.reduce(op, &[dim], keepdim, self.dtype)?;
        let indices = self.reduce(arg, &[dim], keepdim, DType::Int64)?;
        Ok((values, indices))
    }

    /// `t.argmax(dim, keepdim)`; `dim = None` reduces the flattened tensor (keepdim keeps every
    /// dim as size 1).
    pub fn argmax(&self, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
        self.arg_extreme("argmax", ReduceOp::ArgMax, dim, keepdim)
    }

    pub fn argmin(&self, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
        self.arg_extreme("argmin", ReduceOp::ArgMin, dim, keepdim)
    }

    fn arg_extreme(&self, name: &str, op: ReduceOp, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
        if self.dtype == DType::Bool {
            bail!(DType, "{name}(): does not support bool input");
        }
        match dim {
            Some(d) => {
                self.check_nonempty(name, &[d], false)?;
                self.reduce(op, &[d], keepdim, DType::Int64)
            }
            None => {
                self.check_nonempty(name, &[], false)?;
                // The flat index: reduce a contiguous 1-D view of the whole tensor.
                let flat = self.contiguous()?.reshape(&[-1])?;
                let r = flat.reduce(op, &[0], false, DType::Int64)?;
                if keepdim {
                    r.reshape(&vec![1; self.ndim()])
                } else {
                    Ok(r)
                }
            }
        }
    }

    /// `t.all(dim, keepdim)` / `t.any(…)`: bool results (uint8 for uint8 inputs, as PyTorch).
    pub fn all(&self, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        let out = if self.dtype == DType::UInt8 { DType::UInt8 } else { DType::Bool };
        self.reduce(ReduceOp::All, dims, keepdim, out)
    }

    pub fn any(&self, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        let out = if self.dtype == DType::UInt8 { DType::UInt8 } else { DType::Bool };
        self.reduce(ReduceOp::Any, dims, keepdim, out)
    }

    /// `torch.count_nonzero(t, dim)`: int64 counts (NaN counts as nonzero).
    pub fn count_nonzero(&self, dims: &[i64]) -> Result<Tensor> {
        self.reduce(ReduceOp::CountNonzero, dims, false, DType::Int64)
    }

    /// `t.var(dim, correction=…, keepdim)`: the mean, the mean refined by the mean deviation from
    /// it, then the squared deviations (`ReduceOp::passes`), divided by max(0, N - correction).
    pub fn var(&self, dims: &[i64], correction: f64, keepdim: bool) -> Result<Tensor> {
        self.check_var()?;
        self.reduce_with(ReduceOp::Var, dims, keepdim, self.dtype, correction)
    }

    pub fn std(&self, dims: &[i64], correction: f64, keepdim: bool) -> Result<Tensor> {
        self.check_var()?;
        self.reduce_with(ReduceOp::Std, dims, keepdim, self.dtype, correction)
    }

    fn check_var(&self) -> Result<()> {
        if !self.dtype.is_float() {
            bail!(DType, "std and var only support floating point and complex dtypes");
        }
        Ok(())
    }

    /// `torch.logsumexp(t, dim, keepdim)`: stable (the max is subtracted first); integer inputs
    /// give float32.
    pub fn logsumexp(&self, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        let out = if self.dtype.is_float() { self.dtype } else { DType::Float32 };
        self.reduce(ReduceOp::LogSumExp, dims, keepdim, out)
    }

    /// `torch.linalg.vector_norm(t, ord=p, dim, keepdim)` (also `t.norm(p, dim, keepdim)`).
    pub fn norm(&self, p: f64, dims: &[i64], keepdim: bool) -> Result<Tensor> {
        if !self.dtype.is_float() {
            bail!(
                DType,
                "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}",
                self.dtype.scalar_name()
            );
        }
        let op = match p {
            0.0 => ReduceOp::Norm0,
            1.0 => ReduceOp::Norm1,
            2.0 => ReduceOp::Norm2,
            f64::INFINITY => ReduceOp::NormInf,
            f64::NEG_INFINITY => ReduceOp::NormNegInf,
            _ => ReduceOp::NormP,
        };
        if p.is_infinite() && self.numel() == 0 {
            let ord = if p > 0.0 { "inf" } else { "-inf" };
            if dims.is_empty() {
                bail!(
                    Torch,
                    "linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the operation does not have an identity"
                );
            }
            for &d in dims {
                let w = wrap_dim(d, self.ndim())?;
                if self.ndim() > 0 && self.shape()[w] == 0 {
                    bail!(
                        Torch,
                        "linalg.vector_norm cannot compute the {ord} norm on the dimension {w}because this dimension is empty and the operation does not have an identity"
                    );
                }
            }
        }
        self.reduce_with(op, dims, keepdim, self.dtype, p)
    }
}
