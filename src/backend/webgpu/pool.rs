//! Size-class buffer pool. Sizes round up to classes of 1, 1.25, 1.5 or 1.75 × 2^k bytes (at most
//! 25 % slack), so a freed buffer serves any later request of its class.
//!
//! Buffers released while the open compute pass may still use them are "dirty": later dispatches
//! in the same pass may reuse them (WebGPU orders dispatches within a pass), but an upload may not,
//! because `queue.write_buffer` runs before the pass is executed. They turn clean on submit.
//!
//! A request takes the *lowest* free buffer of its class (buffers are ordered by identity), not
//! the last one freed: which buffers are free then depends only on the requests and releases
//! made, not on their order, so a loop that allocates and frees the same way each step gets the
//! same buffers each step, and the bind groups cached for them (`binding.rs`) are found again. A
//! last-in-first-out pool permuted a transformer block's buffers from step to step, and the
//! block kept creating 50–100 bind groups a step.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;

/// The size class (bytes actually allocated) for a request of `bytes`.
pub fn size_class(bytes: u64) -> u64 {
    let bytes = bytes.max(256);
    let top = 63 - bytes.leading_zeros(); // 2^top <= bytes
    let quarter = (1u64 << top) / 4;
    let q = (bytes - (1u64 << top)).div_ceil(quarter);
    (1u64 << top) + q * quarter
}

pub struct Pool<B> {
    free: FxHashMap<u64, BTreeSet<B>>,
    deferred: FxHashMap<u64, BTreeSet<B>>,
    pub pooled_bytes: u64,
}

impl<B: Ord> Default for Pool<B> {
    fn default() -> Self {
        Pool { free: FxHashMap::default(), deferred: FxHashMap::default(), pooled_bytes: 0 }
    }
}

impl<B: Ord> Pool<B> {
    /// The lowest free buffer of this class for a kernel's output (dirty first, then clean), if
    /// any.
    pub fn take(&mut self, class: u64) -> Option<B> {
        if let Some(b) = self.deferred.get_mut(&class).and_then(BTreeSet::pop_first) {
            self.pooled_bytes -= class;
            return Some(b);
        }
        self.take_clean(class)
    }

    /// The lowest free buffer of this class that no recorded work uses (safe to upload into), if
    /// any.
    pub fn take_clean(&mut self, class: u64) -> Option<B> {
        let b = self.free.get_mut(&class)?.pop_first()?;
        self.pooled_bytes -= class;
        Some(b)
    }

    /// Takes a buffer back once the work recorded so far has been submitted.
    pub fn give_deferred(&mut self, class: u64, b: B) {
        self.pooled_bytes += class;
        self.deferred.entry(class).or_default().insert(b);
    }

    /// Called after a submit: dirty buffers become clean.
    pub fn on_submit(&mut self) {
        for (class, dirty) in self.deferred.iter_mut().filter(|(_, d)| !d.is_empty()) {
            self.free.entry(*class).or_default().append(dirty);
        }
    }

    pub fn give(&mut self, class: u64, b: B) {
        self.pooled_bytes += class;
        self.free.entry(class).or_default().insert(b);
    }

    /// Drops every pooled buffer (`empty_cache`).
    pub fn clear(&mut self) {
        self.free.clear();
        self.pooled_bytes = self.deferred.iter().map(|(c, d)| c * d.len() as u64).sum();
    }
}

use super::{BufId, WebGpuBackend, STORAGE_USAGE};
use crate::bail;
use crate::error::Result;

impl WebGpuBackend {
    /// A pooled buffer; `clean` asks for one no recorded work uses (uploads need that).
    pub(super) fn alloc_from_pool(&self, bytes: u64, clean: bool) -> Result<BufId> {
        self.check_lost()?;
        let class = size_class(bytes);
        let limit = self.limits.max_storage_buffer_binding_size;
        if class > limit {
            bail!(
                OutOfMemory,
                "WebGPU: a tensor of {bytes} bytes exceeds this adapter's maxStorageBufferBindingSize ({limit} bytes)"
            );
        }
        let mut st = self.st.borrow_mut();
        crate::debug::fault_point("webgpu.alloc");
        // While capturing, a dispatch's buffer may be one the step already released (never an
        // upload's: a replay writes uploads before its first dispatch).
        // Its slot still holds it and counts it live: the slot is the new tensor's.
        if let Some(id) = st.capture.as_mut().filter(|_| !clean).and_then(|cap| cap.take_spare(class)) {
            st.stats.reuses += 1;
            return Ok(id);
        }
        let pooled = if clean { st.pool.take_clean(class) } else { st.pool.take(class) };
        let buf = match pooled {
            Some(b) => {
                st.stats.reuses += 1;
                b
            }
            None => {
                self.fit_budget(&mut st, class)?;
                st.stats.allocations += 1;
                self.alloc_buffer(class, STORAGE_USAGE, "webtorch:tensor")?
            }
        };
        // A new tensor's buffer depends on no device-side check yet.
        st.checks.forget(&buf);
        st.stats.active_bytes += class;
        st.stats.peak_bytes = st.stats.peak_bytes.max(st.stats.active_bytes);
        st.stats.live_buffers += 1;
        let id = match st.free_ids.pop() {
            Some(id) => {
                st.bufs[id as usize] = Some((buf, class));
                id
            }
            None => {
                st.bufs.push(Some((buf, class)));
                (st.bufs.len() - 1) as BufId
            }
        };
        if let Some(cap) = st.capture.as_mut() {
            cap.fresh.insert(id);
        }
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_bound_the_slack() {
        assert_eq!(size_class(1), 256);
        assert_eq!(size_class(1024), 1024);
        assert_eq!(size_class(1025), 1280);
        assert_eq!(size_class(1800), 2048);
        for b in [300u64, 5000, 123_457, 9_999_999] {
            let c = size_class(b);
            assert!(c >= b && (c as f64) <= b as f64 * 1.25 + 1.0, "{b} -> {c}");
        }
    }

    #[test]
    fn deferred_buffers_wait_for_submit() {
        let mut p: Pool<u32> = Pool::default();
        p.give_deferred(256, 7);
        assert_eq!(p.take_clean(256), None);
        p.on_submit();
        assert_eq!(p.take_clean(256), Some(7));
        p.give_deferred(256, 8);
        assert_eq!(p.take(256), Some(8), "outputs may reuse dirty buffers");
    }

    #[test]
    fn the_lowest_free_buffer_is_taken_whatever_the_order_of_release() {
        for order in [[3u32, 1, 2], [2, 3, 1], [1, 2, 3]] {
            let mut p: Pool<u32> = Pool::default();
            for b in order {
                p.give(256, b);
            }
            assert_eq!([p.take(256), p.take(256), p.take(256)], [Some(1), Some(2), Some(3)]);
            for b in order {
                p.give_deferred(512, b);
            }
            assert_eq!(p.take(512), Some(1), "dirty buffers too");
            assert_eq!(p.take(512), Some(2));
        }
    }
}
