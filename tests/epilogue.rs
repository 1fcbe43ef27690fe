#![cfg(not(target_arch = "wasm32"))]
//! Matmul epilogue fusion on the GPU (wgpu over Vulkan): `F.linear` plus the elementwise chain
//! after it (bias, activation, residual, scaling) is one matmul dispatch whose store applies the
//! chain, for the 16×16 and the tiled kernel and for batched products; results match the GPU
//! with fusion off and the CPU. A leaf whose batch strides do not flatten, a product that needs
//! a gradient, and an in-place write to an operand all take the unfused path correctly.

mod common;

use common::{assert_close, devices, values};
use webtorch::autograd::{self, ops as ag};
use webtorch::tensor::fusion;
use webtorch::{DType, Device, Op, Tensor};

fn dispatches() -> u64 {
    webtorch::engine::backend(Device::WebGpu).unwrap().stats().dispatches
}

fn randn(shape: &[usize]) -> Vec<f64> {
    values(&Tensor::randn(shape, DType::Float32, Device::Cpu).unwrap())
}

fn on(v: &[f64], shape: &[usize], dev: Device) -> Tensor {
    Tensor::from_f64(v, shape, DType::Float32, dev).unwrap()
}

/// Runs `f` on the GPU with fusion on and off and on the CPU; returns (fused, dispatches fused,
/// dispatches unfused) after checking that the three agree.
fn three_ways(name: &str, f: &dyn Fn(Device) -> Tensor) -> (u64, u64) {
    webtorch::engine::tune(|t| {
        t.fusion_enabled = true;
        t.fusion_window = 4;
        t.fusion_min_size = 1024;
    });
    let d0 = dispatches();
    let fused = values(&f(Device::WebGpu));
    let n_fused = dispatches() - d0;
    webtorch::engine::tune(|t| t.fusion_enabled = false);
    let d0 = dispatches();
    let unfused = values(&f(Device::WebGpu));
    let n_unfused = dispatches() - d0;
    webtorch::engine::tune(|t| t.fusion_enabled = true);
    let cpu = values(&f(Device::Cpu));
    assert_close(&fused, &unfused, 1e-5, 1e-5, &format!("{name}: fused vs unfused GPU"));
    assert_close(&fused, &cpu, 1e-4, 1e-4, &format!("{name}: fused GPU vs CPU"));
    (n_fused, n_unfused)
}

#[test]
fn linear_bias_activation_residual_is_one_dispatch() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    webtorch::random::manual_seed(5);
    // (m, k, n): the 16×16 kernel, and a shape the tiled kernel takes (m·n > 256², k ≥ 16).
    for (m, k, n) in [(64, 96, 128), (512, 64, 256)] {
        let (xv, wv, bv, rv) = (randn(&[m, k]), randn(&[n, k]), randn(&[n]), randn(&[m, n]));
        let gelu_res = |dev: Device| {
            let (x, w, b, r) =
                (on(&xv, &[m, k], dev), on(&wv, &[n, k], dev), on(&bv, &[n], dev), on(&rv, &[m, n], dev));
            // F.linear(x, w, b) → gelu → + residual, as the TS layer composes it.
            let y = ag::matmul(&x, &ag::t(&w).unwrap()).unwrap();
            let y = ag::add(&y, &b).unwrap();
            ag::add(&ag::unary(&y, Op::Gelu).unwrap(), &r).unwrap()
        };
        let (fused, unfused) = three_ways(&format!("gelu {m}x{k}x{n}"), &gelu_res);
        assert_eq!(fused, 1, "{m}x{k}x{n}: matmul, bias, gelu and residual in one dispatch");
        assert_eq!(unfused, 4, "{m}x{k}x{n}: four kernels unfused");
        let relu_scale = |dev: Device| {
            let (x, w, b) = (on(&xv, &[m, k], dev), on(&wv, &[n, k], dev), on(&bv, &[n], dev));
            let y = ag::add(&ag::matmul(&x, &ag::t(&w).unwrap()).unwrap(), &b).unwrap();
            ag::binary_scalar(
                &ag::unary(&y, Op::Relu).unwrap(),
                Op::Mul,
                0.5,
                false,
                webtorch::dtype::ScalarKind::Float,
            )
            .unwrap()
        };
        assert_eq!(three_ways("relu*0.5", &relu_scale).0, 1);
    }
    let f0 = fusion::with_config(|c| c.stats.fusions);
    let x = Tensor::randn(&[64, 32], DType::Float32, Device::WebGpu).unwrap();
    let w = Tensor::randn(&[32, 64], DType::Float32, Device::WebGpu).unwrap();
    values(&ag::unary(&ag::matmul(&x, &w).unwrap(), Op::Relu).unwrap());
    assert_eq!(fusion::with_config(|c| c.stats.fusions) - f0, 1, "a matmul epilogue counts as a fusion");
}

#[test]
fn batched_epilogues_and_the_unfused_fallback() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    webtorch::random::manual_seed(6);
    let (qv, kv, mv) = (randn(&[4, 64, 32]), randn(&[4, 32, 64]), randn(&[64, 64]));
    // Attention scores: q @ k * scale + mask, the mask broadcast over the batch (stride 0).
    let scores = |dev: Device| {
        let (q, k, mask) = (on(&qv, &[4, 64, 32], dev), on(&kv, &[4, 32, 64], dev), on(&mv, &[64, 64], dev));
        let s =
            ag::binary_scalar(&ag::matmul(&q, &k).unwrap(), Op::Mul, 0.125, false, webtorch::dtype::ScalarKind::Float)
                .unwrap();
        ag::add(&s, &mask).unwrap()
    };
    assert_eq!(three_ways("scores", &scores).0, 1);
    // Batch dims (2, 2) with a leaf broadcast along the first only: its batch strides do not
    // flatten, so the product is stored and the chain runs as its own kernel (2 dispatches).
    let (av, bv, lv) = (randn(&[2, 2, 32, 16]), randn(&[2, 2, 16, 48]), randn(&[1, 2, 32, 48]));
    let odd = |dev: Device| {
        let (a, b, l) = (on(&av, &[2, 2, 32, 16], dev), on(&bv, &[2, 2, 16, 48], dev), on(&lv, &[1, 2, 32, 48], dev));
        let l = l.expand(&[2, 2, 32, 48]).unwrap().transpose(0, 1).unwrap();
        ag::unary(&ag::add(&ag::matmul(&a, &b).unwrap(), &l).unwrap(), Op::Tanh).unwrap()
    };
    assert_eq!(three_ways("non-flat leaf", &odd).0, 2);
    // A leaf cut to one entry of an outer batch dim keeps that dim's old stride (one head of
    // `(3, 4, 32, 48)`: strides (4·32·48, 32·48, …) over batch (1, 2)); dims of one entry step
    // nothing, so it flattens and the chain stays the product's epilogue.
    let cv = randn(&[3, 4, 32, 48]);
    let cut = |dev: Device| {
        let (a, b, c) = (on(&av, &[2, 2, 32, 16], dev), on(&bv, &[2, 2, 16, 48], dev), on(&cv, &[3, 4, 32, 48], dev));
        let (a, b) = (a.narrow(0, 1, 1).unwrap(), b.narrow(0, 0, 1).unwrap());
        let c = c.narrow(0, 2, 1).unwrap().narrow(1, 1, 2).unwrap();
        ag::unary(&ag::add(&ag::matmul(&a, &b).unwrap(), &c).unwrap(), Op::Tanh).unwrap()
    };
    assert_eq!(three_ways("cut leaf", &cut).0, 1);
}

#[test]
fn gradients_and_in_place_writes_stay_correct() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    webtorch::random::manual_seed(7);
    let (xv, wv, bv) = (randn(&[64, 48]), randn(&[40, 48]), randn(&[40]));
    // Training: the product needs a gradient, so it is stored (backward reads it); backward's
    // own products (no grad) fuse their accumulation. Gradients match the CPU.
    let grads = |dev: Device| -> Vec<Vec<f64>> {
        let x = on(&xv, &[64, 48], dev);
        let mut w = on(&wv, &[40, 48], dev);
        let mut b = on(&bv, &[40], dev);
        w.set_requires_grad(true).unwrap();
        b.set_requires_grad(true).unwrap();
        let h = ag::unary(&ag::add(&ag::matmul(&x, &ag::t(&w).unwrap()).unwrap(), &b).unwrap(), Op::Gelu).unwrap();
        let loss = ag::sum(&ag::unary(&h, Op::Square).unwrap(), &[], false).unwrap();
        autograd::backward(&loss, None, false, false).unwrap();
        vec![values(&loss), values(&w.grad().unwrap()), values(&b.grad().unwrap())]
    };
    webtorch::engine::tune(|t| t.fusion_min_size = 1024);
    let (gpu, cpu) = (grads(Device::WebGpu), grads(Device::Cpu));
    for (i, what) in ["loss", "dw", "db"].iter().enumerate() {
        assert_close(&gpu[i], &cpu[i], 1e-4, 1e-3, what);
    }
    // An in-place write to an operand computes the pending product first (with the old value).
    let x = on(&xv, &[64, 48], Device::WebGpu);
    let w = on(&wv, &[40, 48], Device::WebGpu);
    let y = ag::unary(&ag::matmul(&x, &ag::t(&w).unwrap()).unwrap(), Op::Relu).unwrap();
    assert!(y.is_pending());
    w.assign_(&w.binary_scalar(Op::Add, 100.0, false).unwrap()).unwrap();
    let want = values(
        &on(&xv, &[64, 48], Device::Cpu)
            .matmul(&on(&wv, &[40, 48], Device::Cpu).t().unwrap())
            .unwrap()
            .unary(Op::Relu)
            .unwrap(),
    );
    assert_close(&values(&y), &want, 1e-4, 1e-4, "product read before the in-place write");
}
