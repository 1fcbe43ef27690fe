//! `Tuning`: every knob that chooses how work runs without changing what it computes — batching,
//! fusion, and which kernel (and which shape of it) an op takes. Benchmarks and tests set them
//! through `src/api` (`set_matmul_variant`, `set_conv_window`, …); the defaults are the rules the
//! library runs by.

use std::collections::HashMap;

use crate::backend::webgpu::matmul::Variant;
use crate::cell::RefCell;

thread_local! {
    static TUNING: RefCell<Tuning> = RefCell::new(Tuning::default());
}

/// Reads the tuning knobs. `f` must not change them (it runs inside their borrow).
pub fn tuning<R>(f: impl FnOnce(&Tuning) -> R) -> R {
    TUNING.with(|t| f(&t.borrow()))
}

/// Changes the tuning knobs. `f` must not read them otherwise (it runs inside their borrow).
pub fn tune<R>(f: impl FnOnce(&mut Tuning) -> R) -> R {
    TUNING.with(|t| f(&mut t.borrow_mut()))
}

/// 512 MiB: below it the products recompute the probabilities (two `L × S` tensors at once, so
/// at most ~1 GiB held) and are the faster route; from it, and wherever the products would run
/// in pieces past a binding (adapters of 128–256 MiB bindings), the backward's kernels (no
/// `L × S` tensor: somewhat slower than the products, their scores and `dO Vᵀ` computed twice,
/// at a fraction of the peak memory). GPT-2 small's block at batch 8 (402 MB of scores) stays
/// with the products; 12 heads × 4,096² causal (805 MB) take the kernels. Figures:
/// bench/KERNELS.md, "Attention's backward in two kernels".
pub const ATTENTION_BACKWARD_KERNELS_FROM: u64 = 512 << 20;

/// 1 GiB: GPT-2-small's block at batch 8 (0.4 GB of scores) runs whole; 12 heads × 8,192 causal
/// tokens (3.2 GB, past a 2 GB binding) run as three groups of four heads. Smaller pieces cost
/// speed (their narrow gradient products fill less of a large GPU; bench/KERNELS.md).
pub const ATTENTION_BACKWARD_BUDGET: u64 = 1 << 30;

/// The tuning knobs, one value per thread.
///
/// Owner: this module's thread-local (`tuning` reads it, `tune` changes it; the engine
/// re-exports both), not a backend instance, and below the engine so that the backends read it
/// without depending on the layers above them.
/// Some knobs are read where no backend is in hand (the fuser while it records, autograd rules
/// choosing a route), and a knob set before `init` or before `initialize_device` replaces a lost
/// device must still hold on the device that comes after.
///
/// Not here: the WebGPU batch threshold (`set_batch_threshold`) is the device's own state, since
/// setting it submits the work already past it and a new device starts at the default, and the
/// memory budgets are each backend's.
#[derive(Clone, Debug)]
pub struct Tuning {
    /// `torch.webgpu.set_batch_delay`: ms after the first unsubmitted op until a flush (0: off).
    /// Default 16.
    pub batch_delay_ms: u32,
    /// `torch.webgpu.disable_batching()`: each op is computed and submitted before it returns —
    /// no pending elementwise chains (so nothing fuses across ops), no batched tiny ops, and the
    /// device's batch threshold at 1. Default off.
    pub immediate: bool,

    /// Whether elementwise ops are recorded as pending expressions and fused
    /// (`torch.webgpu.enable_fusion()` / `disable_fusion()`). Default on.
    pub fusion_enabled: bool,
    /// How many ops after it a pending expression may still be inlined into a later op
    /// (`set_fusion_window`; 0: no inlining). Default 4.
    pub fusion_window: u64,
    /// Elementwise ops with fewer outputs run at once instead of fusing (`set_fusion_min_size`).
    /// Default 1,024.
    pub fusion_min_size: usize,
    /// `fusion_min_size` while a kernel graph is captured (`set_capture_fusion_min_size`; 0:
    /// captured steps fuse small chains too). Default 0.
    pub capture_fusion_min_size: usize,

    /// A matmul variant every product takes (`set_matmul_variant`; `None`: the shape class or
    /// the autotuner decides). Operands the tiled kernel cannot read still fall back. Default
    /// `None`, or natively the variant named by `WEBTORCH_MATMUL` (read when the engine is made).
    pub matmul_variant: Option<Variant>,
    /// The autotuner's choices by shape class (`matmul::shape_class`), set from TS
    /// (`torch.webgpu.autotune_matmul` measures the variants on this adapter; a saved table
    /// reloads them). Default empty.
    pub matmul_tuned: HashMap<String, Variant>,
    /// A split-K factor every eligible product takes instead of `matmul::split_k`'s rule
    /// (`set_split_k`; `Some(1)`: none). Default `None`: the rule.
    pub split_k: Option<usize>,

    /// Whether contiguous elementwise kernels take the vec4 variant (`set_elementwise_x4`).
    /// Default on.
    pub elementwise_x4: bool,
    /// Turns batching of tiny ops on or off, or (`None`, the default) on except on adapters that
    /// emulate a GPU on the CPU (`set_batched_launches`): benchmarks compare the two, tests force
    /// it on to cover it there.
    ///
    /// Why not on emulated adapters: SwiftShader runs every case of the interpreter's op switch
    /// for every element (it emulates lanes with masks and does not skip cases no lane takes), so
    /// a batched tiny add there is far slower than a dispatch of its own, while its per-dispatch
    /// host cost is small beside its kernels' time (bench/KERNELS.md, "Batched tiny ops").
    pub batched_launches: Option<bool>,
    /// Vectors per invocation the row kernels' plans aim at (`rows::set_row_vectors`, 1…8).
    /// Default 8.
    pub row_vectors: usize,

    /// Whether convolutions take the conv kernels (implicit GEMM and depthwise) rather than the
    /// im2col route (`set_conv_direct`). Default on.
    pub conv_direct: bool,
    /// Forces the conv2d window kernel on (`Some(true)`: every forward it can take) or off
    /// (`Some(false)`: the implicit GEMM or the depthwise kernel) (`set_conv_window`). Default
    /// `None`: the window kernel's rule.
    pub conv_window: Option<bool>,
    /// Forces the window kernel's output channels per invocation (`set_conv_window("on:N")`).
    /// Default 0: its rule.
    pub conv_window_block: usize,
    /// Forces the conv2d weight gradient's slices of output positions, one image each
    /// (`set_conv_splits`; `Some(1)`: none). Default `None`: the rule.
    pub conv_splits: Option<usize>,
    /// Forces the conv2d weight gradient's images per block, one slice each (`set_conv_images`).
    /// Default `None`: the rule.
    pub conv_images: Option<usize>,
    /// Whether strided convolutions' input gradients and transposed convolutions take the phase
    /// route rather than zero insertion (`set_conv_grad_phases`). Default on.
    pub conv_grad_phases: bool,

    /// Whether attention may run as one kernel rather than the products and softmax
    /// (`set_attention_fused`). Default on.
    pub attention_fused: bool,
    /// Makes heads wider than 64 take the one-kernel attention whatever their scores' size
    /// (`set_attention_wide`). Default off.
    pub attention_wide: bool,
    /// Forces the one-kernel attention's query rows per workgroup and keys per chunk
    /// (`set_attention_tile`; 0: the default of each). Default `(0, 0)`.
    pub attention_tile: (u32, u32),
    /// Bytes of one `L × S` tensor the recomputing attention backward makes at once
    /// (`autograd::attention::set_attention_backward_budget`). Default 1 GiB.
    pub attention_backward_budget: u64,
    /// Bytes of one `L × S` tensor from which attention's backward runs the backend's backward
    /// kernels instead of products (`autograd::attention::set_attention_backward_kernels_from`).
    /// Default 512 MiB.
    pub attention_backward_kernels_from: u64,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            batch_delay_ms: 16,
            immediate: false,
            fusion_enabled: true,
            fusion_window: 4,
            fusion_min_size: 1024,
            capture_fusion_min_size: 0,
            matmul_variant: crate::backend::webgpu::matmul::env_variant(),
            matmul_tuned: HashMap::new(),
            split_k: None,
            elementwise_x4: true,
            batched_launches: None,
            row_vectors: crate::backend::webgpu::rows::MAX_PER_THREAD,
            conv_direct: true,
            conv_window: None,
            conv_window_block: 0,
            conv_splits: None,
            conv_images: None,
            conv_grad_phases: true,
            attention_fused: true,
            attention_wide: false,
            attention_tile: (0, 0),
            attention_backward_budget: ATTENTION_BACKWARD_BUDGET,
            attention_backward_kernels_from: ATTENTION_BACKWARD_KERNELS_FROM,
        }
    }
}
