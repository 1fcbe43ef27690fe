//! The engine's per-thread state: the backends that exist and which device is the default (the
//! tuning knobs, re-exported here, live in `backend/tuning.rs`). The CPU backend always exists;
//! the WebGPU backend exists once `init` found an adapter.

use crate::cell::RefCell;
use std::mem::ManuallyDrop;
use std::rc::Rc;

use crate::backend::cpu::CpuBackend;
use crate::backend::{Backend, Device};
use crate::error::Result;

struct Engine {
    cpu: Rc<CpuBackend>,
    gpu: Option<Rc<dyn Backend>>,
    default: Device,
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    timer_armed: bool,
    /// Nesting depth of `torch.webgpu.batch(fn)` scopes; the timer waits while inside one.
    batch_depth: u32,
}

thread_local! {
    // NOTE: ManuallyDrop: the engine lives as long as its thread. Dropping wgpu objects from a
    // thread-local destructor panics (wgpu-core's lock tracing uses thread-locals itself).
    static ENGINE: ManuallyDrop<RefCell<Engine>> = ManuallyDrop::new(RefCell::new(Engine {
        cpu: Rc::new(CpuBackend::new()),
        gpu: None,
        default: Device::Cpu,
        timer_armed: false,
        batch_depth: 0,
    }));
}

/// The backend of `device`, or a `DeviceError` when it does not exist here.
pub fn backend(device: Device) -> Result<Rc<dyn Backend>> {
    ENGINE.with(|e| {
        let e = e.borrow();

        crate::debug::fault_point("engine");
        match device {
            Device::Cpu => Ok(e.cpu.clone() as Rc<dyn Backend>),
            Device::WebGpu => e.gpu.clone().ok_or_else(|| {
                crate::err!(
                    Device,
                    "webgpu device is not available: no WebGPU adapter was found (tensors live on 'cpu')"
                )
            }),
        }
    })
}

/// The CPU backend itself, for what only it has (buffers filled later: `backend/cpu/deferred.rs`).
pub fn cpu() -> Rc<CpuBackend> {
    ENGINE.with(|e| e.borrow().cpu.clone())
}

/// The tuning knobs (`backend/tuning.rs`, below the engine so that the backends read them too).
pub use crate::backend::tuning::{tune, tuning};

/// An `OutOfMemoryError` unless the host-side tables an op builds from caller-chosen sizes
/// (index lists, averaging matrices, random draws) fit: `blocks` arrays alive at once, each of
/// `count` elements of `each` bytes. One array must fit one allocation (`isize::MAX` bytes: 2 GiB
/// on wasm32), all of them the CPU budget. Checked with overflow checks before anything is built,
/// so that no size makes the wasm heap trap.
pub fn check_host_alloc(what: &str, count: usize, each: usize, blocks: usize) -> Result<()> {
    let budget = backend(Device::Cpu)?.memory().and_then(|m| m.budget()).unwrap_or(u64::MAX);
    let block = (count as u64).checked_mul(each as u64);
    let bytes = block.and_then(|b| b.checked_mul(blocks as u64));
    let shown = || bytes.map_or_else(|| format!("{count} × {each} × {blocks}"), |b| b.to_string());
    match (block, bytes) {
        (Some(b), _) if b > isize::MAX as u64 => crate::bail!(
            OutOfMemory,
            "{what}: tried to allocate {b} bytes of host memory in one block, more than one allocation can hold \
             ({} bytes)",
            isize::MAX
        ),
        (_, Some(b)) if b <= budget => Ok(()),
        _ => crate::bail!(
            OutOfMemory,
            "{what}: tried to allocate {} bytes of host memory, more than the CPU budget ({budget} bytes; \
             torch.cpu.set_memory_budget changes it)",
            shown()
        ),
    }
}

/// Installs a WebGPU backend and makes it the default device.
pub fn set_gpu(gpu: Rc<dyn Backend>) {
    ENGINE.with(|e| {
        let mut e = e.borrow_mut();
        e.gpu = Some(gpu);
        e.default = Device::WebGpu;
    });
}

/// Forgets the WebGPU backend (after device loss): tensors on it fail with `DeviceError`; the
/// next `init` creates a new device.
pub fn drop_gpu() {
    ENGINE.with(|e| {
        let mut e = e.borrow_mut();
        e.gpu = None;
        if e.default == Device::WebGpu {
            e.default = Device::Cpu;
        }
    });
}

pub fn has_gpu() -> bool {
    ENGINE.with(|e| e.borrow().gpu.is_some())
}

pub fn default_device() -> Device {
    ENGINE.with(|e| e.borrow().default)
}

pub fn set_default_device(device: Device) -> Result<()> {
    backend(device)?;
    ENGINE.with(|e| e.borrow_mut().default = device);
    Ok(())
}

/// Computes the ends of pending elementwise chains and submits all recorded GPU work.
/// A computation that fails is reported once (the first error); the rest is still submitted.
pub fn flush_all() -> Result<()> {
    let computed = crate::tensor::fusion::materialize_chain_ends();
    if let Ok(gpu) = backend(Device::WebGpu) {
        gpu.flush();
    }
    computed
}

/// Enters a `batch(fn)` scope: no timer flushes and no threshold submits until the outermost
/// scope ends (then one flush).
pub fn begin_batch() {
    let depth = ENGINE.with(|e| {
        let mut e = e.borrow_mut();
        e.batch_depth += 1;
        e.batch_depth
    });
    if depth == 1 {
        if let Some(b) = backend(Device::WebGpu).ok().as_deref().and_then(|gpu| gpu.batching()) {
            b.set_hold(true);
        }
    }
}

pub fn end_batch() -> Result<()> {
    let depth = ENGINE.with(|e| {
        let mut e = e.borrow_mut();
        e.batch_depth = e.batch_depth.saturating_sub(1);
        e.batch_depth
    });
    if depth == 0 {
        if let Some(b) = backend(Device::WebGpu).ok().as_deref().and_then(|gpu| gpu.batching()) {
            b.set_hold(false);
        }
        flush_all()?;
    }
    Ok(())
}

/// Called when GPU work is recorded: arms the batch timer (in the browser and Node; native
/// callers have no event loop and flush on read or sync).
pub fn note_work() {
    #[cfg(target_arch = "wasm32")]
    {
        use wasm_bindgen::JsCast;
        let delay = tuning(|t| t.batch_delay_ms);
        let arm = ENGINE.with(|e| {
            let mut e = e.borrow_mut();
            if e.timer_armed || delay == 0 || e.gpu.is_none() {
                return None;
            }
            e.timer_armed = true;
            Some(delay)
        });
        if let Some(ms) = arm {
            // The TS layer's timer calls `timer_flush` through its guard (a trap in the flush
            // becomes an error it logs); without one (the core's own wasm tests), a closure.
            if !crate::api::arm_flush_timer(ms) {
                let cb = wasm_bindgen::closure::Closure::once_into_js(timer_flush);
                crate::api::set_timeout(cb.unchecked_ref(), ms as i32);
            }
        }
    }
}

/// The batch timer's flush (armed by `note_work`), unless a `batch(fn)` scope is open.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub fn timer_flush() {
    let in_batch = ENGINE.with(|e| {
        let mut e = e.borrow_mut();
        e.timer_armed = false;
        e.batch_depth > 0
    });
    if !in_batch {
        if let Err(e) = flush_all() {
            crate::debug::log(&format!("webtorch: batch flush failed: {e}"));
        }
    }
}
