//! Per-dispatch GPU timestamps for `torch.profiler` (`backend/timing.rs` has the format). While a
//! profile records on a device with `timestamp-query`, each dispatch runs in its own compute pass
//! whose beginning and end write a pair of timestamps into a query set; a submit resolves the
//! pairs it used and copies them into a readback buffer, and the profile's end maps them all.
//! WebGPU has no timestamps inside a pass, so timing costs one pass per dispatch — only while
//! recording.

use super::{State, WebGpuBackend, ARENA_SLOTS};
use crate::backend::timing::{self, GpuEvent, Tag};
use crate::backend::LocalFuture;
use crate::error::Result;
use crate::{bail, err};

/// Queries in the set: a pair per dispatch, `ARENA_SLOTS` dispatches at most between submits
/// (`dispatch_locked` submits when the set is full; dispatches sharing a uniform slot can make a
/// batch longer than the arena otherwise).
pub(super) const QUERIES: u32 = 2 * ARENA_SLOTS as u32;

pub(super) struct Timing {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    /// Tags of the dispatches recorded since the last submit (query pair i is dispatch i).
    tags: Vec<Tag>,
    /// Resolved batches waiting to be read: (readback buffer, its dispatches' tags).
    done: Vec<(wgpu::Buffer, Vec<Tag>)>,
}

impl Timing {
    /// Whether the set has room for another pair.
    pub(super) fn full(&self) -> bool {
        2 * self.tags.len() as u32 >= QUERIES
    }

    /// The timestamp writes of the next dispatch's pass, tagged with `kernel` and the running op.
    pub(super) fn next(&mut self, kernel: String) -> wgpu::ComputePassTimestampWrites<'_> {
        let i = 2 * self.tags.len() as u32;
        self.tags.push(timing::tag(kernel));
        wgpu::ComputePassTimestampWrites {
            query_set: &self.set,
            beginning_of_pass_write_index: Some(i),
            end_of_pass_write_index: Some(i + 1),
        }
    }
}

impl WebGpuBackend {
    /// Whether the device can time dispatches (`timestamp-query` was granted).
    pub fn has_timestamps(&self) -> bool {
        self.device.features().contains(wgpu::Features::TIMESTAMP_QUERY)
    }

    /// Starts timing every dispatch; false (and nothing changes) without `timestamp-query`.
    pub fn gpu_timing_start(&self) -> bool {
        if !self.has_timestamps() {
            return false;
        }
        let mut st = self.st.borrow_mut();
        // Work recorded before the profile is submitted untimed.
        if st.encoder.is_some() {
            self.flush_locked(&mut st);
        }
        let set = self.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("webtorch:profiler-timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: QUERIES,
        });
        let resolve = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("webtorch:profiler-resolve"),
            size: QUERIES as u64 * 8,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        st.timing = Some(Timing { set, resolve, tags: Vec::new(), done: Vec::new() });
        true
    }

    /// Appends the resolve of this batch's timestamps to `encoder` (called by every submit).
    pub(super) fn resolve_timestamps(&self, st: &mut State, encoder: &mut wgpu::CommandEncoder) {
        let Some(t) = st.timing.as_mut() else { return };
        if t.tags.is_empty() {
            return;
        }
        let n = 2 * t.tags.len() as u32;
        let bytes = n as u64 * 8;
        let readback = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("webtorch:profiler-readback"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        encoder.resolve_query_set(&t.set, 0..n, &t.resolve, 0);
        encoder.copy_buffer_to_buffer(&t.resolve, 0, &readback, 0, bytes);
        t.done.push((readback, std::mem::take(&mut t.tags)));
    }

    /// Stops timing and reads every batch's timestamps: one event per dispatch since
    /// `gpu_timing_start`, in dispatch order. Empty when timing was not on.
    pub fn gpu_timing_stop(&self) -> LocalFuture<Result<Vec<GpuEvent>>> {
        let batches = {
            let mut st = self.st.borrow_mut();
            if st.encoder.is_some() {
                self.flush_locked(&mut st);
            }
            match st.timing.take() {
                Some(t) => t.done,
                None => Vec::new(),
            }
        };
        let mut waits = Vec::with_capacity(batches.len());
        for (buf, _) in &batches {
            let (tx, rx) = futures_channel::oneshot::channel();
            buf.map_async(wgpu::MapMode::Read, .., move |r| {
                let _ = tx.send(r);
            });
            waits.push(rx);
        }
        #[cfg(not(target_arch = "wasm32"))]
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
        let period = self.queue.get_timestamp_period();
        let me = self.me.upgrade();
        Box::pin(async move {
            let mut raw: Vec<(Vec<u64>, Vec<Tag>)> = Vec::with_capacity(batches.len());
            for ((buf, tags), rx) in batches.into_iter().zip(waits) {
                match rx.await {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => bail!(Device, "WebGPU timestamp readback failed: {e}"),
                    Err(_) => bail!(Device, "WebGPU device was lost while reading GPU times"),
                }
                let words: Vec<u64> = {
                    let view = buf.get_mapped_range(..).map_err(|e| err!(Device, "WebGPU map range: {e:?}"))?;
                    bytemuck::cast_slice(&view).to_vec()
                };
                buf.unmap();
                raw.push((words, tags));
            }
            if let Some(me) = me {
                me.take_errors()?;
            }
            // Start times count from the earliest beginning over all batches.
            let origin = raw.iter().flat_map(|(w, _)| w.iter().step_by(2)).copied().min().unwrap_or(0);
            Ok(raw.iter().flat_map(|(w, tags)| timing::parse(w, period, tags, origin)).collect())
        })
    }
}
