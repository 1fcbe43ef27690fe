//! Shapes, strides and views: the metadata half of a tensor. Nothing here touches data; every
//! function either returns a new layout (a view, no copy) or a PyTorch-worded error.

use crate::error::Result;
use crate::{bail, err};

/// Where a tensor's elements live in its storage: `storage[offset + Σ index[d] * strides[d]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub shape: Vec<usize>,
    pub strides: Vec<usize>,
    pub offset: usize,
}

/// Row-major strides of a contiguous tensor of this shape.
pub fn contiguous_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![0; shape.len()];
    let mut acc = 1;
    for d in (0..shape.len()).rev() {
        strides[d] = acc;
        acc *= shape[d].max(1);
    }
    strides
}

pub fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// `[2, 3]` as PyTorch prints shapes in messages.
pub fn fmt_shape(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(|s| s.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

impl Layout {
    pub fn contiguous(shape: &[usize]) -> Layout {
        Layout { shape: shape.to_vec(), strides: contiguous_strides(shape), offset: 0 }
    }

    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    pub fn numel(&self) -> usize {
        numel(&self.shape)
    }

    /// PyTorch's `is_contiguous()`: size-1 dims may have any stride.
    pub fn is_contiguous(&self) -> bool {
        let mut expected = 1;
        for d in (0..self.ndim()).rev() {
            if self.shape[d] != 1 && self.strides[d] != expected {
                return self.numel() == 0;
            }
            expected *= self.shape[d];
        }
        true
    }

    /// One past the largest storage index this view touches (0 for an empty view).
    pub fn storage_extent(&self) -> usize {
        if self.numel() == 0 {
            return 0;
        }
        self.offset + self.shape.iter().zip(&self.strides).map(|(s, st)| (s - 1) * st).sum::<usize>() + 1
    }

    /// `t.transpose(d0, d1)`, a view.
    pub fn transpose(&self, d0: i64, d1: i64) -> Result<Layout> {
        let (a, b) = (wrap_dim(d0, self.ndim())?, wrap_dim(d1, self.ndim())?);
        let mut l = self.clone();
        if l.ndim() == 0 {
            return Ok(l);
        }
        l.shape.swap(a, b);
        l.strides.swap(a, b);
        Ok(l)
    }

    /// `t.permute(dims)`, a view.
    pub fn permute(&self, dims: &[i64]) -> Result<Layout> {
        if dims.len() != self.ndim() {
            bail!(
                Shape,
                "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {} is not equal to len(dims) = {}",
                self.ndim(),
                dims.len()
            );
        }
        let mut seen = vec![false; dims.len()];
        let mut l = Layout { shape: vec![], strides: vec![], offset: self.offset };
        for &d in dims {
            let d = wrap_dim(d, self.ndim())?;
            if seen[d] {
                bail!(Shape, "permute(): duplicate dims are not allowed.");
            }
            seen[d] = true;
            l.shape.push(self.shape[d]);
            l.strides.push(self.strides[d]);
        }
        Ok(l)
    }

    /// `t.expand(sizes)`, a view with stride 0 on broadcast dims; `-1` keeps a size.
    pub fn expand(&self, sizes: &[i64]) -> Result<Layout> {
        if sizes.len() < self.ndim() {
            bail!(
                Shape,
                "expand(torch.FloatTensor{{[{}]}}, size=[{}]): the number of sizes provided ({}) must be greater or equal to the number of dimensions in the tensor ({})",
                self.shape.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "),
                sizes.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "),
                sizes.len(),
                self.ndim()
            );
        }
        let lead = sizes.len() - self.ndim();
        let mut l = Layout { shape: vec![0; sizes.len()], strides: vec![0; sizes.len()], offset: self.offset };
        // From the last dim, as PyTorch checks: its message names the last mismatching dim.
        for (i, &want) in sizes.iter().enumerate().rev() {
            if i < lead {
                if want < 0 {
                    bail!(Shape, "The expanded size of the tensor ({want}) isn't allowed in a leading, non-existing dimension {i}");
                }
                l.shape[i] = want as usize;
                continue;
            }
            let (have, stride) = (self.shape[i - lead], self.strides[i - lead]);
            if want == -1 || want as usize == have {
                l.shape[i] = have;
                l.strides[i] = stride;
            } else if have == 1 && want >= 0 {
                l.shape[i] = want as usize;
            } else {
                bail!(
                    Shape,
                    "The expanded size of the tensor ({want}) must match the existing size ({have}) at non-singleton dimension {i}.  Target sizes: [{}].  Tensor sizes: {}",
                    sizes.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "),
                    fmt_shape(&self.shape)
                );
            }
        }
        Ok(l)
    }

    /// `t.view(shape)` without a copy, or `None` when the strides cannot express it (PyTorch's
    /// `computeStride`: each run of merged input dims must be contiguous within itself).
    pub fn view(&self, shape: &[usize]) -> Option<Layout> {
        let old = &self.shape;
        if numel(old) == 0 || old.is_empty() {
            return Some(Layout { shape: shape.to_vec(), strides: contiguous_strides(shape), offset: self.offset });
        }
        let mut new_strides = vec![0; shape.len()];
        let mut view_d = shape.len() as isize - 1;
        let mut chunk_base_stride = *self.strides.last().unwrap();
        let mut tensor_numel = 1;
        let mut view_numel = 1;
        for tensor_d in (0..old.len()).rev() {
            tensor_numel *= old[tensor_d];
            let boundary = tensor_d == 0
                || (old[tensor_d - 1] != 1 && self.strides[tensor_d - 1] != tensor_numel * chunk_base_stride);
            if boundary {
                while view_d >= 0 && (view_numel < tensor_numel || shape[view_d as usize] == 1) {
                    new_strides[view_d as usize] = view_numel * chunk_base_stride;
                    view_numel *= shape[view_d as usize];
                    view_d -= 1;
                }
                if view_numel != tensor_numel {
                    return None;
                }
                if tensor_d > 0 {
                    chunk_base_stride = self.strides[tensor_d - 1];
                    tensor_numel = 1;
                    view_numel = 1;
                }
            }
        }
        if view_d != -1 {
            return None;
        }
        Some(Layout { shape: shape.to_vec(), strides: new_strides, offset: self.offset })
    }

    /// Strides of this layout broadcast to `out` (stride 0 where it is broadcast).
    pub fn broadcast_strides(&self, out: &[usize]) -> Vec<usize> {
        let lead = out.len() - self.ndim();
        let mut s = vec![0; out.len()];
        for d in 0..self.ndim() {
            if self.shape[d] != 1 || out[lead + d] == 1 {
                s[lead + d] = self.strides[d];
            }
        }
        s
    }
}

/// Wraps a possibly negative dim into `0..ndim` (rank 0 accepts -1 and 0, as PyTorch does).
pub fn wrap_dim(dim: i64, ndim: usize) -> Result<usize> {
    let n = ndim.max(1) as i64;
    if dim < -n || dim >= n {
        bail!(Index, "Dimension out of range (expected to be in range of [{}, {}], but got {})", -n, n - 1, dim);
    }
    Ok(if dim < 0 { (dim + n) as usize } else { dim as usize })
}

/// `torch.broadcast_shapes(a, b)`. The dims are checked from the last, as PyTorch does, so a
/// mismatch in several dims names the last one.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in (0..n).rev() {
        let da = if i + a.len() >= n { a[i + a.len() - n] } else { 1 };
        let db = if i + b.len() >= n { b[i + b.len() - n] } else { 1 };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            bail!(
                Shape,
                "The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton dimension {i}"
            );
        };
    }
    Ok(out)
}

/// Resolves a requested shape with at most one `-1` against `numel` elements.
pub fn infer_size(shape: &[i64], numel: usize) -> Result<Vec<usize>> {
    let mut infer = None;
    let mut known = 1usize;
    for (i, &s) in shape.iter().enumerate() {
        if s == -1 {
            if infer.is_some() {
                bail!(Shape, "only one dimension can be inferred");
            }
            infer = Some(i);
        } else if s < 0 {
            bail!(Shape, "invalid shape dimension {s}");
        } else {
            known = known.checked_mul(s as usize).ok_or_else(|| err!(Shape, "shape is too large"))?;
        }
    }
    let fmt = || format!("[{}]", shape.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "));
    let mut out: Vec<usize> = shape.iter().map(|&s| s.max(0) as usize).collect();
    match infer {
        Some(i) => {
            if known == 0 || !numel.is_multiple_of(known) {
                if known == 0 {
                    bail!(Shape, "cannot reshape tensor of 0 elements into shape {} because the unspecified dimension size -1 can be any value and is ambiguous", fmt());
                }
                bail!(Shape, "shape '{}' is invalid for input of size {}", fmt(), numel);
            }
            out[i] = numel / known;
        }
        None if known != numel => bail!(Shape, "shape '{}' is invalid for input of size {}", fmt(), numel),
        None => {}
    }
    Ok(out)
}

/// Checks a shape given by the user (sizes must be non-negative and the total addressable).
pub fn checked_shape(shape: &[i64]) -> Result<Vec<usize>> {
    let mut total: usize = 1;
    let mut out = Vec::with_capacity(shape.len());
    for &s in shape {
        if s < 0 {
            bail!(Shape, "Trying to create tensor with negative dimension {s}: {}", fmt_i64(shape));
        }
        total = total.checked_mul(s as usize).filter(|t| *t <= u32::MAX as usize).ok_or_else(|| {
            err!(OutOfMemory, "Trying to create tensor of shape {} whose element count exceeds 2^32", fmt_i64(shape))
        })?;
        out.push(s as usize);
    }
    Ok(out)
}

fn fmt_i64(shape: &[i64]) -> String {
    format!("[{}]", shape.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "))
}

/// Merges adjacent dims that every operand walks contiguously, so kernels loop over fewer dims.
/// `strides[k]` are operand k's strides over `shape`. Returns the merged shape and strides.
pub fn coalesce(shape: &[usize], strides: &[Vec<usize>]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let mut out_shape: Vec<usize> = Vec::with_capacity(shape.len());
    let mut out_strides: Vec<Vec<usize>> = vec![Vec::with_capacity(shape.len()); strides.len()];
    for d in 0..shape.len() {
        if shape[d] == 1 {
            continue;
        }
        if let Some(&last) = out_shape.last() {
            let merge = strides.iter().zip(&out_strides).all(|(s, o)| *o.last().unwrap() == s[d] * shape[d]);
            if merge {
                *out_shape.last_mut().unwrap() = last * shape[d];
                for (o, s) in out_strides.iter_mut().zip(strides) {
                    *o.last_mut().unwrap() = s[d];
                }
                continue;
            }
        }
        out_shape.push(shape[d]);
        for (o, s) in out_strides.iter_mut().zip(strides) {
            o.push(s[d]);
        }
    }
    (out_shape, out_strides)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_of_transposed_needs_copy() {
        let l = Layout::contiguous(&[2, 3]).transpose(0, 1).unwrap();
        assert!(!l.is_contiguous());
        assert!(l.view(&[6]).is_none());
        assert_eq!(l.view(&[3, 2, 1]).unwrap().strides, vec![1, 3, 3]);
    }

    #[test]
    fn view_splits_and_merges() {
        let l = Layout::contiguous(&[4, 6]);
        assert_eq!(l.view(&[2, 2, 3, 2]).unwrap().strides, vec![12, 6, 2, 1]);
        assert_eq!(l.view(&[24]).unwrap().strides, vec![1]);
    }

    #[test]
    fn broadcast_and_errors() {
        assert_eq!(broadcast_shapes(&[2, 1, 3], &[4, 1]).unwrap(), vec![2, 4, 3]);
        let e = broadcast_shapes(&[2, 3], &[2, 4]).unwrap_err();
        assert_eq!(
            e.message,
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"
        );
        // Several mismatching dims: the last is named.
        let e = broadcast_shapes(&[2, 3], &[3, 4]).unwrap_err();
        assert_eq!(
            e.message,
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"
        );
        assert_eq!(
            wrap_dim(2, 2).unwrap_err().message,
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
        );
        assert_eq!(infer_size(&[-1, 3], 6).unwrap(), vec![2, 3]);
        assert_eq!(
            Layout::contiguous(&[2, 3]).expand(&[3]).unwrap_err().message,
            "expand(torch.FloatTensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater or equal to the number of dimensions in the tensor (2)"
        );
        assert_eq!(infer_size(&[4, -1], 6).unwrap_err().message, "shape '[4, -1]' is invalid for input of size 6");
    }

    #[test]
    fn coalesce_merges_contiguous_runs() {
        let (s, st) = coalesce(&[2, 3, 4], &[vec![12, 4, 1], vec![0, 4, 1]]);
        assert_eq!(s, vec![2, 12]);
        assert_eq!(st, vec![vec![12, 1], vec![0, 1]]);
    }
}
