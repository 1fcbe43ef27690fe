//! WGSL generation: fills the named holes (`/*{{NAME}}*/`) of the templates in `shaders/` from a
//! kernel description. Pipelines are cached by `KernelKey`, so each source is built once.

use crate::backend::{Elementwise, Func, Input, Matmul, Reduce, ReduceOp};
use crate::dtype::{Compute, DType};
use crate::ops::{Op, ResultKind};

const COMMON: &str = include_str!("../../../shaders/common.wgsl");
const ELEMENTWISE: &str = include_str!("../../../shaders/elementwise.wgsl");
const MATH: &str = include_str!("../../../shaders/math.wgsl");
const REDUCE: &str = include_str!("../../../shaders/reduce.wgsl");
const MATMUL: &str = include_str!("../../../shaders/matmul.wgsl");

/// Everything that changes a kernel's source; the pipeline cache key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum KernelKey {
    Elementwise {
        func: Func,
        compute: Compute,
        out: DType,
        inputs: Vec<InputKey>,
    },
    Reduce {
        op: ReduceOp,
        compute: Compute,
        input: DType,
        out: DType,
    },
    Matmul {
        dtype: DType,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputKey {
    Scalar,
    /// A tensor input; `true` when it is read contiguously (index = offset + i).
    Tensor(DType, bool),
}

/// The WGSL element type a dtype is stored as.
pub fn storage_type(d: DType) -> &'static str {
    match d {
        DType::Float32 => "f32",
        DType::Int32 | DType::Int64 => "i32",
        DType::UInt8 | DType::Bool => "u32",
    }
}

fn fill_elementwise(holes: &[(&str, &str)]) -> String {
    format!("{MATH}\n{}", fill(ELEMENTWISE, holes))
}

fn fill(template: &str, holes: &[(&str, &str)]) -> String {
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
        (Compute::F32, DType::Float32) | (Compute::I32, DType::Int32 | DType::Int64) => {
            v.to_string()
        }
        (Compute::I32, DType::Float32) => format!("f32({v})"),
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

pub fn elementwise_key(k: &Elementwise, contiguous: &[bool]) -> KernelKey {
    let inputs = k
        .inputs
        .iter()
        .zip(contiguous)
        .map(|(inp, &c)| match inp {
            Input::Scalar(_) => InputKey::Scalar,
            Input::Tensor(o) => InputKey::Tensor(o.dtype, c),
        })
        .collect();
    KernelKey::Elementwise {
        func: k.func,
        compute: k.compute,
        out: k.out_dtype,
        inputs,
    }
}

pub fn elementwise_source(func: Func, c: Compute, out: DType, inputs: &[InputKey]) -> String {
    let t = c.wgsl();
    let mut bindings = String::new();
    let mut index = String::new();
    let mut loads = String::new();
    let strided = inputs
        .iter()
        .any(|k| matches!(k, InputKey::Tensor(_, false)));
    if strided {
        index.push_str("    var rem = i;\n");
    }
    let mut binding = 2;
    for (k, inp) in inputs.iter().enumerate() {
        let name = ["a", "b"][k];
        match *inp {
            InputKey::Scalar => loads.push_str(&format!("    let {name} = bitcast<{t}>(m(3u));\n")),
            InputKey::Tensor(d, contiguous) => {
                bindings.push_str(&format!(
                    "@group(0) @binding({binding}) var<storage, read> in{k}: array<{}>;\n",
                    storage_type(d)
                ));
                binding += 1;
                if contiguous {
                    index.push_str(&format!("    let o{k} = m({}u) + i;\n", 4 + k));
                } else {
                    index.push_str(&format!("    var o{k} = m({}u);\n", 4 + k));
                }
                loads.push_str(&format!(
                    "    let {name} = {};\n",
                    load(&format!("in{k}[o{k}]"), d, c)
                ));
            }
        }
    }
    if strided {
        let mut body = String::new();
        for (k, inp) in inputs.iter().enumerate() {
            if let InputKey::Tensor(_, false) = inp {
                body.push_str(&format!("        o{k} += c * m({}u + d);\n", 15 + 8 * k));
            }
        }
        index.push_str(&format!(
            "    for (var d = m(1u); d > 0u; d--) {{\n        let s = m(7u + d);\n        let c = rem % s;\n        rem /= s;\n{body}    }}\n"
        ));
    }
    let value = match func {
        Func::Cast => "a".to_string(),
        Func::Op(op) => {
            let expr = op
                .info()
                .wgsl
                .replace("_T(", &format!("_{t}("))
                .replace("T(", &format!("{t}("));
            if op.info().kind == ResultKind::Bool {
                return fill_elementwise(&[
                    ("OUT", storage_type(out)),
                    ("INPUTS", &bindings),
                    ("INDEX", &index),
                    ("LOADS", &loads),
                    ("STORE", &format!("select(0u, 1u, {expr})")),
                ]);
            }
            format!("({expr})")
        }
    };
    fill_elementwise(&[
        ("OUT", storage_type(out)),
        ("INPUTS", &bindings),
        ("INDEX", &index),
        ("LOADS", &loads),
        ("STORE", &store(&value, c, out)),
    ])
}

pub fn reduce_key(k: &Reduce) -> KernelKey {
    KernelKey::Reduce {
        op: k.op,
        compute: k.compute,
        input: k.input.dtype,
        out: k.out_dtype,
    }
}

pub fn reduce_source(op: ReduceOp, c: Compute, input: DType, out: DType) -> String {
    let finish = match op {
        ReduceOp::Sum => "partial[0]".to_string(),
        ReduceOp::Mean => format!("partial[0] / {}(count)", c.wgsl()),
    };
    fill(
        REDUCE,
        &[
            ("OUT", storage_type(out)),
            ("IN", storage_type(input)),
            ("T", c.wgsl()),
            ("LOAD", &load("inp[off]", input, c)),
            ("FINISH", &finish),
            ("STORE", &store("v", c, out)),
        ],
    )
}

pub fn matmul_key(k: &Matmul) -> KernelKey {
    KernelKey::Matmul { dtype: k.dtype }
}

pub fn matmul_source(dtype: DType) -> String {
    let c = dtype.compute_for_cast();
    fill(
        MATMUL,
        &[
            ("OUT", storage_type(dtype)),
            ("IN", storage_type(dtype)),
            ("T", c.wgsl()),
            ("STORE", &store("v", c, dtype)),
        ],
    )
}

/// The source of any key (used on a pipeline-cache miss).
pub fn source(key: &KernelKey) -> String {
    match key {
        KernelKey::Elementwise {
            func,
            compute,
            out,
            inputs,
        } => elementwise_source(*func, *compute, *out, inputs),
        KernelKey::Reduce {
            op,
            compute,
            input,
            out,
        } => reduce_source(*op, *compute, *input, *out),
        KernelKey::Matmul { dtype } => matmul_source(*dtype),
    }
}

/// A short label naming the kernel, for validation errors and traces.
pub fn label(key: &KernelKey) -> String {
    match key {
        KernelKey::Elementwise {
            func: Func::Op(op),
            out,
            ..
        } => format!("webtorch:{}:{}", op_name(*op), out.name()),
        KernelKey::Elementwise {
            func: Func::Cast,
            out,
            ..
        } => format!("webtorch:copy:{}", out.name()),
        KernelKey::Reduce { op, out, .. } => {
            format!("webtorch:{op:?}:{}", out.name()).to_lowercase()
        }
        KernelKey::Matmul { dtype } => format!("webtorch:matmul:{}", dtype.name()),
    }
}

fn op_name(op: Op) -> &'static str {
    op.info().name
}
