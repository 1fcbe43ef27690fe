//! The selection kernel (`kthvalue`): its description (`Select`), its program (`select.wgsl`,
//! with its CPU twin in `cpu.rs`) and its dispatch.

use crate::backend::program::{grid_for, put, Dispatch, Program};
use crate::backend::{Backend, BufId};
use crate::dtype::{Compute, DType};
use crate::err;
use crate::error::Result;
use crate::ops::wgsl::{fill, storage_type};

const SELECT: &str = include_str!("select.wgsl");

/// For each row of a contiguous `[rows, n]` input at `offset`, the index (int32, into the row)
/// of its `k`-th smallest element (0-based) as PyTorch's CPU quickselect picks it: among equal
/// values, the one its partitioning leaves at position `k`.
#[derive(Clone, Debug)]
pub struct Select {
    pub input: BufId,
    pub offset: usize,
    pub dtype: DType,
    pub rows: usize,
    pub n: usize,
    pub k: usize,
    pub out: BufId,
}

/// The selections, one invocation per row; its variant is the keys' dtype code (float64, a
/// CPU-only dtype, runs its twin alone). Writes the indices and the scratch; reads the input.
pub static SELECT_K: Program = Program {
    name: "select_k",
    wgsl: |v| source(DType::ALL[v as usize]),
    label: |v| format!("webtorch:kthvalue:{}", DType::ALL[v as usize].name()),
    writes: 2,
    writes_whole_output: false,
    cpu: super::cpu::select,
};

fn source(dtype: DType) -> String {
    let gt = if dtype.compute() == Compute::F32 {
        "    return (isnan_f32(a) && !isnan_f32(b)) || (!isnan_f32(a) && !isnan_f32(b) && a > b);"
    } else {
        "    return a > b;"
    };
    fill(SELECT, &[("T", storage_type(dtype)), ("GT", gt)])
}

/// Runs the selections (uniform words: the header of `select.wgsl`) through a scratch of
/// `rows · n` (key, index) pairs.
pub fn run(backend: &dyn Backend, s: &Select) -> Result<()> {
    let total = s.rows.checked_mul(s.n).ok_or_else(|| err!(OutOfMemory, "kthvalue too large"))?;
    let scratch = backend.alloc(total as u64 * 8)?;
    let result = (|| {
        let (gx, gy, per_row) = grid_for(s.rows)?;
        let mut meta = [0u32; 8];
        put(&mut meta, 0, &[s.rows, s.n, s.offset, s.k, per_row])?;
        backend.dispatch(&Dispatch {
            program: &SELECT_K,
            variant: s.dtype.code(),
            buffers: &[s.out, scratch, s.input],
            uniforms: &meta,
            groups: (gx, gy, 1),
        })
    })();
    // The scratch goes back to the pool; it is reused only after this work is submitted.
    backend.release(scratch);
    result
}
