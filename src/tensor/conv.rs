//! Convolution and its building blocks, with PyTorch's argument checks and error messages:
//! `pad_interior` (constant padding with XLA-style interior padding and cropping), `windows`
//! (sliding windows as a strided view: im2col without a copy) and `convolution` (N-d, groups,
//! asymmetric padding).
//!
//! A 2-D float32 convolution runs the backend's implicit-GEMM kernel where it has one
//! (`Kernel::Conv2d`, on WebGPU `backend/webgpu/conv.rs`): the input windows are read in the
//! matmul's load stage, no column buffer. Everything else (other ranks and dtypes, the CPU
//! backend, geometries that kernel declines) is the windows view copied into `[N, G, Cg·k, L]`
//! columns by the elementwise copy kernel (which reads any strides: a gather with no index
//! buffer) and one batched call of the tiled matmul: every geometry (stride, dilation, groups,
//! 1-d/2-d/3-d) at the matmul's speed, at the cost of the `k`-times larger column buffer.

use super::Tensor;
use crate::backend::Kernel;
use crate::bail;
use crate::error::Result;
use crate::ops::Op;
use crate::shape::fmt_shape;

/// The geometry of a convolution over the trailing spatial dims, one entry per spatial dim.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvArgs {
    pub stride: Vec<usize>,
    pub pad_lo: Vec<usize>,
    pub pad_hi: Vec<usize>,
    pub dilation: Vec<usize>,
    pub groups: usize,
}

/// `padding=` of `F.conv*d`: sizes, `'same'` or `'valid'`.
#[derive(Clone, Debug)]
pub enum Padding {
    Explicit(Vec<i64>),
    Same,
    Valid,
}

/// A scalar or per-dim argument expanded to `k` entries, with PyTorch's length message.
pub fn expand_arg(name: &str, v: &[i64], k: usize) -> Result<Vec<i64>> {
    match v.len() {
        1 => Ok(vec![v[0]; k]),
        n if n == k => Ok(v.to_vec()),
        _ => bail!(
            Torch,
            "expected {name} to be a single integer value or a list of {k} values to match the convolution dimensions, but got {name}={v:?}"
        ),
    }
}

fn x_join(v: &[usize]) -> String {
    v.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(" x ")
}

/// Output size of one spatial dim: `(size + lo + hi - dilation·(k-1) - 1) / stride + 1`.
pub fn out_size(size: usize, lo: usize, hi: usize, k: usize, stride: usize, dilation: usize) -> usize {
    (size + lo + hi - dilation * (k - 1) - 1) / stride + 1
}

impl ConvArgs {
    /// A 1-D geometry as the 2-D one over rows of one (height: stride 1, no padding, dilation 1).
    pub fn as_2d(&self) -> ConvArgs {
        let two = |v: &[usize], h: usize| vec![h, v[0]];
        ConvArgs {
            stride: two(&self.stride, 1),
            pad_lo: two(&self.pad_lo, 0),
            pad_hi: two(&self.pad_hi, 0),
            dilation: two(&self.dilation, 1),
            groups: self.groups,
        }
    }

    /// Checks `F.conv{k}d(x, w, bias, stride, padding, dilation, groups)` (x batched: `[N, C, *S]`)
    /// in PyTorch's order and words; returns the geometry.
    #[allow(clippy::too_many_arguments)]
    pub fn check(
        x: &Tensor,
        w: &Tensor,
        bias: Option<&Tensor>,
        stride: &[i64],
        padding: &Padding,
        dilation: &[i64],
        groups: i64,
        transposed: bool,
    ) -> Result<ConvArgs> {
        let k = w.ndim().saturating_sub(2).max(1);
        let stride = expand_arg("stride", stride, k)?;
        let dilation = expand_arg("dilation", dilation, k)?;
        let ks: Vec<usize> = w.shape().iter().skip(2).copied().collect();
        let (lo, hi) = match padding {
            Padding::Valid => (vec![0; k], vec![0; k]),
            Padding::Explicit(p) => {
                let p = expand_arg("padding", p, k)?;
                if p.iter().any(|&v| v < 0) {
                    bail!(Torch, "negative padding is not supported");
                }
                let p: Vec<usize> = p.iter().map(|&v| v as usize).collect();
                (p.clone(), p)
            }
            Padding::Same => {
                if stride.iter().any(|&s| s != 1) {
                    bail!(Torch, "padding='same' is not supported for strided convolutions");
                }
                // PyTorch puts the odd element of the total padding on the right.
                let total: Vec<usize> =
                    ks.iter().zip(&dilation).map(|(&kk, &d)| (d.max(0) as usize) * kk.saturating_sub(1)).collect();
                (total.iter().map(|t| t / 2).collect(), total.iter().map(|t| t - t / 2).collect())
            }
        };
        if stride.iter().any(|&s| s <= 0) {
            bail!(Torch, "non-positive stride is not supported");
        }
        if dilation.iter().any(|&d| d <= 0) {
            bail!(Torch, "dilation should be greater than zero, but got {dilation:?}");
        }
        if groups <= 0 {
            bail!(Torch, "non-positive groups is not supported");
        }
        if w.ndim() != x.ndim() {
            bail!(
                Shape,
                "Expected {}-dimensional input for {}-dimensional weight {}, but got {}-dimensional input of size {} instead",
                w.ndim(),
                w.ndim(),
                fmt_shape(w.shape()),
                x.ndim(),
                fmt_shape(x.shape())
            );
        }
        let g = groups as usize;
        let ws = w.shape();
        if !ws[0].is_multiple_of(g) {
            bail!(
                Shape,
                "Given groups={g}, expected weight to be divisible by {g} at dimension 0, but got weight of size [{}] instead",
                fmt_shape(ws)
            );
        }
        let (c_expected, label) = if transposed { (ws[0], "transposed=1") } else { (ws[1] * g, "") };
        if x.shape()[1] != c_expected {
            let head = if transposed { label.to_string() } else { format!("groups={g}") };
            bail!(
                Shape,
                "Given {head}, weight of size {}, expected input{} to have {c_expected} channels, but got {} channels instead",
                fmt_shape(ws),
                fmt_shape(x.shape()),
                x.shape()[1]
            );
        }
        let stride: Vec<usize> = stride.iter().map(|&s| s as usize).collect();
        let dilation: Vec<usize> = dilation.iter().map(|&d| d as usize).collect();
        if !transposed {
            let padded: Vec<usize> = (0..k).map(|i| x.shape()[2 + i] + lo[i] + hi[i]).collect();
            let eff: Vec<usize> = (0..k).map(|i| dilation[i] * (ks[i] - 1) + 1).collect();
            if padded.iter().zip(&eff).any(|(p, e)| e > p) {
                bail!(
                    Shape,
                    "Calculated padded input size per channel: ({}). Kernel size: ({}). Kernel size can't be greater than actual input size",
                    x_join(&padded),
                    x_join(&eff)
                );
            }
        }
        let out_channels = if transposed { ws[1] * g } else { ws[0] };
        if let Some(b) = bias {
            if b.ndim() != 1 || b.shape()[0] != out_channels {
                bail!(
                    Shape,
                    "Given weight of size {}, expected bias to be 1-dimensional with {out_channels} elements, but got bias of size {} instead",
                    fmt_shape(ws),
                    fmt_shape(b.shape())
                );
            }
        }
        Ok(ConvArgs { stride, pad_lo: lo, pad_hi: hi, dilation, groups: g })
    }
}

impl Tensor {
    /// Constant padding of the trailing `spec.len()` dims, each `(lo, hi, interior)`: `interior`
    /// copies of `value` between neighbouring elements, then `lo`/`hi` before/after (negative
    /// ones crop). Zero-insertion for transposed convolutions and `F.pad(mode='constant')`.
    pub fn pad_interior(&self, spec: &[(i64, i64, usize)], value: f64) -> Result<Tensor> {
        let n = self.ndim();
        if spec.len() > n {
            bail!(Torch, "Padding length too large");
        }
        if spec.iter().all(|&(lo, hi, i)| lo == 0 && hi == 0 && i == 0) {
            return Ok(self.clone());
        }
        let mut full = self.shape().to_vec();
        let mut lens = vec![];
        for (i, &(lo, hi, int)) in spec.iter().enumerate() {
            let d = n - spec.len() + i;
            let s = self.shape()[d] as i64;
            let dil = if s == 0 { 0 } else { (s - 1) * (int as i64 + 1) + 1 };
            let len = lo + dil + hi;
            if len < 0 {
                bail!(
                    Torch,
                    "The input size {s}, plus negative padding {lo} and {hi} resulted in a negative output size, which is invalid. Check dimension {d} of your input."
                );
            }
            full[d] = (lo.max(0) + dil + hi.max(0)) as usize;
            lens.push(len);
        }
        let out = Tensor::full(&full, value, self.dtype, self.device())?;
        let mut slot = out.clone();
        for (i, &(lo, _, int)) in spec.iter().enumerate() {
            let d = (n - spec.len() + i) as i64;
            let s = self.shape()[d as usize] as i64;
            slot = slot.slice(d, Some(lo.max(0)), None, int as i64 + 1)?.narrow(d, 0, s)?;
        }
        if self.numel() > 0 {
            slot.assign_(self)?;
        }
        let mut r = out;
        for (i, &(lo, _, _)) in spec.iter().enumerate() {
            let d = (n - spec.len() + i) as i64;
            r = r.narrow(d, (-lo).max(0), lens[i])?;
        }
        Ok(r)
    }

    /// Sliding windows over the trailing `kernel.len()` dims, as a view (no copy):
    /// `[*lead, *S] → [*lead, *out, *kernel]`, window `o` element `j` at `o·stride + j·dilation`.
    pub fn windows(&self, kernel: &[usize], stride: &[usize], dilation: &[usize]) -> Result<Tensor> {
        let (n, k) = (self.ndim(), kernel.len());
        let mut l = self.layout.clone();
        let mut ks = vec![];
        for i in 0..k {
            let d = n - k + i;
            let (s, st) = (self.shape()[d], self.layout.strides[d]);
            let eff = dilation[i] * (kernel[i] - 1) + 1;
            if eff > s {
                bail!(Shape, "window of {eff} is larger than the size {s} of dimension {d}");
            }
            l.shape[d] = (s - eff) / stride[i] + 1;
            l.strides[d] = st * stride[i];
            ks.push(st * dilation[i]);
        }
        l.shape.extend_from_slice(kernel);
        l.strides.extend(ks);
        Ok(self.with_layout(l))
    }

    /// A 2-D (or 1-D, as 2-D over rows of one) float32 convolution by the backend's kernels
    /// (`Kernel::Conv2d`), or `None` where the backend declines it (then `convolution` takes the
    /// im2col route).
    fn conv2d_direct(&self, w: &Tensor, a: &ConvArgs) -> Result<Option<Tensor>> {
        if w.ndim() == 3 {
            // A 1-D convolution as a 2-D one over rows of one.
            let y = self.unsqueeze(2)?.conv2d_direct(&w.unsqueeze(2)?, &a.as_2d())?;
            return y.map(|y| y.squeeze_dim(2)).transpose();
        }
        if w.ndim() != 4 || self.numel() == 0 || w.numel() == 0 {
            return Ok(None);
        }
        let s = self.shape();
        let kernel = [w.shape()[2], w.shape()[3]];
        let out_hw: [usize; 2] = std::array::from_fn(|i| {
            out_size(s[2 + i], a.pad_lo[i], a.pad_hi[i], kernel[i], a.stride[i], a.dilation[i])
        });
        let g = self.conv_geometry(a, false, w.shape()[0], kernel, out_hw);
        let Some(row) = g.direct_row(&self.backend().capabilities()) else { return Ok(None) };
        // Weight rows of `row` values, the columns past `Cg·kh·kw` zero.
        let kk = g.weight_row();
        let wc = if row == kk {
            aligned(w.contiguous()?)?
        } else {
            w.reshape(&[g.o as i64, kk as i64])?.pad_interior(&[(0, (row - kk) as i64, 0)], 0.0)?.contiguous()?
        };
        let y = Tensor::empty_on(self.backend(), &[s[0], g.o, out_hw[0], out_hw[1]], self.dtype)?;
        let k = crate::backend::Conv2d {
            x: self.operand(s)?,
            w: wc.operand(wc.shape())?.buf,
            w_offset: wc.layout.offset,
            out: y.buf()?,
            row,
            g,
            splits: 1,
            images: 1,
        };
        self.backend().launch(Kernel::Conv2d(&k))?;
        Ok(Some(y))
    }

    /// The geometry of a 2-D convolution of this `[N, C, H, W]` input (or of its weight
    /// gradient) for its route (`ConvGeometry::direct_row`).
    fn conv_geometry(
        &self,
        a: &ConvArgs,
        weight_grad: bool,
        o: usize,
        kernel: [usize; 2],
        out_hw: [usize; 2],
    ) -> crate::backend::ConvGeometry {
        let s = self.shape();
        crate::backend::ConvGeometry {
            dtype: self.dtype,
            weight_grad,
            input: [s[0], s[1], s[2], s[3]],
            o,
            groups: a.groups,
            kernel,
            stride: [a.stride[0], a.stride[1]],
            pad: [a.pad_lo[0], a.pad_lo[1]],
            dilation: [a.dilation[0], a.dilation[1]],
            out_hw,
        }
    }

    /// The weight's gradient `[O, Cg, kh, kw]` of a 2-D float32 convolution of this input with
    /// geometry `a`, given the output's gradient `g` `[N, O, oh, ow]`: the backend's
    /// implicit-GEMM kernel writes each image's share (`Conv2d::weight_grad`, rows padded to a
    /// multiple of 4), then one sum over the images. `None` where the backend declines it.
    pub fn conv2d_weight_grad_direct(&self, g: &Tensor, wshape: &[usize], a: &ConvArgs) -> Result<Option<Tensor>> {
        if let [o, cg, k] = *wshape {
            let gw = self.unsqueeze(2)?.conv2d_weight_grad_direct(&g.unsqueeze(2)?, &[o, cg, 1, k], &a.as_2d())?;
            return gw.map(|t| t.squeeze_dim(2)).transpose();
        }
        if wshape.len() != 4 || self.numel() == 0 || g.numel() == 0 {
            return Ok(None);
        }
        super::elementwise::check_same_device(self, g)?;
        let geom = self.conv_geometry(a, true, wshape[0], [wshape[2], wshape[3]], [g.shape()[2], g.shape()[3]]);
        let caps = self.backend().capabilities();
        let Some(row) = geom.direct_row(&caps) else { return Ok(None) };
        let (n, o, cols) = (geom.input[0], geom.o, geom.weight_row());
        let (images, splits) = geom.weight_grad_blocks(row, &caps);
        let gc = aligned(g.contiguous()?)?;
        let part = Tensor::empty_on(self.backend(), &[n.div_ceil(images) * splits, o, row], self.dtype)?;
        let k = crate::backend::Conv2d {
            x: self.operand(self.shape())?,
            w: gc.operand(gc.shape())?.buf,
            w_offset: gc.layout.offset,
            out: part.buf()?,
            row,
            g: geom,
            splits,
            images,
        };
        self.backend().launch(Kernel::Conv2d(&k))?;
        let shape: Vec<i64> = wshape.iter().map(|&v| v as i64).collect();
        let mut gw = part.sum(&[0], false)?;
        if row != cols {
            gw = gw.narrow(1, 0, cols as i64)?.contiguous()?;
        }
        Ok(Some(gw.reshape(&shape)?))
    }

    /// `F.conv{k}d` on a batched input `[N, C, *S]` with weight `[O, C/groups, *kernel]` and an
    /// optional bias `[O]` (checked by `ConvArgs::check`): the backend's kernels where it has
    /// them (`conv2d_direct`), else im2col columns and one batched matmul.
    pub fn convolution(&self, w: &Tensor, bias: Option<&Tensor>, a: &ConvArgs) -> Result<Tensor> {
        super::elementwise::check_same_device(self, w)?;
        if self.dtype != w.dtype {
            bail!(DType, "expected scalar type {} but found {}", self.dtype.scalar_name(), w.dtype.scalar_name());
        }
        if !self.dtype.is_float() {
            bail!(DType, "\"conv\" not implemented for '{}'", self.dtype.scalar_name());
        }
        let y = match self.conv2d_direct(w, a)? {
            Some(y) => y,
            None => self.convolution_im2col(w, a)?,
        };
        match bias {
            None => Ok(y),
            Some(b) => {
                let mut bs = vec![w.shape()[0] as i64];
                bs.extend(std::iter::repeat_n(1, w.ndim() - 2));
                y.binary(Op::Add, &b.reshape(&bs)?)
            }
        }
    }

    /// `convolution` without its bias, by im2col columns and one batched matmul.
    fn convolution_im2col(&self, w: &Tensor, a: &ConvArgs) -> Result<Tensor> {
        let k = w.ndim() - 2;
        let (n, c, o, g) = (self.shape()[0], self.shape()[1], w.shape()[0], a.groups);
        let (cg, og) = (c / g, o / g);
        let kernel: Vec<usize> = w.shape()[2..].to_vec();
        let spec: Vec<(i64, i64, usize)> = (0..k).map(|i| (a.pad_lo[i] as i64, a.pad_hi[i] as i64, 0)).collect();
        let xp = self.pad_interior(&spec, 0.0)?;
        let win = xp.windows(&kernel, &a.stride, &a.dilation)?; // [N, C, *out, *kernel]
        let out: Vec<usize> = win.shape()[2..2 + k].to_vec();
        let (kk, ll): (usize, usize) = (kernel.iter().product(), out.iter().product());
        let mut split: Vec<i64> = vec![n as i64, g as i64, cg as i64];
        split.extend(out.iter().chain(&kernel).map(|&s| s as i64));
        // [N, G, Cg, *out, *kernel] → [N, G, Cg, *kernel, *out] → columns [N, G, Cg·k, L] (the
        // copy reads and writes along the output positions). The product is columnsᵀ × weightᵀ
        // = [N, G, L, Og] through a transposed view: L (large) is the matmul's M and the output
        // channels its N (with the weight as M, 64 channels filled half of a 128-row tile).
        let mut perm: Vec<i64> = vec![0, 1, 2];
        perm.extend((0..k as i64).map(|i| 3 + k as i64 + i));
        perm.extend((0..k as i64).map(|i| 3 + i));
        let cols = win.reshape(&split)?.permute(&perm)?.reshape(&[n as i64, g as i64, (cg * kk) as i64, ll as i64])?;
        let wt = w.reshape(&[g as i64, og as i64, (cg * kk) as i64])?.transpose(1, 2)?;
        let mut shape: Vec<i64> = vec![n as i64, o as i64];
        shape.extend(out.iter().map(|&s| s as i64));
        cols.transpose(2, 3)?.matmul(&wt)?.transpose(2, 3)?.reshape(&shape)?.contiguous()
    }
}

/// A contiguous tensor whose first value sits at a multiple of 4 words (the conv kernels read
/// the weight, or the output's gradient, as vec4 from there): a copy where a view starts
/// between.
fn aligned(t: Tensor) -> Result<Tensor> {
    if t.layout.offset.is_multiple_of(4) {
        Ok(t)
    } else {
        t.deep_clone()
    }
}
