//! Differentiable convolutions: `conv` (a node whose backward is a transposed convolution for the
//! input, a convolution of input and gradient for the weight — or the backend's implicit-GEMM
//! weight gradient — and a sum for the bias), transposed
//! convolutions (composed: zero-insertion padding, then a convolution with the flipped kernel),
//! `pad` (constant, with interior padding) and `windows` (im2col; backward folds with
//! scatter_add). Rules are written with these same differentiable ops, so they nest.

use super::kernels as agk;
use super::ops::{self as o, first};
use super::{needs_grad, record};
use crate::dtype::DType;
use crate::error::Result;
use crate::shape::fmt_shape;
use crate::tensor::conv::{expand_arg, ConvArgs, Padding};
use crate::tensor::Tensor;

fn ints(v: &[usize]) -> Vec<i64> {
    v.iter().map(|&s| s as i64).collect()
}

/// Records a one-output node whose backward maps `g` to one gradient per input.
fn node(
    name: &str,
    inputs: &[&Tensor],
    saved: &[&Tensor],
    y: &mut Tensor,
    f: impl Fn(&Tensor) -> Result<Vec<Option<Tensor>>> + 'static,
) {
    record(name, inputs, saved, &mut [y], Box::new(move |g| f(first(g)?)));
}

/// `Tensor::pad_interior`, differentiable: the gradient takes every `(interior + 1)`-th element
/// of the (un-cropped) upstream gradient.
pub fn pad(x: &Tensor, spec: &[(i64, i64, usize)], value: f64) -> Result<Tensor> {
    let mut y = x.pad_interior(spec, value)?;
    if needs_grad(&[x]) && !y.same_storage(x) {
        let (spec, shape) = (spec.to_vec(), x.shape().to_vec());
        node("ConstantPadNdBackward0", &[x], &[], &mut y, move |g| {
            let undo: Vec<(i64, i64, usize)> =
                spec.iter().map(|&(lo, hi, _)| ((-lo).max(0), (-hi).max(0), 0)).collect();
            let mut t = pad(g, &undo, 0.0)?;
            for (i, &(lo, _, int)) in spec.iter().enumerate() {
                let d = (shape.len() - spec.len() + i) as i64;
                t = o::slice(&t, d, Some(lo.max(0)), None, int as i64 + 1)?;
                t = o::narrow(&t, d, 0, shape[d as usize] as i64)?;
            }
            Ok(vec![Some(t)])
        });
    }
    Ok(y)
}

/// Sliding windows `[*lead, *S] → [*lead, *out, *kernel]` (contiguous). The gradient folds the
/// windows back: a scatter_add into the flattened spatial dims at host-computed positions.
pub fn windows(x: &Tensor, kernel: &[usize], stride: &[usize], dilation: &[usize]) -> Result<Tensor> {
    let mut y = x.windows(kernel, stride, dilation)?.contiguous()?;
    if needs_grad(&[x]) {
        let shape = x.shape().to_vec();
        let k = kernel.len();
        let spatial = shape[shape.len() - k..].to_vec();
        let out = y.shape()[shape.len() - k..shape.len()].to_vec();
        // Flat spatial position of every (window, element), windows major.
        crate::engine::check_host_alloc(
            "unfold",
            y.numel() / shape[..shape.len() - k].iter().product::<usize>().max(1),
            8,
            2,
        )?;
        let mut pos = vec![0usize];
        for (i, &size) in out.iter().enumerate() {
            let step: usize = spatial[i + 1..].iter().product();
            pos = pos.iter().flat_map(|&p| (0..size).map(move |o| p + o * stride[i] * step)).collect();
        }
        for (i, &size) in kernel.iter().enumerate() {
            let step: usize = spatial[i + 1..].iter().product();
            pos = pos.iter().flat_map(|&p| (0..size).map(move |j| p + j * dilation[i] * step)).collect();
        }
        let idx: Vec<f64> = pos.iter().map(|&p| p as f64).collect();
        let index = Tensor::from_f64(&idx, &[idx.len()], DType::Int64, x.device())?;
        node("UnfoldBackward0", &[x], &[], &mut y, move |g| {
            let lead: usize = shape[..shape.len() - k].iter().product();
            let (s, l) = (spatial.iter().product::<usize>() as i64, index.numel() as i64);
            let z = Tensor::full(&[lead, s as usize], 0.0, g.dtype, g.device())?;
            let idx = index.reshape(&[1, l])?.expand(&[lead as i64, l])?;
            let folded = agk::scatter_add(&z, 1, &idx, &o::reshape(g, &[lead as i64, l])?)?;
            Ok(vec![Some(o::reshape(&folded, &ints(&shape))?)])
        });
    }
    Ok(y)
}

/// `w` of a convolution `[O, Cg, *k]` as the weight of its transpose: `[C, Og, *k]`, each group
/// transposed, the kernel flipped.
fn flip_transpose(w: &Tensor, groups: usize) -> Result<Tensor> {
    let s = w.shape();
    let (o_, cg) = (s[0], s[1]);
    let og = o_ / groups;
    let mut split = vec![groups as i64, og as i64, cg as i64];
    split.extend(ints(&s[2..]));
    let mut merged = vec![(groups * cg) as i64, og as i64];
    merged.extend(ints(&s[2..]));
    let mut t = o::reshape(&o::transpose(&o::reshape(w, &split)?, 1, 2)?, &merged)?;
    for (d, &size) in s.iter().enumerate().skip(2) {
        if size > 1 {
            t = agk::flip(&t, d)?;
        }
    }
    Ok(t)
}

/// The input-gradient of a convolution with geometry `a`: `g` `[N, O, *out]` → `[N, C, *size]`.
/// Zero-insert `stride - 1` between elements, pad by `dilation·(k-1) - pad_lo` in front and to
/// `size` behind, then a stride-1 convolution with the flipped, group-transposed kernel.
fn conv_input_grad(g: &Tensor, w: &Tensor, a: &ConvArgs, size: &[usize]) -> Result<Tensor> {
    let k = w.ndim() - 2;
    // Phases where each output value gathers enough products to outweigh their extra dispatches
    // (stride^k convolutions and writes against a zero insertion and one convolution): a
    // depthwise 3×3 stride-2 layer (9 products a value) is slower by phases, ResNet's 3×3 and
    // 1×1 stride-2 layers faster (bench/KERNELS.md, "Strided input gradients by phases").
    let products = w.shape()[0] / a.groups * w.shape()[2..].iter().product::<usize>();
    if crate::engine::tuning(|t| t.conv_grad_phases)
        && a.stride.iter().any(|&s| s > 1)
        && a.dilation.iter().all(|&d| d == 1)
        && products >= 32
    {
        return conv_input_grad_phases(g, w, a, size);
    }
    let spec: Vec<(i64, i64, usize)> = (0..k)
        .map(|i| {
            let (kk, d, s) = (w.shape()[2 + i] as i64, a.dilation[i] as i64, a.stride[i] as i64);
            let o_ = g.shape()[2 + i] as i64;
            let lo = d * (kk - 1) - a.pad_lo[i] as i64;
            let hi = size[i] as i64 + a.pad_lo[i] as i64 - (o_ - 1) * s - 1;
            (lo, hi, a.stride[i] - 1)
        })
        .collect();
    let gq = pad(g, &spec, 0.0)?;
    let unit = ConvArgs {
        stride: vec![1; k],
        pad_lo: vec![0; k],
        pad_hi: vec![0; k],
        dilation: a.dilation.clone(),
        groups: a.groups,
    };
    conv(&gq, &flip_transpose(w, a.groups)?, None, &unit)
}

/// The input gradient of a strided convolution (dilation 1) without zero insertion, by phases:
/// the input positions `y ≡ r (mod stride)` receive only the kernel taps `i ≡ r + pad (mod
/// stride)`, from consecutive positions of `g`, so each of the `stride^k` phases is a stride-1
/// convolution of `g` itself (a view of it, or padded by the convolution) with those taps of
/// the flipped kernel, written into every stride-th position of the result. Zero insertion made
/// the convolution run over `stride^k` times the positions, all but one in `stride^k` products
/// with zeros, after a pass writing them (bench/KERNELS.md, "Strided input gradients"). A phase
/// no tap reaches (a 1×1 kernel of stride 2) is zeros. Recorded (`create_graph`), the phases are
/// stacked and interleaved by differentiable reshapes instead of written in place.
fn conv_input_grad_phases(g: &Tensor, w: &Tensor, a: &ConvArgs, size: &[usize]) -> Result<Tensor> {
    let k = w.ndim() - 2;
    let ft = flip_transpose(w, a.groups)?;
    let (n, c) = (g.shape()[0], ft.shape()[0]);
    let s = &a.stride;
    // Each phase's positions per dim (the last phase's may pass the input: cropped at the end).
    let hq: Vec<usize> = (0..k).map(|d| size[d].div_ceil(s[d])).collect();
    let whole: Vec<usize> = [n, c].into_iter().chain((0..k).map(|d| hq[d] * s[d])).collect();
    let recorded = super::is_grad_enabled() && needs_grad(&[g, w]);
    let out = if recorded { None } else { Some(Tensor::empty(&whole, g.dtype, g.device())?) };
    let mut parts = vec![];
    for p in 0..s.iter().product::<usize>() {
        let (mut sub, mut gv, mut q) = (ft.clone(), g.clone(), p);
        let mut unit = ConvArgs {
            stride: vec![1; k],
            pad_lo: vec![0; k],
            pad_hi: vec![0; k],
            dilation: vec![1; k],
            groups: a.groups,
        };
        let mut r = vec![0; k];
        let mut reached = true;
        for d in (0..k).rev() {
            r[d] = q % s[d];
            q /= s[d];
            let (rd, sd, kh, pl) = (r[d] as i64, s[d] as i64, w.shape()[2 + d] as i64, a.pad_lo[d] as i64);
            // The first tap reaching phase r, how many do, and the offset into `g` of the first.
            let i0 = (rd + pl).rem_euclid(sd);
            if i0 >= kh {
                reached = false;
                continue;
            }
            let taps = (kh - i0 + sd - 1) / sd;
            let e = (rd + pl - i0) / sd;
            // In the flipped kernel those taps are every stride-th from `kh − 1 − last tap`.
            sub = o::slice(&sub, 2 + d as i64, Some(kh - 1 - (i0 + (taps - 1) * sd)), Some(kh - i0), sd)?;
            // `g` padded by (lo, hi) gives hq outputs; a negative side is a narrower view.
            let (og, lo) = (g.shape()[2 + d] as i64, taps - 1 - e);
            let hi = hq[d] as i64 - og - lo + taps - 1;
            let (cut_lo, cut_hi) = ((-lo).max(0), (-hi).max(0));
            gv = o::narrow(&gv, 2 + d as i64, cut_lo, og - cut_lo - cut_hi)?;
            (unit.pad_lo[d], unit.pad_hi[d]) = (lo.max(0) as usize, hi.max(0) as usize);
        }
        let phase = if reached { Some(conv(&gv, &sub, None, &unit)?) } else { None };
        match &out {
            // Every stride-th position of the result from r.
            Some(dx) => {
                let mut view = dx.clone();
                for d in 0..k {
                    view = view.slice(2 + d as i64, Some(r[d] as i64), None, s[d] as i64)?;
                }
                match phase {
                    Some(ph) => view.assign_(&ph)?,
                    None => view.assign_(&Tensor::full(&[], 0.0, g.dtype, g.device())?)?,
                }
            }
            None => parts.push(match phase {
                Some(ph) => ph,
                None => Tensor::full(
                    &[n, c].into_iter().chain(hq.iter().copied()).collect::<Vec<_>>(),
                    0.0,
                    g.dtype,
                    g.device(),
                )?,
            }),
        }
    }
    let mut dx = match out {
        Some(dx) => dx,
        None => {
            // [N, C, *hq, phases] → [N, C, hq_0, s_0, hq_1, s_1, …] → [N, C, hq_0·s_0, …].
            let split: Vec<usize> = [n, c].into_iter().chain(hq.iter().copied()).chain(s.iter().copied()).collect();
            let stacked = o::reshape(&agk::stack(&parts.iter().collect::<Vec<_>>(), -1)?, &ints(&split))?;
            let perm: Vec<i64> =
                [0, 1].into_iter().chain((0..k as i64).flat_map(|d| [2 + d, 2 + k as i64 + d])).collect();
            o::reshape(&o::permute(&stacked, &perm)?, &ints(&whole))?
        }
    };
    for d in 0..k {
        if whole[2 + d] != size[d] {
            dx = o::narrow(&dx, 2 + d as i64, 0, size[d] as i64)?;
        }
    }
    Ok(dx)
}

/// The weight-gradient: a convolution of the padded input (channels as the batch) with the
/// gradient (batch as the input channels), stride and dilation swapped, cut to the kernel size.
fn conv_weight_grad(x: &Tensor, g: &Tensor, wshape: &[usize], a: &ConvArgs) -> Result<Tensor> {
    // The backend's implicit-GEMM weight gradient where it has one; not when this backward is
    // itself recorded (create_graph), which needs the differentiable composition below.
    if !needs_grad(&[x, g]) {
        if let Some(gw) = x.conv2d_weight_grad_direct(g, wshape, a)? {
            return Ok(gw);
        }
    }
    let k = wshape.len() - 2;
    let (n, c, o_, gr) = (x.shape()[0], x.shape()[1], g.shape()[1], a.groups);
    let spec: Vec<(i64, i64, usize)> = (0..k).map(|i| (a.pad_lo[i] as i64, a.pad_hi[i] as i64, 0)).collect();
    let xp = pad(x, &spec, 0.0)?;
    let lead = |v: &[usize], t: &Tensor| {
        let mut s = ints(v);
        s.extend(ints(&t.shape()[2..]));
        s
    };
    let perm: Vec<i64> = [2, 1, 0].into_iter().chain(3..3 + k as i64).collect();
    let xt = o::reshape(
        &o::permute(&o::reshape(&xp, &lead(&[n, gr, c / gr], &xp))?, &perm)?,
        &lead(&[c / gr, gr * n], &xp),
    )?;
    let perm: Vec<i64> = [1, 2, 0].into_iter().chain(3..3 + k as i64).collect();
    let gt = o::reshape(&o::permute(&o::reshape(g, &lead(&[n, gr, o_ / gr], g))?, &perm)?, &lead(&[o_, n], g))?;
    let swapped = ConvArgs {
        stride: a.dilation.clone(),
        pad_lo: vec![0; k],
        pad_hi: vec![0; k],
        dilation: a.stride.clone(),
        groups: gr,
    };
    let mut r = conv(&xt, &gt, None, &swapped)?; // [Cg, O, *k']
    for i in 0..k {
        r = o::narrow(&r, 2 + i as i64, 0, wshape[2 + i] as i64)?;
    }
    o::transpose(&r, 0, 1)
}

/// A checked convolution of a batched input (`ConvArgs::check` done).
pub fn conv(x: &Tensor, w: &Tensor, bias: Option<&Tensor>, a: &ConvArgs) -> Result<Tensor> {
    let mut y = x.convolution(w, bias, a)?;
    let inputs: Vec<&Tensor> = [Some(x), Some(w), bias].into_iter().flatten().collect();
    if needs_grad(&inputs) {
        let (xs, ws, a) = (x.clone(), w.clone(), a.clone());
        let has_bias = bias.is_some();
        node("ConvolutionBackward0", &inputs, &[x, w], &mut y, move |g| {
            let gx = if xs.requires_grad() { Some(conv_input_grad(g, &ws, &a, &xs.shape()[2..])?) } else { None };
            let gw = if ws.requires_grad() { Some(conv_weight_grad(&xs, g, ws.shape(), &a)?) } else { None };
            let mut out = vec![gx, gw];
            if has_bias {
                let dims: Vec<i64> = (0..g.ndim() as i64).filter(|&d| d != 1).collect();
                out.push(Some(o::sum(g, &dims, false)?));
            }
            Ok(out)
        });
    }
    Ok(y)
}

/// Unbatched input (`[C, *S]`) as a batch of one, with PyTorch's rank message.
fn batched(name: &str, x: &Tensor, k: usize) -> Result<(Tensor, bool)> {
    if x.ndim() == k + 1 {
        Ok((o::unsqueeze(x, 0)?, true))
    } else if x.ndim() == k + 2 {
        Ok((x.clone(), false))
    } else {
        crate::bail!(
            Shape,
            "Expected {}D (unbatched) or {}D (batched) input to {name}, but got input of size: {}",
            k + 1,
            k + 2,
            fmt_shape(x.shape())
        )
    }
}

fn unbatch(y: Tensor, unbatched: bool) -> Result<Tensor> {
    if unbatched {
        o::squeeze_dim(&y, 0)
    } else {
        Ok(y)
    }
}

/// `F.conv{k}d(x, w, bias, stride, padding, dilation, groups)`; `k` from the weight's rank.
pub fn conv_nd(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    stride: &[i64],
    padding: &Padding,
    dilation: &[i64],
    groups: i64,
) -> Result<Tensor> {
    let k = w.ndim().saturating_sub(2).max(1);
    let (xb, unb) = batched(&format!("conv{k}d"), x, k)?;
    let a = ConvArgs::check(&xb, w, bias, stride, padding, dilation, groups, false)?;
    unbatch(conv(&xb, w, bias, &a)?, unb)
}

/// `F.conv_transpose{k}d(x, w, bias, stride, padding, output_padding, groups, dilation)`: the
/// input-gradient of the convolution with weight `w` `[Cin, Cout/groups, *k]`, composed of
/// differentiable ops (so it needs no rule of its own).
#[allow(clippy::too_many_arguments)]
pub fn conv_transpose_nd(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    stride: &[i64],
    padding: &[i64],
    output_padding: &[i64],
    groups: i64,
    dilation: &[i64],
) -> Result<Tensor> {
    let k = w.ndim().saturating_sub(2).max(1);
    let (xb, unb) = batched(&format!("conv_transpose{k}d"), x, k)?;
    let pad = Padding::Explicit(padding.to_vec());
    let a = ConvArgs::check(&xb, w, bias, stride, &pad, dilation, groups, true)?;
    let op = expand_arg("output_padding", output_padding, k)?;
    if op.iter().any(|&v| v < 0) {
        crate::bail!(Torch, "negative output_padding is not supported");
    }
    if (0..k).any(|i| op[i] as usize >= a.stride[i] && op[i] as usize >= a.dilation[i]) {
        // PyTorch names the dims depth, height, width (3-D) or height, width; its 1-D transposed
        // convolution is a 2-D one of height 1 (output_padding 0, stride and dilation 1 there).
        let names: &[&str] = if k == 3 { &["depth", "height", "width"] } else { &["height", "width"] };
        let two = |v: &[usize], fill: usize| if k == 1 { vec![fill, v[0]] } else { v.to_vec() };
        let f = |label: &str, v: &[usize]| {
            v.iter().zip(names).map(|(x, nm)| format!("{label}_{nm}: {x}")).collect::<Vec<_>>().join(" ")
        };
        let opu: Vec<usize> = two(&op.iter().map(|&v| v as usize).collect::<Vec<_>>(), 0);
        crate::bail!(
            Torch,
            "output padding must be smaller than either stride or dilation, but got {} {} {}",
            f("output_padding", &opu),
            f("stride", &two(&a.stride, 1)),
            f("dilation", &two(&a.dilation, 1))
        );
    }
    let size: Vec<usize> = (0..k)
        .map(|i| {
            let (n, kk) = (xb.shape()[2 + i] as i64, w.shape()[2 + i] as i64);
            let v = (n - 1) * a.stride[i] as i64 - 2 * a.pad_lo[i] as i64 + a.dilation[i] as i64 * (kk - 1) + op[i] + 1;
            v.max(0) as usize
        })
        .collect();
    if size.contains(&0) {
        crate::bail!(
            Shape,
            "Given input size per channel: ({}). Calculated output size per channel: ({}). Output size is too small",
            fmt_shape(&xb.shape()[2..]),
            fmt_shape(&size)
        );
    }
    let y = conv_input_grad(&xb, w, &a, &size)?;
    let y = match bias {
        None => y,
        Some(b) => {
            let mut bs = vec![b.numel() as i64];
            bs.extend(std::iter::repeat_n(1, k));
            o::add(&y, &o::reshape(b, &bs)?)?
        }
    };
    unbatch(y, unb)
}

/// `F.pad(x, pads, mode)` for the index modes (1 reflect, 2 replicate, 3 circular): per padded
/// dim, an `index_select` with host-computed source positions (its gradient, a scatter_add, sums
/// the copies back). `pads` is F.pad's list: `(lo, hi)` pairs from the last dim backwards.
pub fn pad_mode(x: &Tensor, pads: &[i64], mode: u32) -> Result<Tensor> {
    let mut y = x.clone();
    for (i, p) in pads.chunks(2).enumerate() {
        let (lo, hi) = (p[0], p.get(1).copied().unwrap_or(0));
        let d = x.ndim() - 1 - i;
        let n = x.shape()[d] as i64;
        let name = ["reflect", "replicate", "circular"][(mode as usize).clamp(1, 3) - 1];
        let limit = if mode == 1 { n - 1 } else { n };
        // PyTorch's circular padding words its checks so.
        if mode == 3 && n > 0 && (lo > n || hi > n) {
            crate::bail!(Torch, "Padding value causes wrapping around more than once.");
        }
        if mode == 3 && n > 0 && n + lo + hi <= 0 {
            crate::bail!(Torch, "Negative padding value is resulting in an empty dimension");
        }
        if n == 0 || lo > limit.max(0) || hi > limit.max(0) || (mode != 2 && (lo.max(hi) > n || -lo.min(hi) >= n)) {
            crate::bail!(
                Torch,
                "{name} padding of ({lo}, {hi}) is invalid for dimension {d} of input of size {}",
                fmt_shape(x.shape())
            );
        }
        let src: Vec<f64> = (-lo..n + hi)
            .map(|j| match mode {
                1 => {
                    let j = j.abs();
                    if j > n - 1 {
                        2 * (n - 1) - j
                    } else {
                        j
                    }
                }
                2 => j.clamp(0, n - 1),
                // Circular wraps within what negative padding leaves of the dim, as PyTorch.
                _ => {
                    let (a, b) = ((-lo).max(0), n - (-hi).max(0));
                    a + (j - a).rem_euclid((b - a).max(1))
                }
            } as f64)
            .collect();
        let index = Tensor::from_f64(&src, &[src.len()], DType::Int64, x.device())?;
        y = agk::index_select(&y, d as i64, &index)?;
    }
    Ok(y)
}
