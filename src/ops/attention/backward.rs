//! Attention's backward in two kernels (`attention_backward.wgsl`): one per 64 keys
//! writing `dK` and `dV`, one per 64 queries writing `dQ`, each recomputing the probabilities
//! from the forward's row log-sum-exps, so no `L × S` tensor is made (the recomputing route of
//! `autograd/attention.rs` holds three at once, and runs in pieces past its byte budget).
//! Without float atomics the two gradient owners cannot share one pass (FlashAttention-2 adds
//! `dQ` atomically): the scores and `dO Vᵀ` are computed in both, 7 products of `L·S·E` where
//! the products route has 5. Head dims 64 or 128 (`supports`).

use super::{AttentionBackward, AttentionShape};
use crate::backend::program::{put, Dispatch, Program, MAX_GROUPS};
use crate::backend::{Backend, Capabilities};
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::wgsl::fill;

const SOURCE: &str = include_str!("attention_backward.wgsl");

/// One of the two kernels for head dims `4·e4` (queries, keys) and `4·ev4` (values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AttentionBackwardKey {
    /// The keys' kernel (`dK`, `dV`) rather than the queries' (`dQ`).
    pub kv: bool,
    pub mask: bool,
    pub e4: u32,
    pub ev4: u32,
}

/// Whether the kernels take these shapes: float32, both head dims 64 or 128, 24 KiB of
/// workgroup memory.
pub fn supports(a: &AttentionShape, caps: &Capabilities) -> bool {
    let dims = |n: usize| n == 64 || n == 128;
    let wg_limit = caps.workgroup_storage_bytes;
    caps.fused_kernels
        && a.dtype == DType::Float32
        && dims(a.e)
        && dims(a.ev)
        && a.batch <= MAX_GROUPS as usize
        && wg_limit >= 24 * 1024
}

const LANES: [&str; 4] = ["x", "y", "z", "w"];

/// `acc{i}` (rows 4·ty + i, columns 4·tx..+4 of a 64×64 tile) += `a_rows · b_rowsᵀ` over `d4`
/// vec4 columns: row `lr` of each operand read at `a[arow + …]`, `b[brow + …]` (vec4 indices
/// of quad `lq`), staged 16 columns at a time, the next chunk loaded before this one's FMAs.
fn cols(a: &str, arow: &str, b: &str, brow: &str, d4: &str, acc: &str) -> String {
    let mut s = format!(
        "        {{\n            var av = {a}[{arow}];\n            var bv = {b}[{brow}];\n            for (var e0 = 0u; e0 < {d4}; e0 += 4u) {{\n                workgroupBarrier();\n"
    );
    for (c, lane) in LANES.iter().enumerate() {
        s += &format!("                st[(4u * lq + {c}u) * 16u + (lr >> 2u)][lr & 3u] = av.{lane};\n");
        s += &format!("                st[256u + (4u * lq + {c}u) * 16u + (lr >> 2u)][lr & 3u] = bv.{lane};\n");
    }
    s += &format!(
        "                workgroupBarrier();\n                if (e0 + 4u < {d4}) {{\n                    av = {a}[{arow} + e0 + 4u];\n                    bv = {b}[{brow} + e0 + 4u];\n                }}\n"
    );
    for e in 0..16 {
        s += &format!("                {{\n                    let x = st[{}u + ty];\n                    let y = st[{}u + tx];\n", e * 16, 256 + e * 16);
        for (i, lane) in LANES.iter().enumerate() {
            s += &format!("                    {acc}{i} = fma(vec4<f32>(x.{lane}), y, {acc}{i});\n");
        }
        s += "                }\n";
    }
    s + "            }\n        }\n"
}

/// `acc{i}_{jj}` (rows 4·ty + i, columns 4·tx + 64·jj..+4) += `ps`ᵀ-staged tile · 64 rows of
/// `buf` from row `row0` (rows past `limit` read as 0; row stride at meta word `stride`, base
/// `base`), 16 rows of `d4` vec4 staged at a time, the next 16 loaded before this one's FMAs.
fn rows(acc: &str, buf: &str, base: &str, row0: &str, stride: u32, limit: &str, d4: u32) -> String {
    let nj = d4 / 16;
    let load = |u: u32, at: &str| {
        format!(
            "{{\n                let i = t + {}u;\n                let r = {row0} + {at} + i / {d4}u;\n                w{u} = vec4<f32>(0.0);\n                if (r < {limit}) {{ w{u} = {buf}[{base} + r * m({stride}u) + i % {d4}u]; }}\n            }}\n",
            256 * u
        )
    };
    let mut s = String::from("        {\n");
    for u in 0..nj {
        s += &format!("            var w{u} = vec4<f32>(0.0);\n            {}", load(u, "0u"));
    }
    s += "            for (var cc0 = 0u; cc0 < 64u; cc0 += 16u) {\n                workgroupBarrier();\n";
    for u in 0..nj {
        s += &format!("                st[t + {}u] = w{u};\n", 256 * u);
    }
    s += "                workgroupBarrier();\n                if (cc0 + 16u < 64u) {\n";
    for u in 0..nj {
        s += &format!("                    {}", load(u, "cc0 + 16u"));
    }
    s += "                }\n";
    for cc in 0..16 {
        s += &format!("                {{\n                    let p4 = ps[(cc0 + {cc}u) * 16u + ty];\n");
        for jj in 0..nj {
            s += &format!("                    let y{jj} = st[{}u + tx];\n", cc * d4 + 16 * jj);
        }
        for (i, lane) in LANES.iter().enumerate() {
            for jj in 0..nj {
                s += &format!("                    {acc}{i}_{jj} = fma(vec4<f32>(p4.{lane}), y{jj}, {acc}{i}_{jj});\n");
            }
        }
        s += "                }\n";
    }
    s + "            }\n        }\n"
}

/// `p{i}` (rows 4·ty + i, columns 4·tx + j) written to `ps` transposed (column-major quads).
fn to_ps(p: &str) -> String {
    let mut s = String::new();
    for (j, lane) in LANES.iter().enumerate() {
        s += &format!(
            "        ps[(4u * tx + {j}u) * 16u + ty] = vec4<f32>({p}0.{lane}, {p}1.{lane}, {p}2.{lane}, {p}3.{lane});\n"
        );
    }
    s
}

fn zero(names: &[&str], indent: &str) -> String {
    let mut s = String::new();
    for n in names {
        for i in 0..4 {
            s += &format!("{indent}var {n}{i} = vec4<f32>(0.0);\n");
        }
    }
    s
}

fn accumulators(name: &str, nj: u32) -> String {
    let mut s = String::new();
    for i in 0..4 {
        for jj in 0..nj {
            s += &format!("    var {name}{i}_{jj} = vec4<f32>(0.0);\n");
        }
    }
    s
}

/// Stores `acc{i}_{jj}` (times `mul`) for rows `row0 + 4·ty + i` below `limit` at
/// `out[at + (b·limit + row)·d4 + …]`.
fn store(acc: &str, mul: &str, at: &str, row0: &str, limit: &str, d4: u32) -> String {
    let mut s = String::new();
    for i in 0..4 {
        s += &format!("    {{\n        let row = {row0} + 4u * ty + {i}u;\n        if (row < {limit}) {{\n");
        for jj in 0..d4 / 16 {
            s += &format!(
                "            out[{at} + (b * {limit} + row) * {d4}u + {}u + tx] = {acc}{i}_{jj}{mul};\n",
                16 * jj
            );
        }
        s += "        }\n    }\n";
    }
    s
}

/// The keys' kernel: a workgroup per 64 keys `c0..`, over the query blocks that see them.
fn kv_body(k: &AttentionBackwardKey) -> String {
    let mut s = String::from(
        "    let c0 = wg.x * 64u;\n    let krow = kb + min(c0 + lr, s_len - 1u) * m(14u) + lq;\n    let vrow = vb + min(c0 + lr, s_len - 1u) * m(18u) + lq;\n",
    );
    s += &accumulators("dk", k.e4 / 16);
    s += &accumulators("dv", k.ev4 / 16);
    s += "    var r_beg = 0u;\n    if (causal) { r_beg = c0; }\n    for (var r0 = r_beg; r0 < l; r0 += 64u) {\n";
    s += "        let qrow = qb + min(r0 + lr, l - 1u) * m(10u) + lq;\n        let grow = gb + min(r0 + lr, l - 1u) * m(27u) + lq;\n";
    s += &zero(&["sc", "dp"], "        ");
    s += &cols("k", "krow", "q", "qrow", "E4", "sc");
    s += "        let qc = r0 + 4u * tx;\n        let qi = vec4<u32>(qc, qc + 1u, qc + 2u, qc + 3u);\n        let ls = rows4(28u, b, qi);\n        let dd = rows4(29u, b, qi);\n        let badq = qi >= vec4<u32>(l);\n";
    for i in 0..4 {
        let masked = if k.mask {
            format!(" + vec4<f32>(mk(qi.x, key{i}), mk(qi.y, key{i}), mk(qi.z, key{i}), mk(qi.w, key{i}))")
        } else {
            String::new()
        };
        s += &format!(
            "        let key{i} = c0 + 4u * ty + {i}u;\n        let p{i} = select(exp(sc{i} * scale{masked} - ls), vec4<f32>(0.0), badq | vec4<bool>(key{i} >= s_len) | (vec4<bool>(causal) & (vec4<u32>(key{i}) > qi)));\n"
        );
    }
    s += &to_ps("p");
    s += &rows("dv", "g", "gb", "r0", 27, "l", k.ev4);
    s += &cols("v", "vrow", "g", "grow", "EV4", "dp");
    for i in 0..4 {
        s += &format!("        let ds{i} = p{i} * (dp{i} - dd);\n");
    }
    s += &to_ps("ds");
    s += &rows("dk", "q", "qb", "r0", 10, "l", k.e4);
    s += "    }\n";
    s += &store("dk", " * scale", "0u", "c0", "s_len", k.e4);
    s += &store("dv", "", "m(30u)", "c0", "s_len", k.ev4);
    s
}

/// The queries' kernel: a workgroup per 64 queries `r0..`, over the key blocks they see.
fn q_body(k: &AttentionBackwardKey) -> String {
    let mut s = String::from(
        "    let r0 = wg.x * 64u;\n    let qrow = qb + min(r0 + lr, l - 1u) * m(10u) + lq;\n    let grow = gb + min(r0 + lr, l - 1u) * m(27u) + lq;\n    let rb = r0 + 4u * ty;\n    let ri = vec4<u32>(rb, rb + 1u, rb + 2u, rb + 3u);\n    let ls = rows4(28u, b, ri);\n    let dd = rows4(29u, b, ri);\n",
    );
    s += &accumulators("dq", k.e4 / 16);
    s += "    var keys = s_len;\n    if (causal) { keys = min(s_len, r0 + 64u); }\n    for (var c0 = 0u; c0 < keys; c0 += 64u) {\n";
    s += "        let krow = kb + min(c0 + lr, s_len - 1u) * m(14u) + lq;\n        let vrow = vb + min(c0 + lr, s_len - 1u) * m(18u) + lq;\n";
    s += &zero(&["sc", "dp"], "        ");
    s += &cols("q", "qrow", "k", "krow", "E4", "sc");
    s += "        let kc = c0 + 4u * tx;\n        let kci = vec4<u32>(kc, kc + 1u, kc + 2u, kc + 3u);\n        let badk = kci >= vec4<u32>(s_len);\n";
    for (i, lane) in LANES.iter().enumerate() {
        let masked = if k.mask {
            format!(
                " + vec4<f32>(mk(ri.{lane}, kci.x), mk(ri.{lane}, kci.y), mk(ri.{lane}, kci.z), mk(ri.{lane}, kci.w))"
            )
        } else {
            String::new()
        };
        s += &format!(
            "        let p{i} = select(exp(sc{i} * scale{masked} - vec4<f32>(ls.{lane})), vec4<f32>(0.0), badk | vec4<bool>(ri.{lane} >= l) | (vec4<bool>(causal) & (kci > vec4<u32>(ri.{lane}))));\n"
        );
    }
    s += &cols("g", "grow", "v", "vrow", "EV4", "dp");
    for (i, lane) in LANES.iter().enumerate() {
        s += &format!("        let ds{i} = p{i} * (dp{i} - vec4<f32>(dd.{lane}));\n");
    }
    s += &to_ps("ds");
    s += &rows("dq", "k", "kb", "c0", 14, "s_len", k.e4);
    s += "    }\n";
    s += &store("dq", " * scale", "0u", "r0", "l", k.e4);
    s
}

/// The mask's binding and its read at (query row, key), clamped.
const MASK_READ: &str = "@group(0) @binding(8) var<storage, read> mask: array<f32>;
fn mk(row: u32, c: u32) -> f32 {
    return mask[mbase + min(row, m(0u) - 1u) * m(22u) + min(c, m(1u) - 1u) * m(23u)];
}
var<private> mbase: u32;
";
const MASK_INIT: &str = "    mbase = m(19u) + (b / m(3u)) * m(20u) + (b % m(3u)) * m(21u);\n";

pub fn source(k: &AttentionBackwardKey) -> String {
    let body = if k.kv { kv_body(k) } else { q_body(k) };
    let (e4, ev4) = (k.e4.to_string(), k.ev4.to_string());
    fill(
        SOURCE,
        &[
            ("E4", &e4),
            ("EV4", &ev4),
            ("BODY", &body),
            ("MASK", if k.mask { MASK_READ } else { "" }),
            ("MASK_INIT", if k.mask { MASK_INIT } else { "" }),
        ],
    )
}

pub fn label(k: &AttentionBackwardKey) -> String {
    format!(
        "webtorch:attention_backward_{}:e{}v{}{}:float32",
        if k.kv { "kv" } else { "q" },
        4 * k.e4,
        4 * k.ev4,
        if k.mask { "m" } else { "" }
    )
}

/// The two kernels: each writes its gradient (`dkv` or `dq`); reads `q`, `k`, `v`, `g`, `lse`,
/// `dot` (and the mask). The variant is the key (`AttentionBackwardKey::code`).
pub static PROGRAM: Program = Program {
    name: "attention_backward",
    wgsl: |variant| source(&AttentionBackwardKey::decode(variant)),
    label: |variant| label(&AttentionBackwardKey::decode(variant)),
    writes: 1,
    writes_whole_output: true,
    cpu: super::no_cpu_twin,
};

impl AttentionBackwardKey {
    /// The key as a program variant: kv, mask, `e4` and `ev4` (8 bits each).
    fn code(&self) -> u32 {
        self.kv as u32 | (self.mask as u32) << 1 | self.e4 << 2 | self.ev4 << 10
    }

    fn decode(v: u32) -> AttentionBackwardKey {
        AttentionBackwardKey { kv: v & 1 != 0, mask: v & 2 != 0, e4: v >> 2 & 255, ev4: v >> 10 & 255 }
    }
}

/// Runs attention's backward in its two kernels (a shape `supports` took).
pub fn run(backend: &dyn Backend, a: &AttentionBackward) -> Result<()> {
    let s = &a.shape;
    if !supports(s, &backend.capabilities()) {
        crate::bail!(Device, "webgpu: no attention backward kernel for head dims {} and {}", s.e, s.ev);
    }
    let mut meta = [0u32; 32];
    put(&mut meta, 0, &[s.l, s.s, 0, a.heads, a.causal as usize])?;
    meta[5] = (a.scale as f32).to_bits();
    for (at, op) in [(7, &a.q), (11, &a.k), (15, &a.v), (24, &a.g)] {
        if op.offset % 4 != 0 || op.strides.iter().any(|s| s % 4 != 0) {
            crate::bail!(Device, "webgpu: attention operands must be vec4-aligned");
        }
        let st: Vec<usize> = std::iter::once(op.offset).chain(op.strides.iter().copied()).map(|v| v / 4).collect();
        put(&mut meta, at, &st)?;
    }
    put(&mut meta, 28, &[a.lse.offset, a.dot.offset, s.batch * s.s * s.e / 4])?;
    let mut inputs = vec![a.q.buf, a.k.buf, a.v.buf, a.g.buf, a.lse.buf, a.dot.buf];
    if let Some(mk) = &a.mask {
        put(&mut meta, 19, &[mk.offset])?;
        put(&mut meta, 20, &mk.strides)?;
        inputs.push(mk.buf);
    }
    let (e4, ev4) = ((s.e / 4) as u32, (s.ev / 4) as u32);
    for (kv, out, n) in [(true, a.dkv, s.s), (false, a.dq, s.l)] {
        let blocks = u32::try_from(n.div_ceil(64)).unwrap_or(u32::MAX);
        if blocks > MAX_GROUPS {
            crate::bail!(Shape, "webgpu: attention backward over {n} rows exceeds the dispatch grid");
        }
        let key = AttentionBackwardKey { kv, mask: a.mask.is_some(), e4, ev4 };
        let mut buffers = vec![out];
        buffers.extend_from_slice(&inputs);
        backend.dispatch(&Dispatch {
            program: &PROGRAM,
            variant: key.code(),
            buffers: &buffers,
            uniforms: &meta,
            groups: (blocks, s.batch as u32, 1),
        })?;
    }
    Ok(())
}
