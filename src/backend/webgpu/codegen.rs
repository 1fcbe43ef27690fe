//! WGSL generation: fills the named holes (`/*{{NAME}}*/`) of the templates in `shaders/` from a
//! kernel description. Pipelines are cached by `KernelKey`, so each source is built once.

use super::elementwise;
pub use super::elementwise::{
    elementwise_key, EW_MAX_LEAVES, EW_MAX_SCALARS, EW_OFFSETS, EW_OUT_OFFSET, EW_OUT_STRIDES, EW_SCALARS, EW_SHAPE,
    EW_STRIDES,
};
use super::epilogue::EpilogueKey;
pub use super::reduce_gen::{
    reduce_key, reduce_key_as, reduce_source, rows_kernel, Form, RD_MAX_LEAVES, RD_MAX_SCALARS, RD_OFFSETS, RD_SCALARS,
    RD_SPLIT, RD_STRIDES, RD_WORDS, ROWS_WG,
};
use crate::backend::{Arg, Func, Program, ReduceOp, RowOp, Rowwise, ScatterOp};
use crate::dtype::{Compute, DType};
pub use crate::ops::wgsl::storage_type;
pub(super) use crate::ops::wgsl::{fill, load, store, MATH};
use crate::ops::ResultKind;

const MATMUL: &str = include_str!("../../../shaders/matmul.wgsl");
const MATMUL_TILED: &str = include_str!("../../../shaders/matmul_tiled.wgsl");
const ROWWISE: &str = include_str!("../../../shaders/rowwise.wgsl");
const GATHER: &str = include_str!("../../../shaders/gather.wgsl");
const CHECK: &str = include_str!("../../../shaders/check.wgsl");
const SCATTER: &str = include_str!("../../../shaders/scatter.wgsl");

/// Everything that changes a kernel's source; the pipeline cache key. Scalar values and sizes
/// live in the uniform slot, so one pipeline serves every value and shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum KernelKey {
    /// `out_strided`: results go to a strided view of `out` (in-place writes). `x4`: four
    /// consecutive elements per invocation through vec4 words (`elementwise.rs`).
    Elementwise {
        nodes: Vec<KeyNode>,
        leaves: Vec<(DType, bool)>,
        out_strided: bool,
        x4: bool,
    },
    Reduce {
        op: ReduceOp,
        compute: Compute,
        input: DType,
        out: DType,
        /// How the kernel covers its outputs (`reduce_gen::Form`).
        form: super::reduce_gen::Form,
        /// A fused elementwise prologue: its nodes and its leaves' dtypes.
        prologue: Option<(Vec<KeyNode>, Vec<DType>)>,
    },
    /// `epilogue`: elementwise ops applied to each product before the store (`epilogue.rs`).
    Matmul {
        dtype: DType,
        epilogue: Option<EpilogueKey>,
    },
    /// The register-tiled float32 matmul (`matmul.rs` chooses it), with its epilogue.
    MatmulTiled(super::matmul::TiledKey, Option<EpilogueKey>),
    /// The implicit-GEMM 2-D convolution (`conv.rs`): the tiled matmul gathering its `b` tile,
    /// for the forward or (true) the weight gradient.
    Conv2d(super::matmul::TiledKey, bool),
    /// The depthwise 2-D convolution (`conv.rs`, one input channel per group): the forward or
    /// (true) the weight gradient.
    Conv2dDepthwise(bool),
    /// The direct 2-D convolution for short weight rows and depthwise layers (`conv.rs`,
    /// `shaders/conv2d_window.wgsl`).
    Conv2dWindow(super::conv::WindowKey),
    Rowwise {
        op: RowOp,
        weight: bool,
        bias: bool,
    },
    /// Row-wise kernels over contiguous rows (`rows.rs`).
    Rows {
        op: RowOp,
        weight: bool,
        bias: bool,
        plan: super::rows::RowPlan,
    },
    /// Float32 sum/mean over contiguous runs (`rows.rs`).
    RowsReduce {
        op: ReduceOp,
        plan: super::rows::RowPlan,
    },
    Gather {
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
        op: ScatterOp,
    },
    /// Tiny float32 ops run one after another by one workgroup (`batched.rs`).
    Batched,
    /// A device-side value check (`checks.rs`); its first buffer, the error buffer, is written.
    Check,
    /// A program of an op family (`backend/program.rs`).
    Program(ProgramKey),
}

/// A family's program and variant as the pipeline cache sees them: program names are unique and
/// the variant determines the source, so the key compares and hashes the name and the variant.
#[derive(Clone, Copy)]
pub struct ProgramKey {
    pub program: &'static Program,
    pub variant: u32,
}

impl PartialEq for ProgramKey {
    fn eq(&self, other: &Self) -> bool {
        self.variant == other.variant && self.program.name == other.program.name
    }
}

impl Eq for ProgramKey {}

impl std::hash::Hash for ProgramKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.program.name.hash(state);
        self.variant.hash(state);
    }
}

impl std::fmt::Debug for ProgramKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}#{}", self.program.name, self.variant)
    }
}

impl KernelKey {
    /// How many of the kernel's storage buffers (the first ones) are read_write.
    pub fn writable(&self) -> usize {
        match self {
            KernelKey::Batched => super::batched::MAX_BUFFERS,
            KernelKey::Program(p) => p.program.writes,
            _ => 1,
        }
    }

    /// Whether the kernel writes every element of its output buffer's tensor and reads none of
    /// them first, so that a captured graph may bind a fresh buffer there on each replay
    /// (`graph.rs`). Kernels writing into views, scatters, scans and user kernels do not count.
    pub fn writes_whole_output(&self) -> bool {
        if let KernelKey::Program(p) = self {
            return p.program.writes_whole_output;
        }
        // A split reduction's partials: each dispatch writes one phase's and reads the earlier.
        if let KernelKey::Reduce { form: super::reduce_gen::Form::Chunks, .. } = self {
            return false;
        }
        matches!(
            self,
            KernelKey::Elementwise { out_strided: false, .. }
                | KernelKey::Matmul { .. }
                | KernelKey::MatmulTiled(..)
                | KernelKey::Conv2d(..)
                | KernelKey::Conv2dDepthwise(..)
                | KernelKey::Conv2dWindow(..)
                | KernelKey::Rows { .. }
                | KernelKey::RowsReduce { .. }
                | KernelKey::Reduce { .. }
        )
    }
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
    /// The product, in a matmul epilogue.
    Acc,
}

/// Nodes as the cache key sees them, and the scalar operands in slot order.
pub(super) fn key_nodes(nodes: &[crate::backend::Node]) -> (Vec<KeyNode>, Vec<(f64, Compute)>) {
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
                    Arg::Acc => KeyArg::Acc,
                })
                .collect(),
        })
        .collect();
    (nodes, scalars)
}

/// The statements computing `nodes` (node j's value in `s<j>`, its storage form) from leaves
/// `in<k>[o<k>]` (stored as `leaves[k]`) and scalar slot q at meta word `scalar_base + q`; a
/// matmul epilogue's product is `v` (f32).
pub(super) fn nodes_code(nodes: &[KeyNode], leaves: &[DType], scalar_base: usize) -> String {
    nodes_code_with(nodes, leaves, scalar_base, &|l| format!("in{l}[o{l}]"))
}

/// `nodes_code` with leaf k's stored value read as `leaf(k)`.
pub(super) fn nodes_code_with(
    nodes: &[KeyNode],
    leaves: &[DType],
    scalar_base: usize,
    leaf: &dyn Fn(u8) -> String,
) -> String {
    let mut compute = String::new();
    for (j, node) in nodes.iter().enumerate() {
        let t = node.compute.wgsl();
        let arg = |a: &KeyArg| match *a {
            KeyArg::Leaf(l) => load(&leaf(l), leaves[l as usize], node.compute),
            KeyArg::Node(m) => load(&format!("s{m}"), nodes[m as usize].out, node.compute),
            KeyArg::Scalar(q) => format!("bitcast<{t}>(m({}u))", scalar_base + q as usize),
            KeyArg::Acc => load("v", DType::Float32, node.compute),
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

/// The source of the 16×16 matmul, storing each product through `epilogue` when it has one.
pub fn matmul_source(dtype: DType, epilogue: Option<&EpilogueKey>) -> String {
    let c = dtype.compute_for_cast();
    let (store_v, extra) = match epilogue {
        Some(e) => ("epilogue(v, wg.z, row, col)".to_string(), format!("{MATH}\n{}", super::epilogue::source(e))),
        None => (store("v", c, dtype), String::new()),
    };
    let src = fill(
        MATMUL,
        &[("OUT", storage_type(dtype)), ("IN", storage_type(dtype)), ("T", c.wgsl()), ("STORE", &store_v)],
    );
    format!("{src}\n{extra}")
}

pub fn matmul_tiled_source(key: &super::matmul::TiledKey, epilogue: Option<&EpilogueKey>) -> String {
    let holes = super::matmul::holes(key, epilogue.is_some());
    let holes: Vec<(&str, &str)> = holes.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let src = fill(MATMUL_TILED, &holes);
    match epilogue {
        Some(e) => format!("{src}\n{MATH}\n{}", super::epilogue::source(e)),
        None => src,
    }
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
    if op.takes_grad() {
        // The gradient row has the input's strides: its element sits at the input's offset moved
        // from the input's base (m(4)) to the gradient's (m(57)).
        bindings.push_str("@group(0) @binding(3) var<storage, read> gr: array<f32>;\n");
    }
    let each = |body: &str| {
        format!("    for (var j = lid; j < n; j += 256u) {{\n        let o = offsets(bi, bo, j);\n        let x = inp[o.x];\n{grad}{body}    }}\n",
            grad = if op.takes_grad() { "        let g = gr[o.x - m(4u) + m(57u)];\n" } else { "" }
        )
    };
    let body = match op {
        RowOp::Softmax | RowOp::LogSoftmax => {
            let write = if op == RowOp::Softmax {
                "        out[o.y] = exp_f32(x - mx) / sum;\n"
            } else {
                "        out[o.y] = x - mx - log_f32(sum);\n"
            };
            format!(
                "    var lm = inf_like(-1.0);\n{}    let mx = wg_max(lm, lid);\n    var ls = Cascade();\n{}    let sum = wg_sum(cascade_sum(ls), lid);\n{}",
                each("        if (!isnan_f32(lm) && (isnan_f32(x) || x > lm)) { lm = x; }\n"),
                each("        cascade_add(&ls, exp_f32(x - mx));\n"),
                each(write)
            )
        }
        RowOp::CausalSoftmax => format!(
            "    let q = row % m(58u);\n    var lm = inf_like(-1.0);\n{}    let mx = wg_max(lm, lid);\n    var ls = Cascade();\n{}    let sum = wg_sum(cascade_sum(ls), lid);\n{}",
            each("        if (j <= q && !isnan_f32(lm) && (isnan_f32(x) || x > lm)) { lm = x; }\n"),
            each("        if (j <= q) { cascade_add(&ls, exp_f32(x - mx)); }\n"),
            each("        out[o.y] = select(0.0, exp_f32(x - mx) / sum, j <= q);\n")
        ),
        RowOp::SoftmaxBackward => format!(
            "    var ls = Cascade();\n{}    let dot = wg_sum(cascade_sum(ls), lid);\n{}",
            each("        cascade_add(&ls, g * x);\n"),
            each("        out[o.y] = x * (g - dot);\n")
        ),
        RowOp::LogSoftmaxBackward => format!(
            "    var ls = Cascade();\n{}    let sum = wg_sum(cascade_sum(ls), lid);\n{}",
            each("        cascade_add(&ls, g);\n"),
            each("        out[o.y] = g - exp_f32(x) * sum;\n")
        ),
        RowOp::LayerNorm => format!(
            "    var ls = Cascade();\n{}    let mean = wg_sum(cascade_sum(ls), lid) / f32(n);\n    var lv = Cascade();\n{}    let rstd = 1.0 / sqrt(wg_sum(cascade_sum(lv), lid) / f32(n) + eps);\n{}",
            each("        cascade_add(&ls, x);\n"),
            each("        let d = x - mean;\n        cascade_add(&lv, d * d);\n"),
            each(&format!("        var y = (x - mean) * rstd;\n{affine}        out[o.y] = y;\n"))
        ),
        RowOp::RmsNorm => format!(
            "    var ls = Cascade();\n{}    let r = 1.0 / sqrt(wg_sum(cascade_sum(ls), lid) / f32(n) + eps);\n{}",
            each("        cascade_add(&ls, x * x);\n"),
            each(&format!("        var y = x * r;\n{affine}        out[o.y] = y;\n"))
        ),
    };
    format!("{MATH}\n{}", fill(ROWWISE, &[("BINDINGS", &bindings), ("BODY", &body)]))
}

pub fn scatter_source(dtype: DType, tensor_src: bool, op: ScatterOp) -> String {
    let t = storage_type(dtype);
    let (src_binding, value) = if tensor_src {
        (format!("@group(0) @binding(3) var<storage, read> src: array<{t}>;"), "src[so]".to_string())
    } else {
        (String::new(), format!("bitcast<{t}>(m(7u))"))
    };
    let float = matches!(dtype, DType::Float32 | DType::Float16 | DType::BFloat16);
    // No f32 atomics (nor integer products) in WGSL: a compare-exchange loop over the word,
    // `new` computed from the old word `old` and the value `v`. Half types round each step to
    // the type, as PyTorch's half scatter does.
    let cas = |new: &str| {
        format!(
            "    let v = {value};\n    var old = atomicLoad(&out[dst]);\n    loop {{\n        let n = {new};\n        if (n == old) {{ break; }}\n        let r = atomicCompareExchangeWeak(&out[dst], old, n);\n        if (r.exchanged) {{ break; }}\n        old = r.old_value;\n    }}"
        )
    };
    let fcas = |f: &str| cas(&format!("bitcast<u32>({})", store(f, Compute::F32, dtype)));
    let write = match (op, dtype) {
        (ScatterOp::Assign, _) => format!("    out[dst] = {value};"),
        (ScatterOp::Add, _) if float => fcas("bitcast<f32>(old) + v"),
        (ScatterOp::Prod, _) if float => fcas("bitcast<f32>(old) * v"),
        // NaN wins either way (a + v is NaN then), as in PyTorch's amax/amin.
        (ScatterOp::Max, _) if float => {
            cas("bitcast<u32>(select(max(bitcast<f32>(old), v), bitcast<f32>(old) + v, isnan_f32(bitcast<f32>(old)) || isnan_f32(v)))")
        }
        (ScatterOp::Min, _) if float => {
            cas("bitcast<u32>(select(min(bitcast<f32>(old), v), bitcast<f32>(old) + v, isnan_f32(bitcast<f32>(old)) || isnan_f32(v)))")
        }
        // Bools: a sum or maximum is "any", a product or minimum "all".
        (ScatterOp::Add | ScatterOp::Max, DType::Bool) => format!("    atomicOr(&out[dst], {value});"),
        (ScatterOp::Prod | ScatterOp::Min, DType::Bool) => format!("    atomicAnd(&out[dst], {value});"),
        (ScatterOp::Add, _) => format!("    atomicAdd(&out[dst], {value});"),
        (ScatterOp::Max, _) => format!("    atomicMax(&out[dst], {value});"),
        (ScatterOp::Min, _) => format!("    atomicMin(&out[dst], {value});"),
        (ScatterOp::Prod, DType::UInt8) => cas("(old * v) & 255u"),
        (ScatterOp::Prod, _) => cas("old * v"),
    };
    let out = match (op, dtype) {
        (ScatterOp::Assign, _) => t.to_string(),
        (_, DType::Int32 | DType::Int64) => "atomic<i32>".to_string(),
        _ => "atomic<u32>".to_string(),
    };
    fill(SCATTER, &[("OUT", &out), ("SRC_BINDING", &src_binding), ("WRITE", &write)])
}

/// The source of any key (used on a pipeline-cache miss).
pub fn source(key: &KernelKey) -> String {
    match key {
        KernelKey::Elementwise { nodes, leaves, out_strided, x4: false } => {
            elementwise::source(nodes, leaves, *out_strided)
        }
        KernelKey::Elementwise { nodes, leaves, x4: true, .. } => elementwise::source_x4(nodes, leaves),
        KernelKey::Reduce { op, compute, input, out, form, prologue } => {
            reduce_source(*op, *compute, *input, *out, prologue.as_ref(), *form)
                .expect("shaders/reduce.wgsl has the shape reduce_gen's forms rewrite")
        }
        KernelKey::Matmul { dtype, epilogue } => matmul_source(*dtype, epilogue.as_ref()),
        KernelKey::MatmulTiled(key, epilogue) => matmul_tiled_source(key, epilogue.as_ref()),
        KernelKey::Conv2d(key, wgrad) => super::conv::source(key, *wgrad),
        KernelKey::Conv2dDepthwise(grad) => super::conv::depthwise_source(*grad),
        KernelKey::Conv2dWindow(key) => super::conv::window_source(key),
        KernelKey::Rowwise { op, weight, bias } => rowwise_source(*op, *weight, *bias),
        KernelKey::Rows { op, weight, bias, plan } => super::rows::rowwise_source(*op, *weight, *bias, plan),
        KernelKey::RowsReduce { op, plan } => super::rows::reduce_source(*op, plan),
        KernelKey::Gather { dtype } => fill(GATHER, &[("T", storage_type(*dtype))]),
        KernelKey::Scatter { dtype, tensor_src, op } => scatter_source(*dtype, *tensor_src, *op),
        KernelKey::User { source, .. } => source.to_string(),
        KernelKey::Batched => super::batched::source(),
        KernelKey::Check => fill(CHECK, &[]),
        KernelKey::Program(p) => (p.program.wgsl)(p.variant),
    }
}

/// A short label naming the kernel, for validation errors and traces: the ops of a fused chain
/// joined by `+`, then the output dtype.
pub fn label(key: &KernelKey) -> String {
    let ops = |nodes: &[KeyNode]| -> String {
        let names: Vec<&str> = nodes.iter().map(|n| func_name(n.func)).collect();
        names.join("+")
    };
    match key {
        KernelKey::Elementwise { nodes, x4, .. } => format!(
            "webtorch:{}:{}{}",
            ops(nodes),
            if *x4 { "x4:" } else { "" },
            nodes.last().map_or("", |n| n.out.name())
        ),
        KernelKey::Reduce { op, out, prologue: None, form, .. } => {
            format!("webtorch:{op:?}{}:{}", super::reduce_gen::form_label(*form), out.name()).to_lowercase()
        }
        KernelKey::Reduce { op, out, prologue: Some((nodes, _)), form, .. } => format!(
            "webtorch:{}+{}{}:{}",
            ops(nodes),
            format!("{op:?}").to_lowercase(),
            super::reduce_gen::form_label(*form),
            out.name()
        ),
        KernelKey::Matmul { dtype, epilogue } => {
            format!(
                "webtorch:matmul{}:{}",
                epilogue.as_ref().map(super::epilogue::label).unwrap_or_default(),
                dtype.name()
            )
        }
        KernelKey::MatmulTiled(key, epilogue) => format!(
            "webtorch:matmul{}:{}:float32",
            epilogue.as_ref().map(super::epilogue::label).unwrap_or_default(),
            super::matmul::label(key)
        ),
        KernelKey::Conv2d(key, wgrad) => {
            format!("webtorch:conv2d{}:{}:float32", if *wgrad { "_weight_grad" } else { "" }, super::matmul::label(key))
        }
        KernelKey::Conv2dDepthwise(grad) => {
            format!("webtorch:conv2d_depthwise{}:float32", if *grad { "_weight_grad" } else { "" })
        }
        KernelKey::Conv2dWindow(key) => super::conv::window_label(key),
        KernelKey::Rowwise { op, .. } => format!("webtorch:{op:?}:float32").to_lowercase(),
        KernelKey::Rows { op, plan, .. } => {
            format!("webtorch:{}:{}:float32", format!("{op:?}").to_lowercase(), super::rows::plan_label(plan))
        }
        KernelKey::RowsReduce { op, plan } => {
            format!("webtorch:{}:{}:float32", format!("{op:?}").to_lowercase(), super::rows::plan_label(plan))
        }
        KernelKey::Gather { dtype } => format!("webtorch:gather:{}", dtype.name()),
        KernelKey::User { name, .. } => format!("webtorch:user:{name}"),
        KernelKey::Check => "webtorch:check".to_string(),
        KernelKey::Batched => "webtorch:batched:float32".to_string(),
        KernelKey::Program(p) => (p.program.label)(p.variant),
        KernelKey::Scatter { dtype, op, .. } => {
            let name = match op {
                ScatterOp::Assign => "scatter",
                ScatterOp::Add => "scatter_add",
                ScatterOp::Prod => "scatter_prod",
                ScatterOp::Max => "scatter_amax",
                ScatterOp::Min => "scatter_amin",
            };
            format!("webtorch:{name}:{}", dtype.name())
        }
    }
}

/// A node's name in kernel labels.
pub(super) fn func_name(f: Func) -> &'static str {
    match f {
        Func::Op(op) => op.info().name,
        Func::Cast => "copy",
        Func::Where => "where",
    }
}
