//! Creating the WebGPU device: adapter request, limits, error and device-loss callbacks, and the
//! state every backend call starts from.

use crate::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use super::pool::Pool;
use super::{batched, AdapterSummary, State, WebGpuBackend, ARENA_SLOTS, SLOT_BYTES};
use crate::backend::Stats;

impl WebGpuBackend {
    /// Requests an adapter and device; `None` when there is no adapter.
    pub async fn create() -> Option<Rc<WebGpuBackend>> {
        // wgpu's browser backend panics without `navigator.gpu` (Node without the `webgpu`
        // package, old browsers): no WebGPU there, so no backend.
        #[cfg(target_arch = "wasm32")]
        {
            let nav = js_sys::Reflect::get(&js_sys::global(), &"navigator".into())
                .unwrap_or(wasm_bindgen::JsValue::UNDEFINED);
            let gpu = if nav.is_object() { js_sys::Reflect::get(&nav, &"gpu".into()).ok() } else { None };
            if gpu.is_none_or(|g| g.is_undefined() || g.is_null()) {
                return None;
            }
        }
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends =
            if cfg!(target_arch = "wasm32") { wgpu::Backends::BROWSER_WEBGPU } else { wgpu::Backends::VULKAN };
        let instance = wgpu::Instance::new(desc);
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            })
            .await
            .ok()?;
        let limits = adapter.limits();
        let mut required = wgpu::Limits::downlevel_defaults();
        // Ask for what the adapter has where it matters for large tensors.
        required.max_storage_buffer_binding_size = limits.max_storage_buffer_binding_size;
        required.max_buffer_size = limits.max_buffer_size;
        required.max_storage_buffers_per_shader_stage = limits.max_storage_buffers_per_shader_stage.min(8);
        required.max_compute_invocations_per_workgroup = 256;
        required.max_compute_workgroup_size_x = 256;
        required.max_compute_workgroup_size_y = 256;
        // 32 KiB of workgroup memory where the adapter has it (NVIDIA: 48 KiB): the matmul's
        // 32-deep K step stages 32 KiB (`matmul::T128K32`).
        required.max_compute_workgroup_storage_size =
            limits.max_compute_workgroup_storage_size.clamp(required.max_compute_workgroup_storage_size, 32768);
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("webtorch"),
                // Timestamps for the profiler's GPU times, where the adapter has them.
                required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
                required_limits: required,
                ..Default::default()
            })
            .await
            .ok()?;
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let kind = match e {
                wgpu::Error::OutOfMemory { .. } => crate::error::ErrorKind::OutOfMemory,
                _ => crate::error::ErrorKind::Device,
            };
            if let Ok(mut v) = sink.lock() {
                v.push((kind, e.to_string()));
            }
        }));
        let lost = Arc::new(Mutex::new(None));
        let lost_sink = lost.clone();
        device.set_device_lost_callback(move |reason, msg| {
            if let Ok(mut l) = lost_sink.lock() {
                *l = Some(format!("{reason:?}: {msg}"));
            }
        });
        let info = adapter.get_info();
        let dl = device.limits();
        let limits: HashMap<String, u64> = [
            ("maxBufferSize", dl.max_buffer_size),
            ("maxStorageBufferBindingSize", dl.max_storage_buffer_binding_size),
            ("maxComputeWorkgroupSizeX", dl.max_compute_workgroup_size_x as u64),
            ("maxComputeInvocationsPerWorkgroup", dl.max_compute_invocations_per_workgroup as u64),
            ("maxComputeWorkgroupsPerDimension", dl.max_compute_workgroups_per_dimension as u64),
            ("maxComputeWorkgroupStorageSize", dl.max_compute_workgroup_storage_size as u64),
            ("maxStorageBuffersPerShaderStage", dl.max_storage_buffers_per_shader_stage as u64),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let summary = AdapterSummary {
            name: info.name.clone(),
            vendor: format!("{:#x}", info.vendor),
            architecture: info.driver.clone(),
            description: info.driver_info.clone(),
            backend: format!("{:?}", info.backend),
            // WebGPU's spelling ("timestamp-query", "shader-f16"), not wgpu's constant names.
            features: adapter.features().iter_names().map(|(n, _)| n.to_lowercase().replace('_', "-")).collect(),
            limits,
        };
        let emulated = batched::emulated(&info);
        let arena_buf = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("webtorch:meta-arena"),
            size: SLOT_BYTES * ARENA_SLOTS as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Some(Rc::new_cyclic(|me| WebGpuBackend {
            limits: dl,
            device,
            queue,
            arena_buf,
            summary,
            emulated,
            errors,
            budget: std::cell::Cell::new(None),
            lost,
            me: me.clone(),
            st: RefCell::new(State {
                bufs: Vec::new(),
                free_ids: Vec::new(),
                pool: Pool::default(),
                staging: Pool::default(),
                kernels: Default::default(),
                bind: Default::default(),
                layouts: Default::default(),
                encoder: None,
                pass: None,
                threshold: 64,
                idle: true,
                hold: false,
                stats: Stats::default(),
                timing: None,
                capture: None,
                graphs: HashMap::new(),
                next_graph: 0,
                pinned: Default::default(),
                checks: Default::default(),
                pass_kernel: None,
                batched: Default::default(),
                batched_pad: Vec::new(),
            }),
        }))
    }
}
