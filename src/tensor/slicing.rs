//! Slicing views (no copies): narrow, select, Python-style slices with steps and negative bounds,
//! diagonal, unfold, as_strided, movedim, flatten/unflatten, squeeze of every size-1 dim.

use super::Tensor;
use crate::bail;
use crate::error::Result;
use crate::shape::{fmt_shape, wrap_dim, Layout};

impl Tensor {
    /// `t.narrow(dim, start, length)`.
    pub fn narrow(&self, dim: i64, start: i64, length: i64) -> Result<Tensor> {
        if self.ndim() == 0 {
            bail!(Index, "narrow() cannot be applied to a 0-dim tensor.");
        }
        let d = wrap_dim(dim, self.ndim())?;
        let size = self.layout.shape[d] as i64;
        if length < 0 {
            bail!(Torch, "narrow(): length must be non-negative.");
        }
        if start < -size || start > size {
            bail!(Index, "start out of range (expected to be in range of [{}, {}], but got {start})", -size, size);
        }
        let start = if start < 0 { start + size } else { start };
        if start + length > size {
            bail!(Shape, "start ({start}) + length ({length}) exceeds dimension size ({size}).");
        }
        let mut l = self.layout.clone();
        l.offset += start as usize * l.strides[d];
        l.shape[d] = length as usize;
        Ok(self.with_layout(l))
    }

    /// `t.select(dim, index)` (`t[index]` along `dim`): one fewer dim.
    pub fn select(&self, dim: i64, index: i64) -> Result<Tensor> {
        if self.ndim() == 0 {
            bail!(Index, "select() cannot be applied to a 0-dim tensor.");
        }
        let d = wrap_dim(dim, self.ndim())?;
        let size = self.layout.shape[d] as i64;
        if index < -size || index >= size {
            bail!(
                Index,
                "select(): index {index} out of range for tensor of size {} at dimension {d}",
                fmt_shape(self.shape())
            );
        }
        let i = if index < 0 { index + size } else { index } as usize;
        let mut l = self.layout.clone();
        l.offset += i * l.strides[d];
        l.shape.remove(d);
        l.strides.remove(d);
        Ok(self.with_layout(l))
    }

    /// `t[start:end:step]` along `dim`, with Python's clamping of out-of-range bounds; `None`
    /// bounds are the ends.
    pub fn slice(&self, dim: i64, start: Option<i64>, end: Option<i64>, step: i64) -> Result<Tensor> {
        if self.ndim() == 0 {
            bail!(Index, "slice() cannot be applied to a 0-dim tensor.");
        }
        if step <= 0 {
            bail!(Torch, "slice step must be positive");
        }
        let d = wrap_dim(dim, self.ndim())?;
        let size = self.layout.shape[d] as i64;
        let clamp = |v: i64| if v < 0 { (v + size).max(0) } else { v.min(size) };
        let s = start.map_or(0, clamp);
        let e = end.map_or(size, clamp).max(s);
        let len = (e - s + step - 1) / step;
        let mut l = self.layout.clone();
        l.offset += s as usize * l.strides[d];
        l.shape[d] = len as usize;
        l.strides[d] *= step as usize;
        Ok(self.with_layout(l))
    }

    /// `t.diagonal(offset, dim1, dim2)`: the diagonal as the last dim.
    pub fn diagonal(&self, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor> {
        let n = self.ndim();
        let (a, b) = (wrap_dim(dim1, n)?, wrap_dim(dim2, n)?);
        if a == b {
            bail!(Torch, "diagonal dimensions cannot be identical {dim1}, {dim2}");
        }
        let (sa, sb) = (self.layout.shape[a] as i64, self.layout.shape[b] as i64);
        let len = if offset >= 0 { sa.min(sb - offset) } else { (sa + offset).min(sb) }.max(0) as usize;
        let mut l = Layout { shape: vec![], strides: vec![], offset: self.layout.offset };
        if len > 0 {
            l.offset += if offset >= 0 {
                offset as usize * self.layout.strides[b]
            } else {
                (-offset) as usize * self.layout.strides[a]
            };
        }
        for d in 0..n {
            if d != a && d != b {
                l.shape.push(self.layout.shape[d]);
                l.strides.push(self.layout.strides[d]);
            }
        }
        l.shape.push(len);
        l.strides.push(self.layout.strides[a] + self.layout.strides[b]);
        Ok(self.with_layout(l))
    }

    /// `t.unfold(dim, size, step)`: windows of `size` along `dim` as a new last dim.
    pub fn unfold(&self, dim: i64, size: i64, step: i64) -> Result<Tensor> {
        let d = wrap_dim(dim, self.ndim())?;
        let len = if self.ndim() == 0 { 1 } else { self.layout.shape[d] as i64 };
        if size > len {
            bail!(Torch, "maximum size for tensor at dimension {d} is {len} but size is {size}");
        }
        if step <= 0 {
            bail!(Torch, "step is {step} but must be > 0");
        }
        if size < 0 {
            bail!(Torch, "size is {size} but must be >= 0");
        }
        let mut l = self.layout.clone();
        if self.ndim() == 0 {
            l.shape.push(size as usize);
            l.strides.push(1);
            return Ok(self.with_layout(l));
        }
        let stride = l.strides[d];
        l.shape[d] = ((len - size) / step + 1) as usize;
        l.strides[d] = stride * step as usize;
        l.shape.push(size as usize);
        l.strides.push(stride);
        Ok(self.with_layout(l))
    }

    /// `torch.as_strided(t, size, stride, storage_offset)`: any view of the storage, checked
    /// against its bounds.
    pub fn as_strided(&self, size: &[usize], stride: &[usize], offset: Option<usize>) -> Result<Tensor> {
        if size.len() != stride.len() {
            bail!(Torch, "mismatch in length of strides and shape: {} strides for {} dims", stride.len(), size.len());
        }
        let l = Layout { shape: size.to_vec(), strides: stride.to_vec(), offset: offset.unwrap_or(self.layout.offset) };
        if l.storage_extent() > self.storage.len {
            bail!(
                Torch,
                "setStorage: sizes {}, strides {}, storage offset {}, and itemsize 4 requiring a storage size of {} are out of bounds for storage of size {}",
                fmt_shape(size),
                fmt_shape(stride),
                l.offset,
                l.storage_extent() * 4,
                self.storage.len * 4
            );
        }
        Ok(self.with_layout(l))
    }

    /// `torch.movedim(t, source, destination)`.
    pub fn movedim(&self, source: &[i64], destination: &[i64]) -> Result<Tensor> {
        let n = self.ndim();
        if source.len() != destination.len() {
            bail!(
                Torch,
                "movedim: Invalid source or destination dims: source ({:?} dims) should contain the same number of dims as destination ({:?} dims)",
                source,
                destination
            );
        }
        let src: Vec<usize> = source.iter().map(|&d| wrap_dim(d, n)).collect::<Result<_>>()?;
        let dst: Vec<usize> = destination.iter().map(|&d| wrap_dim(d, n)).collect::<Result<_>>()?;
        let mut order: Vec<Option<usize>> = vec![None; n];
        for (&s, &d) in src.iter().zip(&dst) {
            if order[d].is_some() {
                bail!(Torch, "movedim: repeated dim in `destination` ({destination:?})");
            }
            order[d] = Some(s);
        }
        let mut rest = (0..n).filter(|d| !src.contains(d));
        let perm: Vec<i64> = order.into_iter().map(|o| o.or_else(|| rest.next()).unwrap_or(0) as i64).collect();
        self.permute(&perm)
    }

    /// `t.flatten(start_dim, end_dim)` (a view when possible, as `reshape`).
    pub fn flatten(&self, start: i64, end: i64) -> Result<Tensor> {
        if self.ndim() == 0 {
            return self.reshape(&[1]);
        }
        let (s, e) = (wrap_dim(start, self.ndim())?, wrap_dim(end, self.ndim())?);
        if s > e {
            bail!(Torch, "flatten() has invalid args: start_dim cannot come after end_dim");
        }
        let mut shape: Vec<i64> = self.shape()[..s].iter().map(|&x| x as i64).collect();
        shape.push(self.shape()[s..=e].iter().product::<usize>() as i64);
        shape.extend(self.shape()[e + 1..].iter().map(|&x| x as i64));
        self.reshape(&shape)
    }

    /// `t.unflatten(dim, sizes)` (one size may be -1).
    pub fn unflatten(&self, dim: i64, sizes: &[i64]) -> Result<Tensor> {
        let d = wrap_dim(dim, self.ndim())?;
        let inner = crate::shape::infer_size(sizes, self.shape()[d])
            .map_err(|_| crate::err!(Shape, "unflatten: Provided sizes {sizes:?} don't multiply up to the size of dim {dim} ({}) in the input tensor", self.shape()[d]))?;
        let mut shape: Vec<i64> = self.shape()[..d].iter().map(|&x| x as i64).collect();
        shape.extend(inner.iter().map(|&x| x as i64));
        shape.extend(self.shape()[d + 1..].iter().map(|&x| x as i64));
        self.reshape(&shape)
    }

    /// `t.squeeze()`: every size-1 dim removed.
    pub fn squeeze_all(&self) -> Result<Tensor> {
        let mut l = self.layout.clone();
        let keep: Vec<bool> = l.shape.iter().map(|&s| s != 1).collect();
        let mut k = keep.iter();
        l.shape.retain(|_| *k.next().unwrap_or(&true));
        let mut k = keep.iter();
        l.strides.retain(|_| *k.next().unwrap_or(&true));
        Ok(self.with_layout(l))
    }
}
