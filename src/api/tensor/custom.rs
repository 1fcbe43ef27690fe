//! The core side of `torch.register_kernel` (docs/extending.md): user WGSL kernels compiled by
//! the WebGPU backend and run on tensors' buffers, and a synchronous read of CPU tensors for the
//! JS fallbacks of custom kernels and devices.

use crate::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use wasm_bindgen::prelude::*;

use super::{js, shape_of, JsResult, RawTensor};
use crate::autograd::ops as ag;
use crate::backend::{Device, Kernel, UserKernel};
use crate::dtype::DType;
use crate::tensor::Tensor;
use crate::{bail, engine, Result};

/// Scalars a kernel's uniform parameters hold (`scalars: array<vec4<f32>, 2>`).
const MAX_SCALARS: usize = 8;

thread_local! {
    /// Compiled kernels by name: source and number of inputs.
    static KERNELS: RefCell<HashMap<String, (Rc<str>, usize)>> = RefCell::new(HashMap::new());
}

/// Compiles a user WGSL kernel on the WebGPU device under `name`; rejects with a `TorchError`
/// carrying the compiler's messages when it does not compile or does not fit the bindings.
#[wasm_bindgen]
pub async fn compile_kernel(name: String, source: String, n_inputs: u32) -> JsResult<()> {
    let gpu = js(engine::backend(Device::WebGpu))?;
    let source: Rc<str> = source.into();
    let compiled = match gpu.user_kernels() {
        Some(u) => u.compile(&name, source.clone(), n_inputs as usize),
        None => {
            let device = gpu.device().name();
            return js(Err(crate::err!(Device, "WGSL kernels run on the webgpu device, not on '{device}'")));
        }
    };
    js(compiled.await)?;
    KERNELS.with(|k| k.borrow_mut().insert(name, (source, n_inputs as usize)));
    Ok(())
}

/// Whether a kernel named `name` is compiled.
#[wasm_bindgen]
pub fn has_compiled_kernel(name: &str) -> bool {
    KERNELS.with(|k| k.borrow().contains_key(name))
}

/// Runs compiled kernel `name` on `inputs` (handles it takes ownership of) into a new tensor of
/// `shape` and `dtype`, with `ceil(numel / workgroup_size)` workgroups and `scalars` in the
/// uniform parameters.
#[wasm_bindgen]
pub fn run_kernel(
    name: &str,
    inputs: Vec<RawTensor>,
    shape: &[i32],
    dtype: u32,
    scalars: &[f32],
    workgroup_size: u32,
) -> JsResult<RawTensor> {
    let tensors: Vec<Tensor> = inputs.iter().map(|r| r.tensor().clone()).collect();
    RawTensor::timed(name, || run(name, &tensors, shape, dtype, scalars, workgroup_size))
}

fn run(name: &str, inputs: &[Tensor], shape: &[i32], dtype: u32, scalars: &[f32], wg: u32) -> Result<Tensor> {
    let Some((source, n_inputs)) = KERNELS.with(|k| k.borrow().get(name).cloned()) else {
        bail!(Torch, "no WGSL kernel named '{name}' is compiled (await torch.register_kernel first)")
    };
    if inputs.len() != n_inputs {
        bail!(Torch, "WGSL kernel '{name}' takes {n_inputs} inputs but got {}", inputs.len());
    }
    if scalars.len() > MAX_SCALARS {
        bail!(Torch, "WGSL kernel '{name}' got {} scalars; at most {MAX_SCALARS} fit", scalars.len());
    }
    if wg == 0 {
        bail!(Torch, "WGSL kernel '{name}': workgroup_size must be positive");
    }
    let gpu = engine::backend(Device::WebGpu)?;
    let mut bufs = Vec::with_capacity(inputs.len());
    let mut ready = Vec::with_capacity(inputs.len());
    for t in inputs {
        if t.device() != Device::WebGpu {
            bail!(
                Device,
                "Expected all tensors to be on the same device, but found at least two devices, webgpu and {}!",
                t.device().name()
            );
        }
        // Kernels index inputs densely from word 0.
        let mut c = t.contiguous()?;
        if c.layout.offset != 0 {
            c = ag::clone(&c)?;
        }
        bufs.push(c.buf()?);
        ready.push(c);
    }
    let shape = shape_of(shape)?;
    let out = Tensor::empty_on(&gpu, &shape, DType::from_code(dtype)?)?;
    let numel = out.numel();
    if numel > 0 {
        let mut meta = vec![0u32; 4 + MAX_SCALARS];
        meta[0] =
            u32::try_from(numel).map_err(|_| crate::err!(OutOfMemory, "{numel} elements do not fit in 32 bits"))?;
        for (i, s) in scalars.iter().enumerate() {
            meta[4 + i] = s.to_bits();
        }
        let k = UserKernel {
            name: name.to_string(),
            source,
            inputs: bufs,
            out: out.buf()?,
            meta,
            groups: u32::try_from(numel.div_ceil(wg as usize)).unwrap_or(u32::MAX),
        };
        gpu.launch(Kernel::User(&k))?;
        engine::note_work();
    }
    drop(ready);
    Ok(out)
}

/// The values of a CPU tensor, now (the CPU backend reads without waiting): a typed array as
/// `RawTensor.read` resolves to. Custom JS kernels and devices compute on these.
#[wasm_bindgen]
pub fn read_cpu(t: &RawTensor) -> JsResult<JsValue> {
    let t = t.tensor();
    if t.device() != Device::Cpu {
        return Err(crate::api::to_js(crate::err!(
            Device,
            "read_cpu needs a cpu tensor, got one on {}",
            t.device().name()
        )));
    }
    let mut fut = Box::pin(t.read_words());
    let words = match fut.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(r) => js(r)?,
        // Values still on their way from the GPU (`RawTensor::to_cpu_later`).
        Poll::Pending => {
            return Err(crate::api::to_js(crate::err!(
                Device,
                "this cpu tensor's values are still being copied from webgpu: await a read of it or \
                 torch.cuda.synchronize() first"
            )))
        }
    };
    Ok(super::typed_array(&words, t.dtype))
}
