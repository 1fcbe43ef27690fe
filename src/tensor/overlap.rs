//! PyTorch's memory-overlap checks for in-place writes: a written tensor none of whose elements
//! share a storage word with another of its elements, and inputs that either are the written
//! elements exactly (`x.mul_(x)`) or do not touch them. Otherwise the result would depend on
//! the order the kernel visits the elements, so PyTorch refuses, and so does webtorch.

use super::Tensor;
use crate::bail;
use crate::error::Result;
use crate::shape::Layout;

/// Whether `layout`'s elements are distinct storage words filling one range without gaps (a
/// permutation of a contiguous layout).
fn non_overlapping_and_dense(layout: &Layout) -> bool {
    let mut dims: Vec<(usize, usize)> =
        layout.shape.iter().copied().zip(layout.strides.iter().copied()).filter(|&(size, _)| size != 1).collect();
    dims.sort_by_key(|&(_, stride)| stride);
    let mut expected = 1;
    for (size, stride) in dims {
        if stride != expected {
            return false;
        }
        expected *= size;
    }
    true
}

const CLONE_HINT: &str = "Please clone() the tensor before performing the operation.";

impl Tensor {
    /// Refuses a write to a tensor with several elements at one storage word (an expanded tensor).
    pub fn check_no_internal_overlap(&self) -> Result<()> {
        let l = &self.layout;
        if !non_overlapping_and_dense(l)
            && l.shape.iter().zip(&l.strides).any(|(&size, &stride)| size > 1 && stride == 0)
        {
            bail!(
                Torch,
                "unsupported operation: more than one element of the written-to tensor refers to a single memory location. {CLONE_HINT}"
            );
        }
        Ok(())
    }

    /// Refuses a write to `self` that reads `input` where the two share some storage words but
    /// are not the same elements in the same order.
    pub fn check_no_partial_overlap(&self, input: &Tensor) -> Result<()> {
        let (a, b) = (&self.layout, &input.layout);
        if !self.same_storage(input) || self.numel() == 0 || input.numel() == 0 {
            return Ok(());
        }
        // Layouts with gaps or repeats are not compared (PyTorch's "too hard" case).
        if !non_overlapping_and_dense(a) || !non_overlapping_and_dense(b) {
            return Ok(());
        }
        let (a0, a1) = (a.offset, a.offset + self.numel());
        let (b0, b1) = (b.offset, b.offset + input.numel());
        let full = a0 == b0 && a1 == b1 && a.strides == b.strides;
        if !full && a0 < b1 && b0 < a1 {
            bail!(
                Torch,
                "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. {CLONE_HINT}"
            );
        }
        Ok(())
    }
}
