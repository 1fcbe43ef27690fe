//! The backend contract: what a device must do for the engine. Two implementations: `cpu` (plain
//! Rust: the fallback without an adapter, and the oracle in tests) and `webgpu` (wgpu: the browser
//! through wasm, Node through Dawn, native Vulkan for `cargo test`). No `wgpu` type appears above
//! `backend/webgpu`.
//!
//! Storage is a buffer of 32-bit words (see `dtype.rs`). Kernels are described by plain structs
//! (`Elementwise`, `Reduce`, `Matmul`) that name buffers by `BufId` and carry strides, so every
//! kernel reads strided, broadcast inputs directly and writes a contiguous output.

pub mod cpu;
#[path = "webgpu/mod.rs"]
pub mod webgpu;

use std::future::Future;
use std::pin::Pin;

use crate::dtype::{Compute, DType};
use crate::error::Result;
use crate::ops::Op;

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

/// A strided view of a buffer, as a kernel reads it.
#[derive(Clone, Debug)]
pub struct Operand {
    pub buf: BufId,
    pub dtype: DType,
    pub offset: usize,
    /// One stride per dim of the kernel's index space (0 where broadcast).
    pub strides: Vec<usize>,
}

#[derive(Clone, Debug)]
pub enum Input {
    Tensor(Operand),
    /// A Python-style scalar operand, converted to the compute type.
    Scalar(f64),
}

/// What an elementwise kernel computes per element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Func {
    Op(Op),
    /// Identity in the input's compute type, then stored as `out_dtype`: copies and casts.
    Cast,
}

/// `out[i] = func(inputs at i)` over `shape`, output contiguous.
#[derive(Clone, Debug)]
pub struct Elementwise {
    pub func: Func,
    pub compute: Compute,
    pub inputs: Vec<Input>,
    pub shape: Vec<usize>,
    pub out: BufId,
    pub out_dtype: DType,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Sum,
    Mean,
}

/// Reduces the trailing `inner` dims of `input` (strides cover `outer ++ inner`) into a
/// contiguous output of `outer` shape.
#[derive(Clone, Debug)]
pub struct Reduce {
    pub op: ReduceOp,
    pub compute: Compute,
    pub input: Operand,
    pub outer: Vec<usize>,
    pub inner: Vec<usize>,
    pub out: BufId,
    pub out_dtype: DType,
}

/// Batched `out[b] = a[b] @ b[b]`: `a` strides cover `batch ++ [m, k]`, `b` strides cover
/// `batch ++ [k, n]`; output contiguous `[batch.., m, n]`. Inputs share `dtype`.
#[derive(Clone, Debug)]
pub struct Matmul {
    pub a: Operand,
    pub b: Operand,
    pub batch: Vec<usize>,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub out: BufId,
    pub dtype: DType,
}

/// Counters a backend keeps (`torch.webgpu.runtime_stats()`).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Stats {
    pub submits: u64,
    pub dispatches: u64,
    pub pipelines: u64,
    pub allocations: u64,
    pub reuses: u64,
    pub active_bytes: u64,
    pub pooled_bytes: u64,
    pub peak_bytes: u64,
    pub live_buffers: u64,
    pub pending: u64,
}

/// The contract, method by method.
pub trait Backend {
    fn device(&self) -> Device;
    /// A buffer of at least `bytes` (contents undefined) for a kernel to write, from the pool
    /// when one fits.
    fn alloc(&self, bytes: u64) -> Result<BufId>;
    /// A new buffer holding `words` (an upload).
    fn upload(&self, words: &[u32]) -> Result<BufId>;
    /// Gives a buffer back; it is reused only after the work already recorded on it is submitted.
    fn release(&self, buf: BufId);
    /// Reads `len` words from `offset`; flushes first.
    fn read(&self, buf: BufId, offset: usize, len: usize) -> LocalFuture<Result<Vec<u32>>>;
    fn elementwise(&self, k: &Elementwise) -> Result<()>;
    fn reduce(&self, k: &Reduce) -> Result<()>;
    fn matmul(&self, k: &Matmul) -> Result<()>;
    /// Submits recorded work (ends the open compute pass).
    fn flush(&self);
    /// Flushes and resolves when the device has finished everything submitted.
    fn sync(&self) -> LocalFuture<Result<()>>;
    fn stats(&self) -> Stats;
    /// Batching controls (the CPU backend runs eagerly and ignores them).
    fn set_batch_threshold(&self, _n: usize) {}
    fn set_batch_delay(&self, _ms: u32) {}
    /// Frees pooled (unused) buffers.
    fn empty_cache(&self) {}
}
