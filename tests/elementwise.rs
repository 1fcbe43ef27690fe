#![cfg(not(target_arch = "wasm32"))]
//! Elementwise kernels on the GPU: the vec4 variant of contiguous kernels (four elements per
//! invocation, `backend/webgpu/elementwise.rs`) gives the general kernel's results bit for bit,
//! and is the one compiled exactly when it may be; and the float32 erf fit behind gelu, erf and
//! gelu's gradient (`shaders/math.wgsl`, `scripts/fit-erf.py`) against PyTorch on dense grids
//! (`tests/parity/gelu_gen.py` writes the fixture).

mod common;

use common::{assert_close, devices, values};
use webtorch::autograd::{self, ops as ag};
use webtorch::{DType, Device, Op, Tensor};

fn gpu() -> bool {
    devices().contains(&Device::WebGpu)
}

fn labels() -> Vec<String> {
    webtorch::engine::backend(Device::WebGpu).unwrap().kernel_labels()
}

/// Values with every float32 special and both signs of zero among normal ones.
fn data(n: usize, seed: u64) -> Vec<f64> {
    webtorch::random::manual_seed(seed);
    let mut v = values(&Tensor::randn(&[n], DType::Float32, Device::Cpu).unwrap());
    for (i, s) in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0, 7.5, -9.0].iter().enumerate() {
        if 3 * i + 1 < n {
            v[3 * i + 1] = *s;
        }
    }
    v
}

fn t(v: &[f64], dtype: DType) -> Tensor {
    Tensor::from_f64(v, &[v.len()], dtype, Device::WebGpu).unwrap()
}

/// `f` run with the vec4 variant and without it: the same bits (NaN as NaN), and close to the CPU.
fn same_both_ways(what: &str, f: impl Fn(Device) -> Tensor) {
    webtorch::engine::tune(|t| t.elementwise_x4 = true);
    let x4 = values(&f(Device::WebGpu));
    webtorch::engine::tune(|t| t.elementwise_x4 = false);
    let general = values(&f(Device::WebGpu));
    webtorch::engine::tune(|t| t.elementwise_x4 = true);
    assert_eq!(x4.len(), general.len(), "{what}: length");
    for (i, (a, b)) in x4.iter().zip(&general).enumerate() {
        assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()), "{what}: element {i}: {a} vs {b}");
    }
    assert_close(&x4, &values(&f(Device::Cpu)), 1e-5, 1e-6, &format!("{what} against the CPU"));
}

/// Sizes around the word boundary (1 to 9 elements, a partial last word) and past a workgroup.
const SIZES: [usize; 9] = [1, 2, 3, 4, 5, 8, 9, 1027, 70_001];

#[test]
fn the_vec4_variant_matches_the_general_kernel_bit_for_bit() {
    if !gpu() {
        return;
    }
    webtorch::engine::tune(|t| {
        t.fusion_enabled = true;
        t.fusion_min_size = 1;
    });
    for n in SIZES {
        let (xv, yv) = (data(n, 1 + n as u64), data(n, 2 + n as u64));
        let on = |d: Device, v: &[f64], dt: DType| Tensor::from_f64(v, &[v.len()], dt, d).unwrap();
        same_both_ways(&format!("add {n}"), |d| {
            on(d, &xv, DType::Float32).binary(Op::Add, &on(d, &yv, DType::Float32)).unwrap()
        });
        same_both_ways(&format!("gelu {n}"), |d| on(d, &xv, DType::Float32).unary(Op::Gelu).unwrap());
        // A fused chain of six ops with scalars: one kernel.
        same_both_ways(&format!("chain {n}"), |d| {
            let (x, y) = (on(d, &xv, DType::Float32), on(d, &yv, DType::Float32));
            let h = x.binary_scalar(Op::Mul, 1.5, false).unwrap().binary(Op::Add, &y).unwrap();
            let g = h.unary(Op::Gelu).unwrap().binary(Op::Sub, &x).unwrap();
            g.unary(Op::Tanh).unwrap().binary_scalar(Op::Mul, 0.25, false).unwrap()
        });
        // Integer and bool words: an int32 sum, a float32 + int32 promotion, a comparison to bool.
        let iv: Vec<f64> = xv.iter().map(|v| if v.is_finite() { (v * 100.0).trunc() } else { 3.0 }).collect();
        same_both_ways(&format!("int32 add {n}"), |d| {
            on(d, &iv, DType::Int32).binary(Op::Add, &on(d, &iv, DType::Int32)).unwrap()
        });
        same_both_ways(&format!("float + int {n}"), |d| {
            on(d, &xv, DType::Float32).binary(Op::Add, &on(d, &iv, DType::Int32)).unwrap()
        });
        same_both_ways(&format!("ge {n}"), |d| {
            on(d, &xv, DType::Float32).binary(Op::Ge, &on(d, &yv, DType::Float32)).unwrap()
        });
        // A leaf at offset 4 (vec4 words line up) and at offset 1 (they do not).
        if n > 4 {
            same_both_ways(&format!("offset-4 view {n}"), |d| {
                let x = on(d, &xv, DType::Float32).narrow(0, 4, n as i64 - 4).unwrap();
                x.binary(Op::Atan2, &on(d, &yv[..n - 4], DType::Float32)).unwrap()
            });
            same_both_ways(&format!("offset-1 view {n}"), |d| {
                let x = on(d, &xv, DType::Float32).narrow(0, 1, n as i64 - 1).unwrap();
                x.binary(Op::Hypot, &on(d, &yv[..n - 1], DType::Float32)).unwrap()
            });
        }
    }
    // Which variants compiled: both for contiguous kernels (x4 on and off), only the general one
    // where a leaf's offset is not a multiple of 4.
    let labels = labels();
    for want in [
        "webtorch:add:x4:float32",
        "webtorch:add:float32",
        "webtorch:gelu:x4:float32",
        "webtorch:gelu:float32",
        "webtorch:mul+add+gelu+sub+tanh+mul:x4:float32",
        "webtorch:mul+add+gelu+sub+tanh+mul:float32",
        "webtorch:add:x4:int32",
        "webtorch:ge:x4:bool",
        "webtorch:atan2:x4:float32",
        "webtorch:hypot:float32",
    ] {
        assert!(labels.iter().any(|l| l == want), "{want} not among {labels:?}");
    }
    assert!(!labels.iter().any(|l| l == "webtorch:hypot:x4:float32"), "{labels:?}");
}

/// Strided leaves take the vec4 variant when the innermost dim comes in fours (four elements
/// per invocation from one index computation, read one by one): a transposed leaf, a broadcast
/// row, a permuted 4-d view copied (im2col's gather), the same bits as the general kernel.
/// Otherwise (a transposed [8, 6], an in-place write into a strided view) the general kernel.
#[test]
fn strided_views_and_the_vec4_variant() {
    if !gpu() {
        return;
    }
    webtorch::engine::tune(|t| t.elementwise_x4 = true);
    let xv = data(48, 7);
    let x = t(&xv, DType::Float32).reshape(&[6, 8]).unwrap();
    let cpu = Tensor::from_f64(&xv, &[6, 8], DType::Float32, Device::Cpu).unwrap();
    let got = values(&x.transpose(0, 1).unwrap().unary(Op::Expm1).unwrap());
    assert_close(&got, &values(&cpu.transpose(0, 1).unwrap().unary(Op::Expm1).unwrap()), 1e-5, 1e-6, "expm1 of x.T");
    let on = |d: Device, v: &[f64], shape: &[usize]| Tensor::from_f64(v, shape, DType::Float32, d).unwrap();
    same_both_ways("copysign, a broadcast row", |d| {
        on(d, &xv, &[6, 8]).binary(Op::Copysign, &on(d, &xv[..8], &[8])).unwrap()
    });
    let yv = data(96, 8);
    same_both_ways("tanh of a transposed [8, 12]", |d| {
        on(d, &yv, &[8, 12]).transpose(0, 1).unwrap().unary(Op::Tanh).unwrap()
    });
    same_both_ways("x.T + y", |d| {
        on(d, &yv, &[8, 12]).transpose(0, 1).unwrap().binary(Op::Add, &on(d, &yv, &[12, 8])).unwrap()
    });
    let zv = data(2 * 3 * 4 * 8, 9);
    same_both_ways("a permuted 4-d copy", |d| {
        on(d, &zv, &[2, 3, 4, 8]).permute(&[0, 2, 1, 3]).unwrap().contiguous().unwrap()
    });
    let labels = labels();
    assert!(labels.iter().any(|l| l == "webtorch:expm1:float32"), "{labels:?}");
    assert!(!labels.iter().any(|l| l.starts_with("webtorch:expm1:x4")), "{labels:?}");
    for l in ["webtorch:copysign:x4:float32", "webtorch:tanh:x4:float32", "webtorch:add:x4:float32"] {
        assert!(labels.iter().any(|x| x == l), "no {l} among {labels:?}");
    }
}

/// The fixture's grid points: float32(-12 + 24 i / steps), i = 0 … steps.
fn grid(steps: usize) -> Vec<f64> {
    (0..=steps).map(|i| (-12.0 + 24.0 * i as f64 / steps as f64) as f32 as f64).collect()
}

/// PyTorch's float32 gelu on 200,001 points, erf and gelu's gradient on 20,001 (gelu_gen.py).
fn fixture() -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/parity/fixtures/gelu_grid.f32");
    let bytes = std::fs::read(path).expect("gelu fixture (tests/parity/gelu_gen.py)");
    let v: Vec<f64> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64).collect();
    assert_eq!(v.len(), 200_001 + 2 * 20_001);
    (v[..200_001].to_vec(), v[200_001..220_002].to_vec(), v[220_002..].to_vec())
}

/// The largest absolute error, and the largest relative one where |want| > `floor`.
fn errors(got: &[f64], want: &[f64], floor: f64) -> (f64, f64) {
    let mut worst = (0.0f64, 0.0f64);
    for (g, w) in got.iter().zip(want) {
        let e = (g - w).abs();
        worst.0 = worst.0.max(e);
        if w.abs() > floor {
            worst.1 = worst.1.max(e / w.abs());
        }
    }
    worst
}

#[test]
fn gelu_erf_and_gelu_backward_against_pytorch() {
    if !gpu() {
        return;
    }
    let (gelu, erf, grad) = fixture();
    for x4 in [true, false] {
        webtorch::engine::tune(|t| t.elementwise_x4 = x4);
        let got = values(&t(&grid(200_000), DType::Float32).unary(Op::Gelu).unwrap());
        let (abs, rel) = errors(&got, &gelu, 0.1);
        // The bar of the erfc-based gelu it replaced (errors that include PyTorch's own).
        assert!(abs <= 1.2e-6 && rel <= 1.1e-6, "gelu (x4 {x4}): max absolute {abs:e}, relative {rel:e}");
    }
    webtorch::engine::tune(|t| t.elementwise_x4 = true);
    let x = grid(20_000);
    let got = values(&t(&x, DType::Float32).unary(Op::Erf).unwrap());
    let (abs, rel) = errors(&got, &erf, 0.0);
    assert!(abs <= 2.5e-7 && rel <= 4e-7, "erf: max absolute {abs:e}, relative {rel:e}");
    // The gradient, composed of erf, exp and products (autograd/rules.rs).
    let mut leaf = t(&x, DType::Float32);
    leaf.set_requires_grad(true).unwrap();
    let y = ag::sum(&ag::unary(&leaf, Op::Gelu).unwrap(), &[], false).unwrap();
    autograd::backward(&y, None, false, false).unwrap();
    let (abs, rel) = errors(&values(&leaf.grad().unwrap()), &grad, 0.1);
    assert!(abs <= 1e-6 && rel <= 2e-6, "gelu backward: max absolute {abs:e}, relative {rel:e}");
}

/// int64 arithmetic that leaves webtorch's 32-bit int64 range raises an Overflow error (at the
/// call on the CPU, at the read on the GPU) instead of wrapping; at the range's edges it is exact
/// (`src/tensor/int64.rs`); int32 wraps, as PyTorch's does.
#[test]
fn int64_results_outside_32_bits_raise() {
    let (max, min) = (i32::MAX as f64, i32::MIN as f64);
    for dev in devices() {
        let i64t = |v: &[f64]| Tensor::from_f64(v, &[v.len()], DType::Int64, dev).unwrap();
        let read = |r: webtorch::Result<Tensor>| r.and_then(|t| pollster::block_on(t.to_f64()));
        let overflows = |what: &str, r: webtorch::Result<Tensor>| match read(r) {
            Err(e) => assert_eq!(e.kind, webtorch::ErrorKind::Overflow, "{dev:?} {what}: {e}"),
            Ok(v) => panic!("{dev:?} {what}: gave {v:?}"),
        };
        overflows("max * 2", i64t(&[max]).binary_scalar(Op::Mul, 2.0, false));
        overflows("max + 1", i64t(&[max]).binary(Op::Add, &i64t(&[1.0])));
        overflows("-min", i64t(&[min]).unary(Op::Neg));
        overflows("sum", i64t(&[max, 1.0]).sum(&[], false));
        overflows("cumsum", i64t(&[max, 1.0]).cumsum(0, None));
        let f = Tensor::from_f64(&[3e9], &[1], DType::Float32, dev).unwrap();
        overflows("3e9 as int64", f.to_dtype(DType::Int64));
        assert_eq!(read(i64t(&[max - 1.0]).binary_scalar(Op::Add, 1.0, false)).unwrap(), vec![max]);
        assert_eq!(read(i64t(&[max, -max, 5.0]).sum(&[], false)).unwrap(), vec![5.0]);
        let i32t = Tensor::from_f64(&[max], &[1], DType::Int32, dev).unwrap();
        assert_eq!(read(i32t.binary_scalar(Op::Add, 1.0, false)).unwrap(), vec![min]);
    }
}
