//! The wasm-bindgen surface the TS layer calls (docs/core-api.md): module functions for the
//! engine and `torch.webgpu`, and `RawTensor`, the handle class behind every TS `Tensor`.
//! Errors become instances of the TS `TorchError` classes registered at init.

mod dtype;
mod leaks;
mod profiler;
mod tensor;
mod trap;

use crate::cell::RefCell;
use std::cell::Cell;
use std::collections::HashMap;

use js_sys::{Function, Reflect};
use wasm_bindgen::prelude::*;

use crate::backend::webgpu::{AdapterSummary, WebGpuBackend};
use crate::backend::{Backend, Device};
use crate::error::{Error, ErrorKind};
use crate::tensor::fusion;
use crate::{engine, ops, random};

pub use tensor::RawTensor;
pub(crate) use trap::clear_failed_alloc;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    pub(crate) fn set_timeout(f: &Function, ms: i32) -> JsValue;
}

thread_local! {
    static ERROR_CLASSES: RefCell<HashMap<String, Function>> = RefCell::new(HashMap::new());
    static ADAPTER: RefCell<Option<AdapterSummary>> = const { RefCell::new(None) };
    pub(crate) static LIVE_HANDLES: Cell<u64> = const { Cell::new(0) };
    /// The TS layer's timer: called with a delay in ms, it calls `timer_flush` after it.
    static FLUSH_TIMER: RefCell<Option<Function>> = const { RefCell::new(None) };
}

/// An engine error as an instance of the registered JS class for its kind.
pub fn to_js_error(e: Error) -> JsValue {
    to_js(e)
}

pub(crate) fn to_js(e: Error) -> JsValue {
    let ctor = ERROR_CLASSES.with(|c| {
        let c = c.borrow();
        c.get(e.kind.class_name()).or_else(|| c.get(ErrorKind::Torch.class_name())).cloned()
    });
    if let Some(ctor) = ctor {
        if let Ok(obj) = Reflect::construct(&ctor, &js_sys::Array::of1(&JsValue::from_str(&e.message))) {
            return obj;
        }
    }
    let err = js_sys::Error::new(&e.message);
    err.set_name(e.kind.class_name());
    err.into()
}

pub(crate) type JsResult<T> = Result<T, JsValue>;

pub(crate) fn js<T>(r: crate::Result<T>) -> JsResult<T> {
    r.map_err(to_js)
}

/// Creates the WebGPU device (unless `device` is "cpu") and picks the default device. Resolves to
/// the default device's name.
#[wasm_bindgen]
pub async fn init(device: String) -> JsResult<String> {
    trap::install_panic_hook();
    if device != "cpu" && !engine::has_gpu() {
        if let Some(gpu) = WebGpuBackend::create().await {
            ADAPTER.with(|a| *a.borrow_mut() = Some(gpu.summary().clone()));
            engine::set_gpu(gpu);
        }
    }
    let want = match device.as_str() {
        "cpu" => Device::Cpu,
        "webgpu" => Device::WebGpu,
        "auto" => {
            if engine::has_gpu() {
                Device::WebGpu
            } else {
                Device::Cpu
            }
        }
        other => {
            return Err(to_js(crate::err!(
                Device,
                "Expected one of cpu, webgpu, auto device type at start of device string: {other}"
            )))
        }
    };
    js(engine::set_default_device(want))?;
    Ok(want.name().to_string())
}

/// `torch.webgpu.initialize_device()`: a new WebGPU device (after a loss, or to retry); tensors
/// of the old device stay invalid. Resolves to the default device's name.
#[wasm_bindgen]
pub async fn initialize_device() -> JsResult<String> {
    engine::drop_gpu();
    ADAPTER.with(|a| *a.borrow_mut() = None);
    init("auto".into()).await
}

/// Panics inside the core (for the test that proves a panic leaves the engine usable: the
/// panic hook logs it, the call throws, and engine state is untouched because no borrow is held).
#[wasm_bindgen]
pub fn debug_panic() {
    panic!("webtorch: debug_panic() called");
}

/// Destroys the WebGPU device, as a lost device would be (for fault tests).
#[wasm_bindgen]
pub fn debug_destroy_device() {
    if let Some(f) = engine::backend(Device::WebGpu).ok().as_deref().and_then(|gpu| gpu.faults()) {
        f.lose_device();
    }
}

/// Records an out-of-memory error as the WebGPU device reports one (fault tests).
#[wasm_bindgen]
pub fn debug_device_oom() {
    if let Some(f) = engine::backend(Device::WebGpu).ok().as_deref().and_then(|gpu| gpu.faults()) {
        f.device_oom();
    }
}

#[wasm_bindgen]
pub fn webgpu_available() -> bool {
    engine::has_gpu()
}

#[wasm_bindgen]
pub fn default_device() -> u32 {
    engine::default_device() as u32
}

#[wasm_bindgen]
pub fn set_default_device(device: u32) -> JsResult<()> {
    js(Device::from_code(device).and_then(engine::set_default_device))
}

#[wasm_bindgen]
pub fn adapter_info() -> JsResult<JsValue> {
    ADAPTER.with(|a| match &*a.borrow() {
        Some(s) => serde_wasm_bindgen::to_value(s).map_err(|e| JsValue::from_str(&e.to_string())),
        None => Ok(JsValue::NULL),
    })
}

/// Registers the batch timer (`ts/src/runtime.ts`): `f(ms)` calls `timer_flush()` after `ms`, through
/// the guard that turns a trap into an error.
#[wasm_bindgen]
pub fn register_flush_timer(f: Function) {
    FLUSH_TIMER.with(|t| *t.borrow_mut() = Some(f));
}

/// Arms the registered batch timer; false when none is registered.
pub(crate) fn arm_flush_timer(ms: u32) -> bool {
    let Some(f) = FLUSH_TIMER.with(|t| t.borrow().clone()) else { return false };
    let _ = f.call1(&JsValue::NULL, &JsValue::from(ms));
    true
}

/// The batch timer's flush (`engine::timer_flush`).
#[wasm_bindgen]
pub fn timer_flush() {
    engine::timer_flush();
}

#[wasm_bindgen]
pub fn register_error_class(kind: String, ctor: Function) {
    ERROR_CLASSES.with(|c| c.borrow_mut().insert(kind, ctor));
}

#[wasm_bindgen]
pub fn op_id(name: &str) -> i32 {
    ops::Op::by_name(name).map_or(-1, |o| o as i32)
}

#[wasm_bindgen]
pub fn op_names() -> Vec<String> {
    ops::TABLE.iter().map(|r| r.name.to_string()).collect()
}

#[wasm_bindgen]
pub fn op_arity(id: u32) -> u32 {
    ops::Op::from_id(id).map_or(0, |o| o.info().arity() as u32)
}

#[wasm_bindgen]
pub fn manual_seed(seed: f64) {
    random::manual_seed(seed as u64);
}

/// The core generator's (seed, counter) (`torch.get_rng_state`).
#[wasm_bindgen]
pub fn rng_position() -> Vec<u64> {
    let (seed, offset) = random::position();
    vec![seed, offset]
}

/// Puts the core generator at (seed, counter) (`torch.set_rng_state`).
#[wasm_bindgen]
pub fn set_rng_position(seed: u64, offset: u64) {
    random::set_position(seed, offset);
}

fn each_backend(f: impl Fn(&dyn crate::backend::Backend)) {
    for d in [Device::Cpu, Device::WebGpu] {
        if let Ok(b) = engine::backend(d) {
            f(b.as_ref());
        }
    }
}

#[wasm_bindgen]
pub fn flush() -> JsResult<()> {
    js(engine::flush_all())
}

/// Flushes and submits in this call (where the TS guard catches a trap); the promise waits for
/// the GPU.
#[wasm_bindgen]
pub fn sync() -> js_sys::Promise {
    // A failed computation rejects the sync, after the work that did compute has finished.
    let flushed = engine::flush_all();
    let done = engine::backend(Device::WebGpu).ok().map(|b| b.sync());
    // CPU tensors copied from the GPU without waiting (`RawTensor::to_cpu_later`) have their
    // values, and the work recorded on them has run, once this resolves.
    let cpu = engine::cpu().sync();
    wasm_bindgen_futures::future_to_promise(async move {
        if let Some(done) = done {
            js(done.await)?;
        }
        js(cpu.await)?;
        js(flushed)?;
        Ok(JsValue::UNDEFINED)
    })
}

#[wasm_bindgen]
pub fn set_batch_threshold(n: u32) {
    each_backend(|b| {
        if let Some(c) = b.batching() {
            c.set_threshold(n as usize);
        }
    });
}

/// `torch.webgpu.disable_batching()` (`on`) / `enable_batching()`: each op computed and submitted
/// before it returns (`Tuning::immediate`). Turning it on computes the pending chains and submits
/// the recorded work now; the device's threshold is set apart (`set_batch_threshold`).
#[wasm_bindgen]
pub fn set_immediate(on: bool) -> JsResult<()> {
    engine::tune(|t| t.immediate = on);
    if on {
        js(engine::flush_all())?;
    }
    Ok(())
}

#[wasm_bindgen]
pub fn set_batch_delay(ms: u32) {
    engine::tune(|t| t.batch_delay_ms = ms);
}

#[wasm_bindgen]
pub fn begin_batch() {
    engine::begin_batch();
}

#[wasm_bindgen]
pub fn end_batch() -> JsResult<()> {
    js(engine::end_batch())
}

/// `torch.webgpu.enable_fusion()` / `disable_fusion()`.
#[wasm_bindgen]
pub fn set_fusion_enabled(on: bool) -> JsResult<()> {
    engine::tune(|t| t.fusion_enabled = on);
    Ok(())
}

#[wasm_bindgen]
pub fn is_fusion_enabled() -> bool {
    engine::tuning(|t| t.fusion_enabled)
}

#[wasm_bindgen]
pub fn set_fusion_window(n: u32) {
    engine::tune(|t| t.fusion_window = n as u64);
}

#[wasm_bindgen]
pub fn set_fusion_min_size(n: u32) {
    engine::tune(|t| t.fusion_min_size = n as usize);
}

/// The fusion `min_size` kernel-graph captures use (default 0: a captured step fuses small
/// chains too); for benchmarks comparing a replay with the eager step's own kernels.
#[wasm_bindgen]
pub fn set_capture_fusion_min_size(n: u32) {
    engine::tune(|t| t.capture_fusion_min_size = n as usize);
}

#[wasm_bindgen]
pub fn fusion_config() -> JsValue {
    let (window, min_size) = engine::tuning(|t| (t.fusion_window, t.fusion_min_size));
    let o = js_sys::Object::new();
    let _ = Reflect::set(&o, &"window".into(), &JsValue::from_f64(window as f64));
    let _ = Reflect::set(&o, &"min_size".into(), &JsValue::from_f64(min_size as f64));
    o.into()
}

#[wasm_bindgen]
pub fn fusion_stats() -> JsResult<JsValue> {
    let s = fusion::with_config(|c| c.stats.clone());
    serde_wasm_bindgen::to_value(&s).map_err(|e| JsValue::from_str(&e.to_string()))
}

#[wasm_bindgen]
pub fn reset_fusion_stats() {
    fusion::with_config(|c| c.stats = Default::default());
}

/// `torch.webgpu.add_fusion_pattern({ops, name, description})`: the statistics count fused
/// kernels containing this op sequence (the fuser itself fuses any elementwise chain).
#[wasm_bindgen]
pub fn add_fusion_pattern(name: String, ops: Vec<String>, description: String) -> JsResult<()> {
    if let Some(bad) = ops.iter().find(|o| ops::Op::by_name(o).is_none() && !matches!(o.as_str(), "to" | "where")) {
        return Err(to_js(crate::err!(Torch, "add_fusion_pattern: '{bad}' is not an elementwise op")));
    }
    fusion::with_config(|c| {
        c.patterns.retain(|p| p.name != name);
        c.patterns.push(fusion::Pattern { name, ops, description });
    });
    Ok(())
}

#[wasm_bindgen]
pub fn fusion_patterns() -> JsResult<JsValue> {
    let p = fusion::with_config(|c| c.patterns.clone());
    serde_wasm_bindgen::to_value(&p).map_err(|e| JsValue::from_str(&e.to_string()))
}

#[wasm_bindgen]
pub fn reset_peak_memory_stats() {
    each_backend(|b| {
        if let Some(m) = b.memory() {
            m.reset_peak();
        }
    });
}

#[wasm_bindgen]
pub fn empty_cache() {
    each_backend(|b| {
        if let Some(m) = b.memory() {
            m.empty_cache();
        }
    });
}

#[wasm_bindgen]
pub fn pending_count() -> u32 {
    engine::backend(engine::default_device()).map_or(0, |b| b.stats().pending as u32)
}

/// Counters of the default device's backend, plus the number of live tensor handles.
#[wasm_bindgen]
pub fn runtime_stats() -> JsResult<JsValue> {
    let b = js(engine::backend(engine::default_device()))?;
    let s = b.stats();
    let obj = serde_wasm_bindgen::to_value(&s).map_err(|e| JsValue::from_str(&e.to_string()))?;
    Reflect::set(&obj, &"live_tensors".into(), &JsValue::from_f64(LIVE_HANDLES.with(|c| c.get()) as f64))?;
    Reflect::set(&obj, &"device".into(), &JsValue::from_str(b.device().name()))?;
    Ok(obj)
}

/// Counters of one device's backend (0: the CPU, 1: WebGPU; `torch.memory_stats(device)`), plus
/// the number of live tensor handles.
#[wasm_bindgen]
pub fn device_stats(device: u32) -> JsResult<JsValue> {
    let b = js(Device::from_code(device).and_then(engine::backend))?;
    let obj = serde_wasm_bindgen::to_value(&b.stats()).map_err(|e| JsValue::from_str(&e.to_string()))?;
    Reflect::set(&obj, &"live_tensors".into(), &JsValue::from_f64(LIVE_HANDLES.with(|c| c.get()) as f64))?;
    Reflect::set(&obj, &"device".into(), &JsValue::from_str(b.device().name()))?;
    Ok(obj)
}

/// Resets the peak of one device's backend (0: the CPU, 1: WebGPU).
#[wasm_bindgen]
pub fn reset_peak_of(device: u32) -> JsResult<()> {
    if let Some(m) = js(Device::from_code(device).and_then(engine::backend))?.memory() {
        m.reset_peak();
    }
    Ok(())
}

/// Sets grad mode (`torch.no_grad()` / `enable_grad()`); returns the previous mode.
#[wasm_bindgen]
pub fn set_grad_enabled(on: bool) -> bool {
    crate::autograd::set_grad_enabled(on)
}

#[wasm_bindgen]
pub fn is_grad_enabled() -> bool {
    crate::autograd::is_grad_enabled()
}

#[wasm_bindgen]
pub fn set_debug_print_shaders(on: bool) {
    crate::debug::set_dump_shaders(on);
}

/// Forces a matmul kernel variant ("auto", "simple", "t64", "t128", …; see
/// `backend/webgpu/matmul.rs`) for benchmarks and tests; false for an unknown name.
#[wasm_bindgen]
pub fn set_matmul_variant(name: &str) -> bool {
    crate::backend::webgpu::matmul::set_variant(name)
}

/// The matmul variants `set_matmul_variant` and the autotuner know ("auto" first).
#[wasm_bindgen]
pub fn matmul_variants() -> Vec<String> {
    crate::backend::webgpu::matmul::VARIANTS.iter().map(|(n, _)| n.to_string()).collect()
}

/// The autotuner's shape class of an (optionally batched) m×k @ k×n product.
#[wasm_bindgen]
pub fn matmul_shape_class(m: usize, n: usize, k: usize, batches: usize) -> String {
    crate::backend::webgpu::matmul::shape_class(m, n, k, batches)
}

/// Records the matmul variant to run for a shape class ("auto" forgets it); false for an
/// unknown variant or a malformed class.
#[wasm_bindgen]
pub fn set_matmul_tuned(class: &str, variant: &str) -> bool {
    crate::backend::webgpu::matmul::set_tuned(class, variant)
}

/// The tuned table, flattened: class, variant, class, variant, …
#[wasm_bindgen]
pub fn matmul_tuned() -> Vec<String> {
    crate::backend::webgpu::matmul::tuned().into_iter().flat_map(|(c, v)| [c, v]).collect()
}

/// Forgets every tuned matmul class.
#[wasm_bindgen]
pub fn clear_matmul_tuned() {
    crate::backend::webgpu::matmul::clear_tuned()
}

/// Turns batched launches of tiny ops on or off, or back to the default (`undefined`: on unless
/// the adapter emulates a GPU on the CPU; see `backend/webgpu/batched.rs`), for benchmarks and
/// tests comparing them with one dispatch per op.
#[wasm_bindgen]
pub fn set_batched_launches(on: Option<bool>) {
    engine::tune(|t| t.batched_launches = on)
}

/// Turns the vec4 variant of contiguous elementwise kernels on or off (default on; see
/// `backend/webgpu/elementwise.rs`), for benchmarks comparing it with the general kernel.
#[wasm_bindgen]
pub fn set_elementwise_x4(on: bool) {
    engine::tune(|t| t.elementwise_x4 = on)
}

/// Turns the conv kernels (implicit GEMM and depthwise; see `backend/webgpu/conv.rs`) on or off
/// (default on), for benchmarks comparing them with the im2col route.
#[wasm_bindgen]
pub fn set_conv_direct(on: bool) {
    engine::tune(|t| t.conv_direct = on)
}

/// Forces the conv2d window kernel (`backend/webgpu/conv.rs`, short weight rows and depthwise
/// layers) on (`"on"`: every forward it can take) or off (`"off"`), or back to its rule
/// (`"auto"`), for benchmarks.
#[wasm_bindgen]
pub fn set_conv_window(mode: &str) -> JsResult<()> {
    // "on:N" also forces N output channels per invocation (a multiple of 4, or 1-3).
    let (kind, ocb) = mode.split_once(':').unwrap_or((mode, "0"));
    let Ok(ocb) = ocb.parse::<usize>() else {
        return Err(to_js(crate::err!(Torch, "set_conv_window: expected auto, on, on:N or off, but got {mode}")));
    };
    let m = match kind {
        "auto" => None,
        "on" => Some(true),
        "off" => Some(false),
        _ => return Err(to_js(crate::err!(Torch, "set_conv_window: expected auto, on, on:N or off, but got {mode}"))),
    };
    engine::tune(|t| {
        t.conv_window_block = ocb;
        t.conv_window = m;
    });
    Ok(())
}

/// Turns the phase route of strided convolutions' input gradients and transposed convolutions
/// (`autograd/conv.rs`) on or off (default on; off: zero insertion), for benchmarks.
#[wasm_bindgen]
pub fn set_conv_grad_phases(on: bool) {
    engine::tune(|t| t.conv_grad_phases = on)
}

/// Forces the conv2d weight gradient's slices of output positions (`backend/webgpu/conv.rs`
/// `splits`; 1: none, 0: the rule), for benchmarks.
#[wasm_bindgen]
pub fn set_conv_splits(n: u32) {
    engine::tune(|t| t.conv_splits = (n > 0).then_some(n as usize))
}

/// Forces the conv2d weight gradient's images per block (`backend/webgpu/conv.rs` `splits`; 0:
/// the rule), for benchmarks.
#[wasm_bindgen]
pub fn set_conv_images(n: u32) {
    engine::tune(|t| t.conv_images = (n > 0).then_some(n as usize))
}

/// Turns the one-kernel attention (`ops/attention/forward.rs`) on or off (default on), for
/// benchmarks comparing it with the products and softmax.
#[wasm_bindgen]
pub fn set_attention_fused(on: bool) {
    engine::tune(|t| t.attention_fused = on)
}

/// Makes heads wider than 64 take the one-kernel attention whatever their scores' size (for
/// benchmarks of that form).
#[wasm_bindgen]
pub fn set_attention_wide(on: bool) {
    engine::tune(|t| t.attention_wide = on)
}

/// Forces the one-kernel attention's query rows per workgroup and keys per chunk (0: default),
/// for benchmarks.
#[wasm_bindgen]
pub fn set_attention_tile(rows: u32, keys: u32) {
    engine::tune(|t| t.attention_tile = (rows, keys))
}

/// Sets the bytes of one `L × S` tensor the attention backward makes at once after a one-kernel
/// forward (0: the default; `autograd/attention.rs`), for benchmarks of its pieces.
#[wasm_bindgen]
pub fn set_attention_backward_budget(bytes: f64) {
    crate::autograd::attention::set_attention_backward_budget(bytes as u64)
}

/// Sets the size of one `L × S` score tensor (bytes) from which attention's backward runs its
/// kernels (nothing `L × S`) rather than products (0: the default, 512 MiB; 1: always; 2⁶⁴:
/// never), for benchmarks and memory-bound training.
#[wasm_bindgen]
pub fn set_attention_backward_kernels_from(bytes: f64) {
    crate::autograd::attention::set_attention_backward_kernels_from(bytes as u64)
}

/// Makes every matmul that may split K take `s` slices (1: none; 0: the shape rule again), for
/// benchmarks comparing factors (see `backend/webgpu/matmul.rs` `split_k`).
#[wasm_bindgen]
pub fn set_split_k(s: u32) {
    engine::tune(|t| t.split_k = (s > 0).then_some(s as usize))
}

/// Sets how many vectors per invocation the row kernels' plans aim at (1…8, default 8; see
/// `backend/webgpu/rows.rs`) for benchmarks; false for a value outside that range.
#[wasm_bindgen]
pub fn set_row_vectors(n: u32) -> bool {
    crate::backend::webgpu::rows::set_row_vectors(n as usize)
}

/// `torch.cpu.memory_budget()` / `torch.webgpu.memory_budget()`: the device's budget in bytes,
/// or -1 where it has none.
#[wasm_bindgen]
pub fn memory_budget(device: u32) -> JsResult<f64> {
    let b = js(Device::from_code(device).and_then(engine::backend))?;
    Ok(b.memory().and_then(|m| m.budget()).map_or(-1.0, |v| v as f64))
}

/// An `OutOfMemoryError` unless a host-side table of `count` elements of `each` bytes fits the
/// CPU budget (`engine::check_host_alloc`; the TS layer checks its own tables with it).
#[wasm_bindgen]
pub fn check_host_alloc(what: &str, count: f64, each: u32) -> JsResult<()> {
    let n = if count >= 0.0 && count <= usize::MAX as f64 { count as usize } else { usize::MAX };
    js(engine::check_host_alloc(what, n, each as usize, 1))
}

/// Sets a device's budget in bytes; a negative value restores the default.
#[wasm_bindgen]
pub fn set_memory_budget(device: u32, bytes: f64) -> JsResult<()> {
    let b = js(Device::from_code(device).and_then(engine::backend))?;
    if let Some(m) = b.memory() {
        m.set_budget((bytes >= 0.0).then_some(bytes as u64));
    }
    Ok(())
}
