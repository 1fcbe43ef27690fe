//! Row-wise NN kernels: softmax, log_softmax, layer_norm, rms_norm. Each is one `Rowwise` kernel
//! (one GPU workgroup per row, numerically stable), with PyTorch's shape and dtype checks. The
//! output is contiguous in the input's shape.

use super::Tensor;
use crate::backend::{Kernel, RowOp, Rowwise};
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::shape::{coalesce, fmt_shape, wrap_dim};

impl Tensor {
    /// Runs `op` with rows over `inner_dims` (a mask of this tensor's dims).
    fn rowwise(&self, op: RowOp, inner_dims: &[bool], affine: [Option<&Tensor>; 2], eps: f64) -> Result<Tensor> {
        self.rowwise_with(op, inner_dims, affine, eps, None, 0)
    }

    /// `rowwise` with a gradient row (laid out as this tensor) and causal softmax's query count.
    fn rowwise_with(
        &self,
        op: RowOp,
        inner_dims: &[bool],
        affine: [Option<&Tensor>; 2],
        eps: f64,
        grad: Option<&Tensor>,
        queries: usize,
    ) -> Result<Tensor> {
        // The kernel writes float32, or float64 for float64 rows (the CPU computes those in f64).
        let out_dtype = if self.dtype == DType::Float64 { DType::Float64 } else { DType::Float32 };
        let out = Tensor::empty_on(self.backend(), self.shape(), out_dtype)?;
        if out.numel() == 0 {
            return Ok(out);
        }
        let (mut outer, mut inner) = (vec![], vec![]);
        let (mut in_o, mut in_i, mut out_o, mut out_i) = (vec![], vec![], vec![], vec![]);
        for (d, &is_inner) in inner_dims.iter().enumerate() {
            let (s, st, ost) = (self.shape()[d], self.layout.strides[d], out.layout.strides[d]);
            if is_inner {
                inner.push(s);
                in_i.push(st);
                out_i.push(ost);
            } else {
                outer.push(s);
                in_o.push(st);
                out_o.push(ost);
            }
        }
        let (outer, so) = coalesce(&outer, &[in_o, out_o]);
        let (inner, si) = coalesce(&inner, &[in_i, out_i]);
        let mut input = self.operand(self.shape())?;
        input.strides = so[0].iter().chain(&si[0]).copied().collect();
        let out_strides = so[1].iter().chain(&si[1]).copied().collect();
        // Contiguous weight/bias, kept alive until the kernel is recorded.
        let params = affine.map(|t| t.map(Tensor::contiguous).transpose());
        let [w, b] = params;
        let (w, b) = (w?, b?);
        let operand = |t: &Option<Tensor>| t.as_ref().map(|t| t.operand(t.shape())).transpose();
        let grad = match grad {
            Some(g) => {
                // Both dense row-major in one shape (the caller's contract): one set of strides.
                let mut o = g.operand(g.shape())?;
                o.strides = input.strides.clone();
                Some(o)
            }
            None => None,
        };
        let k = Rowwise {
            op,
            input,
            weight: operand(&w)?,
            bias: operand(&b)?,
            outer,
            inner,
            out: out.buf()?,
            out_strides,
            eps,
            grad,
            queries,
        };
        self.backend().launch(Kernel::Rowwise(&k))?;
        // The kernel writes float32; half inputs get their result rounded to their dtype.
        if self.dtype != out_dtype && self.dtype.is_float() {
            out.to_dtype(self.dtype)
        } else {
            Ok(out)
        }
    }

    fn softmax_like(&self, op: RowOp, kernel: &str, dim: i64) -> Result<Tensor> {
        let d = wrap_dim(dim, self.ndim())?;
        if !self.dtype.is_float() {
            bail!(DType, "\"{kernel}\" not implemented for '{}'", self.dtype.scalar_name());
        }
        let mask: Vec<bool> = (0..self.ndim()).map(|i| i == d).collect();
        self.rowwise(op, &mask, [None, None], 0.0)
    }

    /// `torch.softmax(t, dim)`: exp(x - max) / Σ exp(x - max) along `dim`.
    pub fn softmax(&self, dim: i64) -> Result<Tensor> {
        self.softmax_like(RowOp::Softmax, "softmax_lastdim_kernel_impl", dim)
    }

    /// `torch.log_softmax(t, dim)`: x - max - log Σ exp(x - max).
    pub fn log_softmax(&self, dim: i64) -> Result<Tensor> {
        self.softmax_like(RowOp::LogSoftmax, "log_softmax_lastdim_kernel_impl", dim)
    }

    /// Softmax over the last dim of `(…, L, S)` scores with each query `i` (dim -2) attending to
    /// keys `j ≤ i` only; the others come out 0. One kernel, without a mask tensor: attention's
    /// `is_causal` (top-left aligned, as PyTorch's `scaled_dot_product_attention`).
    pub fn causal_softmax(&self) -> Result<Tensor> {
        if self.ndim() < 2 {
            bail!(
                Shape,
                "causal softmax expects scores of at least 2 dims (…, L, S), but got {}",
                fmt_shape(self.shape())
            );
        }
        if !self.dtype.is_float() {
            bail!(DType, "\"softmax_lastdim_kernel_impl\" not implemented for '{}'", self.dtype.scalar_name());
        }
        let n = self.ndim();
        let mask: Vec<bool> = (0..n).map(|i| i == n - 1).collect();
        self.rowwise_with(RowOp::CausalSoftmax, &mask, [None, None], 0.0, None, self.shape()[n - 2].max(1))
    }

    /// softmax's (`log = false`) or log_softmax's backward rule along `dim` from the forward's
    /// output `self` and the gradient `g`, one kernel: `y·(g − Σ g·y)` or `g − exp(y)·Σ g`.
    pub fn softmax_backward(&self, g: &Tensor, dim: i64, log: bool) -> Result<Tensor> {
        let d = wrap_dim(dim, self.ndim())?;
        if g.shape() != self.shape() {
            bail!(
                Shape,
                "softmax_backward: grad_output of shape {} does not match output of shape {}",
                fmt_shape(g.shape()),
                fmt_shape(self.shape())
            );
        }
        if !self.dtype.is_float() || g.dtype != self.dtype {
            bail!(
                DType,
                "\"softmax_backward\" expects two tensors of one float dtype, got {:?} and {:?}",
                self.dtype,
                g.dtype
            );
        }
        super::elementwise::check_same_device(self, g)?;
        // Both dense in one layout: the kernel reads the gradient with the output's strides.
        let (y, g) = (self.contiguous()?, g.contiguous()?);
        let mask: Vec<bool> = (0..self.ndim()).map(|i| i == d).collect();
        let op = if log { RowOp::LogSoftmaxBackward } else { RowOp::SoftmaxBackward };
        y.rowwise_with(op, &mask, [None, None], 0.0, Some(&g), 0)
    }

    /// Checks `normalized_shape` against the trailing dims and the affine parameters' shapes.
    fn check_norm(&self, normalized: &[usize], params: [(&str, Option<&Tensor>); 2], sep: &str) -> Result<Vec<bool>> {
        if normalized.is_empty() {
            bail!(
                Shape,
                "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []"
            );
        }
        for (name, p) in params {
            if let Some(p) = p {
                if p.shape() != normalized {
                    bail!(
                        Shape,
                        "Expected {name} to be of same shape as normalized_shape, but got {name} of shape {} and normalized_shape = {}",
                        fmt_shape(p.shape()),
                        fmt_shape(normalized)
                    );
                }
                super::elementwise::check_same_device(self, p)?;
            }
        }
        let n = self.ndim();
        if n < normalized.len() || self.shape()[n - normalized.len()..] != *normalized {
            let dims: Vec<String> = normalized.iter().map(|s| s.to_string()).collect();
            bail!(
                Shape,
                "Given normalized_shape={}, expected input with shape [*{sep}{}], but got input of size{}",
                fmt_shape(normalized),
                dims.join(", "),
                fmt_shape(self.shape())
            );
        }
        Ok((0..n).map(|d| d >= n - normalized.len()).collect())
    }

    /// `F.layer_norm(t, normalized_shape, weight, bias, eps)` (biased variance, as PyTorch).
    pub fn layer_norm(
        &self,
        normalized: &[usize],
        weight: Option<&Tensor>,
        bias: Option<&Tensor>,
        eps: f64,
    ) -> Result<Tensor> {
        let mask = self.check_norm(normalized, [("weight", weight), ("bias", bias)], ", ")?;
        if !self.dtype.is_float() {
            bail!(DType, "\"LayerNormKernelImpl\" not implemented for '{}'", self.dtype.scalar_name());
        }
        self.rowwise(RowOp::LayerNorm, &mask, [weight, bias], eps)
    }

    /// `F.rms_norm(t, normalized_shape, weight, eps)`; `eps = None` is `rms_norm_eps`.
    pub fn rms_norm(&self, normalized: &[usize], weight: Option<&Tensor>, eps: Option<f64>) -> Result<Tensor> {
        let mask = self.check_norm(normalized, [("weight", weight), ("bias", None)], "")?;
        if !self.dtype.is_float() {
            bail!(DType, "\"rms_norm\" not implemented for '{}'", self.dtype.scalar_name());
        }
        self.rowwise(RowOp::RmsNorm, &mask, [weight, None], eps.unwrap_or(rms_norm_eps(self.dtype)))
    }
}

/// `rms_norm`'s default eps: the machine epsilon of the type PyTorch computes `dtype` in (f64's
/// for float64, f32's for the others).
pub(crate) fn rms_norm_eps(dtype: DType) -> f64 {
    if dtype == DType::Float64 {
        f64::EPSILON
    } else {
        f32::EPSILON as f64
    }
}
