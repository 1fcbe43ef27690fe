//! Scans, sorts and binary searches on the GPU (`shaders/scan.wgsl`, `shaders/sort.wgsl`): the
//! kernel sources by key and the dispatch sequences (a sort is `init`, log²P `stage` steps and
//! `final`, recorded into the open pass like any other kernels).

use super::codegen::{fill, storage_type, KernelKey};
use super::launch::put;
use super::{WebGpuBackend, WG};
use crate::backend::{Scan, ScanOp, SearchSorted, Sort};
use crate::dtype::{Compute, DType};
use crate::err;
use crate::error::Result;

const SCAN: &str = include_str!("../../../shaders/scan.wgsl");
const SORT: &str = include_str!("../../../shaders/sort.wgsl");
const MATH: &str = include_str!("../../../shaders/math.wgsl");

/// Which of the sort's three kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SortStep {
    Init,
    Stage,
    Final,
}

/// The three comparisons of two keys `a`, `b` (NaN above everything, NaNs equal).
fn order(c: Compute) -> &'static str {
    if c == Compute::F32 {
        "    let na = isnan_f32(a);\n    let nb = isnan_f32(b);\n    let less = (!na && nb) || (!na && !nb && a < b);\n    let greater = (na && !nb) || (!na && !nb && a > b);\n    let equal = (na && nb) || a == b;\n"
    } else {
        "    let less = a < b;\n    let greater = a > b;\n    let equal = a == b;\n"
    }
}

pub fn scan_source(op: ScanOp, dtype: DType) -> String {
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

pub fn sort_source(step: SortStep, dtype: DType) -> String {
    let (bindings, body) = match step {
        SortStep::Init => (
            "@group(0) @binding(1) var<storage, read_write> data: array<u32>;\n@group(0) @binding(2) var<storage, read> inp: array<u32>;",
            "    if (t >= m(0u) * m(2u)) { return; }\n    let row = t / m(2u);\n    let j = t % m(2u);\n    var key = 0u;\n    if (j < m(1u)) { key = inp[m(3u) + row * m(1u) + j]; }\n    data[2u * t] = key;\n    data[2u * t + 1u] = j;",
        ),
        SortStep::Stage => (
            "@group(0) @binding(1) var<storage, read_write> data: array<u32>;",
            "    let half = m(2u) / 2u;\n    if (t >= m(0u) * half) { return; }\n    let i = t % half;\n    let j = m(5u);\n    let at = (i / j) * 2u * j + (i % j);\n    let lo = (t / half) * m(2u) + at;\n    let hi = lo + j;\n    let up = (at & m(4u)) == 0u;\n    let ak = data[2u * lo];\n    let ai = data[2u * lo + 1u];\n    let bk = data[2u * hi];\n    let bi = data[2u * hi + 1u];\n    if (select(before(ak, ai, bk, bi), before(bk, bi, ak, ai), up)) {\n        data[2u * lo] = bk;\n        data[2u * lo + 1u] = bi;\n        data[2u * hi] = ak;\n        data[2u * hi + 1u] = ai;\n    }",
        ),
        SortStep::Final => (
            "@group(0) @binding(1) var<storage, read_write> out: array<i32>;\n@group(0) @binding(2) var<storage, read> data: array<u32>;",
            "    let n = m(1u);\n    if (t >= m(0u) * n) { return; }\n    out[t] = i32(data[2u * ((t / n) * m(2u) + t % n) + 1u]);",
        ),
    };
    fill(SORT, &[("BINDINGS", bindings), ("T", storage_type(dtype)), ("ORDER", order(dtype.compute())), ("BODY", body)])
}

pub fn search_sorted_source(dtype: DType) -> String {
    let t = storage_type(dtype);
    // PyTorch's loop: move right while !(s >= v) (`right`: !(s > v)), so NaN values go last.
    let (ge, gt) = if dtype.compute() == Compute::F32 {
        ("return !isnan_f32(a) && !isnan_f32(b) && a >= b;", "return !isnan_f32(a) && !isnan_f32(b) && a > b;")
    } else {
        ("return a >= b;", "return a > b;")
    };
    let src = format!(
        "// Binary search of each value in its sorted row (searchsorted, bucketize).
// meta: [0] values, [1] n per row, [2] m, [3] one shared sorted row, [4] right, [5] sorted offset,
//       [6] values offset, [7] invocations per grid row.
@group(0) @binding(1) var<storage, read_write> out: array<i32>;
@group(0) @binding(2) var<storage, read> sorted: array<{t}>;
@group(0) @binding(3) var<storage, read> vals: array<{t}>;

fn ge(a: {t}, b: {t}) -> bool {{ {ge} }}
fn gt(a: {t}, b: {t}) -> bool {{ {gt} }}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{
    let t = gid.y * m(7u) + gid.x;
    if (t >= m(0u)) {{ return; }}
    var r = 0u;
    if (m(3u) == 0u) {{ r = t / m(1u); }}
    let base = m(5u) + r * m(2u);
    let v = vals[m(6u) + t];
    var lo = 0u;
    var hi = m(2u);
    while (lo < hi) {{
        let mid = (lo + hi) / 2u;
        let s = sorted[base + mid];
        var go = !ge(s, v);
        if (m(4u) != 0u) {{ go = !gt(s, v); }}
        if (go) {{ lo = mid + 1u; }} else {{ hi = mid; }}
    }}
    out[t] = i32(lo);
}}
"
    );
    fill(&src, &[])
}

impl WebGpuBackend {
    /// The grid for `n` invocations of 256: (x, y, invocations per grid row).
    fn grid_for(n: usize) -> Result<(u32, u32, usize)> {
        let groups = Self::groups_for(n)?;
        let (gx, gy) = Self::grid(groups);
        Ok((gx, gy, (gx * WG) as usize))
    }

    pub(super) fn scan_impl(&self, k: &Scan) -> Result<()> {
        let rows = u32::try_from(k.rows).map_err(|_| err!(OutOfMemory, "too many rows"))?;
        let (gx, gy) = Self::grid(rows);
        let mut meta = [0u32; 8];
        put(&mut meta, 0, &[k.rows, k.n, k.offset, 0, 0, gx as usize])?;
        self.record(&KernelKey::Scan { op: k.op, dtype: k.dtype }, &meta, &[k.out, k.input], (gx, gy, 1))
    }

    pub(super) fn sort_impl(&self, k: &Sort) -> Result<()> {
        let p = k.n.next_power_of_two();
        let total = k.rows.checked_mul(p).ok_or_else(|| err!(OutOfMemory, "sort too large"))?;
        let data = self.alloc_from_pool(total as u64 * 8, false)?;
        let result = (|| {
            let mut meta = [0u32; 8];
            put(&mut meta, 0, &[k.rows, k.n, p, k.offset, 0, 0, 0, k.descending as usize])?;
            let (gx, gy, per_row) = Self::grid_for(total)?;
            meta[6] = per_row as u32;
            let init = KernelKey::Sort { step: SortStep::Init, dtype: DType::Int32 };
            self.record(&init, &meta, &[data, k.input], (gx, gy, 1))?;
            let (gx, gy, per_row) = Self::grid_for(total / 2)?;
            meta[6] = per_row as u32;
            let stage = KernelKey::Sort { step: SortStep::Stage, dtype: k.dtype };
            let mut size = 2;
            while size <= p {
                let mut j = size / 2;
                while j > 0 {
                    put(&mut meta, 4, &[size, j])?;
                    self.record(&stage, &meta, &[data], (gx, gy, 1))?;
                    j /= 2;
                }
                size *= 2;
            }
            let (gx, gy, per_row) = Self::grid_for(k.rows * k.n)?;
            meta[6] = per_row as u32;
            let fin = KernelKey::Sort { step: SortStep::Final, dtype: DType::Int32 };
            self.record(&fin, &meta, &[k.out, data], (gx, gy, 1))
        })();
        // The scratch goes back to the pool; it is reused only after this work is submitted.
        <Self as crate::backend::Backend>::release(self, data);
        result
    }

    pub(super) fn search_sorted_impl(&self, k: &SearchSorted) -> Result<()> {
        let total = k.rows * k.n;
        let (gx, gy, per_row) = Self::grid_for(total)?;
        let mut meta = [0u32; 8];
        put(
            &mut meta,
            0,
            &[total, k.n, k.m, k.shared as usize, k.right as usize, k.sorted_offset, k.values_offset, per_row],
        )?;
        let key = KernelKey::SearchSorted { dtype: k.dtype };
        self.record(&key, &meta, &[k.out, k.sorted, k.values], (gx, gy, 1))
    }
}
