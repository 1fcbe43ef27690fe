//! Kernel graphs for `torch.compile` (docs/compile.md): a stable trace is run once more with the
//! WebGPU backend capturing every dispatch (`backend/webgpu/graph.rs`); later calls replay the
//! captured kernels — pre-built pipelines, buffers and bind groups — in one wasm call, recorded
//! into the open batch, with no op-by-op work in the core.
//!
//! A replay must leave the engine as the traced step would. The capture runs on copies of the
//! inputs (replays copy their inputs there). State the step changes — parameters and optimizer
//! buffers updated in place (their storage moves to a new buffer), gradients made anew — is
//! returned to the buffers the graph reads by copy-backs at the end of each replay, and the
//! storages are pointed at those buffers once, so the step is a fixed point. Outputs are copied
//! into fresh buffers. Refused (the trace replays call by call instead): a step that draws random
//! numbers, runs anything on the CPU backend, or returns a tensor with autograd history without
//! running a backward itself (replayed outputs have none); a
//! replay finds the state changed since the capture (a parameter replaced, gradients cleared
//! outside the step) and answers `undefined`, and the TS layer drops the graph.

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::{RawTensor, Tensor};
use crate::api::{js, JsResult};
use crate::backend::{Backend, BufId, Device, KernelGraphs};
use crate::shape::Layout;
use crate::{bail, err, Result};

/// A tensor whose buffer the step may change, as it was when the capture began.
struct Snap {
    tensor: Tensor,
    buf: BufId,
    /// Its gradient then (held, so that it can be restored).
    grad: Option<(Tensor, BufId)>,
}

/// A capture in progress: the step runs on `inputs()` between `begin` and `end`.
#[wasm_bindgen]
pub struct GraphCapture {
    backend: Rc<dyn Backend>,
    inputs: Vec<Tensor>,
    externals: Vec<Tensor>,
    snaps: Vec<Snap>,
    rng: (u64, u64),
    cpu_allocations: u64,
    dispatches_before: u64,
    /// The fusion `min_size` before the capture (restored when it closes).
    min_size: usize,
}

enum Out {
    /// A copy of a graph buffer: storage length, layout, dtype.
    Buffer(usize, Layout, crate::DType),
    External(usize),
}

/// A state tensor, its buffer and its gradient with that gradient's buffer, after a capture.
type StateAfter = (Tensor, BufId, Option<(Tensor, BufId)>);

/// A captured step.
#[wasm_bindgen]
pub struct Graph {
    backend: Rc<dyn Backend>,
    id: u32,
    dispatches: u32,
    /// Per input: storage bytes and dtype a replay's input must have.
    inputs: Vec<(u64, Vec<usize>, crate::DType)>,
    outputs: Vec<Out>,
    externals: Vec<Tensor>,
    /// Every state tensor's buffer and gradient (storage identity, buffer) after the capture.
    state: Vec<StateAfter>,
    first: Vec<Option<RawTensor>>,
}

fn gpu() -> Result<Rc<dyn Backend>> {
    crate::engine::backend(Device::WebGpu)
}

fn on_gpu(t: &Tensor, what: &str) -> Result<()> {
    if t.device() != Device::WebGpu {
        bail!(Torch, "{what} is on '{}', not 'webgpu'", t.device().name());
    }
    Ok(())
}

fn cpu_allocations() -> u64 {
    crate::engine::backend(Device::Cpu).map(|b| b.stats().allocations).unwrap_or(0)
}

#[wasm_bindgen]
impl GraphCapture {
    /// Opens a capture of a step over `inputs` that uses `externals` (parameters, optimizer
    /// state, anything the trace holds). Throws with the reason when the step cannot be captured.
    pub fn begin(inputs: Vec<RawTensor>, externals: Vec<RawTensor>) -> JsResult<GraphCapture> {
        js(Self::open(inputs.iter().map(|r| r.t.clone()).collect(), externals.iter().map(|r| r.t.clone()).collect()))
    }

    /// The tensors the step must run on (copies of the inputs, in the graph's input buffers).
    pub fn inputs(&self) -> Vec<RawTensor> {
        self.inputs.iter().cloned().map(RawTensor::wrap).collect()
    }

    /// Closes the capture into a graph whose replays return `outputs` (the step's results, in
    /// order). `stepped`: the step ran its own backward (a training step), so outputs with
    /// autograd history are fine — their graph is spent; otherwise such an output refuses the
    /// capture (a backward through it would run outside the graph). Throws with the reason when
    /// the step cannot be replayed from its kernels.
    pub fn end(self, outputs: Vec<RawTensor>, stepped: bool) -> JsResult<Graph> {
        let backend = self.backend.clone();
        let min_size = self.min_size;
        let r = self.close(outputs.iter().map(|r| r.t.clone()).collect(), stepped);
        set_min_size(min_size);
        if let Some(g) = backend.graphs().filter(|_| r.is_err()) {
            g.capture_abort();
        }
        js(r)
    }

    /// Closes the capture without a graph (the step failed).
    pub fn abort(self) {
        set_min_size(self.min_size);
        if let Some(g) = self.backend.graphs() {
            g.capture_abort();
        }
    }
}

/// The backend's graph capture, or the error of a device without it.
fn graphs(backend: &dyn Backend) -> Result<&dyn KernelGraphs> {
    backend.graphs().ok_or_else(|| err!(Torch, "this device does not capture kernel graphs"))
}

fn set_min_size(n: usize) {
    crate::engine::tune(|t| t.fusion_min_size = n);
}

impl GraphCapture {
    fn open(inputs: Vec<Tensor>, externals: Vec<Tensor>) -> Result<GraphCapture> {
        let backend = gpu()?;
        let mut copies = Vec::with_capacity(inputs.len());
        for x in &inputs {
            on_gpu(x, "an input")?;
            if x.requires_grad() {
                bail!(Torch, "an input requires grad");
            }
            let c = x.deep_clone()?;
            c.ready_buf()?;
            copies.push(c);
        }
        let mut snaps: Vec<Snap> = Vec::new();
        for e in &externals {
            on_gpu(e, "a tensor the step uses")?;
            if snaps.iter().any(|s| s.tensor.same_storage_as(e)) {
                continue;
            }
            let grad = match e.grad() {
                Some(g) => Some((g.clone(), g.ready_buf()?)),
                None => None,
            };
            snaps.push(Snap { tensor: e.clone(), buf: e.ready_buf()?, grad });
        }
        crate::tensor::fusion::materialize_chain_ends()?;
        let dispatches_before = backend.stats().dispatches;
        if !backend.graphs().is_some_and(|g| g.capture_begin()) {
            bail!(Torch, "a capture is already open");
        }
        // A replay pays per dispatch and nothing for being lazy, so a captured step fuses its
        // elementwise chains whatever their size: eager's `min_size` bypass (small ops run at
        // once, seeds/000) is lifted until the capture closes. Fused chains compute each value
        // as the unfused kernels do, so results are the same.
        let min_size = crate::engine::tune(|t| std::mem::replace(&mut t.fusion_min_size, t.capture_fusion_min_size));
        Ok(GraphCapture {
            backend,
            inputs: copies,
            externals,
            snaps,
            rng: crate::random::position(),
            cpu_allocations: cpu_allocations(),
            dispatches_before,
            min_size,
        })
    }

    fn close(self, outputs: Vec<Tensor>, stepped: bool) -> Result<Graph> {
        for o in &outputs {
            o.ready_buf()?;
        }
        for s in &self.snaps {
            s.tensor.ready_buf()?;
            if let Some(g) = s.tensor.grad() {
                g.ready_buf()?;
            }
        }
        crate::tensor::fusion::materialize_chain_ends()?;
        if crate::random::position() != self.rng {
            bail!(Torch, "the step draws random numbers (a replay would repeat them)");
        }
        if cpu_allocations() != self.cpu_allocations {
            bail!(Torch, "the step runs work on the cpu backend");
        }
        if let Some(why) = self.backend.graphs().and_then(|g| g.capture_refused()) {
            bail!(Torch, "{why} (a replay would repeat it)");
        }
        let mut outs = Vec::with_capacity(outputs.len());
        let mut spans = Vec::new();
        for o in &outputs {
            if let Some(i) = self.externals.iter().position(|e| e.same_storage_as(o)) {
                outs.push(Out::External(i));
                continue;
            }
            on_gpu(o, "an output")?;
            if o.requires_grad() && !stepped {
                bail!(Torch, "an output has autograd history (its backward would run outside the graph)");
            }
            if self.inputs.iter().any(|x| x.same_storage_as(o)) {
                bail!(Torch, "an output is an input");
            }
            spans.push((o.ready_buf()?, o.storage_bytes()));
            outs.push(Out::Buffer(o.storage_len(), o.layout.clone(), o.dtype));
        }
        // State: storages moved to new buffers return to the old ones (copied back at the end of
        // every replay, and once now); gradients made anew are copied into the old gradients.
        let mut copy_backs = Vec::new();
        for s in &self.snaps {
            let now = s.tensor.ready_buf()?;
            if now != s.buf {
                let moved =
                    s.tensor.rebind_storage(s.buf).ok_or_else(|| err!(Torch, "internal: state not computed"))?;
                copy_backs.push((moved, s.buf, s.tensor.storage_bytes()));
                // The graph owns the buffer the step wrote (released while the capture is open).
                self.backend.release(moved);
            }
            if let (Some((g0, b0)), Some(g1)) = (&s.grad, s.tensor.grad()) {
                if !g0.same_storage_as(&g1) {
                    let now = g0.ready_buf()?;
                    if now != *b0 {
                        let moved = g0.rebind_storage(*b0).ok_or_else(|| err!(Torch, "internal: grad not computed"))?;
                        self.backend.release(moved);
                    }
                    copy_backs.push((g1.ready_buf()?, *b0, g1.storage_bytes()));
                    let mut t = s.tensor.clone();
                    t.set_grad(Some(g0.clone()))?;
                } else if g1.ready_buf()? != *b0 {
                    let moved = g1.rebind_storage(*b0).ok_or_else(|| err!(Torch, "internal: grad not computed"))?;
                    copy_backs.push((moved, *b0, g1.storage_bytes()));
                    self.backend.release(moved);
                }
            }
        }
        let inputs: Vec<(BufId, u64)> =
            self.inputs.iter().map(|x| Ok((x.ready_buf()?, x.storage_bytes()))).collect::<Result<_>>()?;
        let dispatches = (self.backend.stats().dispatches - self.dispatches_before) as u32;
        let id = graphs(self.backend.as_ref())?.capture_end(&inputs, &spans, &copy_backs)?;
        let state = self
            .snaps
            .iter()
            .map(|s| {
                let grad = match s.tensor.grad() {
                    Some(g) => Some((g.clone(), g.ready_buf()?)),
                    None => None,
                };
                Ok((s.tensor.clone(), s.tensor.ready_buf()?, grad))
            })
            .collect::<Result<Vec<_>>>()?;
        // The capture's own outputs are copies too: a later replay rewrites the graph's buffers.
        let first = outputs
            .iter()
            .zip(&outs)
            .map(|(o, spec)| match spec {
                Out::External(_) => Ok(Some(RawTensor::wrap(o.clone()))),
                Out::Buffer(..) => {
                    let c = o.deep_clone()?;
                    c.ready_buf()?;
                    Ok(Some(RawTensor::wrap(c)))
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Graph {
            backend: self.backend.clone(),
            id,
            dispatches,
            inputs: self.inputs.iter().map(|x| (x.storage_bytes(), x.shape().to_vec(), x.dtype)).collect(),
            outputs: outs,
            externals: self.externals.clone(),
            state,
            first,
        })
    }
}

#[wasm_bindgen]
impl Graph {
    /// The capture run's outputs (copies), once.
    pub fn take_outputs(&mut self) -> Vec<RawTensor> {
        self.first.iter_mut().filter_map(Option::take).collect()
    }

    /// Replays the step on `inputs`: the outputs, or `undefined` when the engine's state no
    /// longer matches the capture (the caller replays another way and drops the graph).
    pub fn run(&self, inputs: Vec<RawTensor>) -> JsResult<Option<Vec<RawTensor>>> {
        js(self.replay(inputs.iter().map(|r| &r.t).collect()))
    }

    /// Kernels a replay encodes.
    pub fn dispatches(&self) -> u32 {
        self.dispatches
    }
}

impl Graph {
    fn replay(&self, inputs: Vec<&Tensor>) -> Result<Option<Vec<RawTensor>>> {
        for (t, buf, grad) in &self.state {
            if t.current_buf() != Some(*buf) {
                return Ok(None);
            }
            let same = match (grad, t.grad()) {
                (None, None) => true,
                (Some((g0, b)), Some(g)) => g0.same_storage_as(&g) && g.current_buf() == Some(*b),
                _ => false,
            };
            if !same {
                return Ok(None);
            }
        }
        if inputs.len() != self.inputs.len() {
            return Ok(None);
        }
        let mut bufs = Vec::with_capacity(inputs.len());
        for (x, (bytes, shape, dtype)) in inputs.iter().zip(&self.inputs) {
            let whole = x.layout.offset == 0 && x.layout.is_contiguous() && x.storage_bytes() == *bytes;
            if x.device() != Device::WebGpu || !whole || x.shape() != &shape[..] || x.dtype != *dtype {
                return Ok(None);
            }
            bufs.push(x.ready_buf()?);
        }
        let outs = graphs(self.backend.as_ref())?.graph_run(self.id, &bufs)?;
        let mut fresh = outs.into_iter();
        let mut result = Vec::with_capacity(self.outputs.len());
        for o in &self.outputs {
            result.push(RawTensor::wrap(match o {
                Out::External(i) => self.externals[*i].clone(),
                Out::Buffer(len, layout, dtype) => {
                    let buf = fresh.next().ok_or_else(|| err!(Torch, "internal: graph output missing"))?;
                    Tensor::over_buffer(&self.backend, buf, *len, layout.clone(), *dtype)
                }
            }));
        }
        Ok(Some(result))
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        if let Some(g) = self.backend.graphs() {
            g.graph_drop(self.id);
        }
    }
}
