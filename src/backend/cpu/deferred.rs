//! Buffers whose words arrive later: a copy from an asynchronous device (`t.cpu()` of a WebGPU
//! tensor) returns its CPU tensor at once, its buffer *pending* until the device's read lands.
//!
//! A kernel cannot wait, and JS cannot block on a read, so while any buffer is pending the CPU
//! backend records its work instead of running it: every call that reads or writes buffer
//! contents (kernels, copies, writes, value checks, releases) is queued in call order; allocations
//! and uploads (fresh buffers no queued work refers to) still run at once. When the last pending
//! buffer is filled the queue runs, in order, as it would have run eagerly. Reads and syncs wait
//! for that; a queued call that fails is reported by the next read or sync (as a WebGPU kernel's
//! failure is), and a host read that cannot wait (`host_values`) sees the read still pending and
//! leaves the check to the queued `check_values`.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use super::{BufId, CpuBackend};
use crate::cell::RefCell;
use crate::error::{Error, Result};

/// A recorded call, run on the backend when nothing is pending any more.
pub(super) type Queued = Box<dyn FnOnce(&CpuBackend) -> Result<()>>;

#[derive(Default)]
pub(super) struct Deferred {
    /// Buffers waiting for their words.
    pending: Vec<BufId>,
    /// The calls made while some were.
    queue: VecDeque<Queued>,
    /// True while the queue runs (its calls then run at once).
    draining: bool,
    /// The first failure of a queued call (or of a pending buffer's read), for the next read.
    error: Option<Error>,
    /// Reads and syncs waiting for the queue.
    wakers: Vec<Waker>,
}

impl Deferred {
    pub(super) fn push(&mut self, f: Queued) {
        self.queue.push_back(f);
    }
}

/// The shared state (the futures of waiting reads hold it too).
pub(super) type Shared = Rc<RefCell<Deferred>>;

impl CpuBackend {
    /// Whether calls are recorded now rather than run.
    pub(super) fn deferring(&self) -> bool {
        let d = self.deferred.borrow();
        !d.draining && !d.pending.is_empty()
    }

    /// Whether a read must wait: a buffer is pending, or a recorded call failed.
    pub(super) fn waits(&self) -> bool {
        let d = self.deferred.borrow();
        !d.pending.is_empty() || d.error.is_some()
    }

    /// Marks `buf` (from `alloc_for_write`) as waiting for its words: from now until
    /// [`CpuBackend::fill_pending`] the backend records its work.
    pub fn begin_pending(&self, buf: BufId) {
        self.deferred.borrow_mut().pending.push(buf);
    }

    /// Whether a buffer is waiting for its words (or work waits for one).
    pub fn has_pending(&self) -> bool {
        !self.deferred.borrow().pending.is_empty()
    }

    /// The words of pending buffer `buf` (or the failure of their read); once none is pending the
    /// recorded work runs, in order.
    pub fn fill_pending(&self, buf: BufId, words: Result<Vec<u32>>) {
        {
            let mut d = self.deferred.borrow_mut();
            let Some(at) = d.pending.iter().position(|&b| b == buf) else { return };
            d.pending.swap_remove(at);
        }
        match words {
            Ok(w) => {
                let mut st = self.state.borrow_mut();
                if let Some(b) = st.bufs[buf as usize].as_mut() {
                    let n = w.len().min(b.len());
                    b[..n].copy_from_slice(&w[..n]);
                }
            }
            Err(e) => {
                self.deferred.borrow_mut().error.get_or_insert(e);
            }
        }
        if self.has_pending() {
            return;
        }
        self.deferred.borrow_mut().draining = true;
        loop {
            // One at a time, the borrow released: a queued call uses the backend.
            let next = self.deferred.borrow_mut().queue.pop_front();
            let Some(f) = next else { break };
            if let Err(e) = f(self) {
                self.deferred.borrow_mut().error.get_or_insert(e);
            }
        }
        let wakers = {
            let mut d = self.deferred.borrow_mut();
            d.draining = false;
            std::mem::take(&mut d.wakers)
        };
        wakers.into_iter().for_each(Waker::wake);
    }

    /// Resolves once nothing is pending, to the first failure recorded meanwhile.
    pub(super) fn drained(&self) -> Drained {
        Drained(self.deferred.clone())
    }
}

/// The future of [`CpuBackend::drained`].
pub(super) struct Drained(Shared);

impl Future for Drained {
    type Output = Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<()>> {
        let mut d = self.0.borrow_mut();
        if !d.pending.is_empty() || d.draining {
            d.wakers.push(cx.waker().clone());
            return Poll::Pending;
        }
        match d.error.take() {
            Some(e) => Poll::Ready(Err(e)),
            None => Poll::Ready(Ok(())),
        }
    }
}
