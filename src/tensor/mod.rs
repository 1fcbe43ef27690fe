//! `Tensor`: a storage handle plus layout and dtype. Ops are split by family:
//! `elementwise.rs`, `reduce.rs`, `linalg.rs`, `view.rs`; creation and reads live here.

pub mod capture;
mod checks;
mod conditional;
pub mod conv;
mod elementwise;
pub mod fusion;
mod indexing;
mod inplace;
mod int64;
mod linalg;
mod nn;
mod overlap;
mod reduce;
mod scatter_reduce;
mod slicing;
mod view;

pub use crate::dtype::{to_elem, to_word};
pub use conditional::TensorOrScalar;
pub(crate) use elementwise::check_same_device;
pub(crate) use int64::checked_accumulation;
pub(crate) use nn::rms_norm_eps;
pub use scatter_reduce::ScatterReduce;

use crate::cell::RefCell;
use std::rc::Rc;

use crate::backend::{Backend, BufId, Device, Elementwise, Func, Kernel, Node, Operand};
use crate::dtype::{Compute, DType};
use crate::engine;
use crate::error::Result;
use crate::shape::{self, Layout};
use crate::{bail, random};

/// One buffer on one backend, or the pending expression that will fill it (`fusion.rs`); freed
/// (back to the pool) when the last view of it goes.
pub struct Storage {
    backend: Rc<dyn Backend>,
    state: RefCell<State>,
    /// Elements the storage holds.
    len: usize,
    /// Bumped by every in-place write (autograd checks that saved tensors were not modified).
    version: std::cell::Cell<u64>,
}

pub(crate) enum State {
    Ready(BufId),
    Pending(Rc<Pending>),
    /// The buffer was moved into another storage (an in-place write took it over).
    Moved,
    /// Computing the pending expression failed: every later use gets this error again, and
    /// flushes skip it (a failure is reported once, never retried).
    Failed(crate::error::Error),
}

/// An elementwise expression not yet computed: `nodes` over `leaves`, with output `shape`.
pub(crate) struct Pending {
    pub nodes: Vec<Node>,
    pub leaves: Vec<Leaf>,
    pub shape: Vec<usize>,
    /// The op clock when it was recorded (for the fusion window).
    pub seq: u64,
    /// Inlined into a later pending expression: a flush need not compute it on its own.
    pub absorbed: std::cell::Cell<bool>,
    /// The matmul whose product the expression's `Arg::Acc` reads: computed as one matmul
    /// dispatch with the nodes as its epilogue (`fusion.rs`, "matmul epilogues").
    pub matmul: Option<Rc<MatmulRoot>>,
}

/// The product a pending matmul expression starts from: `a @ b` with the strides `Tensor::matmul`
/// worked out (over `batch ++ [m, k]` and `batch ++ [k, n]`); `a` and `b` are ready tensors.
pub(crate) struct MatmulRoot {
    pub a: Tensor,
    pub b: Tensor,
    pub a_strides: Vec<usize>,
    pub b_strides: Vec<usize>,
    pub batch: Vec<usize>,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// The product's causal structure (`Tensor::matmul_tri_fusable`).
    pub tri: crate::backend::Tri,
}

/// A kernel input: a ready tensor, read with `strides` over the kernel's index space.
pub(crate) struct Leaf {
    pub tensor: Tensor,
    pub strides: Vec<usize>,
}

impl Storage {
    fn ready(backend: Rc<dyn Backend>, buf: BufId, len: usize) -> Rc<Storage> {
        Rc::new(Storage { backend, state: RefCell::new(State::Ready(buf)), len, version: Default::default() })
    }

    /// The buffer, computing a pending expression first. If that fails, the storage becomes
    /// `Failed`: the expression (and the inputs it held) is dropped and every later call returns
    /// the same error without trying again.
    pub(crate) fn materialize(&self) -> Result<BufId> {
        let state = self.state.borrow();
        crate::debug::fault_point("tensor.state");
        let p = match &*state {
            State::Ready(b) => return Ok(*b),
            State::Pending(p) => p.clone(),
            State::Moved => crate::bail!(Torch, "internal: a moved storage was used"),
            State::Failed(e) => return Err(e.clone()),
        };
        drop(state);
        match run_pending(&self.backend, &p) {
            Ok(buf) => {
                *self.state.borrow_mut() = State::Ready(buf);
                Ok(buf)
            }
            Err(e) => {
                *self.state.borrow_mut() = State::Failed(e.clone());
                Err(e)
            }
        }
    }
}

/// Allocates the output of `p` and dispatches its kernel.
fn run_pending(backend: &Rc<dyn Backend>, p: &Pending) -> Result<BufId> {
    if let Some(root) = &p.matmul {
        return fusion::run_matmul(backend, p, root);
    }
    let leaves = p
        .leaves
        .iter()
        .map(|l| {
            Ok(Operand {
                buf: l.tensor.storage.materialize()?,
                dtype: l.tensor.dtype,
                offset: l.tensor.layout.offset,
                strides: l.strides.clone(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let n = shape::numel(&p.shape) as u64;
    let out_dtype = p.nodes.last().map_or(DType::Float32, |nd| nd.out_dtype);
    let out = backend.alloc((n * out_dtype.word_bytes()).max(4))?;
    let k = Elementwise { nodes: p.nodes.clone(), leaves, shape: p.shape.clone(), out, out_view: None };
    if let Err(e) = backend.launch(Kernel::Elementwise(&k)) {
        backend.release(out);
        return Err(e);
    }
    fusion::count_kernel(&p.nodes);
    Ok(out)
}

impl Drop for Storage {
    fn drop(&mut self) {
        if let State::Ready(buf) = *self.state.borrow() {
            self.backend.release(buf);
        }
    }
}

/// A tensor: a view (`layout`) of a storage, with a dtype. Cloning makes another view of the same
/// storage, never a copy.
pub struct Tensor {
    storage: Rc<Storage>,
    pub layout: Layout,
    pub dtype: DType,
    /// Autograd state (`autograd/`): its history, and for a view the tensor it was taken from.
    /// `clone()` takes a snapshot of the history (a clone kept for a backward keeps the history
    /// it was recorded with); `alias()` shares it (another handle of the same tensor, which sees
    /// an in-place write's new history).
    /// Empty until the tensor has a history or a view or alias of it is taken (most tensors
    /// never do: no allocation for them).
    pub(crate) ag: std::cell::OnceCell<Rc<crate::autograd::Slot>>,
}

impl Clone for Tensor {
    fn clone(&self) -> Tensor {
        Tensor {
            storage: self.storage.clone(),
            layout: self.layout.clone(),
            dtype: self.dtype,
            ag: match self.history() {
                Some(h) => Rc::new(crate::autograd::Slot::of(Some(h))).into(),
                None => Default::default(),
            },
        }
    }
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tensor({:?}, {}, {})", self.layout.shape, self.dtype.name(), self.device().name())
    }
}

impl Tensor {
    /// An uninitialised contiguous tensor on `backend`.
    pub(crate) fn empty_on(backend: &Rc<dyn Backend>, shape: &[usize], dtype: DType) -> Result<Tensor> {
        check_dtype_on(backend.device(), dtype)?;
        let n = shape::numel(shape) as u64;
        let buf = backend.alloc((n * dtype.word_bytes()).max(4))?;
        Ok(Tensor {
            storage: Storage::ready(backend.clone(), buf, n as usize),
            layout: Layout::contiguous(shape),
            dtype,
            ag: Default::default(),
        })
    }

    /// `p` computed now (an op that bypasses the fuser): not registered as pending.
    pub(crate) fn computed(backend: &Rc<dyn Backend>, p: Pending, dtype: DType) -> Result<Tensor> {
        check_dtype_on(backend.device(), dtype)?;
        let buf = run_pending(backend, &p)?;
        let n = shape::numel(&p.shape);
        crate::engine::note_work();
        Ok(Tensor {
            storage: Storage::ready(backend.clone(), buf, n),
            layout: Layout::contiguous(&p.shape),
            dtype,
            ag: Default::default(),
        })
    }

    /// A tensor whose value is the pending expression `p` (computed when first needed).
    pub(crate) fn pending(backend: &Rc<dyn Backend>, p: Pending, dtype: DType) -> Tensor {
        let layout = Layout::contiguous(&p.shape);
        let len = shape::numel(&p.shape);
        let storage = Rc::new(Storage {
            backend: backend.clone(),
            state: RefCell::new(State::Pending(Rc::new(p))),
            len,
            version: Default::default(),
        });
        fusion::register(&storage);
        crate::engine::note_work();
        Tensor { storage, layout, dtype, ag: Default::default() }
    }

    pub fn empty(shape: &[usize], dtype: DType, device: Device) -> Result<Tensor> {
        Tensor::empty_on(&engine::backend(device)?, shape, dtype)
    }

    /// A tensor holding `words` (already in `dtype`'s storage form: `dtype.words()` per element).
    pub fn from_words(words: &[u32], shape: &[usize], dtype: DType, device: Device) -> Result<Tensor> {
        let n = words.len() / dtype.words();
        if words.len() != shape::numel(shape) * dtype.words() {
            bail!(Shape, "shape {} is invalid for input of size {n}", shape::fmt_shape(shape));
        }
        check_dtype_on(device, dtype)?;
        let backend = engine::backend(device)?;
        let buf = if words.is_empty() { backend.alloc(4)? } else { backend.upload(words)? };
        Ok(Tensor {
            storage: Storage::ready(backend, buf, n),
            layout: Layout::contiguous(shape),
            dtype,
            ag: Default::default(),
        })
    }

    /// A contiguous tensor whose storage is filled by `write_words` (contents undefined until
    /// then): how a file is loaded a chunk at a time, without its words all on the host at once.
    pub fn for_write(shape: &[usize], dtype: DType, device: Device) -> Result<Tensor> {
        check_dtype_on(device, dtype)?;
        let n = shape::numel(shape);
        let backend = engine::backend(device)?;
        let buf = backend.alloc_for_write(n * dtype.words())?;
        Ok(Tensor {
            storage: Storage::ready(backend, buf, n),
            layout: Layout::contiguous(shape),
            dtype,
            ag: Default::default(),
        })
    }

    /// Writes storage words (`dtype.rs`'s encoding, `dtype.words()` per element) at element
    /// `offset` of a tensor made by `for_write`.
    pub fn write_words(&self, offset: usize, words: &[u32]) -> Result<()> {
        let w = self.dtype.words();
        let elems = words.len() / w;
        let end = offset.checked_add(elems).filter(|&e| e <= self.numel() && words.len().is_multiple_of(w));
        if end.is_none() || self.layout.offset != 0 || self.layout.strides != shape::contiguous_strides(self.shape()) {
            bail!(Index, "write of {elems} elements at {offset} outside a contiguous tensor of {}", self.numel());
        }
        let buf = self.storage.materialize()?;
        self.backend().write(buf, offset * w, words)
    }

    /// `torch.tensor(data, dtype=…)` from numbers (JS numbers are f64).
    pub fn from_f64(data: &[f64], shape: &[usize], dtype: DType, device: Device) -> Result<Tensor> {
        let mut words = Vec::with_capacity(data.len() * dtype.words());
        for &x in data {
            let bits = to_elem(x, dtype)?;
            words.push(bits as u32);
            if dtype.words() == 2 {
                words.push((bits >> 32) as u32);
            }
        }
        Tensor::from_words(&words, shape, dtype, device)
    }

    pub fn from_f32(data: &[f32], shape: &[usize], device: Device) -> Result<Tensor> {
        let words: Vec<u32> = data.iter().map(|x| x.to_bits()).collect();
        Tensor::from_words(&words, shape, DType::Float32, device)
    }

    /// `torch.full(shape, value)`, filled by a kernel (no upload; on a fusing device the fill is
    /// folded into whatever consumes it).
    pub fn full(shape: &[usize], value: f64, dtype: DType, device: Device) -> Result<Tensor> {
        to_elem(value, dtype)?;
        let compute = if dtype.is_float() || value.fract() != 0.0 { Compute::float_for(dtype) } else { Compute::I32 };
        let args = [fusion::Operand::Scalar(value)];
        elementwise::elementwise_op(&engine::backend(device)?, &args, Func::Cast, compute, dtype, shape.to_vec())
    }

    /// `torch.arange(start, end, step)`.
    pub fn arange(start: f64, end: f64, step: f64, dtype: DType, device: Device) -> Result<Tensor> {
        if step == 0.0 {
            bail!(Torch, "step must be nonzero");
        }
        if !(start.is_finite() && end.is_finite()) {
            // PyTorch's spelling of the bounds: `nan`, `inf`, `-inf`.
            let show = |v: f64| {
                if v.is_nan() {
                    "nan".to_string()
                } else if v.is_infinite() {
                    format!("{}inf", if v < 0.0 { "-" } else { "" })
                } else {
                    v.to_string()
                }
            };
            bail!(Torch, "unsupported range: {} -> {}", show(start), show(end));
        }
        if (step > 0.0 && start > end) || (step < 0.0 && start < end) {
            bail!(Torch, "upper bound and lower bound inconsistent with step sign");
        }
        let n = ((end - start) / step).ceil().max(0.0);
        if n > u32::MAX as f64 {
            bail!(OutOfMemory, "arange of {n} elements is too large");
        }
        // The values and their words are built on the host.
        engine::check_host_alloc("arange", n as usize, 8, 2)?;
        // The length comes from the bounds as given; an integer dtype's values from its own
        // conversions of start and step (PyTorch's: `arange(0, 2, 0.5, dtype=int64)` is four
        // zeros).
        let (first, by) = if dtype.is_int() { (start.trunc(), step.trunc()) } else { (start, step) };
        let data: Vec<f64> = (0..n as usize).map(|i| first + i as f64 * by).collect();
        Tensor::from_f64(&data, &[data.len()], dtype, device)
    }

    /// `torch.rand(shape)`: uniform [0, 1) from the seeded Philox stream.
    pub fn rand(shape: &[usize], dtype: DType, device: Device) -> Result<Tensor> {
        require_float(dtype, "\"check_uniform_bounds\"")?;
        // The draws, the floats and their words are made on the host first.
        engine::check_host_alloc("rand", shape::numel(shape), 4, 2)?;
        check_dtype_on(device, dtype)?;
        Tensor::from_f32(&random::uniform(shape::numel(shape)), shape, device)?.cast_to(dtype)
    }

    /// `torch.randn(shape)`: standard normal from the seeded Philox stream.
    pub fn randn(shape: &[usize], dtype: DType, device: Device) -> Result<Tensor> {
        require_float(dtype, "\"normal_kernel_cpu\"")?;
        engine::check_host_alloc("randn", shape::numel(shape), 4, 3)?;
        check_dtype_on(device, dtype)?;
        Tensor::from_f32(&random::normal(shape::numel(shape)), shape, device)?.cast_to(dtype)
    }

    /// This float32 tensor of draws as `dtype`: float16 and bfloat16 draws are the float32 draw
    /// rounded; float64 draws are the float32 stream's, widened exactly (docs/dtypes.md).
    fn cast_to(self, dtype: DType) -> Result<Tensor> {
        if dtype == DType::Float32 {
            Ok(self)
        } else {
            self.to_dtype(dtype)
        }
    }

    pub fn backend(&self) -> &Rc<dyn Backend> {
        &self.storage.backend
    }

    pub fn device(&self) -> Device {
        self.storage.backend.device()
    }

    pub fn shape(&self) -> &[usize] {
        &self.layout.shape
    }

    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }

    pub fn numel(&self) -> usize {
        self.layout.numel()
    }

    /// How a kernel reads this tensor over an index space of `shape` (broadcasting); computes a
    /// pending tensor first.
    pub(crate) fn operand(&self, shape: &[usize]) -> Result<Operand> {
        Ok(Operand {
            buf: self.storage.materialize()?,
            dtype: self.dtype,
            offset: self.layout.offset,
            strides: self.layout.broadcast_strides(shape),
        })
    }

    /// This tensor read with `strides` (over some kernel's index space).
    pub(crate) fn operand_with(&self, strides: &[usize]) -> Result<Operand> {
        Ok(Operand {
            buf: self.storage.materialize()?,
            dtype: self.dtype,
            offset: self.layout.offset,
            strides: strides.to_vec(),
        })
    }

    /// Computes this tensor if it is pending.
    pub(crate) fn materialize(&self) -> Result<()> {
        self.storage.materialize().map(|_| ())
    }

    /// Computes a pending tensor now (tests use it to build ready inputs).
    pub fn materialize_for_test(&self) {
        let _ = self.storage.materialize();
    }

    /// Whether the tensor's value is still an uncomputed (fusable) expression.
    pub fn is_pending(&self) -> bool {
        matches!(&*self.storage.state.borrow(), State::Pending(_))
    }

    /// The buffer (computing a pending tensor first).
    pub(crate) fn buf(&self) -> Result<BufId> {
        self.storage.materialize()
    }

    /// A view with any layout (for probing view ops; the layout is not checked against the
    /// storage, so read nothing through it).
    pub(crate) fn with_layout_pub(&self, layout: Layout) -> Tensor {
        self.with_layout(layout)
    }

    /// A view of the same storage with another layout (its base: this tensor's, or this tensor).
    pub(crate) fn with_layout(&self, layout: Layout) -> Tensor {
        let base = match self.view_base() {
            Some(b) => b.alias(),
            None => self.alias(),
        };
        let slot = crate::autograd::Slot::view_of(base, self.storage.version.get(), self.ag.get().map(|s| &**s));
        Tensor { storage: self.storage.clone(), layout, dtype: self.dtype, ag: Rc::new(slot).into() }
    }

    /// Another handle of this tensor: the same storage, layout and autograd state (an in-place
    /// write through either is seen by both).
    pub fn alias(&self) -> Tensor {
        Tensor {
            storage: self.storage.clone(),
            layout: self.layout.clone(),
            dtype: self.dtype,
            ag: self.slot().clone().into(),
        }
    }

    /// This storage's in-place write count.
    pub(crate) fn storage_version(&self) -> u64 {
        self.storage.version.get()
    }

    /// Whether two tensors share storage (views of one another).
    pub fn same_storage(&self, other: &Tensor) -> bool {
        Rc::ptr_eq(&self.storage, &other.storage)
    }

    /// The values in row-major order, as storage words (flushes pending work).
    pub async fn read_words(&self) -> Result<Vec<u32>> {
        self.start_read()?.await
    }

    /// `read_words` in two halves: this call computes the tensor and submits the copy (all the
    /// work that could fail or panic, done while the caller waits, where a trap is caught); the
    /// future only waits for the mapped bytes.
    pub fn start_read(&self) -> Result<crate::backend::LocalFuture<Result<Vec<u32>>>> {
        let t = self.contiguous()?;
        let n = t.numel();
        if n == 0 {
            return Ok(Box::pin(async { Ok(vec![]) }));
        }
        let buf = t.storage.materialize()?;
        // The words come back through the wasm heap (mapped, then copied out): checked here,
        // while the caller waits, not in the future that receives them.
        let w = t.dtype.words();
        engine::check_host_alloc("read", n, 4 * w, 2)?;
        // The read submits the batch with its copy.
        Ok(t.backend().read(buf, t.layout.offset * w, n * w))
    }

    /// A copy on the CPU that is returned now and whose words arrive when this tensor's read
    /// does: its buffer is pending (`backend/cpu/deferred.rs`) until the returned future, driven
    /// by the caller, has received them. Work on the copy is recorded meanwhile; reads wait.
    pub fn to_cpu_later(&self) -> Result<(Tensor, crate::backend::LocalFuture<()>)> {
        let out = Tensor::for_write(self.shape(), self.dtype, Device::Cpu)?;
        let read = self.start_read()?;
        let buf = out.buf()?;
        let cpu = engine::cpu();
        cpu.begin_pending(buf);
        Ok((out, Box::pin(async move { cpu.fill_pending(buf, read.await) })))
    }

    /// The values as f64 (tests and printing).
    pub async fn to_f64(&self) -> Result<Vec<f64>> {
        let words = self.read_words().await?;
        Ok(match self.dtype {
            DType::Float64 => {
                words.chunks_exact(2).map(|w| f64::from_bits(w[0] as u64 | (w[1] as u64) << 32)).collect()
            }
            dtype => words.into_iter().map(|w| from_word(w, dtype)).collect(),
        })
    }
}

fn require_float(dtype: DType, kernel: &str) -> Result<()> {
    if !dtype.is_float() {
        bail!(DType, "{kernel} not implemented for '{}'", dtype.scalar_name());
    }
    Ok(())
}

/// PyTorch's MPS wording for float64 on a device without it: only the CPU backend has float64.
pub(crate) fn check_dtype_on(device: Device, dtype: DType) -> Result<()> {
    if dtype == DType::Float64 && device != Device::Cpu {
        bail!(
            DType,
            "Cannot convert a WebGPU Tensor to float64 dtype as the WebGPU device doesn't support float64. Please use float32 instead."
        );
    }
    Ok(())
}

pub fn from_word(w: u32, dtype: DType) -> f64 {
    match dtype {
        DType::Float32 | DType::Float16 | DType::BFloat16 => f32::from_bits(w) as f64,
        DType::Int32 | DType::Int64 => w as i32 as f64,
        DType::UInt8 | DType::Bool => w as f64,
        // Two words (`to_f64` reads them); never one.
        DType::Float64 => f64::NAN,
    }
}
