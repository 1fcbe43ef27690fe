//! The CPU backend: plain Rust reference kernels over the same kernel descriptions the WebGPU
//! backend compiles to WGSL. It is the fallback when no adapter exists and the oracle in tests, so
//! it favours clarity; it computes in the same types (f32 / i32) as the GPU kernels, and in f64
//! for float64, a CPU-only dtype (`float64.rs`: its two-word storage and its value paths).

use crate::cell::RefCell;

mod deferred;
mod float64;
use float64::{copy_elem, d, elem, push_elem, put_elem};
mod index;
mod reduce;
pub(crate) use reduce::cascade;
mod rowwise;
use reduce::reduce_row;

use super::program::{Dispatch, Reads, Words, MAX_WRITES};
use super::{
    Arg, Backend, BufId, Device, Elementwise, Func, Gather, Kernel, LocalFuture, Matmul, MemoryControl, Operand,
    Reduce, Rowwise, Scatter, Stats, ValueCheck,
};
use crate::dtype::{Compute, DType};
use crate::error::Result;
use crate::ops::table::CpuFn;
use crate::ops::Op;

#[derive(Default)]
struct State {
    bufs: Vec<Option<Vec<u32>>>,
    free_ids: Vec<BufId>,
    stats: Stats,
}

pub struct CpuBackend {
    state: RefCell<State>,
    /// `torch.cpu.set_memory_budget`: live tensor bytes plus a kernel's scratch stay below it.
    budget: std::cell::Cell<u64>,
    /// Buffers waiting for their words and the work recorded meanwhile (`deferred.rs`).
    deferred: deferred::Shared,
}

impl Default for CpuBackend {
    fn default() -> Self {
        CpuBackend {
            state: RefCell::default(),
            budget: std::cell::Cell::new(DEFAULT_BUDGET),
            deferred: Default::default(),
        }
    }
}

/// Records the call `$call` (a closure over the backend) and returns `Ok(())` from the method
/// while a buffer is pending (`deferred.rs`).
macro_rules! defer {
    ($self:ident, $call:expr) => {
        if $self.deferring() {
            $self.queue(Box::new($call));
            return Ok(());
        }
    };
}

/// The default host budget. On wasm32 the whole heap is at most 4 GiB and one block at most 2 GiB:
/// 3 GiB leaves the engine and the kernels' scratch room. Natively, 64 GiB.
pub const DEFAULT_BUDGET: u64 = if cfg!(target_arch = "wasm32") { 3 << 30 } else { 64 << 30 };

/// Bytes of one gathered value (`V`).
const V_BYTES: usize = std::mem::size_of::<V>();

/// A value in a kernel's compute type.
#[derive(Clone, Copy, Debug)]
enum V {
    F(f32),
    I(i32),
    D(f64),
}

fn load(bits: u64, dtype: DType, c: Compute) -> V {
    let word = bits as u32;
    match (dtype.compute(), c) {
        (Compute::F64, _) => float64::load(f64::from_bits(bits), c),
        (Compute::F32, Compute::F32) => V::F(f32::from_bits(word)),
        (Compute::F32, Compute::F64) => V::D(f32::from_bits(word) as f64),
        (Compute::F32, _) => V::I(f32::from_bits(word) as i32),
        (_, Compute::F32) => V::F(word as i32 as f32),
        (_, Compute::F64) => V::D(word as i32 as f64),
        (_, _) => V::I(word as i32),
    }
}

fn scalar(x: f64, c: Compute) -> V {
    match c {
        Compute::F32 => V::F(x as f32),
        Compute::F64 => V::D(x),
        _ => V::I(x as i32),
    }
}

/// Stores a compute value as `dtype`'s storage bits (the twin of `store_*` in
/// `shaders/common.wgsl`; float64 as the CPU alone stores it).
fn store(v: V, dtype: DType) -> u64 {
    match (v, dtype) {
        (V::D(_), _) | (_, DType::Float64) => float64::store(v, dtype),
        (v, _) => store32(v, dtype) as u64,
    }
}

/// `store` of the 32-bit compute types into the one-word dtypes.
fn store32(v: V, dtype: DType) -> u32 {
    match (v, dtype) {
        (V::F(x), DType::Float32 | DType::Float16 | DType::BFloat16) => dtype.round_f32(x).to_bits(),
        (V::F(x), DType::Int32 | DType::Int64) => x as i32 as u32,
        (V::F(x), DType::UInt8) => (x as i32 as u32) & 255,
        (V::F(x), DType::Bool) => (x != 0.0) as u32,
        (V::I(x), DType::Float32 | DType::Float16 | DType::BFloat16) => dtype.round_f32(x as f32).to_bits(),
        (V::I(x), DType::Int32 | DType::Int64) => x as u32,
        (V::I(x), DType::UInt8) => (x as u32) & 255,
        (V::I(x), DType::Bool) => (x != 0) as u32,
        (V::D(_), _) | (_, DType::Float64) => unreachable!("float64 values are stored by `store`"),
    }
}

/// Visits every index of `shape` in row-major order, passing each operand's storage offset.
fn for_each_offset(shape: &[usize], ops: &[(usize, &[usize])], mut f: impl FnMut(usize, &[usize])) {
    let n: usize = shape.iter().product();
    let mut idx = vec![0usize; shape.len()];
    let mut offs: Vec<usize> = ops.iter().map(|o| o.0).collect();
    for i in 0..n {
        f(i, &offs);
        for d in (0..shape.len()).rev() {
            idx[d] += 1;
            for (o, (_, st)) in offs.iter_mut().zip(ops) {
                *o += st[d];
            }
            if idx[d] < shape[d] {
                break;
            }
            for (o, (_, st)) in offs.iter_mut().zip(ops) {
                *o -= st[d] * shape[d];
            }
            idx[d] = 0;
        }
    }
}

impl CpuBackend {
    pub fn new() -> Self {
        Self::default()
    }

    /// An `OutOfMemoryError` unless a kernel's scratch — `(count, elements, bytes each)` terms,
    /// summed with overflow checks — fits the budget beside the live tensors. Called before a
    /// kernel gathers anything, so that a size no heap could hold is refused, not trapped on.
    fn check_scratch(&self, terms: &[(usize, usize, usize)]) -> Result<()> {
        let total = terms.iter().try_fold(0u64, |acc, &(a, b, c)| {
            (a as u64).checked_mul(b as u64)?.checked_mul(c as u64)?.checked_add(acc)
        });
        self.check_budget(total.unwrap_or(u64::MAX))
    }

    /// An `OutOfMemoryError` unless `bytes` more fit the budget beside the live tensors.
    pub(crate) fn check_budget(&self, bytes: u64) -> Result<()> {
        let active = self.state.borrow().stats.active_bytes;
        if bytes.saturating_add(active) > self.budget.get() {
            return Err(self.out_of_memory(bytes));
        }
        Ok(())
    }

    fn out_of_memory(&self, bytes: u64) -> crate::Error {
        // A refusal handled here is reported here, not by the next trap.
        #[cfg(target_arch = "wasm32")]
        crate::api::clear_failed_alloc();
        let active = self.state.borrow().stats.active_bytes;
        crate::err!(
            OutOfMemory,
            "DefaultCPUAllocator: not enough memory: you tried to allocate {bytes} bytes ({active} bytes in use, \
             budget {}; torch.cpu.set_memory_budget changes it)",
            self.budget.get()
        )
    }

    fn with_buf<R>(&self, id: BufId, f: impl FnOnce(&Vec<u32>) -> R) -> R {
        let st = self.state.borrow();
        crate::debug::fault_point("cpu.read_buffer");
        f(st.bufs[id as usize].as_ref().expect("live buffer"))
    }

    fn put(&self, id: BufId, data: Vec<u32>) {
        let mut st = self.state.borrow_mut();
        crate::debug::fault_point("cpu.write_buffer");
        let buf = st.bufs[id as usize].as_mut().expect("live buffer");
        buf[..data.len()].copy_from_slice(&data);
    }

    /// Records a call to run once no buffer is pending.
    fn queue(&self, f: deferred::Queued) {
        self.deferred.borrow_mut().push(f);
    }

    fn gather(&self, o: &Operand, shape: &[usize], c: Compute) -> Vec<V> {
        self.with_buf(o.buf, |buf| {
            let mut out = Vec::with_capacity(shape.iter().product());
            for_each_offset(shape, &[(o.offset, &o.strides)], |_, offs| {
                out.push(load(elem(buf, offs[0], o.dtype), o.dtype, c))
            });
            out
        })
    }
}

impl Backend for CpuBackend {
    fn device(&self) -> Device {
        Device::Cpu
    }

    fn alloc(&self, bytes: u64) -> Result<BufId> {
        self.check_budget(bytes)?;
        let words = usize::try_from(bytes.div_ceil(4)).map_err(|_| self.out_of_memory(bytes))?;
        let mut data = Vec::new();
        if data.try_reserve_exact(words).is_err() {
            return Err(self.out_of_memory(bytes));
        }
        data.resize(words, 0);
        let mut st = self.state.borrow_mut();
        crate::debug::fault_point("cpu.alloc");
        let id = match st.free_ids.pop() {
            Some(id) => {
                st.bufs[id as usize] = Some(data);
                id
            }
            None => {
                st.bufs.push(Some(data));
                (st.bufs.len() - 1) as BufId
            }
        };
        st.stats.allocations += 1;
        st.stats.live_buffers += 1;
        st.stats.active_bytes += words as u64 * 4;
        st.stats.peak_bytes = st.stats.peak_bytes.max(st.stats.active_bytes);
        Ok(id)
    }

    fn release(&self, id: BufId) {
        if self.deferring() {
            self.queue(Box::new(move |b: &CpuBackend| {
                b.release(id);
                Ok(())
            }));
            return;
        }
        let mut st = self.state.borrow_mut();
        if let Some(buf) = st.bufs[id as usize].take() {
            st.stats.active_bytes -= buf.len() as u64 * 4;
            st.stats.live_buffers -= 1;
            st.free_ids.push(id);
        }
    }

    fn upload(&self, words: &[u32]) -> Result<BufId> {
        let id = self.alloc(words.len() as u64 * 4)?;
        self.put(id, words.to_vec());
        Ok(id)
    }

    fn alloc_for_write(&self, words: usize) -> Result<BufId> {
        self.alloc((words as u64 * 4).max(4))
    }

    fn write(&self, id: BufId, offset: usize, words: &[u32]) -> Result<()> {
        if self.deferring() {
            let words = words.to_vec();
            defer!(self, move |b: &CpuBackend| b.write(id, offset, &words));
        }
        let mut st = self.state.borrow_mut();
        let buf = st.bufs[id as usize].as_mut().expect("live buffer");
        match offset.checked_add(words.len()).and_then(|end| buf.get_mut(offset..end)) {
            Some(dst) => dst.copy_from_slice(words),
            None => crate::bail!(Index, "write of {} words at {offset} past a buffer of {}", words.len(), buf.len()),
        }
        Ok(())
    }

    fn read(&self, id: BufId, offset: usize, len: usize) -> LocalFuture<Result<Vec<u32>>> {
        if self.waits() {
            let drained = self.drained();
            return Box::pin(async move {
                drained.await?;
                crate::engine::backend(Device::Cpu)?.read(id, offset, len).await
            });
        }
        let data = self.with_buf(id, |b| b[offset..offset + len].to_vec());
        Box::pin(async move { Ok(data) })
    }

    fn copy(&self, src: BufId, src_offset: usize, dst: BufId, dst_offset: usize, words: usize) -> Result<()> {
        defer!(self, move |b: &CpuBackend| b.copy(src, src_offset, dst, dst_offset, words));
        let mut st = self.state.borrow_mut();
        let data = st.bufs[src as usize].as_ref().expect("live buffer")[src_offset..src_offset + words].to_vec();
        st.bufs[dst as usize].as_mut().expect("live buffer")[dst_offset..dst_offset + words].copy_from_slice(&data);
        st.stats.copies += 1;
        Ok(())
    }

    fn flush(&self) {}

    fn sync(&self) -> LocalFuture<Result<()>> {
        Box::pin(self.drained())
    }

    fn stats(&self) -> Stats {
        self.state.borrow().stats.clone()
    }

    fn memory(&self) -> Option<&dyn MemoryControl> {
        Some(self)
    }

    fn launch(&self, k: Kernel<'_>) -> Result<()> {
        match k {
            Kernel::Elementwise(k) => self.run_elementwise(k),
            Kernel::Reduce(k) => self.run_reduce(k),
            Kernel::Matmul(k) => self.run_matmul(k),
            Kernel::Rowwise(k) => self.run_rowwise(k),
            Kernel::Gather(k) => self.run_gather(k),
            Kernel::Scatter(k) => self.run_scatter(k),
            Kernel::Check(k) => self.run_check_values(k),
            Kernel::Program(d) => self.run_dispatch(d),
            Kernel::Conv2d(_) => crate::bail!(Device, "this backend has no convolution kernels"),
            Kernel::User(k) => {
                crate::bail!(
                    Device,
                    "WGSL kernel '{}' runs on the webgpu device, not on '{}'",
                    k.name,
                    self.device().name()
                )
            }
        }
    }
}

/// The budget; nothing is pooled, so `empty_cache` has nothing to free.
impl MemoryControl for CpuBackend {
    fn budget(&self) -> Option<u64> {
        Some(self.budget.get())
    }

    fn set_budget(&self, bytes: Option<u64>) {
        self.budget.set(bytes.unwrap_or(DEFAULT_BUDGET));
    }

    fn empty_cache(&self) {}

    fn reset_peak(&self) {
        let mut st = self.state.borrow_mut();
        st.stats.peak_bytes = st.stats.active_bytes;
    }
}

/// The kernels `Backend::launch` runs.
impl CpuBackend {
    fn run_elementwise(&self, k: &Elementwise) -> Result<()> {
        if self.deferring() {
            let k = k.clone();
            defer!(self, move |b: &CpuBackend| b.run_elementwise(&k));
        }
        if k.nodes.iter().any(|n| n.args.contains(&Arg::Acc)) {
            crate::bail!(Torch, "internal: an elementwise kernel read a matmul product");
        }
        let n: usize = k.shape.iter().product();
        // Scratch: each leaf's words over the index space (gathered first, so that an output
        // that aliases an input is written only after everything is read).
        let leaf_words: usize = k.leaves.iter().map(|o| o.dtype.words()).sum();
        self.check_scratch(&[(leaf_words, n, 4)])?;
        // Each leaf's words over the index space, then the nodes per element, every node's value
        // rounded through its dtype's storage form as the GPU kernel does.
        let leaves: Vec<Vec<u32>> = k
            .leaves
            .iter()
            .map(|o| {
                self.with_buf(o.buf, |buf| {
                    let mut out = Vec::with_capacity(n);
                    for_each_offset(&k.shape, &[(o.offset, &o.strides)], |_, offs| {
                        copy_elem(&mut out, buf, offs[0], o.dtype)
                    });
                    out
                })
            })
            .collect();
        let mut words = vec![0u64; k.nodes.len()];
        let mut value = |i: usize| {
            for (j, node) in k.nodes.iter().enumerate() {
                let arg = |a: &Arg| match *a {
                    Arg::Leaf(l) => load(elem(&leaves[l], i, k.leaves[l].dtype), k.leaves[l].dtype, node.compute),
                    Arg::Node(m) => load(words[m], k.nodes[m].out_dtype, node.compute),
                    Arg::Scalar(x) => scalar(x, node.compute),
                    // Rejected above: only matmul epilogues read a product.
                    Arg::Acc => V::F(f32::NAN),
                };
                let v = match node.func {
                    Func::Cast => arg(&node.args[0]),
                    Func::Where => {
                        let nonzero = match arg(&node.args[0]) {
                            V::F(x) => x != 0.0,
                            V::I(x) => x != 0,
                            V::D(x) => x != 0.0,
                        };
                        arg(&node.args[if nonzero { 1 } else { 2 }])
                    }
                    Func::Op(op) => apply(op, arg(&node.args[0]), node.args.get(1).map(arg)),
                };
                words[j] = store(v, node.out_dtype);
            }
            words[k.nodes.len() - 1]
        };
        let mut st = self.state.borrow_mut();
        crate::debug::fault_point("cpu.write_buffer");
        let buf = st.bufs[k.out as usize].as_mut().expect("live buffer");
        let out_dtype = k.nodes[k.nodes.len() - 1].out_dtype;
        match &k.out_view {
            None => (0..n).for_each(|i| put_elem(buf, i, out_dtype, value(i))),
            Some((offset, strides)) => {
                for_each_offset(&k.shape, &[(*offset, strides)], |i, offs| put_elem(buf, offs[0], out_dtype, value(i)));
            }
        }
        Ok(())
    }

    fn run_reduce(&self, k: &Reduce) -> Result<()> {
        if self.deferring() {
            let k = k.clone();
            defer!(self, move |b: &CpuBackend| b.run_reduce(&k));
        }
        let shape: Vec<usize> = k.outer.iter().chain(&k.inner).copied().collect();
        if let Some(p) = &k.prologue {
            // Unfused: the expression into a contiguous buffer, then the plain reduction.
            let n: usize = shape.iter().product();
            let tmp = self.alloc((n as u64 * k.input.dtype.word_bytes()).max(4))?;
            let e = Elementwise {
                nodes: p.nodes.clone(),
                leaves: p.leaves.clone(),
                shape: shape.clone(),
                out: tmp,
                out_view: None,
            };
            self.run_elementwise(&e)?;
            let input = Operand {
                buf: tmp,
                dtype: k.input.dtype,
                offset: 0,
                strides: crate::shape::contiguous_strides(&shape),
            };
            let r = self.run_reduce(&Reduce { input, prologue: None, ..k.clone() });
            self.release(tmp);
            return r;
        }
        // Row by row: the scratch is one row of words, so a reduction never holds its (maybe
        // broadcast) input gathered whole.
        let r: usize = k.inner.iter().product();
        let n: usize = k.outer.iter().product();
        let row_bytes = r as u64 * k.input.dtype.word_bytes();
        self.check_budget(row_bytes)?;
        let mut row: Vec<u32> = Vec::new();
        row.try_reserve_exact(r * k.input.dtype.words()).map_err(|_| self.out_of_memory(row_bytes))?;
        let float = k.compute.is_float();
        let (outer_strides, inner_strides) = k.input.strides.split_at(k.outer.len());
        let mut out = Vec::with_capacity(n);
        self.with_buf(k.input.buf, |buf| {
            for_each_offset(&k.outer, &[(k.input.offset, outer_strides)], |_, at| {
                row.clear();
                for_each_offset(&k.inner, &[(at[0], inner_strides)], |_, offs| {
                    copy_elem(&mut row, buf, offs[0], k.input.dtype)
                });
                let words = reduce::Row { words: &row, dtype: k.input.dtype, compute: k.compute };
                push_elem(&mut out, k.out_dtype, store(reduce_row(k.op, &words, k.param, float), k.out_dtype));
            })
        });
        self.put(k.out, out);
        Ok(())
    }

    fn run_matmul(&self, k: &Matmul) -> Result<()> {
        if self.deferring() {
            let k = k.clone();
            defer!(self, move |b: &CpuBackend| b.run_matmul(&k));
        }
        if k.epilogue.is_some() {
            crate::bail!(Torch, "internal: the cpu backend does not fuse matmul epilogues");
        }
        let c = k.dtype.compute();
        let batches: usize = k.batch.iter().product();
        // Scratch: both operands gathered as values, and the product.
        self.check_scratch(&[
            (batches, k.m * k.k + k.k * k.n, V_BYTES),
            (batches, k.m * k.n, k.dtype.word_bytes() as usize),
        ])?;
        let mut shape_a = k.batch.clone();
        shape_a.extend([k.m, k.k]);
        let mut shape_b = k.batch.clone();
        shape_b.extend([k.k, k.n]);
        let a = self.gather(&k.a, &shape_a, c);
        let b = self.gather(&k.b, &shape_b, c);
        let mut out = Vec::with_capacity(batches * k.m * k.n);
        for bi in 0..batches {
            let (ab, bb) = (&a[bi * k.m * k.k..], &b[bi * k.k * k.n..]);
            for i in 0..k.m {
                for j in 0..k.n {
                    let v = match c {
                        Compute::F32 => V::F((0..k.k).map(|p| f(ab[i * k.k + p]) * f(bb[p * k.n + j])).sum()),
                        Compute::F64 => V::D((0..k.k).map(|p| d(ab[i * k.k + p]) * d(bb[p * k.n + j])).sum()),
                        _ => V::I((0..k.k).fold(0i32, |s, p| {
                            s.wrapping_add(int(ab[i * k.k + p]).wrapping_mul(int(bb[p * k.n + j])))
                        })),
                    };
                    push_elem(&mut out, k.dtype, store(v, k.dtype));
                }
            }
        }
        self.put(k.out, out);
        Ok(())
    }

    fn run_rowwise(&self, k: &Rowwise) -> Result<()> {
        if self.deferring() {
            let k = k.clone();
            defer!(self, move |b: &CpuBackend| b.run_rowwise(&k));
        }
        // Scratch: inputs, output offsets, gradients and results, one of each per element.
        let n = k.outer.iter().chain(&k.inner).product();
        self.check_scratch(&[(4, n, 4), (1, n, std::mem::size_of::<usize>())])?;
        self.rowwise_impl(k);
        Ok(())
    }

    fn run_gather(&self, k: &Gather) -> Result<()> {
        if self.deferring() {
            let k = k.clone();
            defer!(self, move |b: &CpuBackend| b.run_gather(&k));
        }
        self.check_scratch(&[(2, k.shape.iter().product(), 8)])?;
        self.gather_impl(k);
        Ok(())
    }

    fn run_scatter(&self, k: &Scatter) -> Result<()> {
        if self.deferring() {
            let k = k.clone();
            defer!(self, move |b: &CpuBackend| b.run_scatter(&k));
        }
        self.check_scratch(&[(2, k.shape.iter().product(), 8)])?;
        self.scatter_impl(k)
    }

    fn run_dispatch(&self, d: &Dispatch) -> Result<()> {
        if self.deferring() {
            let (program, variant, groups) = (d.program, d.variant, d.groups);
            let (buffers, uniforms) = (d.buffers.to_vec(), d.uniforms.to_vec());
            defer!(self, move |b: &CpuBackend| b.run_dispatch(&Dispatch {
                program,
                variant,
                buffers: &buffers,
                uniforms: &uniforms,
                groups
            }));
        }
        let p = d.program;
        let writes = p.writes.min(d.buffers.len());
        let (written_ids, read_ids) = d.buffers.split_at(writes);
        if writes > MAX_WRITES || read_ids.iter().any(|r| written_ids.contains(r)) {
            crate::bail!(
                Torch,
                "internal: program '{}' binds more than {MAX_WRITES} written buffers, or reads one it writes",
                p.name
            );
        }
        let mut st = self.state.borrow_mut();
        crate::debug::fault_point("cpu.write_buffer");
        // The written buffers move out of the store for the call (no copy), so that the twin
        // holds them mutably beside the read ones, which stay in place.
        let mut written: [Vec<u32>; MAX_WRITES] = Default::default();
        let first = |i: usize| !written_ids[..i].contains(&written_ids[i]);
        for (i, &id) in written_ids.iter().enumerate() {
            if first(i) {
                written[i] = st.bufs[id as usize].take().expect("live buffer");
            }
        }
        let read = Reads::new(&st.bufs, d.buffers);
        let r = (p.cpu)(&mut Words { variant: d.variant, uniforms: d.uniforms, written: &mut written[..writes], read });
        for (i, &id) in written_ids.iter().enumerate() {
            if first(i) {
                st.bufs[id as usize] = Some(std::mem::take(&mut written[i]));
            }
        }
        r
    }

    /// The host has the values, so a check runs before the kernel that would use them
    /// (`Tensor::check_values`); it comes here only while the values are pending
    /// (`deferred.rs`), and runs when they have arrived, its failure raised by the next read.
    fn run_check_values(&self, k: &ValueCheck) -> Result<()> {
        if self.deferring() {
            let (x, shape, lo, hi, except, message) =
                (k.x.clone(), k.shape.clone(), k.lo, k.hi, k.except, k.message.clone());
            defer!(self, move |b: &CpuBackend| b.run_check_values(&ValueCheck { x, shape, lo, hi, except, message }));
        }
        let float = k.x.dtype.is_float();
        let values = self.gather(&k.x, &k.shape, k.x.dtype.compute());
        if let Some(bad) = values.into_iter().map(d).find(|&v| !(v >= k.lo && v <= k.hi) && Some(v) != k.except) {
            let shown = if float { bad.to_string() } else { (bad as i64).to_string() };
            return Err(k.message.error(bad.is_nan() || bad < k.lo, &shown));
        }
        Ok(())
    }
}

fn f(v: V) -> f32 {
    match v {
        V::F(x) => x,
        V::I(x) => x as f32,
        V::D(x) => x as f32,
    }
}

fn int(v: V) -> i32 {
    match v {
        V::F(x) => x as i32,
        V::I(x) => x,
        V::D(x) => x as i32,
    }
}

fn apply(op: Op, a: V, b: Option<V>) -> V {
    const MISSING: &str = "op checked by Op::supports before dispatch";
    let b = b.unwrap_or(V::I(0));
    match (op.info().cpu, a) {
        (CpuFn::Unary(ff, ..), V::F(x)) => V::F(ff.expect(MISSING)(x)),
        (CpuFn::Unary(_, fi, _), V::I(x)) => V::I(fi.expect(MISSING)(x)),
        (CpuFn::Binary(ff, ..), V::F(x)) => V::F(ff.expect(MISSING)(x, f(b))),
        (CpuFn::Binary(_, fi, _), V::I(x)) => V::I(fi.expect(MISSING)(x, int(b))),
        (CpuFn::Test(ff, ..), V::F(x)) => V::I(ff(x) as i32),
        (CpuFn::Test(_, fi, _), V::I(x)) => V::I(fi(x) as i32),
        (CpuFn::Compare(ff, ..), V::F(x)) => V::I(ff(x, f(b)) as i32),
        (CpuFn::Compare(_, fi, _), V::I(x)) => V::I(fi(x, int(b)) as i32),
        (cpu, V::D(x)) => float64::apply(cpu, x, b).expect(MISSING),
    }
}
