//! The binary search kernel (`searchsorted`, `bucketize`): its description (`SearchSorted`), its
//! program (`search_sorted.wgsl`, with its CPU twin in `cpu.rs`) and its dispatch.

use crate::backend::program::{grid_for, put, Dispatch, Program};
use crate::backend::{Backend, BufId};
use crate::dtype::{Compute, DType};
use crate::error::Result;
use crate::ops::wgsl::{fill, storage_type};

const SEARCH_SORTED: &str = include_str!("search_sorted.wgsl");

/// For each value of the contiguous `[rows, n]` `values`, the insertion point (int32) into row
/// `r` (row 0 when `shared`) of the contiguous, ascending `[*, m]` `sorted`: the first position
/// whose element is `>= v` (`>` when `right`), bisecting as PyTorch does (NaN compares false). Both share `dtype`.
#[derive(Clone, Debug)]
pub struct SearchSorted {
    pub sorted: BufId,
    pub sorted_offset: usize,
    pub values: BufId,
    pub values_offset: usize,
    pub dtype: DType,
    pub rows: usize,
    pub n: usize,
    pub m: usize,
    pub shared: bool,
    pub right: bool,
    pub out: BufId,
}

/// The searches, one invocation per value; its variant is the dtype's code. Writes the
/// insertion points; reads the sorted rows and the values.
pub static SEARCH: Program = Program {
    name: "search_sorted",
    wgsl: |v| source(DType::ALL[v as usize]),
    label: |v| format!("webtorch:searchsorted:{}", DType::ALL[v as usize].name()),
    writes: 1,
    writes_whole_output: false,
    cpu: super::cpu::search_sorted,
};

fn source(dtype: DType) -> String {
    // PyTorch's loop: move right while !(s >= v) (`right`: !(s > v)), so NaN values go last.
    let (ge, gt) = if dtype.compute() == Compute::F32 {
        ("return !isnan_f32(a) && !isnan_f32(b) && a >= b;", "return !isnan_f32(a) && !isnan_f32(b) && a > b;")
    } else {
        ("return a >= b;", "return a > b;")
    };
    fill(SEARCH_SORTED, &[("T", storage_type(dtype)), ("GE", ge), ("GT", gt)])
}

/// Runs the searches (uniform words: the header of `search_sorted.wgsl`).
pub fn run(backend: &dyn Backend, k: &SearchSorted) -> Result<()> {
    let total = k.rows * k.n;
    let (gx, gy, per_row) = grid_for(total)?;
    let mut meta = [0u32; 8];
    put(
        &mut meta,
        0,
        &[total, k.n, k.m, k.shared as usize, k.right as usize, k.sorted_offset, k.values_offset, per_row],
    )?;
    backend.dispatch(&Dispatch {
        program: &SEARCH,
        variant: k.dtype.code(),
        buffers: &[k.out, k.sorted, k.values],
        uniforms: &meta,
        groups: (gx, gy, 1),
    })
}
