//! Shared helpers for the native integration tests: the devices to run on, and blocking reads.
#![allow(dead_code)]

use webtorch::{Device, Tensor};

/// The devices this machine has: always the CPU, plus wgpu over Vulkan (Mesa lavapipe here).
/// Set `WEBTORCH_REQUIRE_GPU=1` to fail instead of skipping the GPU when no adapter exists.
pub fn devices() -> Vec<Device> {
    let mut d = vec![Device::Cpu];
    if webtorch::engine::has_gpu() || webtorch::init_native_gpu() {
        d.push(Device::WebGpu);
    } else if std::env::var("WEBTORCH_REQUIRE_GPU").is_ok_and(|v| v == "1") {
        panic!("WEBTORCH_REQUIRE_GPU=1 but no Vulkan adapter was found");
    }
    d
}

pub fn values(t: &Tensor) -> Vec<f64> {
    pollster::block_on(t.to_f64()).expect("read")
}

pub fn assert_close(got: &[f64], want: &[f64], rtol: f64, atol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= atol + rtol * w.abs();
        assert!(ok, "{what}: element {i}: got {g}, want {w}");
    }
}
