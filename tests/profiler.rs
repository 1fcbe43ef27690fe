#![cfg(not(target_arch = "wasm32"))]
//! GPU times for `torch.profiler` on the native GPU (wgpu over Vulkan): with `timestamp-query`,
//! every dispatch while timing is on gets one event, labelled with its kernel and the op that ran
//! it, with a non-negative duration, in dispatch order. (The resolve and parse path alone is unit
//! tested in `src/backend/timing.rs`; tests/node/lifetime.test.mjs covers Dawn in Node.)

mod common;

use common::{devices, values};
use webtorch::backend::timing::set_current_op;
use webtorch::{DType, Device, Op, Tensor};

#[test]
fn every_dispatch_gets_a_gpu_time() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let gpu = webtorch::engine::backend(Device::WebGpu).unwrap();
    let x = Tensor::randn(&[128, 128], DType::Float32, Device::WebGpu).unwrap();
    values(&x);
    if !gpu.timing().unwrap().start() {
        eprintln!("this adapter has no timestamp-query: GPU times are not recorded");
        return;
    }
    let before = gpu.stats().dispatches;
    let prev = set_current_op(Some(("matmul".into(), 1.0)));
    let y = x.matmul(&x).unwrap();
    set_current_op(Some(("sum".into(), 2.0)));
    let s = y.unary(Op::Exp).unwrap().sum(&[1], false).unwrap();
    set_current_op(prev);
    values(&s);
    let n = (gpu.stats().dispatches - before) as usize;
    let events = pollster::block_on(gpu.timing().unwrap().stop()).unwrap();
    assert_eq!(events.len(), n, "one event per dispatch");
    assert!(n >= 2);
    assert!(events.iter().all(|e| e.dur_ns >= 0.0 && e.start_ns >= 0.0 && e.dur_ns.is_finite()));
    assert!(events[0].kernel.starts_with("webtorch:matmul") && events[0].op == "matmul", "{:?}", events[0]);
    assert!(events.iter().any(|e| e.kernel.contains("exp+sum") && e.op == "sum"), "{events:?}");
    // Dispatches in one queue start in order.
    assert!(events.windows(2).all(|w| w[1].start_ns >= w[0].start_ns), "{events:?}");
    // Timing is off again: later dispatches are not recorded, and stopping twice is empty.
    values(&x.unary(Op::Exp).unwrap());
    assert!(pollster::block_on(gpu.timing().unwrap().stop()).unwrap().is_empty());
}
