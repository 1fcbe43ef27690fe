//! webtorch's core: tensors, ops and their kernels, and the WebGPU runtime, compiled to wasm for
//! the TS layer in `ts/` (and natively for tests and benchmarks). docs/ARCHITECTURE.md describes the layers.

pub mod error;

#[cfg(target_arch = "wasm32")]
pub mod api;
pub mod autograd;
pub mod backend;
pub mod cell;
pub mod debug;
pub mod dtype;
pub mod engine;
pub mod ops;
pub mod random;
pub mod shape;
pub mod tensor;

pub use backend::Device;
pub use dtype::DType;
pub use error::{Error, ErrorKind, Result};
pub use ops::Op;
pub use tensor::Tensor;

/// Creates the native WebGPU backend (Vulkan) and makes it the default device; `false` when there
/// is no adapter. Blocking: for tests, benchmarks and native programs.
#[cfg(not(target_arch = "wasm32"))]
pub fn init_native_gpu() -> bool {
    match pollster::block_on(backend::webgpu::WebGpuBackend::create()) {
        Some(gpu) => {
            engine::set_gpu(gpu);
            true
        }
        None => false,
    }
}
