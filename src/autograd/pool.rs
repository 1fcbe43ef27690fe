//! Pooling and batch normalization. Max pooling is `max(dim)` over the windows of the
//! `-inf`-padded input (the gradient goes to the first maximum, as PyTorch's), or — 1-D and 2-D
//! float32 on a backend with the kernels — one node of two kernels (`max_pool_kernel`); average
//! pooling a window sum over a host-computed divisor (count_include_pad, ceil_mode and
//! divisor_override decide it); adaptive average pooling one averaging matmul per spatial dim;
//! batch norm over batch statistics one node with PyTorch's closed-form backward
//! (`Stats::normalized`), over running statistics composed, the running statistics updated in
//! place. Composed pieces get their gradients from the pieces' rules.

use super::conv::{pad, windows};
use super::kernels as agk;
use super::ops as o;
use crate::bail;
use crate::dtype::{DType, ScalarKind};
use crate::error::Result;
use crate::ops::Op;
use crate::shape::fmt_shape;
use crate::tensor::conv::expand_arg;
use crate::tensor::{Tensor, TensorOrScalar};

/// The geometry of one pooling call, per spatial dim.
struct Pool {
    kernel: Vec<usize>,
    stride: Vec<usize>,
    pad: Vec<usize>,
    dilation: Vec<usize>,
    out: Vec<usize>,
    /// Extra right padding that ceil_mode's last window needs.
    extra: Vec<usize>,
}

fn x_join(v: &[usize]) -> String {
    v.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("x")
}

/// PyTorch's `pooling_output_shape` and the checks of `pool2d_shape_check`.
fn geometry(
    x: &Tensor,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil_mode: bool,
) -> Result<Pool> {
    let k = kernel.len();
    let kernel = expand_arg("kernel_size", kernel, k)?;
    let stride = if stride.is_empty() { kernel.clone() } else { expand_arg("stride", stride, k)? };
    let padding = expand_arg("padding", padding, k)?;
    let dilation = expand_arg("dilation", dilation, k)?;
    if stride.contains(&0) {
        bail!(Torch, "stride should not be zero");
    }
    if kernel.iter().chain(&stride).chain(&dilation).any(|&v| v <= 0) || padding.iter().any(|&p| p < 0) {
        bail!(Torch, "kernel size, stride and dilation should be greater than zero, and padding non-negative");
    }
    for i in 0..k {
        if padding[i] > (dilation[i] * (kernel[i] - 1) + 1) / 2 {
            bail!(
                Torch,
                "pad should be at most half of effective kernel size, but got pad={}, kernel_size={} and dilation={}",
                padding[i],
                kernel[i],
                dilation[i]
            );
        }
    }
    let u = |v: &[i64]| v.iter().map(|&s| s as usize).collect::<Vec<usize>>();
    let (kernel, stride, pad, dilation) = (u(&kernel), u(&stride), u(&padding), u(&dilation));
    let spatial = &x.shape()[x.ndim() - k..];
    let (mut out, mut extra) = (vec![], vec![]);
    for i in 0..k {
        let (s, eff) = (spatial[i] as i64, (dilation[i] * (kernel[i] - 1) + 1) as i64);
        let (st, p) = (stride[i] as i64, pad[i] as i64);
        let num = s + 2 * p - eff + if ceil_mode { st - 1 } else { 0 };
        let mut n = if num < 0 { 0 } else { num / st + 1 };
        if ceil_mode && n > 0 && (n - 1) * st >= s + p {
            n -= 1;
        }
        out.push(n.max(0) as usize);
        extra.push(((n - 1) * st + eff - (s + 2 * p)).max(0) as usize);
    }
    if out.contains(&0) {
        let c = x.shape()[x.ndim() - k - 1];
        bail!(
            Torch,
            "Given input size: ({c}x{}{}). Calculated output size: ({c}x{}{}). Output size is too small",
            if k == 1 { "1x" } else { "" },
            x_join(spatial),
            if k == 1 { "1x" } else { "" },
            x_join(&out)
        );
    }
    Ok(Pool { kernel, stride, pad, dilation, out, extra })
}

/// Checks the rank (`k + 1` or `k + 2` dims, non-empty) and dtype of a pooling input.
fn check_input(name: &str, x: &Tensor, k: usize) -> Result<()> {
    let nd = x.ndim();
    if nd < k + 1 {
        // PyTorch's per-op wording of a missing dim (max_pool1d's is the general one below).
        if name == "avg_pool1d" {
            bail!(
                Torch,
                "Expected 2 to 3 dimensions, but got {nd}-dimensional tensor for argument #1 'self' (while checking arguments for {name})"
            );
        }
        if name == "avg_pool2d" && nd == 1 {
            bail!(Index, "Dimension out of range (expected to be in range of [-1, 0], but got -3)");
        }
    }
    // A batch of 0 is allowed; an empty channel or spatial dim is not.
    let empty_plane = nd > k && x.shape()[nd - k - 1..].contains(&0);
    if (nd != k + 1 && nd != k + 2) || empty_plane {
        if k >= 2 && (k == 2 || nd < k + 1) {
            bail!(Torch, "non-empty {}D or {}D (batch mode) tensor expected for input", k + 1, k + 2);
        }
        bail!(
            Torch,
            "{name}: Expected {}D or {}D (batch mode) tensor with optional 0 dim batch size for input, but got:{}",
            k + 1,
            k + 2,
            fmt_shape(x.shape())
        );
    }
    // PyTorch's kernels and the names its messages give them: max pooling takes integers from
    // 2-D up (its 1-D kernel is floating-point only), average pooling int64 nowhere here.
    let int_ok = name.starts_with("max_pool") && k >= 2 && x.dtype != DType::Bool;
    if !x.dtype.is_float() && !int_ok {
        let kernel = match name {
            "max_pool1d" => "max_pool1d_impl",
            "avg_pool1d" => "avg_pool2d",
            "avg_pool3d" => "avg_pool3d_out_frame",
            n => n,
        };
        bail!(DType, "\"{kernel}\" not implemented for '{}'", x.dtype.scalar_name());
    }
    Ok(())
}

/// PyTorch's `max_pool1d` checks its window with its own messages (its other poolings, 1-D
/// average pooling included, run as 2-D ones: `geometry`'s).
fn max_pool1d_checks(
    x: &Tensor,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil_mode: bool,
) -> Result<()> {
    let one = |v: &[i64], d: i64| v.first().copied().unwrap_or(d);
    let (ks, pd, dl) = (one(kernel, 1), one(padding, 0), one(dilation, 1));
    let st = one(stride, ks);
    if st <= 0 {
        bail!(Torch, "max_pool1d() stride must be greater than zero, but got {st}");
    }
    if ks > 0 && pd > ks / 2 {
        bail!(
            Torch,
            "max_pool1d() padding should be at most half of kernel size, but got padding={pd} and kernel_size={ks}"
        );
    }
    if ks > 0 && dl > 0 && pd >= 0 {
        let (l, eff) = (*x.shape().last().unwrap_or(&0) as i64, dl * (ks - 1) + 1);
        let num = l + 2 * pd - eff + if ceil_mode { st - 1 } else { 0 };
        let mut n = if num < 0 { 0 } else { num / st + 1 };
        if ceil_mode && n > 0 && (n - 1) * st >= l + pd {
            n -= 1;
        }
        if n <= 0 {
            bail!(Torch, "max_pool1d() Invalid computed output size: {n}");
        }
    }
    Ok(())
}

/// The windows of `x` padded with `value`: `[*lead, *out, prod(kernel)]`.
fn pooled_windows(x: &Tensor, p: &Pool, value: f64) -> Result<Tensor> {
    let spec: Vec<(i64, i64, usize)> =
        (0..p.kernel.len()).map(|i| (p.pad[i] as i64, (p.pad[i] + p.extra[i]) as i64, 0)).collect();
    let w = windows(&pad(x, &spec, value)?, &p.kernel, &p.stride, &p.dilation)?;
    let mut shape: Vec<i64> = w.shape()[..x.ndim()].iter().map(|&s| s as i64).collect();
    shape.push(p.kernel.iter().product::<usize>() as i64);
    o::reshape(&w, &shape)
}

/// `F.max_pool{k}d(x, kernel_size, stride, padding, dilation, ceil_mode)`; `stride` empty: the
/// kernel size. `kernel.len()` is `k`.
pub fn max_pool(
    x: &Tensor,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil_mode: bool,
) -> Result<Tensor> {
    let k = kernel.len();
    check_input(&format!("max_pool{k}d"), x, k)?;
    if k == 1 {
        max_pool1d_checks(x, kernel, stride, padding, dilation, ceil_mode)?;
    }
    let p = geometry(x, kernel, stride, padding, dilation, ceil_mode)?;
    if let Some(y) = max_pool_kernel(x, &p)? {
        return Ok(y);
    }
    // Padding below every value of the dtype, so it never wins a window.
    let low = match x.dtype {
        DType::UInt8 => 0.0,
        DType::Int32 | DType::Int64 => i32::MIN as f64,
        _ => f64::NEG_INFINITY,
    };
    let w = pooled_windows(x, &p, low)?;
    Ok(agk::extreme_dim(&w, -1, false, true)?.0)
}

/// 1-D and 2-D float32 max pooling by the pooling family's kernels (`ops/pool/`), one node:
/// the forward keeps each window's first maximum's position, the backward sums the gradient
/// into those positions (one pass over the input, no atomics). The composition over windows
/// materialised every window (`[N, C, oh, ow, kh·kw]`), reduced it twice (values, positions)
/// and scattered the gradient back through the padded input, several times the kernels' GPU
/// time on a ResNet-18 step (bench/KERNELS.md, "The ResNet-18 step, traced"). A 1-D pooling is a 2-D one of height 1; a missing batch dim is 1. With
/// `create_graph` the backward is a differentiable scatter_add at the same positions.
fn max_pool_kernel(x: &Tensor, p: &Pool) -> Result<Option<Tensor>> {
    let k = p.kernel.len();
    if k > 2 || x.dtype != DType::Float32 || x.numel() == 0 || !x.backend().capabilities().fused_kernels {
        return Ok(None);
    }
    let nd = x.ndim();
    let two = |v: &[usize], fill: usize| if k == 2 { [v[0], v[1]] } else { [fill, v[0]] };
    let n = if nd == k + 2 { x.shape()[0] } else { 1 };
    let c = x.shape()[nd - k - 1];
    let hw = two(&x.shape()[nd - k..], 1);
    let g = crate::ops::pool::PoolGeometry {
        input: [n, c, hw[0], hw[1]],
        out_hw: two(&p.out, 1),
        kernel: two(&p.kernel, 1),
        stride: two(&p.stride, 1),
        pad: two(&p.pad, 0),
        dilation: two(&p.dilation, 1),
    };
    let x4 = x.reshape(&g.input.map(|v| v as i64))?;
    let grad = super::needs_grad(&[x]);
    let Some((y4, idx)) = x4.max_pool2d_direct(&g, grad)? else { return Ok(None) };
    let mut shape: Vec<i64> = x.shape()[..nd - k].iter().map(|&v| v as i64).collect();
    shape.extend(p.out.iter().map(|&v| v as i64));
    let mut y = y4.reshape(&shape)?;
    if let Some(idx) = idx {
        let x_shape: Vec<i64> = x.shape().iter().map(|&v| v as i64).collect();
        let [n, c, oh, ow] = [n, c, g.out_hw[0], g.out_hw[1]].map(|v| v as i64);
        let name = if k == 2 { "MaxPool2DWithIndicesBackward0" } else { "MaxPool1DWithIndicesBackward0" };
        super::record(
            name,
            &[x],
            &[],
            &mut [&mut y],
            Box::new(move |gs| {
                let gy = super::ops::first(gs)?;
                if super::is_grad_enabled() {
                    let plane = g.input[2] * g.input[3];
                    let zeros = Tensor::full(&[g.input[0], g.input[1], plane], 0.0, DType::Float32, gy.device())?;
                    let src = o::reshape(gy, &[n, c, oh * ow])?;
                    let gx = agk::scatter_add(&zeros, 2, &idx.reshape(&[n, c, oh * ow])?, &src)?;
                    return Ok(vec![Some(o::reshape(&gx, &x_shape)?)]);
                }
                let gx = gy.reshape(&[n, c, oh, ow])?.max_pool2d_backward_direct(&idx, &g)?;
                Ok(vec![Some(gx.reshape(&x_shape)?)])
            }),
        );
    }
    Ok(Some(y))
}

/// `F.avg_pool{k}d(x, kernel_size, stride, padding, ceil_mode, count_include_pad,
/// divisor_override)`.
pub fn avg_pool(
    x: &Tensor,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Option<i64>,
) -> Result<Tensor> {
    let k = kernel.len();
    check_input(&format!("avg_pool{k}d"), x, k)?;
    if k == 3 {
        // PyTorch's 3-D average pooling checks the window against the unpadded input first.
        let ks = expand_arg("kernel_size", kernel, 3)?;
        let sp: Vec<i64> = x.shape()[x.ndim() - 3..].iter().map(|&s| s as i64).collect();
        if ks.iter().all(|&v| v > 0) && (0..3).any(|i| sp[i] < ks[i]) {
            bail!(
                Torch,
                "input image (T: {} H: {} W: {}) smaller than kernel size (kT: {} kH: {} kW: {})",
                sp[0],
                sp[1],
                sp[2],
                ks[0],
                ks[1],
                ks[2]
            );
        }
    }
    if divisor_override == Some(0) {
        bail!(Torch, "divisor must be not zero");
    }
    let p = geometry(x, kernel, stride, padding, &[1], ceil_mode)?;
    let sums = o::sum(&pooled_windows(x, &p, 0.0)?, &[-1], false)?;
    if let Some(d) = divisor_override {
        return o::scale(&sums, 1.0 / d as f64);
    }
    // Each window's divisor, as PyTorch's kernels count it: the window clipped to the padded
    // input (ceil_mode's overhang never counts), and to the input itself without count_include_pad.
    let spatial = &x.shape()[x.ndim() - k..];
    let mut div = vec![1.0f64];
    for (i, &size) in spatial.iter().enumerate() {
        let (s, pd) = (size as i64, p.pad[i] as i64);
        let counts: Vec<f64> = (0..p.out[i] as i64)
            .map(|o_| {
                let start = o_ * p.stride[i] as i64 - pd;
                let end = (start + p.kernel[i] as i64).min(s + pd);
                if count_include_pad {
                    (end - start) as f64
                } else {
                    (end.min(s) - start.max(0)) as f64
                }
            })
            .collect();
        div = div.iter().flat_map(|&a| counts.iter().map(move |&b| a * b)).collect();
    }
    let divisor = Tensor::from_f64(&div, &p.out, DType::Float32, x.device())?;
    o::div(&sums, &divisor)
}

/// The `[out, size]` matrix averaging PyTorch's adaptive windows `[⌊i·size/out⌋, ⌈(i+1)·size/out⌉)`,
/// and the bool matrix of each window's positions.
fn averaging(size: usize, out: usize, like: &Tensor) -> Result<(Tensor, Tensor)> {
    crate::engine::check_host_alloc("adaptive_avg_pool", out.saturating_mul(size), 8, 3)?;
    let (mut m, mut inside) = (vec![0.0; out * size], vec![0.0; out * size]);
    for i in 0..out {
        let (a, b) = (i * size / out, ((i + 1) * size).div_ceil(out));
        for j in a..b {
            m[i * size + j] = 1.0 / (b - a) as f64;
            inside[i * size + j] = 1.0;
        }
    }
    Ok((
        Tensor::from_f64(&m, &[out, size], DType::Float32, like.device())?,
        Tensor::from_f64(&inside, &[out, size], DType::Bool, like.device())?,
    ))
}

/// `F.adaptive_avg_pool{k}d(x, output_size)`: per spatial dim, each window's elements weighted
/// by the averaging matrix and summed (within a rounding of the window sums). The weights outside
/// a window are masked out rather than multiplied in, as a matmul with the matrix would: an
/// infinity outside a window must not turn it NaN (`inf · 0`).
pub fn adaptive_avg_pool(x: &Tensor, output_size: &[i64]) -> Result<Tensor> {
    let k = output_size.len();
    if k == 1 && !(2..=3).contains(&x.ndim()) {
        bail!(
            Torch,
            "Expected 2 to 3 dimensions, but got {}-dimensional tensor for argument #1 'self' (while checking arguments for adaptive_avg_pool1d)",
            x.ndim()
        );
    }
    if x.ndim() < k + 1 {
        bail!(Torch, "Input dimension should be at least {}", k + 1);
    }
    if x.ndim() > k + 2 {
        bail!(
            Torch,
            "adaptive_avg_pool{k}d(): Expected {}D or {}D tensor, but got {}",
            k + 1,
            k + 2,
            fmt_shape(x.shape())
        );
    }
    if let Some(d) = (x.ndim() - k - 1..x.ndim()).find(|&d| x.shape()[d] == 0) {
        bail!(
            Torch,
            "adaptive_avg_pool{k}d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes {} with dimension {d} being empty",
            fmt_shape(x.shape())
        );
    }
    if !x.dtype.is_float() {
        // PyTorch's kernel names: the 1-D pooling runs as the 2-D one.
        let kernel = ["adaptive_avg_pool2d", "adaptive_avg_pool2d", "adaptive_avg_pool3d_cpu"][k.clamp(1, 3) - 1];
        bail!(DType, "\"{kernel}\" not implemented for '{}'", x.dtype.scalar_name());
    }
    if output_size.iter().any(|&s| s < 0) {
        // PyTorch's wording: the 1-D size as the 2-D one (1, size); the 3-D list without its
        // last space.
        let sizes: Vec<String> = if k == 1 {
            vec!["1".into(), output_size[0].to_string()]
        } else {
            output_size.iter().map(|s| s.to_string()).collect()
        };
        let list = if k == 3 { format!("{}, {},{}", sizes[0], sizes[1], sizes[2]) } else { sizes.join(", ") };
        bail!(
            Torch,
            "adaptive_avg_pool{}d: elements of output_size must be greater than or equal to 0 but received {{{list}}}",
            k.max(2)
        );
    }
    let n = x.ndim();
    let mut y = x.clone();
    for (i, &size) in output_size.iter().enumerate() {
        let d = (n - k + i) as i64;
        let (a, inside) = averaging(x.shape()[d as usize], size as usize, x)?;
        // Move dim d last, weight each window [.., out, size], sum, move it back.
        let moved = o::unsqueeze(&o::transpose(&y, d, -1)?, -2)?;
        let w = agk::where_(
            &inside,
            TensorOrScalar::Tensor(&o::mul(&moved, &a)?),
            TensorOrScalar::Scalar(0.0, ScalarKind::Float),
        )?;
        y = o::transpose(&o::sum(&w, &[-1], false)?, d, -1)?;
    }
    Ok(y)
}

/// `F.batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps)` over the
/// channel dim 1. Training: batch statistics (biased variance), and running statistics updated in
/// place with `momentum` (the unbiased variance, as PyTorch); eval: the running statistics.
#[allow(clippy::too_many_arguments)]
pub fn batch_norm(
    x: &Tensor,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    training: bool,
    momentum: f64,
    eps: f64,
) -> Result<Tensor> {
    if x.ndim() < 2 {
        bail!(Shape, "batch_norm: expected a 2D or higher input (got {}D)", x.ndim());
    }
    if !x.dtype.is_float() {
        bail!(DType, "\"batch_norm\" not implemented for '{}'", x.dtype.scalar_name());
    }
    let c = x.shape()[1];
    for (name, t) in [("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)]
    {
        if let Some(t) = t {
            if t.numel() != c {
                bail!(Torch, "{name} should contain {c} elements not {}", t.numel());
            }
        }
    }
    let count = x.numel() / c.max(1);
    if training && count <= 1 {
        bail!(
            Shape,
            "Expected more than 1 value per channel when training, got input size torch.Size({})",
            fmt_shape(x.shape())
        );
    }
    let dims: Vec<i64> = (0..x.ndim() as i64).filter(|&d| d != 1).collect();
    let mut bshape = vec![1i64; x.ndim()];
    bshape[1] = c as i64;
    let w = weight.map(|w| o::reshape(w, &bshape)).transpose()?;
    let b = bias.map(|b| o::reshape(b, &bshape)).transpose()?;
    let (Some(rm), Some(rv), false) = (running_mean, running_var, training) else {
        let stats = Stats { dims, eps };
        // The statistics, the running statistics' updates, then the output: its kernel stays
        // pending (within the fusion window) for what follows, a ReLU or a residual add.
        let (mean, var) =
            crate::tensor::fusion::with_small_fused(|| super::with_grad_mode(false, || stats.moments(x)))?;
        if training {
            // Per-channel updates, each one kernel into the statistic's new storage.
            crate::tensor::fusion::with_small_fused(|| {
                super::with_grad_mode(false, || -> Result<()> {
                    let shape = |t: &Tensor| t.shape().iter().map(|&s| s as i64).collect::<Vec<_>>();
                    let blend = |r: &Tensor, batch: Tensor| -> Result<Tensor> {
                        let v = o::add(&o::scale(r, 1.0 - momentum)?, &o::scale(&batch, momentum)?)?;
                        v.reshape(&shape(r))
                    };
                    if let Some(rm) = running_mean {
                        rm.assign_owned_(blend(rm, mean.reshape(&[-1])?)?)?;
                    }
                    if let Some(rv) = running_var {
                        let unbiased = count as f64 / (count - 1) as f64;
                        let f = ScalarKind::Float;
                        rv.assign_owned_(blend(
                            rv,
                            o::binary_scalar(&var.reshape(&[-1])?, Op::Mul, unbiased, false, f)?,
                        )?)?;
                    }
                    Ok(())
                })
            })?;
        }
        return stats.normalized(x, &mean, &var, w.as_ref(), b.as_ref());
    };
    // Evaluation with running statistics: composed (their gradient, when asked, comes from the
    // pieces' rules).
    let rstd = o::unary(&o::add_scalar(&o::reshape(rv, &bshape)?, eps)?, Op::Rsqrt)?;
    let mut y = o::mul(&o::sub(x, &o::reshape(rm, &bshape)?)?, &rstd)?;
    if let Some(w) = &w {
        y = o::mul(&y, w)?;
    }
    if let Some(b) = &b {
        y = o::add(&y, b)?;
    }
    Ok(y)
}

/// Batch normalization over the batch statistics (training, or no running statistics): the
/// reduced dims (all but 1) and epsilon.
#[derive(Clone)]
struct Stats {
    dims: Vec<i64>,
    eps: f64,
}

impl Stats {
    /// The mean and the biased variance as the mean of squared deviations (the two-pass formula:
    /// a mean whose elementwise prologue fuses, so over an `[N, C, H, W]` activation it runs as
    /// the per-(image, channel) runs' means first, bench/KERNELS.md "Reductions by runs");
    /// `[1, C, 1, …]` each. Differentiable when grad mode is on.
    fn moments(&self, x: &Tensor) -> Result<(Tensor, Tensor)> {
        let mean = o::mean(x, &self.dims, true)?;
        let dev = o::sub(x, &mean)?;
        let var = o::mean(&o::mul(&dev, &dev)?, &self.dims, true)?;
        Ok((mean, var))
    }

    /// `1/sqrt(var + eps)`.
    fn rstd(&self, var: &Tensor) -> Result<Tensor> {
        o::unary(&o::add_scalar(var, self.eps)?, Op::Rsqrt)
    }

    /// `(x − mean)·rstd·w + b`, one elementwise kernel (fused onward, a ReLU's too).
    fn affine(x: &Tensor, mean: &Tensor, rstd: &Tensor, w: Option<&Tensor>, b: Option<&Tensor>) -> Result<Tensor> {
        let mut y = o::mul(&o::sub(x, mean)?, rstd)?;
        if let Some(w) = w {
            y = o::mul(&y, w)?;
        }
        if let Some(b) = b {
            y = o::add(&y, b)?;
        }
        Ok(y)
    }

    /// The normalized output over the batch `mean` and `var` (detached) as one node
    /// (`NativeBatchNormBackward0`). Its backward is PyTorch's closed form, `dx = w·rstd·(dy −
    /// mean(dy) − x̂·mean(dy·x̂))`, `dw = Σ dy·x̂`, `db = Σ dy` (x̂ = (x − mean)·rstd): two fused
    /// sums and one elementwise pass, x − mean recomputed where read. Composed of the pieces'
    /// rules, the backward took a dozen kernels per layer and materialised x − mean in the
    /// forward (bench/KERNELS.md, "The ResNet-18 step, traced"). With `create_graph` the same
    /// formula is recorded over statistics recomputed from `x` (so it differentiates through
    /// them).
    fn normalized(
        &self,
        x: &Tensor,
        mean: &Tensor,
        var: &Tensor,
        w: Option<&Tensor>,
        b: Option<&Tensor>,
    ) -> Result<Tensor> {
        // `rsqrt(var + eps)` pending, computed inside the output's kernel.
        let (rstd, mut y) = crate::tensor::fusion::with_small_fused(|| {
            super::with_grad_mode(false, || -> Result<_> {
                let rstd = self.rstd(var)?;
                let y = Self::affine(x, mean, &rstd, w, b)?;
                Ok((rstd, y))
            })
        })?;
        let inputs: Vec<&Tensor> = [Some(x), w, b].into_iter().flatten().collect();
        if super::needs_grad(&inputs) {
            let (st, xs, ws, saved) = (self.clone(), x.clone(), w.cloned(), (mean.clone(), rstd.clone()));
            let has_b = b.is_some();
            let saved_inputs: Vec<&Tensor> = [Some(x), w].into_iter().flatten().collect();
            super::record(
                "NativeBatchNormBackward0",
                &inputs,
                &saved_inputs,
                &mut [&mut y],
                Box::new(move |gs| {
                    let dy = super::ops::first(gs)?;
                    // dy and x − mean stay pending through the two sums into dx's kernel, and the
                    // per-channel coefficients are computed inside it.
                    crate::tensor::fusion::with_wider_window(16, || {
                        crate::tensor::fusion::with_small_fused(|| {
                            let (mean, rstd) = if super::is_grad_enabled() {
                                let (m, v) = st.moments(&xs)?;
                                let r = st.rstd(&v)?;
                                (m, r)
                            } else {
                                saved.clone()
                            };
                            let xmu = o::sub(&xs, &mean)?;
                            let sum_dy = o::sum(dy, &st.dims, true)?;
                            let sum_dy_xmu = o::sum(&o::mul(dy, &xmu)?, &st.dims, true)?;
                            let m = (xs.numel() / xs.shape()[1].max(1)) as f64;
                            // dy − Σdy/M − (x − mean)·rstd²·Σ(dy·(x − mean))/M, times rstd·w.
                            let k = o::scale(&o::mul(&o::mul(&rstd, &rstd)?, &sum_dy_xmu)?, 1.0 / m)?;
                            let centered = o::sub(&o::sub(dy, &o::scale(&sum_dy, 1.0 / m)?)?, &o::mul(&xmu, &k)?)?;
                            let gain = match &ws {
                                Some(w) => o::mul(&rstd, w)?,
                                None => rstd.clone(),
                            };
                            // (w and b are inputs as their `[1, C, 1, …]` views: gradients of that shape.)
                            let mut out = vec![Some(o::mul(&centered, &gain)?)];
                            if ws.is_some() {
                                out.push(Some(o::mul(&sum_dy_xmu, &rstd)?));
                            }
                            if has_b {
                                out.push(Some(sum_dy));
                            }
                            Ok(out)
                        })
                    })
                }),
            );
        }
        Ok(y)
    }
}
