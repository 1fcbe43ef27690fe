#![cfg(not(target_arch = "wasm32"))]
//! Autograd on every native device: the tape, accumulation, broadcasting, retain_graph, hooks,
//! autograd.grad with create_graph (double backward), no_grad, and errors in PyTorch's words.
//! Per-op gradients against PyTorch live in the parity fixtures (tests/parity.rs).

mod common;

use common::{assert_close, devices, values};
use webtorch::autograd::{self, ops as ag};
use webtorch::dtype::ScalarKind;
use webtorch::{DType, Device, Op, Tensor};

fn leaf(data: &[f64], shape: &[usize], dev: Device) -> Tensor {
    let mut t = Tensor::from_f64(data, shape, DType::Float32, dev).unwrap();
    t.set_requires_grad(true).unwrap();
    t
}

#[test]
fn chain_rule_broadcast_and_accumulation() {
    for dev in devices() {
        // y = sum(relu(x * w + b) ^ 2), w broadcast over rows.
        let x = Tensor::from_f64(&[1., -2., 3., 4., 5., -6.], &[2, 3], DType::Float32, dev).unwrap();
        let w = leaf(&[0.5, 1.0, -1.0], &[3], dev);
        let b = leaf(&[0.1], &[1], dev);
        let h = ag::add(&ag::mul(&x, &w).unwrap(), &b).unwrap();
        assert_eq!(h.grad_fn().unwrap().name, "AddBackward0");
        let y = ag::sum(&ag::unary(&ag::unary(&h, Op::Relu).unwrap(), Op::Square).unwrap(), &[], false).unwrap();
        assert_eq!(y.grad_fn().unwrap().name, "SumBackward0");
        autograd::backward(&y, None, false, false).unwrap();
        // h = [[0.6, -1.9, -2.9], [2.1, 5.1, 6.1]]; dy/dh = 2 relu(h).
        let gw = values(&w.grad().unwrap());
        assert_close(&gw, &[2.0 * 0.6 * 1.0 + 2.0 * 2.1 * 4.0, 2.0 * 5.1 * 5.0, 2.0 * 6.1 * -6.0], 1e-5, 1e-5, "dw");
        assert_close(&values(&b.grad().unwrap()), &[2.0 * (0.6 + 2.1 + 5.1 + 6.1)], 1e-5, 1e-5, "db");
        assert!(x.grad().is_none() && !x.requires_grad());
        // A second backward through a freed graph is PyTorch's error; with retain_graph it accumulates.
        let e = autograd::backward(&y, None, false, false).unwrap_err();
        assert!(e.message.starts_with("Trying to backward through the graph a second time"));
        let z = ag::sum(&ag::scale(&w, 3.0).unwrap(), &[], false).unwrap();
        autograd::backward(&z, None, true, false).unwrap();
        autograd::backward(&z, None, false, false).unwrap();
        assert_close(&values(&w.grad().unwrap()), &[18.0 + 6.0, 51.0 + 6.0, -73.2 + 6.0], 1e-4, 1e-4, "accumulated");
    }
}

#[test]
fn matmul_views_and_mean() {
    for dev in devices() {
        let a = leaf(&[1., 2., 3., 4., 5., 6.], &[2, 3], dev);
        let b = leaf(&[1., 0., -1., 2., 0.5, 1.], &[3, 2], dev);
        let y = ag::mean(
            &ag::matmul(&ag::transpose(&ag::transpose(&a, 0, 1).unwrap(), 0, 1).unwrap(), &b).unwrap(),
            &[],
            false,
        )
        .unwrap();
        autograd::backward(&y, None, false, false).unwrap();
        // d mean(A B) / dA = (1/4) 1 B^T ; / dB = (1/4) A^T 1.
        assert_close(&values(&a.grad().unwrap()), &[0.25, 0.25, 0.375, 0.25, 0.25, 0.375], 1e-6, 1e-6, "dA");
        assert_close(&values(&b.grad().unwrap()), &[1.25, 1.25, 1.75, 1.75, 2.25, 2.25], 1e-6, 1e-6, "dB");
        // 1-D cases and reshape.
        let v = leaf(&[1., 2., 3.], &[3], dev);
        let m = leaf(&[1., 2., 3., 4., 5., 6.], &[3, 2], dev);
        let s = ag::sum(&ag::reshape(&ag::matmul(&v, &m).unwrap(), &[2, 1]).unwrap(), &[], false).unwrap();
        autograd::backward(&s, None, false, false).unwrap();
        assert_close(&values(&v.grad().unwrap()), &[3., 7., 11.], 0.0, 1e-6, "dv");
        assert_close(&values(&m.grad().unwrap()), &[1., 1., 2., 2., 3., 3.], 0.0, 1e-6, "dm");
    }
}

#[test]
fn autograd_grad_double_backward_hooks_and_modes() {
    for dev in devices() {
        let x = leaf(&[0.5, -1.0, 2.0], &[3], dev);
        // y = sum(x^3) : dy/dx = 3x^2, d2y/dx2 = 6x.
        let y = ag::sum(&ag::binary_scalar(&x, Op::Pow, 3.0, false, ScalarKind::Int).unwrap(), &[], false).unwrap();
        let g = autograd::grad(&[y], std::slice::from_ref(&x), &[None], true, true, false).unwrap().remove(0).unwrap();
        assert_close(&values(&g), &[0.75, 3.0, 12.0], 1e-5, 1e-5, "first");
        assert!(g.requires_grad(), "create_graph keeps a graph");
        let gg = ag::sum(&g, &[], false).unwrap();
        let h =
            autograd::grad(&[gg], std::slice::from_ref(&x), &[None], false, false, false).unwrap().remove(0).unwrap();
        assert_close(&values(&h), &[3.0, -6.0, 12.0], 1e-5, 1e-5, "second");
        assert!(x.grad().is_none(), "autograd.grad does not accumulate");
        // Hooks see and may replace gradients.
        let mut t = leaf(&[1.0, 2.0], &[2], dev);
        t.register_hook(std::rc::Rc::new(|g: &Tensor| Ok(Some(ag::scale(g, 10.0)?)))).unwrap();
        let mut mid = ag::scale(&t, 2.0).unwrap();
        mid.retain_grad().unwrap();
        autograd::backward(&ag::sum(&mid, &[], false).unwrap(), None, false, false).unwrap();
        assert_eq!(values(&mid.grad().unwrap()), vec![1.0, 1.0]);
        assert_eq!(values(&t.grad().unwrap()), vec![20.0, 20.0]);
        // no_grad records nothing.
        let n = autograd::with_grad_mode(false, || ag::scale(&t, 2.0).unwrap());
        assert!(!n.requires_grad() && n.grad_fn().is_none());
        // Errors.
        let c = Tensor::full(&[2], 1.0, DType::Float32, dev).unwrap();
        assert_eq!(
            autograd::backward(&c, None, false, false).unwrap_err().message,
            "element 0 of tensors does not require grad and does not have a grad_fn"
        );
        let two = ag::scale(&t, 1.0).unwrap();
        assert_eq!(
            autograd::backward(&two, None, false, false).unwrap_err().message,
            "grad can be implicitly created only for scalar outputs"
        );
        let mut i = Tensor::full(&[2], 1.0, DType::Int64, dev).unwrap();
        assert_eq!(
            i.set_requires_grad(true).unwrap_err().message,
            "only Tensors of floating point and complex dtype can require gradients"
        );
    }
}

#[test]
fn in_place_writes_views_and_version_checks() {
    for dev in devices() {
        // x.add_(1) on a whole tensor: every view of its storage sees the new values.
        let mut x = Tensor::from_f64(&[1., 2., 3., 4., 5., 6.], &[2, 3], DType::Float32, dev).unwrap();
        let xt = x.transpose(0, 1).unwrap();
        let r = ag::binary_scalar(&x, Op::Add, 1.0, false, ScalarKind::Int).unwrap();
        ag::inplace(&mut x, r).unwrap();
        assert_eq!(values(&xt), vec![2., 5., 3., 6., 4., 7.]);
        assert_eq!(x.version(), 1);
        // A write through a strided view (a column) leaves the rest alone.
        let mut col = ag::transpose(&x, 0, 1).unwrap().view(&[3, 2]).unwrap_or_else(|_| x.transpose(0, 1).unwrap());
        let col1 = Tensor::full(&[3, 2], 0.0, DType::Float32, dev).unwrap();
        ag::copy_(&mut col, &col1).unwrap();
        assert_eq!(values(&x), vec![0.; 6]);
        let mut row = x.transpose(0, 1).unwrap();
        let v = Tensor::from_f64(&[7., 8.], &[2], DType::Float32, dev).unwrap();
        ag::copy_(&mut row, &v).unwrap(); // broadcast [2] over [3, 2]
        assert_eq!(values(&x), vec![7., 7., 7., 8., 8., 8.]);
        // Int result into a float tensor is fine; a float result into an int tensor is not.
        let mut i = Tensor::full(&[2], 3.0, DType::Int64, dev).unwrap();
        let half = ag::binary_scalar(&i, Op::Div, 2.0, false, ScalarKind::Int).unwrap();
        assert_eq!(
            ag::inplace(&mut i, half).unwrap_err().message,
            "result type Float can't be cast to the desired output type Long"
        );
        // Autograd: a leaf that requires grad refuses in-place writes; a saved input that was
        // overwritten is PyTorch's version error; relu_ on an intermediate is fine.
        let mut w = leaf(&[1.0, -2.0], &[2], dev);
        let e = ag::binary_scalar(&w, Op::Add, 1.0, false, ScalarKind::Int).unwrap();
        assert_eq!(
            ag::inplace(&mut w, e).unwrap_err().message,
            "a leaf Variable that requires grad is being used in an in-place operation."
        );
        let mut h = ag::scale(&w, 3.0).unwrap();
        let y = ag::unary(&h, Op::Exp).unwrap();
        let r = ag::binary_scalar(&h, Op::Add, 1.0, false, ScalarKind::Int).unwrap();
        ag::inplace(&mut h, r).unwrap();
        let err = autograd::backward(&ag::sum(&y, &[], false).unwrap(), None, false, false).unwrap_err();
        assert!(err.message.starts_with("one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]], which is output 0 of MulBackward0, is at version 1; expected version 0 instead."), "{}", err.message);
        let mut z = ag::scale(&w, 2.0).unwrap();
        let rz = ag::unary(&z, Op::Relu).unwrap();
        ag::inplace(&mut z, rz).unwrap();
        assert_eq!(z.grad_fn().unwrap().name, "ReluBackward0");
        autograd::backward(&ag::sum(&z, &[], false).unwrap(), None, false, false).unwrap();
        assert_eq!(values(&w.grad().unwrap()), vec![2.0, 0.0]);
        // Attention saves its output (the backward's row dots `dO · O`): writing into it is the
        // version error, on the one-kernel route as on the products'.
        let q = leaf(&[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], &[2, 4], dev);
        let mut y = webtorch::autograd::attention::attention(&q, &q, &q, 0.5, true, None).unwrap();
        let r = ag::binary_scalar(&y, Op::Add, 1.0, false, ScalarKind::Int).unwrap();
        ag::inplace(&mut y, r).unwrap();
        let err = autograd::backward(&ag::sum(&y, &[], false).unwrap(), None, false, false).unwrap_err();
        assert!(
            err.message.starts_with("one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2, 4]]"),
            "{}",
            err.message
        );
    }
}

#[test]
fn slicing_views_and_their_gradients() {
    for dev in devices() {
        let base = Tensor::arange(0.0, 24.0, 1.0, DType::Float32, dev).unwrap();
        let x = leaf(&values(&base), &[4, 6], dev);
        let s = ag::slice(&x, 1, Some(-5), None, 2).unwrap(); // columns 1, 3, 5
        assert_eq!(s.shape(), &[4, 3]);
        assert_eq!(values(&s)[..3], [1., 3., 5.]);
        let r = ag::select(&x, 0, -1).unwrap(); // last row
        assert_eq!(values(&r), vec![18., 19., 20., 21., 22., 23.]);
        let n = ag::narrow(&x, 0, 1, 2).unwrap();
        let d = ag::diagonal(&x, 1, 0, 1).unwrap();
        assert_eq!(values(&d), vec![1., 8., 15., 22.]);
        let y = ag::add(
            &ag::add(&ag::sum(&s, &[], false).unwrap(), &ag::sum(&r, &[], false).unwrap()).unwrap(),
            &ag::add(&ag::sum(&n, &[], false).unwrap(), &ag::sum(&d, &[], false).unwrap()).unwrap(),
        )
        .unwrap();
        autograd::backward(&y, None, false, false).unwrap();
        let g = values(&x.grad().unwrap());
        // row 0: cols 1,3,5 from the slice (+1 at col 1 from the diagonal)
        assert_eq!(g[..6], [0., 2., 0., 1., 0., 1.]);
        // row 1 (narrow + slice + diagonal at col 2)
        assert_eq!(g[6..12], [1., 2., 2., 2., 1., 2.]);
        // row 3 (select + slice + diagonal at col 4)
        assert_eq!(g[18..24], [1., 2., 1., 2., 2., 2.]);
        let e = x.select(0, 4).unwrap_err();
        assert_eq!(e.message, "select(): index 4 out of range for tensor of size [4, 6] at dimension 0");
        let u = base.unfold(0, 5, 5).unwrap();
        assert_eq!(u.shape(), &[4, 5]);
        assert_eq!(values(&u)[5..10], [5., 6., 7., 8., 9.]);
        let m = Tensor::full(&[2, 3, 4], 1.0, DType::Float32, dev).unwrap().movedim(&[0], &[2]).unwrap();
        assert_eq!(m.shape(), &[3, 4, 2]);
    }
}

/// Second derivatives through the picking views (narrow, slice with a step, select): their
/// backward (the upstream written into zeros) is itself recorded under `create_graph`, as
/// PyTorch's; it used to cut the graph, so a double backward through a strided convolution's
/// input gradient (which narrows and slices) failed.
#[test]
fn picking_views_pass_second_derivatives() {
    for dev in devices() {
        let data = [0.5, -1.0, 2.0, 1.5, -0.5, 3.0];
        let cube = |t: &Tensor| ag::binary_scalar(t, Op::Pow, 3.0, false, ScalarKind::Int).unwrap();
        // (name, the view, which elements it picks)
        type Pick = (&'static str, Box<dyn Fn(&Tensor) -> Tensor>, [f64; 6]);
        let picks: [Pick; 3] = [
            ("narrow", Box::new(|x| ag::narrow(x, 0, 1, 3).unwrap()), [0., 1., 1., 1., 0., 0.]),
            ("slice", Box::new(|x| ag::slice(x, 0, Some(1), None, 2).unwrap()), [0., 1., 0., 1., 0., 1.]),
            ("select", Box::new(|x| ag::select(x, 0, 4).unwrap()), [0., 0., 0., 0., 1., 0.]),
        ];
        for (name, pick, on_) in picks {
            let x = leaf(&data, &[6], dev);
            // y = Σ pick(x)³: dy/dx = 3x² where picked, d/dx Σ dy/dx = 6x there.
            let y = ag::sum(&cube(&pick(&x)), &[], false).unwrap();
            let g =
                autograd::grad(&[y], std::slice::from_ref(&x), &[None], true, true, false).unwrap().remove(0).unwrap();
            let first: Vec<f64> = data.iter().zip(on_).map(|(v, m)| 3.0 * v * v * m).collect();
            assert_close(&values(&g), &first, 1e-5, 1e-5, &format!("{name}: first"));
            assert!(g.requires_grad(), "{name}: create_graph keeps a graph");
            let h = autograd::grad(
                &[ag::sum(&g, &[], false).unwrap()],
                std::slice::from_ref(&x),
                &[None],
                false,
                false,
                false,
            )
            .unwrap()
            .remove(0)
            .unwrap();
            let second: Vec<f64> = data.iter().zip(on_).map(|(v, m)| 6.0 * v * m).collect();
            assert_close(&values(&h), &second, 1e-5, 1e-5, &format!("{name}: second"));
        }
    }
}

/// An in-place op on a whole tensor runs its result's expression straight into the new storage
/// (one kernel, `Tensor::assign_owned_`), while pending expressions that read the old values —
/// made before — still see them; a small tensor's computed result becomes its buffer; the
/// value, if someone else holds it, is computed and copied as before.
#[test]
fn in_place_results_run_once_into_the_new_storage() {
    let n = 4096;
    let data: Vec<f64> = (0..n).map(|i| (i % 97) as f64 - 40.0).collect();
    for dev in devices() {
        let be = webtorch::engine::backend(dev).unwrap();
        let mut x = Tensor::from_f64(&data, &[n], DType::Float32, dev).unwrap();
        let before_write = ag::scale(&x, 2.0).unwrap(); // pending, reads the old x
        pollster::block_on(be.sync()).unwrap_or(());
        let d0 = be.stats().dispatches;
        let r = ag::binary_scalar(&ag::unary(&x, Op::Relu).unwrap(), Op::Add, 1.0, false, ScalarKind::Int).unwrap();
        ag::inplace(&mut x, r).unwrap();
        let writes = be.stats().dispatches - d0;
        let new: Vec<f64> = data.iter().map(|v| v.max(0.0) + 1.0).collect();
        assert_eq!(values(&x), new, "{dev:?}: x after relu + 1");
        let old2: Vec<f64> = data.iter().map(|v| v * 2.0).collect();
        assert_eq!(values(&before_write), old2, "{dev:?}: a reader made before the write");
        if dev == Device::WebGpu {
            // The write's kernel, and the earlier reader computed before the buffer changed.
            assert_eq!(writes, 2, "{dev:?}: dispatches of the write");
        }
        // A small tensor (its op runs at once, below the fusion's min_size): the result's
        // buffer becomes the tensor's, no copy. (int32: int64 arithmetic adds its range check.)
        let mut t = Tensor::full(&[3], 1.0, DType::Int32, dev).unwrap();
        pollster::block_on(be.sync()).unwrap_or(());
        let d0 = be.stats().dispatches;
        let r = ag::binary_scalar(&t, Op::Add, 1.0, false, ScalarKind::Int).unwrap();
        ag::inplace(&mut t, r).unwrap();
        let small = be.stats().dispatches - d0;
        assert_eq!(values(&t), vec![2.0; 3], "{dev:?}: a small tensor's add_");
        if dev == Device::WebGpu {
            assert_eq!(small, 1, "{dev:?}: dispatches of a small add_");
        }
        // A value someone still holds keeps its own (old) values.
        let kept = ag::scale(&x, 3.0).unwrap();
        let held = kept.clone();
        ag::inplace(&mut x, kept).unwrap();
        let want: Vec<f64> = new.iter().map(|v| v * 3.0).collect();
        assert_eq!(values(&held), want, "{dev:?}: the held value");
        assert_eq!(values(&x), want, "{dev:?}: x after the second write");
    }
}

/// Batch norm over batch statistics is one node with PyTorch's closed-form backward
/// (`pool.rs` `Stats::normalized`): its first and second derivatives (the latter through the
/// recorded `create_graph` backward, over x and the weight) against batch norm composed here of
/// differentiable ops, with and without the affine parameters, on every device; and on the GPU
/// fewer backward kernels than the composition's: two fused sums (Σdy and Σdy·(x − mean)) and
/// one elementwise pass for dx reading dy, x − mean and the per-channel terms unwritten.
#[test]
fn batch_norm_node_matches_its_composition() {
    use webtorch::autograd::pool::batch_norm;
    let shape = [4usize, 3, 16, 16];
    let data: Vec<f64> = (0..3072).map(|i| ((i * 37 % 101) as f64 / 17.0).sin() * 2.0 + 0.5).collect();
    let r: Vec<f64> = (0..3072).map(|i| ((i * 53 % 97) as f64 / 11.0).cos()).collect();
    let s: Vec<f64> = (0..3072).map(|i| ((i * 29 % 89) as f64 / 7.0).sin()).collect();
    let composed = |x: &Tensor, w: Option<&Tensor>, b: Option<&Tensor>| {
        let dims = [0i64, 2, 3];
        let mean = ag::mean(x, &dims, true).unwrap();
        let dev = ag::sub(x, &mean).unwrap();
        let var = ag::mean(&ag::mul(&dev, &dev).unwrap(), &dims, true).unwrap();
        let rstd = ag::unary(&ag::add_scalar(&var, 1e-5).unwrap(), Op::Rsqrt).unwrap();
        let mut y = ag::mul(&dev, &rstd).unwrap();
        if let Some(w) = w {
            y = ag::mul(&y, &ag::reshape(w, &[1, 3, 1, 1]).unwrap()).unwrap();
        }
        if let Some(b) = b {
            y = ag::add(&y, &ag::reshape(b, &[1, 3, 1, 1]).unwrap()).unwrap();
        }
        y
    };
    // The forward in training with running statistics, then a ReLU: the mean, the variance,
    // each running statistic's update (one kernel into its new storage) and one kernel for the
    // output with the ReLU (rsqrt(var + eps) inside it).
    for dev in devices() {
        let be = webtorch::engine::backend(dev).unwrap();
        let x = Tensor::from_f64(&data, &shape, DType::Float32, dev).unwrap();
        let rm = Tensor::full(&[3], 0.5, DType::Float32, dev).unwrap();
        let rv = Tensor::full(&[3], 2.0, DType::Float32, dev).unwrap();
        pollster::block_on(be.sync()).unwrap();
        let before = be.stats().dispatches;
        let y = batch_norm(&x, Some(&rm), Some(&rv), None, None, true, 0.1, 1e-5).unwrap();
        let y = ag::unary(&y, Op::Relu).unwrap();
        let got = values(&y);
        let dispatches = be.stats().dispatches - before;
        let want: Vec<f64> = values(&composed(&x, None, None)).iter().map(|v| v.max(0.0)).collect();
        assert_close(&got, &want, 1e-4, 1e-5, &format!("{dev:?}: relu(batch_norm(x))"));
        let mean: Vec<f64> = (0..3).map(|c| values(&x.select(1, c).unwrap()).iter().sum::<f64>() / 1024.0).collect();
        let rm_want: Vec<f64> = mean.iter().map(|m| 0.9 * 0.5 + 0.1 * m).collect();
        assert_close(&values(&rm), &rm_want, 1e-5, 1e-5, &format!("{dev:?}: running mean"));
        if dev == Device::WebGpu {
            assert_eq!(dispatches, 5, "{dev:?}: forward dispatches");
        }
    }
    for dev in devices() {
        for affine in [true, false] {
            // (dx, dw, d/dx and d/dw of Σ dx·s) and the backward's dispatches.
            let run = |node: bool| {
                let x = leaf(&data, &shape, dev);
                let w = leaf(&[1.5, -0.5, 0.75], &[3], dev);
                let b = leaf(&[0.1, 0.2, -0.3], &[3], dev);
                let (wo, bo) = if affine { (Some(&w), Some(&b)) } else { (None, None) };
                let y = if node {
                    batch_norm(&x, None, None, wo, bo, true, 0.1, 1e-5).unwrap()
                } else {
                    composed(&x, wo, bo)
                };
                let loss = ag::sum(
                    &ag::mul(&y, &Tensor::from_f64(&r, &shape, DType::Float32, dev).unwrap()).unwrap(),
                    &[],
                    false,
                )
                .unwrap();
                let be = webtorch::engine::backend(dev).unwrap();
                pollster::block_on(be.sync()).unwrap();
                let before = be.stats().dispatches;
                let first =
                    autograd::grad(std::slice::from_ref(&loss), &[x.clone(), w.clone()], &[None], true, false, true)
                        .unwrap();
                let dx = values(first[0].as_ref().unwrap());
                let dispatches = be.stats().dispatches - before;
                let dw = first[1].as_ref().map(values);
                let g = autograd::grad(&[loss], std::slice::from_ref(&x), &[None], true, true, false)
                    .unwrap()
                    .remove(0)
                    .unwrap();
                let sg = ag::sum(
                    &ag::mul(&g, &Tensor::from_f64(&s, &shape, DType::Float32, dev).unwrap()).unwrap(),
                    &[],
                    false,
                )
                .unwrap();
                let second = autograd::grad(&[sg], &[x, w], &[None], false, false, true).unwrap();
                (dx, dw, values(second[0].as_ref().unwrap()), second[1].as_ref().map(values), dispatches)
            };
            let (got, want) = (run(true), run(false));
            let what = format!("{dev:?}, affine {affine}");
            assert_close(&got.0, &want.0, 1e-4, 1e-5, &format!("{what}: dx"));
            assert_eq!(got.1.is_some(), affine, "{what}: dw only with a weight");
            if let (Some(a), Some(b)) = (&got.1, &want.1) {
                assert_close(a, b, 1e-4, 1e-5, &format!("{what}: dw"));
            }
            assert_close(&got.2, &want.2, 1e-3, 1e-4, &format!("{what}: d²/dx"));
            if let (Some(a), Some(b)) = (&got.3, &want.3) {
                assert_close(a, b, 1e-3, 1e-4, &format!("{what}: d²/dw"));
            }
            if dev == Device::WebGpu {
                // Two fused sums and dx in one kernel that recomputes dy, x − mean and the
                // per-channel coefficients (10 and 8 when each coefficient was a tiny kernel of
                // its own, 12 and 10 when dy and x − mean were also written out; composed: 14
                // and 11).
                let expect = if affine { 7 } else { 4 };
                assert_eq!(got.4, expect, "{what}: backward dispatches (composed: {})", want.4);
            }
        }
    }
}
