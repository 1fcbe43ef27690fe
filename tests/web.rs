//! The wasm build in a real browser (`wasm-pack test --chrome --headless`): WebGPU through
//! Chromium's adapter (SwiftShader here), checked against the CPU backend in the same module.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;
use webtorch::{DType, Device, Op, Tensor};

wasm_bindgen_test_configure!(run_in_browser);

async fn init_gpu() {
    let dev = webtorch::api::init("webgpu".into()).await.map_err(|e| format!("{e:?}")).expect("WebGPU init");
    assert_eq!(dev, "webgpu");
}

#[wasm_bindgen_test]
async fn adapter_is_real_webgpu() {
    init_gpu().await;
    let info = webtorch::api::adapter_info().unwrap();
    assert!(!info.is_null(), "no adapter info");
    let backend = js_sys::Reflect::get(&info, &JsValue::from_str("backend")).unwrap();
    assert_eq!(backend.as_string().as_deref(), Some("BrowserWebGpu"));
    // The browser's navigator.gpu exists: this is the real WebGPU API, not a CPU stand-in.
    let nav = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("navigator")).unwrap();
    assert!(js_sys::Reflect::has(&nav, &JsValue::from_str("gpu")).unwrap());
}

async fn read(t: &Tensor) -> Vec<f64> {
    t.to_f64().await.expect("read")
}

#[wasm_bindgen_test]
async fn slice_ops_match_cpu() {
    init_gpu().await;
    webtorch::random::manual_seed(1);
    let x = Tensor::randn(&[33, 17], DType::Float32, Device::Cpu).unwrap();
    let y = Tensor::randn(&[17, 9], DType::Float32, Device::Cpu).unwrap();
    let (xv, yv) = (read(&x).await, read(&y).await);
    let xg = Tensor::from_f64(&xv, &[33, 17], DType::Float32, Device::WebGpu).unwrap();
    let yg = Tensor::from_f64(&yv, &[17, 9], DType::Float32, Device::WebGpu).unwrap();
    let program = |a: &Tensor, b: &Tensor| -> Tensor {
        let h = a.matmul(b).unwrap().unary(Op::Relu).unwrap();
        let z = h.binary_scalar(Op::Mul, 0.5, false).unwrap().unary(Op::Exp).unwrap();
        let t =
            a.transpose(0, 1).unwrap().binary(Op::Sub, &a.transpose(0, 1).unwrap().mean(&[0], true).unwrap()).unwrap();
        z.sum(&[0], false).unwrap().binary(Op::Add, &t.sum(&[0, 1], false).unwrap()).unwrap()
    };
    let (gpu, cpu) = (read(&program(&xg, &yg)).await, read(&program(&x, &y)).await);
    assert_eq!(gpu.len(), 9);
    for (g, c) in gpu.iter().zip(&cpu) {
        assert!((g - c).abs() <= 1e-4 * c.abs().max(1.0), "gpu {g} vs cpu {c}");
    }
}

#[wasm_bindgen_test]
async fn errors_are_typed_not_panics() {
    init_gpu().await;
    let a = Tensor::full(&[2, 3], 1.0, DType::Float32, Device::WebGpu).unwrap();
    let b = Tensor::full(&[4, 5], 1.0, DType::Float32, Device::WebGpu).unwrap();
    let e = a.matmul(&b).unwrap_err();
    assert_eq!(e.message, "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
    let js = webtorch::api::to_js_error(e);
    let name = js_sys::Reflect::get(&js, &JsValue::from_str("name")).unwrap();
    assert_eq!(name.as_string().as_deref(), Some("ShapeError"));
    // The engine still works after the error.
    assert_eq!(read(&a.sum(&[], false).unwrap()).await, vec![6.0]);
}
