//! User WGSL kernels (`torch.register_kernel`, docs/extending.md): compiled once with the
//! compiler's messages and the pipeline's validation error surfaced as a `TorchError`, cached
//! like webtorch's own kernels (key = name + source) and recorded into the open pass.

use std::rc::Rc;

use super::codegen::KernelKey;
use super::WebGpuBackend;
use crate::backend::{LocalFuture, UserKernel};
use crate::bail;
use crate::error::Result;

/// Compiles `source` (bindings: the uniform at 0, the output at 1, `n_inputs` inputs from 2)
/// into a cached pipeline; fails with the compiler's messages (line:column: text).
pub(super) fn compile(
    gpu: Option<Rc<WebGpuBackend>>,
    name: &str,
    source: Rc<str>,
    n_inputs: usize,
) -> LocalFuture<Result<()>> {
    let name = name.to_string();
    Box::pin(async move {
        let Some(gpu) = gpu else { bail!(Device, "the WebGPU device is gone") };
        gpu.check_lost()?;
        // NOTE: the scope catches what the compilation info does not report: a pipeline whose
        // bindings do not match webtorch's layout, a missing `main`, a too-large workgroup.
        let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = gpu.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(&format!("webtorch:user:{name}")),
            source: wgpu::ShaderSource::Wgsl(source.to_string().into()),
        });
        let info = module.get_compilation_info().await;
        let errors: Vec<String> = info
            .messages
            .iter()
            .filter(|m| m.message_type == wgpu::CompilationMessageType::Error)
            .map(|m| match &m.location {
                Some(at) => format!("{}:{}: {}", at.line_number, at.line_position, m.message),
                None => m.message.clone(),
            })
            .collect();
        if !errors.is_empty() {
            let _ = scope.pop().await;
            bail!(Torch, "WGSL kernel '{name}' failed to compile:\n{}", errors.join("\n"));
        }
        let key = KernelKey::User { name: name.clone(), source };
        {
            let mut st = gpu.st.borrow_mut();
            st.kernels.remove(&key);
            gpu.kernel(&mut st, &key, n_inputs + 1);
        }
        if let Some(e) = scope.pop().await {
            gpu.st.borrow_mut().kernels.remove(&key);
            bail!(Torch, "WGSL kernel '{name}' failed validation: {e}");
        }
        Ok(())
    })
}

/// Records `k` into the open pass (a 2-D grid when `groups` exceeds one dimension's limit).
pub(super) fn dispatch(gpu: &WebGpuBackend, k: &UserKernel) -> Result<()> {
    let key = KernelKey::User { name: k.name.clone(), source: k.source.clone() };
    let (x, y) = WebGpuBackend::grid(k.groups);
    let mut buffers = Vec::with_capacity(k.inputs.len() + 1);
    buffers.push(k.out);
    buffers.extend_from_slice(&k.inputs);
    gpu.record(&key, &k.meta, &buffers, (x, y, 1))
}
