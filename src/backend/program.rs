//! The program-dispatch contract: an op family (`ops/<family>/`) defines each of its kernels once,
//! as a [`Program`] — its WGSL, its binding layout and its CPU twin — and runs it through
//! [`Backend::launch`](super::Backend::launch) (`Kernel::Program`) with a [`Dispatch`]: the buffers it binds, its
//! uniform words and its grid. The WebGPU backend compiles the WGSL (once per program variant) and
//! records the dispatch like any of its own kernels; the CPU backend calls the twin on its word
//! buffers with the same uniform words, so the twin reads exactly what the shader reads.
//!
//! Binding layout, shared by both sides: binding 0 is the uniform slot (`m(i)` in WGSL reads word
//! `i`, `shaders/common.wgsl`); the storage buffers follow from binding 1 in dispatch order, the
//! first [`Program::writes`] of them `read_write`, the rest `read`. The entry point is `main`.

use super::BufId;
use crate::err;
use crate::error::Result;

/// Invocations per workgroup of the one-dimensional programs (`@workgroup_size(256)`).
pub const WG: u32 = 256;
/// Workgroups per grid dimension (WebGPU's `maxComputeWorkgroupsPerDimension` default).
pub const MAX_GROUPS: u32 = 65_535;
/// Uniform words a dispatch may pass (one 512-byte slot).
pub const MAX_UNIFORMS: usize = 128;
/// Buffers a program may write (its `read_write` bindings).
pub const MAX_WRITES: usize = 4;

/// A kernel of an op family: defined once as a `static`, dispatched any number of times.
pub struct Program {
    /// Unique among programs; with the variant, what the WebGPU pipeline cache is keyed by (the
    /// variant determines the source, so the source is built only when the cache misses).
    pub name: &'static str,
    /// The WGSL of a variant (`ops::wgsl::fill` of the family's `.wgsl` files).
    pub wgsl: fn(u32) -> String,
    /// The kernel label of a variant (`webtorch:…`): pipeline labels, profiler events,
    /// `Backend::kernel_labels`.
    pub label: fn(u32) -> String,
    /// How many of the dispatch's buffers, the first ones, the program writes (at most
    /// [`MAX_WRITES`]).
    pub writes: usize,
    /// Whether the program writes every element of its first buffer's tensor without reading
    /// it, so that a captured graph may bind a fresh output there on each replay
    /// (`backend/webgpu/graph.rs`).
    pub writes_whole_output: bool,
    /// The CPU twin: the same dispatch over the CPU backend's word buffers, in the same f32 / i32
    /// operations as the WGSL.
    pub cpu: fn(&mut Words) -> Result<()>,
}

/// One run of a program.
pub struct Dispatch<'a> {
    pub program: &'static Program,
    /// Which of the program's sources (its holes' values, as the family encodes them).
    pub variant: u32,
    /// Storage bindings 1.., in order: the written buffers first.
    pub buffers: &'a [BufId],
    /// The uniform words (at most [`MAX_UNIFORMS`]).
    pub uniforms: &'a [u32],
    /// Workgroups along x, y, z (see [`grid`]).
    pub groups: (u32, u32, u32),
}

/// A dispatch's buffers as the CPU backend hands them to a twin. Slots number the dispatch's
/// buffers (slot `i` is binding `i + 1`).
pub struct Words<'a> {
    pub variant: u32,
    pub uniforms: &'a [u32],
    /// The written buffers, slots `0..writes`; a buffer bound twice among them is at its first
    /// slot, the later ones are empty.
    pub written: &'a mut [Vec<u32>],
    /// The read buffers, slots `writes..`.
    pub read: Reads<'a>,
}

/// The read buffers of a CPU dispatch, in place in the backend's store.
pub struct Reads<'a> {
    store: &'a [Option<Vec<u32>>],
    ids: &'a [BufId],
}

impl<'a> Reads<'a> {
    /// `store` indexed by buffer id (the dispatch's written buffers taken out of it).
    pub fn new(store: &'a [Option<Vec<u32>>], ids: &'a [BufId]) -> Self {
        Reads { store, ids }
    }

    /// The words of the buffer at `slot`.
    pub fn get(&self, slot: usize) -> &'a [u32] {
        self.store[self.ids[slot] as usize].as_deref().expect("live buffer, not written by this dispatch")
    }
}

impl Words<'_> {
    /// Uniform word `i` (`m(i)` in WGSL).
    pub fn m(&self, i: usize) -> u32 {
        self.uniforms[i]
    }

    /// Uniform word `i` as an index.
    pub fn at(&self, i: usize) -> usize {
        self.uniforms[i] as usize
    }
}

/// Writes `values` at word `at` of `uniforms`, each as a u32 (an `OutOfMemoryError` for one that
/// does not fit).
pub fn put(uniforms: &mut [u32], at: usize, values: &[usize]) -> Result<()> {
    for (i, v) in values.iter().enumerate() {
        uniforms[at + i] = u32::try_from(*v).map_err(|_| err!(OutOfMemory, "index {v} does not fit in 32 bits"))?;
    }
    Ok(())
}

/// Workgroups of [`WG`] invocations covering `n` invocations.
pub fn groups_for(n: usize) -> Result<u32> {
    u32::try_from(n.div_ceil(WG as usize)).map_err(|_| err!(OutOfMemory, "tensor too large"))
}

/// The grid for `n` workgroups: `(x, y)`, 2-D when `n` exceeds one dimension's limit (a program
/// then numbers its invocations `gid.y * x * WG + gid.x`).
pub fn grid(n: u32) -> (u32, u32) {
    if n <= MAX_GROUPS {
        (n.max(1), 1)
    } else {
        let y = n.div_ceil(MAX_GROUPS);
        (n.div_ceil(y), y)
    }
}

/// The grid for `n` invocations of [`WG`]: `(x, y, invocations per grid row)`.
pub fn grid_for(n: usize) -> Result<(u32, u32, usize)> {
    let (gx, gy) = grid(groups_for(n)?);
    Ok((gx, gy, (gx * WG) as usize))
}
