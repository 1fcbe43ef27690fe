//! View ops: new layouts over the same storage, copying only where PyTorch would.

use super::Tensor;
use crate::bail;
use crate::error::Result;
use crate::shape::infer_size;

impl Tensor {
    /// `t.view(shape)`: never copies; errors when the strides cannot express the shape.
    pub fn view(&self, shape: &[i64]) -> Result<Tensor> {
        let shape = infer_size(shape, self.numel())?;
        match self.layout.view(&shape) {
            Some(l) => Ok(self.with_layout(l)),
            None => bail!(
                Shape,
                "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            ),
        }
    }

    /// `t.reshape(shape)`: a view when possible, else a contiguous copy.
    pub fn reshape(&self, shape: &[i64]) -> Result<Tensor> {
        let sizes = infer_size(shape, self.numel())?;
        match self.layout.view(&sizes) {
            Some(l) => Ok(self.with_layout(l)),
            None => self.contiguous()?.view(shape),
        }
    }

    pub fn permute(&self, dims: &[i64]) -> Result<Tensor> {
        Ok(self.with_layout(self.layout.permute(dims)?))
    }

    pub fn transpose(&self, d0: i64, d1: i64) -> Result<Tensor> {
        Ok(self.with_layout(self.layout.transpose(d0, d1)?))
    }

    /// `t.t()`: transposes a matrix; 0-D and 1-D tensors come back as they are.
    pub fn t(&self) -> Result<Tensor> {
        match self.ndim() {
            0 | 1 => Ok(self.with_layout(self.layout.clone())),
            2 => self.transpose(0, 1),
            n => bail!(Shape, "t() expects a tensor with <= 2 dimensions, but self is {n}D"),
        }
    }

    pub fn expand(&self, sizes: &[i64]) -> Result<Tensor> {
        Ok(self.with_layout(self.layout.expand(sizes)?))
    }

    /// `t.unsqueeze(dim)`.
    pub fn unsqueeze(&self, dim: i64) -> Result<Tensor> {
        let d = crate::shape::wrap_dim(dim, self.ndim() + 1)?;
        let mut l = self.layout.clone();
        let stride = if d < l.ndim() { l.strides[d] * l.shape[d] } else { 1 };
        l.shape.insert(d, 1);
        l.strides.insert(d, stride);
        Ok(self.with_layout(l))
    }

    /// `t.squeeze(dim)` (a no-op when that dim is not 1, as in PyTorch).
    pub fn squeeze_dim(&self, dim: i64) -> Result<Tensor> {
        let d = crate::shape::wrap_dim(dim, self.ndim())?;
        if self.ndim() == 0 || self.layout.shape[d] != 1 {
            return Ok(self.with_layout(self.layout.clone()));
        }
        let mut l = self.layout.clone();
        l.shape.remove(d);
        l.strides.remove(d);
        Ok(self.with_layout(l))
    }
}
