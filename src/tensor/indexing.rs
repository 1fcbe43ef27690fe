//! Indexing and joining: `index_select`, `gather`, `take_along_dim` (one `Gather` kernel: a copy
//! through an index map), and `cat`/`stack` (composed: each input is copied into its slice of
//! the output with `assign_`). int64 indices are stored as 32-bit (docs/dtypes.md).
//!
//! NOTE: a kernel cannot throw. On the CPU backend the index values are on the host, so they are
//! checked before the kernel runs (PyTorch's IndexError); on WebGPU they live on the device, so a
//! check kernel runs before the op and the next read or sync raises the same IndexError (as
//! CUDA's device-side assert does; backend/webgpu/checks.rs). Meanwhile an index outside the
//! indexed dim reads as 0 and writes nowhere (never outside the buffer).

use super::elementwise::check_same_device;
use super::Tensor;
use crate::backend::{CheckMessage, Gather, Kernel, Scatter, ScatterOp, ScatterSrc};
use crate::bail;
use crate::dtype::{promote_types, DType};
use crate::error::{ErrorKind, Result};
use crate::shape::{broadcast_shapes, fmt_shape, wrap_dim, Layout};
use crate::Device;

fn is_index(d: DType) -> bool {
    matches!(d, DType::Int32 | DType::Int64)
}

/// The values of `t` when they can be had without waiting: a CPU tensor's (its read future is
/// ready at once). None on devices whose reads are asynchronous.
pub(crate) fn host_values(t: &Tensor) -> Result<Option<Vec<f64>>> {
    if t.device() != Device::Cpu || t.numel() == 0 {
        return Ok(None);
    }
    let mut fut = std::pin::pin!(t.to_f64());
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match std::future::Future::poll(fut.as_mut(), &mut cx) {
        std::task::Poll::Ready(v) => v.map(Some),
        std::task::Poll::Pending => Ok(None),
    }
}

/// PyTorch's IndexError for the first index outside `[0, size)` (see the NOTE); `{}` in
/// `template` is the index.
fn check_index_bounds(index: &Tensor, size: usize, template: String) -> Result<()> {
    index.check_values(0.0, size as f64 - 1.0, None, &CheckMessage::new(ErrorKind::Index, template))
}

/// "index 5 is out of bounds for dimension 1 with size 3" (gather, scatter).
fn check_dim_bounds(index: &Tensor, dim: usize, size: usize) -> Result<()> {
    check_index_bounds(index, size, format!("index {{}} is out of bounds for dimension {dim} with size {size}"))
}

impl Tensor {
    /// `out[i] = self[i with coordinate `dim` = index[i]]` over `shape`, reading `index` with
    /// `index_strides` (over `shape`).
    fn gather_kernel(&self, dim: usize, index: &Tensor, index_strides: Vec<usize>, shape: &[usize]) -> Result<Tensor> {
        check_same_device(self, index)?;
        let out = Tensor::empty_on(self.backend(), shape, self.dtype)?;
        if out.numel() == 0 {
            return Ok(out);
        }
        let mut src = self.operand(self.shape())?;
        src.strides = self.layout.strides.clone();
        let mut idx = index.operand(index.shape())?;
        idx.strides = index_strides;
        let k =
            Gather { src, index: idx, dim, src_dim_size: self.shape()[dim], shape: shape.to_vec(), out: out.buf()? };
        self.backend().launch(Kernel::Gather(&k))?;
        Ok(out)
    }

    /// `t` reversed along `dim` (`torch.flip(t, [dim])`): a gather at the reversed positions.
    /// Those are made here, so unlike `index_select`'s they need no check on the device (a
    /// check is a dispatch of its own: a convolution's backward flips its weight twice).
    pub(crate) fn flip_dim(&self, dim: usize) -> Result<Tensor> {
        let n = self.shape()[dim];
        let index = Tensor::arange(n as f64 - 1.0, -1.0, -1.0, crate::dtype::DType::Int64, self.device())?;
        let mut strides = vec![0; self.ndim()];
        strides[dim] = 1;
        self.gather_kernel(dim, &index, strides, self.shape())
    }

    /// `t.index_select(dim, index)`: the slices at `index` (a vector of int32/int64) along `dim`.
    pub fn index_select(&self, dim: i64, index: &Tensor) -> Result<Tensor> {
        if !is_index(index.dtype) {
            bail!(DType, "index_select(): Expected dtype int32 or int64 for index");
        }
        if index.ndim() > 1 {
            bail!(Index, "index_select(): Index is supposed to be a vector");
        }
        let d = wrap_dim(dim, self.ndim())?;
        if self.ndim() == 0 {
            if index.numel() != 1 {
                bail!(Torch, "index_select(): Index to scalar can have only 1 value, got {} value(s)", index.numel());
            }
            return self.reshape(&[1])?.index_select(0, &index.reshape(&[1])?)?.reshape(&[]);
        }
        let size = self.shape()[d];
        // PyTorch's CPU index_select has its own loop, and its own message (a RuntimeError), for
        // dim 1 of a matrix; every other case (embedding's among them) says "index out of range".
        if self.ndim() == 2 && d == 1 {
            index.check_values(
                0.0,
                size as f64 - 1.0,
                None,
                &CheckMessage::new(
                    ErrorKind::Torch,
                    format!("INDICES element is out of DATA bounds, id={{}} axis_dim={size}"),
                ),
            )?;
        } else {
            check_index_bounds(index, size, "index out of range in self".into())?;
        }
        let mut shape = self.shape().to_vec();
        shape[d] = index.numel();
        let mut strides = vec![0; shape.len()];
        strides[d] = index.layout.strides.first().copied().unwrap_or(0);
        self.gather_kernel(d, index, strides, &shape)
    }

    /// `t.gather(dim, index)`: `out[i][j] = t[index[i][j]][j]` (for dim 0), `index` of the same
    /// rank and no larger than `t` outside `dim`.
    pub fn gather(&self, dim: i64, index: &Tensor) -> Result<Tensor> {
        if !is_index(index.dtype) {
            bail!(DType, "gather(): Expected dtype int32/int64 for index");
        }
        let d = wrap_dim(dim, self.ndim())?;
        if self.ndim().max(1) != index.ndim().max(1) {
            bail!(Shape, "Index tensor must have the same number of dimensions as input tensor");
        }
        if self.ndim() == 0 || index.ndim() == 0 {
            let shape = index.shape().to_vec();
            return self.reshape(&[-1])?.gather(0, &index.reshape(&[-1])?)?.reshape(&dims_i64(&shape));
        }
        for i in 0..self.ndim() {
            if i != d && index.shape()[i] > self.shape()[i] {
                bail!(
                    Shape,
                    "Size does not match at dimension {i} expected index {} to be no larger than self {} apart from dimension {d}",
                    fmt_shape(index.shape()),
                    fmt_shape(self.shape())
                );
            }
        }
        check_dim_bounds(index, d, self.shape()[d])?;
        self.gather_kernel(d, index, index.layout.strides.clone(), index.shape())
    }

    /// `torch.take_along_dim(t, indices, dim)`: `gather` with `t` and `indices` broadcast outside
    /// `dim`; without `dim`, over the flattened tensor.
    pub fn take_along_dim(&self, indices: &Tensor, dim: Option<i64>) -> Result<Tensor> {
        if indices.dtype != DType::Int64 {
            let name = indices.dtype.scalar_name();
            bail!(DType, "torch.take_along_dim(): dtype of indices should be Long but got {name}");
        }
        let Some(dim) = dim else {
            return self.reshape(&[-1])?.gather(0, &indices.reshape(&[-1])?);
        };
        if self.ndim() != indices.ndim() {
            bail!(
                Shape,
                "torch.take_along_dim(): input and indices should have the same number of dimensions, but got {} dimensions for input, and {} dimensions for indices",
                self.ndim(),
                indices.ndim()
            );
        }
        let d = wrap_dim(dim, self.ndim())?;
        let mut self_sizes = self.shape().to_vec();
        if self.ndim() > 0 {
            self_sizes[d] = indices.shape()[d];
        }
        let shape = broadcast_shapes(&self_sizes, indices.shape())?;
        let idx = indices.expand(&dims_i64(&shape))?;
        let mut src_shape = shape.clone();
        if self.ndim() > 0 {
            src_shape[d] = self.shape()[d];
        }
        self.expand(&dims_i64(&src_shape))?.gather(d as i64, &idx)
    }

    /// `torch.cat(tensors, dim)`: promoted to one dtype; 1-D empty tensors are skipped, as in
    /// PyTorch.
    pub fn cat(tensors: &[&Tensor], dim: i64) -> Result<Tensor> {
        let Some(first) = tensors.first() else {
            bail!(Torch, "torch.cat(): expected a non-empty list of Tensors");
        };
        for (i, t) in tensors.iter().enumerate() {
            if t.ndim() == 0 {
                bail!(Torch, "zero-dimensional tensor (at position {i}) cannot be concatenated");
            }
            check_same_device(first, t)?;
        }
        let dtype = tensors.iter().skip(1).fold(first.dtype, |d, t| promote_types(d, t.dtype));
        let legacy_empty = |t: &Tensor| t.ndim() == 1 && t.numel() == 0;
        let parts: Vec<&Tensor> = tensors.iter().copied().filter(|t| !legacy_empty(t)).collect();
        let Some(reference) = parts.first() else {
            return Tensor::empty_on(first.backend(), &[0], dtype);
        };
        let d = wrap_dim(dim, reference.ndim())?;
        let mut shape = reference.shape().to_vec();
        shape[d] = 0;
        for (i, t) in tensors.iter().enumerate().filter(|(_, t)| !legacy_empty(t)) {
            if t.ndim() != reference.ndim() {
                bail!(Shape, "Tensors must have same number of dimensions: got {} and {}", reference.ndim(), t.ndim());
            }
            for k in (0..t.ndim()).filter(|&k| k != d) {
                if t.shape()[k] != reference.shape()[k] {
                    bail!(
                        Shape,
                        "Sizes of tensors must match except in dimension {d}. Expected size {} but got size {} for tensor number {i} in the list.",
                        reference.shape()[k],
                        t.shape()[k]
                    );
                }
            }
            shape[d] += t.shape()[d];
        }
        let out = Tensor::empty_on(first.backend(), &shape, dtype)?;
        let mut at = 0;
        for t in parts {
            let mut slice = Layout { shape: t.shape().to_vec(), strides: out.layout.strides.clone(), offset: 0 };
            slice.offset = at * out.layout.strides[d];
            at += t.shape()[d];
            if t.numel() > 0 {
                out.with_layout(slice).assign_(t)?;
            }
        }
        Ok(out)
    }

    /// `torch.stack(tensors, dim)`: `cat` of the tensors unsqueezed at `dim`.
    pub fn stack(tensors: &[&Tensor], dim: i64) -> Result<Tensor> {
        let Some(first) = tensors.first() else {
            bail!(Torch, "stack expects a non-empty TensorList");
        };
        for (i, t) in tensors.iter().enumerate() {
            if t.shape() != first.shape() {
                bail!(
                    Shape,
                    "stack expects each tensor to be equal size, but got {} at entry 0 and {} at entry {i}",
                    fmt_shape(first.shape()),
                    fmt_shape(t.shape())
                );
            }
        }
        let d = wrap_dim(dim, first.ndim() + 1)?;
        let parts = tensors.iter().map(|t| t.unsqueeze(d as i64)).collect::<Result<Vec<_>>>()?;
        Tensor::cat(&parts.iter().collect::<Vec<_>>(), d as i64)
    }
}

impl Tensor {
    /// `t.scatter(dim, index, src)`: a copy of `t` with `src[i]` written at each index (where
    /// indices repeat, which write wins is unspecified, as in PyTorch).
    pub fn scatter(&self, dim: i64, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        self.scatter_impl(dim, index, Some(src), 0.0, ScatterOp::Assign)
    }

    /// `t.scatter(dim, index, value)`: `value` (cast to `t`'s dtype) at each index.
    pub fn scatter_value(&self, dim: i64, index: &Tensor, value: f64) -> Result<Tensor> {
        self.scatter_impl(dim, index, None, value, ScatterOp::Assign)
    }

    /// `t.scatter_add(dim, index, src)`: `src[i]` added at each index (atomically on GPUs).
    pub fn scatter_add(&self, dim: i64, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        self.scatter_impl(dim, index, Some(src), 0.0, ScatterOp::Add)
    }

    /// The scatter family's kernel: `src` (or `value`) combined by `op` into a copy of `self`.
    pub(super) fn scatter_impl(
        &self,
        dim: i64,
        index: &Tensor,
        src: Option<&Tensor>,
        value: f64,
        op: ScatterOp,
    ) -> Result<Tensor> {
        if !is_index(index.dtype) {
            bail!(DType, "scatter(): Expected dtype int32/int64 for index");
        }
        if let Some(s) = src {
            check_same_device(self, s)?;
            if s.dtype != self.dtype {
                bail!(DType, "scatter(): Expected self.dtype to be equal to src.dtype");
            }
        }
        check_same_device(self, index)?;
        let d = wrap_dim(dim, self.ndim())?;
        if self.ndim().max(1) != index.ndim().max(1) {
            bail!(Shape, "Index tensor must have the same number of dimensions as self tensor");
        }
        if self.ndim() == 0 || index.ndim() == 0 {
            let flat = |t: &Tensor| t.reshape(&[-1]);
            let s = src.map(flat).transpose()?;
            return self.reshape(&[-1])?.scatter_impl(0, &flat(index)?, s.as_ref(), value, op)?.reshape(&[]);
        }
        for i in 0..self.ndim() {
            let too_big_self = i != d && index.shape()[i] > self.shape()[i];
            let too_big_src = src.is_some_and(|s| s.ndim() > i && index.shape()[i] > s.shape()[i]);
            if too_big_self || too_big_src {
                let src_part = src
                    .map_or(String::new(), |s| format!(" and to be no larger size than src {}", fmt_shape(s.shape())));
                bail!(
                    Shape,
                    "Expected index {} to be no larger than self {} apart from dimension {d}{src_part}",
                    fmt_shape(index.shape()),
                    fmt_shape(self.shape())
                );
            }
        }
        check_dim_bounds(index, d, self.shape()[d])?;
        let out = self.deep_clone()?;
        if index.numel() == 0 || out.numel() == 0 {
            return Ok(out);
        }
        let src = match src {
            Some(s) => {
                let mut o = s.operand(s.shape())?;
                o.strides = s.layout.strides.clone();
                ScatterSrc::Tensor(o)
            }
            None => ScatterSrc::Scalar(value),
        };
        let mut idx = index.operand(index.shape())?;
        idx.strides = index.layout.strides.clone();
        let k = Scatter {
            out: out.buf()?,
            out_strides: out.layout.strides.clone(),
            dtype: self.dtype,
            index: idx,
            src,
            dim: d,
            dim_size: self.shape()[d],
            shape: index.shape().to_vec(),
            op,
        };
        self.backend().launch(Kernel::Scatter(&k))?;
        Ok(out)
    }
}

fn dims_i64(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&s| s as i64).collect()
}
