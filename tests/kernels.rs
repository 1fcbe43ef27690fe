#![cfg(not(target_arch = "wasm32"))]
//! The hand-written kernel families at sizes the parity fixtures do not reach (2-D dispatch
//! grids, rows far wider than a workgroup) and their interplay with fusion: the GPU against the
//! CPU reference backend.

mod common;

use common::{assert_close, devices, values};
use webtorch::tensor::{fusion, TensorOrScalar};
use webtorch::{DType, Device, Op, Tensor};

fn randn(shape: &[usize], seed: u64) -> Vec<f64> {
    webtorch::random::manual_seed(seed);
    values(&Tensor::randn(shape, DType::Float32, Device::Cpu).unwrap())
}

fn on(dev: Device, data: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_f64(data, shape, DType::Float32, dev).unwrap()
}

/// Every device's result of `f`, checked against the CPU's.
fn same_on_every_device(what: &str, rtol: f64, f: impl Fn(Device) -> Tensor) {
    let want = values(&f(Device::Cpu));
    for dev in devices() {
        assert_close(&values(&f(dev)), &want, rtol, 1e-6, &format!("{what} on {dev:?}"));
    }
}

/// More outputs than one dispatch dimension holds (65 535 workgroups): the 2-D grid.
#[test]
fn reductions_over_a_two_dimensional_grid() {
    let x = randn(&[70_000, 3], 1);
    same_on_every_device("amax", 0.0, |d| on(d, &x, &[70_000, 3]).amax(&[1], false).unwrap());
    same_on_every_device("argmin", 0.0, |d| on(d, &x, &[70_000, 3]).argmin(Some(1), false).unwrap());
    same_on_every_device("var", 1e-5, |d| on(d, &x, &[70_000, 3]).var(&[1], 1.0, false).unwrap());
}

/// Rows much wider than a 256-invocation workgroup.
#[test]
fn wide_rows() {
    let x = randn(&[3, 5000], 2);
    same_on_every_device("logsumexp", 1e-5, |d| on(d, &x, &[3, 5000]).logsumexp(&[1], true).unwrap());
    same_on_every_device("softmax", 1e-5, |d| on(d, &x, &[3, 5000]).softmax(1).unwrap());
    same_on_every_device("layer_norm", 1e-4, |d| on(d, &x, &[3, 5000]).layer_norm(&[5000], None, None, 1e-5).unwrap());
    same_on_every_device("norm", 1e-5, |d| on(d, &x, &[3, 5000]).norm(2.0, &[], false).unwrap());
}

/// `where` is an elementwise node: with its neighbours it is one GPU kernel.
#[test]
fn where_fuses_with_its_neighbours() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let (xv, yv) = (randn(&[64, 64], 3), randn(&[64, 64], 4));
    let run = |dev: Device| {
        let (x, y) = (on(dev, &xv, &[64, 64]), on(dev, &yv, &[64, 64]));
        let mask = x.binary(Op::Gt, &y).unwrap();
        let doubled = x.binary_scalar(Op::Mul, 2.0, false).unwrap();
        let picked = Tensor::where_(&mask, TensorOrScalar::Tensor(&doubled), TensorOrScalar::Tensor(&y)).unwrap();
        picked.unary(Op::Exp).unwrap()
    };
    fusion::with_config(|c| {
        c.enabled = true;
        c.min_size = 1024;
        c.stats = Default::default();
    });
    let gpu = webtorch::engine::backend(Device::WebGpu).unwrap();
    let before = gpu.stats().dispatches;
    let out = run(Device::WebGpu);
    assert!(out.is_pending());
    let got = values(&out);
    assert_eq!(gpu.stats().dispatches - before, 1, "gt, mul, where, exp: one kernel");
    assert_close(&got, &values(&run(Device::Cpu)), 1e-6, 0.0, "where chain");
}

/// `cat` copies pending (fused) inputs and views into slices of one output.
#[test]
fn cat_of_pending_and_strided_inputs() {
    let x = randn(&[40, 50], 5);
    same_on_every_device("cat", 0.0, |d| {
        let a = on(d, &x, &[40, 50]);
        let b = a.binary_scalar(Op::Add, 1.0, false).unwrap();
        let t = a.transpose(0, 1).unwrap().reshape(&[40, 50]).unwrap();
        Tensor::cat(&[&b, &a.transpose(0, 1).unwrap().contiguous().unwrap().reshape(&[40, 50]).unwrap(), &t], 0)
            .unwrap()
    });
}

/// Contiguous rows take the register-held row kernels (`rows.rs`): vec4 and scalar, one to 256
/// invocations per row, several rows per workgroup; views whose rows are not dense and rows
/// longer than 8,192 values keep the general kernel. Every case against the CPU.
#[test]
fn row_kernels_against_the_cpu() {
    let shapes: [&[usize]; 8] =
        [&[37, 768], &[5, 4096], &[300, 7], &[9, 10], &[2, 3, 64], &[4, 1], &[3, 5000], &[2, 9000]];
    for (s, shape) in shapes.into_iter().enumerate() {
        let n = *shape.last().unwrap();
        let x = randn(shape, 40 + s as u64);
        // Affine parameters near (1, 0), as trained ones are (no cancellation to test).
        let w: Vec<f64> = randn(&[n], 60 + s as u64).iter().map(|t| 1.0 + 0.1 * t).collect();
        let b: Vec<f64> = randn(&[n], 80 + s as u64).iter().map(|t| 0.1 * t).collect();
        let what = |op: &str| format!("{op} {shape:?}");
        same_on_every_device(&what("softmax"), 1e-5, |d| on(d, &x, shape).softmax(-1).unwrap());
        same_on_every_device(&what("log_softmax"), 1e-5, |d| on(d, &x, shape).log_softmax(-1).unwrap());
        same_on_every_device(&what("layer_norm"), 1e-4, |d| {
            let (wt, bt) = (on(d, &w, &[n]), on(d, &b, &[n]));
            on(d, &x, shape).layer_norm(&[n], Some(&wt), Some(&bt), 1e-5).unwrap()
        });
        same_on_every_device(&what("layer_norm (no affine)"), 1e-4, |d| {
            on(d, &x, shape).layer_norm(&[n], None, None, 1e-5).unwrap()
        });
        same_on_every_device(&what("rms_norm"), 1e-4, |d| {
            on(d, &x, shape).rms_norm(&[n], Some(&on(d, &w, &[n])), Some(1e-6)).unwrap()
        });
        same_on_every_device(&what("sum"), 1e-4, |d| on(d, &x, shape).sum(&[-1], false).unwrap());
        same_on_every_device(&what("mean"), 1e-4, |d| on(d, &x, shape).mean(&[-1], true).unwrap());
    }
    // Offset rows (a narrowed view: rows of 768 at stride 769) and a transposed view.
    let x = randn(&[10, 769], 99);
    same_on_every_device("softmax of a narrowed view", 1e-5, |d| {
        on(d, &x, &[10, 769]).narrow(1, 1, 768).unwrap().softmax(-1).unwrap()
    });
    same_on_every_device("sum of a narrowed view", 1e-5, |d| {
        on(d, &x, &[10, 769]).narrow(1, 1, 768).unwrap().sum(&[-1], false).unwrap()
    });
    same_on_every_device("layer_norm of a transposed view", 1e-4, |d| {
        on(d, &x, &[10, 769]).transpose(0, 1).unwrap().layer_norm(&[10], None, None, 1e-5).unwrap()
    });
    same_on_every_device("sum of everything", 1e-5, |d| {
        on(d, &randn(&[1 << 17], 7), &[1 << 17]).sum(&[], false).unwrap()
    });
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    // Which kernels ran: the planned ones for dense rows, the general one past 8,192 values.
    let labels = webtorch::engine::backend(Device::WebGpu).unwrap().kernel_labels();
    for want in [
        "webtorch:softmax:rows32x6v4:float32",
        "webtorch:layernorm:rows128x8v4:float32",
        "webtorch:rmsnorm:rows1x7:float32",
        "webtorch:logsoftmax:rows256x5v4:float32",
        "webtorch:softmax:rows128x6:float32",
        "webtorch:sum:rows256x0:float32",
        "webtorch:mean:rows256x0:float32",
        "webtorch:layernorm:float32",
    ] {
        assert!(labels.iter().any(|l| l == want), "{want} not among {labels:?}");
    }
}

/// Attention's P·V shape (a batch of tall products with 64 columns): more outputs than the
/// launch-bound 16×16 kernel suits once the batch counts, too few 128×64 tiles to fill the GPU,
/// so the 64×64 register-tiled kernel; checked against the CPU.
#[test]
fn batched_narrow_matmul_takes_the_64_tile() {
    let (p, v) = (randn(&[12, 256, 256], 110), randn(&[12, 256, 64], 111));
    same_on_every_device("p@v", 1e-5, |d| on(d, &p, &[12, 256, 256]).matmul(&on(d, &v, &[12, 256, 64])).unwrap());
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let labels = webtorch::engine::backend(Device::WebGpu).unwrap().kernel_labels();
    assert!(labels.iter().any(|l| l.starts_with("webtorch:matmul:t64")), "no t64 matmul among {labels:?}");
}

/// Attention's causal softmax (one kernel, no mask tensor) against the softmax of the scores with
/// `-inf` after the diagonal, and the one-kernel softmax/log_softmax backward rules against their
/// compositions, on every device: planned rows (vec4 and scalar), a strided view (general kernel)
/// and rows past 8,192 values; L < S and L > S for the causal rule.
#[test]
fn causal_softmax_and_the_softmax_backward_kernels() {
    let shapes: [&[usize]; 6] = [&[2, 3, 64, 64], &[5, 7], &[3, 9, 12], &[2, 12, 9], &[1, 4, 9000], &[16, 1]];
    for (s, shape) in shapes.into_iter().enumerate() {
        let n = shape.len();
        let (l, cols) = (shape[n - 2], shape[n - 1]);
        let (x, g) = (randn(shape, 200 + s as u64), randn(shape, 300 + s as u64));
        let what = |op: &str| format!("{op} {shape:?}");
        let composed_causal = |d: Device| {
            let rows = Tensor::arange(0.0, l as f64, 1.0, DType::Int32, d).unwrap().reshape(&[l as i64, 1]).unwrap();
            let after = Tensor::arange(0.0, cols as f64, 1.0, DType::Int32, d).unwrap().binary(Op::Gt, &rows).unwrap();
            let minf = TensorOrScalar::Scalar(f64::NEG_INFINITY, webtorch::dtype::ScalarKind::Float);
            Tensor::where_(&after, minf, TensorOrScalar::Tensor(&on(d, &x, shape))).unwrap().softmax(-1).unwrap()
        };
        for dev in devices() {
            let got = values(&on(dev, &x, shape).causal_softmax().unwrap());
            assert_close(&got, &values(&composed_causal(dev)), 1e-5, 1e-7, &format!("{} on {dev:?}", what("causal")));
            let y = on(dev, &x, shape).softmax(-1).unwrap();
            let gt = on(dev, &g, shape);
            let dot = gt.binary(Op::Mul, &y).unwrap().sum(&[-1], true).unwrap();
            let want = y.binary(Op::Mul, &gt.binary(Op::Sub, &dot).unwrap()).unwrap();
            let got = y.softmax_backward(&gt, -1, false).unwrap();
            assert_close(&values(&got), &values(&want), 1e-4, 1e-6, &format!("{} on {dev:?}", what("softmax bwd")));
            let ly = on(dev, &x, shape).log_softmax(-1).unwrap();
            let want = gt
                .binary(Op::Sub, &ly.unary(Op::Exp).unwrap().binary(Op::Mul, &gt.sum(&[-1], true).unwrap()).unwrap())
                .unwrap();
            let got = ly.softmax_backward(&gt, -1, true).unwrap();
            assert_close(&values(&got), &values(&want), 1e-4, 1e-5, &format!("{} on {dev:?}", what("log_softmax bwd")));
        }
        same_on_every_device(&what("causal"), 1e-5, |d| on(d, &x, shape).causal_softmax().unwrap());
    }
    // A transposed view (the general kernel) and the backward along a middle dim.
    let x = randn(&[24, 10], 400);
    same_on_every_device("causal softmax of a transposed view", 1e-5, |d| {
        on(d, &x, &[24, 10]).transpose(0, 1).unwrap().causal_softmax().unwrap()
    });
    same_on_every_device("softmax backward along dim 0", 1e-5, |d| {
        let y = on(d, &x, &[24, 10]).softmax(0).unwrap();
        y.softmax_backward(&on(d, &randn(&[24, 10], 401), &[24, 10]), 0, false).unwrap()
    });
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let labels = webtorch::engine::backend(Device::WebGpu).unwrap().kernel_labels();
    for want in [
        "webtorch:causalsoftmax:rows2x8v4:float32",
        "webtorch:causalsoftmax:rows1x7:float32",
        "webtorch:softmaxbackward:rows2x8v4:float32",
        "webtorch:logsoftmaxbackward:rows1x7:float32",
        "webtorch:causalsoftmax:float32",
        "webtorch:softmaxbackward:float32",
    ] {
        assert!(labels.iter().any(|l| l == want), "{want} not among {labels:?}");
    }
}
