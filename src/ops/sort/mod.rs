//! The sort family: scans (`cumsum`, `cumprod`, `logcumsumexp`, the indices of
//! `cummax`/`cummin`), sort permutations and binary searches. The kernels work on contiguous
//! rows, so the dim is moved last and the input made contiguous first (a copy unless it already
//! is); results are moved back, as views. Values of `sort`/`cummax`/… are gathered from the input
//! with the indices in the autograd layer (`autograd/scan.rs`), which gives them gradients.
//!
//! This file holds the rules and the entries; `scan.rs`, `bitonic.rs`, `search.rs` and
//! `select.rs` the kernels' descriptions, programs and dispatches; `scan.wgsl`, `sort.wgsl`,
//! `search_sorted.wgsl` and `select.wgsl` their WGSL and `cpu.rs` their CPU twins.

pub mod bitonic;
mod cpu;
pub mod scan;
pub mod search;
pub mod select;

pub use bitonic::Sort;
pub use scan::{Scan, ScanOp};
pub use search::SearchSorted;
pub use select::Select;

use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::shape::wrap_dim;
use crate::tensor::Tensor;

impl Tensor {
    /// This tensor with `dim` moved last, contiguous, and its (rows, n).
    fn rows_along(&self, d: usize) -> Result<(Tensor, usize, usize)> {
        let moved = self.movedim(&[d as i64], &[-1])?.contiguous()?;
        let n = self.shape()[d];
        let rows = self.numel().checked_div(n).unwrap_or(0);
        Ok((moved, rows, n))
    }

    /// A `[.., n]` result of `rows_along` moved back to `dim`.
    fn rows_back(out: Tensor, d: usize) -> Result<Tensor> {
        out.movedim(&[-1], &[d as i64])
    }

    /// The scan `op` along `dim` of a tensor already in its compute dtype.
    fn scan(&self, op: ScanOp, dim: i64) -> Result<Tensor> {
        if self.ndim() == 0 {
            wrap_dim(dim, 0)?;
            return self.reshape(&[1])?.scan(op, 0)?.reshape(&[]);
        }
        let d = wrap_dim(dim, self.ndim())?;
        let (x, rows, n) = self.rows_along(d)?;
        // The scan kernel stores f32 unrounded: half dtypes scan into float32, then round
        // (float64 scans in f64 on the CPU).
        let indices = matches!(op, ScanOp::Max | ScanOp::Min);
        let half = !indices && matches!(self.dtype, DType::Float16 | DType::BFloat16);
        let out_dtype = if indices {
            DType::Int64
        } else if half {
            DType::Float32
        } else {
            self.dtype
        };
        let out = Tensor::empty_on(self.backend(), x.shape(), out_dtype)?;
        if rows > 0 {
            let k = Scan { op, input: x.buf()?, offset: x.layout.offset, dtype: x.dtype, rows, n, out: out.buf()? };
            scan::run(&**self.backend(), &k)?;
        }
        let out = Tensor::rows_back(out, d)?;
        if half {
            out.to_dtype(self.dtype)
        } else {
            Ok(out)
        }
    }

    /// The dtype a cumulative sum/product computes in: `dtype` if given, else integers (and bool)
    /// widen to int64 as in PyTorch.
    fn cumulative_dtype(&self, dtype: Option<DType>) -> DType {
        dtype.unwrap_or(if self.dtype.is_float() { self.dtype } else { DType::Int64 })
    }

    /// `torch.cumsum(t, dim, dtype=None)`.
    pub fn cumsum(&self, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
        self.cumulative(ScanOp::Sum, dim, dtype)
    }

    /// A cumulative sum or product in `dtype` (int64 results checked against their range).
    fn cumulative(&self, op: ScanOp, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
        let to = self.cumulative_dtype(dtype);
        let r = self.to_dtype(to)?.scan(op, dim)?;
        if to != DType::Int64 {
            return Ok(r);
        }
        crate::tensor::checked_accumulation(r, self, op == ScanOp::Sum, |x| x.scan(op, dim))
    }

    /// `torch.cumprod(t, dim, dtype=None)`.
    pub fn cumprod(&self, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
        self.cumulative(ScanOp::Prod, dim, dtype)
    }

    /// `torch.logcumsumexp(t, dim)`: log Σ_{j<=i} exp(x_j), stably.
    pub fn logcumsumexp(&self, dim: i64) -> Result<Tensor> {
        if !self.dtype.is_float() {
            bail!(DType, "\"logcumsumexp_out_cpu\" not implemented for '{}'", self.dtype.scalar_name());
        }
        self.scan(ScanOp::LogSumExp, dim)
    }

    /// The int64 indices of `cummax` (`max`) or `cummin` along `dim`.
    pub fn cumextreme_indices(&self, dim: i64, max: bool) -> Result<Tensor> {
        self.scan(if max { ScanOp::Max } else { ScanOp::Min }, dim)
    }

    /// The int64 permutation that sorts `t` along `dim` (stable; NaN above +inf).
    pub fn sort_indices(&self, dim: i64, descending: bool) -> Result<Tensor> {
        if self.ndim() == 0 {
            wrap_dim(dim, 0)?;
            return Tensor::full(&[], 0.0, DType::Int64, self.device());
        }
        let d = wrap_dim(dim, self.ndim())?;
        let (x, rows, n) = self.rows_along(d)?;
        let out = Tensor::empty_on(self.backend(), x.shape(), DType::Int64)?;
        if rows > 0 && n > 0 {
            let k =
                Sort { input: x.buf()?, offset: x.layout.offset, dtype: x.dtype, rows, n, descending, out: out.buf()? };
            bitonic::run(&**self.backend(), &k)?;
        }
        Tensor::rows_back(out, d)
    }

    /// The int64 indices of `torch.kthvalue(t, k, dim, keepdim=True)` (`k` 1-based), as
    /// PyTorch's CPU quickselect picks them among equal values.
    pub fn kthvalue_indices(&self, k: usize, dim: i64) -> Result<Tensor> {
        let d = wrap_dim(dim, self.ndim().max(1))?;
        if k == 0 || k > self.shape().get(d).copied().unwrap_or(1) {
            bail!(Torch, "kthvalue(): selected number k out of range for dimension {d}");
        }
        if self.ndim() == 0 {
            return Tensor::full(&[], 0.0, DType::Int64, self.device());
        }
        let (x, rows, n) = self.rows_along(d)?;
        let mut shape = x.shape().to_vec();
        *shape.last_mut().expect("rank >= 1") = 1;
        let out = Tensor::empty_on(self.backend(), &shape, DType::Int64)?;
        if rows > 0 && n > 0 {
            let s =
                Select { input: x.buf()?, offset: x.layout.offset, dtype: x.dtype, rows, n, k: k - 1, out: out.buf()? };
            select::run(&**self.backend(), &s)?;
        }
        Tensor::rows_back(out, d)
    }

    /// `torch.searchsorted(sorted_sequence, values, right=right)`: int64 (int32 when
    /// `out_int32`) insertion points of `values` into the innermost rows of `self`, which is 1-D
    /// or matches `values` in every dim but the last.
    pub fn searchsorted(&self, values: &Tensor, right: bool, out_int32: bool) -> Result<Tensor> {
        crate::tensor::check_same_device(self, values)?;
        let shared = self.ndim() == 1;
        if self.ndim() == 0 {
            bail!(Torch, "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value tensor must match, but we got boundaries tensor [] and input value tensor {:?}", values.shape());
        }
        if !shared
            && (self.ndim() != values.ndim() || self.shape()[..self.ndim() - 1] != values.shape()[..values.ndim() - 1])
        {
            bail!(Torch, "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value tensor must match, but we got boundaries tensor {:?} and input value tensor {:?}", self.shape(), values.shape());
        }
        let dtype = crate::dtype::promote_types(self.dtype, values.dtype);
        let sorted = self.to_dtype(dtype)?.contiguous()?;
        let vals = values.to_dtype(dtype)?.contiguous()?;
        let out_dtype = if out_int32 { DType::Int32 } else { DType::Int64 };
        let out = Tensor::empty_on(self.backend(), values.shape(), out_dtype)?;
        let m = *sorted.shape().last().unwrap_or(&1);
        let n = if shared { vals.numel() } else { *vals.shape().last().unwrap_or(&1) };
        if vals.numel() > 0 {
            let k = SearchSorted {
                sorted: sorted.buf()?,
                sorted_offset: sorted.layout.offset,
                values: vals.buf()?,
                values_offset: vals.layout.offset,
                dtype,
                rows: vals.numel().checked_div(n).unwrap_or(0),
                n,
                m,
                shared,
                right,
                out: out.buf()?,
            };
            search::run(&**self.backend(), &k)?;
        }
        Ok(out)
    }
}
