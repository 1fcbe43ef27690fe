#![cfg(not(target_arch = "wasm32"))]
//! Every matmul kernel variant (the 16×16 kernel and each register tile) against the CPU backend:
//! ragged edges in M, N and K, batches with broadcast, transposed and offset views.

mod common;

use common::{assert_close, devices, values};
use webtorch::backend::webgpu::matmul::set_variant;
use webtorch::{DType, Device, Tensor};

fn randn(shape: &[usize], dev: Device) -> Tensor {
    Tensor::randn(shape, DType::Float32, dev).unwrap()
}

/// `f(a, b)` on the GPU under `variant` against the same on the CPU, for fresh inputs.
fn check(variant: &str, sa: &[usize], sb: &[usize], f: &dyn Fn(&Tensor, &Tensor) -> Tensor, what: &str) {
    let (a, b) = (randn(sa, Device::WebGpu), randn(sb, Device::WebGpu));
    let ac = Tensor::from_f64(&values(&a), sa, DType::Float32, Device::Cpu).unwrap();
    let bc = Tensor::from_f64(&values(&b), sb, DType::Float32, Device::Cpu).unwrap();
    assert!(set_variant(variant));
    let got = values(&f(&a, &b));
    assert!(set_variant("auto"));
    assert_close(&got, &values(&f(&ac, &bc)), 1e-5, 2e-5, &format!("{variant}: {what}"));
}

#[test]
fn every_variant_matches_the_cpu() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    webtorch::random::manual_seed(7);
    let mm = |a: &Tensor, b: &Tensor| a.matmul(b).unwrap();
    for v in [
        "auto",
        "simple",
        "t64",
        "t128",
        "t128k16",
        "t128x64",
        "t128k16p",
        "t128k32",
        "t128k32p",
        "t128x64p",
        "t64p",
        "t128k16pc",
        "t128x64pc",
        "t128k16d",
        "t128k8d",
        "t128k8p",
        "t128x64d",
    ] {
        check(v, &[64, 64], &[64, 64], &mm, "64x64x64");
        // Ragged M and N (not multiples of any tile), K not a multiple of the K step.
        check(v, &[130, 36], &[36, 68], &mm, "130x36x68");
        check(v, &[3, 72, 44], &[44, 132], &mm, "batched, b broadcast");
        check(v, &[2, 1, 40, 20], &[3, 20, 8], &mm, "broadcast batch dims");
        // a transposed (contiguous along M), b transposed (contiguous along K, as in x @ w.T).
        let at = |a: &Tensor, b: &Tensor| a.transpose(0, 1).unwrap().matmul(b).unwrap();
        check(v, &[52, 136], &[52, 72], &at, "a.T @ b");
        let bt = |a: &Tensor, b: &Tensor| a.matmul(&b.transpose(0, 1).unwrap()).unwrap();
        check(v, &[136, 52], &[72, 52], &bt, "a @ b.T");
        let both = |a: &Tensor, b: &Tensor| a.transpose(0, 1).unwrap().matmul(&b.transpose(0, 1).unwrap()).unwrap();
        check(v, &[52, 136], &[72, 52], &both, "a.T @ b.T");
        // Offset views: rows 4.. (offset divisible by 4) and rows 1.. (not: falls back).
        let off4 = |a: &Tensor, b: &Tensor| a.narrow(0, 4, 96).unwrap().matmul(b).unwrap();
        check(v, &[100, 24], &[24, 80], &off4, "offset 4 rows");
        let off1 = |a: &Tensor, b: &Tensor| a.narrow(0, 1, 96).unwrap().matmul(b).unwrap();
        check(v, &[100, 25], &[25, 80], &off1, "offset 1 row, odd K");
        // Odd N falls back to the 16×16 kernel.
        check(v, &[70, 33], &[33, 65], &mm, "odd N");
    }
}

/// Long-K products with few output tiles run as slices of K (a batched product, then a sum of
/// the slices): two dispatches, the CPU's result; `a` transposed as in a weight gradient xᵀ·dy.
#[test]
fn split_k_products_match_the_cpu() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    webtorch::random::manual_seed(11);
    let dispatches = || webtorch::engine::backend(Device::WebGpu).unwrap().stats().dispatches;
    let mm = |a: &Tensor, b: &Tensor| a.matmul(b).unwrap();
    let at = |a: &Tensor, b: &Tensor| a.transpose(0, 1).unwrap().matmul(b).unwrap();
    type F = fn(&Tensor, &Tensor) -> Tensor;
    let cases: [(&[usize], &[usize], F, &str); 2] =
        [(&[256, 8192], &[8192, 256], mm, "256x8192 @ 8192x256"), (&[8192, 256], &[8192, 320], at, "xᵀ·dy, K 8192")];
    for (sa, sb, f, what) in cases {
        let (ag, bg) = (randn(sa, Device::WebGpu), randn(sb, Device::WebGpu));
        let ac = Tensor::from_f64(&values(&ag), sa, DType::Float32, Device::Cpu).unwrap();
        let bc = Tensor::from_f64(&values(&bg), sb, DType::Float32, Device::Cpu).unwrap();
        let before = dispatches();
        let got = values(&f(&ag, &bg));
        assert_eq!(dispatches() - before, 2, "{what}: the sliced product and the sum of its slices");
        // Sums of 8,192 products of N(0, 1) values (~90 in size): float32 rounding ~1e-4.
        assert_close(&got, &values(&f(&ac, &bc)), 1e-4, 2e-3, what);
    }
}

/// A large product reading `b` transposed (`x · wᵀ`, a Linear layer's forward) copies `b` to
/// row-major and runs the plain kernel: two dispatches, the CPU's result; a small one does not.
#[test]
fn transposed_b_is_copied_for_large_products() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    webtorch::random::manual_seed(12);
    let dispatches = || webtorch::engine::backend(Device::WebGpu).unwrap().stats().dispatches;
    for (m, n, k, kernels) in [(2048usize, 2048usize, 32usize, 2u64), (256, 256, 32, 1)] {
        let (xg, wg) = (randn(&[m, k], Device::WebGpu), randn(&[n, k], Device::WebGpu));
        let xc = Tensor::from_f64(&values(&xg), &[m, k], DType::Float32, Device::Cpu).unwrap();
        let wc = Tensor::from_f64(&values(&wg), &[n, k], DType::Float32, Device::Cpu).unwrap();
        let f = |x: &Tensor, w: &Tensor| x.matmul(&w.transpose(0, 1).unwrap()).unwrap();
        let before = dispatches();
        let got = values(&f(&xg, &wg));
        assert_eq!(dispatches() - before, kernels, "{m}×{n}×{k}: dispatches");
        assert_close(&got, &values(&f(&xc, &wc)), 1e-4, 1e-4, &format!("x·wᵀ {m}×{n}×{k}"));
    }
}
