//! `RawTensor`: the wasm-bindgen handle class. One method per engine op; integer codes and typed
//! arrays in, a new handle or a thrown `TorchError` out. No math here.

use js_sys::Promise;
use wasm_bindgen::convert::TryFromJsValue;
use wasm_bindgen::prelude::*;

use super::{js, JsResult, LIVE_HANDLES};

mod conv;
mod custom;
mod function;
mod graph;
mod kernels;
mod optim;
mod plan;
mod sort;
use crate::autograd::{self, ops as ag};
use crate::backend::Device;
use crate::dtype::{DType, ScalarKind};
use crate::ops::Op;
use crate::shape::checked_shape;
use crate::tensor::Tensor;
use crate::{bail, Result};

/// Dims [`RawTensor::meta`] writes to its scratch (more are read through `shape()`).
const META_DIMS: usize = 16;

thread_local! {
    /// The scratch of [`RawTensor::meta`]: boxed, so its address is fixed for the module's life.
    static META: crate::cell::RefCell<Box<[i32; META_DIMS]>> = crate::cell::RefCell::new(Box::new([0; META_DIMS]));
}

/// The address of [`RawTensor::meta`]'s scratch in the module's memory (16 int32 words).
#[wasm_bindgen]
pub fn meta_scratch() -> u32 {
    META.with(|m| m.borrow().as_ptr() as usize as u32)
}

#[wasm_bindgen]
pub struct RawTensor {
    t: Tensor,
    /// Key in the live-handle registry (`torch.webgpu.leak_report()`).
    id: u64,
}

impl RawTensor {
    fn wrap(t: Tensor) -> RawTensor {
        LIVE_HANDLES.with(|c| c.set(c.get() + 1));
        let id = super::leaks::track(&t);
        RawTensor { t, id }
    }

    fn op(r: Result<Tensor>) -> JsResult<RawTensor> {
        js(r).map(RawTensor::wrap)
    }

    /// Runs one op (timed when the profiler records) and wraps its result.
    fn timed(name: &str, f: impl FnOnce() -> Result<Tensor>) -> JsResult<RawTensor> {
        let r = super::profiler::time(name, f);
        js(r).map(RawTensor::wrap)
    }

    pub fn tensor(&self) -> &Tensor {
        &self.t
    }
}

impl Drop for RawTensor {
    fn drop(&mut self) {
        LIVE_HANDLES.with(|c| c.set(c.get().saturating_sub(1)));
        super::leaks::untrack(self.id);
    }
}

fn shape_of(shape: &[i32]) -> Result<Vec<usize>> {
    checked_shape(&shape.iter().map(|&s| s as i64).collect::<Vec<_>>())
}

fn dims(d: &[i32]) -> Vec<i64> {
    d.iter().map(|&x| x as i64).collect()
}

/// The torch name of an op id, for the profiler.
fn op_name(id: u32) -> &'static str {
    Op::from_id(id).map_or("?", |o| o.info().name)
}

fn op_of(id: u32) -> Result<Op> {
    match Op::from_id(id) {
        Some(op) => Ok(op),
        None => bail!(Torch, "unknown op id {id}"),
    }
}

fn args(dtype: u32, device: u32) -> Result<(DType, Device)> {
    Ok((DType::from_code(dtype)?, Device::from_code(device)?))
}

#[wasm_bindgen]
impl RawTensor {
    pub fn from_f64(data: &[f64], shape: &[i32], dtype: u32, device: u32) -> JsResult<RawTensor> {
        RawTensor::timed("from_f64", || {
            shape_of(shape).and_then(|s| {
                let (dt, dev) = args(dtype, device)?;
                Tensor::from_f64(data, &s, dt, dev)
            })
        })
    }

    pub fn from_f32(data: &[f32], shape: &[i32], device: u32) -> JsResult<RawTensor> {
        RawTensor::timed("from_f32", || {
            shape_of(shape).and_then(|s| Tensor::from_f32(data, &s, Device::from_code(device)?))
        })
    }

    /// A tensor to fill with `write_words` (the safetensors loader, chunk by chunk).
    pub fn for_write(shape: &[i32], dtype: u32, device: u32) -> JsResult<RawTensor> {
        RawTensor::timed("for_write", || {
            shape_of(shape).and_then(|s| {
                let (dt, dev) = args(dtype, device)?;
                Tensor::for_write(&s, dt, dev)
            })
        })
    }

    /// Writes storage words at element `offset` of a tensor from `for_write`.
    pub fn write_words(&self, offset: f64, words: &[u32]) -> JsResult<()> {
        if !(offset >= 0.0 && offset.fract() == 0.0 && offset <= u32::MAX as f64) {
            return js(Err(crate::err!(Index, "write offset {offset} is not a valid element index")));
        }
        js(self.t.write_words(offset as usize, words))
    }

    pub fn full(shape: &[i32], value: f64, dtype: u32, device: u32) -> JsResult<RawTensor> {
        RawTensor::timed("full", || {
            shape_of(shape).and_then(|s| {
                let (dt, dev) = args(dtype, device)?;
                Tensor::full(&s, value, dt, dev)
            })
        })
    }

    pub fn arange(start: f64, end: f64, step: f64, dtype: u32, device: u32) -> JsResult<RawTensor> {
        RawTensor::timed("arange", || {
            args(dtype, device).and_then(|(dt, dev)| Tensor::arange(start, end, step, dt, dev))
        })
    }

    pub fn rand(shape: &[i32], dtype: u32, device: u32) -> JsResult<RawTensor> {
        RawTensor::timed("rand", || {
            shape_of(shape).and_then(|s| {
                let (dt, dev) = args(dtype, device)?;
                Tensor::rand(&s, dt, dev)
            })
        })
    }

    pub fn randn(shape: &[i32], dtype: u32, device: u32) -> JsResult<RawTensor> {
        RawTensor::timed("randn", || {
            shape_of(shape).and_then(|s| {
                let (dt, dev) = args(dtype, device)?;
                Tensor::randn(&s, dt, dev)
            })
        })
    }

    pub fn shape(&self) -> Vec<i32> {
        self.t.shape().iter().map(|&s| s as i32).collect()
    }

    /// What the TS `Tensor` reads on construction, in one call and with no allocation: the
    /// dtype code (bits 0–7), the device code (bits 8–15) and the number of dims (bits 16–30),
    /// with the sizes written to the scratch at [`meta_scratch`]; bit 31 set means the tensor
    /// has more dims than the scratch holds (read `shape()` instead). `shape()` returns a fresh
    /// `Vec`, which the glue copies out and frees: three calls and an allocation per op that
    /// showed in profiles of tiny-op chains (bench/KERNELS.md, "Host path").
    pub fn meta(&self) -> u32 {
        let shape = self.t.shape();
        let head = self.t.dtype.code() | (self.t.device() as u32) << 8 | (shape.len() as u32) << 16;
        if shape.len() > META_DIMS {
            return head | 1 << 31;
        }
        META.with(|m| {
            let mut m = m.borrow_mut();
            for (w, &s) in m.iter_mut().zip(shape) {
                *w = s as i32;
            }
        });
        head
    }

    pub fn strides(&self) -> Vec<i32> {
        self.t.layout.strides.iter().map(|&s| s as i32).collect()
    }

    pub fn offset(&self) -> u32 {
        self.t.layout.offset as u32
    }

    pub fn dtype(&self) -> u32 {
        self.t.dtype.code()
    }

    pub fn device(&self) -> u32 {
        self.t.device() as u32
    }

    pub fn numel(&self) -> f64 {
        self.t.numel() as f64
    }

    pub fn is_contiguous(&self) -> bool {
        self.t.layout.is_contiguous()
    }

    pub fn unary(&self, op: u32) -> JsResult<RawTensor> {
        RawTensor::timed(op_name(op), || op_of(op).and_then(|op| ag::unary(&self.t, op)))
    }

    pub fn binary(&self, op: u32, other: &RawTensor) -> JsResult<RawTensor> {
        RawTensor::timed(op_name(op), || op_of(op).and_then(|op| ag::binary(&self.t, &other.t, op)))
    }

    pub fn binary_scalar(&self, op: u32, value: f64, reverse: bool) -> JsResult<RawTensor> {
        RawTensor::timed(op_name(op), || {
            op_of(op).and_then(|op| ag::binary_scalar(&self.t, op, value, reverse, ScalarKind::of(value)))
        })
    }

    /// A bool scalar operand (`t - true`), which PyTorch treats as a bool, not an int.
    pub fn binary_scalar_bool(&self, op: u32, value: bool, reverse: bool) -> JsResult<RawTensor> {
        let v = if value { 1.0 } else { 0.0 };
        RawTensor::op(op_of(op).and_then(|op| ag::binary_scalar(&self.t, op, v, reverse, ScalarKind::Bool)))
    }

    /// `add`/`sub` with `alpha`: `self ± alpha * other`.
    pub fn add_alpha(&self, op: u32, other: &RawTensor, alpha: f64) -> JsResult<RawTensor> {
        RawTensor::timed(op_name(op), || op_of(op).and_then(|op| ag::add_alpha(&self.t, &other.t, op, alpha)))
    }

    /// `add`/`sub` of a scalar with `alpha`.
    pub fn add_alpha_scalar(&self, op: u32, value: f64, alpha: f64) -> JsResult<RawTensor> {
        RawTensor::timed(op_name(op), || op_of(op).and_then(|op| ag::add_alpha_scalar(&self.t, op, value, alpha)))
    }

    pub fn t(&self) -> JsResult<RawTensor> {
        RawTensor::timed("t", || ag::t(&self.t))
    }

    pub fn sum(&self, dims_: &[i32], keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::timed("sum", || ag::sum(&self.t, &dims(dims_), keepdim))
    }

    pub fn mean(&self, dims_: &[i32], keepdim: bool) -> JsResult<RawTensor> {
        RawTensor::timed("mean", || ag::mean(&self.t, &dims(dims_), keepdim))
    }

    pub fn matmul(&self, other: &RawTensor) -> JsResult<RawTensor> {
        RawTensor::timed("matmul", || ag::matmul(&self.t, &other.t))
    }

    pub fn reshape(&self, shape: &[i32]) -> JsResult<RawTensor> {
        RawTensor::timed("reshape", || ag::reshape(&self.t, &dims(shape)))
    }

    pub fn view(&self, shape: &[i32]) -> JsResult<RawTensor> {
        RawTensor::timed("view", || ag::view(&self.t, &dims(shape)))
    }

    pub fn permute(&self, order: &[i32]) -> JsResult<RawTensor> {
        RawTensor::timed("permute", || ag::permute(&self.t, &dims(order)))
    }

    pub fn transpose(&self, d0: i32, d1: i32) -> JsResult<RawTensor> {
        RawTensor::timed("transpose", || ag::transpose(&self.t, d0 as i64, d1 as i64))
    }

    pub fn expand(&self, shape: &[i32]) -> JsResult<RawTensor> {
        RawTensor::timed("expand", || ag::expand(&self.t, &dims(shape)))
    }

    pub fn contiguous(&self) -> JsResult<RawTensor> {
        RawTensor::timed("contiguous", || ag::contiguous(&self.t))
    }

    /// A copy on the CPU returned at once, its values arriving when this tensor's read does
    /// (`Tensor::to_cpu_later`): `t.cpu()` of a WebGPU tensor without an `await`.
    pub fn to_cpu_later(&self) -> JsResult<RawTensor> {
        let (out, fill) = js(self.t.to_cpu_later())?;
        #[cfg(target_arch = "wasm32")]
        wasm_bindgen_futures::spawn_local(fill);
        #[cfg(not(target_arch = "wasm32"))]
        pollster::block_on(fill);
        Ok(RawTensor::wrap(out))
    }

    pub fn to_dtype(&self, dtype: u32) -> JsResult<RawTensor> {
        RawTensor::timed("to_dtype", || DType::from_code(dtype).and_then(|d| ag::to_dtype(&self.t, d)))
    }

    #[wasm_bindgen(js_name = clone)]
    pub fn clone_(&self) -> JsResult<RawTensor> {
        RawTensor::timed("clone", || ag::clone(&self.t))
    }

    // ---- slicing views ----

    pub fn narrow(&self, dim: i32, start: i32, length: i32) -> JsResult<RawTensor> {
        RawTensor::timed("narrow", || ag::narrow(&self.t, dim as i64, start as i64, length as i64))
    }

    /// Marks this fresh view as output `index` of `split` (`"Split"`), `split` with sizes
    /// (`"SplitWithSizes"`) or `unbind` (`"Unbind"`), whose pieces refuse in-place writes that
    /// autograd would see.
    pub fn mark_output_of(&self, function: &str, index: u32) -> JsResult<()> {
        js((|| {
            let name = match function {
                "Split" => "Split",
                "SplitWithSizes" => "SplitWithSizes",
                "Unbind" => "Unbind",
                _ => bail!(Torch, "not a multi-output view function: {function}"),
            };
            autograd::mark_multi_output(&self.t, name, index as usize);
            Ok(())
        })())
    }

    pub fn select(&self, dim: i32, index: i32) -> JsResult<RawTensor> {
        RawTensor::timed("select", || ag::select(&self.t, dim as i64, index as i64))
    }

    /// `t[start:end:step]` along `dim`; `undefined` bounds are the ends.
    pub fn slice(&self, dim: i32, start: Option<i32>, end: Option<i32>, step: i32) -> JsResult<RawTensor> {
        RawTensor::timed("slice", || {
            ag::slice(&self.t, dim as i64, start.map(|s| s as i64), end.map(|e| e as i64), step as i64)
        })
    }

    pub fn diagonal(&self, offset: i32, dim1: i32, dim2: i32) -> JsResult<RawTensor> {
        RawTensor::timed("diagonal", || ag::diagonal(&self.t, offset as i64, dim1 as i64, dim2 as i64))
    }

    pub fn unfold(&self, dim: i32, size: i32, step: i32) -> JsResult<RawTensor> {
        RawTensor::timed("unfold", || self.t.unfold(dim as i64, size as i64, step as i64))
    }

    pub fn as_strided(&self, size: &[i32], stride: &[i32], offset: Option<u32>) -> JsResult<RawTensor> {
        let u = |v: &[i32]| v.iter().map(|&x| x.max(0) as usize).collect::<Vec<_>>();
        RawTensor::timed("as_strided", || {
            crate::autograd::ops::as_strided(&self.t, &u(size), &u(stride), offset.map(|o| o as usize))
        })
    }

    pub fn movedim(&self, source: &[i32], destination: &[i32]) -> JsResult<RawTensor> {
        RawTensor::timed("movedim", || ag::movedim(&self.t, &dims(source), &dims(destination)))
    }

    pub fn flatten(&self, start: i32, end: i32) -> JsResult<RawTensor> {
        RawTensor::timed("flatten", || ag::flatten(&self.t, start as i64, end as i64))
    }

    pub fn unflatten(&self, dim: i32, sizes: &[i32]) -> JsResult<RawTensor> {
        RawTensor::timed("unflatten", || ag::unflatten(&self.t, dim as i64, &dims(sizes)))
    }

    pub fn unsqueeze(&self, dim: i32) -> JsResult<RawTensor> {
        RawTensor::timed("unsqueeze", || ag::unsqueeze(&self.t, dim as i64))
    }

    /// `squeeze(dim)`, or every size-1 dim when `dim` is undefined.
    pub fn squeeze(&self, dim: Option<i32>) -> JsResult<RawTensor> {
        RawTensor::timed("squeeze", || match dim {
            Some(d) => ag::squeeze_dim(&self.t, d as i64),
            None => ag::squeeze_all(&self.t),
        })
    }

    pub fn storage_offset(&self) -> u32 {
        self.t.layout.offset as u32
    }

    // ---- in place (`_` methods): the functional op, then its result written into this tensor ----

    /// What an in-place op computes from: this tensor, or, when autograd records the op, a copy
    /// that keeps this tensor's place in the graph (PyTorch's `original_self`): the op's backward
    /// may save its input (`abs_`, `mul_` when `other` requires grad), and the write that follows
    /// would otherwise change that saved input and fail backward's version check.
    fn inplace_source(&self, other: Option<&Tensor>) -> crate::Result<Tensor> {
        let recorded =
            autograd::is_grad_enabled() && (self.t.requires_grad() || other.is_some_and(Tensor::requires_grad));
        if !recorded {
            return Ok(self.t.clone());
        }
        let snapshot = self.t.deep_clone()?;
        snapshot.take_history(&self.t);
        Ok(snapshot)
    }

    /// PyTorch's checks before an in-place op writes this tensor reading `input`: autograd's
    /// (a leaf that requires grad), then memory overlap (an expanded tensor, or an input that
    /// shares some of the written elements).
    fn check_write(&self, input: Option<&Tensor>) -> crate::Result<()> {
        crate::autograd::check_inplace(&self.t)?;
        self.t.check_no_internal_overlap()?;
        match input {
            Some(x) => self.t.check_no_partial_overlap(x),
            None => Ok(()),
        }
    }

    pub fn unary_(&mut self, op: u32) -> JsResult<()> {
        js(self.check_write(None))?;
        let src = js(self.inplace_source(None))?;
        let r = js(op_of(op).and_then(|op| ag::unary(&src, op)))?;
        js(ag::inplace(&mut self.t, r))
    }

    pub fn binary_(&mut self, op: u32, other: &RawTensor) -> JsResult<()> {
        js(self.check_write(Some(&other.t)))?;
        let src = js(self.inplace_source(Some(&other.t)))?;
        let r = js(op_of(op).and_then(|op| ag::binary(&src, &other.t, op)))?;
        js(ag::inplace(&mut self.t, r))
    }

    pub fn binary_scalar_(&mut self, op: u32, value: f64) -> JsResult<()> {
        js(self.check_write(None))?;
        let src = js(self.inplace_source(None))?;
        let r = js(op_of(op).and_then(|op| ag::binary_scalar(&src, op, value, false, ScalarKind::of(value))))?;
        js(ag::inplace(&mut self.t, r))
    }

    pub fn add_alpha_(&mut self, op: u32, other: &RawTensor, alpha: f64) -> JsResult<()> {
        js(self.check_write(Some(&other.t)))?;
        let src = js(self.inplace_source(Some(&other.t)))?;
        let r = js(op_of(op).and_then(|op| ag::add_alpha(&src, &other.t, op, alpha)))?;
        js(ag::inplace(&mut self.t, r))
    }

    /// `copy_(src)`: `src` broadcast and cast into this tensor's elements.
    pub fn copy_(&mut self, src: &RawTensor) -> JsResult<()> {
        js(self.check_write(Some(&src.t)))?;
        js(ag::copy_(&mut self.t, &src.t))
    }

    /// `fill_(value)` (`zero_()` is `fill_(0)`).
    pub fn fill_(&mut self, value: f64) -> JsResult<()> {
        let v = js(Tensor::full(&[], value, self.t.dtype, self.t.device()))?;
        js(ag::copy_(&mut self.t, &v))
    }

    /// PyTorch's autograd checks before an in-place op on this tensor (a leaf that requires grad,
    /// a view of one, …), for in-place ops the TS layer composes.
    pub fn check_inplace(&self) -> JsResult<()> {
        js(autograd::check_inplace(&self.t))
    }

    /// An in-place view op: this tensor takes `view`'s layout (a view of it made by the op's
    /// functional form) and recorded history (`autograd::set_view`).
    pub fn set_view_(&mut self, view: &RawTensor) {
        autograd::set_view(&mut self.t, &view.t);
    }

    /// How many in-place writes this tensor's storage has had (PyTorch's `_version`).
    pub fn version(&self) -> f64 {
        self.t.version() as f64
    }

    // ---- autograd ----

    pub fn requires_grad(&self) -> bool {
        self.t.requires_grad()
    }

    /// `requires_grad_(flag)`.
    pub fn set_requires_grad(&mut self, flag: bool) -> JsResult<()> {
        js(self.t.set_requires_grad(flag))
    }

    pub fn is_leaf(&self) -> bool {
        self.t.is_leaf()
    }

    /// `.grad` (a new handle to it), or undefined.
    pub fn grad(&self) -> Option<RawTensor> {
        self.t.grad().map(RawTensor::wrap)
    }

    pub fn set_grad(&mut self, g: Option<RawTensor>) -> JsResult<()> {
        js(self.t.set_grad(g.map(|g| g.t.clone())))
    }

    /// The name of `grad_fn` (`"AddBackward0"`), or undefined for leaves.
    pub fn grad_fn_name(&self) -> Option<String> {
        self.t.grad_fn().map(|n| n.name.clone())
    }

    pub fn retain_grad(&mut self) -> JsResult<()> {
        js(self.t.retain_grad())
    }

    pub fn retains_grad(&self) -> bool {
        self.t.retains_grad()
    }

    pub fn detach(&self) -> RawTensor {
        RawTensor::wrap(self.t.detach())
    }

    /// Another handle to the same tensor (same storage and autograd identity), not a copy.
    pub fn handle(&self) -> RawTensor {
        RawTensor::wrap(self.t.alias())
    }

    /// `t.backward(gradient, {retain_graph, create_graph})`.
    pub fn backward(&self, gradient: Option<RawTensor>, retain_graph: bool, create_graph: bool) -> JsResult<()> {
        js(autograd::backward(&self.t, gradient.map(|g| g.t.clone()), retain_graph || create_graph, create_graph))
    }

    /// `t.register_hook(fn)`: `fn(grad: RawTensor)` returns a RawTensor to replace it, or
    /// undefined. A hook that throws makes backward throw.
    pub fn register_hook(&mut self, f: js_sys::Function) -> JsResult<()> {
        let hook: autograd::Hook = std::rc::Rc::new(move |g: &Tensor| {
            let r = f.call1(&JsValue::NULL, &JsValue::from(RawTensor::wrap(g.clone()))).map_err(|e| {
                crate::err!(Torch, "a gradient hook threw: {}", e.as_string().unwrap_or_else(|| format!("{e:?}")))
            })?;
            if r.is_undefined() || r.is_null() {
                return Ok(None);
            }
            let raw = RawTensor::try_from_js_value(r)
                .map_err(|_| crate::err!(Torch, "a gradient hook must return a Tensor or undefined"))?;
            Ok(Some(raw.t.clone()))
        });
        js(self.t.register_hook(hook))
    }

    /// The values in row-major order as a typed array (see docs/core-api.md).
    /// The computation and the copy's submit happen in this call (a trap there is caught by the
    /// TS guard); the promise waits for the bytes.
    pub fn read(&self) -> JsResult<Promise> {
        let dtype = self.t.dtype;
        let words = js(self.t.start_read())?;
        Ok(wasm_bindgen_futures::future_to_promise(async move {
            let words = js(words.await)?;
            Ok(typed_array(&words, dtype))
        }))
    }
}

/// Storage words as the typed array a read gives: float32 → Float32Array, float64 →
/// Float64Array, int32/int64 → Int32Array, uint8/bool → Uint8Array.
fn typed_array(words: &[u32], dtype: DType) -> JsValue {
    match dtype {
        DType::Float32 | DType::Float16 | DType::BFloat16 => {
            js_sys::Float32Array::from(bytemuck::cast_slice::<u32, f32>(words)).into()
        }
        DType::Int32 | DType::Int64 => js_sys::Int32Array::from(bytemuck::cast_slice::<u32, i32>(words)).into(),
        DType::Float64 => {
            let xs: Vec<f64> =
                words.chunks_exact(2).map(|w| f64::from_bits(w[0] as u64 | (w[1] as u64) << 32)).collect();
            js_sys::Float64Array::from(xs.as_slice()).into()
        }
        DType::UInt8 | DType::Bool => {
            let bytes: Vec<u8> = words.iter().map(|&w| w as u8).collect();
            js_sys::Uint8Array::from(bytes.as_slice()).into()
        }
    }
}

/// `torch.autograd.grad(outputs, inputs, …)`: tensors are added one by one (handles stay
/// valid in JS), then `run` computes, and `result(i)` hands back each input's gradient.
#[wasm_bindgen]
#[derive(Default)]
pub struct GradRequest {
    outputs: Vec<Tensor>,
    grad_outputs: Vec<Option<Tensor>>,
    inputs: Vec<Tensor>,
    results: Vec<Option<Tensor>>,
}

#[wasm_bindgen]
impl GradRequest {
    #[wasm_bindgen(constructor)]
    pub fn new() -> GradRequest {
        GradRequest::default()
    }

    pub fn add_output(&mut self, t: &RawTensor, grad: Option<RawTensor>) {
        self.outputs.push(t.t.clone());
        self.grad_outputs.push(grad.map(|g| g.t.clone()));
    }

    pub fn add_input(&mut self, t: &RawTensor) {
        self.inputs.push(t.t.clone());
    }

    pub fn run(&mut self, retain_graph: bool, create_graph: bool, allow_unused: bool) -> JsResult<()> {
        self.results = js(autograd::grad(
            &self.outputs,
            &self.inputs,
            &self.grad_outputs,
            retain_graph || create_graph,
            create_graph,
            allow_unused,
        ))?;
        Ok(())
    }

    pub fn result(&self, i: usize) -> Option<RawTensor> {
        self.results.get(i).cloned().flatten().map(RawTensor::wrap)
    }
}
