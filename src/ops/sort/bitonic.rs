//! The sort kernels: the description (`Sort`), the three programs of the bitonic network
//! (`sort.wgsl`, with their CPU twins in `cpu.rs`) and the dispatch sequence: `init`, log²P
//! `stage` steps and `final`, recorded into the open batch like any other kernels.

use crate::backend::program::{grid_for, put, Dispatch, Program};
use crate::backend::{Backend, BufId};
use crate::dtype::{Compute, DType};
use crate::err;
use crate::error::Result;
use crate::ops::wgsl::{fill, storage_type};

const SORT: &str = include_str!("sort.wgsl");

/// Sorts each row of a contiguous `[rows, n]` input at `offset` and writes the permutation
/// (int32 indices into the row) to `out`: ascending or descending, NaN ordered above +inf, ties
/// kept in their original order (a stable sort, so results are deterministic on every backend).
#[derive(Clone, Debug)]
pub struct Sort {
    pub input: BufId,
    pub offset: usize,
    pub dtype: DType,
    pub rows: usize,
    pub n: usize,
    pub descending: bool,
    pub out: BufId,
}

/// Which of the sort's three kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Init,
    Stage,
    Final,
}

/// Copies each row's words and indices into the interleaved scratch; its variant is always
/// int32's code (it moves words). Writes the scratch; reads the input.
pub static INIT: Program = Program {
    name: "sort_init",
    wgsl: |v| source(Step::Init, DType::ALL[v as usize]),
    label: |v| label(Step::Init, DType::ALL[v as usize]),
    writes: 1,
    writes_whole_output: false,
    cpu: super::cpu::sort_init,
};

/// One (k, j) step of the network; its variant is the keys' dtype code. Writes the scratch.
pub static STAGE: Program = Program {
    name: "sort_stage",
    wgsl: |v| source(Step::Stage, DType::ALL[v as usize]),
    label: |v| label(Step::Stage, DType::ALL[v as usize]),
    writes: 1,
    writes_whole_output: false,
    cpu: super::cpu::sort_stage,
};

/// Writes the first n indices of each sorted row; its variant is always int32's code. Writes
/// the permutations; reads the scratch.
pub static FINAL: Program = Program {
    name: "sort_final",
    wgsl: |v| source(Step::Final, DType::ALL[v as usize]),
    label: |v| label(Step::Final, DType::ALL[v as usize]),
    writes: 1,
    writes_whole_output: false,
    cpu: super::cpu::sort_final,
};

/// float64 rows (a CPU-only dtype, so this program has no WGSL): the CPU's stable sort straight
/// into the permutation (words 0: rows, 1: n, 2: input offset in elements, 3: descending).
/// Writes the permutations; reads the input.
pub static SORT64: Program = Program {
    name: "sort_float64",
    wgsl: |_| unreachable!("float64 lives on the CPU backend alone"),
    label: |_| "webtorch:sort:float64".to_string(),
    writes: 1,
    writes_whole_output: false,
    cpu: super::cpu::sort64,
};

fn label(step: Step, dtype: DType) -> String {
    format!("webtorch:sort_{step:?}:{}", dtype.name()).to_lowercase()
}

/// The three comparisons of two keys `a`, `b` (NaN above everything, NaNs equal).
fn order(c: Compute) -> &'static str {
    if c == Compute::F32 {
        "    let na = isnan_f32(a);\n    let nb = isnan_f32(b);\n    let less = (!na && nb) || (!na && !nb && a < b);\n    let greater = (na && !nb) || (!na && !nb && a > b);\n    let equal = (na && nb) || a == b;\n"
    } else {
        "    let less = a < b;\n    let greater = a > b;\n    let equal = a == b;\n"
    }
}

fn source(step: Step, dtype: DType) -> String {
    let (bindings, body) = match step {
        Step::Init => (
            "@group(0) @binding(1) var<storage, read_write> data: array<u32>;\n@group(0) @binding(2) var<storage, read> inp: array<u32>;",
            "    if (t >= m(0u) * m(2u)) { return; }\n    let row = t / m(2u);\n    let j = t % m(2u);\n    var key = 0u;\n    if (j < m(1u)) { key = inp[m(3u) + row * m(1u) + j]; }\n    data[2u * t] = key;\n    data[2u * t + 1u] = j;",
        ),
        Step::Stage => (
            "@group(0) @binding(1) var<storage, read_write> data: array<u32>;",
            "    let half = m(2u) / 2u;\n    if (t >= m(0u) * half) { return; }\n    let i = t % half;\n    let j = m(5u);\n    let at = (i / j) * 2u * j + (i % j);\n    let lo = (t / half) * m(2u) + at;\n    let hi = lo + j;\n    let up = (at & m(4u)) == 0u;\n    let ak = data[2u * lo];\n    let ai = data[2u * lo + 1u];\n    let bk = data[2u * hi];\n    let bi = data[2u * hi + 1u];\n    if (select(before(ak, ai, bk, bi), before(bk, bi, ak, ai), up)) {\n        data[2u * lo] = bk;\n        data[2u * lo + 1u] = bi;\n        data[2u * hi] = ak;\n        data[2u * hi + 1u] = ai;\n    }",
        ),
        Step::Final => (
            "@group(0) @binding(1) var<storage, read_write> out: array<i32>;\n@group(0) @binding(2) var<storage, read> data: array<u32>;",
            "    let n = m(1u);\n    if (t >= m(0u) * n) { return; }\n    out[t] = i32(data[2u * ((t / n) * m(2u) + t % n) + 1u]);",
        ),
    };
    fill(SORT, &[("BINDINGS", bindings), ("T", storage_type(dtype)), ("ORDER", order(dtype.compute())), ("BODY", body)])
}

/// Runs the sort (uniform words: the header of `sort.wgsl`) through a scratch of `rows · P`
/// (key, index) pairs, P the row length rounded up to a power of two.
pub fn run(backend: &dyn Backend, k: &Sort) -> Result<()> {
    if k.dtype == DType::Float64 {
        let mut meta = [0u32; 8];
        put(&mut meta, 0, &[k.rows, k.n, k.offset, k.descending as usize])?;
        let buffers = &[k.out, k.input];
        return backend.dispatch(&Dispatch {
            program: &SORT64,
            variant: 0,
            buffers,
            uniforms: &meta,
            groups: (1, 1, 1),
        });
    }
    let p = k.n.next_power_of_two();
    let total = k.rows.checked_mul(p).ok_or_else(|| err!(OutOfMemory, "sort too large"))?;
    let data = backend.alloc(total as u64 * 8)?;
    let result = (|| {
        let mut meta = [0u32; 8];
        put(&mut meta, 0, &[k.rows, k.n, p, k.offset, 0, 0, 0, k.descending as usize])?;
        let int32 = DType::Int32.code();
        let (gx, gy, per_row) = grid_for(total)?;
        meta[6] = per_row as u32;
        let buffers = &[data, k.input];
        backend.dispatch(&Dispatch {
            program: &INIT,
            variant: int32,
            buffers,
            uniforms: &meta,
            groups: (gx, gy, 1),
        })?;
        let (gx, gy, per_row) = grid_for(total / 2)?;
        meta[6] = per_row as u32;
        let mut size = 2;
        while size <= p {
            let mut j = size / 2;
            while j > 0 {
                put(&mut meta, 4, &[size, j])?;
                let (variant, groups) = (k.dtype.code(), (gx, gy, 1));
                backend.dispatch(&Dispatch { program: &STAGE, variant, buffers: &[data], uniforms: &meta, groups })?;
                j /= 2;
            }
            size *= 2;
        }
        let (gx, gy, per_row) = grid_for(k.rows * k.n)?;
        meta[6] = per_row as u32;
        let buffers = &[k.out, data];
        backend.dispatch(&Dispatch { program: &FINAL, variant: int32, buffers, uniforms: &meta, groups: (gx, gy, 1) })
    })();
    // The scratch goes back to the pool; it is reused only after this work is submitted.
    backend.release(data);
    result
}
