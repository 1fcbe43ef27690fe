#![cfg(not(target_arch = "wasm32"))]
//! Faults in pending (fused) computations: a computation that fails is reported once, leaves
//! its tensor failed with that error, and does not stop the other pending tensors.

mod common;

use common::{devices, values};
use webtorch::engine::{backend, flush_all};
use webtorch::{DType, Device, ErrorKind, Op, Tensor};

#[test]
fn a_failed_pending_computation_fails_once() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let gpu = backend(Device::WebGpu).unwrap();
    flush_all().unwrap();
    let base = gpu.stats().active_bytes;
    // 4 GiB: over every adapter's maxStorageBufferBindingSize, so computing it fails.
    let big = Tensor::full(&[1 << 30], 0.0, DType::Float32, Device::WebGpu).unwrap();
    assert!(big.is_pending());
    // Large enough to fuse (the fuser's `min_size`).
    let xv: Vec<f64> = (0..1024).map(f64::from).collect();
    let x = Tensor::from_f64(&xv, &[1024], DType::Float32, Device::WebGpu).unwrap();
    let y = x.binary_scalar(Op::Mul, 2.0, false).unwrap();
    assert!(y.is_pending());

    // The flush reports the failure, and still computes the other pending tensor.
    let err = flush_all().unwrap_err();
    assert_eq!(err.kind, ErrorKind::OutOfMemory);
    assert!(err.message.contains("maxStorageBufferBindingSize"), "{}", err.message);
    assert!(!y.is_pending());
    assert_eq!(values(&y), xv.iter().map(|v| v * 2.0).collect::<Vec<_>>());
    assert!(!big.is_pending(), "failed, not pending");

    // Later flushes neither retry nor report it.
    flush_all().unwrap();
    flush_all().unwrap();

    // A read, and an op using it, give the same error.
    assert_eq!(pollster::block_on(big.to_f64()).unwrap_err(), err);
    assert_eq!(big.binary_scalar(Op::Add, 1.0, false).unwrap_err(), err);
    assert_eq!(x.binary(Op::Add, &big.narrow(0, 0, 1024).unwrap()).unwrap_err(), err);
    // The engine still computes.
    assert_eq!(values(&x.binary(Op::Add, &y).unwrap()), xv.iter().map(|v| v * 3.0).collect::<Vec<_>>());

    drop((big, x, y));
    flush_all().unwrap();
    assert_eq!(gpu.stats().active_bytes, base, "nothing leaked");
}
