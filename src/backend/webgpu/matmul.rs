//! Which matmul kernel runs, and the generated parts of the register-tiled one.
//!
//! float32 operands that can be read as vec4 (the contiguous dim of each operand is K or M for
//! `a`, N or K for `b`; offsets, the other strides and that dim's size divisible by 4; N divisible
//! by 4) run `shaders/matmul_tiled.wgsl` with a tile chosen by shape class; everything else (small
//! or odd shapes, integer dtypes, views it cannot read as vec4) runs the 16×16 kernel of
//! `shaders/matmul.wgsl`. `bench/KERNELS.md` records each variant's prediction and measurement.

use crate::backend::tuning;
use crate::backend::Matmul;
use crate::dtype::DType;

/// A tiled variant: BM×BN outputs per workgroup of 256 threads (so TM = BM/16 and TN = BN/16
/// outputs per thread), K staged BK at a time. Workgroup memory: (BM + BN) · BK · 4 bytes.
/// `pf` (prefetch): each thread loads the next K step's global values into registers while it
/// computes the current one, and stores them to workgroup memory after the step's barrier.
/// `db` (double buffer, with prefetch): two workgroup tiles; step k computes from one while the
/// next step's values are stored into the other, one barrier per K step instead of two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tile {
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    pub pf: bool,
    pub db: bool,
    /// `cm`: a warp stages 32 consecutive rows of `a` (columns of a transposed `b`) at one K
    /// offset instead of 8 rows × 4 offsets: the transposing stores hit 32 banks instead of 8,
    /// each global load reads 16 bytes of a row.
    pub cm: bool,
}

impl Tile {
    /// Workgroup memory the tile stages (bytes).
    pub fn wg_bytes(&self) -> u32 {
        (self.bm + self.bn) * self.bk * 4 * if self.db { 2 } else { 1 }
    }
}

/// 4×4 per thread, 8 KiB of workgroup memory: more workgroups for mid-sized products.
pub const T64: Tile = Tile { bm: 64, bn: 64, bk: 16, pf: false, db: false, cm: false };
/// 8×8 per thread, 8 KiB: the most reuse per load for large products.
pub const T128: Tile = Tile { bm: 128, bn: 128, bk: 8, pf: false, db: false, cm: false };
/// 8×8 per thread with a deeper K step (16 KiB, the WebGPU default limit): half the barriers.
pub const T128K16: Tile = Tile { bm: 128, bn: 128, bk: 16, pf: false, db: false, cm: false };
/// `T128K16` with the next K step's global loads in flight during the current step's FMAs.
pub const T128K16P: Tile = Tile { bm: 128, bn: 128, bk: 16, pf: true, db: false, cm: false };
/// 8×8 per thread, a 32-deep K step: 32 KiB of workgroup memory (requested from the adapter;
/// where it has less, `T128K16` runs instead).
pub const T128K32: Tile = Tile { bm: 128, bn: 128, bk: 32, pf: false, db: false, cm: false };
/// `T128K32` with prefetch.
pub const T128K32P: Tile = Tile { bm: 128, bn: 128, bk: 32, pf: true, db: false, cm: false };
/// 8×4 per thread: between the two for shapes that leave 128×128 tiles short of work.
pub const T128X64: Tile = Tile { bm: 128, bn: 64, bk: 16, pf: false, db: false, cm: false };
/// `T128K16` double-buffered (32 KiB; `T128K16P` where the adapter has less).
pub const T128K16D: Tile = Tile { bm: 128, bn: 128, bk: 16, pf: true, db: true, cm: false };
/// 8×8 per thread, an 8-deep K step, double-buffered (16 KiB).
pub const T128K8D: Tile = Tile { bm: 128, bn: 128, bk: 8, pf: true, db: true, cm: false };
/// 8×8 per thread, an 8-deep K step, prefetch.
pub const T128K8P: Tile = Tile { bm: 128, bn: 128, bk: 8, pf: true, db: false, cm: false };
/// `T128X64` double-buffered (24 KiB).
pub const T128X64D: Tile = Tile { bm: 128, bn: 64, bk: 16, pf: true, db: true, cm: false };
/// `T128K16P` with `cm` staging.
pub const T128K16PC: Tile = Tile { bm: 128, bn: 128, bk: 16, pf: true, db: false, cm: true };
/// `T128X64P` with `cm` staging.
pub const T128X64PC: Tile = Tile { bm: 128, bn: 64, bk: 16, pf: true, db: false, cm: true };
/// `T64` with prefetch.
pub const T64P: Tile = Tile { bm: 64, bn: 64, bk: 16, pf: true, db: false, cm: false };
/// `T128X64` with prefetch.
pub const T128X64P: Tile = Tile { bm: 128, bn: 64, bk: 16, pf: true, db: false, cm: false };
/// 4×8 per thread, prefetch: conv2d's products, whose M (a group's output channels) is often 64.
pub const T64X128P: Tile = Tile { bm: 64, bn: 128, bk: 16, pf: true, db: false, cm: false };

/// The kernel key of a tiled matmul: the tile, and how each operand is read (`a_t`: `a` is
/// contiguous along M, a transposed view; `b_t`: `b` is contiguous along K, as in `x @ w.T`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TiledKey {
    pub tile: Tile,
    pub a_t: bool,
    pub b_t: bool,
}

/// A forced choice (benchmarks, tests): `None` lets the shape class decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Simple,
    Tiled(Tile),
}

/// The autotuner's shape class of a product: M, N, K and the batch count, each rounded up to a
/// power of two (`m512n64k256b1`). Products of one class share a tuned variant.
pub fn shape_class(m: usize, n: usize, k: usize, batches: usize) -> String {
    let p = |x: usize| x.max(1).next_power_of_two();
    format!("m{}n{}k{}b{}", p(m), p(n), p(k), p(batches))
}

/// Records the variant to run for a shape class (`"auto"` forgets the class); false for an
/// unknown variant name or a class `shape_class` cannot have made.
pub fn set_tuned(class: &str, variant: &str) -> bool {
    if !valid_class(class) {
        return false;
    }
    let Some((_, v)) = VARIANTS.iter().find(|(n, _)| *n == variant) else { return false };
    tuning::tune(|t| match v {
        Some(v) => t.matmul_tuned.insert(class.to_string(), *v),
        None => t.matmul_tuned.remove(class),
    });
    true
}

/// The tuned table as (class, variant name) pairs, sorted by class.
pub fn tuned() -> Vec<(String, String)> {
    let name = |v: &Variant| VARIANTS.iter().find(|(_, x)| *x == Some(*v)).map_or("auto", |(n, _)| *n).to_string();
    let mut out: Vec<_> = tuning::tuning(|t| t.matmul_tuned.iter().map(|(c, v)| (c.clone(), name(v))).collect());
    out.sort();
    out
}

/// Forgets every tuned class.
pub fn clear_tuned() {
    tuning::tune(|t| t.matmul_tuned.clear());
}

fn valid_class(class: &str) -> bool {
    let mut rest = class;
    for tag in ["m", "n", "k", "b"] {
        let Some(r) = rest.strip_prefix(tag) else { return false };
        let digits = r.bytes().take_while(u8::is_ascii_digit).count();
        match r[..digits].parse::<usize>() {
            Ok(v) if v.is_power_of_two() => rest = &r[digits..],
            _ => return false,
        }
    }
    rest.is_empty()
}

fn tuned_for(m: usize, n: usize, k: usize, batches: usize) -> Option<Variant> {
    tuning::tuning(|t| {
        if t.matmul_tuned.is_empty() {
            return None;
        }
        t.matmul_tuned.get(&shape_class(m, n, k, batches)).copied()
    })
}

/// Names accepted by `set_variant` (and `WEBTORCH_MATMUL` natively).
pub const VARIANTS: &[(&str, Option<Variant>)] = &[
    ("auto", None),
    ("simple", Some(Variant::Simple)),
    ("t64", Some(Variant::Tiled(T64))),
    ("t128", Some(Variant::Tiled(T128))),
    ("t128k16", Some(Variant::Tiled(T128K16))),
    ("t128x64", Some(Variant::Tiled(T128X64))),
    ("t128k16p", Some(Variant::Tiled(T128K16P))),
    ("t128k32", Some(Variant::Tiled(T128K32))),
    ("t128k32p", Some(Variant::Tiled(T128K32P))),
    ("t128x64p", Some(Variant::Tiled(T128X64P))),
    ("t64p", Some(Variant::Tiled(T64P))),
    ("t128k16d", Some(Variant::Tiled(T128K16D))),
    ("t128k8d", Some(Variant::Tiled(T128K8D))),
    ("t128k8p", Some(Variant::Tiled(T128K8P))),
    ("t128x64d", Some(Variant::Tiled(T128X64D))),
    ("t128k16pc", Some(Variant::Tiled(T128K16PC))),
    ("t128x64pc", Some(Variant::Tiled(T128X64PC))),
    ("t64x128p", Some(Variant::Tiled(T64X128P))),
];

/// Forces a variant by name for every later matmul ("auto" restores the shape-class choice);
/// false for an unknown name. Operands the tiled kernel cannot read still fall back.
pub fn set_variant(name: &str) -> bool {
    match VARIANTS.iter().find(|(n, _)| *n == name) {
        Some((_, v)) => {
            tuning::tune(|t| t.matmul_variant = *v);
            true
        }
        None => false,
    }
}

/// The variant forced by `set_variant` (or `WEBTORCH_MATMUL`), if any.
pub fn forced_variant() -> Option<Variant> {
    forced()
}

fn forced() -> Option<Variant> {
    tuning::tuning(|t| t.matmul_variant)
}

/// The variant `WEBTORCH_MATMUL` names natively (the default of `Tuning::matmul_variant`).
pub(crate) fn env_variant() -> Option<Variant> {
    if cfg!(target_arch = "wasm32") {
        return None;
    }
    std::env::var("WEBTORCH_MATMUL")
        .ok()
        .and_then(|n| VARIANTS.iter().find(|(name, _)| *name == n).and_then(|(_, v)| *v))
}

/// The tiled kernel for this product, or `None` for the 16×16 one. `batch_strides` are the
/// coalesced batch strides of `a` and `b` (element units); `wg_limit` is the device's
/// workgroup-memory limit (bytes): a tile that needs more runs with a 16-deep K step.
pub fn choose(k: &Matmul, batches: usize, batch_strides: &[Vec<usize>], wg_limit: u32) -> Option<TiledKey> {
    let forced = forced();
    if k.dtype != DType::Float32 || forced == Some(Variant::Simple) || !k.n.is_multiple_of(4) {
        return None;
    }
    let nb = k.batch.len();
    let (ars, aks) = (k.a.strides[nb], k.a.strides[nb + 1]);
    let (bks, bcs) = (k.b.strides[nb], k.b.strides[nb + 1]);
    let d4 = |x: usize| x.is_multiple_of(4);
    if !d4(k.a.offset) || !d4(k.b.offset) || !batch_strides.iter().flatten().all(|&s| d4(s)) {
        return None;
    }
    let a_t = if aks == 1 && d4(ars) && d4(k.k) {
        false
    } else if ars == 1 && d4(aks) && d4(k.m) {
        true
    } else {
        return None;
    };
    let b_t = if bcs == 1 && d4(bks) {
        false
    } else if bks == 1 && d4(bcs) && d4(k.k) {
        true
    } else {
        return None;
    };
    // A forced variant first, then the autotuner's choice for the shape class, then the rule.
    let mut tile = match forced.or_else(|| tuned_for(k.m, k.n, k.k, batches)) {
        Some(Variant::Tiled(t)) => t,
        Some(Variant::Simple) => return None,
        None => {
            // Up to 256² outputs the 16×16 kernel is as fast (launch-bound); 128×128 tiles with
            // a 16-deep K step and the next step's loads in flight win once there are ≥ 256 of
            // them (N = 768 included); 128×64 tiles win below that (more workgroups to fill the
            // GPU). Batches count: attention's P·V (12 × 1024×64) is 786k outputs, not 65k.
            // Fewer than ~100 tiles of 128×64 leave most of a large GPU's SMs idle: there 64×64
            // tiles give twice the workgroups. Figures: bench/KERNELS.md ("v1 auto choice",
            // "Matmul choice for batched narrow products").
            if k.m * k.n * batches <= 256 * 256 || k.k < 16 {
                return None;
            }
            // With neither operand transposed, staging `a` (read along K) column-major (`cm`)
            // is faster at ≥ 256 tiles; with `b` transposed it is slower (bench/KERNELS.md,
            // "Matmul layouts in the block"). N ≤ 64 would leave half of every 128-wide tile
            // idle (conv2d's products: "Narrow products").
            let tiles = k.m.div_ceil(128) * k.n.div_ceil(128) * batches;
            if tiles >= 256 && k.n > 64 && !a_t && !b_t {
                T128K16PC
            } else if tiles >= 256 && k.n > 64 {
                T128K16P
            } else if k.m.div_ceil(128) * k.n.div_ceil(64) * batches < 100 {
                T64P
            } else {
                T128X64P
            }
        }
    };
    if tile.wg_bytes() > wg_limit {
        tile.db = false;
    }
    if tile.wg_bytes() > wg_limit {
        tile.bk = 16;
    }
    Some(TiledKey { tile, a_t, b_t })
}

/// Split-K: how many slices of K a plain 2-D float32 product is cut into, or `None`. Long-K
/// products with few output tiles (a weight gradient `xᵀ · dy` over 8,192 tokens: 3072×768
/// outputs are 144 tiles of 128×128, about one per SM of a large GPU) leave the GPU short of
/// work; each slice runs as one batch of a batched product into a scratch buffer, then a
/// reduction adds the slices. Forced variants (benchmarks, tests of a kernel) and epilogues
/// never split.
///
/// The factor is the smallest of 2…16 that makes ≥ 800 tiles of 128×128 (several per SM),
/// while each slice keeps ≥ 512 of K (figures: bench/KERNELS.md, "Split-K for long-K
/// products").
pub fn split_k(k: &Matmul) -> Option<usize> {
    if k.dtype != DType::Float32 || k.epilogue.is_some() || !k.batch.is_empty() || forced().is_some() {
        return None;
    }
    if let Some(s) = tuning::tuning(|t| t.split_k) {
        return (s > 1 && k.k.is_multiple_of(4 * s)).then_some(s);
    }
    if k.k < 4096 || k.m * k.n < 256 * 256 {
        return None;
    }
    let tiles = k.m.div_ceil(128) * k.n.div_ceil(128);
    if tiles >= 800 {
        return None;
    }
    let mut s = [2usize, 4, 8, 16].into_iter().find(|s| tiles * s >= 800).unwrap_or(16);
    while s > 1 && !(k.k.is_multiple_of(4 * s) && k.k / s >= 512) {
        s /= 2;
    }
    (s > 1).then_some(s)
}

/// Whether a product that reads `b` transposed (`x · wᵀ`: every `nn.Linear` forward) should
/// copy `b` to row-major first and run as a plain product. Staging a transposed `b` slows the
/// tiled kernel more than the copy costs, which moves only K·N values: a small part of the
/// product once M ≥ 2,048 rows (bench/KERNELS.md, "Matmul layouts in the block"). Forced
/// variants, batched and causal products never copy.
pub fn copies_b(k: &Matmul) -> bool {
    let d4 = |x: usize| x.is_multiple_of(4);
    k.dtype == DType::Float32
        && k.batch.is_empty()
        && k.tri == crate::backend::Tri::None
        && forced().is_none()
        && k.m >= 2048
        && k.m.div_ceil(128) * k.n.div_ceil(128) >= 256
        && d4(k.n)
        && d4(k.k)
        && k.a.strides[1] == 1
        && k.b.strides[0] == 1
        && k.b.strides[1] >= k.k
}

/// The dispatch grid of a tiled key.
pub fn groups(key: &TiledKey, m: usize, n: usize, batches: usize) -> (u32, u32, u32) {
    (n.div_ceil(key.tile.bn as usize) as u32, m.div_ceil(key.tile.bm as usize) as u32, batches as u32)
}

/// The holes of `shaders/matmul_tiled.wgsl`, unrolled: every register index is a constant.
/// With an epilogue, each lane of a stored vec4 goes through `epilogue(v, z, row, col)`.
pub fn holes(key: &TiledKey, epilogue: bool) -> Vec<(&'static str, String)> {
    holes_with(key, epilogue, None)
}

/// Fetches thread-local load `l` (index `i` among the workgroup's loads) of the `b` tile at K
/// offset `kb` into register `pb{l}`: a convolution's gather (`conv.rs`) in place of a matrix read.
pub type FetchB<'a> = &'a dyn Fn(u32, &str, &str) -> String;

/// The tile row (column of a transposed `b`) and K quad that load index `i` stages when its
/// operand is read along K.
pub fn staged(key: &TiledKey, i: &str) -> (String, String) {
    let q = key.tile.bk / 4;
    if key.tile.cm {
        (format!("(({i}) % 32u) + 32u * (({i}) / {}u)", 32 * q), format!("(({i}) / 32u) % {q}u"))
    } else {
        (format!("({i}) / {q}u"), format!("({i}) % {q}u"))
    }
}

/// `holes`, with the `b` tile's fetch replaced by `fetch_b` where given (`shaders/conv2d.wgsl`,
/// whose `b` tile is gathered from a convolution's input; its staging follows `key.b_t`).
pub fn holes_with(key: &TiledKey, epilogue: bool, fetch_b: Option<FetchB>) -> Vec<(&'static str, String)> {
    let Tile { bm, bn, bk, .. } = key.tile;
    let (mv, nv) = (bm / 64, bn / 64); // vec4 rows and columns per thread
    let acc = |i: u32, r: u32, j: u32| format!("acc_{i}_{r}_{j}");
    let mut decl = String::new();
    for i in 0..mv {
        for r in 0..4 {
            for j in 0..nv {
                decl += &format!("    var {} = vec4<f32>(0.0);\n", acc(i, r, j));
            }
        }
    }
    decl +=
        "    let ars4 = ars >> 2u;\n    let aks4 = aks >> 2u;\n    let bks4 = bks >> 2u;\n    let bcs4 = bcs >> 2u;\n";
    // Each thread moves (BM·BK/4)/256 vec4 of `a` and (BN·BK/4)/256 of `b` per K step: `fetch`
    // reads them from global memory at K step `kb` into registers `pa{l}` / `pb{l}`, `stage`
    // writes those registers into the workgroup tiles.
    let lanes = ["x", "y", "z", "w"];
    let (la, lb) = (bm * bk / 1024, bn * bk / 1024);
    let rk = |i: &str| staged(key, i);
    let fetch = |kb: &str| {
        let mut f = String::new();
        for l in 0..la {
            let i = format!("t + {}u", 256 * l);
            f += &if key.a_t {
                format!(
                    "        {{\n            let kr = ({i}) / {q}u;\n            let mq = ({i}) % {q}u;\n            pa{l} = vec4<f32>(0.0);\n            if ({kb} + kr < K && m0 + 4u * mq < M) {{ pa{l} = a[oa4 + ({kb} + kr) * aks4 + (m0 >> 2u) + mq]; }}\n        }}\n",
                    q = bm / 4
                )
            } else {
                format!(
                    "        {{\n            let row = {r};\n            let kq = {k};\n            pa{l} = vec4<f32>(0.0);\n            if (m0 + row < M && {kb} + 4u * kq < K) {{ pa{l} = a[oa4 + (m0 + row) * ars4 + ({kb} >> 2u) + kq]; }}\n        }}\n",
                    r = rk(&i).0,
                    k = rk(&i).1
                )
            };
        }
        for l in 0..lb {
            let i = format!("t + {}u", 256 * l);
            f += &if let Some(fetch_b) = fetch_b {
                fetch_b(l, &i, kb)
            } else if key.b_t {
                format!(
                    "        {{\n            let col = {r};\n            let kq = {k};\n            pb{l} = vec4<f32>(0.0);\n            if (n0 + col < N && {kb} + 4u * kq < K) {{ pb{l} = b[ob4 + (n0 + col) * bcs4 + ({kb} >> 2u) + kq]; }}\n        }}\n",
                    r = rk(&i).0,
                    k = rk(&i).1
                )
            } else {
                format!(
                    "        {{\n            let kr = ({i}) / {q}u;\n            let nq = ({i}) % {q}u;\n            pb{l} = vec4<f32>(0.0);\n            if ({kb} + kr < K && n0 + 4u * nq < N) {{ pb{l} = b[ob4 + ({kb} + kr) * bks4 + (n0 >> 2u) + nq]; }}\n        }}\n",
                    q = bn / 4
                )
            };
        }
        f
    };
    // With a double buffer, `stage` writes the tile that the current step does not read.
    let (db, alen, blen) = (key.tile.db, bk * bm / 4, bk * bn / 4);
    let (wa, wb) = if db { ("wa + ", "wb + ") } else { ("", "") };
    let mut stage = String::new();
    if db {
        stage += &format!("        let wa = (1u - cur) * {alen}u;\n        let wb = (1u - cur) * {blen}u;\n");
    }
    for l in 0..la {
        let i = format!("t + {}u", 256 * l);
        if key.a_t {
            stage += &format!("        As[{wa}{i}] = pa{l};\n");
        } else {
            stage += &format!("        {{\n            let row = {};\n            let kq = {};\n", rk(&i).0, rk(&i).1);
            for (c, lane) in lanes.iter().enumerate() {
                stage += &format!(
                    "            As[{wa}(4u * kq + {c}u) * {}u + (row >> 2u)][row & 3u] = pa{l}.{lane};\n",
                    bm / 4
                );
            }
            stage += "        }\n";
        }
    }
    for l in 0..lb {
        let i = format!("t + {}u", 256 * l);
        if key.b_t {
            stage += &format!("        {{\n            let col = {};\n            let kq = {};\n", rk(&i).0, rk(&i).1);
            for (c, lane) in lanes.iter().enumerate() {
                stage += &format!(
                    "            Bs[{wb}(4u * kq + {c}u) * {}u + (col >> 2u)][col & 3u] = pb{l}.{lane};\n",
                    bn / 4
                );
            }
            stage += "        }\n";
        } else {
            stage += &format!("        Bs[{wb}{i}] = pb{l};\n");
        }
    }
    for l in 0..la {
        decl += &format!("    var pa{l} = vec4<f32>(0.0);\n");
    }
    for l in 0..lb {
        decl += &format!("    var pb{l} = vec4<f32>(0.0);\n");
    }
    let (ra, rb) = if db { ("ra + ", "rb + ") } else { ("", "") };
    let mut fma = String::new();
    if db {
        fma += &format!("        let ra = cur * {alen}u;\n        let rb = cur * {blen}u;\n");
    }
    for kk in 0..bk {
        fma += "        {\n";
        for i in 0..mv {
            fma += &format!("            let a{i} = As[{ra}{}u + ty + {}u];\n", kk * bm / 4, 16 * i);
        }
        for j in 0..nv {
            fma += &format!("            let b{j} = Bs[{rb}{}u + tx + {}u];\n", kk * bn / 4, 16 * j);
        }
        for i in 0..mv {
            for (r, lane) in lanes.iter().enumerate() {
                for j in 0..nv {
                    let x = acc(i, r as u32, j);
                    fma += &format!("            {x} = fma(vec4<f32>(a{i}.{lane}), b{j}, {x});\n");
                }
            }
        }
        fma += "        }\n";
    }
    // The K loop's body (and what precedes the loop).
    const BAR: &str = "        workgroupBarrier();\n";
    let next = format!("        let kn = k0 + BK;\n{}", fetch("kn"));
    let (pre, step) = if db {
        // Tile 0 is staged before the loop (the stage writes tile 1 - cur).
        (
            format!("    var cur = 1u;\n{}{stage}{BAR}    cur = 0u;\n", fetch("kbeg")),
            format!("{next}{fma}{stage}{BAR}        cur = 1u - cur;\n"),
        )
    } else if key.tile.pf {
        (fetch("kbeg"), format!("{stage}{BAR}{next}{fma}{BAR}"))
    } else {
        (String::new(), format!("{}{stage}{BAR}{fma}{BAR}", fetch("k0")))
    };
    let mut store = String::new();
    for i in 0..mv {
        for r in 0..4 {
            store +=
                &format!("    {{\n        let row = m0 + 4u * (ty + {}u) + {r}u;\n        if (row < M) {{\n", 16 * i);
            for j in 0..nv {
                let x = acc(i, r, j);
                let value = if epilogue {
                    format!(
                        "vec4<f32>(epilogue({x}.x, wg.z, row, col), epilogue({x}.y, wg.z, row, col + 1u), epilogue({x}.z, wg.z, row, col + 2u), epilogue({x}.w, wg.z, row, col + 3u))"
                    )
                } else {
                    x
                };
                store += &format!(
                    "            {{\n                let col = n0 + 4u * (tx + {c}u);\n                if (col < N) {{ out[obase + row * (N >> 2u) + tx + {c}u] = {value}; }}\n            }}\n",
                    c = 16 * j
                );
            }
            store += "        }\n    }\n";
        }
    }
    vec![
        ("BM", bm.to_string()),
        ("BN", bn.to_string()),
        ("BK", bk.to_string()),
        ("AS_LEN", (alen * if db { 2 } else { 1 }).to_string()),
        ("BS_LEN", (blen * if db { 2 } else { 1 }).to_string()),
        ("ACC", decl),
        ("PRE", pre),
        ("STEP", step),
        ("STORE", store),
    ]
}

/// The kernel label's suffix, e.g. `t128k8` plus `:at`/`:bt` for transposed reads.
pub fn label(key: &TiledKey) -> String {
    let Tile { bm, bn, bk, pf, db, cm } = key.tile;
    let mut s = if bm == bn { format!("t{bm}k{bk}") } else { format!("t{bm}x{bn}k{bk}") };
    if db {
        s += "d";
    } else if pf {
        s += "p";
    }
    if cm {
        s += "c";
    }
    if key.a_t {
        s += ":at";
    }
    if key.b_t {
        s += ":bt";
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuned_table_by_shape_class() {
        assert_eq!(shape_class(500, 64, 200, 1), "m512n64k256b1");
        assert_eq!(shape_class(0, 1, 3, 12), "m1n1k4b16");
        clear_tuned();
        assert!(set_tuned("m512n64k256b1", "t64"));
        assert!(set_tuned("m256n256k256b1", "simple"));
        assert!(!set_tuned("m512n64k256b1", "t999"), "unknown variant");
        assert!(!set_tuned("m500n64k256b1", "t64"), "not a power of two");
        assert!(!set_tuned("m512n64k256", "t64"), "no batch");
        assert!(!set_tuned("m512n64k256b1x", "t64"), "trailing text");
        assert_eq!(
            tuned(),
            vec![
                ("m256n256k256b1".to_string(), "simple".to_string()),
                ("m512n64k256b1".to_string(), "t64".to_string())
            ]
        );
        assert_eq!(tuned_for(300, 40, 129, 1), Some(Variant::Tiled(T64)));
        assert!(set_tuned("m512n64k256b1", "auto"), "auto forgets the class");
        assert_eq!(tuned_for(300, 40, 129, 1), None);
        clear_tuned();
        assert!(tuned().is_empty());
    }
}
