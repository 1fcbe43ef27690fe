//! WGSL generation for reductions: the accumulator functions of each `ReduceOp` filled into
//! `shaders/reduce.wgsl`, a fused elementwise prologue read where elements are loaded, and the
//! per-output (serial loop) variant for short rows.

use super::codegen::{fill, key_nodes, load, nodes_code, storage_type, store, KernelKey, KeyNode, MATH};
use crate::backend::{Reduce, ReduceOp};
use crate::dtype::{Compute, DType};

const REDUCE: &str = include_str!("../../../shaders/reduce.wgsl");

/// How a generated reduction kernel covers its outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// One 256-invocation workgroup per output (`shaders/reduce.wgsl` as written).
    Tree,
    /// One invocation per output, a serial loop (`per_output`: short rows, many outputs).
    Rows,
    /// A workgroup per (output, chunk of its row), one phase a dispatch: each chunk's
    /// accumulator into a float32 scratch `[phases, outputs, chunks]`, the earlier phases'
    /// results rebuilt from their partials there (`split`: long rows, few outputs).
    Chunks,
    /// A workgroup per output: every phase's result from the partials of `Chunks`, then the
    /// stored result.
    Final,
}

/// The label suffix of a form (none for the forms that cover each output in one workgroup or
/// invocation).
pub fn form_label(form: Form) -> &'static str {
    match form {
        Form::Tree | Form::Rows => "",
        Form::Chunks => ":chunks",
        Form::Final => ":final",
    }
}

/// Meta words of a split reduction (`Form::Chunks`/`Final`): chunks per output, elements per
/// chunk, the phase a `Chunks` dispatch runs.
pub const RD_SPLIT: usize = 120;
/// Meta words of a reduction, all forms.
pub const RD_WORDS: usize = RD_SPLIT + 3;

/// The key of a reduction, and its prologue's scalar operands in slot order.
pub fn reduce_key(k: &Reduce) -> (KernelKey, Vec<(f64, Compute)>) {
    reduce_key_as(k, if rows_kernel(k) { Form::Rows } else { Form::Tree })
}

/// `reduce_key` with the form given.
pub fn reduce_key_as(k: &Reduce, form: Form) -> (KernelKey, Vec<(f64, Compute)>) {
    let (prologue, scalars) = match &k.prologue {
        Some(p) => {
            let (nodes, scalars) = key_nodes(&p.nodes);
            (Some((nodes, p.leaves.iter().map(|l| l.dtype).collect())), scalars)
        }
        None => (None, vec![]),
    };
    let key =
        KernelKey::Reduce { op: k.op, compute: k.compute, input: k.input.dtype, out: k.out_dtype, form, prologue };
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
pub(super) fn per_output(src: &str) -> Option<String> {
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
        ("        if (phase + 1u < PASSES) { first = between(acc, count, phase, first); }\n        workgroupBarrier();\n", "        if (phase + 1u < PASSES) { first = between(acc, count, phase, first); }\n"),
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

/// The source of a reduction kernel of form `form` (`None` if the template changed shape).
pub fn reduce_source(
    op: ReduceOp,
    c: Compute,
    input: DType,
    out: DType,
    prologue: Option<&(Vec<KeyNode>, Vec<DType>)>,
    form: Form,
) -> Option<String> {
    let src = tree_source(op, c, input, out, prologue);
    match form {
        Form::Tree => Some(src),
        Form::Rows => per_output(&src),
        Form::Chunks | Form::Final => split(&src, form, op),
    }
}

/// The `Chunks` or `Final` form of a generated reduction kernel (see `Form`). Both rebuild the
/// results of earlier phases from their chunk partials in one fixed order, so every workgroup
/// of an output sees the same `first`, bit for bit.
fn split(src: &str, form: Form, op: ReduceOp) -> Option<String> {
    let main_at = src.find("@compute @workgroup_size(256)")?;
    let (head, main) = src.split_at(main_at);
    let acc = head.split("struct Acc { v: ").nth(1)?.split(',').next()?;
    let ident = if matches!(op, ReduceOp::Prod | ReduceOp::All) { "1" } else { "0" };
    // `Chunks` reads the earlier phases' partials from the scratch it writes; `Final` reads
    // them as its input.
    let scratch = if form == Form::Chunks { "out" } else { "inp" };
    let helpers = format!(
        "// Phase q's chunk partials of output o, merged as the workgroup tree merges.
fn partials(o: u32, q: u32, lid: u32) -> Acc {{
    let k = m({RD_SPLIT}u);
    var acc = Acc({acc}({ident}), EMPTY);
    for (var c = lid; c < k; c += 256u) {{
        acc = combine(acc, Acc({scratch}[(q * m(0u) + o) * k + c], c), q);
    }}
    part[lid] = acc;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s >>= 1u) {{
        if (lid < s) {{ part[lid] = combine(part[lid], part[lid + s], q); }}
        workgroupBarrier();
    }}
    let r = part[0];
    workgroupBarrier();
    return r;
}}

// The `first` that phase `upto` sees: each earlier phase's result, from its partials.
fn firsts(o: u32, upto: u32, lid: u32, count: u32) -> {acc} {{
    var first = {acc}(0);
    for (var q = 0u; q < upto; q++) {{ first = between(partials(o, q, lid), count, q, first); }}
    return first;
}}

"
    );
    if form == Form::Final {
        let main = "@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let o = wg.y * m(5u) + wg.x;
    if (o >= m(0u)) { return; }
    let count = m(3u);
    let first = firsts(o, PASSES - 1u, lid, count);
    let acc = partials(o, PASSES - 1u, lid);
    if (lid == 0u) {
        out[o] = finish(acc, first, count);
    }
}
";
        return Some(format!("{head}{helpers}{main}"));
    }
    let (k, len, phase) = (RD_SPLIT, RD_SPLIT + 1, RD_SPLIT + 2);
    let mut m = main.to_string();
    let swaps = [
        (
            "    let o = wg.y * m(5u) + wg.x;\n    if (o >= m(0u)) { return; }".to_string(),
            format!("    let w = wg.y * m(5u) + wg.x;\n    if (w >= m(0u) * m({k}u)) {{ return; }}\n    let o = w / m({k}u);\n    let chunk = w % m({k}u);"),
        ),
        (
            "    for (var phase = 0u; phase < PASSES; phase++) {".into(),
            "    first = firsts(o, phase, lid, count);\n    {".into(),
        ),
        (
            "for (var j = lid; j < count; j += 256u)".into(),
            format!("for (var j = chunk * m({len}u) + lid; j < min(count, (chunk + 1u) * m({len}u)); j += 256u)"),
        ),
        (
            "        if (phase + 1u < PASSES) { first = between(acc, count, phase, first); }\n        workgroupBarrier();\n".into(),
            "        workgroupBarrier();\n".into(),
        ),
        (
            "        out[o] = finish(acc, first, count);".into(),
            format!("        out[(phase * m(0u) + o) * m({k}u) + chunk] = acc.v;"),
        ),
    ];
    for (from, to) in swaps {
        if !m.contains(&from) {
            return None;
        }
        m = m.replacen(&from, &to, 1);
    }
    // One phase, read from the meta words where the loop counted them.
    m = m.replacen("    var acc = Acc(", &format!("    let phase = m({phase}u);\n    var acc = Acc("), 1);
    Some(format!("{head}{helpers}{m}"))
}

/// The source of a reduction kernel as `shaders/reduce.wgsl` has it (`Form::Tree`).
fn tree_source(
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
        Var | Std => "    if (phase == 2u) { let d = x - first; return Acc(d * d, j); }\n    if (phase == 1u) { return Acc(x - first, j); }\n    return Acc(x, j);".into(),
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
        // The mean, then the mean refined by the mean deviation from it (a sum of n values in
        // float32 rounds at n times their size: the first mean can be ulps off, which would
        // show in a small variance of large values).
        Var | Std => "    if (phase == 1u) { return first + a.v / f32(count); }\n    return a.v / f32(count);",
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
