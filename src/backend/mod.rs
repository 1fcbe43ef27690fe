//! The backend contract: what a device must do for the engine. Two implementations: `cpu` (plain
//! Rust: the fallback without an adapter, and the oracle in tests) and `webgpu` (wgpu: the browser
//! through wasm, Node through Dawn, native Vulkan for `cargo test`). No `wgpu` type appears above
//! `backend/webgpu`.
//!
//! Storage is a buffer of 32-bit words (see `dtype.rs`). The contract is small: allocate, free,
//! write, read and copy words, `launch` a kernel, flush and sync, and say what the device offers
//! (`Capabilities`, from which the op families choose their routes). A kernel is a `Kernel`: an op
//! family's program (`program.rs`; the families' kernels, WGSL and a CPU twin) or one of the
//! primitive kinds not moved into families yet, plain structs (`Elementwise`, `Reduce`, `Matmul`,
//! …, `kernels.rs`) that name buffers by `BufId` and carry strides. The optional services (memory
//! budget, batching, graph capture, GPU timing, fault injection, user kernels) are traits of their
//! own (`controls.rs`), reached through accessors that answer `None` where a backend lacks them.

pub mod controls;
pub mod cpu;
mod kernels;
mod kernels_conv;
pub mod program;
pub mod timing;
pub mod tuning;
pub mod webgpu;

use std::future::Future;
use std::pin::Pin;

use crate::error::Result;

pub use controls::{Batching, FaultInjection, GpuTiming, KernelGraphs, MemoryControl, UserKernels};
pub use kernels::*;
pub use kernels_conv::*;
pub use program::{Dispatch, Program, Words};

/// A backend's handle for one buffer.
pub type BufId = u32;

pub type LocalFuture<T> = Pin<Box<dyn Future<Output = T>>>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    Cpu = 0,
    WebGpu = 1,
}

impl Device {
    pub fn name(self) -> &'static str {
        match self {
            Device::Cpu => "cpu",
            Device::WebGpu => "webgpu",
        }
    }

    pub fn from_code(code: u32) -> Result<Device> {
        match code {
            0 => Ok(Device::Cpu),
            1 => Ok(Device::WebGpu),
            _ => crate::bail!(Device, "unknown device code {code}"),
        }
    }
}

/// Counters a backend keeps (`torch.webgpu.runtime_stats()`).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Stats {
    pub submits: u64,
    pub dispatches: u64,
    pub pipelines: u64,
    /// Bind groups created (cached by the buffers they bind).
    pub bind_groups: u64,
    pub allocations: u64,
    pub reuses: u64,
    pub active_bytes: u64,
    pub pooled_bytes: u64,
    pub peak_bytes: u64,
    pub live_buffers: u64,
    pub pending: u64,
    /// Replays of captured kernel graphs (`torch.compile`), and the dispatches they encoded
    /// (also counted in `dispatches`; the rest went through the ops one by one).
    pub graph_replays: u64,
    pub graph_dispatches: u64,
    /// Bytes those replays copied in from their callers' inputs, out into fresh outputs and
    /// back into state (what they could not bind or write in place; `backend/webgpu/graph.rs`).
    pub graph_copy_bytes: u64,
    /// Buffer-to-buffer copies recorded (`Backend::copy`; not dispatches).
    pub copies: u64,
    /// Device-side value checks dispatched (`Kernel::Check`), and the reads and syncs
    /// that fetched their result (only those after a check do).
    pub value_checks: u64,
    pub check_reads: u64,
    /// Tiny ops run inside batched launches (`backend/webgpu/batched.rs`; each batch is one of
    /// `dispatches`).
    pub batched_ops: u64,
}

/// What a device offers the op families (`Backend::capabilities`): each family chooses its route
/// (one kernel of its own, or a composition of the primitive kernels) from these, not from a
/// method of its own here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// Whether the families' one-kernel routes (max pooling, attention, direct convolution:
    /// `ConvGeometry::direct_row`) run on this device. The CPU backend composes those ops from its primitive kernels, which keeps
    /// it the unfused oracle.
    pub fused_kernels: bool,
    /// Bytes of workgroup memory one kernel may use (WebGPU's `maxComputeWorkgroupStorageSize`).
    pub workgroup_storage_bytes: u64,
    /// Bytes one storage binding may span (WebGPU's `maxStorageBufferBindingSize`).
    pub storage_binding_bytes: u64,
    /// The largest tensor, in bytes, the backend can allocate as one buffer (WebGPU: one storage
    /// binding, less its size classes' rounding); callers that can split work stay below it.
    pub max_tensor_bytes: u64,
    /// Whether elementwise ops on this device are deferred and fused (`tensor/fusion.rs`), also
    /// into reductions (`Reduce::prologue`); the CPU backend runs eagerly, which makes it the
    /// unfused oracle.
    pub fusion: bool,
}

impl Capabilities {
    /// A device without the one-kernel routes (the CPU backend).
    pub const COMPOSED: Capabilities = Capabilities {
        fused_kernels: false,
        workgroup_storage_bytes: 0,
        storage_binding_bytes: u64::MAX,
        max_tensor_bytes: u64::MAX,
        fusion: false,
    };
}

/// One kernel for `Backend::launch`: the primitive kinds the op layer describes with the structs
/// of `kernels.rs`, and an op family's program (`program.rs`). One entry rather than a method per
/// kind: every kind goes through the same recording path (batching, graph capture, timing, the CPU
/// backend's deferral while a copy is pending), so a backend matches on the kind in one place; an
/// enum rather than a generic parameter because the engine holds backends as `dyn Backend`.
#[derive(Clone, Copy)]
pub enum Kernel<'a> {
    Elementwise(&'a Elementwise),
    Reduce(&'a Reduce),
    Matmul(&'a Matmul),
    /// Softmax / log_softmax / layer_norm / rms_norm over rows (one workgroup per row on GPUs).
    Rowwise(&'a Rowwise),
    /// Index-mapped copies.
    Gather(&'a Gather),
    /// Index-mapped writes.
    Scatter(&'a Scatter),
    /// A 2-D convolution without im2col columns, of a geometry `ConvGeometry::direct_row` took.
    Conv2d(&'a Conv2d),
    /// Checks values on the device; the failure is raised by a later read or sync. Backends whose
    /// values are on the host check them before launching (`Tensor::check_values`).
    Check(&'a ValueCheck),
    /// A compiled user kernel (`UserKernels::compile`).
    User(&'a UserKernel),
    /// An op family's program: the WebGPU backend records it into the open batch like its own
    /// kernels, the CPU backend runs its CPU twin.
    Program(&'a Dispatch<'a>),
}

/// The contract, method by method.
pub trait Backend {
    fn device(&self) -> Device;
    /// What this device offers the op families' route choices.
    fn capabilities(&self) -> Capabilities {
        Capabilities::COMPOSED
    }
    /// A buffer of at least `bytes` (contents undefined) for a kernel to write, from the pool
    /// when one fits.
    fn alloc(&self, bytes: u64) -> Result<BufId>;
    /// A new buffer holding `words` (an upload).
    fn upload(&self, words: &[u32]) -> Result<BufId>;
    /// A buffer of `words` words (contents undefined) that no recorded work uses, to be filled by
    /// `write`s (loading a file tensor by tensor, a chunk at a time).
    fn alloc_for_write(&self, words: usize) -> Result<BufId>;
    /// Writes `words` at word `offset` of a buffer from `alloc_for_write`; work recorded later
    /// sees them.
    fn write(&self, buf: BufId, offset: usize, words: &[u32]) -> Result<()>;
    /// Gives a buffer back; it is reused only after the work already recorded on it is submitted.
    fn release(&self, buf: BufId);
    /// Reads `len` words from `offset`; flushes first.
    fn read(&self, buf: BufId, offset: usize, len: usize) -> LocalFuture<Result<Vec<u32>>>;
    /// Copies `words` words from `src` at word `src_offset` to `dst` at `dst_offset` (a plain
    /// copy command on GPUs, not a dispatch), ordered with the recorded kernels.
    fn copy(&self, src: BufId, src_offset: usize, dst: BufId, dst_offset: usize, words: usize) -> Result<()>;
    /// Records one kernel (runs it at once on the CPU backend). A backend without a kind refuses
    /// it with a `TorchError`.
    fn launch(&self, k: Kernel<'_>) -> Result<()>;
    /// Submits recorded work (ends the open compute pass).
    fn flush(&self);
    /// Flushes and resolves when the device has finished everything submitted.
    fn sync(&self) -> LocalFuture<Result<()>>;
    fn stats(&self) -> Stats;
    /// Labels of the kernels compiled so far, sorted (tests check which kernel family ran).
    fn kernel_labels(&self) -> Vec<String> {
        vec![]
    }
    /// The memory budget and pool (`controls.rs`: the optional services).
    fn memory(&self) -> Option<&dyn MemoryControl> {
        None
    }
    /// When recorded work is submitted (`None`: the backend runs eagerly).
    fn batching(&self) -> Option<&dyn Batching> {
        None
    }
    /// Kernel-graph capture and replay.
    fn graphs(&self) -> Option<&dyn KernelGraphs> {
        None
    }
    /// GPU times of each dispatch.
    fn timing(&self) -> Option<&dyn GpuTiming> {
        None
    }
    /// Faults a test provokes on purpose.
    fn faults(&self) -> Option<&dyn FaultInjection> {
        None
    }
    /// Kernels written by the user in the device's language (`Kernel::User`).
    fn user_kernels(&self) -> Option<&dyn UserKernels> {
        None
    }
}

impl dyn Backend + '_ {
    /// Runs an op family's program: `launch(Kernel::Program(d))`, the families' one call.
    pub fn dispatch(&self, d: &Dispatch) -> Result<()> {
        self.launch(Kernel::Program(d))
    }
}
