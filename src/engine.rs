//! The engine's per-thread state: the backends that exist and which device is the default.
//! The CPU backend always exists; the WebGPU backend exists once `init` found an adapter.

use std::cell::RefCell;
use std::mem::ManuallyDrop;
use std::rc::Rc;

use crate::backend::cpu::CpuBackend;
use crate::backend::{Backend, Device};
use crate::error::Result;

struct Engine {
    cpu: Rc<dyn Backend>,
    gpu: Option<Rc<dyn Backend>>,
    default: Device,
}

thread_local! {
    // NOTE: ManuallyDrop: the engine lives as long as its thread. Dropping wgpu objects from a
    // thread-local destructor panics (wgpu-core's lock tracing uses thread-locals itself).
    static ENGINE: ManuallyDrop<RefCell<Engine>> = ManuallyDrop::new(RefCell::new(Engine {
        cpu: Rc::new(CpuBackend::new()),
        gpu: None,
        default: Device::Cpu,
    }));
}

/// The backend of `device`, or a `DeviceError` when it does not exist here.
pub fn backend(device: Device) -> Result<Rc<dyn Backend>> {
    ENGINE.with(|e| {
        let e = e.borrow();
        match device {
            Device::Cpu => Ok(e.cpu.clone()),
            Device::WebGpu => e.gpu.clone().ok_or_else(|| {
                crate::err!(Device, "webgpu device is not available: no WebGPU adapter was found (tensors live on 'cpu')")
            }),
        }
    })
}

/// Installs a WebGPU backend and makes it the default device.
pub fn set_gpu(gpu: Rc<dyn Backend>) {
    ENGINE.with(|e| {
        let mut e = e.borrow_mut();
        e.gpu = Some(gpu);
        e.default = Device::WebGpu;
    });
}

pub fn has_gpu() -> bool {
    ENGINE.with(|e| e.borrow().gpu.is_some())
}

pub fn default_device() -> Device {
    ENGINE.with(|e| e.borrow().default)
}

pub fn set_default_device(device: Device) -> Result<()> {
    backend(device)?;
    ENGINE.with(|e| e.borrow_mut().default = device);
    Ok(())
}
