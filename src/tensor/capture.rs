//! What kernel-graph capture (`api/tensor/graph.rs`, `backend/webgpu/graph.rs`) needs from tensors:
//! their ready buffers, whether two tensors share a storage, pointing a storage at another
//! buffer, and tensors over the fresh buffers a graph replay fills.

use crate::cell::RefCell;
use std::rc::Rc;

use super::{State, Storage, Tensor};
use crate::backend::{Backend, BufId};
use crate::dtype::DType;
use crate::error::Result;
use crate::shape::Layout;

impl Tensor {
    /// The buffer, computing a pending tensor first.
    pub fn ready_buf(&self) -> Result<BufId> {
        self.storage.materialize()
    }

    /// The buffer if the storage is computed (no work).
    pub fn current_buf(&self) -> Option<BufId> {
        match *self.storage.state.borrow() {
            State::Ready(b) => Some(b),
            _ => None,
        }
    }

    /// Whether both tensors view one storage.
    pub fn same_storage_as(&self, other: &Tensor) -> bool {
        Rc::ptr_eq(&self.storage, &other.storage)
    }

    /// Elements of the storage (a view may see fewer).
    pub fn storage_len(&self) -> usize {
        self.storage.len
    }

    /// Bytes of the storage's buffer that hold values.
    pub fn storage_bytes(&self) -> u64 {
        self.storage.len as u64 * self.dtype.word_bytes()
    }

    /// Points the (computed) storage at `buf`, returning the buffer it had, which the caller now
    /// owns (it is not released).
    pub fn rebind_storage(&self, buf: BufId) -> Option<BufId> {
        let mut st = self.storage.state.borrow_mut();
        match *st {
            State::Ready(old) => {
                *st = State::Ready(buf);
                Some(old)
            }
            _ => None,
        }
    }

    /// A tensor over `buf` (owned by it from now on) with `layout` over a storage of `len`
    /// elements.
    pub fn over_buffer(backend: &Rc<dyn Backend>, buf: BufId, len: usize, layout: Layout, dtype: DType) -> Tensor {
        let storage = Rc::new(Storage {
            backend: backend.clone(),
            state: RefCell::new(State::Ready(buf)),
            len,
            version: Default::default(),
        });
        Tensor { storage, layout, dtype, ag: Default::default() }
    }
}
