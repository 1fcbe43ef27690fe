//! Row kernels for contiguous rows (v2, `bench/KERNELS.md`): softmax, log_softmax, layer_norm and
//! rms_norm with the row held in registers, and a lean sum/mean over contiguous runs.
//!
//! A row is read by a segment of `T` invocations (a power of two, 1…256) and a workgroup holds
//! `R = max(1, 64 / T)` rows, so narrow rows share a workgroup and a row of at most 8 values per
//! invocation needs no second read. Loads are `vec4<f32>` when the row length, the offsets and
//! the outer strides are multiples of 4. Statistics are segment trees in workgroup memory:
//! `log2(T)` barriers each, none for `T = 1` (which also keeps SwiftShader, where barriers are
//! expensive, fast on short rows). Views whose rows are not contiguous, rows longer than
//! `8 · 4 · 256` values, and other dtypes keep the general kernels (`shaders/rowwise.wgsl`,
//! `shaders/reduce.wgsl`).

use super::codegen::KernelKey;
use crate::backend::tuning;
use crate::backend::{Reduce, ReduceOp, RowOp, Rowwise};
use crate::dtype::{Compute, DType};

/// Values per invocation held in registers at most.
pub(crate) const MAX_PER_THREAD: usize = 8;

/// Sets the vectors per invocation that row plans aim at (1…8), for benchmarks comparing plans;
/// false (and no change) outside that range.
pub fn set_row_vectors(n: usize) -> bool {
    let ok = (1..=MAX_PER_THREAD).contains(&n);
    if ok {
        tuning::tune(|t| t.row_vectors = n);
    }
    ok
}

/// A row kernel's shape: invocations per row, vectors per invocation, vector width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RowPlan {
    pub threads: u32,
    pub per_thread: u32,
    pub vec4: bool,
}

impl RowPlan {
    /// Rows per workgroup.
    pub fn rows(&self) -> u32 {
        (64 / self.threads).max(1)
    }

    fn width(&self) -> u32 {
        if self.vec4 {
            4
        } else {
            1
        }
    }
}

/// Whether the elements of `shape` with these strides are one dense run (size-1 dims ignored).
fn dense(shape: &[usize], strides: &[usize]) -> bool {
    let mut want = 1;
    for (&s, &st) in shape.iter().zip(strides).rev() {
        if s != 1 {
            if st != want {
                return false;
            }
            want *= s;
        }
    }
    true
}

/// Whether every stride of a non-trivial dim is a multiple of 4.
fn strides_by4(shape: &[usize], strides: &[usize]) -> bool {
    shape.iter().zip(strides).all(|(&s, &st)| s == 1 || st.is_multiple_of(4))
}

/// Segment size for rows of `n` vectors: about `Tuning::row_vectors` vectors per invocation.
fn threads_for(nv: usize) -> u32 {
    nv.div_ceil(tuning::tuning(|t| t.row_vectors)).next_power_of_two().clamp(1, 256) as u32
}

/// The plan for a row-wise kernel, or `None` for the general kernel.
pub fn rowwise_plan(k: &Rowwise) -> Option<RowPlan> {
    let no = k.outer.len();
    let n: usize = k.inner.iter().product();
    if n == 0 || !dense(&k.inner, &k.input.strides[no..]) || !dense(&k.inner, &k.out_strides[no..]) {
        return None;
    }
    let offsets_by4 = k.input.offset.is_multiple_of(4)
        && k.grad.as_ref().is_none_or(|g| g.offset.is_multiple_of(4))
        && k.weight.as_ref().is_none_or(|w| w.offset.is_multiple_of(4))
        && k.bias.as_ref().is_none_or(|b| b.offset.is_multiple_of(4));
    let vec4 = n.is_multiple_of(4)
        && offsets_by4
        && strides_by4(&k.outer, &k.input.strides[..no])
        && strides_by4(&k.outer, &k.out_strides[..no]);
    let nv = if vec4 { n / 4 } else { n };
    let threads = threads_for(nv);
    let per_thread = nv.div_ceil(threads as usize);
    (per_thread <= MAX_PER_THREAD).then_some(RowPlan { threads, per_thread: per_thread as u32, vec4 })
}

/// The plan for a float32 sum/mean over one contiguous run per output, or `None`.
///
/// Invocation `t` of 256 adds elements `t, t + 256, …` and a tree merges the 256, the order of
/// `shaders/reduce.wgsl`, so a reduction whose elementwise prologue fused (which runs there)
/// gives bit-for-bit the result of the unfused one; this kernel only drops that kernel's
/// per-element index arithmetic and accumulator bookkeeping. Short rows with many outputs keep
/// the general per-output loop (`codegen::rows_kernel`).
pub fn reduce_plan(k: &Reduce) -> Option<RowPlan> {
    let no = k.outer.len();
    let n: usize = k.inner.iter().product();
    let plain = matches!(k.op, ReduceOp::Sum | ReduceOp::Mean)
        && k.prologue.is_none()
        && k.compute == Compute::F32
        && k.input.dtype == DType::Float32
        && k.out_dtype == DType::Float32
        && !super::codegen::rows_kernel(k);
    (plain && n > 0 && dense(&k.inner, &k.input.strides[no..])).then_some(RowPlan {
        threads: 256,
        per_thread: 0,
        vec4: false,
    })
}

/// Label suffix naming the plan (for traces and the tests that check which kernel ran).
pub fn plan_label(p: &RowPlan) -> String {
    format!("rows{}x{}{}", p.threads, p.per_thread, if p.vec4 { "v4" } else { "" })
}

/// Shared helpers: the vector type, horizontal sum/max, NaN-propagating max, segment trees.
fn prelude(p: &RowPlan, bindings: &str) -> String {
    let (vt, hsum, hmax, vexp) = if p.vec4 {
        (
            "vec4<f32>",
            "v.x + v.y + v.z + v.w",
            "mx2(mx2(v.x, v.y), mx2(v.z, v.w))",
            "vec4<f32>(exp_f32(v.x), exp_f32(v.y), exp_f32(v.z), exp_f32(v.w))",
        )
    } else {
        ("f32", "v", "v", "exp_f32(v)")
    };
    let wg = p.threads * p.rows();
    let seg = |name: &str, comb: &str| {
        if p.threads == 1 {
            return format!("fn {name}(v: f32, lid: u32) -> f32 {{ return v; }}\n");
        }
        format!(
            "fn {name}(v: f32, lid: u32) -> f32 {{
    red[lid] = v;
    workgroupBarrier();
    let t = lid % T;
    for (var s = T / 2u; s > 0u; s >>= 1u) {{
        if (t < s) {{ red[lid] = {comb}; }}
        workgroupBarrier();
    }}
    let r = red[lid - t];
    workgroupBarrier();
    return r;
}}
"
        )
    };
    format!(
        "alias VT = {vt};
const T: u32 = {t}u;
const R: u32 = {r}u;
const W: u32 = {w}u;
@group(0) @binding(1) var<storage, read_write> out: array<{out}>;
@group(0) @binding(2) var<storage, read> inp: array<VT>;
{bindings}
var<workgroup> red: array<f32, {wg}>;

// Max with NaN propagating (WGSL's max leaves NaN unspecified).
fn mx2(a: f32, b: f32) -> f32 {{
    if (isnan_f32(a)) {{ return a; }}
    if (isnan_f32(b) || b > a) {{ return b; }}
    return a;
}}
fn hsum(v: VT) -> f32 {{ return {hsum}; }}
fn hmax(v: VT) -> f32 {{ return {hmax}; }}
fn vexp(v: VT) -> VT {{ return {vexp}; }}
{sum}{max}",
        t = p.threads,
        r = p.rows(),
        w = p.width(),
        out = if bindings.contains("/*reduce*/") { "f32" } else { "VT" },
        sum = seg("seg_sum", "red[lid] + red[lid + s]"),
        max = seg("seg_max", "mx2(red[lid], red[lid + s])"),
    )
}

/// The entry point's head: this invocation's row (clamped, `ok` when real) and its element
/// offsets `bi`/`bo` (outer words as in `shaders/rowwise.wgsl`; `out_words` 0 for a reduction).
fn head(p: &RowPlan, out_words: Option<u32>) -> String {
    let (bo_init, bo_acc) = match out_words {
        Some(w) => ("    var bo = 0u;\n".to_string(), format!("        bo += c * m({}u + d);\n", w - 1)),
        None => (String::new(), String::new()),
    };
    format!(
        "@compute @workgroup_size({wg})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
    let t = lid % T;
    let row_raw = (wg.y * m(5u) + wg.x) * R + lid / T;
    let ok = row_raw < m(0u);
    let row = min(row_raw, m(0u) - 1u);
    var rem = row;
    var bi = m(4u);
{bo_init}    for (var d = m(1u); d > 0u; d--) {{
        let s = m(7u + d);
        let c = rem % s;
        rem /= s;
        bi += c * m(15u + d);
{bo_acc}    }}
    let n = m(3u);
    let nv = n / W;
    let ib = bi / W;
",
        wg = p.threads * p.rows()
    )
}

/// The WGSL of a row-wise kernel with plan `p`.
pub fn rowwise_source(op: RowOp, weight: bool, bias: bool, p: &RowPlan) -> String {
    let mut bindings = String::new();
    let mut affine = String::new();
    if weight {
        bindings.push_str("@group(0) @binding(3) var<storage, read> w: array<VT>;\n");
        affine.push_str("            y = y * w[m(7u) / W + e{i}];\n");
    }
    if bias {
        let b = if weight { 4 } else { 3 };
        bindings.push_str(&format!("@group(0) @binding({b}) var<storage, read> bb: array<VT>;\n"));
        affine.push_str("            y = y + bb[m(56u) / W + e{i}];\n");
    }
    if op.takes_grad() {
        bindings.push_str("@group(0) @binding(3) var<storage, read> gr: array<VT>;\n");
    }
    let k = p.per_thread as usize;
    let each = |f: &dyn Fn(usize) -> String| (0..k).map(f).collect::<String>();
    let mut body = String::from("    let ob = bo / W;\n    let eps = bitcast<f32>(m(6u));\n");
    // Causal softmax: columns past query `q` are neither read nor counted (`-inf`) and come out 0.
    let (lanes, vu) = if p.vec4 { ("vec4<u32>(0u, 1u, 2u, 3u)", "vec4<u32>") } else { ("0u", "u32") };
    let causal = op == RowOp::CausalSoftmax;
    if causal {
        body += "    let q = row % m(58u);\n";
    }
    if op.takes_grad() {
        body += "    let gb = (bi - m(4u) + m(57u)) / W;\n";
    }
    body += &each(&|i| {
        let mut s = format!("    let e{i} = t + {i}u * T;\n    let in{i} = e{i} < nv;\n    var x{i} = VT(0.0);\n");
        if causal {
            s += &format!(
                "    let c{i} = {vu}(e{i} * W) + {lanes};\n    if (in{i} && e{i} * W <= q) {{ x{i} = inp[ib + e{i}]; }}\n    x{i} = select(x{i}, VT(inf_like(-1.0)), c{i} > {vu}(q));\n"
            );
        } else {
            s += &format!("    if (in{i}) {{ x{i} = inp[ib + e{i}]; }}\n");
        }
        if op.takes_grad() {
            s += &format!("    var g{i} = VT(0.0);\n    if (in{i}) {{ g{i} = gr[gb + e{i}]; }}\n");
        }
        s
    });
    let store = |value: &str| {
        each(&|i| {
            format!(
                "    if (ok && in{i}) {{\n        var y = {};\n{}        out[ob + e{i}] = y;\n    }}\n",
                value.replace("{i}", &i.to_string()),
                affine.replace("{i}", &i.to_string())
            )
        })
    };
    match op {
        RowOp::Softmax | RowOp::LogSoftmax | RowOp::CausalSoftmax => {
            body += "    var mx = inf_like(-1.0);\n";
            body += &each(&|i| format!("    if (in{i}) {{ mx = mx2(mx, hmax(x{i})); }}\n"));
            body += "    mx = seg_max(mx, lid);\n    var s = 0.0;\n";
            body += &each(&|i| format!("    let p{i} = vexp(x{i} - VT(mx));\n    if (in{i}) {{ s += hsum(p{i}); }}\n"));
            body += "    s = seg_sum(s, lid);\n";
            if op == RowOp::Softmax {
                body += &store("p{i} / VT(s)");
            } else if causal {
                body += &store(&format!("select(p{{i}} / VT(s), VT(0.0), c{{i}} > {vu}(q))"));
            } else {
                body += "    let ls = log_f32(s);\n";
                body += &store("x{i} - VT(mx) - VT(ls)");
            }
        }
        RowOp::SoftmaxBackward => {
            body += "    var s = 0.0;\n";
            body += &each(&|i| format!("    if (in{i}) {{ s += hsum(g{i} * x{i}); }}\n"));
            body += "    let dot = seg_sum(s, lid);\n";
            body += &store("x{i} * (g{i} - VT(dot))");
        }
        RowOp::LogSoftmaxBackward => {
            body += "    var s = 0.0;\n";
            body += &each(&|i| format!("    if (in{i}) {{ s += hsum(g{i}); }}\n"));
            body += "    let sum = seg_sum(s, lid);\n";
            body += &store("g{i} - vexp(x{i}) * VT(sum)");
        }
        RowOp::LayerNorm => {
            body += "    var s = 0.0;\n";
            body += &each(&|i| format!("    if (in{i}) {{ s += hsum(x{i}); }}\n"));
            body += "    let mean = seg_sum(s, lid) / f32(n);\n    var v = 0.0;\n";
            body +=
                &each(&|i| format!("    let d{i} = x{i} - VT(mean);\n    if (in{i}) {{ v += hsum(d{i} * d{i}); }}\n"));
            body += "    let rstd = 1.0 / sqrt(seg_sum(v, lid) / f32(n) + eps);\n";
            body += &store("d{i} * VT(rstd)");
        }
        RowOp::RmsNorm => {
            body += "    var s = 0.0;\n";
            body += &each(&|i| format!("    if (in{i}) {{ s += hsum(x{i} * x{i}); }}\n"));
            body += "    let r = 1.0 / sqrt(seg_sum(s, lid) / f32(n) + eps);\n";
            body += &store("x{i} * VT(r)");
        }
    }
    let src = format!("{}\n{}{body}}}\n", prelude(p, &bindings), head(p, Some(40)));
    super::codegen::fill(&src, &[])
}

/// The WGSL of a float32 sum/mean over contiguous runs with plan `p`.
pub fn reduce_source(op: ReduceOp, p: &RowPlan) -> String {
    let finish = if op == ReduceOp::Mean { "s / f32(n)" } else { "s" };
    // -0.0: the identity of IEEE addition (a sum of -0.0 values stays -0.0, as PyTorch's).
    let body = format!(
        "    let zero = bitcast<f32>(0x80000000u);
    // The general kernel's cascade (CASCADE in shaders/reduce.wgsl), bit for bit: elements
    // into `block`, every 32nd element's `block` into `group`, every 1024th's `group` into `a`;
    // eight loads in flight per invocation (four iterations a block).
    var a = zero;
    var group = zero;
    var block = zero;
    var taken = 0u;
    var e = t;
    for (; e + 7u * T < nv; e += 8u * T) {{
        let x0 = inp[ib + e];
        let x1 = inp[ib + e + T];
        let x2 = inp[ib + e + 2u * T];
        let x3 = inp[ib + e + 3u * T];
        let x4 = inp[ib + e + 4u * T];
        let x5 = inp[ib + e + 5u * T];
        let x6 = inp[ib + e + 6u * T];
        let x7 = inp[ib + e + 7u * T];
        block += x0;
        block += x1;
        block += x2;
        block += x3;
        block += x4;
        block += x5;
        block += x6;
        block += x7;
        taken++;
        if ((taken & 3u) == 0u) {{
            group += block;
            block = zero;
            if ((taken & 127u) == 0u) {{
                a += group;
                group = zero;
            }}
        }}
    }}
    // Fewer than eight left: no 32nd element among them.
    for (; e < nv; e += T) {{
        block += inp[ib + e];
    }}
    a = (a + group) + block;
    let s = seg_sum(a, lid);
    if (ok && t == 0u) {{ out[row] = {finish}; }}
}}
"
    );
    let src = format!("{}\n{}{body}", prelude(p, "/*reduce*/"), head(p, None));
    super::codegen::fill(&src, &[])
}

/// Keys of the planned kernels.
pub fn rowwise_key(k: &Rowwise, p: RowPlan) -> KernelKey {
    KernelKey::Rows { op: k.op, weight: k.weight.is_some(), bias: k.bias.is_some(), plan: p }
}

pub fn reduce_key(k: &Reduce, p: RowPlan) -> KernelKey {
    KernelKey::RowsReduce { op: k.op, plan: p }
}
