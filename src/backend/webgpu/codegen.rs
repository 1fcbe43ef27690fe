//! WGSL generation: fills the named holes (`/*{{NAME}}*/`) of the templates in `shaders/` from a
//! kernel description. Pipelines are cached by `KernelKey`, so each source is built once.

use crate::backend::{Arg, Elementwise, Func, Matmul, Reduce, ReduceOp, RowOp, Rowwise};
use crate::dtype::{Compute, DType};
use crate::ops::{Op, ResultKind};

const COMMON: &str = include_str!("../../../shaders/common.wgsl");
const ELEMENTWISE: &str = include_str!("../../../shaders/elementwise.wgsl");
const MATH: &str = include_str!("../../../shaders/math.wgsl");
const REDUCE: &str = include_str!("../../../shaders/reduce.wgsl");
const MATMUL: &str = include_str!("../../../shaders/matmul.wgsl");
const MATMUL_TILED: &str = include_str!("../../../shaders/matmul_tiled.wgsl");
const ROWWISE: &str = include_str!("../../../shaders/rowwise.wgsl");
const GATHER: &str = include_str!("../../../shaders/gather.wgsl");
const SCATTER: &str = include_str!("../../../shaders/scatter.wgsl");

/// Everything that changes a kernel's source; the pipeline cache key. Scalar values and sizes
/// live in the uniform slot, so one pipeline serves every value and shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum KernelKey {
    /// `out_strided`: results go to a strided view of `out` (in-place writes).
    Elementwise {
        nodes: Vec<KeyNode>,
        leaves: Vec<(DType, bool)>,
        out_strided: bool,
    },
    Reduce {
        op: ReduceOp,
        compute: Compute,
        input: DType,
        out: DType,
        /// One invocation per output, looping over its elements (short rows, many outputs).
        rows: bool,
        /// A fused elementwise prologue: its nodes and its leaves' dtypes.
        prologue: Option<(Vec<KeyNode>, Vec<DType>)>,
    },
    Matmul {
        dtype: DType,
    },
    /// The register-tiled float32 matmul (`matmul.rs` chooses it).
    MatmulTiled(super::matmul::TiledKey),
    Rowwise {
        op: RowOp,
        weight: bool,
        bias: bool,
    },
    Gather {
        dtype: DType,
    },
    Scan {
        op: crate::backend::ScanOp,
        dtype: DType,
    },
    Sort {
        step: super::sort::SortStep,
        dtype: DType,
    },
    SearchSorted {
        dtype: DType,
    },
    /// A user kernel (`torch.register_kernel`): its WGSL as given.
    User {
        name: String,
        source: std::rc::Rc<str>,
    },
    Scatter {
        dtype: DType,
        tensor_src: bool,
        add: bool,
    },
}

/// A node of an elementwise kernel as the cache key sees it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KeyNode {
    pub func: Func,
    pub compute: Compute,
    pub out: DType,
    pub args: Vec<KeyArg>,
}

/// Where a node argument comes from: leaf k, node k, or scalar slot k.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyArg {
    Leaf(u8),
    Node(u8),
    Scalar(u8),
}

/// The WGSL element type a dtype is stored as.
pub fn storage_type(d: DType) -> &'static str {
    match d {
        DType::Float32 | DType::Float16 | DType::BFloat16 => "f32",
        DType::Int32 | DType::Int64 => "i32",
        DType::UInt8 | DType::Bool => "u32",
    }
}

pub(super) fn fill(template: &str, holes: &[(&str, &str)]) -> String {
    let mut s = template.to_string();
    for (name, value) in holes {
        s = s.replace(&format!("/*{{{{{name}}}}}*/"), value);
    }
    debug_assert!(!s.contains("/*{{"), "unfilled hole in:\n{s}");
    format!("{COMMON}\n{s}")
}

/// `v` (of compute type `c`) converted to `out`'s storage type (twin of `store` in `cpu.rs`).
fn store(v: &str, c: Compute, out: DType) -> String {
    match (c, out) {
        (Compute::F32, DType::Float32) | (Compute::I32, DType::Int32 | DType::Int64) => v.to_string(),
        (Compute::I32, DType::Float32) => format!("f32({v})"),
        // Half types are f32 words holding values rounded to the type (dtype.rs).
        (Compute::F32, DType::Float16) => format!("round_f16({v})"),
        (Compute::F32, DType::BFloat16) => format!("round_bf16({v})"),
        (Compute::I32, DType::Float16) => format!("round_f16(f32({v}))"),
        (Compute::I32, DType::BFloat16) => format!("round_bf16(f32({v}))"),
        (Compute::F32, DType::Int32 | DType::Int64) => format!("i32({v})"),
        (Compute::F32, DType::UInt8) => format!("u32(i32({v})) & 255u"),
        (Compute::I32, DType::UInt8) => format!("u32({v}) & 255u"),
        // NaN is truthy; `isnan_f32` keeps compilers that assume no NaNs honest.
        (Compute::F32, DType::Bool) => format!("select(0u, 1u, {v} != 0.0 || isnan_f32({v}))"),
        (_, DType::Bool) => format!("select(0u, 1u, {v} != {}(0))", c.wgsl()),
        (Compute::U32, _) => format!("{}({v})", storage_type(out)),
    }
}

/// `x` (stored as `d`) converted to compute type `c`.
fn load(x: &str, d: DType, c: Compute) -> String {
    if storage_type(d) == c.wgsl() {
        x.to_string()
    } else {
        format!("{}({x})", c.wgsl())
    }
}

/// The key of an elementwise kernel (`contiguous[k]`: leaf k is read at `offset + i`), and the
/// scalar operands in slot order.
pub fn elementwise_key(k: &Elementwise, contiguous: &[bool]) -> (KernelKey, Vec<(f64, Compute)>) {
    let (nodes, scalars) = key_nodes(&k.nodes);
    let leaves = k.leaves.iter().zip(contiguous).map(|(o, &c)| (o.dtype, c)).collect();
    (KernelKey::Elementwise { nodes, leaves, out_strided: k.out_view.is_some() }, scalars)
}

/// Nodes as the cache key sees them, and the scalar operands in slot order.
fn key_nodes(nodes: &[crate::backend::Node]) -> (Vec<KeyNode>, Vec<(f64, Compute)>) {
    let mut scalars = vec![];
    let nodes = nodes
        .iter()
        .map(|n| KeyNode {
            func: n.func,
            compute: n.compute,
            out: n.out_dtype,
            args: n
                .args
                .iter()
                .map(|a| match *a {
                    Arg::Leaf(l) => KeyArg::Leaf(l as u8),
                    Arg::Node(m) => KeyArg::Node(m as u8),
                    Arg::Scalar(x) => {
                        scalars.push((x, n.compute));
                        KeyArg::Scalar((scalars.len() - 1) as u8)
                    }
                })
                .collect(),
        })
        .collect();
    (nodes, scalars)
}

/// Meta words of elementwise kernels (see `shaders/elementwise.wgsl`).
pub const EW_OFFSETS: usize = 8;
pub const EW_SCALARS: usize = 16;
pub const EW_SHAPE: usize = 24;
pub const EW_STRIDES: usize = 32;
pub const EW_MAX_LEAVES: usize = 7;
pub const EW_MAX_SCALARS: usize = 8;
/// Output offset and strides of an in-place (strided) elementwise kernel.
pub const EW_OUT_OFFSET: usize = 3;
pub const EW_OUT_STRIDES: usize = EW_STRIDES + 8 * EW_MAX_LEAVES;

pub fn elementwise_source(nodes: &[KeyNode], leaves: &[(DType, bool)], out_strided: bool) -> String {
    let mut bindings = String::new();
    let mut index = String::new();
    let strided = out_strided || leaves.iter().any(|(_, c)| !c);
    if strided {
        index.push_str("    var rem = i;\n");
    }
    let mut body = String::new();
    if out_strided {
        index.push_str(&format!("    var oo = m({EW_OUT_OFFSET}u);\n"));
        body.push_str(&format!("        oo += c * m({}u + d);\n", EW_OUT_STRIDES - 1));
    } else {
        index.push_str("    let oo = i;\n");
    }
    for (k, &(d, contiguous)) in leaves.iter().enumerate() {
        bindings.push_str(&format!(
            "@group(0) @binding({}) var<storage, read> in{k}: array<{}>;\n",
            k + 2,
            storage_type(d)
        ));
        if contiguous {
            index.push_str(&format!("    let o{k} = m({}u) + i;\n", EW_OFFSETS + k));
        } else {
            index.push_str(&format!("    var o{k} = m({}u);\n", EW_OFFSETS + k));
            body.push_str(&format!("        o{k} += c * m({}u + d);\n", EW_STRIDES + 8 * k - 1));
        }
    }
    if strided {
        index.push_str(&format!(
            "    for (var d = m(1u); d > 0u; d--) {{\n        let s = m({}u + d);\n        let c = rem % s;\n        rem /= s;\n{body}    }}\n",
            EW_SHAPE - 1
        ));
    }
    let compute = nodes_code(nodes, &leaves.iter().map(|l| l.0).collect::<Vec<_>>(), EW_SCALARS);
    let last = nodes.len() - 1;
    format!(
        "{MATH}\n{}",
        fill(
            ELEMENTWISE,
            &[
                ("OUT", storage_type(nodes[last].out)),
                ("INPUTS", &bindings),
                ("INDEX", &index),
                ("COMPUTE", &compute),
                ("RESULT", &format!("s{last}")),
            ],
        )
    )
}

/// The statements computing `nodes` (node j's value in `s<j>`, its storage form) from leaves
/// `in<k>[o<k>]` (stored as `leaves[k]`) and scalar slot q at meta word `scalar_base + q`.
fn nodes_code(nodes: &[KeyNode], leaves: &[DType], scalar_base: usize) -> String {
    let mut compute = String::new();
    for (j, node) in nodes.iter().enumerate() {
        let t = node.compute.wgsl();
        let arg = |a: &KeyArg| match *a {
            KeyArg::Leaf(l) => load(&format!("in{l}[o{l}]"), leaves[l as usize], node.compute),
            KeyArg::Node(m) => load(&format!("s{m}"), nodes[m as usize].out, node.compute),
            KeyArg::Scalar(q) => format!("bitcast<{t}>(m({}u))", scalar_base + q as usize),
        };
        compute.push_str(&format!("    var s{j}: {};\n    {{\n", storage_type(node.out)));
        for (name, a) in ["a", "b", "c"].iter().zip(&node.args) {
            compute.push_str(&format!("        let {name} = {};\n", arg(a)));
        }
        let value = match node.func {
            Func::Cast => store("a", node.compute, node.out),
            Func::Where => store(&format!("select(c, b, a != {t}(0))"), node.compute, node.out),
            Func::Op(op) => {
                let expr = op.info().wgsl.replace("_T(", &format!("_{t}(")).replace("T(", &format!("{t}("));
                if op.info().kind == ResultKind::Bool {
                    format!("select(0u, 1u, {expr})")
                } else {
                    store(&format!("({expr})"), node.compute, node.out)
                }
            }
        };
        compute.push_str(&format!("        s{j} = {value};\n    }}\n"));
    }
    compute
}

/// The key of a reduction, and its prologue's scalar operands in slot order.
pub fn reduce_key(k: &Reduce) -> (KernelKey, Vec<(f64, Compute)>) {
    let (prologue, scalars) = match &k.prologue {
        Some(p) => {
            let (nodes, scalars) = key_nodes(&p.nodes);
            (Some((nodes, p.leaves.iter().map(|l| l.dtype).collect())), scalars)
        }
        None => (None, vec![]),
    };
    let key = KernelKey::Reduce {
        op: k.op,
        compute: k.compute,
        input: k.input.dtype,
        out: k.out_dtype,
        rows: rows_kernel(k),
        prologue,
    };
    (key, scalars)
}

/// Meta words of a reduction's fused prologue (see `shaders/reduce.wgsl`).
pub const RD_OFFSETS: usize = 40;
pub const RD_SCALARS: usize = 48;
pub const RD_STRIDES: usize = 56;
pub const RD_MAX_LEAVES: usize = 5;
pub const RD_MAX_SCALARS: usize = 8;

/// Whether a reduction runs one invocation per output (rows of at most 64 elements, at least
/// 256 outputs): a 256-wide workgroup and its barriers per short row cost far more than a loop.
pub fn rows_kernel(k: &Reduce) -> bool {
    let count: usize = k.inner.iter().product();
    let n_out: usize = k.outer.iter().product();
    count <= 64 && n_out >= 256
}

/// Invocations per workgroup of the per-output reduction kernel.
pub const ROWS_WG: u32 = 64;

/// The per-output variant of a generated reduction kernel: the same accumulator functions, a
/// serial loop instead of the workgroup tree. `None` if the template changed shape.
fn per_output(src: &str) -> Option<String> {
    let main_at = src.find("@compute @workgroup_size(256)")?;
    let (head, main) = src.split_at(main_at);
    let mut m = main.to_string();
    let swaps = [
        (
            "@compute @workgroup_size(256)\nfn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {\n    let o = wg.y * m(5u) + wg.x;",
            "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n    let o = gid.y * (m(5u) * 64u) + gid.x;",
        ),
        ("for (var j = lid; j < count; j += 256u)", "for (var j = 0u; j < count; j++)"),
        ("        part[lid] = acc;\n        workgroupBarrier();\n        for (var s = 128u; s > 0u; s >>= 1u) {\n            if (lid < s) { part[lid] = combine(part[lid], part[lid + s], phase); }\n            workgroupBarrier();\n        }\n        acc = part[0];\n", ""),
        ("        if (phase == 0u) { first = between(acc, count); }\n        workgroupBarrier();\n", "        if (phase == 0u) { first = between(acc, count); }\n"),
        ("    if (lid == 0u) {\n        out[o] = finish(acc, first, count);\n    }", "    out[o] = finish(acc, first, count);"),
    ];
    for (from, to) in swaps {
        if !m.contains(from) {
            return None;
        }
        m = m.replacen(from, to, 1);
    }
    Some(format!("{head}{m}"))
}

pub fn reduce_source(
    op: ReduceOp,
    c: Compute,
    input: DType,
    out: DType,
    prologue: Option<&(Vec<KeyNode>, Vec<DType>)>,
) -> String {
    use ReduceOp::*;
    let t = c.wgsl();
    // The accumulator's type, and the type of the value `finish` stores.
    let (acc, result) = match op {
        All | Any => (Compute::U32, Compute::U32),
        CountNonzero => (Compute::I32, Compute::I32),
        ArgMax | ArgMin => (c, Compute::I32),
        _ => (c, c),
    };
    let a = acc.wgsl();
    let nonzero = format!("x != {t}(0) || isnan_{t}(x)");
    let lift = match op {
        All | Any => format!("    return Acc(select(0u, 1u, {nonzero}), j);"),
        CountNonzero | Norm0 => format!("    return Acc(select({a}(0), {a}(1), {nonzero}), j);"),
        Var | Std => "    if (phase == 1u) { let d = x - first; return Acc(d * d, j); }\n    return Acc(x, j);".into(),
        LogSumExp => "    if (phase == 1u) { return Acc(exp_f32(x - first), j); }\n    return Acc(x, j);".into(),
        Norm1 | NormInf | NormNegInf => "    return Acc(abs(x), j);".into(),
        Norm2 => "    return Acc(x * x, j);".into(),
        NormP => "    return Acc(pow_f32(abs(x), param()), j);".into(),
        _ => "    return Acc(x, j);".into(),
    };
    let sum = "    return Acc(a.v + b.v, min(a.i, b.i));".to_string();
    // NaN propagates through max and min (WGSL's builtins leave NaN unspecified).
    let extreme = |gt: &str| {
        format!(
            "    if (isnan_{a}(a.v)) {{ return a; }}\n    if (isnan_{a}(b.v)) {{ return b; }}\n    return Acc(select(a.v, b.v, b.v {gt} a.v), min(a.i, b.i));"
        )
    };
    // First occurrence, with NaN as the extreme (the first NaN wins).
    let arg = |gt: &str| {
        format!(
            "    let an = isnan_{a}(a.v);\n    let bn = isnan_{a}(b.v);\n    if (an || bn) {{\n        if (an && bn) {{ if (b.i < a.i) {{ return b; }} return a; }}\n        if (bn) {{ return b; }}\n        return a;\n    }}\n    if (b.v {gt} a.v || (b.v == a.v && b.i < a.i)) {{ return b; }}\n    return a;"
        )
    };
    let merge = match op {
        Sum | Mean | CountNonzero | Var | Std | Norm0 | Norm1 | Norm2 | NormP => sum,
        Prod => "    return Acc(a.v * b.v, min(a.i, b.i));".into(),
        Max | NormInf => extreme(">"),
        Min | NormNegInf => extreme("<"),
        LogSumExp => format!("    if (phase == 1u) {{\n    {}\n    }}\n{}", sum.trim(), extreme(">")),
        ArgMax => arg(">"),
        ArgMin => arg("<"),
        All => "    return Acc(min(a.v, b.v), min(a.i, b.i));".into(),
        Any => "    return Acc(max(a.v, b.v), min(a.i, b.i));".into(),
    };
    let between = match op {
        Var | Std => "    return a.v / f32(count);",
        // PyTorch subtracts a max of ±inf as 0, so inf stays inf and all -inf gives -inf.
        LogSumExp => "    if (a.i == EMPTY || isinf_f32(a.v)) { return 0.0; }\n    return a.v;",
        _ => "    return a.v;",
    };
    let finish = match op {
        ArgMax | ArgMin => "    let v = i32(a.i);".to_string(),
        Mean => format!("    let v = a.v / {t}(count);"),
        // Divides by max(0, N - correction): x / 0 is inf, 0 / 0 is NaN (explicit, as compilers
        // may assume no inf/NaN).
        Var | Std => {
            let mut f = "    let den = max(f32(count) - param(), 0.0);\n    var v = select(a.v / den, select(inf_like(1.0), nan_like(0.0), a.v == 0.0 || isnan_f32(a.v)), den == 0.0);".to_string();
            if op == Std {
                f += "\n    if (!isnan_f32(v) && !isinf_f32(v)) { v = sqrt(v); }";
            }
            f
        }
        LogSumExp => "    let v = log_f32(a.v) + first;".into(),
        Norm2 => "    var v = a.v;\n    if (!isnan_f32(v) && !isinf_f32(v)) { v = sqrt(v); }".into(),
        NormP => "    let v = pow_f32(a.v, 1.0 / param());".into(),
        _ => "    let v = a.v;".into(),
    };
    let ident = if matches!(op, Prod | All) { "1" } else { "0" };
    let (inputs, base, offsets, value) = match prologue {
        None => (
            format!("@group(0) @binding(2) var<storage, read> inp: array<{}>;", storage_type(input)),
            "    var rem = o;\n    var base = m(4u);\n    for (var d = m(1u); d > 0u; d--) {\n        let s = m(7u + d);\n        base += (rem % s) * m(15u + d);\n        rem /= s;\n    }".to_string(),
            "            var r = j;\n            var off = base;\n            for (var d = m(2u); d > 0u; d--) {\n                let s = m(23u + d);\n                off += (r % s) * m(31u + d);\n                r /= s;\n            }".to_string(),
            load("inp[off]", input, c),
        ),
        Some((nodes, leaves)) => prologue_code(nodes, leaves, c),
    };
    let src = fill(
        REDUCE,
        &[
            ("OUT", storage_type(out)),
            ("IN", storage_type(input)),
            ("T", t),
            ("A", a),
            ("PASSES", &op.passes().to_string()),
            ("IDENT", ident),
            ("INPUTS", &inputs),
            ("BASE", &base),
            ("OFFSETS", &offsets),
            ("LOAD", &value),
            ("LIFT", &lift),
            ("MERGE", &merge),
            ("BETWEEN", between),
            ("FINISH", &format!("{finish}\n    return {};", store("v", result, out))),
        ],
    );
    format!("{MATH}\n{src}")
}

/// A reduction's fused prologue: bindings, per-output leaf bases, per-element leaf offsets with
/// the expression's statements, and the reduced value (in compute type `c`).
fn prologue_code(nodes: &[KeyNode], leaves: &[DType], c: Compute) -> (String, String, String, String) {
    let (mut inputs, mut base, mut inner) = (String::new(), String::new(), String::new());
    let (mut outer_acc, mut inner_acc, mut offsets) = (String::new(), String::new(), String::new());
    for (k, &d) in leaves.iter().enumerate() {
        inputs.push_str(&format!(
            "@group(0) @binding({}) var<storage, read> in{k}: array<{}>;\n",
            k + 2,
            storage_type(d)
        ));
        // Leaf 0's words are the plain reduction's; the others follow them.
        let (off, outer_st, inner_st) = if k == 0 {
            (4, 16, 32)
        } else {
            (RD_OFFSETS + k, RD_STRIDES + 16 * (k - 1), RD_STRIDES + 16 * (k - 1) + 8)
        };
        base.push_str(&format!("    var base{k} = m({off}u);\n"));
        outer_acc.push_str(&format!("        base{k} += c * m({}u + d);\n", outer_st - 1));
        offsets.push_str(&format!("            var o{k} = base{k};\n"));
        inner_acc.push_str(&format!("                o{k} += c * m({}u + d);\n", inner_st - 1));
    }
    let base = format!(
        "    var rem = o;\n{base}    for (var d = m(1u); d > 0u; d--) {{\n        let s = m(7u + d);\n        let c = rem % s;\n{outer_acc}        rem /= s;\n    }}"
    );
    inner.push_str(&format!(
        "            var r = j;\n{offsets}            for (var d = m(2u); d > 0u; d--) {{\n                let s = m(23u + d);\n                let c = r % s;\n{inner_acc}                r /= s;\n            }}\n"
    ));
    inner.push_str(&nodes_code(nodes, leaves, RD_SCALARS));
    let last = nodes.len() - 1;
    (inputs, base, inner, load(&format!("s{last}"), nodes[last].out, c))
}

pub fn matmul_key(k: &Matmul) -> KernelKey {
    KernelKey::Matmul { dtype: k.dtype }
}

pub fn matmul_source(dtype: DType) -> String {
    let c = dtype.compute_for_cast();
    fill(
        MATMUL,
        &[("OUT", storage_type(dtype)), ("IN", storage_type(dtype)), ("T", c.wgsl()), ("STORE", &store("v", c, dtype))],
    )
}

pub fn matmul_tiled_source(key: &super::matmul::TiledKey) -> String {
    let holes = super::matmul::holes(key);
    let holes: Vec<(&str, &str)> = holes.iter().map(|(n, v)| (*n, v.as_str())).collect();
    fill(MATMUL_TILED, &holes)
}

pub fn rowwise_key(k: &Rowwise) -> KernelKey {
    KernelKey::Rowwise { op: k.op, weight: k.weight.is_some(), bias: k.bias.is_some() }
}

pub fn rowwise_source(op: RowOp, weight: bool, bias: bool) -> String {
    let mut bindings = String::new();
    let mut affine = String::new();
    if weight {
        bindings.push_str("@group(0) @binding(3) var<storage, read> w: array<f32>;\n");
        affine.push_str("        y = y * w[m(7u) + j];\n");
    }
    if bias {
        let b = if weight { 4 } else { 3 };
        bindings.push_str(&format!("@group(0) @binding({b}) var<storage, read> bb: array<f32>;\n"));
        affine.push_str("        y = y + bb[m(56u) + j];\n");
    }
    let each = |body: &str| {
        format!("    for (var j = lid; j < n; j += 256u) {{\n        let o = offsets(bi, bo, j);\n        let x = inp[o.x];\n{body}    }}\n")
    };
    let body = match op {
        RowOp::Softmax | RowOp::LogSoftmax => {
            let write = if op == RowOp::Softmax {
                "        out[o.y] = exp_f32(x - mx) / sum;\n"
            } else {
                "        out[o.y] = x - mx - log_f32(sum);\n"
            };
            format!(
                "    var lm = inf_like(-1.0);\n{}    let mx = wg_max(lm, lid);\n    var ls = 0.0;\n{}    let sum = wg_sum(ls, lid);\n{}",
                each("        if (!isnan_f32(lm) && (isnan_f32(x) || x > lm)) { lm = x; }\n"),
                each("        ls += exp_f32(x - mx);\n"),
                each(write)
            )
        }
        RowOp::LayerNorm => format!(
            "    var ls = 0.0;\n{}    let mean = wg_sum(ls, lid) / f32(n);\n    var lv = 0.0;\n{}    let rstd = 1.0 / sqrt(wg_sum(lv, lid) / f32(n) + eps);\n{}",
            each("        ls += x;\n"),
            each("        let d = x - mean;\n        lv += d * d;\n"),
            each(&format!("        var y = (x - mean) * rstd;\n{affine}        out[o.y] = y;\n"))
        ),
        RowOp::RmsNorm => format!(
            "    var ls = 0.0;\n{}    let r = 1.0 / sqrt(wg_sum(ls, lid) / f32(n) + eps);\n{}",
            each("        ls += x * x;\n"),
            each(&format!("        var y = x * r;\n{affine}        out[o.y] = y;\n"))
        ),
    };
    format!("{MATH}\n{}", fill(ROWWISE, &[("BINDINGS", &bindings), ("BODY", &body)]))
}

pub fn scatter_source(dtype: DType, tensor_src: bool, add: bool) -> String {
    let t = storage_type(dtype);
    let (src_binding, value) = if tensor_src {
        (format!("@group(0) @binding(3) var<storage, read> src: array<{t}>;"), "src[so]".to_string())
    } else {
        (String::new(), format!("bitcast<{t}>(m(7u))"))
    };
    let write = match (add, dtype) {
        (false, _) => format!("    out[dst] = {value};"),
        // No f32 atomics in WGSL: add through the bits with a compare-exchange loop.
        // Half types round each sum to the type, as PyTorch's half index_add does.
        (true, DType::Float32 | DType::Float16 | DType::BFloat16) => format!(
            "    let v = {value};\n    var old = atomicLoad(&out[dst]);\n    loop {{\n        let r = atomicCompareExchangeWeak(&out[dst], old, bitcast<u32>({}));\n        if (r.exchanged) {{ break; }}\n        old = r.old_value;\n    }}",
            store("bitcast<f32>(old) + v", Compute::F32, dtype)
        ),
        // A bool sum is "any": or the bits.
        (true, DType::Bool) => format!("    atomicOr(&out[dst], {value});"),
        (true, _) => format!("    atomicAdd(&out[dst], {value});"),
    };
    let out = match (add, dtype) {
        (false, _) => t.to_string(),
        (true, DType::Int32 | DType::Int64) => "atomic<i32>".to_string(),
        (true, _) => "atomic<u32>".to_string(),
    };
    fill(SCATTER, &[("OUT", &out), ("SRC_BINDING", &src_binding), ("WRITE", &write)])
}

/// The source of any key (used on a pipeline-cache miss).
pub fn source(key: &KernelKey) -> String {
    match key {
        KernelKey::Elementwise { nodes, leaves, out_strided } => elementwise_source(nodes, leaves, *out_strided),
        KernelKey::Reduce { op, compute, input, out, rows, prologue } => {
            let src = reduce_source(*op, *compute, *input, *out, prologue.as_ref());
            if *rows {
                per_output(&src).unwrap_or(src)
            } else {
                src
            }
        }
        KernelKey::Matmul { dtype } => matmul_source(*dtype),
        KernelKey::MatmulTiled(key) => matmul_tiled_source(key),
        KernelKey::Rowwise { op, weight, bias } => rowwise_source(*op, *weight, *bias),
        KernelKey::Gather { dtype } => fill(GATHER, &[("T", storage_type(*dtype))]),
        KernelKey::Scatter { dtype, tensor_src, add } => scatter_source(*dtype, *tensor_src, *add),
        KernelKey::Scan { op, dtype } => super::sort::scan_source(*op, *dtype),
        KernelKey::Sort { step, dtype } => super::sort::sort_source(*step, *dtype),
        KernelKey::SearchSorted { dtype } => super::sort::search_sorted_source(*dtype),
        KernelKey::User { source, .. } => source.to_string(),
    }
}

/// A short label naming the kernel, for validation errors and traces: the ops of a fused chain
/// joined by `+`, then the output dtype.
pub fn label(key: &KernelKey) -> String {
    let ops = |nodes: &[KeyNode]| -> String {
        let names: Vec<&str> = nodes
            .iter()
            .map(|n| match n.func {
                Func::Op(op) => op_name(op),
                Func::Cast => "copy",
                Func::Where => "where",
            })
            .collect();
        names.join("+")
    };
    match key {
        KernelKey::Elementwise { nodes, .. } => {
            format!("webtorch:{}:{}", ops(nodes), nodes.last().map_or("", |n| n.out.name()))
        }
        KernelKey::Reduce { op, out, prologue: None, .. } => format!("webtorch:{op:?}:{}", out.name()).to_lowercase(),
        KernelKey::Reduce { op, out, prologue: Some((nodes, _)), .. } => {
            format!("webtorch:{}+{}:{}", ops(nodes), format!("{op:?}").to_lowercase(), out.name())
        }
        KernelKey::Matmul { dtype } => format!("webtorch:matmul:{}", dtype.name()),
        KernelKey::MatmulTiled(key) => format!("webtorch:matmul:{}:float32", super::matmul::label(key)),
        KernelKey::Rowwise { op, .. } => format!("webtorch:{op:?}:float32").to_lowercase(),
        KernelKey::Gather { dtype } => format!("webtorch:gather:{}", dtype.name()),
        KernelKey::Scan { op, dtype } => format!("webtorch:scan_{op:?}:{}", dtype.name()).to_lowercase(),
        KernelKey::Sort { step, dtype } => format!("webtorch:sort_{step:?}:{}", dtype.name()).to_lowercase(),
        KernelKey::SearchSorted { dtype } => format!("webtorch:searchsorted:{}", dtype.name()),
        KernelKey::User { name, .. } => format!("webtorch:user:{name}"),
        KernelKey::Scatter { dtype, add, .. } => {
            format!("webtorch:{}:{}", if *add { "scatter_add" } else { "scatter" }, dtype.name())
        }
    }
}

fn op_name(op: Op) -> &'static str {
    op.info().name
}
