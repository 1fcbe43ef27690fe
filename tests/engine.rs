#![cfg(not(target_arch = "wasm32"))]
//! The engine end to end on every native device (CPU and wgpu/Vulkan): known answers, views,
//! errors, batching counters, and the pool.

mod common;

use common::{assert_close, devices, values};
use webtorch::tensor::fusion;
use webtorch::{DType, Device, ErrorKind, Op, Tensor};

fn t(data: &[f64], shape: &[usize], dev: Device) -> Tensor {
    Tensor::from_f64(data, shape, DType::Float32, dev).unwrap()
}

#[test]
fn arithmetic_broadcasting_and_views() {
    for dev in devices() {
        let a = t(&[1., 2., 3., 4., 5., 6.], &[2, 3], dev);
        let b = t(&[10., 20., 30.], &[3], dev);
        let c = a.binary(Op::Add, &b).unwrap();
        assert_eq!(values(&c), vec![11., 22., 33., 14., 25., 36.], "{dev:?}");
        // A transposed (non-contiguous) input read directly by the kernel.
        let at = a.transpose(0, 1).unwrap();
        assert!(!at.layout.is_contiguous() && at.same_storage(&a));
        let d = at.binary_scalar(Op::Mul, 2.0, false).unwrap();
        assert_eq!(d.shape(), &[3, 2]);
        assert_eq!(values(&d), vec![2., 8., 4., 10., 6., 12.]);
        let r = at.binary_scalar(Op::Sub, 1.0, true).unwrap(); // 1 - x
        assert_eq!(values(&r), vec![0., -3., -1., -4., -2., -5.]);
        let e = t(&[0., 1.], &[2], dev).unary(Op::Exp).unwrap();
        assert_close(&values(&e), &[1.0, std::f64::consts::E], 1e-6, 1e-6, "exp");
        let relu = t(&[-1., 0., 2.5, f64::NAN], &[4], dev).unary(Op::Relu).unwrap();
        let v = values(&relu);
        assert_eq!(&v[..3], &[0., 0., 2.5]);
        assert!(v[3].is_nan(), "relu(nan) is nan on {dev:?}");
    }
}

#[test]
fn integer_and_bool_promotion() {
    for dev in devices() {
        let i = Tensor::from_f64(&[1., 2., 3.], &[3], DType::Int64, dev).unwrap();
        let half = i.binary_scalar(Op::Mul, 0.5, false).unwrap();
        assert_eq!(half.dtype, DType::Float32);
        assert_eq!(values(&half), vec![0.5, 1.0, 1.5]);
        let q = i.binary(Op::Div, &i).unwrap();
        assert_eq!((q.dtype, values(&q)), (DType::Float32, vec![1., 1., 1.]));
        let s = i.binary_scalar(Op::Add, 2.0, false).unwrap();
        assert_eq!((s.dtype, values(&s)), (DType::Int64, vec![3., 4., 5.]));
        let lt = i.binary_scalar(Op::Lt, 2.5, false).unwrap();
        assert_eq!((lt.dtype, values(&lt)), (DType::Bool, vec![1., 1., 0.]));
        let sum = lt.sum(&[], false).unwrap();
        assert_eq!((sum.dtype, values(&sum)), (DType::Int64, vec![2.]));
        let p = Tensor::from_f64(&[2., -3., 5.], &[3], DType::Int32, dev)
            .unwrap()
            .binary_scalar(Op::Pow, 3.0, false)
            .unwrap();
        assert_eq!((p.dtype, values(&p)), (DType::Int32, vec![8., -27., 125.]));
        let pf = t(&[-2., 4.], &[2], dev).binary_scalar(Op::Pow, 2.0, false).unwrap();
        assert_close(&values(&pf), &[4., 16.], 1e-6, 0.0, "pow of negative base");
        let b = Tensor::from_f64(&[1., 0.], &[2], DType::Bool, dev).unwrap();
        assert_eq!(b.unary(Op::Neg).unwrap_err().kind, ErrorKind::DType);
        let u = Tensor::from_f64(&[250., 3.], &[2], DType::UInt8, dev)
            .unwrap()
            .binary_scalar(Op::Add, 10.0, false)
            .unwrap();
        assert_eq!((u.dtype, values(&u)), (DType::UInt8, vec![4., 13.]));
        let cast = t(&[-1.7, 2.9, 0.0], &[3], dev).to_dtype(DType::Int32).unwrap();
        assert_eq!(values(&cast), vec![-1., 2., 0.]);
        let tb = t(&[-1.7, 0.0], &[2], dev).to_dtype(DType::Bool).unwrap();
        assert_eq!(values(&tb), vec![1., 0.]);
    }
}

#[test]
fn reductions() {
    for dev in devices() {
        let x = Tensor::arange(0.0, 24.0, 1.0, DType::Float32, dev).unwrap().reshape(&[2, 3, 4]).unwrap();
        assert_eq!(values(&x.sum(&[], false).unwrap()), vec![276.]);
        let s1 = x.sum(&[1], false).unwrap();
        assert_eq!(s1.shape(), &[2, 4]);
        assert_eq!(values(&s1), vec![12., 15., 18., 21., 48., 51., 54., 57.]);
        let s02 = x.sum(&[0, -1], true).unwrap();
        assert_eq!(s02.shape(), &[1, 3, 1]);
        assert_eq!(values(&s02), vec![60., 92., 124.]);
        let m = x.permute(&[2, 0, 1]).unwrap().mean(&[0], false).unwrap();
        assert_eq!(values(&m), vec![1.5, 5.5, 9.5, 13.5, 17.5, 21.5]);
        let empty = Tensor::full(&[0, 3], 1.0, DType::Float32, dev).unwrap();
        assert_eq!(values(&empty.sum(&[0], false).unwrap()), vec![0., 0., 0.]);
        assert!(values(&empty.mean(&[], false).unwrap())[0].is_nan());
        let big = Tensor::full(&[1000, 300], 0.5, DType::Float32, dev).unwrap();
        assert_eq!(values(&big.sum(&[], false).unwrap()), vec![150000.]);
        // Long reductions into few outputs run in two passes; results are the same sums.
        let long = Tensor::arange(0.0, (1 << 18) as f64, 1.0, DType::Float32, dev)
            .unwrap()
            .binary_scalar(Op::Fmod, 7.0, false)
            .unwrap();
        assert_eq!(values(&long.sum(&[], false).unwrap()), vec![786_429.0]);
        assert_close(&values(&long.mean(&[], false).unwrap()), &[786_429.0 / 262_144.0], 1e-6, 0.0, "two-pass mean");
        let two = long.reshape(&[2, 1 << 17]).unwrap();
        assert_eq!(values(&two.sum(&[1], false).unwrap()), vec![393_210.0, 393_219.0]);
        let ints = Tensor::full(&[1 << 17], 3.0, DType::Int32, dev).unwrap();
        assert_eq!(values(&ints.sum(&[], false).unwrap()), vec![393_216.0]);
        assert_eq!(
            x.sum(&[3], false).unwrap_err().message,
            "Dimension out of range (expected to be in range of [-3, 2], but got 3)"
        );
        let ints = Tensor::arange(0.0, 5.0, 1.0, DType::Int64, dev).unwrap();
        assert_eq!(ints.mean(&[], false).unwrap_err().kind, ErrorKind::DType);
    }
}

#[test]
fn matmul_cases() {
    for dev in devices() {
        let a = t(&[1., 2., 3., 4., 5., 6.], &[2, 3], dev);
        let b = t(&[1., 0., 0., 1., 1., 1.], &[3, 2], dev);
        let c = a.matmul(&b).unwrap();
        assert_eq!((c.shape().to_vec(), values(&c)), (vec![2, 2], vec![4., 5., 10., 11.]));
        // Transposed operands are strided views, not copies.
        let ct = b.transpose(0, 1).unwrap().matmul(&a.transpose(0, 1).unwrap()).unwrap();
        assert_eq!(values(&ct), vec![4., 10., 5., 11.]);
        let v = t(&[1., 1., 1.], &[3], dev);
        assert_eq!(values(&a.matmul(&v).unwrap()), vec![6., 15.]);
        assert_eq!(values(&v.matmul(&v).unwrap()), vec![3.]);
        // Batched with a broadcast batch dim: [2,1,2,3] @ [4,3,2] -> [2,4,2,2].
        let x = Tensor::arange(0.0, 12.0, 1.0, DType::Float32, dev).unwrap().reshape(&[2, 1, 2, 3]).unwrap();
        let y = Tensor::arange(0.0, 24.0, 1.0, DType::Float32, dev).unwrap().reshape(&[4, 3, 2]).unwrap();
        let z = x.matmul(&y).unwrap();
        assert_eq!(z.shape(), &[2, 4, 2, 2]);
        let cpu = x.matmul(&y).unwrap();
        assert_eq!(values(&z), values(&cpu));
        assert_eq!(values(&z)[..4], [10., 13., 28., 40.]);
        // A size that spans several tiles, against a CPU reference.
        webtorch::random::manual_seed(3);
        let p = Tensor::randn(&[37, 53], DType::Float32, dev).unwrap();
        let q = Tensor::randn(&[53, 29], DType::Float32, dev).unwrap();
        let (pv, qv) = (values(&p), values(&q));
        let pc = Tensor::from_f64(&pv, &[37, 53], DType::Float32, Device::Cpu).unwrap();
        let qc = Tensor::from_f64(&qv, &[53, 29], DType::Float32, Device::Cpu).unwrap();
        assert_close(&values(&p.matmul(&q).unwrap()), &values(&pc.matmul(&qc).unwrap()), 1e-5, 1e-5, "37x53x29");
        let bad = a.matmul(&t(&[0.; 20], &[4, 5], dev)).unwrap_err();
        assert_eq!(
            (bad.kind, bad.message.as_str()),
            (ErrorKind::Shape, "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)")
        );
    }
}

#[test]
fn view_rules_match_pytorch() {
    let x = Tensor::arange(0.0, 6.0, 1.0, DType::Float32, Device::Cpu).unwrap().reshape(&[2, 3]).unwrap();
    let xt = x.transpose(0, 1).unwrap();
    let e = xt.view(&[6]).unwrap_err();
    assert!(e.message.starts_with("view size is not compatible with input tensor's size and stride"));
    let r = xt.reshape(&[6]).unwrap();
    assert!(!r.same_storage(&x), "reshape of a transposed tensor copies");
    assert_eq!(values(&r), vec![0., 3., 1., 4., 2., 5.]);
    let v = x.view(&[3, -1]).unwrap();
    assert!(v.same_storage(&x));
    assert_eq!(x.expand(&[2, 2, 3]).unwrap().layout.strides, vec![0, 3, 1]);
    let e = x.expand(&[2, 4]).unwrap_err();
    assert_eq!(e.message, "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [2, 3]");
}

#[test]
fn seeded_random_is_device_independent() {
    let devs = devices();
    let mut seen = vec![];
    for dev in &devs {
        webtorch::random::manual_seed(42);
        let r = Tensor::rand(&[5, 7], DType::Float32, *dev).unwrap();
        let n = Tensor::randn(&[9], DType::Float32, *dev).unwrap();
        seen.push((values(&r), values(&n)));
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]));
    assert!(seen[0].0.iter().all(|x| (0.0..1.0).contains(x)));
}

#[test]
fn batching_and_pool_counters() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let gpu = webtorch::engine::backend(Device::WebGpu).unwrap();
    // Count dispatches one per op: this test is about batching dispatches into submits, not
    // fusion, nor tiny ops sharing launches (`tiny_ops_share_launches` in tests/kernels.rs).
    webtorch::engine::tune(|t| t.fusion_enabled = false);
    webtorch::engine::tune(|t| t.batched_launches = Some(false));
    gpu.batching().unwrap().set_threshold(64);
    let mut x = Tensor::full(&[1024], 1.0, DType::Float32, Device::WebGpu).unwrap();
    gpu.flush();
    let before = gpu.stats();
    for _ in 0..200 {
        x = x.binary_scalar(Op::Add, 1.0, false).unwrap();
    }
    let mid = gpu.stats();
    assert_eq!(mid.dispatches - before.dispatches, 200);
    assert_eq!(mid.submits - before.submits, 200 / 64, "one submit per 64 dispatches");
    assert_eq!(values(&x)[0], 201.0);
    let after = gpu.stats();
    assert_eq!(after.submits - before.submits, 200usize.div_ceil(64) as u64);
    // Intermediate results went back to the pool: a few buffers serve all 200 ops.
    assert!(after.allocations - before.allocations < 10, "{:?}", after);
    assert!(after.reuses - before.reuses > 190, "{:?}", after);
    // ... and so do their bind groups (cached by the buffers they bind).
    assert!(after.bind_groups - before.bind_groups < 10, "{:?}", after);
    drop(x);
    assert_eq!(gpu.stats().live_buffers, before.live_buffers - 1);
    // Without batching, every op submits.
    gpu.batching().unwrap().set_threshold(1);
    let s0 = gpu.stats().submits;
    let y = Tensor::full(&[8], 1.0, DType::Float32, Device::WebGpu).unwrap();
    let _z = y.unary(Op::Exp).unwrap().unary(Op::Neg).unwrap();
    assert_eq!(gpu.stats().submits - s0, 3);
    gpu.batching().unwrap().set_threshold(64);
    webtorch::engine::tune(|t| t.batched_launches = None);
}

/// Bind groups bind a uniform slot each (no dynamic offsets): dispatches over the same buffers
/// with different parameters in one batch get slots of their own, the same parameters share one,
/// and a repeated loop creates no bind group the second time.
#[test]
fn uniform_slots_bind_groups_and_their_reuse() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let gpu = webtorch::engine::backend(Device::WebGpu).unwrap();
    webtorch::engine::tune(|t| t.fusion_enabled = false);
    webtorch::engine::tune(|t| t.batched_launches = Some(false));
    gpu.batching().unwrap().set_threshold(64);
    let a = Tensor::full(&[256], 1.0, DType::Float32, Device::WebGpu).unwrap();
    // x = x + k for k = 1..=150: a few pooled buffers, so the same buffers come back within a
    // batch with a different scalar each time.
    let chain = || {
        let mut x = a.clone();
        for k in 1..=150 {
            x = x.binary_scalar(Op::Add, k as f64, false).unwrap();
        }
        x
    };
    gpu.flush();
    let s0 = gpu.stats();
    let x = chain();
    assert_eq!(values(&x)[0], 1.0 + (150.0 * 151.0) / 2.0);
    drop(x);
    let s1 = gpu.stats();
    let first = s1.bind_groups - s0.bind_groups;
    assert!(first > 3 && first <= 150, "{first} bind groups for 150 dispatches");
    // The pool hands the loop's buffers out in its own order: a second run may meet a new pair.
    let x = chain();
    assert_eq!(values(&x)[0], 1.0 + (150.0 * 151.0) / 2.0);
    drop(x);
    let s1 = gpu.stats();
    let x = chain();
    assert_eq!(values(&x)[0], 1.0 + (150.0 * 151.0) / 2.0);
    drop(x);
    let s2 = gpu.stats();
    assert_eq!(s2.dispatches - s1.dispatches, 150);
    assert_eq!(s2.bind_groups - s1.bind_groups, 0, "a steady loop creates none ({first} the first time)");
    // The same scalar every time: dispatches over the same buffers share a slot.
    let mut x = a.clone();
    for _ in 0..100 {
        x = x.binary_scalar(Op::Add, 0.5, false).unwrap();
    }
    assert_eq!(values(&x)[0], 51.0);
    assert!(gpu.stats().bind_groups - s2.bind_groups < 10, "{:?}", gpu.stats());
    webtorch::engine::tune(|t| t.fusion_enabled = true);
    webtorch::engine::tune(|t| t.batched_launches = None);
}

/// Every op-table row compiles to WGSL and agrees with the CPU reference, for floats (over a
/// range that crosses each function's interesting points) and for integers where the row has them.
#[test]
fn every_table_row_matches_cpu() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let xs: Vec<f64> = (0..64).map(|i| -4.0 + i as f64 * 0.13).chain([0.0, -0.0, 0.5, 1.0, 2.0, 1e-3]).collect();
    let ys: Vec<f64> = xs.iter().map(|x| 1.7 - 0.9 * x).collect();
    let ints: Vec<f64> = (0..20).map(|i| (i as f64 - 9.0) * 3.0).collect();
    // No zero divisor: an integer division by a zero tensor raises (PyTorch's ZeroDivisionError).
    let int_ys: Vec<f64> = ints.iter().map(|x| (x % 7.0) - 3.0).map(|y| if y == 0.0 { 5.0 } else { y }).collect();
    let n = xs.len();
    for row in webtorch::ops::TABLE {
        for (dtype, a, b) in [(DType::Float32, &xs, &ys), (DType::Int32, &ints, &int_ys)] {
            let run = |dev: Device| -> webtorch::Result<Vec<f64>> {
                let ta = Tensor::from_f64(a, &[a.len()], dtype, dev)?;
                let out = if row.arity() == 1 {
                    ta.unary(row.op)?
                } else {
                    ta.binary(row.op, &Tensor::from_f64(b, &[b.len()], dtype, dev)?)?
                };
                Ok(values(&out))
            };
            match (run(Device::Cpu), run(Device::WebGpu)) {
                (Ok(c), Ok(g)) => assert_close(&g, &c, 2e-5, 2e-5, &format!("{} {}", row.name, dtype.name())),
                (Err(c), Err(g)) => assert_eq!(c, g, "{}: both backends refuse alike", row.name),
                (c, g) => panic!(
                    "{} {}: cpu {:?} vs gpu {:?}",
                    row.name,
                    dtype.name(),
                    c.map(|v| v.len()),
                    g.map(|v| v.len())
                ),
            }
        }
    }
    assert!(n > 60);
}

fn gpu_dispatches() -> u64 {
    webtorch::engine::backend(Device::WebGpu).unwrap().stats().dispatches
}

/// A six-op elementwise chain with broadcasting, a scalar and a cast is one kernel on the GPU,
/// bit-for-bit equal to the unfused result (CPU, and the GPU with fusion off).
#[test]
fn elementwise_chains_fuse_into_one_kernel() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    webtorch::random::manual_seed(11);
    let xv = values(&Tensor::randn(&[64, 64], DType::Float32, Device::Cpu).unwrap());
    let bv = values(&Tensor::randn(&[64], DType::Float32, Device::Cpu).unwrap());
    let program = |dev: Device| -> (Vec<f64>, u64, bool) {
        let x = Tensor::from_f64(&xv, &[64, 64], DType::Float32, dev).unwrap();
        let b = Tensor::from_f64(&bv, &[64], DType::Float32, dev).unwrap();
        let before = if dev == Device::WebGpu { gpu_dispatches() } else { 0 };
        let y = x
            .binary_scalar(Op::Mul, 1.5, false)
            .unwrap()
            .binary(Op::Add, &b)
            .unwrap()
            .unary(Op::Relu)
            .unwrap()
            .unary(Op::Exp)
            .unwrap()
            .binary_scalar(Op::Sub, 1.0, true)
            .unwrap()
            .to_dtype(DType::Int32)
            .unwrap();
        let pending = y.is_pending();
        let v = values(&y);
        let used = if dev == Device::WebGpu { gpu_dispatches() - before } else { 0 };
        (v, used, pending)
    };
    webtorch::engine::tune(|t| {
        t.fusion_enabled = true;
        t.fusion_min_size = 1024;
    });
    fusion::with_config(|c| c.stats = Default::default());
    let (fused, dispatches, pending) = program(Device::WebGpu);
    assert!(pending, "the chain stays an expression until read");
    assert_eq!(dispatches, 1, "6 ops, 1 kernel");
    let stats = fusion::with_config(|c| c.stats.clone());
    assert_eq!((stats.fusions, stats.fused_ops), (1, 6));
    assert_eq!(stats.patterns.get("add_relu"), Some(&1));
    assert_eq!(stats.patterns.get("scale_shift"), Some(&1));
    let (cpu, _, _) = program(Device::Cpu);
    webtorch::engine::tune(|t| t.fusion_enabled = false);
    let (unfused, n, _) = program(Device::WebGpu);
    webtorch::engine::tune(|t| t.fusion_enabled = true);
    assert_eq!(n, 6);
    assert_eq!(fused, unfused, "fused and unfused GPU results are identical");
    assert_eq!(fused, cpu);
    // Intermediates that are still alive (as in JS, until the GC runs) do not stop the fusion.
    let x = Tensor::from_f64(&xv, &[64, 64], DType::Float32, Device::WebGpu).unwrap();
    let a = x.binary_scalar(Op::Mul, 2.0, false).unwrap();
    let b = a.unary(Op::Relu).unwrap();
    let c = b.binary_scalar(Op::Add, 1.0, false).unwrap();
    let before = gpu_dispatches();
    values(&c);
    assert_eq!(gpu_dispatches() - before, 1, "one kernel although a and b are alive");
    assert!(a.is_pending() && b.is_pending());
    values(&a);
    assert_eq!(gpu_dispatches() - before, 2, "a read of an intermediate computes it then");
    // A flush computes the ends of chains (one kernel here), not the intermediates they absorbed.
    let p = x.binary_scalar(Op::Mul, 3.0, false).unwrap();
    let q = p.unary(Op::Exp).unwrap();
    let before = gpu_dispatches();
    webtorch::engine::flush_all().unwrap();
    assert_eq!(gpu_dispatches() - before, 1);
    assert!(!q.is_pending() && p.is_pending());
}

#[test]
fn fusion_window_min_size_and_limits() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    webtorch::engine::tune(|t| {
        t.fusion_enabled = true;
        t.fusion_window = 4;
        t.fusion_min_size = 1024;
    });
    let dev = Device::WebGpu;
    // Below min_size: every op runs at once (a bypass).
    let small = Tensor::full(&[16], 2.0, DType::Float32, dev).unwrap();
    let b0 = fusion::with_config(|c| c.stats.bypasses);
    let s2 = small.unary(Op::Exp).unwrap();
    assert!(!s2.is_pending());
    assert_eq!(fusion::with_config(|c| c.stats.bypasses) - b0, 1);
    // Inputs older than the window are computed before being used.
    let x = Tensor::full(&[2048], 1.0, DType::Float32, dev).unwrap();
    let old = x.unary(Op::Exp).unwrap();
    for _ in 0..5 {
        let _ = Tensor::full(&[2048], 0.0, DType::Float32, dev).unwrap();
    }
    let d0 = gpu_dispatches();
    let y = old.binary_scalar(Op::Add, 1.0, false).unwrap();
    assert!(!old.is_pending(), "outside the window: materialized");
    assert!(y.is_pending());
    assert_close(&values(&y)[..1], &[std::f64::consts::E + 1.0], 1e-6, 0.0, "window");
    assert!(gpu_dispatches() - d0 >= 2);
    // More distinct inputs than one kernel can bind: the fuser splits, results stay right.
    let ts: Vec<Tensor> = (0..10).map(|i| Tensor::full(&[2048], i as f64, DType::Float32, dev).unwrap()).collect();
    for t in &ts {
        t.materialize_for_test();
    }
    let mut acc = ts[0].clone();
    for t in &ts[1..] {
        acc = acc.binary(Op::Add, t).unwrap();
    }
    assert_eq!(values(&acc)[0], 45.0);
    // A view that is not the pending tensor's own layout is computed first, then read strided.
    let m = Tensor::full(&[32, 64], 3.0, DType::Float32, dev).unwrap().binary_scalar(Op::Mul, 2.0, false).unwrap();
    let mt = m.transpose(0, 1).unwrap().binary_scalar(Op::Add, 1.0, false).unwrap();
    assert_eq!(mt.shape(), &[64, 32]);
    assert!(values(&mt).iter().all(|v| *v == 7.0));
}

/// A lost device surfaces as a `DeviceError` on the next op and read (never a hang), and a new
/// device works again.
#[test]
fn device_loss_is_reported_and_recoverable() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let x = Tensor::full(&[4], 1.0, DType::Float32, Device::WebGpu).unwrap();
    let y = x.binary_scalar(Op::Add, 1.0, false).unwrap();
    webtorch::engine::backend(Device::WebGpu).unwrap().faults().unwrap().lose_device();
    let e = pollster::block_on(y.to_f64()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Device);
    assert!(e.message.starts_with("WebGPU device was lost"), "{}", e.message);
    assert_eq!(x.unary(Op::Exp).unwrap_err().kind, ErrorKind::Device);
    webtorch::engine::drop_gpu();
    assert!(webtorch::init_native_gpu());
    let z = Tensor::full(&[4], 2.0, DType::Float32, Device::WebGpu).unwrap().unary(Op::Square).unwrap();
    assert_eq!(values(&z), vec![4.0; 4]);
}

/// Short rows with many outputs take the one-invocation-per-output reduction kernel; it must
/// agree with the CPU for every reduction family.
#[test]
fn short_row_reductions_match_cpu() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    webtorch::random::manual_seed(5);
    let v = values(&Tensor::randn(&[2048, 4], DType::Float32, Device::Cpu).unwrap());
    let on = |dev| Tensor::from_f64(&v, &[2048, 4], DType::Float32, dev).unwrap();
    let (g, c) = (on(Device::WebGpu), on(Device::Cpu));
    type F = fn(&Tensor) -> webtorch::Result<Tensor>;
    let cases: [(&str, F); 6] = [
        ("sum", |t| t.sum(&[1], false)),
        ("mean", |t| t.mean(&[-1], true)),
        ("amax", |t| t.amax(&[1], false)),
        ("argmin", |t| t.argmin(Some(1), false)),
        ("var", |t| t.var(&[1], 1.0, false)),
        ("logsumexp", |t| t.logsumexp(&[1], false)),
    ];
    for (name, f) in cases {
        assert_close(&values(&f(&g).unwrap()), &values(&f(&c).unwrap()), 1e-5, 1e-5, name);
    }
    // Column sums of a transposed view: strided short rows.
    let t = g.transpose(0, 1).unwrap().sum(&[0], false).unwrap();
    assert_close(&values(&t), &values(&c.sum(&[1], false).unwrap()), 1e-5, 1e-5, "transposed");
}

/// An elementwise expression feeding a reduction is the reduction kernel's prologue: one
/// dispatch, bit-for-bit the GPU's unfused result (fusion off) and close to the CPU oracle, for
/// trailing and leading reduced dims, broadcast and transposed leaves, casts, two-pass ops and
/// the short-row kernel.
#[test]
fn elementwise_prologues_fuse_into_reductions() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    webtorch::random::manual_seed(17);
    let av = values(&Tensor::randn(&[64, 64], DType::Float32, Device::Cpu).unwrap());
    let bv = values(&Tensor::randn(&[64], DType::Float32, Device::Cpu).unwrap());
    let sv = values(&Tensor::randn(&[2048, 4], DType::Float32, Device::Cpu).unwrap());
    type F = fn(&Tensor, &Tensor, &Tensor) -> Tensor;
    let cases: [(&str, F); 9] = [
        ("mse", |a, b, _| a.binary(Op::Sub, b).unwrap().unary(Op::Square).unwrap().mean(&[], false).unwrap()),
        ("exp_sum_dim0", |a, _, _| a.unary(Op::Exp).unwrap().sum(&[0], false).unwrap()),
        ("transposed_leaf", |a, b, _| a.transpose(0, 1).unwrap().binary(Op::Mul, b).unwrap().sum(&[1], true).unwrap()),
        ("cast_int_sum", |a, _, _| {
            // (uint8: an int32 or int64 sum adds its int64 range check, tests/elementwise.rs.)
            a.binary_scalar(Op::Mul, 10.0, false).unwrap().to_dtype(DType::UInt8).unwrap().sum(&[1], false).unwrap()
        }),
        ("var", |a, b, _| a.binary(Op::Add, b).unwrap().unary(Op::Tanh).unwrap().var(&[1], 1.0, false).unwrap()),
        ("logsumexp", |a, _, _| a.binary_scalar(Op::Mul, 3.0, false).unwrap().logsumexp(&[0], false).unwrap()),
        ("amax", |a, b, _| a.binary(Op::Sub, b).unwrap().unary(Op::Abs).unwrap().amax(&[1], false).unwrap()),
        ("argmax", |a, b, _| a.binary(Op::Mul, b).unwrap().argmax(Some(0), false).unwrap()),
        ("short_rows", |_, _, s| s.unary(Op::Exp).unwrap().sum(&[1], false).unwrap()),
    ];
    let run = |dev: Device, f: F| -> (Vec<f64>, u64) {
        let a = Tensor::from_f64(&av, &[64, 64], DType::Float32, dev).unwrap();
        let b = Tensor::from_f64(&bv, &[64], DType::Float32, dev).unwrap();
        let s = Tensor::from_f64(&sv, &[2048, 4], DType::Float32, dev).unwrap();
        let before = if dev == Device::WebGpu { gpu_dispatches() } else { 0 };
        let r = f(&a, &b, &s);
        let v = values(&r);
        (v, if dev == Device::WebGpu { gpu_dispatches() - before } else { 0 })
    };
    webtorch::engine::tune(|t| {
        t.fusion_enabled = true;
        t.fusion_window = 4;
        t.fusion_min_size = 1024;
    });
    for (name, f) in cases {
        let f0 = fusion::with_config(|c| c.stats.fusions);
        let (fused, n) = run(Device::WebGpu, f);
        assert_eq!(n, 1, "{name}: expression and reduction in one dispatch");
        assert_eq!(fusion::with_config(|c| c.stats.fusions) - f0, 1, "{name}");
        webtorch::engine::tune(|t| t.fusion_enabled = false);
        let (unfused, n) = run(Device::WebGpu, f);
        webtorch::engine::tune(|t| t.fusion_enabled = true);
        assert!(n >= 2, "{name}: unfused, the expression is its own kernel");
        assert_eq!(fused, unfused, "{name}: fused and unfused GPU results are identical");
        let (cpu, _) = run(Device::Cpu, f);
        assert_close(&fused, &cpu, 1e-5, 1e-5, name);
    }
    // A long reduction into one output runs in two passes; the expression fuses into the first
    // (2 dispatches, not 3), or is computed first when a broadcast leaf breaks the reduced run.
    let n = 1 << 18;
    let xv = values(&Tensor::randn(&[n], DType::Float32, Device::Cpu).unwrap());
    let yv = values(&Tensor::randn(&[n], DType::Float32, Device::Cpu).unwrap());
    let mse = |dev: Device, broadcast: bool| -> (Vec<f64>, u64) {
        let x = Tensor::from_f64(&xv, &[256, 1024], DType::Float32, dev).unwrap();
        let y = if broadcast {
            Tensor::from_f64(&yv[..1024], &[1024], DType::Float32, dev).unwrap()
        } else {
            Tensor::from_f64(&yv, &[256, 1024], DType::Float32, dev).unwrap()
        };
        let before = if dev == Device::WebGpu { gpu_dispatches() } else { 0 };
        let v = values(&x.binary(Op::Sub, &y).unwrap().unary(Op::Square).unwrap().mean(&[], false).unwrap());
        (v, if dev == Device::WebGpu { gpu_dispatches() - before } else { 0 })
    };
    for broadcast in [false, true] {
        let (fused, n) = mse(Device::WebGpu, broadcast);
        assert_eq!(n, if broadcast { 3 } else { 2 }, "two-pass mse, broadcast {broadcast}");
        webtorch::engine::tune(|t| t.fusion_enabled = false);
        let (unfused, n) = mse(Device::WebGpu, broadcast);
        webtorch::engine::tune(|t| t.fusion_enabled = true);
        assert_eq!(n, 4, "sub, square and two passes");
        assert_eq!(fused, unfused, "two-pass mse, broadcast {broadcast}");
        assert_close(&fused, &mse(Device::Cpu, broadcast).0, 1e-5, 0.0, "two-pass mse");
    }
    // The squared-difference pattern is counted inside the fused reduction.
    let p0 = fusion::with_config(|c| c.stats.patterns.get("squared_diff").copied().unwrap_or(0));
    run(Device::WebGpu, cases[0].1);
    assert_eq!(fusion::with_config(|c| c.stats.patterns.get("squared_diff").copied()), Some(p0 + 1));
    // The reduced expression stays uncomputed (a flush skips it); reading it computes it.
    let a = Tensor::from_f64(&av, &[64, 64], DType::Float32, Device::WebGpu).unwrap();
    let e = a.unary(Op::Exp).unwrap();
    let total = e.sum(&[], false).unwrap();
    webtorch::engine::flush_all().unwrap();
    assert!(e.is_pending());
    let ev = values(&e);
    assert_close(&[ev.iter().map(|x| *x as f32 as f64).sum::<f64>()], &values(&total), 1e-5, 0.0, "sum of exp");
}

#[test]
fn a_cpu_copy_returned_before_its_read_records_work_until_the_words_arrive() {
    use std::future::Future;
    use std::task::{Context, Waker};
    for dev in devices() {
        let src = t(&[1., -2., 3., 4.], &[2, 2], dev);
        let index = Tensor::from_f64(&[1., 0.], &[2], DType::Int64, Device::Cpu).unwrap();
        let (copy, fill) = src.to_cpu_later().unwrap();
        assert_eq!((copy.device(), copy.shape()), (Device::Cpu, &[2, 2][..]));
        // Work on the copy (and the CPU's other work) is recorded, not run on undefined words.
        let doubled = copy.binary_scalar(Op::Mul, 2.0, false).unwrap();
        let picked = doubled.index_select(0, &index).unwrap();
        let total = picked.sum(&[], false).unwrap();
        drop(doubled);
        let mut read = Box::pin(picked.read_words());
        let mut cx = Context::from_waker(Waker::noop());
        assert!(read.as_mut().poll(&mut cx).is_pending(), "a read waits for the words ({dev:?})");
        // An index checked on the host cannot be checked yet: the check runs with the work,
        // its failure raised by the next read.
        let bad = Tensor::from_f64(&[5.], &[1], DType::Int64, Device::Cpu).unwrap();
        let out_of_range = copy.index_select(0, &bad).unwrap();
        pollster::block_on(fill);
        // As a device-side check's failure, it is raised by the next read: the waiting one.
        let err = pollster::block_on(read).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Index, "{dev:?}: {err}");
        drop(out_of_range);
        assert_eq!(values(&picked), vec![6., 8., 2., -4.], "{dev:?}");
        assert_eq!(values(&total), vec![12.], "{dev:?}");
        // A draw from pending rates checks them when they arrive, as PyTorch's CPU check does.
        let rates = t(&[1., -1.], &[2], dev);
        let (pending_rates, fill) = rates.to_cpu_later().unwrap();
        let drawn = pending_rates.poisson().unwrap();
        pollster::block_on(fill);
        let err = pollster::block_on(drawn.read_words()).unwrap_err();
        assert!(err.to_string().contains("invalid Poisson rate"), "{dev:?}: {err}");
        // Reported once; the engine goes on eagerly.
        assert_eq!(values(&copy.binary_scalar(Op::Add, 1.0, false).unwrap()), vec![2., -1., 4., 5.]);
    }
}

#[test]
fn rand_and_randn_make_the_dtype_asked_for() {
    for dev in devices() {
        for dtype in [DType::Float16, DType::BFloat16] {
            for t in [Tensor::rand(&[64], dtype, dev).unwrap(), Tensor::randn(&[64], dtype, dev).unwrap()] {
                assert_eq!(t.dtype, dtype, "{dev:?}");
                // Every value is one of the dtype's (the float32 draw rounded to it).
                for v in values(&t) {
                    assert_eq!(dtype.round_f32(v as f32) as f64, v, "{dev:?} {dtype:?}");
                }
            }
        }
    }
}
