//! 2-D convolutions as an implicit GEMM (`shaders/conv2d.wgsl`): the register-tiled matmul with
//! its `b` tile gathered from the input in the load stage. The im2col route (a `k`-times larger
//! column buffer written by a strided copy, then read by the matmul) moved 231 MB more than the
//! product needed at 32×64×56×56 and held conv2d to 0.47× cuDNN (`bench/KERNELS.md`, "conv2d
//! 3×3"); here the columns never exist. The output is written straight in NCHW: M is a group's
//! output channels and N the output positions, so each image's `[Og, oh·ow]` block is contiguous.
//!
//! Taken for float32 where the output rows are whole vec4 (`oh·ow` divisible by 4) and the kernel
//! has ≤ 64 positions; `Cg·kh·kw` not divisible by 4 (a first layer's 3·3·3 = 27) runs with the
//! weight's rows (forward) or the gradient's (weight gradient) padded to a multiple of 4. The
//! weight gradient is the same template's second product (`Gather::ConvWeightGrad`). Depthwise
//! convolutions (`Conv2d::is_depthwise`) run kernels of their own (`conv2d_depthwise*.wgsl`), any
//! output size. 1-D convolutions arrive as 2-D ones over rows of one (`tensor/conv.rs`).
//! Anything else declines and runs im2col.

use std::cell::Cell;

use super::codegen::fill;
use super::codegen::KernelKey;
use super::launch::put;
use super::matmul::{self, Gather, TiledKey, Variant, T128K16P, T128X64P, T64P};
use super::{WebGpuBackend, MAX_GROUPS};
use crate::backend::Conv2d;
use crate::dtype::DType;
use crate::error::Result;

const CONV2D: &str = include_str!("../../../shaders/conv2d.wgsl");

/// `shaders/conv2d.wgsl` for a tile, the forward or (`wgrad`) the weight gradient.
pub fn source(key: &TiledKey, wgrad: bool) -> String {
    let (gather, setup) = if wgrad {
        (Gather::ConvWeightGrad, "    let oa4 = (m(4u) + img * m(24u) + grp * M * ars) >> 2u;\n".to_string())
    } else {
        (
            Gather::ConvForward,
            "    let oa4 = (m(4u) + grp * M * ars) >> 2u;\n    if (t < m(6u)) {\n        let i = t / m(7u);\n        ktab[t] = vec2<i32>(i32(i * m(15u)), i32((t - i * m(7u)) * m(16u)));\n    }\n    workgroupBarrier();\n".to_string(),
        )
    };
    let mut holes = matmul::holes_with(key, false, gather);
    holes.push(("SETUP", setup));
    let holes: Vec<(&str, &str)> = holes.iter().map(|(n, v)| (*n, v.as_str())).collect();
    fill(CONV2D, &holes)
}

thread_local! {
    static DIRECT: Cell<bool> = const { Cell::new(true) };
}

/// Turns this module's kernels (implicit GEMM and depthwise) on or off (default on), for
/// benchmarks and tests comparing them with the im2col route.
pub fn set_conv_direct(on: bool) {
    DIRECT.with(|c| c.set(on));
}

/// Whether this module's kernels are on (`set_conv_direct`).
pub fn enabled() -> bool {
    DIRECT.with(|d| d.get())
}

/// The tile for a convolution's product (`None`: decline). A forced matmul variant
/// (`matmul::set_variant`) applies here too; the 16×16 one declines.
pub fn choose(k: &Conv2d, wg_limit: u32) -> Option<TiledKey> {
    let [n, c, ..] = k.input;
    let (og, cg) = (k.o / k.groups, c / k.groups);
    let (l, kk) = (k.out_hw[0] * k.out_hw[1], cg * k.kernel[0] * k.kernel[1]);
    // The product's M and N (the forward's K is `kk`, the weight gradient's `l`).
    let (m, cols) = if k.weight_grad { (og, k.row) } else { (og, l) };
    if !enabled()
        || k.x.dtype != DType::Float32
        || !k.row.is_multiple_of(4)
        || k.row < kk
        || !l.is_multiple_of(4)
        || !k.w_offset.is_multiple_of(4)
        || (!k.weight_grad && k.kernel[0] * k.kernel[1] > 64)
        || n * k.groups > MAX_GROUPS as usize
        || m * l == 0
    {
        return None;
    }
    let batches = n * k.groups;
    let mut tile = match matmul::forced_variant() {
        Some(Variant::Simple) => return None,
        Some(Variant::Tiled(t)) => t,
        // Measured on an H200 (bench/KERNELS.md, "conv2d as an implicit GEMM"): 64×64 tiles
        // where a group has ≤ 64 output channels (25.9 TFLOP/s at 32×64×56×56, against 23.4
        // for 64×128); above that 128×128 tiles once there are ~200 of them, else 128×64.
        None => {
            let tiles = m.div_ceil(128) * cols.div_ceil(128) * batches;
            if m <= 64 {
                T64P
            } else if tiles >= 200 {
                T128K16P
            } else {
                T128X64P
            }
        }
    };
    // `ktab` takes 512 bytes of workgroup memory beside the tiles.
    let limit = wg_limit.saturating_sub(512);
    if tile.wg_bytes() > limit {
        tile.db = false;
    }
    if tile.wg_bytes() > limit {
        tile.bk = 16;
    }
    if tile.wg_bytes() > limit {
        tile.bk = 8;
    }
    Some(TiledKey { tile, a_t: false, b_t: k.weight_grad })
}

const DEPTHWISE: &str = include_str!("../../../shaders/conv2d_depthwise.wgsl");
const DEPTHWISE_GRAD: &str = include_str!("../../../shaders/conv2d_depthwise_grad.wgsl");

/// `shaders/conv2d_depthwise.wgsl`, or (`grad`) `conv2d_depthwise_grad.wgsl`.
pub fn depthwise_source(grad: bool) -> String {
    fill(if grad { DEPTHWISE_GRAD } else { DEPTHWISE }, &[])
}

/// Whether a convolution runs the depthwise kernels (`Conv2d::is_depthwise`: with 16 or more
/// output channels per group the implicit GEMM's tiles fill well enough).
fn depthwise(k: &Conv2d) -> bool {
    Conv2d::is_depthwise(k.input[1], k.groups, k.o) && k.x.dtype == DType::Float32 && enabled()
}

impl WebGpuBackend {
    /// The depthwise forward (one invocation per output) or weight gradient (one workgroup per
    /// image and output channel).
    fn conv2d_depthwise(&self, k: &Conv2d) -> Result<bool> {
        let [n, _, h, w] = k.input;
        let total = if k.weight_grad { n * k.o } else { n * k.o * k.out_hw[0] * k.out_hw[1] };
        let per = if k.weight_grad { 1 } else { 256 };
        let groups =
            u32::try_from(total.div_ceil(per)).map_err(|_| crate::err!(OutOfMemory, "conv2d of {total} outputs"))?;
        let (gx, gy) = Self::grid(groups);
        let mut meta = [0u32; 24];
        put(&mut meta, 0, &[total, k.o, k.o / k.groups, k.out_hw[0], k.out_hw[1], k.kernel[0], k.kernel[1], h, w])?;
        put(&mut meta, 9, &[k.stride[0], k.stride[1], k.pad[0], k.pad[1], k.dilation[0], k.dilation[1]])?;
        put(&mut meta, 15, &k.x.strides)?;
        put(&mut meta, 19, &[k.w_offset, k.x.offset, gx as usize * per, k.row])?;
        self.dispatch(&KernelKey::Conv2dDepthwise(k.weight_grad), &meta, &[k.out, k.w, k.x.buf], (gx, gy, 1))?;
        Ok(true)
    }

    pub(super) fn conv2d_impl(&self, k: &Conv2d) -> Result<bool> {
        if depthwise(k) {
            return self.conv2d_depthwise(k);
        }
        let Some(key) = choose(k, self.limits.max_compute_workgroup_storage_size) else { return Ok(false) };
        let [n, c, h, w] = k.input;
        let (og, cg) = (k.o / k.groups, c / k.groups);
        let (l, kk) = (k.out_hw[0] * k.out_hw[1], k.kernel[0] * k.kernel[1]);
        let bk = key.tile.bk as usize;
        // M, N, K of the product, and the K step as a pair (see the shader's meta).
        let (cols, depth, step) = if k.weight_grad {
            (k.row, l, [bk / k.out_hw[1], bk % k.out_hw[1]])
        } else {
            (l, cg * kk, [bk / kk, bk % kk])
        };
        let mut meta = [0u32; 32];
        put(&mut meta, 0, &[og, cols, depth, k.groups, k.w_offset, k.x.offset, kk, k.kernel[1], k.out_hw[1], h, w])?;
        put(&mut meta, 11, &[k.stride[0], k.stride[1], k.pad[0], k.pad[1], k.dilation[0], k.dilation[1]])?;
        put(&mut meta, 17, &k.x.strides)?;
        let a_row = if k.weight_grad { l } else { k.row };
        put(&mut meta, 21, &[cg, step[0], step[1], k.o * l, a_row, cg * kk])?;
        let groups = matmul::groups(&key, og, cols, n * k.groups);
        if groups.0 > MAX_GROUPS || groups.1 > MAX_GROUPS {
            crate::bail!(Shape, "webgpu: conv2d of {og}x{cols} outputs exceeds the dispatch grid");
        }
        self.dispatch(&KernelKey::Conv2d(key, k.weight_grad), &meta, &[k.out, k.w, k.x.buf], groups)?;
        Ok(true)
    }
}
