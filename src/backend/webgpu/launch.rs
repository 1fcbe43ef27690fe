//! Kernel parameters: how each kernel description of the backend contract becomes a uniform
//! slot of meta words, a list of buffers and a dispatch grid (the shaders' headers document the
//! words). `mod.rs` records the dispatch; reductions' routes are `reduce_launch.rs`.

use super::codegen::{self, KernelKey};
use super::{epilogue, matmul, rows, State, WebGpuBackend, MAX_GROUPS, MAX_RANK, WG};
use crate::backend::{BufId, Elementwise, Gather, Matmul, Reduce, Rowwise, Scatter, ScatterSrc};
use crate::dtype::DType;
use crate::error::Result;
use crate::shape::{coalesce, contiguous_strides};
use crate::{bail, err};

pub(super) use crate::backend::program::put;

/// An elementwise kernel's dispatch, described (`record`'s arguments); `B` names a buffer
/// (an id, or the buffer itself where the id may be reused before the dispatch is recorded).
pub(super) struct Plan<B = BufId> {
    pub key: KernelKey,
    pub meta: [u32; codegen::EW_OUT_STRIDES + 8],
    pub buffers: Vec<B>,
    pub groups: (u32, u32, u32),
}

impl WebGpuBackend {
    pub(super) fn elementwise_impl(&self, k: &Elementwise) -> Result<()> {
        if k.leaves.len() > codegen::EW_MAX_LEAVES {
            bail!(Torch, "webgpu: an elementwise kernel reads at most {} tensors", codegen::EW_MAX_LEAVES);
        }
        if self.batch_elementwise(k)? {
            return Ok(());
        }
        let p = Self::elementwise_plan(&self.st.borrow(), k)?;
        self.record(&p.key, &p.meta, &p.buffers, p.groups)
    }

    /// An elementwise kernel's dispatch: its key, meta words, buffers and grid.
    pub(super) fn elementwise_plan(st: &State, k: &Elementwise) -> Result<Plan> {
        use codegen::{EW_MAX_SCALARS, EW_OFFSETS, EW_OUT_OFFSET, EW_OUT_STRIDES, EW_SCALARS, EW_SHAPE, EW_STRIDES};
        let contiguous = contiguous_strides(&k.shape);
        let mut strides: Vec<Vec<usize>> = k.leaves.iter().map(|o| o.strides.clone()).collect();
        let is_contig: Vec<bool> = strides.iter().map(|s| *s == contiguous).collect();
        // A strided output joins the index computation as one more operand.
        if let Some((_, out_strides)) = &k.out_view {
            strides.push(out_strides.clone());
        }
        let n = k.shape.iter().product::<usize>();
        let strided = k.out_view.is_some() || !is_contig.iter().all(|c| *c);
        let coalesced = strided.then(|| coalesce(&k.shape, &strides));
        // Strided leaves may take the vec4 variant when four elements in a row share their outer
        // indices (the innermost dim's size a multiple of 4).
        let rows_of_4 = coalesced.as_ref().is_none_or(|(shape, _)| shape.last().is_some_and(|s| s % 4 == 0));
        let x4 = rows_of_4 && Self::takes_x4(st, k, n, &is_contig);
        let (key, scalars) = codegen::elementwise_key(k, &is_contig, x4);
        if scalars.len() > EW_MAX_SCALARS {
            bail!(Torch, "webgpu: an elementwise kernel takes at most {EW_MAX_SCALARS} scalars");
        }
        let mut meta = [0u32; EW_OUT_STRIDES + 8];
        if let Some((shape, strides)) = coalesced {
            if shape.len() > MAX_RANK {
                bail!(
                    Shape,
                    "webgpu: elementwise views with more than {MAX_RANK} non-mergeable dims are not supported"
                );
            }
            meta[1] = shape.len() as u32;
            put(&mut meta, EW_SHAPE, &shape)?;
            for (i, s) in strides.iter().enumerate().take(k.leaves.len()) {
                put(&mut meta, EW_STRIDES + 8 * i, s)?;
            }
            if let Some((offset, _)) = &k.out_view {
                put(&mut meta, EW_OUT_OFFSET, &[*offset])?;
                put(&mut meta, EW_OUT_STRIDES, &strides[k.leaves.len()])?;
            }
        }
        let invocations = if x4 { n.div_ceil(4) } else { n };
        let groups = Self::groups_for(invocations)?;
        let (gx, gy) = Self::grid(groups);
        put(&mut meta, 0, &[n])?;
        meta[2] = gx * WG;
        let mut buffers = vec![k.out];
        for (i, o) in k.leaves.iter().enumerate() {
            put(&mut meta, EW_OFFSETS + i, &[o.offset])?;
            buffers.push(o.buf);
        }
        for (q, (x, c)) in scalars.iter().enumerate() {
            meta[EW_SCALARS + q] = match c {
                crate::dtype::Compute::F32 => (*x as f32).to_bits(),
                _ => *x as i32 as u32,
            };
        }
        Ok(Plan { key, meta, buffers, groups: (gx, gy, 1) })
    }

    /// Whether an elementwise kernel takes the vec4 variant: the output contiguous from 0, every
    /// contiguous leaf at an offset that is a multiple of 4, and the output and those leaves'
    /// buffers holding whole vec4 words up to the last element (pooled buffers are whole
    /// multiples of 64 bytes; others, such as imported ones, may not be). Strided leaves are
    /// read element by element (the caller checked that their rows come in fours).
    fn takes_x4(st: &State, k: &Elementwise, n: usize, is_contig: &[bool]) -> bool {
        if !crate::backend::tuning::tuning(|t| t.elementwise_x4) || k.out_view.is_some() {
            return false;
        }
        let words = |offset: usize| 4 * (offset + n.next_multiple_of(4)) as u64;
        let size = |id: crate::backend::BufId| st.bufs[id as usize].as_ref().map_or(0, |(b, _)| b.size());
        size(k.out) >= words(0)
            && k.leaves.iter().zip(is_contig).all(|(o, &c)| !c || (o.offset % 4 == 0 && size(o.buf) >= words(o.offset)))
    }

    pub(super) fn matmul_impl(&self, k: &Matmul) -> Result<()> {
        if self.batch_matmul(k)? {
            return Ok(());
        }
        if let Some(s) = matmul::split_k(k) {
            return self.matmul_split_k(k, s);
        }
        if matmul::copies_b(k) {
            return self.matmul_b_copied(k);
        }
        let nb = k.batch.len();
        let (batch, strides) = coalesce(&k.batch, &[k.a.strides[..nb].to_vec(), k.b.strides[..nb].to_vec()]);
        if batch.len() > 4 {
            bail!(Shape, "webgpu: matmul with more than 4 non-mergeable batch dims is not supported");
        }
        let batches: usize = batch.iter().product();
        if batches > MAX_GROUPS as usize {
            bail!(Shape, "webgpu: matmul over {batches} batches exceeds {MAX_GROUPS}");
        }
        let mut meta = [0u32; epilogue::META_WORDS];
        put(&mut meta, 0, &[k.m, k.n, k.k, batch.len(), k.a.offset, k.b.offset])?;
        put(&mut meta, 6, &[k.a.strides[nb], k.a.strides[nb + 1], k.b.strides[nb], k.b.strides[nb + 1]])?;
        put(&mut meta, 12, &batch)?;
        put(&mut meta, 16, &strides[0])?;
        put(&mut meta, 20, &strides[1])?;
        meta[10] = k.tri as u32;
        let mut buffers = vec![k.out, k.a.buf, k.b.buf];
        let ep = match &k.epilogue {
            Some(e) => {
                if k.dtype != crate::dtype::DType::Float32 {
                    bail!(Torch, "webgpu: matmul epilogues are float32 only");
                }
                buffers.extend(e.leaves.iter().map(|o| o.buf));
                Some(epilogue::prepare(e, nb, &mut meta)?)
            }
            None => None,
        };
        let (key, groups) = match matmul::choose(k, batches, &strides, self.limits.max_compute_workgroup_storage_size) {
            Some(t) => (KernelKey::MatmulTiled(t, ep), matmul::groups(&t, k.m, k.n, batches)),
            None => (
                KernelKey::Matmul { dtype: k.dtype, epilogue: ep },
                ((k.n as u32).div_ceil(16), (k.m as u32).div_ceil(16), batches as u32),
            ),
        };
        if groups.0 > MAX_GROUPS || groups.1 > MAX_GROUPS {
            bail!(Shape, "webgpu: matmul of {}x{} outputs exceeds the dispatch grid", k.m, k.n);
        }
        self.record(&key, &meta, &buffers, groups)
    }

    /// `a · b` with a transposed `b` (`matmul::copies_b`): `b` copied into a row-major scratch
    /// `[k, n]` (one elementwise copy), then the plain product.
    fn matmul_b_copied(&self, k: &Matmul) -> Result<()> {
        use crate::backend::{Arg, Operand};
        let scratch = self.alloc_from_pool((k.k * k.n * 4) as u64, false)?;
        let copy = f32_fill(Arg::Leaf(0), vec![k.b.clone()], vec![k.k, k.n], scratch, None);
        let plain = Matmul {
            b: Operand { buf: scratch, dtype: DType::Float32, offset: 0, strides: vec![k.n, 1] },
            ..k.clone()
        };
        let r = self.elementwise_impl(&copy).and_then(|_| self.matmul_impl(&plain));
        crate::backend::Backend::release(self, scratch);
        r
    }

    /// A 2-D product as `s` slices of K (`matmul::split_k`): a batched product of the slices
    /// into a scratch `[s, m, n]`, then their sum into `out`.
    fn matmul_split_k(&self, k: &Matmul, s: usize) -> Result<()> {
        let (m, n, kk) = (k.m, k.n, k.k / s);
        let slice = |o: &crate::backend::Operand, k_stride: usize| crate::backend::Operand {
            strides: [vec![k_stride * kk], o.strides.clone()].concat(),
            ..o.clone()
        };
        let scratch = self.alloc_from_pool((s * m * n * 4) as u64, false)?;
        let sub = Matmul {
            a: slice(&k.a, k.a.strides[1]),
            b: slice(&k.b, k.b.strides[0]),
            batch: vec![s],
            m,
            n,
            k: kk,
            out: scratch,
            dtype: k.dtype,
            epilogue: None,
            tri: crate::backend::Tri::None,
        };
        let sum = Reduce {
            op: crate::backend::ReduceOp::Sum,
            compute: crate::dtype::Compute::F32,
            input: crate::backend::Operand { buf: scratch, dtype: k.dtype, offset: 0, strides: vec![1, m * n] },
            outer: vec![m * n],
            inner: vec![s],
            out: k.out,
            out_dtype: k.dtype,
            param: 0.0,
            prologue: None,
        };
        let r = self.matmul_impl(&sub).and_then(|_| self.reduce_impl(&sum));
        crate::backend::Backend::release(self, scratch);
        r
    }

    pub(super) fn rowwise_impl(&self, k: &Rowwise) -> Result<()> {
        if k.outer.len() > MAX_RANK || k.inner.len() > MAX_RANK {
            bail!(
                Shape,
                "webgpu: row-wise kernels over views with more than {MAX_RANK} non-mergeable dims are not supported"
            );
        }
        let rows: usize = k.outer.iter().product();
        let n: usize = k.inner.iter().product();
        if rows == 0 {
            return Ok(());
        }
        // Dense rows: the register-held row kernels (`rows.rs`), several rows per workgroup.
        let plan = rows::rowwise_plan(k);
        let rows32 = u32::try_from(rows).map_err(|_| err!(OutOfMemory, "too many rows"))?;
        let (gx, gy) = Self::grid(plan.map_or(rows32, |p| rows32.div_ceil(p.rows())));
        let (no, ni) = (k.outer.len(), k.inner.len());
        let mut meta = [0u32; 64];
        put(&mut meta, 0, &[rows, no, ni, n, k.input.offset, gx as usize])?;
        meta[6] = (k.eps as f32).to_bits();
        put(&mut meta, 8, &k.outer)?;
        put(&mut meta, 16, &k.input.strides[..no])?;
        put(&mut meta, 24, &k.inner)?;
        put(&mut meta, 32, &k.input.strides[no..])?;
        put(&mut meta, 40, &k.out_strides[..no])?;
        put(&mut meta, 48, &k.out_strides[no..])?;
        let mut buffers = vec![k.out, k.input.buf];
        if let Some(w) = &k.weight {
            put(&mut meta, 7, &[w.offset])?;
            buffers.push(w.buf);
        }
        if let Some(b) = &k.bias {
            put(&mut meta, 56, &[b.offset])?;
            buffers.push(b.buf);
        }
        if let Some(g) = &k.grad {
            put(&mut meta, 57, &[g.offset])?;
            buffers.push(g.buf);
        }
        put(&mut meta, 58, &[k.queries])?;
        let key = plan.map_or_else(|| codegen::rowwise_key(k), |p| rows::rowwise_key(k, p));
        self.record(&key, &meta, &buffers, (gx, gy, 1))
    }

    pub(super) fn gather_impl(&self, k: &Gather) -> Result<()> {
        if k.shape.len() > MAX_RANK {
            bail!(Shape, "webgpu: gathers over more than {MAX_RANK} dims are not supported");
        }
        let n: usize = k.shape.iter().product();
        let groups = Self::groups_for(n)?;
        let (gx, gy) = Self::grid(groups);
        let mut meta = [0u32; 32];
        put(
            &mut meta,
            0,
            &[n, k.shape.len(), (gx * WG) as usize, k.dim, k.src.offset, k.index.offset, k.src_dim_size],
        )?;
        put(&mut meta, 8, &k.shape)?;
        put(&mut meta, 16, &k.src.strides)?;
        put(&mut meta, 24, &k.index.strides)?;
        let key = KernelKey::Gather { dtype: k.src.dtype };
        self.record(&key, &meta, &[k.out, k.src.buf, k.index.buf], (gx, gy, 1))
    }

    pub(super) fn scatter_impl(&self, k: &Scatter) -> Result<()> {
        if k.shape.len() > MAX_RANK {
            bail!(Shape, "webgpu: scatters over more than {MAX_RANK} dims are not supported");
        }
        let n: usize = k.shape.iter().product();
        let groups = Self::groups_for(n)?;
        let (gx, gy) = Self::grid(groups);
        let mut meta = [0u32; 40];
        put(&mut meta, 0, &[n, k.shape.len(), (gx * WG) as usize, k.dim])?;
        put(&mut meta, 5, &[k.index.offset, k.dim_size])?;
        put(&mut meta, 8, &k.shape)?;
        put(&mut meta, 16, &k.out_strides)?;
        put(&mut meta, 24, &k.index.strides)?;
        let mut buffers = vec![k.out, k.index.buf];
        match &k.src {
            ScatterSrc::Tensor(s) => {
                put(&mut meta, 4, &[s.offset])?;
                put(&mut meta, 32, &s.strides)?;
                buffers.push(s.buf);
            }
            ScatterSrc::Scalar(v) => meta[7] = crate::dtype::to_word(*v, k.dtype)?,
        }
        let key = KernelKey::Scatter { dtype: k.dtype, tensor_src: matches!(k.src, ScatterSrc::Tensor(_)), op: k.op };
        self.record(&key, &meta, &buffers, (gx, gy, 1))
    }
}

/// A float32 elementwise kernel storing `value` (a leaf: a copy; a scalar: a fill) over `shape`
/// into `out` (contiguous, or the view `out_view`): the scratch copies of the backend's own
/// multi-kernel routes (a transposed `b`, convolutions' padded rows).
pub(super) fn f32_fill(
    value: crate::backend::Arg,
    leaves: Vec<crate::backend::Operand>,
    shape: Vec<usize>,
    out: crate::backend::BufId,
    out_view: Option<(usize, Vec<usize>)>,
) -> Elementwise {
    let node = crate::backend::Node {
        func: crate::backend::Func::Cast,
        compute: crate::dtype::Compute::F32,
        out_dtype: DType::Float32,
        args: vec![value],
    };
    Elementwise { nodes: vec![node], leaves, shape, out, out_view }
}
