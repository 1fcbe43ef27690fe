//! Reductions' launches (`Reduce`): the route each takes — columns in chunks, runs first, one
//! workgroup per output, the lean row kernel, one invocation per output for short rows — its
//! meta words and dispatch grid (`shaders/reduce.wgsl`, `reduce_gen.rs`, `rows.rs`).

use super::codegen;
use super::launch::put;
use super::{rows, WebGpuBackend, MAX_RANK};
use crate::backend::Reduce;
use crate::dtype::DType;
use crate::error::Result;
use crate::{bail, err};

impl WebGpuBackend {
    pub(super) fn reduce_impl(&self, k: &Reduce) -> Result<()> {
        if k.outer.len() > MAX_RANK || k.inner.len() > MAX_RANK {
            bail!(
                Shape,
                "webgpu: reductions over views with more than {MAX_RANK} non-mergeable dims are not supported"
            );
        }
        if let Some(c) = column_chunk(k) {
            return self.reduce_columns(k, c);
        }
        if let Some(at) = runs_split(k) {
            return self.reduce_runs_first(k, at);
        }
        if let Some(len) = row_chunk(k) {
            return self.reduce_split(k, len);
        }
        self.reduce_unchunked(k)
    }

    /// A reduction of long rows into few outputs (`row_chunk`) split across workgroups: each
    /// phase a dispatch of one workgroup per (output, chunk of `len` elements) writing its
    /// chunk's accumulator into a scratch, each such dispatch rebuilding the earlier phases'
    /// results from their partials (var/std: the mean, then the refined mean); then one
    /// workgroup per output merging the last phase's partials and storing the result
    /// (`reduce_gen::Form`). Every merge keeps the tree order: each chunk's elements in the
    /// cascade of `shaders/reduce.wgsl`, the chunks in a workgroup tree.
    fn reduce_split(&self, k: &Reduce, len: usize) -> Result<()> {
        use codegen::{RD_SPLIT, RD_WORDS};
        let n_out: usize = k.outer.iter().product();
        let count: usize = k.inner.iter().product();
        let chunks = count.div_ceil(len);
        let passes = k.op.passes() as usize;
        let scratch = self.alloc_from_pool((passes * n_out * chunks * 4) as u64, false)?;
        let run = || -> Result<()> {
            let part = Reduce { out: scratch, out_dtype: DType::Float32, ..k.clone() };
            let (key, scalars) = codegen::reduce_key_as(&part, codegen::Form::Chunks);
            let groups = u32::try_from(n_out * chunks).map_err(|_| err!(OutOfMemory, "too many outputs"))?;
            let (gx, gy) = Self::grid(groups);
            let (mut meta, buffers) = reduce_meta(&part, &scalars, gx)?;
            put(&mut meta, RD_SPLIT, &[chunks, len])?;
            for phase in 0..passes {
                meta[RD_SPLIT + 2] = phase as u32;
                self.record(&key, &meta, &buffers, (gx, gy, 1))?;
            }
            let key = codegen::KernelKey::Reduce {
                op: k.op,
                compute: k.compute,
                input: DType::Float32,
                out: k.out_dtype,
                form: codegen::Form::Final,
                prologue: None,
            };
            let (gx, gy) = Self::grid(u32::try_from(n_out).map_err(|_| err!(OutOfMemory, "too many outputs"))?);
            let mut meta = [0u32; RD_WORDS];
            put(&mut meta, 0, &[n_out, 0, 0, count, 0, gx as usize])?;
            meta[6] = (k.param as f32).to_bits();
            put(&mut meta, RD_SPLIT, &[chunks])?;
            self.record(&key, &meta, &[k.out, scratch], (gx, gy, 1))
        };
        let r = run();
        crate::backend::Backend::release(self, scratch);
        r
    }

    /// A reduction over several dims into few outputs (`runs_split`) in two steps: each output's
    /// runs over the reduced dims from `at` on first (the reduced dims before `at` joining the
    /// outputs: a scratch `[outputs, runs]`), then each output's runs. Regrouping the dims leaves
    /// every operand's strides (outer then inner) as they are; a prologue runs in the first step.
    fn reduce_runs_first(&self, k: &Reduce, at: usize) -> Result<()> {
        let n_out: usize = k.outer.iter().product();
        let runs: usize = k.inner[..at].iter().product();
        let scratch = self.alloc_from_pool((n_out * runs * 4) as u64, false)?;
        let first = Reduce {
            outer: k.outer.iter().chain(&k.inner[..at]).copied().collect(),
            inner: k.inner[at..].to_vec(),
            out: scratch,
            out_dtype: DType::Float32,
            ..k.clone()
        };
        let rest = Reduce {
            input: crate::backend::Operand { buf: scratch, dtype: DType::Float32, offset: 0, strides: vec![runs, 1] },
            outer: vec![n_out],
            inner: vec![runs],
            prologue: None,
            ..k.clone()
        };
        let r = self.reduce_impl(&first).and_then(|_| self.reduce_impl(&rest));
        crate::backend::Backend::release(self, scratch);
        r
    }

    /// `reduce_impl` without the column split: one workgroup per output, the lean row kernel,
    /// or one invocation per output for short rows.
    fn reduce_unchunked(&self, k: &Reduce) -> Result<()> {
        let n_out: usize = k.outer.iter().product();
        let n32 = u32::try_from(n_out).map_err(|_| err!(OutOfMemory, "too many outputs"))?;
        // Contiguous float32 sum/mean: the lean kernel (`rows.rs`); else one workgroup per
        // output, or one invocation per output for short rows.
        let plan = rows::reduce_plan(k);
        let groups = match plan {
            Some(p) => n32.div_ceil(p.rows()),
            None if codegen::rows_kernel(k) => n32.div_ceil(codegen::ROWS_WG),
            None => n32,
        };
        let (gx, gy) = Self::grid(groups);
        let (key, scalars) = match plan {
            Some(p) => (rows::reduce_key(k, p), vec![]),
            None => codegen::reduce_key(k),
        };
        let (meta, buffers) = reduce_meta(k, &scalars, gx)?;
        self.record(&key, &meta, &buffers, (gx, gy, 1))
    }

    /// A column sum (`column_chunk`) in two steps: each chunk of `c` rows summed into a scratch
    /// `[rows / c, columns]` (one invocation per output, neighbours reading neighbouring
    /// addresses), then the chunks' sum, a workgroup per column (split again only past
    /// `COLUMN_CHUNKS_MAX` chunks).
    fn reduce_columns(&self, k: &Reduce, c: usize) -> Result<()> {
        let (n, rows) = (k.outer[0], k.inner[0]);
        // (With a prologue, `input` only names the dtype: its strides are left as they are.)
        let chunked = |o: &crate::backend::Operand| match o.strides[..] {
            [sn, sr] => crate::backend::Operand { strides: vec![c * sr, sn, sr], ..o.clone() },
            _ => o.clone(),
        };
        let scratch = self.alloc_from_pool(((rows / c) * n * 4) as u64, false)?;
        let first = Reduce {
            input: chunked(&k.input),
            outer: vec![rows / c, n],
            inner: vec![c],
            out: scratch,
            out_dtype: DType::Float32,
            prologue: k.prologue.as_ref().map(|p| crate::backend::Prologue {
                nodes: p.nodes.clone(),
                leaves: p.leaves.iter().map(chunked).collect(),
            }),
            ..k.clone()
        };
        let rest = Reduce {
            input: crate::backend::Operand { buf: scratch, dtype: DType::Float32, offset: 0, strides: vec![1, n] },
            outer: vec![n],
            inner: vec![rows / c],
            prologue: None,
            ..k.clone()
        };
        let r = self.reduce_unchunked(&first).and_then(|_| {
            if rows / c > COLUMN_CHUNKS_MAX {
                self.reduce_impl(&rest)
            } else {
                self.reduce_unchunked(&rest)
            }
        });
        crate::backend::Backend::release(self, scratch);
        r
    }
}

/// Rows a column sum's first pass sums per invocation (`column_chunk`).
const COLUMN_CHUNK: usize = 16;
/// Chunk sums a second pass takes in one workgroup per column (more are chunked again).
const COLUMN_CHUNKS_MAX: usize = 4096;

/// Rows per chunk when a float32 sum runs down the columns of a matrix (one reduced dim strided
/// across contiguous outputs: a bias gradient summed over 8,192 tokens): one workgroup per
/// column would read one float per row it visits; chunks of rows summed by one invocation per
/// (chunk, column) read whole rows at a time. An invocation's loads follow one another, each
/// waiting out the memory's latency, so short chunks and many invocations beat long ones: with
/// 64 rows a chunk (and the 128 chunk sums chunked again) the transformer block's column sums
/// took 1.05–1.11 ms of GPU time a step, with 16 rows and one pass over the chunk sums
/// 0.74–0.79 ms (H200; bench/KERNELS.md, "Column sums"). `None` for anything else (under 256
/// rows: one workgroup per column).
fn column_chunk(k: &Reduce) -> Option<usize> {
    const C: usize = COLUMN_CHUNK;
    let plain = k.op == crate::backend::ReduceOp::Sum
        && k.compute == crate::dtype::Compute::F32
        && k.out_dtype == DType::Float32
        && k.outer.len() == 1
        && k.inner.len() == 1
        && k.outer[0] >= 64
        && k.inner[0] >= 256
        && k.inner[0].is_multiple_of(C);
    if !plain {
        return None;
    }
    // Outputs next to each other read memory next to each other (or a broadcast leaf).
    let leaves = reduce_leaves(k);
    let columns = leaves
        .iter()
        .all(|o| o.dtype == DType::Float32 && o.strides.len() == 2 && o.strides[0] <= 1 && o.strides[1] >= k.outer[0])
        && leaves.iter().any(|o| o.strides[0] == 1);
    columns.then_some(C)
}

/// Where a float32 sum or mean over several non-mergeable dims splits into runs
/// (`reduce_runs_first`: the reduced dims from the returned index on are each run), or `None` to
/// reduce in one step. With few outputs (batch norm's per-channel statistics of an `[N, C, H, W]`
/// activation: 64 outputs of 401,408 values each) one workgroup per output left most of a large
/// GPU idle and walked every element through the general kernel's index arithmetic; by runs
/// first, each (image, channel) row of `H·W` values is one output of the lean row kernel. (A mean
/// of equal-length runs' means is the mean.) A run spans trailing dims until it holds at least
/// `RUN_MIN` values: over a view whose rows do not merge (the gradient arriving through a padded
/// max pool's backward is a slice `[.., 112, 112]` of `[.., 114, 114]`), one 256-invocation
/// workgroup per 112-value row left most of each workgroup idle and ran batch norm's fused
/// backward sums at a quarter of the bandwidth. Measured: bench/KERNELS.md, "Reductions by
/// runs" (H100) and "The ResNet-18 step, traced" (H200).
fn runs_split(k: &Reduce) -> Option<usize> {
    const RUN_MIN: usize = 2048;
    let n_out: usize = k.outer.iter().product();
    let count: usize = k.inner.iter().product();
    let applies = matches!(k.op, crate::backend::ReduceOp::Sum | crate::backend::ReduceOp::Mean)
        && k.compute == crate::dtype::Compute::F32
        && k.out_dtype == DType::Float32
        && k.inner.len() >= 2
        && n_out < 1024
        && count >= 16384;
    if !applies {
        return None;
    }
    let mut at = k.inner.len() - 1;
    while at > 1 && k.inner[at..].iter().product::<usize>() < RUN_MIN {
        at -= 1;
    }
    let run: usize = k.inner[at..].iter().product();
    (run >= 16 && n_out * (count / run) <= 1 << 26).then_some(at)
}

/// A reduction's meta words (`shaders/reduce.wgsl`; the split words left 0) and its buffers:
/// the output, then the leaves.
fn reduce_meta(
    k: &Reduce,
    scalars: &[(f64, crate::dtype::Compute)],
    gx: u32,
) -> Result<([u32; codegen::RD_WORDS], Vec<crate::backend::BufId>)> {
    use codegen::{RD_MAX_LEAVES, RD_MAX_SCALARS, RD_OFFSETS, RD_SCALARS, RD_STRIDES, RD_WORDS};
    let n_out: usize = k.outer.iter().product();
    let count: usize = k.inner.iter().product();
    // Leaf 0 is the input (or the prologue's first leaf); a prologue's others follow it.
    let leaves = reduce_leaves(k);
    if leaves.len() > RD_MAX_LEAVES || scalars.len() > RD_MAX_SCALARS {
        bail!(Torch, "webgpu: a fused reduction reads at most {RD_MAX_LEAVES} tensors and {RD_MAX_SCALARS} scalars");
    }
    let mut meta = [0u32; RD_WORDS];
    put(&mut meta, 0, &[n_out, k.outer.len(), k.inner.len(), count, leaves[0].offset, gx as usize])?;
    meta[6] = (k.param as f32).to_bits();
    let no = k.outer.len();
    put(&mut meta, 8, &k.outer)?;
    put(&mut meta, 24, &k.inner)?;
    let mut buffers = vec![k.out];
    for (i, o) in leaves.iter().enumerate() {
        let (off, outer_st, inner_st) = if i == 0 {
            (4, 16, 32)
        } else {
            (RD_OFFSETS + i, RD_STRIDES + 16 * (i - 1), RD_STRIDES + 16 * (i - 1) + 8)
        };
        put(&mut meta, off, &[o.offset])?;
        put(&mut meta, outer_st, &o.strides[..no])?;
        put(&mut meta, inner_st, &o.strides[no..])?;
        buffers.push(o.buf);
    }
    for (q, (x, c)) in scalars.iter().enumerate() {
        meta[RD_SCALARS + q] = match c {
            crate::dtype::Compute::F32 => (*x as f32).to_bits(),
            _ => *x as i32 as u32,
        };
    }
    Ok((meta, buffers))
}

/// Elements per chunk when a reduction of long rows into few outputs splits each row across
/// workgroups (`reduce_split`), or `None` to keep one workgroup per output. One 256-invocation
/// workgroup per output leaves all but a few of a large GPU's cores idle on a row of 10⁷
/// elements (`x.var()`, a norm of all parameters); chunks of at least `SPLIT_LEN` elements
/// (256 invocations × 64 each), about `SPLIT_GROUPS` workgroups in all, keep them busy while
/// the scratch of partials stays small. Ops whose accumulator is a float32 value merged
/// whatever its index (not argmax/argmin, nor the integer-valued ones).
fn row_chunk(k: &Reduce) -> Option<usize> {
    use crate::backend::ReduceOp::*;
    const SPLIT_MIN: usize = 1 << 16;
    const SPLIT_LEN: usize = 1 << 14;
    const SPLIT_GROUPS: usize = 2048;
    let n_out: usize = k.outer.iter().product();
    let count: usize = k.inner.iter().product();
    let applies = matches!(k.op, Sum | Mean | Var | Std | Norm1 | Norm2 | NormP | Max | Min | LogSumExp)
        && k.compute == crate::dtype::Compute::F32
        && count >= SPLIT_MIN
        && n_out < 1024;
    if !applies {
        return None;
    }
    let len = (count * n_out).div_ceil(SPLIT_GROUPS).max(SPLIT_LEN).next_multiple_of(256);
    (count.div_ceil(len) >= 2).then_some(len)
}

/// The tensors a reduction reads: the prologue's leaves, or the input itself.
fn reduce_leaves(k: &Reduce) -> &[crate::backend::Operand] {
    match &k.prologue {
        Some(p) => &p.leaves,
        None => std::slice::from_ref(&k.input),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{Operand, ReduceOp};

    fn sum(outer: &[usize], inner: &[usize]) -> Reduce {
        Reduce {
            op: ReduceOp::Sum,
            compute: crate::dtype::Compute::F32,
            input: Operand { buf: 0, dtype: DType::Float32, offset: 0, strides: vec![0; outer.len() + inner.len()] },
            outer: outer.to_vec(),
            inner: inner.to_vec(),
            out: 1,
            out_dtype: DType::Float32,
            param: 0.0,
            prologue: None,
        }
    }

    /// Runs span trailing reduced dims until they hold 2,048 values; few outputs or small
    /// reductions stay one step.
    #[test]
    fn runs_split_where_runs_are_long_enough() {
        // [N, C, H·W] merged: each (image, channel) row is a run.
        assert_eq!(runs_split(&sum(&[64], &[32, 12544])), Some(1));
        // A padded view's rows did not merge: a run is H·W, not W.
        assert_eq!(runs_split(&sum(&[64], &[32, 112, 112])), Some(1));
        assert_eq!(runs_split(&sum(&[64], &[32, 8, 16, 16])), Some(1));
        assert_eq!(runs_split(&sum(&[64], &[4, 8, 4096])), Some(2));
        // Many outputs, few values, or a single reduced dim: one step.
        assert_eq!(runs_split(&sum(&[4096], &[32, 12544])), None);
        assert_eq!(runs_split(&sum(&[64], &[8, 1024])), None);
        assert_eq!(runs_split(&sum(&[64], &[401408])), None);
        let mut max = sum(&[64], &[32, 12544]);
        max.op = ReduceOp::Max;
        assert_eq!(runs_split(&max), None);
    }

    /// Long rows into few outputs split into chunks of at least 16,384 elements, about 2,048
    /// workgroups in all; short rows, many outputs and argmax keep one workgroup per output.
    #[test]
    fn long_rows_split_into_chunks() {
        assert_eq!(row_chunk(&sum(&[1], &[10_000_000])), Some(16384));
        let mut var = sum(&[4], &[2_500_000]);
        var.op = ReduceOp::Var;
        assert_eq!(row_chunk(&var), Some(16384));
        assert_eq!(row_chunk(&sum(&[512], &[1 << 20])), Some(1 << 18));
        assert_eq!(row_chunk(&sum(&[1], &[65535])), None);
        assert_eq!(row_chunk(&sum(&[1024], &[1 << 20])), None);
        let mut arg = sum(&[1], &[10_000_000]);
        arg.op = ReduceOp::ArgMax;
        assert_eq!(row_chunk(&arg), None);
    }

    /// Every op a split takes has both split forms of its kernel (the template keeps the shape
    /// the forms rewrite).
    #[test]
    fn split_forms_generate() {
        use crate::dtype::Compute;
        for op in [
            ReduceOp::Sum,
            ReduceOp::Mean,
            ReduceOp::Var,
            ReduceOp::Std,
            ReduceOp::Norm2,
            ReduceOp::Max,
            ReduceOp::LogSumExp,
        ] {
            for form in [codegen::Form::Tree, codegen::Form::Rows, codegen::Form::Chunks, codegen::Form::Final] {
                let src = codegen::reduce_source(op, Compute::F32, DType::Float32, DType::Float32, None, form);
                assert!(src.is_some(), "{op:?} {form:?}");
            }
        }
    }
}
