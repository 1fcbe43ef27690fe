//! Batched tiny ops: a float32 elementwise op or product on at most `MAX_ELEMENTS` elements is
//! not dispatched on its own but appended to a list that one interpreter kernel
//! (`shaders/batched.wgsl`, one workgroup) runs op after op, with a storage barrier between
//! them. A chain of tiny dependent ops then costs one dispatch per batch instead of one per op:
//! on Dawn a dispatch's `setBindGroup` + `dispatchWorkgroups` cost more host time than the rest
//! of a tiny op's recording (bench/KERNELS.md, "Host path").
//!
//! This is not fusion: every op still stores its result, and the contract's `min_size` (no
//! fusion below 1,024 elements) is kept; it only shares the launch. The list is a dispatch
//! like any other, recorded into the open pass before anything else is recorded or submitted
//! (`emit_batched`), so the order of work is kept. While ops wait in it the batch's encoder
//! exists, so buffers released meanwhile are "dirty" (reused only by later work of the batch,
//! never by an upload), as for recorded dispatches.
//!
//! Operands may be contiguous, one broadcast element, a scalar, or a view whose dims merge into
//! two (a bias row, a transpose). Not batched: other dtypes, other views, fused chains (already
//! one dispatch), in-place writes into views, products over batches or with an epilogue, every
//! op while the profiler times dispatches (each dispatch is then its own), and by default every
//! op on an adapter that emulates a GPU on the CPU (`set_batched_launches`). A batch of one op
//! runs that op's own kernel. A captured kernel graph records batches as dispatches like any
//! other (`graph.rs`): they bind all their buffers writable, so a replay copies the inputs and
//! outputs they touch rather than binding the caller's buffers in place.

use super::codegen::{fill, KernelKey, MATH};
use super::launch::Plan;
use super::{State, WebGpuBackend, SLOT_WORDS};
use crate::backend::{Arg, Elementwise, Func, Matmul, Operand};
use crate::dtype::{Compute, DType};
use crate::error::Result;
use crate::ops::table::{ResultKind, TABLE};
use crate::shape::{coalesce, contiguous_strides};

const BATCHED: &str = include_str!("../../../shaders/batched.wgsl");

/// The most elements (outputs, for a product) an op may have to be batched: the contract's
/// default fusion `min_size`, below which eager ops run one by one.
pub const MAX_ELEMENTS: usize = 1024;
/// A batched product's longest inner dimension.
const MAX_K: usize = 256;
/// Distinct buffers one batch binds (with the uniform slot, 8 bindings: WebGPU's default
/// `maxStorageBuffersPerShaderStage`).
pub const MAX_BUFFERS: usize = 7;
/// Words before the first instruction.
const HEAD: usize = 4;
const COPY: u32 = 254;
const PRODUCT: u32 = 255;
const PRODUCT_WORDS: usize = 11;

/// Whether an adapter emulates a GPU on the CPU (SwiftShader, llvmpipe/lavapipe).
pub(super) fn emulated(info: &wgpu::AdapterInfo) -> bool {
    let name = info.name.to_lowercase();
    info.device_type == wgpu::DeviceType::Cpu
        || ["swiftshader", "llvmpipe", "lavapipe"].iter().any(|n| name.contains(n))
}

/// The ops waiting for their launch: instruction words (the head left for the count) and the
/// distinct buffers they use, in slot order.
#[derive(Default)]
pub(super) struct Queue {
    words: Vec<u32>,
    ops: u32,
    bufs: Vec<wgpu::Buffer>,
    /// The first op's own dispatch (key, meta, buffers, grid) where it has one: a batch of one
    /// op runs it, since the interpreter made a lone tiny op's latency (read back at once)
    /// longer (bench/KERNELS.md, "Batched tiny ops").
    lone: Option<Plan<wgpu::Buffer>>,
}

/// How an operand is read (the shader's modes 0–3).
#[derive(Clone, Copy)]
enum Mode {
    Contiguous(u32),
    Broadcast(u32),
    Scalar(f32),
    /// A 2-D view: offset, inner size, outer stride, inner stride.
    Strided([u32; 4]),
}

impl Mode {
    fn code(&self) -> u32 {
        match self {
            Mode::Contiguous(_) => 0,
            Mode::Broadcast(_) => 1,
            Mode::Scalar(_) => 2,
            Mode::Strided(_) => 3,
        }
    }

    fn push(&self, w: &mut Vec<u32>) {
        match *self {
            Mode::Contiguous(o) | Mode::Broadcast(o) => w.push(o),
            Mode::Scalar(x) => w.push(x.to_bits()),
            Mode::Strided(words) => w.extend_from_slice(&words),
        }
    }

    fn len(&self) -> usize {
        if let Mode::Strided(_) = self {
            4
        } else {
            1
        }
    }
}

/// The interpreter's source: `MAX_BUFFERS` read_write bindings and one `case` per float op of
/// the op table (the same WGSL expression the generated kernels use, so the same results).
pub fn source() -> String {
    let mut bindings = String::new();
    let mut loads = String::new();
    let mut stores = String::new();
    for s in 0..MAX_BUFFERS {
        bindings.push_str(&format!("@group(0) @binding({}) var<storage, read_write> t{s}: array<f32>;\n", s + 1));
        loads.push_str(&format!("        case {s}u: {{ return t{s}[i]; }}\n"));
        stores.push_str(&format!("        case {s}u: {{ t{s}[i] = v; }}\n"));
    }
    let mut cases = String::new();
    for (code, info) in TABLE.iter().enumerate().filter(|(_, i)| float_op(i)) {
        let expr = info.wgsl.replace("_T(", "_f32(").replace("T(", "f32(");
        cases.push_str(&format!("        case {code}u: {{ return ({expr}); }} // {}\n", info.name));
    }
    format!(
        "{MATH}\n{}",
        fill(BATCHED, &[("BINDINGS", &bindings), ("LOADS", &loads), ("STORES", &stores), ("CASES", &cases)])
    )
}

/// Whether a row of the op table is batched: a float32 result from float32 operands.
fn float_op(info: &crate::ops::table::OpInfo) -> bool {
    info.kind != ResultKind::Bool && info.supports(Compute::F32)
}

/// How leaf `o` of a kernel over `shape` (contiguous strides `contiguous`) is read, if it can
/// be: float32, and contiguous, one element, or a view whose dims merge into two at most.
fn leaf_mode(o: &Operand, shape: &[usize], contiguous: &[usize]) -> Option<Mode> {
    if o.dtype != DType::Float32 {
        return None;
    }
    let offset = u32::try_from(o.offset).ok()?;
    if o.strides == contiguous {
        return Some(Mode::Contiguous(offset));
    }
    if o.strides.iter().all(|&s| s == 0) {
        return Some(Mode::Broadcast(offset));
    }
    let (dims, strides) = coalesce(shape, std::slice::from_ref(&o.strides));
    let s = &strides[0];
    let words = match dims.len() {
        1 => [o.offset, dims[0], 0, s[0]],
        2 => [o.offset, dims[1], s[0], s[1]],
        _ => return None,
    };
    let mut out = [0u32; 4];
    for (w, x) in out.iter_mut().zip(words) {
        *w = u32::try_from(x).ok()?;
    }
    Some(Mode::Strided(out))
}

impl WebGpuBackend {
    /// Whether tiny ops are batched on this device (checked before any work on an op).
    fn batching_on(&self) -> bool {
        crate::backend::tuning::tuning(|t| !t.immediate && t.batched_launches.unwrap_or(!self.emulated))
    }

    /// Appends a tiny elementwise kernel to the batch; false (nothing done) when it is not one.
    pub(super) fn batch_elementwise(&self, k: &Elementwise) -> Result<bool> {
        if !self.batching_on() || k.nodes.len() != 1 || k.out_view.is_some() {
            return Ok(false);
        }
        let n: usize = k.shape.iter().product();
        if n == 0 || n > MAX_ELEMENTS {
            return Ok(false);
        }
        let node = &k.nodes[0];
        if node.compute != Compute::F32 || node.out_dtype != DType::Float32 || node.args.len() > 2 {
            return Ok(false);
        }
        let code = match node.func {
            Func::Op(op) => {
                let code = op as usize;
                if code >= COPY as usize || !float_op(&TABLE[code]) {
                    return Ok(false);
                }
                code as u32
            }
            Func::Cast => COPY,
            Func::Where => return Ok(false),
        };
        let contiguous = contiguous_strides(&k.shape);
        // An absent second operand reads as the scalar 0.
        let mut modes = [Mode::Scalar(0.0); 2];
        let mut leaves = [None; 2];
        for (i, a) in node.args.iter().enumerate() {
            modes[i] = match *a {
                Arg::Leaf(l) => {
                    leaves[i] = Some(k.leaves[l].buf);
                    match leaf_mode(&k.leaves[l], &k.shape, &contiguous) {
                        Some(m) => m,
                        None => return Ok(false),
                    }
                }
                Arg::Scalar(x) => Mode::Scalar(x as f32),
                _ => return Ok(false),
            };
        }
        // Not while the profiler times dispatches: each is then its own.
        let mut st = self.st.borrow_mut();
        if st.timing.is_some() {
            return Ok(false);
        }
        let out = Self::buffer(&st, k.out);
        let a = leaves[0].map(|b| Self::buffer(&st, b));
        let b = leaves[1].map(|b| Self::buffer(&st, b));
        let bufs = [Some(&out), a.as_ref(), b.as_ref()];
        let len = 3 + modes[0].len() + modes[1].len();
        let lone = |st: &State| {
            let p = Self::elementwise_plan(st, k).ok()?;
            let buffers = p.buffers.iter().map(|&b| Self::buffer(st, b)).collect();
            Some(Plan { key: p.key, meta: p.meta, buffers, groups: p.groups })
        };
        self.enqueue(&mut st, &bufs, len, lone, |slots, w| {
            w.extend_from_slice(&[
                code | (n as u32) << 8,
                slots[0] | slots[1] << 4 | slots[2] << 8 | modes[0].code() << 12 | modes[1].code() << 14,
                0,
            ]);
            modes[0].push(w);
            modes[1].push(w);
        })
        .map(|()| true)
    }

    /// Appends a tiny float32 product (one matrix, no epilogue) to the batch; false when it is
    /// not one.
    pub(super) fn batch_matmul(&self, k: &Matmul) -> Result<bool> {
        let (m, n, kk) = (k.m, k.n, k.k);
        if !self.batching_on()
            || k.epilogue.is_some()
            || k.dtype != DType::Float32
            || k.a.dtype != DType::Float32
            || k.b.dtype != DType::Float32
            || k.batch.iter().product::<usize>() != 1
            || m * n == 0
            || m * n > MAX_ELEMENTS
            || kk > MAX_K
        {
            return Ok(false);
        }
        // The last two strides of each operand: a is [m, k], b is [k, n].
        let last2 = |s: &[usize]| (s.len() >= 2).then(|| (s[s.len() - 2], s[s.len() - 1]));
        let (Some((ar, ak)), Some((bk, bc))) = (last2(&k.a.strides), last2(&k.b.strides)) else {
            return Ok(false);
        };
        let words = [m, n, k.a.offset, ar, ak, k.b.offset, bk, bc];
        if m > 0xffff || n > 0xffff || words.iter().any(|&x| x > u32::MAX as usize) {
            return Ok(false);
        }
        // Not while the profiler times dispatches: each is then its own.
        let mut st = self.st.borrow_mut();
        if st.timing.is_some() {
            return Ok(false);
        }
        let out = Self::buffer(&st, k.out);
        let a = Self::buffer(&st, k.a.buf);
        let b = Self::buffer(&st, k.b.buf);
        self.enqueue(
            &mut st,
            &[Some(&out), Some(&a), Some(&b)],
            PRODUCT_WORDS,
            |_| None,
            |slots, w| {
                w.extend_from_slice(&[
                    PRODUCT,
                    slots[0] | slots[1] << 4 | slots[2] << 8,
                    (m | n << 16) as u32,
                    kk as u32,
                    0,
                    k.a.offset as u32,
                    ar as u32,
                    ak as u32,
                    k.b.offset as u32,
                    bk as u32,
                    bc as u32,
                ]);
            },
        )
        .map(|()| true)
    }

    /// Appends one instruction of `len` words over `bufs` (output first; `None`: no buffer),
    /// launching the batch first when it has no room for it; `lone` gives the op's own
    /// dispatch when it opens a batch.
    fn enqueue(
        &self,
        st: &mut State,
        bufs: &[Option<&wgpu::Buffer>; 3],
        len: usize,
        lone: impl FnOnce(&State) -> Option<Plan<wgpu::Buffer>>,
        write: impl FnOnce([u32; 3], &mut Vec<u32>),
    ) -> Result<()> {
        let fits = |q: &Queue| {
            let mut new = 0;
            for (i, b) in bufs.iter().enumerate() {
                if let Some(b) = b {
                    if !q.bufs.contains(b) && !bufs[..i].contains(&Some(*b)) {
                        new += 1;
                    }
                }
            }
            q.words.len().max(HEAD) + len <= SLOT_WORDS && q.bufs.len() + new <= MAX_BUFFERS
        };
        if !fits(&st.batched) {
            self.emit_batched(st, true)?;
        }
        // Ops waiting count as recorded work: buffers released now are reused by this batch's
        // later work only (`release`), and a flush submits them.
        self.open_encoder(st);
        if st.batched.ops == 0 {
            st.batched.lone = lone(st);
        }
        let q = &mut st.batched;
        if q.words.is_empty() {
            q.words.resize(HEAD, 0);
        }
        let mut slots = [0u32; 3];
        for (slot, b) in slots.iter_mut().zip(bufs) {
            if let Some(b) = b {
                *slot = match q.bufs.iter().position(|x| x == *b) {
                    Some(p) => p,
                    None => {
                        q.bufs.push((*b).clone());
                        q.bufs.len() - 1
                    }
                } as u32;
            }
        }
        write(slots, &mut q.words);
        q.ops += 1;
        Ok(())
    }

    /// Records the waiting ops as one dispatch (nothing if none wait). `may_flush`: the batch
    /// threshold may submit after it (not when the caller is itself submitting or recording).
    pub(super) fn emit_batched(&self, st: &mut State, may_flush: bool) -> Result<()> {
        if st.batched.ops == 0 {
            return Ok(());
        }
        let Queue { mut words, ops, mut bufs, lone } = std::mem::take(&mut st.batched);
        if let (1, Some(p)) = (ops, lone) {
            words.clear();
            st.batched.words = words;
            return self.dispatch_locked(st, &p.key, &p.meta, p.buffers, p.groups, may_flush);
        }
        words[0] = ops;
        st.stats.batched_ops += ops as u64;
        // Unused bindings get buffers of their own (a binding may not alias a writable one).
        if st.batched_pad.is_empty() {
            st.batched_pad = (0..MAX_BUFFERS)
                .map(|_| {
                    self.device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("webtorch:batched-pad"),
                        size: 16,
                        usage: wgpu::BufferUsages::STORAGE,
                        mapped_at_creation: false,
                    })
                })
                .collect();
        }
        let used = bufs.len();
        bufs.extend(st.batched_pad[used..].iter().cloned());
        let r = self.dispatch_locked(st, &KernelKey::Batched, &words, bufs, (1, 1, 1), may_flush);
        // The next batch reuses the allocation.
        words.clear();
        st.batched.words = words;
        r
    }
}
