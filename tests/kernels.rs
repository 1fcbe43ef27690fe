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
    same_on_every_device_within(what, rtol, 1e-6, f)
}

/// `same_on_every_device` with an absolute tolerance of its own.
fn same_on_every_device_within(what: &str, rtol: f64, atol: f64, f: impl Fn(Device) -> Tensor) {
    let want = values(&f(Device::Cpu));
    for dev in devices() {
        assert_close(&values(&f(dev)), &want, rtol, atol, &format!("{what} on {dev:?}"));
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
    webtorch::engine::tune(|t| {
        t.fusion_enabled = true;
        t.fusion_min_size = 1024;
    });
    fusion::with_config(|c| c.stats = Default::default());
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
    // Long rows into one output split across workgroups in the backend (reduce_launch.rs
    // `row_chunk`): var's three phases, and a sum whose length the tensor layer's split does not
    // divide.
    same_on_every_device("var of everything", 1e-5, |d| {
        on(d, &randn(&[1 << 17], 8), &[1 << 17]).var(&[], 1.0, false).unwrap()
    });
    same_on_every_device("sum of 100,003 values", 1e-5, |d| {
        on(d, &randn(&[100_003], 9), &[100_003]).sum(&[], false).unwrap()
    });
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    // Which kernels ran: the planned ones for dense rows, the general one past 8,192 values, the
    // split one for a long row.
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
        "webtorch:var:chunks:float32",
        "webtorch:var:final:float32",
        "webtorch:sum:chunks:float32",
        "webtorch:sum:final:float32",
    ] {
        assert!(labels.iter().any(|l| l == want), "{want} not among {labels:?}");
    }
}

/// Attention's P·V shape (a batch of tall products with 64 columns): more outputs than the
/// launch-bound 16×16 kernel suits once the batch counts, too few 128×64 tiles to fill the GPU,
/// so the 64×64 register-tiled kernel; checked against the CPU.
/// Sums down the columns of a matrix (a bias gradient over tokens) run as chunks of 16 rows, then
/// the chunks' sum, a workgroup per column: 2 dispatches for 4,096 and 8,192 rows, 1 for 100
/// rows (not a multiple of 16: a workgroup per column); with a fused product in front
/// (`(a·b).sum(0)`), and a broadcast leaf.
#[test]
fn column_sums_run_in_chunks() {
    let gpu = devices().contains(&Device::WebGpu).then(|| webtorch::engine::backend(Device::WebGpu).unwrap());
    for (rows, cols, kernels) in [(4096usize, 96usize, 2u64), (8192, 70, 2), (100, 96, 1)] {
        let a = randn(&[rows, cols], 31);
        let b = randn(&[rows, cols], 32);
        let w = randn(&[cols], 33);
        let what = format!("{rows}×{cols}");
        // Sums of up to 8,192 N(0, 1) values (~90 in size) in float32, in different orders: the
        // CPU's sequential sum is itself ~1e-4 off, so cancelled (near-zero) sums differ by that.
        let check = |name: &str, f: &dyn Fn(Device) -> Tensor| {
            same_on_every_device_within(&format!("{name} {what}"), 1e-4, 2e-3, f)
        };
        check("sum(0)", &|d| on(d, &a, &[rows, cols]).sum(&[0], false).unwrap());
        check("(a·b).sum(0)", &|d| {
            on(d, &a, &[rows, cols]).binary(Op::Mul, &on(d, &b, &[rows, cols])).unwrap().sum(&[0], false).unwrap()
        });
        check("(a·w).sum(0)", &|d| {
            on(d, &a, &[rows, cols]).binary(Op::Mul, &on(d, &w, &[cols])).unwrap().sum(&[0], false).unwrap()
        });
        if let Some(gpu) = &gpu {
            let x = on(Device::WebGpu, &a, &[rows, cols]);
            gpu.flush();
            let before = gpu.stats().dispatches;
            let s = x.sum(&[0], false).unwrap();
            let _ = values(&s);
            assert_eq!(gpu.stats().dispatches - before, kernels, "{what}: dispatches");
        }
    }
}

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

/// A product with N ≤ 64 and many tiles (conv2d's columnsᵀ · weightᵀ) takes 128×64 tiles, not
/// 128×128 ones half of which would idle.
#[test]
fn many_narrow_tiles_take_128x64() {
    let (a, w) = (randn(&[64, 512, 64], 112), randn(&[64, 64], 113));
    same_on_every_device("a@w", 1e-5, |d| on(d, &a, &[64, 512, 64]).matmul(&on(d, &w, &[64, 64])).unwrap());
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let labels = webtorch::engine::backend(Device::WebGpu).unwrap().kernel_labels();
    assert!(labels.iter().any(|l| l.starts_with("webtorch:matmul:t128x64k16p")), "no 128×64 tile among {labels:?}");
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

/// The triangular products of causal attention (`Tri`) against full products: `LowerOut` equal
/// on and below the diagonal (0 or the product above it), `LowerA` / `LowerAT` equal everywhere
/// for operands that are 0 where they say; then the causal attention node, forward and
/// backward, against the composition of full products, the masked softmax and its rule.
#[test]
fn causal_attention_skips_what_causality_zeroes() {
    use webtorch::backend::Tri;
    let (b, l, e) = (3, 256, 64);
    let (qd, kd, vd, gd) =
        (randn(&[b, l, e], 500), randn(&[b, l, e], 501), randn(&[b, l, e], 502), randn(&[b, l, e], 503));
    for dev in devices() {
        let (q, k, v) = (on(dev, &qd, &[b, l, e]), on(dev, &kd, &[b, l, e]), on(dev, &vd, &[b, l, e]));
        let kt = k.transpose(-2, -1).unwrap();
        let full = values(&q.matmul(&kt).unwrap());
        let tri = values(&q.matmul_tri(&kt, Tri::LowerOut).unwrap());
        for (i, (t, f)) in tri.iter().zip(&full).enumerate() {
            let (r, c) = ((i / l) % l, i % l);
            let ok = if c <= r { (t - f).abs() <= 1e-4 * (1.0 + f.abs()) } else { *t == 0.0 || t == f };
            assert!(ok, "LowerOut on {dev:?} at ({r}, {c}): {t} vs {f}");
        }
        let p = q.matmul(&kt).unwrap().causal_softmax().unwrap();
        let want = values(&p.matmul(&v).unwrap());
        assert_close(
            &values(&p.matmul_tri(&v, Tri::LowerA).unwrap()),
            &want,
            1e-5,
            1e-6,
            &format!("LowerA on {dev:?}"),
        );
        let pt = p.transpose(-2, -1).unwrap();
        let want = values(&pt.matmul(&v).unwrap());
        assert_close(
            &values(&pt.matmul_tri(&v, Tri::LowerAT).unwrap()),
            &want,
            1e-5,
            1e-6,
            &format!("LowerAT on {dev:?}"),
        );

        if dev == Device::WebGpu {
            // The tiled kernels did skip: a tile above the diagonal stored zeros, and with a dense
            // `a` (not what the modes promise) the first rows of `LowerA` and the last rows of
            // `LowerAT` miss the terms outside their K range while the others are whole.
            assert_eq!(tri[l - 1], 0.0, "LowerOut stored the product above the diagonal");
            // (Six batches: enough outputs for the tiled kernel.)
            let x = on(dev, &randn(&[6, l, l], 504), &[6, l, l]);
            let w = on(dev, &randn(&[6, l, e], 505), &[6, l, e]);
            let (full, a, at) = (
                values(&x.matmul(&w).unwrap()),
                values(&x.matmul_tri(&w, Tri::LowerA).unwrap()),
                values(&x.matmul_tri(&w, Tri::LowerAT).unwrap()),
            );
            let row = |t: &[f64], r: usize| t[r * e..(r + 1) * e].to_vec();
            assert_ne!(row(&a, 0), row(&full, 0), "LowerA summed past the tile's rows");
            assert_close(&row(&a, l - 1), &row(&full, l - 1), 1e-5, 1e-5, "LowerA's last row");
            assert_ne!(row(&at, l - 1), row(&full, l - 1), "LowerAT summed before the tile's rows");
            assert_close(&row(&at, 0), &row(&full, 0), 1e-5, 1e-5, "LowerAT's first row");
        }
        // The node against the composition with a mask, forward and every gradient.
        let scale = 0.125;
        let run = |fused: bool| -> Vec<Vec<f64>> {
            let leaf = |d: &[f64]| {
                let mut t = on(dev, d, &[b, l, e]);
                t.set_requires_grad(true).unwrap();
                t
            };
            let (q, k, v) = (leaf(&qd), leaf(&kd), leaf(&vd));
            let y = if fused {
                webtorch::autograd::attention::causal_attention(&q, &k, &v, scale).unwrap()
            } else {
                use webtorch::autograd::{kernels as agk, ops as o};
                let s = o::matmul(&o::scale(&q, scale).unwrap(), &o::transpose(&k, -2, -1).unwrap()).unwrap();
                o::matmul(&agk::causal_softmax(&s).unwrap(), &v).unwrap()
            };
            let g = on(dev, &gd, &[b, l, e]);
            webtorch::autograd::backward(&y, Some(g), false, false).unwrap();
            vec![values(&y), values(&q.grad().unwrap()), values(&k.grad().unwrap()), values(&v.grad().unwrap())]
        };
        let (fused, plain) = (run(true), run(false));
        for (i, what) in ["out", "dq", "dk", "dv"].iter().enumerate() {
            assert_close(&fused[i], &plain[i], 1e-4, 1e-5, &format!("causal attention {what} on {dev:?}"));
        }
    }
}

/// Attention in one kernel (no input needs a gradient): causal and not, sequence lengths that
/// are not multiples of the kernel's 64-row workgroups or its 16/32-key chunks, keys fewer than
/// queries (causal rows past the last key see every key), head dims 4…128 with `Ev ≠ E`, large
/// scores (the online softmax's rescaling), 2-D, 3-D and 5-D inputs, and `(B, L, H, E)`
/// projections viewed as `(B, H, L, E)` read through their strides without a copy — each against
/// the CPU's products and softmax, one dispatch each on WebGPU. Head dims the kernel declines
/// (not a multiple of 4; wider than 64 unless forced) and inputs that need gradients take the
/// products (and stay right).
#[test]
fn attention_in_one_kernel_matches_the_composition() {
    use webtorch::autograd::attention::attention;
    // (q shape, keys S, Ev, causal, scale, transposed view)
    type Case = (&'static [usize], usize, usize, bool, f64, bool);
    let cases: [Case; 11] = [
        (&[2, 3, 37, 16], 45, 8, false, 0.25, false),
        (&[1, 2, 130, 64], 130, 64, true, 0.125, false),
        (&[2, 70, 128], 50, 96, true, 0.09, false),
        (&[2, 70, 32], 50, 32, false, 0.2, false),
        (&[2, 4, 65, 32], 65, 32, true, 0.18, true),
        (&[33, 8], 97, 4, false, 3.0, false),
        (&[2, 1, 2, 20, 12], 20, 12, true, 0.3, false),
        (&[1, 2, 40, 64], 100, 64, false, 1.5, false),
        // Tiled where E is a multiple of 16 and Ev 64 or 128 (with the default tile).
        (&[1, 3, 100, 128], 77, 128, true, 0.1, false),
        (&[2, 2, 64, 32], 64, 128, false, 0.2, false),
        // E = 6: no kernel, the products run.
        (&[2, 9, 6], 11, 6, true, 0.4, false),
    ];
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let be = webtorch::engine::backend(Device::WebGpu).unwrap();
    // The tile rule, then 128 rows per workgroup with 16-key chunks, then 32 rows with 32-key
    // chunks (shortened where the staged keys would pass the workgroup memory limit); then the
    // rule again with heads wider than 64 taking the one-row kernel where the tiled one does not
    // (they do only where the products' scores would not fit one binding, far from these sizes).
    let tiles = [(0, 0, false), (128, 16, false), (32, 32, false), (0, 0, true)];
    for (tile, &(qs, s, ev, causal, scale, view)) in tiles.iter().flat_map(|t| cases.iter().map(move |c| (*t, c))) {
        webtorch::engine::tune(|t| t.attention_tile = (tile.0, tile.1));
        webtorch::engine::tune(|t| t.attention_wide = tile.2);
        let i = cases.iter().position(|c| c.0 == qs && c.1 == s).unwrap();
        let n = qs.len();
        let e = qs[n - 1];
        let mut ks = qs.to_vec();
        ks[n - 2] = s;
        let mut vs = ks.clone();
        vs[n - 1] = ev;
        let seed = 900 + 10 * i as u64;
        // A transposed view: made as (B, L, H, E), read as (B, H, L, E).
        let make = |d: Device, shape: &[usize], seed: u64| {
            if view {
                let sw = [shape[0], shape[2], shape[1], shape[3]];
                on(d, &randn(&sw, seed), &sw).transpose(1, 2).unwrap()
            } else {
                on(d, &randn(shape, seed), shape)
            }
        };
        let run = |d: Device| {
            let (q, k, v) = (make(d, qs, seed), make(d, &ks, seed + 1), make(d, &vs, seed + 2));
            for t in [&q, &k, &v] {
                t.materialize_for_test();
            }
            attention(&q, &k, &v, scale, causal, None).unwrap()
        };
        let want = values(&run(Device::Cpu));
        pollster::block_on(be.sync()).unwrap();
        let before = be.stats();
        let y = run(Device::WebGpu);
        let got = values(&y);
        let after = be.stats();
        assert_eq!(y.shape(), &[&qs[..n - 1], &[ev]].concat()[..], "case {i}: output shape");
        // Scores reach ~40 (case 7): their rounding moves outputs by ~1e-5 whatever the order.
        assert_close(&got, &want, 1e-4, 5e-5, &format!("attention case {i}, tile {tile:?}"));
        let tiled = tile.0 == 0 && e % 16 == 0 && (ev == 64 || ev == 128);
        let fused = e % 4 == 0 && (tiled || e.max(ev) <= 64 || tile.2);
        if fused {
            let label = format!("webtorch:attention:e{e}v{ev}{}", if tiled { "t:" } else { "r" });
            let labels = be.kernel_labels();
            assert!(labels.iter().any(|x| x.starts_with(&label)), "case {i}: no {label} among {labels:?}");
            assert_eq!(after.dispatches - before.dispatches, 1, "case {i}: one dispatch");
        } else {
            assert!(after.dispatches - before.dispatches >= 3, "case {i}: the products and softmax");
        }
    }
    webtorch::engine::tune(|t| t.attention_tile = (0, 0));
    webtorch::engine::tune(|t| t.attention_wide = false);
    // With inputs that need gradients the forward is the same kernel and the backward
    // recomputes P: its outputs and gradients against the composition's (products, softmax).
    for (causal, e) in [(false, 16), (true, 16), (false, 64), (true, 64)] {
        let (b, l) = (2, 40);
        let grads = |d: Device, node: bool| -> Vec<Vec<f64>> {
            let leaf = |seed: u64| {
                let mut t = on(d, &randn(&[b, l, e], seed), &[b, l, e]);
                t.set_requires_grad(true).unwrap();
                t
            };
            let (q, k, v) = (leaf(950), leaf(951), leaf(952));
            let y = if node {
                let be = webtorch::engine::backend(d).unwrap();
                let before = be.stats().dispatches;
                let y = attention(&q, &k, &v, 0.3, causal, None).unwrap();
                if d == Device::WebGpu {
                    assert_eq!(be.stats().dispatches - before, 1, "e {e}: the forward is one kernel");
                }
                y
            } else {
                use webtorch::autograd::{kernels as agk, ops as o};
                let s = o::matmul(&o::scale(&q, 0.3).unwrap(), &o::transpose(&k, -2, -1).unwrap()).unwrap();
                let p = if causal { agk::causal_softmax(&s).unwrap() } else { agk::softmax(&s, -1).unwrap() };
                o::matmul(&p, &v).unwrap()
            };
            let g = on(d, &randn(&[b, l, e], 953), &[b, l, e]);
            webtorch::autograd::backward(&y, Some(g), false, false).unwrap();
            vec![values(&y), values(&q.grad().unwrap()), values(&k.grad().unwrap()), values(&v.grad().unwrap())]
        };
        for dev in devices() {
            let (node, plain) = (grads(dev, true), grads(dev, false));
            for (i, what) in ["out", "dq", "dk", "dv"].iter().enumerate() {
                assert_close(
                    &node[i],
                    &plain[i],
                    1e-4,
                    1e-5,
                    &format!("attention (causal {causal}) {what} on {dev:?}"),
                );
            }
        }
    }
}

/// Attention with an additive float mask (broadcast over batch and heads, a key-padding mask of
/// -inf, a full random mask with -inf holes, 3-D inputs): the tiled kernel reads it (one
/// dispatch forward) and the backward adds it to the recomputed scores; head dims the tiled
/// kernel does not take (E = 16, 32 or 48 with Ev = E: BERT-small heads) take the one-row
/// kernel, which reads it too. Outputs and gradients against the CPU's products.
#[test]
fn attention_with_a_mask_in_one_kernel() {
    use webtorch::autograd::attention::attention;
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let inf = f64::NEG_INFINITY;
    // (q shape, S, Ev, mask shape, mask values; `holes`: every 5th entry -inf; tiled kernel)
    let pad = |b: usize, s: usize| -> Vec<f64> {
        (0..b * s).map(|i| if i / s == 1 && i % s >= s - 10 { inf } else { 0.0 }).collect()
    };
    let holes = |n: usize, seed: u64| -> Vec<f64> {
        randn(&[n], seed).iter().enumerate().map(|(i, x)| if i % 5 == 2 { inf } else { *x }).collect()
    };
    type Case = (&'static [usize], usize, usize, &'static [usize], Vec<f64>, bool);
    let cases: Vec<Case> = vec![
        (&[2, 3, 50, 64], 70, 64, &[50, 70], randn(&[50, 70], 61), true),
        (&[2, 3, 50, 64], 70, 64, &[2, 1, 1, 70], pad(2, 70), true),
        (&[2, 3, 50, 64], 70, 64, &[2, 3, 50, 70], holes(2 * 3 * 50 * 70, 62), true),
        (&[3, 40, 32], 45, 64, &[3, 40, 45], randn(&[3, 40, 45], 63), true),
        (&[2, 20, 16], 30, 16, &[20, 30], randn(&[20, 30], 64), false),
        (&[2, 4, 40, 32], 40, 32, &[2, 1, 1, 40], pad(2, 40), false),
        (&[2, 3, 50, 48], 70, 48, &[2, 3, 50, 70], holes(2 * 3 * 50 * 70, 65), false),
    ];
    let be = webtorch::engine::backend(Device::WebGpu).unwrap();
    for (i, (qs, s, ev, ms, mv, tiled)) in cases.iter().enumerate() {
        let n = qs.len();
        let mut ks = qs.to_vec();
        ks[n - 2] = *s;
        let mut vs = ks.clone();
        vs[n - 1] = *ev;
        let seed = 700 + 10 * i as u64;
        let (qd, kd, vd) = (randn(qs, seed), randn(&ks, seed + 1), randn(&vs, seed + 2));
        let mut ys = qs.to_vec();
        ys[n - 1] = *ev;
        let gd = randn(&ys, seed + 3);
        let run = |d: Device| -> Vec<Vec<f64>> {
            let leaf = |data: &[f64], shape: &[usize]| {
                let mut t = on(d, data, shape);
                t.set_requires_grad(true).unwrap();
                t
            };
            let (q, k, v) = (leaf(&qd, qs), leaf(&kd, &ks), leaf(&vd, &vs));
            let m = on(d, mv, ms);
            m.materialize_for_test();
            let before = be.stats().dispatches;
            let y = attention(&q, &k, &v, 0.2, false, Some(&m)).unwrap();
            if d == Device::WebGpu {
                assert_eq!(be.stats().dispatches - before, 1, "case {i}: the forward is one kernel");
                let (e, ev) = (qs[n - 1], *ev);
                let label = format!("webtorch:attention:e{e}v{ev}{}", if *tiled { "tm:" } else { "r" });
                let labels = be.kernel_labels();
                let found = labels.iter().any(|x| x.starts_with(&label) && x.ends_with("m:float32"));
                assert!(found, "case {i}: no masked {label} kernel among {labels:?}");
            }
            webtorch::autograd::backward(&y, Some(on(d, &gd, &ys)), false, false).unwrap();
            vec![values(&y), values(&q.grad().unwrap()), values(&k.grad().unwrap()), values(&v.grad().unwrap())]
        };
        let (gpu, cpu) = (run(Device::WebGpu), run(Device::Cpu));
        for (j, what) in ["out", "dq", "dk", "dv"].iter().enumerate() {
            assert_close(&gpu[j], &cpu[j], 1e-4, 5e-5, &format!("masked attention case {i}: {what}"));
        }
    }
}

/// The backward after a one-kernel forward makes `L × S` tensors (recomputed probabilities,
/// their gradient); past a byte budget it runs in pieces: batch entries in groups (nested over
/// dims), then one entry's query rows in chunks (causal chunks read only the keys they see,
/// L above and below S), masks cut along with them or broadcast whole. Gradients against the
/// CPU's products, and the pieces' peak memory against the whole backward's (itself two
/// `L × S` tensors: the softmax's backward is the `dO Vᵀ` product's epilogue).
#[test]
fn attention_backward_in_pieces() {
    use webtorch::autograd::attention::{attention, set_attention_backward_budget};
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let inf = f64::NEG_INFINITY;
    let pad: Vec<f64> = (0..800).map(|i| if i >= 400 && i % 400 >= 340 { inf } else { 0.0 }).collect();
    let holes: Vec<f64> =
        randn(&[2 * 3 * 160 * 400], 83).iter().enumerate().map(|(i, x)| if i % 7 == 3 { inf } else { *x }).collect();
    // (q shape, S, Ev, causal, mask shape and values, budget in bytes); head dims small beside
    // the sequences, so that the scores dominate the memory.
    type Case = (&'static [usize], usize, usize, bool, Option<(&'static [usize], Vec<f64>)>, u64);
    let cases: Vec<Case> = vec![
        // 960 kB of scores: groups of one batch entry, then of one head (160 kB each), whole.
        (&[2, 3, 200, 16], 200, 16, true, None, 200_000),
        // One head's 160 kB past 50 kB: chunks of 62 query rows.
        (&[2, 3, 200, 16], 200, 16, true, None, 50_000),
        // Causal with more queries than keys (rows past S see every key).
        (&[1, 2, 300, 32], 180, 32, true, None, 40_000),
        // A key-padding mask broadcast over heads and rows; a full mask with -inf holes.
        (&[2, 3, 160, 16], 400, 64, false, Some((&[2, 1, 1, 400], pad)), 100_000),
        (&[2, 3, 160, 16], 400, 64, false, Some((&[2, 3, 160, 400], holes)), 100_000),
        // Fewer queries than keys, no mask: chunks of 10 rows.
        (&[1, 1, 100, 16], 1000, 16, false, None, 40_000),
    ];
    let be = webtorch::engine::backend(Device::WebGpu).unwrap();
    for (i, (qs, s, ev, causal, mask, budget)) in cases.iter().enumerate() {
        let n = qs.len();
        let mut ks = qs.to_vec();
        ks[n - 2] = *s;
        let mut vs = ks.clone();
        vs[n - 1] = *ev;
        let mut ys = qs.to_vec();
        ys[n - 1] = *ev;
        let seed = 1100 + 10 * i as u64;
        let (qd, kd, vd, gd) = (randn(qs, seed), randn(&ks, seed + 1), randn(&vs, seed + 2), randn(&ys, seed + 3));
        // Gradients, and the bytes the backward held at most beyond what was live before it.
        let run = |d: Device, budget: u64| -> (Vec<Vec<f64>>, u64) {
            set_attention_backward_budget(budget);
            let leaf = |data: &[f64], shape: &[usize]| {
                let mut t = on(d, data, shape);
                t.set_requires_grad(true).unwrap();
                t
            };
            let (q, k, v) = (leaf(&qd, qs), leaf(&kd, &ks), leaf(&vd, &vs));
            let m = mask.as_ref().map(|(ms, mv)| on(d, mv, ms));
            let before = be.stats().dispatches;
            let y = attention(&q, &k, &v, 0.15, *causal, m.as_ref()).unwrap();
            let g = on(d, &gd, &ys);
            let bed = webtorch::engine::backend(d).unwrap();
            pollster::block_on(bed.sync()).unwrap();
            if d == Device::WebGpu {
                assert_eq!(be.stats().dispatches - before, 1, "case {i}: the forward is one kernel");
            }
            bed.memory().unwrap().reset_peak();
            let live = bed.stats().active_bytes;
            webtorch::autograd::backward(&y, Some(g), false, false).unwrap();
            pollster::block_on(bed.sync()).unwrap();
            let peak = bed.stats().peak_bytes - live;
            set_attention_backward_budget(0);
            (vec![values(&q.grad().unwrap()), values(&k.grad().unwrap()), values(&v.grad().unwrap())], peak)
        };
        let (cpu, _) = run(Device::Cpu, 0);
        let (whole, whole_peak) = run(Device::WebGpu, 0);
        let (pieces, pieces_peak) = run(Device::WebGpu, *budget);
        for (j, what) in ["dq", "dk", "dv"].iter().enumerate() {
            assert_close(&whole[j], &cpu[j], 1e-4, 5e-5, &format!("attention backward case {i}: {what} whole"));
            assert_close(&pieces[j], &cpu[j], 1e-4, 5e-5, &format!("attention backward case {i}: {what} in pieces"));
        }
        let scores = (qs[..n - 1].iter().product::<usize>() * s * 4) as u64;
        eprintln!("case {i}: scores {scores} B, peak whole {whole_peak}, in pieces {pieces_peak}");
        // `P` and `dS` at once; `dP` never exists (`dS` is the `dO Vᵀ` product's epilogue).
        assert!(whole_peak >= 2 * scores, "case {i}: the whole backward holds two L × S tensors at once");
        assert!(whole_peak < 3 * scores, "case {i}: the whole backward held {whole_peak} B: a third L × S tensor");
        assert!(pieces_peak < whole_peak / 2, "case {i}: pieces peak {pieces_peak} B against {whole_peak} whole");
    }
}

/// Attention's backward kernels (`attention_backward.wgsl`: one per key block for `dK` and
/// `dV`, one per query block for `dQ`, the probabilities recomputed from the forward's row
/// log-sum-exps): causal and not, sequences that are not multiples of the 64-row blocks, more
/// queries than keys and fewer, head dims 64 and 128 with `Ev ≠ E`, large scores, masks (full
/// with -inf holes; a key-padding mask broadcast over heads and rows), 3-D inputs and
/// `(B, L, H, E)` projections read as `(B, H, L, E)`. Gradients against the CPU's products; on
/// WebGPU both kernels run and the backward holds nothing of size `L × S` (its peak against one
/// score tensor of a 1,024² case).
#[test]
fn attention_backward_kernels_match_the_products() {
    use webtorch::autograd::attention::{attention, set_attention_backward_kernels_from};
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let inf = f64::NEG_INFINITY;
    let pad: Vec<f64> = (0..140).map(|i| if i >= 70 && i % 70 >= 55 { inf } else { 0.0 }).collect();
    let holes: Vec<f64> =
        randn(&[2 * 3 * 50 * 70], 1283).iter().enumerate().map(|(i, x)| if i % 5 == 2 { inf } else { *x }).collect();
    // (q shape, S, Ev, causal, scale, mask, transposed view)
    type Case = (&'static [usize], usize, usize, bool, f64, Option<(&'static [usize], Vec<f64>)>, bool);
    let cases: Vec<Case> = vec![
        (&[2, 3, 130, 64], 130, 64, true, 0.125, None, false),
        (&[1, 2, 100, 128], 77, 64, true, 0.09, None, false),
        (&[2, 70, 64], 150, 128, false, 0.2, None, false),
        (&[2, 3, 50, 64], 70, 64, false, 0.2, Some((&[2, 3, 50, 70], holes)), false),
        (&[2, 3, 50, 64], 70, 64, false, 0.2, Some((&[2, 1, 1, 70], pad)), false),
        (&[2, 4, 65, 64], 65, 64, true, 0.18, None, true),
        (&[1, 2, 40, 64], 100, 64, false, 1.5, None, false),
    ];
    let be = webtorch::engine::backend(Device::WebGpu).unwrap();
    // These scores are far below the kernels' default threshold (512 MiB): always, here.
    set_attention_backward_kernels_from(1);
    for (i, (qs, s, ev, causal, scale, mask, view)) in cases.iter().enumerate() {
        let n = qs.len();
        let e = qs[n - 1];
        let mut ks = qs.to_vec();
        ks[n - 2] = *s;
        let mut vs = ks.clone();
        vs[n - 1] = *ev;
        let mut ys = qs.to_vec();
        ys[n - 1] = *ev;
        let seed = 1300 + 10 * i as u64;
        let run = |d: Device| -> Vec<Vec<f64>> {
            let leaf = |shape: &[usize], seed: u64| {
                let mut t = if *view {
                    let sw = [shape[0], shape[2], shape[1], shape[3]];
                    let mut t = on(d, &randn(&sw, seed), &sw);
                    t.set_requires_grad(true).unwrap();
                    return (webtorch::autograd::ops::transpose(&t, 1, 2).unwrap(), Some(t));
                } else {
                    on(d, &randn(shape, seed), shape)
                };
                t.set_requires_grad(true).unwrap();
                (t, None)
            };
            let ((q, q0), (k, k0), (v, v0)) = (leaf(qs, seed), leaf(&ks, seed + 1), leaf(&vs, seed + 2));
            let m = mask.as_ref().map(|(ms, mv)| on(d, mv, ms));
            let y = attention(&q, &k, &v, *scale, *causal, m.as_ref()).unwrap();
            webtorch::autograd::backward(&y, Some(on(d, &randn(&ys, seed + 3), &ys)), false, false).unwrap();
            let grad = |t: &Tensor, t0: &Option<Tensor>| values(&t0.as_ref().unwrap_or(t).grad().unwrap());
            vec![values(&y), grad(&q, &q0), grad(&k, &k0), grad(&v, &v0)]
        };
        let (gpu, cpu) = (run(Device::WebGpu), run(Device::Cpu));
        for (j, what) in ["out", "dq", "dk", "dv"].iter().enumerate() {
            assert_close(&gpu[j], &cpu[j], 1e-4, 5e-5, &format!("attention backward kernels case {i}: {what}"));
        }
        let labels = be.kernel_labels();
        let m = if mask.is_some() { "m" } else { "" };
        for part in ["kv", "q"] {
            let label = format!("webtorch:attention_backward_{part}:e{e}v{ev}{m}:float32");
            assert!(labels.contains(&label), "case {i}: no {label} among {labels:?}");
        }
    }
    // Nothing of size L × S: a 2-head 1,024² causal backward's peak beside one score tensor.
    let (h, l, e) = (2, 1024, 64);
    let leaf = |seed: u64| {
        let mut t = on(Device::WebGpu, &randn(&[h, l, e], seed), &[h, l, e]);
        t.set_requires_grad(true).unwrap();
        t
    };
    let (q, k, v) = (leaf(1390), leaf(1391), leaf(1392));
    let y = attention(&q, &k, &v, 0.125, true, None).unwrap();
    let g = on(Device::WebGpu, &randn(&[h, l, e], 1393), &[h, l, e]);
    pollster::block_on(be.sync()).unwrap();
    be.memory().unwrap().reset_peak();
    let live = be.stats().active_bytes;
    let before = be.stats().dispatches;
    webtorch::autograd::backward(&y, Some(g), false, false).unwrap();
    pollster::block_on(be.sync()).unwrap();
    let peak = be.stats().peak_bytes - live;
    let scores = (h * l * l * 4) as u64;
    let dispatches = be.stats().dispatches - before;
    eprintln!("backward kernels: peak {peak} B beside {scores} B of scores, {dispatches} dispatches");
    assert!(peak < scores / 4, "the backward held {peak} B: an L × S tensor ({scores} B)");
    // `Σ dO ⊙ O`, the two kernels; the leaves' gradients are the kernels' outputs.
    assert!(dispatches <= 4, "{dispatches} dispatches for the backward");
    assert!(q.grad().is_some() && k.grad().is_some() && v.grad().is_some());
    // Below the threshold the products recompute the probabilities: two L × S tensors at once.
    set_attention_backward_kernels_from(0);
    let (q, k, v) = (leaf(1390), leaf(1391), leaf(1392));
    let y = attention(&q, &k, &v, 0.125, true, None).unwrap();
    let g = on(Device::WebGpu, &randn(&[h, l, e], 1393), &[h, l, e]);
    pollster::block_on(be.sync()).unwrap();
    be.memory().unwrap().reset_peak();
    let live = be.stats().active_bytes;
    webtorch::autograd::backward(&y, Some(g), false, false).unwrap();
    pollster::block_on(be.sync()).unwrap();
    let peak = be.stats().peak_bytes - live;
    assert!(peak >= 2 * scores, "the products' backward held {peak} B: less than two L × S tensors");
}

/// `nll_loss`'s two kernels, forward and input gradient, for each reduction with a class weight
/// and an ignored row, on a transposed (strided) input: against the formulas computed here in
/// f64 on every device, including the all-ignored mean (0/0 = NaN, as PyTorch).
#[test]
fn nll_loss_kernels_forward_and_backward() {
    use webtorch::ops::loss::NllReduction;
    let (n, c) = (7, 5);
    let x = randn(&[c, n], 500); // read through its transpose: (n, c) strides (1, n)
    let w = [0.5, 2.0, 1.0, 0.25, 3.0];
    let t = [3.0, -100.0, 0.0, 4.0, 4.0, 1.0, 2.0];
    let g = randn(&[n], 501);
    let at = |i: usize, j: usize| x[j * n + i];
    let counted: Vec<usize> = (0..n).filter(|&i| t[i] >= 0.0).collect();
    let loss: Vec<f64> =
        (0..n).map(|i| if t[i] < 0.0 { 0.0 } else { -w[t[i] as usize] * at(i, t[i] as usize) }).collect();
    let total: f64 = counted.iter().map(|&i| w[t[i] as usize]).sum();
    let grad_at = |s: &dyn Fn(usize) -> f64| -> Vec<f64> {
        let mut v = vec![0.0; n * c];
        for &i in &counted {
            v[i * c + t[i] as usize] = -w[t[i] as usize] * s(i);
        }
        v
    };
    let sum: f64 = loss.iter().sum();
    let cases: [(NllReduction, Vec<f64>, Vec<f64>); 3] = [
        (NllReduction::None, loss.clone(), grad_at(&|i| g[i])),
        (NllReduction::Sum, vec![sum], grad_at(&|_| g[0])),
        (NllReduction::Mean, vec![sum / total], grad_at(&|_| g[0] / total)),
    ];
    for dev in devices() {
        let input = on(dev, &x, &[c, n]).transpose(0, 1).unwrap();
        let target = Tensor::from_f64(&t, &[n], DType::Int64, dev).unwrap();
        let weight = on(dev, &w, &[c]);
        for (r, want, want_grad) in &cases {
            let what = format!("nll_loss {r:?} on {dev:?}");
            let (y, tw) = input.nll_loss(&target, Some(&weight), -100, *r).unwrap();
            assert_close(&values(&y), want, 1e-6, 1e-6, &what);
            if let Some(tw) = &tw {
                assert_close(&values(tw), &[total], 1e-6, 0.0, &format!("{what}: total weight"));
            }
            let gy = if *r == NllReduction::None { on(dev, &g, &[n]) } else { on(dev, &g[..1], &[]) };
            let gx = gy.nll_loss_backward(&input, &target, Some(&weight), tw.as_ref(), -100, *r).unwrap();
            assert_eq!(gx.shape(), &[n, c]);
            assert_close(&values(&gx), want_grad, 1e-6, 1e-7, &format!("{what}: grad"));
        }
        // ignore_index 4 drops rows 1, 3 and 4; every row ignored makes the mean 0/0.
        let t4: Vec<f64> = t.iter().map(|&v| if v < 0.0 { 4.0 } else { v }).collect();
        let target4 = Tensor::from_f64(&t4, &[n], DType::Int64, dev).unwrap();
        let (y, _) = input.nll_loss(&target4, None, 4, NllReduction::Sum).unwrap();
        let want: f64 = [0, 2, 5, 6].iter().map(|&i| -at(i, t[i] as usize)).sum();
        assert_close(&values(&y), &[want], 1e-6, 1e-6, &format!("ignore_index 4 on {dev:?}"));
        let none = Tensor::from_f64(&[-100.0; 7], &[n], DType::Int64, dev).unwrap();
        let (y, _) = input.nll_loss(&none, Some(&weight), -100, NllReduction::Mean).unwrap();
        assert!(values(&y)[0].is_nan(), "all-ignored mean on {dev:?}");
        // A single sample: (C) input, () target.
        let one = Tensor::from_f64(&[2.0], &[], DType::Int64, dev).unwrap();
        let (y, _) = input.select(0, 3).unwrap().nll_loss(&one, Some(&weight), -100, NllReduction::None).unwrap();
        assert_eq!(y.shape(), &[] as &[usize]);
        assert_close(&values(&y), &[-w[2] * at(3, 2)], 1e-6, 1e-7, &format!("(C) input on {dev:?}"));
    }
}

/// 2-D convolutions through the implicit-GEMM kernel (`backend/webgpu/conv.rs`) against the CPU's
/// im2col route: padding (symmetric and 'same' with an even kernel), stride, dilation, groups, a
/// non-square kernel, 1×1 and 5×5 kernels (kernel positions fewer and more than the K step),
/// `Cg·kh·kw` not a multiple of 4 (3·3·3 and 1·3·3: the rows padded), depthwise convolutions
/// (their own kernel: channel multipliers, stride, a 7×7 kernel, dilation), output rows not
/// whole vec4 (3×3 and 7×5 positions: a padded scratch and a copy), a
/// strided input view, ragged output channels, a bias, the weight's gradient (the kernel's
/// weight-gradient form, whole and in three slices of the output positions) and the input's (a transposed convolution, itself a convolution). Each
/// GPU forward is one conv2d dispatch, no column buffer; with the kernel turned off the same
/// calls run im2col.
#[test]
fn conv2d_reads_its_input_windows_directly() {
    use webtorch::autograd::conv as agc;
    use webtorch::tensor::conv::Padding;
    struct Case {
        x: &'static [usize],
        w: &'static [usize],
        stride: i64,
        pad: Option<i64>,
        dilation: i64,
        groups: i64,
        bias: bool,
        view: bool,
    }
    let c = |x, w| Case { x, w, stride: 1, pad: Some(1), dilation: 1, groups: 1, bias: false, view: false };
    let cases = [
        c(&[2, 8, 12, 12], &[16, 8, 3, 3]),
        Case { stride: 2, ..c(&[1, 4, 16, 16], &[8, 4, 3, 3]) },
        Case { pad: Some(2), dilation: 2, ..c(&[2, 4, 10, 10], &[8, 4, 3, 3]) },
        Case { groups: 2, ..c(&[2, 8, 8, 8], &[12, 4, 3, 3]) },
        Case { pad: Some(0), bias: true, ..c(&[1, 3, 6, 9], &[5, 3, 1, 4]) },
        Case { pad: None, ..c(&[1, 4, 8, 8], &[4, 4, 4, 4]) },
        Case { view: true, ..c(&[2, 4, 12, 12], &[8, 4, 3, 3]) },
        Case { bias: true, ..c(&[3, 4, 20, 20], &[70, 4, 3, 3]) },
        Case { pad: Some(0), ..c(&[2, 8, 8, 8], &[16, 8, 1, 1]) },
        Case { pad: Some(2), ..c(&[1, 4, 12, 12], &[8, 4, 5, 5]) },
        // Cg·kh·kw = 27 (an RGB first layer) and 9 (groups of one channel): rows padded to 4.
        c(&[2, 3, 8, 8], &[8, 3, 3, 3]),
        Case { groups: 4, bias: true, ..c(&[2, 4, 8, 8], &[8, 1, 3, 3]) },
        // Depthwise (one input channel per group): the depthwise kernel, any output size.
        Case { groups: 6, ..c(&[2, 6, 9, 9], &[6, 1, 3, 3]) },
        Case { groups: 6, stride: 2, ..c(&[2, 6, 9, 11], &[12, 1, 3, 3]) },
        Case { groups: 4, pad: Some(3), bias: true, ..c(&[1, 4, 10, 10], &[4, 1, 7, 7]) },
        Case { groups: 4, pad: Some(2), dilation: 2, view: true, ..c(&[1, 4, 7, 9], &[4, 1, 3, 3]) },
        // 3×3 and 7×5 output positions (not whole vec4): the product over positions rounded up
        // to 4 into a scratch, then a copy.
        Case { pad: Some(0), ..c(&[2, 8, 5, 5], &[16, 8, 3, 3]) },
        Case { stride: 2, bias: true, ..c(&[2, 8, 13, 9], &[24, 8, 3, 3]) },
    ];
    let gpu = devices().contains(&Device::WebGpu);
    // The implicit GEMM and the depthwise kernel, not the window kernel (its own test below).
    webtorch::engine::tune(|t| t.conv_window = Some(false));
    for (i, case) in cases.iter().enumerate() {
        let xs: Vec<usize> = if case.view { vec![case.x[0], case.x[1], case.x[3], case.x[2]] } else { case.x.to_vec() };
        let (x, w) = (randn(&xs, 400 + i as u64), randn(case.w, 500 + i as u64));
        let b = randn(&[case.w[0]], 600 + i as u64);
        let pad = match case.pad {
            Some(p) => Padding::Explicit(vec![p]),
            None => Padding::Same,
        };
        let conv_w = |d: Device, wt: &Tensor| {
            let mut xt = on(d, &x, &xs);
            if case.view {
                xt = xt.transpose(2, 3).unwrap();
            }
            let bias = case.bias.then(|| on(d, &b, &[case.w[0]]));
            agc::conv_nd(&xt, wt, bias.as_ref(), &[case.stride], &pad, &[case.dilation], case.groups).unwrap()
        };
        let conv = |d: Device| conv_w(d, &on(d, &w, case.w));
        // The weight's gradient for an output gradient `gy` (every case: the implicit-GEMM
        // weight gradient where its product's N = Cg·kh·kw and K = oh·ow are multiples of 4).
        let wgrad = |d: Device, gy: &[f64]| {
            let mut wt = on(d, &w, case.w);
            wt.set_requires_grad(true).unwrap();
            let y = conv_w(d, &wt);
            let g = on(d, gy, y.shape());
            webtorch::autograd::grad(&[y], &[wt], &[Some(g)], false, false, false).unwrap().remove(0).unwrap()
        };
        let want = values(&conv(Device::Cpu));
        if !gpu {
            continue;
        }
        let be = webtorch::engine::backend(Device::WebGpu).unwrap();
        pollster::block_on(be.sync()).unwrap();
        let before = be.stats();
        let y = conv(Device::WebGpu);
        pollster::block_on(be.sync()).unwrap();
        let after = be.stats();
        assert_close(&values(&y), &want, 1e-5, 1e-5, &format!("conv2d case {i}"));
        let labels = be.kernel_labels();
        let depthwise = case.w[1] == 1 && case.x[1] as i64 == case.groups;
        let label = if depthwise { "webtorch:conv2d_depthwise:" } else { "webtorch:conv2d:" };
        assert!(labels.iter().any(|l| l.starts_with(label)), "case {i}: no {label} kernel among {labels:?}");
        // The conv2d dispatch, plus the bias add, and the weight's padded copy (a fill and a
        // copy) where Cg·kh·kw is not a multiple of 4 (not for the depthwise kernel).
        let padded = !depthwise && (case.w[1] * case.w[2] * case.w[3]) % 4 != 0;
        let ragged = !depthwise && (y.shape()[2] * y.shape()[3]) % 4 != 0;
        let extra = case.bias as u64 + if padded { 2 } else { 0 } + ragged as u64;
        assert!(
            after.dispatches - before.dispatches <= 1 + extra,
            "case {i}: {} dispatches",
            after.dispatches - before.dispatches
        );
        webtorch::engine::tune(|t| t.conv_direct = false);
        let im2col = values(&conv(Device::WebGpu));
        webtorch::engine::tune(|t| t.conv_direct = true);
        assert_close(&im2col, &want, 1e-5, 1e-5, &format!("conv2d case {i} by im2col"));
        let gy = randn(y.shape(), 800 + i as u64);
        let (gw, gw_cpu) = (values(&wgrad(Device::WebGpu, &gy)), values(&wgrad(Device::Cpu, &gy)));
        assert_close(&gw, &gw_cpu, 1e-4, 1e-4, &format!("case {i}: weight gradient"));
        // In three slices of the output positions (the split a first layer's gradient takes:
        // a last slice short, or past the end and all zeros, where positions do not divide).
        webtorch::engine::tune(|t| t.conv_splits = Some(3));
        let gw3 = values(&wgrad(Device::WebGpu, &gy));
        webtorch::engine::tune(|t| t.conv_splits = None);
        assert_close(&gw3, &gw_cpu, 1e-4, 1e-4, &format!("case {i}: weight gradient in slices"));
        // Two images summed per block (the deep layers' rule; of three images, a last chunk
        // of one), and the rule's choice once more.
        webtorch::engine::tune(|t| t.conv_images = Some(2));
        let gw2 = values(&wgrad(Device::WebGpu, &gy));
        webtorch::engine::tune(|t| t.conv_images = None);
        assert_close(&gw2, &gw_cpu, 1e-4, 1e-4, &format!("case {i}: weight gradient two images a block"));
        let labels = be.kernel_labels();
        let label = if depthwise { "webtorch:conv2d_depthwise_weight_grad:" } else { "webtorch:conv2d_weight_grad:" };
        assert!(labels.iter().any(|l| l.starts_with(label)), "case {i}: no {label} kernel among {labels:?}");
        // The input gradient of a stride-1 case: a transposed convolution over the gradient.
        if case.stride == 1 && case.groups == 1 && case.pad == Some(1) && case.dilation == 1 {
            let o = case.w[0];
            let gs = [xs[0], o, y.shape()[2], y.shape()[3]];
            let g = randn(&gs, 700 + i as u64);
            let tconv = |d: Device| {
                agc::conv_transpose_nd(&on(d, &g, &gs), &on(d, &w, case.w), None, &[1], &[1], &[0], 1, &[1]).unwrap()
            };
            assert_close(
                &values(&tconv(Device::WebGpu)),
                &values(&tconv(Device::Cpu)),
                1e-5,
                1e-5,
                &format!("case {i}: input gradient"),
            );
        }
    }
    webtorch::engine::tune(|t| t.conv_window = None);
}

/// A geometry the conv kernels decline (a 9×9 kernel: more than the implicit GEMM's 64 kernel
/// positions; 162 taps and 16 output channels: past the window kernel's rule) runs im2col exactly as with the kernels turned off: the backend is
/// asked before anything is allocated, so no output is made and no padded weight copied in vain.
#[test]
fn conv2d_declined_geometry_allocates_nothing_first() {
    use webtorch::autograd::conv as agc;
    use webtorch::tensor::conv::Padding;
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let (xs, ws) = ([2usize, 2, 12, 12], [16usize, 2, 9, 9]);
    let (x, w) = (randn(&xs, 41), randn(&ws, 42));
    let conv = |d: Device| {
        agc::conv_nd(&on(d, &x, &xs), &on(d, &w, &ws), None, &[1], &Padding::Explicit(vec![0]), &[1], 1).unwrap()
    };
    let want = values(&conv(Device::Cpu));
    let be = webtorch::engine::backend(Device::WebGpu).unwrap();
    let mut counts = vec![];
    for direct in [true, false] {
        webtorch::engine::tune(|t| t.conv_direct = direct);
        pollster::block_on(be.sync()).unwrap();
        let before = be.stats();
        let y = conv(Device::WebGpu);
        let got = values(&y);
        let after = be.stats();
        assert_close(&got, &want, 1e-5, 1e-5, &format!("declined conv2d (kernels on: {direct})"));
        counts.push((
            after.dispatches - before.dispatches,
            (after.allocations + after.reuses) - (before.allocations + before.reuses),
        ));
    }
    webtorch::engine::tune(|t| t.conv_direct = true);
    assert_eq!(counts[0], counts[1], "(dispatches, buffers) with the kernels on, then off");
}

/// 1-D convolutions through the 2-D kernels (rows of one): the window kernel (short rows, a
/// strided case, a depthwise one with 'same' padding and a bias), the implicit GEMM (224 taps);
/// forward, weight and input gradients against the CPU's im2col route, one conv dispatch for
/// each forward the kernels take.
#[test]
fn conv1d_runs_as_a_two_dimensional_convolution() {
    use webtorch::autograd::conv as agc;
    use webtorch::tensor::conv::Padding;
    // (input, weight, stride, padding (None: 'same'), groups, bias, kernel label)
    type Case<'a> = (&'a [usize], &'a [usize], i64, Option<i64>, i64, bool, &'a str);
    let cases: [Case; 5] = [
        (&[2, 8, 20], &[16, 8, 3], 1, Some(1), 1, false, "webtorch:conv2d_window:"),
        (&[2, 4, 31], &[8, 4, 5], 2, Some(2), 1, true, "webtorch:conv2d_window:"),
        (&[2, 6, 15], &[6, 1, 4], 1, None, 6, true, "webtorch:conv2d_window:"),
        (&[1, 3, 64], &[8, 3, 7], 1, Some(3), 1, false, "webtorch:conv2d_window:"),
        (&[2, 32, 20], &[16, 32, 7], 1, Some(3), 1, false, "webtorch:conv2d:"),
    ];
    let gpu = devices().contains(&Device::WebGpu);
    for (i, &(xs, ws, stride, pad, groups, bias, label)) in cases.iter().enumerate() {
        let (x, w, b) = (randn(xs, 900 + i as u64), randn(ws, 910 + i as u64), randn(&[ws[0]], 920 + i as u64));
        let pad = match pad {
            Some(p) => Padding::Explicit(vec![p]),
            None => Padding::Same,
        };
        // The output, then the gradients of x and w for an output gradient of seeded values.
        let run = |d: Device| {
            let (mut xt, mut wt) = (on(d, &x, xs), on(d, &w, ws));
            xt.set_requires_grad(true).unwrap();
            wt.set_requires_grad(true).unwrap();
            let bt = bias.then(|| on(d, &b, &[ws[0]]));
            let y = agc::conv_nd(&xt, &wt, bt.as_ref(), &[stride], &pad, &[1], groups).unwrap();
            let g = on(d, &randn(y.shape(), 930 + i as u64), y.shape());
            let gs =
                webtorch::autograd::grad(std::slice::from_ref(&y), &[xt, wt], &[Some(g)], false, false, false).unwrap();
            [y, gs[0].clone().unwrap(), gs[1].clone().unwrap()].map(|t| values(&t))
        };
        let want = run(Device::Cpu);
        if !gpu {
            continue;
        }
        let be = webtorch::engine::backend(Device::WebGpu).unwrap();
        let got = run(Device::WebGpu);
        for (part, (g, w)) in ["output", "input gradient", "weight gradient"].iter().zip(got.iter().zip(&want)) {
            assert_close(g, w, 1e-4, 1e-4, &format!("conv1d case {i}: {part}"));
        }
        pollster::block_on(be.sync()).unwrap();
        let before = be.stats().dispatches;
        let (xt, wt) = (on(Device::WebGpu, &x, xs), on(Device::WebGpu, &w, ws));
        let y = agc::conv_nd(&xt, &wt, None, &[stride], &pad, &[1], groups).unwrap();
        values(&y);
        let padded = label == "webtorch:conv2d:" && (ws[1] * ws[2]) % 4 != 0;
        let dispatches = be.stats().dispatches - before;
        assert!(dispatches <= 1 + 2 * padded as u64, "conv1d case {i}: {dispatches} dispatches");
        let labels = be.kernel_labels();
        assert!(labels.iter().any(|l| l.starts_with(label)), "conv1d case {i}: no {label} kernel among {labels:?}");
    }
}

/// The window kernel (`conv2d_window.wgsl`: four output positions × a block of output channels
/// per invocation, the row segment loaded once for the taps) against the CPU: an RGB first
/// layer with ragged output rows, ResNet's 7×7 stride-2 stem, channel blocks that pad (6 → 8)
/// and split (20 → 16 + 4), groups of two channels, a 2×5 kernel with stride 3 and dilation 2,
/// depthwise layers (a channel multiplier of 2, dilation over a strided view, 7×7), three
/// output channels of 576 taps (an RGB layer's input gradient: the scalar weight path), and 180
/// taps × 16 channels, past the rule (forced). One dispatch each; with the kernel turned off the
/// implicit GEMM or the depthwise kernel gives the same values.
#[test]
fn conv2d_window_kernel_matches_the_cpu() {
    use webtorch::autograd::conv as agc;
    use webtorch::tensor::conv::Padding;
    // (input, weight, stride, padding, dilation, groups, a transposed view, forced on)
    type Case<'a> = (&'a [usize], &'a [usize], i64, i64, i64, i64, bool, bool);
    let cases: [Case; 11] = [
        (&[2, 3, 9, 10], &[8, 3, 3, 3], 1, 1, 1, 1, false, false),
        (&[2, 3, 19, 21], &[16, 3, 7, 7], 2, 3, 1, 1, false, false),
        (&[1, 3, 8, 8], &[6, 3, 3, 3], 1, 1, 1, 1, false, false),
        (&[1, 2, 8, 12], &[20, 2, 3, 3], 1, 0, 1, 1, false, false),
        (&[1, 4, 8, 8], &[8, 2, 3, 3], 1, 1, 1, 2, false, false),
        (&[1, 2, 11, 17], &[4, 2, 2, 5], 3, 2, 2, 1, false, false),
        (&[2, 6, 9, 11], &[12, 1, 3, 3], 2, 1, 1, 6, false, false),
        (&[1, 4, 7, 9], &[4, 1, 3, 3], 1, 2, 2, 4, true, false),
        (&[1, 4, 10, 10], &[4, 1, 7, 7], 1, 3, 1, 4, false, false),
        (&[2, 64, 6, 7], &[3, 64, 3, 3], 1, 1, 1, 1, false, false),
        (&[1, 20, 8, 8], &[16, 20, 3, 3], 1, 1, 1, 1, false, true),
    ];
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let be = webtorch::engine::backend(Device::WebGpu).unwrap();
    for (i, &(xs, ws, stride, pad, dil, groups, view, forced)) in cases.iter().enumerate() {
        let xs: Vec<usize> = if view { vec![xs[0], xs[1], xs[3], xs[2]] } else { xs.to_vec() };
        let (x, w) = (randn(&xs, 1000 + i as u64), randn(ws, 1100 + i as u64));
        let conv = |d: Device| {
            let mut xt = on(d, &x, &xs);
            if view {
                xt = xt.transpose(2, 3).unwrap();
            }
            let p = Padding::Explicit(vec![pad]);
            agc::conv_nd(&xt, &on(d, &w, ws), None, &[stride], &p, &[dil], groups).unwrap()
        };
        let want = values(&conv(Device::Cpu));
        webtorch::engine::tune(|t| t.conv_window = forced.then_some(true));
        pollster::block_on(be.sync()).unwrap();
        let before = be.stats().dispatches;
        let got = values(&conv(Device::WebGpu));
        let dispatches = be.stats().dispatches - before;
        assert_close(&got, &want, 1e-5, 1e-5, &format!("window case {i}"));
        assert_eq!(dispatches, 1, "window case {i}: dispatches");
        let labels = be.kernel_labels();
        assert!(
            labels.iter().any(|l| l.starts_with("webtorch:conv2d_window:")),
            "window case {i}: no window kernel among {labels:?}"
        );
        webtorch::engine::tune(|t| t.conv_window = Some(false));
        let other = values(&conv(Device::WebGpu));
        webtorch::engine::tune(|t| t.conv_window = None);
        assert_close(&other, &want, 1e-5, 1e-5, &format!("window case {i}, kernel off"));
    }
}

/// Strided convolutions' input gradients by phases (`autograd/conv.rs`: one stride-1
/// convolution of the gradient per phase, written into every stride-th position) against zero
/// insertion (the convolution over a gradient with `stride − 1` zeros between its values), on
/// each device: 3×3 stride 2 padding 1, a 1×1 stride 2 (phases no tap reaches: zeros), a 2×5
/// kernel of stride (2, 3) over ragged sizes, groups, a 1-D stride 3, and a transposed
/// convolution with output padding (its forward is the same rule). Recorded (`create_graph`),
/// the second derivative through it matches too; on the GPU the phases run more dispatches
/// (one convolution each) and hold less memory than zero insertion's padded gradient.
#[test]
fn strided_input_gradients_run_by_phases() {
    use webtorch::autograd::conv as agc;
    use webtorch::tensor::conv::Padding;
    // (input, weight, stride, padding, groups, transposed with output padding)
    type Case<'a> = (&'a [usize], &'a [usize], &'a [i64], i64, i64, Option<i64>);
    let cases: [Case; 6] = [
        (&[2, 4, 12, 12], &[8, 4, 3, 3], &[2], 1, 1, None),
        (&[2, 6, 9, 9], &[40, 6, 1, 1], &[2], 0, 1, None),
        (&[1, 3, 11, 13], &[5, 3, 2, 5], &[2, 3], 1, 1, None),
        (&[2, 6, 10, 10], &[12, 3, 3, 3], &[2], 1, 2, None),
        (&[2, 4, 17], &[12, 4, 4], &[3], 1, 1, None),
        (&[1, 4, 5, 6], &[4, 3, 3, 3], &[2], 1, 1, Some(1)),
    ];
    for dev in devices() {
        let be = webtorch::engine::backend(dev).unwrap();
        for (i, &(xs, ws, stride, pad, groups, outpad)) in cases.iter().enumerate() {
            let (x, w) = (randn(xs, 1200 + i as u64), randn(ws, 1300 + i as u64));
            // The input's gradient (first order, then the gradient of its sum of squares with
            // respect to the weight: a second derivative through the recorded rule).
            let run = |phases: bool| {
                webtorch::engine::tune(|t| t.conv_grad_phases = phases);
                let mut xt = on(dev, &x, xs);
                let mut wt = on(dev, &w, ws);
                xt.set_requires_grad(true).unwrap();
                wt.set_requires_grad(true).unwrap();
                let y = match outpad {
                    None => agc::conv_nd(&xt, &wt, None, stride, &Padding::Explicit(vec![pad]), &[1], groups).unwrap(),
                    Some(op) => agc::conv_transpose_nd(&xt, &wt, None, stride, &[pad], &[op], groups, &[1]).unwrap(),
                };
                let g = on(dev, &randn(y.shape(), 1400 + i as u64), y.shape());
                pollster::block_on(be.sync()).unwrap();
                be.memory().unwrap().reset_peak();
                let live = be.stats().active_bytes;
                let before = be.stats().dispatches;
                let checks_before = be.stats().value_checks;
                let dx = webtorch::autograd::grad(
                    std::slice::from_ref(&y),
                    std::slice::from_ref(&xt),
                    &[Some(g.clone())],
                    true,
                    false,
                    false,
                )
                .unwrap()
                .remove(0)
                .unwrap();
                let first = values(&dx);
                pollster::block_on(be.sync()).unwrap();
                let peak = be.stats().peak_bytes - live;
                let dispatches = be.stats().dispatches - before;
                // The flipped weight's reversed positions are made on the host: no device check.
                assert_eq!(be.stats().value_checks, checks_before, "case {i}: value checks");
                drop(dx);
                let dx = webtorch::autograd::grad(
                    std::slice::from_ref(&y),
                    std::slice::from_ref(&xt),
                    &[Some(g)],
                    true,
                    true,
                    false,
                )
                .unwrap()
                .remove(0)
                .unwrap();
                let sq =
                    webtorch::autograd::ops::sum(&webtorch::autograd::ops::mul(&dx, &dx).unwrap(), &[], false).unwrap();
                let dw =
                    webtorch::autograd::grad(&[sq], &[wt], &[None], false, false, false).unwrap().remove(0).unwrap();
                webtorch::engine::tune(|t| t.conv_grad_phases = true);
                (first, values(&dw), peak, dispatches)
            };
            let (dx0, dw0, peak0, d0) = run(false);
            let (dx, dw, peak, d1) = run(true);
            assert_close(&dx, &dx0, 1e-5, 1e-5, &format!("phases case {i} on {dev:?}: input gradient"));
            assert_close(&dw, &dw0, 1e-4, 1e-4, &format!("phases case {i} on {dev:?}: second derivative"));
            if dev == Device::WebGpu {
                assert!(d1 > d0, "phases case {i}: {d1} dispatches against zero insertion's {d0}");
            }
            if dev == Device::WebGpu && i == 0 {
                assert!(peak < peak0, "phases case {i}: peak {peak} bytes against zero insertion's {peak0}");
            }
        }
    }
}

/// Float32 sums and means over several dims into few outputs (batch norm's per-channel
/// statistics) run by runs first (`reduce_launch.rs` `reduce_runs_first`: the trailing reduced
/// dims' runs into a scratch, then each output's runs), against the CPU: a sum and a mean over
/// (0, 2, 3) of an `[N, C, H, W]` tensor, a fused prologue (`x² + 1`), a transposed view, a
/// sliced view whose rows do not merge (runs of two dims; the split itself: reduce_launch.rs's
/// unit test), keepdim. Two reduction dispatches each on the GPU; the mean of squared
/// deviations batch_norm takes too.
#[test]
fn reductions_into_few_outputs_run_by_runs_first() {
    let shape = [9usize, 5, 48, 48];
    let data = randn(&shape, 1500);
    let gpu = devices().contains(&Device::WebGpu);
    for (i, case) in ["sum", "mean", "prologue", "view", "deviations", "slice"].iter().enumerate() {
        let run = |d: Device| -> (Vec<f64>, u64) {
            let be = webtorch::engine::backend(d).unwrap();
            let mut x = on(d, &data, &shape);
            if *case == "view" {
                x = x.transpose(2, 3).unwrap();
            }
            if *case == "slice" {
                // Rows that do not merge (a padded max pool's gradient): runs of H·W, two dims.
                x = x.narrow(2, 1, 46).unwrap().narrow(3, 1, 46).unwrap();
            }
            pollster::block_on(be.sync()).unwrap();
            let before = be.stats().dispatches;
            let y = match *case {
                "mean" => x.mean(&[0, 2, 3], true).unwrap(),
                "prologue" | "slice" => x
                    .binary(Op::Mul, &x)
                    .unwrap()
                    .binary_scalar(Op::Add, 1.0, false)
                    .unwrap()
                    .sum(&[0, 2, 3], false)
                    .unwrap(),
                "deviations" => {
                    let dev = x.binary(Op::Sub, &x.mean(&[0, 2, 3], true).unwrap()).unwrap();
                    dev.binary(Op::Mul, &dev).unwrap().mean(&[0, 2, 3], false).unwrap()
                }
                _ => x.sum(&[0, 2, 3], false).unwrap(),
            };
            let v = values(&y);
            (v, be.stats().dispatches - before)
        };
        let (want, _) = run(Device::Cpu);
        if !gpu {
            continue;
        }
        let (got, dispatches) = run(Device::WebGpu);
        assert_close(&got, &want, 1e-4, 1e-3, &format!("case {i} ({case})"));
        let expect = if *case == "deviations" { 4 } else { 2 };
        assert_eq!(dispatches, expect, "case {i} ({case}): dispatches");
    }
}

/// 1-D and 2-D max pooling by the WebGPU kernels (`ops/pool/max_pool2d*.wgsl`: one dispatch
/// forward, one backward) against the CPU's composition over windows: values, the input's
/// gradient (ties to the first maximum, a gradient summed where windows overlap), a strided
/// input, ceil_mode, dilation, a missing batch dim, NaN (the window's value) and a window of
/// -inf, and the second derivative through the recorded (`create_graph`) backward.
#[test]
fn max_pool_kernels_match_the_composition() {
    use webtorch::autograd::ops as ag;
    use webtorch::autograd::pool::max_pool;
    // (shape, kernel, stride, padding, dilation, ceil_mode, transposed input)
    type Case<'a> = (&'a [usize], &'a [i64], &'a [i64], &'a [i64], &'a [i64], bool, bool);
    let cases: [Case; 7] = [
        (&[2, 3, 13, 11], &[3, 3], &[2, 2], &[1, 1], &[1, 1], false, false),
        (&[1, 2, 10, 9], &[2, 3], &[1, 2], &[0, 1], &[2, 1], true, false),
        (&[2, 3, 12, 12], &[2, 2], &[], &[0, 0], &[1, 1], false, true),
        (&[3, 9, 8], &[3, 2], &[2, 1], &[1, 0], &[1, 1], false, false),
        (&[2, 4, 19], &[3], &[2], &[1], &[2], true, false),
        (&[3, 10], &[4], &[3], &[2], &[1], false, false),
        (&[1, 1, 6, 6], &[3, 3], &[1, 1], &[0, 0], &[1, 1], false, false),
    ];
    for (i, &(shape, kernel, stride, padding, dilation, ceil, transposed)) in cases.iter().enumerate() {
        let mut data = randn(shape, 1600 + i as u64);
        if i == 0 {
            // Coarse values: ties in most windows (the first maximum takes the gradient).
            data.iter_mut().for_each(|v| *v = (*v * 2.0).round());
        }
        if i == 6 {
            data[7] = f64::NAN;
            data[20..36].iter_mut().for_each(|v| *v = f64::NEG_INFINITY);
        }
        let run = |dev: Device| {
            let be = webtorch::engine::backend(dev).unwrap();
            let mut x = on(dev, &data, shape);
            x.set_requires_grad(true).unwrap();
            let input = if transposed { ag::transpose(&x, -2, -1).unwrap() } else { x.clone() };
            pollster::block_on(be.sync()).unwrap();
            let before = be.stats().dispatches;
            let y = max_pool(&input, kernel, stride, padding, dilation, ceil).unwrap();
            let yv = values(&y);
            let forward = be.stats().dispatches - before;
            let mut g = on(dev, &randn(y.shape(), 1700 + i as u64), y.shape());
            g.set_requires_grad(true).unwrap();
            pollster::block_on(be.sync()).unwrap();
            let before = be.stats().dispatches;
            let grad = |create: bool| {
                let xs = std::slice::from_ref(&x);
                webtorch::autograd::grad(std::slice::from_ref(&y), xs, &[Some(g.clone())], true, create, false)
                    .unwrap()
                    .remove(0)
                    .unwrap()
            };
            let dx = values(&grad(false));
            let backward = be.stats().dispatches - before;
            // d/dg of Σ dx²: 2·dx at each window's maximum.
            let dx2 = grad(true);
            let s = ag::sum(&ag::mul(&dx2, &dx2).unwrap(), &[], false).unwrap();
            let gg = webtorch::autograd::grad(&[s], std::slice::from_ref(&g), &[None], false, false, false)
                .unwrap()
                .remove(0)
                .unwrap();
            (yv, dx, values(&gg), forward, backward)
        };
        let want = run(Device::Cpu);
        for dev in devices() {
            let got = run(dev);
            let what = format!("case {i} on {dev:?}");
            assert_close(&got.0, &want.0, 0.0, 0.0, &format!("{what}: values"));
            assert_close(&got.1, &want.1, 1e-6, 1e-6, &format!("{what}: gradient"));
            assert_close(&got.2, &want.2, 1e-6, 1e-6, &format!("{what}: second derivative"));
            if dev == Device::WebGpu {
                // A strided input is read in place; the gradient is one pass (and, through the
                // transpose, the copy that lays x's gradient out as x).
                assert_eq!((got.3, got.4), (1, 1 + transposed as u64), "{what}: dispatches (forward, backward)");
            }
        }
    }
}

/// Tiny float32 ops (elementwise, products) share launches (`backend/webgpu/batched.rs`): a
/// chain of dependent ops is a few dispatches, not one each, with the results of one dispatch
/// per op; ordering holds across other kernels, copies, buffer reuse and reads. (Forced on:
/// lavapipe emulates a GPU on the CPU, where the default leaves batching off.)
#[test]
fn tiny_ops_share_launches() {
    if !devices().contains(&Device::WebGpu) {
        return;
    }
    let gpu = webtorch::engine::backend(Device::WebGpu).unwrap();
    let (xv, wv, mv) = (randn(&[64], 11), randn(&[64], 12), randn(&[8, 8], 13));
    // A chain of 100 dependent adds, intermediates dropped as they go (their buffers reused
    // inside the batch).
    let chain = |dev: Device| {
        let (x0, w) = (on(dev, &xv, &[64]), on(dev, &wv, &[64]));
        let mut x = x0.binary_scalar(Op::Add, 0.001, false).unwrap();
        for i in 0..99 {
            x = if i % 3 == 0 {
                x.binary(Op::Add, &w).unwrap()
            } else {
                x.binary_scalar(Op::Mul, 0.999, false).unwrap()
            };
        }
        x
    };
    let want = values(&chain(Device::Cpu));
    for batched in [true, false] {
        webtorch::engine::tune(|t| t.batched_launches = Some(batched));
        let (d0, b0) = (gpu.stats().dispatches, gpu.stats().batched_ops);
        let got = values(&chain(Device::WebGpu));
        let (d, b) = (gpu.stats().dispatches - d0, gpu.stats().batched_ops - b0);
        assert_close(&got, &want, 1e-5, 1e-6, &format!("chain, batched {batched}"));
        if batched {
            // 100 ops of 5 words, 24 to a 128-word slot.
            assert_eq!((d, b), (5, 100), "dispatches and batched ops");
        } else {
            assert_eq!((d, b), (100, 0), "dispatches and batched ops");
        }
    }
    webtorch::engine::tune(|t| t.batched_launches = Some(true));

    // A batch of one op runs that op's own kernel (a lone op read back at once is not delayed by
    // the interpreter); two ops share one launch.
    let x = on(Device::WebGpu, &xv, &[64]);
    for ops in [1, 2] {
        gpu.flush();
        let (d0, b0) = (gpu.stats().dispatches, gpu.stats().batched_ops);
        let mut y = x.binary_scalar(Op::Add, 1.0, false).unwrap();
        if ops == 2 {
            y = y.unary(Op::Exp).unwrap();
        }
        let want: Vec<f64> = xv.iter().map(|v| if ops == 2 { (v + 1.0).exp() } else { v + 1.0 }).collect();
        assert_close(&values(&y), &want, 1e-6, 1e-6, &format!("{ops} op(s)"));
        let got = (gpu.stats().dispatches - d0, gpu.stats().batched_ops - b0);
        assert_eq!(got, if ops == 1 { (1, 0) } else { (1, 2) }, "{ops} op(s): dispatches, batched ops");
    }

    // Every float op of the table, batched and one dispatch each: the same values.
    let pos: Vec<f64> = xv.iter().map(|v| 0.1 + 0.8 / (1.0 + (-v).exp())).collect();
    let all_ops = |dev: Device| -> Vec<Tensor> {
        let (a, b) = (on(dev, &pos, &[8, 8]), on(dev, &wv, &[8, 8]));
        webtorch::ops::TABLE
            .iter()
            .filter(|i| i.kind != webtorch::ops::ResultKind::Bool && i.supports(webtorch::dtype::Compute::F32))
            .map(|i| if i.arity() == 1 { a.unary(i.op).unwrap() } else { a.binary(i.op, &b).unwrap() })
            .collect()
    };
    // (A flush records the ops still waiting for their launch.)
    gpu.flush();
    let d0 = gpu.stats().dispatches;
    let batched: Vec<Tensor> = all_ops(Device::WebGpu);
    gpu.flush();
    let batched_dispatches = gpu.stats().dispatches - d0;
    webtorch::engine::tune(|t| t.batched_launches = Some(false));
    let d1 = gpu.stats().dispatches;
    let single: Vec<Tensor> = all_ops(Device::WebGpu);
    let single_dispatches = gpu.stats().dispatches - d1;
    webtorch::engine::tune(|t| t.batched_launches = Some(true));
    let cpu = all_ops(Device::Cpu);
    let names: Vec<&str> = webtorch::ops::TABLE
        .iter()
        .filter(|i| i.kind != webtorch::ops::ResultKind::Bool && i.supports(webtorch::dtype::Compute::F32))
        .map(|i| i.name)
        .collect();
    assert!(names.len() > 50, "{} float ops", names.len());
    assert_eq!(single_dispatches, names.len() as u64);
    // Each result is kept, so a batch binds the two inputs and at most 5 outputs.
    let bound = names.len().div_ceil(webtorch::backend::webgpu::batched::MAX_BUFFERS - 2) as u64;
    assert!(batched_dispatches <= bound, "{batched_dispatches} dispatches");
    for ((name, (b, s)), c) in names.iter().zip(batched.iter().zip(&single)).zip(&cpu) {
        assert_close(&values(b), &values(s), 1e-6, 1e-7, &format!("{name}: batched against one dispatch"));
        assert_close(&values(b), &values(c), 1e-4, 1e-5, &format!("{name}: batched against the CPU"));
    }

    // Operands of every kind, tiny products (a transposed one), more distinct buffers than one
    // batch binds, a reduction and a copy in between, and reuse of released buffers.
    let mixed = |dev: Device| {
        let x = on(dev, &xv, &[8, 8]);
        let m = on(dev, &mv, &[8, 8]);
        let one = on(dev, &[2.5], &[1]);
        let r = x.binary_scalar(Op::Sub, 1.0, true).unwrap(); // 1 - x
        let s = r.binary(Op::Mul, &one).unwrap(); // one element broadcast
        let (row, col) = (on(dev, &wv[..8], &[8]), on(dev, &wv[8..16], &[8, 1]));
        let s = s.binary(Op::Add, &row).unwrap().binary(Op::Sub, &col).unwrap(); // 2-D strided reads
        let p = s.matmul(&m).unwrap();
        let q = p.matmul(&m.transpose(0, 1).unwrap()).unwrap(); // b read through its strides
        let total = q.sum(&[], false).unwrap(); // a kernel of its own, after the batch
        let mut outs = vec![];
        let mut y = q.unary(Op::Tanh).unwrap();
        for i in 0..12 {
            // Kept alive: 12 more buffers than a batch binds.
            outs.push(y.binary(Op::Maximum, &x).unwrap());
            y = y.binary([Op::Add, Op::Sub, Op::Mul][i % 3], &outs[i]).unwrap().unary(Op::Sigmoid).unwrap();
        }
        let c = y.transpose(0, 1).unwrap().contiguous().unwrap(); // a transposed copy
        let z = c.binary(Op::Add, &total).unwrap().to_dtype(DType::Float32).unwrap();
        let mut all = values(&z);
        for o in &outs {
            all.extend(values(o));
        }
        all
    };
    let want = mixed(Device::Cpu);
    let b0 = gpu.stats().batched_ops;
    assert_close(&mixed(Device::WebGpu), &want, 1e-5, 1e-6, "mixed");
    // Every op of `mixed` but the sum: 4 elementwise, 2 products, tanh, 12 × 3 in the loop,
    // the copy and the last add.
    assert_eq!(gpu.stats().batched_ops - b0, 45, "batched ops");
    webtorch::engine::tune(|t| t.batched_launches = None);
}
