//! In-place writes (`x.add_(y)`, `x.copy_(y)`, `x[1:] = 0`): the new values are computed like any
//! elementwise op, then either take over the storage (when the view is the whole storage) or are
//! written through the view's strides. Every write bumps the storage's version, which autograd
//! checks against the versions of the tensors it saved.

use super::elementwise::check_same_device;
use super::fusion::{self, Operand};
use super::{State, Tensor};
use crate::backend::{Elementwise, Func, Kernel};
use crate::bail;
use crate::error::Result;
use crate::shape::{broadcast_shapes, fmt_shape};

impl Tensor {
    /// How many in-place writes this tensor's storage has had.
    pub fn version(&self) -> u64 {
        self.storage.version.get()
    }

    /// Before a kernel writes this tensor's storage outside `assign_` (a fused optimizer step):
    /// pending expressions that read the old values are computed first.
    pub(crate) fn prepare_write(&self) -> Result<()> {
        fusion::materialize_readers(&self.storage)
    }

    /// After such a write: the storage's version moves on, as for any in-place op.
    pub(crate) fn mark_written(&self) {
        self.storage.version.set(self.storage.version.get() + 1);
    }

    /// Whether this view is its whole storage, contiguously.
    fn covers_storage(&self) -> bool {
        self.layout.offset == 0 && self.layout.is_contiguous() && self.numel() == self.storage.len
    }

    /// Writes `value` — broadcast to this shape and cast to this dtype — into this view's elements
    /// (PyTorch's `copy_`; in-place ops are `assign_` of their functional result).
    pub fn assign_(&self, value: &Tensor) -> Result<()> {
        self.assign_impl(value.clone(), false)
    }

    /// `assign_` of a value nothing else holds (an in-place op's own result, moved in): where
    /// this view is its whole storage, the value's pending expression — which reads the old
    /// values — runs once, straight into the new storage, and the other pending readers after
    /// it; `assign_` must compute it first (someone could still read it) and then copy it: two
    /// kernels and a pass over the tensor more.
    pub(crate) fn assign_owned_(&self, value: Tensor) -> Result<()> {
        // A view also holds its storage through its base's handle (`autograd::Slot`).
        let through_base = value.view_base().is_some_and(|b| b.same_storage(&value));
        let owned = std::rc::Rc::strong_count(&value.storage) == 1 + through_base as usize;
        self.assign_impl(value, owned)
    }

    fn assign_impl(&self, value: Tensor, owned: bool) -> Result<()> {
        check_same_device(self, &value)?;
        let shape = self.shape().to_vec();
        if broadcast_shapes(&shape, value.shape()).ok().as_deref() != Some(&shape[..]) {
            bail!(
                Shape,
                "output with shape {} doesn't match the broadcast shape {}",
                fmt_shape(&shape),
                fmt_shape(&broadcast_shapes(&shape, value.shape()).unwrap_or_else(|_| value.shape().to_vec()))
            );
        }
        // Pending expressions may read the old values: compute them before they change (an
        // owned value's own expression inside the new values' kernel, the others after it).
        let late = owned && self.covers_storage() && self.numel() > 0 && !value.same_storage(self);
        if !late {
            fusion::materialize_readers(&self.storage)?;
        }
        if self.numel() > 0 {
            let compute = value.dtype.compute_for_cast();
            if self.covers_storage() {
                // An owned value already computed, of this shape and dtype, whole: its buffer
                // becomes this storage's (no copy); otherwise a kernel writes the new values.
                let fresh = if late && value.dtype == self.dtype && value.shape() == shape && value.covers_storage() {
                    value
                } else {
                    super::elementwise::elementwise_op(
                        self.backend(),
                        &[Operand::Tensor(&value)],
                        Func::Cast,
                        compute,
                        self.dtype,
                        shape,
                    )?
                };
                // (An owned value inlined into `fresh` goes now: no flush or reader computes it.)
                fresh.materialize()?;
                if late {
                    fusion::materialize_readers(&self.storage)?;
                }
                let buf = match std::mem::replace(&mut *fresh.storage.state.borrow_mut(), State::Moved) {
                    State::Ready(b) => b,
                    _ => bail!(Torch, "internal: an in-place result was not computed"),
                };
                let old = std::mem::replace(&mut *self.storage.state.borrow_mut(), State::Ready(buf));
                if let State::Ready(b) = old {
                    self.backend().release(b);
                }
            } else {
                // A kernel may not read the buffer it writes: copy an aliasing value first.
                let value = if value.same_storage(self) { value.deep_clone()? } else { value.clone() };
                let out = self.storage.materialize()?;
                let p = fusion::record(&[Operand::Tensor(&value)], Func::Cast, compute, self.dtype, &shape, false)?;
                let leaves = p.leaves.iter().map(|l| l.tensor.operand_with(&l.strides)).collect::<Result<Vec<_>>>()?;
                let view = Some((self.layout.offset, self.layout.strides.clone()));
                self.backend().launch(Kernel::Elementwise(&Elementwise {
                    nodes: p.nodes,
                    leaves,
                    shape,
                    out,
                    out_view: view,
                }))?;
            }
        }
        self.storage.version.set(self.storage.version.get() + 1);
        crate::engine::note_work();
        Ok(())
    }
}
