//! The scan kernel (`cumsum`, `cumprod`, `logcumsumexp`, the indices of `cummax`/`cummin`): its
//! description (`Scan`), its program (`scan.wgsl`, with its CPU twin in `cpu.rs`) and its
//! dispatch.

use crate::backend::program::{grid, put, Dispatch, Program};
use crate::backend::{Backend, BufId};
use crate::dtype::{Compute, DType};
use crate::err;
use crate::error::Result;
use crate::ops::wgsl::{fill, storage_type, MATH};

const SCAN: &str = include_str!("scan.wgsl");

/// A scan (`cumsum`, `cumprod`, `cummax`, `cummin`, `logcumsumexp`) along the rows of a
/// contiguous `[rows, n]` input at `offset` (the tensor layer moves the scanned dim last).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScanOp {
    Sum,
    Prod,
    /// Writes the index (int32) of the running maximum (ties and NaN: the later element).
    Max,
    Min,
    LogSumExp,
}

/// `out[r, j] = input[r, 0] ⊕ … ⊕ input[r, j]` (`Max`/`Min`: the index of that extreme). `dtype`
/// is the input's storage (float32, or an integer dtype computed in i32); the output is `dtype`
/// for Sum/Prod/LogSumExp and int32 words for Max/Min.
#[derive(Clone, Debug)]
pub struct Scan {
    pub op: ScanOp,
    pub input: BufId,
    pub offset: usize,
    pub dtype: DType,
    pub rows: usize,
    pub n: usize,
    pub out: BufId,
}

impl ScanOp {
    /// Every op, in declaration order: an op's index here is its part of the variant.
    const ALL: [ScanOp; 5] = [ScanOp::Sum, ScanOp::Prod, ScanOp::Max, ScanOp::Min, ScanOp::LogSumExp];
}

/// A variant: the op and the input's dtype.
pub(super) fn variant(op: ScanOp, dtype: DType) -> u32 {
    op as u32 * DType::ALL.len() as u32 + dtype.code()
}

pub(super) fn from_variant(v: u32) -> (ScanOp, DType) {
    let n = DType::ALL.len() as u32;
    (ScanOp::ALL[(v / n) as usize], DType::ALL[(v % n) as usize])
}

/// The scan, one workgroup per row. Writes the results; reads the rows.
pub static SCAN_ROWS: Program = Program {
    name: "scan",
    wgsl: |v| {
        let (op, dtype) = from_variant(v);
        source(op, dtype)
    },
    label: |v| {
        let (op, dtype) = from_variant(v);
        format!("webtorch:scan_{op:?}:{}", dtype.name()).to_lowercase()
    },
    writes: 1,
    writes_whole_output: false,
    cpu: super::cpu::scan,
};

fn source(op: ScanOp, dtype: DType) -> String {
    let t = storage_type(dtype);
    let float = dtype.compute() == Compute::F32;
    let unset = "    if (b.i < 0) { return a; }\n    if (a.i < 0) { return b; }\n";
    let (identity, combine) = match op {
        ScanOp::Sum => (format!("{t}(0)"), "    return P(a.v + b.v, max(a.i, b.i));".to_string()),
        ScanOp::Prod => (format!("{t}(1)"), "    return P(a.v * b.v, max(a.i, b.i));".to_string()),
        ScanOp::LogSumExp => (
            "inf_like(-1.0)".to_string(),
            "    let i = max(a.i, b.i);\n    if (isnan_f32(a.v) || isnan_f32(b.v)) { return P(a.v + b.v, i); }\n    let mx = max(a.v, b.v);\n    if (isinf_f32(mx)) { return P(mx, i); }\n    return P(mx + log_f32(exp_f32(a.v - mx) + exp_f32(b.v - mx)), i);".to_string(),
        ),
        ScanOp::Max | ScanOp::Min => {
            // PyTorch's rule: the later element wins when it is NaN or not beyond the running
            // extreme; a NaN extreme sticks.
            let nan = if float {
                "    if (isnan_f32(b.v)) { return b; }\n    if (isnan_f32(a.v)) { return a; }\n"
            } else {
                ""
            };
            let cmp = if op == ScanOp::Max { ">=" } else { "<=" };
            (format!("{t}(0)"), format!("{unset}{nan}    if (b.v {cmp} a.v) {{ return b; }}\n    return a;"))
        }
    };
    let (out, write) = match op {
        ScanOp::Max | ScanOp::Min => ("i32", "r.i"),
        _ => (t, "r.v"),
    };
    let src = fill(SCAN, &[("T", t), ("OUT", out), ("COMBINE", &combine), ("IDENTITY", &identity), ("WRITE", write)]);
    format!("{MATH}\n{src}")
}

/// Runs the scan (uniform words: the header of `scan.wgsl`).
pub fn run(backend: &dyn Backend, k: &Scan) -> Result<()> {
    let rows = u32::try_from(k.rows).map_err(|_| err!(OutOfMemory, "too many rows"))?;
    let (gx, gy) = grid(rows);
    let mut meta = [0u32; 8];
    put(&mut meta, 0, &[k.rows, k.n, k.offset, 0, 0, gx as usize])?;
    backend.dispatch(&Dispatch {
        program: &SCAN_ROWS,
        variant: variant(k.op, k.dtype),
        buffers: &[k.out, k.input],
        uniforms: &meta,
        groups: (gx, gy, 1),
    })
}
