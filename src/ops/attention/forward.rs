//! Attention's forward in one kernel: scores, softmax and the product with the values, the keys and values
//! staged a block at a time, the softmax online (a running maximum and sum per query row, the
//! accumulator rescaled once per block). Nothing of size `L × S` is written: the unfused route
//! (`Q Kᵀ`, softmax, `P V`) holds 4·L·S bytes per head at once, 48 MB for 12 heads at L = 1,024
//! and 3.2 GB at L = 8,192 (past the 2 GB a binding may hold). Two kernels: the register-tiled
//! `attention_tiled.wgsl` (64 query rows × 64 keys a step, 4×4 per thread) where E is a
//! multiple of 16 and Ev is 64 or 128, else `attention.wgsl` (one query row per
//! invocation); `supports` says which shapes take either. Both add a float mask
//! (`Attention::mask`) to the scores.

use super::{Attention, AttentionShape};
use crate::backend::program::{put, Dispatch, Program, MAX_GROUPS};
use crate::backend::{Backend, Capabilities};
use crate::dtype::DType;
use crate::engine;
use crate::error::Result;
use crate::ops::wgsl::fill;

const ATTENTION: &str = include_str!("attention.wgsl");

/// The kernel's shape: query rows per workgroup, `E/4` and `Ev/4` vec4 per row, and keys per
/// chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AttentionKey {
    /// Reads an additive mask.
    pub mask: bool,
    /// `attention_tiled.wgsl` (64 query rows × 64 keys per step, 4×4 per thread; `br`, `bc`
    /// unused) rather than one query row per invocation.
    pub tiled: bool,
    pub br: u32,
    pub e4: u32,
    pub ev4: u32,
    pub bc: u32,
}

/// Whether a kernel takes attention of these shapes, given the largest buffer a binding may hold
/// and the workgroup memory. The register-tiled kernel where E is a multiple of 16 and Ev is 64
/// or 128 (on an H100: 0.95–1.13× the products and softmax at E = 64, 9–33× less memory;
/// `bench/KERNELS.md`, "Attention in one kernel"). Otherwise the one-row-per-invocation kernel
/// for head dims up to 64 (0.8–1.0× the products); wider heads hold 2·E/4 vec4 per invocation
/// and spill (0.4×), so they take it only where the products' scores would not fit one binding.
pub fn supports(a: &AttentionShape, caps: &Capabilities) -> bool {
    let (binding_limit, wg_limit) =
        (caps.storage_binding_bytes, u32::try_from(caps.workgroup_storage_bytes).unwrap_or(u32::MAX));
    let (e, ev) = (a.e, a.ev);
    let fits = |n: usize| n.is_multiple_of(4) && (4..=128).contains(&n);
    let scores = (a.batch as u64).saturating_mul(a.l as u64).saturating_mul(a.s as u64).saturating_mul(4);
    let (fused, wide) = engine::tuning(|t| (t.attention_fused, t.attention_wide));
    fused
        && caps.fused_kernels
        && a.dtype == DType::Float32
        && fits(e)
        && fits(ev)
        && a.batch <= MAX_GROUPS as usize
        && (tiled(a, wg_limit) || e.max(ev) <= 64 || scores > binding_limit || wide)
}

/// Whether the register-tiled kernel takes these head dims (and no tile is forced).
fn tiled(a: &AttentionShape, wg_limit: u32) -> bool {
    engine::tuning(|t| t.attention_tile) == (0, 0)
        && a.e.is_multiple_of(16)
        && a.e <= 128
        && (a.ev == 64 || a.ev == 128)
        && wg_limit >= TILED_WG_BYTES
}

/// The tile for a shape: 8-key chunks, 128 query rows per workgroup where that still gives
/// 512 workgroups, else 64 or 32 (a GPU of ~130 cores holds ~4 workgroups of 128 on each: with
/// 12 heads of 1,024 queries, 128 rows made 96 workgroups). Measured on an H100 (`bench/KERNELS.md`).
/// A forced tile (`set_attention_tile`) applies, its chunk shortened to fit `wg_limit` bytes.
fn key(a: &AttentionShape, wg_limit: u32) -> AttentionKey {
    let (e4, ev4) = ((a.e / 4) as u32, (a.ev / 4) as u32);
    let (fbr, fbc) = engine::tuning(|t| t.attention_tile);
    if tiled(a, wg_limit) {
        return AttentionKey { mask: a.masked, tiled: true, br: 64, e4, ev4, bc: 64 };
    }
    let br = if fbr > 0 {
        fbr
    } else {
        [128u32, 64].into_iter().find(|&r| a.batch * a.l.div_ceil(r as usize) >= 512).unwrap_or(32)
    };
    let mut bc = if fbc > 0 { fbc } else { 8 };
    while bc > 4 && bc * (e4 + ev4) * 16 + bc * br * 4 > wg_limit {
        bc /= 2;
    }
    AttentionKey { mask: a.masked, tiled: false, br, e4, ev4, bc }
}

/// Workgroup memory of `attention_tiled.wgsl`: staging 8 KiB, probabilities 16 KiB, partial
/// maxima 4 KiB.
const TILED_WG_BYTES: u32 = 28 * 1024;

const TILED: &str = include_str!("attention_tiled.wgsl");

/// `attention_tiled.wgsl` for a key: thread (tx, ty)'s scores `sc{i}` (row 4·ty + i, columns
/// 4·tx..+4) and outputs `o{i}_{jj}` (columns 4·tx + 64·jj..+4) as named vec4 registers.
fn tiled_source(k: &AttentionKey) -> String {
    let nj = k.ev4 / 16;
    let (mut init, mut zero, mut scores, mut soft, mut pv, mut store) =
        (String::new(), String::new(), String::new(), String::new(), String::new(), String::new());
    init += "    var mx = vec4<f32>(NEG);\n    var sm = vec4<f32>(0.0);\n";
    for i in 0..4 {
        zero += &format!("        var sc{i} = vec4<f32>(0.0);\n");
        for jj in 0..nj {
            init += &format!("    var o{i}_{jj} = vec4<f32>(0.0);\n");
        }
    }
    for e in 0..16 {
        scores += &format!(
            "            {{\n                let a = st[{}u + ty];\n                let bb = st[{}u + tx];\n",
            e * 16,
            256 + e * 16
        );
        for (i, lane) in ["x", "y", "z", "w"].iter().enumerate() {
            scores += &format!("                sc{i} = fma(vec4<f32>(a.{lane}), bb, sc{i});\n");
        }
        scores += "            }\n";
    }
    soft += "        let colb = c0 + 4u * tx;\n        let kc = vec4<u32>(colb, colb + 1u, colb + 2u, colb + 3u);\n        let bad = kc >= vec4<u32>(s_len);\n";
    for i in 0..4 {
        let masked = if k.mask {
            format!(" + vec4<f32>(mk({i}u, kc.x), mk({i}u, kc.y), mk({i}u, kc.z), mk({i}u, kc.w))")
        } else {
            String::new()
        };
        soft += &format!(
            "        let x{i} = select(sc{i} * scale{masked}, vec4<f32>(NEG), bad | (vec4<bool>(causal) & (kc > vec4<u32>(r0 + 4u * ty + {i}u))));\n        red[(4u * ty + {i}u) * 16u + tx] = max(max(x{i}.x, x{i}.y), max(x{i}.z, x{i}.w));\n"
        );
    }
    soft += "        workgroupBarrier();\n        var cm = vec4<f32>(NEG);\n        for (var u = 0u; u < 16u; u++) {\n            cm = max(cm, vec4<f32>(red[64u * ty + u], red[64u * ty + 16u + u], red[64u * ty + 32u + u], red[64u * ty + 48u + u]));\n        }\n        let mn = max(mx, cm);\n        let alpha = exp(mx - mn);\n        mx = mn;\n        sm *= alpha;\n";
    let lanes = ["x", "y", "z", "w"];
    for (i, lane) in lanes.iter().enumerate() {
        soft += &format!("        let p{i} = exp(x{i} - vec4<f32>(mn.{lane}));\n");
        for jj in 0..nj {
            soft += &format!("        o{i}_{jj} *= alpha.{lane};\n");
        }
    }
    for (j, lane) in lanes.iter().enumerate() {
        soft += &format!(
            "        ps[(4u * tx + {j}u) * 16u + ty] = vec4<f32>(p0.{lane}, p1.{lane}, p2.{lane}, p3.{lane});\n"
        );
    }
    for cc in 0..16 {
        pv += &format!(
            "            {{\n                let p4 = ps[(cc0 + {cc}u) * 16u + ty];\n                sm += p4;\n"
        );
        for jj in 0..nj {
            pv += &format!("                let v{jj} = st[{}u + tx];\n", cc * k.ev4 + 16 * jj);
        }
        for (i, lane) in lanes.iter().enumerate() {
            for jj in 0..nj {
                pv += &format!("                o{i}_{jj} = fma(vec4<f32>(p4.{lane}), v{jj}, o{i}_{jj});\n");
            }
        }
        pv += "            }\n";
    }
    for (i, lane) in lanes.iter().enumerate() {
        store += &format!("    {{\n        let row = r0 + 4u * ty + {i}u;\n        if (row < l) {{\n            let inv = 1.0 / sm.{lane};\n            if (tx == 0u) {{ lse[b * l + row] = mx.{lane} + log(sm.{lane}); }}\n");
        for jj in 0..nj {
            store += &format!("            out[(b * l + row) * EV4 + {}u + tx] = o{i}_{jj} * inv;\n", 16 * jj);
        }
        store += "        }\n    }\n";
    }
    // Values: 16 keys × EV4 vec4 a chunk, `nj` loads a thread (load `u` at index t + 256·u: key
    // index / EV4, quad index % EV4), the next chunk's issued before this one's FMAs.
    let (mut vload, mut vstage, mut vnext) = (String::new(), String::new(), String::new());
    let vfetch = |u: u32, chunk: &str| {
        format!(
            "{{\n        let i = t + {}u;\n        let c = c0 + {chunk} + i / EV4;\n        vv{u} = vec4<f32>(0.0);\n        if (c < s_len) {{ vv{u} = v[vb + c * m(18u) + i % EV4]; }}\n    }}\n",
            256 * u
        )
    };
    for u in 0..nj {
        vload += &format!("        var vv{u} = vec4<f32>(0.0);\n        {}", vfetch(u, "0u"));
        vstage += &format!("            st[t + {}u] = vv{u};\n", 256 * u);
        vnext += &format!("                {}", vfetch(u, "cc0 + 16u"));
    }
    let (e4, ev4) = (k.e4.to_string(), k.ev4.to_string());
    fill(
        TILED,
        &[
            ("E4", &e4),
            ("EV4", &ev4),
            ("INIT", &init),
            ("ZERO", &zero),
            ("SCORES", &scores),
            ("SOFTMAX", &soft),
            ("PV", &pv),
            ("VLOAD", &vload),
            ("VSTAGE", &vstage),
            ("VNEXT", &vnext),
            ("STORE", &store),
            ("MASK", if k.mask { MASK_READ } else { "" }),
            ("MASK_INIT", if k.mask { MASK_INIT } else { "" }),
        ],
    )
}

/// The mask's binding and its read for row `4·ty + i` and key `c` (clamped: rows and keys
/// past the ends are masked out or never stored anyway).
const MASK_READ: &str = "@group(0) @binding(6) var<storage, read> mask: array<f32>;
fn mk(i: u32, c: u32) -> f32 {
    let row = min(wrow + i, m(0u) - 1u);
    return mask[mbase + row * m(22u) + min(c, m(1u) - 1u) * m(23u)];
}
var<private> wrow: u32;
var<private> mbase: u32;
";
const MASK_INIT: &str = "    wrow = r0 + 4u * ty;\n    mbase = m(19u) + (b / m(3u)) * m(20u) + (b % m(3u)) * m(21u);\n";

/// The one-row kernel's mask: its binding, the row's base, and the read for key `j` (clamped
/// as the tiled kernel's), added to the scaled score.
const ROW_MASK_READ: &str = "@group(0) @binding(6) var<storage, read> mask: array<f32>;\n";
const ROW_MASK_INIT: &str = "    let mrow = m(19u) + (b / m(3u)) * m(20u) + (b % m(3u)) * m(21u) + row * m(22u);\n";
const ROW_MASK_ADD: &str = "            sc += mask[mrow + min(j, s_len - 1u) * m(23u)];\n";

/// The shader for a key: `q` held in `E/4` registers (scaled), the output in `Ev/4`, the dot
/// product and the accumulation unrolled over them.
pub fn source(k: &AttentionKey) -> String {
    if k.tiled {
        return tiled_source(k);
    }
    let (mut init, mut dot, mut rescale, mut pv, mut store) =
        (String::new(), String::new(), String::new(), String::new(), String::new());
    for j in 0..k.e4 {
        init += &format!("    let q{j} = q[qb + {j}u] * scale;\n");
        dot += &format!("            d = fma(q{j}, ks[kc + {j}u], d);\n");
    }
    for j in 0..k.ev4 {
        init += &format!("    var o{j} = vec4<f32>(0.0);\n");
        rescale += &format!("        o{j} *= alpha;\n");
        pv += &format!("            o{j} = fma(vec4<f32>(p), vs[vc + {j}u], o{j});\n");
        store += &format!("        out[ob + {j}u] = o{j} * inv;\n");
    }
    let (br, bc, e4, ev4) = (k.br.to_string(), k.bc.to_string(), k.e4.to_string(), k.ev4.to_string());
    fill(
        ATTENTION,
        &[
            ("BR", &br),
            ("BC", &bc),
            ("E4", &e4),
            ("EV4", &ev4),
            ("INIT", &init),
            ("DOT", &dot),
            ("RESCALE", &rescale),
            ("PV", &pv),
            ("STORE", &store),
            ("MASK", if k.mask { ROW_MASK_READ } else { "" }),
            ("MASK_INIT", if k.mask { ROW_MASK_INIT } else { "" }),
            ("MASK_ADD", if k.mask { ROW_MASK_ADD } else { "" }),
        ],
    )
}

pub fn label(k: &AttentionKey) -> String {
    if k.tiled {
        return format!("webtorch:attention:e{}v{}t{}:float32", 4 * k.e4, 4 * k.ev4, if k.mask { "m" } else { "" });
    }
    let m = if k.mask { "m" } else { "" };
    format!("webtorch:attention:e{}v{}r{}c{}{m}:float32", 4 * k.e4, 4 * k.ev4, k.br, k.bc)
}

/// The kernel: writes the output and the row log-sum-exps; reads `q`, `k`, `v` (and the mask).
/// The variant is the key (`AttentionKey::code`).
pub static PROGRAM: Program = Program {
    name: "attention",
    wgsl: |variant| source(&AttentionKey::decode(variant)),
    label: |variant| label(&AttentionKey::decode(variant)),
    writes: 2,
    writes_whole_output: true,
    cpu: super::no_cpu_twin,
};

impl AttentionKey {
    /// The key as a program variant: mask, tiled, `e4 − 1`, `ev4 − 1` (5 bits each: head dims
    /// 4 to 128), `br − 1` and `bc − 1` (10 bits each).
    fn code(&self) -> Result<u32> {
        if !(1..=1024).contains(&self.br) || !(1..=1024).contains(&self.bc) {
            crate::bail!(
                Device,
                "webgpu: an attention tile of {} rows and {} keys: each is at most 1024",
                self.br,
                self.bc
            );
        }
        Ok(self.mask as u32
            | (self.tiled as u32) << 1
            | (self.e4 - 1) << 2
            | (self.ev4 - 1) << 7
            | (self.br - 1) << 12
            | (self.bc - 1) << 22)
    }

    fn decode(v: u32) -> AttentionKey {
        AttentionKey {
            mask: v & 1 != 0,
            tiled: v & 2 != 0,
            e4: (v >> 2 & 31) + 1,
            ev4: (v >> 7 & 31) + 1,
            br: (v >> 12 & 1023) + 1,
            bc: (v >> 22 & 1023) + 1,
        }
    }
}

/// Runs attention in one kernel (a shape `supports` took).
pub fn run(backend: &dyn Backend, a: &Attention) -> Result<()> {
    let caps = backend.capabilities();
    let wg_limit = u32::try_from(caps.workgroup_storage_bytes).unwrap_or(u32::MAX);
    if !supports(&a.shape, &caps) {
        crate::bail!(Device, "webgpu: no attention kernel for head dims {} and {}", a.shape.e, a.shape.ev);
    }
    let key = key(&a.shape, wg_limit);
    let a_s = &a.shape;
    let mut meta = [0u32; 24];
    let rows = a_s.l.div_ceil(key.br as usize);
    put(&mut meta, 0, &[a_s.l, a_s.s, 0, a.heads, a.causal as usize])?;
    meta[5] = (a.scale as f32).to_bits();
    for (at, op) in [(7, &a.q), (11, &a.k), (15, &a.v)] {
        if op.offset % 4 != 0 || op.strides.iter().any(|s| s % 4 != 0) {
            crate::bail!(Device, "webgpu: attention operands must be vec4-aligned");
        }
        let s: Vec<usize> = std::iter::once(op.offset).chain(op.strides.iter().copied()).map(|v| v / 4).collect();
        put(&mut meta, at, &s)?;
    }
    let mut buffers = vec![a.out, a.lse, a.q.buf, a.k.buf, a.v.buf];
    if let Some(mk) = &a.mask {
        put(&mut meta, 19, &[mk.offset])?;
        put(&mut meta, 20, &mk.strides)?;
        buffers.push(mk.buf);
    }
    let groups = (u32::try_from(rows).unwrap_or(u32::MAX), a_s.batch as u32, 1);
    if groups.0 > MAX_GROUPS {
        crate::bail!(Shape, "webgpu: attention over {} queries exceeds the dispatch grid", a_s.l);
    }
    backend.dispatch(&Dispatch { program: &PROGRAM, variant: key.code()?, buffers: &buffers, uniforms: &meta, groups })
}
