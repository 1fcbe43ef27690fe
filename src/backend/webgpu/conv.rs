//! 2-D convolutions as an implicit GEMM (`shaders/conv2d.wgsl`): the register-tiled matmul with
//! its `b` tile gathered from the input in the load stage. The im2col route (a `k`-times larger
//! column buffer written by a strided copy, then read by the matmul) moved 231 MB more than the
//! product needed at 32×64×56×56 and held conv2d to 0.47× cuDNN (`bench/KERNELS.md`, "conv2d
//! 3×3"); here the columns never exist. The output is written straight in NCHW: M is a group's
//! output channels and N the output positions, so each image's `[Og, oh·ow]` block is contiguous.
//!
//! Taken for float32 where the kernel has ≤ 64 positions (output rows that are not whole vec4,
//! `oh·ow` not divisible by 4, run over a padded scratch: `conv2d_padded_rows`,
//! `conv2d_wgrad_padded`); `Cg·kh·kw` not divisible by 4 (a first layer's 3·3·3 = 27) runs with the
//! weight's rows (forward) or the gradient's (weight gradient) padded to a multiple of 4. The
//! weight gradient is the same template's second product (`Gather::ConvWeightGrad`). Forwards
//! with short weight rows or few output channels per group (first layers, depthwise layers)
//! take the window kernel instead (`window`, `shaders/conv2d_window.wgsl`: four output positions
//! × a block of channels per invocation, any output size); depthwise weight gradients, and
//! depthwise forwards the window kernel cannot unroll, run `conv2d_depthwise*.wgsl`. 1-D
//! convolutions arrive as 2-D ones over rows of one (`tensor/conv.rs`). Anything else declines
//! and runs im2col.

use super::codegen::fill;
use super::codegen::KernelKey;
use super::launch::{f32_fill, put};
use super::matmul::{self, TiledKey, Variant, T128K16P, T128X64P, T64P};
use super::{WebGpuBackend, MAX_GROUPS};
use crate::backend::tuning;
use crate::backend::{Conv2d, ConvGeometry};
use crate::dtype::DType;
use crate::error::Result;

const CONV2D: &str = include_str!("../../../shaders/conv2d.wgsl");

/// `shaders/conv2d.wgsl` for a tile, the forward or (`wgrad`) the weight gradient: the tiled
/// matmul's holes with the `b` tile gathered from the input. `GATHER` computes before the K loop
/// what stays fixed while K advances — forward, the input origins of the four output positions
/// each `b` load covers; for the weight gradient, the load's channel and kernel position — and
/// each load's starting K index as a pair, which each fetch then advances by BK (no division in
/// the loop).
pub fn source(key: &TiledKey, wgrad: bool) -> String {
    let lb = key.tile.bn * key.tile.bk / 1024; // `b` loads per thread and K step
    let q = key.tile.bn / 4;
    let mut gather = String::new();
    let fetch: matmul::FetchB = if wgrad {
        &|l, i, kb| {
            let (col, kq) = matmul::staged(key, i);
            format!(
                "        {{\n            let col = {col};\n            let kq = {kq};\n            pb{l} = vec4<f32>(0.0);\n            if (n0 + col < m(26u) && {kb} + 4u * kq < K) {{ pb{l} = gather_k(cb{l}, d{l}, oy{l}, ox{l}); }}\n            ox{l} += m(23u);\n            oy{l} += m(22u);\n            if (ox{l} >= m(8u)) {{ ox{l} -= m(8u); oy{l} += 1u; }}\n        }}\n"
            )
        }
    } else {
        &|l, i, kb| {
            format!(
                "        {{\n            let kr = ({i}) / {q}u;\n            pb{l} = vec4<f32>(0.0);\n            if ({kb} + kr < K) {{ pb{l} = gather(kc{l}, ktab[kq{l}], gy{l}, gx{l}, xb); }}\n            kq{l} += m(23u);\n            kc{l} += m(22u);\n            if (kq{l} >= m(6u)) {{ kq{l} -= m(6u); kc{l} += 1u; }}\n        }}\n"
            )
        }
    };
    for l in 0..lb {
        let i = format!("t + {}u", 256 * l);
        if wgrad {
            let (col, kq) = matmul::staged(key, &i);
            gather += &format!(
                "    let wc{l} = n0 + ({col});\n    let wr{l} = wc{l} % m(6u);\n    let wi{l} = wr{l} / m(7u);\n    let cb{l} = xb + (wc{l} / m(6u)) * m(18u);\n    let d{l} = vec2<i32>(i32(wi{l} * m(15u)) - i32(m(13u)), i32((wr{l} - wi{l} * m(7u)) * m(16u)) - i32(m(14u)));\n    var oy{l} = (kbeg + 4u * ({kq})) / m(8u);\n    var ox{l} = (kbeg + 4u * ({kq})) - oy{l} * m(8u);\n"
            );
        } else {
            gather += &format!("    let l0_{l} = n0 + 4u * (({i}) % {q}u);\n");
            gather += &format!(
                "    var kc{l} = (kbeg + ({i}) / {q}u) / m(6u);\n    var kq{l} = (kbeg + ({i}) / {q}u) - kc{l} * m(6u);\n"
            );
            for e in 0..4 {
                gather += &format!("    let o{l}_{e} = origin(l0_{l} + {e}u);\n");
            }
            let lane = |c: &str| (0..4).map(|e| format!("o{l}_{e}.{c}")).collect::<Vec<_>>().join(", ");
            gather +=
                &format!("    let gy{l} = vec4<i32>({});\n    let gx{l} = vec4<i32>({});\n", lane("x"), lane("y"));
        }
    }
    let setup = if wgrad {
        "    let oa4 = (m(4u) + img * m(24u) + grp * M * ars) >> 2u;\n".to_string()
    } else {
        "    let oa4 = (m(4u) + grp * M * ars) >> 2u;\n    if (t < m(6u)) {\n        let i = t / m(7u);\n        ktab[t] = vec2<i32>(i32(i * m(15u)), i32((t - i * m(7u)) * m(16u)));\n    }\n    workgroupBarrier();\n".to_string()
    };
    let mut holes = matmul::holes_with(key, false, Some(fetch));
    holes.push(("GATHER", gather));
    holes.push(("SETUP", setup));
    let holes: Vec<(&str, &str)> = holes.iter().map(|(n, v)| (*n, v.as_str())).collect();
    fill(CONV2D, &holes)
}

/// Whether this module's kernels are on (`Tuning::conv_direct`).
pub fn enabled() -> bool {
    tuning::tuning(|t| t.conv_direct)
}

/// The tile for a convolution's product with rows of `row` values (`None`: decline). A forced
/// matmul variant (`matmul::set_variant`) applies here too; the 16×16 one declines.
fn choose(k: &ConvGeometry, row: usize, wg_limit: u32) -> Option<TiledKey> {
    let [n, c, ..] = k.input;
    let og = k.o / k.groups;
    let l = k.out_hw[0] * k.out_hw[1];
    // The product's M and N (the forward's K is the row, the weight gradient's `l`). An `l` that
    // is not a multiple of 4 runs rounded up: a forward's N into a scratch
    // (`conv2d_padded_rows`), a weight gradient's K over `dy` copied into zero-padded rows
    // (`conv2d_wgrad_padded`).
    let (m, cols) = if k.weight_grad { (og, row) } else { (og, l.next_multiple_of(4)) };
    if k.dtype != DType::Float32
        || c == 0
        || !row.is_multiple_of(4)
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

/// `ConvGeometry::weight_grad_blocks`: how a weight gradient's sum over images and output positions is
/// cut into workgroups, `(images, slices)`: each workgroup sums `images` images' products over
/// one of `slices` slices of their output positions (`[Og, row]` tiles). Where tiles per image
/// leave the GPU short of work — an RGB first layer's 64×28 gradient is one tile per image, 32
/// workgroups walking 50,176 positions each — slices: the smallest of 2…64 that makes ≥ 800
/// workgroups (about six per SM of an H100, as the matmul's split-K), each slice keeping ≥ 512
/// positions. Where they give far more than that — a 512-channel 3×3 layer at 7×7 has 288
/// tiles per image, 49 positions each — images: the most (a power of two) that keeps ≥ 800
/// workgroups; the per-image blocks (302 MB at batch 32, written and summed again) were as
/// costly as the product. `(1, 1)` for the forward and where no kernel takes it. A forced
/// image count (`set_conv_images`) applies with one slice; a forced slice count
/// (`set_conv_splits`) where positions allow it, one image each.
pub fn splits(k: &ConvGeometry, row: usize, wg_limit: u32) -> (usize, usize) {
    const WORKGROUPS: usize = 800;
    let Some(key) = (k.weight_grad && !depthwise(k)).then(|| choose(k, row, wg_limit)).flatten() else {
        return (1, 1);
    };
    let l = k.out_hw[0] * k.out_hw[1];
    let n = k.input[0];
    let (forced_images, forced_splits) = tuning::tuning(|t| (t.conv_images, t.conv_splits));
    if let Some(i) = forced_images {
        return (i.clamp(1, n), 1);
    }
    if let Some(s) = forced_splits {
        return (1, s.clamp(1, l.div_ceil(key.tile.bk as usize)));
    }
    let og = k.o / k.groups;
    let tiles = og.div_ceil(key.tile.bm as usize) * row.div_ceil(key.tile.bn as usize) * k.groups;
    let mut images = 1;
    while images < n && tiles * n.div_ceil(2 * images) >= WORKGROUPS {
        images *= 2;
    }
    if images > 1 {
        return (images, 1);
    }
    let mut s = [1usize, 2, 4, 8, 16, 32, 64].into_iter().find(|s| tiles * n * s >= WORKGROUPS).unwrap_or(64);
    while s > 1 && l / s < 512 {
        s /= 2;
    }
    (1, s)
}

const DEPTHWISE: &str = include_str!("../../../shaders/conv2d_depthwise.wgsl");
const DEPTHWISE_GRAD: &str = include_str!("../../../shaders/conv2d_depthwise_grad.wgsl");

/// `shaders/conv2d_depthwise.wgsl`, or (`grad`) `conv2d_depthwise_grad.wgsl`.
pub fn depthwise_source(grad: bool) -> String {
    fill(if grad { DEPTHWISE_GRAD } else { DEPTHWISE }, &[])
}

/// Whether a convolution runs the depthwise kernels: one input channel per group and fewer
/// than 16 output channels per group (with 16 or more the implicit GEMM's tiles fill well
/// enough). Their weight rows (forward) and gradient rows are unpadded.
fn depthwise(k: &ConvGeometry) -> bool {
    k.input[1] == k.groups && k.o / k.groups < 16 && k.dtype == DType::Float32
}

/// `ConvGeometry::direct_row`: the window and depthwise kernels take rows as they are, the implicit
/// GEMM rows padded to a multiple of 4 (it moves them as vec4).
pub fn row(k: &ConvGeometry, wg_limit: u32) -> Option<usize> {
    if !enabled() {
        return None;
    }
    if depthwise(k) || window(k, wg_limit).is_some() {
        return Some(k.weight_row());
    }
    let row = k.weight_row().next_multiple_of(4);
    choose(k, row, wg_limit).map(|_| row)
}

/// The window kernel's shape (`shaders/conv2d_window.wgsl`): the kernel's width, stride and
/// dilation along rows (the taps' positions in a row segment), output channels per invocation,
/// taps per channel (`Cg·kh·kw`: the workgroup's weights) and whether output rows are whole vec4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WindowKey {
    pub kw: u32,
    pub sw: u32,
    pub dw: u32,
    /// A multiple of 4 (weights read four channels at a time), or 1–3.
    pub ocb: u32,
    pub taps: u32,
    pub vec_out: bool,
}

/// Weight rows of at most this many taps take the window kernel (`window`): ResNet's 7×7 RGB
/// stem has 147.
const WINDOW_TAPS: usize = 160;

/// Whether the window kernel takes a forward convolution, and its shape: weight rows of at most
/// `WINDOW_TAPS` (a first layer's `3·3·3`), where the implicit GEMM runs a few K steps per tile,
/// and groups of fewer than 16 output channels (depthwise layers; an RGB layer's input
/// gradient), which fill a fraction of its 64-row tiles. Measured on an H100 (`bench/KERNELS.md`,
/// "conv2d windows"): 1.1–2.0× the implicit GEMM at 27–147 taps, 1.3–3.8× on depthwise and
/// grouped layers; at 576 taps and 64 channels the GEMM is 2.7× faster. `ocb` output channels per
/// invocation: a group's channels up to 16 (a multiple of 4 from 4 on), fewer where the
/// workgroup's weights (`ocb · taps` floats) would pass 16 KiB or the adapter's workgroup memory.
fn window(k: &ConvGeometry, wg_limit: u32) -> Option<WindowKey> {
    let og = k.o / k.groups;
    let taps = k.weight_row();
    let (forced, forced_ocb) = tuning::tuning(|t| (t.conv_window, t.conv_window_block));
    let rule = og < 16 || taps <= WINDOW_TAPS;
    if k.weight_grad
        || k.dtype != DType::Float32
        || !forced.unwrap_or(rule)
        || taps == 0
        || og == 0
        || k.kernel[1] > 16
        || k.stride[1] > 8
        || k.dilation[1] * (k.kernel[1] - 1) > 32
    {
        return None;
    }
    let mut ocb = if og < 4 { og } else { og.next_multiple_of(4).min(16) };
    if let Some(f) = Some(forced_ocb).filter(|&f| f > 0) {
        ocb = f.min(og.next_multiple_of(4));
    }
    let budget = (16 * 1024).min(wg_limit as usize) / 4;
    while ocb > 4 && ocb * taps > budget {
        ocb = (ocb / 2).next_multiple_of(4);
    }
    if ocb * taps > budget {
        return None;
    }
    Some(WindowKey {
        kw: k.kernel[1] as u32,
        sw: k.stride[1] as u32,
        dw: k.dilation[1] as u32,
        ocb: ocb as u32,
        taps: taps as u32,
        vec_out: k.out_hw[1].is_multiple_of(4),
    })
}

const WINDOW_SRC: &str = include_str!("../../../shaders/conv2d_window.wgsl");

/// `shaders/conv2d_window.wgsl` for a key: the row segment `s{i}` in registers, the taps and
/// the `a{o}` accumulators (four positions each) unrolled.
pub fn window_source(k: &WindowKey) -> String {
    let seg = 3 * k.sw + (k.kw - 1) * k.dw + 1;
    let v4 = k.ocb.is_multiple_of(4);
    let per = if v4 { k.ocb / 4 } else { k.ocb };
    let stage = if v4 {
        format!(
            "    for (var i = t; i < taps * {per}u; i += 64u) {{\n        let o = o0 + 4u * (i % {per}u);\n        var v = vec4<f32>(0.0);\n        for (var l = 0u; l < 4u; l++) {{\n            if (o + l < og) {{ v[l] = w[m(17u) + (g * og + o + l) * m(20u) + i / {per}u]; }}\n        }}\n        ws[i] = v;\n    }}\n"
        )
    } else {
        format!(
            "    for (var i = t; i < taps * {per}u; i += 64u) {{\n        ws[i] = w[m(17u) + (g * og + o0 + i % {per}u) * m(20u) + i / {per}u];\n    }}\n"
        )
    };
    let (mut init, mut taps, mut store) = (String::new(), String::new(), String::new());
    for o in 0..k.ocb {
        init += &format!("    var a{o} = vec4<f32>(0.0);\n");
    }
    for i in 0..seg {
        taps += &format!("                let s{i} = ld(row, xs0 + {i});\n");
    }
    let lanes = ["x", "y", "z", "w"];
    for j in 0..k.kw {
        let at = |p: u32| j * k.dw + p * k.sw;
        taps += &format!("                let v{j} = vec4<f32>(s{}, s{}, s{}, s{});\n", at(0), at(1), at(2), at(3));
        for u in 0..per {
            if v4 {
                taps += &format!("                let w{j}_{u} = ws[(kb + {j}u) * {per}u + {u}u];\n");
                for (l, lane) in lanes.iter().enumerate() {
                    let o = 4 * u + l as u32;
                    taps += &format!("                a{o} = fma(vec4<f32>(w{j}_{u}.{lane}), v{j}, a{o});\n");
                }
            } else {
                taps +=
                    &format!("                a{u} = fma(vec4<f32>(ws[(kb + {j}u) * {per}u + {u}u]), v{j}, a{u});\n");
            }
        }
    }
    for o in 0..k.ocb {
        store += &format!("    if (o0 + {o}u < og) {{\n        let b = ob + {o}u * m(3u) * m(4u);\n");
        if k.vec_out {
            store += &format!("        out[b >> 2u] = a{o};\n");
        } else {
            for (p, lane) in lanes.iter().enumerate() {
                store += &format!("        if (ox0 + {p}u < m(4u)) {{ out[b + {p}u] = a{o}.{lane}; }}\n");
            }
        }
        store += "    }\n";
    }
    let (kw, ocb, sw) = (k.kw.to_string(), k.ocb.to_string(), k.sw.to_string());
    let ws_len = (k.taps * per).to_string();
    fill(
        WINDOW_SRC,
        &[
            ("OUT_T", if k.vec_out { "vec4<f32>" } else { "f32" }),
            ("WS_T", if v4 { "vec4<f32>" } else { "f32" }),
            ("WS_LEN", &ws_len),
            ("KW", &kw),
            ("OCB", &ocb),
            ("SW", &sw),
            ("STAGE", &stage),
            ("INIT", &init),
            ("TAPS", &taps),
            ("STORE", &store),
        ],
    )
}

pub fn window_label(k: &WindowKey) -> String {
    format!(
        "webtorch:conv2d_window:k{}s{}d{}o{}t{}{}:float32",
        k.kw,
        k.sw,
        k.dw,
        k.ocb,
        k.taps,
        if k.vec_out { "v" } else { "" }
    )
}

impl WebGpuBackend {
    /// The depthwise forward (one invocation per output) or weight gradient (one workgroup per
    /// image and output channel).
    fn conv2d_depthwise(&self, c: &Conv2d) -> Result<()> {
        let k = &c.g;
        let [n, _, h, w] = k.input;
        let total = if k.weight_grad { n * k.o } else { n * k.o * k.out_hw[0] * k.out_hw[1] };
        let per = if k.weight_grad { 1 } else { 256 };
        let groups =
            u32::try_from(total.div_ceil(per)).map_err(|_| crate::err!(OutOfMemory, "conv2d of {total} outputs"))?;
        let (gx, gy) = Self::grid(groups);
        let mut meta = [0u32; 24];
        put(&mut meta, 0, &[total, k.o, k.o / k.groups, k.out_hw[0], k.out_hw[1], k.kernel[0], k.kernel[1], h, w])?;
        put(&mut meta, 9, &[k.stride[0], k.stride[1], k.pad[0], k.pad[1], k.dilation[0], k.dilation[1]])?;
        put(&mut meta, 15, &c.x.strides)?;
        put(&mut meta, 19, &[c.w_offset, c.x.offset, gx as usize * per, c.row])?;
        self.record(&KernelKey::Conv2dDepthwise(k.weight_grad), &meta, &[c.out, c.w, c.x.buf], (gx, gy, 1))
    }

    /// The window kernel: one invocation per four output positions of a row and `ocb` channels,
    /// the grid's z the groups' channel blocks.
    fn conv2d_window(&self, c: &Conv2d, key: WindowKey) -> Result<()> {
        let k = &c.g;
        let [n, cin, h, w] = k.input;
        let og = k.o / k.groups;
        let (oh, ow) = (k.out_hw[0], k.out_hw[1]);
        let ow4 = ow.div_ceil(4);
        let total = n * oh * ow4;
        let blocks = og.div_ceil(key.ocb as usize);
        let groups = u32::try_from(total.div_ceil(64))
            .map_err(|_| crate::err!(OutOfMemory, "conv2d of {total} output quads"))?;
        let (gx, gy) = Self::grid(groups);
        let gz = k.groups * blocks;
        if gz > MAX_GROUPS as usize {
            crate::bail!(Shape, "webgpu: conv2d of {} channel blocks exceeds the dispatch grid", gz);
        }
        let mut meta = [0u32; 24];
        put(&mut meta, 0, &[total, k.o, og, oh, ow, k.kernel[0], cin / k.groups, h, w])?;
        put(&mut meta, 9, &[k.stride[0], k.pad[0], k.pad[1], k.dilation[0]])?;
        put(&mut meta, 13, &c.x.strides)?;
        put(&mut meta, 17, &[c.w_offset, c.x.offset, gx as usize * 64, c.row, ow4, blocks])?;
        self.record(&KernelKey::Conv2dWindow(key), &meta, &[c.out, c.w, c.x.buf], (gx, gy, gz as u32))
    }

    /// A forward whose output rows (`oh·ow` positions) are not whole vec4 (ResNet's last stage:
    /// 7×7): the implicit GEMM over positions rounded up to 4 into a scratch `[N, O, l4]` (the
    /// extra columns gather in-bounds inputs past the last row and are dropped), then one
    /// strided copy into the output. The im2col route it replaces wrote `kh·kw` times the input
    /// and ran the product at 4× the copy's cost (bench/KERNELS.md, "Reductions by runs").
    fn conv2d_padded_rows(&self, conv: &Conv2d, key: TiledKey) -> Result<()> {
        use crate::backend::{Arg, Operand};
        let k = &conv.g;
        let (n, l) = (k.input[0], k.out_hw[0] * k.out_hw[1]);
        let l4 = l.next_multiple_of(4);
        let scratch = self.alloc_from_pool((n * k.o * l4 * 4) as u64, false)?;
        let leaf = Operand { buf: scratch, dtype: DType::Float32, offset: 0, strides: vec![l4, 1] };
        let copy = f32_fill(Arg::Leaf(0), vec![leaf], vec![n * k.o, l], conv.out, None);
        let r = self
            .conv2d_gemm(&Conv2d { out: scratch, ..conv.clone() }, key, l4)
            .and_then(|_| self.elementwise_impl(&copy));
        crate::backend::Backend::release(self, scratch);
        r
    }

    pub(super) fn conv2d_impl(&self, conv: &Conv2d) -> Result<()> {
        let k = &conv.g;
        if let Some(key) = window(k, self.limits.max_compute_workgroup_storage_size) {
            return self.conv2d_window(conv, key);
        }
        if depthwise(k) {
            return self.conv2d_depthwise(conv);
        }
        let limit = self.limits.max_compute_workgroup_storage_size;
        let Some(key) = choose(k, conv.row, limit).filter(|_| conv.w_offset.is_multiple_of(4)) else {
            crate::bail!(Device, "webgpu: no conv2d kernel for this geometry (ask ConvGeometry::direct_row first)")
        };
        let l = k.out_hw[0] * k.out_hw[1];
        match (l.is_multiple_of(4), k.weight_grad) {
            (true, _) => self.conv2d_gemm(conv, key, l),
            (false, false) => self.conv2d_padded_rows(conv, key),
            (false, true) => self.conv2d_wgrad_padded(conv, key),
        }
    }

    /// A weight gradient whose output positions (K) are not whole vec4: `dy` copied into a
    /// scratch `[N, O, l4]` whose extra columns are zeros (`l4` = `l` rounded up to 4), then the
    /// implicit GEMM over `l4` positions (the extra ones gather in-bounds inputs, or padding,
    /// times zeros). Before, ResNet's 7×7 stage took the composed route: a convolution of
    /// 3×3 outputs whose 128-column tiles held 12 useful ones (2.95 ms each on an H100).
    fn conv2d_wgrad_padded(&self, conv: &Conv2d, key: TiledKey) -> Result<()> {
        use crate::backend::{Arg, Operand};
        let k = &conv.g;
        let (rows, l) = (k.input[0] * k.o, k.out_hw[0] * k.out_hw[1]);
        let l4 = l.next_multiple_of(4);
        let scratch = self.alloc_from_pool((rows * l4 * 4) as u64, false)?;
        let dy = Operand { buf: conv.w, dtype: DType::Float32, offset: conv.w_offset, strides: vec![l, 1] };
        let copy = f32_fill(Arg::Leaf(0), vec![dy], vec![rows, l], scratch, Some((0, vec![l4, 1])));
        let zeros = f32_fill(Arg::Scalar(0.0), vec![], vec![rows, l4 - l], scratch, Some((l, vec![l4, 1])));
        let padded = Conv2d { w: scratch, w_offset: 0, ..conv.clone() };
        let r = self
            .elementwise_impl(&copy)
            .and_then(|_| self.elementwise_impl(&zeros))
            .and_then(|_| self.conv2d_gemm(&padded, key, l4));
        crate::backend::Backend::release(self, scratch);
        r
    }

    /// The implicit GEMM with `lp` positions per (image, channel) row: of `out` (forward) or of
    /// `dy` (weight gradient) — `l`, or `l` rounded up to 4 (`conv2d_padded_rows`,
    /// `conv2d_wgrad_padded`).
    fn conv2d_gemm(&self, conv: &Conv2d, key: TiledKey, lp: usize) -> Result<()> {
        let k = &conv.g;
        let [n, c, h, w] = k.input;
        let (og, cg) = (k.o / k.groups, c / k.groups);
        let (l, kk) = (lp, k.kernel[0] * k.kernel[1]);
        let bk = key.tile.bk as usize;
        // M, N, K of the product, and the K step as a pair (see the shader's meta).
        let (cols, depth, step) = if k.weight_grad {
            (conv.row, l, [bk / k.out_hw[1], bk % k.out_hw[1]])
        } else {
            (l, cg * kk, [bk / kk, bk % kk])
        };
        let mut meta = [0u32; 32];
        put(
            &mut meta,
            0,
            &[og, cols, depth, k.groups, conv.w_offset, conv.x.offset, kk, k.kernel[1], k.out_hw[1], h, w],
        )?;
        put(&mut meta, 11, &[k.stride[0], k.stride[1], k.pad[0], k.pad[1], k.dilation[0], k.dilation[1]])?;
        put(&mut meta, 17, &conv.x.strides)?;
        let a_row = if k.weight_grad { l } else { conv.row };
        put(&mut meta, 21, &[cg, step[0], step[1], k.o * l, a_row, cg * kk])?;
        // Slices of K (the weight gradient's output positions), each a multiple of BK; slices
        // past the end (K short of splits · slice) write zeros.
        // Chunks of images summed in one workgroup (the weight gradient's; 1 forward).
        let splits = conv.splits.max(1);
        let images = conv.images.max(1);
        put(&mut meta, 27, &[splits, depth.div_ceil(splits).next_multiple_of(bk), images, n])?;
        let z = n.div_ceil(images) * k.groups * splits;
        let groups = matmul::groups(&key, og, cols, z);
        if groups.0 > MAX_GROUPS || groups.1 > MAX_GROUPS || z > MAX_GROUPS as usize {
            crate::bail!(Shape, "webgpu: conv2d of {og}x{cols} outputs exceeds the dispatch grid");
        }
        self.record(&KernelKey::Conv2d(key, k.weight_grad), &meta, &[conv.out, conv.w, conv.x.buf], groups)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    fn wgrad(n: usize, c: usize, o: usize, k: usize, stride: usize, hw: usize, out: usize) -> ConvGeometry {
        ConvGeometry {
            dtype: DType::Float32,
            weight_grad: true,
            input: [n, c, hw, hw],
            o,
            groups: 1,
            kernel: [k, k],
            stride: [stride, stride],
            pad: [k / 2, k / 2],
            dilation: [1, 1],
            out_hw: [out, out],
        }
    }

    /// ResNet-18's weight gradients at batch 32: the deep layers sum images per block, the
    /// first layer and the wide shallow ones cut positions into slices.
    #[test]
    fn weight_gradient_blocks() {
        let limit = 32768;
        let blocks = |g: &ConvGeometry| splits(g, row(g, limit).unwrap(), limit);
        let (images, slices) = blocks(&wgrad(32, 512, 512, 3, 1, 7, 7));
        assert!(images >= 4 && slices == 1, "512-channel 7×7 layer: {images} images, {slices} slices");
        let (images, slices) = blocks(&wgrad(32, 3, 64, 7, 2, 224, 112));
        assert!(images == 1 && slices > 1, "stem: {images} images, {slices} slices");
        assert_eq!(blocks(&wgrad(1, 512, 512, 3, 1, 7, 7)), (1, 1), "one image, few tiles");
    }
}
