//! The WebGPU backend (wgpu): the browser's WebGPU through wasm, Dawn in Node, Vulkan natively.
//!
//! Work is recorded into one open compute pass and submitted when `batch_threshold` dispatches
//! are pending (16 for the first submit after a read or a sync: `IDLE_FIRST`), when the 16 ms
//! timer fires (wasm), or on read/sync (docs/ARCHITECTURE.md, "The path of one call").
//! Kernel parameters go into a uniform arena (a 512-byte slot per dispatch) written once per
//! submit, so recording a dispatch allocates no GPU memory; bind groups bind a slot each, so
//! none is set with dynamic offsets (`binding.rs`).

pub mod batched;
mod binding;
mod checks;
mod codegen;
pub mod conv;
mod custom;
mod device;
pub mod elementwise;
mod epilogue;
mod graph;
mod launch;
pub mod matmul;
mod pool;
mod record;
mod reduce_gen;
mod reduce_launch;
pub mod rows;
mod timing;

use crate::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;

use self::binding::ARENA_SLOTS;
use self::codegen::KernelKey;
use self::pool::{size_class, Pool};
use super::program::{self, Dispatch, MAX_GROUPS, WG};
use super::{
    Backend, Batching, BufId, Device, FaultInjection, GpuTiming, KernelGraphs, LocalFuture, MemoryControl, Stats,
    UserKernels,
};
// `Kernel` here is a compiled pipeline; the contract's kernel descriptions are `Launch`.
use super::Kernel as Launch;
use crate::error::{ErrorKind, Result};
use crate::{bail, err};

/// A dispatch's uniform slot: the most uniform words the contract lets a dispatch pass.
const SLOT_WORDS: usize = program::MAX_UNIFORMS;
const SLOT_BYTES: u64 = 4 * SLOT_WORDS as u64;
const MAX_RANK: usize = 8;
/// Dispatches before the first submit after the GPU went idle (`State::idle`): on the H100 a
/// transformer block step records ~9 ms of work; with the first submit at 64 dispatches its GPU
/// work started ~5 ms late (bench/KERNELS.md).
const IDLE_FIRST: usize = 16;
const STORAGE_USAGE: wgpu::BufferUsages =
    wgpu::BufferUsages::STORAGE.union(wgpu::BufferUsages::COPY_SRC).union(wgpu::BufferUsages::COPY_DST);

/// What `torch.webgpu.getCapabilities()` reports.
#[derive(Clone, Debug, serde::Serialize)]
pub struct AdapterSummary {
    pub name: String,
    pub vendor: String,
    pub architecture: String,
    pub description: String,
    pub backend: String,
    pub features: Vec<String>,
    pub limits: HashMap<String, u64>,
}

struct Kernel {
    pipeline: wgpu::ComputePipeline,
    layout: Rc<wgpu::BindGroupLayout>,
    /// `codegen::label` of its key (the profiler names a replayed dispatch by it).
    label: String,
}

struct State {
    bufs: Vec<Option<(wgpu::Buffer, u64)>>,
    free_ids: Vec<BufId>,
    pool: Pool<wgpu::Buffer>,
    staging: Pool<wgpu::Buffer>,
    kernels: FxHashMap<KernelKey, Rc<Kernel>>,
    /// The uniform arena's host copy and the bind groups of eager dispatches (`binding.rs`).
    bind: binding::Binder,
    /// Bind-group layouts by (storage buffers, how many of the first are read_write).
    layouts: FxHashMap<(usize, usize), (Rc<wgpu::BindGroupLayout>, Rc<wgpu::PipelineLayout>)>,
    encoder: Option<wgpu::CommandEncoder>,
    pass: Option<wgpu::ComputePass<'static>>,
    threshold: usize,
    /// No submitted work is pending on the GPU as far as recording knows (a sync or a read was
    /// just awaited, or nothing ran yet): the next submit comes after `IDLE_FIRST` dispatches
    /// rather than `threshold`, so the GPU starts while the rest of a step is recorded.
    idle: bool,
    hold: bool,
    stats: Stats,
    /// Per-dispatch timestamps while `torch.profiler` records (`timing.rs`).
    timing: Option<timing::Timing>,
    /// The kernel graph being captured, the finished ones, and the buffers they bind
    /// (`graph.rs`).
    capture: Option<graph::Capture>,
    graphs: HashMap<u32, graph::Graph>,
    next_graph: u32,
    pinned: FxHashMap<wgpu::Buffer, u32>,
    /// The kernel whose pipeline the open pass has set: a chain of the same kernel sets it once.
    pass_kernel: Option<Rc<Kernel>>,
    /// Device-side value checks (`checks.rs`).
    checks: checks::Checks,
    /// Tiny ops waiting for their shared launch, and the buffers that fill a batch's unused
    /// bindings (`batched.rs`).
    batched: batched::Queue,
    batched_pad: Vec<wgpu::Buffer>,
}

pub struct WebGpuBackend {
    device: wgpu::Device,
    /// The device's limits, read once: on the web `device.limits()` reads every limit through
    /// a JS getter, which cost more than the rest of a tiny op's dispatch.
    limits: wgpu::Limits,
    queue: wgpu::Queue,
    arena_buf: wgpu::Buffer,
    summary: AdapterSummary,
    /// A CPU implementation of WebGPU (SwiftShader, lavapipe): tiny ops are not batched by
    /// default there (`batched.rs`).
    emulated: bool,
    /// Errors the device reported outside any call (uncaptured), with their kind: an
    /// out-of-memory error is an `OutOfMemory`, a validation error a `Device` one.
    errors: Arc<Mutex<Vec<(ErrorKind, String)>>>,
    /// `torch.webgpu.set_memory_budget`: live tensors plus the pool stay below it (`None`: no
    /// budget but the device's own memory).
    budget: std::cell::Cell<Option<u64>>,
    /// Set by the device-lost callback: every later call fails with a `DeviceError`.
    lost: Arc<Mutex<Option<String>>>,
    me: Weak<WebGpuBackend>,
    st: RefCell<State>,
}

impl WebGpuBackend {
    pub fn summary(&self) -> &AdapterSummary {
        &self.summary
    }

    /// A `DeviceError` once the device is lost (then `torch.webgpu.initialize_device()` makes a
    /// new one).
    fn check_lost(&self) -> Result<()> {
        if let Some(why) = self.lost.lock().ok().and_then(|l| l.clone()) {
            bail!(Device, "WebGPU device was lost ({why}); call torch.webgpu.initialize_device() to start a new one");
        }
        Ok(())
    }

    /// Destroys the device (tests use it to prove that loss is reported, not hung on).
    pub fn destroy_device(&self) {
        self.device.destroy();
        if let Ok(mut l) = self.lost.lock() {
            l.get_or_insert_with(|| "Destroyed: destroyed by the application".into());
        }
    }

    /// Errors reported by the device since the last check: an `OutOfMemoryError` when the device
    /// refused memory (the pool is emptied first, so that the next attempt can fit; the errors
    /// that followed from the refused buffer are its consequences, not reported), else a
    /// `DeviceError` with the validation messages.
    fn take_errors(&self) -> Result<()> {
        self.check_lost()?;
        let errs = {
            let mut v = self.errors.lock().map_err(|_| err!(Device, "WebGPU error log poisoned"))?;
            std::mem::take(&mut *v)
        };
        if errs.is_empty() {
            return Ok(());
        }
        if let Some((_, first)) = errs.iter().find(|(k, _)| *k == ErrorKind::OutOfMemory) {
            MemoryControl::empty_cache(self);
            let active = self.st.borrow().stats.active_bytes;
            let what = first.lines().next().unwrap_or("").chars().take(160).collect::<String>();
            bail!(
                OutOfMemory,
                "WebGPU out of memory: the device refused an allocation ({what}); {} held by live tensors, the \
                 cached pool emptied. Free tensors (dispose(), torch.scope) or use smaller sizes.",
                fmt_bytes(active)
            );
        }
        let msg = errs.into_iter().map(|(_, m)| m).collect::<Vec<_>>().join("\n");
        bail!(Device, "WebGPU error: {msg}")
    }

    /// Drops every pooled buffer, with what holds on to them: cached bind groups, and what the
    /// device-side checks track of them (`empty_cache`).
    fn clear_pools(st: &mut State) {
        st.pool.clear();
        st.staging.clear();
        st.bind.clear();
        Self::graph_forget_bind_groups(st);
        st.checks.keep_only(st.bufs.iter().flatten().map(|b| &b.0));
    }

    /// Makes room for a new buffer of `class` bytes under the budget, as PyTorch's caching
    /// allocator does: when live tensors and the pool together would pass it, the pool is emptied
    /// and the allocation tried again; past the budget even then, an `OutOfMemoryError` before
    /// anything is allocated.
    fn fit_budget(&self, st: &mut State, class: u64) -> Result<()> {
        let Some(budget) = self.budget.get() else { return Ok(()) };
        let held = |st: &State| st.stats.active_bytes + st.pool.pooled_bytes + st.staging.pooled_bytes;
        if held(st).saturating_add(class) > budget {
            // Buffers released while recorded work may read them are freed once it is submitted.
            if st.encoder.is_some() && st.capture.is_none() {
                self.flush_locked(st);
            }
            Self::clear_pools(st);
        }
        if held(st).saturating_add(class) > budget {
            bail!(
                OutOfMemory,
                "WebGPU out of memory. Tried to allocate {} ({class} bytes); {} allocated by tensors, budget {} \
                 (torch.webgpu.set_memory_budget changes it)",
                fmt_bytes(class),
                fmt_bytes(st.stats.active_bytes),
                fmt_bytes(budget)
            );
        }
        Ok(())
    }

    fn buffer(st: &State, id: BufId) -> wgpu::Buffer {
        st.bufs[id as usize].as_ref().expect("live buffer").0.clone()
    }

    fn alloc_buffer(&self, class: u64, usage: wgpu::BufferUsages, label: &str) -> Result<wgpu::Buffer> {
        if class > self.limits.max_buffer_size {
            bail!(
                OutOfMemory,
                "WebGPU: tried to allocate {class} bytes, more than this adapter's maxBufferSize ({})",
                self.limits.max_buffer_size
            );
        }
        Ok(self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: class,
            usage,
            mapped_at_creation: false,
        }))
    }

    /// Workgroups of `WG` invocations covering `n` invocations.
    fn groups_for(n: usize) -> Result<u32> {
        program::groups_for(n)
    }

    /// Dispatch grid for `n` workgroups (2-D when `n` exceeds one dimension's limit).
    fn grid(n: u32) -> (u32, u32) {
        program::grid(n)
    }
}

impl WebGpuBackend {
    /// Records an op family's program (`Kernel::Program`) like the backend's own kernels.
    fn dispatch_program(&self, d: &Dispatch) -> Result<()> {
        if d.uniforms.len() > SLOT_WORDS {
            bail!(
                Torch,
                "webgpu: program '{}' passes {} uniform words, more than {SLOT_WORDS}",
                d.program.name,
                d.uniforms.len()
            );
        }
        let key = KernelKey::Program(codegen::ProgramKey { program: d.program, variant: d.variant });
        self.record(&key, d.uniforms, d.buffers, d.groups)
    }
}

impl Backend for WebGpuBackend {
    fn device(&self) -> Device {
        Device::WebGpu
    }

    fn capabilities(&self) -> crate::backend::Capabilities {
        crate::backend::Capabilities {
            fused_kernels: true,
            workgroup_storage_bytes: self.limits.max_compute_workgroup_storage_size as u64,
            storage_binding_bytes: self.limits.max_storage_buffer_binding_size,
            // `pool::size_class` rounds a request up by less than a quarter.
            max_tensor_bytes: self.limits.max_storage_buffer_binding_size / 5 * 4,
            fusion: true,
        }
    }

    fn memory(&self) -> Option<&dyn MemoryControl> {
        Some(self)
    }

    fn batching(&self) -> Option<&dyn Batching> {
        Some(self)
    }

    fn graphs(&self) -> Option<&dyn KernelGraphs> {
        Some(self)
    }

    fn timing(&self) -> Option<&dyn GpuTiming> {
        Some(self)
    }

    fn faults(&self) -> Option<&dyn FaultInjection> {
        Some(self)
    }

    fn user_kernels(&self) -> Option<&dyn UserKernels> {
        Some(self)
    }

    fn alloc(&self, bytes: u64) -> Result<BufId> {
        self.alloc_from_pool(bytes, false)
    }

    fn upload(&self, words: &[u32]) -> Result<BufId> {
        let id = self.alloc_from_pool(words.len() as u64 * 4, true)?;
        let mut st = self.st.borrow_mut();
        let buf = Self::buffer(&st, id);
        self.queue.write_buffer(&buf, 0, bytemuck::cast_slice(words));
        if let Some(cap) = st.capture.as_mut() {
            cap.uploads.push((buf, words.to_vec()));
        }
        Ok(id)
    }

    fn alloc_for_write(&self, words: usize) -> Result<BufId> {
        self.alloc_from_pool((words as u64 * 4).max(4), true)
    }

    fn write(&self, id: BufId, offset: usize, words: &[u32]) -> Result<()> {
        self.check_lost()?;
        let st = self.st.borrow();
        if st.capture.is_some() {
            bail!(Torch, "writing into a tensor's storage is not supported while a graph is captured");
        }
        let (buf, class) = st.bufs[id as usize].as_ref().expect("live buffer");
        let end = (offset as u64 + words.len() as u64) * 4;
        if end > *class {
            bail!(Index, "write of {} words at {offset} past a buffer of {class} bytes", words.len());
        }
        // Ordered before every submit that follows, so before any work recorded on the buffer.
        self.queue.write_buffer(buf, offset as u64 * 4, bytemuck::cast_slice(words));
        Ok(())
    }

    fn release(&self, id: BufId) {
        let mut st = self.st.borrow_mut();
        // A capture keeps what it released: the graph will write it on every replay.
        let class = st.bufs[id as usize].as_ref().map(|b| b.1);
        if let Some(cap) = st.capture.as_mut() {
            if let Some(class) = class.filter(|_| !cap.released.contains(&id)) {
                cap.released.push(id);
                if cap.fresh.contains(&id) {
                    cap.spare.entry(class).or_default().push(id);
                }
            }
            return;
        }
        if let Some((buf, class)) = st.bufs[id as usize].take() {
            if st.pinned.contains_key(&buf) {
                // A graph binds it: not pooled while the graph lives (it holds the buffer).
                st.stats.active_bytes -= class;
                st.stats.live_buffers -= 1;
                st.free_ids.push(id);
                return;
            }
            st.stats.active_bytes -= class;
            st.stats.live_buffers -= 1;
            st.free_ids.push(id);
            // Recorded but unsubmitted kernels may still read it: only later kernels of this
            // batch may reuse it (not an upload, which the queue runs before the batch).
            if st.encoder.is_some() {
                st.pool.give_deferred(class, buf);
            } else {
                st.pool.give(class, buf);
            }
        }
    }

    fn read(&self, id: BufId, offset: usize, len: usize) -> LocalFuture<Result<Vec<u32>>> {
        if let Err(e) = self.check_lost() {
            return Box::pin(async move { Err(e) });
        }
        let bytes = len as u64 * 4;
        let class = size_class(bytes);
        let staging = {
            let mut st = self.st.borrow_mut();
            let staging = match st.staging.take(class) {
                Some(b) => b,
                None => match self.alloc_buffer(
                    class,
                    wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    "webtorch:staging",
                ) {
                    Ok(b) => b,
                    Err(e) => return Box::pin(async move { Err(e) }),
                },
            };
            let src = Self::buffer(&st, id);
            let fetch = match self.prepare_fetch(&mut st) {
                Ok(f) => f,
                Err(e) => return Box::pin(async move { Err(e) }),
            };
            let check = Self::fetch_buffers(&st, &fetch);
            self.submit_with(&mut st, |enc| {
                enc.copy_buffer_to_buffer(&src, offset as u64 * 4, &staging, 0, bytes);
                Self::record_fetch(check, enc);
            });
            // After the submit: the batched tiny ops it recorded have passed their taints on.
            let depends = Self::read_depends(&mut st, id, &fetch);
            // The caller waits for this read: recording resumes on an idle GPU.
            st.idle = true;
            (staging, fetch, depends)
        };
        let (staging, fetch, depends) = staging;
        let (tx, rx) = futures_channel::oneshot::channel();
        staging.map_async(wgpu::MapMode::Read, 0..bytes, move |r| {
            let _ = tx.send(r);
        });
        #[cfg(not(target_arch = "wasm32"))]
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
        let me = self.me.upgrade();
        Box::pin(async move {
            let mapped = rx.await;
            let me = me.ok_or_else(|| err!(Device, "WebGPU backend was dropped during a read"))?;
            me.take_errors()?;
            match mapped {
                Ok(Ok(())) => {}
                Ok(Err(e)) => bail!(Device, "WebGPU buffer mapping failed: {e}"),
                Err(_) => bail!(Device, "WebGPU device was lost during a read"),
            }
            let words: Vec<u32> = {
                let view = staging.get_mapped_range(0..bytes).map_err(|e| err!(Device, "WebGPU map range: {e:?}"))?;
                bytemuck::cast_slice(&view).to_vec()
            };
            staging.unmap();
            me.st.borrow_mut().staging.give(class, staging);
            checks::settle_read(&me, fetch, depends, Ok(words)).await
        })
    }

    fn copy(&self, src: BufId, src_offset: usize, dst: BufId, dst_offset: usize, words: usize) -> Result<()> {
        self.copy_impl(src, src_offset, dst, dst_offset, words)
    }

    fn launch(&self, k: Launch<'_>) -> Result<()> {
        match k {
            Launch::Elementwise(k) => self.elementwise_impl(k),
            Launch::Reduce(k) => self.reduce_impl(k),
            Launch::Matmul(k) => self.matmul_impl(k),
            Launch::Rowwise(k) => self.rowwise_impl(k),
            Launch::Gather(k) => self.gather_impl(k),
            Launch::Scatter(k) => self.scatter_impl(k),
            Launch::Conv2d(k) => self.conv2d_impl(k),
            Launch::Check(k) => self.check_values_impl(k),
            Launch::User(k) => custom::dispatch(self, k),
            Launch::Program(d) => self.dispatch_program(d),
        }
    }

    fn flush(&self) {
        let mut st = self.st.borrow_mut();
        if st.pass.is_some() || st.encoder.is_some() {
            self.flush_locked(&mut st);
        }
    }

    fn sync(&self) -> LocalFuture<Result<()>> {
        let fetch = {
            let mut st = self.st.borrow_mut();
            match self.prepare_fetch(&mut st) {
                Ok(Some(f)) => {
                    let fetch = Some(f);
                    let check = Self::fetch_buffers(&st, &fetch);
                    self.submit_with(&mut st, |enc| Self::record_fetch(check, enc));
                    fetch
                }
                Ok(None) => None,
                Err(e) => return Box::pin(async move { Err(e) }),
            }
        };
        self.flush();
        // The caller waits for the GPU next: recording resumes on an idle GPU.
        self.st.borrow_mut().idle = true;
        let (tx, rx) = futures_channel::oneshot::channel();
        self.queue.on_submitted_work_done(move || {
            let _ = tx.send(());
        });
        #[cfg(not(target_arch = "wasm32"))]
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
        let me = self.me.upgrade();
        Box::pin(async move {
            rx.await.map_err(|_| err!(Device, "WebGPU device was lost during sync"))?;
            match me {
                Some(me) => {
                    let r = me.take_errors();
                    checks::settle_sync(&me, fetch, r).await
                }
                None => Ok(()),
            }
        })
    }

    fn kernel_labels(&self) -> Vec<String> {
        let mut labels: Vec<String> = self.st.borrow().kernels.keys().map(codegen::label).collect();
        labels.sort();
        labels
    }

    fn stats(&self) -> Stats {
        let st = self.st.borrow();
        let mut s = st.stats.clone();
        s.pooled_bytes = st.pool.pooled_bytes;
        s
    }
}

impl MemoryControl for WebGpuBackend {
    fn budget(&self) -> Option<u64> {
        self.budget.get()
    }

    fn set_budget(&self, bytes: Option<u64>) {
        self.budget.set(bytes);
    }

    fn empty_cache(&self) {
        Self::clear_pools(&mut self.st.borrow_mut());
    }

    fn reset_peak(&self) {
        let mut st = self.st.borrow_mut();
        st.stats.peak_bytes = st.stats.active_bytes;
    }
}

impl Batching for WebGpuBackend {
    fn set_threshold(&self, n: usize) {
        let mut st = self.st.borrow_mut();
        st.threshold = n.max(1);
        if st.stats.pending as usize >= st.threshold {
            self.flush_locked(&mut st);
        }
    }

    fn set_hold(&self, hold: bool) {
        self.st.borrow_mut().hold = hold;
    }
}

impl KernelGraphs for WebGpuBackend {
    fn capture_begin(&self) -> bool {
        WebGpuBackend::capture_begin(self)
    }

    fn capture_abort(&self) {
        WebGpuBackend::capture_abort(self)
    }

    fn capturing(&self) -> bool {
        self.st.borrow().capture.is_some()
    }

    fn capture_refuse(&self, reason: &str) {
        if let Some(cap) = self.st.borrow_mut().capture.as_mut() {
            cap.refused.get_or_insert_with(|| reason.to_string());
        }
    }

    fn capture_refused(&self) -> Option<String> {
        self.st.borrow().capture.as_ref().and_then(|c| c.refused.clone())
    }

    fn capture_end(
        &self,
        inputs: &[(BufId, u64)],
        outputs: &[(BufId, u64)],
        copy_backs: &[(BufId, BufId, u64)],
    ) -> Result<u32> {
        WebGpuBackend::capture_end(self, inputs, outputs, copy_backs)
    }

    fn graph_run(&self, id: u32, inputs: &[BufId]) -> Result<Vec<BufId>> {
        WebGpuBackend::graph_run(self, id, inputs)
    }

    fn graph_drop(&self, id: u32) {
        WebGpuBackend::graph_drop(self, id)
    }
}

impl GpuTiming for WebGpuBackend {
    fn start(&self) -> bool {
        WebGpuBackend::gpu_timing_start(self)
    }

    fn stop(&self) -> LocalFuture<Result<Vec<super::timing::GpuEvent>>> {
        WebGpuBackend::gpu_timing_stop(self)
    }
}

impl FaultInjection for WebGpuBackend {
    fn lose_device(&self) {
        self.destroy_device();
    }

    fn device_oom(&self) {
        if let Ok(mut v) = self.errors.lock() {
            // What the uncaptured-error handler (`device.rs`) records for a refused buffer, and the
            // validation error using that buffer then causes.
            v.push((ErrorKind::OutOfMemory, "Out of memory: vkAllocateMemory failed (debug_device_oom)".into()));
            v.push((
                ErrorKind::Device,
                "[Invalid Buffer \"webtorch:tensor\"] is invalid due to a previous error.".into(),
            ));
        }
    }
}

impl UserKernels for WebGpuBackend {
    fn compile(&self, name: &str, source: Rc<str>, n_inputs: usize) -> LocalFuture<Result<()>> {
        custom::compile(self.me.upgrade(), name, source, n_inputs)
    }
}

/// Bytes as PyTorch's allocator messages print them ("2.00 GiB").
fn fmt_bytes(b: u64) -> String {
    const UNITS: [&str; 4] = ["bytes", "KiB", "MiB", "GiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} bytes")
    } else {
        format!("{v:.2} {}", UNITS[u])
    }
}
