//! The optional services of a backend, one small trait per concern, reached through the core
//! trait's accessors (`Backend::memory`, `batching`, `graphs`, `timing`, `faults`,
//! `user_kernels`). A backend without a service answers `None`, and the caller does what the
//! service's absence means (no budget, nothing to batch, no capture, no GPU times), so the core
//! contract stays what every device must do.
//!
//! | service | cpu | webgpu |
//! | --- | --- | --- |
//! | [`MemoryControl`] | yes (its budget; nothing pooled) | yes |
//! | [`Batching`] | no (runs eagerly) | yes |
//! | [`KernelGraphs`] | no | yes (`webgpu/graph.rs`) |
//! | [`GpuTiming`] | no | yes (`webgpu/timing.rs`) |
//! | [`FaultInjection`] | no | yes |
//! | [`UserKernels`] | no | yes (`webgpu/custom.rs`) |

use std::rc::Rc;

use super::{timing, BufId, LocalFuture};
use crate::error::Result;

/// The memory budget and the allocator's pool (`torch.<device>.memory_budget`,
/// `empty_cache`, `reset_peak_memory_stats`).
pub trait MemoryControl {
    /// The most bytes the backend's live tensors may hold (`None`: no limit but the device's);
    /// an allocation beyond it is an `OutOfMemoryError` before anything is allocated.
    fn budget(&self) -> Option<u64>;
    /// Sets the budget (`None`: the backend's default).
    fn set_budget(&self, bytes: Option<u64>);
    /// Frees pooled (unused) buffers.
    fn empty_cache(&self);
    /// Starts peak-memory tracking afresh (`reset_peak_memory_stats`).
    fn reset_peak(&self);
}

/// When recorded work is submitted (a backend that records kernels into command buffers).
pub trait Batching {
    /// Submits once this many dispatches are recorded.
    fn set_threshold(&self, n: usize);
    /// While held, recorded work is not submitted at the threshold (a `batch(fn)` scope).
    fn set_hold(&self, hold: bool);
}

/// Kernel-graph capture and replay (`torch.compile`'s graphs, `webgpu/graph.rs`).
pub trait KernelGraphs {
    /// Opens a capture; false where one is already open.
    fn capture_begin(&self) -> bool;
    /// Closes the capture without a graph.
    fn capture_abort(&self);
    /// Whether a capture is open (work recorded now is replayed as recorded).
    fn capturing(&self) -> bool;
    /// Marks the open capture as not replayable (`reason` becomes `capture_end`'s error); the
    /// work goes on as recorded eagerly.
    fn capture_refuse(&self, reason: &str);
    /// The reason given to `capture_refuse` during the open capture, if any.
    fn capture_refused(&self) -> Option<String>;
    /// Closes the capture into a graph: `inputs` and `outputs` as (buffer, bytes), `copy_backs`
    /// as (src, dst, bytes). Returns its id.
    fn capture_end(
        &self,
        inputs: &[(BufId, u64)],
        outputs: &[(BufId, u64)],
        copy_backs: &[(BufId, BufId, u64)],
    ) -> Result<u32>;
    /// Replays a graph on `inputs`; a fresh buffer per output.
    fn graph_run(&self, id: u32, inputs: &[BufId]) -> Result<Vec<BufId>>;
    fn graph_drop(&self, id: u32);
}

/// GPU times of each dispatch (`torch.profiler`).
pub trait GpuTiming {
    /// Starts timing; false where the device cannot (no `timestamp-query`).
    fn start(&self) -> bool;
    /// Stops timing and reads the kernels' GPU times, in dispatch order.
    fn stop(&self) -> LocalFuture<Result<Vec<timing::GpuEvent>>>;
}

/// Faults a test provokes on purpose.
pub trait FaultInjection {
    /// Destroys the device, as a device loss would; later calls fail.
    fn lose_device(&self);
    /// Records an out-of-memory error as the device reports one (a real refusal needs the
    /// device's memory exhausted, which a test machine cannot afford).
    fn device_oom(&self);
}

/// Kernels written by the user in the device's own language (WGSL), launched as
/// `Kernel::User`.
pub trait UserKernels {
    /// Compiles a user kernel (`UserKernel::source`), resolving to the compiler's messages as a
    /// `TorchError` when it does not validate.
    fn compile(&self, name: &str, source: Rc<str>, n_inputs: usize) -> LocalFuture<Result<()>>;
}
