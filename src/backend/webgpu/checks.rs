//! Device-side value checks: out-of-range indices (index_select, gather, scatter and the ops
//! built on them) and value preconditions (class indices, probabilities) of tensors that live on
//! the GPU. A kernel cannot throw, and reading the values back before every op would stall the
//! queue, so — as CUDA's device-side assert does — a small check kernel (`shaders/check.wgsl`)
//! records the first failure in an 8-word error buffer, and the next read or sync copies that
//! buffer out (in the same submit), clears it and raises the error, with the message PyTorch's
//! CPU kernels give. Reads and syncs pay for this only after a check was dispatched
//! (`Stats::check_reads` counts them).

use std::collections::HashMap;
use std::rc::Rc;

use super::codegen::KernelKey;
use super::launch::put;
use super::{size_class, State, WebGpuBackend, MAX_RANK, WG};
use crate::backend::{BufId, CheckMessage, ValueCheck};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::{bail, err};

const ERR_BYTES: u64 = 32;

/// The checks' part of the backend state.
#[derive(Default)]
pub(super) struct Checks {
    /// The error buffer (made on first use; never pooled).
    err: Option<BufId>,
    /// A check ran since the error buffer was last fetched.
    pending: bool,
    /// Messages by id (ids are recorded in kernels, also in captured graphs: they stay valid).
    /// Shared with pending fetches, which look the failed check's message up when it arrives.
    messages: Rc<crate::cell::RefCell<Vec<CheckMessage>>>,
    ids: HashMap<CheckMessage, u32>,
}

/// What a read or sync must decode after its submit: the copy of the error buffer and the
/// messages it may name.
pub(super) struct Fetch {
    staging: wgpu::Buffer,
    messages: Rc<crate::cell::RefCell<Vec<CheckMessage>>>,
}

impl Checks {
    /// Marks the error buffer as possibly written (a captured graph with checks was replayed).
    pub(super) fn touch(&mut self) {
        if self.err.is_some() {
            self.pending = true;
        }
    }
}

impl WebGpuBackend {
    pub(super) fn check_values_impl(&self, k: &ValueCheck) -> Result<()> {
        if k.shape.len() > MAX_RANK {
            bail!(Shape, "webgpu: value checks over more than {MAX_RANK} dims are not supported");
        }
        let n: usize = k.shape.iter().product();
        if n == 0 {
            return Ok(());
        }
        let int = match k.x.dtype {
            DType::Int32 | DType::Int64 => true,
            DType::Float32 => false,
            other => bail!(DType, "webgpu: value checks of {} tensors are not supported", other.name()),
        };
        let bits = |v: f64| -> u32 {
            if int {
                // Bounds outside i32 clamp (an int32 value cannot pass them anyway).
                (v.clamp(i32::MIN as f64, i32::MAX as f64) as i32) as u32
            } else {
                (v.clamp(f32::MIN as f64, f32::MAX as f64) as f32).to_bits()
            }
        };
        let (err_buf, id) = {
            let mut st = self.st.borrow_mut();
            let err_buf = self.error_buffer(&mut st)?;
            let c = &mut st.checks;
            let id = match c.ids.get(&k.message) {
                Some(&id) => id,
                None => {
                    let mut messages = c.messages.borrow_mut();
                    let id = messages.len() as u32;
                    messages.push(k.message.clone());
                    c.ids.insert(k.message.clone(), id);
                    id
                }
            };
            (err_buf, id)
        };
        let groups = Self::groups_for(n)?;
        let (gx, gy) = Self::grid(groups);
        let mut meta = [0u32; 32];
        let flags = u32::from(int) | if k.except.is_some() { 2 } else { 0 };
        put(&mut meta, 0, &[n, k.shape.len(), (gx * WG) as usize, k.x.offset, id as usize, flags as usize])?;
        meta[6] = bits(k.lo);
        meta[7] = bits(k.hi);
        meta[8] = k.except.map_or(0, bits);
        put(&mut meta, 16, &k.shape)?;
        put(&mut meta, 24, &k.x.strides)?;
        self.dispatch(&KernelKey::Check, &meta, &[err_buf, k.x.buf], (gx, gy, 1))?;
        let mut st = self.st.borrow_mut();
        st.checks.pending = true;
        st.stats.value_checks += 1;
        Ok(())
    }

    /// The error buffer, made zeroed on first use.
    fn error_buffer(&self, st: &mut State) -> Result<BufId> {
        if let Some(id) = st.checks.err {
            return Ok(id);
        }
        let buf = self.alloc_buffer(
            ERR_BYTES,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            "webtorch:check-errors",
        )?;
        let id = st.bufs.len() as BufId;
        st.bufs.push(Some((buf, ERR_BYTES)));
        st.checks.err = Some(id);
        Ok(id)
    }

    /// When a check ran since the last fetch: a staging buffer for the error buffer's copy, which
    /// `record_fetch` encodes into the submit that the read or sync makes.
    pub(super) fn prepare_fetch(&self, st: &mut State) -> Result<Option<Fetch>> {
        if !st.checks.pending {
            return Ok(None);
        }
        let class = size_class(ERR_BYTES);
        let staging = match st.staging.take(class) {
            Some(b) => b,
            None => self.alloc_buffer(
                class,
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                "webtorch:staging",
            )?,
        };
        st.checks.pending = false;
        st.stats.check_reads += 1;
        Ok(Some(Fetch { staging, messages: Rc::clone(&st.checks.messages) }))
    }

    /// The error buffer and the staging buffer of a fetch, for `record_fetch`.
    pub(super) fn fetch_buffers(st: &State, fetch: &Option<Fetch>) -> Option<(wgpu::Buffer, wgpu::Buffer)> {
        let f = fetch.as_ref()?;
        Some((Self::buffer(st, st.checks.err?), f.staging.clone()))
    }

    /// Copies the error buffer out and clears it (inside the read's or sync's submit).
    pub(super) fn record_fetch(buffers: Option<(wgpu::Buffer, wgpu::Buffer)>, enc: &mut wgpu::CommandEncoder) {
        if let Some((err, staging)) = buffers {
            enc.copy_buffer_to_buffer(&err, 0, &staging, 0, ERR_BYTES);
            enc.clear_buffer(&err, 0, None);
        }
    }

    /// Maps the fetched copy (after the submit) and turns a recorded failure into its error.
    pub(super) async fn decode_fetch(&self, fetch: Fetch) -> Result<()> {
        let (tx, rx) = futures_channel::oneshot::channel();
        fetch.staging.map_async(wgpu::MapMode::Read, 0..ERR_BYTES, move |r| {
            let _ = tx.send(r);
        });
        #[cfg(not(target_arch = "wasm32"))]
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
        match rx.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => bail!(Device, "WebGPU buffer mapping failed: {e}"),
            Err(_) => bail!(Device, "WebGPU device was lost during a read"),
        }
        let words: Vec<u32> = {
            let view =
                fetch.staging.get_mapped_range(0..ERR_BYTES).map_err(|e| err!(Device, "WebGPU map range: {e:?}"))?;
            bytemuck::cast_slice(&view).to_vec()
        };
        fetch.staging.unmap();
        self.st.borrow_mut().staging.give(size_class(ERR_BYTES), fetch.staging);
        if words[0] == 0 {
            return Ok(());
        }
        let Some(message) = fetch.messages.borrow().get(words[1] as usize).cloned() else {
            bail!(Device, "webgpu: a device-side check failed (unknown check {})", words[1]);
        };
        let value =
            if words[4] & 1 != 0 { (words[2] as i32).to_string() } else { f32::from_bits(words[2]).to_string() };
        Err(message.error(words[3] == 1, &value))
    }
}

/// Runs `fetch`'s decode after `result` (the read's or sync's own outcome), the check's error
/// first: it is what went wrong earlier.
pub(super) async fn with_fetch<T>(
    me: &WebGpuBackend,
    fetch: Option<Fetch>,
    result: Result<T>,
) -> std::result::Result<T, Error> {
    if let Some(f) = fetch {
        me.decode_fetch(f).await?;
    }
    result
}
